import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { openDatabase } from '../db.js';
import { SCHEMA_VERSION } from '../schema.sql.js';
import { loadSeed, parseSeedText, type SeedSummary } from './load.js';

/**
 * Built seed databases, cached by the seed file's content (`sandbox start --seed FILE`; `--no-seed-cache` skips
 * it): the first start loads the seed into a database and keeps a copy, as `<hash>.sqlite` in
 * `<cache dir>/sandbox-seeds/`; a later start of the same bytes opens a copy of it instead of parsing and inserting
 * again. Beside it, `<hash>.json` holds where the seed's `apiKeys` array lies in the file (byte offsets), so that
 * a cached start parses only that array to print the keys: secrets are stored nowhere but in the seed file itself.
 */

export interface CachedSeed {
  /** The SQLite file to start from. */
  image: string;
  keys: SeedSummary['keys'];
}

interface Sidecar {
  format: 1;
  /** Byte offsets of the seed's apiKeys array in the file, or null when the seed has none there. */
  apiKeys: [number, number] | null;
}

/** The cache key of a seed file's bytes (the state schema is part of it: a new schema builds anew). */
const seedHash = (bytes: Buffer) => createHash('sha256').update(`notevox-seed-cache/${SCHEMA_VERSION}\n`).update(bytes).digest('hex').slice(0, 40);

/**
 * The seed file as a database image: the cached one, or a new one built (and cached) from it. `keysOf` turns the
 * seed's api keys (with their secrets, as in the seed file) and the database into the summary printed at start.
 */
export async function cachedSeed(seedFile: string, dir: string, keysOf: (db: import('../db.js').Db, secrets: Map<string, string>) => SeedSummary['keys']): Promise<CachedSeed | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(seedFile);
  } catch {
    return undefined; // the ordinary path names the problem
  }
  const hash = seedHash(bytes);
  const image = join(dir, `${hash}.sqlite`);
  const sidecarFile = join(dir, `${hash}.json`);
  try {
    const sidecar = JSON.parse(readFileSync(sidecarFile, 'utf8')) as Sidecar;
    const secrets = new Map<string, string>();
    if (sidecar.apiKeys) {
      const keys = JSON.parse(bytes.toString('utf8', sidecar.apiKeys[0], sidecar.apiKeys[1])) as Array<{ id: string; secret: string }>;
      for (const k of keys) secrets.set(k.id, k.secret);
    }
    const db = await openDatabase({ image });
    try {
      return { image, keys: keysOf(db, secrets) };
    } finally {
      await db.close();
    }
  } catch {
    // not cached yet (or a damaged entry): build it
  }
  const text = bytes.toString('utf8');
  const seed = parseSeedText(text, seedFile);
  const db = await openDatabase();
  let keys: SeedSummary['keys'];
  try {
    keys = loadSeed(db, seed, `seed file ${seedFile}`).keys;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${image}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    db.saveTo(tmp);
    renameSync(tmp, image);
  } finally {
    await db.close();
  }
  const sidecar: Sidecar = { format: 1, apiKeys: locateApiKeys(bytes, text, (seed as { apiKeys?: unknown }).apiKeys) };
  writeFileSync(`${sidecarFile}.tmp`, JSON.stringify(sidecar), { mode: 0o600 });
  renameSync(`${sidecarFile}.tmp`, sidecarFile);
  return { image, keys };
}

/**
 * The byte offsets of the array that parses to `apiKeys` after an `"apiKeys"` key in the file, or null. Every
 * candidate is checked by parsing it and comparing with the seed's own array, so a match elsewhere is harmless.
 */
function locateApiKeys(bytes: Buffer, text: string, apiKeys: unknown): [number, number] | null {
  if (!Array.isArray(apiKeys)) return null;
  for (let at = text.indexOf('"apiKeys"'); at >= 0; at = text.indexOf('"apiKeys"', at + 1)) {
    let i = at + 9;
    while (/\s/.test(text[i] ?? '')) i++;
    if (text[i] !== ':') continue;
    i++;
    while (/\s/.test(text[i] ?? '')) i++;
    if (text[i] !== '[') continue;
    const end = matchingBracket(text, i);
    if (end < 0) continue;
    try {
      if (!isDeepStrictEqual(JSON.parse(text.slice(i, end)), apiKeys)) continue;
    } catch {
      continue;
    }
    return [Buffer.byteLength(text.slice(0, i)), Buffer.byteLength(text.slice(0, i)) + Buffer.byteLength(text.slice(i, end))].map((n) => Math.min(n, bytes.length)) as [number, number];
  }
  return null;
}

/** The index after the bracket closing the one at `start`, skipping strings; -1 if there is none. */
function matchingBracket(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
