import { ApiError } from '../../client/errors.js';
import type { ResponseOf } from '../../contract/api.js';
import type { Column } from '../../io/render.js';
import { printObject } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

/** notes share-link get, create and delete. */

const SHARE_COLUMNS: Column[] = [
  { key: 'shareUrl', header: 'URL' },
  { key: 'hasPassword', header: 'PASSWORD PROTECTED', kind: 'bool' },
  { key: 'shareId', header: 'SHARE ID' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

export async function get(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.shareLink.get', { path: { noteGuid: guid } });
  await printObject(ctx, res.data, SHARE_COLUMNS);
}

/**
 * Create a share link, keeping one that exists (a link already sent out keeps working, decisions.md §3.3): it is
 * reported as it is, or, with --password when it has none, given a password (same URL). --rotate deletes it first,
 * so the link is new (and the old URL stops working).
 */
export async function create(ctx: Context, guid: string, flags: Flags<typeof cmd.shareLinkCreate>): Promise<void> {
  const path = { noteGuid: guid };
  const client = await ctx.client();
  let existing: ResponseOf<'notes.shareLink.get'> | undefined;
  try {
    existing = (await client.call('notes.shareLink.get', { path })).data;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (existing && flags.rotate) {
    await client.call('notes.shareLink.delete', { path });
    ctx.io.success(`Deleted the old share link of ${guid} (${existing.shareUrl}); it no longer works.`);
    existing = undefined;
  }
  if (existing && (!flags.password || existing.hasPassword)) {
    await printObject(ctx, existing, SHARE_COLUMNS);
    const password = existing.hasPassword ? ', password-protected (the password was shown when it was made)' : '';
    ctx.io.info(`Note ${guid} already has a share link${password}; kept it. Use --rotate for a new link${flags.password ? ' and a new password' : ''}.`);
    return;
  }
  const res = await client.call('notes.shareLink.put', { path, body: { usePassword: Boolean(flags.password) } });
  const hasSecret = res.data.sharePassword !== undefined;
  await printObject(ctx, res.data, hasSecret ? [...SHARE_COLUMNS, { key: 'sharePassword', header: 'PASSWORD' }] : SHARE_COLUMNS);
  if (hasSecret) ctx.io.warn('the share password is shown only this once: neither the service nor notevox keeps it. Store it now.');
  ctx.io.success(existing ? `Added a password to the share link of ${guid}: ${res.data.shareUrl}` : `Share link of ${guid}: ${res.data.shareUrl}`);
}

export async function remove(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  await client.call('notes.shareLink.delete', { path: { noteGuid: guid } });
  if (ctx.output.json) return printObject(ctx, { noteGuid: guid, deleted: true });
  ctx.io.success(`Deleted the share link of ${guid}; the old URL no longer works.`);
}
