// The single-file executable (issue 28, docs/install.md): its size, and its start-up against the launcher it
// replaces, `node bin/notevox.js`, in alternating pairs: `--version`, `--help` and `notes get -o json` against a local
// sandbox. `node -e 0` of the same pairs' Node is quoted beside them. Built by `npm run build:exe` when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { api, runNode, timeNodeSync, type BenchContext } from './lib.js';
import { series } from './results.js';
import { alternate, median } from './stats.js';

export const title = 'the single-file executable: size, and start-up against `node bin/notevox.js`';

export async function run(ctx: BenchContext): Promise<void> {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const exe = join(ctx.root, 'dist', 'exe', `notevox-${os}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);
  if (!existsSync(exe)) {
    ctx.log('building the executable (npm run build:exe) …');
    const r = spawnSync(ctx.node, [join(ctx.root, 'scripts', 'build-exe.mjs')], { cwd: ctx.root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build:exe failed: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  }
  const sizeMb = statSync(exe).size / 1e6;
  const bundleMb = existsSync(join(ctx.root, 'build', 'exe', 'notevox.cjs')) ? statSync(join(ctx.root, 'build', 'exe', 'notevox.cjs')).size / 1e6 : undefined;
  const pairs = ctx.pairs * 3;
  const warmups = Math.max(2, ctx.warmups);

  const measure = (id: string, label: string, args: string[], env: NodeJS.ProcessEnv) =>
    ctx.runCase(id, `executable \`${label}\` vs \`node bin/notevox.js ${label}\``, [], async () => {
      const s = await alternate(
        { pairs, warmups },
        () => timeNodeSync(exe, args, env),
        () => timeNodeSync(ctx.node, [ctx.bin, ...args], env),
      );
      const bare: number[] = [];
      for (let i = 0; i < pairs; i++) bare.push(timeNodeSync(ctx.node, ['-e', '0'], env));
      // The executable takes no Node options (the RSS probe is one): it is checked to answer, not probed.
      const one = await runNode(exe, args, { env });
      if (one.code !== 0) throw new Error(`the executable's ${label} exited with ${one.code}`);
      return {
        a: series(`executable ${label}`, 'ms', s.a),
        b: series(`node bin/notevox.js ${label}`, 'ms', s.b),
        info: {
          'executable / launcher (median ratio)': Number(median(s.a.map((x, i) => x / s.b[i])).toFixed(2)),
          'node -e 0 (median ms)': Number(median(bare).toFixed(1)),
          'executable size (MB)': Number(sizeMb.toFixed(1)),
          'its bundle (MB)': bundleMb === undefined ? undefined : Number(bundleMb.toFixed(2)),
        },
      };
    });

  const env = ctx.cliEnv();
  await measure('exe-version', '--version', ['--version'], env);
  await measure('exe-help', '--help', ['--help'], env);
  const sandbox = await ctx.sandbox();
  const key = sandbox.keys.get('nvk_user_admin');
  if (!key) throw new Error('the sandbox printed no nvk_user_admin key');
  const list = await api<{ content: Array<{ guid: string }> }>(sandbox.baseUrl, key, 'GET', `${buildPath(endpoint('notes.list'))}?size=1`);
  const guid = list.content[0]?.guid;
  if (!guid) throw new Error('the demo sandbox lists no note');
  await measure('exe-notes-get', `notes get ${guid} -o json`, ['notes', 'get', guid, '-o', 'json'], ctx.cliEnv({ NOTEVOX_API_KEY: key, NOTEVOX_BASE_URL: sandbox.baseUrl }));
}
