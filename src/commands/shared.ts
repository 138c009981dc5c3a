import { Option, type Command } from 'commander';
import type { Context, GlobalOptions } from './types.js';

/** Commands are registered cheaply; their work is imported only when they run. */

export type ContextFactory = (globals: GlobalOptions) => Context;
let factory: ContextFactory | undefined;
let exitCode = 0;

export function setContextFactory(f: ContextFactory): void {
  factory = f;
  exitCode = 0;
}
/** The exit code the last action asked for (0 unless it returned a number). */
export function takeExitCode(): number {
  const c = exitCode;
  exitCode = 0;
  return c;
}

type Runner = (ctx: Context, ...args: any[]) => Promise<number | void> | number | void;

/**
 * `cmd.action(action(() => import('./run.js'), 'list'))`: loads the module on use, builds the
 * context from the merged global options and calls `fn(ctx, ...positionals, options)`.
 */
export function action<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    if (!factory) throw new Error('context factory not set');
    const ctx = factory(cmd.optsWithGlobals() as GlobalOptions);
    const mod = await load();
    const fn = mod[name] as Runner;
    const code = await fn(ctx, ...args.slice(0, -1));
    if (typeof code === 'number') exitCode = code;
  };
}

/**
 * Start-up shortcut: a program may register the sub-commands of only some groups (main(): the groups named on
 * the command line). A skipped group keeps its name and description, so the top-level help is the same; a test
 * checks it. Completions and docs build the whole tree.
 */
const GROUP_FILTERS = new WeakMap<Command, (group: string) => boolean>();

export function registerOnlyGroups(program: Command, wanted: (group: string) => boolean): void {
  GROUP_FILTERS.set(program, wanted);
}

/** Whether this group's sub-commands are left out of its program: `if (skipped(group)) return;` right after creating it. */
export function skipped(group: Command): boolean {
  const wanted = group.parent ? GROUP_FILTERS.get(group.parent) : undefined;
  return wanted ? !wanted(group.name()) : false;
}

const EXAMPLES = new WeakMap<Command, string[]>();

/** Add an Examples section to a command's --help (also read by the generated docs). */
export function examples(cmd: Command, lines: string[]): Command {
  EXAMPLES.set(cmd, lines);
  return cmd.addHelpText('after', '\n' + formatExamples(lines));
}

export function examplesOf(cmd: Command): string[] {
  return EXAMPLES.get(cmd) ?? [];
}

export function formatExamples(lines: string[]): string {
  return 'Examples:\n' + lines.map((l) => `  $ ${l}`).join('\n');
}

/** --limit, --all, --cursor for every paged list. */
export function listOptions(cmd: Command, defaultLimit = 50): Command {
  return cmd
    .addOption(new Option('--limit <n>', 'maximum number of items to show').default(String(defaultLimit)))
    .option('--all', 'fetch every page (streams; constant memory with -o ndjson)')
    .option('--cursor <cursor>', 'start from this cursor (printed when a list is cut short)');
}

export interface ListFlags {
  limit?: string;
  all?: boolean;
  cursor?: string;
}
