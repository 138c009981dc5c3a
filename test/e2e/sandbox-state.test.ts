import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { BIN } from '../helpers/cli.js';

/**
 * `sandbox start --state`: what the sandbox acknowledged is there after it is killed (SIGKILL, no shutdown),
 * however often that happens in the middle of writes.
 */

const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);

function start(state: string): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--rate-limit', '0', '--state', state], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: join(tmpdir(), 'notevox-test-unused-config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${err}`)), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, baseUrl: JSON.parse(out.slice(0, out.indexOf('\n'))).baseUrl, exited });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${err}`));
    });
  });
}

async function call(baseUrl: string, method: string, path: string, body?: unknown) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

async function allEntries(baseUrl: string): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor: string | null = null;
  do {
    const r = await call(baseUrl, 'GET', `/v1/external/users/me/word-memories?size=1000${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    for (const w of r.json.content) out.add(w.entry);
    cursor = r.json.nextCursor;
  } while (cursor);
  return out;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-sandbox-state-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sandbox start --state', () => {
  it('keeps every acknowledged write through repeated SIGKILLs in the middle of writing', { timeout: 180_000 }, async () => {
    const state = join(dir, 'state.sqlite');
    const rand = seededRandom(15);
    const acknowledged = new Set<string>();
    // Renames come from one writer, in order: after a kill the title is the last acknowledged one, or the
    // one in flight (written, but the answer was lost with the sandbox).
    let title = '';
    let inFlight = '';
    let batch = 0;
    for (let round = 0; round < 5; round++) {
      const sb = await start(state);
      // Everything acknowledged before this start is still there.
      const entries = await allEntries(sb.baseUrl);
      const missing = [...acknowledged].filter((e) => !entries.has(e));
      expect(missing, `round ${round}: acknowledged entries lost`).toEqual([]);
      if (title) {
        const now = (await call(sb.baseUrl, 'GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`)).json.title;
        expect([title, inFlight]).toContain(now);
        title = now;
      }

      // Four writers in parallel until the kill, which comes at a random moment.
      let killed = false;
      const writer = async (w: number) => {
        while (!killed) {
          const b = batch++;
          const items = Array.from({ length: 50 }, (_, i) => ({ entry: `r${round}-w${w}-b${b}-${i}`, subEntry: null }));
          const rename = w === 0 && b % 3 === 0;
          if (rename) inFlight = `Renamed in batch ${b}`;
          let r;
          try {
            r = rename
              ? await call(sb.baseUrl, 'PATCH', `/v1/external/notes/${DEMO_NOTES.roadmapReview}?updateMask=title`, { title: inFlight })
              : await call(sb.baseUrl, 'POST', '/v1/external/users/me/word-memories', { entries: items });
          } catch {
            return; // the connection died with the sandbox: not acknowledged
          }
          expect(r.status).toBe(200);
          if (rename) title = inFlight;
          else for (const it of items) acknowledged.add(it.entry);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      // Kill once some writes went through (however slow the machine), at a random moment after that.
      const before = acknowledged.size;
      for (let waited = 0; acknowledged.size < before + 200 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      sb.child.kill('SIGKILL');
      killed = true;
      await sb.exited;
      await Promise.all(writers);
    }
    expect(acknowledged.size).toBeGreaterThan(500); // the test did write while killing

    const sb = await start(state);
    try {
      const entries = await allEntries(sb.baseUrl);
      expect([...acknowledged].filter((e) => !entries.has(e))).toEqual([]);
      expect([title, inFlight]).toContain((await call(sb.baseUrl, 'GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`)).json.title);
    } finally {
      sb.child.kill('SIGTERM');
      await sb.exited;
    }
    // A clean stop folds the journal into the state file.
    expect(readdirSync(dir).filter((f) => f.startsWith('state.sqlite'))).toEqual(['state.sqlite']);
  });
});
