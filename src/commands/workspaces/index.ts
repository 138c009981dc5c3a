import type { Command } from 'commander';
import { LIMITS } from '../../contract/limits.js';
import { action, examples, skipped } from '../shared.js';

const WS = 'wsSupportDesk003';

/** `workspaces …` (organization management) and `org show`. */
export function registerWorkspaces(program: Command): void {
  const load = () => import('./run.js');
  const { min, max } = LIMITS.workspaceName;
  const workspaces = program
    .command('workspaces')
    .description("manage the organization's workspaces (an organization admin's account key, or an organization key)");
  if (!skipped(workspaces)) {
    const arg = '<workspace>';

    examples(workspaces.command('list').description("every workspace of the organization, with wiki state and minutes quota").action(action(load, 'list')), [
      'notevox workspaces list',
      'notevox workspaces list --json --query "[?isWikiEnabled].name"',
    ]);

    examples(workspaces.command(`get ${arg}`).description('show one workspace (guid or exact name)').action(action(load, 'get')), [
      'notevox workspaces get "Customer Support"',
      `notevox workspaces get ${WS} --json`,
    ]);

    examples(workspaces.command('create <name>').description(`create a workspace (name ${min}–${max} characters); an admin creating it becomes its owner`).action(action(load, 'create')), [
      'notevox workspaces create "Research"',
      'notevox workspaces create "Field Ops" --json --query guid',
    ]);

    examples(workspaces.command(`rename ${arg} <name>`).description(`rename a workspace (new name ${min}–${max} characters)`).action(action(load, 'rename')), [
      'notevox workspaces rename Sales "Sales EMEA"',
      `notevox workspaces rename ${WS} "Support"`,
    ]);

    examples(
      workspaces
        .command(`quota ${arg}`)
        .description('set the monthly voice minutes quota (exactly one of --minutes and --unlimited)')
        .option('--minutes <n>', 'monthly limit in minutes (a whole number, 0 or more)')
        .option('--unlimited', 'remove the limit')
        .action(action(load, 'quota')),
      ['notevox workspaces quota "Customer Support" --minutes 900', 'notevox workspaces quota Sales --unlimited'],
    );

    examples(
      workspaces
        .command(`delete ${arg}`)
        .description('delete an empty workspace (no notes, no folders); asks you to type its name unless --yes')
        .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
        .action(action(load, 'remove')),
      ['notevox workspaces delete "Old Project"            # type the name to confirm', 'notevox workspaces delete wsOldProject0001 --yes'],
    );
  }

  const org = program.command('org').description("the key's organization");
  examples(org.command('show').description('the organization, and how many workspaces it has when the key may list them').action(action(load, 'orgShow')), [
    'notevox org show',
    'notevox org show --json',
  ]);
}
