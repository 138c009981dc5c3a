import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FOLDERS, DEMO_KEYS, DEMO_NOTES, DEMO_TEMPLATES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { writeSpeechLikeWav } from '../helpers/audio.js';
import { startBadServer, type BadServer } from '../helpers/bad-server.js';
import { runCliInProcess } from '../helpers/run-command.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';

/**
 * Issue 25 item 4: a key that a server echoes in a 200 body is masked in every renderer's output (table, json,
 * ndjson, csv, tsv, text, srt) and in files written with --out, for every command that prints server data. The
 * echoing server sits in front of a real sandbox: every JSON 200 answer comes back with the key the request
 * sent (its Authorization header) appended to each free-text field (titles, names, contents, transcripts: the
 * default columns and texts) and added to each object as `echoedKey`. Text fields are long enough that a table cuts
 * them through the key: a key cut short by `…` must not show its first characters either.
 */

const t = useSandboxEnv('redaction-everywhere', { options: { jobSeconds: 0.02 } });
const FREE_TEXT = new Set(['title', 'name', 'content', 'text', 'entry', 'subEntry', 'description', 'email', 'speaker', 'speakerLabel', 'canonicalName', 'snippet', 'summary', 'templateTitle', 'label', 'displayName']);

function echoInto(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((v) => echoInto(v, key));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'string' && FREE_TEXT.has(k) ? `${v} (echo ${key})` : echoInto(v, key);
  return { ...out, echoedKey: key };
}

let echo: BadServer;
let dir: string;
let jobId: string;
let documentId: string;
let wmId: string;

beforeAll(async () => {
  echo = await startBadServer(
    t.sb.baseUrl,
    () => undefined,
    (req, up) => {
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!key || up.status !== 200 || !up.type.includes('json')) return undefined;
      return Buffer.from(JSON.stringify(echoInto(JSON.parse(up.body.toString('utf8')), key)));
    },
  );
  dir = join(t.dir, 'out');
  mkdirSync(dir);
  // A finished voice job to read back (uploaded straight to the sandbox).
  const wav = join(t.dir, 'speech.wav');
  writeSpeechLikeWav(wav);
  const up = await runCliInProcess(['voice', 'upload', wav, '--translate', 'ko_KR', '--summary', '--json'], { baseUrl: t.sb.baseUrl, key: DEMO_KEYS.workspaceKey.token, configDir: t.config.dir });
  expect(up.exitCode, up.stderr).toBe(0);
  jobId = JSON.parse(up.stdout).jobId;
  // A document, a share link and a word memory to read back (made, and looked up, straight at the sandbox).
  const direct = (args: string[]) => runCliInProcess(args, { baseUrl: t.sb.baseUrl, key: DEMO_KEYS.admin.token, configDir: t.config.dir });
  const doc = await direct(['notes', 'documents', 'generate', N, '--template', String(DEMO_TEMPLATES.onePager), '--locale', 'en_US', '--json']);
  expect(doc.exitCode, doc.stderr).toBe(0);
  documentId = String(JSON.parse(doc.stdout).documentId);
  expect((await direct(['notes', 'share-link', 'create', N])).exitCode).toBe(0);
  wmId = String(JSON.parse((await direct(['wm', 'list', '--json'])).stdout)[0].id);
});
afterAll(async () => {
  await echo?.close();
});

const N = DEMO_NOTES.launchKickoff;
const PRODUCT = ['--workspace', DEMO_WORKSPACES.product];
const FORMATS = [[], ['-o', 'table'], ['-o', 'json'], ['-o', 'ndjson'], ['-o', 'csv'], ['-o', 'tsv']];
const VOICE = DEMO_KEYS.workspaceKey;

/** Commands printing server data through the renderers, each run in every format. */
const RENDERED: Array<[string, string[], typeof VOICE?]> = [
  ['notes list', ['notes', 'list']],
  ['notes get', ['notes', 'get', N]],
  ['notes search', ['notes', 'search', 'launch', ...PRODUCT]],
  ['notes paragraphs', ['notes', 'paragraphs', N]],
  ['notes folders', ['notes', 'folders', N]],
  ['notes documents list', ['notes', 'documents', 'list', N]],
  ['notes share-link get', ['notes', 'share-link', 'get', N]],
  ['wm get', ['wm', 'get', '<wm>']],
  ['notes summaries list', ['notes', 'summaries', 'list', N]],
  ['folders list', ['folders', 'list', ...PRODUCT]],
  ['folders get', ['folders', 'get', String(DEMO_FOLDERS.roadmap)]],
  ['templates list', ['templates', 'list']],
  ['templates get', ['templates', 'get', String(DEMO_TEMPLATES.onePager)]],
  ['wm list', ['wm', 'list']],
  ['workspaces list', ['workspaces', 'list']],
  ['workspaces get', ['workspaces', 'get', DEMO_WORKSPACES.product]],
  ['org show', ['org', 'show']],
  ['wiki pages', ['wiki', 'pages', ...PRODUCT]],
  ['wiki page', ['wiki', 'page', DEMO_WIKI_PAGES.q1Launch, ...PRODUCT]],
  ['wiki mentions', ['wiki', 'mentions', DEMO_WIKI_PAGES.q1Launch, ...PRODUCT]],
  ['wiki search', ['wiki', 'search', 'launch', ...PRODUCT]],
  ['auth status', ['auth', 'status']],
  ['api', ['api', 'notes']],
  ['voice status', ['voice', 'status', '<job>'], VOICE],
  ['voice translations', ['voice', 'translations', '<job>'], VOICE],
];

/** Commands printing text (documents, summaries, transcripts, exports) in their text formats. */
const TEXTS: Array<[string, string[], typeof VOICE?]> = [
  ['notes paragraphs --plain', ['notes', 'paragraphs', N, '--plain']],
  ['notes documents get', ['notes', 'documents', 'get', N, '<doc>']],
  ['notes documents get html', ['notes', 'documents', 'get', N, '<doc>', '--format', 'html']],
  ['folders list --tree', ['folders', 'list', ...PRODUCT, '--tree']],
  ['notes summaries get', ['notes', 'summaries', 'get', N]],
  ['notes summaries get plain', ['notes', 'summaries', 'get', N, '--format', 'plain']],
  ['notes export', ['notes', 'export', N]],
  ['notes export json', ['notes', 'export', N, '--format', 'json']],
  ['wm export csv', ['wm', 'export']],
  ['wm export ndjson', ['wm', 'export', '-o', 'ndjson']],
  ['wm export json', ['wm', 'export', '-o', 'json']],
  ['voice transcript', ['voice', 'transcript', '<job>'], VOICE],
  ['voice transcript srt', ['voice', 'transcript', '<job>', '--format', 'srt'], VOICE],
  ['voice transcript json', ['voice', 'transcript', '<job>', '--json'], VOICE],
  ['voice translation', ['voice', 'translation', '<job>', 'ko_KR'], VOICE],
  ['voice summary', ['voice', 'summary', '<job>'], VOICE],
];

function run(args: string[], key = DEMO_KEYS.admin) {
  return runCliInProcess(
    args.map((a) => ({ '<job>': jobId, '<doc>': documentId, '<wm>': wmId })[a] ?? a),
    { baseUrl: echo.baseUrl, key: key.token, configDir: t.config.dir, env: { COLUMNS: '100' } },
  );
}

/** Nothing of the secret: not whole, and not its first characters (a table cell cut through the key). */
function expectMasked(text: string, key: typeof VOICE, what: string): void {
  expect(text, what).not.toContain(key.secret);
  expect(text, what).not.toContain(key.secret.slice(0, 8));
}

describe('a key echoed by the server is masked in every renderer', () => {
  it.each(RENDERED)('%s, in every format', async (_name, args, key = DEMO_KEYS.admin) => {
    for (const format of FORMATS) {
      const r = await run([...args, ...format], key);
      const what = `${args.join(' ')} ${format.join(' ')}`;
      expect(r.exitCode, `${what}: ${r.stderr}`).toBe(0);
      expectMasked(r.stdout + r.stderr, key, what);
      // The echo came through: it is there, masked.
      if (format[1] === 'json' || format[1] === 'ndjson') expect(r.stdout, what).toContain('****');
    }
  });

  it.each(TEXTS)('%s', async (_name, args, key = DEMO_KEYS.admin) => {
    const r = await run(args, key);
    expect(r.exitCode, r.stderr).toBe(0);
    expectMasked(r.stdout + r.stderr, key, args.join(' '));
    expect(r.stdout).toContain('****');
  });
});

describe('a key echoed by the server is masked in files written with --out', () => {
  const files: Array<[string, string[], typeof VOICE?]> = [
    ['notes export', ['notes', 'export', N, '--out', '<dir>/export.md']],
    ['notes export json', ['notes', 'export', N, '--format', 'json', '--out', '<dir>/export.json']],
    ['notes summaries get', ['notes', 'summaries', 'get', N, '--out', '<dir>/summary.md']],
    ['notes documents get', ['notes', 'documents', 'get', N, '<doc>', '--out', '<dir>/document.md']],
    ['wm export', ['wm', 'export', '--out', '<dir>/terms.csv']],
    ['wm export ndjson', ['wm', 'export', '-o', 'ndjson', '--out', '<dir>/terms.ndjson']],
    ['voice wait --out DIR', ['voice', 'wait', '<job>', '--out', '<dir>/voice'], VOICE],
  ];

  it.each(files)('%s', async (name, args, key = DEMO_KEYS.admin) => {
    const sub = join(dir, name.replace(/\W+/g, '-'));
    mkdirSync(sub);
    const r = await run(args.map((a) => a.replace('<dir>', sub)), key);
    expect(r.exitCode, r.stderr).toBe(0);
    expectMasked(r.stdout + r.stderr, key, name);
    const written = (p: string): string[] => (statSync(p).isDirectory() ? readdirSync(p).flatMap((f) => written(join(p, f))) : [p]);
    const paths = written(sub);
    expect(paths.length).toBeGreaterThan(0);
    const all = paths.map((p) => readFileSync(p, 'utf8')).join('\n');
    expectMasked(all, key, name);
    expect(all).toContain('****');
  });
});
