import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { createMemoryIO } from '../../src/io/memory.js';
import { buildProgram, commandIndex, firstOperand, root, type CommandIndex } from '../../src/program.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { K } from '../helpers/expect.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/** Every command path below `cmd`, e.g. `notes documents get`. */
const paths = (cmd: Command, prefix = ''): string[] => cmd.commands.flatMap((c) => [prefix + c.name(), ...paths(c, `${prefix}${c.name()} `)]);

describe('registering only the groups on the command line (a start-up shortcut)', () => {
  const full = buildProgram().program;

  it('leaves the top-level help exactly as it is with the whole tree', () => {
    expect(buildProgram({ wants: () => false }).program.helpInformation()).toBe(full.helpInformation());
  });

  it('skips the sub-commands of the other groups', () => {
    const onlyNotes = buildProgram({ wants: (g) => g === 'notes' }).program;
    expect(paths(onlyNotes).length).toBeLessThan(paths(full).length);
    expect(onlyNotes.commands.find((c) => c.name() === 'wm')!.commands).toEqual([]);
  });

  it.each(full.commands.map((c) => c.name()))('%s: the group named on the command line has its whole subtree and help', (name) => {
    const program = buildProgram({ wants: (g) => g === name }).program;
    const mine = program.commands.find((c) => c.name() === name)!;
    const theirs = full.commands.find((c) => c.name() === name)!;
    expect(paths(mine)).toEqual(paths(theirs));
    expect(mine.helpInformation()).toBe(theirs.helpInformation());
  });
});

describe('registering only the invoked command (the build\'s command index, dist/command-index.json)', () => {
  const full = buildProgram().program;
  const index = commandIndex();

  it('names every top-level command and alias but help, each by the registration that adds it', () => {
    const names = full.commands.filter((c) => c.name() !== 'help').flatMap((c) => [c.name(), ...c.aliases()]);
    expect(Object.keys(index.commands).sort()).toEqual(names.sort());
    for (const [name, i] of Object.entries(index.commands)) {
      const program = buildProgram({ index, argv: [name] }).program;
      expect(program.commands.map((c) => c.name()), name).toContain(full.commands.find((c) => c.name() === name || c.aliases().includes(name))!.name());
      expect(program.commands.every((c) => c.name() === 'help' || index.commands[c.name()] === i), name).toBe(true);
    }
  });

  it.each(full.commands.filter((c) => c.name() !== 'help').map((c) => c.name()))('%s: built alone, its subtree and help are those of the whole tree', (name) => {
    const program = buildProgram({ index, argv: ['--profile', 'p', name], wants: (g) => g === name }).program;
    const mine = program.commands.find((c) => c.name() === name)!;
    const theirs = full.commands.find((c) => c.name() === name)!;
    expect(paths(mine)).toEqual(paths(theirs));
    expect(mine.helpInformation()).toBe(theirs.helpInformation());
    expect(program.commands.length).toBeLessThan(full.commands.length);
  });

  const built = fileURLToPath(new URL('../../dist/command-index.json', import.meta.url));
  it.skipIf(!existsSync(built))('the build wrote this index', () => {
    expect(JSON.parse(readFileSync(built, 'utf8'))).toEqual(index);
  });

  it('finds the first operand past the root options, or says it cannot be sure', () => {
    const program = root();
    expect(firstOperand(program, ['notes', 'get', 'x'])).toBe('notes');
    expect(firstOperand(program, ['--profile', 'p', '-o', 'json', '--debug', '--no-color', 'notes'])).toBe('notes');
    expect(firstOperand(program, ['--output=json', '-ojson', '--json', 'wm', 'list'])).toBe('wm');
    expect(firstOperand(program, ['--', 'notes'])).toBeUndefined();
    expect(firstOperand(program, ['--nosuch', 'notes'])).toBeUndefined();
    expect(firstOperand(program, ['--debug=1', 'notes'])).toBeUndefined();
    expect(firstOperand(program, ['--profile'])).toBeUndefined();
    expect(firstOperand(program, [])).toBeUndefined();
  });

  it('anything else builds the whole tree (a mistyped or unknown command, help, options the root does not know)', () => {
    for (const argv of [['nots'], ['help', 'notes'], ['--bogus', 'notes'], ['--', 'notes'], []]) expect(buildProgram({ index, argv }).program.commands.length, argv.join(' ')).toBe(full.commands.length);
  });

  it.each(paths(full).filter((p) => !p.startsWith('help')))('%s: built for its command line, it is there with the help and flags of the whole tree', (path) => {
    const words = path.split(' ');
    const program = buildProgram({ index, argv: [...words, '--help'], wants: (g) => g === words[0] }).program;
    const find = (from: Command) => words.reduce<Command | undefined>((c, w) => c?.commands.find((x) => x.name() === w), from);
    const mine = find(program as unknown as Command)!;
    const theirs = find(full as unknown as Command)!;
    expect(mine, path).toBeDefined();
    expect(mine.helpInformation()).toBe(theirs.helpInformation());
    expect(mine.options.map((o) => o.flags)).toEqual(theirs.options.map((o) => o.flags));
    expect(paths(mine)).toEqual(paths(theirs));
  });

  it('makes no other command of the group named on the command line', () => {
    const program = buildProgram({ index, argv: ['notes', 'get', 'nt1'], wants: (g) => g === 'notes' }).program;
    const notes = program.commands.find((c) => c.name() === 'notes')!;
    expect(notes.commands.map((c) => c.name())).toEqual(expect.arrayContaining(['get']));
    expect(notes.commands.map((c) => c.name())).not.toContain('list');
    // Nor the commands of its sub-groups (notes documents …).
    expect(paths(notes).filter((p) => p.split(' ').length > 1)).toEqual([]);
    // A word that is no sub-command of the group (a typo, a mistake): all are made, for the error and its hint.
    const all = buildProgram({ index, argv: ['notes', 'gte'], wants: (g) => g === 'notes' }).program.commands.find((c) => c.name() === 'notes')!;
    expect(paths(all)).toEqual(paths(full.commands.find((c) => c.name() === 'notes')!));
  });

  const run = async (argv: string[], commandIndex: CommandIndex | null) => {
    const mem = createMemoryIO();
    const dir = mkdtempSync(join(tmpdir(), 'notevox-index-'));
    try {
      const code = await main(argv, { io: () => mem.io, env: { NOTEVOX_CONFIG_DIR: dir, NO_COLOR: '1' }, commandIndex });
      return { code, stdout: mem.stdout(), stderr: mem.stderr() };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it.each([[['notes', '--help']], [['notes', 'gte']], [['notes', 'get']], [['notes', 'get', '--help']], [['notes', 'documents', 'get', 'x', '--format', 'nope']], [['notes', 'get', 'x', '--bogus']], [['--profile', 'p', 'wm', 'list', '--help']], [['nots']], [['config', 'list', '-o', 'json']], [['org', '--help']]])(
    'main answers %j with the index exactly as with the whole tree',
    async (argv) => {
      expect(await run(argv, index)).toEqual(await run(argv, null));
    },
  );
});

describe('zod stays out of the start-up of commands that do not check an answer (build/meta.json, written by npm run build)', () => {
  type Meta = { outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, unknown> }> };
  const metaFile = fileURLToPath(new URL('../../build/meta.json', import.meta.url));
  const meta = (): Meta => {
    if (!existsSync(metaFile)) throw new Error('build/meta.json is missing: run `npm run build` first (npm test does)');
    return JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
  };
  /** The output file that bundles `source`. */
  const outputOf = (m: Meta, source: string) => {
    const found = Object.entries(m.outputs).find(([file, o]) => !file.endsWith('.map') && source in o.inputs);
    if (!found) throw new Error(`no output bundles ${source}`);
    return found[0];
  };
  /** Every package whose code is loaded, statically, with `file` (import() not followed). */
  const packagesLoadedWith = (m: Meta, file: string, seen = new Set<string>(), out = new Set<string>()) => {
    if (seen.has(file)) return out;
    seen.add(file);
    const o = m.outputs[file];
    for (const input of Object.keys(o.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (pkg) out.add(pkg);
    }
    for (const imp of o.imports.filter((i) => i.kind === 'import-statement')) {
      if (imp.external) out.add(imp.path.replace(/^((?:@[^/]+\/)?[^/]+).*$/, '$1'));
      else packagesLoadedWith(m, imp.path, seen, out);
    }
    return out;
  };

  it.each(['src/cli.ts', 'src/context.ts', 'src/client/client.ts', 'src/commands/notes/read.ts', 'src/commands/auth/run.ts', 'src/commands/wm/import.ts', 'src/contract/answers.ts'])('%s loads no zod', (source) => {
    const m = meta();
    expect([...packagesLoadedWith(m, outputOf(m, source))]).not.toContain('zod');
  });

  it('what every API command loads after start-up is one chunk, not a file per module (the build re-chunks with Rollup)', () => {
    const m = meta();
    const core = outputOf(m, 'src/client/client.ts');
    for (const source of ['src/config/store.ts', 'src/config/resolve.ts', 'src/config/baseurl.ts', 'src/contract/endpoints.ts', 'src/io/render.ts', 'src/client/node-transport.ts'])
      expect(outputOf(m, source), source).toBe(core);
    // The entry and what it imports statically: a handful of files, where esbuild alone made it dozens.
    const staticClosure = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      for (const imp of m.outputs[file].imports) if (imp.kind === 'import-statement' && !imp.external) staticClosure(imp.path, seen);
      return seen;
    };
    expect(staticClosure('dist/cli.js').size).toBeLessThanOrEqual(4);
    // No ES import of node:http(s) at start-up: on Node ≥ 22 it reads the module's `WebSocket` getter, which loads
    // Node's own undici into every command (the test below sees that on Node 22 and 24 only).
    const esmHttp = [...staticClosure('dist/cli.js')].flatMap((f) => m.outputs[f].imports.filter((i) => i.external && /^node:https?$/.test(i.path)).map((i) => `${f} imports ${i.path}`));
    expect(esmHttp).toEqual([]);
  });

  it('the answer check (loaded on the first write) reads docs/openapi.json from a chunk two directories below the package, as from src/contract', () => {
    const m = meta();
    expect(outputOf(m, 'src/contract/answers.ts')).toMatch(/^dist\/chunks\/[^/]+\.js$/);
    expect(outputOf(m, 'src/contract/response-check.ts')).toMatch(/^dist\/chunks\/[^/]+\.js$/);
    // while --debug's response check (src/client/client.ts) still brings zod, and the schemas, when asked for
    expect([...packagesLoadedWith(m, outputOf(m, 'src/contract/endpoint-schemas.ts'))]).toContain('zod');
  });

  it('the zod it brings is only what the contract uses: no locale but English (zod is imported as a namespace, `import * as z`)', () => {
    // `import { z }` (zod's namespace object) or `z.core.…` keeps all of zod and its ~40 locales in the bundle:
    // 600 kB that auth login, auth status and every checked write compile at each start.
    const m = meta();
    const zodFiles = Object.values(m.outputs).flatMap((o) => Object.keys(o.inputs).filter((i) => i.includes('node_modules/zod/')));
    expect(zodFiles).toContain('node_modules/zod/v4/locales/en.js');
    expect(zodFiles.filter((i) => i.includes('/locales/') && !i.endsWith('/locales/en.js'))).toEqual([]);
  });
});

/** A preload (for NODE_OPTIONS=--require) in `dir` that writes, at exit, the modules Node loaded to stderr (loadedModules). */
function moduleListPreload(dir: string): string {
  const preload = join(dir, 'loaded.cjs');
  writeFileSync(preload, "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));");
  return preload;
}

/** The modules a process run with moduleListPreload loaded, from its stderr. */
const loadedModules = (stderr: string): string[] => JSON.parse(/^LOADED (.*)$/m.exec(stderr)![1]) as string[];

describe('what `notes get` loads besides Node itself (the built CLI, stdio as pipes)', () => {
  // commander requires child_process at the top of its command module; the build gives bundled code a lazy
  // node:child_process (scripts/build.mjs, LAZY_BUILTINS), loaded only if something spawns.
  it('neither child_process (loaded when used) nor v8 (set when undici loads) nor undici, nor tty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-startup-'));
    const preload = moduleListPreload(dir);
    // A whole note: the answer of a read is checked against the contract too (issue 25 item 10).
    const note = {
      guid: 'ntStartupTest',
      title: 'start-up',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      sourceType: 'text',
      recordingStartAt: null,
      recordingEndAt: null,
      recordingDurationSeconds: 0,
      transcribeLocale: null,
      translateLocale: null,
      webUrl: 'https://notes.example/ntStartupTest',
      collaborators: [],
      participants: [],
      workspaceGuid: null,
    };
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(note)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runCli(['notes', 'get', 'ntStartupTest', '-o', 'json'], { baseUrl, key: K.admin, env: { NODE_OPTIONS: `--require ${preload}` } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ guid: 'ntStartupTest' });
      const loaded = loadedModules(r.stderr);
      expect(loaded).toContain('NativeModule http'); // the list is the real one
      expect(loaded.filter((m) => /^NativeModule (child_process|v8|dgram)$|undici/.test(m))).toEqual([]);
      // Nor node:tty: whether stdin and stderr are terminals is asked when it matters, and stdout (a pipe) is not one.
      expect(loaded.filter((m) => /tty/.test(m))).toEqual([]);
      // Nor node:module (and the source-map code it loads): the require functions of io/text.ts and io/render.ts
      // for their packages are made, with it, on first use.
      expect(loaded.filter((m) => /^NativeModule (module|internal\/source_map\/source_map)$/.test(m))).toEqual([]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what `voice upload --no-wait` loads besides Node itself (the built CLI against a sandbox)', () => {
  it('no node:fs/promises (and the readline, REPL history and node:os it brings): its preflight and upload read synchronously', async () => {
    const sb = await startTestSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'notevox-startup-'));
    const preload = moduleListPreload(dir);
    try {
      const sample = join(import.meta.dirname, '..', '..', 'samples', 'hello.wav');
      const r = await runCli(['voice', 'upload', sample, '--no-wait'], { baseUrl: sb.baseUrl, key: DEMO_KEYS.workspaceKey.token, configDir: dir, env: { NODE_OPTIONS: `--require ${preload}` } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/^[\da-f-]{36}$/);
      const loaded = loadedModules(r.stderr);
      expect(loaded).toContain('NativeModule http'); // the list is the real one
      expect(loaded.filter((m) => /^NativeModule (fs\/promises|internal\/fs\/promises|internal\/readline\/interface|internal\/repl\/history|os)$/.test(m))).toEqual([]);
    } finally {
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what `auth login` and a write load (the built CLI against a sandbox): no zod, whose answer check they used to load', () => {
  // zod's core sets globalThis.__zod_globalConfig when it loads; a preload reports it as the process exits.
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  let dir: string;
  let preload: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    dir = mkdtempSync(join(tmpdir(), 'notevox-startup-'));
    preload = join(dir, 'zod.cjs');
    writeFileSync(preload, "process.on('exit', () => process.stderr.write('\\nZOD ' + ('__zod_globalConfig' in globalThis) + '\\n'));");
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (args: string[], input?: string) =>
    runCli(args, { baseUrl: sb.baseUrl, key: input ? undefined : K.admin, configDir: dir, input, env: { NODE_OPTIONS: `--require ${preload}` } });
  const zodLoaded = (stderr: string) => /^ZOD (true|false)$/m.exec(stderr)?.[1];

  it('auth login --with-key checks auth/me and scopes without zod', async () => {
    const r = await run(['auth', 'login', '--with-key', '--profile', 'startup'], K.admin);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(zodLoaded(r.stderr)).toBe('false');
  });

  it('a write (folders create) checks its answer without zod; with --debug the opt-in check loads it (the probe works)', async () => {
    const r = await run(['folders', 'create', 'Startup probe', '--workspace', 'Sales', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(zodLoaded(r.stderr)).toBe('false');
    const debug = await run(['folders', 'create', 'Startup probe (debug)', '--workspace', 'Sales', '-o', 'json', '--debug']);
    expect(debug.exitCode, debug.stderr).toBe(0);
    expect(zodLoaded(debug.stderr)).toBe('true');
  });
});

describe('what `sandbox start` loads before it listens (the built CLI)', () => {
  it('no zod: the request schemas are built after the listening line (validation-load.ts), not by a module the start imports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-startup-'));
    // zod's core sets globalThis.__zod_globalConfig when it loads; the preload looks when the first line reaches stdout.
    const preload = join(dir, 'zod-at-listen.cjs');
    writeFileSync(
      preload,
      "const write = process.stdout.write.bind(process.stdout); let first = true; process.stdout.write = (...a) => { if (first) { first = false; process.stderr.write('\\nZOD ' + ('__zod_globalConfig' in globalThis) + '\\n'); } return write(...a); };",
    );
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json'], {
      env: { ...(cliEnv({ configDir: dir }) as Record<string, string>), NODE_OPTIONS: `--require ${preload}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const listening = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}: ${stderr}`)));
      });
      expect(JSON.parse(listening.split('\n')[0])).toHaveProperty('baseUrl'); // it listened
      await new Promise((r) => setTimeout(r, 50));
      expect(/^ZOD (true|false)$/m.exec(stderr)?.[1], stderr).toBe('false');
    } finally {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
