// A small HTTP/1.1 load generator on raw keep-alive sockets, so that the client costs little next to the
// server it measures (a node:http client would cap a fast server's rate at its own). Two modes:
// - closed loop (`connections` sockets, each sending its next request when the last answer is in): the
//   highest rate the server sustains;
// - open loop (`rate` requests a second on a fixed schedule, queued while every socket is busy, latency
//   counted from the scheduled time): latency percentiles that include stalls, which a closed loop hides
//   (a stalled server also stops a closed-loop client from sending, so few samples see the stall).
import { connect, type Socket } from 'node:net';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationMs: number;
  /** Open loop at this many requests a second; absent: closed loop. */
  rate?: number;
  /** After the duration, how long to wait for answers still due (open loop). Default 30 s. */
  drainMs?: number;
}

export interface LoadResult {
  /** Answers with a 2xx status. */
  ok: number;
  /** Other statuses and socket errors. */
  errors: number;
  /** Open loop: requests still unanswered (or never sent) when the drain ended, each with how long it had waited, ms. */
  unanswered: number[];
  /** First non-2xx status or error, for the message. */
  firstError?: string;
  /** ok answers a second over the measured duration. */
  rps: number;
  /** Latency of each ok answer, ms. */
  latencies: number[];
  elapsedMs: number;
}

interface Pending {
  scheduledAt: number;
}

/** Parses HTTP/1.1 answers from a byte stream: `Content-Length` and `chunked` bodies. */
export class ResponseParser {
  private buf: Buffer = Buffer.alloc(0);

  /** Feed bytes; returns the statuses of the answers completed by them. */
  push(chunk: Buffer): number[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const done: number[] = [];
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) break;
      const head = this.buf.toString('latin1', 0, end);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (!status) throw new Error(`not an HTTP answer: ${JSON.stringify(head.slice(0, 60))}`);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      let total: number;
      if (length) total = end + 4 + Number(length[1]);
      else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        const body = this.chunkedEnd(end + 4);
        if (body < 0) break;
        total = body;
      } else if (status === 204 || status === 304) total = end + 4;
      else throw new Error(`an answer with neither Content-Length nor chunked encoding (status ${status})`);
      if (this.buf.length < total) break;
      this.buf = this.buf.subarray(total);
      done.push(status);
    }
    return done;
  }

  /** Offset just after a complete chunked body starting at `from`, or -1 when more bytes are needed. */
  private chunkedEnd(from: number): number {
    let at = from;
    for (;;) {
      const lineEnd = this.buf.indexOf('\r\n', at);
      if (lineEnd < 0) return -1;
      const size = parseInt(this.buf.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      if (size === 0) {
        // the last chunk: an empty line follows, or trailers and then an empty line
        if (this.buf.length < lineEnd + 4) return -1;
        if (this.buf.toString('latin1', lineEnd + 2, lineEnd + 4) === '\r\n') return lineEnd + 4;
        const trailersEnd = this.buf.indexOf('\r\n\r\n', lineEnd + 2);
        return trailersEnd < 0 ? -1 : trailersEnd + 4;
      }
      at = lineEnd + 2 + size + 2;
      if (this.buf.length < at) return -1;
    }
  }
}

function requestBytes(url: URL, headers: Record<string, string>): Buffer {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: keep-alive'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

/**
 * How many requests an open loop at `rate` per second has scheduled `elapsedMs` into the run. Elapsed time is
 * measured from the start, never as `deadline - start`: with a start like 1234.567891 that difference is
 * 99.99999999999 rather than 100 in floating point, and the last request of the schedule was never issued.
 */
export function dueBy(elapsedMs: number, rate: number): number {
  return Math.floor((elapsedMs * rate) / 1000 + 1e-9);
}

/** Drive GET load at `opts.url`; resolves when the duration is over and the answers are in (or the drain timed out). */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.url);
  if (url.protocol !== 'http:') throw new Error('the load generator speaks plain http only');
  const request = requestBytes(url, opts.headers ?? {});
  const latencies: number[] = [];
  const unanswered: number[] = [];
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const noteError = (why: string) => {
    errors++;
    firstError ??= why;
  };

  return new Promise((resolve) => {
    const start = performance.now();
    const deadline = start + opts.durationMs;
    const queue: Pending[] = [];
    const idle: Conn[] = [];
    let issued = 0;
    let outstanding = 0;
    let finished = false;
    let ticker: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    interface Conn {
      socket: Socket;
      parser: ResponseParser;
      inFlight?: Pending;
      dead: boolean;
    }
    const conns: Conn[] = [];

    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(ticker);
      clearTimeout(drainTimer);
      const now = performance.now();
      const elapsedMs = Math.min(now, deadline) - start;
      for (const c of conns) {
        // open loop: a request still unanswered waited at least this long; closed loop: the last ones are simply cut off
        if (c.inFlight && opts.rate !== undefined) unanswered.push(now - c.inFlight.scheduledAt);
        c.inFlight = undefined;
        c.dead = true;
        c.socket.destroy();
      }
      for (const p of queue) unanswered.push(now - p.scheduledAt);
      resolve({ ok, errors, firstError, rps: ok / (opts.durationMs / 1000), latencies, unanswered, elapsedMs });
    };

    const maybeFinish = () => {
      if (performance.now() < deadline) return;
      // Open loop: not before the ticker has issued every request of the schedule (an answer can arrive after the
      // deadline but before the ticker's last turn, with the last request not yet issued).
      if (opts.rate === undefined || (outstanding === 0 && queue.length === 0 && issued >= dueBy(opts.durationMs, opts.rate))) finish();
    };

    const send = (c: Conn, p: Pending) => {
      c.inFlight = p;
      outstanding++;
      c.socket.write(request);
    };

    const next = (c: Conn) => {
      if (c.dead || finished) return;
      if (opts.rate === undefined) {
        if (performance.now() < deadline) send(c, { scheduledAt: performance.now() });
        else maybeFinish();
        return;
      }
      const p = queue.shift();
      if (p) send(c, p);
      else idle.push(c);
    };

    const open = (): Conn => {
      const socket = connect({ host: url.hostname, port: Number(url.port || 80), noDelay: true });
      const c: Conn = { socket, parser: new ResponseParser(), dead: false };
      socket.on('data', (chunk: Buffer) => {
        let statuses: number[];
        try {
          statuses = c.parser.push(chunk);
        } catch (e) {
          noteError((e as Error).message);
          socket.destroy();
          return;
        }
        for (const status of statuses) {
          const p = c.inFlight;
          c.inFlight = undefined;
          outstanding--;
          if (!p) continue;
          // closed loop: only answers to requests sent before the deadline count
          if (status >= 200 && status < 300) {
            ok++;
            latencies.push(performance.now() - p.scheduledAt);
          } else noteError(`HTTP ${status}`);
          next(c);
        }
        maybeFinish();
      });
      const lost = (why: string) => {
        if (c.dead) return;
        c.dead = true;
        if (c.inFlight) {
          outstanding--;
          c.inFlight = undefined;
          noteError(why);
        }
        const i = idle.indexOf(c);
        if (i >= 0) idle.splice(i, 1);
        if (!finished && conns.every((x) => x.dead)) finish();
      };
      socket.on('error', (e) => lost(e.message));
      socket.on('close', () => lost('connection closed by the server'));
      conns.push(c);
      return c;
    };

    for (let i = 0; i < opts.connections; i++) {
      const c = open();
      if (opts.rate === undefined) c.socket.once('connect', () => next(c));
      else idle.push(c);
    }

    if (opts.rate !== undefined) {
      const rate = opts.rate;
      ticker = setInterval(() => {
        const now = performance.now();
        const due = dueBy(Math.min(now - start, opts.durationMs), rate);
        while (issued < due) {
          const p = { scheduledAt: start + (issued * 1000) / rate };
          issued++;
          const c = idle.shift();
          if (c) send(c, p);
          else queue.push(p);
        }
        if (now >= deadline) {
          clearInterval(ticker);
          drainTimer = setTimeout(finish, opts.drainMs ?? 30_000);
          maybeFinish();
        }
      }, 1);
    } else {
      drainTimer = setTimeout(finish, opts.durationMs + (opts.drainMs ?? 30_000));
    }
  });
}
