#!/usr/bin/env node
/**
 * The static checks of `npm test`: the type check (`tsc --noEmit`) and the linter (`oxlint`) at the same time
 * (neither uses the other's result). Each one's output is printed in full, under its name, when it ends; the exit
 * code is 1 if either failed. `npm run typecheck` and `npm run lint` still run one alone.
 *
 * Types are checked by TypeScript 7, the native compiler (devDependency `typescript-native`, an alias of
 * typescript@7): the same checks as TypeScript 5.9 in a quarter of the CPU time (about 6 s against 27 s of CPU here,
 * single-threaded, which is all a check beside the test suite can have). TypeScript 5.9 (`typescript`) stays
 * installed for editors (TypeScript 7 has no language-service API for them yet); the code type-checks clean under
 * both. tsc keeps its incremental build info under node_modules/.cache/ and re-checks only what a change can
 * affect (a fresh checkout checks everything).
 *
 * The linter is oxlint, with the rules ESLint ran here before (eslint:recommended and typescript-eslint's
 * recommended, the same options; .oxlintrc.json says which). It lints the whole tree in about 0.3 s of CPU where
 * ESLint took about 14 s, and that CPU was the test suite's: the checks run beside it on the same two cores.
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
  { name: 'lint (oxlint)', args: [bin('oxlint', 'bin/oxlint')] },
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
