import { WEBHOOK_DELIVERY, WEBHOOK_MAX_ATTEMPTS } from '../../contract/events.js';
import type { Db } from '../db.js';
import type { Clock } from '../types.js';
import { displayUrl, webhookHostProblem } from './endpoints.js';
import { formatDuration, postJson, type PostOutcome } from '../../post-json.js';

/**
 * The delivery worker (decisions.md §6.2–§6.3): POSTs pending deliveries with the endpoint's secret as Bearer value,
 * 60 s timeout; 2xx is success, 4xx permanent, 5xx/timeouts/connection errors retried after 15 s, 30 s, 5 min,
 * 30 min and 2 h (6 attempts). `pace` multiplies every delay and the timeout. It runs on unref'd timers, apart from
 * any request: a slow or dead receiver never slows an API answer. State is rows (`webhook_deliveries`,
 * `webhook_attempts`), so what is pending at a crash is sent after a restart (at least once: receivers deduplicate on
 * the event id).
 *
 * Each endpoint has its own cap of deliveries in flight (`perEndpoint`, 4), and there is no shared pool: an endpoint
 * that hangs holds its own slots for the timeout, never another endpoint's, so a healthy endpoint beside it gets
 * every event at once.
 */

export interface DeliveryOptions {
  db: Db;
  clock: Clock;
  /** Multiplies every retry delay and the timeout (`--webhook-pace`, default 1). */
  pace: number;
  /** Always-on log lines (give-ups, permanent failures); never a secret. */
  log: (line: string) => void;
  /** One line per attempt (`--verbose`). */
  verbose?: boolean;
  userAgent: string;
  /** `--webhook-allow-host`: hosts beyond loopback it may deliver to (an endpoint elsewhere fails, unsent). */
  allowedHosts?: readonly string[];
  /** Deliveries in flight at once to one endpoint (default 4); endpoints share no pool. */
  perEndpoint?: number;
}

interface DueRow {
  id: number;
  attempts: number;
  endpoint_id: string;
  event_id: string;
  type: string;
  envelope: string;
  url: string | null;
  secret: string | null;
}

/** What an attempt's outcome means for the delivery. */
export function judgeAttempt(out: Pick<PostOutcome, 'status'>, attempt: number): { verdict: 'delivered' | 'retry' | 'failed'; permanent: boolean } {
  const s = out.status;
  if (s !== undefined && s >= 200 && s < 300) return { verdict: 'delivered', permanent: false };
  // 4xx is permanent; so is any other answer that is neither success nor a server error (a redirect is not followed).
  if (s !== undefined && s < 500) return { verdict: 'failed', permanent: true };
  return attempt < WEBHOOK_MAX_ATTEMPTS ? { verdict: 'retry', permanent: false } : { verdict: 'failed', permanent: false };
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<number, { endpointId: string; controller: AbortController; done: Promise<void> }>();
  private stopped = false;
  private scanning = false;
  private readonly perEndpoint: number;

  constructor(private readonly o: DeliveryOptions) {
    this.perEndpoint = o.perEndpoint ?? 4;
  }

  /** Deliveries in flight per endpoint. */
  private busyEndpoints(): Map<string, number> {
    const n = new Map<string, number>();
    for (const f of this.inFlight.values()) n.set(f.endpointId, (n.get(f.endpointId) ?? 0) + 1);
    return n;
  }

  /** SQL that leaves out deliveries in flight and endpoints at their cap (ids are integers, endpoint ids checked). */
  private notBusy(busy: Map<string, number>): { sql: string; params: string[] } {
    const ids = [...this.inFlight.keys()];
    const full = [...busy].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
    let sql = ids.length ? ` AND d.id NOT IN (${ids.join(',')})` : '';
    if (full.length) sql += ` AND d.endpoint_id NOT IN (${full.map(() => '?').join(',')})`;
    return { sql, params: full };
  }

  get timeoutMs(): number {
    return WEBHOOK_DELIVERY.timeoutSeconds * 1000 * this.o.pace;
  }

  retryDelayMs(afterAttempt: number): number {
    return WEBHOOK_DELIVERY.retryDelaysSeconds[afterAttempt - 1] * 1000 * this.o.pace;
  }

  /** Look for due deliveries now (and arm the timer for the next one). */
  wake(): void {
    if (this.stopped || this.scanning) return;
    this.scanning = true;
    try {
      this.scan();
    } catch (e) {
      // The database is closed under us at shutdown; anything else is worth a line.
      if (!this.stopped) this.o.log(`sandbox: webhook delivery worker: ${(e as Error).message}`);
    } finally {
      this.scanning = false;
    }
  }

  private scan(): void {
    const { db, clock } = this.o;
    const now = clock.now();
    const busy = this.busyEndpoints();
    const { sql, params } = this.notBusy(busy);
    // The oldest due deliveries of each endpoint that has room, at most its cap of them.
    const due = db.all<DueRow & { rn: number }>(
      `SELECT * FROM (
         SELECT d.id, d.attempts, d.endpoint_id, e.id AS event_id, e.type, e.envelope, w.url, w.secret,
                ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS rn, d.next_attempt_at AS at
         FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?${sql})
       WHERE rn <= ? ORDER BY at, id`,
      [now.toISOString(), ...params, this.perEndpoint],
    );
    for (const row of due) {
      const n = busy.get(row.endpoint_id) ?? 0;
      if (n >= this.perEndpoint) continue;
      busy.set(row.endpoint_id, n + 1);
      this.start(row);
    }
    this.arm();
  }

  /** The timer for the earliest pending delivery not in flight, of an endpoint below its cap. */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped) return;
    const { sql, params } = this.notBusy(this.busyEndpoints());
    const next = this.o.db.get<{ at: string | null }>(`SELECT min(d.next_attempt_at) AS at FROM webhook_deliveries d WHERE d.status = 'pending'${sql}`, params)?.at;
    if (!next) return;
    const wait = Math.max(0, Date.parse(next) - this.o.clock.now().getTime());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, wait);
    this.timer.unref();
  }

  private start(row: DueRow): void {
    const controller = new AbortController();
    const done = this.attempt(row, controller.signal)
      .catch((e: Error) => {
        if (!this.stopped) this.o.log(`sandbox: webhook delivery ${row.event_id} → ${row.endpoint_id} failed in the sandbox: ${e.message}`);
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.wake();
      });
    this.inFlight.set(row.id, { endpointId: row.endpoint_id, controller, done });
  }

  private async attempt(row: DueRow, signal: AbortSignal): Promise<void> {
    const { db, clock } = this.o;
    if (row.url === null || row.secret === null) {
      // The endpoint was removed since (removeEndpoint cancels its deliveries; this is the race with one in the queue).
      db.run(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, finished_at = ? WHERE id = ? AND status = 'pending'`, [clock.now().toISOString(), row.id]);
      return;
    }
    const n = row.attempts + 1;
    const at = clock.now().toISOString();
    const refused = webhookHostProblem(row.url, this.o.allowedHosts ?? []);
    if (refused) {
      // An endpoint of a reloaded state that this start does not allow: nothing is sent, the delivery fails.
      db.tx(() => {
        db.run('INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms, next_retry_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [row.id, n, at, null, `not sent: ${refused}`, 0, null]);
        db.run(`UPDATE webhook_deliveries SET attempts = ?, status = 'failed', next_attempt_at = NULL, finished_at = ? WHERE id = ? AND status = 'pending'`, [n, at, row.id]);
      });
      this.o.log(`sandbox: webhook ${row.event_id} ${row.type} → ${row.endpoint_id} ${displayUrl(row.url)}: not sent, ${refused}`);
      return;
    }
    const out = await postJson(
      row.url,
      row.envelope,
      {
        'content-type': 'application/json',
        authorization: `Bearer ${row.secret}`,
        'user-agent': this.o.userAgent,
        [WEBHOOK_DELIVERY.attemptHeader.toLowerCase()]: String(n),
      },
      { timeoutMs: this.timeoutMs, signal },
    );
    // Cut short by shutdown: nothing is recorded, the delivery stays pending and is sent again after a restart.
    if (out.aborted || this.stopped) return;
    const { verdict, permanent } = judgeAttempt(out, n);
    const nextRetryAt = verdict === 'retry' ? new Date(clock.now().getTime() + this.retryDelayMs(n)).toISOString() : null;
    const finishedAt = verdict === 'retry' ? null : clock.now().toISOString();
    db.tx(() => {
      db.run('INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms, next_retry_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        row.id, n, at, out.status ?? null, out.error ?? null, out.durationMs, nextRetryAt,
      ]);
      // A delivery cancelled meanwhile (its endpoint removed) stays cancelled.
      db.run(`UPDATE webhook_deliveries SET attempts = ?, status = ?, next_attempt_at = ?, finished_at = ? WHERE id = ? AND status = 'pending'`, [
        n, verdict === 'retry' ? 'pending' : verdict, nextRetryAt, finishedAt, row.id,
      ]);
    });
    const what = out.status !== undefined ? String(out.status) : out.error!;
    const target = `${row.endpoint_id} ${displayUrl(row.url)}`;
    const head = `sandbox: webhook ${row.event_id} ${row.type} → ${target}`;
    if (this.o.verbose) {
      const next = verdict === 'retry' ? ` (retry in ${formatDuration(this.retryDelayMs(n))})` : '';
      this.o.log(`${head} attempt ${n}/${WEBHOOK_MAX_ATTEMPTS}: ${what} ${formatDuration(out.durationMs)}${next}`);
    }
    if (verdict === 'failed') {
      this.o.log(permanent ? `${head}: answered ${what}, not retried (a 4xx is permanent)` : `${head}: gave up after ${n} attempts (last: ${what})`);
    }
  }

  /** Stop: no new attempts; those in flight are cut short and stay pending (sent again after a restart). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const all = [...this.inFlight.values()];
    for (const f of all) f.controller.abort();
    await Promise.allSettled(all.map((f) => f.done));
  }
}
