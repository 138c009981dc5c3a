import { Argument, Command, Option } from '@commander-js/extra-typings';
import { EVENT_TYPE_NAMES } from '../../contract/events.js';
import { commaList, eventIdOrInstant, integer, noteGuid } from '../args.js';
import type { Registry } from '../registry.js';
import { eventTypes } from '../shared.js';

/** `sandbox trigger`, `sandbox events`, `sandbox live-note start`: the sandbox's control API (the work is in events.ts). */

const token = () => new Option('--control-token-file <file>', 'the control token of a sandbox started with one (else env NOTEVOX_SANDBOX_CONTROL_TOKEN)');

export const trigger = () =>
  new Command('trigger')
    .description('fire a test event of any type for an existing resource; the sandbox delivers it to its webhook endpoints')
    .addArgument(new Argument('<event-type>', 'the event type (docs/events.md)').choices(EVENT_TYPE_NAMES))
    .option('--note <guid>', "the note (note.* events; folder.note.* with the note's folder or --folder)", noteGuid)
    .option('--document <id>', 'the document (note_document.* events)', integer(1))
    .option('--summary <id>', 'the summary (note_summary.* events)', integer(1))
    .option('--folder <id>', 'the folder (folder.note.* events, with --note)', integer(1))
    .addOption(token());

export const events = () =>
  new Command('events')
    .description('the event log with every delivery attempt (newest last); --follow keeps printing new events and attempts')
    .addOption(eventTypes('--type <types>', 'only these event types (comma-separated, see docs/events.md)'))
    .option('--since <id-or-time>', 'events after this event id, or at or after this ISO instant', eventIdOrInstant)
    .addOption(new Option('--limit <n>', 'at most this many events (without --since: the newest ones)').argParser(integer(1, 1000)).default(20))
    .option('--follow', 'keep printing new events and delivery attempts until Ctrl-C')
    .addOption(token());

export const liveNoteStart = () =>
  new Command('start')
    .description('start a live note: its paragraphs appear one every --interval seconds, then it ends (note.ended)')
    .requiredOption('--workspace <ws>', 'the workspace (guid, or exact name with a key set)')
    .option('--paragraphs <n>', 'how many paragraphs it records (default 6)', integer(1))
    .option('--interval <seconds>', 'seconds between paragraphs (default 2; fractions work, e.g. 0.05)')
    .option('--stops <counts>', 'paragraph counts after which a recording stops (note.recording.completed), e.g. 2,4', commaList(integer(1)))
    .option('--title <title>', 'the note title (default: "Live note" and the time)')
    .option('--folder <id>', 'put the note in this folder of the workspace (folder.note.added)', integer(1))
    .addOption(token());

export function registerSandboxEvents(sandbox: Command<any, any, any>, r: Registry): void {
  const load = () => import('./events.js');
  r.add(sandbox, trigger(), load, 'trigger', [
    'notevox sandbox trigger note.ended --note nt1LaunchPlan',
    'notevox sandbox trigger note_document.generated            # the newest document',
    'notevox sandbox trigger folder.note.added --note nt1LaunchPlan --folder 13',
    'notevox sandbox trigger note_summary.generated --summary 1 --json',
  ]);
  r.add(sandbox, events(), load, 'events', [
    'notevox sandbox events',
    'notevox sandbox events --type note.ended,note.recording.completed --json',
    'notevox sandbox events --follow',
    'notevox sandbox events --follow -o ndjson | jq .',
  ]);
  const live = sandbox.command('live-note').description('notes that are still recording: paragraphs appear over time, then note.ended');
  r.add(live, liveNoteStart(), load, 'liveNoteStart', [
    'notevox sandbox live-note start --workspace wsProductTeam001',
    'notevox sandbox live-note start --workspace "Product Team" --paragraphs 10 --interval 0.5 --stops 5 --folder 11',
    'notevox sandbox live-note start --workspace wsProductTeam001 --json --query guid',
  ]);
}
