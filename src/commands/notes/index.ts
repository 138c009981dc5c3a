import type { Command } from 'commander';
import { action, examples, listOptions, skipped } from '../shared.js';
import { registerNotesMore } from './more.js';

export function registerNotes(program: Command): Command {
  const notes = program.command('notes').description('read, rename, search and export notes');
  if (skipped(notes)) return notes;
  const load = () => import('./run.js');

  examples(
    listOptions(
      notes
        .command('list')
        .description('list notes the key can read (newest first)')
        .option('--workspace <ws>', "a workspace's notes (guid or exact name)")
        .option('--org', "the organization's notes (org admin or organization key)")
        .option('--folder <id>', 'only notes in this folder and its sub-folders')
        .option('--keyword <text>', 'notes matching a keyword, by relevance (user keys)'),
    ).action(action(load, 'list')),
    ['notevox notes list', 'notevox notes list --workspace Sales --limit 10', 'notevox notes list --all -o ndjson > notes.ndjson', 'notevox notes list --json --query "[].title"'],
  );

  examples(notes.command('get <guid>').description('show one note').action(action(load, 'get')), [
    'notevox notes get nt0000000001a',
    'notevox notes get nt0000000001a --json',
  ]);

  examples(notes.command('rename <guid> <title>').description('change a note title (1–100 characters, not blank)').action(action(load, 'rename')), [
    'notevox notes rename nt0000000001a "Q3 planning (final)"',
  ]);
  registerNotesMore(notes);
  return notes;
}
