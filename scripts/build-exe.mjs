#!/usr/bin/env node
// `npm run build:exe`: notevox as one executable file for this machine, dist/exe/notevox-<os>-<arch> (.exe on
// Windows), a Node.js single executable application (https://nodejs.org/api/single-executable-applications.html):
//   1. esbuild bundles src/exe.ts (the CLI, every dependency included) into one CommonJS file that requires only
//      Node's built-in modules: build/exe/notevox.cjs;
//   2. Node writes the preparation blob of that file, with the files the CLI reads at run time as assets
//      (docs/openapi.json for the answer check, the demo seed's database and the help files from `npm run build`)
//      and V8's code cache;
//   3. the blob is injected into a copy of the Node.js binary with postject.
// The Node.js embedded is the one running this script when it is new enough (NODE_MIN below), else Node 24 through
// scripts/with-node.sh. NOTEVOX_EXE_NODE=/path/to/node picks another binary of the same platform (docs/install.md
// for other platforms). Prints the file, its size and the Node.js inside.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';

const NODE_MIN = [22, 13];
const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => `${root}${p}`;

const tooOld = (v) => {
  const [major, minor] = v.split('.').map(Number);
  return major < NODE_MIN[0] || (major === NODE_MIN[0] && minor < NODE_MIN[1]);
};
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return r;
};

const nodeBinary = process.env.NOTEVOX_EXE_NODE || process.execPath;
const nodeVersion = spawnSync(nodeBinary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
if (!nodeVersion) throw new Error(`cannot run ${nodeBinary}`);
if (tooOld(nodeVersion)) {
  if (process.env.NOTEVOX_EXE_NODE) throw new Error(`NOTEVOX_EXE_NODE is Node.js ${nodeVersion}; the executable needs ${NODE_MIN.join('.')} or newer`);
  if (process.platform === 'win32') throw new Error(`this is Node.js ${nodeVersion}; run the build with Node.js ${NODE_MIN.join('.')} or newer`);
  console.error(`build-exe: this is Node.js ${nodeVersion}; building with Node.js 24 (scripts/with-node.sh)`);
  const r = spawnSync('bash', [at('scripts/with-node.sh'), '24', 'node', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const { version, engines } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
const os = process.platform === 'win32' ? 'windows' : process.platform;
const exeName = `notevox-${os}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
const outDir = at('dist/exe');
const work = at('build/exe');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(outDir, { recursive: true });

// The demo seed's database comes from `npm run build` (dist/chunks/); build it when it is not there.
const chunks = at('dist/chunks');
const demoImage = () => (existsSync(chunks) ? readdirSync(chunks).find((f) => f.endsWith('.db')) : undefined);
if (!demoImage()) run(process.execPath, [at('scripts/build.mjs')], { cwd: root });
const demo = demoImage();
if (!demo) throw new Error('npm run build wrote no demo seed database into dist/chunks/');

/**
 * `const x = createRequire(import.meta.url)` and then `x('pkg')`: how src/ loads a few packages lazily and
 * synchronously from node_modules. In one file with nothing outside, they must be bundled: `x('pkg')` becomes
 * `require('pkg')`, which esbuild bundles. `x.resolve(…)` (a path into node_modules) cannot work in an executable
 * and is left for the test of the executable to find.
 */
const bundleLazyRequires = {
  name: 'bundle-lazy-requires',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const m = /const (\w+) = createRequire\(import\.meta\.url\);/.exec(source);
      if (!m) return undefined;
      const contents = source.replace(new RegExp(`\\b${m[1]}\\((['"][^'"]+['"])\\)`, 'g'), 'require($1)');
      return { contents, loader: 'ts' };
    });
  },
};

const bundle = `${work}/notevox.cjs`;
const built = await build({
  absWorkingDir: root,
  entryPoints: ['src/exe.ts'],
  outfile: bundle,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: `node${NODE_MIN.join('.')}`,
  minifyWhitespace: true,
  minifySyntax: true,
  // In the executable `__filename` is the executable itself: what `import.meta.url` means in the modules of src/.
  banner: { js: "var __notevoxModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: {
    __NOTEVOX_VERSION__: JSON.stringify(version),
    __NOTEVOX_NODE_ENGINES__: JSON.stringify(engines.node),
    'import.meta.url': '__notevoxModuleUrl',
  },
  plugins: [bundleLazyRequires],
  metafile: true,
  logLevel: 'warning',
});
// What esbuild left outside the bundle, from its own account (the metafile), not from a text search: bundled code
// may hold `require("…")` inside strings (ajv's code generator, in the MCP SDK, writes them for its standalone mode).
const leftover = Object.values(built.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.external && !isBuiltin(i.path))
  .map((i) => i.path);
if (leftover.length) throw new Error(`the executable's bundle requires from outside itself: ${[...new Set(leftover)].join(', ')}`);

// 2. The preparation blob: the bundle, its code cache (this platform only: docs/install.md), the assets.
const blob = `${work}/sea-prep.blob`;
const seaConfig = {
  main: bundle,
  output: blob,
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: true,
  assets: {
    'openapi.json': at('docs/openapi.json'),
    [demo]: `${chunks}/${demo}`,
    // The help of every command as the build generated it (the launcher's fast path, src/help/fast.ts).
    ...Object.fromEntries(readdirSync(at('dist/help')).filter((f) => f.endsWith('.json')).map((f) => [`help/${f}`, at(`dist/help/${f}`)])),
  },
};
writeFileSync(`${work}/sea-config.json`, JSON.stringify(seaConfig, null, 2));
run(nodeBinary, ['--experimental-sea-config', `${work}/sea-config.json`], { cwd: root });

// 3. A copy of Node.js with the blob injected (macOS: the signature removed first and made again, ad hoc).
const exe = `${outDir}/${exeName}`;
rmSync(exe, { force: true });
copyFileSync(nodeBinary, exe);
chmodSync(exe, 0o755);
if (process.platform === 'darwin') run('codesign', ['--remove-signature', exe]);
// Linux: Node's official binary carries its debug symbols (about 18 MB of 127); the executable does without them.
const stripped = process.platform === 'linux' && spawnSync('strip', [exe]).status === 0;
const { inject } = await import('postject');
await inject(exe, 'NODE_SEA_BLOB', readFileSync(blob), {
  sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
});
if (process.platform === 'darwin') run('codesign', ['--sign', '-', exe]);

const check = spawnSync(exe, ['--version'], { encoding: 'utf8' });
if (check.status !== 0 || check.stdout.trim() !== `notevox ${version}`) throw new Error(`${exe} --version answered ${JSON.stringify(check.stdout + check.stderr)}`);
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
console.error(`built ${exe.slice(root.length)} ${mb(statSync(exe).size)} (Node.js ${nodeVersion}${stripped ? ', symbols stripped' : ''}; bundle ${mb(statSync(bundle).size)})`);
