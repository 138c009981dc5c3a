import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runInstalledScenario } from '../helpers/installed-scenario.js';

/**
 * The package as a user gets it: `npm pack`, a global install of the tarball into a throw-away prefix (runtime
 * dependencies only, from the registry or npm's cache), then `notevox` found on PATH and run from another
 * directory with a fresh HOME against its own sandbox. This runs on whichever Node runs the tests, so
 * `.ci/run` covers it on Node 20, 22 and 24.
 */

const ROOT = resolve(dirname(BIN), '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; devDependencies: Record<string, string> };

/** The environment of a user's shell: no npm lifecycle variables from `npm test` around this run. */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))) as Record<string, string>;

let dir: string;
let prefix: string;
let home: string;
let work: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'notevox-install-')));
  prefix = join(dir, 'prefix');
  home = join(dir, 'home');
  work = join(dir, 'work');
  for (const d of [home, work, join(work, 'samples')]) mkdirSync(d, { recursive: true });
  // The dist/ that `npm test` has just built; --ignore-scripts so that packing does not rebuild it under the other tests.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, env: userEnv, encoding: 'utf8' })) as Array<{ filename: string }>;
  const tarball = join(dir, packed[0].filename);
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: dir,
    env: userEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A fresh user: nothing of notevox's configuration, the installed bin first on PATH, then this Node.
  env = { PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'), HOME: home, LANG: 'C.UTF-8' };
  copyFileSync(join(ROOT, 'samples', 'hello.wav'), join(work, 'samples', 'hello.wav'));
}, 300_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const notevox = (args: string[], input?: string) => execa('notevox', args, { cwd: work, env, extendEnv: false, input, reject: false, timeout: 60_000 });

describe('npm pack, then a global install', () => {
  it('installs notevox on PATH with its runtime dependencies and none of its development ones', () => {
    const installed = join(prefix, 'lib', 'node_modules', pkg.name);
    expect(realpathSync(join(prefix, 'bin', 'notevox'))).toBe(join(installed, 'bin', 'notevox.js'));
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'bin', 'completions', 'dist', 'docs', 'node_modules', 'package.json']);
    const deps = readdirSync(join(installed, 'node_modules'));
    expect(deps).toContain('hono');
    // What the bundle contains, and the tools that build and test it (some devDependencies, such as ajv, are
    // also dependencies of a runtime dependency and rightly installed).
    // `node` too: the project's own Node for development; users bring theirs (engines: >=22.13).
    for (const dev of ['commander', 'undici', 'zod', 'esbuild', 'typescript', 'tsx', 'vitest', 'oxlint', 'node']) {
      expect(pkg.devDependencies[dev], dev).toBeDefined();
      expect(deps, dev).not.toContain(dev);
    }
  });

  it('runs from another directory with a fresh HOME: version, sandbox, login, notes, voice upload, wm import, bash completion', { timeout: 120_000 }, async () => {
    const version = await notevox(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toBe(`notevox ${pkg.version}`);
    const verbose = await notevox(['--version', '--verbose']);
    expect(verbose.stdout).toContain(`node ${process.version}`);
    expect(verbose.stdout).toContain(`installed at ${join(prefix, 'lib', 'node_modules', pkg.name)}/`);

    await runInstalledScenario({
      command: 'notevox',
      notevox: async (args, input) => {
        const r = await notevox(args, input);
        return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
      },
      cwd: work,
      env,
      wav: 'samples/hello.wav',
      bash: 'bash',
    });
    // Nothing was written into the working directory but the CSV (the import's journal lives in the config dir).
    expect(readdirSync(work).sort()).toEqual(['samples', 'terms.csv']);
    expect(existsSync(join(home, '.config', 'notevox'))).toBe(true);
  });
});
