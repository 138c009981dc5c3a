import type { BodyOf, ItemOf } from '../../contract/api.js';
import { LIMITS } from '../../contract/limits.js';
import { CliError, EXIT, InputNeededError, UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printObject, printPaged } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import { checkText } from './rules.js';
import { chunk } from './send.js';
import { resolveTarget, wmRequest } from './target.js';
import type * as cmd from './index.js';

/** `wm list/get/add/update/rm`: single word memories in the user, workspace or organization scope. */

export const WM_COLUMNS: Column[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'entry', header: 'ENTRY' },
  { key: 'subEntry', header: 'SUBENTRY' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

export async function list(ctx: Context, flags: Flags<typeof cmd.list>): Promise<void> {
  const target = await resolveTarget(ctx, flags);
  await printPaged(ctx, ...wmRequest(target, 'list', {}), WM_COLUMNS, flags, 'word memories');
}

export async function get(ctx: Context, wmId: number, flags: Flags<typeof cmd.get>): Promise<void> {
  const target = await resolveTarget(ctx, flags);
  const client = await ctx.client();
  const res = await client.call(...wmRequest(target, 'get', { path: { id: wmId }, signal: ctx.signal }));
  await printObject(ctx, res.data, WM_COLUMNS);
}

export async function add(ctx: Context, entry: string, flags: Flags<typeof cmd.add>): Promise<void> {
  checkText('ENTRY', 'entry', entry);
  if (flags.sub !== undefined) checkText('--sub', 'subEntry', flags.sub);
  const target = await resolveTarget(ctx, flags);
  const client = await ctx.client();
  const item = flags.sub !== undefined ? { entry, subEntry: flags.sub } : { entry };
  const res = await client.call(...wmRequest(target, 'create', { body: { entries: [item] }, signal: ctx.signal }));
  const created = res.data.content[0];
  if (created) return printObject(ctx, created, WM_COLUMNS);
  // The service skips an existing entry silently: print the stored item, so that a script gets its id either way.
  const existing = await findEntry(ctx, target, entry);
  ctx.io.info(`"${entry}" is already in the ${target.label} word memories; nothing was created.`);
  if (!existing) return;
  const stored = existing.subEntry ?? null;
  if (flags.sub !== undefined && flags.sub !== stored)
    ctx.io.warn(`its subEntry is ${stored === null ? 'empty' : `"${stored}"`}, not "${flags.sub}": change it with \`notevox wm update ${existing.id} --sub ${flags.sub}\``);
  await printObject(ctx, existing, WM_COLUMNS);
}

/** The stored item of `entry` in the scope (entries are unique within a scope), page by page. */
async function findEntry(ctx: Context, target: Awaited<ReturnType<typeof resolveTarget>>, entry: string): Promise<ItemOf<'wm.user.list'> | undefined> {
  const client = await ctx.client();
  for await (const page of client.paginate(...wmRequest(target, 'list', { signal: ctx.signal }))) {
    const hit = page.items.find((w) => w.entry === entry);
    if (hit) return hit;
  }
  return undefined;
}

export async function update(ctx: Context, wmId: number, flags: Flags<typeof cmd.update>): Promise<void> {
  if (flags.sub !== undefined && flags.clearSub) throw new UsageError('--sub and --clear-sub cannot be combined');
  if (flags.entry === undefined && flags.sub === undefined && !flags.clearSub) throw new UsageError('nothing to change', 'Pass --entry, --sub or --clear-sub.');
  const change: BodyOf<'wm.user.update'>['entries'][number] = { id: wmId };
  if (flags.entry !== undefined) change.entry = checkText('--entry', 'entry', flags.entry);
  if (flags.sub !== undefined) change.subEntry = checkText('--sub', 'subEntry', flags.sub);
  if (flags.clearSub) change.subEntry = null;
  const target = await resolveTarget(ctx, flags);
  const client = await ctx.client();
  const res = await client.call(...wmRequest(target, 'update', { body: { entries: [change] }, signal: ctx.signal }));
  if (res.data.notFound?.includes(wmId) || !res.data.content?.[0]) throw new CliError(`word memory ${wmId} not found in the ${target.label} scope`, { exitCode: EXIT.NOT_FOUND, hint: 'See `notevox wm list` for the ids.' });
  await printObject(ctx, res.data.content[0], WM_COLUMNS);
}

export async function remove(ctx: Context, ids: number[], flags: Flags<typeof cmd.remove>): Promise<number> {
  const wanted = [...new Set(ids)];
  const target = await resolveTarget(ctx, flags);
  if (!flags.yes) {
    if (!ctx.io.canPrompt) throw new InputNeededError('a confirmation', '--yes');
    const prompter = await ctx.prompter();
    const what = wanted.length === 1 ? `word memory ${wanted[0]}` : `${wanted.length} word memories`;
    if (!(await prompter.confirm({ message: `Delete ${what} from the ${target.label} scope?`, default: false, flag: '--yes' }))) {
      ctx.io.info('Cancelled: nothing was deleted.');
      return EXIT.INTERRUPTED;
    }
  }
  const client = await ctx.client();
  let deleted = 0;
  const missing: number[] = [];
  for (const part of chunk(wanted, LIMITS.wordMemoryBulkMax)) {
    const res = await client.call(...wmRequest(target, 'delete', { body: { ids: part }, signal: ctx.signal }));
    deleted += res.data.deleted ?? 0;
    missing.push(...(res.data.notFound ?? []));
  }
  if (ctx.output.json) await printObject(ctx, { deleted, notFound: missing });
  else ctx.io.success(`Deleted ${deleted} word ${deleted === 1 ? 'memory' : 'memories'} from the ${target.label} scope.`);
  if (missing.length) throw new CliError(`not found in the ${target.label} scope: ${missing.join(', ')}`, { exitCode: EXIT.NOT_FOUND, hint: 'See `notevox wm list` for the ids.' });
  return 0;
}
