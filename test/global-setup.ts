import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Before any test: build dist/ when it is older than what it is built from, so that the e2e tests (which run the
 * built CLI) never test a stale bundle. Once per `vitest run`; a fresh build is left alone.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** What the bundle is made of. */
const INPUTS = ['src', 'bin', 'scripts/build.mjs', 'package.json', 'package-lock.json'];
/** Written last by the build. */
const STAMP = join(ROOT, 'build/meta.json');

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export function isStale(): boolean {
  if (!existsSync(STAMP) || !existsSync(join(ROOT, 'dist/cli.js'))) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((p) => existsSync(join(ROOT, p)) && newest(join(ROOT, p)) > built);
}

export default function setup(): void {
  if (!isStale()) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
}
