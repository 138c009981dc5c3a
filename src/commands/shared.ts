import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { offeringList } from '../completion/values.js';
import { EVENT_TYPE_NAMES } from '../contract/events.js';
import { commaList, integer, oneOf } from './args.js';

const EXAMPLES = new WeakMap<object, string[]>();

/** Add an Examples section to a command's --help (also read by the generated docs). */
export function examples<C extends Command<any, any, any>>(cmd: C, lines: string[]): C {
  EXAMPLES.set(cmd, lines);
  cmd.addHelpText('after', '\n' + formatExamples(lines));
  return cmd;
}

export function examplesOf(cmd: object): string[] {
  return EXAMPLES.get(cmd) ?? [];
}

const INSTEAD = new WeakMap<object, Record<string, string>>();

/**
 * Words a user may type as a sub-command of `group` that name something another command does (`folders tree` →
 * `notevox folders list --tree`): the unknown-command error then points there instead of at a similar name.
 */
export function insteadOf(group: object, words: Record<string, string>): void {
  INSTEAD.set(group, words);
}

export function insteadOfWord(group: object, word: string): string | undefined {
  const words = INSTEAD.get(group);
  return words && Object.hasOwn(words, word) ? words[word] : undefined;
}

export function formatExamples(lines: string[]): string {
  return 'Examples:\n' + lines.map((l) => `  $ ${l}`).join('\n');
}

/** --limit, --all, --cursor for every paged list; `max` is the most --limit may ask for. */
export function listOptions<A extends unknown[], O extends OptionValues>(cmd: Command<A, O>, defaultLimit = 50, max = Number.MAX_SAFE_INTEGER) {
  return cmd
    .addOption(new Option('--limit <n>', 'maximum number of items to show').argParser(integer(1, max, 'Pass e.g. --limit 100, or --all for every page.')).default(defaultLimit))
    .option('--all', 'fetch every page (streams; constant memory with -o ndjson)')
    .option('--cursor <cursor>', 'start from this cursor (printed when a list is cut short)');
}

/** The flags listOptions adds. */
export interface ListFlags {
  limit: number;
  all?: true;
  cursor?: string;
}

/** An option naming event types, comma-separated (`webhooks listen --events`, `sandbox events --type`); each is checked, and completion offers the contract's types. */
export const eventTypes = <const F extends `--${string} <${string}>`>(flags: F, description: string) =>
  offeringList(new Option(flags, description).argParser(commaList(oneOf(EVENT_TYPE_NAMES), { hint: 'docs/events.md lists the event types.' })), EVENT_TYPE_NAMES);
