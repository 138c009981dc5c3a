import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SandboxProcess {
  child: ChildProcess;
  /** The one JSON line `sandbox start --json` prints: its URL and the demo keys (demo values, not credentials). */
  started: { baseUrl: string; keys: Array<{ id: string; key: string }> };
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
  /** What it wrote on stderr so far. */
  stderr(): string;
}

/**
 * `<command> sandbox start --port 0 --json` as a process of its own (an installed notevox, the single executable),
 * resolved with its first line; rejected with its stderr if it exits before printing one.
 */
export async function spawnSandboxProcess(command: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<SandboxProcess> {
  const child = spawn(command, ['sandbox', 'start', '--port', '0', '--json'], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const first = await new Promise<string>((resolveLine, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  return { child, started: JSON.parse(first) as SandboxProcess['started'], exited, stderr: () => stderr };
}
