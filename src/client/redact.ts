/** Keeping the API key out of every line the client prints and every error it builds (the rule itself: src/redact.ts). */

import { MASK } from '../redact.js';

export { redact } from '../redact.js';

/** Headers shown by `--debug` tracing; everything else (Authorization above all) is never printed. */
export const TRACE_HEADERS = [
  'content-type',
  'content-length',
  'accept',
  'user-agent',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'retry-after',
  'www-authenticate',
  'deprecation',
  'x-request-id',
] as const;

/** Trace lines for the allow-listed headers, plus `authorization: Bearer ****` when one was sent. */
export function traceHeaderLines(prefix: '>' | '<', headers: Record<string, string>): string[] {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const lines = TRACE_HEADERS.filter((h) => lower.has(h)).map((h) => `${prefix} ${h}: ${lower.get(h)}`);
  if (lower.has('authorization')) lines.push(`${prefix} authorization: Bearer ${MASK}`);
  return lines;
}

/** A URL without credentials, and without its query when that carries a signature (signed upload URLs). */
export function safeUrl(url: URL, hideQuery = false): string {
  const u = new URL(url.href);
  u.username = '';
  u.password = '';
  if (hideQuery && u.search) return `${u.origin}${u.pathname}?…`;
  return u.href;
}
