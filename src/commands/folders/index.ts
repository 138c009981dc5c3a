import { Option, type Command } from 'commander';
import { SHARING_TYPES } from '../../contract/enums.js';
import { offering } from '../../completion/values.js';
import { action, examples, skipped } from '../shared.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const sharing = (description: string) => offering(new Option('--sharing <type>', description), SHARING_TYPES);

export function registerFolders(program: Command): void {
  const folders = program.command('folders').description('list, create, change, move and delete folders');
  if (skipped(folders)) return;
  const load = () => import('./run.js');

  examples(
    folders
      .command('list')
      .description("list the folders the key can see (the key's workspace, or --workspace)")
      .option('--workspace <ws>', 'the folders of this workspace (guid or exact name)')
      .option('--tree', 'draw the hierarchy (folders whose parent is hidden from you appear at the top level)')
      .action(action(load, 'list')),
    ['notevox folders list --workspace "Product Team"', 'notevox folders list --workspace wsProductTeam001 --tree', 'notevox folders list --json --query "[?sharingType==\'LIMITED\'].title"'],
  );

  examples(folders.command('get <id>').description('show one folder (LIMITED folders list their members)').action(action(load, 'get')), [
    'notevox folders get 12',
    'notevox folders get 12 --json',
  ]);

  examples(
    folders
      .command('create [title]')
      .description('create a folder (on a terminal asks for what is missing: title, description, colour, sharing type, LIMITED members)')
      .option('--description <text>', 'a description (may be empty)')
      .option('--color <hex>', 'colour #RRGGBB (default #4A90D9)')
      .option('--parent <id>', 'create it inside this folder (you need edit rights there)')
      .addOption(sharing('who sees the folder (default ALL_MEMBER_VIEWER; PRIVATE needs --workspace)'))
      .option('--member <userId:role>', 'a member of a LIMITED folder, role VIEWER or EDITOR (repeatable; implies --sharing LIMITED)', collect)
      .option('--workspace <ws>', "create it in this workspace (guid or exact name) instead of the key's workspace")
      .action(action(load, 'create')),
    [
      'notevox folders create "Customer calls" --workspace Sales',
      'notevox folders create "Q3 planning" --parent 12 --color "#7B61FF" --sharing ALL_MEMBER_EDITOR --workspace "Product Team"',
      'notevox folders create "Drafts" --sharing PRIVATE --workspace "Product Team"',
      'notevox folders create "Leadership" --member 102:EDITOR --member 103:VIEWER --workspace "Product Team"',
      'notevox folders create --workspace "Product Team"   # asks for the title and the rest on a terminal',
    ],
  );

  examples(
    folders
      .command('update <id>')
      .description('change the title, description, colour, sharing type or members of a folder')
      .option('--title <title>', 'a new title (1–50 characters, not blank)')
      .option('--description <text>', 'a new description ("" clears it)')
      .option('--color <hex>', 'a new colour #RRGGBB')
      .addOption(sharing('a new sharing type'))
      .option('--member <userId:role>', 'replace the members of a LIMITED folder (repeatable)', collect)
      .action(action(load, 'update')),
    ['notevox folders update 12 --title "2027 planning (final)"', 'notevox folders update 12 --color "#D0021B" --sharing ALL_MEMBER_VIEWER'],
  );

  examples(
    folders
      .command('move <id>')
      .description('move a folder under another one (--to) or to the top level (--root)')
      .option('--to <parent>', 'the new parent folder (same workspace)')
      .option('--root', 'move it to the top level')
      .option('--inherit-sharing', "take the new parent's sharing type and members (nothing is inherited at the root)")
      .action(action(load, 'move')),
    ['notevox folders move 13 --to 16', 'notevox folders move 13 --to 19 --inherit-sharing', 'notevox folders move 13 --root'],
  );

  examples(
    folders
      .command('delete <id>')
      .description('delete a folder and its sub-folders; their notes become folder-less (asks you to type the title)')
      .option('-y, --yes', 'do not ask for confirmation (required when not interactive)')
      .action(action(load, 'remove')),
    ['notevox folders delete 16', 'notevox folders delete 16 --yes'],
  );
}
