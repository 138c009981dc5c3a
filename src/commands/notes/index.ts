import { Command, Option } from '@commander-js/extra-typings';
import { DOCUMENT_FORMATS } from '../../contract/enums.js';
import { LIMITS } from '../../contract/limits.js';
import { boundedText, documentLocale, folderId, integer, isoInstant, nonBlank, noteGuid, positiveId } from '../args.js';
import type { Registry } from '../registry.js';
import { SUMMARY_FORMATS } from './formats.js';
import { listOptions } from '../shared.js';

/** `notes …`: one factory per command (its flags' types come from it); the work is in read, share-links, documents, summaries and export.ts. */

const G = 'nt1LaunchPlan';
/** A command about one note: its first argument is the note guid. */
const onNote = (name: string) => new Command(name).argument('<guid>', 'the note guid (13 letters and digits)', noteGuid);

export const list = () =>
  listOptions(
    new Command('list')
      .description('list notes the key can read (newest first)')
      .option('--workspace <ws>', "a workspace's notes (guid or exact name)")
      .option('--org', "the organization's notes (org admin or organization key)")
      .option('--folder <id>', 'only notes in this folder and its sub-folders', folderId)
      .option('--keyword <text>', 'notes matching a keyword, by relevance (user keys)'),
  );
export const get = () => onNote('get').description('show one note');
export const rename = () =>
  onNote('rename').description(`change a note title (${LIMITS.noteTitle.min}–${LIMITS.noteTitle.max} characters, not blank)`).argument(
    '<title>',
    'the new title',
    boundedText('note title', LIMITS.noteTitle),
  );
export const search = () =>
  new Command('search')
    .argument('<keyword>', 'a word or phrase to search for', nonBlank)
    .description('deep search: notes whose title or transcript contains the keyword, with snippets and primary documents')
    .option('--workspace <ws>', 'search this workspace (guid or exact name); without it the deprecated all-workspace search is used')
    .option('--folder <id>', 'only notes in this folder and its sub-folders', folderId)
    .option('--from <date>', 'created at or after this ISO date or instant (e.g. 2026-10-01)', isoInstant('start'))
    .option('--to <date>', 'created at or before this ISO date or instant (a date includes the whole day, UTC)', isoInstant('end'))
    .option('--size <n>', `at most this many notes (1–${LIMITS.deepSearchMaxSize})`, integer(1, LIMITS.deepSearchMaxSize, `Deep search returns 1 to ${LIMITS.deepSearchMaxSize} notes.`));
export const paragraphs = () =>
  listOptions(
    onNote('paragraphs')
      .description("a note's transcript paragraphs, in order; --follow tails a live note until its recording ends")
      .option('--plain', 'print only the transcript text, one paragraph per line')
      .option('--follow', 'keep printing new paragraphs as they appear (every paragraph once); exit 0 when the recording ends'),
    100,
  );
export const folders = () => onNote('folders').description("the note's folder and the parent folders you can see, from the root down");

export const shareLinkGet = () => onNote('get').description('show the share link');
export const shareLinkCreate = () =>
  onNote('create')
    .description('create the share link (user keys); a link that exists is kept and shown, unless --rotate')
    .option('--password', 'protect the link with a generated password, shown once (added to a kept link that has none)')
    .option('--rotate', 'delete the existing link first and make a new one: the old URL stops working');
export const shareLinkDelete = () => onNote('delete').description('delete the share link');

const documentFormat = (description: string) => new Option('--format <format>', description).choices(DOCUMENT_FORMATS);
export const documentsList = () => onNote('list').description("the note's documents, newest first");
export const documentsGet = () =>
  onNote('get').description('one document: its text (or the JSON with -o json)')
    .argument('<documentId>', 'the document id', positiveId('document id'))
    .addOption(documentFormat('section format the service renders').default('markdown' as const))
    .option('--out <file>', 'write the document to this file (markdown/html: the section contents; json: the JSON)');
export const documentsGenerate = () =>
  onNote('generate').description('generate a document from a template (needs edit rights on the note; asks for missing values on a terminal)')
    .option('--template <id>', 'template id (see `notevox templates list`)', positiveId('template id'))
    .option('--locale <ll_CC>', 'document locale, e.g. en_US', documentLocale)
    .addOption(documentFormat('with --out: the section format written to the file'))
    .option('--out <file>', 'also write the new document to this file (markdown by default; see --format)');

export const summariesList = () => onNote('list').description("the note's summaries, newest first");
export const summariesGet = () =>
  onNote('get').description('one summary (the newest when no id is given)')
    .argument('[summaryId]', 'the summary id', positiveId('summary id'))
    .addOption(
      new Option('--format <format>', 'markdown or plain text (the API names text/markdown and text/plain work too)')
        .choices(Object.keys(SUMMARY_FORMATS) as Array<keyof typeof SUMMARY_FORMATS>)
        .default('markdown' as const),
    )
    .option('--out <file>', 'write the summary text to this file');

export const exportNote = () =>
  onNote('export').description('one file with the title, metadata, participants, latest summary and the timed transcript')
    .addOption(new Option('--format <format>', 'Markdown or one JSON document').choices(['markdown', 'json'] as const).default('markdown' as const))
    .option('--out <file>', 'write to this file (atomically) instead of stdout');

export function registerNotes(program: Command, r: Registry): void {
  const notes = program.command('notes').description('read, rename, search and export notes');
  if (!r.wants('notes')) return;
  const read = () => import('./read.js');

  r.add(notes, list, read, 'list', [
    'notevox notes list',
    'notevox notes list --workspace Sales --limit 10',
    'notevox notes list --all -o ndjson > notes.ndjson',
    'notevox notes list --json --query "[].title"',
  ]);
  r.add(notes, get, read, 'get', ['notevox notes get nt0000000001a', 'notevox notes get nt0000000001a --json']);
  r.add(notes, rename, read, 'rename', ['notevox notes rename nt0000000001a "Q3 planning (final)"']);
  r.add(notes, search, read, 'search', [
    'notevox notes search "offline sync" --workspace "Product Team"',
    'notevox notes search harbor --workspace wsProductTeam001 --from 2026-10-01 --to 2026-10-31 --size 5',
    'notevox notes search launch --workspace "Product Team" --json --query "notes[].documents[].templateTitle"',
  ]);
  r.add(notes, paragraphs, read, 'paragraphs', [
    `notevox notes paragraphs ${G}`,
    `notevox notes paragraphs ${G} --all --plain > transcript.txt`,
    `notevox notes paragraphs ${G} --all -o ndjson`,
    'notevox notes paragraphs <live-note-guid> --follow            # until the recording ends',
  ]);
  r.add(notes, folders, read, 'folders', [`notevox notes folders ${G}`, `notevox notes folders ${G} --json`]);

  const links = () => import('./share-links.js');
  const share = notes.command('share-link').description("read, create or delete a note's share link");
  r.add(share, shareLinkGet, links, 'get', [`notevox notes share-link get ${G}`]);
  r.add(share, shareLinkCreate, links, 'create', [
    `notevox notes share-link create ${G}`,
    `notevox notes share-link create ${G} --password --json`,
    `notevox notes share-link create ${G} --rotate`,
  ]);
  r.add(share, shareLinkDelete, links, 'remove', [`notevox notes share-link delete ${G}`]);

  const docs = () => import('./documents.js');
  const documents = notes.command('documents').description('list, read and generate documents made from templates');
  r.add(documents, documentsList, docs, 'list', [`notevox notes documents list ${G}`]);
  r.add(documents, documentsGet, docs, 'get', [
    `notevox notes documents get ${G} 2`,
    `notevox notes documents get ${G} 2 --format html --out launch.html`,
    `notevox notes documents get ${G} 2 --format json --out launch.json`,
  ]);
  r.add(documents, documentsGenerate, docs, 'generate', [
    `notevox notes documents generate ${G} --template 1 --locale en_US`,
    `notevox notes documents generate ${G} --template 1 --locale en_US --format html --out launch.html`,
    `notevox notes documents generate ${G}   # asks for the template and locale on a terminal`,
  ]);

  const sums = () => import('./summaries.js');
  const summaries = notes.command('summaries').description("list and read a note's summaries");
  r.add(summaries, summariesList, sums, 'list', [`notevox notes summaries list ${G}`]);
  r.add(summaries, summariesGet, sums, 'get', [`notevox notes summaries get ${G}`, `notevox notes summaries get ${G} 1 --format plain --out summary.txt`]);

  r.add(notes, exportNote, () => import('./export.js'), 'exportNote', [
    `notevox notes export ${G} --out launch.md`,
    `notevox notes export ${G} --format json --out launch.json`,
    `notevox notes export ${G} | less`,
  ]);
}
