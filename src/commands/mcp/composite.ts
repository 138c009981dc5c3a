import { CommanderError, type Command } from '@commander-js/extra-typings';
import * as z from 'zod';
import { usageMessage } from '../args.js';
import { createContext } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { createMemoryIO } from '../../io/memory.js';
import * as s from '../../contract/schemas.js';
import { LIMITS } from '../../contract/limits.js';
import { buildProgram } from '../../program.js';
import type { Context } from '../types.js';
import { jsonSchema, type Annotations } from './catalogue.js';
import { fitText, jsonResult, type CallContext, type ToolResult } from './shape.js';

/**
 * Tools for what agents do in several calls, made of the CLI's own commands: `voice upload --wait`, `wm import`,
 * `notes export`, `notes search`, run in this process with the server's context (profile, key, base URL, settings),
 * their output captured and their progress and messages sent as MCP progress notifications. A cancelled call
 * aborts the command's signal and runs its interrupt handlers, as Ctrl-C does: the voice job is deleted while its
 * upload is incomplete, the import's journal keeps the confirmed batches for a rerun.
 */

export interface CompositeTool {
  kind: 'composite';
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Annotations;
  run(args: Record<string, unknown>, ctx: Context, call: CallContext): Promise<ToolResult>;
}

/** The server's global flags that choose the account, carried into each command it runs. */
function globalArgs(ctx: Context): string[] {
  const g = ctx.globals;
  return [
    ...(g.profile ? ['--profile', g.profile] : []),
    ...(g.baseUrl ? ['--base-url', g.baseUrl] : []),
    ...(g.timeout ? ['--timeout', g.timeout] : []),
    ...(g.maxRetries ? ['--max-retries', g.maxRetries] : []),
    '--no-input',
    '--no-color',
  ];
}

/** Client settings of the server's context (tests: the in-process sandbox's transport). */
const clientSettings = new WeakMap<Context, Parameters<typeof createContext>[0]['client']>();
export function useClientSettings(ctx: Context, settings: Parameters<typeof createContext>[0]['client']): void {
  clientSettings.set(ctx, settings);
}

/** Run `notevox <argv>` in this process for a tool call; its stdout, or its error thrown. */
export async function runCli(ctx: Context, argv: string[], call: CallContext): Promise<string> {
  const memory = createMemoryIO({ env: ctx.env, noInput: true, noColor: true });
  const io = memory.io;
  // Progress bars and the messages of the command (stderr) become progress notifications.
  let done = 0;
  let total: number | undefined;
  io.progress = (opts) => {
    total = opts.total;
    done = 0;
    call.progress(0, total, opts.label);
    return {
      tick: (n) => call.progress((done += n), total),
      addRetry: () => undefined,
      setTotal: (n) => (total = n),
      waiting: (until, reason) => until !== undefined && call.progress(done, total, `${reason ?? 'waiting'} until ${new Date(until).toISOString()}`),
      done: (summary) => summary && call.progress(done, total, summary),
    };
  };
  let step = 0;
  const say = (line: string) => call.progress(total === undefined ? ++step : done, total, line.trim());
  io.info = say;
  io.warn = (line) => say(`warning: ${line}`);
  io.success = say;
  io.spinner = (text) => {
    say(text);
    return { text: say, succeed: (t) => t && say(t), fail: (t) => t && say(t), stop: () => undefined };
  };

  const cleanups = new Set<() => Promise<void> | void>();
  const disposers = new Set<() => Promise<void> | void>();
  const controller = new AbortController();
  const onAbort = async () => {
    controller.abort(call.signal.reason);
    for (const fn of [...cleanups].reverse()) await Promise.resolve(fn()).catch(() => undefined);
  };
  call.signal.addEventListener('abort', onAbort, { once: true });
  const context = (globals: Parameters<typeof createContext>[0]['globals']) =>
    createContext({
      io,
      env: ctx.env,
      globals,
      client: clientSettings.get(ctx),
      clock: ctx.clock,
      signal: controller.signal,
      onInterrupt: (fn) => {
        cleanups.add(fn);
        return () => cleanups.delete(fn);
      },
      onDispose: (fn) => disposers.add(fn),
      takeOverInterrupt: () => undefined,
    });
  const { program, exitCode } = buildProgram({ context, wants: (g) => g === argv[0] });
  const quiet = (cmd: Command<any, any, any>) => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
    cmd.commands.forEach(quiet);
  };
  quiet(program);
  try {
    await program.parseAsync([...globalArgs(ctx), ...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      const { message, hint } = usageMessage(e.message);
      throw new CliError(message.replace(/^error: /, ''), { exitCode: EXIT.USAGE, hint });
    }
    throw e;
  } finally {
    call.signal.removeEventListener('abort', onAbort);
    for (const fn of disposers) await Promise.resolve(fn()).catch(() => undefined);
  }
  if (call.signal.aborted) throw new CliError('cancelled', { exitCode: EXIT.INTERRUPTED });
  if (exitCode() !== 0) throw new CliError(`the command ended with exit code ${exitCode()}`, { exitCode: EXIT.UNEXPECTED });
  return memory.stdout();
}

const READ: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE: Annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const flag = (name: string, value: unknown): string[] => (value === undefined || value === false ? [] : value === true ? [name] : [name, String(value)]);

function tool<S extends z.ZodObject>(t: {
  name: string;
  description: string;
  input: S;
  output?: z.ZodType;
  annotations: Annotations;
  run: (args: z.output<S>, ctx: Context, call: CallContext) => Promise<ToolResult>;
}): CompositeTool {
  return {
    kind: 'composite',
    name: t.name,
    description: t.description,
    inputSchema: jsonSchema(t.input.strict(), 'input'),
    ...(t.output ? { outputSchema: jsonSchema(t.output, 'output') } : {}),
    annotations: t.annotations,
    run: async (args, ctx, call) => {
      const parsed = t.input.strict().safeParse(args);
      if (!parsed.success) throw new CliError(`invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`, { exitCode: EXIT.USAGE });
      return t.run(parsed.data as z.output<S>, ctx, call);
    },
  };
}

const json = (text: string) => JSON.parse(text) as unknown;
const guid = (what: string) => z.string().describe(what);

let made: CompositeTool[] | undefined;

/** The composite tools (made once: their schemas go through zod's converter). */
export function compositeTools(): CompositeTool[] {
  return (made ??= [
    tool({
      name: 'voice_transcribe',
      description:
        `Transcribe a local audio file (WAV, MP3, MP4/M4A, at most ${LIMITS.uploadMaxBytes / 1e6} MB): creates a voice file job, uploads, completes and waits, ` +
        'reporting progress; returns the job and its transcript (long transcripts are cut, with a note). Cancelling before the upload completes deletes the job. ' +
        'Same as `notevox voice upload --wait`. Changes data.',
      input: z.object({
        file: z.string().describe('path of the audio file on this machine'),
        locale: s.locale.optional().describe('the language spoken, e.g. en_US'),
        translate: z.array(s.locale).max(LIMITS.translationLocalesMax).optional().describe('also translate into these locales'),
        workspace: z.string().optional().describe('workspace guid or exact name (keys bound to no workspace need one)'),
        waitTimeout: z.string().optional().describe('how long to wait, e.g. 90s, 30m, 2h (default 2h)'),
      }),
      output: z.object({ jobId: z.string(), text: z.string(), segments: z.array(z.unknown()), translations: z.array(z.object({ locale: z.string(), text: z.string() })).optional() }).loose(),
      annotations: WRITE,
      run: async (a, ctx, call) => {
        const out = await runCli(
          ctx,
          ['voice', 'upload', a.file, '--format', 'json', ...flag('--locale', a.locale), ...flag('--translate', a.translate?.join(',')), ...flag('--workspace', a.workspace), ...flag('--wait-timeout', a.waitTimeout)],
          call,
        );
        return jsonResult(json(out), true);
      },
    }),
    tool({
      name: 'wm_import',
      description:
        `Import word memories from a CSV file on this machine (entry,subEntry; or name the columns): checks every row, then creates them in batches of up to ${LIMITS.wordMemoryBulkMax}, ` +
        'paced to the rate limit, with progress; resumable (a rerun skips batches confirmed earlier). Same as `notevox wm import`. Changes data.',
      input: z.object({
        file: z.string().describe('path of the CSV file on this machine'),
        scope: z.enum(['user', 'workspace', 'org']).optional().describe('default user'),
        workspace: z.string().optional().describe('workspace guid or exact name (implies scope workspace)'),
        columns: z.string().optional().describe('the file has no header: its columns, e.g. entry,subEntry'),
        header: z.boolean().optional().describe('with columns: skip the first row'),
        skipInvalid: z.boolean().optional().describe('send the valid rows even when some are invalid'),
        dryRun: z.boolean().optional().describe('check and plan only; send nothing'),
        restart: z.boolean().optional().describe('ignore what an interrupted earlier run already sent'),
      }),
      output: z.object({ file: z.string(), target: z.string(), rows: z.number() }).loose(),
      annotations: WRITE,
      run: async (a, ctx, call) => {
        const out = await runCli(
          ctx,
          [
            'wm', 'import', a.file, '--json',
            ...flag('--scope', a.scope), ...flag('--workspace', a.workspace), ...flag('--columns', a.columns), ...flag('--header', a.header),
            ...flag('--skip-invalid', a.skipInvalid), ...flag('--dry-run', a.dryRun), ...flag('--restart', a.restart),
          ],
          call,
        );
        return jsonResult(json(out), true);
      },
    }),
    tool({
      name: 'notes_export_markdown',
      description:
        'A note as one Markdown document: title, metadata, participants, latest summary and the timed transcript (cut with a note when long; the resource notevox://notes/{noteGuid}/transcript reads the transcript). Same as `notevox notes export`.',
      input: z.object({ noteGuid: guid('the note guid') }),
      output: z.object({ noteGuid: z.string(), markdown: z.string(), cut: z.boolean() }),
      annotations: READ,
      run: async (a, ctx, call) => {
        const md = await runCli(ctx, ['notes', 'export', a.noteGuid], call);
        const { value, note } = fitText(md, `Run \`notevox notes export ${a.noteGuid} --out FILE\` for the whole document.`);
        const structured = { noteGuid: a.noteGuid, markdown: value, cut: note !== undefined };
        return { content: [{ type: 'text', text: value }, ...(note ? [{ type: 'text' as const, text: note }] : [])], structuredContent: structured };
      },
    }),
    tool({
      name: 'notes_find',
      description:
        `Deep search of notes: title or transcript containing a keyword, with snippets and primary documents; in a workspace (guid or exact name) or, without one, every workspace (the service's deprecated search). ` +
        `At most ${LIMITS.deepSearchMaxSize} notes. Same as \`notevox notes search\`.`,
      input: z.object({
        keyword: z.string().min(1).describe('a word or phrase'),
        workspace: z.string().optional().describe('workspace guid or exact name'),
        folder: z.string().optional().describe('only notes in this folder and its sub-folders'),
        from: z.string().optional().describe('created at or after this ISO date or instant'),
        to: z.string().optional().describe('created at or before this ISO date or instant (a date includes the whole day, UTC)'),
        size: z.number().int().min(1).max(LIMITS.deepSearchMaxSize).optional().describe('at most this many notes'),
      }),
      output: s.searchResponse,
      annotations: READ,
      run: async (a, ctx, call) => {
        const out = await runCli(
          ctx,
          ['notes', 'search', a.keyword, '--json', ...flag('--workspace', a.workspace), ...flag('--folder', a.folder), ...flag('--from', a.from), ...flag('--to', a.to), ...flag('--size', a.size)],
          call,
        );
        return jsonResult(json(out), true);
      },
    }),
  ]);
}
