import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { prepareSandbox } from '../../src/sandbox/server.js';

/**
 * A state file of notevox 0.1 (sql.js: a snapshot and its journal), made by main 9eac38e and left by a SIGKILL
 * (test/fixtures/state-v0.1.0/README.md): converted on first open, the originals kept beside it.
 */
const FIXTURE = new URL('../fixtures/state-v0.1.0/', import.meta.url);

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-old-state-'));
  file = join(dir, 'state.sqlite');
  writeFileSync(file, gunzipSync(readFileSync(new URL('old-state.sqlite.gz', FIXTURE))));
  copyFileSync(new URL('old-state.sqlite.journal', FIXTURE), `${file}.journal`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a state file of notevox 0.1', () => {
  it('is converted on first open: the journal replayed into a plain SQLite database, the originals kept beside it', async () => {
    const original = readFileSync(file);
    const journal = readFileSync(`${file}.journal`);
    const notices: string[] = [];
    const db = await openDatabase({ stateFile: file, log: (l) => notices.push(l) });
    try {
      expect(notices).toEqual([`sandbox: converted ${file} from the notevox 0.1 format (snapshot and journal) to a plain SQLite database; the original is kept as ${file}.v0.1`]);
      // What the journal held (acknowledged by the old sandbox, never folded into its snapshot) is there.
      expect(db.all<{ entry: string }>("SELECT entry FROM word_memories WHERE entry LIKE 'fixture-entry-%' ORDER BY entry").map((r) => r.entry)).toEqual(
        [0, 1, 2, 3, 4].map((i) => `fixture-entry-${i}`),
      );
      expect(db.get('SELECT title FROM notes WHERE guid = ?', [DEMO_NOTES.roadmapReview])).toEqual({ title: 'Renamed before the format change' });
      expect(db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
      expect(db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    } finally {
      await db.close();
    }
    expect(readdirSync(dir).sort()).toEqual(['state.sqlite', 'state.sqlite.v0.1', 'state.sqlite.v0.1.journal']);
    expect(readFileSync(`${file}.v0.1`).equals(original)).toBe(true);
    expect(readFileSync(`${file}.v0.1.journal`).equals(journal)).toBe(true);
    expect(readFileSync(file)[18]).toBe(2); // the header says WAL

    // Once converted, it opens as it is.
    const again = await openDatabase({ stateFile: file, log: (l) => notices.push(l) });
    expect(again.get('SELECT count(*) AS n FROM word_memories WHERE entry LIKE ?', ['fixture-entry-%'])).toEqual({ n: 5 });
    await again.close();
    expect(notices).toHaveLength(1);
  });

  it('serves its data through the sandbox, with the demo keys it holds', async () => {
    const lines: string[] = [];
    const sb = await prepareSandbox({ stateFile: file, log: (l) => lines.push(l), rateLimit: '0' });
    try {
      expect(sb.reloaded).toBe(true);
      expect(sb.keys.map((k) => k.id)).toContain(DEMO_KEYS.admin.id);
      const res = await sb.app.request(`/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { headers: { authorization: `Bearer ${DEMO_KEYS.admin.id}.${DEMO_KEYS.admin.secret}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { title: string }).title).toBe('Renamed before the format change');
    } finally {
      await sb.shutdown();
    }
    expect(lines.some((l) => l.includes('converted'))).toBe(true);
  });

  it('is refused, changing nothing, with what to do, when its journal does not continue it', async () => {
    const journal = readFileSync(`${file}.journal`);
    journal.writeUInt32LE(7, 8); // another generation
    writeFileSync(`${file}.journal`, journal);
    const before = readFileSync(file);
    await expect(openDatabase({ stateFile: file, log: () => {} })).rejects.toThrow(
      `cannot convert the notevox 0.1 state file ${file}: ${file}.journal (generation 7) does not continue the state file (generation 0)`,
    );
    await expect(openDatabase({ stateFile: file, log: () => {} })).rejects.toMatchObject({
      hint: `start it once with notevox 0.1 and stop it with Ctrl-C (which folds its journal in), or remove ${file} and its .journal files to start afresh`,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}.converting`)).toBe(false);
  });
});
