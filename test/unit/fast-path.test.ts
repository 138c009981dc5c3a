import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { FAST_COMMANDS, parseFast, ROOT_OPTIONS, type FastCommand, type FastOption } from '../../src/fast-path.js';
import { buildProgram, root } from '../../src/program.js';

/**
 * The fast path's data (src/fast-path.ts) against the commander tree it stands in for: the root's options, each
 * fast command's arguments and options, and, for a set of command lines, the same command, arguments and options
 * objects (the command's own and with the globals) as commander's parse, or no answer where commander refuses the
 * line or could read it otherwise.
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
type Parsed = { words: string[]; args: unknown[]; globals: Record<string, unknown>; flags: Record<string, unknown> };
async function commanderParse(argv: string[]): Promise<Parsed | { error: string }> {
  const program = buildProgram().program as unknown as Command;
  let seen: Parsed | undefined;
  const quiet = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    cmd.commands.forEach(quiet);
  };
  quiet(program);
  program.hook('preAction', (_self, action) => {
    const words: string[] = [];
    for (let c: Command | null = action; c?.parent; c = c.parent) words.unshift(c.name());
    seen = { words, args: [...action.processedArgs], globals: { ...action.optsWithGlobals() }, flags: { ...action.opts() } };
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

  it.each(FAST_COMMANDS.map((c) => [c.words.join(' '), c] as [string, FastCommand]))('%s: the arguments and options commander has, the work registered', async (_, c) => {
    const cmd = find(c.words);
    expect(cmd.commands).toEqual([]);
    const own = c.options ?? [];
    expect(cmd.options.map((o) => o.long)).toEqual(own.map((o) => o.long));
    for (const o of cmd.options) {
      const f = own.find((x) => x.long === o.long)!;
      expect({ short: o.short, key: o.attributeName(), value: o.required || o.optional, negate: o.negate, choices: o.argChoices, parsed: o.parseArg !== undefined }, o.long).toEqual({
        short: f.short,
        key: f.key,
        value: f.value,
        negate: f.negate ?? false,
        choices: f.choices ? [...f.choices] : undefined,
        parsed: f.parse !== undefined,
      });
      expect(o.optional).toBe(false);
      expect(o.variadic).toBe(false);
      // No default of its own (a `--no-…` switch's true comes from commander, and the parses below compare it).
      expect(o.defaultValue).toBeUndefined();
    }
    expect(cmd.registeredArguments.map((a) => [a.required, a.variadic])).toEqual(c.args.map(() => [true, false]));
    expect(typeof (await c.load())[c.name]).toBe('function');
  });

  it.each(FAST_COMMANDS.flatMap((c) => (c.options ?? []).filter((o) => o.parse).map((o) => [`${c.words.join(' ')} ${o.long}`, c, o] as [string, FastCommand, FastOption])))(
    "%s: the value's parse gives what commander's parser gives, and refuses what it refuses",
    (_, c, f) => {
      const o = find(c.words).options.find((x) => x.long === f.long)!;
      const values = ['en_US', 'ko_KR,ja_JP', ' ko_KR , ja_JP ,ko_KR', 'ko_KR,,ja_JP', 'en_us', 'EN_US', 'english', '', ',', 'a,b', 'ko_KR,ja_JP,de_DE,fr_FR,es_ES', 'ko_KR,ja_JP,de_DE,fr_FR,es_ES,it_IT', 'en_US '];
      for (const v of values) {
        let taken: unknown;
        try {
          taken = o.parseArg!(v, undefined);
        } catch {
          taken = undefined;
        }
        expect(f.parse!(v), `${f.long} "${v}"`).toEqual(taken);
      }
    },
  );

  it.each(FAST_COMMANDS.map((c) => [c.words.join(' '), c] as [string, FastCommand]))('%s: each argument check accepts what its commander parser takes as typed, and nothing else', (_, c) => {
    const cmd = find(c.words);
    const values = ['ntFSprintRetr', 'nt0000000001a', 'x', '', 'ntFSprintRetr1', 'nt-000000001a', 'NT0000000001A', 'ünicode00001a', '-', '12'];
    c.args.forEach((ok, i) => {
      // An argument without a parser takes any value as typed.
      const parse = cmd.registeredArguments[i].parseArg ?? ((v: string) => v);
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
/** Command lines the fast path takes. */
const TAKEN: string[][] = [
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
  ['voice', 'upload', 'big.wav'],
  ['voice', 'upload', 'big.wav', '--no-wait'],
  ['voice', 'upload', '--no-wait', 'big.wav'],
  ['voice', 'upload', 'a file.m4a', '--locale', 'en_US', '--translate', ' ko_KR,ja_JP,ko_KR', '--workspace', 'Product Team', '--no-wait'],
  ['voice', 'upload', 'big.wav', '--format', 'srt', '--out', 'results', '--summary', '--wait-timeout', '30m'],
  ['voice', 'upload', 'big.wav', '--locale=en_US', '--format=json', '--json', '--debug'],
  ['-o', 'json', 'voice', 'upload', 'big.wav', '--no-wait', '--timeout', '30'],
  ['voice', '-o', 'ndjson', 'upload', 'big.wav'],
  ['voice', 'upload', '-', '--no-wait'],
];
/** Command lines commander answers or refuses. */
const LEFT: string[][] = [
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
  ['notes', 'get', G, '--no-wait'],
  ['notes', 'list', '--limit', '5'],
  ['notes', 'rename', G, 'New title'],
  ['notes', 'show', G],
  ['note', 'get', G],
  ['help', 'notes', 'get'],
  ['voice', 'upload', 'big.wav', '-o', 'text'],
  ['voice', 'upload', 'big.wav', '--output=srt'],
  ['voice', 'upload', 'big.wav', '--locale', 'english'],
  ['voice', 'upload', 'big.wav', '--translate', 'ko_KR,ja_JP,de_DE,fr_FR,es_ES,it_IT'],
  ['voice', 'upload', 'big.wav', '--translate', ','],
  ['voice', 'upload', 'big.wav', '--format', 'xml'],
  ['voice', 'upload', 'big.wav', '--no-wait', '--no-wait'],
  ['voice', 'upload', 'big.wav', '--no-wait=1'],
  ['voice', 'upload', 'big.wav', '--wait'],
  ['voice', 'upload', 'big.wav', '--locale'],
  ['voice', 'upload', 'big.wav', '--workspace', '--no-wait'],
  ['voice', '--no-wait', 'upload', 'big.wav'],
  ['--no-wait', 'voice', 'upload', 'big.wav'],
  ['voice', 'upload'],
  ['voice', 'upload', 'a.wav', 'b.wav'],
  ['voice', 'upload', 'big.wav', '--help'],
  ['voice', 'upload', '--', '-big.wav'],
  ['voice', 'upload', '-big.wav'],
  ['voice', 'wait', '3f2b8c1e-4d5a-4e6f-9a7b-8c9d0e1f2a3b'],
  ['voice', 'transcribe', 'big.wav', '--out', 'out'],
  [],
];

describe('the fast path parse', () => {
  it.each([...TAKEN, ...LEFT].map((l) => [l.join(' ') || '(nothing)', l]))('%s: as commander parses it, or left to commander', async (_, argv) => {
    const fast = parseFast(argv);
    const slow = await commanderParse(argv);
    if (!fast) return; // commander answers: main's commander path is unchanged
    expect(slow).toEqual({ words: [...fast.command.words], args: fast.args, globals: { ...fast.globals, ...fast.flags }, flags: fast.flags });
  });

  it('takes the plain command lines of the fast commands', () => {
    expect(parseFast(['notes', 'get', G, '-o', 'json'])?.globals).toEqual({ output: 'json', color: true, input: true });
    expect(parseFast(['notes', 'folders', G])?.command.name).toBe('folders');
    expect(parseFast(['voice', 'upload', 'big.wav', '--no-wait', '--translate', 'ko_KR,ja_JP'])?.flags).toEqual({ wait: false, translate: ['ko_KR', 'ja_JP'] });
    for (const l of TAKEN) expect(parseFast(l), l.join(' ')).toBeDefined();
  });

  it('leaves to commander every line it refuses or could read otherwise', () => {
    for (const l of LEFT) expect(parseFast(l), l.join(' ')).toBeUndefined();
  });
});
