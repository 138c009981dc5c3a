import { AsyncLocalStorage } from 'node:async_hooks';
import { it as vitestIt, type TestContext, type TestOptions } from 'vitest';

/**
 * Tests that wait (on a paced delivery, a timeout, a child process) run side by side in a `describe.concurrent`,
 * written with `scopedIt`, and each closes what it opened: a sandbox, a receiver or a process registered with `closeAtEnd` (from the test or from a
 * helper it calls; the test is found through AsyncLocalStorage, so helpers need no test context) is closed when
 * that test ends, pass or fail, in the reverse order of opening. A module-level list emptied in `afterEach` cannot
 * do this: the first test to end would close the others' sandboxes under them.
 */

type Closer = () => unknown;
const current = new AsyncLocalStorage<Closer[]>();

/** Close `close` when the test that calls this ends. Outside a `scopedIt`/`scoped` test, a mistake: it throws. */
export function closeAtEnd(close: Closer): void {
  const closers = current.getStore();
  if (!closers) throw new Error('closeAtEnd called outside a scoped test (use scopedIt or scoped)');
  closers.push(close);
}

/** `fn` with its own list of closers, run when it ends (all of them, even when one throws; the first error wins). */
export function scoped<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const closers: Closer[] = [];
    let failure: unknown;
    try {
      await current.run(closers, () => fn(...args));
    } catch (e) {
      failure = e;
    }
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  };
}

type Body = (ctx: TestContext) => unknown;

/**
 * vitest's `it` with a `scoped` body (`closeAtEnd` works in it). In a `describe.concurrent` its tests run side by
 * side, and each still closes only what it opened.
 */
export function scopedIt(name: string, fn: Body): void;
export function scopedIt(name: string, options: TestOptions, fn: Body): void;
export function scopedIt(name: string, a: TestOptions | Body, b?: Body): void {
  if (typeof a === 'function') vitestIt(name, scoped(a));
  else vitestIt(name, a, scoped(b!));
}

/** `it.each` with a `scoped` body: argument lists (typed as vitest types them), or single arguments. */
interface ScopedEach {
  <T extends any[] | [any]>(cases: ReadonlyArray<T>): (name: string, fn: (...args: T) => unknown) => void;
  <T>(cases: ReadonlyArray<T>): (name: string, fn: (arg: T) => unknown) => void;
}
scopedIt.each = ((cases: ReadonlyArray<unknown>) => (name: string, fn: (...args: unknown[]) => unknown) => {
  vitestIt.each(cases as unknown[])(name, scoped(fn) as never);
}) as ScopedEach;
