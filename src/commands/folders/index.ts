import { Command, Option } from '@commander-js/extra-typings';
import { offering } from '../../completion/values.js';
import { SHARING_TYPES } from '../../contract/enums.js';
import { LIMITS } from '../../contract/limits.js';
import { folderId, folderTitle, folderMember, hexColor, oneOf, repeatable } from '../args.js';
import type { Registry } from '../registry.js';
import { insteadOf } from '../shared.js';

const { min, max } = LIMITS.folderTitle;
/** --sharing: one of the contract's sharing types (any case), offered by completion and help. */
const sharing = (description: string) => offering(new Option('--sharing <type>', description).argParser(oneOf(SHARING_TYPES)), SHARING_TYPES);
/** A command about one folder: its first argument is the folder id. */
const onFolder = (name: string) => new Command(name).argument('<id>', 'the folder id (a number)', folderId);

export const list = () =>
  new Command('list')
    .description("list the folders the key can see (the key's workspace, or --workspace)")
    .option('--workspace <ws>', 'the folders of this workspace (guid or exact name)')
    .option('--tree', 'draw the hierarchy (folders whose parent is hidden from you appear at the top level)');
export const get = () => onFolder('get').description('show one folder (LIMITED folders list their members)');
export const create = () =>
  new Command('create')
    .argument('[title]', `the title (${min}–${max} characters)`, folderTitle)
    .description('create a folder (on a terminal asks for what is missing: title, description, colour, sharing type, LIMITED members)')
    .option('--description <text>', 'a description (may be empty)')
    .option('--color <hex>', 'colour #RRGGBB (default #4A90D9)', hexColor)
    .option('--parent <id>', 'create it inside this folder (you need edit rights there)', folderId)
    .addOption(sharing('who sees the folder (default ALL_MEMBER_VIEWER; PRIVATE needs --workspace)'))
    .option('--member <userId:role>', 'a member of a LIMITED folder, role VIEWER or EDITOR (repeatable; implies --sharing LIMITED)', repeatable(folderMember))
    .option('--workspace <ws>', "create it in this workspace (guid or exact name) instead of the key's workspace");
export const update = () =>
  onFolder('update')
    .description('change the title, description, colour, sharing type or members of a folder')
    .option('--title <title>', `a new title (${min}–${max} characters, not blank)`, folderTitle)
    .option('--description <text>', 'a new description ("" clears it)')
    .option('--color <hex>', 'a new colour #RRGGBB', hexColor)
    .addOption(sharing('a new sharing type'))
    .option('--member <userId:role>', 'replace the members of a LIMITED folder (repeatable)', repeatable(folderMember));
export const move = () =>
  onFolder('move')
    .description('move a folder under another one (--to) or to the top level (--root)')
    .option('--to <parent>', 'the new parent folder (same workspace)', folderId)
    .option('--root', 'move it to the top level')
    .option('--inherit-sharing', "take the new parent's sharing type and members (nothing is inherited at the root)");
export const remove = () =>
  onFolder('delete')
    .description('delete a folder and its sub-folders; their notes become folder-less (asks you to type the title)')
    .option('-y, --yes', 'do not ask for confirmation (required when not interactive)');

export function registerFolders(program: Command, r: Registry): void {
  const folders = program.command('folders').description('list, create, change, move and delete folders');
  insteadOf(folders, { tree: 'notevox folders list --tree' });
  if (!r.wants('folders')) return;
  const load = () => import('./run.js');
  r.add(folders, list, load, 'list', [
    'notevox folders list --workspace "Product Team"',
    'notevox folders list --workspace wsProductTeam001 --tree',
    'notevox folders list --json --query "[?sharingType==\'LIMITED\'].title"',
  ]);
  r.add(folders, get, load, 'get', ['notevox folders get 12', 'notevox folders get 12 --json']);
  r.add(folders, create, load, 'create', [
    'notevox folders create "Customer calls" --workspace Sales',
    'notevox folders create "Q3 planning" --parent 12 --color "#7B61FF" --sharing ALL_MEMBER_EDITOR --workspace "Product Team"',
    'notevox folders create "Drafts" --sharing PRIVATE --workspace "Product Team"',
    'notevox folders create "Leadership" --member 102:EDITOR --member 103:VIEWER --workspace "Product Team"',
    'notevox folders create --workspace "Product Team"   # asks for the title and the rest on a terminal',
  ]);
  r.add(folders, update, load, 'update', ['notevox folders update 12 --title "2027 planning (final)"', 'notevox folders update 12 --color "#D0021B" --sharing ALL_MEMBER_VIEWER']);
  r.add(folders, move, load, 'move', ['notevox folders move 13 --to 16', 'notevox folders move 13 --to 19 --inherit-sharing', 'notevox folders move 13 --root']);
  r.add(folders, remove, load, 'remove', ['notevox folders delete 16', 'notevox folders delete 16 --yes']);
}
