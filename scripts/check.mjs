#!/usr/bin/env node
/**
 * The static checks of `npm test`: the type check (`tsc --noEmit`) and the linter (`eslint .`) at the same time
 * (neither uses the other's result, and each leaves a core idle for much of its run). Each one's output is printed
 * in full, under its name, when it ends; the exit code is 1 if either failed. `npm run typecheck` and `npm run lint`
 * still run one alone.
 *
 * Types are checked by TypeScript 7, the native compiler (devDependency `typescript-native`, an alias of
 * typescript@7): the same checks as TypeScript 5.9 in a quarter of the CPU time (about 6 s against 27 s of CPU here,
 * single-threaded, which is all a check beside the test suite can have). TypeScript 5.9 (`typescript`) stays
 * installed for typescript-eslint, whose parser needs TypeScript's JavaScript API (TypeScript 7 has none yet, and
 * typescript-eslint accepts TypeScript < 6.1), and for editors; the code type-checks clean under both.
 *
 * Both keep what they learnt under node_modules/.cache/ and redo only what changed since the last run: tsc's
 * incremental build info (it re-checks every file a change can affect, and reports the errors of the unchanged
 * files from the cache) and eslint's per-file cache (keyed on each file's content, the config and eslint's
 * version; the rules here read one file at a time, none uses type information, so an unchanged file's result cannot
 * change). A fresh checkout checks everything.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A package's command-line script, run with this Node (no shell, no npx lookup). */
const bin = (pkg, rel) => join(root, 'node_modules', pkg, rel);

const cache = (name) => join(root, 'node_modules', '.cache', 'notevox-check', name);

const checks = [
  {
    name: 'typecheck (tsc --noEmit)',
    args: [bin('typescript-native', 'bin/tsc'), '--noEmit', '--singleThreaded', '--incremental', '--tsBuildInfoFile', cache('tsconfig.tsbuildinfo')],
  },
  { name: 'lint (eslint .)', args: [bin('eslint', 'bin/eslint.js'), '--cache', '--cache-strategy', 'content', '--cache-location', cache('eslint/'), '.'] },
];

function run({ name, args }, { priority }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    if (priority && child.pid) {
      try {
        setPriority(child.pid, priority);
      } catch {
        // not allowed here: it runs at the normal priority
      }
    }
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let settled = false;
    const done = (code, why) => {
      if (settled) return;
      settled = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(`${ok ? '✓' : '✗'} ${name}: ${ok ? 'passed' : why} in ${seconds}s\n`);
      if (output.trim()) process.stdout.write(output.endsWith('\n') ? output : output + '\n');
      resolve(ok);
    };
    child.on('error', (e) => done(1, `could not start: ${e.message}`));
    child.on('close', (code, signal) => done(code, signal ? `killed by ${signal}` : `failed (exit ${code})`));
  });
}

/**
 * Run both checks; resolves true when both passed. `priority` (a nice value) lets them yield the CPU to what runs
 * beside them (npm test: the test suite, see scripts/test.mjs).
 */
export async function runChecks({ priority = 0 } = {}) {
  const results = await Promise.all(checks.map((c) => run(c, { priority })));
  return results.every(Boolean);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = (await runChecks()) ? 0 : 1;
