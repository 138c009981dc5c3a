#!/usr/bin/env node
// The notevox launcher. `--version` / `-V` alone is answered from package.json without loading the
// bundle or any dependency (`--version --verbose` adds the Node.js and platform versions, for bug reports);
// `--help`, `-h` and `help <command>` are answered from the help text generated at build time
// (dist/help/, src/help/fast.ts), byte for byte what commander prints, or else by the bundle; everything else
// checks the Node version and runs dist/cli.js.
// Plain JavaScript with no recent syntax, so that an old Node still reaches the version check.
// CommonJS (bin/package.json says so): as an ES module importing node:fs it cost ~5 ms more of CPU on Node 24
// (node:fs's ES facade loads fs/promises and the fs streams), which `--version` and help need not pay; the bundle
// is still imported as ES modules, only when needed.
'use strict';
const { existsSync, readFileSync, writeFileSync, writeSync } = require('node:fs');
const { dirname, join, sep } = require('node:path');

/** The oldest Node.js notevox runs on: node:sqlite without a flag (package.json engines; README, Supported Node.js versions). */
const MIN_NODE = [22, 13];
const SUPPORTED = 'Node.js 22 (22.13 or newer), 24 and newer';
const args = process.argv.slice(2);

/**
 * dist/ of this package, and a file in it named by a path with `/` (hot.json names the hot bundle so). Joined by hand
 * on the commands' way: path.join normalises each path character by character in interpreted code, ~0.2 ms of a
 * one-request command's CPU for paths that have nothing to normalise (__dirname is absolute and normalised already).
 */
const PACKAGE_DIR = dirname(__dirname);
const DIST_DIR = PACKAGE_DIR + (PACKAGE_DIR.endsWith(sep) ? '' : sep) + 'dist';
function inDist(file) {
  return DIST_DIR + sep + (sep === '/' ? file : file.split('/').join(sep));
}

function version() {
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
}

/** `notevox --version --verbose`: what a bug report needs to know about this installation. */
async function verboseVersion() {
  const os = require('node:os');
  return [
    'notevox ' + version(),
    'node ' + process.version + ' (v8 ' + process.versions.v8 + ')' + (supported() ? '' : ' (not supported)'),
    'platform ' + process.platform + ' ' + process.arch + ' (' + os.type() + ' ' + os.release() + ')',
    'installed at ' + join(__dirname, '..') + require('node:path').sep,
    'supported ' + SUPPORTED,
  ].join('\n') + '\n';
}

/**
 * notevox's directory of compiled code: NODE_COMPILE_CACHE when the user sets it, else compile-cache/ in notevox's
 * cache directory (NOTEVOX_CACHE_DIR, else $XDG_CACHE_HOME/notevox, else ~/.cache/notevox); undefined when
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, or no directory can be named.
 */
function compileCacheDir() {
  const env = process.env;
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  let base;
  if (env.NOTEVOX_CACHE_DIR) base = env.NOTEVOX_CACHE_DIR;
  else if (env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/')) base = env.XDG_CACHE_HOME + '/notevox';
  else if (process.platform === 'win32' && env.LOCALAPPDATA) base = env.LOCALAPPDATA + '\\notevox';
  else if (env.HOME) base = env.HOME + '/.cache/notevox';
  else return undefined;
  return base + (process.platform === 'win32' ? '\\' : '/') + 'compile-cache';
}

/**
 * Node's compile cache (Node >= 22.1; absent on older Node, where this does nothing): the V8 code of every module
 * loaded after this point (the help fast path, the bundle's chunks, the dependencies) is kept on disk and reused by
 * the next run, instead of being compiled again at each start. It lives in compileCacheDir(); Node keys it by its
 * own version and checks each entry against the file's content. NODE_COMPILE_CACHE, set by the user, wins (Node
 * then enables it itself); NODE_DISABLE_COMPILE_CACHE=1 turns it off. A cache that cannot be written costs nothing
 * but the speed-up.
 */
function enableCompileCache() {
  // node:module is not in Node's start-up snapshot: loaded here, when it is used, not by every command at start.
  const nodeModule = require('node:module');
  if (typeof nodeModule.enableCompileCache !== 'function' || process.env.NODE_COMPILE_CACHE) return;
  const dir = compileCacheDir();
  if (dir === undefined) return;
  try {
    nodeModule.enableCompileCache(dir);
  } catch {
    // not fatal: the modules are compiled as without a cache
  }
}

/**
 * The hot bundle (scripts/build.mjs, src/hot.ts): dist/hot.json names it and the words of the commands it runs.
 * Undefined when the command line does not name every word of one of them (or the build wrote none): the whole
 * bundle runs it. `words` are those of the command named, whose code cache it loads (loadHot).
 */
function hotBundle() {
  if (args.length < 2) return undefined;
  let hot;
  try {
    hot = JSON.parse(readFileSync(inDist('hot.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const words = hot.commands.find(function (words) {
    return words.every(function (w) {
      return args.includes(w);
    });
  });
  return words ? { file: hot.file, words: words } : undefined;
}

/**
 * Load the hot bundle, a CommonJS module, as Node's loader would (the same wrapper, written into the file by the
 * build, a require of the same modules and the same file name, so stack traces name its lines), but compiled through node:vm with a V8
 * code cache of its own: made when the command has run (at exit), it holds the code of every function the command
 * ran, where Node's compile cache holds only what was compiled with the module, the rest being compiled again at
 * each start. So there is one per command of the bundle (`notes get`'s would hold none of `voice upload`'s code,
 * which would then be compiled again at each of its starts). The cache file is named after the
 * bundle (its name carries a hash of its content: V8 checks a cache against the source's length only), the
 * command's words, and this Node's version and architecture; V8 rejects one made with other flags, and then it is made again. It is written
 * when there was none (or only one of a failed run), or V8 rejected it, at the exit of a process that ran the
 * command (cacheAtExit), and not when V8's flags changed during the run (wasmTierApplied). A cache that cannot be
 * read or written costs nothing but the speed-up. Undefined when the file cannot be read.
 */
function loadHot(hot) {
  const vm = require('node:vm');
  const file = inDist(hot.file);
  const fileDir = dirname(file);
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined; // not there (a dist/ being rebuilt): the whole bundle runs the command
  }
  const dir = compileCacheDir();
  // `<name>.v8cache` is made by a run that ended with exit code 0; `<name>.partial.v8cache` by one that did not
  // (`notes get` before `auth login`): it holds the code of a failure only, and is replaced once a run succeeds.
  const name = hot.file.slice(hot.file.lastIndexOf('/') + 1).replace(/\.cjs$/, '') + '-' + hot.words.join('-') + '-' + process.version + '-' + process.arch;
  const base = dir && dir + sep + name;
  let cachedData;
  let full = false;
  if (base) {
    try {
      cachedData = readFileSync(base + '.v8cache');
      full = true;
    } catch {
      try {
        cachedData = readFileSync(base + '.partial.v8cache');
      } catch {
        // none yet
      }
    }
  }
  // The file is the function Node's loader would wrap a CommonJS module in (scripts/build.mjs): compiled as it is.
  const script = new vm.Script(source, { filename: file, cachedData: cachedData });
  // The hot bundle's import() of a package or of a chunk beside it (scripts/build.mjs rewrites them into calls of
  // this): an import() of this module's, which needs no vm option (the one without a flag prints an
  // ExperimentalWarning). A package resolves from bin/ as from dist/chunks/: both are in the package. Node's compile
  // cache is turned on before the first: the hot bundle's own code has its cache above, and a command that imports
  // nothing (notes get) does not pay for turning it on (a directory made or checked, its key computed).
  let compileCacheOn = false;
  const importFromHot = function (specifier) {
    if (!compileCacheOn) {
      compileCacheOn = true;
      enableCompileCache();
    }
    return import(specifier.startsWith('./') ? require('node:url').pathToFileURL(join(fileDir, specifier)).href : specifier);
  };
  // The bundle's require() takes Node's built-ins only (scripts/build.mjs keeps packages behind import()), which
  // getBuiltinModule returns as require() does; a require() of the file's own is made if anything else is asked.
  let requireFromFile;
  const requireHot = function (id) {
    if (id.startsWith('node:')) return process.getBuiltinModule(id);
    if (!requireFromFile) requireFromFile = require('node:module').createRequire(file);
    return requireFromFile(id);
  };
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, requireHot, mod, file, fileDir, importFromHot);
  const exports = mod.exports;
  const usable = cachedData !== undefined && !script.cachedDataRejected;
  exports.cacheAtExit = function () {
    if (!base || (usable && full)) return;
    process.once('exit', function (code) {
      if (exports.wasmTierApplied()) return;
      const succeeded = code === 0;
      if (usable && !succeeded) return; // a partial one is there already
      const cacheFile = base + (succeeded ? '.v8cache' : '.partial.v8cache');
      const fs = require('node:fs');
      const temp = cacheFile + '.' + process.pid + '.tmp';
      try {
        fs.mkdirSync(dir, { recursive: true });
        writeFileSync(temp, script.createCachedData());
        fs.renameSync(temp, cacheFile);
        if (succeeded) fs.rmSync(base + '.partial.v8cache', { force: true });
        sweepHotCaches(fs, dir, name);
      } catch {
        try {
          fs.rmSync(temp, { force: true });
        } catch {
          // nothing more to do
        }
      }
    });
  };
  return exports;
}

/** Hot caches of other builds or Node versions untouched this long are removed when a cache is written. */
const HOT_CACHE_MAX_AGE_MS = 14 * 24 * 3600 * 1000;

/**
 * Remove, from the cache directory `dir`, the hot caches that no longer serve: those of other bundles or Node
 * versions (each build and each Node makes its own) not written for HOT_CACHE_MAX_AGE_MS, and temporary files a
 * killed writer left (an hour old); another command's cache of this bundle goes too when that old, the command
 * unused meanwhile. Runs only when a cache was just written, which happens once per build, Node version and
 * command; a cache still in use elsewhere that it removes is made again by that use's next run.
 */
function sweepHotCaches(fs, dir, keep) {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith('hot-') || name.startsWith(keep + '.')) continue;
    const temp = name.endsWith('.tmp');
    if (!temp && !name.endsWith('.v8cache')) continue;
    try {
      const file = join(dir, name);
      if (now - fs.statSync(file).mtimeMs > (temp ? 3600 * 1000 : HOT_CACHE_MAX_AGE_MS)) fs.rmSync(file, { force: true });
    } catch {
      // gone already, or not ours to remove
    }
  }
}

function isVersionFlag(a) {
  return a === '--version' || a === '-V';
}

/** Whether args could be a help request the fast path answers (it decides exactly; this only avoids loading it). */
function mayBeHelp() {
  const last = args[args.length - 1];
  return args[0] === 'help' || last === '--help' || last === '-h';
}

function fastHelp() {
  try {
    // CommonJS too (built from src/help/fast.ts as dist/help/fast.cjs), so that help loads no ES module.
    return require('../dist/help/fast.cjs').answerHelpFromBuild(args);
  } catch {
    return undefined; // no generated help (an older build): the bundle answers
  }
}

/**
 * Print `text` on stdout. Straight to fd 1 where it can be: making process.stdout (a stream, and for a file the
 * fs stream code behind it) cost more than the rest of `--version` (callgrind: ~13 M instructions, of ~100 M).
 * What fd 1 does not take at once (a full non-blocking pipe: EAGAIN), and any error but EPIPE, goes the stream's
 * way, which waits or reports as before; on Windows the stream is always used (console encodings).
 */
function print(text) {
  if (process.platform !== 'win32') {
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
      return 0;
    } catch (e) {
      // `notevox --help | head`: the reader went away, nothing more to print (as in the bundle).
      if (e.code === 'EPIPE') return 0;
      text = bytes.subarray(done);
    }
  }
  process.stdout.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  process.stdout.write(text);
  return 0;
}

/**
 * Whether require() of an ES module is quiet on this Node: unflagged since 22.12, it printed an ExperimentalWarning
 * for a module outside node_modules (a checkout) up to 22.13 and 23.4.
 */
function quietRequireEsm() {
  if (!process.features.require_module) return false;
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 14);
}

/**
 * The bundle's entry (an ES module), loaded with require() where Node does so quietly: its module graph is then
 * linked and run at once, without import()'s asynchronous module jobs and promises (~3 M instructions of a
 * one-request command, callgrind, ~3 % of `node -e 0`). Node's compile cache serves it either way. A graph with a
 * top-level await cannot be required (ERR_REQUIRE_ASYNC_MODULE): it is imported, as on older Node.
 */
async function loadBundle(bundle) {
  if (quietRequireEsm()) {
    try {
      return require(bundle);
    } catch (e) {
      if (!e || e.code !== 'ERR_REQUIRE_ASYNC_MODULE') throw e;
    }
  }
  return import(require('node:url').pathToFileURL(bundle).href);
}

function supported() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

async function run() {
  if (args.length === 1 && isVersionFlag(args[0])) return print('notevox ' + version() + '\n');
  if (args.length === 2 && args.includes('--verbose') && args.some(isVersionFlag)) return print(await verboseVersion());
  if (!supported()) {
    process.stderr.write('notevox: this is Node.js ' + process.version + '; notevox needs Node.js ' + MIN_NODE.join('.') + ' or newer: install a current Node.js LTS (https://nodejs.org) and run notevox with it\n');
    return 1;
  }
  if (mayBeHelp()) {
    const help = fastHelp();
    if (help !== undefined) return print(help);
  }
  // After the help fast path: its one small file gains nothing measurable from the cache, the bundle does. The hot
  // bundle turns it on itself, before the first module it imports (loadHot).
  const hot = hotBundle();
  if (hot) {
    const h = loadHot(hot);
    if (h && h.parseFast(args)) {
      h.preferBaselineWasm();
      h.cacheAtExit();
      return h.main(args);
    }
  }
  enableCompileCache();
  const bundle = inDist('cli.js');
  if (!existsSync(bundle)) {
    process.stderr.write('notevox: dist/cli.js is missing; run `npm run build` in the notevox checkout first\n');
    return 1;
  }
  const { main, preferBaselineWasm } = await loadBundle(bundle);
  // One command's WebAssembly (undici's llhttp) stays on V8's baseline tier; the long-running sandbox, which
  // compiles none of its own, is left as it is. Set when undici loads (src/wasm-tier.ts), so that node:v8 is not loaded at every start.
  if (!args.includes('sandbox')) preferBaselineWasm();
  return main(args);
}

// No signal handlers here: the CLI handles SIGINT itself, and nothing may keep the process alive.
// (An error thrown by run() is an unhandled rejection: Node prints it and exits with 1.)
run().then((code) => {
  process.exitCode = code;
});
