import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A spinner on a terminal imports ora, which imports string-width; src/io/text.ts require()s string-width on its
 * first measure. A require() that lands while ora's import is half-way through loading string-width throws
 * ("not yet fully loaded"): a table printed just after a spinner started would crash the command.
 *
 * The race is made certain instead of likely: a module customization hook (module.register) holds the load of
 * string-width until the probe has measured, so the measure always lands while string-width is half-loaded by
 * ora's import — unless src/io loaded it before starting that import (the fix), in which case the import finds it
 * loaded and the hook never sees it. A module loads once per process, hence a process per probe; the code is
 * bundled as the build bundles it (a loader such as tsx would change how string-width is loaded).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';

/**
 * The string-width src/io loads, and the one ora loads: the same file while ora's range takes the project's version.
 * When it does not (string-width 9 beside ora 9, which asks for ^8: `npm run deps:latest`), ora has a copy of its own,
 * whose loading can never leave src/io's half-loaded: there is no race to reproduce, and only src/io's copy is held
 * (holding ora's own copy would only hang the probe on Node 24, where the held load blocks the main thread).
 */
const fromRoot = createRequire(join(ROOT, 'package.json'));
const ourStringWidth = pathToFileURL(fromRoot.resolve('string-width')).href;
const orasStringWidth = pathToFileURL(createRequire(fromRoot.resolve('ora')).resolve('string-width')).href;
const oraSharesStringWidth = ourStringWidth === orasStringWidth;

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
  // Runs on the loader's thread: string-width's load waits for "go" from the probe, and the probe is told it began.
  writeFileSync(
    join(dir, 'hold-string-width.mjs'),
    `let port;
let release;
const released = new Promise((r) => (release = r));
export function initialize(data) {
  port = data.port;
  port.on('message', (m) => m === 'go' && release());
}
export async function load(url, context, next) {
  if (url === ${JSON.stringify(ourStringWidth)}) {
    port.postMessage('held');
    await released;
  }
  return next(url, context);
}
`,
  );
  // argv[2] "spinner": a spinner starts (src/io's way); "bare": ora is imported with nothing loaded first (the control).
  // Then, once string-width is held half-loaded or ora has loaded (whichever comes first), measure.
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import { register } from 'node:module';
import { PassThrough } from 'node:stream';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
register('./hold-string-width.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
const held = new Promise((r) => port1.on('message', (m) => m === 'held' && r()));
const { createSpinner, displayWidth } = await import('./io.mjs');
const spinner = process.argv[2] === 'spinner' ? createSpinner({ stderr: new PassThrough(), interactive: true, color: false, columns: 80 }, 'loading') : undefined;
const ora = import('ora');
await Promise.race([held, ora]);
let out;
try { out = String(displayWidth('日本')); } catch (e) { out = 'threw: ' + e.message.split('\\n')[0]; }
port1.postMessage('go');
await ora;
spinner?.stop();
port1.close();
console.log(out);
`,
  );
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const probe = (mode: 'spinner' | 'bare') => execFileSync(process.execPath, [join(dir, 'probe.mjs'), mode], { encoding: 'utf8', timeout: 30_000 }).trim();

// On Node 24 a require() goes through the module hooks too, so the held load blocks the probe's own measure (the
// probe hangs rather than throws): the control shows the hook's reproduction on Node 20 and 22 only (CI runs both).
// The test of the fix below runs on every Node.
const holdBlocksRequire = Number(process.versions.node.split('.')[0]) >= 24;

describe('measuring text while a spinner loads ora', () => {
  it.skipIf(holdBlocksRequire || !oraSharesStringWidth)('the probe does reproduce the race: measuring while ora half-loaded string-width throws', () => {
    expect(probe('bare')).toMatch(/^threw: .*string-width/);
  });

  it('never finds string-width half-loaded after a spinner started', () => {
    expect(probe('spinner')).toBe('4'); // two wide characters
  });
});
