// The sandbox keeps what a GET of a note reads (the note row, the verified key, the answer) while its state stays the
// same (Db.dataVersion): these tests change the state between requests and check that the next answer follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contract/errors.js';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

describe('sandbox reads kept while the state stays the same', () => {
  let sb: Sandbox;
  const admin = DEMO_KEYS.admin.token;
  const member = DEMO_KEYS.member.token;
  const noteUrl = (guid: string) => `/v1/external/notes/${guid}`;

  beforeAll(async () => {
    sb = await inProcessSandbox({ rateLimit: '0' });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('answers a GET of a note with its title as changed since the last GET', async () => {
    const guid = DEMO_NOTES.launchKickoff;
    const first = await sb.call('GET', noteUrl(guid), { key: admin });
    expect(first.status).toBe(200);
    expect((await sb.call('GET', noteUrl(guid), { key: admin })).json).toEqual(first.json);
    sb.db.run('UPDATE notes SET title = ? WHERE guid = ?', ['Renamed between two reads', guid]);
    const second = await sb.call('GET', noteUrl(guid), { key: admin });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ ...first.json, title: 'Renamed between two reads' });
    sb.db.run('UPDATE notes SET deleted = 1 WHERE guid = ?', [guid]);
    expect((await sb.call('GET', noteUrl(guid), { key: admin })).status).toBe(404);
  });

  it('answers each key by its own visibility when keys read the same note in turn', async () => {
    // A note the admin reads and the member does not.
    let guid: string | undefined;
    for (const g of Object.values(DEMO_NOTES)) {
      const [a, m] = [await sb.call('GET', noteUrl(g), { key: admin }), await sb.call('GET', noteUrl(g), { key: member })];
      if (a.status === 200 && m.status === 404) guid = g;
    }
    expect(guid, 'the demo seed has a note the admin reads and the member does not').toBeDefined();
    for (let i = 0; i < 3; i++) {
      expect((await sb.call('GET', noteUrl(guid!), { key: admin })).status).toBe(200);
      expect((await sb.call('GET', noteUrl(guid!), { key: member })).status).toBe(404);
    }
  });

  it('checks a key again once the state changed it, and never takes a wrong secret for a verified one', async () => {
    const guid = DEMO_NOTES.welcome;
    expect((await sb.call('GET', noteUrl(guid), { key: member })).status).not.toBe(401);
    const wrong = `${DEMO_KEYS.member.id}.sk_not_the_secret`;
    const r = await sb.call('GET', noteUrl(guid), { key: wrong });
    expect([r.status, r.json?.error?.code]).toEqual([401, ERROR_CODES.AUTH_UNKNOWN]);
    sb.db.run("UPDATE api_keys SET status = 'inactive' WHERE id = ?", [DEMO_KEYS.member.id]);
    const inactive = await sb.call('GET', noteUrl(guid), { key: member });
    expect([inactive.status, inactive.json?.error?.code]).toEqual([401, ERROR_CODES.AUTH_INACTIVE]);
    sb.db.run("UPDATE api_keys SET status = 'active' WHERE id = ?", [DEMO_KEYS.member.id]);
    expect((await sb.call('GET', noteUrl(guid), { key: member })).status).not.toBe(401);
  });

  it('checks the expiry of a verified key at every request, with no change of the state in between', async () => {
    const guid: string = (await sb.call('GET', '/v1/external/notes?size=1', { key: admin })).json.content[0].guid;
    sb.db.run('UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() + 1000).toISOString(), DEMO_KEYS.admin.id]);
    expect((await sb.call('GET', noteUrl(guid), { key: admin })).status).toBe(200);
    expect((await sb.call('GET', noteUrl(guid), { key: admin })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1200));
    const expired = await sb.call('GET', noteUrl(guid), { key: admin });
    expect([expired.status, expired.json?.error?.code]).toEqual([401, ERROR_CODES.AUTH_INACTIVE]);
  });
});
