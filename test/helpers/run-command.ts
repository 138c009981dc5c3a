import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { Transport, WireRequest } from '../../src/client/transport.js';
import { InputNeededError } from '../../src/errors.js';
import type { IOStreams } from '../../src/io/iostreams.js';
import { createMemoryIO } from '../../src/io/memory.js';
import type { Prompter } from '../../src/io/prompter.js';
import type { SandboxOptions } from '../../src/sandbox/server.js';
import type { Clock } from '../../src/timing.js';
import { K, type KeyName } from './expect.js';
import { inProcessSandbox } from './sandbox.js';

/**
 * The real program in this process: `main()` with memory streams, an environment of its own, a strict MockPrompter
 * and, instead of sockets, the sandbox's hono app answering the client's requests (`app.request()`). What a test
 * sees is what a user sees: the exit code, stdout and stderr. Spawn the built CLI (cli.ts) only where a process is
 * the point: start-up, signals, ptys, completions.
 */

/** The base URL the in-process sandbox answers on: loopback, so the CLI sends a key over http as it does to a local sandbox. */
export const SANDBOX_URL = 'http://127.0.0.1:4010';

export type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

/** A sandbox in this process, and a transport that hands the client's requests to its app (no socket, no port). */
export async function commandSandbox(opts: SandboxOptions = {}) {
  const sb = await inProcessSandbox(opts);
  sb.setBaseUrl(SANDBOX_URL);
  const wire: Transport = {
    kind: 'node',
    async send(req: WireRequest) {
      let body: string | Buffer | undefined;
      if (typeof req.body === 'string') body = req.body;
      else if (req.body instanceof Uint8Array) body = Buffer.from(req.body); // a JsonText's bytes (wm import)
      else if (req.body instanceof Readable) {
        const chunks: Buffer[] = [];
        for await (const c of req.body) chunks.push(Buffer.from(c as Uint8Array));
        body = Buffer.concat(chunks);
      }
      req.progress.connected();
      const res = await sb.app.request(req.url.pathname + req.url.search, { method: req.method, headers: req.headers, body, signal: req.signal });
      req.progress.responseStarted();
      const rawBody = await res.text();
      req.progress.received();
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      return { status: res.status, statusText: res.statusText, headers, rawBody };
    },
    close: async () => {},
  };
  return Object.assign(sb, { wire });
}

export interface ExpectedPrompt {
  kind: 'input' | 'password' | 'select' | 'confirm';
  /** The prompt's message contains this text (or matches this pattern). */
  message: string | RegExp;
  /**
   * What the user answers: text for input/password, a choice's value for select, a boolean for confirm. For an input,
   * a list of texts: every one but the last must be refused by the prompt's validation (as a user retyping), the
   * last accepted; the refusals are kept in `refusals`.
   */
  answer: unknown;
}

/**
 * A prompter that answers only the prompts a test declared, in order. An unexpected prompt fails the command (and
 * `verify()`), and so does an expected one that never came. Like the real one it asks nothing when the terminal
 * cannot prompt (InputNeededError, exit 10); an input answer is checked with the prompt's own validation.
 */
export class MockPrompter implements Prompter {
  private readonly queue: ExpectedPrompt[];
  readonly problems: string[] = [];
  /** What the prompts' validation said of the answers it refused, in order. */
  readonly refusals: string[] = [];
  /** The terminal of the command (set by runCommand). */
  io?: IOStreams;

  constructor(expected: ExpectedPrompt[] = []) {
    this.queue = [...expected];
  }

  private take(kind: ExpectedPrompt['kind'], message: string, flag: string): unknown {
    if (this.io && !this.io.canPrompt) throw new InputNeededError(message, flag);
    const next = this.queue.shift();
    const matches = (m: string | RegExp) => (typeof m === 'string' ? message.includes(m) : m.test(message));
    if (!next || next.kind !== kind || !matches(next.message)) {
      const problem = `unexpected ${kind} prompt "${message}"${next ? ` (expected ${next.kind} "${String(next.message)}")` : ''}`;
      this.problems.push(problem);
      throw new Error(problem);
    }
    return next.answer;
  }

  async input(o: { message: string; default?: string; validate?: (v: string) => true | string; flag: string }): Promise<string> {
    const given = this.take('input', o.message, o.flag);
    const answers = (Array.isArray(given) ? given : [given ?? o.default ?? '']).map(String);
    for (const [i, answer] of answers.entries()) {
      const verdict = o.validate?.(answer) ?? true;
      const last = i === answers.length - 1;
      if (verdict !== true && last) {
        this.problems.push(`the answer "${answer}" to "${o.message}" is refused: ${verdict}`);
        throw new Error(verdict);
      }
      if (verdict === true && !last) {
        this.problems.push(`the answer "${answer}" to "${o.message}" was expected to be refused`);
        throw new Error(`"${answer}" accepted`);
      }
      if (verdict !== true) this.refusals.push(verdict);
    }
    return answers[answers.length - 1];
  }
  async password(o: { message: string; flag: string }): Promise<string> {
    return String(this.take('password', o.message, o.flag));
  }
  async select<T>(o: { message: string; choices: Array<{ name: string; value: T }>; flag: string }): Promise<T> {
    const answer = this.take('select', o.message, o.flag);
    const choice = o.choices.find((c) => c.value === answer);
    if (!choice) {
      const problem = `"${String(answer)}" is not a choice of "${o.message}" (${o.choices.map((c) => String(c.value)).join(', ')})`;
      this.problems.push(problem);
      throw new Error(problem);
    }
    return choice.value;
  }
  async confirm(o: { message: string; flag: string }): Promise<boolean> {
    return Boolean(this.take('confirm', o.message, o.flag));
  }

  /** Throws when a prompt came that was not expected, or an expected one did not come. */
  verify(): void {
    const left = this.queue.map((p) => `expected ${p.kind} prompt "${String(p.message)}" never came`);
    const all = [...this.problems, ...left];
    if (all.length) throw new Error(`MockPrompter: ${all.join('; ')}`);
  }
}

export interface RunOptions {
  /** The sandbox to talk to (default: none; commands that need one fail to connect as with no server). */
  sandbox?: Awaited<ReturnType<typeof commandSandbox>>;
  /** A demo key's name or a whole key, sent as NOTEVOX_API_KEY (with NOTEVOX_BASE_URL at the sandbox). */
  key?: KeyName | string;
  /** More environment (or `undefined` to remove a variable the harness would set). */
  env?: Record<string, string | undefined>;
  /** Standard input (closed after it). */
  stdin?: string;
  /** Whether stdin, stdout and stderr look like terminals (default: none does, as under CI). */
  tty?: boolean;
  /** Whether stdout looks like a terminal, when it differs from `tty` (`> file` on a terminal: `tty: true, stdoutTty: false`). */
  stdoutTty?: boolean;
  /** The prompts the command may ask, in order; any other prompt fails the test. */
  prompts?: ExpectedPrompt[] | MockPrompter;
  /** The config dir (default: a fresh one per call, removed after). */
  configDir?: string;
  /** Terminal width when tty. */
  columns?: number;
  /** Told of each write to stderr as it happens (e.g. to note when a line came, in virtual time). */
  onStderr?: (text: string) => void;
  /**
   * The command's clock (Context.clock): default the wall clock. An accelerated one (helpers/clock.ts) makes the
   * waits of voice polling, upload retries and --follow take a fraction of their real time.
   */
  clock?: Clock;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Run `notevox <argv>` in this process. */
export async function runCommand(argv: string[], o: RunOptions = {}): Promise<CommandResult> {
  const ownDir = o.configDir === undefined ? mkdtempSync(join(tmpdir(), 'notevox-inproc-')) : undefined;
  const key = o.key === undefined ? undefined : o.key in K ? K[o.key as KeyName] : o.key;
  const env: Record<string, string | undefined> = {
    NO_COLOR: '1',
    NOTEVOX_CONFIG_DIR: o.configDir ?? ownDir,
    ...(o.sandbox ? { NOTEVOX_BASE_URL: SANDBOX_URL } : {}),
    ...(key ? { NOTEVOX_API_KEY: key } : {}),
    ...o.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const prompter = o.prompts instanceof MockPrompter ? o.prompts : new MockPrompter(o.prompts ?? []);
  let memory: ReturnType<typeof createMemoryIO> | undefined;
  try {
    const exitCode = await main(argv, {
      env: env as NodeJS.ProcessEnv,
      io: (s) => {
        memory = createMemoryIO({ ...s, stdinTTY: o.tty, stdoutTTY: o.stdoutTty ?? o.tty, stderrTTY: o.tty, terminalColumns: o.columns ?? (o.tty ? 100 : undefined) });
        if (o.stdin !== undefined) memory.stdin.end(o.stdin);
        else if (!o.tty) memory.stdin.end();
        prompter.io = memory.io;
        if (o.onStderr) {
          const stderr = memory.io.stderr;
          const write = stderr.write.bind(stderr) as (...a: unknown[]) => boolean;
          const tell = o.onStderr;
          stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
            tell(String(chunk));
            return write(chunk, ...rest);
          }) as typeof stderr.write;
        }
        return memory.io;
      },
      prompter,
      clock: o.clock,
      client: o.sandbox ? { wire: o.sandbox.wire, sleep: async () => {} } : {},
    });
    const result = { exitCode, stdout: memory?.stdout() ?? '', stderr: memory?.stderr() ?? '' };
    try {
      prompter.verify();
    } catch (e) {
      // What the command printed says why a prompt did not come (or another one did).
      throw new Error(`${(e as Error).message}\nexit ${exitCode}; stderr:\n${result.stderr}`);
    }
    return result;
  } finally {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  }
}

/** The options of runCli (cli.ts), for moving a test of the built CLI into this process unchanged. */
export interface CliLikeOptions {
  /** NOTEVOX_BASE_URL (none when not given). */
  baseUrl?: string;
  key?: string;
  configDir?: string;
  env?: Record<string, string | undefined>;
  /** Standard input. */
  input?: string;
  /** The in-process sandbox that answers; without one the requests go over the real network (a real server, a refused port). */
  sandbox?: RunOptions['sandbox'];
}

/** `runCli` in this process: the same environment (CI=1, no terminal, no colour), the real program. */
export function runCliInProcess(args: string[], o: CliLikeOptions = {}): Promise<CommandResult> {
  return runCommand(args, { sandbox: o.sandbox, key: o.key, configDir: o.configDir, stdin: o.input, env: { CI: '1', NOTEVOX_BASE_URL: o.baseUrl, ...o.env } });
}
