import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { WEBHOOK_DELIVERY } from '../../src/contract/events.js';
import { DEMO_KEYS, DEMO_NOTES as N } from '../../src/sandbox/demo-seed.js';
import { spawnNotevox } from '../helpers/cli-process.js';
import { deadPort, eventually, startReceiver } from '../helpers/receiver.js';
import { closeAtEnd, scopedIt as it } from '../helpers/scope.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * Processes that die at the worst moment of a webhook delivery (GUIDE: "a server mid-delivery"), each SIGKILLed:
 * the receiver after it read a delivery's headers and the start of its body, before answering; the sandbox with
 * deliveries in flight and pending under --state; the app behind `webhooks listen --forward-to` in the middle of a
 * forward. In every case no event is lost, none is marked delivered that its receiver did not acknowledge with a
 * 2xx, and the retries follow decisions.md §6.3 (made fast with --webhook-pace, the sandbox's time control for
 * deliveries, not with sleeps).
 */

const API = '/v1/external';
const admin = DEMO_KEYS.admin.token;
const ATTEMPT = WEBHOOK_DELIVERY.attemptHeader.toLowerCase();
const FIRST_RETRY_MS = WEBHOOK_DELIVERY.retryDelaysSeconds[0] * 1000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-webhook-kills-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the doomed receiver saw of one request before it was killed. */
interface Seen {
  attempt: string;
  contentLength: number;
  bytes: number;
}

/**
 * A receiver in a process of its own on `port` that never answers: for each request it reports the attempt header,
 * the announced length and the size of the first chunk of the body it read, then waits to be killed.
 */
async function doomedReceiver(port: number) {
  const script = `
    // It reads the first chunk and answers nothing, ever.
    const s = require('node:http').createServer((req) => {
      req.once('data', (c) => process.stdout.write(JSON.stringify({ attempt: req.headers[${JSON.stringify(ATTEMPT)}], contentLength: Number(req.headers['content-length']), bytes: c.length }) + '\\n'));
    });
    s.listen(${port}, '127.0.0.1', () => process.stdout.write('listening\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  closeAtEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const seen: Seen[] = [];
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (l) => (l === 'listening' ? resolve() : seen.push(JSON.parse(l) as Seen)));
    child.once('exit', () => reject(new Error('the doomed receiver exited before listening')));
  });
  return {
    seen,
    async kill() {
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    },
  };
}

async function receiver(script: Array<number | 'hang'>, port?: number) {
  const r = await startReceiver(script, port);
  closeAtEnd(() => r.close());
  return r;
}

interface Attempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
  nextRetryAt: string | null;
}
interface Delivery {
  endpointId: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: Attempt[];
}
interface LoggedEvent {
  id: string;
  deliveries: Delivery[];
}

const eventLog = async (baseUrl: string): Promise<LoggedEvent[]> => ((await (await fetch(`${baseUrl}/_sandbox/events`)).json()) as { content: LoggedEvent[] }).content;
const deliveriesTo = (log: LoggedEvent[], endpointId: string) => log.map((e) => ({ id: e.id, ...e.deliveries.find((d) => d.endpointId === endpointId)! }));

/** The first retry comes after 15 s × pace, counted from when the failed attempt ended (its `at` plus its duration). */
function expectFirstRetryScheduled(a: Attempt, pace: number) {
  expect(a.nextRetryAt).not.toBeNull();
  const wait = Date.parse(a.nextRetryAt!) - Date.parse(a.at) - a.durationMs;
  expect(wait).toBeGreaterThanOrEqual(FIRST_RETRY_MS * pace - 2);
  expect(wait).toBeLessThanOrEqual(FIRST_RETRY_MS * pace + 250);
}

function rename(baseUrl: string, title: string) {
  return fetch(`${baseUrl}${API}/notes/${N.launchKickoff}?updateMask=title`, {
    method: 'PATCH',
    body: JSON.stringify({ title }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
  });
}

describe.concurrent('a process killed in the middle of a webhook delivery', { timeout: 90_000 }, () => {
  it('the receiver SIGKILLed after the headers and part of the body: a failed attempt, retried on the schedule, delivered once it is back; the other endpoint unaffected', async () => {
    const port = await deadPort();
    const doomed = await doomedReceiver(port);
    const healthy = await receiver([200]);
    // Pace 0.2: the first retry 3 s after the failed attempt, the timeout 12 s (the kill comes well before it).
    const pace = 0.2;
    const sb = await startTestSandbox({ webhooks: [`http://127.0.0.1:${port}/hooks`, healthy.url], webhookSecret: 'whsec_kill_receiver_1', webhookPace: pace });
    closeAtEnd(() => sb.close());
    const [doomedId, healthyId] = sb.webhooks.map((w) => w.id);
    const EVENTS = 3;
    for (let i = 0; i < EVENTS; i++) expect((await rename(sb.baseUrl, `Delivered into a dying receiver ${i}`)).status).toBe(200);
    // Every delivery is in flight to the doomed receiver: headers and the start of the body read, no answer.
    await eventually(() => doomed.seen.length === EVENTS, 20_000, 'the doomed receiver to read every delivery');
    for (const s of doomed.seen) {
      expect(s.attempt).toBe('1');
      expect(s.bytes).toBeGreaterThan(0);
      expect(s.bytes).toBeLessThanOrEqual(s.contentLength);
    }
    expect(deliveriesTo(await eventLog(sb.baseUrl), doomedId).map((d) => [d.status, d.attempts.length])).toEqual(Array(EVENTS).fill(['pending', 0]));
    await doomed.kill();
    // Back on the same port at once, seconds before the retries are due.
    const back = await receiver([200], port);

    // Each delivery records a failed attempt (no answer: the connection broke) and stays pending, its retry scheduled.
    const failed = await eventually(async () => {
      const ds = deliveriesTo(await eventLog(sb.baseUrl), doomedId);
      return ds.every((d) => d.attempts.length >= 1) ? ds : undefined;
    }, 20_000, 'a failed attempt per delivery');
    for (const d of failed) {
      expect(d.status).toBe('pending');
      expect(d.attempts[0]).toMatchObject({ attempt: 1, status: null, error: expect.stringMatching(/^connection (reset|closed)$|socket hang up/) });
      expectFirstRetryScheduled(d.attempts[0], pace);
    }

    // Each event arrives once more, as attempt 2, and is then delivered.
    const got = await back.waitFor(EVENTS);
    const ids = failed.map((d) => d.id).sort();
    expect(got.map((r) => r.json.id).sort()).toEqual(ids);
    expect(got.map((r) => r.headers[ATTEMPT])).toEqual(Array(EVENTS).fill('2'));
    expect(got.every((r) => r.headers.authorization === 'Bearer whsec_kill_receiver_1')).toBe(true);
    const done = await eventually(async () => {
      const ds = deliveriesTo(await eventLog(sb.baseUrl), doomedId);
      return ds.every((d) => d.status === 'delivered') ? ds : undefined;
    }, 20_000, 'the retries to be recorded as delivered');
    for (const d of done) expect(d.attempts.map((a) => a.status)).toEqual([null, 200]);

    // The other endpoint got each event once, at the first attempt, while the first was dying.
    expect(healthy.received.map((r) => r.json.id).sort()).toEqual(ids);
    expect(healthy.received.map((r) => r.headers[ATTEMPT])).toEqual(Array(EVENTS).fill('1'));
    for (const d of deliveriesTo(await eventLog(sb.baseUrl), healthyId)) expect([d.status, d.attempts.map((a) => a.status)]).toEqual(['delivered', [200]]);
    // Nothing more arrives later: no delivery is sent again once acknowledged.
    await new Promise((r) => setTimeout(r, FIRST_RETRY_MS * pace + 500));
    expect(back.received).toHaveLength(EVENTS);
    expect(healthy.received).toHaveLength(EVENTS);
  });

  it('a receiver whose connection breaks after its status line: the status counts (2xx delivered once, 5xx retried), the cut body does not', async () => {
    const { createServer } = await import('node:http');
    const make = async (statuses: number[]) => {
      const got: string[] = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c));
        req.on('end', () => {
          const status = statuses[Math.min(got.length, statuses.length - 1)]!;
          got.push(JSON.parse(body).id);
          // The status line and the start of a body announced longer, then the connection is gone (a process dying).
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"ok":');
          setTimeout(() => res.socket?.destroy(), 20);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      closeAtEnd(() => new Promise<void>((r) => server.close(() => r())));
      return { got, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks` };
    };
    const acked = await make([200]);
    const failing = await make([503, 200]);
    const pace = 0.1;
    const sb = await startTestSandbox({ webhooks: [acked.url, failing.url], webhookSecret: 'whsec_cut_answers_01', webhookPace: pace });
    closeAtEnd(() => sb.close());
    const [ackedId, failingId] = sb.webhooks.map((w) => w.id);
    expect((await rename(sb.baseUrl, 'Answered, then cut off')).status).toBe(200);
    const log = await eventually(async () => {
      const l = await eventLog(sb.baseUrl);
      return l[0]?.deliveries.every((d) => d.status !== 'pending') ? l : undefined;
    }, 20_000, 'both deliveries to finish');
    expect(deliveriesTo(log, ackedId).map((d) => [d.status, d.attempts.map((a) => a.status)])).toEqual([['delivered', [200]]]);
    expect(deliveriesTo(log, failingId).map((d) => [d.status, d.attempts.map((a) => a.status ?? a.error)])).toEqual([['delivered', [503, 200]]]);
    await new Promise((r) => setTimeout(r, FIRST_RETRY_MS * pace + 300));
    expect(acked.got).toEqual([log[0]!.id]);
    expect(failing.got).toEqual([log[0]!.id, log[0]!.id]);
  });

  it('webhooks listen --forward-to SIGKILLed while its app holds the forward: the sandbox retries, and a listener started again on the port delivers it', async () => {
    const hangingApp = await receiver(['hang']);
    const app = await receiver([200]);
    const secret = 'whsec_kill_listener_1';
    const port = await deadPort();
    const listen = (to: string) => spawnNotevox(['webhooks', 'listen', '--port', String(port), '--forward-to', to], { NOTEVOX_WEBHOOK_SECRET: secret });
    const first = listen(hangingApp.url);
    await first.waitFor('err', /receiving webhooks on /);
    const pace = 0.2;
    const sb = await startTestSandbox({ webhooks: [`http://127.0.0.1:${port}/hooks`], webhookSecret: secret, webhookPace: pace });
    closeAtEnd(() => sb.close());
    expect((await rename(sb.baseUrl, 'Delivered into a dying listener')).status).toBe(200);
    // The listener read the delivery and is forwarding it (the app holds it): killed before it answers the sandbox.
    const [held] = await hangingApp.waitFor(1);
    expect(await first.stop('SIGKILL')).toBe(null);
    // The port is free once the first is gone, but another process on the machine may take it as a connection's
    // local port for a moment (it is in the ephemeral range: deadPort). The listener then says the port is in use
    // (exit 2), as it should; it is started again, as a user would (seen once, in one of this stop's CI runs).
    let second = listen(app.url);
    for (let tries = 1; ; tries++) {
      try {
        await second.waitFor('err', /receiving webhooks on /);
        break;
      } catch (e) {
        if (tries >= 20 || !/is already in use/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 100));
        second = listen(app.url);
      }
    }
    const [got] = await app.waitFor(1);
    expect(got.json.id).toBe(held.json.id);
    const [e] = await eventually(async () => {
      const log = await eventLog(sb.baseUrl);
      return log[0]?.deliveries[0].status === 'delivered' ? log : undefined;
    }, 20_000, 'the delivery to be recorded');
    // The kill broke the first attempt; the retry after 15 s × pace reached the new listener (attempt 2, or a later
    // one when the machine was so slow that the listener was not up yet and a retry found the port closed).
    const attempts = e.deliveries[0].attempts;
    expect(attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/^connection (reset|closed)$|socket hang up/) });
    expectFirstRetryScheduled(attempts[0], pace);
    expect(attempts.slice(1, -1).every((a) => a.status === null && a.error === 'connection refused')).toBe(true);
    expect(attempts.at(-1)).toMatchObject({ status: 200, attempt: attempts.length });
    expect(got.headers[ATTEMPT]).toBe(String(attempts.length));
    // The listener prints the event once it has answered the sandbox: its line may reach this process just after
    // the sandbox recorded the answer (seen once in CI), so it is waited for.
    await second.waitFor('out', new RegExp(held.json.id));
    expect(app.received).toHaveLength(1);
  });

  it('the sandbox SIGKILLed with deliveries in flight and pending (--state): after a restart every one is sent, none acknowledged is sent again', async () => {
    const state = join(dir, 'kill-in-flight.db');
    const secretFile = join(dir, 'whsec-in-flight.txt');
    writeFileSync(secretFile, 'whsec_kill_sandbox_01\n');
    const hanging = await receiver(['hang']); // deliveries in flight at the kill
    const downPort = await deadPort(); // deliveries failed once, their retry pending at the kill
    const healthy = await receiver([200]); // deliveries acknowledged before the kill
    const urls = [hanging.url, `http://127.0.0.1:${downPort}/hooks`, healthy.url];
    // Pace 0.4: the retry 6 s after the failed attempt (the kill comes first); the hanging deliveries' timeout 24 s.
    const args = ['sandbox', 'start', '--port', '0', '--json', '--state', state, '--webhook-secret-file', secretFile, '--webhook-pace', '0.4', ...urls.flatMap((u) => ['--webhook', u])];
    const start = async () => {
      const p = spawnNotevox(args);
      const m = await p.waitFor('out', /^\{.*\}\n/);
      return { p, info: JSON.parse(m[0]) as { baseUrl: string; webhooks: Array<{ id: string; url: string }> } };
    };
    const a = await start();
    const [hangingId, downId, healthyId] = urls.map((u) => a.info.webhooks.find((w) => w.url === u)!.id);
    const EVENTS = 3;
    const fired: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const res = await fetch(`${a.info.baseUrl}/_sandbox/events`, { method: 'POST', body: JSON.stringify({ type: 'note.ended', noteGuid: N.launchKickoff }), headers: { 'content-type': 'application/json' } });
      expect(res.ok).toBe(true);
      fired.push(((await res.json()) as { id: string }).id);
    }
    await hanging.waitFor(EVENTS);
    await healthy.waitFor(EVENTS);
    // What the control API shows is on disk when it answers: the healthy deliveries done, the down ones failed once.
    await eventually(async () => {
      const log = await eventLog(a.info.baseUrl);
      return deliveriesTo(log, healthyId).every((d) => d.status === 'delivered') && deliveriesTo(log, downId).every((d) => d.attempts.length >= 1);
    }, 20_000, 'the healthy deliveries acknowledged and the down ones failed');
    const before = await eventLog(a.info.baseUrl);
    for (const d of deliveriesTo(before, hangingId)) expect([d.status, d.attempts]).toEqual(['pending', []]);
    for (const d of deliveriesTo(before, downId)) expect([d.status, d.attempts.every((x) => x.status === null && x.nextRetryAt !== null)]).toEqual(['pending', true]);
    expect(await a.p.stop('SIGKILL')).toBe(null);

    // The two failing endpoints come back (on their ports), and the sandbox on the same state and flags.
    const hangingPort = Number(new URL(hanging.url).port);
    await hanging.close();
    const hangingBack = await receiver([200], hangingPort);
    const downBack = await receiver([200], downPort);
    const b = await start();
    expect(b.info.webhooks.map((w) => w.id).sort()).toEqual([hangingId, downId, healthyId].sort());
    // In flight at the kill: no attempt was recorded, so it is sent again as attempt 1 (at least once; same id).
    const inFlight = await hangingBack.waitFor(EVENTS);
    expect(inFlight.map((r) => r.json.id).sort()).toEqual([...fired].sort());
    expect(inFlight.map((r) => r.headers[ATTEMPT])).toEqual(Array(EVENTS).fill('1'));
    // Pending a retry at the kill: sent when it is due, as the attempt after the failed ones (2, unless the machine
    // was so slow that a second retry failed before the kill).
    const pending = await downBack.waitFor(EVENTS);
    expect(pending.map((r) => r.json.id).sort()).toEqual([...fired].sort());
    for (const r of [...inFlight, ...pending]) expect(r.headers.authorization).toBe('Bearer whsec_kill_sandbox_01');
    const after = await eventually(async () => {
      const log = await eventLog(b.info.baseUrl);
      return log.every((e) => e.deliveries.every((d) => d.status === 'delivered')) ? log : undefined;
    }, 20_000, 'every delivery recorded as delivered');
    expect(after.map((e) => e.id).sort()).toEqual([...fired].sort());
    expect(deliveriesTo(after, hangingId).map((d) => d.attempts.map((x) => [x.attempt, x.status]))).toEqual(Array(EVENTS).fill([[1, 200]]));
    for (const d of deliveriesTo(after, downId)) {
      expect(d.attempts.map((x) => x.status)).toEqual([...Array(d.attempts.length - 1).fill(null), 200]);
      expect(pending.find((r) => r.json.id === d.id)!.headers[ATTEMPT]).toBe(String(d.attempts.length));
    }
    // Acknowledged before the kill: never sent again.
    expect(healthy.received).toHaveLength(EVENTS);
    expect(hangingBack.received).toHaveLength(EVENTS);
    expect(downBack.received).toHaveLength(EVENTS);
    expect(await b.p.stop('SIGTERM')).toBe(0);
  });

  it('webhooks listen --forward-to whose app is SIGKILLed mid-forward answers 502, so the sandbox retries and the app gets the event once it is back', async () => {
    const appPort = await deadPort();
    const doomedApp = await doomedReceiver(appPort);
    const secret = 'whsec_kill_forward_01';
    const l = spawnNotevox(['webhooks', 'listen', '--port', '0', '--forward-to', `http://127.0.0.1:${appPort}/hooks`, '-o', 'table'], { NOTEVOX_WEBHOOK_SECRET: secret });
    const listenUrl = `${(await l.waitFor('err', /receiving webhooks on (http:\/\/\S+?\/) /))[1]}hooks`;
    const pace = 0.2;
    const sb = await startTestSandbox({ webhooks: [listenUrl], webhookSecret: secret, webhookPace: pace });
    closeAtEnd(() => sb.close());
    expect((await rename(sb.baseUrl, 'Forwarded into a dying app')).status).toBe(200);
    // The listener is forwarding it: the app read the headers and the start of the body, and dies before answering.
    await eventually(() => doomedApp.seen.length === 1, 20_000, 'the forward to reach the app');
    expect(doomedApp.seen[0].attempt).toBe('1');
    await doomedApp.kill();
    // The app is back at once, seconds before the sandbox's retry is due.
    const app = await receiver([200], appPort);

    // The listener did not acknowledge what it could not forward: the sandbox saw 502 and scheduled a retry.
    const [failed] = await eventually(async () => {
      const [e] = await eventLog(sb.baseUrl);
      return e?.deliveries[0].attempts.length ? [e.deliveries[0], e.id] : undefined;
    }, 20_000, 'the failed attempt');
    expect(failed.status).toBe('pending');
    expect(failed.attempts[0].status).toBe(502);
    expectFirstRetryScheduled(failed.attempts[0], pace);
    await l.waitFor('err', /could not forward evt_\w+ to http:\/\/127\.0\.0\.1:\d+\/hooks: (connection (reset|closed)|socket hang up) \(answered 502, so the sender retries\)/);

    // The retry reaches the app through the listener: once, as attempt 2, and the delivery is done.
    const [got] = await app.waitFor(1);
    expect(got.headers[ATTEMPT]).toBe('2');
    expect(got.headers.authorization).toBe(`Bearer ${secret}`);
    const [e] = await eventually(async () => {
      const log = await eventLog(sb.baseUrl);
      return log[0]?.deliveries[0].status === 'delivered' ? log : undefined;
    }, 20_000, 'the delivery to be recorded');
    expect(got.json.id).toBe(e.id);
    expect(e.deliveries[0].attempts.map((a) => a.status)).toEqual([502, 200]);
    // Printed once as an event (with the failed forward), once as a marked retry.
    await l.waitFor('out', /↻ retry of evt_\w+ \(note\.user_content\.updated, attempt 2\) +→ 200\n/);
    const lines = l.out().split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`note\\.user_content\\.updated +${e.id} +Note ${N.launchKickoff} +→ not forwarded \\((connection (reset|closed)|socket hang up)\\)$`)),
      expect.stringMatching(new RegExp(`↻ retry of ${e.id} \\(note\\.user_content\\.updated, attempt 2\\) +→ 200$`)),
    ]);
    await new Promise((r) => setTimeout(r, FIRST_RETRY_MS * pace + 500));
    expect(app.received).toHaveLength(1);
    expect(await l.stop('SIGINT')).toBe(130);
    expect(l.err()).toMatch(/Stopped: 1 event received/);
  });
});
