import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { BIN } from '../helpers/cli.js';

/**
 * `sandbox start --state`: what the sandbox acknowledged is there after it is killed (SIGKILL, no shutdown),
 * however often that happens in the middle of writes.
 */

const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);

function start(state: string, port = 0): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', String(port), '--json', '--rate-limit', '0', '--state', state], {
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
    // A clean stop checkpoints the WAL into the state file and removes it.
    expect(readdirSync(dir).filter((f) => f.startsWith('state.sqlite'))).toEqual(['state.sqlite']);
  });

  it('loses no row `wm import` saw acknowledged when the sandbox is SIGKILLed during it; the rerun completes it', { timeout: 300_000 }, async () => {
    // NOTEVOX_TEST_SANDBOX_KILLS=10 for the issue's ten (the suite kills fewer).
    const kills = Number(process.env.NOTEVOX_TEST_SANDBOX_KILLS || 3);
    const rows = 30_000;
    const batchSize = 500;
    const state = join(dir, 'import.sqlite');
    const cache = join(dir, 'cache');
    const csv = join(dir, 'terms.csv');
    const entries = Array.from({ length: rows }, (_, i) => `Killed${i}`);
    writeFileSync(csv, 'entry\n' + entries.join('\n') + '\n');
    const rand = seededRandom(24);
    const first = await start(state);
    const port = Number(new URL(first.baseUrl).port);
    let sb = first;
    const importer = () =>
      spawn(process.execPath, [BIN, 'wm', 'import', csv, '--batch-size', String(batchSize), '--concurrency', '4', '--json'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CACHE_DIR: cache, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: ADMIN, NOTEVOX_CONFIG_DIR: join(dir, 'config') },
        stdio: 'ignore',
      });
    /** The batches the importer's journal records as acknowledged by the sandbox (wm/journal.ts: a header line, then one line per batch). */
    const acknowledged = (): number[] => {
      let files: string[];
      try {
        files = readdirSync(join(cache, 'wm-journal')).filter((f) => f.endsWith('.jsonl'));
      } catch {
        return [];
      }
      return files.flatMap((f) => readFileSync(join(cache, 'wm-journal', f), 'utf8').split('\n').slice(1).filter(Boolean).map((l) => (JSON.parse(l) as { batch: number }).batch));
    };
    const stored = () => {
      const db = new (nodeSqlite().DatabaseSync)(state);
      try {
        expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
        return new Set((db.prepare("SELECT entry FROM word_memories WHERE scope_type = 'user' AND entry LIKE 'Killed%'").all() as Array<{ entry: string }>).map((r) => r.entry));
      } finally {
        db.close();
      }
    };
    let lost = 0;
    for (let k = 0; k < kills; k++) {
      const child = importer();
      const cliExited = new Promise((resolve) => child.once('exit', resolve));
      const before = acknowledged().length;
      for (let waited = 0; acknowledged().length < before + 4 && waited < 60_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 200)));
      sb.child.kill('SIGKILL');
      await sb.exited;
      child.kill('SIGKILL'); // its batches in flight die with the sandbox; the rerun sends them again
      await cliExited;
      // Every row of every batch acknowledged so far is in the state file, which SQLite finds intact.
      const have = stored();
      const batches = acknowledged();
      expect(batches.length).toBeLessThan(rows / batchSize); // killed during the import, not after it
      lost += batches.flatMap((b) => entries.slice(b * batchSize, (b + 1) * batchSize)).filter((e) => !have.has(e)).length;
      expect(lost, `after kill ${k + 1}: acknowledged rows lost`).toBe(0);
      sb = await start(state, port);
    }
    // The documented rerun: the same command, which resumes from its journal and completes the import.
    const child = importer();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    sb.child.kill('SIGTERM');
    await sb.exited;
    expect(stored()).toEqual(new Set(entries));
  });
});
