import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { EVENT_SCHEMAS, eventEnvelopeSchema } from '../../src/contract/event-schemas.js';
import { EVENT_TYPES, WEBHOOK_DELIVERY, WEBHOOK_MAX_ATTEMPTS, type EventType } from '../../src/contract/events.js';
import { errorEnvelopeSchema } from '../../src/contract/schemas.js';
import { DEMO_FOLDERS as F, DEMO_KEYS, DEMO_NOTES as N, DEMO_ORGANIZATION, DEMO_WORKSPACES as WS, demoSeed } from '../../src/sandbox/demo-seed.js';
import { judgeAttempt } from '../../src/sandbox/events/delivery.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { deadPort, eventually, startReceiver } from '../helpers/receiver.js';
import { closeAtEnd, scopedIt as it } from '../helpers/scope.js';

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
const API = '/v1/external';
const admin = DEMO_KEYS.admin.token;

async function sandbox(opts: Parameters<typeof inProcessSandbox>[0] = {}) {
  const lines: string[] = [];
  const sb = await inProcessSandbox({ log: (l) => lines.push(l), ...opts });
  closeAtEnd(() => sb.close());
  return Object.assign(sb, { lines });
}

async function receiver(script?: Array<number | 'hang'>) {
  const r = await startReceiver(script);
  closeAtEnd(() => r.close());
  return r;
}

const rename = (sb: Sandbox, guid: string, title: string) => sb.call('PATCH', `${API}/notes/${guid}?updateMask=title`, { key: admin, body: { title } });
const events = async (sb: Sandbox, query = '') => (await sb.call('GET', `/_sandbox/events${query}`)).json.content as any[];
const addEndpoint = async (sb: Sandbox, body: Record<string, unknown>) => {
  const r = await sb.call('POST', '/_sandbox/webhook-endpoints', { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
};

/** The delivery of the only event of `type`, once it is finished. */
async function finished(sb: Sandbox, type: EventType, timeoutMs = 20_000) {
  return eventually(
    async () => {
      const e = (await events(sb, `?type=${type}`))[0];
      return e && e.deliveries.length && e.deliveries.every((d: any) => d.status !== 'pending') ? e : undefined;
    },
    timeoutMs,
    `the ${type} deliveries to finish`,
  );
}

describe.concurrent('events: the contract', () => {
  it('has the 14 types of decisions.md §6.1, each with its resource type', () => {
    expect(EVENT_TYPES).toHaveLength(14);
    expect(new Set(EVENT_TYPES.map((t) => t.type)).size).toBe(14);
    expect(Object.keys(EVENT_SCHEMAS).sort()).toEqual(EVENT_TYPES.map((t) => t.type).sort());
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
  });

  it('every type, fired for an existing resource, has an envelope its contract schema accepts (and no other type’s)', async () => {
    const sb = await sandbox();
    const refs: Record<string, Record<string, unknown>> = {
      Note: { noteGuid: N.launchKickoff },
      NoteDocument: { documentId: 1 },
      NoteSummary: { summaryId: 1 },
      FolderNoteRelation: { noteGuid: N.launchKickoff, folderId: F.q1Launch },
    };
    for (const t of EVENT_TYPES) {
      const r = await sb.call('POST', '/_sandbox/events', { body: { type: t.type, ...refs[t.resourceType] } });
      expect(r.status, r.text).toBe(201);
      const envelope = r.json.envelope;
      const parsed = EVENT_SCHEMAS[t.type].safeParse(envelope);
      expect(parsed.success, `${t.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(eventEnvelopeSchema.parse(envelope).type).toBe(t.type);
      expect(envelope.data.resourceType).toBe(t.resourceType);
      const other = EVENT_TYPES.find((x) => x.type !== t.type)!.type;
      expect(EVENT_SCHEMAS[other].safeParse(envelope).success).toBe(false);
    }
    const folderNote = (await events(sb, '?type=folder.note.added'))[0];
    expect(folderNote.envelope.data).toEqual({
      resourceType: 'FolderNoteRelation',
      resourceId: `folder_${F.q1Launch}:note_${N.launchKickoff}`,
      resource: { folder: { id: String(F.q1Launch), title: expect.any(String), isTeamFolder: true }, noteGuid: N.launchKickoff },
    });
    const summary = (await events(sb, '?type=note_summary.generated'))[0];
    expect(summary.envelope.data.resourceId).toBe('1');
    expect(summary.envelope.data.resource).toMatchObject({ id: 1, noteGuid: expect.any(String), content: { type: 'text/markdown', content: expect.any(String) } });
  });

  it('judges attempts as §6.3 says: 2xx success, 4xx permanent, 5xx and no answer retried until the 6th', () => {
    expect(judgeAttempt({ status: 204 }, 1).verdict).toBe('delivered');
    expect(judgeAttempt({ status: 410 }, 1)).toEqual({ verdict: 'failed', permanent: true });
    expect(judgeAttempt({ status: 503 }, 5).verdict).toBe('retry');
    expect(judgeAttempt({ status: undefined }, 5).verdict).toBe('retry');
    expect(judgeAttempt({ status: 500 }, 6)).toEqual({ verdict: 'failed', permanent: false });
  });
});

describe.concurrent('events: where state changes', () => {
  it('a rename emits note.user_content.updated (not when the title stays), with the note as it is now', async () => {
    const sb = await sandbox();
    expect((await rename(sb, N.launchKickoff, 'Launch plan, renamed')).status).toBe(200);
    const [e] = await events(sb, '?type=note.user_content.updated');
    expect(EVENT_SCHEMAS['note.user_content.updated'].parse(e.envelope).data.resource.title).toBe('Launch plan, renamed');
    expect(e).toMatchObject({ origin: 'api', workspaceGuid: WS.product, resourceId: N.launchKickoff });
    await rename(sb, N.launchKickoff, 'Launch plan, renamed');
    expect(await events(sb, '?type=note.user_content.updated')).toHaveLength(1);
  });

  it('a refused change emits nothing', async () => {
    const sb = await sandbox();
    const r = await sb.call('PATCH', `${API}/notes/${N.launchKickoff}?updateMask=title`, { key: DEMO_KEYS.noteReadOnly.token, body: { title: 'nope' } });
    expect(r.status).toBe(403);
    expect(await events(sb)).toEqual([]);
  });

  it('deleting a folder emits folder.note.removed for each note it leaves folder-less (sub-folders too)', async () => {
    const sb = await sandbox();
    const inside = sb.db.all<{ guid: string; folder_id: number }>(
      `SELECT guid, folder_id FROM notes WHERE deleted = 0 AND folder_id IN (${F.q1Launch}, ${F.launchAssets}, ${F.pressKit}) ORDER BY guid`,
    );
    expect(inside.length).toBeGreaterThan(0);
    const r = await sb.call('DELETE', `${API}/folders/${F.q1Launch}`, { key: admin });
    expect(r.status, r.text).toBe(204);
    const removed = await events(sb, '?type=folder.note.removed');
    expect(removed.map((e) => e.envelope.data.resource.noteGuid).sort()).toEqual(inside.map((n) => n.guid));
    for (const e of removed) {
      const n = inside.find((x) => x.guid === e.envelope.data.resource.noteGuid)!;
      expect(e.resourceId).toBe(`folder_${n.folder_id}:note_${n.guid}`);
      expect(EVENT_SCHEMAS['folder.note.removed'].safeParse(e.envelope).success).toBe(true);
    }
    expect(sb.db.get<{ n: number }>(`SELECT count(*) AS n FROM notes WHERE guid IN (${inside.map(() => '?').join(',')}) AND folder_id IS NOT NULL`, inside.map((n) => n.guid))!.n).toBe(0);
  });

  it('generating a document emits note_document.generated with its metadata', async () => {
    const sb = await sandbox();
    const r = await sb.call('POST', `${API}/notes/${N.launchKickoff}/documents`, { key: admin, body: { templateId: 1, locale: 'en_US' } });
    expect(r.status, r.text).toBe(201);
    const [e] = await events(sb, '?type=note_document.generated');
    expect(e.resourceId).toBe(String(r.json.documentId));
    expect(EVENT_SCHEMAS['note_document.generated'].parse(e.envelope).data.resource).toMatchObject({ id: r.json.documentId, noteGuid: N.launchKickoff });
  });

  it('an event reaches the endpoints whose types and workspaces or organization match', async () => {
    const sb = await sandbox();
    await addEndpoint(sb, { id: 'all', url: 'http://127.0.0.1:9/a', secret: 'secret-all-1' });
    await addEndpoint(sb, { id: 'ended-only', url: 'http://127.0.0.1:9/b', secret: 'secret-b-12', eventTypes: ['note.ended'] });
    await addEndpoint(sb, { id: 'sales', url: 'http://127.0.0.1:9/c', secret: 'secret-c-12', workspaceGuids: [WS.sales] });
    await addEndpoint(sb, { id: 'org', url: 'http://127.0.0.1:9/d', secret: 'secret-d-12', organizationId: DEMO_ORGANIZATION });
    await rename(sb, N.launchKickoff, 'Product note renamed');
    const [e] = await events(sb, '?type=note.user_content.updated');
    expect(e.deliveries.map((d: any) => d.endpointId).sort()).toEqual(['all', 'org']);
  });
});

describe.concurrent('events: delivery (decisions.md §6.3, paced)', () => {
  it('500, 500, 200: exactly 3 attempts at the paced schedule, with the Bearer secret and the attempt header', async () => {
    const r = await receiver([500, 500, 200]);
    // Timeout 1.2 s, waits 0.3 s and 0.6 s.
    const pace = 0.02;
    const sb = await sandbox({ webhooks: [r.url], webhookSecret: 'whsec_test_0001', webhookPace: pace });
    await rename(sb, N.launchKickoff, 'Retry me');
    const e = await finished(sb, 'note.user_content.updated');
    const [d] = e.deliveries;
    expect(d.status).toBe('delivered');
    expect(d.attempts.map((a: any) => a.status)).toEqual([500, 500, 200]);
    expect(r.received).toHaveLength(3);
    expect(r.received.map((x) => x.headers[WEBHOOK_DELIVERY.attemptHeader.toLowerCase()])).toEqual(['1', '2', '3']);
    for (const x of r.received) {
      expect(x.headers.authorization).toBe('Bearer whsec_test_0001');
      expect(x.headers['content-type']).toBe('application/json');
      expect(x.json).toEqual(e.envelope);
    }
    // The waits: 15 s and 30 s, times the pace (timers never fire early; 2 ms for clock rounding).
    expect(r.received[1].at - r.received[0].at).toBeGreaterThanOrEqual(15_000 * pace - 2);
    expect(r.received[2].at - r.received[1].at).toBeGreaterThanOrEqual(30_000 * pace - 2);
    expect(d.attempts[0].nextRetryAt).not.toBeNull();
    expect(d.attempts[2].nextRetryAt).toBeNull();
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received).toHaveLength(3);
  });

  it('a 4xx is permanent: exactly 1 attempt, and the log says it was not retried', async () => {
    const r = await receiver([404]);
    const sb = await sandbox({ webhooks: [r.url], webhookSecret: 'whsec_test_0002', webhookPace: 0.02 });
    await rename(sb, N.launchKickoff, 'Gone');
    const e = await finished(sb, 'note.user_content.updated');
    expect(e.deliveries[0].status).toBe('failed');
    expect(e.deliveries[0].attempts).toHaveLength(1);
    await new Promise((res) => setTimeout(res, 200));
    expect(r.received).toHaveLength(1);
    expect(sb.lines.some((l) => l.includes(e.id) && l.includes('answered 404, not retried'))).toBe(true);
  });

  it('a dead endpoint gets exactly 6 attempts, then the delivery fails and the log says so', async () => {
    const port = await deadPort();
    const sb = await sandbox({ webhooks: [`http://127.0.0.1:${port}/hooks`], webhookSecret: 'whsec_test_0003', webhookPace: 0.0002 });
    await rename(sb, N.launchKickoff, 'Nobody home');
    const e = await finished(sb, 'note.user_content.updated');
    const [d] = e.deliveries;
    expect(d.status).toBe('failed');
    expect(d.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    // No answer: refused (or, on a busy machine, the 12 ms paced timeout came first).
    expect(d.attempts.every((a: any) => a.status === null && /^(connection refused|timeout after)/.test(a.error))).toBe(true);
    expect(d.attempts.slice(0, 5).every((a: any) => a.nextRetryAt !== null)).toBe(true);
    expect(d.attempts[5].nextRetryAt).toBeNull();
    expect(d.finishedAt).not.toBeNull();
    expect(sb.lines.filter((l) => l.includes(e.id) && l.includes(`gave up after 6 attempts (last: ${d.attempts[5].error})`))).toHaveLength(1);
  });

  it('a receiver that never answers never slows an API answer', async () => {
    const r = await receiver(['hang']);
    // Pace 1: the delivery waits the full 60 s for an answer while the API keeps answering.
    const sb = await sandbox({ webhooks: [r.url], webhookSecret: 'whsec_test_0004' });
    const took: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      expect((await rename(sb, N.launchKickoff, `Hanging receiver ${i}`)).status).toBe(200);
      took.push(performance.now() - t0);
      if (i === 0) await r.waitFor(1);
    }
    // Every answer came while the first delivery was still waiting on the receiver (in flight, nothing recorded).
    const e = (await events(sb, '?type=note.user_content.updated'))[0];
    expect(e.deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });
    expect(Math.max(...took)).toBeLessThan(WEBHOOK_DELIVERY.timeoutSeconds * 1000);
    // Measured (not a speed target): each answer is far below the delivery timeout it would wait for if it were blocked.
    expect(Math.max(...took)).toBeLessThan(5_000);
  });

  it('an endpoint that hangs does not stall the others: a healthy one beside it gets every event at once', { timeout: 60_000 }, async () => {
    const hanging = await receiver(['hang']);
    const healthy = await receiver([200]);
    // Pace 1: each delivery to the hanging endpoint waits the full 60 s timeout.
    const sb = await sandbox({ webhooks: [hanging.url, healthy.url], webhookSecret: 'whsec_test_0010' });
    const EVENTS = 60;
    for (let i = 0; i < EVENTS; i++) expect((await rename(sb, N.launchKickoff, `Beside a hanging receiver ${i}`)).status).toBe(200);
    // Every one within seconds (a shared pool held by the hanging endpoint gave 15 at once, the rest a minute apart).
    const got = await healthy.waitFor(EVENTS, 30_000);
    expect(new Set(got.map((x) => x.json.id)).size).toBe(EVENTS);
    // The hanging endpoint holds only its own few slots.
    expect(hanging.received.length).toBeLessThanOrEqual(4);
  });

  it('redelivers an event with the same id to the endpoints that want it', async () => {
    const r = await receiver([200]);
    const sb = await sandbox({ webhooks: [r.url], webhookSecret: 'whsec_test_0005', webhookPace: 0.02 });
    await rename(sb, N.launchKickoff, 'Twice');
    const e = await finished(sb, 'note.user_content.updated');
    const again = await sb.call('POST', `/_sandbox/events/${e.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    await r.waitFor(2);
    expect(r.received.map((x) => x.json.id)).toEqual([e.id, e.id]);
  });

  it('stops cleanly: a delivery in flight at shutdown is cut short and stays pending, nothing is recorded after', async () => {
    const r = await receiver(['hang']);
    const sb = await inProcessSandbox({ webhooks: [r.url], webhookSecret: 'whsec_test_0006', log: () => {} });
    closeAtEnd(() => r.close());
    await rename(sb, N.launchKickoff, 'Shutdown');
    await r.waitFor(1);
    const rows = () => sb.db.all<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries');
    expect(rows()).toEqual([{ status: 'pending', attempts: 0 }]);
    const t0 = performance.now();
    await sb.close();
    expect(performance.now() - t0).toBeLessThan(WEBHOOK_DELIVERY.timeoutSeconds * 1000);
  });
});

describe.concurrent('events: pending deliveries persist with --state', () => {
  it('are sent after a restart on the same state file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-events-'));
    closeAtEnd(() => rmSync(dir, { recursive: true, force: true })); // last: after the sandboxes that write in it
    const state = join(dir, 'state.db');
    const port = await deadPort();
    const url = `http://127.0.0.1:${port}/hooks`;
    // Retries 15 s × 0.1 = 1.5 s apart: the first attempt fails, the retry is pending at shutdown.
    const first = await inProcessSandbox({ stateFile: state, webhooks: [url], webhookSecret: 'whsec_test_0007', webhookPace: 0.1, log: () => {} });
    await rename(first as Sandbox, N.launchKickoff, 'Pending at shutdown');
    await eventually(() => first.db.get<{ n: number }>('SELECT count(*) AS n FROM webhook_attempts')!.n === 1, 10_000, 'the first attempt');
    const eventId = first.db.get<{ id: string }>('SELECT id FROM events')!.id;
    await first.close();

    const { createServer } = await import('node:http');
    const got: string[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got.push(JSON.parse(b).id);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    closeAtEnd(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const second = await sandbox({ stateFile: state, webhooks: [url], webhookPace: 0.1 });
    await eventually(() => got.length === 1, 10_000, 'the redelivery after the restart');
    expect(got).toEqual([eventId]);
    const [e] = await events(second);
    await eventually(async () => (await events(second))[0].deliveries[0].status === 'delivered', 10_000, 'the delivery to be recorded');
    expect(e.deliveries).toHaveLength(1);
    // The restart kept the endpoint and its stored secret.
    expect(second.webhooks).toEqual([{ id: expect.any(String), url, kept: true }]);
  });
});

describe.concurrent('live notes (decisions.md §6.5)', () => {
  it('grow paragraph by paragraph, complete a recording per stop and end exactly once', async () => {
    const sb = await sandbox();
    const r = await sb.call('POST', '/_sandbox/live-notes', {
      body: { workspaceGuid: WS.product, folderId: F.roadmap, count: 6, paragraphIntervalSeconds: 0.05, stops: [2, 4], title: 'Standup (live)' },
    });
    expect(r.status, r.text).toBe(201);
    const guid: string = r.json.guid;
    expect(r.json).toMatchObject({ title: 'Standup (live)', sourceType: 'live-voice', recordingEndAt: null, recordingDurationSeconds: 0 });
    const seen: Array<{ paragraphs: number; ended: boolean; duration: number }> = [];
    await eventually(async () => {
      const note = (await sb.call('GET', `${API}/notes/${guid}`, { key: admin })).json;
      const paras = (await sb.call('GET', `${API}/notes/${guid}/paragraphs`, { key: admin })).json.content;
      seen.push({ paragraphs: paras.length, ended: note.recordingEndAt !== null, duration: note.recordingDurationSeconds });
      return note.recordingEndAt !== null;
    }, 20_000, 'the live note to end');
    // Paragraphs appeared over time while the recording was open, and the duration grew with them.
    const live = seen.filter((s) => !s.ended);
    expect(live.some((s) => s.paragraphs > 0 && s.paragraphs < 6)).toBe(true);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].paragraphs).toBeGreaterThanOrEqual(seen[i - 1].paragraphs);
      expect(seen[i].duration).toBeGreaterThanOrEqual(seen[i - 1].duration);
    }
    expect(seen.at(-1)).toMatchObject({ paragraphs: 6, ended: true });
    expect(seen.at(-1)!.duration).toBeGreaterThan(0);
    await new Promise((res) => setTimeout(res, 200));
    const mine = (await events(sb)).filter((e) => e.envelope.data.resource.noteGuid === guid || e.resourceId === guid);
    expect(mine.map((e) => e.type)).toEqual([
      'note.created',
      'folder.note.added',
      'note.recording.completed',
      'note.recording.completed',
      'note.recording.completed',
      'note_summary.generated',
      'note.ended',
    ]);
    for (const e of mine) expect(EVENT_SCHEMAS[e.type as EventType].safeParse(e.envelope).success, e.type).toBe(true);
    const ended = mine.at(-1)!.envelope.data.resource;
    expect(ended.recordingEndAt).toBe(new Date(Date.parse(ended.recordingStartAt) + ended.recordingDurationSeconds * 1000).toISOString());
    expect(sb.db.get('SELECT count(*) AS n FROM live_notes')).toEqual({ n: 0 });
  });

  it('from the seed start with the sandbox, continue after their recorded paragraphs and resume after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-live-'));
    closeAtEnd(() => rmSync(dir, { recursive: true, force: true })); // last: after the sandboxes that write in it
    const seedFile = join(dir, 'seed.json');
    const seed = structuredClone(demoSeed) as any;
    seed.notes.push({
      guid: 'ntLiveSeeded1', title: 'Seeded live note', ownerUserId: 101, workspaceGuid: WS.product, sourceType: 'live-voice',
      paragraphs: [{ speaker: 'Dana', text: 'Already recorded before the sandbox started.' }],
      live: { paragraphIntervalSeconds: 0.15, paragraphs: ['One.', { speaker: 'Marco', text: 'Two.', durationSeconds: 3 }, 'Three.', 'Four.', 'Five.', 'Six.'], stops: [3] },
    });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(seedFile, JSON.stringify(seed));
    const state = join(dir, 'state.db');
    const first = await inProcessSandbox({ seedFile, stateFile: state, log: () => {} });
    const at = (sbx: typeof first) => sbx.db.get<{ n: number }>(`SELECT count(*) AS n FROM paragraphs WHERE note_guid = 'ntLiveSeeded1'`)!.n;
    await eventually(() => at(first) >= 3, 10_000, 'two live paragraphs');
    expect(first.db.get('SELECT recording_end_at FROM notes WHERE guid = ?', ['ntLiveSeeded1'])).toEqual({ recording_end_at: null });
    await first.close();
    const second = await sandbox({ stateFile: state });
    await eventually(() => second.db.get<{ e: string | null }>(`SELECT recording_end_at AS e FROM notes WHERE guid = 'ntLiveSeeded1'`)!.e, 10_000, 'the end');
    expect(at(second)).toBe(7);
    const types = (await events(second)).filter((e) => e.resourceId === 'ntLiveSeeded1' || e.envelope.data.resource.noteGuid === 'ntLiveSeeded1').map((e) => e.type);
    expect(types.filter((t) => t === 'note.created')).toHaveLength(1);
    expect(types.filter((t) => t === 'note.recording.completed')).toHaveLength(2);
    expect(types.filter((t) => t === 'note.ended')).toHaveLength(1);
    const paras = second.db.all<{ content: string; position: number }>(`SELECT content, position FROM paragraphs WHERE note_guid = 'ntLiveSeeded1' ORDER BY position`);
    expect(paras.map((p) => p.content)).toEqual(['Already recorded before the sandbox started.', 'One.', 'Two.', 'Three.', 'Four.', 'Five.', 'Six.']);
  });

  it('refuses a live spec that cannot run, naming the field', async () => {
    const sb = await sandbox();
    const bad = async (body: Record<string, unknown>, detail: RegExp) => {
      const r = await sb.call('POST', '/_sandbox/live-notes', { body: { workspaceGuid: WS.product, ...body } });
      expect(r.status, r.text).toBe(400);
      expect(errorEnvelopeSchema.parse(r.json).error.detail).toMatch(detail);
    };
    await bad({ count: 3, stops: [4] }, /^stops\[0\]: must be a paragraph count from 1 to 3/);
    await bad({ count: 3, paragraphIntervalSeconds: 0 }, /^paragraphIntervalSeconds:/);
    await bad({ count: 2, paragraphs: ['a'] }, /^count: give either/);
    const r = await sb.call('POST', '/_sandbox/live-notes', { body: { workspaceGuid: WS.sales, folderId: F.roadmap } });
    expect(r.status).toBe(422);
  });
});

describe.concurrent('the control API', () => {
  it('registers, lists and removes endpoints, answering a secret only when it generated it', async () => {
    const sb = await sandbox({ webhookAllowHosts: ['example.test'] });
    const made = await addEndpoint(sb, { url: 'http://user:pw@127.0.0.1:9/hooks' });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(made.url).toBe('http://user:****@127.0.0.1:9/hooks');
    const given = await addEndpoint(sb, { id: 'mine', url: 'https://example.test/h', secret: 'a-given-secret-1', eventTypes: ['note.ended'] });
    expect(given).not.toHaveProperty('secret');
    const list = await sb.call('GET', '/_sandbox/webhook-endpoints');
    expect(list.json.content.map((e: any) => e.id)).toEqual([made.id, 'mine']);
    expect(list.text).not.toContain(made.secret);
    expect(list.text).not.toContain('a-given-secret-1');
    expect((await sb.call('DELETE', '/_sandbox/webhook-endpoints/mine')).status).toBe(204);
    const again = await sb.call('DELETE', '/_sandbox/webhook-endpoints/mine');
    expect(again.status).toBe(404);
    expect(errorEnvelopeSchema.safeParse(again.json).success).toBe(true);
  });

  it('answers bad input with the service error envelope, naming the field', async () => {
    const sb = await sandbox();
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/_sandbox/webhook-endpoints', { url: 'ftp://x' }, 400, /^url: must use http or https/],
      ['POST', '/_sandbox/webhook-endpoints', { url: 'http://127.0.0.1:9/x', eventTypes: ['note.exploded'] }, 400, /^eventTypes\[0\]:/],
      ['POST', '/_sandbox/webhook-endpoints', { url: 'http://127.0.0.1:9/x', secret: 'short' }, 400, /^secret:/],
      ['POST', '/_sandbox/events', { type: 'note.exploded' }, 400, /^type:/],
      ['POST', '/_sandbox/events', { type: 'note.ended', noteGuid: 'ntNoSuchNote0' }, 404, /^noteGuid: no note/],
      ['POST', '/_sandbox/events', { type: 'note_summary.updated', summaryId: 999 }, 404, /^summaryId:/],
      ['GET', '/_sandbox/events?since=yesterday', undefined, 400, /^since:/],
      ['POST', '/_sandbox/events/evt_nope/redeliver', undefined, 404, /./],
    ];
    for (const [method, path, body, status, detail] of cases) {
      const r = await sb.call(method, path, { body });
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      const env = errorEnvelopeSchema.parse(r.json);
      if (status !== 404 || body) expect(env.error.detail ?? env.error.message).toMatch(detail);
    }
  });

  it('pages the log with since and tail, and filters by type', async () => {
    const sb = await sandbox();
    for (let i = 0; i < 5; i++) await rename(sb, N.launchKickoff, `Title ${i}`);
    await sb.call('POST', '/_sandbox/events', { body: { type: 'note.ended', noteGuid: N.launchKickoff } });
    const all = await events(sb);
    expect(all.map((e) => e.type)).toEqual([...Array(5).fill('note.user_content.updated'), 'note.ended']);
    expect(all.at(-1).origin).toBe('test');
    const page = (await sb.call('GET', '/_sandbox/events?limit=2')).json;
    expect(page.content.map((e: any) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect(page.nextCursor).toBe(all[1].id);
    expect((await events(sb, `?since=${all[3].id}`)).map((e) => e.id)).toEqual(all.slice(4).map((e) => e.id));
    expect((await events(sb, '?tail=2')).map((e) => e.id)).toEqual(all.slice(4).map((e) => e.id));
    expect((await events(sb, '?type=note.ended')).map((e) => e.id)).toEqual([all[5].id]);
    expect((await events(sb, `?since=${encodeURIComponent(all[5].createdAt)}`)).map((e) => e.id)).toContain(all[5].id);
  });

  it('delivers only to loopback unless --webhook-allow-host names the host: the control API, --webhook and the seed refuse others, naming the flag', async () => {
    const sb = await sandbox();
    for (const url of ['https://hooks.example.test/in', 'http://10.0.0.8:4242/h', 'http://[fe80::1]/h', 'http://0.0.0.0:4242/h']) {
      const r = await sb.call('POST', '/_sandbox/webhook-endpoints', { body: { url } });
      expect(r.status, `${url}: ${r.text}`).toBe(400);
      expect(errorEnvelopeSchema.parse(r.json).error.detail).toMatch(/^url: goes to "[^"]+", beyond loopback: .* unless started with --webhook-allow-host \S+$/);
    }
    for (const url of ['http://127.0.0.1:9/h', 'http://localhost:9/h', 'http://[::1]:9/h', 'http://127.8.9.10:9/h']) await addEndpoint(sb, { url });
    // Allowed by name (any case), then delivered to like any other endpoint.
    const open = await sandbox({ webhookAllowHosts: ['Hooks.Example.Test', '10.0.0.8'] });
    await addEndpoint(open, { url: 'https://hooks.example.test/in' });
    await addEndpoint(open, { url: 'http://10.0.0.8:4242/h' });
    expect((await open.call('POST', '/_sandbox/webhook-endpoints', { body: { url: 'https://elsewhere.example.test/in' } })).status).toBe(400);
    // --webhook
    await expect(inProcessSandbox({ webhooks: ['https://hooks.example.test/in'] })).rejects.toThrow(
      /^--webhook "https:\/\/hooks\.example\.test\/in" goes to "hooks\.example\.test", beyond loopback: .*--webhook-allow-host hooks\.example\.test$/,
    );
    const flagged = await sandbox({ webhooks: ['https://hooks.example.test/in'], webhookAllowHosts: ['hooks.example.test'] });
    expect(flagged.webhooks.map((w) => w.url)).toEqual(['https://hooks.example.test/in']);
    // the seed
    const dir = mkdtempSync(join(tmpdir(), 'notevox-allow-host-'));
    try {
      const seed = structuredClone(demoSeed) as any;
      seed.webhookEndpoints = [{ id: 'crm', url: 'https://crm.example.test/hooks', secret: 'crm-secret-0001' }];
      const seedFile = join(dir, 'seed.json');
      writeFileSync(seedFile, JSON.stringify(seed));
      await expect(inProcessSandbox({ seedFile })).rejects.toThrow(/webhookEndpoints \(id "crm"\): url "https:\/\/crm\.example\.test\/hooks" goes to .*--webhook-allow-host crm\.example\.test$/);
      const seeded = await sandbox({ seedFile, webhookAllowHosts: ['crm.example.test'] });
      expect((await seeded.call('GET', '/_sandbox/webhook-endpoints')).json.content.map((e: any) => e.id)).toEqual(['crm']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an endpoint of a reloaded state beyond loopback, not allowed in this start, gets nothing: its delivery fails unsent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-allow-host-'));
    try {
      const stateFile = join(dir, 'state.db');
      const first = await inProcessSandbox({ stateFile, webhookAllowHosts: ['hooks.example.test'] });
      await first.call('POST', '/_sandbox/webhook-endpoints', { body: { url: 'https://hooks.example.test/in', secret: 'whsec_test_0011' } });
      await first.close();
      const sb = await sandbox({ stateFile, webhookPace: 0.02 });
      expect(sb.lines.join('\n')).toMatch(/webhook endpoint we_\w+ https:\/\/hooks\.example\.test\/in: goes to .*--webhook-allow-host hooks\.example\.test; its deliveries fail until then/);
      await rename(sb, N.launchKickoff, 'Not to elsewhere');
      const e = await finished(sb, 'note.user_content.updated');
      expect(e.deliveries[0].status).toBe('failed');
      expect(e.deliveries[0].attempts[0].error).toMatch(/^not sent: goes to "hooks\.example\.test", beyond loopback/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('picks the newest resource of the kind when a test event names none', async () => {
    const sb = await sandbox();
    const r = await sb.call('POST', '/_sandbox/events', { body: { type: 'note_document.deleted' } });
    expect(r.status, r.text).toBe(201);
    const newest = sb.db.get<{ id: number }>('SELECT id FROM documents ORDER BY updated_at DESC, id DESC LIMIT 1')!;
    expect(r.json.resourceId).toBe(String(newest.id));
  });

  it('needs no token on loopback; beyond loopback it is off without a token, and a token is checked', async () => {
    const wide = await sandbox({ host: '0.0.0.0' });
    const off = await wide.call('GET', '/_sandbox/events');
    expect(off.status).toBe(403);
    expect(errorEnvelopeSchema.parse(off.json).error.detail).toMatch(/--control-token-file/);
    const token = 'control-token-0123456789';
    const guarded = await sandbox({ host: '0.0.0.0', controlToken: token });
    expect((await guarded.call('GET', '/_sandbox/events')).status).toBe(401);
    expect((await guarded.call('GET', '/_sandbox/events', { headers: { authorization: 'Bearer wrong-token-000' } })).status).toBe(401);
    expect((await guarded.call('GET', '/_sandbox/events', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // The API's own keys do not open it.
    expect((await guarded.call('GET', '/_sandbox/events', { key: admin })).status).toBe(401);
  });

  it('is never hit by fault injection', async () => {
    const sb = await sandbox({ faults: '500=1' });
    expect((await sb.call('GET', `${API}/auth/me`, { key: admin })).status).toBe(500);
    expect((await sb.call('GET', '/_sandbox/events')).status).toBe(200);
  });
});

describe.concurrent('webhook secrets stay secret', () => {
  it('never appear in the log (also --verbose), the event log or the endpoint list', async () => {
    const ok = await receiver([500, 200]);
    const gone = await receiver([410]);
    const secret = 'whsec_DoNotLeakThis_0001';
    const sb = await sandbox({ webhooks: [ok.url, gone.url], webhookSecret: secret, webhookPace: 0.02, verbose: true });
    await rename(sb, N.launchKickoff, 'Secret check');
    await sb.call('POST', '/_sandbox/events', { body: { type: 'note.ended', noteGuid: N.launchKickoff } });
    await eventually(async () => (await events(sb)).every((e) => e.deliveries.every((d: any) => d.status !== 'pending')), 20_000, 'all deliveries');
    const everything = [
      sb.lines.join('\n'),
      (await sb.call('GET', '/_sandbox/events')).text,
      (await sb.call('GET', '/_sandbox/webhook-endpoints')).text,
      ...(await events(sb)).map((e) => JSON.stringify(e)),
    ].join('\n');
    expect(sb.lines.some((l) => l.includes('attempt 2/6: 200'))).toBe(true);
    expect(sb.lines.some((l) => l.includes('answered 410, not retried'))).toBe(true);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('DoNotLeakThis');
    // The receiver got it, as the Bearer value.
    expect(ok.received[0].headers.authorization).toBe(`Bearer ${secret}`);
  });
});

describe.concurrent('the seed: webhookEndpoints', () => {
  it('loads endpoints and refuses bad ones, naming the path', async () => {
    const { loadSeed } = await import('../../src/sandbox/seed/load.js');
    const { SeedError } = await import('../../src/sandbox/seed/schema.js');
    const { openDatabase } = await import('../../src/sandbox/db.js');
    const db = await openDatabase();
    try {
      const seed = structuredClone(demoSeed) as any;
      seed.webhookEndpoints = [{ id: 'crm', url: 'https://crm.example/hooks', secret: 'crm-secret-0001', eventTypes: ['note.ended'], organizationId: DEMO_ORGANIZATION }];
      loadSeed(db, seed);
      expect(db.get('SELECT id, url, source, organization_id FROM webhook_endpoints')).toEqual({ id: 'crm', url: 'https://crm.example/hooks', source: 'seed', organization_id: DEMO_ORGANIZATION });
      const broken = structuredClone(demoSeed) as any;
      broken.webhookEndpoints = [
        { id: 'a', url: 'mailto:x', secret: 'secret-0001' },
        { id: 'b', url: 'http://x', secret: 'secret-0002', organizationId: 'org_nope' },
        { id: 'b', url: 'http://x', secret: 'secret-0003', eventTypes: ['note.nope'] },
      ];
      broken.notes[0].live = { count: 2, stops: [3] };
      const db2 = await openDatabase();
      let err: InstanceType<typeof SeedError> | undefined;
      try {
        loadSeed(db2, broken);
      } catch (e) {
        err = e as InstanceType<typeof SeedError>;
      }
      await db2.close();
      expect(err).toBeInstanceOf(SeedError);
      expect(err!.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['webhookEndpoints[0].url', 'webhookEndpoints[2].eventTypes[0]']));
      const second = structuredClone(demoSeed) as any;
      second.webhookEndpoints = broken.webhookEndpoints.slice(1, 2).concat([{ id: 'b', url: 'http://y', secret: 'secret-0004' }]);
      second.notes[0].live = { count: 2, stops: [3] };
      const db3 = await openDatabase();
      try {
        loadSeed(db3, second);
        throw new Error('loaded');
      } catch (e) {
        expect((e as InstanceType<typeof SeedError>).issues.map((i) => i.path)).toEqual(
          expect.arrayContaining(['webhookEndpoints[0].organizationId', 'webhookEndpoints[1].id', 'notes[0].live.stops[0]']),
        );
      } finally {
        await db3.close();
      }
    } finally {
      await db.close();
    }
  });
});
