import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInstalledScenario } from '../helpers/installed-scenario.js';

/**
 * The single-file executable (issue 28, docs/install.md): built by `npm run build:exe` (slow, and 130 MB: not part
 * of `npm test`; .ci/run builds it and runs this file with NOTEVOX_EXE_TEST=required). Copied out of the checkout,
 * into a directory with nothing else, and run with a PATH that holds no `node`: nothing it needs may come from
 * node_modules or another Node.js.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const os = process.platform === 'win32' ? 'windows' : process.platform;
const built = join(root, 'dist', 'exe', `notevox-${os}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);
const required = process.env.NOTEVOX_EXE_TEST === 'required';
/** The newest mtime under `path`. */
const newest = (path: string): number => {
  const st = statSync(path);
  return st.isDirectory() ? Math.max(st.mtimeMs, ...readdirSync(path).map((n) => newest(join(path, n)))) : st.mtimeMs;
};
// An executable older than the source it is built from tests old code: left alone unless CI asks for it (it builds first).
const stale = existsSync(built) && statSync(built).mtimeMs < Math.max(...['src', 'scripts/build-exe.mjs', 'package-lock.json'].map((p) => newest(join(root, p))));
const present = existsSync(built) && (required || !stale);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

describe.runIf(!present && required)('the single-file executable (required)', () => {
  it('was built', () => {
    expect.fail(`${built} is missing: run \`npm run build:exe\` first`);
  });
});
describe.skipIf(present || required)('the single-file executable', () => {
  it.skip(`skipped: ${stale ? 'the' : 'no'} ${relative(root, built)}${stale ? ' is older than src/' : ''} (run \`npm run build:exe\`; .ci/run builds and tests it)`, () => {});
});

describe.skipIf(!present)('the single-file executable', () => {
  let work: string;
  let bin: string;
  let env: Record<string, string>;
  let bash: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'notevox-exe-'));
    bin = join(work, 'bin');
    mkdirSync(bin);
    copyFileSync(built, join(bin, 'notevox'));
    // PATH is this directory alone: no node, no npm. HOME is fresh (the config goes to ~/.config/notevox).
    env = { PATH: bin, HOME: join(work, 'home'), CI: '1', NO_COLOR: '1' };
    mkdirSync(env.HOME);
    bash = (await execa('bash', ['-c', 'command -v bash'])).stdout.trim();
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const notevox = async (args: string[], input?: string) => {
    const r = await execa(join(bin, 'notevox'), args, { cwd: work, env, extendEnv: false, input, reject: false, timeout: 60_000 });
    return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  it('has no node on its PATH', async () => {
    const r = await execa(bash, ['-c', 'command -v node || echo none'], { env, extendEnv: false });
    expect(r.stdout).toBe('none');
  });

  it('runs every command with nothing around it: version, help, sandbox, login, notes, voice upload, wm import, completion', { timeout: 120_000 }, async () => {
    const version = await notevox(['--version']);
    expect(version).toMatchObject({ exitCode: 0, stdout: `notevox ${pkg.version}` });
    const verbose = await notevox(['--version', '--verbose']);
    expect(verbose.stdout).toMatch(/^node v\d+\.\d+\.\d+ .*built into this executable$/m);
    expect(verbose.stdout).toContain(`installed at ${join(bin, 'notevox')}`);
    const help = await notevox(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^Usage: notevox \[options\] \[command\]/);
    expect(help.stdout).toContain('doctor');
    // The help files of the build are assets: the same text as the launcher prints.
    for (const form of [['--help'], ['wm', 'import', '--help'], ['help', 'doctor'], ['help', 'exit-codes']]) {
      const launcher = await execa(process.execPath, [join(root, 'bin', 'notevox.js'), ...form], { env, extendEnv: false, reject: false });
      expect((await notevox(form)).stdout, form.join(' ')).toBe(String(launcher.stdout));
    }

    copyFileSync(join(root, 'samples', 'hello.wav'), join(work, 'hello.wav'));
    const sb = await runInstalledScenario({
      command: join(bin, 'notevox'),
      notevox,
      cwd: work,
      env,
      wav: 'hello.wav',
      bash,
      async more({ notes }) {
        // A write's answer is checked against docs/openapi.json, which the executable carries.
        const renamed = await notevox(['notes', 'rename', notes[0].guid, 'Renamed by the executable', '-o', 'json']);
        expect(renamed.exitCode, renamed.stderr).toBe(0);

        const doctor = await notevox(['doctor', '-o', 'json']);
        const checks = JSON.parse(doctor.stdout) as Array<{ check: string; verdict: string; found: string }>;
        expect(checks.find((c) => c.check === 'node')).toMatchObject({ verdict: 'ok', found: expect.stringContaining('the notevox executable, built with Node.js') });
        expect(checks.filter((c) => c.verdict === 'fail')).toEqual([]);
      },
    });
    // Node 22's node:sqlite warning is filtered; nothing else is printed on stderr by the sandbox but its start line.
    expect(sb.stderr()).not.toMatch(/ExperimentalWarning|Cannot find module/);
  });
});
