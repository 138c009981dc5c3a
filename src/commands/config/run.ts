import { UsageError } from '../../errors.js';
import { printList, printObject } from '../list.js';
import type { Context } from '../types.js';

export async function profileList(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const rows = store.listProfiles().map((p) => ({ name: p.name, current: p.current, baseUrl: p.baseUrl ?? null, hasKey: p.hasKey }));
  await printList(ctx, rows, [
    { key: 'current', header: ' ', get: (r) => (r.current ? '*' : '') },
    { key: 'name', header: 'PROFILE' },
    { key: 'baseUrl', header: 'BASE URL' },
    { key: 'hasKey', header: 'KEY', get: (r) => (r.hasKey ? 'stored' : 'none') },
  ]);
}

export async function profileUse(ctx: Context, name: string): Promise<void> {
  (await ctx.config()).useProfile(name);
  ctx.io.info(`Now using profile "${name}".`);
}

export async function profileRemove(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  if (!store.removeProfile(name)) throw new UsageError(`no profile "${name}"`, 'See `notevox profile list`.');
  ctx.io.success(`Removed profile "${name}" and its stored key.`);
}

export async function configList(ctx: Context): Promise<void> {
  await printObject(ctx, (await ctx.config()).listSettings());
}

export async function configGet(ctx: Context, key: string): Promise<void> {
  const value = (await ctx.config()).getSetting(key);
  if (value !== undefined) ctx.io.out(value + '\n');
}

export async function configSet(ctx: Context, key: string, value: string): Promise<void> {
  (await ctx.config()).setSetting(key, value);
  ctx.io.success(`Set ${key} = ${value}.`);
}

export async function configUnset(ctx: Context, key: string): Promise<void> {
  (await ctx.config()).unsetSetting(key);
  ctx.io.info(`Unset ${key}.`);
}
