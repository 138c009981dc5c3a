// Startup: `--version` and `--help` against `node -e 0`, and one network command against a local sandbox.
import { BIN, findNote, median, row, timeNode, type BenchContext, type BenchRow } from './lib.js';

export const title = 'startup (wall clock of a whole process)';

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const base = await ctx.baseline();
  const baselineMs = median(base);
  const time = (args: string[], env = ctx.cliEnv()) => timeNode([BIN, ...args], { runs: ctx.runs, warmups: ctx.warmups, env });

  const rows = [
    row('node -e 0', base, { baselineMs }),
    row('notevox --version', time(['--version']), { baselineMs, target: 1.5 }),
    row('notevox --help', time(['--help']), { baselineMs, target: 1.5 }),
  ];
  const sandbox = await ctx.sandbox();
  const { guid, key } = await findNote(sandbox);
  const env = ctx.cliEnv({ NOTEVOX_API_KEY: key, NOTEVOX_BASE_URL: sandbox.baseUrl });
  rows.push(row('notevox notes get <guid>', time(['notes', 'get', guid], env), { baselineMs, target: 3 }));
  return rows;
}
