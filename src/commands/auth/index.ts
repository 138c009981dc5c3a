import type { Command } from 'commander';
import { action, examples } from '../shared.js';

export function registerAuth(program: Command): void {
  const auth = program.command('auth').description('log in with an API key, see which key is in use, log out');
  const load = () => import('./run.js');

  examples(
    auth
      .command('login')
      .description('store an API key in a profile after checking it with the service (GET auth/me)')
      .option('--with-key', 'read the key from standard input instead of prompting')
      .action(action(load, 'login')),
    [
      'notevox auth login                                   # prompts for the key (masked)',
      'notevox auth login --base-url http://127.0.0.1:4010 --profile sandbox',
      'printenv NOTEVOX_KEY | notevox auth login --with-key --profile ci',
    ],
  );
  examples(auth.command('status').description('which key is in use, where it came from, and what it may do').action(action(load, 'status')), [
    'notevox auth status',
    'notevox auth status --json',
  ]);
  examples(auth.command('logout').description("remove the stored key of the profile (--profile, or the current one)").action(action(load, 'logout')), [
    'notevox auth logout',
    'notevox auth logout --profile ci',
  ]);
  examples(auth.command('switch <profile>').description('make another stored profile the current one').action(action(load, 'switchProfile')), [
    'notevox auth switch sandbox',
  ]);

  examples(program.command('scopes').description('list the scopes an API key can be given (no key needed)').action(action(load, 'scopes')), [
    'notevox scopes',
    'notevox scopes -o json',
  ]);
}
