import { CliError, EXIT } from '../../errors.js';
import { describeFsError } from '../../io/fs-errors.js';
import type { Column } from '../../io/render.js';
import { printObject } from '../list.js';
import type { Context } from '../types.js';
import { JsonText } from '../../client/client.js';
import type { BodyOf } from '../../contract/api.js';
import { CreatedItems, readCreated } from './answer.js';
import { bodyBatches, type CsvCheck, type CsvOptions } from './csv.js';
import { assertUnchanged, openSource, validateSource } from './input.js';
import { Journal, type JournalKey } from './journal.js';
import { Pacer, waitsShown } from './pacer.js';
import type { Flags } from '../registry.js';
import type * as cmd from './index.js';
import { batchFailure, runBatches } from './send.js';
import { resolveTarget, wmRequest, type Target } from './target.js';

/** `wm import FILE.csv`: validate, then create in batches, paced, resumable (docs/word-memories.md). */

export type ImportFlags = Flags<typeof cmd.importCsv>;

async function* filter<T>(source: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of source) if (keep(item)) yield item;
}

const rowsInBatch = (index: number, valid: number, size: number) => Math.max(0, Math.min(size, valid - index * size));

const PLAN_COLUMNS: Column[] = [
  { key: 'file', header: 'File' },
  { key: 'target', header: 'Target' },
  { key: 'rows', header: 'Rows', kind: 'number' },
  { key: 'valid', header: 'Valid', kind: 'number' },
  { key: 'rejected', header: 'Rejected', kind: 'number' },
  { key: 'batches', header: 'Batches', kind: 'number' },
  { key: 'batchSize', header: 'Batch size', kind: 'number' },
  { key: 'batchesDoneEarlier', header: 'Done earlier (batches)', kind: 'number' },
  { key: 'rowsToSend', header: 'Rows to send', kind: 'number' },
];

const SUMMARY_COLUMNS: Column[] = [
  { key: 'file', header: 'File' },
  { key: 'target', header: 'Target' },
  { key: 'rows', header: 'Rows', kind: 'number' },
  { key: 'created', header: 'Created', kind: 'number' },
  { key: 'alreadyPresent', header: 'Already present', kind: 'number' },
  { key: 'doneEarlier', header: 'Done earlier', kind: 'number' },
  { key: 'rejected', header: 'Rejected', kind: 'number' },
  { key: 'failed', header: 'Failed', kind: 'number' },
  { key: 'requests', header: 'Requests', kind: 'number' },
  { key: 'retries', header: 'Retries', kind: 'number' },
  { key: 'rateLimited', header: 'Rate limited (429)', kind: 'number' },
  { key: 'seconds', header: 'Seconds', kind: 'number' },
  { key: 'rowsPerSecond', header: 'Rows/s', kind: 'number' },
];

/** What to run again after a run that stopped early, from the batches the journal holds. */
function resumeHint(journal: Journal): string {
  const confirmed = journal.confirmed.size;
  if (journal.broken)
    return `The resume journal could not be written (${describeFsError(journal.broken)}), so a rerun sends every batch again: entries already created are reported as already present.`;
  return confirmed
    ? `${confirmed} batches are confirmed. Run the same command again to resume: they are skipped (journal ${journal.path}).`
    : 'Nothing was confirmed yet; run the same command again (once the cause is fixed) to start from the beginning.';
}

interface SendJob {
  target: Target;
  path: string;
  opts: CsvOptions;
  check: CsvCheck;
  journal: Journal;
  batchSize: number;
  rowsToSend: number;
  /** Batches confirmed by an earlier run. */
  done: ReadonlySet<number>;
  concurrency?: number;
}

/** Send the batches not done yet, recording each confirmed one in the journal; progress on stderr. */
async function sendAll(ctx: Context, { target, path, opts, check, journal, batchSize, rowsToSend, done, concurrency }: SendJob) {
  const client = await ctx.client();
  const progress = ctx.io.progress({ total: rowsToSend, unit: 'rows', label: `Importing into ${target.label}` });
  const unregister = ctx.onInterrupt(() => {
    journal.close();
    progress.done();
    ctx.io.info(resumeHint(journal));
  });
  const started = Date.now();
  let created = 0;
  let present = 0;
  try {
    // Only the batches not done yet: a batch whose body was left out is confirmed already.
    const batches = filter(bodyBatches(path, opts, check, batchSize, (i) => done.has(i)), (b) => b.body !== undefined);
    const result = await runBatches(batches, {
      pacer: waitsShown(new Pacer(), progress),
      concurrency,
      signal: ctx.signal,
      // The body is the request's JSON already, the bytes made from the spool's (the client sends a JsonText as it
      // is); through `call`, so that the answer is checked against the contract like every write's.
      // The answer is counted as it is read (answer.ts), or else parsed and checked as any.
      send: (b) => client.call(...wmRequest(target, 'create', { body: new JsonText(b.body!) as unknown as BodyOf<'wm.user.create'>, signal: ctx.signal, readAnswer: readCreated })),
      done: (b, res) => {
        // The answer fits the contract (checked by the client, or by readCreated): its content lists the entries created.
        const data = res.data as unknown;
        const made = Math.min(b.rows, data instanceof CreatedItems ? data.count : res.data.content.length);
        const failed = journal.record({ batch: b.index, created: made, present: b.rows - made });
        if (failed) ctx.io.warn(`cannot write the resume journal ${journal.path}: ${describeFsError(failed)}. The import goes on, but cannot resume if it stops now.`);
        created += made;
        present += b.rows - made;
        // Answered: the service read the body, and the batch is not sent again.
        b.release?.();
        progress.tick(b.rows);
        for (let i = 1; i < res.attempts; i++) progress.addRetry();
      },
    });
    return { ...result, created, present, seconds: (Date.now() - started) / 1000 };
  } finally {
    progress.done();
    journal.close();
    unregister();
  }
}

export async function importCsv(ctx: Context, file: string, flags: ImportFlags): Promise<number> {
  const { batchSize, concurrency } = flags;
  const target = await resolveTarget(ctx, flags);
  const src = await openSource(ctx, file);
  try {
    const check = await validateSource(ctx, src, flags);
    const client = await ctx.client();
    const creds = await ctx.credentials();
    const key: JournalKey = {
      sha256: check.sha256,
      // the kind of scope: `--scope workspace` with a bound key and `--workspace <its guid>` share a journal
      scope: target.scope === 'workspaceMe' ? 'workspace' : target.scope,
      target: target.id,
      baseUrl: client.baseUrl,
      keyId: (creds.apiKey ?? '').split('.')[0],
      batchSize,
      columns: `${flags.columns ?? ''}${flags.header ? '+header' : ''}`,
    };
    const journal = Journal.load(ctx.env, key);
    const batches = Math.ceil(check.valid / batchSize);
    const earlier = flags.restart ? [] : [...journal.confirmed.keys()].filter((i) => i < batches);
    const doneEarlier = earlier.reduce((n, i) => n + rowsInBatch(i, check.valid, batchSize), 0);
    const plan = {
      file: src.name,
      target: target.label,
      rows: check.rows,
      valid: check.valid,
      rejected: check.rejected,
      batches,
      batchSize,
      batchesDoneEarlier: earlier.length,
      rowsToSend: check.valid - doneEarlier,
    };
    if (flags.dryRun) {
      await printObject(ctx, plan, PLAN_COLUMNS);
      ctx.io.info('Dry run: nothing was sent.');
      return 0;
    }
    journal.check();
    if (flags.restart) journal.reset();
    if (earlier.length) ctx.io.info(`Resuming: ${earlier.length} of ${batches} batches (${doneEarlier} rows) were confirmed by an earlier run and are skipped.`);
    await assertUnchanged(src, check);

    const sent = await sendAll(ctx, { target, path: src.path, opts: flags, check, journal, batchSize, rowsToSend: plan.rowsToSend, done: new Set(earlier), concurrency });
    const { created, present, seconds } = sent;
    const failed = check.valid - doneEarlier - created - present;
    const summary = {
      file: src.name,
      target: target.label,
      rows: check.rows,
      valid: check.valid,
      created,
      alreadyPresent: present,
      doneEarlier,
      rejected: check.rejected,
      failed,
      batches,
      concurrency: sent.concurrency,
      requests: client.stats.requests,
      retries: client.stats.retries,
      rateLimited: client.stats.rateLimited,
      seconds: Math.round(seconds * 100) / 100,
      rowsPerSecond: seconds > 0 ? Math.round((created + present) / seconds) : 0,
    };
    await printObject(ctx, summary, SUMMARY_COLUMNS);
    if (sent.error !== undefined) {
      throw batchFailure(sent.error, `${failed} rows were not imported`, resumeHint(journal));
    }
    // The journal goes only when the service confirmed every batch, by this run or an earlier one.
    const unconfirmed = batches - [...journal.confirmed.keys()].filter((i) => i < batches).length;
    if (unconfirmed > 0 || failed > 0) {
      throw new CliError(`${failed} rows in ${unconfirmed} batches were not confirmed by the service`, { exitCode: EXIT.UNEXPECTED, hint: resumeHint(journal) });
    }
    const left = journal.remove();
    if (left) ctx.io.warn(`cannot remove the finished resume journal ${journal.path}: ${describeFsError(left)}; delete it by hand.`);
    return 0;
  } finally {
    await src.cleanup();
  }
}
