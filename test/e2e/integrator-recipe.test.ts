import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * Issue 25 item 9: the integrator recipe of docs/events.md is real files (docs/examples/integrator/), run here as a
 * user would, with the built CLI as `notevox` on PATH: try-with-sandbox.sh starts a sandbox and the receiver, a live
 * note ends, the receiver saves the note and its paragraphs; then a failed run of the work leaves no file, and
 * reconcile.sh fills the gap.
 */

const RECIPE = fileURLToPath(new URL('../../docs/examples/integrator/', import.meta.url));
const ORG_KEY = 'nvk_org_integration.sk_demo_org_integration_0001';

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nvx-integrator-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'notevox'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'notevox'), 0o755);
  path = `${bin}:${process.env.PATH}`;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Run a recipe script with bash in `cwd`; its exit code and output. */
function bash(script: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn('bash', [join(RECIPE, script), ...args], {
    cwd,
    env: { PATH: path, HOME: process.env.HOME ?? '', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: join(dir, 'config'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

const saved = (work: string, guid: string) => readdirSync(join(work, 'notes')).filter((f) => f.startsWith(guid)).sort();

describe('the integrator recipe (docs/examples/integrator)', () => {
  it('receives note.ended, saves the note and its paragraphs; a failed run leaves no file; the reconcile fills the gap', async () => {
    const work = join(dir, 'work');
    mkdirSync(work);
    const ports = { SANDBOX_PORT: String(await freePort()), RECEIVER_PORT: String(await freePort()) };
    const run = await bash('try-with-sandbox.sh', [], work, ports);
    expect(run.code, run.out).toBe(0);
    const guid = /live note (\S+) started/.exec(run.out)![1];
    expect(saved(work, guid)).toEqual([`${guid}.document.json`, `${guid}.json`, `${guid}.paragraphs.ndjson`]);
    expect(JSON.parse(readFileSync(join(work, 'notes', `${guid}.json`), 'utf8'))).toMatchObject({ guid });
    const paragraphs = readFileSync(join(work, 'notes', `${guid}.paragraphs.ndjson`), 'utf8').trim().split('\n');
    expect(paragraphs).toHaveLength(3);
    expect(readFileSync(join(work, 'receiver.log'), 'utf8')).toContain(`receiver: listening on http://127.0.0.1:${ports.RECEIVER_PORT}/`);
    expect(readFileSync(join(work, 'receiver.log'), 'utf8')).toContain(`receiver: saved notes/${guid}.json`);
    expect(run.out).toMatch(new RegExp(`note\\.ended\\s+Note ${guid}\\s+\\S+ delivered`));
    expect(statSync(join(work, 'whsec.txt')).mode & 0o077).toBe(0);

    // Against a fresh sandbox: a note whose work fails (the service cannot be reached) leaves nothing behind…
    const sb = await startTestSandbox();
    try {
      const note = 'nt1LaunchPlan';
      for (const f of saved(work, note)) rmSync(join(work, 'notes', f));
      const keep = statSync(join(work, 'notes', 'nt2RoadmapRev.json')).mtimeMs;
      const failed = await bash('on-note-ended.sh', [note], work, { NOTEVOX_BASE_URL: `http://127.0.0.1:${await freePort()}`, NOTEVOX_API_KEY: ORG_KEY });
      expect(failed.code, failed.out).not.toBe(0);
      expect(saved(work, note)).toEqual([]);
      expect(readdirSync(join(work, 'notes')).filter((f) => f.startsWith('.'))).toEqual([]); // no temporary directory left
      // …and the reconcile processes exactly the notes without their file.
      const env = { NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: ORG_KEY };
      const reconciled = await bash('reconcile.sh', ['--folder', '11'], work, env);
      expect(reconciled.code, reconciled.out).toBe(0);
      expect(reconciled.out.match(/reconcile: processing \S+/g)).toEqual([`reconcile: processing ${note}`]);
      expect(saved(work, note)).toEqual([`${note}.document.json`, `${note}.json`, `${note}.paragraphs.ndjson`]);
      expect(statSync(join(work, 'notes', 'nt2RoadmapRev.json')).mtimeMs).toBe(keep);
      // A note the key cannot read fails the reconcile's run too, without a file: exit 1, tried again next time.
      const unknown = await bash('on-note-ended.sh', ['ntNoSuchNote1'], work, env);
      expect(unknown.code).not.toBe(0);
      expect(existsSync(join(work, 'notes', 'ntNoSuchNote1.json'))).toBe(false);
    } finally {
      await sb.close();
    }
  }, 150_000);

  it('the receiver refuses to start without the key exported, and answers 401 to a wrong secret', async () => {
    const port = String(await freePort());
    const noKey = spawn(process.execPath, [join(RECIPE, 'receiver.mjs')], { env: { PATH: path, WEBHOOK_SECRET: 'whsec_test_0001', PORT: port }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    noKey.stderr.on('data', (d) => (err += d));
    expect(await new Promise((r) => noKey.on('exit', r))).toBe(2);
    expect(err).toContain('export NOTEVOX_API_KEY');

    const child = spawn(process.execPath, [join(RECIPE, 'receiver.mjs')], { env: { PATH: path, WEBHOOK_SECRET: 'whsec_test_0001', PORT: port, NOTEVOX_API_KEY: ORG_KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve) => child.stdout.on('data', (d) => String(d).includes('listening') && resolve()));
      const post = (auth: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { authorization: auth }, body: '{"id":"evt_1","type":"note.created","data":{}}' });
      expect((await post('Bearer wrong')).status).toBe(401);
      expect((await post('Bearer whsec_test_0001')).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
