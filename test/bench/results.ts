// The bench's result: what a run measured (cases), the verdict of every target, the machine and its load. It is
// printed as it goes, written as JSON (bench-results/<timestamp>.json), and two files can be compared
// (`npm run bench -- --compare a.json b.json`). Pure code: unit-tested in test/unit/bench-stats.test.ts.
import { meets, pairRatios, summarize, type Op, type Stats } from './stats.js';
import { TARGETS, type Target } from './targets.js';

export const RESULT_FORMAT = 'notevox-bench/1';

export interface Series extends Stats {
  label: string;
  unit: string;
  values: number[];
}

export interface CaseResult {
  bench: string;
  id: string;
  title: string;
  /** The measured side; with `b`, pairs run A B A B … */
  a?: Series;
  b?: Series;
  /** Pairwise a[i] / b[i]. */
  ratio?: Stats & { values: number[] };
  /** Peak RSS in MB by process label. */
  peakRssMb?: Record<string, number>;
  /** Facts worth keeping beside the numbers (sizes, counts, p99s…). */
  info?: Record<string, string | number>;
  /** Why the case could not run; then no series. */
  na?: string;
  /** It could not run because something failed (an error, not a known limit such as a time budget). */
  failed?: boolean;
  /** loadavg (1, 5, 15 min) when the case started. */
  load: number[];
}

export type Verdict = 'PASS' | 'MISS' | 'n/a';

export interface TargetResult {
  id: string;
  text: string;
  op: Op;
  threshold: number;
  unit: string;
  value: number | null;
  verdict: Verdict;
  detail?: string;
}

export interface MachineInfo {
  platform: string;
  cpuModel: string;
  cores: number;
  totalMemMb: number;
  loadStart: number[];
  loadEnd: number[];
}

export interface BenchResult {
  format: typeof RESULT_FORMAT;
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  pairs: number;
  benches: string[];
  /** The checkout whose CLI and sandbox were measured. */
  root: { path: string; commit: string | null; dirty: boolean | null };
  node: { path: string; version: string };
  machine: MachineInfo;
  cases: CaseResult[];
  targets: TargetResult[];
}

export function series(label: string, unit: string, values: number[]): Series {
  return { label, unit, values, ...summarize(values) };
}

/** A paired case from A and B samples: both series and the pairwise ratio a/b. */
export function pairedCase(base: Omit<CaseResult, 'a' | 'b' | 'ratio'>, a: Series, b: Series): CaseResult {
  const values = pairRatios(a.values, b.values);
  return { ...base, a, b, ratio: { values, ...summarize(values) } };
}

/** What a bench reported for one target. */
export interface TargetReport {
  value: number | null;
  detail?: string;
}

/**
 * The verdict of every target: PASS/MISS from the reported value, `n/a` when its bench did not run, could not
 * measure it, or (for size-bound targets) when the run was `--quick`.
 */
export function judgeTargets(reports: ReadonlyMap<string, TargetReport>, opts: { quick: boolean; benches: readonly string[] }, targets: readonly Target[] = TARGETS): TargetResult[] {
  return targets.map((t) => {
    const base = { id: t.id, text: t.text, op: t.op, threshold: t.threshold, unit: t.unit };
    const r = reports.get(t.id);
    if (!r) {
      const why = opts.benches.includes(t.bench) ? 'not measured' : `bench ${t.bench} not run`;
      return { ...base, value: null, verdict: 'n/a', detail: why };
    }
    if (r.value === null || !Number.isFinite(r.value)) return { ...base, value: null, verdict: 'n/a', detail: r.detail };
    if (opts.quick && t.sizeBound) {
      return { ...base, value: r.value, verdict: 'n/a', detail: `--quick run on reduced sizes${r.detail ? `; ${r.detail}` : ''}` };
    }
    return { ...base, value: r.value, verdict: meets(r.value, t.op, t.threshold) ? 'PASS' : 'MISS', detail: r.detail };
  });
}

// ---------------------------------------------------------------- formatting

export function fmt(value: number, unit: string): string {
  if (unit === '×') return `${value.toFixed(2)}×`;
  if (unit === 'count') return String(Math.round(value));
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

const range = (s: Stats, unit: string) => `${fmt(s.median, unit)}  [${fmt(s.min, unit)} – ${fmt(s.max, unit)}]`;

/** A case as printed: one line per series and the ratio line, RSS and info. */
export function formatCase(c: CaseResult): string {
  const lines = [`${c.bench}: ${c.title}`];
  if (c.na) lines.push(`  n/a: ${c.na}`);
  const width = Math.max(...[c.a, c.b].map((s) => s?.label.length ?? 0), 'ratio A/B'.length);
  if (c.a) lines.push(`  ${(c.b ? 'A ' : '') + c.a.label.padEnd(width)}  median ${range(c.a, c.a.unit)}  (n=${c.a.n})`);
  if (c.b) lines.push(`  B ${c.b.label.padEnd(width)}  median ${range(c.b, c.b.unit)}`);
  if (c.ratio) lines.push(`  = ${'ratio A/B'.padEnd(width)}  median ${range(c.ratio, '×')}  (${c.ratio.n} pairs)`);
  if (c.peakRssMb && Object.keys(c.peakRssMb).length) {
    lines.push(`  peak RSS: ${Object.entries(c.peakRssMb).map(([k, v]) => `${k} ${v.toFixed(1)} MB`).join(', ')}`);
  }
  if (c.info && Object.keys(c.info).length) lines.push(`  ${Object.entries(c.info).map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  lines.push(`  load at start: ${c.load.map((x) => x.toFixed(2)).join(' ')}`);
  return lines.join('\n') + '\n';
}

const targetValue = (t: TargetResult) => (t.value === null ? '–' : fmt(t.value, t.unit));

export function formatTargets(targets: readonly TargetResult[]): string {
  const rows = targets.map((t) => [t.verdict, targetValue(t), t.text, t.detail ?? '']);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  const lines = rows.map((r) => `  ${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}${r[3] ? `  (${r[3]})` : ''}`);
  const count = (v: Verdict) => targets.filter((t) => t.verdict === v).length;
  return [`targets: ${count('PASS')} PASS, ${count('MISS')} MISS, ${count('n/a')} n/a`, ...lines].join('\n') + '\n';
}

export function formatMachine(r: Pick<BenchResult, 'machine' | 'node' | 'root'>): string {
  const m = r.machine;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    `machine: ${m.platform}, ${m.cores} cores (${m.cpuModel}), ${Math.round(m.totalMemMb / 1024)} GB`,
    `node: ${r.node.version} (${r.node.path})`,
    `root: ${r.root.path}${r.root.commit ? ` @ ${r.root.commit.slice(0, 12)}${r.root.dirty ? ' (uncommitted changes)' : ''}` : ''}`,
    `load average (1/5/15 min): start ${load(m.loadStart)}${m.loadEnd.length ? `, end ${load(m.loadEnd)}` : ''}`,
  ].join('\n');
}

// ---------------------------------------------------------------- reading and comparing result files

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNums = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');

/** Check that `data` is a bench result file; throws naming the first field that is wrong. */
export function parseResult(data: unknown, name = 'result'): BenchResult {
  const fail = (field: string, want: string): never => {
    throw new Error(`${name}: ${field} ${want} (not a result of \`npm run bench\`, format ${RESULT_FORMAT})`);
  };
  if (!isObj(data)) return fail('the file', 'must hold a JSON object');
  if (data.format !== RESULT_FORMAT) fail('format', `must be "${RESULT_FORMAT}"`);
  for (const k of ['startedAt', 'finishedAt'] as const) if (typeof data[k] !== 'string') fail(k, 'must be a string');
  if (typeof data.quick !== 'boolean') fail('quick', 'must be a boolean');
  if (typeof data.pairs !== 'number') fail('pairs', 'must be a number');
  if (!Array.isArray(data.benches) || !data.benches.every((b) => typeof b === 'string')) fail('benches', 'must be a list of names');
  if (!isObj(data.root) || typeof data.root.path !== 'string') fail('root.path', 'must be a string');
  if (!isObj(data.node) || typeof data.node.version !== 'string') fail('node.version', 'must be a string');
  const m = data.machine;
  if (!isObj(m) || typeof m.cores !== 'number' || !isNums(m.loadStart) || !isNums(m.loadEnd)) fail('machine', 'must give cores, loadStart and loadEnd');
  if (!Array.isArray(data.cases)) fail('cases', 'must be a list');
  (data.cases as unknown[]).forEach((c, i) => {
    if (!isObj(c) || typeof c.bench !== 'string' || typeof c.id !== 'string' || typeof c.title !== 'string') fail(`cases[${i}]`, 'must have bench, id and title');
    const cc = c as Record<string, unknown>;
    for (const side of ['a', 'b'] as const) {
      const s = cc[side];
      if (s !== undefined && (!isObj(s) || !isNums(s.values) || typeof s.median !== 'number' || typeof s.unit !== 'string')) fail(`cases[${i}].${side}`, 'must be a series (values, median, unit)');
    }
    if (cc.ratio !== undefined && (!isObj(cc.ratio) || !isNums(cc.ratio.values) || typeof cc.ratio.median !== 'number')) fail(`cases[${i}].ratio`, 'must have values and median');
    if (!isNums(cc.load)) fail(`cases[${i}].load`, 'must be a list of numbers');
  });
  if (!Array.isArray(data.targets)) fail('targets', 'must be a list');
  (data.targets as unknown[]).forEach((t, i) => {
    if (!isObj(t) || typeof t.id !== 'string' || typeof t.text !== 'string') fail(`targets[${i}]`, 'must have id and text');
    const tt = t as Record<string, unknown>;
    if (!(tt.value === null || typeof tt.value === 'number')) fail(`targets[${i}].value`, 'must be a number or null');
    if (!['PASS', 'MISS', 'n/a'].includes(tt.verdict as string)) fail(`targets[${i}].verdict`, 'must be PASS, MISS or n/a');
  });
  return data as unknown as BenchResult;
}

/** The headline of a case: the median of A, and the median pairwise ratio when paired. */
function caseCell(c: CaseResult | undefined): string {
  if (!c) return '–';
  if (!c.a) return 'n/a';
  return `${fmt(c.a.median, c.a.unit)}${c.ratio ? ` (${fmt(c.ratio.median, '×')})` : ''}`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ').trimEnd());
}

const change = (before: number | undefined, after: number | undefined) =>
  before === undefined || after === undefined || before === 0 ? '' : `${(after / before).toFixed(2)}×`;

/** The before/after table of two result files: every target, then every case's headline number. */
export function formatComparison(before: BenchResult, after: BenchResult, names: [string, string] = ['before', 'after']): string {
  const out: string[] = [];
  const describe = (r: BenchResult, n: string) =>
    `${n}: ${r.startedAt}, root ${r.root.path}${r.root.commit ? ` @ ${r.root.commit.slice(0, 12)}` : ''}, node ${r.node.version}, ${r.pairs} pairs${r.quick ? ', --quick' : ''}, load ${r.machine.loadStart[0]?.toFixed(2)} → ${r.machine.loadEnd[0]?.toFixed(2)} on ${r.machine.cores} cores`;
  out.push(describe(before, names[0]), describe(after, names[1]));
  if (before.quick !== after.quick) out.push('warning: one run is --quick and the other is not: sizes differ');
  if (before.machine.cpuModel !== after.machine.cpuModel || before.machine.cores !== after.machine.cores) out.push('warning: the two runs are from different machines');
  out.push('');

  const tRows = [['target', names[0], names[1], 'after/before']];
  const ids = [...new Set([...before.targets.map((t) => t.id), ...after.targets.map((t) => t.id)])];
  for (const id of ids) {
    const b = before.targets.find((t) => t.id === id);
    const a = after.targets.find((t) => t.id === id);
    const t = (a ?? b)!;
    const cell = (x?: TargetResult) => (x ? `${targetValue(x)} ${x.verdict}` : '–');
    tRows.push([t.text, cell(b), cell(a), change(b?.value ?? undefined, a?.value ?? undefined)]);
  }
  out.push(...table(tRows), '');

  const cRows = [['case: median of A (median ratio A/B)', names[0], names[1], 'A after/before']];
  const key = (c: CaseResult) => `${c.bench}/${c.id}`;
  const keys = [...new Set([...before.cases.map(key), ...after.cases.map(key)])];
  for (const k of keys) {
    const b = before.cases.find((c) => key(c) === k);
    const a = after.cases.find((c) => key(c) === k);
    const c = (a ?? b)!;
    cRows.push([`${c.bench}: ${c.title}`, caseCell(b), caseCell(a), b?.a && a?.a && b.a.unit === a.a.unit ? change(b.a.median, a.a.median) : '']);
  }
  out.push(...table(cRows));
  return out.join('\n') + '\n';
}
