// The speed and memory targets of notevox (issue 15's and 27's Targets lists and the README's earlier ones), each printed
// with its verdict by `npm run bench`. They are never asserted in tests: machines differ.
import type { Op } from './stats.js';

export interface Target {
  id: string;
  /** The bench that measures it. */
  bench: string;
  text: string;
  op: Op;
  threshold: number;
  /** Unit of the value: `×` for ratios, else `s`, `MB`, `count`. */
  unit: string;
  /** The value depends on the size of the data, which `--quick` shrinks: a quick run reports it without a verdict. */
  sizeBound: boolean;
}

export const TARGETS: readonly Target[] = [
  { id: 'startup.version', bench: 'startup', text: '`notevox --version` ≤ 1.3× `node -e 0`', op: '<=', threshold: 1.3, unit: '×', sizeBound: false },
  { id: 'startup.help', bench: 'startup', text: '`notevox --help` ≤ 1.3× `node -e 0`', op: '<=', threshold: 1.3, unit: '×', sizeBound: false },
  { id: 'startup.notesListHelp', bench: 'startup', text: '`notevox notes list --help` ≤ 1.3× `node -e 0`', op: '<=', threshold: 1.3, unit: '×', sizeBound: false },
  { id: 'startup.notesGet', bench: 'startup', text: '`notevox notes get -o json` (local sandbox; Node\'s compile cache warm, the cold run printed too) ≤ 2× `node -e 0`', op: '<=', threshold: 2, unit: '×', sizeBound: false },
  // Not in an issue's list: guards the answer check of logins and writes (auth/me checked against the contract) at
  // the cost of a read, now that it runs without zod.
  { id: 'startup.authStatus', bench: 'startup', text: '`notevox auth status` (local sandbox; its answer checked) ≤ 2.5× `node -e 0`', op: '<=', threshold: 2.5, unit: '×', sizeBound: false },
  // Issue 24 (the sandbox on node:sqlite) raised http.getNote from 30 % and state.p99 from 3×, and added the rest of its targets.
  { id: 'startup.sandbox', bench: 'startup', text: "demo-seed `sandbox start` to listening (compile cache warm, the cold run printed too) ≤ 1.5× a bare hono app's start", op: '<=', threshold: 1.5, unit: '×', sizeBound: false },
  { id: 'http.getNote', bench: 'http', text: "sandbox GET note ≥ 50 % of a bare hono app's req/s", op: '>=', threshold: 0.5, unit: '×', sizeBound: false },
  { id: 'http.bulkCpu', bench: 'http', text: 'sandbox CPU per 1000-row word-memory bulk create ≤ 5 ms', op: '<=', threshold: 5, unit: 'ms', sizeBound: false },
  { id: 'lists.page', bench: 'lists', text: 'notes list page at 100k notes ≤ 2× its time at 1k (first and last page)', op: '<=', threshold: 2, unit: '×', sizeBound: true },
  { id: 'lists.all', bench: 'lists', text: '`notes list --all` over 100k notes ≤ 60 s', op: '<=', threshold: 60, unit: 's', sizeBound: true },
  { id: 'state.p99', bench: 'state', text: 'GET note p99 with `--state` on the 100k-note world (~160 MB state) ≤ 1.5× the p99 without', op: '<=', threshold: 1.5, unit: '×', sizeBound: true },
  { id: 'state.restart', bench: 'state', text: 'restart on the 100k-note world state (~160 MB) to listening ≤ 0.3 s', op: '<=', threshold: 0.3, unit: 's', sizeBound: true },
  { id: 'state.restartRss', bench: 'state', text: 'restart on the 100k-note world state: RSS at listening ≤ 100 MB', op: '<=', threshold: 100, unit: 'MB', sizeBound: true },
  { id: 'seed.start', bench: 'seed', text: 'sandbox start on a 100k-notes/1M-word-memories seed ≤ 3 s', op: '<=', threshold: 3, unit: 's', sizeBound: true },
  { id: 'seed.vsParse', bench: 'seed', text: 'first start on the 100k/1M seed ≤ 2× reading and `JSON.parse` of the same file', op: '<=', threshold: 2, unit: '×', sizeBound: true },
  { id: 'seed.cached', bench: 'seed', text: 'second start on the 100k/1M seed (its database cached) ≤ 0.5 s', op: '<=', threshold: 0.5, unit: 's', sizeBound: true },
  { id: 'voice.throughput', bench: 'voice', text: '`voice upload` of 400 MB ≥ 0.95× the throughput of `curl -T` (the transfer alone)', op: '>=', threshold: 0.95, unit: '×', sizeBound: true },
  { id: 'voice.process', bench: 'voice', text: '`voice upload --no-wait` of 400 MB as a whole process ≥ 0.95× curl\'s three calls (create, `curl -T`, complete)', op: '>=', threshold: 0.95, unit: '×', sizeBound: true },
  { id: 'voice.rss', bench: 'voice', text: '`voice upload` of 400 MB: CLI peak RSS < 120 MB', op: '<', threshold: 120, unit: 'MB', sizeBound: true },
  { id: 'voice.transcript', bench: 'voice', text: 'upload-complete → transcript printed ≤ 1.5× the sandbox pace', op: '<=', threshold: 1.5, unit: '×', sizeBound: false },
  { id: 'wm.loopback', bench: 'wm', text: '`wm import` of 1M rows on loopback ≥ 2× the rows/s of a sequential loop', op: '>=', threshold: 2, unit: '×', sizeBound: true },
  { id: 'wm.latency', bench: 'wm', text: '`wm import` with 50 ms latency per request ≥ 3× the sequential loop', op: '>=', threshold: 3, unit: '×', sizeBound: true },
  { id: 'wm.rss', bench: 'wm', text: '`wm import` of 1M rows: CLI peak RSS < 150 MB', op: '<', threshold: 150, unit: 'MB', sizeBound: true },
  { id: 'wm.rate429', bench: 'wm', text: '`wm import` at the default 600 requests/min: no 429', op: '<=', threshold: 0, unit: 'count', sizeBound: false },
  { id: 'wm.rateCeiling', bench: 'wm', text: '`wm import` at 600 requests/min ≥ 90 % of the 600,000 rows/min ceiling', op: '>=', threshold: 0.9, unit: '×', sizeBound: false },
  { id: 'mcp.startup', bench: 'mcp', text: '`notevox mcp`: initialize + tools/list over stdio ≤ 2× a one-tool SDK server', op: '<=', threshold: 2, unit: '×', sizeBound: false },
  { id: 'mcp.size', bench: 'mcp', text: '`notevox mcp` tools/list answer (read-only default) < 40 kB', op: '<', threshold: 40, unit: 'kB', sizeBound: false },
];

export function targetById(id: string): Target {
  const t = TARGETS.find((x) => x.id === id);
  if (!t) throw new Error(`no target ${id}`);
  return t;
}

export const TARGETS_BEGIN = '<!-- BEGIN generated by `npm run docs` from test/bench/targets.ts: do not edit by hand -->';
export const TARGETS_END = '<!-- END generated -->';

/** The README's table of targets, between its markers in `current` (`npm run docs` writes it; a test checks it). */
export function renderTargetsSection(current: string): string {
  const from = current.indexOf(TARGETS_BEGIN);
  const to = current.indexOf(TARGETS_END, from);
  if (from < 0 || to < from) throw new Error(`README.md lacks the markers ${TARGETS_BEGIN} … ${TARGETS_END}`);
  const rows = TARGETS.map((t) => `| ${t.text.replace(/\|/g, '\\|')} | \`${t.bench}\` |`);
  const table = ['| target | bench |', '|---|---|', ...rows].join('\n');
  return `${current.slice(0, from)}${TARGETS_BEGIN}\n${table}\n${current.slice(to)}`;
}
