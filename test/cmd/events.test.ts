import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_NOTES as N, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { commandSandbox, runCommand, type RunOptions } from '../helpers/run-command.js';

/**
 * sandbox trigger, events and live-note start, and notes paragraphs --follow, in-process against the sandbox's app
 * (its control API included). Delivery to real receivers, Ctrl-C and the tail's streaming are e2e (test/e2e/events.test.ts).
 */

let sb: Awaited<ReturnType<typeof commandSandbox>>;
beforeAll(async () => {
  sb = await commandSandbox();
});
afterAll(async () => {
  await sb.close();
});
const cli = (argv: string[], o: RunOptions = {}) => runCommand(argv, { sandbox: sb, key: 'admin', ...o });
const ndjson = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('the sandbox control API from the CLI', () => {
  it('trigger fires a test event and events lists it; bad types and unknown notes are refused', async () => {
    const t = await cli(['sandbox', 'trigger', 'note.ended', '--note', N.launchKickoff]);
    expect(t.exitCode, t.stderr).toBe(0);
    const id = t.stdout.trim();
    expect(id).toMatch(/^evt_[A-Za-z0-9]{26}$/);
    expect(t.stderr).toMatch(/Triggered note.ended for Note nt1LaunchPlan in wsProductTeam001/);
    expect(t.stderr).toMatch(/no webhook endpoint receives it/);

    const shown = await cli(['sandbox', 'events', '--json', '--type', 'note.ended']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).map((e: any) => e.id)).toContain(id);
    const table = await cli(['sandbox', 'events', '--limit', '5']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toContain(id);

    const bad = await cli(['sandbox', 'trigger', 'note.exploded']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/event-type "note\.exploded" is not one of note\.created/);
    expect((await cli(['sandbox', 'trigger', 'note.ended', '--note', 'ntNoSuchNote0'])).exitCode).toBe(5);
    expect((await cli(['sandbox', 'events', '--limit', '1001'])).exitCode).toBe(2);
  });

  it('event type lists (sandbox events --type, webhooks listen --events) are checked item by item before anything runs', async () => {
    const ids: string[] = [];
    for (const type of ['note.ended', 'note.deleted', 'note.created']) ids.push((await cli(['sandbox', 'trigger', type, '--note', N.launchKickoff])).stdout.trim());
    const both = await cli(['sandbox', 'events', '--json', '--limit', '1000', '--type', 'NOTE.ENDED, note.deleted']);
    expect(both.exitCode, both.stderr).toBe(0);
    const shown = JSON.parse(both.stdout) as Array<{ id: string; type: string }>;
    expect(new Set(shown.map((e) => e.type))).toEqual(new Set(['note.ended', 'note.deleted']));
    expect(shown.map((e) => e.id)).toEqual(expect.arrayContaining(ids.slice(0, 2)));
    expect(shown.map((e) => e.id)).not.toContain(ids[2]);
    for (const argv of [
      ['sandbox', 'events', '--type', 'note.ended,note.endd'],
      ['webhooks', 'listen', '--events', 'note.endd', '--port', '0'],
    ]) {
      const bad = await cli(argv);
      expect(bad.exitCode, argv.join(' ')).toBe(2);
      expect(bad.stderr).toMatch(/"note\.endd" is not one of note\.created, note\.deleted/);
      expect(bad.stdout).toBe('');
    }
    const empty = await cli(['webhooks', 'listen', '--events', ',', '--port', '0']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/names nothing/);
    expect(empty.stderr).toContain('docs/events.md lists the event types.');
  });

  it('a live note started from the CLI is tailed by --follow: every paragraph once, exit 0 when the recording ends', async () => {
    const started = await cli(['sandbox', 'live-note', 'start', '--workspace', 'Product Team', '--paragraphs', '4', '--interval', '0.05', '--stops', '2']);
    expect(started.exitCode, started.stderr).toBe(0);
    const guid = started.stdout.trim();
    expect(guid).toMatch(/^[A-Za-z0-9]{13}$/);
    expect(started.stderr).toContain(`notevox notes paragraphs ${guid} --follow`);
    const follow = await cli(['notes', 'paragraphs', guid, '--follow', '-o', 'ndjson']);
    expect(follow.exitCode, follow.stderr).toBe(0);
    expect(ndjson(follow.stdout).map((p) => p.id)).toHaveLength(4);
    expect(follow.stderr).toMatch(/Recording ended at \S+: 4 paragraphs\./);
    const types = JSON.parse((await cli(['sandbox', 'events', '--json', '--limit', '1000'])).stdout)
      .filter((e: any) => e.resourceId === guid)
      .map((e: any) => e.type);
    // a recording stops after paragraph 2 and at the end
    expect(types).toEqual(['note.created', 'note.recording.completed', 'note.recording.completed', 'note.ended']);
  });

  it('--follow on a note that is not recording prints it and exits 0 at once; --plain and a table work too', async () => {
    const plain = await cli(['notes', 'paragraphs', N.launchKickoff, '--follow', '--plain']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout.trim().split('\n').length).toBeGreaterThan(1);
    // On a terminal a line per paragraph, as it comes; piped, the table's rows (tab-separated).
    const lines = await cli(['notes', 'paragraphs', N.launchKickoff, '--follow'], { tty: true });
    expect(lines.exitCode).toBe(0);
    expect(lines.stdout).toMatch(/^\[\d\d:\d\d\] /m);
    const json = await cli(['sandbox', 'live-note', 'start', '--workspace', WS.product, '--paragraphs', '1', '--interval', '0.05', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ guid: expect.any(String) });
  });
});
