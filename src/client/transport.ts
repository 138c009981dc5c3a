/**
 * What the client needs from an HTTP transport, the proxy rules, and the one watchdog that bounds every attempt.
 * Two transports sit behind this interface: node:http/https (node-transport.ts: in Node's start-up snapshot, so a
 * command that makes a request or two starts fast; and uploads, whose buffers it lets be reused) and undici
 * (undici-transport.ts: proxies and concurrent requests). The client chooses per request; timeouts, retries, tracing, error mapping and the proxy
 * rules live above this line and are the same on both.
 */

import type { Readable } from 'node:stream';
import { isLoopbackHost } from '../config/baseurl.js';
import { UsageError } from '../errors.js';

export type TransportKind = 'node' | 'undici';

/** Told by a transport as an attempt makes progress; the watchdog turns silence into a timeout. */
export interface Progress {
  /** A connection is ready to carry the request (TCP, the proxy's tunnel and TLS are done). */
  connected(): void;
  /** The status line and headers arrived. */
  responseStarted(): void;
  /** Part of the response body arrived. */
  received(): void;
}

export interface WireRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** JSON text or its UTF-8 bytes, or a stream (uploads: a FileBody, which node:http reads chunk by chunk and undici as a stream). */
  body?: string | Uint8Array | Readable;
  /** The proxy to go through (from proxyFor); only the undici transport takes one. */
  proxy?: URL;
  /** Aborted when the watchdog fires or the caller gives up: the transport drops the request and its connection. */
  signal: AbortSignal;
  progress: Progress;
}

export interface WireResponse {
  status: number;
  statusText: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  rawBody: string;
}

export interface Transport {
  readonly kind: TransportKind;
  /** Resolves with the whole response, or rejects with the network error (its `code` says what happened). */
  send(req: WireRequest): Promise<WireResponse>;
  /** Drop every connection, including requests that were given up on (a proxy that never answers must not keep the process alive). */
  close(): Promise<void>;
}

const pick = (env: NodeJS.ProcessEnv, ...names: string[]) => names.map((n) => env[n]?.trim()).find(Boolean);

/** The proxy URL the variables give for this scheme (the lower-case name wins; HTTP_PROXY serves https:// too). */
function proxyVariable(protocol: string, env: NodeJS.ProcessEnv): string | undefined {
  return protocol === 'https:' ? pick(env, 'https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY') : pick(env, 'http_proxy', 'HTTP_PROXY');
}

/** `NO_PROXY` entries: `host`, `.host` or `*.host` (the host and its sub-domains), `host:port`, an IP, or `*`. */
function bypassedByNoProxy(url: URL, env: NodeJS.ProcessEnv): boolean {
  const list = pick(env, 'no_proxy', 'NO_PROXY');
  if (!list) return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of list.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(?:\*?\.)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (!m) continue;
    const name = m[1].replace(/^\[|\]$/g, '');
    if (m[2] && m[2] !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

export type ProxyDecision = { proxy: URL } | { proxy?: undefined; bypass?: 'loopback' | 'NO_PROXY' };

/**
 * Whether a request to `url` goes through a proxy, and which. Loopback hosts (localhost, 127.0.0.0/8, ::1) never
 * do: the proxy would see a plain-http key and resolve "127.0.0.1" on its own host. A proxy URL that cannot be
 * used is a usage error that names the variables, never the value (it may hold a password).
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): ProxyDecision {
  const value = proxyVariable(url.protocol, env);
  if (!value) return {};
  if (isLoopbackHost(url.hostname)) return { bypass: 'loopback' };
  if (bypassedByNoProxy(url, env)) return { bypass: 'NO_PROXY' };
  let proxy: URL | undefined;
  try {
    proxy = new URL(value);
  } catch {}
  if (!proxy || (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') || !proxy.hostname) {
    throw new UsageError('cannot use the proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)', 'Check the proxy URL, e.g. http://proxy.example:3128.');
  }
  return { proxy };
}

/** One line for `--debug`: whether and which proxy a request uses, without the proxy's credentials. */
export function describeProxy(url: URL, decision: ProxyDecision, env: NodeJS.ProcessEnv): string | undefined {
  if (decision.proxy) {
    const noProxy = pick(env, 'no_proxy', 'NO_PROXY');
    return `proxy: via ${decision.proxy.host}${noProxy ? ` (NO_PROXY=${noProxy})` : ''}`;
  }
  if (decision.bypass === 'loopback') return `proxy: not used for ${url.host} (loopback)`;
  if (decision.bypass === 'NO_PROXY') return `proxy: not used for ${url.host} (NO_PROXY)`;
  return undefined;
}

/** Network failure codes of our own (the transports' own codes, ECONNREFUSED and the like, pass through). */
export const TIMEOUT_CODES = {
  /** No connection within the connect timeout. */
  connect: 'CONNECT_TIMEOUT',
  /** The proxy did not open the tunnel (answer CONNECT) in time. */
  proxy: 'PROXY_TIMEOUT',
  /** Connected, but the request body stopped going out (uploads). */
  send: 'SEND_TIMEOUT',
  /** The request went out, and no answer came. */
  headers: 'HEADERS_TIMEOUT',
  /** The answer started and then stalled, or did not finish within the total. */
  body: 'BODY_TIMEOUT',
} as const;

/** A timeout noticed by the watchdog: `code` is one of TIMEOUT_CODES. */
export class TimeoutFailure extends Error {
  constructor(
    readonly code: string,
    readonly afterMs: number,
    /** The whole attempt ran out (rather than a silence of `afterMs`). */
    readonly total: boolean,
  ) {
    super(`${code} after ${afterMs}ms`);
    this.name = 'TimeoutFailure';
  }
}

export interface WatchdogLimits {
  /** Longest wait for a connection (through the proxy's tunnel, if any). */
  connectMs: number;
  /** Longest silence once connected: nothing sent (uploads) or nothing received. */
  idleMs: number;
  /** Longest attempt from start to the last byte of the answer; undefined for uploads (they may take long). */
  totalMs?: number;
  proxied: boolean;
  /** The request body is a stream: the client reports its chunks through `sent` and its end through `bodyDone`. */
  streamedBody: boolean;
}

export interface Watchdog {
  /** Rejects with a TimeoutFailure when a limit is reached. */
  readonly fired: Promise<never>;
  /** For the transport. */
  readonly progress: Progress;
  /** A chunk of a streamed body went out. */
  sent(): void;
  /** The last chunk of a streamed body went out: now the answer is awaited. */
  bodyDone(): void;
  /** The attempt ended: no more timers. */
  stop(): void;
}

type Phase = 'connecting' | 'sending' | 'waiting' | 'receiving';
const CODE_OF: Record<Exclude<Phase, 'connecting'>, string> = { sending: TIMEOUT_CODES.send, waiting: TIMEOUT_CODES.headers, receiving: TIMEOUT_CODES.body };

/**
 * Bounds one attempt whatever the transport: the connect (through a proxy: until its tunnel is open), each silence
 * while sending or receiving, and (except for uploads) the whole attempt. The failure says which phase ran out.
 */
export function watchdog(limits: WatchdogLimits): Watchdog {
  let phase: Phase = 'connecting';
  let bodyDone = !limits.streamedBody;
  let fire!: (failure: TimeoutFailure) => void;
  const fired = new Promise<never>((_, reject) => (fire = reject));
  fired.catch(() => {});
  let idle: NodeJS.Timeout | undefined;
  let total: NodeJS.Timeout | undefined;
  let live = true;
  /**
   * When the body last moved (sending). A chunk only notes the time: the silence timer, when it fires, looks at it
   * and waits for the rest of the silence. Re-arming a timer for each of an upload's 1600 chunks cost more than all
   * the rest of the watchdog.
   */
  let movedAt = 0;
  const stop = () => {
    live = false;
    clearTimeout(idle);
    clearTimeout(total);
  };
  const fail = (ms: number, isTotal: boolean) => {
    stop();
    const code = phase === 'connecting' ? (limits.proxied ? TIMEOUT_CODES.proxy : TIMEOUT_CODES.connect) : CODE_OF[phase];
    fire(new TimeoutFailure(code, ms, isTotal));
  };
  const silence = (ms: number) => () => {
    const quiet = Date.now() - movedAt;
    if (phase === 'sending' && quiet < ms) idle = setTimeout(silence(ms), ms - quiet);
    else fail(ms, false);
  };
  const arm = (ms: number) => {
    clearTimeout(idle);
    idle = setTimeout(silence(ms), ms);
  };
  const enter = (next: Phase) => {
    if (!live) return;
    phase = next;
    movedAt = Date.now();
    arm(limits.idleMs);
  };
  arm(limits.connectMs);
  if (limits.totalMs !== undefined) total = setTimeout(() => fail(limits.totalMs!, true), limits.totalMs);
  return {
    fired,
    progress: {
      connected: () => enter(bodyDone ? 'waiting' : 'sending'),
      responseStarted: () => enter('receiving'),
      received: () => enter('receiving'),
    },
    sent: () => {
      if (phase === 'sending') movedAt = Date.now();
    },
    bodyDone: () => {
      bodyDone = true;
      if (phase === 'sending') enter('waiting');
    },
    stop,
  };
}
