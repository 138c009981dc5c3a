// Statistics of the bench (pure functions, unit-tested in test/unit/bench-stats.test.ts): alternating pairs,
// pairwise ratios, medians and ranges. Nothing here measures anything.

export interface Stats {
  n: number;
  median: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) throw new Error('no samples');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The median; for an even count, the mean of the two middle values. */
export function median(values: readonly number[]): number {
  if (!values.length) throw new Error('no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(values: readonly number[]): Stats {
  if (!values.length) throw new Error('no samples');
  return { n: values.length, median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** `a[i] / b[i]` for each pair; both lists must have the same length and b must hold no zero. */
export function pairRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error(`unpaired samples: ${a.length} A and ${b.length} B`);
  if (!a.length) throw new Error('no pairs');
  return a.map((x, i) => {
    if (b[i] === 0) throw new Error(`pair ${i + 1}: B is 0, no ratio`);
    return x / b[i];
  });
}

export interface PairedSamples {
  a: number[];
  b: number[];
}

/**
 * Run `a` and `b` alternately, A B A B …: `warmups` pairs whose results are dropped, then `pairs` measured
 * pairs. Each function returns one sample (a duration, a rate, …). Alternating puts both sides under the
 * same drift of machine load, so the ratio of each pair is fairer than the ratio of two separate series.
 */
export async function alternate(
  opts: { pairs: number; warmups: number },
  a: (index: number) => number | Promise<number>,
  b: (index: number) => number | Promise<number>,
): Promise<PairedSamples> {
  if (!Number.isInteger(opts.pairs) || opts.pairs < 1) throw new Error('pairs must be a whole number of at least 1');
  const out: PairedSamples = { a: [], b: [] };
  for (let i = 0; i < opts.warmups + opts.pairs; i++) {
    const measured = i >= opts.warmups;
    const index = i - opts.warmups; // negative during warm-ups
    const x = await a(index);
    const y = await b(index);
    if (measured) {
      out.a.push(x);
      out.b.push(y);
    }
  }
  return out;
}

/** Run one function `runs` times after `warmups` dropped runs (for cases with an absolute target and no partner). */
export async function repeat(opts: { runs: number; warmups: number }, fn: (index: number) => number | Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < opts.warmups + opts.runs; i++) {
    const x = await fn(i - opts.warmups);
    if (i >= opts.warmups) out.push(x);
  }
  return out;
}

export type Op = '<=' | '<' | '>=' | '>';

/** Whether `value` meets `op threshold`. */
export function meets(value: number, op: Op, threshold: number): boolean {
  switch (op) {
    case '<=':
      return value <= threshold;
    case '<':
      return value < threshold;
    case '>=':
      return value >= threshold;
    case '>':
      return value > threshold;
  }
}
