import { stringify } from 'csv-stringify/sync';
import type { ItemOf } from '../../contract/api.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';
import type { AtomicFile } from '../../io/atomic-file.js';
import { openDataFile } from '../../io/data-file.js';
import type { IOStreams } from '../../io/iostreams.js';
import { cannotWrite } from '../../io/fs-errors.js';
import type { Context } from '../types.js';
import { resolveTarget, wmRequest } from './target.js';
import type { Flags } from '../registry.js';
import type * as cmd from './index.js';

/** `wm export`: every word memory of a scope, page by page, as CSV (the import format), JSON or NDJSON. */

export type ExportFlags = Flags<typeof cmd.exportScope>;

/** A word memory as the service answers it (the contract's schema). */
export type WordMemory = ItemOf<'wm.user.list'>;

const FORMATS = ['csv', 'json', 'ndjson'] as const;
type ExportFormat = (typeof FORMATS)[number];

interface Sink {
  write(text: string): Promise<void>;
  /** Finish: an --out file appears only now, complete. */
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * A temporary file beside `path`, renamed to it when complete; opened at once, so that a bad path fails before any
 * request. The AtomicFile alone owns (and closes) the descriptor; a failed write (a full disk) is reported as itself.
 */
function fileSink(io: IOStreams, path: string): Sink {
  let file: AtomicFile;
  try {
    file = openDataFile(io, path);
  } catch (e) {
    throw cannotWrite(`--out ${path}`, e);
  }
  return {
    write: async (text) => {
      await file.write(text).catch((e: unknown) => {
        throw cannotWrite(`--out ${path}`, e);
      });
    },
    commit: async () => {
      try {
        file.commit();
      } catch (e) {
        throw cannotWrite(`--out ${path}`, e);
      }
    },
    abort: async () => file.discard(),
  };
}

/** Stdout, waiting while its buffer is full (constant memory however long the export). */
function stdoutSink(io: IOStreams): Sink {
  return { write: (text) => io.outAsync(text), commit: async () => {}, abort: async () => {} };
}

/** The text of a page in `format`; `first` is whether it is the first page. */
function render(format: ExportFormat, items: WordMemory[], first: boolean): string {
  if (format === 'csv') return stringify(items.map((w) => [w.entry, w.subEntry ?? '']));
  if (format === 'ndjson') return items.map((w) => JSON.stringify(w) + '\n').join('');
  return items.map((w, i) => (first && i === 0 ? '[\n  ' : ',\n  ') + JSON.stringify(w)).join('');
}

export async function exportScope(ctx: Context, flags: ExportFlags): Promise<void> {
  const format = (ctx.output.chosen ? ctx.output.format : 'csv') as ExportFormat;
  if (!FORMATS.includes(format)) throw new UsageError(`wm export writes csv, json or ndjson, not ${format}`, 'Pass -o csv (the default), -o json or -o ndjson.');
  const target = await resolveTarget(ctx, flags);
  const client = await ctx.client();
  const sink = flags.out ? fileSink(ctx.io, flags.out) : stdoutSink(ctx.io);
  // Ctrl-C or SIGTERM: the partial --out file goes, the target is left as it was.
  const unregister = ctx.onInterrupt(() => sink.abort());
  let count = 0;
  try {
    if (format === 'csv') await sink.write('entry,subEntry\n');
    const pages = client.paginate(...wmRequest(target, 'list', { signal: ctx.signal }), { pageSize: PAGE_SIZES.wordMemories.max });
    for await (const page of pages) {
      if (page.items.length) await sink.write(render(format, page.items, count === 0));
      count += page.items.length;
    }
    if (format === 'json') await sink.write(count ? '\n]\n' : '[]\n');
    await sink.commit();
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    unregister();
  }
  ctx.io.success(`Exported ${count} word memories of the ${target.label} scope${flags.out ? ` to ${flags.out}` : ''}.`);
}
