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
 */
export function validateBaseUrl(url: string): string {
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
  return (u.origin + u.pathname).replace(/\/+$/, '');
}
