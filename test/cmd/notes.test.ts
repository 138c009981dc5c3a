import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_NOTES, DEMO_TEMPLATES } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

type Sandbox = Awaited<ReturnType<typeof commandSandbox>>;
const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);
const N = DEMO_NOTES;

describe('notes sub-resource commands', () => {
  let sb: Sandbox;
  const tmp = tempConfigDir();
  beforeAll(async () => {
    sb = await commandSandbox();
  });
  afterAll(async () => {
    await sb.close();
    tmp.cleanup();
  });

  const cli = (args: string[], key = ADMIN) => runCommand(args, { sandbox: sb, key, configDir: tmp.dir, env: { COLUMNS: '220' } });
  const ok = async (args: string[], key = ADMIN) => {
    const r = await cli(args, key);
    expect(r.exitCode, r.stderr).toBe(0);
    return r;
  };
  const json = async (args: string[], key = ADMIN) => JSON.parse((await ok([...args, '--json'], key)).stdout);
  const requests = () => sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;
  /** Run, expecting a failure before any request reaches the service; the message names the rule. */
  async function rejectedLocally(args: string[], exitCode: number, message: RegExp) {
    const before = requests();
    const r = await cli(args);
    expect(r.exitCode, r.stderr).toBe(exitCode);
    expect(r.stderr).toMatch(message);
    expect(requests()).toBe(before);
  }
  const file = (name: string) => join(tmp.dir, name);

  describe('search', () => {
    it('prints a table with the first snippet, and says the all-workspace path is deprecated', async () => {
      const r = await ok(['notes', 'search', 'relocation budget', '-o', 'table']);
      expect(r.stdout).toMatch(/^GUID\s+TITLE\s+CREATED\s+SNIPPET/);
      expect(r.stdout).toMatch(new RegExp(`${N.leadershipSync}\\s+Leadership sync: 2027 hiring plan\\s+.*relocation budget`));
      expect(r.stderr).toMatch(/deprecated.*--workspace/);
      const ws = await ok(['notes', 'search', 'harbor', '--workspace', 'Product Team', '-o', 'table']);
      expect(ws.stderr).not.toMatch(/deprecated/);
      expect(ws.stdout).toContain(N.harborInterview);
    });
    it('prints the API response as JSON, filtered by dates and size', async () => {
      const body = await json(['notes', 'search', 'the', '--workspace', 'wsProductTeam001', '--from', '2026-10-20', '--to', '2026-10-22', '--size', '5']);
      expect(body).toMatchObject({ nextCursor: null, degraded: false, degradedReason: null });
      expect(body.notes.map((n: any) => n.guid).sort()).toEqual([N.designCritique, N.roadmapReview].sort());
      expect(body.notes[0].matchedSnippets.length).toBeGreaterThan(0);
      expect(Array.isArray(body.notes[0].documents)).toBe(true);
    });
    it('rejects bad input before any request', async () => {
      await rejectedLocally(['notes', 'search', 'x', '--size', '31'], 2, /--size "31".*\n.*1 to 30/);
      await rejectedLocally(['notes', 'search', 'x', '--from', '2026-02-30'], 2, /--from "2026-02-30" is not an ISO 8601 date/);
      await rejectedLocally(['notes', 'search', 'x', '--from', '2026-10-05', '--to', '2026-10-01'], 2, /after --to/);
      await rejectedLocally(['notes', 'search', 'x', '--folder', 'roadmap'], 2, /not a folder id/);
    });
    it('warns on stderr when the service answers degraded', async () => {
      const faulty = await commandSandbox({ faults: 'degraded=1@/notes/search', faultSeed: 3 });
      try {
        const r = await runCommand(['notes', 'search', 'launch', '--workspace', 'wsProductTeam001', '--json'], { sandbox: faulty, key: ADMIN, configDir: tmp.dir });
        expect(r.exitCode).toBe(0);
        expect(r.stderr).toMatch(/warning: the search answered degraded: document index unavailable/);
        expect(JSON.parse(r.stdout).degraded).toBe(true);
      } finally {
        await faulty.close();
      }
    });
  });

  describe('paragraphs and folders', () => {
    it('pages paragraphs as a table and says how to continue', async () => {
      const r = await ok(['notes', 'paragraphs', N.launchKickoff, '--limit', '3', '-o', 'table']);
      expect(r.stdout).toMatch(/^ID\s+FROM \(UTC\)\s+TO\s+SPEAKER\s+TEXT/);
      expect(r.stdout).toMatch(/14:00:00\s+14:00:17\s+Marco Reyes\s+Let's start/);
      expect(r.stdout.trim().split('\n')).toHaveLength(4);
      expect(r.stderr).toMatch(/Showing 3 paragraphs.*--cursor \S+/);
    });
    it('--plain --all prints the transcript text only, one paragraph per line', async () => {
      const all = await json(['notes', 'paragraphs', N.launchKickoff, '--all']);
      expect(all).toHaveLength(32);
      const plain = await ok(['notes', 'paragraphs', N.launchKickoff, '--all', '--plain']);
      expect(plain.stdout.trimEnd().split('\n')).toEqual(all.map((p: any) => p.transcript.content));
      expect(plain.stderr).toBe('');
    });
    it('shows the speakers of a paragraph split by speaker and marks a locked one (table, --plain, export)', async () => {
      const rows = await json(['notes', 'paragraphs', N.designCritique, '--all']);
      const split = rows[2];
      expect(split.diarizedSegments.map((d: any) => d.speaker)).toEqual([{ label: 'SPEAKER_1', personName: 'Marco Reyes' }, { label: 'SPEAKER_2', personName: null }]);
      expect(rows[17]).toMatchObject({ locked: true, diarizedSegments: [], transcript: { content: '' } });
      const table = await ok(['notes', 'paragraphs', N.designCritique, '--all', '-o', 'table'], token(DEMO_KEYS.wsAdmin));
      expect(table.stdout).toMatch(new RegExp(`${split.id}\\s+\\S+\\s+\\S+\\s+Marco Reyes, SPEAKER_2\\s+`));
      expect(table.stdout).toMatch(new RegExp(`${rows[17].id}\\s+\\S+\\s+\\S+\\s+Sam Ortiz\\s+\\[locked: hidden by your plan\\]`));
      const plain = await ok(['notes', 'paragraphs', N.designCritique, '--all', '--plain']);
      expect(plain.stdout.trimEnd().split('\n').at(-1)).toBe('[locked: hidden by your plan]');
      const md = await ok(['notes', 'export', N.designCritique]);
      expect(md.stdout).toContain(`Marco Reyes: ${split.diarizedSegments[0].content} SPEAKER_2: ${split.diarizedSegments[1].content}`);
      expect(md.stdout).toContain('_[locked: hidden by your plan]_');
    });
    it("shows a note's folders from the root down", async () => {
      const r = await ok(['notes', 'folders', N.harborInterview, '-o', 'table']);
      expect(r.stdout).toMatch(/^ID\s+TITLE\s+SHARING\s+PARENT\s+WORKSPACE/);
      expect(r.stdout).toMatch(/17\s+Dana's Drafts\s+PRIVATE\s+-/);
      expect(r.stdout).toMatch(/18\s+Customer Interviews\s+ALL_MEMBER_VIEWER\s+17/);
      const system = await json(['notes', 'folders', N.harborInterview], token(DEMO_KEYS.workspaceKey));
      expect(system).toEqual([expect.objectContaining({ id: '18', parentId: null })]);
    });
    it('validates the guid before any request (2) and maps 404 to exit 5', async () => {
      await rejectedLocally(['notes', 'paragraphs', 'not-a-guid'], 2, /"not-a-guid" is not a note guid/);
      const hidden = await cli(['notes', 'paragraphs', N.leadershipSync], token(DEMO_KEYS.workspaceKey));
      expect(hidden.exitCode).toBe(5);
    });
  });

  describe('share links', () => {
    it('adds a password to the existing link (same URL), prints it once to stdout, and never stores it', async () => {
      const before = await json(['notes', 'share-link', 'get', N.designCritique]);
      expect(before.hasPassword).toBe(false);
      const created = await cli(['notes', 'share-link', 'create', N.designCritique, '--password', '--json']);
      expect(created.exitCode, created.stderr).toBe(0);
      const link = JSON.parse(created.stdout);
      expect(link).toMatchObject({ shareId: before.shareId, shareUrl: before.shareUrl, hasPassword: true });
      expect(link.sharePassword).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(created.stderr).toMatch(/shown only this once/);
      const again = await json(['notes', 'share-link', 'get', N.designCritique]);
      expect(again).toMatchObject({ shareId: link.shareId, hasPassword: true });
      expect(again.sharePassword).toBeUndefined();
      const stored = existsSync(tmp.dir) ? readdirSync(tmp.dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];
      for (const e of stored) expect(readFileSync(join(e.parentPath, e.name), 'utf8')).not.toContain(link.sharePassword);
      // asked again: the link is kept and reported, no new password
      const kept = await ok(['notes', 'share-link', 'create', N.designCritique, '--password', '-o', 'table']);
      expect(kept.stdout).toMatch(new RegExp(`SHARE ID\\s+${link.shareId}`));
      expect(kept.stdout).not.toMatch(/^PASSWORD\s+[A-Za-z0-9]{16}$/m);
      expect(kept.stderr).toMatch(/already has a share link, password-protected.*kept it\. Use --rotate for a new link and a new password/);
      // --rotate: a new link with a new password
      const rotated = await ok(['notes', 'share-link', 'create', N.designCritique, '--password', '--rotate', '-o', 'table']);
      expect(rotated.stdout).toMatch(/^PASSWORD\s+[A-Za-z0-9]{16}$/m);
      expect(rotated.stdout).not.toContain(link.shareId);
      expect(rotated.stderr).toMatch(/Deleted the old share link/);
    });
    it('keeps a link without --rotate, makes a new one with it, deletes it, then get is exit 5', async () => {
      const table = await ok(['notes', 'share-link', 'get', N.designCritique, '-o', 'table']);
      expect(table.stdout).toMatch(/URL\s+https:\/\/\S+\/share\//);
      expect(table.stdout).toMatch(/PASSWORD PROTECTED\s+yes/);
      const before = await json(['notes', 'share-link', 'get', N.designCritique]);
      const kept = await json(['notes', 'share-link', 'create', N.designCritique]);
      expect(kept).toEqual(before);
      const plain = await ok(['notes', 'share-link', 'create', N.designCritique, '--rotate', '-o', 'table']);
      expect(plain.stdout).toMatch(/PASSWORD PROTECTED\s+no/);
      expect(plain.stdout).not.toMatch(/^PASSWORD\s+[A-Za-z0-9]{16}$/m);
      expect(plain.stdout).not.toContain(before.shareId);
      const del = await ok(['notes', 'share-link', 'delete', N.designCritique]);
      expect(del.stderr).toMatch(/Deleted the share link/);
      expect((await cli(['notes', 'share-link', 'get', N.designCritique])).exitCode).toBe(5);
      // --json: the result as an object, as every write command prints it (issue 13 item 7)
      await ok(['notes', 'share-link', 'create', N.designCritique]);
      expect(await json(['notes', 'share-link', 'delete', N.designCritique])).toEqual({ noteGuid: N.designCritique, deleted: true });
      const fresh = await ok(['notes', 'share-link', 'create', N.designCritique, '--json']);
      expect(JSON.parse(fresh.stdout)).toMatchObject({ hasPassword: false });
      expect(fresh.stderr).not.toMatch(/kept it/);
    });
    it('is exit 4 without edit rights on the note', async () => {
      const r = await cli(['notes', 'share-link', 'create', N.leadershipSync], token(DEMO_KEYS.member));
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toMatch(/403003|forbidden/);
    });
  });

  describe('documents', () => {
    it('lists documents (table and JSON)', async () => {
      const table = await ok(['notes', 'documents', 'list', N.launchKickoff, '-o', 'table']);
      expect(table.stdout).toMatch(/^ID\s+TEMPLATE\s+TEMPLATE ID\s+LOCALE\s+CREATED/);
      expect(table.stdout).toMatch(/Meeting minutes\s+2\s+en_US/);
      const list = await json(['notes', 'documents', 'list', N.launchKickoff]);
      expect(list.map((d: any) => d.template.title)).toEqual(expect.arrayContaining(['One-pager', 'Meeting minutes']));
    });
    it('prints a document as Markdown text, writes HTML and JSON files', async () => {
      const id = (await json(['notes', 'documents', 'list', N.launchKickoff])).find((d: any) => d.template.title === 'One-pager' && d.locale === 'en_US').id;
      const md = await ok(['notes', 'documents', 'get', N.launchKickoff, String(id)]);
      expect(md.stdout).toMatch(/^## Overview\n\nKickoff of the Q1 2027 launch/);
      expect(md.stdout).toContain('\n\n## Key points\n');
      const html = await ok(['notes', 'documents', 'get', N.launchKickoff, String(id), '--format', 'html', '--out', file('doc.html')]);
      expect(html.stdout).toBe('');
      expect(html.stderr).toMatch(/Wrote document \d+ \(html\) to .*doc\.html/);
      expect(readFileSync(file('doc.html'), 'utf8')).toMatch(/^<h2>Overview<\/h2>\n<p>Kickoff/);
      await ok(['notes', 'documents', 'get', N.launchKickoff, String(id), '--format', 'json', '--out', file('doc.json')]);
      const doc = JSON.parse(readFileSync(file('doc.json'), 'utf8'));
      expect(doc).toMatchObject({ id, template: { title: 'One-pager' } });
      expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      const asJson = await json(['notes', 'documents', 'get', N.launchKickoff, String(id), '--format', 'html']);
      expect(asJson.sections[0].content.type).toBe('text/html');
    });
    it('document errors: bad id (2), unknown (5), missing --out directory (2)', async () => {
      await rejectedLocally(['notes', 'documents', 'get', N.launchKickoff, 'abc'], 2, /documentId "abc" is not a document id/);
      await rejectedLocally(['notes', 'documents', 'get', N.launchKickoff, '1', '--out', file('missing/dir/doc.md')], 2, /directory .* does not exist/);
      expect((await cli(['notes', 'documents', 'get', N.launchKickoff, '99999'])).exitCode).toBe(5);
    });
    it('generates a document; without --template and no terminal it exits 10 naming the flag', async () => {
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--locale', 'en_US'], 10, /hint: Pass --template ID/);
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1'], 10, /hint: Pass --locale/);
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1', '--locale', 'en-US'], 2, /not a locale of the form ll_CC/);
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1', '--locale', 'pt_BR'], 2, /not a document locale/);
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', 'one', '--locale', 'en_US'], 2, /--template "one" is not a template id/);
      const out = await json(['notes', 'documents', 'generate', N.launchKickoff, '--template', String(DEMO_TEMPLATES.onePager), '--locale', 'fr_FR']);
      expect(out.document).toMatchObject({ locale: 'fr_FR', template: { id: DEMO_TEMPLATES.onePager } });
      const table = await ok(['notes', 'documents', 'generate', N.launchKickoff, '--template', String(DEMO_TEMPLATES.meetingMinutes), '--locale', 'en_US', '-o', 'table']);
      expect(table.stdout).toMatch(/TEMPLATE\s+Meeting minutes/);
      expect(table.stderr).toMatch(/Generated document \d+ from "Meeting minutes"/);
    });
    it('generate --out writes the new document in --format; --format alone is exit 2 before any request', async () => {
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1', '--locale', 'en_US', '--format', 'html'], 2, /--format needs --out/);
      await rejectedLocally(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1', '--locale', 'en_US', '--out', file('nope/doc.md')], 2, /directory .* does not exist/);
      const html = await ok(['notes', 'documents', 'generate', N.launchKickoff, '--template', String(DEMO_TEMPLATES.onePager), '--locale', 'en_US', '--format', 'html', '--out', file('gen.html'), '--json']);
      const id = JSON.parse(html.stdout).documentId;
      expect(html.stderr).toMatch(new RegExp(`Wrote document ${id} \\(html\\) to .*gen\\.html`));
      expect(readFileSync(file('gen.html'), 'utf8')).toMatch(/^<h2>Overview<\/h2>\n<blockquote>/);
      await ok(['notes', 'documents', 'generate', N.launchKickoff, '--template', String(DEMO_TEMPLATES.onePager), '--locale', 'en_US', '--out', file('gen.md')]);
      expect(readFileSync(file('gen.md'), 'utf8')).toMatch(/^## Overview\n\n> Sandbox output/);
    });
    it('generation is exit 4 for a template the caller may not use and for a workspace key', async () => {
      const r = await cli(['notes', 'documents', 'generate', N.launchKickoff, '--template', String(DEMO_TEMPLATES.interviewDebrief), '--locale', 'en_US'], token(DEMO_KEYS.wsAdmin));
      expect(r.exitCode).toBe(4);
      const ws = await cli(['notes', 'documents', 'generate', N.launchKickoff, '--template', '1', '--locale', 'en_US'], token(DEMO_KEYS.workspaceKey));
      expect(ws.exitCode).toBe(4);
    });
  });

  describe('summaries', () => {
    it('lists summaries (table and JSON) and prints the newest one by default', async () => {
      const table = await ok(['notes', 'summaries', 'list', N.launchKickoff, '-o', 'table']);
      expect(table.stdout).toMatch(/^ID\s+TEMPLATE\s+LOCALE\s+CREATED/);
      expect(table.stdout).toMatch(/-\s+en_US/);
      const list = await json(['notes', 'summaries', 'list', N.launchKickoff]);
      expect(list).toHaveLength(2);
      const latest = await ok(['notes', 'summaries', 'get', N.launchKickoff]);
      expect(latest.stdout).toMatch(/^## 요약/);
    });
    it('writes a plain-text summary to a file; JSON is the summary object', async () => {
      const id = (await json(['notes', 'summaries', 'list', N.launchKickoff])).find((s: any) => s.locale === 'en_US').id;
      await ok(['notes', 'summaries', 'get', N.launchKickoff, String(id), '--format', 'plain', '--out', file('summary.txt')]);
      const text = readFileSync(file('summary.txt'), 'utf8');
      expect(text).toMatch(/^Summary\n\nThe team set the Q1 launch scope/);
      expect(text).not.toContain('#');
      const obj = await json(['notes', 'summaries', 'get', N.launchKickoff, String(id)]);
      expect(obj.content.type).toBe('text/markdown');
      // the API's names for the formats work as well
      expect((await json(['notes', 'summaries', 'get', N.launchKickoff, String(id), '--format', 'text/plain'])).content.type).toBe('text/plain');
    });
    it('a note without summaries is exit 5', async () => {
      const r = await cli(['notes', 'summaries', 'get', N.designCritique]);
      expect(r.exitCode).toBe(5);
      expect(r.stderr).toMatch(/has no summaries/);
    });
  });

  describe('export', () => {
    it('writes one Markdown file with metadata, participants, summary and the timed transcript', async () => {
      const r = await ok(['notes', 'export', N.launchKickoff, '--out', file('launch.md')]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/Wrote note nt1LaunchPlan \(32 paragraphs, markdown\)/);
      const md = readFileSync(file('launch.md'), 'utf8');
      expect(md).toMatch(/^# Q1 2027 launch plan kickoff\n/);
      for (const line of [
        `- **GUID:** ${N.launchKickoff}`,
        '- **Created:** 2026-10-27T14:00:00.000Z',
        '- **Source:** live-voice',
        '- **Duration:** 00:07:18',
        '- **Locale:** en_US (translated to ko_KR)',
        '- **Workspace:** wsProductTeam001',
        `- **URL:** https://app.notevox.example/notes/${N.launchKickoff}`,
        '## Participants\n\n- Marco Reyes <marco.reyes@northwind.example>',
        // The summary in the note's language (en_US), not the newer Korean one (issue 29 item 3).
        '## Summary\n\n### Summary\n\nThe team set the Q1 launch scope',
        "## Transcript\n\n[00:00:00–00:00:17] Marco Reyes: Let's start with where we are on the Q1 launch.",
      ])
        expect(md).toContain(line);
      expect(md.match(/^\[\d\d:\d\d:\d\d–\d\d:\d\d:\d\d\] /gm)).toHaveLength(32);
    });
    it('prints to stdout without --out, and --format json writes one JSON document', async () => {
      const text = await ok(['notes', 'export', N.competitorTeardown], token(DEMO_KEYS.member));
      expect(text.stdout).toMatch(/^# Competitor teardown: Loomly pricing page\n/);
      expect(text.stdout).toContain('- **Duration:** n/a (not a recording)');
      expect(text.stdout).toContain('## Summary\n\n_No summary._');
      await ok(['notes', 'export', N.launchKickoff, '--format', 'json', '--out', file('launch.json')]);
      const doc = JSON.parse(readFileSync(file('launch.json'), 'utf8'));
      expect(Object.keys(doc)).toEqual(['note', 'participants', 'summary', 'paragraphs']);
      expect(doc.paragraphs).toHaveLength(32);
      expect(doc.participants).toHaveLength(4);
      expect(doc.summary.content.type).toBe('text/markdown');
    });
    it('leaves the summary out with a warning when the key may not read summaries', async () => {
      const r = await ok(['notes', 'export', N.launchKickoff], token(DEMO_KEYS.noteReadOnly));
      expect(r.stderr).toMatch(/warning: the summary is left out: .*note_summary:read/);
      expect(r.stdout).toContain('_No summary._');
    });
    it('bad guid (2) and an out-of-scope note (5)', async () => {
      await rejectedLocally(['notes', 'export', 'nt1', '--out', file('x.md')], 2, /is not a note guid/);
      expect((await cli(['notes', 'export', N.oneOnOnePrep], token(DEMO_KEYS.orgKey))).exitCode).toBe(5);
      expect(existsSync(file('x.md'))).toBe(false);
    });
  });
});
