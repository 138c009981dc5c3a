import { CliError, EXIT, InputNeededError } from '../errors.js';
import type { IOStreams } from './iostreams.js';

/**
 * Interactive questions on stderr. Each names the `flag` that supplies the answer instead: when prompting is not
 * allowed (no TTY, CI, --no-input) every method throws InputNeededError (exit 10) naming it.
 */
export interface Prompter {
  input(o: { message: string; default?: string; validate?: (v: string) => true | string; flag: string }): Promise<string>;
  /** Typed characters are shown as '*'. */
  password(o: { message: string; flag: string }): Promise<string>;
  select<T>(o: { message: string; choices: Array<{ name: string; value: T; description?: string }>; flag: string; default?: T }): Promise<T>;
  confirm(o: { message: string; default?: boolean; flag: string }): Promise<boolean>;
}

type Inquirer = typeof import('@inquirer/prompts');

export function createPrompter(io: IOStreams): Prompter {
  const context = { input: io.stdin, output: io.stderr };

  /** Check that prompting is allowed, load inquirer, and turn Ctrl-C into exit 130. */
  async function ask<R>(o: { message: string; flag: string }, run: (inquirer: Inquirer) => Promise<R>): Promise<R> {
    if (!io.canPrompt) throw new InputNeededError(o.message, o.flag);
    const inquirer = await import('@inquirer/prompts');
    try {
      return await run(inquirer);
    } catch (e) {
      if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) {
        throw new CliError('interrupted', { exitCode: EXIT.INTERRUPTED, cause: e });
      }
      throw e;
    }
  }

  return {
    input: (o) => ask(o, ({ input }) => input({ message: o.message, default: o.default, validate: o.validate }, context)),
    password: (o) => ask(o, ({ password }) => password({ message: o.message, mask: '*' }, context)),
    select: (o) => ask(o, ({ select }) => select({ message: o.message, choices: o.choices, default: o.default }, context)),
    confirm: (o) => ask(o, ({ confirm }) => confirm({ message: o.message, default: o.default }, context)),
  };
}
