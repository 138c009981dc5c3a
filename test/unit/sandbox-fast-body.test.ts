import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { wmCreateBody, wmText } from '../../src/contract/schemas.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { FAST_BODIES, FAST_TEXTS, isWordMemoryText } from '../../src/sandbox/fast-body.js';
import { hasPlainTexts } from '../../src/sandbox/plain-texts.js';

/** The hand-written body checks accept exactly what their schema accepts, and give what its parse gives. */

const TEXTS: unknown[] = [
  'a', 'Term-1', 'x'.repeat(LIMITS.wordMemoryText.max), 'x'.repeat(LIMITS.wordMemoryText.max + 1), '😀'.repeat(LIMITS.wordMemoryText.max),
  '😀'.repeat(LIMITS.wordMemoryText.max + 1), 'e\u0301', '', ' ', 'two words', 'tab\there', 'nbsp\u00a0x', 'line\n', '\u3000', 'ok\u200b',
  '\ud800', 'Grüße', 0, 1.5, true, null, [], {}, ['a'],
];

function randomBody(rand: () => number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const item = (): unknown => {
    const r = rand();
    if (r < 0.03) return pick([null, 'a', 3, ['a']]);
    const e: Record<string, unknown> = {};
    if (rand() > 0.02) e.entry = rand() < 0.8 ? `Term-${Math.floor(rand() * 1e6)}` : pick(TEXTS);
    const s = rand();
    if (s < 0.3) e.subEntry = null;
    else if (s < 0.6) e.subEntry = rand() < 0.7 ? `alt-${Math.floor(rand() * 1e6)}` : pick(TEXTS);
    if (rand() < 0.05) e.extra = 'dropped';
    return e;
  };
  const r = rand();
  if (r < 0.03) return pick([null, [], 'entries', 7, {}]);
  const n = r < 0.06 ? pick([0, LIMITS.wordMemoryBulkMax, LIMITS.wordMemoryBulkMax + 1]) : 1 + Math.floor(rand() * 20);
  const body: Record<string, unknown> = { entries: r < 0.08 ? pick([null, 'x', {}]) : Array.from({ length: n }, item) };
  if (rand() < 0.05) body.other = 1;
  return body;
}

describe('fast body checks', () => {
  it('wmCreateBody: the same verdict and the same parsed body as zod, over generated bodies of every kind', () => {
    const fast = FAST_BODIES.get(wmCreateBody)!;
    const rand = seededRandom(15);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const raw = JSON.parse(JSON.stringify(randomBody(rand))) as unknown;
      const z = wmCreateBody.safeParse(raw);
      const f = fast(raw);
      if (z.success) {
        // The fast check may leave a valid body to zod, but what it returns is what zod returns.
        if (f !== undefined) {
          expect(f).toStrictEqual(z.data);
          accepted++;
        }
      } else {
        expect(f).toBeUndefined();
        refused++;
      }
    }
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
    // A valid body of texts at the edges is taken by the fast check.
    const edges = { entries: [{ entry: 'x'.repeat(63) }, { entry: '😀'.repeat(63), subEntry: null }, { entry: 'e\u0301', subEntry: 'Grüße' }] };
    expect(fast(edges)).toStrictEqual(wmCreateBody.parse(edges));
  });

  it('isWordMemoryText: the verdict of wmText for every length around the limits, in units of one and two UTF-16 code units', () => {
    const max = LIMITS.wordMemoryText.max;
    const pieces = ['a', '😀', 'é', 'e\u0301', '\ud800', ' ', '\u00a0'];
    const rand = seededRandom(7);
    let checked = 0;
    for (let units = 0; units <= 2 * max + 3; units++)
      for (let k = 0; k < 12; k++) {
        let text = '';
        while (text.length < units) text += rand() < 0.6 ? 'a' : pieces[Math.floor(rand() * pieces.length)];
        for (const t of [text, text.slice(0, units)]) {
          expect(isWordMemoryText(t), JSON.stringify(t)).toBe(wmText.safeParse(t).success);
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(2000);
    for (const v of [undefined, null, 3, ['a'], {}]) expect(isWordMemoryText(v)).toBe(false);
  });

  it('isWordMemoryText: the verdict of wmText for each character up to U+07FF and each Unicode space, alone and inside a word', () => {
    // Printable ASCII skips the regex; every other character (controls, NUL, DEL, Unicode spaces) goes to it.
    const spaces = [0x1680, 0x180e, ...Array.from({ length: 12 }, (_, i) => 0x2000 + i), 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
    for (const c of [...Array.from({ length: 0x800 }, (_, i) => i), ...spaces]) {
      const ch = String.fromCharCode(c);
      for (const t of [ch, `ab${ch}cd`]) expect(isWordMemoryText(t), JSON.stringify(t)).toBe(wmText.safeParse(t).success);
    }
    expect(isWordMemoryText('\u3000')).toBe(false);
  });

  it('wmCreateBody from its text: what JSON.parse and zod give, for the texts it takes; every other text left to them', () => {
    const fromText = FAST_TEXTS.get(wmCreateBody)!;
    const rand = seededRandom(24);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const max = LIMITS.wordMemoryText.max;
    // Plain texts (printable ASCII but `"` and `\`) and texts it must leave to JSON.parse.
    const plain = () => pick(['a', 'Term-1', 'x'.repeat(max), '~!#$%&()*+', "it's", '[]{}:,', 'nul\\u0000'.slice(0, 3)]);
    const other = () => pick(['x'.repeat(max + 1), '', 'q"uote', 'back\\slash', 'two words', 'tab\tx', 'Grüße', '😀', '\u007f', 'nul\u0000x', '\ud800']);
    const item = () => {
      const e: Record<string, unknown> = { entry: rand() < 0.95 ? plain() : other() };
      const s = rand();
      if (s < 0.3) e.subEntry = null;
      else if (s < 0.6) e.subEntry = rand() < 0.95 ? plain() : other();
      else if (s < 0.62) e.subEntry = pick([3, true, ['a'], {}]);
      return e;
    };
    // Edits of the text JSON.stringify makes: whitespace, key order, escapes, repeated keys, extra fields, a cut.
    const edits: Array<(t: string) => string> = [
      (t) => t,
      (t) => t,
      (t) => t,
      (t) => ` ${t}`,
      (t) => `${t}\n`,
      (t) => t.replace('":"', '": "'),
      (t) => t.replace(',{', ', {'),
      (t) => t.replace('{"entry":"', '{"entry":"\\u0041'),
      (t) => t.replace('{"entry":"', '{"entry":"z","entry":"'),
      (t) => t.replace('{"entry":', '{"extra":1,"entry":'),
      (t) => t.replace('"}', '","extra":null}'),
      (t) => t.replace('null}', 'nulL}'),
      (t) => t.replace(/^\{"entries":/, '{"other":1,"entries":'),
      (t) => t.replace(/\]\}$/, '],"other":1}'),
      (t) => t.replace(/\{"entry":("[^"]*"),"subEntry":("[^"]*"|null)\}/, '{"subEntry":$2,"entry":$1}'),
      (t) => t.slice(0, Math.floor(rand() * t.length)),
      (t) => t.replace(/,\{/, ',,{'),
      (t) => t.replace(/\]\}$/, ',]}'),
    ];
    let taken = 0;
    let left = 0;
    for (let i = 0; i < 4000; i++) {
      const r = rand();
      const n = r < 0.05 ? pick([0, 1, LIMITS.wordMemoryBulkMax, LIMITS.wordMemoryBulkMax + 1]) : 1 + Math.floor(rand() * 12);
      const text = pick(edits)(JSON.stringify({ entries: Array.from({ length: n }, item) }));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = Symbol('not JSON');
      }
      const z = wmCreateBody.safeParse(parsed);
      const f = fromText(text);
      if (f === undefined) {
        left++;
        continue;
      }
      taken++;
      expect(z.success, text).toBe(true);
      expect(f).toStrictEqual(z.data);
      expect(hasPlainTexts(f as object)).toBe(true);
    }
    expect(taken).toBeGreaterThan(300);
    expect(left).toBeGreaterThan(1500);
    // What the CLI and JSON.stringify send is taken: absent, null and text subEntries, the longest texts, 1000 items.
    const full = { entries: Array.from({ length: LIMITS.wordMemoryBulkMax }, (_, i) => (i % 3 === 0 ? { entry: `t${i}` } : { entry: 'x'.repeat(max - 5) + i, subEntry: i % 3 === 1 ? null : `s${i}` })) };
    expect(fromText(JSON.stringify(full))).toStrictEqual(wmCreateBody.parse(full));
    // A body whose texts JSON escapes is a valid body the text check leaves alone.
    expect(fromText(JSON.stringify({ entries: [{ entry: 'q"uote' }] }))).toBeUndefined();
    expect(hasPlainTexts(FAST_BODIES.get(wmCreateBody)!({ entries: [{ entry: 'a' }] }) as object)).toBe(false);
  });
});
