import { Option, type Command } from 'commander';
import { action, examples, skipped } from '../shared.js';

export function registerTemplates(program: Command): void {
  const templates = program.command('templates').description('list and read the note document templates the key can use');
  if (skipped(templates)) return;
  const load = () => import('./run.js');

  examples(
    templates
      .command('list')
      .description('templates the key can use (managed, your own, your workspaces\', your organization\'s), or one owner\'s')
      .option('--managed', 'only the managed (built-in) templates')
      .addOption(new Option('--owner <owner>', 'only the templates of one owner').choices(['user', 'workspace', 'org']))
      .option('--workspace <ws>', "a workspace's templates (guid or exact name), or - for every workspace the key reaches")
      .action(action(load, 'list')),
    [
      'notevox templates list',
      'notevox templates list --managed',
      'notevox templates list --owner user',
      'notevox templates list --owner workspace              # the key\'s own workspace',
      'notevox templates list --workspace "Product Team"',
      'notevox templates list --workspace - --json',
    ],
  );

  examples(templates.command('get <id>').description('one template with its sections').action(action(load, 'get')), [
    'notevox templates get 1',
    'notevox templates get 1 --json --query "sections[].title"',
  ]);
}
