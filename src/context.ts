import type { ApiClient } from './client/client.js';
import type { Context, GlobalOptions } from './commands/types.js';
import type { ConfigStore } from './config/store.js';
import type { ResolvedCredentials } from './config/resolve.js';
import { UsageError } from './errors.js';
import { VERSION } from './version.js';
import type { IOStreams } from './io/iostreams.js';
import type { Prompter } from './io/prompter.js';
import { parseOutputFormat, type OutputOptions } from './io/render.js';

export interface ContextDeps {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** Stored settings (`notevox config`): `output` is the default format when no -o/--json is given. */
  settings?: Record<string, string>;
  signal: AbortSignal;
  onInterrupt: Context['onInterrupt'];
  takeOverInterrupt: Context['takeOverInterrupt'];
  /** Run at the end of the command (close connections so the process can exit). */
  onDispose: (fn: () => Promise<void> | void) => void;
  clock?: Context['clock'];
}

function positiveNumber(flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} "${value}" is not a number ≥ ${min}`, `Pass e.g. ${flag} 30.`);
  return n;
}

/** Build a command context; everything heavy (conf, undici, inquirer) loads on first use. */
export function createContext(deps: ContextDeps): Context {
  const { io, env, globals } = deps;
  let store: ConfigStore | undefined;
  let creds: ResolvedCredentials | undefined;
  let client: ApiClient | undefined;
  let prompter: Prompter | undefined;

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

  const chosen = globals.output ?? deps.settings?.output;
  const format = globals.json ? 'json' : chosen ? parseOutputFormat(chosen) : undefined;
  const output: OutputOptions = {
    format,
    fields: globals.fields ? globals.fields.split(',').map((f) => f.trim()).filter(Boolean) : undefined,
    query: globals.query,
  };

  return {
    io,
    env,
    globals,
    output,
    clock: deps.clock ?? { now: () => new Date() },
    signal: deps.signal,
    onInterrupt: deps.onInterrupt,
    takeOverInterrupt: deps.takeOverInterrupt,
    config,
    credentials,
    async client() {
      if (client) return client;
      const c = await credentials();
      const s = await config();
      const { validateBaseUrl } = await import('./config/baseurl.js');
      const { createClient } = await import('./client/client.js');
      const timeoutSeconds = positiveNumber('--timeout', globals.timeout ?? s.getSetting('timeout'), 1);
      const maxRetries = positiveNumber('--max-retries', globals.maxRetries ?? s.getSetting('max_retries'), 0);
      client = createClient({
        baseUrl: validateBaseUrl(c.baseUrl),
        apiKey: c.apiKey,
        timeoutMs: timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined,
        maxRetries: maxRetries !== undefined ? Math.floor(maxRetries) : undefined,
        debug: Boolean(globals.debug) || (env.NOTEVOX_DEBUG ?? '').split(',').includes('api'),
        log: (line) => io.err(line + '\n'),
        env,
        userAgent: `notevox/${VERSION} (node ${process.version})`,
      });
      deps.onDispose(() => client?.close());
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
