// The launcher's hot bundle (scripts/build.mjs, src/hot.ts, bin/notevox.js loadHot): the fast path's commands run
// from one CommonJS file with a V8 code cache of its own. The built CLI as a user runs it: the same answers as the
// whole bundle gives, the cache written once and then read, commander's answers for what the fast path does not
// take, and the code left in the ES chunks (undici through a proxy, the schemas of --debug) loaded from there.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

const ADMIN = DEMO_KEYS.admin.token;
const WORKSPACE_KEY = DEMO_KEYS.workspaceKey.token;
const SAMPLE = join(import.meta.dirname, '..', '..', 'samples', 'hello.wav');
const GUID = DEMO_NOTES.launchKickoff;
const DIST = join(import.meta.dirname, '..', '..', 'dist');

const cfg = tempConfigDir();
let sb: Awaited<ReturnType<typeof startTestSandbox>>;
let cacheRoot: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  cacheRoot = mkdtempSync(join(tmpdir(), 'notevox-hot-cache-'));
});
afterAll(async () => {
  await sb?.close();
  cfg.cleanup();
  rmSync(cacheRoot, { recursive: true, force: true });
});

let runs = 0;
/** A cache directory of its own per test. */
const freshCache = () => join(cacheRoot, String(runs++));
const run = (args: string[], cacheDir: string, env: Record<string, string | undefined> = {}) =>
  runCli(args, { baseUrl: sb.baseUrl, key: ADMIN, configDir: cfg.dir, env: { NOTEVOX_CACHE_DIR: cacheDir, ...env } });
const hotCaches = (cacheDir: string) => {
  const dir = join(cacheDir, 'compile-cache');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.v8cache')) : [];
};

describe('the hot bundle', () => {
  it('is named by dist/hot.json with the commands of the fast path', () => {
    const hot = JSON.parse(readFileSync(join(DIST, 'hot.json'), 'utf8')) as { file: string; commands: string[][] };
    expect(hot.file).toMatch(/^chunks\/hot-[\w-]+\.cjs$/);
    expect(existsSync(join(DIST, hot.file))).toBe(true);
    expect(hot.commands).toContainEqual(['notes', 'get']);
  });

  it('leaves the whole endpoint table out: endpoint() builds the group of the id it looks up (src/contract/endpoints.ts)', () => {
    const hot = JSON.parse(readFileSync(join(DIST, 'hot.json'), 'utf8')) as { file: string };
    const code = readFileSync(join(DIST, hot.file), 'utf8');
    expect(code).toContain('"notes.get"');
    expect(code).not.toMatch(/\bENDPOINTS\s*=/);
  });

  it('notes get answers as the whole bundle does, and its code cache is written once, then read', async () => {
    const cache = freshCache();
    const first = await run(['notes', 'get', GUID, '-o', 'json'], cache);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ guid: GUID });
    const files = hotCaches(cache);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^hot-[\\w-]+-${process.version}-${process.arch}\\.v8cache$`));
    const written = statSync(join(cache, 'compile-cache', files[0])).mtimeMs;
    const second = await run(['notes', 'get', GUID, '-o', 'json'], cache);
    expect(second).toEqual(first);
    expect(statSync(join(cache, 'compile-cache', files[0])).mtimeMs).toBe(written);
    // `-ojson` (a short flag with its value attached) is not a form the fast path takes: commander parses it, in
    // dist/cli.js, and no hot cache is written for that run.
    const wholeCache = freshCache();
    const whole = await run(['notes', 'get', GUID, '-ojson'], wholeCache);
    expect(whole).toEqual(first);
    expect(hotCaches(wholeCache)).toEqual([]);
  });

  it('writing a cache removes stale caches of other builds and a killed writer\'s temporary file, not recent ones', async () => {
    const cache = freshCache();
    const dir = join(cache, 'compile-cache');
    mkdirSync(dir, { recursive: true });
    const old = Date.now() / 1000 - 30 * 24 * 3600;
    const stale = join(dir, 'hot-0ldbuild-v24.0.0-x64.v8cache');
    const staleTemp = join(dir, `hot-0ldbuild-v24.0.0-x64.v8cache.12345.tmp`);
    const recent = join(dir, 'hot-0therbuild-v22.13.0-x64.v8cache');
    const foreign = join(dir, 'not-ours.v8cache');
    for (const f of [stale, staleTemp, recent, foreign]) writeFileSync(f, 'x');
    for (const f of [stale, staleTemp, foreign]) utimesSync(f, old, old);
    const r = await run(['notes', 'get', GUID, '-o', 'json'], cache);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(staleTemp)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(hotCaches(cache)).toHaveLength(3); // this build's, the recent one, the foreign file
  });

  it('a cache file that is not V8 code cache is rejected by V8 and made again', async () => {
    const cache = freshCache();
    expect((await run(['notes', 'get', GUID, '-o', 'json'], cache)).exitCode).toBe(0);
    const file = join(cache, 'compile-cache', hotCaches(cache)[0]);
    writeFileSync(file, 'not a code cache');
    const r = await run(['notes', 'get', GUID, '-o', 'json'], cache);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it('a failed run (no key yet) leaves a partial cache, which the first run that succeeds replaces', async () => {
    const cache = freshCache();
    const failed = await runCli(['notes', 'get', GUID, '-o', 'json'], { baseUrl: sb.baseUrl, configDir: cfg.dir, env: { NOTEVOX_CACHE_DIR: cache } });
    expect(failed.exitCode).toBe(EXIT.UNAUTHENTICATED);
    expect(hotCaches(cache)).toEqual([expect.stringMatching(/\.partial\.v8cache$/)]);
    const again = await runCli(['notes', 'get', GUID, '-o', 'json'], { baseUrl: sb.baseUrl, configDir: cfg.dir, env: { NOTEVOX_CACHE_DIR: cache } });
    expect(again).toEqual(failed);
    expect((await run(['notes', 'get', GUID, '-o', 'json'], cache)).exitCode).toBe(0);
    expect(hotCaches(cache)).toEqual([expect.not.stringMatching(/partial/)]);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1: no cache written, same answer', async () => {
    const cache = freshCache();
    const r = await run(['notes', 'get', GUID, '-o', 'json'], cache, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ guid: GUID });
    expect(existsSync(cache)).toBe(false);
  });

  it('voice upload --no-wait runs from it with a code cache of its own, and answers as the whole bundle does', async () => {
    const cache = freshCache();
    const upload = (extra: string[]) =>
      runCli(['voice', 'upload', SAMPLE, '--no-wait', ...extra], { baseUrl: sb.baseUrl, key: WORKSPACE_KEY, configDir: cfg.dir, env: { NOTEVOX_CACHE_DIR: cache } });
    const hot = await upload([]);
    expect(hot.exitCode, hot.stderr).toBe(0);
    // The cache of notes get holds none of voice upload's code: each command has its own.
    expect(hotCaches(cache)).toEqual([expect.stringMatching(/^hot-[\w-]+-voice-upload-v[\d.]+-\w+\.v8cache$/)]);
    expect((await run(['notes', 'get', GUID, '-o', 'json'], cache)).exitCode).toBe(0);
    expect(hotCaches(cache).sort()).toEqual([expect.stringMatching(/-notes-get-/), expect.stringMatching(/-voice-upload-/)]);
    // A repeated flag is not a form the fast path takes: commander's path, in dist/cli.js.
    const whole = await upload(['--no-input', '--no-input']);
    expect(whole.exitCode, whole.stderr).toBe(0);
    const id = (r: { stdout: string }) => r.stdout.trim();
    expect(id(hot)).toMatch(/^[\da-f-]{36}$/);
    expect(id(whole)).toMatch(/^[\da-f-]{36}$/);
    const same = (r: { stdout: string; stderr: string }) => r.stderr.split(id(r)).join('<id>').replace(/ in [\d.]+ ?m?s\b/, ' in <t>');
    expect(same(hot)).toBe(same(whole));
    expect(hot.stderr).toMatch(/^✓ Created voice job|^Created voice job/);
    // A bad locale is commander's to report, in its words (exit 2).
    const bad = await upload(['--locale', 'english']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*--locale/);
  });

  it('a command line the fast path does not take gets commander’s answer from the whole bundle', async () => {
    const r = await run(['notes', 'get', 'not a guid'], freshCache());
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: /);
  });

  it('an error of the service is reported from the hot bundle as from the whole one (404: exit 5, one JSON object with -o json)', async () => {
    const missing = GUID.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x'));
    const hot = await run(['notes', 'get', missing, '-o', 'json'], freshCache());
    expect(hot.exitCode, hot.stderr).toBe(EXIT.NOT_FOUND);
    expect(JSON.parse(hot.stderr)).toMatchObject({ error: { exitCode: EXIT.NOT_FOUND, errorType: 'not_found' } });
    // `--` is not a form the fast path takes: commander's path, in dist/cli.js.
    expect(await run(['notes', 'get', '-o', 'json', '--', missing], freshCache())).toEqual(hot);
  });

  it("Node's own compile cache is turned on only when the hot bundle imports a module: not for notes get, for --debug's schemas", async () => {
    // Node's compile cache keeps its entries in a directory per Node version and flags beside the hot caches.
    const nodeCaches = (cacheDir: string) => readdirSync(join(cacheDir, 'compile-cache')).filter((f) => !f.endsWith('.v8cache'));
    const plain = freshCache();
    expect((await run(['notes', 'get', GUID, '-o', 'json'], plain)).exitCode).toBe(0);
    expect(hotCaches(plain)).toHaveLength(1);
    expect(nodeCaches(plain)).toEqual([]);
    const debug = freshCache();
    expect((await run(['notes', 'get', GUID, '-o', 'json', '--debug'], debug)).exitCode).toBe(0);
    expect(nodeCaches(debug).length).toBeGreaterThan(0);
  });

  it('--debug loads the response schemas from their chunk: the trace and the answer, no error', async () => {
    const r = await run(['notes', 'get', GUID, '-o', 'json', '--debug'], freshCache());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`> GET ${sb.baseUrl}/v1/external/notes/${GUID}`);
    expect(r.stderr).toContain('authorization: Bearer ****');
    expect(r.stderr).not.toContain(ADMIN);
    // Nothing else either: no ExperimentalWarning from the import() of the chunk (the launcher's own import()).
    expect(r.stderr).not.toMatch(/differs from the documented shape|Error|Warning/);
  });

  it('through a proxy (undici, loaded from its chunk): a proxy that never answers CONNECT times out with exit 8', async () => {
    const seen: string[] = [];
    const server: Server = createServer(() => {});
    const sockets = new Set<Socket>();
    server.on('connection', (s: Socket) => sockets.add(s));
    server.on('connect', (req: IncomingMessage, socket: Socket) => {
      seen.push(`CONNECT ${req.url}`);
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const cache = freshCache();
      const r = await runCli(['--timeout', '1', 'notes', 'get', GUID], {
        baseUrl: 'https://api.example.test',
        key: ADMIN,
        configDir: cfg.dir,
        env: { HTTPS_PROXY: `http://${host}`, NOTEVOX_CACHE_DIR: cache },
      });
      expect(r.exitCode, r.stderr).toBe(8);
      expect(r.stderr).toContain(`error: timed out: the proxy ${host} opened no connection to api.example.test within 1s`);
      expect(r.stderr).not.toContain('Warning');
      // V8's flags changed when undici loaded (WebAssembly on the baseline tier): no cache made with them.
      expect(hotCaches(cache)).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
