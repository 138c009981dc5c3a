import { existsSync } from 'node:fs';
import { embeddedAsset } from '../assets.js';
import { fileURLToPath } from 'node:url';
import { openDatabase } from './db.js';
import { demoSeed } from './demo-seed.js';

/**
 * The demo seed as a ready database: the build loads it once (scripts/build.mjs) and writes the SQLite file beside
 * the bundle's chunks, and `sandbox start` without --seed or a stored state opens a copy of it instead of checking
 * and inserting the seed again (about 0.4 s of a 1.2 s start). The demo seed is constant, its `now` included, so the
 * copy holds what loading it gives, but for the random salts of the key hashes (the demo keys are public values).
 * A test compares the built file with a fresh load, row by row.
 */
export const DEMO_IMAGE_FILE = 'demo-seed.db';

/** Write the demo seed's database to `file` (VACUUM INTO: a compact SQLite file; `file` must not exist). */
export async function buildDemoImage(file: string): Promise<void> {
  // Imported here, not at the top: `sandbox start` loads this module for builtDemoImage, and seed loading (with its zod schema) only when a seed is loaded.
  const { loadSeed } = await import('./seed/load.js');
  const db = await openDatabase();
  try {
    loadSeed(db, demoSeed, 'demo seed');
    db.saveTo(file);
  } finally {
    await db.close();
  }
}

/**
 * The file the build wrote beside the chunk that holds this module (dist/chunks/), or its bytes inside the single-file
 * executable, or undefined where there is none (running from src/, as the in-process tests do).
 */
export function builtDemoImage(): string | Uint8Array | undefined {
  const embedded = embeddedAsset(DEMO_IMAGE_FILE); // the single-file executable carries it (scripts/build-exe.mjs)
  if (embedded) return embedded;
  const file = fileURLToPath(new URL(`./${DEMO_IMAGE_FILE}`, import.meta.url));
  return existsSync(file) ? file : undefined;
}
