/**
 * The undici transport: for what node:http does not do as well — requests through a proxy (CONNECT tunnels, also
 * for uploads) and many requests in flight at once (a pool of kept-alive connections). Loaded on first use.
 */

import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { applyWasmTier } from '../wasm-tier.js';
import type { Transport, WireRequest, WireResponse } from './transport.js';

export interface UndiciClasses {
  Agent: typeof import('undici').Agent;
  ProxyAgent: typeof import('undici').ProxyAgent;
  Client: typeof import('undici').Client;
}

/**
 * undici's dispatchers, from its public entry point. That entry also loads fetch, WebSocket and the caches (and
 * Node's own copy of undici with them): 10-40 ms more than its dispatcher modules alone, paid only by the commands
 * that take this transport (a proxy, or many requests in flight: seconds of work). Deep imports of undici's lib/
 * files were cheaper but tied every undici update to its internal layout (issue 27: public APIs only).
 */
export async function loadUndici(): Promise<UndiciClasses> {
  applyWasmTier();
  // A CommonJS package: Node's import gives named exports and a default, the bundle's (esbuild) a default only.
  const mod: UndiciClasses & { default?: UndiciClasses } = await import('undici');
  const { Agent, ProxyAgent, Client } = mod.default ?? mod;
  return { Agent, ProxyAgent, Client };
}

export interface UndiciTransportOptions {
  connectMs: number;
  /** The silence the watchdog allows; undici's own timeouts are set a little beyond it, as a backstop. */
  idleMs: number;
  /** A dispatcher to use for every request instead of our own (tests inject a MockAgent); never closed here. */
  dispatcher?: Dispatcher;
}

const BACKSTOP_MS = 1000;

/**
 * A body's chunks as text, decoded one by one (a character cut between two chunks is joined): no copy of the whole
 * body outside the heap first, which for the answers of many requests in flight is memory only a garbage
 * collection returns, and which the allocator keeps once it has it.
 */
function decode(chunks: Buffer[]): string {
  if (chunks.length === 1) return chunks[0].toString('utf8');
  const decoder = new StringDecoder('utf8');
  let text = '';
  for (const c of chunks) text += decoder.write(c);
  return text + decoder.end();
}

export function createUndiciTransport(o: UndiciTransportOptions): Transport {
  let classes: Promise<UndiciClasses> | undefined;
  let direct: Dispatcher | undefined;
  const proxies = new Map<string, Dispatcher>();
  const load = () => (classes ??= loadUndici());
  const timeouts = { headersTimeout: o.idleMs + BACKSTOP_MS, bodyTimeout: o.idleMs + BACKSTOP_MS };
  const connect = { timeout: o.connectMs + BACKSTOP_MS };

  async function dispatcherFor(proxy: URL | undefined): Promise<Dispatcher> {
    if (o.dispatcher) return o.dispatcher;
    const { Agent, ProxyAgent, Client } = await load();
    if (!proxy) return (direct ??= new Agent({ ...timeouts, connect }));
    let d = proxies.get(proxy.href);
    if (!d) {
      d = new ProxyAgent({
        uri: proxy.href,
        // A CONNECT tunnel for http:// origins too, so that the proxy never sees the key: undici 7's default,
        // no longer undici 8's (found by npm run deps:latest).
        proxyTunnel: true,
        ...timeouts,
        connect,
        proxyTls: connect,
        // The client that talks to the proxy: its CONNECT gets the same bounds as any answer.
        clientFactory: (origin: URL, opts: object) => new Client(origin, { ...opts, ...timeouts }),
      } as ConstructorParameters<typeof ProxyAgent>[0]);
      proxies.set(proxy.href, d);
    }
    return d;
  }

  async function send(w: WireRequest): Promise<WireResponse> {
    const d = await dispatcherFor(w.proxy);
    return new Promise<WireResponse>((resolve, reject) => {
      let controller: { abort(reason?: unknown): void } | undefined;
      let done = false;
      let status = 0;
      let statusText = '';
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      const finish = (err: unknown, res?: WireResponse) => {
        if (done) return;
        done = true;
        w.signal.removeEventListener('abort', onAbort);
        if (err !== undefined) reject(err);
        else resolve(res!);
      };
      // Before the connection is ready undici cannot be told to stop (a proxy that never answers CONNECT): give
      // up on our side at once, and end the request as soon as undici hands it a connection (or close() does).
      const onAbort = () => {
        controller?.abort(w.signal.reason);
        if (typeof w.body === 'object' && !(w.body instanceof Uint8Array)) w.body.destroy(); // closes the file being uploaded
        finish(w.signal.reason);
      };
      if (w.signal.aborted) return finish(w.signal.reason);
      w.signal.addEventListener('abort', onAbort, { once: true });
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (done) return c.abort(w.signal.reason);
          w.progress.connected();
        },
        onResponseStart(_c, statusCode, hdrs, message) {
          status = statusCode;
          statusText = message ?? '';
          headers = {};
          for (const [k, v] of Object.entries(hdrs)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          w.progress.responseStarted();
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
          w.progress.received();
        },
        onResponseEnd() {
          finish(undefined, { status, statusText, headers, rawBody: decode(chunks) });
        },
        onResponseError(_c, err) {
          finish(err);
        },
      };
      try {
        d.dispatch({ origin: w.url.origin, path: w.url.pathname + w.url.search, method: w.method as Dispatcher.HttpMethod, headers: w.headers, body: w.body }, handler);
      } catch (err) {
        finish(err);
      }
    });
  }

  return {
    kind: 'undici',
    send,
    async close() {
      // destroy, not close: close would wait for requests that were given up on (a proxy that never answers).
      const all = [direct, ...proxies.values()].filter((d): d is Dispatcher => d !== undefined);
      direct = undefined;
      proxies.clear();
      await Promise.all(all.map((d) => d.destroy().catch(() => {})));
    },
  };
}
