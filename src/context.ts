import type { ApiClient, ClientOptions } from './client/client.js';
import type { Context, GlobalOptions } from './commands/types.js';
import type { ConfigStore } from './config/store.js';
import type { Endpoint } from './contract/types.js';
import type { ResolvedCredentials } from './config/resolve.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { VERSION } from './version.js';
import type { IOStreams } from './io/iostreams.js';
import type { Prompter } from './io/prompter.js';
import { parseOutputFormat } from './io/formats.js';
import { decideOutput } from './io/output.js';
import { realClock, type Clock } from './timing.js';
import { didYouMean } from './suggest.js';

export interface ContextDeps {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** Stored settings (`notevox config`): `output` is the default format when no -o/--json is given. */
  settings?: Record<string, string>;
  /** Answers prompts instead of the terminal (tests). */
  prompter?: Prompter;
  /** Settings for every API client, over the command's own (tests: a dispatcher reaching an in-process sandbox). */
  client?: Partial<ClientOptions>;
  /** The command's clock (default: the wall clock; tests: one whose waits take less real time). */
  clock?: Clock;
  signal: AbortSignal;
  onInterrupt: Context['onInterrupt'];
  takeOverInterrupt: Context['takeOverInterrupt'];
  /** Run at the end of the command (close connections so the process can exit). */
  onDispose: (fn: () => Promise<void> | void) => void;
}

/** Characters an HTTP header value (and so a bearer key) may carry. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** No key for an API call (or `auth status`): name the profile, and say when the profile itself does not exist. */
export function notLoggedInError(c: ResolvedCredentials, store: ConfigStore | undefined): CliError {
  const how = c.profileSource === 'flag' ? ' (--profile)' : c.profileSource === 'env' ? ' (NOTEVOX_PROFILE)' : '';
  const exists = store?.getProfile(c.profile) !== undefined;
  if (!exists && (c.profileSource === 'flag' || c.profileSource === 'env')) {
    const known = store?.listProfiles().map((p) => p.name) ?? [];
    const near = didYouMean(c.profile, known);
    return new CliError(`no such profile "${c.profile}"${how}`, {
      exitCode: EXIT.UNAUTHENTICATED,
      hint:
        (near ? `${near} ` : '') +
        (known.length ? `Known profiles: ${known.join(', ')}. ` : 'There are no profiles yet. ') +
        `Create it with \`notevox auth login --profile ${c.profile}\`, or set NOTEVOX_API_KEY.`,
    });
  }
  return new CliError(`not logged in: profile "${c.profile}"${how} has no API key`, {
    exitCode: EXIT.UNAUTHENTICATED,
    hint: 'Run `notevox auth login` or set NOTEVOX_API_KEY.',
  });
}

function positiveNumber(flag: string, value: string | undefined, min = 0, example = 30): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} "${value}" is not a number ≥ ${min}`, `Pass e.g. ${flag} ${example}.`);
  return n;
}

/**
 * A number from the flag when given, else from the stored setting: a bad value is reported where it is, so that a
 * hand-edited config file is not blamed on a flag nobody passed.
 */
function flagOrSetting(store: ConfigStore, flag: string, value: string | undefined, setting: string, min: number, example: number): number | undefined {
  if (value !== undefined) return positiveNumber(flag, value, min, example);
  const stored = store.getSetting(setting);
  if (stored === undefined) return undefined;
  const n = Number(stored);
  if (stored.trim() === '' || !Number.isFinite(n) || n < min)
    throw new UsageError(`the ${setting} setting "${stored}" in ${store.path} is not a number ≥ ${min}`, `Fix it with \`notevox config set ${setting} ${example}\`, or remove it with \`notevox config unset ${setting}\`.`);
  return n;
}

/**
 * The check every answer of the commands' client passes (ClientOptions.checkAnswer): reads and writes alike, each page
 * of a list included, are held to the contract's documented shape before a command sees them (src/contract/answers.ts),
 * so that no command reports a change as made, or reads a field of, a 2xx that is HTML, garbage or `{}`: it says
 * "unexpected response from <endpoint>" instead of failing on a missing field. The check (docs/openapi.json) loads
 * on the first answer. Left out: the answers a command reads tolerantly on purpose (TOLERANT_READS).
 */
export async function checkAnswer(ep: Endpoint, data: unknown): Promise<void> {
  // The service's endpoints (under /v1/, documented in docs/openapi.json); another document's (the sandbox's
  // control API) is checked by its own callers.
  if (!ep.path.startsWith('/v1/')) return;
  if (TOLERANT_READS.has(ep.id) && typeof data === 'object' && data !== null) return;
  (await (answersModule ??= import('./contract/answers.js'))).assertAnswer(ep, data);
}

/** The check's module, imported once: a dynamic import of a loaded module still goes through the loader (wm import checks a thousand answers). */
let answersModule: Promise<typeof import('./contract/answers.js')> | undefined;

/**
 * Reads whose JSON answers the commands take in any shape (decisions.md §4.5: a transcript is read from `segments`
 * or `paragraphs`, whatever fields it has: commands/voice/output.ts readTranscript). A body that is not JSON still fails.
 */
const TOLERANT_READS = new Set<string>(['voice.transcript']);

/** Build a command context; everything heavy (conf, undici, inquirer) loads on first use. */
export function createContext(deps: ContextDeps): Context {
  const { io, env, globals } = deps;
  let store: ConfigStore | undefined;
  let creds: ResolvedCredentials | undefined;
  let client: ApiClient | undefined;
  let prompter: Prompter | undefined = deps.prompter;

  const config = async () => {
    if (!store) {
      const { openConfig } = await import('./config/store.js');
      store = openConfig(env);
    }
    return store;
  };

  const credentials = async () => {
    if (!creds) {
      const { resolveCredentials } = await import('./config/resolve.js');
      creds = resolveCredentials({ flags: { profile: globals.profile, baseUrl: globals.baseUrl }, env, store: await config() });
    }
    return creds;
  };

  /** The notes about base URLs said already (one per URL and command). */
  const noted = new Set<string>();

  /** A client with this command's settings (timeout, retries, tracing, proxies), closed when the command ends. */
  const clientFor: Context['clientFor'] = async (o) => {
    const s = await config();
    const { validateBaseUrl } = await import('./config/baseurl.js');
    const { createClient } = await import('./client/client.js');
    // Whatever the server echoes, this key is masked in all the command prints or writes (IOStreams.mask).
    io.addSecret(o.apiKey);
    const timeoutSeconds = flagOrSetting(s, '--timeout', globals.timeout, 'timeout', 1, 30);
    const maxRetries = flagOrSetting(s, '--max-retries', globals.maxRetries, 'max_retries', 0, 3);
    const c = createClient({
      baseUrl: validateBaseUrl(o.baseUrl, (note) => noted.has(note) || (noted.add(note), io.info(note))),
      apiKey: o.apiKey,
      timeoutMs: timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined,
      maxRetries: o.maxRetries ?? (maxRetries !== undefined ? Math.floor(maxRetries) : undefined),
      debug: Boolean(globals.debug) || (env.NOTEVOX_DEBUG ?? '').split(',').map((v) => v.trim()).includes('api'),
      log: (line) => io.err(line + '\n'),
      env,
      userAgent: `notevox/${VERSION} (node ${process.version})`,
      notLoggedIn: o.notLoggedIn,
      checkAnswer,
      ...deps.client,
    });
    deps.onDispose(() => c.close());
    return c;
  };

  const chosen = globals.output ?? deps.settings?.output;
  const format = globals.json ? 'json' : chosen ? parseOutputFormat(chosen) : undefined;
  const output = decideOutput(io, {
    format,
    fields: globals.fields ? globals.fields.split(',').map((f) => f.trim()).filter(Boolean) : undefined,
    query: globals.query,
  });

  return {
    io,
    env,
    globals,
    output,
    clock: deps.clock ?? realClock,
    signal: deps.signal,
    onInterrupt: deps.onInterrupt,
    takeOverInterrupt: deps.takeOverInterrupt,
    config,
    credentials,
    clientFor,
    async client() {
      if (client) return client;
      const c = await credentials();
      if (c.apiKey && !HEADER_SAFE.test(c.apiKey)) {
        const where = c.apiKeySource?.kind === 'env' ? c.apiKeySource.name : `profile "${c.profile}"`;
        throw new UsageError(`the API key from ${where} contains spaces or control characters`, 'Set it to the key `{id}.{secret}` exactly as shown in the dashboard, on one line.');
      }
      client = await clientFor({ baseUrl: c.baseUrl, apiKey: c.apiKey, notLoggedIn: () => notLoggedInError(c, store) });
      return client;
    },
    async prompter() {
      if (!prompter) {
        const { createPrompter } = await import('./io/prompter.js');
        prompter = createPrompter(io);
      }
      return prompter;
    },
  };
}
