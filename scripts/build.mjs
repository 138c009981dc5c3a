#!/usr/bin/env node
// `npm run build`: bundle src/ into dist/ with esbuild. ESM with code splitting, so every
// `await import('./x.js')` in src becomes its own chunk and loads only when used. Most dependencies stay in
// node_modules and likewise load only when imported; the few on the path of every command (BUNDLED) are
// bundled into the chunks that use them, which saves Node resolving, opening and compiling dozens of small
// files at each start (see README, Performance).
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Entry points (relative to the project root); those that do not exist (yet) are skipped. */
const ENTRIES = ['src/cli.ts', 'src/sandbox/server-entry.ts'];

/** commander parses every command line; undici serves every command that calls the API; zod, the sandbox and `--debug`. */
const BUNDLED = ['commander', 'undici', 'zod'];

const root = fileURLToPath(new URL('..', import.meta.url));
const { version, dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const entryPoints = ENTRIES.filter((e) => existsSync(new URL(`../${e}`, import.meta.url)));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints,
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: Object.keys(dependencies).filter((d) => !BUNDLED.includes(d)),
  sourcemap: 'linked',
  // Less for Node to read and compile at each start; names are kept, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // A `require` for CommonJS interop inside the ESM chunks (aliased so it cannot clash with bundled imports).
  banner: { js: "import { createRequire as __notevoxCreateRequire } from 'node:module'; const require = __notevoxCreateRequire(import.meta.url);" },
  define: { __NOTEVOX_VERSION__: JSON.stringify(version) },
  metafile: true,
  logLevel: 'warning',
});

// What each output file contains and imports, for the start-up test (test/e2e/core.test.ts) and for curiosity.
writeFileSync(new URL('../dist/meta.json', import.meta.url), JSON.stringify(result.metafile));

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => !file.endsWith('.map'));
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const isEntry = (o) => entryPoints.includes(o.entryPoint);
const entries = outputs.filter(([, o]) => isEntry(o)).map(([file, o]) => `${file} ${kb(o.bytes)}`);
const chunks = outputs.filter(([, o]) => !isEntry(o));
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
console.error(`built ${entries.join(', ')} + ${chunks.length} chunks (${kb(total)} in all, without source maps)`);
