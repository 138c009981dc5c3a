import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A spinner on a terminal imports ora, which imports string-width; src/io/text.ts require()s string-width on its
 * first measure. A require() that lands while ora's import is half-way through loading string-width throws
 * ("not yet fully loaded"): a table printed just after a spinner started would crash the command. Each attempt
 * needs a process of its own (a module loads once per process), measuring a few event-loop turns later each
 * time; the code is bundled as the build bundles it (a loader such as tsx changes the timing and hides the race).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';

beforeAll(async () => {
  // Inside the checkout, so that ora and string-width resolve from its node_modules.
  dir = mkdtempSync(join(ROOT, 'node_modules', '.width-race-'));
  await build({
    stdin: {
      contents: "export { createSpinner } from './src/io/progress.ts'; export { displayWidth } from './src/io/text.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: join(dir, 'io.mjs'),
    logLevel: 'silent',
  });
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import { PassThrough } from 'node:stream';
import { createSpinner, displayWidth } from './io.mjs';
const spinner = createSpinner({ stderr: new PassThrough(), interactive: true, color: false, columns: 80 }, 'loading');
for (let i = 0; i < Number(process.argv[2]); i++) await new Promise((r) => setImmediate(r));
let out;
try { out = String(displayWidth('日本')); } catch (e) { out = 'threw: ' + e.message.split('\\n')[0]; }
spinner.stop();
console.log(out);
`,
  );
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('measuring text while a spinner loads ora', () => {
  it('never finds string-width half-loaded', () => {
    const turns = Array.from({ length: 12 }, (_, i) => i);
    const results = turns.map((t) => execFileSync(process.execPath, [join(dir, 'probe.mjs'), String(t)], { encoding: 'utf8' }).trim());
    expect(results).toEqual(turns.map(() => '4')); // two wide characters
  }, 60_000);
});
