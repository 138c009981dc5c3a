/**
 * Fault injection: `--faults "503=0.1,429=0.05:2,reset=0.02,latency=0.2:50-400,degraded=0.5@/notes/search"`.
 * Each item is `kind=probability[:parameter][@path-substring]`. Deterministic under `--fault-seed`.
 * `reset` drops the connection before the request is handled; `reset-after` after the handler ran (and committed
 * its change), in place of the answer: the case that tests a client's retry of an idempotent write.
 */
export const FAULT_KINDS = ['500', '503', '429', 'reset', 'reset-after', 'latency', 'degraded'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  kind: FaultKind;
  probability: number;
  /** 429: Retry-After seconds; latency: [min, max] ms. */
  retryAfter?: number;
  latency?: [number, number];
  pathFilter?: string;
}

export class FaultSpecError extends Error {}

export function parseFaultSpec(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const raw of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9-]+)=([0-9.]+)(?::([0-9-]+))?(?:@(.+))?$/.exec(raw);
    if (!m) throw new FaultSpecError(`bad fault "${raw}": use kind=probability[:parameter][@path], e.g. 503=0.1 or latency=0.2:50-400`);
    const [, kind, prob, param, path] = m;
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new FaultSpecError(`unknown fault kind "${kind}": use one of ${FAULT_KINDS.join(', ')}`);
    const probability = Number(prob);
    if (!(probability >= 0 && probability <= 1)) throw new FaultSpecError(`fault "${raw}": probability must be between 0 and 1`);
    const rule: FaultRule = { kind: kind as FaultKind, probability, pathFilter: path };
    if (kind === '429') {
      if (param !== undefined && !/^\d+$/.test(param)) throw new FaultSpecError(`fault "${raw}": 429 takes the Retry-After seconds as a whole number, e.g. 429=0.1:2`);
      rule.retryAfter = param !== undefined ? Number(param) : 1;
    } else if (kind === 'latency') {
      const m2 = /^(\d+)(?:-(\d+))?$/.exec(param ?? '100');
      const lo = Number(m2?.[1]);
      const hi = m2?.[2] !== undefined ? Number(m2[2]) : lo;
      if (!m2 || hi < lo) throw new FaultSpecError(`fault "${raw}": latency takes milliseconds, one value or min-max with min ≤ max, e.g. latency=0.2:50-400`);
      rule.latency = [lo, hi];
    } else if (param !== undefined) throw new FaultSpecError(`fault "${raw}": ${kind} takes no parameter`);
    rules.push(rule);
  }
  return rules;
}

/** mulberry32: small, fast, deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultDecision {
  latencyMs: number;
  failure?: { kind: '500' | '503' | '429' | 'reset'; retryAfter?: number };
  /** Handle the request, then drop the connection instead of answering (unless a failure above answers first). */
  resetAfter: boolean;
  degraded: boolean;
}

export class FaultInjector {
  private readonly random: () => number;
  constructor(
    private readonly rules: FaultRule[],
    seed: number = Date.now(),
  ) {
    this.random = seededRandom(seed);
  }
  get active(): boolean {
    return this.rules.length > 0;
  }
  /** Draw the faults for one request. Every rule draws once per request, so the sequence is reproducible. */
  decide(path: string): FaultDecision {
    const d: FaultDecision = { latencyMs: 0, resetAfter: false, degraded: false };
    for (const r of this.rules) {
      const roll = this.random();
      const extra = this.random();
      if (r.pathFilter && !path.includes(r.pathFilter)) continue;
      if (roll >= r.probability) continue;
      if (r.kind === 'latency') {
        const [lo, hi] = r.latency!;
        d.latencyMs += Math.round(lo + extra * (hi - lo));
      } else if (r.kind === 'degraded') d.degraded = true;
      else if (r.kind === 'reset-after') d.resetAfter = true;
      else if (!d.failure) d.failure = { kind: r.kind, retryAfter: r.retryAfter };
    }
    return d;
  }
}
