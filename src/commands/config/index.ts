import { Command } from '@commander-js/extra-typings';
import type { Registry } from '../registry.js';

export function registerConfig(program: Command, r: Registry): void {
  const load = () => import('./run.js');
  const profile = program.command('profile').description('stored profiles: a base URL and a key each');
  r.add(profile, new Command('list').description('list profiles (the key is never shown)'), load, 'profileList', ['notevox profile list']);
  r.add(profile, new Command('use').argument('<name>').description('make a profile the current one'), load, 'profileUse', ['notevox profile use sandbox']);
  r.add(profile, new Command('remove').argument('<name>').description('delete a profile and its stored key'), load, 'profileRemove', ['notevox profile remove old']);

  const config = program.command('config').description('CLI settings: output, timeout, max_retries, color');
  r.add(config, new Command('list').description('show every setting'), load, 'configList', ['notevox config list']);
  r.add(config, new Command('get').argument('<key>').description('print one setting'), load, 'configGet', ['notevox config get output']);
  r.add(config, new Command('set').argument('<key>').argument('<value>').description('change a setting'), load, 'configSet', ['notevox config set output json', 'notevox config set timeout 60']);
  r.add(config, new Command('unset').argument('<key>').description('restore a setting to its default'), load, 'configUnset', ['notevox config unset output']);
}
