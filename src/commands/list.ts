import type { CallRequest, RawRequest } from '../client/client.js';
import type { ItemOf, ListEndpointId } from '../contract/api.js';
import { endpoint } from '../contract/endpoints.js';
import type { Endpoint } from '../contract/types.js';
import type { Column } from '../io/render.js';
import type { ListFlags } from './shared.js';
import type { Context } from './types.js';

/** "notes" → "note", "word memories" → "word memory" (for "Showing 1 …"). */
export function singular(noun: string): string {
  if (noun.endsWith('ies')) return noun.slice(0, -3) + 'y';
  if (noun.endsWith('ches') || noun.endsWith('shes') || noun.endsWith('sses')) return noun.slice(0, -2);
  return noun.endsWith('s') ? noun.slice(0, -1) : noun;
}

/**
 * Print a paged list: streams page by page (constant memory with ndjson/csv/tsv), stops at --limit
 * unless --all, and says on stderr how to get the rest when the list was cut short.
 */
export async function printPaged<Id extends ListEndpointId>(ctx: Context, id: Id, req: CallRequest<Id>, columns: Column<ItemOf<Id> & object>[], flags: ListFlags, noun: string): Promise<void> {
  const ep: Endpoint = endpoint(id);
  if (!ep.page) throw new Error(`${ep.id} is not paged`);
  const limit = flags.all ? undefined : flags.limit;
  const pageSize = Math.min(ep.page.max, limit ?? ep.page.max);
  const client = await ctx.client();
  const { createListWriter } = await import('../io/render.js');
  const writer = createListWriter(ctx.io, columns, ctx.output);
  let shown = 0;
  let next: string | null = null;
  // Any list: the rows go to the renderer as they are.
  for await (const page of client.paginateEndpoint(ep, req as RawRequest, { pageSize, limit, cursor: flags.cursor })) {
    writer.write(page.items as Array<ItemOf<Id> & object>);
    shown += page.items.length;
    next = page.nextCursor;
  }
  writer.end();
  if (next && !flags.all) {
    ctx.io.info(`Showing ${shown} ${shown === 1 ? singular(noun) : noun}; more are available. Use --all for every page, or --cursor ${next} to continue.`);
  }
}

/** Print an unpaged list (`{content: [...]}`). */
export async function printList<Row extends object>(ctx: Context, rows: Row[], columns: Column<Row>[]): Promise<void> {
  const { renderList } = await import('../io/render.js');
  renderList(ctx.io, rows, columns, ctx.output);
}

export async function printObject<Row extends object>(ctx: Context, obj: Row, columns?: Column<Row>[]): Promise<void> {
  const { renderObject } = await import('../io/render.js');
  renderObject(ctx.io, obj, ctx.output, columns);
}
