import type { DocumentFormat } from '../../contract/enums.js';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ApiError, withBetterHint } from '../../client/errors.js';
import { endpoint } from '../../contract/endpoints.js';
import { DOCUMENT_LOCALES, LIMITS } from '../../contract/limits.js';
import { parseIsoInstant } from '../../dates.js';
import { CliError, EXIT, InputNeededError, UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { cannotWrite } from '../../io/fs-errors.js';
import type { Column } from '../../io/render.js';
import { parseLimit, printList, printObject, printPaged } from '../list.js';
import { resolveWorkspace } from '../resolve.js';
import type { ListFlags } from '../shared.js';
import type { Context } from '../types.js';
import { checkNoteGuid } from './run.js';

/** notes search, paragraphs, folders, share-link, documents, summaries and export (registered in more.ts). */

// ---------------------------------------------------------------- API shapes (what the commands read)

/** decisions.md §3.2; read tolerantly: `locked`, `diarizedSegments` and even `transcript` may be missing. */
interface Paragraph {
  id: number;
  timeFrom: string;
  timeTo: string;
  speaker: string | null;
  locked?: boolean;
  diarizedSegments?: Array<{ content?: string; speaker?: { label?: string; personName?: string | null } | null }>;
  transcript?: { content?: string };
}
interface Note {
  guid: string;
  title: string;
  createdAt: string;
  sourceType: string;
  recordingStartAt: string | null;
  recordingDurationSeconds: number;
  transcribeLocale: string | null;
  translateLocale: string | null;
  workspaceGuid?: string | null;
  webUrl: string;
  participants: Array<{ name: string; email: string | null }>;
}
interface SearchResponse {
  notes: Array<Note & { matchedSnippets?: string[] }>;
  degraded?: boolean;
  degradedReason?: string | null;
}
interface Section {
  content: { type: string; content: string };
}
interface NoteDocument {
  id: number;
  template: { id: number; title: string };
  locale: string;
  sections: Section[];
}
interface SummaryItem {
  id: number;
  createdAt: string;
}
interface Summary {
  id: number;
  content: { type: string; content: string };
}

// ---------------------------------------------------------------- paragraphs as shown

/** What stands for the text of a locked paragraph (content hidden by the plan). */
export const LOCKED_TEXT = '[locked: hidden by your plan]';

const segmentSpeaker = (d: NonNullable<Paragraph['diarizedSegments']>[number]) => d.speaker?.personName || d.speaker?.label || '';

/** Who speaks in a paragraph: the speakers of its diarizedSegments in order (tagged name, else label), else `speaker`. */
export function paragraphSpeakers(p: Paragraph): string[] {
  const split = (p.diarizedSegments ?? []).map(segmentSpeaker).filter(Boolean);
  if (split.length) return [...new Set(split)];
  return p.speaker ? [p.speaker] : [];
}

/** The paragraph's text, or the locked marker. */
export function paragraphText(p: Paragraph): string {
  return p.locked ? LOCKED_TEXT : (p.transcript?.content ?? '');
}

// ---------------------------------------------------------------- columns

const time = (iso: string) => new Date(iso).toISOString().slice(11, 19);
export const PARAGRAPH_COLUMNS: Column[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'timeFrom', header: 'FROM (UTC)', get: (p) => time(p.timeFrom) },
  { key: 'timeTo', header: 'TO', get: (p) => time(p.timeTo) },
  { key: 'speaker', header: 'SPEAKER', get: (p) => paragraphSpeakers(p).join(', ') },
  { key: 'transcript.content', header: 'TEXT', maxWidth: 80, get: paragraphText },
];
const FOLDER_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'TITLE', maxWidth: 50 },
  { key: 'sharingType', header: 'SHARING' },
  { key: 'parentId', header: 'PARENT', get: (f) => f.parentId ?? '-' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
];
const SHARE_COLUMNS: Column[] = [
  { key: 'shareUrl', header: 'URL' },
  { key: 'hasPassword', header: 'PASSWORD PROTECTED', kind: 'bool' },
  { key: 'shareId', header: 'SHARE ID' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];
const DOCUMENT_COLUMNS: Column[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'template.title', header: 'TEMPLATE', maxWidth: 40 },
  { key: 'template.id', header: 'TEMPLATE ID', kind: 'number' },
  { key: 'locale', header: 'LOCALE' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];
const SUMMARY_COLUMNS: Column[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'template.title', header: 'TEMPLATE', get: (s) => s.template?.title ?? '-' },
  { key: 'locale', header: 'LOCALE' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];
const SEARCH_COLUMNS: Column[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'title', header: 'TITLE', maxWidth: 40 },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
  { key: 'matchedSnippets', header: 'SNIPPET', maxWidth: 80, get: (n) => n.matchedSnippets?.[0] ?? '' },
];

// ---------------------------------------------------------------- input checks (before any request)

/** A positive integer id (documents, summaries, templates, folders). */
export function checkId(value: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new UsageError(`${what} "${value}" is not an id`, `A ${what} is a positive whole number.`);
  return Number(value);
}

function checkDocumentLocale(value: string): string {
  if (!LIMITS.localePattern.test(value)) throw new UsageError(`--locale "${value}" is not a locale of the form ll_CC`, 'Pass e.g. --locale en_US.');
  if (!(DOCUMENT_LOCALES as readonly string[]).includes(value))
    throw new UsageError(`--locale "${value}" is not a document locale`, `Documents can be made in ${DOCUMENT_LOCALES.join(', ')}.`);
  return value;
}

function checkSize(value: string): number {
  const max = LIMITS.deepSearchMaxSize;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`--size "${value}" is out of range`, `Deep search returns 1 to ${max} notes.`);
  return Number(value);
}

/** An ISO date (a whole UTC day: its start for --from, its end for --to) or an ISO instant with a zone. */
function checkDate(value: string, flag: '--from' | '--to'): string {
  const at = parseIsoInstant(value, flag === '--from' ? 'start' : 'end');
  if (!at) throw new UsageError(`${flag} "${value}" is not an ISO 8601 date or instant`, 'Pass e.g. 2026-10-01 or 2026-10-01T09:00:00Z.');
  return at.toISOString();
}

function checkFolderId(value: string): string {
  if (!/^\d+$/.test(value)) throw new UsageError(`--folder "${value}" is not a folder id`, 'Folder ids are numbers; see `notevox folders list`.');
  return value;
}

/** --out: the directory must exist, checked before any request. */
async function checkOut(file: string | undefined): Promise<void> {
  if (file === undefined) return;
  const dir = dirname(resolve(file));
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new UsageError(`--out "${file}": directory ${dir} does not exist`, 'Create the directory first or pick another path.');
}

// ---------------------------------------------------------------- output helpers

/** Text output (a document, a summary) unless a data format or a filter was asked for. */
function textMode(ctx: Context): boolean {
  const { format, fields, query } = ctx.output;
  return (format === undefined || format === 'table') && !fields?.length && !query;
}

/** Write an --out file atomically (io/atomic-file); a failure is a usage error naming the file. */
function writeOut(file: string, content: string): void {
  try {
    writeFileAtomic(file, content);
  } catch (e) {
    throw cannotWrite(file, e);
  }
}

/** Send text to --out (saying so on stderr) or to stdout. */
async function emitText(ctx: Context, text: string, out: string | undefined, what: string): Promise<void> {
  const body = text.endsWith('\n') ? text : text + '\n';
  if (out === undefined) return ctx.io.out(body);
  writeOut(out, body);
  ctx.io.info(`Wrote ${what} to ${out} (${Buffer.byteLength(body)} bytes).`);
}

// ---------------------------------------------------------------- search

interface SearchFlags {
  workspace?: string;
  folder?: string;
  from?: string;
  to?: string;
  size?: string;
}

export async function search(ctx: Context, keyword: string, flags: SearchFlags): Promise<void> {
  if (keyword.trim() === '') throw new UsageError('the keyword is blank', 'Give a word or phrase to search for.');
  const from = flags.from !== undefined ? checkDate(flags.from, '--from') : undefined;
  const to = flags.to !== undefined ? checkDate(flags.to, '--to') : undefined;
  if (from && to && from > to) throw new UsageError(`--from ${flags.from} is after --to ${flags.to}`, 'Swap them.');
  const body = {
    keyword,
    filter: { folderId: flags.folder !== undefined ? checkFolderId(flags.folder) : undefined, createdAtFrom: from, createdAtTo: to },
    pagination: flags.size !== undefined ? { size: checkSize(flags.size) } : undefined,
  };
  const client = await ctx.client();
  let res;
  if (flags.workspace !== undefined) {
    const ws = await resolveWorkspace(ctx, flags.workspace);
    res = await client.call<SearchResponse>(endpoint('notes.searchWorkspace'), { params: { workspaceGuid: ws }, body });
  } else {
    res = await client.call<SearchResponse>(endpoint('notes.search'), { body });
    ctx.io.info('note: the service marks this all-workspace search (POST /notes/search) as deprecated; pass --workspace to use the workspace search.');
  }
  const data = res.data;
  if (data.degraded) ctx.io.warn(`the search answered degraded: ${data.degradedReason ?? 'no reason given'}. Results may be incomplete.`);
  const { format, query } = ctx.output;
  if (format === 'json' || format === 'ndjson' || query) return printObject(ctx, data);
  await printList(ctx, data.notes, SEARCH_COLUMNS);
}

// ---------------------------------------------------------------- paragraphs, folders

export async function paragraphs(ctx: Context, guid: string, flags: ListFlags & { plain?: boolean; follow?: boolean }): Promise<void> {
  const ep = endpoint('notes.paragraphs');
  const req = { params: { noteGuid: checkNoteGuid(guid) } };
  if (flags.follow) return (await import('./follow.js')).followParagraphs(ctx, guid, flags);
  if (!flags.plain) return printPaged(ctx, ep, req, PARAGRAPH_COLUMNS, flags, 'paragraphs');
  const limit = flags.all ? undefined : parseLimit(flags.limit);
  const client = await ctx.client();
  let shown = 0;
  let next: string | null = null;
  for await (const page of client.paginate<Paragraph>(ep, req, { pageSize: Math.min(ep.page!.max, limit ?? ep.page!.max), limit, cursor: flags.cursor })) {
    for (const p of page.items) ctx.io.out(paragraphText(p).replace(/\s*\n\s*/g, ' ') + '\n');
    shown += page.items.length;
    next = page.nextCursor;
  }
  if (next && !flags.all) ctx.io.info(`Showing ${shown} paragraphs; more are available. Use --all for every page, or --cursor ${next} to continue.`);
}

export async function folders(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call<{ content: object[] }>(endpoint('notes.folders'), { params: { noteGuid: checkNoteGuid(guid) } });
  if (res.data.content.length === 0 && textMode(ctx)) ctx.io.info(`Note ${guid} is in no folder you can see.`);
  else await printList(ctx, res.data.content, FOLDER_COLUMNS);
}

// ---------------------------------------------------------------- share links

export async function shareLinkGet(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call<object>(endpoint('notes.shareLink.get'), { params: { noteGuid: checkNoteGuid(guid) } });
  await printObject(ctx, res.data, SHARE_COLUMNS);
}

interface ShareLink {
  shareUrl: string;
  hasPassword?: boolean;
  sharePassword?: string;
}

/**
 * Create a share link, keeping one that exists (a link already sent out keeps working, decisions.md §3.3): it is
 * reported as it is, or, with --password when it has none, given a password (same URL). --rotate deletes it first,
 * so the link is new (and the old URL stops working).
 */
export async function shareLinkCreate(ctx: Context, guid: string, flags: { password?: boolean; rotate?: boolean }): Promise<void> {
  const params = { noteGuid: checkNoteGuid(guid) };
  const client = await ctx.client();
  let existing: ShareLink | undefined;
  try {
    existing = (await client.call<ShareLink>(endpoint('notes.shareLink.get'), { params })).data;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (existing && flags.rotate) {
    await client.call(endpoint('notes.shareLink.delete'), { params });
    ctx.io.info(`Deleted the old share link of ${guid} (${existing.shareUrl}); it no longer works.`);
    existing = undefined;
  }
  if (existing && (!flags.password || existing.hasPassword)) {
    await printObject(ctx, existing, SHARE_COLUMNS);
    const password = existing.hasPassword ? ', password-protected (the password was shown when it was made)' : '';
    ctx.io.info(`Note ${guid} already has a share link${password}; kept it. Use --rotate for a new link${flags.password ? ' and a new password' : ''}.`);
    return;
  }
  const res = await client.call<ShareLink>(endpoint('notes.shareLink.put'), { params, body: { usePassword: Boolean(flags.password) } });
  const hasSecret = res.data.sharePassword !== undefined;
  await printObject(ctx, res.data, hasSecret ? [...SHARE_COLUMNS, { key: 'sharePassword', header: 'PASSWORD' }] : SHARE_COLUMNS);
  if (hasSecret) ctx.io.warn('the share password is shown only this once: neither the service nor notevox keeps it. Store it now.');
  ctx.io.success(existing ? `Added a password to the share link of ${guid}: ${res.data.shareUrl}` : `Share link of ${guid}: ${res.data.shareUrl}`);
}

export async function shareLinkDelete(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  await client.call(endpoint('notes.shareLink.delete'), { params: { noteGuid: checkNoteGuid(guid) } });
  if (ctx.output.format === 'json' || ctx.output.format === 'ndjson') return printObject(ctx, { noteGuid: guid, deleted: true });
  ctx.io.success(`Deleted the share link of ${guid}; the old URL no longer works.`);
}

// ---------------------------------------------------------------- documents

export async function documentsList(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call<{ content: object[] }>(endpoint('notes.documents.list'), { params: { noteGuid: checkNoteGuid(guid) } });
  await printList(ctx, res.data.content, DOCUMENT_COLUMNS);
}

/** The document's text: its sections' contents, in order. */
const documentText = (d: NoteDocument, format: string) => d.sections.map((s) => s.content.content).join(format === 'html' ? '\n' : '\n\n');


/** What `documents get --out` and `documents generate --out` write: the section texts, or the JSON for json. */
const documentFile = (d: NoteDocument, format: DocumentFormat) => (format === 'json' ? JSON.stringify(d, null, 2) : documentText(d, format));

export async function documentsGet(ctx: Context, guid: string, id: string, flags: { format: DocumentFormat; out?: string }): Promise<void> {
  const params = { noteGuid: checkNoteGuid(guid), documentId: checkId(id, 'document id') };
  await checkOut(flags.out);
  const client = await ctx.client();
  const res = await client.call<NoteDocument>(endpoint('notes.documents.get'), { params, query: { format: flags.format } });
  const what = `document ${res.data.id} (${flags.format})`;
  if (flags.out !== undefined) return emitText(ctx, documentFile(res.data, flags.format), flags.out, what);
  if (textMode(ctx)) return emitText(ctx, documentText(res.data, flags.format), undefined, what);
  await printObject(ctx, res.data);
}

async function askTemplate(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const list = (await client.call<{ content: Array<{ id: number; title: string; ownerType: string }> }>(endpoint('templates.list'))).data.content;
  if (list.length === 0) throw new CliError('this key can use no template', { exitCode: EXIT.NOT_FOUND, hint: 'See `notevox templates list`.' });
  const prompter = await ctx.prompter();
  return prompter.select({
    message: 'Template',
    choices: list.map((t) => ({ name: `${t.title} (${t.ownerType.toLowerCase()}, id ${t.id})`, value: t.id })),
    flag: '--template ID',
  });
}

export async function documentsGenerate(ctx: Context, guid: string, flags: { template?: string; locale?: string; format?: DocumentFormat; out?: string }): Promise<void> {
  checkNoteGuid(guid);
  if (flags.format !== undefined && flags.out === undefined) throw new UsageError('--format needs --out', 'It picks the format of the file --out writes; read a document in any format with `notevox notes documents get`.');
  await checkOut(flags.out);
  let templateId = flags.template !== undefined ? checkId(flags.template, 'template id') : undefined;
  let locale = flags.locale !== undefined ? checkDocumentLocale(flags.locale) : undefined;
  if (!ctx.io.canPrompt) {
    if (templateId === undefined) throw new InputNeededError('a template', '--template ID (see `notevox templates list`)');
    if (locale === undefined) throw new InputNeededError('a document locale', '--locale ll_CC, e.g. --locale en_US');
  }
  templateId ??= await askTemplate(ctx);
  locale ??= await (await ctx.prompter()).select({ message: 'Locale', choices: DOCUMENT_LOCALES.map((l) => ({ name: l, value: l })), default: 'en_US', flag: '--locale ll_CC' });
  const client = await ctx.client();
  const spinner = ctx.io.spinner('Generating the document…');
  let res;
  try {
    res = await withBetterHint(
      () => client.call<{ documentId: number; document: NoteDocument }>(endpoint('notes.documents.generate'), { params: { noteGuid: guid }, body: { templateId, locale } }),
      // decisions.md §5.3: a template id that does not exist is 404, like a note that does not.
      (e) => (e.status === 404 && /template/i.test(e.apiMessage) ? `There is no template ${templateId}: \`notevox templates list\` shows the ones you may use.` : undefined),
    );
  } catch (e) {
    spinner.stop();
    throw e;
  }
  const d = res.data.document;
  spinner.succeed(`Generated document ${res.data.documentId} from "${d.template.title}" (${d.locale}). Read it with: notevox notes documents get ${guid} ${res.data.documentId}`);
  if (flags.out !== undefined) {
    const format = flags.format ?? 'markdown';
    // The answer carries the sections as stored; HTML is rendered by the service on a read.
    const doc =
      format === 'html'
        ? (await client.call<NoteDocument>(endpoint('notes.documents.get'), { params: { noteGuid: guid, documentId: res.data.documentId }, query: { format } })).data
        : d;
    await emitText(ctx, documentFile(doc, format), flags.out, `document ${res.data.documentId} (${format})`);
  }
  await printObject(ctx, textMode(ctx) ? d : res.data, DOCUMENT_COLUMNS);
}

// ---------------------------------------------------------------- summaries

export async function summariesList(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call<{ content: object[] }>(endpoint('notes.summaries.list'), { params: { noteGuid: checkNoteGuid(guid) } });
  await printList(ctx, res.data.content, SUMMARY_COLUMNS);
}

/** The newest summary of a note, in the given format; undefined when it has none. */
async function latestSummary(ctx: Context, guid: string, format: string): Promise<Summary | undefined> {
  const client = await ctx.client();
  const list = (await client.call<{ content: SummaryItem[] }>(endpoint('notes.summaries.list'), { params: { noteGuid: guid } })).data.content;
  const newest = [...list].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)[0];
  if (!newest) return undefined;
  return (await client.call<Summary>(endpoint('notes.summaries.get'), { params: { noteGuid: guid, summaryId: newest.id }, query: { format } })).data;
}

const SUMMARY_FORMAT = { markdown: 'text/markdown', plain: 'text/plain', 'text/markdown': 'text/markdown', 'text/plain': 'text/plain' } as const;

export async function summariesGet(ctx: Context, guid: string, id: string | undefined, flags: { format: keyof typeof SUMMARY_FORMAT; out?: string }): Promise<void> {
  checkNoteGuid(guid);
  const summaryId = id !== undefined ? checkId(id, 'summary id') : undefined;
  await checkOut(flags.out);
  const format = SUMMARY_FORMAT[flags.format];
  let summary: Summary | undefined;
  if (summaryId === undefined) {
    summary = await latestSummary(ctx, guid, format);
    if (!summary) throw new CliError(`note ${guid} has no summaries`, { exitCode: EXIT.NOT_FOUND, hint: 'Summaries are made in the app; see `notevox notes documents generate` for documents.' });
  } else {
    const client = await ctx.client();
    summary = (await client.call<Summary>(endpoint('notes.summaries.get'), { params: { noteGuid: guid, summaryId }, query: { format } })).data;
  }
  if (flags.out !== undefined || textMode(ctx)) return emitText(ctx, summary.content.content, flags.out, `summary ${summary.id}`);
  await printObject(ctx, summary);
}

// ---------------------------------------------------------------- export

const hms = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
};

/** Summary headings one level down, so they sit under the export's "## Summary". */
const demoteHeadings = (md: string) => md.replace(/^(#{1,5}) /gm, '#$1 ');

/** The Markdown export: title, metadata, participants, latest summary, and the transcript with times from the recording start. */
export function exportMarkdown(note: Note, summary: Summary | null, paras: Paragraph[]): string {
  const start = Date.parse(note.recordingStartAt ?? paras[0]?.timeFrom ?? note.createdAt);
  const offset = (iso: string) => hms((Date.parse(iso) - start) / 1000);
  const locale = note.transcribeLocale ? note.transcribeLocale + (note.translateLocale ? ` (translated to ${note.translateLocale})` : '') : 'n/a';
  const meta = [
    ['GUID', note.guid],
    ['Created', note.createdAt],
    ['Source', note.sourceType],
    ['Duration', note.recordingStartAt ? hms(note.recordingDurationSeconds) : 'n/a (not a recording)'],
    ['Locale', locale],
    ['Workspace', note.workspaceGuid ?? 'none'],
    ['URL', note.webUrl],
  ];
  const participants = note.participants.length ? note.participants.map((p) => `- ${p.name}${p.email ? ` <${p.email}>` : ''}`).join('\n') : '_No participants tagged._';
  const spoken = (p: Paragraph) => {
    if (p.locked) return `_${LOCKED_TEXT}_`;
    const split = (p.diarizedSegments ?? []).filter((d) => d.content);
    // A paragraph split by speaker reads as one turn per speaker.
    if (split.length) return split.map((d) => `${segmentSpeaker(d) ? `${segmentSpeaker(d)}: ` : ''}${d.content}`).join(' ');
    return `${p.speaker ? `${p.speaker}: ` : ''}${p.transcript?.content ?? ''}`;
  };
  const transcript = paras.length ? paras.map((p) => `[${offset(p.timeFrom)}–${offset(p.timeTo)}] ${spoken(p)}`).join('\n\n') : '_No transcript._';
  return [
    `# ${note.title}`,
    meta.map(([k, v]) => `- **${k}:** ${v}`).join('\n'),
    '## Participants',
    participants,
    '## Summary',
    summary ? demoteHeadings(summary.content.content.trim()) : '_No summary._',
    '## Transcript',
    transcript,
  ].join('\n\n');
}

async function allParagraphs(ctx: Context, guid: string): Promise<Paragraph[]> {
  const client = await ctx.client();
  const ep = endpoint('notes.paragraphs');
  const out: Paragraph[] = [];
  for await (const page of client.paginate<Paragraph>(ep, { params: { noteGuid: guid } }, { pageSize: ep.page!.max })) out.push(...page.items);
  return out;
}

export async function exportNote(ctx: Context, guid: string, flags: { format: 'markdown' | 'json'; out?: string }): Promise<void> {
  checkNoteGuid(guid);
  await checkOut(flags.out);
  const client = await ctx.client();
  const note = (await client.call<Note>(endpoint('notes.get'), { params: { noteGuid: guid } })).data;
  const paras = await allParagraphs(ctx, guid);
  let summary: Summary | null = null;
  try {
    summary = (await latestSummary(ctx, guid, SUMMARY_FORMAT.markdown)) ?? null;
  } catch (e) {
    // A key without note_summary:read still exports the rest.
    if (!(e instanceof ApiError && e.status === 403)) throw e;
    ctx.io.warn(`the summary is left out: ${e.apiMessage}${e.detail ? ` (${e.detail})` : ''}.`);
  }
  const text =
    flags.format === 'json' ? JSON.stringify({ note, participants: note.participants, summary, paragraphs: paras }, null, 2) : exportMarkdown(note, summary, paras);
  await emitText(ctx, text, flags.out, `note ${guid} (${paras.length} paragraphs, ${flags.format})`);
}
