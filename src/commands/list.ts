import type { Endpoint, PathParams } from '../contract/types.js';
import { UsageError } from '../errors.js';
import type { Column } from '../io/render.js';
import type { ListFlags } from './shared.js';
import type { Context } from './types.js';

export function parseLimit(value: string | undefined, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value ?? 50);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--limit "${value}" must be a whole number from 1 to ${max}`);
  return n;
}

/**
 * Print a paged list: streams page by page (constant memory with ndjson/csv/tsv), stops at --limit
 * unless --all, and says on stderr how to get the rest when the list was cut short.
 */
export async function printPaged(
  ctx: Context,
  ep: Endpoint,
  req: { params?: PathParams; query?: Record<string, any> },
  columns: Column[],
  flags: ListFlags,
  noun: string,
): Promise<void> {
  if (!ep.page) throw new Error(`${ep.id} is not paged`);
  const limit = flags.all ? undefined : parseLimit(flags.limit);
  const pageSize = Math.min(ep.page.max, limit ?? ep.page.max);
  const client = await ctx.client();
  const { createListWriter } = await import('../io/render.js');
  const writer = createListWriter(ctx.io, columns, ctx.output);
  let shown = 0;
  let next: string | null = null;
  for await (const page of client.paginate<Record<string, unknown>>(ep, req, { pageSize, limit, cursor: flags.cursor })) {
    writer.write(page.items);
    shown += page.items.length;
    next = page.nextCursor;
  }
  writer.end();
  if (next && !flags.all) {
    ctx.io.info(`Showing ${shown} ${noun}; more are available. Use --all for every page, or --cursor ${next} to continue.`);
  }
}

/** Print an unpaged list (`{content: [...]}`). */
export async function printList(ctx: Context, rows: object[], columns: Column[]): Promise<void> {
  const { renderList } = await import('../io/render.js');
  renderList(ctx.io, rows, columns, ctx.output);
}

export async function printObject(ctx: Context, obj: object, columns?: Column[]): Promise<void> {
  const { renderObject } = await import('../io/render.js');
  renderObject(ctx.io, obj, ctx.output, columns);
}
