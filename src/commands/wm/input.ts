import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { openAtomicFile, type AtomicFile } from '../../io/atomic-file.js';
import { cannotWrite } from '../../io/fs-errors.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { checkCsv, parseColumns, parseDelimiter, type CsvCheck, type CsvItem } from './csv.js';

/** The CSV file of `wm import` and `wm sync`: standard input spooled to a file, and the validation pass. */

export interface Source {
  path: string;
  /** How messages name it: the path, or `stdin`. */
  name: string;
  /** A private temporary directory for this run (the spooled rows; standard input's copy), removed by cleanup. */
  dir: string;
  cleanup(): Promise<void>;
}

/** The CSV flags of import and sync. */
export type CsvFlags = Pick<Flags<typeof cmd.sync>, 'columns' | 'header' | 'delimiter' | 'skipInvalid' | 'rejects'>;

/** `-` is standard input, copied to a private temporary file first (a resumable import needs the content's hash). */
export async function openSource(ctx: Context, file: string): Promise<Source> {
  if (file !== '-') {
    const st = await stat(file).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : (e.code ?? e.message)}`);
    });
    if (!st.isFile()) throw new UsageError(`${file} is not a file`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'notevox-wm-')).catch((e: unknown) => {
    throw cannotWrite(`a temporary directory in ${tmpdir()}`, e, 'Free some space there, or point TMPDIR at another directory.');
  });
  const remove = () => rm(dir, { recursive: true, force: true });
  const unregister = ctx.onInterrupt(remove);
  const cleanup = async () => {
    unregister();
    await remove();
  };
  if (file !== '-') return { path: file, name: file, dir, cleanup };
  if (ctx.io.isStdinTTY) ctx.io.info('Reading CSV from standard input (end with Ctrl-D)…');
  const path = join(dir, 'stdin.csv');
  try {
    await pipeline(ctx.io.stdin, createWriteStream(path, { mode: 0o600 }));
  } catch (e) {
    await cleanup();
    throw (e as NodeJS.ErrnoException).code ? cannotWrite(`standard input's copy in ${dir}`, e) : e;
  }
  return { path, name: 'stdin', dir, cleanup };
}

/**
 * Rejected rows as CSV, importable again once fixed: the file's own columns (its header, --columns, or
 * entry,subEntry) then `line,reason`; each row keeps every field it had (`a,b,c` stays `a,b,c`, fields that are
 * missing are empty), written with the file's delimiter. Written to a temporary file beside `file` that takes its
 * name only once complete: an interrupted check leaves no half-written file.
 */
function rejectsWriter(ctx: Context, file: string, delimiter: string) {
  let out: AtomicFile;
  try {
    out = openAtomicFile(file);
  } catch (e) {
    throw cannotWrite(`--rejects ${file}`, e);
  }
  const unregister = ctx.onInterrupt(() => out.discard());
  /** A write that fails (a full disk) removes the temporary file and ends the command with the real error. */
  const write = (text: string) => {
    try {
      out.writeSync(text);
    } catch (e) {
      unregister();
      out.discard();
      throw cannotWrite(`--rejects ${file}`, e);
    }
  };
  const row = (cells: unknown[]) => stringify([cells], { delimiter });
  let width: number | undefined;
  const header = (columns: string[]) => {
    width = columns.length;
    write(row([...columns, 'line', 'reason']));
  };
  return {
    write: (r: CsvItem) => {
      if (width === undefined) header(r.columns ?? ['entry', 'subEntry']);
      const cells = r.cells ?? [r.entry, r.subEntry ?? ''];
      const padded = cells.length < width! ? [...cells, ...Array<string>(width! - cells.length).fill('')] : cells;
      write(row([...padded, r.line, r.reason ?? '']));
    },
    commit: () => {
      if (width === undefined) header(['entry', 'subEntry']);
      unregister();
      try {
        out.commit();
      } catch (e) {
        throw cannotWrite(`--rejects ${file}`, e);
      }
    },
    discard: () => {
      unregister();
      out.discard();
    },
  };
}

/**
 * Check every row; list each bad one on stderr as `FILE:LINE: reason` (and in --rejects). Without --skip-invalid
 * any bad row stops the command with exit 2 before anything is sent; a file that is not readable CSV always does.
 */
export async function validateSource(ctx: Context, src: Source, flags: CsvFlags, onReject?: (item: CsvItem) => void): Promise<CsvCheck> {
  if (flags.columns !== undefined) parseColumns(flags.columns);
  if (flags.header && flags.columns === undefined) throw new UsageError('--header is only needed with --columns', 'Without --columns a header row (entry,subEntry) is recognised by itself.');
  const delimiter = parseDelimiter(flags.delimiter);
  const rejects = flags.rejects ? rejectsWriter(ctx, flags.rejects, delimiter) : undefined;
  const spinner = ctx.io.spinner(`Checking ${src.name}…`);
  let firstFatal: CsvItem | undefined;
  let check: CsvCheck;
  try {
    check = await checkCsv(
      src.path,
      flags,
      (r) => {
        spinner.stop();
        ctx.io.err(`${src.name}:${r.line}: ${r.reason}\n`);
        rejects?.write(r);
        onReject?.(r);
        if (r.fatal) firstFatal ??= r;
      },
      src.dir,
    );
    rejects?.commit();
  } catch (e) {
    rejects?.discard();
    throw e;
  } finally {
    spinner.stop();
  }
  if (check.headerLike !== undefined)
    ctx.io.warn(`${src.name}:${check.headerLike}: looks like a header (its entry column says "entry") but is read as data under --columns; pass --header to skip it.`);
  if (check.size === 0 || (check.rows === 0 && check.rejected === 0 && !check.header))
    throw new CliError(`${src.name} is empty (${check.size === 0 ? 'no bytes' : 'only empty lines'}): there are no rows to read`, {
      exitCode: EXIT.USAGE,
      hint: 'Check the file name, or that the program writing the file finished; a file with a header and no rows is read as no rows.',
    });
  if (firstFatal)
    throw new CliError(`${src.name} cannot be read reliably from line ${firstFatal.line} on; nothing was sent`, { exitCode: EXIT.USAGE, hint: firstFatal.hint });
  if (check.rejected > 0 && !flags.skipInvalid)
    throw new CliError(`${check.rejected} of ${check.rows} rows are invalid (listed above); nothing was sent`, {
      exitCode: EXIT.USAGE,
      hint: 'Fix them, or pass --skip-invalid to send only the valid rows (with --rejects FILE to keep the others).',
    });
  if (check.rejected > 0) ctx.io.warn(`${check.rejected} invalid rows are left out${flags.rejects ? ` (written to ${flags.rejects})` : ''}.`);
  return check;
}

/** Refuse to go on when the file changed after it was checked (the plan and the journal describe the old content). */
export async function assertUnchanged(src: Source, check: CsvCheck): Promise<void> {
  const st = await stat(src.path);
  if (st.size !== check.size || st.mtimeMs !== check.mtimeMs) throw new UsageError(`${src.name} changed while it was being read`, 'Run the command again once the file is complete.');
}
