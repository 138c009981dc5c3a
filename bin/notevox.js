#!/usr/bin/env node
// The notevox launcher. `--version` / `-V` alone is answered from package.json without loading the
// bundle or any dependency; everything else checks the Node version and runs dist/cli.js.
// Plain JavaScript with no recent syntax, so that an old Node still reaches the version check.
import { existsSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

const MIN_NODE = [20, 19];
const args = process.argv.slice(2);

async function run() {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    process.stdout.write('notevox ' + pkg.version + '\n');
    return 0;
  }
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
    process.stderr.write('notevox: Node.js ' + MIN_NODE.join('.') + ' or newer is required; this is ' + process.version + '\n');
    return 1;
  }
  const bundle = new URL('../dist/cli.js', import.meta.url);
  if (!existsSync(bundle)) {
    process.stderr.write('notevox: dist/cli.js is missing; run `npm run build` in the notevox checkout first\n');
    return 1;
  }
  // undici parses HTTP with llhttp compiled to WebAssembly; V8's background optimising compile of it
  // blocks the end of a short process for 200-400 ms. Baseline (Liftoff) code is plenty for one
  // command's responses; the long-running sandbox (sql.js, also WebAssembly) keeps the optimiser.
  if (!args.includes('sandbox')) setFlagsFromString('--liftoff-only');
  const { main } = await import(bundle.href);
  return main(args);
}

// No signal handlers here: the CLI handles SIGINT itself, and nothing may keep the process alive.
process.exitCode = await run();
