/**
 * Type tests, checked by `tsc --noEmit` (npm test runs it): each `@ts-expect-error` line must fail to type-check,
 * or tsc reports the directive as unused. Nothing here runs.
 */
import { Command } from '@commander-js/extra-typings';
import type { ApiClient } from '../../src/client/client.js';
import type { Flags } from '../../src/commands/registry.js';
import type { ItemOf, ResponseOf } from '../../src/contract/api.js';
import type { CanonicalEndpointId } from '../../src/contract/endpoints.js';
import type { Handlers } from '../../src/sandbox/types.js';
import { HANDLERS } from '../../src/sandbox/handlers/index.js';

declare const client: ApiClient;

export async function endpointIds(): Promise<void> {
  // A known id: the answer's type is the schema's, with no type argument.
  const note = (await client.call('notes.get', { path: { noteGuid: 'nt1LaunchPlan' } })).data;
  const title: string = note.title;
  // @ts-expect-error a misspelt endpoint id does not type-check
  await client.call('notes.gett', { path: { noteGuid: 'nt1LaunchPlan' } });
  // @ts-expect-error the path parameters of the endpoint's template are required
  await client.call('notes.get');
  // @ts-expect-error a body of another shape does not type-check (folders take a title)
  await client.call('folders.createWorkspace', { path: { workspaceGuid: 'ws' }, body: { name: 'x' } });
  for await (const page of client.paginate('notes.list')) {
    const guid: string = page.items[0].guid;
    // @ts-expect-error items have the list's item type
    const nope: number = page.items[0].guid;
    void guid;
    void nope;
  }
  // @ts-expect-error only list endpoints can be paginated
  client.paginate('notes.get', { path: { noteGuid: 'x' } });
  void title;
}

// The drifts issue 11 named are gone: the create answer is the create shape, createdAt is required.
export const folderCreate = (r: ResponseOf<'folders.createWorkspace'>): string => r.id;
export const wordMemoryCreatedAt = (w: ItemOf<'wm.user.list'>): string => w.createdAt;

// The sandbox's handler map covers every endpoint: one missing does not type-check.
const { 'notes.get': _dropped, ...missingOne } = HANDLERS;
// @ts-expect-error a handler map without notes.get is not Handlers
export const incomplete: Handlers = missingOne;
// @ts-expect-error a handler under an id that is not an endpoint does not type-check
export const misspelt: Partial<Handlers> = { 'notes.gett': () => null };
export const complete: Handlers = HANDLERS;
export type Every = keyof Handlers extends CanonicalEndpointId ? true : never;

// A command's work gets the flags its options declare, typed; an option it did not declare does not type-check.
export const list = () => new Command('list').option('--limit <n>', 'how many', (v: string) => Number(v)).option('--all', 'every page');
export function work(flags: Flags<typeof list>): number {
  const limit: number | undefined = flags.limit;
  const all: true | undefined = flags.all;
  // @ts-expect-error --cursor is not an option of this command
  const cursor = flags.cursor;
  void all;
  void cursor;
  return limit ?? 0;
}
