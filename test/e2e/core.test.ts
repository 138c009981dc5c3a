import { expectNoSecrets } from '../helpers/expect.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandIndexFile } from '../../src/cli.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { BIN, runCli, spawnCli, tempConfigDir } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * What needs the built binary: start-up, pseudo-terminals (prompts, colour on a terminal), Ctrl-C, and a few exit
 * codes of the real process. The rest of the core is tested in-process: test/cmd/core.test.ts.
 */

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
const ADMIN = DEMO_KEYS.admin.token;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('auth', () => {
  it('needs --with-key when it cannot prompt (exit 10 naming the flag)', async () => {
    const r = await runCli(['auth', 'login', '--base-url', sb.baseUrl]);
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain('--with-key');
  });

  it('prompts for the key with a masked input on a terminal', async () => {
    const cfg = tempConfigDir();
    try {
      const r = await runInPty(['auth', 'login', '--base-url', sb.baseUrl, '--profile', 'tty'], [[/API key/, ADMIN + '\r']], { NOTEVOX_CONFIG_DIR: cfg.dir });
      expect(r.exitCode, r.screen).toBe(0);
      expect(r.screen).toContain('Logged in');
      expectNoSecrets(r.screen);
      const profiles = await runCli(['profile', 'list', '--json'], { configDir: cfg.dir });
      expect(JSON.parse(profiles.stdout)).toEqual([expect.objectContaining({ name: 'tty', current: true, hasKey: true })]);
    } finally {
      cfg.cleanup();
    }
  });

  it('first login on a terminal with no base URL: asks for it first, checks it answers, then the key; a new profile says it became current (issue 13 item 6)', async () => {
    const cfg = tempConfigDir();
    try {
      // An address nothing listens on: refused before the key is asked for.
      const down = await runInPty(
        ['auth', 'login'],
        [
          [/Which service do you log in to\?/, '\x1b[A\r'],
          [/Base URL/, 'http://127.0.0.1:9\r'],
        ],
        { NOTEVOX_CONFIG_DIR: cfg.dir, NOTEVOX_BASE_URL: undefined, NOTEVOX_API_KEY: undefined },
      );
      expect(down.exitCode, down.screen).toBe(8);
      expect(down.screen).not.toContain('Paste your API key');
      expect(down.screen).toContain('Is `notevox sandbox start` running?');
      const first = await runInPty(
        ['auth', 'login'],
        [
          [/Which service do you log in to\?/, '\x1b[A\r'],
          [/Base URL/, `${sb.baseUrl}\r`],
          [/Paste your API key/, ADMIN + '\r'],
        ],
        { NOTEVOX_CONFIG_DIR: cfg.dir, NOTEVOX_BASE_URL: undefined, NOTEVOX_API_KEY: undefined },
      );
      expect(first.exitCode, first.screen).toBe(0);
      expect(first.screen).toContain(`Logged in to ${sb.baseUrl}`);
      // A second profile: it becomes current, and says how to go back
      const second = await runInPty(['auth', 'login', '--profile', 'second', '--base-url', sb.baseUrl], [[/Paste your API key/, ADMIN + '\r']], { NOTEVOX_CONFIG_DIR: cfg.dir });
      expect(second.exitCode, second.screen).toBe(0);
      expect(second.screen.replace(/\s+/g, ' ')).toContain('Profile "second" is now the current profile (it was "default": `notevox auth switch default` goes back).');
    } finally {
      cfg.cleanup();
    }
  }, 60_000);

});

describe('startup and help', () => {
  it('answers --version, help exit-codes and completion scripts', async () => {
    const v = await runCli(['--version']);
    expect(v.stdout).toMatch(/^notevox \d+\.\d+\.\d+/);
    const codes = await runCli(['help', 'exit-codes']);
    expect(codes.stdout).toMatch(/10\s+input was needed/);
    const bash = await runCli(['completion', 'bash']);
    expect(bash.stdout).toMatch(/complete .*-F _notevox notevox/);
    const help = await runCli(['notes', 'list', '--help']);
    expect(help.stdout).toContain('Examples:');
  });
});

describe('colour', () => {
  it('a terminal gets colour and relative times unless TERM=dumb', async () => {
    const env = { NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: ADMIN, NO_COLOR: undefined, NOTEVOX_CONFIG_DIR: '/nonexistent/notevox-test' };
    const xterm = await runInPty(['notes', 'list', '--limit', '2'], [], env, 30_000, { keepEscapes: true });
    expect(xterm.exitCode, xterm.screen).toBe(0);
    expect(xterm.screen).toContain('\u001b[1mGUID');
    expect(xterm.screen).toMatch(/ ago/);
    const dumb = await runInPty(['notes', 'list', '--limit', '2'], [], { ...env, TERM: 'dumb' }, 30_000, { keepEscapes: true });
    expect(dumb.screen).toMatch(/GUID\s+TITLE/);
    expect(dumb.screen).not.toContain('\u001b[');
  });
});

describe('prompting rules', () => {
  it('--no-input, or CI, on a terminal: exit 10 naming the flag, and nothing asked', async () => {
    const cfg = tempConfigDir();
    try {
      for (const [args, env] of [
        [['--no-input'], {}],
        [[], { CI: 'true' }],
      ] as const) {
        const r = await runInPty(['auth', 'login', '--base-url', sb.baseUrl, ...args], [], { NOTEVOX_CONFIG_DIR: cfg.dir, ...env });
        expect(r.exitCode, r.screen).toBe(10);
        expect(r.screen).toContain('--with-key');
        expect(r.screen).not.toContain('Paste your API key');
      }
      expect(readdirSync(cfg.dir)).toEqual([]);
    } finally {
      cfg.cleanup();
    }
  });
});

describe('every exit code this core can produce', () => {
  it('2 as a JSON object on stderr with --json, also for a usage error found by the parser', async () => {
    const r = await runCli(['notes', 'list', '--bogus', '--json'], { baseUrl: sb.baseUrl, key: ADMIN });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({ error: { exitCode: 2, errorType: null, code: null, message: "unknown option '--bogus'", hint: expect.any(String) } });
    const human = await runCli(['notes', 'list', '--bogus'], { baseUrl: sb.baseUrl, key: ADMIN });
    expect(human.stderr.trim().split('\n')).toEqual(["error: unknown option '--bogus'", expect.stringMatching(/^hint: /)]);
  });

  it('130: Ctrl-C while waiting to retry', async () => {
    const down = await startTestSandbox({ faults: '503=1' });
    try {
      const child = spawnCli(['notes', 'list', '--max-retries', '10'], { baseUrl: down.baseUrl, key: ADMIN });
      let stderr = '';
      await new Promise<void>((resolveWait, reject) => {
        const t = setTimeout(() => reject(new Error(`no retry notice; stderr: ${stderr}`)), 20_000);
        child.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('retrying')) {
            clearTimeout(t);
            resolveWait();
          }
        });
      });
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toMatch(/interrupted/);
    } finally {
      await down.close();
    }
  });
});

describe('startup', () => {
  it('--version needs neither the bundle nor any dependency', async () => {
    const dir = tempConfigDir();
    try {
      mkdirSync(join(dir.dir, 'bin'));
      copyFileSync(BIN, join(dir.dir, 'bin', 'notevox.js'));
      copyFileSync(join(dirname(BIN), 'package.json'), join(dir.dir, 'bin', 'package.json')); // the launcher is CommonJS
      copyFileSync(resolve(dirname(BIN), '..', 'package.json'), join(dir.dir, 'package.json'));
      const { execa } = await import('execa');
      const r = await execa(process.execPath, [join(dir.dir, 'bin', 'notevox.js'), '--version'], { reject: false });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stdout)).toMatch(/^notevox \d+\.\d+\.\d+$/);
    } finally {
      dir.cleanup();
    }
  });

  it('the built CLI finds the command index the build wrote (dist/command-index.json), wherever src/cli.ts was bundled', () => {
    const meta = JSON.parse(readFileSync(resolve(dirname(BIN), '..', 'build', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const out = Object.keys(meta.outputs).find((o) => 'src/cli.ts' in meta.outputs[o].inputs)!;
    const file = commandIndexFile(pathToFileURL(resolve(dirname(BIN), '..', out)).href);
    expect(fileURLToPath(file)).toBe(resolve(dirname(BIN), '..', 'dist', 'command-index.json'));
    expect(existsSync(file)).toBe(true);
  });

  it('the built entry loads only Node built-ins up front; commander (for a command line the fast path leaves), undici, zod, tables, spinners and prompts load when used', () => {
    // esbuild's metafile (written by build.mjs, outside dist/ so that it is not packaged) says what each output file bundles and imports.
    const meta = JSON.parse(readFileSync(resolve(dirname(BIN), '..', 'build', 'meta.json'), 'utf8')) as {
      outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, unknown> }>;
    };
    const external = new Set<string>();
    const seen = new Set<string>();
    const bundledHeavy = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const out = meta.outputs[file];
      for (const input of Object.keys(out.inputs)) {
        const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
        if (m) bundledHeavy.add(m[1]);
      }
      // Static imports only (`import-statement`), not `import()`.
      for (const imp of out.imports.filter((i) => i.kind === 'import-statement')) {
        if (imp.external) external.add(imp.path.replace(/^((?:@[^/]+\/)?[^/]+).*$/, '$1'));
        else walk(imp.path);
      }
    };
    walk('dist/cli.js');
    // No package is a static import or bundled code of what loads up front: commander comes with src/cli-program.ts,
    // imported when the fast path (src/fast-path.ts) leaves the command line to it.
    expect([...external].filter((e) => !e.startsWith('node:'))).toEqual([]);
    expect([...bundledHeavy].sort()).toEqual([]);
    expect(seen.size).toBeGreaterThan(1);
  });
});
