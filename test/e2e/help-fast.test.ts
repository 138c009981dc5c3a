import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { cliOutput } from '../helpers/help-output.js';
import { shellQuote } from '../helpers/pty.js';

/**
 * The launcher's help fast path in a process: a copy of bin/, package.json and dist/help/ without the bundle
 * answers help exactly as the CLI does, on a pipe and in terminals of two widths, and hands everything else to the
 * bundle (which the copy lacks, so a request it does not answer fails there). What the CLI prints is taken from
 * the program in this process (the bundle is built from the same source before the suite runs); every command and
 * width is compared in process by test/unit/help-fast.test.ts.
 */

const ROOT = resolve(dirname(BIN), '..');
let dir: string;
let lone: string;
let configDir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-fast-help-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(BIN, join(dir, 'bin', 'notevox.js'));
  copyFileSync(join(dirname(BIN), 'package.json'), join(dir, 'bin', 'package.json')); // the launcher is CommonJS
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'dist', 'help'), join(dir, 'dist', 'help'), { recursive: true });
  lone = join(dir, 'bin', 'notevox.js');
  configDir = join(dir, 'config');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NOTEVOX_CONFIG_DIR: join(tmpdir(), 'notevox-test-unused-config'), TERM: 'xterm' };
const launcherCommand = (args: string[]) => [process.execPath, lone, ...args];

function onPipe(command: string[]) {
  const r = spawnSync(command[0], command.slice(1), { env: ENV, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** stdout of a command in a terminal `columns` wide (`script` from util-linux), with the terminal's CRLF undone. */
function inTerminal(command: string[], columns: number) {
  const line = `stty cols ${columns} rows 50; ${command.map(shellQuote).join(' ')}`;
  const out = execFileSync('script', ['-qec', line, '/dev/null'], { env: ENV, encoding: 'utf8' });
  return out.replace(/\r\n/g, '\n');
}

const FORMS = [['--help'], ['-h'], ['help'], ['notes', '--help'], ['notes', 'list', '--help'], ['help', 'notes', 'list'], ['wm', 'import', '-h'], ['sandbox', 'start', '--help'], ['help', 'exit-codes'], ['help', '--help']];

describe('the launcher answers help without the bundle', () => {
  it.each(FORMS.map((f) => [f.join(' '), f]))('notevox %s on a pipe: the same bytes as the CLI, exit code 0', async (_name, args) => {
    const fast = onPipe(launcherCommand(args));
    const full = await cliOutput(args, { isTTY: false }, configDir);
    expect(full.code).toBe(0);
    expect(fast.err).toBe('');
    expect(fast.code).toBe(0);
    expect(fast.out).toBe(full.out);
  });

  it('in terminals 80 and 200 columns wide: the same bytes as the CLI, wrapped to the terminal as commander wraps', async () => {
    const at: Record<number, string> = {};
    for (const columns of [80, 200]) {
      for (const args of [['--help'], ['voice', 'upload', '--help'], ['help', 'wm', 'import']]) {
        const shown = inTerminal(launcherCommand(args), columns);
        expect(shown, `${args.join(' ')} at ${columns}`).toBe((await cliOutput(args, { isTTY: true, columns }, configDir)).out);
        if (args[1] === 'upload') at[columns] = shown;
      }
    }
    // voice upload's descriptions wrap at 80 columns and fit in one line each at 200.
    const widest = (text: string) => Math.max(...text.slice(0, text.indexOf('\nExamples:')).split('\n').map((l) => l.length));
    expect(widest(at[80])).toBeLessThanOrEqual(80);
    expect(widest(at[200])).toBeGreaterThan(80);
    expect(at[200].split('\n').length).toBeLessThan(at[80].split('\n').length);
  });

  it('hands every other request to the bundle', () => {
    for (const args of [['notes', 'list', '--json', '--help'], ['help', 'nosuch'], ['notes', 'nosuch', '--help'], ['notes']]) {
      const r = onPipe(launcherCommand(args));
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.err).toContain('dist/cli.js is missing');
    }
  });

  it('help for a command that does not exist: the installed CLI names it and exits 2 (issue 29 item 3)', () => {
    for (const args of [['nosuch', '--help'], ['notes', 'nosuch', '-h']]) {
      const r = onPipe([process.execPath, BIN, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain("unknown command 'nosuch'");
    }
  });

  it('--version --verbose names the notevox, Node.js and platform versions, without the bundle', () => {
    for (const args of [['--version', '--verbose'], ['-V', '--verbose'], ['--verbose', '--version']]) {
      const r = onPipe(launcherCommand(args));
      expect(r.code).toBe(0);
      const lines = r.out.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^notevox \d+\.\d+\.\d+$/);
      expect(lines[1]).toContain(`node ${process.version} (v8 ${process.versions.v8})`);
      expect(lines[2]).toContain(`platform ${process.platform} ${process.arch}`);
      expect(lines[3]).toBe(`installed at ${dir}/`);
      expect(lines[4]).toBe('supported Node.js 22 (22.13 or newer), 24 and newer');
    }
  });
});
