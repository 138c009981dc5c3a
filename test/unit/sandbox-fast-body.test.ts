import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { wmCreateBody, wmText } from '../../src/contract/schemas.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { FAST_BODIES, isWordMemoryText } from '../../src/sandbox/fast-body.js';

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
});
