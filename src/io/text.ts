/** Terminal text helpers: ANSI styles (only when colour is on) and display width (wide CJK characters and emoji count 2). */

import { createRequire } from './require.js';

/**
 * string-width is loaded on first use, synchronously (require of an ES module, Node ≥ 20.19), so that the
 * start-up of a command that measures nothing does not load it; the require function too is made then (a Module
 * and its node_modules lookup paths: ~1 M instructions of a start-up that needs neither, e.g. `notes get -o json`),
 * and node:module with it (io/require.ts).
 */
let requirePackage: NodeJS.Require | undefined;
let measure: ((text: string) => number) | undefined;

/**
 * Load string-width now, synchronously. Call it before an `import()` of a package that imports string-width too
 * (ora): while that import is in flight its string-width is half-loaded, and a require() of it then throws
 * ("Cannot require() ES Module … not yet fully loaded"), so a table printed before the spinner's ora arrived
 * would crash. Loaded first, the import finds it complete.
 */
export function loadWidth(): (text: string) => number {
  if (!requirePackage) requirePackage = createRequire(import.meta.url);
  return (measure ??= (requirePackage('string-width') as typeof import('string-width')).default);
}
const stringWidth = (text: string): number => loadWidth()(text);

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

/**
 * Columns a string takes on a terminal: string-width (East Asian Width from Unicode's tables via
 * get-east-asian-width, emoji and emoji sequences 2, combining marks and ANSI styles 0), one grapheme at a time.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;
/** User-perceived characters: a flag, a family emoji or a letter with its accents is one. */
function graphemes(text: string): Iterable<string> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Cut `text` to at most `width` columns, ending with '…' when something was cut (never inside a character). */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of graphemes(text)) {
    const cw = stringWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** `text` followed by spaces up to `width` columns (right-aligned: spaces first). */
export function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}
