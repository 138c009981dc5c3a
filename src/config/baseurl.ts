import { API_PREFIX } from '../contract/limits.js';
import { UsageError } from '../errors.js';
import { DEFAULT_BASE_URL } from './defaults.js';

/** localhost, 127.0.0.0/8 and ::1 (URL has already normalised short IPv4 forms such as 127.1). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Validate a base URL and return it without a trailing slash. Only https:// is accepted, except plain http:// to
 * a loopback host (the local sandbox): the API key would otherwise travel unencrypted.
 *
 * The base URL is where the service answers, without the API's own base path (`/v1/external`, which notevox adds to
 * every endpoint's path). A URL copied from the API docs ends with it: it is accepted and that path is removed, with
 * a note through `onNote` (docs/config.md). A URL that goes on past it (`…/v1/external/notes`) names an endpoint, not
 * a service: refused with the URL to use. Any other path is kept (a gateway that serves the API under a prefix).
 */
export function validateBaseUrl(url: string, onNote?: (note: string) => void): string {
  const example = `Use e.g. ${DEFAULT_BASE_URL}, or http://127.0.0.1:4010 for a local sandbox.`;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new UsageError(`base URL "${url}" is not a valid URL`, example);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`base URL "${url}" must start with https://`, example);
  if (u.username || u.password) throw new UsageError(`base URL "${url}" must not contain a user name or password`, 'The API key comes from your profile or NOTEVOX_API_KEY.');
  if (u.search || u.hash) throw new UsageError(`base URL "${url}" must not have a query string or fragment`, example);
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    throw new UsageError(
      `refusing plain http:// base URL "${url}": the API key would be sent unencrypted`,
      'Use https://; plain http:// is only allowed for localhost, 127.0.0.0/8 and [::1] (the local sandbox).',
    );
  }
  const path = u.pathname.replace(/\/+$/, '');
  const at = path.indexOf(API_PREFIX);
  if (at >= 0 && (path.length === at + API_PREFIX.length || path[at + API_PREFIX.length] === '/')) {
    const fixed = u.origin + path.slice(0, at);
    if (path.length > at + API_PREFIX.length) {
      throw new UsageError(`base URL "${url}" is the address of an endpoint, not of the service`, `Use ${fixed}: notevox adds ${API_PREFIX}/… to each call itself.`);
    }
    onNote?.(`note: the base URL ${url.trim()} ends with the API's base path ${API_PREFIX}, which notevox adds itself; using ${fixed}`);
    return fixed;
  }
  return u.origin + path;
}
