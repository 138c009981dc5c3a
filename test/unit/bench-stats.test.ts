// The bench's own logic (test/bench/): pairing, ratio statistics, verdicts, the JSON result shape and its
// comparison, option parsing, the load generator's response parser and the generated seed worlds. Nothing
// here times anything.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dueBy, ResponseParser, runLoad } from '../bench/load.js';
import {
  formatCase, formatComparison, formatTargets, judgeTargets, pairedCase, parseResult, RESULT_FORMAT, series,
  type BenchResult, type TargetReport,
} from '../bench/results.js';
import { BENCHES, parseArgs, UsageError } from '../bench/run.js';
import { alternate, median, meets, pairRatios, percentile, repeat, summarize } from '../bench/stats.js';
import { TARGETS, type Target } from '../bench/targets.js';
import { ensureWorld, WORLD_KEYS } from '../bench/world.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

describe('statistics', () => {
  it('medians of odd and even counts, nearest-rank percentiles, ranges', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([...Array(100).keys()].map((i) => i + 1), 99)).toBe(99);
    expect(summarize([2, 9, 4])).toEqual({ n: 3, median: 4, min: 2, max: 9 });
    expect(() => median([])).toThrow(/no samples/);
  });

  it('pairwise ratios divide each A by the B of its own pair, not medians by medians', () => {
    const a = [10, 30, 20];
    const b = [5, 10, 20];
    expect(pairRatios(a, b)).toEqual([2, 3, 1]);
    // the median of the ratios differs from the ratio of the medians
    expect(median(pairRatios([10, 100, 12], [10, 20, 3]))).toBe(4);
    expect(median([10, 100, 12]) / median([10, 20, 3])).toBe(1.2);
    expect(() => pairRatios([1, 2], [1])).toThrow(/unpaired/);
    expect(() => pairRatios([1], [0])).toThrow(/B is 0/);
  });

  it('alternate runs A B A B …, drops the warm-up pairs and numbers measured pairs from 0', async () => {
    const calls: string[] = [];
    let t = 0;
    const s = await alternate(
      { pairs: 3, warmups: 2 },
      (i) => {
        calls.push(`A${i}`);
        return ++t;
      },
      async (i) => {
        calls.push(`B${i}`);
        return ++t * 10;
      },
    );
    expect(calls).toEqual(['A-2', 'B-2', 'A-1', 'B-1', 'A0', 'B0', 'A1', 'B1', 'A2', 'B2']);
    expect(s).toEqual({ a: [5, 7, 9], b: [60, 80, 100] });
    await expect(alternate({ pairs: 0, warmups: 0 }, () => 1, () => 1)).rejects.toThrow(/at least 1/);
  });

  it('repeat drops warm-ups too', async () => {
    let n = 0;
    expect(await repeat({ runs: 2, warmups: 1 }, () => ++n)).toEqual([2, 3]);
  });

  it('comparison operators', () => {
    expect(meets(1.5, '<=', 1.5)).toBe(true);
    expect(meets(120, '<', 120)).toBe(false);
    expect(meets(0.3, '>=', 0.3)).toBe(true);
    expect(meets(0.29, '>=', 0.3)).toBe(false);
  });
});

describe('targets and verdicts', () => {
  const t = (over: Partial<Target>): Target => ({ id: 'x', bench: 'b', text: 'x', op: '<=', threshold: 2, unit: '×', sizeBound: false, ...over });

  it('every target has a unique id and belongs to a bench that exists', () => {
    expect(new Set(TARGETS.map((x) => x.id)).size).toBe(TARGETS.length);
    for (const x of TARGETS) expect(BENCHES).toContain(x.bench);
  });

  it('PASS and MISS from the value, n/a without one, n/a for size-bound targets of a quick run', () => {
    const targets = [t({ id: 'a' }), t({ id: 'b', op: '>=', threshold: 0.3 }), t({ id: 'c' }), t({ id: 'd', sizeBound: true }), t({ id: 'e', bench: 'other' })];
    const reports = new Map<string, TargetReport>([
      ['a', { value: 1.9 }],
      ['b', { value: 0.2, detail: 'slow' }],
      ['c', { value: null, detail: 'case failed: boom' }],
      ['d', { value: 1 }],
    ]);
    const full = judgeTargets(reports, { quick: false, benches: ['b'] }, targets);
    expect(full.map((x) => x.verdict)).toEqual(['PASS', 'MISS', 'n/a', 'PASS', 'n/a']);
    expect(full[2].detail).toBe('case failed: boom');
    expect(full[4].detail).toBe('bench other not run');
    const quick = judgeTargets(reports, { quick: true, benches: ['b', 'other'] }, targets);
    expect(quick.map((x) => x.verdict)).toEqual(['PASS', 'MISS', 'n/a', 'n/a', 'n/a']);
    expect(quick[3]).toMatchObject({ value: 1, detail: expect.stringContaining('--quick') });
    expect(quick[4].detail).toBe('not measured');
    expect(formatTargets(full)).toMatch(/^targets: 2 PASS, 1 MISS, 2 n\/a\n {2}PASS {2}1\.90× {2}x\n/);
  });
});

function sampleResult(over: Partial<BenchResult> = {}): BenchResult {
  const c = pairedCase({ bench: 'startup', id: 'help', title: '`notevox --help` vs `node -e 0`', load: [0.5, 0.4, 0.3] }, series('notevox --help', 'ms', [90, 100, 120]), series('node -e 0', 'ms', [45, 40, 60]));
  return {
    format: RESULT_FORMAT,
    startedAt: '2026-11-01T09:00:00.000Z',
    finishedAt: '2026-11-01T09:10:00.000Z',
    quick: false,
    pairs: 3,
    benches: ['startup'],
    root: { path: '/work/main', commit: 'f'.repeat(40), dirty: false },
    node: { path: '/usr/bin/node', version: 'v20.20.2' },
    machine: { platform: 'linux', cpuModel: 'cpu', cores: 2, totalMemMb: 1024, loadStart: [0.5, 0.4, 0.3], loadEnd: [0.6, 0.5, 0.3] },
    cases: [c, { bench: 'lists', id: 'page-last-100k', title: 'last page', load: [1, 1, 1], na: 'walk took too long' }],
    targets: judgeTargets(new Map([['startup.help', { value: c.ratio!.median }]]), { quick: false, benches: ['startup'] }),
    ...over,
  };
}

describe('result file', () => {
  it('a paired case keeps both series and the ratio of each pair', () => {
    const c = sampleResult().cases[0];
    expect(c.a).toMatchObject({ label: 'notevox --help', unit: 'ms', values: [90, 100, 120], median: 100, min: 90, max: 120, n: 3 });
    expect(c.ratio).toEqual({ values: [2, 2.5, 2], n: 3, median: 2, min: 2, max: 2.5 });
    const text = formatCase(c);
    expect(text).toContain('median 2.00×  [2.00× – 2.50×]  (3 pairs)');
    expect(text).toContain('load at start: 0.50 0.40 0.30');
  });

  it('survives a JSON round trip and is recognised by parseResult', () => {
    const r = sampleResult();
    const back = parseResult(JSON.parse(JSON.stringify(r)));
    expect(back).toEqual(r);
    expect(back.targets.find((t) => t.id === 'startup.help')).toMatchObject({ value: 2, verdict: 'MISS', op: '<=', threshold: 1.3 });
    expect(back.targets).toHaveLength(TARGETS.length);
  });

  it('parseResult names the field that is wrong', () => {
    const r = sampleResult() as unknown as Record<string, unknown>;
    expect(() => parseResult({ ...r, format: 'x' }, 'a.json')).toThrow(/a\.json: format must be "notevox-bench\/1"/);
    expect(() => parseResult({ ...r, machine: { cores: 2 } })).toThrow(/machine must give cores, loadStart and loadEnd/);
    const cases = JSON.parse(JSON.stringify(r.cases));
    cases[0].ratio.values = ['2'];
    expect(() => parseResult({ ...r, cases })).toThrow(/cases\[0\]\.ratio must have values and median/);
    const targets = JSON.parse(JSON.stringify(r.targets));
    targets[1].verdict = 'OK';
    expect(() => parseResult({ ...r, targets })).toThrow(/targets\[1\]\.verdict must be PASS, MISS or n\/a/);
    expect(() => parseResult([])).toThrow(/must hold a JSON object/);
  });

  it('the comparison lists every target and case with before, after and their quotient', () => {
    const before = sampleResult();
    const faster = pairedCase({ ...before.cases[0], load: [0.1, 0.1, 0.1] }, series('notevox --help', 'ms', [50, 50, 50]), series('node -e 0', 'ms', [40, 40, 40]));
    const after = sampleResult({ cases: [faster], targets: judgeTargets(new Map([['startup.help', { value: 1.25 }]]), { quick: false, benches: ['startup'] }), quick: true });
    const text = formatComparison(before, after);
    expect(text).toContain('warning: one run is --quick');
    const help = text.split('\n').find((l) => l.startsWith('`notevox --help` ≤ 1.3×'))!;
    expect(help).toMatch(/2\.00× MISS\s+1\.25× PASS\s+0\.63×$/);
    const helpCase = text.split('\n').find((l) => l.startsWith('startup: `notevox --help`'))!;
    expect(helpCase).toMatch(/100 ms \(2\.00×\)\s+50\.0 ms \(1\.25×\)\s+0\.50×$/);
    expect(text).toMatch(/lists: last page\s+n\/a\s+–/);
    expect(text.split('\n').filter((l) => / (PASS|MISS|n\/a)\s/.test(l) || l.endsWith('n/a')).length).toBeGreaterThanOrEqual(TARGETS.length);
  });
});

describe('options', () => {
  it('pairs, quick, root, node, names', () => {
    expect(parseArgs([], {})).toMatchObject({ names: [], pairs: 5, warmups: 1, quick: false, node: process.execPath });
    expect(parseArgs(['--quick'], {}).pairs).toBe(2);
    expect(parseArgs(['--quick', '--pairs=7'], {}).pairs).toBe(7);
    expect(parseArgs(['startup', 'wm.bench.ts', '--pairs', '3', '--root', 'x/y', '--node=/opt/n22/bin/node'], {})).toMatchObject({
      names: ['startup', 'wm'],
      pairs: 3,
      root: resolve('x/y'),
      node: '/opt/n22/bin/node',
    });
    expect(parseArgs([], { NOTEVOX_BENCH_NODE: '/opt/n24/bin/node' }).node).toBe('/opt/n24/bin/node');
    expect(parseArgs(['--compare', 'a.json', 'b.json'], {}).compare).toEqual(['a.json', 'b.json']);
  });

  it('refuses what it does not know', () => {
    expect(() => parseArgs(['nope'], {})).toThrow(UsageError);
    expect(() => parseArgs(['--pairs=0'], {})).toThrow(/--pairs needs a whole number of at least 1/);
    expect(() => parseArgs(['--runs=3'], {})).toThrow(/--runs is now --pairs/);
    expect(() => parseArgs(['--compare', 'a.json'], {})).toThrow(/two result files/);
    expect(() => parseArgs(['--fast'], {})).toThrow(/unknown option --fast/);
  });
});

describe('load generator response parser', () => {
  it('splits answers by Content-Length and by chunked encoding, across any cut', () => {
    const one = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}';
    const chunked = 'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n';
    const trailers = 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-Trailer: 1\r\n\r\n';
    const empty = 'HTTP/1.1 204 No Content\r\n\r\n';
    const stream = Buffer.from(one + chunked + trailers + empty + one);
    for (let cut = 1; cut < stream.length; cut += 7) {
      const p = new ResponseParser();
      const got = [...p.push(stream.subarray(0, cut)), ...p.push(stream.subarray(cut))];
      expect(got).toEqual([200, 404, 201, 204, 200]);
    }
    const p = new ResponseParser();
    const got: number[] = [];
    for (const byte of stream) got.push(...p.push(Buffer.from([byte])));
    expect(got).toEqual([200, 404, 201, 204, 200]);
  });

  it('refuses what is not HTTP', () => {
    expect(() => new ResponseParser().push(Buffer.from('SSH-2.0\r\n\r\n'))).toThrow(/not an HTTP answer/);
  });
});

describe('load generator', () => {
  let server: Server;
  let url = '';
  let seen = 0;
  let stalls = 0;
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('closed loop: every answer counted, none failed', async () => {
    server = createServer((req, res) => {
      seen++;
      // the first request to /stall stalls 300 ms (counted apart: a closed-loop request of the test before may
      // still arrive late on a loaded machine); the others answer at once (chunked, to exercise the parser)
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ n: seen, auth: req.headers.authorization ?? null }));
      };
      if (req.url === '/stall' && ++stalls === 1) setTimeout(answer, 300);
      else answer();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await runLoad({ url: `${url}/fast`, headers: { authorization: 'Bearer x' }, connections: 2, durationMs: 200 });
    expect(r.errors).toBe(0);
    expect(r.ok).toBeGreaterThan(0);
    expect(r.latencies).toHaveLength(r.ok);
    expect(r.rps).toBe(r.ok / 0.2);
  });

  it('open loop: the requests of the schedule, with the time they waited behind a stall counted', async () => {
    stalls = 0;
    const r = await runLoad({ url: `${url}/stall`, connections: 1, durationMs: 500, rate: 100 });
    expect(r.ok + r.errors).toBe(50);
    expect(r.errors).toBe(0);
    expect(r.unanswered).toEqual([]);
    // One socket: the requests scheduled while the first answer stalled waited for it. Counted from their
    // scheduled time, several of them took most of the stall; counted from the moment they were sent, only
    // the first would have.
    expect(r.latencies.filter((ms) => ms >= 200).length).toBeGreaterThan(3);
  });

  it('counts error statuses as errors', async () => {
    const bad = createServer((_req, res) => {
      res.statusCode = 503;
      res.end('no');
    });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', () => r()));
    try {
      const r = await runLoad({ url: `http://127.0.0.1:${(bad.address() as AddressInfo).port}/`, connections: 1, durationMs: 100, rate: 50 });
      expect(r.ok).toBe(0);
      expect(r.errors).toBe(5);
      expect(r.firstError).toBe('HTTP 503');
    } finally {
      await new Promise<void>((r) => bad.close(() => r()));
    }
  });

  it('open loop: the schedule counts every request due, whatever floating point makes of the elapsed time', () => {
    // deadline - start for a start like 943.2561827156238 is a hair under the duration; the last request was then never
    // issued (CI saw 4 of 5 and 49 of 50)
    const start = 943.2561827156238;
    const elapsed = start + 100 - start;
    expect(elapsed).toBeLessThan(100);
    expect(dueBy(elapsed, 50)).toBe(5);
    expect(dueBy(99.99999999997, 50)).toBe(5);
    expect(dueBy(499.9999999999, 100)).toBe(50);
    expect(dueBy(19.5, 50)).toBe(0);
    expect(dueBy(20, 50)).toBe(1);
    expect(dueBy(0, 50)).toBe(0);
  });

  it('open loop: requests with no answer by the end of the drain are reported with their wait', async () => {
    const silent = createServer(() => {}); // never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const r = await runLoad({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, connections: 2, durationMs: 100, rate: 50, drainMs: 100 });
      expect(r.ok).toBe(0);
      expect(r.errors).toBe(0);
      expect(r.unanswered).toHaveLength(5); // 2 sent, 3 waiting for a socket
      for (const ms of r.unanswered) expect(ms).toBeGreaterThanOrEqual(100);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('generated worlds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'notevox-world-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are valid seeds with every sharing type, and the member key reads some notes and not others', async () => {
    const w = await ensureWorld(dir, 200);
    expect(w).toMatchObject({ notes: 200, wordMemories: 2000, noteGuid: 'bn00000000000' });
    expect((await ensureWorld(dir, 200)).generatedMs).toBe(w.generatedMs); // cached
    const sb = await inProcessSandbox({ seedFile: w.file });
    try {
      const sharing = sb.db.all<{ s: string }>('SELECT DISTINCT sharing_type AS s FROM folders ORDER BY s').map((r) => r.s);
      expect(sharing).toEqual(['ALL_MEMBER_EDITOR', 'ALL_MEMBER_VIEWER', 'LIMITED', 'PRIVATE']);
      expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM notes')?.n).toBe(200);
      expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE workspace_guid IS NULL')?.n).toBeGreaterThan(0);
      const listed = await sb.call('GET', '/v1/external/notes?size=1000', { key: w.memberKey });
      expect(listed.status).toBe(200);
      expect(listed.json.content.length).toBeGreaterThan(50);
      expect(listed.json.content.length).toBeLessThan(200);
      expect((await sb.call('GET', `/v1/external/notes/${w.noteGuid}`, { key: w.memberKey })).status).toBe(200);
      const org = await sb.call('GET', '/v1/external/notes?size=1', { key: `${WORLD_KEYS.organization.id}.${WORLD_KEYS.organization.secret}` });
      expect(org.status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
