import { exec } from 'node:child_process';
import { z } from 'zod';

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

/** Run the command on `file` and read its paragraphs. */
export function runTranscriber(template: string, file: string, timeoutMs = TRANSCRIBER_TIMEOUT_MS): Promise<RawParagraph[]> {
  return new Promise((resolve, reject) => {
    exec(buildCommand(template, file), { timeout: timeoutMs, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: number | string };
        if (e.killed && e.signal === 'SIGTERM') return reject(new TranscriberFailed(`the transcriber command timed out after ${Math.round(timeoutMs / 1000)} s`));
        const why = typeof e.code === 'number' ? `exit code ${e.code}` : e.signal ? `signal ${e.signal}` : String(e.code ?? e.message);
        return reject(new TranscriberFailed(`the transcriber command failed (${why})${firstLine(stderr) ? `: ${firstLine(stderr)}` : ''}`));
      }
      try {
        resolve(parseTranscriberOutput(stdout));
      } catch (parseError) {
        reject(parseError as Error);
      }
    });
  });
}
