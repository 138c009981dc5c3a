/**
 * The node:http/https transport: for requests made one at a time without a proxy, which is what nearly every
 * command does. node:http is in Node's start-up snapshot, so unlike undici it costs a command almost nothing to load.
 * Uploads without a proxy go here too: a file body is written chunk by chunk, each buffer reused once the socket
 * has taken it (writeChunks), which undici's stream bodies cannot tell.
 *
 * Keep-alive: connections are kept and reused, by an agent of the transport's own. An idle connection does not keep
 * the process alive (Node's agent unrefs it), and close() ends them in a timer that does not either: a one-shot
 * command's process exits first and the system closes its connection, as a one-shot node:http script's does, without
 * running the socket's destroy path, which builds process.stderr (1-2 ms of CPU when stderr is a pipe); in a
 * process that goes on (tests, `notevox mcp`) the timer ends them at once.
 */

import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { FileBody } from './file-body.js';
import type { Transport, WireRequest, WireResponse } from './transport.js';

type HttpModule = typeof import('node:http');

/**
 * node:http and node:https as CommonJS modules. On Node 22 and later `import 'node:http'` builds the ES module's
 * named exports by reading every property, and the `WebSocket` getter among them loads Node's own copy of undici
 * (several ms of every command); getBuiltinModule (Node ≥ 20.16) returns the module without touching its getters.
 */
export const builtin = {
  http: (): HttpModule => process.getBuiltinModule('node:http'),
  https: (): typeof import('node:https') => process.getBuiltinModule('node:https'),
};

function flattenHeaders(raw: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** How long a kept-alive connection may stay unused. */
const IDLE_MS = 10_000;

const closed = (cause?: Error) => Object.assign(new Error('the connection closed before the answer was complete', { cause }), { code: 'CONNECTION_CLOSED' });

/**
 * A file body chunk by chunk, each buffer back to the body once the socket has taken it (the write's callback);
 * no copy on our side and no fresh memory per chunk. No wait for 'drain': the body's buffers bound what is queued
 * (one, as curl sends: the next chunk is read once the socket has taken the last; file-body.ts says why). A failure
 * (the file shrank) goes to `fail`.
 */
function writeChunks(req: ClientRequest, body: FileBody, gaveUp: () => boolean, fail: (err: unknown) => void): void {
  const pump = () => {
    try {
      while (!gaveUp()) {
        const chunk = body.takeChunk(pump);
        if (chunk === undefined) return;
        if (chunk === null) {
          req.end();
          body.destroy(); // closes the file; the chunks still queued count as they go out
          return;
        }
        req.write(chunk, (err) => {
          if (!err) body.chunkTaken(chunk);
        });
      }
    } catch (e) {
      fail(e);
    }
  };
  pump();
}

export function createNodeTransport(): Transport {
  const agents = new Map<string, Agent>();
  const open = new Set<ClientRequest>();

  /** The keep-alive agent of `protocol`. */
  function agentFor(protocol: string): Agent {
    let agent = agents.get(protocol);
    if (!agent) {
      const mod = protocol === 'https:' ? builtin.https() : builtin.http();
      // `timeout` closes idle connections, and lets the agent honour a server's `Keep-Alive: timeout=N` (closing
      // them a second before the server would), so that a request is not sent on a connection being closed.
      agent = new mod.Agent({ keepAlive: true, timeout: IDLE_MS });
      agents.set(protocol, agent);
    }
    return agent;
  }

  function send(w: WireRequest): Promise<WireResponse> {
    // The client sends proxied requests to undici; going direct instead would silently skip the proxy.
    if (w.proxy) return Promise.reject(new Error('the node:http transport cannot use a proxy'));
    return new Promise<WireResponse>((resolve, reject) => {
      const https = w.url.protocol === 'https:';
      const mod = https ? builtin.https() : builtin.http();
      const headers: Record<string, string> = { ...w.headers };
      if (typeof w.body === 'string') headers['content-length'] = String(Buffer.byteLength(w.body));
      else if (w.body instanceof Uint8Array) headers['content-length'] = String(w.body.byteLength);
      const options: RequestOptions = { method: w.method, headers, agent: agentFor(w.url.protocol) };
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        if (typeof w.body === 'object' && !(w.body instanceof Uint8Array)) w.body.destroy(); // closes the file being uploaded
        reject(err);
      };
      const onAbort = () => fail(w.signal.reason);
      const cleanup = () => {
        open.delete(req);
        w.signal.removeEventListener('abort', onAbort);
      };

      const req = mod.request(w.url, options);
      open.add(req);
      if (w.signal.aborted) return fail(w.signal.reason);
      w.signal.addEventListener('abort', onAbort, { once: true });
      // "socket hang up": the server closed the connection without answering (undici: "other side closed").
      req.on('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNRESET' && err.message === 'socket hang up' ? closed(err) : err));
      req.on('socket', (socket: Socket) => {
        if (!socket.connecting) return w.progress.connected();
        socket.once(https ? 'secureConnect' : 'connect', () => w.progress.connected());
      });
      req.on('response', (res: IncomingMessage) => {
        w.progress.responseStarted();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          w.progress.received();
        });
        const cut = () => fail(closed());
        res.on('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNRESET' && err.message === 'aborted' ? closed(err) : err));
        res.on('close', cut); // after 'end' this does nothing
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) return cut();
          settled = true;
          cleanup();
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: flattenHeaders(res.headers), rawBody: Buffer.concat(chunks).toString('utf8') });
        });
      });

      if (w.body === undefined || typeof w.body === 'string' || w.body instanceof Uint8Array) {
        req.end(w.body);
      } else if (w.body instanceof FileBody) {
        const body = w.body;
        body.on('error', fail);
        writeChunks(req, body, () => settled, fail);
      } else {
        const body: Readable = w.body;
        body.on('error', fail);
        body.pipe(req);
      }
    });
  }

  return {
    kind: 'node',
    send,
    async close() {
      for (const req of open) req.destroy();
      open.clear();
      // The agents hold idle connections only now (a request in flight is in `open`); see the top of this file.
      const idle = [...agents.values()];
      agents.clear();
      if (idle.length) setTimeout(() => idle.forEach((agent) => agent.destroy()), 0).unref();
    },
  };
}
