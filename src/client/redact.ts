/** Keeping the API key out of every line the client prints and every error it builds. */

const MASK = '****';
/** Bearer credentials in free text; auth-parameter forms such as `Bearer error="…"` are left alone. */
const BEARER = /\b(Bearer\s+)(?!(?:realm|error|error_description|scope)=)[A-Za-z0-9\-._~+/]+=*/gi;
/** Shorter fragments would mangle ordinary text; real secrets are far longer. */
const MIN_SECRET_LENGTH = 4;

/** Mask the key (whole, and its secret part) and any bearer credential in `text`. */
export function redact(text: string, key?: string): string {
  let out = text.replace(BEARER, `$1${MASK}`);
  if (key) {
    const whole = key.trim();
    const secret = whole.includes('.') ? whole.slice(whole.indexOf('.') + 1) : whole;
    for (const s of [whole, secret]) {
      if (s.length >= MIN_SECRET_LENGTH) out = out.split(s).join(MASK);
    }
  }
  return out;
}

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
