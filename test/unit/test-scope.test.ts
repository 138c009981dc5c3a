import { describe, expect, it } from 'vitest';
import { closeAtEnd, scoped } from '../helpers/scope.js';

/** The test helper that lets waiting tests run side by side: each closes what it opened, and only that. */

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('scoped tests', () => {
  it('close what they registered, newest first, after the body, also when the body throws', async () => {
    const order: string[] = [];
    await scoped(async () => {
      closeAtEnd(() => order.push('dir'));
      await tick(1);
      closeAtEnd(async () => {
        await tick(1);
        order.push('sandbox');
      });
      order.push('body');
    })();
    expect(order).toEqual(['body', 'sandbox', 'dir']);

    order.length = 0;
    const failing = scoped(async () => {
      closeAtEnd(() => order.push('receiver'));
      throw new Error('assertion failed');
    });
    await expect(failing()).rejects.toThrow('assertion failed');
    expect(order).toEqual(['receiver']);
  });

  it('run every closer when one throws, and report the body’s error before a closer’s', async () => {
    const closed: string[] = [];
    const run = scoped(async () => {
      closeAtEnd(() => closed.push('first'));
      closeAtEnd(() => {
        throw new Error('close failed');
      });
      throw new Error('body failed');
    });
    await expect(run()).rejects.toThrow('body failed');
    expect(closed).toEqual(['first']);
    await expect(scoped(() => closeAtEnd(() => Promise.reject(new Error('close failed'))))()).rejects.toThrow('close failed');
  });

  it('keep the closers of tests running at the same time apart (a helper deep in a call finds its own test)', async () => {
    const closed: Record<string, string[]> = { a: [], b: [] };
    const open = async (test: 'a' | 'b', what: string) => {
      await tick(what.length);
      closeAtEnd(() => closed[test].push(what));
    };
    await Promise.all([
      scoped(async () => {
        await open('a', 'sandbox');
        await open('a', 'rx');
      })(),
      scoped(async () => {
        await open('b', 'process');
        await tick(5);
      })(),
    ]);
    expect(closed).toEqual({ a: ['rx', 'sandbox'], b: ['process'] });
  });

  it('refuse closeAtEnd outside a scoped test, instead of leaking what it was given', () => {
    expect(() => closeAtEnd(() => {})).toThrow(/outside a scoped test/);
  });
});
