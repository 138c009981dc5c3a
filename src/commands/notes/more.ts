import { Option, type Command } from 'commander';
import { DOCUMENT_FORMATS } from '../../contract/enums.js';
import { LIMITS } from '../../contract/limits.js';
import { action, examples, listOptions } from '../shared.js';

const G = 'nt1LaunchPlan';

/** notes search, paragraphs, folders, share-link, documents, summaries, export (the work is in run-more.ts). */
export function registerNotesMore(notes: Command): void {
  const load = () => import('./run-more.js');

  examples(
    notes
      .command('search <keyword>')
      .description('deep search: notes whose title or transcript contains the keyword, with snippets and primary documents')
      .option('--workspace <ws>', 'search this workspace (guid or exact name); without it the deprecated all-workspace search is used')
      .option('--folder <id>', 'only notes in this folder and its sub-folders')
      .option('--from <date>', 'created at or after this ISO date or instant (e.g. 2026-10-01)')
      .option('--to <date>', 'created at or before this ISO date or instant (a date includes the whole day, UTC)')
      .option('--size <n>', `at most this many notes (1–${LIMITS.deepSearchMaxSize})`)
      .action(action(load, 'search')),
    [
      'notevox notes search "offline sync" --workspace "Product Team"',
      'notevox notes search harbor --workspace wsProductTeam001 --from 2026-10-01 --to 2026-10-31 --size 5',
      'notevox notes search launch --workspace "Product Team" --json --query "notes[].documents[].templateTitle"',
    ],
  );

  examples(
    listOptions(
      notes
        .command('paragraphs <guid>')
        .description("a note's transcript paragraphs, in order; --follow tails a live note until its recording ends")
        .option('--plain', 'print only the transcript text, one paragraph per line')
        .option('--follow', 'keep printing new paragraphs as they appear (every paragraph once); exit 0 when the recording ends'),
      100,
    ).action(action(load, 'paragraphs')),
    [
      `notevox notes paragraphs ${G}`,
      `notevox notes paragraphs ${G} --all --plain > transcript.txt`,
      `notevox notes paragraphs ${G} --all -o ndjson`,
      'notevox notes paragraphs <live-note-guid> --follow            # until the recording ends',
    ],
  );

  examples(notes.command('folders <guid>').description("the note's folder and the parent folders you can see, from the root down").action(action(load, 'folders')), [
    `notevox notes folders ${G}`,
    `notevox notes folders ${G} --json`,
  ]);

  const share = notes.command('share-link').description("read, create or delete a note's share link");
  examples(share.command('get <guid>').description('show the share link').action(action(load, 'shareLinkGet')), [`notevox notes share-link get ${G}`]);
  examples(
    share
      .command('create <guid>')
      .description('create the share link (user keys); a link that exists is kept and shown, unless --rotate')
      .option('--password', 'protect the link with a generated password, shown once (added to a kept link that has none)')
      .option('--rotate', 'delete the existing link first and make a new one: the old URL stops working')
      .action(action(load, 'shareLinkCreate')),
    [`notevox notes share-link create ${G}`, `notevox notes share-link create ${G} --password --json`, `notevox notes share-link create ${G} --rotate`],
  );
  examples(share.command('delete <guid>').description('delete the share link').action(action(load, 'shareLinkDelete')), [`notevox notes share-link delete ${G}`]);

  const docs = notes.command('documents').description('list, read and generate documents made from templates');
  examples(docs.command('list <guid>').description("the note's documents, newest first").action(action(load, 'documentsList')), [
    `notevox notes documents list ${G}`,
  ]);
  examples(
    docs
      .command('get <guid> <documentId>')
      .description('one document: its text (or the JSON with -o json)')
      .addOption(new Option('--format <format>', 'section format the service renders').choices(DOCUMENT_FORMATS).default('markdown'))
      .option('--out <file>', 'write the document to this file (markdown/html: the section contents; json: the JSON)')
      .action(action(load, 'documentsGet')),
    [`notevox notes documents get ${G} 2`, `notevox notes documents get ${G} 2 --format html --out launch.html`, `notevox notes documents get ${G} 2 --format json --out launch.json`],
  );
  examples(
    docs
      .command('generate <guid>')
      .description('generate a document from a template (needs edit rights on the note; asks for missing values on a terminal)')
      .option('--template <id>', 'template id (see `notevox templates list`)')
      .option('--locale <ll_CC>', 'document locale, e.g. en_US')
      .addOption(new Option('--format <format>', 'with --out: the section format written to the file').choices(DOCUMENT_FORMATS))
      .option('--out <file>', 'also write the new document to this file (markdown by default; see --format)')
      .action(action(load, 'documentsGenerate')),
    [
      `notevox notes documents generate ${G} --template 1 --locale en_US`,
      `notevox notes documents generate ${G} --template 1 --locale en_US --format html --out launch.html`,
      `notevox notes documents generate ${G}   # asks for the template and locale on a terminal`,
    ],
  );

  const sums = notes.command('summaries').description("list and read a note's summaries");
  examples(sums.command('list <guid>').description("the note's summaries, newest first").action(action(load, 'summariesList')), [`notevox notes summaries list ${G}`]);
  examples(
    sums
      .command('get <guid> [summaryId]')
      .description('one summary (the newest when no id is given)')
      .addOption(new Option('--format <format>', 'markdown or plain text (the API names text/markdown and text/plain work too)').choices(['markdown', 'plain', 'text/markdown', 'text/plain']).default('markdown'))
      .option('--out <file>', 'write the summary text to this file')
      .action(action(load, 'summariesGet')),
    [`notevox notes summaries get ${G}`, `notevox notes summaries get ${G} 1 --format plain --out summary.txt`],
  );

  examples(
    notes
      .command('export <guid>')
      .description('one file with the title, metadata, participants, latest summary and the timed transcript')
      .addOption(new Option('--format <format>', 'Markdown or one JSON document').choices(['markdown', 'json']).default('markdown'))
      .option('--out <file>', 'write to this file (atomically) instead of stdout')
      .action(action(load, 'exportNote')),
    [`notevox notes export ${G} --out launch.md`, `notevox notes export ${G} --format json --out launch.json`, `notevox notes export ${G} | less`],
  );
}
