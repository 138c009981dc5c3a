import { readFileSync } from 'node:fs';
import { embeddedAsset } from '../assets.js';
import { openDatabase } from './db.js';
import { demoSeed } from './demo-seed.js';
import { loadSeed } from './seed/load.js';

/**
 * The demo seed as a ready database: the build loads it once (scripts/build.mjs) and writes the SQLite file beside
 * the bundle's chunks, and `sandbox start` without --seed or a stored state opens a copy of it instead of checking
 * and inserting the seed again (about 0.4 s of a 1.2 s start). The demo seed is constant, its `now` included, so the
 * copy holds what loading it gives, but for the random salts of the key hashes (the demo keys are public values).
 * A test compares the built file with a fresh load, row by row.
 */
export const DEMO_IMAGE_FILE = 'demo-seed.db';

/** The demo seed's database as SQLite file bytes. */
export async function buildDemoImage(): Promise<Uint8Array> {
  const db = await openDatabase();
  try {
    loadSeed(db, demoSeed, 'demo seed');
    return db.export();
  } finally {
    await db.close();
  }
}

/**
 * The file the build wrote beside the chunk that holds this module (dist/chunks/), or undefined where there is none
 * (running from src/, as the in-process tests do).
 */
export function builtDemoImage(): Uint8Array | undefined {
  const embedded = embeddedAsset(DEMO_IMAGE_FILE); // the single-file executable carries it (scripts/build-exe.mjs)
  if (embedded) return embedded;
  try {
    return readFileSync(new URL(`./${DEMO_IMAGE_FILE}`, import.meta.url));
  } catch {
    return undefined;
  }
}
