import type { Command, OptionValues } from '@commander-js/extra-typings';
import { examples } from './shared.js';
import type { Context, GlobalOptions } from './types.js';

/**
 * How commands are registered: cheaply, each one's work imported only when it runs. A command is defined by a
 * factory in its group's index.ts (`export const list = () => new Command('list').option(…)`), so that its flags
 * have the types commander infers from its options; the work's module declares its flags as `Flags<typeof list>`
 * (a type-only import), and `add` checks that the work takes exactly the command's arguments and flags.
 */

/** Builds the context of a command from its global options (main: the terminal, config, signals; tests: memory IO). */
export type ContextFactory = (globals: GlobalOptions) => Context;

/** The flags a command defined by `make` passes to its action. */
export type Flags<F extends () => Command<any, any, any>> = ReturnType<F> extends Command<any, infer O, any> ? O : never;

/** What a command's work must accept: the context, its positional arguments, its flags. */
type Work<A extends unknown[], O> = (ctx: Context, ...args: [...A, O]) => Promise<number | void> | number | void;

/** `name` when `M[name]` takes the command's arguments and flags; otherwise a type that says what is wrong. */
type WorkName<M, K extends keyof M, A extends unknown[], O> = M[K] extends Work<A, O> ? K : { error: `${K & string} does not take the arguments and flags of its command`; expected: Work<A, O> };

export interface Registry {
  /** Whether the sub-commands of a group are registered (main registers only the groups named on the command line). */
  wants(group: string): boolean;
  /**
   * Add `cmd` (or what its factory makes) to `parent`, its action the function `name` of the module `load` imports;
   * `lines` are its --help examples. Given a factory, the command is not even made when `skip` says that the
   * command line names another sub-command of `parent`.
   */
  add<A extends unknown[], O extends OptionValues, M, K extends keyof M>(
    parent: Command<any, any, any>,
    cmd: Command<A, O, any> | (() => Command<A, O, any>),
    load: () => Promise<M>,
    name: WorkName<M, K, A, O>,
    lines: string[],
  ): void;
  /** An action that runs `fn` with the context (for work too small for a module of its own). */
  run<A extends unknown[]>(fn: (ctx: Context, ...args: A) => Promise<number | void> | void): (...args: [...A, OptionValues, Command<any, any, any>]) => Promise<void>;
  /** The whole command tree, every group registered (the completion scripts describe it). */
  wholeProgram(): Command<any, any, any>;
}

export interface RegistryOptions {
  context: ContextFactory;
  wants?: (group: string) => boolean;
  wholeProgram(): Command<any, any, any>;
  /**
   * Whether the `position`-th command added to `parent` (counted from 0) need not be made: main answers from the
   * build's index, when the command line names another sub-command of `parent` (src/program.ts).
   */
  skip?: (parent: Command<any, any, any>, position: number) => boolean;
  /** Told of every command added, in order (the build's index is made from it). */
  added?: (parent: Command<any, any, any>, cmd: Command<any, any, any>) => void;
}

/** The registry of one program; `exitCode()` is what the last action asked for (0 unless it returned a number). */
export function createRegistry(o: RegistryOptions): Registry & { exitCode(): number } {
  let exitCode = 0;
  const positions = new Map<Command<any, any, any>, number>();
  const invoke = async (cmd: Command<any, any, any>, fn: (ctx: Context, ...args: unknown[]) => Promise<number | void> | number | void, args: unknown[]) => {
    const ctx = o.context(cmd.optsWithGlobals() as GlobalOptions);
    const code = await fn(ctx, ...args);
    if (typeof code === 'number') exitCode = code;
  };
  return {
    wants: (group) => o.wants?.(group) ?? true,
    add(parent, make, load, name, lines) {
      const position = positions.get(parent) ?? 0;
      positions.set(parent, position + 1);
      if (typeof make === 'function' && o.skip?.(parent, position)) return;
      const cmd = typeof make === 'function' ? make() : make;
      o.added?.(parent, cmd);
      cmd.copyInheritedSettings(parent);
      parent.addCommand(cmd);
      examples(cmd, lines);
      cmd.action(async (...args: unknown[]) => {
        const self = args[args.length - 1] as Command<any, any, any>;
        const mod = (await load()) as Record<PropertyKey, unknown>;
        await invoke(self, mod[name as PropertyKey] as (ctx: Context, ...args: unknown[]) => Promise<number | void>, args.slice(0, -1));
      });
    },
    run: (fn) => async (...args) => invoke(args[args.length - 1] as Command<any, any, any>, fn as never, args.slice(0, -2)),
    wholeProgram: o.wholeProgram,
    exitCode: () => exitCode,
  };
}
