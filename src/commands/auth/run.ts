import { ApiError } from '../../client/errors.js';
import type { ResponseOf, Tolerant } from '../../contract/api.js';
import { endpoint } from '../../contract/endpoints.js';
import { CliError, InputNeededError, UsageError } from '../../errors.js';
import { maskKey, parseApiKey } from '../../config/apikey.js';
import { validateBaseUrl } from '../../config/baseurl.js';
import { DEFAULT_BASE_URL, DEFAULT_SANDBOX_URL } from '../../config/defaults.js';
import { checkProfileName } from '../../config/store.js';
import { LIMITS } from '../../contract/limits.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import { notLoggedInError } from '../../context.js';
import { keyIdentity } from '../resolve.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

type AuthMe = ResponseOf<'auth.me'>;

/**
 * auth/me's answer, checked against the contract (a proxy's login page answering 200 is not a login). A key the
 * server echoes in it is masked where all output passes (IOStreams.mask), like every command's.
 */
async function readMe(data: unknown): Promise<AuthMe> {
  const { assertAnswer } = await import('../../contract/answers.js');
  assertAnswer(endpoint('auth.me'), data);
  return data as AuthMe;
}

async function whoAmI(ctx: Context, baseUrl: string, apiKey: string): Promise<AuthMe> {
  const client = await ctx.clientFor({ baseUrl, apiKey });
  return readMe((await client.call('auth.me')).data);
}

/** The profile a command acts on: --profile, else NOTEVOX_PROFILE, else the current one (empty values count as unset). */
async function targetProfile(ctx: Context): Promise<string> {
  return (await ctx.credentials()).profile;
}

const LEGACY_WARNING = `this is a legacy personal key: such keys stop working on ${LIMITS.legacyKeyCutoff.slice(0, 10)}; create a workspace key or an account key in the dashboard.`;

/** What auth/me says about a key, as `auth login` and `auth status` print it (never the secret). */
const keyFacts = (me: AuthMe) => ({
  keyId: me.keyId,
  keyType: me.keyType,
  user: me.user,
  workspaceGuid: me.workspaceGuid,
  organizationId: me.organizationId,
  scopes: me.scopes,
  expiresAt: me.expiresAt,
});

const present = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

const describeScopes = (scopes: string[]) => (scopes.length ? scopes.join(', ') : 'all (no scopes set)');

/** Whether a sandbox answers at its default address (no key needed for the scopes list); a quick look only. */
async function sandboxAnswers(): Promise<boolean> {
  try {
    const res = await fetch(new URL('/v1/api-key-scopes', DEFAULT_SANDBOX_URL), { signal: AbortSignal.timeout(1500) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** First login on a terminal with no base URL anywhere: which service, as `gh auth login` asks which host. */
async function askBaseUrl(ctx: Context): Promise<string> {
  const prompter = await ctx.prompter();
  const sandbox = await sandboxAnswers();
  const OTHER = '';
  const choices = [
    ...(sandbox ? [{ name: `${DEFAULT_SANDBOX_URL}  (a notevox sandbox answers there)`, value: DEFAULT_SANDBOX_URL }] : []),
    { name: `${DEFAULT_BASE_URL}  (the service)`, value: DEFAULT_BASE_URL },
    { name: 'another URL…', value: OTHER },
  ];
  const chosen = await prompter.select({ message: 'Which service do you log in to?', choices, default: choices[0].value, flag: '--base-url' });
  if (chosen !== OTHER) return chosen;
  const typed = await prompter.input({
    message: 'Base URL',
    validate: (v) => {
      try {
        validateBaseUrl(v);
        return true;
      } catch (e) {
        return e instanceof CliError ? `${e.message}${e.hint ? `. ${e.hint}` : ''}` : String(e);
      }
    },
    flag: '--base-url',
  });
  return validateBaseUrl(typed, (note) => ctx.io.info(note));
}

/** The base URL answers at all (any HTTP answer will do): checked before the key is asked for, not after a paste. */
async function checkReachable(ctx: Context, baseUrl: string): Promise<void> {
  const client = await ctx.clientFor({ baseUrl });
  await client.call('scopes.list').catch((e: unknown) => {
    if (e instanceof ApiError) return; // it answered
    throw e;
  });
}

/** A key as typed or piped, in its canonical form `{id}.{secret}`; a usage error naming what is wrong. */
function checkedKey(raw: string): string {
  const parsed = parseApiKey(raw);
  if (!parsed.ok) throw new UsageError(parsed.reason, parsed.hint);
  return `${parsed.id}.${parsed.secret}`;
}

/** How many keys the interactive login asks for before it gives up (as `gh auth login` and `ssh` keep asking). */
export const LOGIN_KEY_TRIES = 3;

/**
 * The key typed at the prompt, checked in form and by the service: a mistyped or refused key is reported and asked
 * for again, up to LOGIN_KEY_TRIES times; then the last problem is the command's error.
 */
async function askKey(ctx: Context, baseUrl: string): Promise<{ apiKey: string; me: AuthMe }> {
  const prompter = await ctx.prompter();
  for (let attempt = 1; ; attempt++) {
    const raw = await prompter.password({ message: 'Paste your API key ({id}.{secret})', flag: '--with-key' });
    try {
      const apiKey = checkedKey(raw);
      return { apiKey, me: await whoAmI(ctx, baseUrl, apiKey) };
    } catch (e) {
      const retry = e instanceof UsageError || (e instanceof ApiError && e.status === 401);
      if (!retry || attempt >= LOGIN_KEY_TRIES) throw e;
      const left = LOGIN_KEY_TRIES - attempt;
      ctx.io.warn(`${(e as CliError).message}${(e as CliError).hint ? `. ${(e as CliError).hint}` : ''} Try again (${left} ${left === 1 ? 'try' : 'tries'} left).`);
    }
  }
}

export async function login(ctx: Context, flags: Flags<typeof cmd.login>): Promise<void> {
  const store = await ctx.config();
  const profile = await targetProfile(ctx);
  checkProfileName(profile);
  const prompting = !flags.withKey && ctx.io.canPrompt;
  const configured = ctx.globals.baseUrl ?? present(ctx.env.NOTEVOX_BASE_URL) ?? store.getProfile(profile)?.baseUrl;
  // Check the base URL before asking for the key: a refused URL should not cost a paste.
  const baseUrl = configured === undefined && prompting ? await askBaseUrl(ctx) : validateBaseUrl(configured ?? DEFAULT_BASE_URL, (note) => ctx.io.info(note));
  if (prompting) await checkReachable(ctx, baseUrl);
  let apiKey: string;
  let me: AuthMe;
  if (flags.withKey) {
    if (ctx.io.isStdinTTY) ctx.io.info('Reading the key from standard input (end with Ctrl-D)…');
    apiKey = checkedKey(await ctx.io.readStdin());
    me = await whoAmI(ctx, baseUrl, apiKey);
  } else {
    if (!ctx.io.canPrompt) throw new InputNeededError('an API key', '--with-key and the key on standard input');
    ({ apiKey, me } = await askKey(ctx, baseUrl));
  }
  const before = store.currentProfile();
  const hadBefore = store.getProfile(before) !== undefined;
  store.setProfile(profile, { baseUrl, apiKey }, { makeCurrent: true });
  const summary = {
    profile,
    baseUrl,
    ...keyFacts(me),
  };
  if (me.keyType === 'LEGACY_PERSONAL') ctx.io.warn(LEGACY_WARNING);
  if (present(ctx.env.NOTEVOX_API_KEY)) ctx.io.warn('NOTEVOX_API_KEY is set in this environment and overrides the stored key.');
  if (ctx.output.json) {
    await printObject(ctx, summary);
    return;
  }
  const who = me.user ? `${me.user.name} <${me.user.email}>` : `${me.keyType.toLowerCase()} key`;
  ctx.io.success(`Logged in to ${baseUrl} as ${who} (profile "${profile}", saved in ${store.path}).`);
  ctx.io.info(`  key:       ${maskKey(apiKey)} (${me.keyType})`);
  ctx.io.info(`  workspace: ${me.workspaceGuid ?? 'not bound'}`);
  ctx.io.info(`  scopes:    ${describeScopes(me.scopes)}`);
  if (before !== profile)
    ctx.io.info(`Profile "${profile}" is now the current profile${hadBefore ? ` (it was "${before}": \`notevox auth switch ${before}\` goes back)` : ''}.`);
}

const SOURCE_NAMES = { flag: '--base-url', env: 'NOTEVOX_BASE_URL', profile: 'profile', default: 'default' } as const;

export async function status(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  const how = creds.profileSource === 'flag' ? ' (--profile)' : creds.profileSource === 'env' ? ' (NOTEVOX_PROFILE)' : '';
  // The same error as any command's without a key: a profile that does not exist is named as such, with the ones there are.
  if (!creds.apiKey) throw notLoggedInError(creds, await ctx.config());
  const source = creds.apiKeySource?.kind === 'env' ? `environment variable ${creds.apiKeySource.name}` : `profile "${creds.profile}"${how}`;
  const stored = (await ctx.config()).getProfile(creds.profile);
  if (creds.envOverridesProfile) ctx.io.warn(`NOTEVOX_API_KEY overrides the key stored in profile "${creds.profile}".`);
  if (creds.baseUrlSource === 'env' && stored?.baseUrl && stored.baseUrl !== creds.baseUrl) {
    ctx.io.warn(`NOTEVOX_BASE_URL overrides the base URL stored in profile "${creds.profile}" (${stored.baseUrl}).`);
  }
  const client = await ctx.client();
  const answer = (
    await client.call('auth.me').catch((e: unknown) => {
      // Say which key was refused, and where it came from (as gh auth status does).
      if (e instanceof ApiError && e.status === 401) {
        throw new CliError(`the key ${maskKey(creds.apiKey!)} from ${source} was refused: ${e.message}`, { exitCode: e.exitCode, hint: e.hint, errorType: e.errorType, code: e.code });
      }
      throw e;
    })
  ).data;
  const me = await readMe(answer);
  if (me.keyType === 'LEGACY_PERSONAL') ctx.io.warn(LEGACY_WARNING);
  const out = {
    profile: creds.profile,
    baseUrl: creds.baseUrl,
    baseUrlSource: creds.baseUrlSource,
    keySource: source,
    key: maskKey(creds.apiKey),
    ...keyFacts(me),
    workspaceName: me.workspaceGuid ? await boundWorkspaceName(client) : null,
  };
  const columns: Column<typeof out>[] = [
    { key: 'profile', header: 'Profile', get: (o) => o.profile + how },
    { key: 'baseUrl', header: 'Base URL', get: (o) => (o.baseUrlSource === 'profile' ? o.baseUrl : `${o.baseUrl} (${SOURCE_NAMES[o.baseUrlSource as keyof typeof SOURCE_NAMES]})`) },
    { key: 'keySource', header: 'Key from' },
    { key: 'key', header: 'Key' },
    { key: 'keyType', header: 'Type' },
    { key: 'user', header: 'User', get: (o) => (o.user ? `${o.user.name} <${o.user.email}>` : '-') },
    { key: 'workspaceGuid', header: 'Workspace', get: (o) => (o.workspaceGuid ? `${o.workspaceGuid}${o.workspaceName ? ` (${o.workspaceName})` : ''}` : 'not bound') },
    { key: 'organizationId', header: 'Organization', get: (o) => o.organizationId ?? '-' },
    { key: 'scopes', header: 'Scopes', get: (o) => describeScopes(o.scopes) },
    { key: 'expiresAt', header: 'Expires', get: (o) => o.expiresAt ?? 'never' },
  ];
  await printObject(ctx, out, columns);
}

/** The name of the key's bound workspace (`GET /workspaces/me`), or null when the service does not say: status still shows the rest. */
async function boundWorkspaceName(client: Awaited<ReturnType<Context['client']>>): Promise<string | null> {
  try {
    // Read tolerantly: a service that leaves the name out still gets the rest of the status shown.
    const { name } = (await keyIdentity(client, 'workspaces.me')) as Tolerant<ResponseOf<'workspaces.me'>>;
    return typeof name === 'string' ? name : null;
  } catch (e) {
    if (e instanceof ApiError) return null;
    throw e;
  }
}

export async function logout(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const profile = await targetProfile(ctx);
  const existing = store.getProfile(profile);
  if (!existing?.apiKey) {
    ctx.io.info(`Profile "${profile}" has no stored key; nothing to do.`);
  } else {
    store.setProfile(profile, { baseUrl: existing.baseUrl, apiKey: undefined });
    ctx.io.success(`Removed the stored key of profile "${profile}".`);
    if (store.currentProfile() === profile) {
      // The current profile has no key now: say how to carry on with another one, or log in again.
      const others = store.listProfiles().filter((p) => p.hasKey && p.name !== profile).map((p) => p.name);
      const login = `\`notevox auth login${profile === 'default' ? '' : ` --profile ${profile}`}\` stores a new key`;
      ctx.io.info(
        others.length
          ? `"${profile}" is still the current profile: \`notevox auth switch ${others[0]}\` uses another one (${others.join(', ')}), or ${login}.`
          : `"${profile}" is still the current profile: ${login}, or \`notevox auth switch <profile>\` uses another one once it has a key.`,
      );
    }
  }
  if (present(ctx.env.NOTEVOX_API_KEY)) ctx.io.warn('NOTEVOX_API_KEY is still set in this environment; unset it too.');
}

export async function switchProfile(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  store.useProfile(name);
  ctx.io.info(`Now using profile "${name}".`);
}

export async function scopes(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  // No key is needed (nor sent) for the scope list.
  const client = await ctx.clientFor({ baseUrl: creds.baseUrl });
  const res = await client.call('scopes.list');
  (await import('../../contract/answers.js')).assertAnswer(endpoint('scopes.list'), res.data);
  await printList(ctx, res.data.content, [
    { key: 'scope', header: 'SCOPE' },
    { key: 'description', header: 'ALLOWS' },
  ]);
}
