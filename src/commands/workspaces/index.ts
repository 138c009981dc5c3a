import { Command } from '@commander-js/extra-typings';
import { LIMITS } from '../../contract/limits.js';
import { boundedText, integer } from '../args.js';
import type { Registry } from '../registry.js';

const WS = 'wsSupportDesk003';
const { min, max } = LIMITS.workspaceName;
const workspaceName = boundedText('workspace name', LIMITS.workspaceName);
/** A command about one workspace of the organization: its first argument names it. */
const onWorkspace = (name: string) => new Command(name).argument('<workspace>', 'the workspace (guid or exact name)');

export const list = () => new Command('list').description('every workspace of the organization, with wiki state and minutes quota');
export const get = () => onWorkspace('get').description('show one workspace (guid or exact name)');
export const create = () =>
  new Command('create').argument('<name>', `the name (${min}–${max} characters)`, workspaceName).description(`create a workspace (name ${min}–${max} characters); an admin creating it becomes its owner`);
export const rename = () => onWorkspace('rename').argument('<name>', `the new name (${min}–${max} characters)`, workspaceName).description(`rename a workspace (new name ${min}–${max} characters)`);
export const quota = () =>
  onWorkspace('quota')
    .description('set the monthly voice minutes quota (exactly one of --minutes and --unlimited)')
    .option('--minutes <n>', 'monthly limit in minutes (a whole number, 0 or more)', integer(0, Number.MAX_SAFE_INTEGER, 'Pass e.g. --minutes 600, or --unlimited to remove the limit.'))
    .option('--unlimited', 'remove the limit');
export const remove = () =>
  onWorkspace('delete')
    .description('delete an empty workspace (no notes, no folders); asks you to type its name unless --yes')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)');
export const orgShow = () => new Command('show').description('the organization, and how many workspaces it has when the key may list them');

/** `workspaces …` (organization management) and `org show`. */
export function registerWorkspaces(program: Command, r: Registry): void {
  const load = () => import('./run.js');
  const workspaces = program.command('workspaces').description("manage the organization's workspaces (an organization admin's account key, or an organization key)");
  if (r.wants('workspaces')) {
    r.add(workspaces, list, load, 'list', ['notevox workspaces list', 'notevox workspaces list --json --query "[?isWikiEnabled].name"']);
    r.add(workspaces, get, load, 'get', ['notevox workspaces get "Customer Support"', `notevox workspaces get ${WS} --json`]);
    r.add(workspaces, create, load, 'create', ['notevox workspaces create "Research"', 'notevox workspaces create "Field Ops" --json --query guid']);
    r.add(workspaces, rename, load, 'rename', ['notevox workspaces rename Sales "Sales EMEA"', `notevox workspaces rename ${WS} "Support"`]);
    r.add(workspaces, quota, load, 'quota', ['notevox workspaces quota "Customer Support" --minutes 900', 'notevox workspaces quota Sales --unlimited']);
    r.add(workspaces, remove, load, 'remove', ['notevox workspaces delete "Old Project"            # type the name to confirm', 'notevox workspaces delete wsOldProject0001 --yes']);
  }
  const org = program.command('org').description("the key's organization");
  r.add(org, orgShow, load, 'orgShow', ['notevox org show', 'notevox org show --json']);
}
