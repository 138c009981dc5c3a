/**
 * The entry of the single-file executable (`npm run build:exe`, scripts/build-exe.mjs, docs/install.md): what the
 * launcher bin/notevox.js does, for a program that is its own Node.js. No Node version to check (the one built in is
 * the one the build chose), no help files beside it (commander answers --help from the bundle).
 */
import { arch, platform, release, type } from 'node:os';
import { VERSION } from './version.js';

function verboseVersion(): string {
  return [
    `notevox ${VERSION}`,
    `node ${process.version} (v8 ${process.versions.v8}), built into this executable`,
    `platform ${platform()} ${arch()} (${type()} ${release()})`,
    `installed at ${process.execPath}`,
  ].join('\n') + '\n';
}

async function run(args: string[]): Promise<number> {
  const isVersion = (a: string) => a === '--version' || a === '-V';
  if (args.length === 1 && isVersion(args[0])) {
    process.stdout.write(`notevox ${VERSION}\n`);
    return 0;
  }
  if (args.length === 2 && args.includes('--verbose') && args.some(isVersion)) {
    process.stdout.write(verboseVersion());
    return 0;
  }
  // Loaded here, not at the top: `--version` above runs none of the CLI's modules (they are in this one file, each
  // initialised on first import).
  const { main } = await import('./cli.js');
  return main(args);
}

// A single executable's argv is [executable, executable, ...arguments] as a script's is [node, script, ...].
run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`notevox: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
