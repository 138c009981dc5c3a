#!/usr/bin/env node
// `npm run build`: bundle src/ into dist/ with esbuild. ESM with code splitting, so every
// `await import('./x.js')` in src becomes its own chunk and loads only when used. The packages in package.json's
// `dependencies` stay in node_modules and likewise load only when imported; everything else src/ imports
// (commander, undici, zod: devDependencies) is bundled into the chunks that use it, which saves Node resolving,
// opening and compiling dozens of small files at each start (see README, Performance). A test checks that
// `dependencies` is exactly what dist/ imports at run time (test/unit/package.test.ts).
//
// dist/ holds only what runs: no source maps. esbuild's metafile goes to build/meta.json (tests read it), and
// dist/help/ gets the help of every command for the launcher's fast path (src/help/).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The entry point of the bundle (relative to the project root): the sandbox is a command of the CLI, not an entry of its own. */
const entryPoints = ['src/cli.ts'];

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (path) => new URL(`../${path}`, import.meta.url);
const { version, dependencies } = JSON.parse(readFileSync(at('package.json'), 'utf8'));

rmSync(at('dist'), { recursive: true, force: true });
rmSync(at('build'), { recursive: true, force: true });
mkdirSync(at('build'));

/**
 * commander requires node:child_process at the top of lib/command.js, for stand-alone executable sub-commands,
 * which notevox does not have; loading it (and dgram, net's pipes, …) cost every command ~1 ms. The require is
 * made lazy. A commander whose line differs fails the build, so that an update is looked at, not silently slower.
 */
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const line = "const childProcess = require('node:child_process');";
      if (source.split(line).length !== 2) throw new Error(`${args.path}: expected one \`${line}\` (scripts/build.mjs, lazyChildProcess)`);
      return { contents: source.replace(line, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
    });
  },
};

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
  external: Object.keys(dependencies),
  // Less for Node to read and compile at each start; names are kept, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // A `require` for CommonJS interop inside the ESM chunks (aliased so it cannot clash with bundled imports).
  banner: { js: "import { createRequire as __notevoxCreateRequire } from 'node:module'; const require = __notevoxCreateRequire(import.meta.url);" },
  define: { __NOTEVOX_VERSION__: JSON.stringify(version) },
  plugins: [lazyChildProcess],
  metafile: true,
  logLevel: 'warning',
});

// The launcher's help fast path on its own: one file with no chunk to import (not even esbuild's runtime).
const fast = await build({
  absWorkingDir: root,
  entryPoints: ['src/help/fast.ts'],
  outfile: 'dist/help/fast.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
});
const metafile = {
  inputs: { ...result.metafile.inputs, ...fast.metafile.inputs },
  outputs: { ...result.metafile.outputs, ...fast.metafile.outputs },
};

// What each output file contains and imports, for the start-up and package tests, and for curiosity.
writeFileSync(at('build/meta.json'), JSON.stringify(metafile));

// The help of every command, as the launcher answers it without loading the bundle (src/help/fast.ts). The
// model is read from the freshly built command tree through commander's Help and checked against commander's
// output at several widths; a command that does not match is left out (its help then comes from the bundle).
await build({
  absWorkingDir: root,
  entryPoints: ['src/help/model.ts'],
  outfile: 'build/help-model.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  logLevel: 'warning',
});
const { helpFiles } = await import(pathToFileURL(`${root}build/help-model.js`).href);
const { commandTree, exitCodesText } = await import(pathToFileURL(`${root}dist/cli.js`).href);
const { files, problems } = helpFiles(commandTree(), { 'exit-codes': exitCodesText() });
for (const [name, content] of Object.entries(files)) writeFileSync(at(`dist/help/${name}.json`), JSON.stringify(content));
for (const p of problems) console.error(`warning: no fast help for ${p}`);

const outputs = Object.entries(metafile.outputs);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const isEntry = (o) => [...entryPoints, 'src/help/fast.ts'].includes(o.entryPoint);
const entries = outputs.filter(([, o]) => isEntry(o)).map(([file, o]) => `${file} ${kb(o.bytes)}`);
const chunks = outputs.filter(([, o]) => !isEntry(o));
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
const helpBytes = Object.values(files).reduce((n, f) => n + JSON.stringify(f).length, 0);
console.error(`built ${entries.join(', ')} + ${chunks.length} chunks (${kb(total)} in all) + help of ${Object.keys(files).length} files (${kb(helpBytes)})`);
