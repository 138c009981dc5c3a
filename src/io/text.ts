/** Terminal text helpers: ANSI styles (only when colour is on) and display width (wide CJK characters count 2). */

const STYLES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
export type Style = keyof typeof STYLES;

export function paint(enabled: boolean, style: Style, text: string): string {
  if (!enabled) return text;
  const [open, close] = STYLES[style];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** East Asian wide and fullwidth ranges (Hangul, CJK, kana, fullwidth forms, emoji). */
const WIDE: Array<[number, number]> = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];
const ZERO_WIDTH: Array<[number, number]> = [[0, 0x1f], [0x7f, 0x9f], [0x200b, 0x200f], [0xfe00, 0xfe0f]];
const MARK = /^[\p{Mn}\p{Me}]$/u;
const inRanges = (cp: number, ranges: Array<[number, number]>) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (inRanges(cp, ZERO_WIDTH) || MARK.test(ch)) return 0;
  return inRanges(cp, WIDE) ? 2 : 1;
}

export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

/** Cut `text` to at most `width` columns, ending with '…' when something was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}
