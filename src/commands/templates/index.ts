import { Command, Option } from '@commander-js/extra-typings';
import { positiveId } from '../args.js';
import type { Registry } from '../registry.js';

export const list = () =>
  new Command('list')
    .description("templates the key can use (managed, your own, your workspaces', your organization's), or one owner's")
    .option('--managed', 'only the managed (built-in) templates')
    .addOption(new Option('--owner <owner>', 'only the templates of one owner').choices(['user', 'workspace', 'org'] as const))
    .option('--workspace <ws>', "a workspace's templates (guid or exact name), or - for every workspace the key reaches");
export const get = () => new Command('get').argument('<id>', 'the template id', positiveId('template id')).description('one template with its sections');

export function registerTemplates(program: Command, r: Registry): void {
  const templates = program.command('templates').description('list and read the note document templates the key can use');
  if (!r.wants('templates')) return;
  const load = () => import('./run.js');
  r.add(templates, list, load, 'list', [
    'notevox templates list',
    'notevox templates list --managed',
    'notevox templates list --owner user',
    "notevox templates list --owner workspace              # the key's own workspace",
    'notevox templates list --workspace "Product Team"',
    'notevox templates list --workspace - --json',
  ]);
  r.add(templates, get, load, 'get', ['notevox templates get 1', 'notevox templates get 1 --json --query "sections[].title"']);
}
