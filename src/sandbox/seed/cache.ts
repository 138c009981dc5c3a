import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { buildImage, type Db } from '../db.js';
import { SCHEMA_VERSION } from '../schema.sql.js';
import { parseSeedText } from './load.js';
import { buildWordMemories, SPLIT_MIN_CHARS, splitWordMemories, type WordMemoriesBuild } from './word-memories.js';
import { phase } from './phases.js';

/**
 * Built seed databases, cached by the seed file's content (`sandbox start --seed FILE`; `--no-seed-cache` skips
 * it): the first start loads the seed straight into its cache entry (built under a temporary name, renamed once
 * complete), `<hash>.sqlite` in `<cache dir>/sandbox-seeds/`, and opens that; a later start of the same bytes opens
 * it too instead of parsing and inserting again. Beside it, `<hash>.json` holds where the seed's `apiKeys` array lies in the file (byte
 * offsets), so that a cached start parses only that array to print the keys: secrets are stored nowhere but in
 * the seed file itself. So that a cached start need not read and hash the whole file, `<path hash>.stat.json` records
 * the hash of the file at that path with its identity and times (device, inode, size, modification and change time
 * in nanoseconds, as git's index does; not for a file changed in the last 2 s): while they are the same, the file is
 * taken as unchanged.
 */

export interface SeedCacheEntry {
  /** The SQLite file, when it is cached. */
  image?: string;
  /** The seed's key secrets by key id (a cached entry), to print the keys as a first start does. */
  secrets?: Map<string, string>;
  /** The seed file, parsed (when it is not cached, and not split). */
  seed?: unknown;
  /**
   * A big seed not cached yet, split at its word memories (word-memories.ts): the rest parsed, the word memories
   * being built. `whole()` parses the whole file, to load it as `seed` when the split one is not vouched for.
   */
  split?: { head: unknown; wordMemories: WordMemoriesBuild; whole(): unknown };
  /**
   * Build the database of `seed` in the cache (`load` fills it) and return its file, to open as a cached start
   * does. Written under a temporary name, renamed into place once complete: a start that fails or dies on the
   * way leaves no entry. When `load` returns a file (a split seed: loadSplitSeed), that complete database file,
   * closed, is the entry instead (it must be in the cache directory: it is renamed).
   */
  build(load: (db: Db) => void | string | Promise<void | string>): Promise<string>;
}

interface Sidecar {
  format: 1;
  /** Byte offsets of the seed's apiKeys array in the file, or null when the seed has none there. */
  apiKeys: [number, number] | null;
}

/** The cache key of a seed file's bytes (the state schema is part of it: a new schema builds anew). */
const seedHash = (bytes: Buffer) => createHash('sha256').update(`notevox-seed-cache/${SCHEMA_VERSION}\n`).update(bytes).digest('hex').slice(0, 40);

/** Look the seed file up in the cache directory; `undefined` when it cannot be read (the ordinary path names the problem). */
export async function seedCache(seedFile: string, dir: string, opts: { splitMinChars?: number; tailShare?: number } = {}): Promise<SeedCacheEntry | undefined> {
  const statFile = join(dir, `${createHash('sha256').update(resolve(seedFile)).digest('hex').slice(0, 40)}.stat.json`);
  const stamp = fileStamp(seedFile);
  const known = stamp ? cachedByStamp(seedFile, dir, statFile, stamp) : undefined;
  if (known) return known;
  // A file big enough to be split: its word memories' worker starts now, and starts up while the file is read.
  // Its size from the stamp; a file without a stamp (not a regular file) is not started early.
  const size = stamp ? Number(stampField(stamp, 'size')) : 0;
  const early = size >= (opts.splitMinChars ?? SPLIT_MIN_CHARS) ? startWordMemories(dir) : undefined;
  let bytes: Buffer;
  try {
    bytes = await readShared(seedFile);
  } catch {
    void early?.cancel();
    return undefined;
  }
  phase('read the seed file');
  const hash = seedHash(bytes);
  phase('hashed it');
  const image = join(dir, `${hash}.sqlite`);
  const sidecarFile = join(dir, `${hash}.json`);
  try {
    const sidecar = JSON.parse(readFileSync(sidecarFile, 'utf8')) as Sidecar;
    const secrets = new Map<string, string>();
    if (sidecar.apiKeys) {
      const keys = JSON.parse(bytes.toString('utf8', sidecar.apiKeys[0], sidecar.apiKeys[1])) as Array<{ id: string; secret: string }>;
      for (const k of keys) secrets.set(k.id, k.secret);
    }
    if (existsSync(image)) {
      void early?.cancel();
      if (stamp) writeStamp(statFile, stamp, hash);
      return { image, secrets, build: async () => image };
    }
  } catch {
    // not cached yet (or a damaged entry): the start loads the seed into a new entry
  }
  const tmp = `${image}.${process.pid}.tmp`;
  const split = splitSeed(bytes, seedFile, early ?? (() => startWordMemories(dir)), opts);
  const seed = split ? undefined : parseSeedText(bytes.toString('utf8'), seedFile);
  const apiKeys = () => ((split?.head ?? seed) as { apiKeys?: unknown }).apiKeys;
  return {
    seed,
    split,
    async build(load) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      removeOrphans(dir, `${hash}.sqlite.`);
      removeOrphans(dir, BUILD_PREFIX);
      rmSync(tmp, { force: true });
      let built: void | string = undefined;
      await buildImage(tmp, async (db) => {
        built = await load(db);
      });
      try {
        if (typeof built === 'string') {
          rmSync(tmp, { force: true });
          renameSync(built, image);
        } else renameSync(tmp, image);
        const sidecar: Sidecar = { format: 1, apiKeys: locateApiKeys(bytes, apiKeys()) };
        writeFileSync(`${sidecarFile}.tmp`, JSON.stringify(sidecar), { mode: 0o600 });
        renameSync(`${sidecarFile}.tmp`, sidecarFile);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
      if (stamp) writeStamp(statFile, stamp, hash);
      phase('stored the cache entry');
      return image;
    },
  };
}

/**
 * A file's bytes, in a SharedArrayBuffer: the word memories' worker (word-memories.ts) reads its part of them
 * there, without a copy of 60 MB (or of their text) being made for it.
 */
async function readShared(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.from(new SharedArrayBuffer(size));
    let read = 0;
    for (let n = -1; read < size && n !== 0; read += n) n = (await handle.read(bytes, read, size - read, read)).bytesRead;
    return bytes.subarray(0, read);
  } finally {
    await handle.close();
  }
}

/**
 * The seed split at a big wordMemories array, its word memories building (in `file`) while the rest is parsed;
 * undefined when it has none, or when the rest does not parse (parsing the whole text then says why).
 */
function splitSeed(bytes: Buffer, seedFile: string, build: WordMemoriesBuild | (() => WordMemoriesBuild), opts: { splitMinChars?: number; tailShare?: number }): SeedCacheEntry['split'] {
  const parts = splitWordMemories(bytes, opts.splitMinChars);
  if (!parts) {
    if (typeof build !== 'function') void build.cancel();
    return undefined;
  }
  phase('split it at its word memories');
  const wordMemories = typeof build === 'function' ? build() : build;
  wordMemories.input(bytes, parts.start, parts.end, opts.tailShare);
  let head: unknown;
  try {
    head = parseSeedText(parts.head, seedFile);
    phase('parsed the rest (JSON.parse)');
  } catch {
    void wordMemories.cancel();
    return undefined;
  }
  return { head, wordMemories, whole: () => parseSeedText(bytes.toString('utf8'), seedFile) };
}

/** The temporary files of word memories' builds: `<BUILD_PREFIX><pid>.tmp-<n>-word-memories` in the cache directory. */
const BUILD_PREFIX = 'seed-build.';
let builds = 0;

/** A build of word memories (word-memories.ts) into a new temporary file of the cache directory `dir`. */
function startWordMemories(dir: string): WordMemoriesBuild {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${BUILD_PREFIX}${process.pid}.tmp-${++builds}-word-memories`);
  rmSync(file, { force: true });
  return buildWordMemories(file);
}

/** Temporary files of builds (`<prefix><pid>.tmp…`) whose process is gone: it was killed on the way. */
function removeOrphans(dir: string, prefix: string): void {
  try {
    for (const f of readdirSync(dir)) {
      const pid = f.startsWith(prefix) ? /^(\d+)\.tmp/.exec(f.slice(prefix.length))?.[1] : undefined;
      if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(dir, f), { force: true });
    }
  } catch {
    // only tidying
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The byte offsets of the array that parses to `apiKeys` after an `"apiKeys"` key in the file, or null. Every
 * candidate is checked by parsing it and comparing with the seed's own array, so a match elsewhere is harmless.
 * Done on the bytes (UTF-8: the characters looked for are ASCII, which never occurs within another character).
 */
function locateApiKeys(bytes: Buffer, apiKeys: unknown): [number, number] | null {
  if (!Array.isArray(apiKeys)) return null;
  const space = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  for (let at = bytes.indexOf('"apiKeys"'); at >= 0; at = bytes.indexOf('"apiKeys"', at + 1)) {
    let i = at + 9;
    while (space(bytes[i])) i++;
    if (bytes[i] !== 0x3a) continue;
    i++;
    while (space(bytes[i])) i++;
    if (bytes[i] !== 0x5b) continue;
    const end = matchingBracket(bytes, i);
    if (end < 0) continue;
    try {
      if (!isDeepStrictEqual(JSON.parse(bytes.toString('utf8', i, end)), apiKeys)) continue;
    } catch {
      continue;
    }
    return [i, end];
  }
  return null;
}

/** The offset after the bracket closing the one at `start`, skipping strings; -1 if there is none. */
function matchingBracket(bytes: Buffer, start: number): number {
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The fields of a file's stamp, in order. */
const STAMP_FIELDS = ['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs'] as const;

/** What identifies a file's version without reading it: device, inode, size, modification and change times (ns). */
function fileStamp(file: string): string | undefined {
  try {
    const st = statSync(file, { bigint: true });
    return st.isFile() ? STAMP_FIELDS.map((f) => st[f]).join(':') : undefined;
  } catch {
    return undefined;
  }
}

/** One field of a stamp (fileStamp). */
const stampField = (stamp: string, field: (typeof STAMP_FIELDS)[number]): bigint => BigInt(stamp.split(':')[STAMP_FIELDS.indexOf(field)]);

function writeStamp(statFile: string, stamp: string, hash: string): void {
  // A file changed within the time stamps' granularity of now could change again with the same stamp: not recorded
  // (git's "racy" entries); a later start records it.
  const mtimeNs = stampField(stamp, 'mtimeNs');
  if (BigInt(Date.now()) * 1_000_000n - mtimeNs < 2_000_000_000n) return;
  try {
    writeFileSync(`${statFile}.${process.pid}.tmp`, JSON.stringify({ stamp, hash }), { mode: 0o600 });
    renameSync(`${statFile}.${process.pid}.tmp`, statFile);
  } catch {
    // only a shortcut: the next start hashes the file again
  }
}

/**
 * The cached entry of the seed file when its stamp is the one recorded with a hash whose database is cached
 * (reading only the apiKeys bytes of the file); undefined otherwise.
 */
function cachedByStamp(seedFile: string, dir: string, statFile: string, stamp: string): SeedCacheEntry | undefined {
  try {
    const record = JSON.parse(readFileSync(statFile, 'utf8')) as { stamp?: unknown; hash?: unknown };
    if (record.stamp !== stamp || typeof record.hash !== 'string' || !/^[0-9a-f]{40}$/.test(record.hash)) return undefined;
    const image = join(dir, `${record.hash}.sqlite`);
    const sidecar = JSON.parse(readFileSync(join(dir, `${record.hash}.json`), 'utf8')) as Sidecar;
    if (!existsSync(image)) return undefined;
    const secrets = new Map<string, string>();
    if (sidecar.apiKeys) {
      const [from, to] = sidecar.apiKeys;
      const bytes = Buffer.alloc(to - from);
      const fd = openSync(seedFile, 'r');
      try {
        if (readSync(fd, bytes, 0, bytes.length, from) !== bytes.length) return undefined;
      } finally {
        closeSync(fd);
      }
      for (const k of JSON.parse(bytes.toString('utf8')) as Array<{ id: string; secret: string }>) secrets.set(k.id, k.secret);
    }
    // the file may have changed while it was read: then it is read and hashed as a whole
    return fileStamp(seedFile) === stamp ? { image, secrets, build: async () => image } : undefined;
  } catch {
    return undefined;
  }
}
