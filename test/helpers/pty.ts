import { spawn } from 'node:child_process';
import { BIN } from './cli.js';

const ANSI = new RegExp(String.raw`\u001b\[[0-9;?]*[A-Za-z]`, 'g');
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run the built CLI in a pseudo-terminal (`script` from util-linux), answering each prompt when its
 * text appears. Returns the exit code and everything the terminal showed (escape sequences removed unless `keepEscapes`).
 */
export function runInPty(
  args: string[],
  steps: Array<[RegExp, string]>,
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  opts: { keepEscapes?: boolean; /** Redirect the CLI's stdout to this file (stdin and stderr stay on the terminal). */ stdoutTo?: string } = {},
): Promise<{ exitCode: number | null; screen: string }> {
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ') + (opts.stdoutTo ? ` > ${shellQuote(opts.stdoutTo)}` : '');
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm', NO_COLOR: '1', COLUMNS: '100', ...env };
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: fullEnv as Record<string, string>, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let pending = '';
    let step = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pty run timed out at step ${step}; screen so far:\n${screen}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      const text = opts.keepEscapes ? d.toString('utf8') : d.toString('utf8').replace(ANSI, '');
      screen += text;
      pending += text;
      while (step < steps.length && steps[step][0].test(pending)) {
        const keys = steps[step++][1];
        pending = '';
        child.stdin.write(keys);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      child.stdin.end();
      resolve({ exitCode: code, screen });
    });
  });
}
