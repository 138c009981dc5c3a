import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandTree, exitCodesText } from '../../src/program.js';
import { answerHelp, renderHelp, stdoutHelpWidth, type HelpFile } from '../../src/help/fast.js';
import { cliOutput, type Screen } from '../helpers/help-output.js';
import { commanderHelp, commandPaths, helpEntry, helpFiles } from '../../src/help/model.js';

/**
 * The launcher answers help from generated text (src/help/fast.ts); here it is compared byte for byte with what
 * the CLI itself (main(), commander) writes, for every command and every form. The launcher's wiring, in a
 * process and a terminal, is tested in test/e2e/help-fast.test.ts.
 */

const program = commandTree() as unknown as import('commander').Command;
const ALL = [[[], program] as [string[], typeof program], ...commandPaths(program)];
const generated = helpFiles(program, { 'exit-codes': exitCodesText() });
const load = (file: string): HelpFile | undefined => generated.files[file];

const SCREENS: Array<[string, Screen]> = [
  ['a pipe', { isTTY: false }],
  ['an 80-column terminal', { isTTY: true, columns: 80 }],
  ['a 50-column terminal', { isTTY: true, columns: 50 }],
  ['a 132-column terminal', { isTTY: true, columns: 132 }],
  ['a 250-column terminal', { isTTY: true, columns: 250 }],
];

let configDir: string;
beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'notevox-help-'));
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

const forms = (path: string[]) => [
  [...path, '--help'],
  [...path, '-h'],
  ['help', ...path],
];

describe('help from generated text (the launcher fast path)', () => {
  it('has an entry for every command: none was left to the bundle at build time', () => {
    expect(generated.problems).toEqual([]);
    expect(ALL.length).toBeGreaterThan(50);
    for (const [path] of ALL) expect(answerHelp([...path, '--help'], load, 80), path.join(' ')).toBeDefined();
  });

  it.each(SCREENS)('is byte-identical to the CLI for every command and form (--help, -h, help <command>) on %s', async (_name, screen) => {
    const width = stdoutHelpWidth(screen);
    const differing: string[] = [];
    for (const [path] of ALL) {
      for (const args of forms(path)) {
        const cli = await cliOutput(args, screen, configDir);
        expect(cli.code, args.join(' ')).toBe(0);
        expect(cli.out.length, args.join(' ')).toBeGreaterThan(0);
        if (answerHelp(args, load, width) !== cli.out) differing.push(args.join(' '));
      }
    }
    const topic = await cliOutput(['help', 'exit-codes'], screen, configDir);
    expect(answerHelp(['help', 'exit-codes'], load, width)).toBe(topic.out);
    expect(differing).toEqual([]);
  });

  it('uses the width commander uses: the terminal width on a terminal, 80 on a pipe (COLUMNS is not read)', () => {
    expect(stdoutHelpWidth({ isTTY: false, columns: 200 })).toBe(80);
    expect(stdoutHelpWidth({ isTTY: true, columns: 200 })).toBe(200);
    expect(stdoutHelpWidth({ isTTY: true })).toBe(80);
  });

  it('wraps like commander at every width from 0 to 250 columns, for every command', () => {
    const differing: string[] = [];
    for (const [path, cmd] of ALL) {
      const entry = helpEntry(cmd);
      if ('unsupported' in entry) throw new Error(`${path.join(' ')}: ${entry.unsupported}`);
      for (let width = 0; width <= 250; width++) {
        if (renderHelp(entry, width) !== commanderHelp(cmd, width).written) differing.push(`${path.join(' ')} at ${width}`);
      }
    }
    expect(differing).toEqual([]);
  });

  it('root --help fits 80 columns, wrapped at word boundaries, the same from both paths (issue 13 item 11)', async () => {
    const screen: Screen = { isTTY: true, columns: 80 };
    const { out } = await cliOutput(['--help'], screen, configDir);
    expect(answerHelp(['--help'], load, 80)).toBe(out);
    const lines = out.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // A wrapped description goes on under its own column, starting with a whole word.
    const continued = lines.filter((l) => /^ {10,}\S/.test(l));
    expect(continued.length).toBeGreaterThan(0);
    const words = new Set([...program.commands.map((c) => c.description()), ...program.options.map((o) => o.description)].flatMap((d) => d.split(/\s+/)));
    for (const l of continued) expect(words.has(l.trim().split(/\s+/)[0]) || /^\(|^"/.test(l.trim()), l).toBe(true);
  });

  it('answers nothing it cannot answer exactly, so the bundle does', () => {
    for (const args of [
      [],
      ['notes'],
      ['notes', 'list'],
      ['notes', 'list', '--json', '--help'],
      ['--json', 'notes', 'list', '--help'],
      ['notes', 'list', 'extra', '--help'],
      ['notes', 'nosuch', '--help'],
      ['nosuch', '--help'],
      ['../notes', '--help'],
      ['Notes', '--help'],
      ['notes', 'list', '--hel'],
      ['notes', '--help', 'list'],
      ['help', 'nosuch'],
      ['help', 'notes', '--json'],
      ['help', '../_root'],
      ['--version'],
    ]) {
      expect(answerHelp(args, load, 80), args.join(' ')).toBeUndefined();
    }
    expect(answerHelp(['--help'], () => undefined, 80)).toBeUndefined();
  });

  it('dist/help/ is what the command tree generates (run npm run build when this fails)', () => {
    const dir = new URL('../../dist/help/', import.meta.url);
    expect(existsSync(dir), 'dist/help/ is missing: run npm run build').toBe(true);
    const built = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f.slice(0, -'.json'.length), JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as HelpFile]),
    );
    expect(built).toEqual(generated.files);
  });
});
