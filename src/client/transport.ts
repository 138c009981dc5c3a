/** The undici dispatcher behind a client: loaded on first use so that command startup stays fast. */

import type { Dispatcher } from 'undici';

export const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;
const KEEP_ALIVE_MS = 10_000;

/** Whether any HTTP proxy variable is set (NO_PROXY alone changes nothing). */
export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARS.some((v) => Boolean(env[v]?.trim()));
}

/** One line for `--debug`: which proxy is used, without its credentials. */
export function describeProxy(env: NodeJS.ProcessEnv): string | undefined {
  const value = PROXY_VARS.map((v) => env[v]?.trim()).find(Boolean);
  if (!value) return undefined;
  let where = 'an unreadable proxy URL';
  try {
    where = new URL(value).host;
  } catch {}
  const noProxy = env.NO_PROXY ?? env.no_proxy;
  return `proxy: via ${where}${noProxy ? ` (NO_PROXY=${noProxy})` : ''}`;
}

export interface TransportTimeouts {
  timeoutMs: number;
  connectTimeoutMs: number;
}

/** The CommonJS export, whether Node (named exports and a default) or a bundler (a default only) loaded it. */
const cjs = <T>(mod: { default?: T } | T): T => ((mod as { default?: T }).default ?? mod) as T;

/**
 * undici's two dispatchers, without undici's index module. The index also loads fetch, WebSocket, the caches
 * and the cookie helpers, and touches globalThis.Headers, which makes Node compile its own bundled copy of
 * undici: together about 50 ms of every command that makes a request. The one thing the index does that we
 * need is to add the request API to Dispatcher.prototype; that is repeated here. undici's version is pinned
 * exactly in package.json, and test/unit/client.test.ts checks these modules still work this way.
 */
export async function loadDispatchers(): Promise<{ Agent: typeof import('undici').Agent; EnvHttpProxyAgent: typeof import('undici').EnvHttpProxyAgent }> {
  const [dispatcher, api, agent, envProxy] = await Promise.all([
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/index.js'),
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
  ]);
  const proto = cjs(dispatcher).prototype as Record<string, unknown>;
  if (typeof proto.request !== 'function') Object.assign(proto, cjs(api));
  return { Agent: cjs(agent), EnvHttpProxyAgent: cjs(envProxy) };
}

/** A keep-alive Agent, or an EnvHttpProxyAgent when a proxy variable is set. */
export async function createDispatcher(t: TransportTimeouts, env: NodeJS.ProcessEnv): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await loadDispatchers();
  const options = {
    connect: { timeout: Math.min(t.connectTimeoutMs, t.timeoutMs) },
    headersTimeout: t.timeoutMs,
    bodyTimeout: t.timeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
  };
  if (!proxyConfigured(env)) return new Agent(options);
  // Pass every value (empty when unset) so that undici does not fall back to process.env.
  const pick = (...names: string[]) => names.map((n) => env[n]?.trim()).find(Boolean) ?? '';
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: pick('http_proxy', 'HTTP_PROXY'),
    httpsProxy: pick('https_proxy', 'HTTPS_PROXY'),
    noProxy: pick('no_proxy', 'NO_PROXY'),
  });
}
