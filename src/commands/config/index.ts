import type { Command } from 'commander';
import { action, examples } from '../shared.js';

export function registerConfig(program: Command): void {
  const load = () => import('./run.js');
  const profile = program.command('profile').description('stored profiles: a base URL and a key each');
  examples(profile.command('list').description('list profiles (the key is never shown)').action(action(load, 'profileList')), ['notevox profile list']);
  examples(profile.command('use <name>').description('make a profile the current one').action(action(load, 'profileUse')), ['notevox profile use sandbox']);
  examples(profile.command('remove <name>').description('delete a profile and its stored key').action(action(load, 'profileRemove')), ['notevox profile remove old']);

  const config = program.command('config').description('CLI settings: output, timeout, max_retries, color');
  examples(config.command('list').description('show every setting').action(action(load, 'configList')), ['notevox config list']);
  examples(config.command('get <key>').description('print one setting').action(action(load, 'configGet')), ['notevox config get output']);
  examples(config.command('set <key> <value>').description('change a setting').action(action(load, 'configSet')), ['notevox config set output json', 'notevox config set timeout 60']);
  examples(config.command('unset <key>').description('restore a setting to its default').action(action(load, 'configUnset')), ['notevox config unset output']);
}
