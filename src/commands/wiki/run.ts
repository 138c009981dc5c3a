import { withBetterHint } from '../../client/errors.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { UsageError } from '../../errors.js';
import type { ResponseOf } from '../../contract/api.js';
import type { Column } from '../../io/render.js';
import { printList, printObject, printPaged } from '../list.js';
import { reachableWorkspaces, resolveWorkspace } from '../resolve.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

/** The workspace wiki: pages, one page, its mentions, search. */

const PAGE_COLUMNS: Column[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'canonicalName', header: 'NAME', maxWidth: 40 },
  { key: 'pageType', header: 'TYPE' },
  { key: 'mentionCount', header: 'MENTIONS', kind: 'number' },
];

const PAGE_DETAIL: Column<ResponseOf<'wiki.page'>>[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'canonicalName', header: 'Name' },
  { key: 'pageType', header: 'Type' },
  { key: 'description', header: 'Description' },
  { key: 'aliases', header: 'Aliases', kind: 'list' },
  { key: 'links', header: 'Links', get: (p) => (p.links ?? []).map((l) => `${l.canonicalName} (${l.guid})`).join(', ') },
  { key: 'mentionCount', header: 'Mentions', kind: 'number' },
  { key: 'createdAt', header: 'Created', kind: 'time' },
  { key: 'updatedAt', header: 'Updated', kind: 'time' },
];

const MENTION_COLUMNS: Column[] = [
  { key: 'noteId', header: 'NOTE', kind: 'number' },
  { key: 'paragraphId', header: 'PARA', kind: 'number' },
  { key: 'kind', header: 'KIND' },
  { key: 'confidence', header: 'CONF', kind: 'number' },
  { key: 'extractedText', header: 'TEXT', maxWidth: 60 },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

/** Every wiki command has --workspace. */
interface WikiFlags {
  workspace?: string;
}

/** The workspace a wiki command reads, and how to name it in messages. */
interface WikiTarget {
  guid: string;
  label: string;
}

/** --workspace (guid or exact name), else the workspace the key is bound to; else exit 2 listing the choices. */
async function wikiWorkspace(ctx: Context, flags: WikiFlags): Promise<WikiTarget> {
  if (flags.workspace !== undefined) {
    const guid = await resolveWorkspace(ctx, flags.workspace);
    return { guid, label: flags.workspace === guid ? guid : `"${flags.workspace}" (${guid})` };
  }
  const client = await ctx.client();
  const me = (await client.call('auth.me')).data;
  if (me.workspaceGuid) return { guid: me.workspaceGuid, label: `${me.workspaceGuid} (the key's workspace)` };
  const choices = await reachableWorkspaces(ctx);
  throw new UsageError(
    '--workspace is required: this key is not bound to a workspace',
    choices.length ? `Pass --workspace with a guid or exact name: ${choices.map((w) => `${w.guid} (${w.name})`).join(', ')}.` : 'This key reaches no workspace.',
  );
}

/** What an admin must enable, for the wiki's plan (403004) and activation (403005) errors. */
export function wikiGateHint(code: unknown, label: string): string | undefined {
  if (code === ERROR_CODES.WIKI_PLAN_REQUIRED)
    return `Workspace ${label} has no wiki plan: an organization admin must enable the wiki plan for it, then activate its wiki (\`notevox workspaces list\` shows an admin each workspace's wiki state).`;
  if (code === ERROR_CODES.WIKI_NOT_ACTIVATED)
    return `Workspace ${label} has the wiki plan but its wiki is not activated: an admin must activate (enable) the wiki for this workspace.`;
  return undefined;
}

/** Run a wiki request; the gate errors say which workspace and what an admin must enable. */
const gated = <T>(target: WikiTarget, run: () => Promise<T>): Promise<T> => withBetterHint(run, (e) => wikiGateHint(e.code, target.label));

export async function pages(ctx: Context, flags: Flags<typeof cmd.pages>): Promise<void> {
  const query = { type: flags.type, since: flags.since, q: flags.search };
  const ws = await wikiWorkspace(ctx, flags);
  await gated(ws, () => printPaged(ctx, 'wiki.pages', { path: { workspaceGuid: ws.guid }, query }, PAGE_COLUMNS, flags, 'pages'));
}

export async function page(ctx: Context, pageGuid: string, flags: Flags<typeof cmd.page>): Promise<void> {
  const ws = await wikiWorkspace(ctx, flags);
  const client = await ctx.client();
  const res = await gated(ws, () => client.call('wiki.page', { path: { workspaceGuid: ws.guid, pageGuid } }));
  await printObject(ctx, res.data, PAGE_DETAIL);
}

export async function mentions(ctx: Context, pageGuid: string, flags: Flags<typeof cmd.mentions>): Promise<void> {
  const ws = await wikiWorkspace(ctx, flags);
  await gated(ws, () => printPaged(ctx, 'wiki.mentions', { path: { workspaceGuid: ws.guid, pageGuid } }, MENTION_COLUMNS, flags, 'mentions'));
}

export async function search(ctx: Context, text: string, flags: Flags<typeof cmd.search>): Promise<void> {
  const ws = await wikiWorkspace(ctx, flags);
  const client = await ctx.client();
  const res = await gated(ws, () => client.call('wiki.search', { path: { workspaceGuid: ws.guid }, query: { q: text } }));
  await printList(ctx, res.data.content, PAGE_COLUMNS);
}
