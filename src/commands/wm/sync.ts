import type { ApiResponse } from '../../client/client.js';
import { LIMITS, PAGE_SIZES } from '../../contract/limits.js';
import { EXIT, InputNeededError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import type { Context } from '../types.js';
import { validRows } from './csv.js';
import type { ItemOf } from '../../contract/api.js';
import { assertUnchanged, openSource, validateSource } from './input.js';
import { Pacer, waitsShown } from './pacer.js';
import type { Flags } from '../registry.js';
import type * as cmd from './index.js';
import { batchFailure, chunk, each, runBatches } from './send.js';
import { resolveTarget, wmRequest, type Target } from './target.js';

/**
 * `wm sync FILE.csv`: make a scope hold what the file says. Creates entries that are missing, updates subEntry
 * where it differs, and with --prune deletes entries the file does not name. The scope's entries and the plan are
 * held in memory (import, by contrast, streams).
 */

export type SyncFlags = Flags<typeof cmd.sync>;

export interface Change {
  action: 'create' | 'update' | 'delete';
  id: number | null;
  entry: string;
  subEntry: string | null;
  /** The subEntry before the change (update, delete). */
  was: string | null;
}

/** Changes shown in a terminal table. */
const TABLE_MAX = 200;

const CHANGE_COLUMNS: Column[] = [
  { key: 'action', header: 'ACTION' },
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'entry', header: 'ENTRY' },
  { key: 'subEntry', header: 'SUBENTRY' },
  { key: 'was', header: 'WAS' },
];

const RESULT_COLUMNS: Column[] = [
  { key: 'target', header: 'Target' },
  { key: 'created', header: 'Created', kind: 'number' },
  { key: 'updated', header: 'Updated', kind: 'number' },
  { key: 'deleted', header: 'Deleted', kind: 'number' },
  { key: 'unchanged', header: 'Unchanged', kind: 'number' },
  { key: 'failed', header: 'Failed', kind: 'number' },
];

/**
 * The changes that make the scope match the file. `keep`: entries that rejected rows name (left out with
 * --skip-invalid); --prune does not delete them, since the file does name them.
 */
export async function planSync(
  ctx: Context,
  target: Target,
  rows: AsyncIterable<Array<{ entry: string; subEntry: string | null }>>,
  prune: boolean,
  keep: ReadonlySet<string> = new Set(),
): Promise<{ changes: Change[]; unchanged: number; kept: number }> {
  const client = await ctx.client();
  const current = new Map<string, ItemOf<'wm.user.list'>>();
  for await (const page of client.paginate(...wmRequest(target, 'list', { signal: ctx.signal }), { pageSize: PAGE_SIZES.wordMemories.max }))
    for (const w of page.items) current.set(w.entry, w);
  const changes: Change[] = [];
  const named = new Set<string>();
  let unchanged = 0;
  for await (const batch of rows) {
    for (const r of batch) {
      const cur = current.get(r.entry);
      if (!cur) {
        changes.push({ action: 'create', id: null, entry: r.entry, subEntry: r.subEntry, was: null });
        continue;
      }
      named.add(r.entry);
      if ((cur.subEntry ?? null) === r.subEntry) unchanged++;
      else changes.push({ action: 'update', id: cur.id, entry: r.entry, subEntry: r.subEntry, was: cur.subEntry ?? null });
    }
  }
  let kept = 0;
  if (prune)
    for (const w of current.values()) {
      if (named.has(w.entry)) continue;
      if (keep.has(w.entry)) kept++;
      else changes.push({ action: 'delete', id: w.id, entry: w.entry, subEntry: null, was: w.subEntry ?? null });
    }
  return { changes, unchanged, kept };
}

/** Send the changes: creates, then updates, then deletes, in batches of the bulk maximum. */
async function applyChanges(ctx: Context, target: Target, changes: Change[], concurrency: number | undefined) {
  const client = await ctx.client();
  const progress = ctx.io.progress({ total: changes.length, unit: 'rows', label: `Syncing ${target.label}` });
  const pacer = waitsShown(new Pacer(), progress);
  const counts = { created: 0, updated: 0, deleted: 0 };
  const of = (action: Change['action']) => chunk(changes.filter((c) => c.action === action), LIMITS.wordMemoryBulkMax);
  const entryOf = (c: Change) => (c.subEntry === null ? { entry: c.entry } : { entry: c.entry, subEntry: c.subEntry });
  const idOf = (c: Change) => c.id!; // updates and deletes name an existing entry
  let error: unknown;
  /** One kind of change, batch by batch; `sent` counts what the service confirmed. */
  const step = async <R>(batches: Change[][], send: (b: Change[]) => Promise<ApiResponse<R>>, sent: (answer: R) => void) => {
    if (error !== undefined) return;
    const r = await runBatches(each(batches), {
      pacer,
      concurrency,
      signal: ctx.signal,
      send,
      done: (b, res) => {
        sent(res.data);
        progress.tick(b.length);
      },
    });
    error = r.error;
  };
  const signal = ctx.signal;
  await step(
    of('create'),
    (b) => client.call(...wmRequest(target, 'create', { body: { entries: b.map(entryOf) }, signal })),
    (data) => (counts.created += data.content.length),
  );
  await step(
    of('update'),
    (b) => client.call(...wmRequest(target, 'update', { body: { entries: b.map((c) => ({ id: idOf(c), subEntry: c.subEntry })) }, signal })),
    (data) => (counts.updated += data.content.length),
  );
  await step(
    of('delete'),
    (b) => client.call(...wmRequest(target, 'delete', { body: { ids: b.map(idOf) }, signal })),
    (data) => (counts.deleted += data.deleted),
  );
  progress.done();
  return { counts, error };
}

/** On a terminal a table of the first changes only (a longer one helps nobody); piped (tsv, csv) every change. */
async function printPlan(ctx: Context, changes: Change[]): Promise<void> {
  const shown = ctx.output.format === 'table' ? changes.slice(0, TABLE_MAX) : changes;
  await printList(ctx, shown, CHANGE_COLUMNS);
  if (shown.length < changes.length) ctx.io.info(`… and ${changes.length - shown.length} more changes (-o json, -o tsv or a pipe shows them all).`);
}

export async function sync(ctx: Context, file: string, flags: SyncFlags): Promise<number> {
  const { concurrency } = flags;
  const target = await resolveTarget(ctx, flags);
  const src = await openSource(ctx, file);
  try {
    const rejectedEntries = new Set<string>();
    const check = await validateSource(ctx, src, flags, (r) => {
      if (r.entry !== '') rejectedEntries.add(r.entry);
    });
    await assertUnchanged(src, check);
    const prune = Boolean(flags.prune);
    const { changes, unchanged, kept } = await planSync(ctx, target, validRows(src.path, flags, check), prune, rejectedEntries);
    const n = (a: Change['action']) => changes.filter((c) => c.action === a).length;
    const plan = { target: target.label, create: n('create'), update: n('update'), delete: n('delete'), unchanged, ...(prune ? { keptForRejectedRows: kept } : {}) };
    const json = ctx.output.json;
    // JSON: one document at the end, the plan with what was applied (null when nothing was).
    const report = (applied: Record<string, number> | null) => printObject(ctx, { ...plan, changes, applied });
    if (!json && changes.length) await printPlan(ctx, changes);
    ctx.io.info(`Plan for the ${target.label} scope: ${plan.create} to create, ${plan.update} to update, ${plan.delete} to delete, ${unchanged} unchanged.`);
    if (kept) ctx.io.warn(`${kept} entries of the scope are not in the valid rows but are named by rejected rows: --prune leaves them.`);
    if (!changes.length || flags.dryRun) {
      if (json) await report(null);
      ctx.io.info(changes.length ? 'Dry run: nothing was changed.' : 'Nothing to change.');
      return 0;
    }
    if (!flags.yes) {
      if (!ctx.io.canPrompt) throw new InputNeededError('a confirmation', '--yes');
      const prompter = await ctx.prompter();
      const ok = await prompter.confirm({ message: `Apply these ${changes.length} changes to the ${target.label} word memories?`, default: false, flag: '--yes' });
      if (!ok) {
        if (json) await report(null);
        ctx.io.info('Cancelled: nothing was changed.');
        return EXIT.INTERRUPTED;
      }
    }
    const { counts, error } = await applyChanges(ctx, target, changes, concurrency);
    const failed = changes.length - counts.created - counts.updated - counts.deleted;
    if (json) await report({ ...counts, failed });
    else await printObject(ctx, { target: target.label, ...counts, unchanged, failed }, RESULT_COLUMNS);
    if (error !== undefined) throw batchFailure(error, `${failed} changes were not applied`, 'Run the same command again: sync compares again and sends only what still differs.');
    return 0;
  } finally {
    await src.cleanup();
  }
}
