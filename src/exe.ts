/**
 * The entry of the single-file executable (`npm run build:exe`, scripts/build-exe.mjs, docs/install.md): what the
 * launcher bin/notevox.js does, for a program that is its own Node.js. No Node version to check (the one built in is
 * the one the build chose); the help files of the build are assets of the executable.
 */
import { arch, platform, release, type } from 'node:os';
import { embeddedAsset } from './assets.js';
import type { HelpFile } from './help/fast.js';
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
  // Help from the text generated at build time (the launcher's fast path, src/help/fast.ts), carried as assets.
  const last = args[args.length - 1];
  if (args[0] === 'help' || last === '--help' || last === '-h') {
    const { answerHelp, stdoutHelpWidth } = await import('./help/fast.js');
    const load = (file: string): HelpFile | undefined => {
      const bytes = embeddedAsset(`help/${file}.json`);
      return bytes ? (JSON.parse(bytes.toString('utf8')) as HelpFile) : undefined;
    };
    const text = answerHelp(args, load, stdoutHelpWidth());
    if (text !== undefined) {
      // `notevox --help | head`: the reader went away, nothing more to print.
      process.stdout.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EPIPE') process.exit(0);
        throw e;
      });
      process.stdout.write(text);
      return 0;
    }
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
