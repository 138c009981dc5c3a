#!/usr/bin/env node
// The notevox launcher. `--version` / `-V` alone is answered from package.json without loading the
// bundle or any dependency (`--version --verbose` adds the Node.js and platform versions, for bug reports);
// `--help`, `-h` and `help <command>` are answered from the help text generated at build time
// (dist/help/, src/help/fast.ts), byte for byte what commander prints, or else by the bundle; everything else
// checks the Node version and runs dist/cli.js.
// Plain JavaScript with no recent syntax, so that an old Node still reaches the version check.
import { existsSync, readFileSync } from 'node:fs';

/** The oldest Node.js notevox runs on: node:sqlite without a flag (package.json engines; README, Supported Node.js versions). */
const MIN_NODE = [22, 13];
const SUPPORTED = 'Node.js 22 (22.13 or newer), 24 and newer';
const args = process.argv.slice(2);

function version() {
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
}

/** `notevox --version --verbose`: what a bug report needs to know about this installation. */
async function verboseVersion() {
  const os = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  return [
    'notevox ' + version(),
    'node ' + process.version + ' (v8 ' + process.versions.v8 + ')' + (supported() ? '' : ' (not supported)'),
    'supported ' + SUPPORTED,
    'platform ' + process.platform + ' ' + process.arch + ' (' + os.type() + ' ' + os.release() + ')',
    'installed at ' + fileURLToPath(new URL('..', import.meta.url)),
  ].join('\n') + '\n';
}

function isVersionFlag(a) {
  return a === '--version' || a === '-V';
}

/** Whether args could be a help request the fast path answers (it decides exactly; this only avoids loading it). */
function mayBeHelp() {
  const last = args[args.length - 1];
  return args[0] === 'help' || last === '--help' || last === '-h';
}

async function fastHelp() {
  try {
    const { answerHelpFromBuild } = await import('../dist/help/fast.js');
    return answerHelpFromBuild(args);
  } catch {
    return undefined; // no generated help (an older build): the bundle answers
  }
}

function print(text) {
  // `notevox --help | head`: the reader went away, nothing more to print (as in the bundle).
  process.stdout.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  process.stdout.write(text);
  return 0;
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
    const help = await fastHelp();
    if (help !== undefined) return print(help);
  }
  const bundle = new URL('../dist/cli.js', import.meta.url);
  if (!existsSync(bundle)) {
    process.stderr.write('notevox: dist/cli.js is missing; run `npm run build` in the notevox checkout first\n');
    return 1;
  }
  const { main, preferBaselineWasm } = await import(bundle.href);
  // One command's WebAssembly (undici's llhttp) stays on V8's baseline tier; the long-running sandbox's (sql.js)
  // is optimised. Set when undici loads (src/wasm-tier.ts), so that node:v8 is not loaded at every start.
  if (!args.includes('sandbox')) preferBaselineWasm();
  return main(args);
}

// No signal handlers here: the CLI handles SIGINT itself, and nothing may keep the process alive.
process.exitCode = await run();
