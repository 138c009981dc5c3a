/**
 * "Did you mean …?" for a mistyped word among known ones: the same rule and words commander uses for an unknown
 * command or flag (an edit distance of at most 2, counting a swap of two neighbours as one edit, and more than 40%
 * of the word kept), so that an event type, a setting or its value is corrected the way a command name is.
 * Commander's own helper is not part of its public API, hence this small copy of the rule.
 */

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

const MAX_DISTANCE = 2;

/** The known words closest to `word` (ignoring letter case), best first; none when nothing is close. */
export function similar(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  let best = MAX_DISTANCE;
  let found: string[] = [];
  for (const c of new Set(candidates)) {
    if (c.length <= 1) continue;
    const d = editDistance(w, c.toLowerCase());
    const length = Math.max(w.length, c.length);
    if ((length - d) / length <= 0.4) continue;
    if (d < best) {
      best = d;
      found = [c];
    } else if (d === best) found.push(c);
  }
  return found.sort((a, b) => a.localeCompare(b));
}

/** `Did you mean x?` / `Did you mean one of x, y?`, or undefined when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const found = similar(word, candidates);
  if (found.length === 0) return undefined;
  return found.length === 1 ? `Did you mean ${found[0]}?` : `Did you mean one of ${found.join(', ')}?`;
}
