import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { EVENT_SCHEMAS } from '../../src/contract/event-schemas.js';
import { DEMO_KEYS, DEMO_NOTES as N, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { spawnNotevox } from '../helpers/cli-process.js';
import { deadPort, eventually, startReceiver } from '../helpers/receiver.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { closeAtEnd, scopedIt as it } from '../helpers/scope.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * Events end to end: the built CLI's receiver, tail, trigger and sandbox processes (signals, exit codes, pipes). The
 * one-shot commands beside them (trigger, events, live-note start, a finished --follow) run in this process.
 */

const admin = DEMO_KEYS.admin.token;
const API = '/v1/external';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-events-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `webhooks listen --port 0` with the secret in the environment; resolves with its URL. */
async function listen(secret: string, extra: string[] = []) {
  const p = spawnNotevox(['webhooks', 'listen', '--port', '0', ...extra], { NOTEVOX_WEBHOOK_SECRET: secret });
  const m = await p.waitFor('err', /receiving webhooks on (http:\/\/\S+?\/) /);
  return Object.assign(p, { url: `${m[1]}hooks` });
}

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, text: await res.text() };
}

const ndjson = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

async function sandboxWith(opts: Parameters<typeof startTestSandbox>[0]) {
  const sb = await startTestSandbox(opts);
  closeAtEnd(() => sb.close());
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sb.baseUrl + '/_sandbox' + path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return res.json() as Promise<any>;
  };
  const rename = (title: string) =>
    fetch(`${sb.baseUrl}${API}/notes/${N.launchKickoff}?updateMask=title`, {
      method: 'PATCH',
      body: JSON.stringify({ title }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    });
  return Object.assign(sb, { control, rename });
}

describe.concurrent('notevox webhooks listen', { timeout: 90_000 }, () => {
  it('prints each event delivered by the sandbox once (NDJSON when piped), drops the redelivered duplicate, and ends with 130 and a count on Ctrl-C', async () => {
    const secret = 'whsec_listen_e2e_0001';
    const l = await listen(secret);
    const sb = await sandboxWith({ webhooks: [l.url], webhookSecret: secret, webhookPace: 0.02 });
    expect((await sb.rename('Heard by the listener')).status).toBe(200);
    await eventually(() => ndjson(l.out()).length === 1, 20_000, 'the event on stdout');
    const [printed] = ndjson(l.out());
    expect(EVENT_SCHEMAS['note.user_content.updated'].parse(printed).data.resource.title).toBe('Heard by the listener');
    const log = (await sb.control('GET', '/events')).content;
    expect(log[0].deliveries[0].attempts.map((a: any) => a.status)).toEqual([200]);
    // The same event again: answered 2xx, not printed twice.
    await sb.control('POST', `/events/${printed.id}/redeliver`);
    await l.waitFor('err', new RegExp(`duplicate ${printed.id} \\(note.user_content.updated, attempt 1\\) dropped`));
    expect(ndjson(l.out())).toHaveLength(1);
    expect(await l.stop('SIGINT')).toBe(130);
    expect(l.err()).toMatch(/Stopped: 1 event received\./);
    expect(l.out() + l.err()).not.toContain(secret);
  });

  it('answers a wrong or missing secret with 401, prints no event, and warns on stderr', async () => {
    const l = await listen('whsec_right_secret_01');
    const envelope = { id: 'evt_AAAAAAAAAAAAAAAAAAAAAAAAAA', type: 'note.ended', createdAt: new Date().toISOString(), workspaceGuid: WS.product, data: {} };
    expect((await post(l.url, envelope, { authorization: 'Bearer whsec_wrong_secret_01' })).status).toBe(401);
    expect((await post(l.url, envelope, {})).status).toBe(401);
    expect((await post(l.url, envelope, { authorization: 'Bearer whsec_right_secret_01x' })).status).toBe(401);
    await l.waitFor('err', /rejected a delivery from \S+: no Bearer secret \(answered 401\)/);
    expect(l.err()).toMatch(/rejected a delivery from \S+: wrong Bearer secret \(answered 401\)/);
    expect(l.out()).toBe('');
    // A sandbox whose endpoint has another secret: one attempt (a 4xx is permanent), nothing printed.
    const sb = await sandboxWith({ webhooks: [l.url], webhookSecret: 'whsec_other_secret_1', webhookPace: 0.02 });
    await sb.rename('Wrong secret');
    const d = await eventually(async () => {
      const e = (await sb.control('GET', '/events')).content[0];
      return e?.deliveries[0].status === 'failed' ? e.deliveries[0] : undefined;
    });
    expect(d.attempts.map((a: any) => a.status)).toEqual([401]);
    expect(await l.stop('SIGINT')).toBe(130);
    expect(l.out()).toBe('');
    expect(l.err()).not.toContain('whsec_other_secret_1');
    expect(l.err()).not.toContain('whsec_wrong_secret_01');
  });

  it('--forward-to passes body and headers to the app and answers with the app’s status, so the sandbox retries reach the app', async () => {
    const app = await startReceiver([500, 200]);
    closeAtEnd(() => app.close());
    const secret = 'whsec_forward_e2e_01';
    const l = await listen(secret, ['--forward-to', app.url, '-o', 'table']);
    const sb = await sandboxWith({ webhooks: [l.url], webhookSecret: secret, webhookPace: 0.02 });
    await sb.rename('Forwarded');
    const d = await eventually(async () => {
      const e = (await sb.control('GET', '/events')).content[0];
      return e?.deliveries[0].status === 'delivered' ? e.deliveries[0] : undefined;
    });
    expect(d.attempts.map((a: any) => a.status)).toEqual([500, 200]);
    expect(app.received).toHaveLength(2);
    expect(app.received.map((r) => r.headers['x-notevox-delivery-attempt'])).toEqual(['1', '2']);
    for (const r of app.received) {
      expect(r.headers.authorization).toBe(`Bearer ${secret}`);
      expect(r.json.type).toBe('note.user_content.updated');
    }
    expect(app.received[0].body).toBe(app.received[1].body);
    // -o table: the event's line once, with the app's status at its end; the sender's retry is marked as one.
    await l.waitFor('out', /↻ retry of evt_\w+ \(note\.user_content\.updated, attempt 2\) +→ 200\n/);
    expect(l.out()).toMatch(/note\.user_content\.updated +evt_\w+ +Note nt1LaunchPlan +→ 500\n/);
    expect(l.out().split('\n').filter(Boolean)).toHaveLength(2);
    expect(await l.stop('SIGINT')).toBe(130);
    expect(l.err()).toMatch(/Stopped: 1 event received/);
  });

  it('--forward-to: concurrent duplicates of one id reach the app and the output once; retries after a failure are marked, not printed as new', async () => {
    // The app answers slowly (so duplicates arrive while the first is being forwarded), in turn 200, 500, 500, 200.
    const { createServer } = await import('node:http');
    const statuses = [200, 500, 500, 200];
    const hits: string[] = [];
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const status = statuses[Math.min(hits.length, statuses.length - 1)];
        hits.push(JSON.parse(body).id);
        setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end('{}'), 400);
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', () => r()));
    closeAtEnd(() => new Promise<void>((r) => app.close(() => r())));
    const secret = 'whsec_forward_dups_01';
    const l = await listen(secret, ['--forward-to', `http://127.0.0.1:${(app.address() as { port: number }).port}/hooks`, '-o', 'table']);
    const envelope = (id: string) => ({ id, type: 'note.ended', createdAt: new Date().toISOString(), workspaceGuid: WS.product, data: { resourceType: 'Note', resourceId: N.launchKickoff } });
    const auth = (attempt: number) => ({ authorization: `Bearer ${secret}`, 'x-notevox-delivery-attempt': String(attempt) });
    const A = 'evt_DUPLICATEDAAAAAAAAAAAAAA';
    const B = 'evt_RETRIEDBBBBBBBBBBBBBBBBB';
    // Five concurrent deliveries of A: forwarded once, every sender answered 2xx.
    const five = await Promise.all(Array.from({ length: 5 }, () => post(l.url, envelope(A), auth(1))));
    expect(five.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(hits).toEqual([A]);
    // B: the app fails twice, then accepts; then a late duplicate.
    const answers = [];
    for (let attempt = 1; attempt <= 4; attempt++) answers.push((await post(l.url, envelope(B), auth(attempt))).status);
    expect(answers).toEqual([500, 500, 200, 200]);
    expect(hits).toEqual([A, B, B, B]);
    await l.waitFor('out', /↻ retry of evt_RETRIEDB\w+ \(note\.ended, attempt 3\) +→ 200\n/);
    const out = l.out().split('\n').filter(Boolean);
    expect(out.filter((x) => x.includes(A))).toHaveLength(1);
    expect(out.filter((x) => x.includes(B) && !x.includes('retry'))).toEqual([expect.stringMatching(/note\.ended +evt_RETRIEDB\w+ +Note nt1LaunchPlan +→ 500$/)]);
    expect(out.filter((x) => x.includes(`retry of ${B}`))).toEqual([
      expect.stringMatching(/↻ retry of evt_RETRIEDB\w+ \(note\.ended, attempt 2\) +→ 500$/),
      expect.stringMatching(/↻ retry of evt_RETRIEDB\w+ \(note\.ended, attempt 3\) +→ 200$/),
    ]);
    expect(out).toHaveLength(4);
    expect(l.err()).toMatch(/duplicate evt_DUPLICATEDA\w+ \(note\.ended, attempt 1\) while it is being forwarded: not forwarded again/);
    expect(await l.stop('SIGINT')).toBe(130);
    expect(l.err()).toMatch(/Stopped: 2 events received/);
  });

  it('refuses to start without a secret (exit 2, naming the flag and the variable)', async () => {
    const r = await runCli(['webhooks', 'listen', '--port', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--secret-file FILE or set NOTEVOX_WEBHOOK_SECRET/);
  });
});

describe.concurrent('notevox sandbox trigger, events, live-note start and notes paragraphs --follow', { timeout: 90_000 }, () => {
  it('a live note started from the CLI is tailed by --follow: every paragraph once, exit 0 when the recording ends', async () => {
    const sb = await sandboxWith({});
    const env = { baseUrl: sb.baseUrl, key: admin };
    const started = await runCli(['sandbox', 'live-note', 'start', '--workspace', 'Product Team', '--paragraphs', '8', '--interval', '0.15', '--stops', '4'], env);
    expect(started.exitCode, started.stderr).toBe(0);
    const guid = started.stdout.trim();
    expect(guid).toMatch(/^[A-Za-z0-9]{13}$/);
    expect(started.stderr).toContain(`notevox notes paragraphs ${guid} --follow`);
    const follow = await runCli(['notes', 'paragraphs', guid, '--follow', '-o', 'ndjson'], env);
    expect(follow.exitCode, follow.stderr).toBe(0);
    const lines = ndjson(follow.stdout);
    const final = (await (await fetch(`${sb.baseUrl}${API}/notes/${guid}/paragraphs`, { headers: { authorization: `Bearer ${admin}` } })).json()) as any;
    expect(final.content).toHaveLength(8);
    expect(lines.map((p) => p.id)).toEqual(final.content.map((p: any) => p.id));
    expect(follow.stderr).toMatch(/Recording ended at \S+: 8 paragraphs\./);
    const types = (await sb.control('GET', '/events')).content.filter((e: any) => e.resourceId === guid).map((e: any) => e.type);
    expect(types).toEqual(['note.created', 'note.recording.completed', 'note.recording.completed', 'note.ended']);
  });

  it('--follow on a note that is no longer recording prints it and exits 0 at once; Ctrl-C on a live one exits 130', async () => {
    const sb = await sandboxWith({});
    const env = { baseUrl: sb.baseUrl, key: admin };
    const done = await runCli(['notes', 'paragraphs', N.launchKickoff, '--follow', '--plain'], env);
    expect(done.exitCode).toBe(0);
    expect(done.stdout.trim().split('\n').length).toBeGreaterThan(1);
    const live = await sb.control('POST', '/live-notes', { workspaceGuid: WS.product, count: 3, paragraphIntervalSeconds: 60 });
    const p = spawnNotevox(['notes', 'paragraphs', live.guid, '--follow'], { NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: admin });
    const polls = () => sb.db.get<{ n: number }>(`SELECT count(*) AS n FROM request_log WHERE path = ?`, [`${API}/notes/${live.guid}/paragraphs`])!.n;
    await eventually(() => polls() > 0, 20_000, 'the tail to poll');
    expect(await p.stop('SIGINT')).toBe(130);
    expect(p.err()).toMatch(/interrupted/);
  });

  it('trigger fires a test event delivered to the endpoints, and events shows it with its attempts; --follow prints new ones until Ctrl-C', async () => {
    const r = await startReceiver([200]);
    closeAtEnd(() => r.close());
    const sb = await sandboxWith({ webhooks: [r.url], webhookSecret: 'whsec_trigger_e2e_01', webhookPace: 0.02 });
    const env = { baseUrl: sb.baseUrl };
    const tail = spawnNotevox(['sandbox', 'events', '--follow', '-o', 'ndjson'], { NOTEVOX_BASE_URL: sb.baseUrl });
    await tail.waitFor('err', /Following the event log/);
    const t = await runCli(['sandbox', 'trigger', 'note.ended', '--note', N.launchKickoff], env);
    expect(t.exitCode, t.stderr).toBe(0);
    const id = t.stdout.trim();
    expect(id).toMatch(/^evt_[A-Za-z0-9]{26}$/);
    expect(t.stderr).toMatch(/Triggered note.ended for Note nt1LaunchPlan in wsProductTeam001/);
    await r.waitFor(1);
    expect(r.received[0].json.id).toBe(id);
    const shown = await runCli(['sandbox', 'events', '--json'], env);
    const [e] = JSON.parse(shown.stdout);
    expect(e).toMatchObject({ id, type: 'note.ended', origin: 'test', deliveries: [{ status: 'delivered', attempts: [{ attempt: 1, status: 200 }] }] });
    await tail.waitFor('out', /"kind":"attempt"/);
    expect(await tail.stop('SIGINT')).toBe(130);
    const followed = ndjson(tail.out());
    expect(followed.map((x) => x.kind)).toEqual(['event', 'attempt']);
    expect(followed[0]).toMatchObject({ id, type: 'note.ended' });
    expect(followed[1]).toMatchObject({ eventId: id, attempt: 1, status: 200, delivery: 'delivered' });
    const bad = await runCli(['sandbox', 'trigger', 'note.exploded'], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/event-type "note\.exploded" is not one of note\.created/);
    const missing = await runCli(['sandbox', 'trigger', 'note.ended', '--note', 'ntNoSuchNote0'], env);
    expect(missing.exitCode).toBe(5);
  });

  it('says so when the base URL is no sandbox', async () => {
    const { createServer } = await import('node:http');
    const service = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404001, errorType: 'not_found', message: 'no route' } }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', () => resolve()));
    closeAtEnd(() => new Promise<void>((resolve) => service.close(() => resolve())));
    const port = (service.address() as import('node:net').AddressInfo).port;
    const other = await runCli(['sandbox', 'events'], { baseUrl: `http://127.0.0.1:${port}` });
    expect(other.exitCode).toBe(5);
    expect(other.stderr).toMatch(/has no sandbox control API: point --base-url \(or NOTEVOX_BASE_URL\) at a `notevox sandbox start`/);
  });
});

describe.concurrent('notevox sandbox start --webhook', { timeout: 90_000 }, () => {
  function startSandbox(args: string[], env: Record<string, string> = {}) {
    const p = spawnNotevox(['sandbox', 'start', '--port', '0', '--json', ...args], env);
    return p.waitFor('out', /^\{.*\}\n/).then((m) => ({ p, info: JSON.parse(m[0]) }));
  }

  it('generates a secret when none is given and prints it once (JSON), never again on a reloaded state', async () => {
    const state = join(dir, 'gen.db');
    const url = 'http://127.0.0.1:9/hooks';
    const a = await startSandbox(['--state', state, '--webhook', url]);
    expect(a.info.webhooks).toEqual([{ id: expect.stringMatching(/^we_/), url, secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/) }]);
    expect(await a.p.stop('SIGTERM')).toBe(0);
    const b = await startSandbox(['--state', state, '--webhook', url]);
    expect(b.info.webhooks).toEqual([{ id: a.info.webhooks[0].id, url }]);
    expect(b.p.out() + b.p.err()).not.toContain(a.info.webhooks[0].secret);
    expect(await b.p.stop('SIGTERM')).toBe(0);
    const bad = await runCli(['sandbox', 'start', '--port', '0', '--webhook', 'ftp://x', '--webhook-pace', '0.5']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--webhook "ftp:\/\/x" must use http or https/);
    // Beyond loopback only with --webhook-allow-host (issue 25 item 3).
    const far = await runCli(['sandbox', 'start', '--port', '0', '--webhook', 'https://hooks.example.test/in']);
    expect(far.exitCode).toBe(2);
    expect(far.stderr).toMatch(/--webhook "https:\/\/hooks\.example\.test\/in" goes to "hooks\.example\.test", beyond loopback: .* unless started with --webhook-allow-host hooks\.example\.test/);
    // Allowed, the first URL passes and the check stops at the next one.
    const allowed = await runCli(['sandbox', 'start', '--port', '0', '--webhook', 'https://hooks.example.test/in', '--webhook-allow-host', 'hooks.example.test', '--webhook', 'http://10.1.2.3/h']);
    expect(allowed.exitCode).toBe(2);
    expect(allowed.stderr).toMatch(/--webhook "http:\/\/10\.1\.2\.3\/h" goes to "10\.1\.2\.3", beyond loopback/);
  });

  it('never shows the webhook secret, the control token or the API key: not in its log (--verbose), the CLI output, --debug traces or the event log', { timeout: 90_000 }, async () => {
    const r = await startReceiver([500, 200]);
    closeAtEnd(() => r.close());
    const webhookSecret = 'whsec_never_shown_0001';
    const controlToken = 'ctl_never_shown_0001';
    writeFileSync(join(dir, 'hook.secret'), webhookSecret);
    writeFileSync(join(dir, 'control.token'), controlToken + '\n');
    const { p, info } = await startSandbox([
      '--verbose', '--webhook', r.url, '--webhook-secret-file', join(dir, 'hook.secret'), '--webhook-pace', '0.02', '--control-token-file', join(dir, 'control.token'),
    ]);
    const env = { baseUrl: info.baseUrl, key: admin, env: { NOTEVOX_SANDBOX_CONTROL_TOKEN: controlToken } };
    const outputs: string[] = [];
    const cli = async (args: string[], o: Parameters<typeof runCli>[1] = env) => {
      const res = await runCli(args, o);
      outputs.push(res.stdout, res.stderr);
      return res;
    };
    expect((await cli(['notes', 'rename', N.launchKickoff, 'Secrets stay secret', '--debug'])).exitCode).toBe(0);
    const t = await cli(['sandbox', 'trigger', 'note.ended', '--note', N.launchKickoff, '--debug']);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/authorization: Bearer \*\*\*\*/);
    expect((await cli(['sandbox', 'live-note', 'start', '--workspace', WS.product, '--paragraphs', '2', '--interval', '0.05', '--debug'])).exitCode).toBe(0);
    await r.waitFor(3);
    await eventually(async () => {
      const res = await fetch(`${info.baseUrl}/_sandbox/events?tail=100`, { headers: { authorization: `Bearer ${controlToken}` } });
      const all = ((await res.json()) as any).content;
      return all.length >= 6 && all.every((e: any) => e.deliveries.every((d: any) => d.status !== 'pending'));
    });
    const shown = await cli(['sandbox', 'events', '--json', '--debug', '--limit', '100']);
    const log = JSON.parse(shown.stdout);
    expect(log.length).toBeGreaterThanOrEqual(6);
    // Without the token: refused, and said how to pass it.
    const refused = await cli(['sandbox', 'events'], { baseUrl: info.baseUrl });
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toMatch(/--control-token-file or NOTEVOX_SANDBOX_CONTROL_TOKEN/);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(p.err()).toMatch(/attempt 1\/6: 500/);
    const everything = [...outputs, p.err(), JSON.stringify(log)].join('\n');
    for (const secret of [webhookSecret, controlToken, DEMO_KEYS.admin.secret]) expect(everything).not.toContain(secret);
    // The start-up summary prints the seeded demo keys (public values), but neither of the other two.
    for (const secret of [webhookSecret, controlToken]) expect(p.out()).not.toContain(secret);
    expect(r.received[0].headers.authorization).toBe(`Bearer ${webhookSecret}`);
  });

  it('delivers after a SIGKILL and a restart on the same --state what was pending at the kill', async () => {
    const state = join(dir, 'kill.db');
    const secretFile = join(dir, 'whsec.txt');
    writeFileSync(secretFile, 'whsec_survives_kill_01\n');
    const port = await deadPort();
    const url = `http://127.0.0.1:${port}/hooks`;
    // Pace 0.2: the first retry comes 3 s after the failed first attempt.
    const args = ['--state', state, '--webhook', url, '--webhook-secret-file', secretFile, '--webhook-pace', '0.2'];
    const a = await startSandbox(args);
    expect(a.info.webhooks).toEqual([{ id: expect.any(String), url }]);
    const control = (path: string, init?: RequestInit) => fetch(a.info.baseUrl + '/_sandbox' + path, init).then((r) => r.json() as Promise<any>);
    const fired = await control('/events', { method: 'POST', body: JSON.stringify({ type: 'note.ended', noteGuid: N.launchKickoff }), headers: { 'content-type': 'application/json' } });
    // What the control API shows is on disk when it answers (docs/sandbox.md, State file): the failed attempt too.
    await eventually(async () => (await control('/events')).content[0].deliveries[0].attempts.length === 1, 20_000, 'the failed first attempt');
    expect(await a.p.stop('SIGKILL')).toBe(null);

    // Now someone listens on the endpoint's port, and the sandbox comes back on the same state and flags.
    const r = await startReceiver([200], port);
    closeAtEnd(() => r.close());
    const b = await startSandbox(args);
    expect(b.info.webhooks).toEqual([{ id: a.info.webhooks[0].id, url }]);
    const [got] = await r.waitFor(1);
    expect(got.json.id).toBe(fired.id);
    expect(got.headers.authorization).toBe('Bearer whsec_survives_kill_01');
    expect(got.headers['x-notevox-delivery-attempt']).toBe('2');
    const log = await fetch(b.info.baseUrl + '/_sandbox/events').then((x) => x.json() as Promise<any>);
    await eventually(async () => {
      const e = (await fetch(b.info.baseUrl + '/_sandbox/events').then((x) => x.json() as Promise<any>)).content[0];
      return e.deliveries[0].status === 'delivered' ? e : undefined;
    });
    expect(log.content).toHaveLength(1);
    expect(await b.p.stop('SIGTERM')).toBe(0);
  });
});
