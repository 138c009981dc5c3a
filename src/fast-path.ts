import type { GlobalOptions } from './commands/types.js';
import type { Context } from './commands/types.js';
import { LIMITS } from './contract/limits.js';
import { ROOT_OUTPUT_CHOICES } from './io/formats.js';

/**
 * The fast path of a few data commands (`notes get <guid>`): their command line parsed from the data below, without
 * loading commander or building any part of the command tree (issue 27: commander's code is compiled again at every
 * start, the compile cache keeps only top-level code). Only a plain command line is taken: the command's words, its
 * arguments each accepted by its check, and the root's options in their simple forms; anything else (help, an
 * unknown or repeated flag, `--`, a short flag with its value attached, a value commander would refuse, a bad
 * argument) returns undefined and main parses with commander as before, which answers or reports it in its words.
 * test/unit/fast-path.test.ts checks this data against the commander tree (the root's options, each command's
 * arguments and that it has no options of its own) and the parse against commander's for a set of command lines.
 */

/** A root option as commander defines it (program.ts, root()). */
export interface FastOption {
  long: string;
  short?: string;
  /** The key in the options object. */
  key: keyof GlobalOptions & string;
  /** Takes a value (`<value>`); else a switch, true (or false for `--no-…`). */
  value: boolean;
  negate?: boolean;
  choices?: readonly string[];
}

export const ROOT_OPTIONS: readonly FastOption[] = [
  { long: '--profile', key: 'profile', value: true },
  { long: '--base-url', key: 'baseUrl', value: true },
  { long: '--output', short: '-o', key: 'output', value: true, choices: ROOT_OUTPUT_CHOICES },
  { long: '--json', key: 'json', value: false },
  { long: '--fields', key: 'fields', value: true },
  { long: '--query', key: 'query', value: true },
  { long: '--timeout', key: 'timeout', value: true },
  { long: '--max-retries', key: 'maxRetries', value: true },
  { long: '--debug', key: 'debug', value: false },
  { long: '--no-color', key: 'color', value: false, negate: true },
  { long: '--no-input', key: 'input', value: false, negate: true },
];

/** A command the fast path runs: its words, a check per argument (true: the value is taken as typed), its work. */
export interface FastCommand {
  words: readonly string[];
  args: ReadonlyArray<(value: string) => boolean>;
  load: () => Promise<Record<string, unknown>>;
  /** The work's name in the loaded module (as registered: src/commands/<group>/index.ts). */
  name: string;
}

/** commands/args.ts noteGuid: a note guid is taken as typed when it matches, otherwise commander reports it. */
const isNoteGuid = (v: string) => LIMITS.noteGuidPattern.test(v);
const readNotes = () => import('./commands/notes/read.js') as unknown as Promise<Record<string, unknown>>;

export const FAST_COMMANDS: readonly FastCommand[] = [
  { words: ['notes', 'get'], args: [isNoteGuid], load: readNotes, name: 'get' },
  { words: ['notes', 'folders'], args: [isNoteGuid], load: readNotes, name: 'folders' },
];

export interface FastParse {
  command: FastCommand;
  args: string[];
  /** What commander's optsWithGlobals() gives the command's action. */
  globals: GlobalOptions;
}

/** The command, its arguments and the global options of a plain command line, or undefined (commander decides). */
export function parseFast(argv: readonly string[], commands: readonly FastCommand[] = FAST_COMMANDS): FastParse | undefined {
  const globals: Record<string, unknown> = {};
  for (const o of ROOT_OPTIONS) if (o.negate) globals[o.key] = true;
  const seen = new Set<string>();
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.length < 2 || a[0] !== '-') {
      operands.push(a);
      continue;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const o = ROOT_OPTIONS.find((x) => x.long === flag || x.short === flag);
    if (!o || seen.has(o.key)) return undefined;
    seen.add(o.key);
    let value: string | undefined;
    if (!o.value) {
      if (eq > 0) return undefined;
      globals[o.key] = !o.negate;
      continue;
    }
    if (eq > 0) value = a.slice(eq + 1);
    else {
      value = argv[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
    }
    if (o.choices && !o.choices.includes(value)) return undefined;
    globals[o.key] = value;
  }
  for (const c of commands) {
    if (operands.length !== c.words.length + c.args.length || !c.words.every((w, i) => operands[i] === w)) continue;
    const args = operands.slice(c.words.length);
    if (!c.args.every((ok, i) => ok(args[i]))) return undefined;
    return { command: c, args, globals: globals as GlobalOptions };
  }
  return undefined;
}

/** Run a parsed command's work as the registry's action does (commands/registry.ts); its exit code, 0 by default. */
export async function runFast(p: FastParse, context: (globals: GlobalOptions) => Context): Promise<number> {
  const mod = await p.command.load();
  const ctx = context(p.globals);
  const work = mod[p.command.name] as (ctx: Context, ...args: unknown[]) => Promise<number | void> | number | void;
  const code = await work(ctx, ...p.args, {});
  return typeof code === 'number' ? code : 0;
}
