import { withBetterHint } from '../../client/errors.js';
import type { ResponseOf } from '../../contract/api.js';
import type { DocumentFormat } from '../../contract/enums.js';
import { DOCUMENT_LOCALES } from '../../contract/limits.js';
import { CliError, EXIT, InputNeededError, UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { checkOut, emitText } from './output.js';

/** notes documents list, get and generate. */

type NoteDocument = ResponseOf<'notes.documents.get'>;

const DOCUMENT_COLUMNS: Column[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'template.title', header: 'TEMPLATE', maxWidth: 40 },
  { key: 'template.id', header: 'TEMPLATE ID', kind: 'number' },
  { key: 'locale', header: 'LOCALE' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

export async function list(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.documents.list', { path: { noteGuid: guid } });
  await printList(ctx, res.data.content, DOCUMENT_COLUMNS);
}

/** The document's text: its sections' contents, in order. */
const documentText = (d: NoteDocument, format: DocumentFormat) => d.sections.map((s) => s.content.content).join(format === 'html' ? '\n' : '\n\n');

/** What `documents get --out` and `documents generate --out` write: the section texts, or the JSON for json. */
const documentFile = (d: NoteDocument, format: DocumentFormat) => (format === 'json' ? JSON.stringify(d, null, 2) : documentText(d, format));

export async function get(ctx: Context, guid: string, documentId: number, flags: Flags<typeof cmd.documentsGet>): Promise<void> {
  await checkOut(flags.out);
  const client = await ctx.client();
  const res = await client.call('notes.documents.get', { path: { noteGuid: guid, documentId }, query: { format: flags.format } });
  const what = `document ${res.data.id} (${flags.format})`;
  if (flags.out !== undefined) return emitText(ctx, documentFile(res.data, flags.format), flags.out, what);
  if (ctx.output.human) return emitText(ctx, documentText(res.data, flags.format), undefined, what);
  await printObject(ctx, res.data);
}

async function askTemplate(ctx: Context): Promise<number> {
  const client = await ctx.client();
  const list = (await client.call('templates.list')).data.content;
  if (list.length === 0) throw new CliError('this key can use no template', { exitCode: EXIT.NOT_FOUND, hint: 'See `notevox templates list`.' });
  const prompter = await ctx.prompter();
  return prompter.select({
    message: 'Template',
    choices: list.map((t) => ({ name: `${t.title} (${t.ownerType.toLowerCase()}, id ${t.id})`, value: t.id })),
    flag: '--template ID',
  });
}

export async function generate(ctx: Context, guid: string, flags: Flags<typeof cmd.documentsGenerate>): Promise<void> {
  if (flags.format !== undefined && flags.out === undefined) throw new UsageError('--format needs --out', 'It picks the format of the file --out writes; read a document in any format with `notevox notes documents get`.');
  await checkOut(flags.out);
  let { template: templateId, locale } = flags;
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
      () => client.call('notes.documents.generate', { path: { noteGuid: guid }, body: { templateId, locale } }),
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
    const doc = format === 'html' ? (await client.call('notes.documents.get', { path: { noteGuid: guid, documentId: res.data.documentId }, query: { format } })).data : d;
    await emitText(ctx, documentFile(doc, format), flags.out, `document ${res.data.documentId} (${format})`);
  }
  await printObject(ctx, ctx.output.human ? d : res.data, DOCUMENT_COLUMNS);
}
