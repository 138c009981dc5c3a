import { Command } from '@commander-js/extra-typings';
import type { Registry } from '../registry.js';

export const login = () =>
  new Command('login')
    .description('store an API key in a profile after checking it with the service (GET auth/me)')
    .option('--with-key', 'read the key from standard input instead of prompting');
export const status = () => new Command('status').description('which key is in use, where it came from, and what it may do');
export const logout = () => new Command('logout').description('remove the stored key of the profile (--profile, or the current one)');
export const switchProfile = () => new Command('switch').argument('<profile>', 'a stored profile').description('make another stored profile the current one');
export const scopes = () => new Command('scopes').description('list the scopes an API key can be given (no key needed)');

export function registerAuth(program: Command, r: Registry): void {
  const auth = program.command('auth').description('log in with an API key, see which key is in use, log out');
  const load = () => import('./run.js');
  r.add(auth, login, load, 'login', [
    'notevox auth login                                   # prompts for the key (masked)',
    'notevox auth login --base-url http://127.0.0.1:4010 --profile sandbox',
    'printenv NOTEVOX_KEY | notevox auth login --with-key --profile ci',
  ]);
  r.add(auth, status, load, 'status', ['notevox auth status', 'notevox auth status --json']);
  r.add(auth, logout, load, 'logout', ['notevox auth logout', 'notevox auth logout --profile ci']);
  r.add(auth, switchProfile, load, 'switchProfile', ['notevox auth switch sandbox']);
  r.add(program, scopes, load, 'scopes', ['notevox scopes', 'notevox scopes -o json']);
}
