import { execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { spawnSandboxProcess } from '../helpers/sandbox-process.js';

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
let sandbox: ChildProcess | undefined;

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
  sandbox?.kill('SIGKILL');
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

    const sb = await spawnSandboxProcess('notevox', { cwd: work, env });
    sandbox = sb.child;
    const { started, exited } = sb;
    expect(started.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Priya's account key made for the Product Team workspace: notes, voice jobs (in that workspace) and her word memories.
    const key = started.keys.find((k) => k.id === 'nvk_user_bound_product')!.key;

    const login = await notevox(['auth', 'login', '--with-key', '--base-url', started.baseUrl], key + '\n');
    expect(login.exitCode, login.stderr).toBe(0);
    const config = join(home, '.config', 'notevox', 'config.json');
    expect(login.stderr).toContain(config);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(login.stdout + login.stderr).not.toContain(key.split('.')[1]);

    const notes = await notevox(['notes', 'list', '-o', 'json']);
    expect(notes.exitCode, notes.stderr).toBe(0);
    const list = JSON.parse(notes.stdout) as Array<{ guid: string; title: string }>;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((n) => typeof n.guid === 'string' && typeof n.title === 'string')).toBe(true);

    const voice = await notevox(['voice', 'upload', 'samples/hello.wav']);
    expect(voice.exitCode, voice.stderr).toBe(0);
    expect(voice.stderr).toMatch(/Uploaded hello\.wav/);
    expect(voice.stderr).toMatch(/COMPLETED/);
    expect(voice.stdout).toContain('[sandbox transcript 00:00:00');

    writeFileSync(join(work, 'terms.csv'), 'entry,subEntry\nQuillfeather,QF\nNotevoxium,\n');
    const imported = await notevox(['wm', 'import', 'terms.csv', '-o', 'json']);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ rows: 2, created: 2, failed: 0, rejected: 0 });
    const words = await notevox(['wm', 'list', '--all', '-o', 'json']);
    expect(words.exitCode).toBe(0);
    expect((JSON.parse(words.stdout) as Array<{ entry: string; subEntry: string | null }>).filter((w) => w.entry === 'Quillfeather' || w.entry === 'Notevoxium')).toEqual([
      expect.objectContaining({ entry: 'Quillfeather', subEntry: 'QF' }),
      expect.objectContaining({ entry: 'Notevoxium', subEntry: null }),
    ]);

    // Completions as docs/completions.md installs them for bash (the line for ~/.bashrc), from the installed notevox.
    const line = 'source <(notevox completion bash); COMP_WORDS=(notevox notes li); COMP_CWORD=2; _notevox; printf "%s\\n" "${COMPREPLY[@]}"';
    const completed = await execa('bash', ['-c', line], { cwd: work, env, extendEnv: false, reject: false });
    expect(completed.exitCode, completed.stderr).toBe(0);
    expect(completed.stdout.split('\n')).toEqual(['list']);

    sandbox.kill('SIGTERM');
    expect(await exited).toBe(0);
    sandbox = undefined;
    // Nothing was written into the working directory but the CSV (the import's journal lives in the config dir).
    expect(readdirSync(work).sort()).toEqual(['samples', 'terms.csv']);
    expect(existsSync(join(home, '.config', 'notevox'))).toBe(true);
  });
});
