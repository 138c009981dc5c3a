// Note lists as the data grows: the time of one page (100 notes, GET /notes with a plain member's user key) in
// worlds of 1k, 10k and 100k notes (world.ts: every sharing type, nesting, notes without folder or workspace),
// first page and last page, each paired with the same page of the 1k world; then `notevox notes list --all`
// over the 100k world. A list whose cost grows with all notes shows ratios far above 1.
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { NotApplicable, runNode, shortCount, timedGet, type BenchContext, type Sandbox } from './lib.js';
import { series } from './results.js';
import { alternate, median, pairRatios, repeat } from './stats.js';
import type { WorldInfo } from './world.js';

export const title = 'notes list pages at 1k, 10k and 100k notes, and `notes list --all` over 100k';

const PAGE = 100;
const WALK_PAGE = 1000;

interface Listed {
  world: WorldInfo;
  sandbox: Sandbox;
  url: string;
  /** Cursor of the last page of PAGE notes, when the walk to it finished in time. */
  lastCursor?: string | null;
  /** Notes the member key lists (from the walk). */
  visible?: number;
  walkNote?: string;
}

/**
 * Walk the list to its last page: pages of 1000 to the last one, then pages of 100 from there. Gives up as
 * soon as the pace of the pages so far says the walk would not end within `budgetMs` (`expectedNotes`: the
 * notes the list is expected to hold, from a smaller world of the same mix).
 */
async function walk(l: Listed, budgetMs: number, expectedNotes: number): Promise<void> {
  const key = l.world.memberKey;
  const started = performance.now();
  const expectedPages = Math.max(1, Math.ceil(expectedNotes / WALK_PAGE));
  let pages = 0;
  const page = async (size: number, cursor: string | null) => {
    const { body } = await timedGet(`${l.url}?size=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    return JSON.parse(body) as { content: unknown[]; nextCursor?: string | null };
  };
  try {
    let cursor: string | null = null;
    let chunkStart: string | null = null;
    let count = 0;
    for (;;) {
      const p = await page(WALK_PAGE, cursor);
      pages++;
      chunkStart = cursor;
      count += p.content.length;
      if (!p.nextCursor) break;
      cursor = p.nextCursor;
      const elapsed = performance.now() - started;
      const projected = (elapsed / pages) * Math.max(expectedPages, pages + 1);
      if (projected > budgetMs) {
        throw new Error(`walking to the last page would take about ${Math.round(projected / 1000)} s (${(elapsed / pages / 1000).toFixed(1)} s per page of ${WALK_PAGE}; budget ${budgetMs / 1000} s)`);
      }
    }
    // from the start of the last chunk, in pages of PAGE
    let last: string | null = chunkStart;
    let at: string | null = chunkStart;
    for (;;) {
      const p = await page(PAGE, at);
      last = at;
      if (!p.nextCursor) break;
      at = p.nextCursor;
    }
    l.lastCursor = last;
    l.visible = count;
  } catch (e) {
    l.walkNote = (e as Error).message;
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const sizes = ctx.quick ? [500, 2000, 5000] : [1000, 10_000, 100_000];
  const walkBudgetMs = ctx.quick ? 30_000 : 120_000;
  const allTimeoutMs = ctx.quick ? 60_000 : 120_000;
  const listPath = buildPath(endpoint('notes.list'));

  const listed: Listed[] = [];
  for (const n of sizes) {
    const world = await ctx.world(n);
    ctx.log(`starting a sandbox on the ${shortCount(n)}-note world …`);
    const sandbox = await ctx.sandbox(['--seed', world.file]);
    const l: Listed = { world, sandbox, url: sandbox.baseUrl + listPath };
    // the share of notes the member lists is the same in every world (same generator): take it from the last one walked
    const known = [...listed].reverse().find((x) => x.visible !== undefined);
    await walk(l, walkBudgetMs, known ? (known.visible! * n) / known.world.notes : n);
    listed.push(l);
  }
  const [small, ...large] = listed;

  const pageUrl = (l: Listed, cursor?: string | null) => `${l.url}?size=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const timePage = async (l: Listed, cursor?: string | null) => (await timedGet(pageUrl(l, cursor), l.world.memberKey)).ms;
  const worstAtLargest: Array<{ which: string; ratio: number }> = [];
  const largest = large[large.length - 1];
  for (const l of large) {
    for (const which of ['first', 'last'] as const) {
      await ctx.runCase(`page-${which}-${shortCount(l.world.notes)}`, `${which} page of ${PAGE} at ${shortCount(l.world.notes)} notes vs at ${shortCount(small.world.notes)}`, [], async () => {
        if (which === 'last') {
          if (l.lastCursor === undefined) throw new NotApplicable(`no last page at ${shortCount(l.world.notes)}: ${l.walkNote}`);
          if (small.lastCursor === undefined) throw new NotApplicable(`no last page at ${shortCount(small.world.notes)}: ${small.walkNote}`);
        }
        const s = await alternate(
          { pairs: ctx.pairs, warmups: ctx.warmups },
          () => timePage(l, which === 'last' ? l.lastCursor : undefined),
          () => timePage(small, which === 'last' ? small.lastCursor : undefined),
        );
        if (l === largest) worstAtLargest.push({ which, ratio: median(pairRatios(s.a, s.b)) });
        const info: Record<string, string | number> = {};
        for (const x of [l, small]) info[`notes listed at ${shortCount(x.world.notes)}`] = x.visible ?? `unknown (${x.walkNote})`;
        return { a: series(`${which} page at ${shortCount(l.world.notes)}`, 'ms', s.a), b: series(`${which} page at ${shortCount(small.world.notes)}`, 'ms', s.b), info };
      });
    }
  }
  if (worstAtLargest.length) {
    const worst = worstAtLargest.reduce((x, y) => (y.ratio > x.ratio ? y : x));
    const missing = ['first', 'last'].filter((w) => !worstAtLargest.some((x) => x.which === w));
    ctx.report('lists.page', { value: worst.ratio, detail: `worst of ${worstAtLargest.map((x) => `${x.which} ${x.ratio.toFixed(2)}×`).join(', ')}${missing.length ? `; ${missing.join(', ')} page not measured` : ''}` });
  } else ctx.report('lists.page', { value: null, detail: 'no page measured at the largest world' });

  // notes list --all over the largest world, through the CLI (pages of 1000), output ndjson to a pipe
  const l = largest;
  const n = shortCount(l.world.notes);
  await ctx.runCase(`list-all-${n}`, `\`notevox notes list --all -o ndjson\` over ${n} notes`, ['lists.all'], async () => {
    const env = ctx.cliEnv({ NOTEVOX_API_KEY: l.world.memberKey, NOTEVOX_BASE_URL: l.sandbox.baseUrl });
    // without a finished walk, the count is estimated from the next world down (same generator, same mix)
    const next = large.length > 1 ? large[large.length - 2] : small;
    const expected = l.visible ?? (next.visible !== undefined ? Math.round((next.visible * l.world.notes) / next.world.notes) : undefined);
    const rss: number[] = [];
    const once = async () => {
      let lines = 0;
      const r = await runNode(ctx.node, [ctx.bin, 'notes', 'list', '--all', '-o', 'ndjson'], {
        env,
        rss: true,
        timeoutMs: allTimeoutMs,
        maxStdout: 0,
        onStdout: (s) => {
          for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) lines++;
        },
      });
      if (r.signal === 'SIGKILL') return { done: false, seconds: r.ms / 1000, lines };
      if (r.code !== 0) throw new Error(`notes list --all exited with ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
      if (l.visible !== undefined && lines !== l.visible) throw new Error(`notes list --all printed ${lines} notes; the API lists ${l.visible}`);
      if (r.peakRssMb !== undefined) rss.push(r.peakRssMb);
      return { done: true, seconds: r.ms / 1000, lines };
    };
    const first = await once();
    if (!first.done) {
      const estimate = expected && first.lines ? (first.seconds * expected) / first.lines : undefined;
      const detail = `stopped after ${first.seconds.toFixed(0)} s at ${first.lines} of ${expected ?? '?'} notes${estimate ? `; ≈ ${estimate.toFixed(0)} s at that pace` : ''}`;
      ctx.report('lists.all', { value: estimate ?? first.seconds, detail: estimate ? `${detail} (estimate)` : `${detail} (lower bound)` });
      return { a: series('notes list --all (stopped)', 's', [first.seconds]), info: { 'notes printed': first.lines, result: detail } };
    }
    // quick enough to repeat: up to 3 runs in all
    const more = first.seconds < 20 ? await repeat({ runs: Math.min(ctx.pairs, 3) - 1, warmups: 0 }, async () => (await once()).seconds) : [];
    const all = [first.seconds, ...more];
    ctx.report('lists.all', { value: median(all) });
    return { a: series('notes list --all', 's', all), peakRssMb: rss.length ? { 'notevox (max)': Math.max(...rss) } : {}, info: { 'notes printed': first.lines } };
  });
  for (const x of listed) await x.sandbox.stop();
}
