import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { FAST_COMMANDS, parseFast, ROOT_OPTIONS, type FastCommand } from '../../src/fast-path.js';
import { buildProgram, root } from '../../src/program.js';

/**
 * The fast path's data (src/fast-path.ts) against the commander tree it stands in for: the root's options, each
 * fast command's arguments and options, and, for a set of command lines, the same command, arguments and options
 * object as commander's parse, or no answer where commander refuses the line or could read it otherwise.
 */

const tree = buildProgram().program as unknown as Command;
const find = (words: readonly string[]): Command => {
  let cmd = tree;
  for (const w of words) {
    const sub = cmd.commands.find((c) => c.name() === w);
    if (!sub) throw new Error(`no command ${words.join(' ')}`);
    cmd = sub;
  }
  return cmd;
};

/** What commander's parse gives the action of `argv`: the command's path, its arguments, optsWithGlobals(); or the error. */
async function commanderParse(argv: string[]): Promise<{ words: string[]; args: unknown[]; globals: Record<string, unknown> } | { error: string }> {
  const program = buildProgram().program as unknown as Command;
  let seen: { words: string[]; args: unknown[]; globals: Record<string, unknown> } | undefined;
  const quiet = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    cmd.commands.forEach(quiet);
  };
  quiet(program);
  program.hook('preAction', (_self, action) => {
    const words: string[] = [];
    for (let c: Command | null = action; c?.parent; c = c.parent) words.unshift(c.name());
    seen = { words, args: [...action.processedArgs], globals: { ...action.optsWithGlobals() } };
    throw new Error('stop before the action');
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (seen) return seen;
    return { error: (e as Error).message };
  }
  return { error: 'no action' };
}

describe('the fast path data', () => {
  it('has the root options commander has, with the same keys, values, choices and defaults', () => {
    const program = root() as unknown as Command;
    const options = program.options.filter((o) => o.long !== '--version');
    expect(options.map((o) => o.long)).toEqual(ROOT_OPTIONS.map((o) => o.long));
    for (const o of options) {
      const f = ROOT_OPTIONS.find((x) => x.long === o.long)!;
      expect({ short: o.short, key: o.attributeName(), value: o.required || o.optional, negate: o.negate, choices: o.argChoices }).toEqual({
        short: f.short,
        key: f.key,
        value: f.value,
        negate: f.negate ?? false,
        choices: f.choices ? [...f.choices] : undefined,
      });
      expect(o.optional).toBe(false);
      expect(o.variadic).toBe(false);
      // No default of its own (a `--no-…` switch's true comes from commander, and the parses below compare it).
      expect(o.defaultValue).toBeUndefined();
    }
  });

  it.each(FAST_COMMANDS.map((c) => [c.words.join(' '), c] as [string, FastCommand]))('%s: the arguments commander has, no options of its own, the work registered', async (_, c) => {
    const cmd = find(c.words);
    expect(cmd.commands).toEqual([]);
    expect(cmd.options).toEqual([]);
    expect(cmd.registeredArguments.map((a) => [a.required, a.variadic])).toEqual(c.args.map(() => [true, false]));
    expect(typeof (await c.load())[c.name]).toBe('function');
  });

  it.each(FAST_COMMANDS.map((c) => [c.words.join(' '), c] as [string, FastCommand]))('%s: each argument check accepts what its commander parser takes as typed, and nothing else', (_, c) => {
    const cmd = find(c.words);
    const values = ['ntFSprintRetr', 'nt0000000001a', 'x', '', 'ntFSprintRetr1', 'nt-000000001a', 'NT0000000001A', 'ünicode00001a', '-', '12'];
    c.args.forEach((ok, i) => {
      const parse = cmd.registeredArguments[i].parseArg!;
      for (const v of values) {
        let taken: unknown;
        try {
          taken = parse(v, undefined);
        } catch {
          taken = Symbol.for('refused');
        }
        expect(ok(v), `${c.words.join(' ')} argument ${i} "${v}"`).toBe(taken === v);
      }
    });
  });
});

const G = 'ntFSprintRetr';
const LINES: string[][] = [
  ['notes', 'get', G],
  ['notes', 'get', G, '-o', 'json'],
  ['-o', 'json', 'notes', 'get', G],
  ['notes', '-o', 'json', 'get', G],
  ['notes', 'get', G, '--output=json'],
  ['notes', 'get', G, '--output', 'table'],
  ['notes', 'get', G, '--json', '--debug', '--no-color', '--no-input'],
  ['notes', 'get', G, '--profile', 'work', '--base-url', 'http://127.0.0.1:1', '--timeout', '5', '--max-retries', '0'],
  ['notes', 'get', G, '--fields', 'guid,title', '--query', 'title'],
  ['notes', 'get', G, '--profile=a=b'],
  ['notes', 'folders', G, '--json'],
  ['notes', 'folders', G],
  // commander's to answer or refuse
  ['notes', 'get', G, '-o', 'xml'],
  ['notes', 'get', G, '-ojson'],
  ['notes', 'get', G, '--json=1'],
  ['notes', 'get', 'not-a-guid'],
  ['notes', 'get'],
  ['notes', 'get', G, 'extra'],
  ['notes', 'get', G, '--nope'],
  ['notes', 'get', G, '--help'],
  ['notes', 'get', G, '-h'],
  ['notes', 'get', G, '--version'],
  ['notes', 'get', '--', G],
  ['notes', 'get', G, '--profile'],
  ['notes', 'get', G, '--profile', '-o', 'json'],
  ['notes', 'get', G, '-o', 'json', '-o', 'table'],
  ['notes', 'get', G, '--debug', '--debug'],
  ['notes', 'list', '--limit', '5'],
  ['notes', 'rename', G, 'New title'],
  ['notes', 'show', G],
  ['note', 'get', G],
  ['help', 'notes', 'get'],
  [],
];

describe('the fast path parse', () => {
  it.each(LINES.map((l) => [l.join(' ') || '(nothing)', l]))('%s: as commander parses it, or left to commander', async (_, argv) => {
    const fast = parseFast(argv);
    const slow = await commanderParse(argv);
    if (!fast) return; // commander answers: main's commander path is unchanged
    expect(slow).toEqual({ words: [...fast.command.words], args: fast.args, globals: fast.globals });
  });

  it('takes the plain command lines of the fast commands', () => {
    expect(parseFast(['notes', 'get', G, '-o', 'json'])?.globals).toEqual({ output: 'json', color: true, input: true });
    expect(parseFast(['notes', 'folders', G])?.command.name).toBe('folders');
    for (const l of LINES.slice(0, 12)) expect(parseFast(l), l.join(' ')).toBeDefined();
  });

  it('leaves to commander every line it refuses or could read otherwise', () => {
    for (const l of LINES.slice(12)) expect(parseFast(l), l.join(' ')).toBeUndefined();
  });
});
