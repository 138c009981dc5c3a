import { Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { acceptsOutput, offering } from '../../completion/values.js';
import { OUTPUT_FORMATS as BASE_OUTPUT } from '../../io/formats.js';
import { LIMITS } from '../../contract/limits.js';
import { integer, jobId, locale, translationLocales } from '../args.js';
import type { Registry } from '../registry.js';
import { OUTPUT_MODES } from './options.js';

const JOB = '3f2b8c1e-4d5a-4e6f-9a7b-8c9d0e1f2a3b';
const uploadMb = LIMITS.uploadMaxBytes / 1e6;
const maxHours = LIMITS.audioMaxSeconds / 3600;
const WAIT_TIMEOUT_HELP = 'how long to wait for the job, e.g. 90s, 30m, 2h (default 2h); then exit 12, the job keeps running';
const FORMAT_HELP = 'text (the transcript), json (transcript, translations, summary) or srt (subtitles); the same as -o text|json|srt (--json is json)';

/** Results modes that only the commands with --format know; the root's -o accepts them and they are moved here. */
const RESULT_MODES = ['text', 'srt'];

/**
 * `-o text|json|srt` on the result commands: the root program parses -o (its formats are table, json, …), so
 * before the action runs a `text` or `srt` value moves to the command's own --format (an explicit --format wins).
 * Other voice commands take `-o text` as their default view.
 */
function outputToFormat(program: Command) {
  return (_voice: Command, actionCmd: Command<any, any, any>) => {
    const value = program.getOptionValue('output') as string | undefined;
    if (value === undefined || !RESULT_MODES.includes(value)) return;
    const hasFormat = actionCmd.options.some((o) => o.long === '--format');
    if (!hasFormat && value !== 'text') return; // -o srt elsewhere is refused with the list of formats
    if (hasFormat && actionCmd.getOptionValue('format') === undefined) actionCmd.setOptionValue('format', value);
    program.setOptionValue('output', undefined);
  };
}

const FORMAT = () => offering(new Option('--format <mode>', FORMAT_HELP), OUTPUT_MODES);
/** A command about one job: its first argument is the job id. */
const onJob = (name: string) => new Command(name).argument('<job>', 'the job id (a UUID)', jobId);

/** Options that shape how a finished job is shown and saved. */
const resultOptions = <A extends unknown[], O extends OptionValues>(cmd: Command<A, O>) =>
  cmd
    .addOption(FORMAT())
    .option('--out <dir>', 'also write transcript.txt/.json/.srt, translation-<locale>.txt and summary.md to this directory')
    .option('--summary', 'print the paragraph summary after the transcript (json: a "summary" field)')
    .option('--wait-timeout <duration>', WAIT_TIMEOUT_HELP);

export const upload = () =>
  resultOptions(
    new Command('upload')
      .argument('<file>', 'the recording')
      .description(
        `transcribe a recording: checks it (WAV, MP3 or MP4/M4A by content, at most ${uploadMb} MB and ${maxHours} hours), creates a job, uploads, waits, prints the transcript (exit 9 if the job FAILED)`,
      )
      .option('--locale <ll_CC>', 'the language spoken, e.g. en_US', locale)
      .option('--translate <ll_CC,...>', `also translate into these locales (at most ${LIMITS.translationLocalesMax})`, translationLocales)
      .option('--workspace <ws>', 'workspace for the job (guid or exact name); needed for keys bound to no workspace')
      .option('--no-wait', 'return after the upload; print the job id (finish with `notevox voice wait`)'),
  );
export const wait = () => resultOptions(onJob('wait').description('wait for a job to finish and print its transcript (resumes an interrupted upload command)'));
export const status = () => onJob('status').description("show a job's status, times and error message");
export const transcript = () => onJob('transcript').description("print a completed job's transcript").addOption(FORMAT());
export const translations = () => onJob('translations').description("list a completed job's translations");
export const translation = () => onJob('translation').argument('<locale>', 'a locale the job was created with', locale).description('print one translation (a locale the job was created with)');
export const summary = () => onJob('summary').description("print the paragraph summary of a completed job's transcript (Markdown)").option('--locale <ll_CC>', 'the summary of this translation instead', locale);
export const remove = () => onJob('delete').description('delete a job (cancels it when it is still processing)');
export const transcribe = () =>
  new Command('transcribe')
    .argument('<paths...>', 'recordings, or directories of them')
    .description('transcribe many recordings (files or directories), a few at a time; results go to DIR/<name>/ and files already done are skipped')
    .option('--out <dir>', 'directory for the results (required)')
    .option('--locale <ll_CC>', 'the language spoken, e.g. en_US', locale)
    .option('--translate <ll_CC,...>', `also translate into these locales (at most ${LIMITS.translationLocalesMax})`, translationLocales)
    .option('--workspace <ws>', 'workspace for the jobs (guid or exact name); needed for keys bound to no workspace')
    .option('--concurrency <n>', 'files processed at the same time (default 2)', integer(1, 16))
    .option('--wait-timeout <duration>', WAIT_TIMEOUT_HELP);

export function registerVoice(program: Command, r: Registry): void {
  const voice = program.command('voice').description('voice file jobs: upload a recording, get its transcript, translations and summary');
  if (!r.wants('voice')) return;
  const load = () => import('./run.js');
  voice.hook('preAction', outputToFormat(program));
  // What outputToFormat lets through: -o text on every voice command, srt where --format takes it.
  acceptsOutput(voice, [...BASE_OUTPUT, 'text']);
  const results = [...BASE_OUTPUT, ...RESULT_MODES];
  r.add(voice, acceptsOutput(upload(), results), load, 'upload', [
    'notevox voice upload meeting.m4a --locale en_US',
    'notevox voice upload call.mp3 --translate ko_KR,ja_JP --out results/',
    'notevox voice upload interview.wav --format srt > interview.srt',
    'notevox voice upload big.wav --no-wait --workspace "Product Team"',
  ]);
  r.add(voice, acceptsOutput(wait(), results), load, 'wait', [`notevox voice wait ${JOB}`, `notevox voice wait ${JOB} --out results/ --wait-timeout 30m`]);
  r.add(voice, status(), load, 'status', [`notevox voice status ${JOB}`, `notevox voice status ${JOB} --json --query status`]);
  r.add(voice, acceptsOutput(transcript(), results), load, 'transcript', [`notevox voice transcript ${JOB}`, `notevox voice transcript ${JOB} --format srt > subtitles.srt`]);
  r.add(voice, translations(), load, 'translations', [`notevox voice translations ${JOB}`, `notevox voice translations ${JOB} --json`]);
  r.add(voice, translation(), load, 'translation', [`notevox voice translation ${JOB} ko_KR`]);
  r.add(voice, summary(), load, 'summary', [`notevox voice summary ${JOB}`, `notevox voice summary ${JOB} --locale ko_KR`]);
  r.add(voice, remove(), load, 'remove', [`notevox voice delete ${JOB}`]);
  r.add(voice, transcribe(), load, 'transcribe', ['notevox voice transcribe recordings/ --out transcripts/', 'notevox voice transcribe a.mp3 b.wav c.m4a --out out/ --concurrency 3 --translate de_DE']);
}
