import type { ApiClient } from '../client/client.js';
import type { ConfigStore } from '../config/store.js';
import type { ResolvedCredentials } from '../config/resolve.js';
import type { IOStreams } from '../io/iostreams.js';
import type { Prompter } from '../io/prompter.js';
import type { Output } from '../io/output.js';
import type { root } from '../program.js';
import type { Clock } from '../timing.js';
import type { Flags } from './registry.js';

/** Options every command accepts: those of the root program (program.ts), as commander types them. */
export type GlobalOptions = Flags<typeof root>;

/** What a command receives: no command reaches for process globals itself, so tests can swap any of these. */
export interface Context {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /**
   * The output decision, taken once (src/io/output.ts): the format (asked for by -o/--json or the `output` setting,
   * else by the terminal), --fields and --query, and whether the output is JSON for a script or words for people.
   */
  output: Output;
  config(): Promise<ConfigStore>;
  credentials(): Promise<ResolvedCredentials>;
  /** The API client for the resolved profile; fails with exit 3 when an API call needs a key and none is set. */
  client(): Promise<ApiClient>;
  /**
   * Another client with this command's settings (timeout, retries, tracing, proxies) for an explicit base URL and
   * key, e.g. to check a key before it is saved. Closed when the command ends.
   */
  clientFor(o: { baseUrl: string; apiKey?: string; notLoggedIn?: () => Error; maxRetries?: number }): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  /** What commands measure elapsed time and wait on (polls, upload retries), never Date.now() or sleep() themselves. */
  clock: Clock;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Run `fn` on Ctrl-C before exiting with 130 (e.g. delete a half-created job). Returns an unregister function. */
  onInterrupt(fn: () => Promise<void> | void): () => void;
  /** For long-running commands that shut down by themselves on Ctrl-C/SIGTERM: the signal is only aborted, no exit. */
  takeOverInterrupt(): void;
}
