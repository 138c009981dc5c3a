/**
 * The checks of `notevox doctor` (docs/doctor.md): each says what it found, a verdict, and the fix when the verdict
 * is not ok. The local ones read only this machine; the network ones make a handful of requests, none of them a
 * write, and never print the key (only its id, which is not secret).
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import type { ApiClient, ApiResponse } from '../../client/client.js';
import { ApiError, explainError } from '../../client/errors.js';
import { parseRateLimit } from '../../client/retry.js';
import { proxyFor } from '../../client/transport.js';
import { isLoopbackHost } from '../../config/baseurl.js';
import type { ResolvedCredentials } from '../../config/resolve.js';
import { CONFIG_DIR_MODE, CONFIG_FILE_MODE, modeRepairs, type ConfigStore } from '../../config/store.js';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { LIMITS } from '../../contract/limits.js';
import { scopeAllows, type Scope } from '../../contract/scopes.js';
import { nodeEngines } from '../../version.js';
import { CliError, EXIT } from '../../errors.js';

export type Verdict = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  check: string;
  verdict: Verdict;
  /** What was found, one line. */
  found: string;
  /** What to do; null when the verdict is ok or skip. */
  fix: string | null;
  /** Facts for scripts (-o json), never a secret. */
  details?: Record<string, unknown>;
}

const check = (name: string, verdict: Verdict, found: string, fix: string | null = null, details?: Record<string, unknown>): Check => ({
  check: name,
  verdict,
  found,
  fix: verdict === 'ok' || verdict === 'skip' ? null : fix,
  ...(details ? { details } : {}),
});

export const skipped = (name: string, why: string): Check => check(name, 'skip', why);

// ------------------------------------------------------------------------------------------------ Node.js

/** End of life of each Node.js line (nodejs.org/about/previous-releases); odd lines live about 8 months. */
const NODE_EOL: Record<number, string> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

/** `>=22.13` (or `>=22.13.0`) → [22, 13]; anything else: undefined (nothing to compare against). */
export function minimumNode(engines: string): [number, number] | undefined {
  const m = /^\s*>=\s*v?(\d+)(?:\.(\d+))?/.exec(engines);
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : undefined;
}

/** Whether this process is a single executable application (the Node.js inside the notevox file). */
export function isSingleExecutable(): boolean {
  try {
    const sea = process.getBuiltinModule?.('node:sea') as { isSea(): boolean } | undefined;
    return sea?.isSea() ?? false;
  } catch {
    return false;
  }
}

export function checkNode(now: number, version = process.versions.node, engines = nodeEngines(), executable = isSingleExecutable()): Check {
  const [major, minor] = version.split('.').map(Number);
  const what = executable ? `the notevox executable, built with Node.js v${version}` : `Node.js v${version} (${process.execPath})`;
  const details = { version, executable, required: engines || null, execPath: process.execPath };
  const min = minimumNode(engines);
  if (min && (major < min[0] || (major === min[0] && minor < min[1]))) {
    return check('node', 'fail', `${what}; notevox needs ${engines}`, `Install Node.js ${min.join('.')} or newer (https://nodejs.org, or nvm install 24), or use the single-file executable (docs/install.md).`, details);
  }
  const eol = NODE_EOL[major];
  if (eol && Date.parse(eol) <= now) {
    const fix = executable ? 'Download or build a newer notevox executable (docs/install.md).' : 'Move to a supported line: Node.js 24 (LTS), e.g. `nvm install 24`.';
    return check('node', 'warn', `${what}: the Node.js ${major} line reached its end of life on ${eol} (no security fixes)`, fix, { ...details, endOfLife: eol });
  }
  return check('node', 'ok', `${what}${engines ? `; notevox needs ${engines}` : ''}`, null, { ...details, endOfLife: eol ?? null });
}

// ------------------------------------------------------------------------------------------------ config file

const octal = (mode: number) => mode.toString(8).padStart(3, '0');
const groupOrOther = (mode: number) => (mode & 0o077) !== 0;
function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

/** The too-open modes of `path` this process tightened, told once (a test's next run in the same process starts afresh). */
function takeRepairs(path: string): Array<{ was: number }> {
  const found = modeRepairs.filter((r) => r.path === path && groupOrOther(r.was));
  for (let i = modeRepairs.length - 1; i >= 0; i--) if (modeRepairs[i].path === path) modeRepairs.splice(i, 1);
  return found;
}

/** The config file and its directory: whether they exist, their permissions now, and what this run had to tighten. */
export function checkConfig(store: ConfigStore, creds: ResolvedCredentials | undefined, readError: string | undefined): Check {
  const path = store.path;
  const dir = dirname(path);
  const fileMode = modeOf(path);
  const dirMode = modeOf(dir);
  const details = { path, fileMode: fileMode === undefined ? null : octal(fileMode), dirMode: dirMode === undefined ? null : octal(dirMode) };
  if (readError) return check('config', 'fail', readError, 'Fix the file by hand, or delete it and run `notevox auth login` again.', details);
  if (fileMode === undefined) {
    const keyFromEnv = creds?.apiKeySource?.kind === 'env';
    return check('config', keyFromEnv ? 'ok' : 'warn', `no config file at ${path}${keyFromEnv ? ' (the key comes from NOTEVOX_API_KEY)' : ''}`, 'Run `notevox auth login` to store a key, or set NOTEVOX_API_KEY.', details);
  }
  if (process.platform === 'win32') return check('config', 'ok', `${path} (permissions are the directory's ACL on Windows)`, null, details);
  // Every command sets the file to 0600 and the directory to 0700 when it reads them: a mode this run changed was
  // open until now.
  const fixed = takeRepairs(path);
  if (fixed.length) {
    return check(
      'config',
      'fail',
      `${path} was readable by other users (mode ${octal(fixed[0].was)}) until this run set it to ${octal(CONFIG_FILE_MODE)}`,
      'Anyone on this machine could have read the API key: revoke it in the dashboard, create a new one and `notevox auth login` again. Keep the file at 600.',
      { ...details, was: octal(fixed[0].was) },
    );
  }
  if (groupOrOther(fileMode)) {
    return check('config', 'fail', `${path} has mode ${octal(fileMode)}: other users can read the API key in it`, `Run \`chmod 600 ${path}\` (as the file's owner), then revoke the key and create a new one.`, details);
  }
  const dirFixed = takeRepairs(dir)[0];
  if (dirMode !== undefined && groupOrOther(dirMode)) {
    return check('config', 'warn', `${path} is ${octal(fileMode)}, but its directory ${dir} has mode ${octal(dirMode)}`, `Run \`chmod 700 ${dir}\`.`, details);
  }
  const note = dirFixed ? ` (the directory was ${octal(dirFixed.was)}; this run set it to ${octal(CONFIG_DIR_MODE)})` : '';
  return check('config', 'ok', `${path} (mode ${octal(fileMode)}, directory ${dirMode === undefined ? '?' : octal(dirMode)})${note}`, null, details);
}

// ------------------------------------------------------------------------------------------------ profile and settings

const SOURCE = {
  profile: { flag: '--profile', env: 'NOTEVOX_PROFILE', config: 'the current profile in the config file', default: 'default' },
  baseUrl: { flag: '--base-url', env: 'NOTEVOX_BASE_URL', profile: 'profile', default: 'default' },
} as const;

export interface SettingSource {
  value: string;
  source: 'flag' | 'env' | 'profile' | 'config' | 'default';
}

/** Which profile, base URL, key and settings are in use, and where each came from (flag > env > profile > default). */
export function checkProfile(
  store: ConfigStore,
  creds: ResolvedCredentials,
  settings: Record<string, SettingSource>,
): Check {
  const exists = store.getProfile(creds.profile) !== undefined;
  const keyFrom = creds.apiKeySource?.kind === 'env' ? 'NOTEVOX_API_KEY' : creds.apiKeySource ? `profile "${creds.profile}"` : null;
  const keyId = creds.apiKey && creds.apiKey.includes('.') ? creds.apiKey.slice(0, creds.apiKey.indexOf('.')) : null;
  const details = {
    profile: { value: creds.profile, source: creds.profileSource, exists },
    baseUrl: { value: creds.baseUrl, source: creds.baseUrlSource },
    key: keyFrom ? { id: keyId, source: creds.apiKeySource!.kind } : null,
    settings,
  };
  const parts = [
    `profile "${creds.profile}" (${SOURCE.profile[creds.profileSource]})`,
    `base URL ${creds.baseUrl} (${SOURCE.baseUrl[creds.baseUrlSource]})`,
    keyFrom ? `key ${keyId ?? '(malformed)'} (${keyFrom})` : 'no key',
    ...Object.entries(settings).map(([k, s]) => `${k}=${s.value} (${s.source})`),
  ];
  const found = parts.join('; ');
  if (!exists && (creds.profileSource === 'flag' || creds.profileSource === 'env')) {
    const known = store.listProfiles().map((p) => p.name);
    return check('profile', 'fail', found, `There is no profile "${creds.profile}"${known.length ? ` (known: ${known.join(', ')})` : ''}: create it with \`notevox auth login --profile ${creds.profile}\`.`, details);
  }
  if (!creds.apiKey) return check('profile', 'fail', found, 'Run `notevox auth login` (or set NOTEVOX_API_KEY).', details);
  if (creds.envOverridesProfile) return check('profile', 'warn', `${found}; NOTEVOX_API_KEY overrides the key stored in the profile`, 'Unset NOTEVOX_API_KEY to use the stored key, or remove the stored one (`notevox auth logout`).', details);
  return check('profile', 'ok', found, null, details);
}

// ------------------------------------------------------------------------------------------------ proxy

const PROXY_VARS = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY'];

/** The proxy variables set (their host only: a proxy URL may hold a password) and what they mean for the base URL. */
export function checkProxy(env: NodeJS.ProcessEnv, baseUrl: string): Check {
  const set = PROXY_VARS.filter((n) => env[n]?.trim());
  const shown = (n: string) => {
    const v = env[n]!.trim();
    if (/no_proxy/i.test(n)) return `${n}=${v}`;
    try {
      return `${n}=${new URL(v).host}`;
    } catch {
      return `${n} (not a URL)`;
    }
  };
  const details: Record<string, unknown> = { variables: set };
  if (!set.length) return check('proxy', 'ok', 'no proxy variables set: requests go directly', null, details);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return check('proxy', 'skip', `${set.map(shown).join(', ')}; the base URL is not a URL`);
  }
  try {
    const d = proxyFor(url, env);
    const vars = set.map(shown).join(', ');
    if (d.proxy) return check('proxy', 'ok', `${vars}: requests to ${url.host} go through ${d.proxy.host}`, null, { ...details, via: d.proxy.host });
    if (d.bypass === 'loopback') return check('proxy', 'ok', `${vars}: not used for ${url.host} (loopback addresses never go through a proxy)`, null, { ...details, bypass: 'loopback' });
    if (d.bypass === 'NO_PROXY') return check('proxy', 'ok', `${vars}: not used for ${url.host} (NO_PROXY)`, null, { ...details, bypass: 'NO_PROXY' });
    return check('proxy', 'ok', `${vars}: none applies to ${url.protocol} URLs`, null, details);
  } catch {
    return check('proxy', 'fail', `${set.join(', ')}: the proxy URL cannot be used`, 'Set HTTPS_PROXY to a URL such as http://proxy.example:3128 (or unset it).', details);
  }
}

// ------------------------------------------------------------------------------------------------ network

export interface Timed<T> {
  response: T;
  /** The local clock before and after the request. */
  sentAt: number;
  receivedAt: number;
}

/** The base URL answers at all (any HTTP answer will do; `GET api-key-scopes` needs no key). */
export async function checkReachable(client: ApiClient, baseUrl: string, now: () => number): Promise<{ result: Check; answer?: Timed<ApiResponse<unknown>> }> {
  const sentAt = now();
  try {
    const response = await client.call('scopes.list');
    const receivedAt = now();
    return { result: check('base-url', 'ok', `${baseUrl} answered in ${receivedAt - sentAt} ms`, null, { url: baseUrl, ms: receivedAt - sentAt, status: response.status }), answer: { response, sentAt, receivedAt } };
  } catch (e) {
    if (e instanceof ApiError) {
      const receivedAt = now();
      return { result: check('base-url', 'ok', `${baseUrl} answered (HTTP ${e.status}) in ${receivedAt - sentAt} ms`, null, { url: baseUrl, status: e.status }) };
    }
    const x = explainError(e);
    const loopback = (() => {
      try {
        return isLoopbackHost(new URL(baseUrl).hostname);
      } catch {
        return false;
      }
    })();
    const fix = x.hint ?? (loopback ? 'Start the sandbox: `notevox sandbox start`.' : 'Check the base URL (`notevox auth login --base-url …`), the network and the proxy variables.');
    return { result: check('base-url', 'fail', `${baseUrl}: ${x.message}`, fix, { url: baseUrl }) };
  }
}

/** The certificate the base URL presents (a direct TLS connection: with a proxy, the request above went through it). */
export async function checkTls(baseUrl: string, env: NodeJS.ProcessEnv, now: number, reached: boolean): Promise<Check> {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:') return check('tls', 'ok', `plain http:// to ${url.host}, a loopback address (the sandbox): no TLS needed`);
  if (proxyFor(url, env).proxy) {
    return reached ? check('tls', 'ok', `https through the proxy: the certificate of ${url.host} was verified by the request above`) : skipped('tls', 'the base URL did not answer');
  }
  const port = Number(url.port || 443);
  return new Promise<Check>((resolve) => {
    const socket = connect({ host: url.hostname, port, servername: isIp(url.hostname) ? undefined : url.hostname, timeout: 10_000 }, () => {
      const cert = socket.getPeerCertificate() as PeerCertificate;
      const protocol = socket.getProtocol();
      socket.end();
      const validTo = cert.valid_to ? Date.parse(cert.valid_to) : NaN;
      const days = Math.floor((validTo - now) / 86_400_000);
      const issuer = cert.issuer?.O ?? cert.issuer?.CN ?? 'unknown issuer';
      const details = { protocol, issuer, subject: cert.subject?.CN ?? null, validTo: Number.isNaN(validTo) ? null : new Date(validTo).toISOString() };
      const found = `${protocol}, certificate of ${cert.subject?.CN ?? url.hostname} by ${issuer}, valid for ${days} more days`;
      if (days < 14) resolve(check('tls', 'warn', found, 'The certificate expires soon: tell the service operator.', details));
      else resolve(check('tls', 'ok', found, null, details));
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve(check('tls', 'fail', `no TLS handshake with ${url.host} within 10 s`, 'Check the network path to the service (firewall, proxy variables).'));
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      const untrusted = /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|ERR_TLS/.test(code);
      const fix = untrusted
        ? 'The certificate is not trusted here: a TLS-inspecting proxy or firewall? Give Node its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; check that the clock is right.'
        : 'Check the network path to the service (firewall, proxy variables).';
      resolve(check('tls', 'fail', `TLS to ${url.host} failed: ${code ? `${code}: ` : ''}${e.message}`, fix, { code: code || null }));
    });
  });
}

const isIp = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

export type Me = { keyId: string; keyType: string; scopes: string[]; workspaceGuid: string | null; organizationId: string | null; expiresAt: string | null; user: { name: string; email: string } | null };

/** `GET auth/me` with the key: valid, which type, when it expires; the answer's headers feed the rate-limit and clock checks. */
export async function checkKey(client: ApiClient, creds: ResolvedCredentials, now: () => number): Promise<{ result: Check; me?: Me; answer?: Timed<ApiResponse<unknown>> }> {
  const from = creds.apiKeySource?.kind === 'env' ? 'NOTEVOX_API_KEY' : `profile "${creds.profile}"`;
  const sentAt = now();
  let response: ApiResponse<unknown>;
  try {
    response = await client.call('auth.me');
  } catch (e) {
    const x = explainError(e, creds.apiKey);
    // The client checks every answer against the contract: a 2xx in another shape is no refusal of the key.
    if (!(e instanceof ApiError) && e instanceof CliError && e.exitCode === EXIT.UNEXPECTED) {
      return { result: check('key', 'fail', `auth/me answered, but not in the documented shape: ${x.message}`, 'A proxy or login page answers in place of the service? Check the base URL and the proxy variables; rerun with --debug.') };
    }
    return { result: check('key', 'fail', `the key from ${from} was refused: ${x.message}`, x.hint ?? 'Run `notevox auth login` with a valid key.', { status: e instanceof ApiError ? e.status : null, errorType: x.errorType ?? null, code: x.code ?? null }) };
  }
  const answer = { response, sentAt, receivedAt: now() };
  const me = response.data as Me;
  const who = me.user ? `${me.user.name} <${me.user.email}>` : `${me.keyType.toLowerCase()} key`;
  const details = { keyId: me.keyId, keyType: me.keyType, user: me.user, organizationId: me.organizationId, expiresAt: me.expiresAt };
  const found = `${me.keyId} (${me.keyType}) from ${from}: ${who}${me.expiresAt ? `, expires ${me.expiresAt}` : ''}`;
  if (me.keyType === 'LEGACY_PERSONAL') {
    return { result: check('key', 'warn', `${found}; a legacy personal key (stops working on ${LIMITS.legacyKeyCutoff.slice(0, 10)})`, 'Create a workspace key or an account key in the dashboard and `notevox auth login` with it.', details), me, answer };
  }
  const left = me.expiresAt ? Date.parse(me.expiresAt) - now() : Infinity;
  if (left < 7 * 86_400_000) {
    return { result: check('key', 'warn', `${found} (in ${Math.max(0, Math.round(left / 86_400_000))} days)`, 'Create a new key in the dashboard before this one expires, and `notevox auth login` with it.', details), me, answer };
  }
  return { result: check('key', 'ok', found, null, details), me, answer };
}

/** The command groups (the first word of an endpoint id: notes, folders, wm, voice, …) and the endpoints each calls. */
export const COMMAND_GROUPS = [...new Set(ENDPOINTS.filter((e) => e.scope !== null).map((e) => e.id.split('.')[0]))];

/** The scopes the chosen command groups need with this key type, and which groups each serves. */
export function neededScopes(keyType: string, groups: readonly string[]): Map<Scope, Set<string>> {
  const need = new Map<Scope, Set<string>>();
  for (const e of ENDPOINTS) {
    const group = e.id.split('.')[0];
    if (e.scope === null || e.aliasOf || !groups.includes(group) || !(e.keyTypes as readonly string[]).includes(keyType)) continue;
    if (!need.has(e.scope)) need.set(e.scope, new Set());
    need.get(e.scope)!.add(group);
  }
  return need;
}

export function checkScopes(me: Me, groups: readonly string[], narrowed: boolean): Check {
  const need = neededScopes(me.keyType, groups);
  const granted = me.scopes;
  const missing = [...need.keys()].filter((s) => !scopeAllows(granted, s));
  const details = { granted, needed: [...need.keys()], missing, groups };
  const has = granted.length ? granted.join(', ') : 'no scopes (every API)';
  if (!missing.length) return check('scopes', 'ok', `${has}: enough for ${narrowed ? groups.join(', ') : 'every command'} with a ${me.keyType.toLowerCase()} key`, null, details);
  const blocked = [...new Set(missing.flatMap((s) => [...need.get(s)!]))];
  const usable = groups.filter((g) => !blocked.includes(g));
  const fix =
    `Add ${missing.join(', ')} to the key in the dashboard` +
    (me.keyType === 'ORGANIZATION' ? ' (organization keys have fixed scopes: issue a new one with them)' : '') +
    (narrowed || !usable.length ? '.' : `, or, if the key is meant for less, check only what it is for: \`notevox doctor --for ${usable.join(',')}\`.`);
  return check('scopes', 'fail', `${has}; missing ${missing.join(', ')}: ${blocked.map((g) => `notevox ${g}`).join(', ')} will be refused (403 insufficient_scope)`, fix, details);
}

type WorkspaceFacts = { guid: string; name?: string; voiceFileEnabled?: boolean };

/** The workspace the key is bound to (`GET workspaces/me`), or the ones it reaches. */
export async function checkWorkspace(client: ApiClient, me: Me): Promise<{ result: Check; bound?: WorkspaceFacts; reachable?: WorkspaceFacts[] }> {
  const { keyIdentity } = await import('../resolve.js');
  if (me.workspaceGuid) {
    try {
      const ws = (await keyIdentity(client, 'workspaces.me')) as WorkspaceFacts;
      return { result: check('workspace', 'ok', `bound to ${ws.guid} (${ws.name ?? 'no name given'})`, null, { guid: ws.guid, name: ws.name ?? null }), bound: ws };
    } catch (e) {
      const x = explainError(e);
      return { result: check('workspace', 'fail', `bound to ${me.workspaceGuid}, but workspaces/me failed: ${x.message}`, x.hint ?? 'Check the workspace in the dashboard (was it deleted?).', { guid: me.workspaceGuid }) };
    }
  }
  let reachable: WorkspaceFacts[] | undefined;
  try {
    reachable = ((await keyIdentity(client, 'workspaces.reachable')) as { content: WorkspaceFacts[] }).content;
  } catch {
    reachable = undefined;
  }
  const n = reachable ? ` (reaches ${reachable.length} workspace${reachable.length === 1 ? '' : 's'})` : '';
  const what = me.keyType === 'ORGANIZATION' ? `an organization key, not bound to one workspace${n}` : `not bound to a workspace${n}: commands that act on one take --workspace`;
  return { result: check('workspace', 'ok', what, null, { guid: null, reachable: reachable?.map((w) => w.guid) ?? null }), reachable };
}

/** A job id no job has: reading it answers 404 to a key that may run voice jobs, 403013 to one without the voice-file permission. */
const NO_JOB = '00000000-0000-4000-8000-000000000000';

/** Whether the key itself may run voice file jobs (a read of a job that does not exist; no job is created). */
export async function voicePermission(client: ApiClient, me: Me): Promise<'yes' | 'no' | 'unknown'> {
  if (!scopeAllows(me.scopes, 'voice_file_job:read')) return 'unknown';
  try {
    await client.call('voice.get', { path: { jobId: NO_JOB } });
    return 'unknown';
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return 'yes';
    if (e instanceof ApiError && e.code === ERROR_CODES.VOICE_PERMISSION) return 'no';
    return 'unknown';
  }
}

/** Whether the key can run voice file jobs: it has the voice-file permission, and its bound workspace has them enabled, or one it reaches does. */
export function checkVoice(bound: WorkspaceFacts | undefined, reachable: WorkspaceFacts[] | undefined, me: Me, permission: 'yes' | 'no' | 'unknown' = 'unknown'): Check {
  if (permission === 'no')
    return check('voice', 'fail', `the key ${me.keyId} lacks the voice-file permission: \`notevox voice upload\` will be refused (403013)`, 'Give the key the voice-file permission in the dashboard, or use another key for voice; or leave voice out: `notevox doctor --for notes,folders,…`.', { permission: false });
  if (bound) {
    const label = `${bound.guid}${bound.name ? ` (${bound.name})` : ''}`;
    if (bound.voiceFileEnabled === true) return check('voice', 'ok', `voice file jobs are enabled in ${label}`, null, { enabled: [bound.guid] });
    if (bound.voiceFileEnabled === false)
      return check('voice', 'fail', `voice file jobs are not enabled in ${label}: \`notevox voice upload\` will be refused (403000)`, `Ask an admin of ${label} to enable voice file jobs, use a key bound to a workspace that has them, or leave voice out: \`notevox doctor --for notes,folders,…\`.`, { enabled: [] });
    return check('voice', 'warn', `the service does not say whether ${label} has voice file jobs enabled`, 'Try a small `notevox voice upload`.');
  }
  if (!reachable) return check('voice', 'warn', 'could not list the workspaces the key reaches', 'Check the key\'s workspace access in the dashboard.');
  const on = reachable.filter((w) => w.voiceFileEnabled === true);
  if (on.length) return check('voice', 'ok', `voice file jobs are enabled in ${on.map((w) => w.name ?? w.guid).join(', ')}${me.workspaceGuid ? '' : ' (pick one with --workspace)'}`, null, { enabled: on.map((w) => w.guid) });
  return check('voice', 'fail', `none of the ${reachable.length} workspaces the key reaches has voice file jobs enabled`, 'Ask an admin to enable voice file jobs for a workspace, or use a key for one that has them.', { enabled: [] });
}

/** Requests left in the window, from the answer's `X-RateLimit-*` headers (decisions.md §1.5). */
export function checkRateLimit(headers: Record<string, string>, now: number): Check {
  const rl = parseRateLimit(headers);
  if (rl.limit === undefined || rl.remaining === undefined) return check('rate-limit', 'ok', 'the service sent no rate-limit headers', null, {});
  const reset = rl.resetEpochSeconds !== undefined ? Math.max(0, Math.ceil(rl.resetEpochSeconds - now / 1000)) : undefined;
  const details = { limit: rl.limit, remaining: rl.remaining, resetsInSeconds: reset ?? null };
  const found = `${rl.remaining} of ${rl.limit} requests left in the window${reset !== undefined ? `, which resets in ${reset} s` : ''}`;
  if (rl.remaining <= 0) return check('rate-limit', 'fail', found, `Wait ${reset ?? 60} s; another process (a CI job, a \`wm import\`) is using this key's budget: give it a key of its own.`, details);
  if (rl.remaining < rl.limit * 0.1) return check('rate-limit', 'warn', found, 'Something else is using most of this key\'s budget: commands will slow down and retry on 429.', details);
  return check('rate-limit', 'ok', found, null, details);
}

/** Skew between this machine's clock and the server's `Date` (1 s resolution), measured at the middle of the request. */
export function checkClock(answer: Timed<ApiResponse<unknown>> | undefined): Check {
  const date = answer?.response.headers.date;
  const server = date ? Date.parse(date) : NaN;
  if (!answer || Number.isNaN(server)) return check('clock', 'ok', 'the service sent no Date header: nothing to compare with', null, {});
  const local = (answer.sentAt + answer.receivedAt) / 2;
  // Date is truncated to the second: the server's time was anywhere in [server, server + 1000).
  const skewMs = server + 500 - local;
  const slack = 1000 + (answer.receivedAt - answer.sentAt) / 2;
  const seconds = Math.round(skewMs / 1000);
  const details = { skewSeconds: seconds, serverDate: date };
  const how = seconds > 0 ? 'behind' : 'ahead of';
  const found = `this machine's clock is ${Math.abs(seconds)} s ${how} the service's (Date: ${date})`;
  const fix = 'Set the clock right and keep it synced: `sudo timedatectl set-ntp true` (Linux), System Settings › Date & Time › Set automatically (macOS), `w32tm /resync` (Windows). Expiry times, TLS and `--since` depend on it.';
  if (Math.abs(skewMs) <= 30_000 + slack) return check('clock', 'ok', Math.abs(skewMs) <= slack ? `in step with the service's clock (Date: ${date})` : found, null, details);
  if (Math.abs(skewMs) <= 300_000) return check('clock', 'warn', found, fix, details);
  return check('clock', 'fail', found, fix, details);
}
