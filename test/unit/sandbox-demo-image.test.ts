import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/sandbox/db.js';
import { DEMO_IMAGE_FILE } from '../../src/sandbox/demo-image.js';
import { DEMO_KEYS, demoSeed } from '../../src/sandbox/demo-seed.js';
import { loadSeed } from '../../src/sandbox/seed/load.js';
import { prepareSandbox } from '../../src/sandbox/server.js';
import { BIN } from '../helpers/cli.js';

/**
 * A sandbox on the demo seed starts as a copy of a database of the demo seed (demo-image.ts): the one the build
 * wrote beside the bundle's chunks, or, running from src/ as here, the first one its process loaded. Either must
 * hold exactly what loading the seed gives, the keys must work, and a state file must keep the copy.
 * test/e2e/sandbox-cli.test.ts checks that the built CLI's sandbox opens the built file.
 */

const dir = mkdtempSync(join(tmpdir(), 'notevox-demo-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Columns that differ between two loads of the same seed: random salts and the hashes made with them. */
const SALTED = new Set(['secret_salt', 'secret_hash', 'password_salt', 'password_hash']);

/** Every row of every table (but the state file's own bookkeeping), in a stable order, without the salted columns. */
function dump(db: Db): Record<string, unknown[]> {
  const tables = db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'state_meta' ORDER BY name");
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      db
        .all(`SELECT * FROM "${name}"`)
        .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !SALTED.has(k)))))
        .sort(),
    ]),
  );
}

const salts = (db: Db) => db.all<{ id: string; secret_salt: string }>('SELECT id, secret_salt FROM api_keys ORDER BY id');

describe('sandboxes on the demo seed', () => {
  it('hold what loading the demo seed gives, and the second one is a copy of the first (the same key salts)', async () => {
    const first = await prepareSandbox({ log: () => {} });
    const second = await prepareSandbox({ log: () => {} });
    const loaded = await openDatabase();
    try {
      const keys = loadSeed(loaded, demoSeed, 'demo seed').keys;
      expect(dump(second.db)).toEqual(dump(loaded));
      expect(second.keys).toEqual(keys);
      expect(second.reloaded).toBe(false);
      // A fresh load salts every key anew; the copy has the salts of the image it was made from.
      expect(salts(second.db)).toEqual(salts(first.db));
      expect(salts(loaded)).not.toEqual(salts(second.db));
    } finally {
      await Promise.all([first.shutdown(), second.shutdown(), loaded.close()]);
    }
  });

  it('the build wrote the demo seed as a fresh load gives it, and a copy of it answers the demo keys', async () => {
    const built = readFileSync(join(dirname(BIN), '..', 'dist', 'chunks', DEMO_IMAGE_FILE));
    const copy = await openDatabase({ image: built });
    const loaded = await openDatabase();
    try {
      loadSeed(loaded, demoSeed, 'demo seed');
      expect(dump(copy)).toEqual(dump(loaded));
    } finally {
      await Promise.all([copy.close(), loaded.close()]);
    }
  });

  it('answer every demo key on the copy as on a fresh load', async () => {
    await (await prepareSandbox({ log: () => {} })).shutdown();
    const copy = await prepareSandbox({ log: () => {} });
    try {
      const res = await copy.app.request('/v1/external/auth/me', { headers: { authorization: `Bearer ${DEMO_KEYS.admin.token}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { keyId: string }).keyId).toBe(DEMO_KEYS.admin.id);
      const wrong = await copy.app.request('/v1/external/auth/me', { headers: { authorization: `Bearer ${DEMO_KEYS.admin.id}.sk_wrong_secret_0000` } });
      expect(wrong.status).toBe(401);
    } finally {
      await copy.shutdown();
    }
  });

  it('write the copy into a new state file, which then reloads as stored state', async () => {
    await (await prepareSandbox({ log: () => {} })).shutdown();
    const stateFile = join(dir, 'state.db');
    const made = await prepareSandbox({ log: () => {}, stateFile });
    const before = dump(made.db);
    expect(made.reloaded).toBe(false);
    await made.shutdown();
    const again = await prepareSandbox({ log: () => {}, stateFile });
    try {
      expect(again.reloaded).toBe(true);
      expect(dump(again.db)).toEqual(before);
      expect(again.keys.map((k) => k.id)).toEqual(made.keys.map((k) => k.id));
    } finally {
      await again.shutdown();
    }
  });
});
