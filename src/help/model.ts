// Build time (scripts/build.mjs) and tests: the command tree's help as data for the launcher's fast path
// (./fast.ts). Everything is read through commander's own Help object, then checked: an entry whose rendering
// differs from commander's output at any of the checked widths is left out, so that command's help falls back
// to the bundle (and test/unit/help-fast.test.ts, which requires an entry for every command, fails).
import type { Command, Help, Option } from 'commander';
import { fileFor, renderHelp, ROOT_FILE, type HelpEntry, type HelpFile } from './fast.js';

/** Widths checked at build time: narrow (no wrapping below minWidthToWrap), a pipe's 80, common terminals, very wide. */
export const CHECK_WIDTHS = [20, 60, 79, 80, 81, 100, 120, 160, 200, 1000];

/** commander's help for `cmd` at a width: everything outputHelp() writes (help text and addHelpText), and the help text alone. */
export function commanderHelp(cmd: Command, width: number): { written: string; help: string } {
  const saved = { ...cmd.configureOutput() };
  let written = '';
  cmd.configureOutput({ writeOut: (s) => (written += s), getOutHelpWidth: () => width, getOutHasColors: () => false });
  try {
    const help = cmd.helpInformation();
    cmd.outputHelp();
    return { written, help };
  } finally {
    cmd.configureOutput(saved);
  }
}

/**
 * The help flags commander recognises on `cmd`: its default help option, which no command of notevox changes
 * (commander has no public getter for it). Its help lists the option it takes, so a command whose help option
 * differs is left to the bundle.
 */
const HELP_FLAGS = ['-h', '--help'];
function helpFlags(visible: readonly Option[]): string[] | undefined {
  return visible.some((o) => o.short === HELP_FLAGS[0] && o.long === HELP_FLAGS[1]) ? HELP_FLAGS : undefined;
}

/** One command's entry, or a reason it cannot be answered exactly. */
export function helpEntry(cmd: Command): HelpEntry | { unsupported: string } {
  const helper: Help = cmd.createHelp();
  helper.prepareContext({ error: false, helpWidth: 80, outputHasColors: false });
  if (helper.showGlobalOptions) return { unsupported: 'global options in help' };
  const item = (term: string, description: string): [string, string] => [term, description];
  const sections: HelpEntry['sections'] = [];
  const add = (heading: string, items: Array<[string, string]>) => {
    if (items.length) sections.push([helper.styleTitle(heading), items]);
  };
  add(
    'Arguments:',
    helper.visibleArguments(cmd).map((a) => item(helper.styleArgumentTerm(helper.argumentTerm(a)), helper.styleArgumentDescription(helper.argumentDescription(a)))),
  );
  for (const [heading, options] of helper.groupItems(cmd.options as Option[], helper.visibleOptions(cmd), (o) => o.helpGroupHeading ?? 'Options:')) {
    add(heading, options.map((o) => item(helper.styleOptionTerm(helper.optionTerm(o)), helper.styleOptionDescription(helper.optionDescription(o)))));
  }
  for (const [heading, commands] of helper.groupItems(cmd.commands as Command[], helper.visibleCommands(cmd), (c) => c.helpGroup() || 'Commands:')) {
    add(heading, commands.map((c) => item(helper.styleSubcommandTerm(helper.subcommandTerm(c)), helper.styleSubcommandDescription(helper.subcommandDescription(c)))));
  }
  const flags = helpFlags(helper.visibleOptions(cmd));
  if (!flags) return { unsupported: `no ${HELP_FLAGS.join(', ')} option` };
  const { written, help } = commanderHelp(cmd, 80);
  const at = written.indexOf(help);
  if (at < 0) return { unsupported: 'outputHelp() does not contain helpInformation()' };
  const entry: HelpEntry = {
    usage: `${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`,
    description: helper.styleCommandDescription(helper.commandDescription(cmd)),
    sections,
    termWidth: helper.padWidth(cmd, helper),
    minWidthToWrap: helper.minWidthToWrap,
    before: written.slice(0, at),
    after: written.slice(at + help.length),
    helpFlags: flags,
  };
  // Colour would make commander's widths differ from string lengths; the fast path prints plain text only.
  if (JSON.stringify(entry).includes('\\u001b')) return { unsupported: 'escape sequences in help text' };
  for (const width of CHECK_WIDTHS) {
    if (renderHelp(entry, width) !== commanderHelp(cmd, width).written) return { unsupported: `differs from commander at width ${width}` };
  }
  return entry;
}

/** The command path of every command below `cmd`, by name and by each alias, with the command. */
export function commandPaths(cmd: Command, prefix: string[] = []): Array<[string[], Command]> {
  return cmd.commands.flatMap((sub) =>
    [sub.name(), ...sub.aliases()].flatMap((name) => {
      const path = [...prefix, name];
      return [[path, sub] as [string[], Command], ...commandPaths(sub, path)];
    }),
  );
}

/**
 * The generated files (name → content) for the whole tree: one per top-level command and the root's, with the
 * `help <topic>` texts. `problems` lists the commands left out and why.
 */
export function helpFiles(program: Command, topics: Record<string, string>): { files: Record<string, HelpFile>; problems: string[] } {
  const problems: string[] = [];
  const files: Record<string, HelpFile> = {};
  const helpCommand = program.commands.some((c) => c.name() === 'help');
  files[ROOT_FILE] = { entries: {}, topics, helpCommand };
  for (const [path, cmd] of [[[], program] as [string[], Command], ...commandPaths(program)]) {
    const name = path.length ? fileFor(path[0]) : ROOT_FILE;
    const entry = helpEntry(cmd);
    if (!name) problems.push(`${path.join(' ')}: not a file name`);
    else if ('unsupported' in entry) problems.push(`${['notevox', ...path].join(' ')}: ${entry.unsupported}`);
    else (files[name] ??= { entries: {} }).entries[path.join(' ')] = entry;
  }
  return { files, problems };
}
