import { commaItems } from './commands/comma-items.js';
import type { GlobalOptions } from './commands/types.js';
import type { Context } from './commands/types.js';
import { LIMITS } from './contract/limits.js';
import { OUTPUT_FORMATS, ROOT_OUTPUT_CHOICES } from './io/formats.js';
import { OUTPUT_MODES } from './commands/voice/options.js';

/**
 * The fast path of a few data commands (`notes get <guid>`, `voice upload <file>`): their command line parsed from
 * the data below, without loading commander or building any part of the command tree (issue 27: commander's code is
 * compiled again at every start, the compile cache keeps only top-level code). Only a plain command line is taken:
 * the command's words, its arguments each accepted by its check, the root's options in their simple forms anywhere,
 * and the command's own options in the same forms after its words; anything else (help, an unknown or repeated flag,
 * `--`, a short flag with its value attached, a value commander would refuse, a bad argument) returns undefined and
 * main parses with commander as before, which answers or reports it in its words. test/unit/fast-path.test.ts
 * checks this data against the commander tree (the root's options, each command's arguments and options) and the
 * parse against commander's for a set of command lines.
 */

/** An option as commander defines it (the root's: program.ts, root(); a command's: its group's index.ts). */
export interface FastOption {
  long: string;
  short?: string;
  /** The key in the options object. */
  key: string;
  /** Takes a value (`<value>`); else a switch, true (or false for `--no-…`). */
  value: boolean;
  negate?: boolean;
  choices?: readonly string[];
  /**
   * The value as the option's commander parser gives it, or undefined where that parser refuses it (commander then
   * reports it in its words). Without it the value is taken as typed.
   */
  parse?: (value: string) => unknown;
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
  /** Its own options (after its words on the line); none by default. */
  options?: readonly FastOption[];
  /**
   * The root's -o values it takes; another leaves the line to commander. Default: all of them. (`voice upload -o
   * text|srt` is moved to --format by a hook of the voice group: commander's path.)
   */
  outputs?: readonly string[];
}

/** commands/args.ts noteGuid: a note guid is taken as typed when it matches, otherwise commander reports it. */
const isNoteGuid = (v: string) => LIMITS.noteGuidPattern.test(v);
const readNotes = () => import('./commands/notes/read.js') as unknown as Promise<Record<string, unknown>>;

/** commands/args.ts locale, without commander's error class: the value as typed, or undefined (commander refuses it). */
const fastLocale = (v: string) => (LIMITS.localePattern.test(v) ? v : undefined);
/** commands/args.ts translationLocales (commaList of locale): the distinct locales, or undefined (commander refuses it). */
function fastLocales(v: string): string[] | undefined {
  const parts = commaItems(v);
  return parts.length > 0 && parts.length <= LIMITS.translationLocalesMax && parts.every((p) => LIMITS.localePattern.test(p)) ? parts : undefined;
}

/** `voice upload`'s options (commands/voice/index.ts upload()). */
const VOICE_UPLOAD_OPTIONS: readonly FastOption[] = [
  { long: '--locale', key: 'locale', value: true, parse: fastLocale },
  { long: '--translate', key: 'translate', value: true, parse: fastLocales },
  { long: '--workspace', key: 'workspace', value: true },
  { long: '--no-wait', key: 'wait', value: false, negate: true },
  { long: '--format', key: 'format', value: true, choices: OUTPUT_MODES },
  { long: '--out', key: 'out', value: true },
  { long: '--summary', key: 'summary', value: false },
  { long: '--wait-timeout', key: 'waitTimeout', value: true },
];

export const FAST_COMMANDS: readonly FastCommand[] = [
  { words: ['notes', 'get'], args: [isNoteGuid], load: readNotes, name: 'get' },
  { words: ['notes', 'folders'], args: [isNoteGuid], load: readNotes, name: 'folders' },
  {
    words: ['voice', 'upload'],
    args: [() => true], // <file>: any path, as commander takes it (preflight checks it)
    load: () => import('./commands/voice/run.js') as unknown as Promise<Record<string, unknown>>,
    name: 'upload',
    options: VOICE_UPLOAD_OPTIONS,
    outputs: OUTPUT_FORMATS,
  },
];

export interface FastParse {
  command: FastCommand;
  args: string[];
  /** What commander's optsWithGlobals() gives the command's action, less the command's own options. */
  globals: GlobalOptions;
  /** What commander's opts() of the command gives its action: its own options. */
  flags: Record<string, unknown>;
}

/** The command, its arguments and the global options of a plain command line, or undefined (commander decides). */
export function parseFast(argv: readonly string[], commands: readonly FastCommand[] = FAST_COMMANDS): FastParse | undefined {
  const globals: Record<string, unknown> = {};
  for (const o of ROOT_OPTIONS) if (o.negate) globals[o.key] = true;
  const flags: Record<string, unknown> = {};
  const seen = new Set<string>();
  const operands: string[] = [];
  /** The command once the operands have named its words; its own options are taken only after them. */
  let command: FastCommand | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.length < 2 || a[0] !== '-') {
      operands.push(a);
      if (!command) {
        command = commands.find((c) => operands.length === c.words.length && c.words.every((w, j) => operands[j] === w));
        if (command?.options) for (const o of command.options) if (o.negate) flags[o.key] = true;
      }
      continue;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const own = command?.options?.find((x) => x.long === flag || x.short === flag);
    const o = own ?? ROOT_OPTIONS.find((x) => x.long === flag || x.short === flag);
    if (!o || seen.has(o.long)) return undefined;
    seen.add(o.long);
    const into = own ? flags : globals;
    let value: string | undefined;
    if (!o.value) {
      if (eq > 0) return undefined;
      into[o.key] = !o.negate;
      continue;
    }
    if (eq > 0) value = a.slice(eq + 1);
    else {
      value = argv[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
    }
    if (o.choices && !o.choices.includes(value)) return undefined;
    const parsed = o.parse ? o.parse(value) : value;
    if (parsed === undefined) return undefined;
    into[o.key] = parsed;
  }
  if (!command || operands.length !== command.words.length + command.args.length) return undefined;
  const args = operands.slice(command.words.length);
  if (!command.args.every((ok, i) => ok(args[i]))) return undefined;
  if (command.outputs && globals.output !== undefined && !command.outputs.includes(globals.output as string)) return undefined;
  return { command, args, globals: globals as GlobalOptions, flags };
}

/** Run a parsed command's work as the registry's action does (commands/registry.ts); its exit code, 0 by default. */
export async function runFast(p: FastParse, context: (globals: GlobalOptions) => Context): Promise<number> {
  const mod = await p.command.load();
  // The registry's action builds the context from optsWithGlobals(): the command's own options among the root's.
  const ctx = context({ ...p.globals, ...p.flags });
  const work = mod[p.command.name] as (ctx: Context, ...args: unknown[]) => Promise<number | void> | number | void;
  const code = await work(ctx, ...p.args, { ...p.flags });
  return typeof code === 'number' ? code : 0;
}
