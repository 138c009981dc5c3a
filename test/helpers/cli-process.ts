import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cliEnv } from './cli.js';
import { eventually } from './receiver.js';
import { closeAtEnd } from './scope.js';

/** A long-running process of the built CLI (a receiver, a tail, a sandbox), its output collected as it comes. */
export interface CliProcess {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** Wait until stdout or stderr matches; returns the match (rejects if the process exits first). */
  waitFor(stream: 'out' | 'err', re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Send `signal` (SIGINT by default) and resolve with the exit code (null when the signal killed it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawn `notevox …` in the environment of cliEnv plus `env`; killed when the test ends (closeAtEnd) if still running. */
export function spawnNotevox(args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cliEnv({ env }) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const p: CliProcess = {
    child,
    out: () => out,
    err: () => err,
    waitFor: (stream, re, timeoutMs = 20_000) =>
      eventually(() => (stream === 'out' ? out : err).match(re) ?? (child.exitCode !== null ? Promise.reject(new Error(`exited ${child.exitCode}: ${err}`)) : undefined), timeoutMs, `${re} in ${args.join(' ')}`),
    stop: (signal = 'SIGINT') => {
      child.kill(signal);
      return exited;
    },
  };
  closeAtEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) await p.stop('SIGKILL');
  });
  return p;
}
