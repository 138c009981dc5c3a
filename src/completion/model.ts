import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { listChoicesOf, outputFormatsOf } from './values.js';

/** The command tree reduced to what a completion script needs; sorted, so the scripts are deterministic. */

export interface OptionSpec {
  /** `-o`, `--output` (short first when both exist). */
  flags: string[];
  description: string;
  /** `required` for `<value>`, `optional` for `[value]`, absent for a flag. */
  value?: { name: string; optional: boolean; choices?: string[]; /** the value is a comma-separated list of choices */ list?: true };
}

export interface ArgSpec {
  name: string;
  variadic: boolean;
  choices?: string[];
}

export interface CommandSpec {
  /** Command names from the root, e.g. `['notes', 'list']`; `[]` for the root. */
  path: string[];
  /** Name and aliases (the name first). */
  names: string[];
  description: string;
  /** Options this command adds (its own plus those of non-root ancestors); the root's are {@link CompletionModel.globals}. */
  options: OptionSpec[];
  args: ArgSpec[];
  subcommands: CommandSpec[];
}

export interface CompletionModel {
  bin: string;
  /** Options of the root program; commander accepts them after any subcommand too. */
  globals: OptionSpec[];
  root: CommandSpec;
}

// Words that end up unquoted in shell code (names, choices): keep them plain, fail loudly otherwise.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const WORD = /^[A-Za-z0-9_./@%+,-]+$/;

function checked(re: RegExp, what: string, words: readonly string[]): string[] {
  for (const w of words) if (!re.test(w)) throw new Error(`completion: ${what} "${w}" has characters the completion scripts cannot carry`);
  return [...words];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const optionKey = (o: OptionSpec) => o.flags[o.flags.length - 1].replace(/^-+/, '');

function optionSpec(o: Option): OptionSpec {
  const flags = [o.short, o.long].filter((f): f is string => !!f);
  const spec: OptionSpec = { flags: checked(/^--?[A-Za-z0-9][A-Za-z0-9_-]*$/, 'option', flags), description: oneLine(o.description) };
  if (o.required || o.optional) {
    const name = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1]?.replace(/\.\.\.$/, '') ?? 'value';
    const list = listChoicesOf(o);
    if (list) spec.value = { name, optional: o.optional, choices: checked(/^[A-Za-z0-9_./@%+-]+$/, 'list choice', list).sort(byText), list: true };
    else spec.value = { name, optional: o.optional, ...(o.argChoices ? { choices: checked(WORD, 'choice', o.argChoices).sort(byText) } : {}) };
  }
  return spec;
}

function visibleOptions(cmd: Command): OptionSpec[] {
  return cmd.createHelp().visibleOptions(cmd).map(optionSpec);
}

function sameFlags(a: OptionSpec, b: OptionSpec): boolean {
  return a.flags.join(' ') === b.flags.join(' ');
}

/** Merge option lists; later lists do not repeat flags already present (the innermost definition wins). */
function mergeOptions(...lists: OptionSpec[][]): OptionSpec[] {
  const out: OptionSpec[] = [];
  for (const list of lists) for (const o of list) if (!out.some((x) => x.flags.some((f) => o.flags.includes(f)))) out.push(o);
  return out.sort((a, b) => byText(optionKey(a), optionKey(b)));
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The -o/--output option offering `formats` (what acceptsOutput declared), or undefined when it has no value. */
function withFormats(output: OptionSpec | undefined, formats: readonly string[] | undefined): OptionSpec | undefined {
  if (!output?.value || !formats) return undefined;
  return { ...output, value: { ...output.value, choices: checked(WORD, 'choice', formats).sort(byText) } };
}

const sameChoices = (a: OptionSpec, b: OptionSpec) => (a.value?.choices ?? []).join(' ') === (b.value?.choices ?? []).join(' ');

export function buildModel(program: Command): CompletionModel {
  const rootOptions = visibleOptions(program);
  const declared = rootOptions.find((o) => o.flags.includes('--output'));
  // The root's -o offers what every command accepts; a command accepting more (acceptsOutput) offers its own -o.
  const rootOutput = withFormats(declared, outputFormatsOf(program as unknown as { parent: unknown }));
  const globals = mergeOptions(rootOptions.map((o) => (o === declared && rootOutput ? rootOutput : o)));
  const walk = (cmd: Command, path: string[], inherited: OptionSpec[]): CommandSpec => {
    const own = path.length ? visibleOptions(cmd).filter((o) => !globals.some((g) => sameFlags(g, o))) : [];
    const output = path.length ? withFormats(declared, outputFormatsOf(cmd as unknown as { parent: unknown })) : undefined;
    if (output && rootOutput && !sameChoices(output, rootOutput)) own.push(output);
    const options = mergeOptions(own, inherited);
    const subcommands = cmd
      .createHelp()
      .visibleCommands(cmd)
      .map((sub) => walk(sub, [...path, checked(NAME, 'command', [sub.name()])[0]], options))
      .sort((a, b) => byText(a.names[0], b.names[0]));
    return {
      path,
      names: checked(NAME, 'command', [cmd.name(), ...[...cmd.aliases()].sort(byText)]),
      description: oneLine(cmd.description()),
      options,
      args: cmd.registeredArguments.map((a) => ({ name: a.name(), variadic: a.variadic, ...(a.argChoices ? { choices: checked(WORD, 'choice', a.argChoices).sort(byText) } : {}) })),
      subcommands,
    };
  };
  return { bin: program.name(), globals, root: walk(program, [], []) };
}

/** Every command of the tree, parents before children. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}
