import { Command } from '@commander-js/extra-typings';
import type { Registry } from '../registry.js';

export const doctor = () =>
  new Command('doctor')
    .description('check the set-up: Node.js, config file, profile, base URL, TLS, proxy, key, scopes, workspace, rate limit, clock')
    .option('--no-network', 'only the checks on this machine (no request is made)')
    .option('--for <groups>', 'check only what these command groups need (comma-separated: notes, folders, templates, wm, voice, workspaces, wiki)');

export function registerDoctor(program: Command, r: Registry): void {
  r.add(program, doctor, () => import('./run.js'), 'doctor', [
    'notevox doctor                      # every check, a table on a terminal',
    'notevox doctor --for wm,voice       # only the scopes and workspace those commands need',
    'notevox doctor --no-network -o json # the local checks, for a script',
  ]);
}
