import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedItems, readCreated } from '../../src/commands/wm/answer.js';
import { answerProblem } from '../../src/contract/answers.js';
import { endpoint } from '../../src/contract/endpoints.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * wm import counts a create's answer without JSON.parse (commands/wm/answer.ts): it may only accept a text that the
 * client's JSON.parse and contract check accept, with the same number of items; everything else goes to them.
 */

const create = endpoint('wm.user.create');

/** What the client's path says of `text`: the items counted, or the problem (the same words as answerProblem's). */
function reference(text: string): { count: number } | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = text;
  }
  const problem = answerProblem(create, data);
  return problem === undefined ? { count: (data as { content: unknown[] }).content.length } : { problem };
}

const item = (id: number | string, entry: string, sub: string | null = null, at = '2026-12-06T13:00:00.000Z') =>
  `{"id":${id},"entry":${JSON.stringify(entry)},"subEntry":${sub === null ? 'null' : JSON.stringify(sub)},"createdAt":${JSON.stringify(at)}}`;
const answer = (...items: string[]) => `{"content":[${items.join(',')}]}`;

describe('readCreated', () => {
  it('counts the items of an answer written as the service writes it', () => {
    expect(readCreated(answer(item(1, 'Acme'), item(2, 'Beta', 'b'), item(3, 'é€😀', 'x-y')))).toEqual(new CreatedItems(3));
    expect(readCreated(answer())).toEqual(new CreatedItems(0));
    expect(readCreated(answer(item(0, 'a')))).toEqual(new CreatedItems(1));
    expect(readCreated(answer(item(999_999_999_999_999, 'a')))).toEqual(new CreatedItems(1));
  });

  it('leaves every other text to the full parse and check (undefined), also the ones that pass it', () => {
    const others = [
      '',
      'OK',
      '{}',
      '<html></html>',
      `${answer(item(1, 'a'))} `,
      `{ "content": [${item(1, 'a')}] }`,
      answer(item(1, 'a\\"b')),
      answer(item(1, 'a\u0001b')),
      answer(item('01', 'a')),
      answer(item(-1, 'a')),
      answer(item(1.5, 'a')),
      answer(item(1e3, 'a').replace('1000', '1e3')),
      answer(item(1_000_000_000_000_000, 'a')),
      answer(item(1, 'a')).replace(',"createdAt":"2026-12-06T13:00:00.000Z"', ''),
      answer(item(1, 'a')).replace('"subEntry":null', '"subEntry":7'),
      answer(item(1, 'a')).replace('}]}', ',"extra":1}]}'),
      answer(item(1, 'a'), item(2, 'b')).replace('},{', '},,{'),
      `${answer(item(1, 'a')).slice(0, -2)},]}`,
      `${answer(item(1, 'a'))}x`,
      answer(item(1, 'a')).slice(0, -1),
      '{"content":[],"nextCursor":null}',
    ];
    for (const text of others) expect(readCreated(text), text).toBeUndefined();
  });

  it('agrees with JSON.parse and the contract check on generated texts: never accepts what they refuse, counts the same', () => {
    const rand = seededRandom(24);
    const pieces = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', 'null', '0', '7', '-', '.', 'e', '"id"', '"entry"', '"subEntry"', '"createdAt"', 'x', '\u0001'];
    let accepted = 0;
    for (let round = 0; round < 3000; round++) {
      const n = Math.floor(rand() * 4);
      let text = answer(...Array.from({ length: n }, (_, i) => item(i + 1, `e${round}-${i}`, rand() < 0.5 ? null : `s${i}`)));
      // Mutate most texts a little: a piece inserted, one character removed or replaced.
      for (let m = Math.floor(rand() * 3); m > 0; m--) {
        const at = Math.floor(rand() * (text.length + 1));
        const r = rand();
        const piece = pieces[Math.floor(rand() * pieces.length)];
        text = r < 0.4 ? text.slice(0, at) + piece + text.slice(at) : r < 0.7 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + piece + text.slice(at + 1);
      }
      const fast = readCreated(text);
      if (fast === undefined) continue;
      accepted++;
      expect(reference(text), text).toEqual({ count: fast.count });
    }
    // Not a vacuous comparison: the unmutated texts (and some mutated ones) are accepted.
    expect(accepted).toBeGreaterThan(500);
  });
});

describe("the sandbox's answers to creates", () => {
  let sb: Awaited<ReturnType<typeof inProcessSandbox>>;
  beforeAll(async () => {
    sb = await inProcessSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('are counted without the full parse when their texts need no escape, and agree with it when they do', async () => {
    const post = async (entries: unknown[]) => {
      const res = await sb.call('POST', '/v1/external/users/me/word-memories', { key: 'nvk_user_admin', body: { entries } });
      expect(res.status).toBe(200);
      return res.text;
    };
    const plain = await post(Array.from({ length: 1000 }, (_, i) => (i % 3 ? { entry: `Plain-${i}` } : { entry: `Plain-${i}`, subEntry: `alt-${i}` })));
    expect(readCreated(plain)).toEqual(new CreatedItems(1000));
    const odd = await post([{ entry: 'q"uote' }, { entry: 'é' }, { entry: 'back\\slash', subEntry: 'x' }]);
    expect(readCreated(odd)).toBeUndefined();
    expect(reference(odd)).toEqual({ count: 3 });
    // Entries that exist: the answer lists only the new ones.
    const again = await post([{ entry: 'Plain-1' }, { entry: 'Plain-new' }]);
    expect(readCreated(again)).toEqual(new CreatedItems(1));
  });
});
