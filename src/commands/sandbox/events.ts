import type { ApiClient } from '../../client/client.js';
import { callControl, type ControlArgs, type ControlRequest } from '../../client/control.js';
import { withBetterHint } from '../../client/errors.js';
import type { ControlId } from '../../contract/control.js';
import type { ControlResponseOf } from '../../contract/control-schemas.js';
import { LIMITS } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printObject } from '../list.js';
import { resolveWorkspace } from '../resolve.js';
import { readSecret } from '../secret-file.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './events-index.js';

/**
 * `sandbox trigger`, `sandbox events`, `sandbox live-note start`: typed calls of the sandbox's control API
 * (/_sandbox/, contract/control.ts); the shapes are the contract's, not restated here.
 */

interface TokenFlags {
  controlTokenFile?: string;
}

export type LoggedEvent = ControlResponseOf<'control.events.get'>;
type Delivery = LoggedEvent['deliveries'][number];
type Attempt = Delivery['attempts'][number];
type EventPage = ControlResponseOf<'control.events.list'>;
type EventQuery = NonNullable<ControlRequest<'control.events.list'>['query']>;

/** Calls of the control API of the sandbox at the resolved base URL; the control token (if any) is its Bearer value. */
type ControlCaller = <Id extends ControlId>(id: Id, req: ControlRequest<Id>) => Promise<ControlResponseOf<Id>>;

async function controlClient(ctx: Context, flags: TokenFlags): Promise<{ client: ApiClient; call: ControlCaller }> {
  const token = await readSecret({ file: flags.controlTokenFile, flag: '--control-token-file', env: ctx.env, envName: 'NOTEVOX_SANDBOX_CONTROL_TOKEN', what: 'control token' });
  const { baseUrl } = await ctx.credentials();
  const client = await ctx.clientFor({ baseUrl, apiKey: token });
  const call: ControlCaller = (id, req) =>
    withBetterHint(
      () => callControl(client, id, ...([{ ...req, signal: ctx.signal }] as ControlArgs<typeof id>)),
      (e) => {
        if (e.code === 404001) return `${baseUrl} has no sandbox control API: point --base-url (or NOTEVOX_BASE_URL) at a \`notevox sandbox start\`.`;
        if (e.status === 401) return 'This sandbox was started with a control token: pass the same one with --control-token-file or NOTEVOX_SANDBOX_CONTROL_TOKEN.';
        if (e.status === 403 && e.code === 403003) return 'Restart the sandbox with --control-token-file (it listens beyond loopback), and pass that token here.';
        return undefined;
      },
    );
  return { client, call };
}

const textMode = (ctx: Context) => !ctx.output.json;

function deliverySummary(d: Delivery): string {
  const n = d.attempts.length;
  const tries = `${n} attempt${n === 1 ? '' : 's'}`;
  if (d.status === 'pending') return `${d.endpointId} pending (${tries}${d.nextAttemptAt ? `, next ${d.nextAttemptAt}` : ''})`;
  return `${d.endpointId} ${d.status} (${tries})`;
}

const EVENT_COLUMNS: Column<LoggedEvent>[] = [
  { key: 'createdAt', header: 'TIME', kind: 'time' },
  // Copied into --since: never cut, whatever the terminal's width.
  { key: 'id', header: 'ID', whole: true },
  { key: 'type', header: 'TYPE' },
  { key: 'resource', header: 'RESOURCE', get: (e) => `${e.resourceType} ${e.resourceId}` },
  { key: 'deliveries', header: 'DELIVERIES', get: (e) => e.deliveries.map(deliverySummary).join('; ') || '-' },
];

// ---------------------------------------------------------------- trigger

export async function trigger(ctx: Context, type: string, flags: Flags<typeof cmd.trigger>): Promise<void> {
  const body = { type, noteGuid: flags.note, documentId: flags.document, summaryId: flags.summary, folderId: flags.folder };
  const { call } = await controlClient(ctx, flags);
  const e = await call('control.events.trigger', { body });
  if (!textMode(ctx)) return printObject(ctx, e);
  ctx.io.out(`${e.id}\n`);
  const to = e.deliveries.map((d) => `${d.endpointId} (${d.url})`);
  ctx.io.info(`Triggered ${e.type} for ${e.resourceType} ${e.resourceId}${e.workspaceGuid ? ` in ${e.workspaceGuid}` : ''}.`);
  if (to.length) ctx.io.info(`Delivering to ${to.join(', ')}; see \`notevox sandbox events --follow\`.`);
  else ctx.io.warn('no webhook endpoint receives it: start the sandbox with --webhook URL, or register one (docs/events.md).');
}

// ---------------------------------------------------------------- events

function attemptLine(e: LoggedEvent, d: Delivery, a: Attempt): string {
  const what = a.status !== null ? String(a.status) : (a.error ?? 'no answer');
  const last = d.attempts[d.attempts.length - 1] === a;
  const outcome = a.nextRetryAt ? `retry at ${a.nextRetryAt}` : last && d.status !== 'pending' ? d.status : '';
  return `${a.at}  ${e.id}    → ${d.endpointId} ${d.url}  attempt ${a.attempt}: ${what} in ${a.durationMs}ms${outcome ? `, ${outcome}` : ''}`;
}

const eventLine = (e: LoggedEvent) => `${e.createdAt}  ${e.id}  ${e.type}  ${e.resourceType} ${e.resourceId}${e.origin === 'test' ? '  (test)' : ''}`;

export async function events(ctx: Context, flags: Flags<typeof cmd.events>): Promise<number | void> {
  const limit = flags.limit;
  const { call } = await controlClient(ctx, flags);
  const fetchPage = (query: EventQuery) => call('control.events.list', { query: { type: flags.type?.join(','), ...query } });
  const first = await fetchPage(flags.since !== undefined ? { since: flags.since, limit: String(limit) } : { tail: String(limit) });
  if (!flags.follow) {
    if (textMode(ctx)) {
      const { renderList } = await import('../../io/render.js');
      if (first.content.length === 0) ctx.io.info('No events yet.');
      else renderList(ctx.io, first.content, EVENT_COLUMNS, ctx.output);
    } else {
      const { renderList } = await import('../../io/render.js');
      renderList(ctx.io, first.content, [], ctx.output);
    }
    if (first.nextCursor) ctx.io.info(`Showing ${first.content.length} events; more follow: --since ${first.nextCursor}`);
    return;
  }
  return follow(ctx, first.content, fetchPage);
}

/** --follow: print each event once and each delivery attempt once, as they happen, until Ctrl-C. */
async function follow(
  ctx: Context,
  initial: LoggedEvent[],
  fetchPage: (query: EventQuery) => Promise<EventPage>,
): Promise<number> {
  ctx.takeOverInterrupt();
  const json = !textMode(ctx);
  /** Per event: attempts printed per delivery. */
  const printed = new Map<string, number[]>();
  /** Events with a delivery still pending: their createdAt. */
  const open = new Map<string, string>();
  let last: string | undefined;
  const print = (list: LoggedEvent[]) => {
    for (const e of list) {
      let seen = printed.get(e.id);
      if (!seen) {
        seen = [];
        printed.set(e.id, seen);
        last = e.id;
        const { deliveries: _deliveries, ...rest } = e;
        ctx.io.out(json ? JSON.stringify({ kind: 'event', ...rest }) + '\n' : eventLine(e) + '\n');
      }
      e.deliveries.forEach((d, i) => {
        for (const a of d.attempts.slice(seen[i] ?? 0))
          ctx.io.out(json ? JSON.stringify({ kind: 'attempt', eventId: e.id, type: e.type, endpointId: d.endpointId, url: d.url, delivery: d.status, ...a }) + '\n' : attemptLine(e, d, a) + '\n');
        seen[i] = d.attempts.length;
      });
      if (e.deliveries.some((d) => d.status === 'pending')) open.set(e.id, e.createdAt);
      else open.delete(e.id);
    }
  };
  print(initial);
  ctx.io.info('Following the event log (Ctrl-C to stop)…');
  const stopped = new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
  while (!ctx.signal.aborted) {
    await Promise.race([new Promise<void>((r) => setTimeout(r, FOLLOW_POLL_MS)), stopped]);
    if (ctx.signal.aborted) break;
    // From the oldest event still being delivered (its attempts keep coming), else after the newest one seen.
    const oldestOpen = [...open.values()].sort()[0];
    let query: EventQuery = { since: oldestOpen ?? last, limit: '1000' };
    try {
      for (;;) {
        const page = await fetchPage(query);
        print(page.content);
        if (!page.nextCursor) break;
        query = { since: page.nextCursor, limit: '1000' };
      }
    } catch (e) {
      if (ctx.signal.aborted) break;
      throw e;
    }
  }
  ctx.io.info(`Stopped following: ${printed.size} event${printed.size === 1 ? '' : 's'} shown.`);
  return 130;
}

const FOLLOW_POLL_MS = 1000;

// ---------------------------------------------------------------- live notes

export async function liveNoteStart(
  ctx: Context,
  flags: Flags<typeof cmd.liveNoteStart>,
): Promise<void> {
  const interval = flags.interval !== undefined ? Number(flags.interval) : undefined;
  if (interval !== undefined && !(interval > 0 && Number.isFinite(interval))) throw new UsageError(`--interval "${flags.interval}" must be a number of seconds above 0, e.g. 2 or 0.05`);
  const stops = flags.stops;
  const workspaceGuid = LIMITS.workspaceGuidPattern.test(flags.workspace) ? flags.workspace : await resolveWorkspace(ctx, flags.workspace);
  const { call } = await controlClient(ctx, flags);
  const note = await call('control.liveNotes.create', {
    body: {
      workspaceGuid,
      title: flags.title,
      folderId: flags.folder,
      count: flags.paragraphs,
      paragraphIntervalSeconds: interval,
      stops,
    },
  });
  if (!textMode(ctx)) return printObject(ctx, note);
  ctx.io.out(`${note.guid}\n`);
  ctx.io.info(`Live note "${note.title}" started; its paragraphs appear one every ${interval ?? 2}s, then note.ended.`);
  ctx.io.info(`Follow it: notevox notes paragraphs ${note.guid} --follow`);
}
