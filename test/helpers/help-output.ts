import { main } from '../../src/cli.js';

/** A stdout as commander sees it: a pipe, or a terminal this many columns wide. */
export type Screen = { isTTY: false } | { isTTY: true; columns: number };
/**
 * What main() (the CLI in this process, as commander prints its help) writes to stdout for `args` on this screen, and
 * its exit code. process.stdout itself is swapped for the call: commander sizes its help by it.
 */
export async function cliOutput(args: string[], screen: Screen, configDir: string): Promise<{ code: number; out: string }> {
  const stdout = process.stdout as unknown as Record<string, unknown>;
  const saved = { write: stdout.write, isTTY: Object.getOwnPropertyDescriptor(stdout, 'isTTY'), columns: Object.getOwnPropertyDescriptor(stdout, 'columns') };
  const savedEnv = { ...process.env };
  let out = '';
  stdout.write = (s: string | Uint8Array) => {
    out += String(s);
    return true;
  };
  Object.defineProperty(stdout, 'isTTY', { value: screen.isTTY, configurable: true, writable: true });
  Object.defineProperty(stdout, 'columns', { value: screen.isTTY ? screen.columns : undefined, configurable: true, writable: true });
  try {
    const code = await main(args, { env: { PATH: process.env.PATH, NOTEVOX_CONFIG_DIR: configDir, NO_COLOR: '1' } });
    return { code, out };
  } finally {
    stdout.write = saved.write;
    for (const key of ['isTTY', 'columns'] as const) {
      const d = saved[key];
      if (d) Object.defineProperty(stdout, key, d);
      else delete stdout[key];
    }
    process.env = savedEnv;
  }
}
