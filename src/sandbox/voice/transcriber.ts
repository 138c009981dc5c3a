import { spawn } from 'node:child_process';
import * as z from 'zod';

/**
 * `--transcriber-command 'CMD {file}'`: a local speech-to-text program. Its standard output is either
 * plain text (paragraphs separated by blank lines) or JSON paragraphs
 * `[{text, startTimeMillis?, endTimeMillis?, speakerLabel?}]`.
 */

export interface RawParagraph {
  text: string;
  startTimeMillis?: number;
  endTimeMillis?: number;
  speakerLabel?: string | null;
}

export const TRANSCRIBER_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The command failed; the message becomes the job's `errorMessage`. */
export class TranscriberFailed extends Error {}

/** POSIX shell quoting. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The command line: `{file}` replaced by the quoted path, or the path appended when the template has no `{file}`. */
export function buildCommand(template: string, file: string): string {
  const quoted = shellQuote(file);
  return template.includes('{file}') ? template.split('{file}').join(quoted) : `${template} ${quoted}`;
}

const jsonParagraphs = z.array(
  z.object({
    text: z.string(),
    startTimeMillis: z.number().int().min(0).optional(),
    endTimeMillis: z.number().int().min(0).optional(),
    speakerLabel: z.string().nullable().optional(),
  }),
);

/** Paragraphs from the program's output. */
export function parseTranscriberOutput(stdout: string): RawParagraph[] {
  const text = stdout.replace(/\r\n/g, '\n').trim();
  if (text.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new TranscriberFailed(`the transcriber command printed invalid JSON: ${(e as Error).message}`);
    }
    const r = jsonParagraphs.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new TranscriberFailed(`the transcriber command's JSON is not [{text, startTimeMillis?, endTimeMillis?, speakerLabel?}]: at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    return r.data.filter((p) => p.text.trim() !== '').map((p) => ({ ...p, text: p.text.trim() }));
  }
  return text
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({ text: p }));
}

const firstLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);

/** "600 s", "0.2 s": a timeout in messages. */
const secondsText = (ms: number) => `${ms >= 10_000 ? Math.round(ms / 1000) : Number((ms / 1000).toFixed(1))} s`;

/**
 * Run the command on `file` and read its paragraphs. The shell runs in its own process group, so a timeout or
 * `signal` (the job was deleted) ends the program it started too, not only the shell.
 */
export function runTranscriber(template: string, file: string, timeoutMs = TRANSCRIBER_TIMEOUT_MS, signal?: AbortSignal): Promise<RawParagraph[]> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new TranscriberFailed('the transcriber command was cancelled'));
    const child = spawn('/bin/sh', ['-c', buildCommand(template, file)], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let ended: string | undefined; // why notevox ended the command
    const killGroup = (why: string) => {
      ended ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup(`the transcriber command timed out after ${secondsText(timeoutMs)}`), timeoutMs);
    const onAbort = () => killGroup('the transcriber command was cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > MAX_OUTPUT_BYTES) return killGroup(`the transcriber command printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB`);
      out.push(b);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      if (err.length < 64 * 1024) err += s;
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(new TranscriberFailed(`the transcriber command could not start: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (ended) return reject(new TranscriberFailed(ended));
      if (code !== 0) {
        const why = code !== null ? `exit code ${code}` : `signal ${sig}`;
        return reject(new TranscriberFailed(`the transcriber command failed (${why})${firstLine(err) ? `: ${firstLine(err)}` : ''}`));
      }
      try {
        resolve(parseTranscriberOutput(Buffer.concat(out).toString('utf8')));
      } catch (parseError) {
        reject(parseError as Error);
      }
    });
  });
}
