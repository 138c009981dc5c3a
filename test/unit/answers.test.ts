import { describe, expect, it } from 'vitest';
import { answerProblem, assertAnswer } from '../../src/contract/answers.js';
import { endpoint } from '../../src/contract/endpoints.js';
import { checkAnswer } from '../../src/context.js';
import { EXIT } from '../../src/errors.js';

const create = endpoint('wm.user.createBulk');
const wm = { id: 1, entry: 'Acme', subEntry: null, createdAt: '2026-01-01T00:00:00Z' };

describe('checking an answer against the contract', () => {
  it('passes the documented shape, unknown fields and unknown values of known fields (decisions.md: be tolerant)', () => {
    expect(answerProblem(create, { content: [wm] })).toBeUndefined();
    expect(answerProblem(create, { content: [], extra: 1 })).toBeUndefined();
    const job = { id: 'j', status: 'QUEUED_SOMEWHERE_NEW', uploadUri: 'u', uploadUriExpiresAt: 't', workspaceGuid: null, transcriptLocaleHints: [], translationLocales: [], createdAt: 't' };
    expect(answerProblem(endpoint('voice.create'), job)).toBeUndefined();
  });

  it('fails a body that is not JSON, an empty body, a missing field and a field of another type', () => {
    expect(answerProblem(create, '<!DOCTYPE html><html><body>Please sign in to continue, then try again later</body></html>')).toBe(
      'the body is not JSON ("<!DOCTYPE html><html><body>Please sign in to continue, then…")',
    );
    expect(answerProblem(create, null)).toBe('the body is empty');
    expect(answerProblem(create, {})).toMatch(/^content: .*expected array/);
    expect(answerProblem(endpoint('wm.user.deleteBulk'), { deleted: '3', notFound: [] })).toMatch(/^deleted: .*expected number/);
    expect(answerProblem(create, { content: [{ ...wm, id: undefined }] })).toMatch(/^content\[0\]\.id: /);
  });

  it('an endpoint without a documented body (204) passes no body or JSON, not HTML', () => {
    const del = endpoint('folders.delete');
    expect(answerProblem(del, null)).toBeUndefined();
    expect(answerProblem(del, { ok: true })).toBeUndefined();
    expect(answerProblem(del, '<html></html>')).toMatch(/not JSON/);
  });

  it('the error: exit 1, "unexpected response from <id>", a hint that says the change may not have been made', () => {
    try {
      assertAnswer(create, 'OK');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ exitCode: EXIT.UNEXPECTED, message: 'unexpected response from wm.user.createBulk: the body is not JSON ("OK")' });
      expect((e as { hint: string }).hint).toMatch(/cannot tell whether the change was made/);
    }
  });
});

describe("the commands' client checks every answer, reads as writes", () => {
  it('a write or a read with a bad answer throws "unexpected response from"; a good one is returned', async () => {
    await expect(checkAnswer(create, '<html>')).rejects.toThrow(/unexpected response from wm\.user\.createBulk/);
    await expect(checkAnswer(endpoint('workspaces.reachable'), {})).rejects.toThrow(/^unexpected response from workspaces\.reachable: content: /);
    await expect(checkAnswer(endpoint('notes.get'), '<html>')).rejects.toThrow(/unexpected response from notes\.get: the body is not JSON/);
    await expect(checkAnswer(create, { content: [wm] })).resolves.toBeUndefined();
  });

  it('a transcript is read in any JSON shape (decisions.md §4.5), but not from HTML', async () => {
    await expect(checkAnswer(endpoint('voice.transcript'), { jobId: 'j', paragraphs: [] })).resolves.toBeUndefined();
    await expect(checkAnswer(endpoint('voice.transcript'), '<html>')).rejects.toThrow(/not JSON/);
  });
});
