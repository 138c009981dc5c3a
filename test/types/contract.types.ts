/**
 * Type tests, checked by `tsc --noEmit` (npm test runs it): each `@ts-expect-error` line must fail to type-check,
 * or tsc reports the directive as unused. Nothing here runs.
 */
import { Command } from '@commander-js/extra-typings';
import type { ApiClient } from '../../src/client/client.js';
import type { Flags } from '../../src/commands/registry.js';
import type { ItemOf, ResponseOf, Shape } from '../../src/contract/api.js';
import type { CanonicalEndpointId } from '../../src/contract/endpoints.js';
import { reply, type Handler, type Handlers } from '../../src/sandbox/types.js';
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

// A handler answers its endpoint's response schema, or reply(...) with that body or none.
const handler = <Id extends CanonicalEndpointId>(_id: Id, fn: Handler<Id>) => fn;
declare const note: Shape<'note'>;
declare const folder: Shape<'folder'>;
declare const aString: string;
declare const looseRecord: Record<string, unknown>;
export const answers = [
  handler('notes.get', () => note),
  handler('folders.get', async () => folder),
  handler('notes.get', () => reply({ status: 202, headers: { 'Retry-After': '1' }, body: note })),
  handler('notes.get', () => reply({ status: 307, headers: { Location: '/v1/external/notes/x' } })),
  handler('folders.delete', () => undefined),
  // @ts-expect-error a shape missing required fields does not type-check
  handler('folders.get', () => ({ id: '1', title: 'x' })),
  // @ts-expect-error an enum field is the contract's values, not any string (the old serializers' `sourceType: string`)
  handler('notes.get', () => ({ ...note, sourceType: aString })),
  // @ts-expect-error a record is not a folder (the old folderJson's `Record<string, unknown>`)
  handler('folders.get', () => looseRecord),
  // @ts-expect-error another endpoint's answer does not type-check
  handler('notes.get', () => folder),
  // @ts-expect-error reply(...) carries the endpoint's own body, not another shape
  handler('notes.get', () => reply({ status: 202, body: folder })),
  // @ts-expect-error an endpoint that answers 204 answers no body
  handler('folders.delete', () => ({ deleted: true })),
];
const { 'notes.get': _noteGet, ...others } = HANDLERS;
const wrongShape = { ...others, 'notes.get': () => ({ guid: 'nt1' }) };
// @ts-expect-error a handler map with one handler answering the wrong shape is not Handlers
export const mistyped: Handlers = wrongShape;

// A handler's context is typed from its endpoint's request schemas: what the endpoint does not declare does not type-check.
export const context = [
  handler('notes.documents.get', ({ params, query, note: n }) => {
    const id: number = params.documentId;
    const format: 'json' | 'markdown' | 'html' | undefined = query.format;
    const guid: string = n.guid;
    // @ts-expect-error notes.documents.get declares the query field `format`, not `cursor`
    void query.cursor;
    // @ts-expect-error the path of notes.documents.get has no folderId
    void params.folderId;
    void [id, format, guid];
    return reply({ status: 404 });
  }),
  handler('notes.get', ({ query }) => {
    // @ts-expect-error an endpoint without a query schema declares no query field
    void query.keyword;
    return note;
  }),
  handler('notes.list', ({ query, note: n }) => {
    const size: number | undefined = query.size;
    // @ts-expect-error notes.list takes `size`, not wiki's `limit`
    void query.limit;
    // @ts-expect-error only a note sub-resource (a {noteGuid} path) is given the note
    void n.guid;
    void size;
    return { content: [note], nextCursor: null };
  }),
  handler('workspaces.rename', ({ body }) => {
    const name: string = body.name;
    // @ts-expect-error the rename body is `{name}`
    void body.title;
    void name;
    return reply({ status: 204 });
  }),
];

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

// Issue 29 item 6: the control API's calls are typed from its schemas too (client/control.ts).
export async function controlCalls(): Promise<void> {
  const { callControl } = await import('../../src/client/control.js');
  const page = await callControl(client, 'control.events.list', { query: { since: 'evt_x', limit: '10' } });
  const id: string = page.content[0].id;
  const attempt: number | null = page.content[0].deliveries[0].attempts[0].status;
  // @ts-expect-error a misspelt control id does not type-check
  await callControl(client, 'control.events.lst');
  // @ts-expect-error the query has no such field
  await callControl(client, 'control.events.list', { query: { after: 'evt_x' } });
  // @ts-expect-error a trigger needs the event type in its body
  await callControl(client, 'control.events.trigger', { body: { noteGuid: 'nt1LaunchPlan' } });
  // @ts-expect-error redeliver names the event in its path
  await callControl(client, 'control.events.redeliver', {});
  const note = await callControl(client, 'control.liveNotes.create', { body: { workspaceGuid: 'wsProductTeam001' } });
  const guid: string = note.guid;
  // @ts-expect-error a delivery's status is one of the contract's
  const status: 'queued' = page.content[0].deliveries[0].status;
  void [id, attempt, guid, status];
}
