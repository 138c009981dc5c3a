#!/usr/bin/env node
// `npm run build`: bundle src/ with esbuild (ESM with code splitting, into build/esbuild/), then re-chunk that with
// Rollup into dist/ (see rechunk below). Every `await import('./x.js')` in src stays lazy: it loads only when
// used. The packages in package.json's `dependencies` stay in node_modules and likewise load only when imported; everything else src/ imports
// (commander, undici, zod: devDependencies) is bundled into the chunks that use it, which saves Node resolving,
// opening and compiling dozens of small files at each start (see README, Performance). A test checks that
// `dependencies` is exactly what dist/ imports at run time (test/unit/package.test.ts).
//
// dist/ holds only what runs: no source maps. A metafile of dist/ in esbuild's format goes to build/meta.json (tests read it), and
// dist/help/ gets the help of every command for the launcher's fast path (src/help/).
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { rollup } from 'rollup';
import { acyclicGroups, chunkGroups } from './chunk-groups.mjs';
import { dirname, relative, sep } from 'node:path';
import { runInThisContext } from 'node:vm';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The entry point of the bundle (relative to the project root): the sandbox is a command of the CLI, not an entry of its own. */
const entryPoints = ['src/cli.ts'];

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (path) => new URL(`../${path}`, import.meta.url);
const { version, dependencies, engines } = JSON.parse(readFileSync(at('package.json'), 'utf8'));

// dist/exe/ (`npm run build:exe`, 100+ MB, slow to make) outlives a rebuild of the bundle; everything else goes.
for (const entry of existsSync(at('dist')) ? readdirSync(at('dist')) : []) if (entry !== 'exe') rmSync(at(`dist/${entry}`), { recursive: true, force: true });
rmSync(at('build'), { recursive: true, force: true });
mkdirSync(at('build'));

/**
 * Node's built-in modules through process.getBuiltinModule (Node >= 20.16), as CommonJS inside the bundle, instead
 * of ES imports. An ES import of a built-in builds its ES module facade, which reads every export: for node:fs that
 * runs the `promises` and `ReadStream` getters, loading fs/promises and the fs streams (about 7 ms of CPU on Node
 * 24 for `import { readFileSync } from 'node:fs'`, nothing through getBuiltinModule). esbuild then reads each
 * import as a property where it is used.
 */
/**
 * Built-ins loaded on first use rather than when required: commander requires node:child_process (with net and
 * dgram behind it, ~1-3 ms) at the top of its command module, for stand-alone executable sub-commands, which
 * notevox does not have. The module object is a Proxy that loads the real one when a property is first asked for
 * (also its keys, which is what an ES import of it does). Nothing depends on commander's code: were it to use the
 * module at once, it would simply load then.
 */
const LAZY_BUILTINS = new Set(['node:child_process']);
/**
 * The same as an ES module, for an ES import (commander 15 is ES only: `import childProcess from 'node:child_process'`):
 * its default export is the Proxy, and each function of the module (not a class) a named export that loads it when
 * called (`import { spawn }`). Through the CommonJS one, esbuild's interop would copy every property at import,
 * loading the module. Any other named import fails the build ("No matching export"): use the default export.
 */
const lazyBuiltinEsm = (id) => {
  const functions = Object.entries(Object.getOwnPropertyDescriptors(process.getBuiltinModule(id)))
    .filter(([name, d]) => typeof d.value === 'function' && !/^[A-Z]/.test(name) && /^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED.has(name))
    .map(([name]) => name);
  return [
    lazyBuiltin(id).replace('module.exports =', 'export default'),
    ...functions.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
  ].join('\n');
};
const lazyBuiltin = (id) => `let m;
const load = () => (m ??= process.getBuiltinModule(${JSON.stringify(id)}));
module.exports = new Proxy({}, {
  get: (_, k) => load()[k],
  has: (_, k) => k in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, k) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), k);
    return d && { ...d, configurable: true };
  },
});`;

/**
 * A built-in as an ES module for ES imports: `export const readFileSync = …` per value of the module, each marked
 * pure, so that esbuild keeps only the names the bundle imports. Imported as CommonJS, every chunk that used a
 * built-in copied all its properties into a namespace object at load (esbuild's __toESM: ~2-3 ms of a one-request
 * command on Node 24, over fs, path, os, stream, tty …). The names are the module's own properties whose value is
 * a plain value; a getter (fs.promises, fs.ReadStream, process.stdout, …) is no export, so that nothing is read
 * before it is used: an ES import of one fails the build ("No matching export") and must go through the default
 * export (`import fs from 'node:fs'`, read where used). A name of a newer Node than the build's is no export either.
 */
const esmBuiltin = (id) => {
  const names = Object.entries(Object.getOwnPropertyDescriptors(process.getBuiltinModule(id)))
    .filter(([name, d]) => 'value' in d && name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED.has(name))
    .map(([name]) => name);
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(id)});`,
    'export default m;',
    ...names.map((name) => `export const ${name} = /* @__PURE__ */ (() => m.${name})();`),
  ].join('\n');
};
const RESERVED = new Set(['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield', 'let', 'static', 'implements', 'interface', 'package', 'private', 'protected', 'public', 'await']);

const builtinsAsCommonJs = {
  name: 'builtins-through-getBuiltinModule',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const id = args.path.replace(/^node:/, '');
      if (!args.path.startsWith('node:') && !builtinModules.includes(id)) return undefined;
      // A dynamic import() stays an ES import (it loads when used): esbuild would make the CommonJS module an entry
      // chunk of its own whose namespace has a default export only.
      if (args.kind === 'dynamic-import') return undefined;
      // node:module stays an ES import: `createRequire(import.meta.url)` calls then keep their form, in which the
      // package test finds the packages loaded through them (its facade costs nothing measurable).
      if (id === 'module') return undefined;
      // A path of its own per module (`node_fs_promises`, not `promises`): esbuild names the module's code after it.
      // An ES import gets an ES module of its own (esmBuiltin), a require() the CommonJS one.
      const esm = args.kind === 'import-statement';
      return { path: `node_${id.replace(/\//g, '_')}${esm ? '_esm' : ''}`, namespace: 'node-builtin', pluginData: { id: `node:${id}`, esm } };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const { id, esm } = args.pluginData;
      if (LAZY_BUILTINS.has(id)) return { contents: esm ? lazyBuiltinEsm(id) : lazyBuiltin(id), loader: 'js' };
      if (esm) return { contents: esmBuiltin(id), loader: 'js' };
      return { contents: `module.exports = process.getBuiltinModule(${JSON.stringify(id)});`, loader: 'js' };
    });
  },
};

const esbuilt = await build({
  absWorkingDir: root,
  entryPoints,
  outbase: 'src',
  outdir: 'build/esbuild',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  external: Object.keys(dependencies),
  // Less for Node to read and compile at each start; names are kept, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // A `require` for CommonJS interop inside the ESM chunks (aliased so it cannot clash with bundled imports), made
  // on its first call: every esbuild chunk gets this banner and Rollup keeps one per chunk it folds in (~60 in what
  // `notes get` loads), each a createRequire at load (a Module and its lookup paths) for a require that few chunks
  // ever call. esbuild's __require calls it as `require.apply(…)`.
  banner: { js: "let requireMade; const require = function (id) { return (requireMade ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id); };" },
  define: { __NOTEVOX_VERSION__: JSON.stringify(version), __NOTEVOX_NODE_ENGINES__: JSON.stringify(engines.node) },
  plugins: [builtinsAsCommonJs],
  metafile: true,
  logLevel: 'warning',
});

/**
 * esbuild splits code by the set of entry points (here: every `import()`) that reach it, without knowing that a
 * lazily imported chunk only ever loads after the entry that imports it. Every module that cli.js and some lazy
 * chunk share became a chunk of its own (a few hundred bytes each): `notes get` loaded 41 files, and Node's ESM
 * loader costs ~1 ms per file (resolve, read, link) at every start. Rollup re-chunks esbuild's output knowing
 * which modules are already loaded when an `import()` runs, so those are folded into the chunks that load them
 * (`notes get`: 19 files). Laziness is unchanged: what was behind an `import()` still is.
 */
/**
 * What nearly every API command loads after start-up (config, credentials, the client, the endpoint table, the
 * renderer): one chunk instead of a dozen, each costing its own resolve and read. zod and undici stay out of it,
 * and so does post-json.ts: it imports node:http as an ES module, which on Node ≥ 22 reads every export of it and
 * so loads Node's own undici (the node:http transport takes the module through getBuiltinModule instead).
 */
const API_CORE = [
  /^src\/config\//,
  /^src\/client\/(?!undici-transport\.ts$|post-json\.ts$)/,
  // The answer check (answers.ts, and response-check.ts reading the build's slice of docs/openapi.json): every
  // read checks its answer, so it is part of what every API command loads.
  /^src\/contract\/(endpoints|types|errors|scopes|answers|response-check)\.ts$/,
  /^src\/io\/(render|table|values)\.ts$/,
  /^src\/(timing|commands\/resolve|commands\/list)\.ts$/,
  // Built-ins that Node has loaded before any user code (taking them costs nothing), which esbuild made chunks of
  // their own when shared by lazy chunks: a file each to resolve and read.
  /^node-builtin:node_(url|path|fs|events|buffer|util|process)(_esm)?$/,
];

async function rechunk(from, to, esbuildMeta) {
  const rel = (id) => relative(root, id).split(sep).join('/');
  const sources = (out) => {
    const o = esbuildMeta.outputs[out];
    return o ? [...(o.entryPoint ? [o.entryPoint] : []), ...Object.keys(o.inputs)] : [];
  };
  const isApiCore = (out) => {
    const s = sources(out);
    return s.length > 0 && s.every((src) => API_CORE.some((re) => re.test(src)));
  };
  // main's commander path (commander, the command tree, every group's registration) in one chunk of its own.
  const assigned = acyclicGroups(chunkGroups(esbuildMeta, `${rel(from)}/cli.js`, isApiCore, { program: 'src/cli-program.ts' }));
  const external = (id) => id.startsWith('node:') || builtinModules.includes(id) || Object.keys(dependencies).some((d) => id === d || id.startsWith(`${d}/`));
  const bundle = await rollup({
    input: `${from}/cli.js`,
    external,
    // The entry's chunk may export more than cli.ts does (what the lazy chunks import from it): otherwise Rollup
    // writes dist/cli.js as a facade re-exporting the `cli` chunk, one more file to resolve and read at every start.
    preserveEntrySignatures: 'allow-extension',
    // esbuild has already removed what is unused; Rollup only moves modules between chunks.
    treeshake: false,
    onwarn: (w) => {
      throw new Error(`rollup: ${w.message}`);
    },
  });
  const { output } = await bundle.write({
    dir: to,
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    minifyInternalExports: true,
    // Every member of a group is named (chunkGroups): nothing is pulled into a group behind the build's back.
    manualChunks: (id) => assigned.get(rel(id)),
  });
  await bundle.close();
  return output.filter((o) => o.type === 'chunk');
}
const rolled = await rechunk(`${root}build/esbuild`, `${root}dist`, esbuilt.metafile);

/**
 * The metafile of what dist/ holds, in esbuild's format (the tests read it): each output's source inputs are those
 * of the esbuild chunks folded into it, its imports those Rollup wrote.
 */
function composeMeta(esbuildMeta, chunks) {
  const esbuildOutput = (id) => esbuildMeta.outputs[relative(root, id).split(sep).join('/')];
  const distPath = (fileName) => `dist/${fileName}`;
  const outputs = {};
  for (const c of chunks) {
    const inputs = {};
    for (const id of Object.keys(c.modules)) Object.assign(inputs, esbuildOutput(id)?.inputs ?? {});
    const imports = [
      ...c.imports.map((path) => (chunks.some((o) => o.fileName === path) ? { path: distPath(path), kind: 'import-statement' } : { path, kind: 'import-statement', external: true })),
      ...c.dynamicImports.map((path) => (chunks.some((o) => o.fileName === path) ? { path: distPath(path), kind: 'dynamic-import' } : { path, kind: 'dynamic-import', external: true })),
    ];
    outputs[distPath(c.fileName)] = { bytes: Buffer.byteLength(c.code), inputs, imports, ...(c.isEntry ? { entryPoint: 'src/cli.ts' } : {}) };
  }
  return { inputs: esbuildMeta.inputs, outputs };
}
const result = { metafile: composeMeta(esbuilt.metafile, rolled) };

/**
 * The hot bundle (src/hot.ts): the fast path's commands (`notes get <guid>`, `voice upload <file>`, src/fast-path.ts) as one CommonJS file
 * with everything they may reach (the node:http and undici transports, the answer check, --debug's zod), for the
 * launcher to run through node:vm with a code cache made after the command ran (bin/notevox.js, loadHot): that
 * cache holds the code of every function the command ran, where Node's compile cache of the ES chunks holds only
 * what was compiled with each module (the rest compiled again at each start: ~5 ms of `notes get`). Its name
 * carries a hash of its content, which keys the launcher's cache file (V8 checks a cache against the source's length
 * only). Modules are evaluated on first import as in the chunks; `dependencies` stay in node_modules. Commander's
 * path (cli-program.ts, and program.ts for the build) is left out: the launcher runs this file's main only for a
 * command line parseFast takes, and dist/cli.js for any other; reaching it here is an error that says so.
 */
const COMMANDER_PATH = /^\.\/(cli-program|program)\.js$/;
/**
 * What the hot bundle leaves to the ES chunks, loaded from there when reached: undici (the transport through a
 * proxy) and the response schemas with zod (the opt-in check of --debug), most of the 1 MB that the file would be
 * otherwise (reading it and its code cache cost every start). Both are libraries the hot code only calls (their
 * chunks' copies of the core modules they import hold no state the hot code shares); the chunk of each is the one
 * Rollup wrote for its `import()`, in the same directory as the hot bundle.
 */
const HOT_ELSEWHERE = { undici: 'node_modules/undici/index.js', '../contract/endpoint-schemas.js': 'src/contract/endpoint-schemas.ts' };
const esChunkFor = (entryPoint) => {
  const esbuildOut = Object.entries(esbuilt.metafile.outputs).find(([, o]) => o.entryPoint === entryPoint)?.[0];
  const chunk = esbuildOut && rolled.find((c) => c.facadeModuleId && relative(root, c.facadeModuleId).split(sep).join('/') === esbuildOut);
  if (!chunk) throw new Error(`build: no chunk of dist/ is the import() of ${entryPoint}, which the hot bundle loads from there`);
  return `./${chunk.fileName.replace(/^chunks\//, '')}`;
};
const hot = await build({
  absWorkingDir: root,
  entryPoints: ['src/hot.ts'],
  outdir: 'dist/chunks',
  // Named after a hash of its final content below (hot-<hash>.cjs).
  entryNames: '[name]',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22.13',
  external: Object.keys(dependencies),
  minifyWhitespace: true,
  minifySyntax: true,
  // The file is the function Node's loader would wrap a CommonJS module in, so that the launcher compiles it as it
  // is: wrapping it there made a second copy of its 130 kB text (and a young-generation GC in `notes get`).
  // `import.meta.url` of the modules of src/ is this file's URL (dist/chunks/, as the ES chunks are).
  // Its import() of a package or chunk is rewritten below into a call of __notevoxImport, which the launcher passes.
  banner: { js: `(function (exports, require, module, __filename, __dirname, __notevoxImport) { 'use strict'; var __notevoxHotUrl = require('node:url').pathToFileURL(__filename).href;` },
  footer: { js: '})' },
  define: { __NOTEVOX_VERSION__: JSON.stringify(version), __NOTEVOX_NODE_ENGINES__: JSON.stringify(engines.node), 'import.meta.url': '__notevoxHotUrl' },
  plugins: [
    {
      name: 'hot-without-commander',
      setup(b) {
        b.onResolve({ filter: COMMANDER_PATH }, (args) => (args.importer.endsWith(`${sep}src${sep}cli.ts`) ? { path: args.path, namespace: 'hot-absent' } : undefined));
        b.onResolve({ filter: /^(undici|\.\.\/contract\/endpoint-schemas\.js)$/ }, (args) =>
          args.kind === 'dynamic-import' && HOT_ELSEWHERE[args.path] ? { path: esChunkFor(HOT_ELSEWHERE[args.path]), external: true } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'hot-absent' }, (args) => ({
          contents: `throw new Error(${JSON.stringify(`notevox: ${args.path} is not in the hot bundle, which runs only the command lines of the fast path (bin/notevox.js runs dist/cli.js for the others)`)});`,
          loader: 'js',
        }));
      },
    },
  ],
  metafile: true,
  logLevel: 'warning',
});
const [hotBuilt, hotOutput] = Object.entries(hot.metafile.outputs).find(([, o]) => o.entryPoint === 'src/hot.ts');
// What the launcher reads to choose it: the file, and the words of the commands it runs (fast-path.ts FAST_COMMANDS).
/**
 * An import() in code that node:vm compiled needs vm's importModuleDynamically, whose one form without a flag
 * (vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER) prints an ExperimentalWarning when used (ora's spinner, a proxy,
 * --debug). So each import() the hot bundle keeps (a package of `dependencies`, or a chunk: esbuild's metafile lists
 * them) calls the launcher's __notevoxImport instead, an import() of the launcher's own, which Node runs as for
 * any module. Any other `import(` in the file fails the build.
 */
const dynamicExternals = new Set(hotOutput.imports.filter((i) => i.external && i.kind === 'dynamic-import').map((i) => i.path));
const hotCode = readFileSync(`${root}${hotBuilt}`, 'utf8').replace(/\bimport\(("[^"\\]+")\)/g, (whole, literal) => {
  if (!dynamicExternals.has(JSON.parse(literal))) throw new Error(`build: the hot bundle has ${whole}, which its metafile does not list as an import()`);
  return `__notevoxImport(${literal})`;
});
if (/\bimport\s*\(/.test(hotCode)) throw new Error(`build: the hot bundle has an import() the build cannot rewrite: ${/.{0,60}\bimport\s*\(.{0,60}/.exec(hotCode)[0]}`);
// The name carries a hash of the content, which keys the launcher's code cache (V8 checks only the length).
const hotHash = createHash('sha256').update(hotCode).digest('base64url').slice(0, 10);
const hotFile = `dist/chunks/hot-${hotHash}.cjs`;
const hotPath = `${root}${hotFile}`;
rmSync(`${root}${hotBuilt}`);
writeFileSync(hotPath, hotCode);
const hotModule = { exports: {} };
const importFromBuild = (specifier) => import(specifier.startsWith('./') ? pathToFileURL(`${dirname(hotPath)}/${specifier.slice(2)}`).href : specifier);
runInThisContext(hotCode, { filename: hotPath })(hotModule.exports, createRequire(hotPath), hotModule, hotPath, dirname(hotPath), importFromBuild);
const { FAST_COMMANDS } = hotModule.exports;
writeFileSync(at('dist/hot.json'), JSON.stringify({ file: relative('dist', hotFile).split(sep).join('/'), commands: FAST_COMMANDS.map((c) => c.words) }));
// Its imports of the ES chunks (HOT_ELSEWHERE) are files of dist/, as in the metafile of the chunks.
const hotImports = hotOutput.imports.map((i) => (i.external && i.path.startsWith('./') ? { path: `dist/chunks/${i.path.slice(2)}`, kind: i.kind } : i));
Object.assign(result.metafile.outputs, { [hotFile]: { ...hotOutput, bytes: Buffer.byteLength(hotCode), imports: hotImports } });

// The launcher's help fast path on its own: one file with no chunk to import (not even esbuild's runtime), in
// CommonJS as the launcher is (bin/notevox.js: help then loads no ES module), `import.meta.url` being its own path.
const fast = await build({
  absWorkingDir: root,
  entryPoints: ['src/help/fast.ts'],
  outfile: 'dist/help/fast.cjs',
  bundle: true,
  format: 'cjs',
  define: { 'import.meta.url': '__notevoxFastUrl' },
  banner: { js: "const __notevoxFastUrl = require('node:url').pathToFileURL(__filename).href;" },
  platform: 'node',
  target: 'node22.13',
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
  target: 'node22.13',
  logLevel: 'warning',
});
const { helpFiles } = await import(pathToFileURL(`${root}build/help-model.js`).href);
const { commandIndex, commandTree, exitCodesText } = await (await import(pathToFileURL(`${root}dist/cli.js`).href)).buildTime();
// Which registration adds each top-level command: main then registers only the invoked command's group (src/program.ts).
writeFileSync(at('dist/command-index.json'), JSON.stringify(commandIndex()));
const { files, problems } = helpFiles(commandTree(), { 'exit-codes': exitCodesText() });
for (const [name, content] of Object.entries(files)) writeFileSync(at(`dist/help/${name}.json`), JSON.stringify(content));
for (const p of problems) console.error(`warning: no fast help for ${p}`);

// Each endpoint's slice of docs/openapi.json (its success answers and the components they reach), read by the answer
// check of a one-request command instead of the whole document (src/contract/response-check.ts, sliceDocument).
await build({
  absWorkingDir: root,
  entryPoints: ['src/contract/response-check.ts'],
  outfile: 'build/response-check.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  logLevel: 'warning',
});
const { sliceDocument } = await import(pathToFileURL(`${root}build/response-check.js`).href);
const slices = sliceDocument(JSON.parse(readFileSync(at('docs/openapi.json'), 'utf8')));
mkdirSync(at('dist/response-schemas'));
for (const [id, slice] of Object.entries(slices)) writeFileSync(at(`dist/response-schemas/${id}.json`), JSON.stringify(slice));

// The demo seed as a ready database (src/sandbox/demo-image.ts), beside the chunks: `sandbox start` opens a copy of
// it instead of checking and inserting the seed at every start.
await build({
  absWorkingDir: root,
  entryPoints: ['src/sandbox/demo-image.ts'],
  outfile: 'build/demo-image.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  external: Object.keys(dependencies),
  logLevel: 'warning',
});
const { buildDemoImage, DEMO_IMAGE_FILE } = await import(pathToFileURL(`${root}build/demo-image.js`).href);
await buildDemoImage(fileURLToPath(at(`dist/chunks/${DEMO_IMAGE_FILE}`)));
const demoImage = readFileSync(at(`dist/chunks/${DEMO_IMAGE_FILE}`));

const outputs = Object.entries(metafile.outputs);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const isEntry = (o) => [...entryPoints, 'src/help/fast.ts'].includes(o.entryPoint);
const entries = outputs.filter(([, o]) => isEntry(o)).map(([file, o]) => `${file} ${kb(o.bytes)}`);
const chunks = outputs.filter(([, o]) => !isEntry(o));
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
const helpBytes = Object.values(files).reduce((n, f) => n + JSON.stringify(f).length, 0);
console.error(`built ${entries.join(', ')} + ${chunks.length} chunks (${kb(total)} in all) + help of ${Object.keys(files).length} files (${kb(helpBytes)}) + the demo seed's database (${kb(demoImage.length)})`);
