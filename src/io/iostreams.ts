import { createProgress, createSpinner, type Progress, type ProgressOptions, type Spinner, type StatusSink } from './progress.js';
import { EXIT } from '../errors.js';
import { describeFsError } from './fs-errors.js';
import { paint } from './text.js';
import { maskForms, secretForms } from '../redact.js';
import { once } from '../once.js';

/**
 * Whether file descriptor `fd` is a terminal (tty.isatty), node:tty loaded when first asked: a command whose stdout
 * is not a terminal (`notes get -o json` in a script) never asks about stdin or stderr before it needs to (colour is
 * off whatever stderr is; prompting and progress lines are decided when used), and so does not load the module.
 */
const isatty = (fd: number): boolean => process.getBuiltinModule('node:tty').isatty(fd);

export type { Progress, ProgressOptions, Spinner } from './progress.js';

/** The terminal: data goes to stdout, messages, spinners and progress to stderr. */
export interface IOStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  isStdinTTY: boolean;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  color: boolean;
  canPrompt: boolean;
  columns: number;
  env: NodeJS.ProcessEnv;
  /** All of standard input as UTF-8 text (`--with-key`, `--input -`, `@-`). */
  readStdin(): Promise<string>;
  /**
   * A key this command sends (the client registers it): from now on it is masked (`****`) in everything written
   * through these streams, whatever the server echoes back: stdout, messages, and --out files (data-file.ts).
   */
  addSecret(key: string | undefined): void;
  /** `text` with every registered key masked: the one place output passes before it leaves the process. */
  mask(text: string): string;
  /** Write to stdout (keys masked). */
  out(text: string): void;
  /** Write to stdout (keys masked), resolving once the stream can take more (long exports: constant memory). */
  outAsync(text: string): Promise<void>;
  /** Write to stderr (keys masked). */
  err(text: string): void;
  /** One line on stderr. */
  info(line: string): void;
  /** `warning: line` on stderr (yellow prefix with colour). */
  warn(line: string): void;
  /** `✓ line` on stderr (green mark with colour; just the line without). */
  success(line: string): void;
  spinner(text: string): Spinner;
  progress(opts: ProgressOptions): Progress;
}

export type ColorSetting = 'auto' | 'always' | 'never';

export interface IOStreamsOptions {
  noColor?: boolean;
  noInput?: boolean;
  /** The `color` setting; `never` acts like --no-color, `always` like FORCE_COLOR=1. */
  colorSetting?: ColorSetting;
  env?: NodeJS.ProcessEnv;
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  columns?: number;
  /**
   * Standard output failed for a reason other than the reader going away (ENOSPC: `> /dev/full`, a full disk).
   * Called once; the default prints one line on stderr and exits with 11. The CLI passes its own, which also cleans up.
   */
  onStdoutError?: (e: NodeJS.ErrnoException) => void;
  /**
   * The reader of stdout went away (EPIPE: `notevox … | head -1`): nobody wants the rest, so the command ends
   * quietly with exit 0, as git and gh do. Called once; the default exits 0. The CLI passes its own, which cleans up.
   */
  onStdoutClosed?: () => void;
}

const isTTY = (s: unknown): boolean => Boolean((s as { isTTY?: boolean }).isTTY);
/** Set, and not '', '0' or 'false'. */
const enabled = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/** `CI` set to anything but '', '0' or 'false'. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  return enabled(env.CI);
}

/**
 * Precedence: --no-color, then NO_COLOR (any non-empty value: off), then FORCE_COLOR ('0' or 'false': off, any
 * other non-empty value: on), then the `color` setting (never/always), then auto: on only when stdout and stderr
 * are both terminals and TERM is not dumb.
 */
export function decideColor(o: { env: NodeJS.ProcessEnv; noColor?: boolean; colorSetting?: ColorSetting; stdoutTTY: boolean; stderrTTY: boolean }): boolean {
  if (o.noColor || (o.env.NO_COLOR ?? '') !== '') return false;
  if ((o.env.FORCE_COLOR ?? '') !== '') return enabled(o.env.FORCE_COLOR);
  if (o.colorSetting && o.colorSetting !== 'auto') return o.colorSetting === 'always';
  if (o.env.TERM === 'dumb') return false;
  return o.stdoutTTY && o.stderrTTY;
}

/**
 * Prompting needs a terminal on stdin (the answer) and stderr (where the question is shown), no CI, and no
 * --no-input. Stdout does not matter: `wm sync --prune > plan.tsv` on a terminal may still ask.
 */
export function decideCanPrompt(o: { env: NodeJS.ProcessEnv; noInput?: boolean; stdinTTY: boolean; stderrTTY: boolean }): boolean {
  return o.stdinTTY && o.stderrTTY && !isCI(o.env) && !o.noInput;
}

/**
 * Make every colour-aware library (chalk via ora, inquirer, Node's own) follow our decision. Call it before any of
 * them is imported; ora and inquirer are only imported lazily.
 */
export function applyColorToEnvironment(color: boolean, o: { terminals?: boolean; env?: NodeJS.ProcessEnv } = {}): void {
  const env = o.env ?? process.env;
  // Node warns when NO_COLOR and FORCE_COLOR are both set; FORCE_COLOR alone expresses the decision.
  delete env.NO_COLOR;
  if (!color) env.FORCE_COLOR = '0';
  else if (enabled(env.FORCE_COLOR)) return;
  // Colour on although stdout or stderr is not a terminal (`config set color always`): libraries that look at
  // the streams themselves would say no, so force them. On terminals they agree already, and leaving
  // FORCE_COLOR unset keeps it away from child processes whose output is captured.
  else if (o.terminals === false) env.FORCE_COLOR = '1';
  else delete env.FORCE_COLOR;
}

function terminalColumns(stdout: NodeJS.WritableStream, env: NodeJS.ProcessEnv): number {
  const tty = (stdout as { columns?: number }).columns;
  if (tty && tty > 0) return tty;
  const fromEnv = Number.parseInt(env.COLUMNS ?? '', 10);
  return fromEnv > 0 ? fromEnv : 80;
}

let watchingStdout = false;
let watchingStderr = false;
let stdoutFailed: ((e: NodeJS.ErrnoException) => void) | undefined;
let stdoutClosed: (() => void) | undefined;

/** `cannot write to standard output: ENOSPC (no space left on the device)`. */
export function stdoutErrorMessage(e: NodeJS.ErrnoException): string {
  return `cannot write to standard output: ${describeFsError(e)}`;
}

export function createIOStreams(opts: IOStreamsOptions = {}): IOStreams {
  const env = opts.env ?? process.env;
  // process.stdin is made on first use: building the stream (a socket or file stream for fd 0) cost every command
  // ~4 ms on Node 24, and most never read it; whether fd 0 is a terminal is what process.stdin.isTTY says.
  let stdinStream = opts.stdin;
  const stdinOf = () => (stdinStream ??= process.stdin);
  const stdout = opts.stdout ?? process.stdout;
  // process.stderr too is made on first use: a command that prints no message (`notes get -o json`) need not build
  // the stream (a socket for a pipe: 1-2 ms of CPU on Node 24); whether fd 2 is a terminal is what its isTTY says.
  // Made, it gets the quiet 'error' listener it got when it was made with the streams.
  let stderrStream: NodeJS.WritableStream | undefined;
  const stderrOf = (): NodeJS.WritableStream => {
    if (stderrStream) return stderrStream;
    stderrStream = opts.stderr ?? process.stderr;
    if (stdout === process.stdout && stderrStream === process.stderr && !watchingStderr) {
      watchingStderr = true;
      // Messages that cannot be shown are lost, but they must not crash a command whose data still flows.
      stderrStream.on('error', () => {});
    }
    return stderrStream;
  };
  const isStdinTTY = once(() => (opts.stdin ? isTTY(opts.stdin) : isatty(0)));
  const isStdoutTTY = isTTY(stdout);
  const isStderrTTY = once(() => (opts.stderr ? isTTY(opts.stderr) : isatty(2)));
  // Whether stderr is a terminal matters to the colour only when stdout is one (decideColor: both must be).
  const color = decideColor({ env, noColor: opts.noColor, colorSetting: opts.colorSetting, stdoutTTY: isStdoutTTY, stderrTTY: isStdoutTTY && isStderrTTY() });
  const columns = opts.columns ?? terminalColumns(stdout, env);
  // A terminal without a size (e.g. a pty nobody sized) cannot redraw a line reliably: no spinner there.
  const interactive = once(() => isStderrTTY() && ((stderrOf() as { columns?: number }).columns ?? 0) > 0 && env.TERM !== 'dumb' && !isCI(env));
  const sink: StatusSink = {
    get stderr() {
      return stderrOf();
    },
    get interactive() {
      return interactive();
    },
    color,
    columns,
  };

  if (stdout === process.stdout) {
    stdoutFailed = opts.onStdoutError;
    stdoutClosed = opts.onStdoutClosed;
    if (!watchingStdout) {
      watchingStdout = true;
      // `notevox … | head` (EPIPE): the reader has what it wanted, so the command ends quietly with exit 0.
      // `> /dev/full` (ENOSPC, EIO, …): the output is incomplete, which a script must learn from the exit code;
      // one line on stderr says why (not an uncaught exception's stack and source).
      let reported = false;
      stdout.on('error', (e: NodeJS.ErrnoException) => {
        if (reported) return;
        reported = true;
        if (e.code === 'EPIPE') return stdoutClosed ? stdoutClosed() : process.exit(EXIT.OK);
        if (stdoutFailed) return stdoutFailed(e);
        try {
          process.stderr.write(`error: ${stdoutErrorMessage(e)}\n`);
        } finally {
          process.exit(EXIT.OUTPUT_FAILED);
        }
      });
    }
  }

  let forms: string[] = [];
  const mask = (text: string) => (forms.length ? maskForms(text, forms) : text);
  const err = (text: string) => void stderrOf().write(mask(text));
  return {
    get stdin() {
      return stdinOf();
    },
    stdout,
    get stderr() {
      return stderrOf();
    },
    get isStdinTTY() {
      return isStdinTTY();
    },
    isStdoutTTY,
    get isStderrTTY() {
      return isStderrTTY();
    },
    color,
    get canPrompt() {
      return decideCanPrompt({ env, noInput: opts.noInput, stdinTTY: isStdinTTY(), stderrTTY: isStderrTTY() });
    },
    columns,
    env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of stdinOf()) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
      return Buffer.concat(chunks).toString('utf8');
    },
    addSecret: (key) => {
      if (key) forms = [...new Set([...forms, ...secretForms(key)])].sort((a, b) => b.length - a.length);
    },
    mask,
    out: (text) => void stdout.write(mask(text)),
    outAsync: (text) =>
      new Promise<void>((resolve) => {
        // A failed stdout is handled once, for the whole process (above): here the wait just ends.
        if (stdout.write(mask(text)) || (stdout as { destroyed?: boolean }).destroyed) return resolve();
        const done = () => {
          stdout.off('drain', done);
          stdout.off('error', done);
          stdout.off('close', done);
          resolve();
        };
        stdout.on('drain', done);
        stdout.on('error', done);
        stdout.on('close', done);
      }),
    err,
    info: (line) => err(line + '\n'),
    warn: (line) => err(`${paint(color, 'yellow', 'warning:')} ${line}\n`),
    success: (line) => err(color ? `${paint(true, 'green', '✓')} ${line}\n` : line + '\n'),
    spinner: (text) => createSpinner(sink, text),
    progress: (o) => createProgress(sink, o),
  };
}
