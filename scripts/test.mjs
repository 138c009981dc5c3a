#!/usr/bin/env node
/**
 * `npm test`: the static checks (scripts/check.mjs: tsc and oxlint) and the test suite (`vitest run`, with any
 * arguments given) side by side. The suite leaves part of the two cores idle (tests that wait on a sandbox's pace,
 * on a child process, on a socket), and the checks fill it: they run at a lower priority, so the tests' timing is
 * not theirs to pay. vitest prints as it goes; each check prints its verdict when it ends and its output, if any,
 * in full. The exit code is 1 if a check failed, else vitest's.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChecks } from './check.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

const suite = new Promise((resolve) => {
  const child = spawn(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  child.on('error', (e) => {
    process.stderr.write(`could not start vitest: ${e.message}\n`);
    resolve(1);
  });
  child.on('close', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
});
const checked = runChecks({ priority: 10 });

const [suiteCode, checksPassed] = await Promise.all([suite, checked]);
if (!checksPassed) process.stdout.write('npm test: a static check failed (its output is above)\n');
process.exitCode = checksPassed ? suiteCode : 1;
