import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { finished, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ERROR_CODES } from '../../contract/errors.js';
import { LIMITS, UPLOAD_ACCEPTED_CONTENT_TYPES } from '../../contract/limits.js';
import { ApiFailure, badRequest, conflict, notFound } from '../http.js';
import type { SandboxRuntime } from '../types.js';
import { checkUploadSignature, getJob, uploadFileOf } from './jobs.js';
import { readHead, sniffAudio } from '../../audio/sniff.js';

/**
 * PUT of raw bytes to the sandbox's signed upload URL (decisions.md §4.2), as to an S3 presigned URL: the
 * signature is the only credential (a request that also carries Authorization is refused), the Content-Type is
 * optional (the format is sniffed from the bytes), and the body is streamed to disk and counted as it arrives
 * (never held in memory). Bytes that are not audio are stored; the job then ends FAILED when it is processed.
 */

const tooLarge = (detail: string) => new ApiFailure(ERROR_CODES.TOO_LARGE, 'upload too large', detail);
const limitText = `the limit is ${LIMITS.uploadMaxBytes} bytes (${LIMITS.uploadMaxBytes / 1e6} MB)`;

class LimitExceeded extends Error {}

/**
 * Stream the bytes of the request into `file`, counting them; more than `max` fails (the file removed). The
 * raw Node request when there is one (a server socket): written straight to the file as it arrives (no copy,
 * no web stream between), each chunk's memory released once it is on disk; past the limit it stops reading
 * and leaves the rest for the server to drain after the 413 is sent. Otherwise (app.request() in tests) the
 * web stream of `body`.
 */
async function streamToFile(incoming: IncomingMessage | undefined, body: ReadableStream<Uint8Array> | null, file: string, max: number): Promise<number> {
  let bytes = 0;
  try {
    if (incoming) await pipeCounted(incoming, file, max, (n) => (bytes = n));
    else await pipeWebCounted(body, file, max, (n) => (bytes = n));
  } catch (e) {
    await rm(file, { force: true });
    if (e instanceof LimitExceeded) throw tooLarge(`${limitText}; the upload was cut off after ${bytes} bytes`);
    throw badRequest('the upload was interrupted', (e as Error).message);
  }
  return bytes;
}

/**
 * The file's buffer: the socket keeps flowing while a write is on disk, and the chunks that arrive meanwhile (64 KiB
 * each) go to disk in one writev. With the default 16 KiB every chunk paused the socket until its own write was
 * done: twice the CPU for a 400 MB upload, and a `curl -T` 1.5-3× slower.
 */
const FILE_BUFFER = 1024 * 1024;

/**
 * Frees a chunk's memory now that it is on disk, when the chunk is the whole of its ArrayBuffer (node:http
 * copies each piece of a body into a buffer of its own, which nothing else holds): transfer(0) detaches it.
 * Left to the garbage collector, the buffers of a 400 MB upload forced a full collection (mark-compact) of the
 * sandbox's heap every ~32 MB: 12 of them, about a third of the sandbox's CPU for the upload (0.72 s → 0.45 s
 * of CPU without them, measured with `curl -T`). A chunk that shares its ArrayBuffer is left to the collector.
 */
function release(chunk: Buffer): void {
  // ES2024's ArrayBuffer transfer (Node ≥ 21), beyond the project's ES2023 lib.
  const whole = chunk.buffer as ArrayBuffer & { readonly detached?: boolean; transfer?: (length: number) => ArrayBuffer };
  if (chunk.byteOffset === 0 && chunk.byteLength === whole.byteLength && whole instanceof ArrayBuffer && whole.detached === false) whole.transfer?.(0);
}

function pipeCounted(incoming: IncomingMessage, file: string, max: number, counted: (bytes: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file, { flags: 'wx', highWaterMark: FILE_BUFFER });
    let bytes = 0;
    let settled = false;
    const stop = (e: Error) => {
      if (settled) return;
      settled = true;
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      out.off('drain', onDrain);
      incoming.pause();
      out.on('error', () => undefined);
      // Settled once the file is closed, so that the caller's removal of it comes after.
      out.destroy();
      out.once('close', () => reject(e));
    };
    // Like pipe(), with each chunk released once written: the chunk past the limit goes into the file that is
    // then removed; the request pauses while the file's buffer is full and resumes once it drained.
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      counted(bytes);
      const more = out.write(chunk, (err) => {
        if (!err) release(chunk);
      });
      if (bytes > max) stop(new LimitExceeded());
      else if (!more) incoming.pause();
    };
    const onDrain = () => incoming.resume();
    const onEnd = () => out.end();
    out.once('error', stop);
    out.once('finish', () => {
      if (!settled) {
        settled = true;
        out.once('close', () => resolve());
      }
    });
    // A client that goes away mid-upload: the request ends early (its 'end' never comes).
    finished(incoming, { writable: false }, (err) => {
      if (err) stop(err);
    });
    out.on('drain', onDrain);
    incoming.on('end', onEnd);
    incoming.on('data', onData);
  });
}

async function pipeWebCounted(body: ReadableStream<Uint8Array> | null, file: string, max: number, counted: (bytes: number) => void): Promise<void> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      counted(bytes);
      done(bytes > max ? new LimitExceeded() : null, chunk);
    },
  });
  const source = body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([]);
  await pipeline(source, counter, createWriteStream(file, { flags: 'wx' }));
}

/** `incoming`: the Node request under `req`, when the sandbox runs behind a socket and nothing has read it yet. */
export async function receiveUpload(rt: SandboxRuntime, jobId: string, req: Request, query: Record<string, string>, incoming?: IncomingMessage): Promise<Response> {
  // S3 refuses a presigned request that also carries Authorization ("only one auth mechanism allowed"): a client
  // that sends its API key here finds out, instead of leaking it to a storage service unnoticed.
  if (req.headers.has('authorization'))
    throw badRequest('the upload URL takes no Authorization header', 'the signature in the uploadUri is the only credential: send the bytes without an Authorization header (never your API key)');
  const refused = checkUploadSignature(rt, jobId, query.expires, query.signature);
  if (refused) throw new ApiFailure(ERROR_CODES.UPLOAD_SIGNATURE, 'upload URL signature invalid or expired', refused);
  const job = getJob(rt.db, jobId);
  if (!job || job.deleted) throw notFound('voice file job');
  if (job.status !== 'CREATED') throw conflict(`the upload of this job was already completed (status ${job.status}); create a new job for another file`);
  const declaredType = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (declaredType && !(UPLOAD_ACCEPTED_CONTENT_TYPES as readonly string[]).includes(declaredType))
    throw badRequest(
      'unsupported Content-Type',
      `Content-Type must be one of ${UPLOAD_ACCEPTED_CONTENT_TYPES.join(', ')} or left out, not ${declaredType}${declaredType.startsWith('multipart/') ? ': PUT the raw bytes of the file, not a form' : ''}`,
    );
  const declared = Number(req.headers.get('content-length') ?? 'NaN');
  if (declared > LIMITS.uploadMaxBytes) throw tooLarge(`${limitText}; Content-Length is ${declared}`);

  const part = join(rt.uploadDir, `${jobId}.${randomUUID()}.part`);
  const raw = incoming && !incoming.readableDidRead && !incoming.destroyed ? incoming : undefined;
  const bytes = await streamToFile(raw, raw ? null : req.body, part, LIMITS.uploadMaxBytes);
  // The job may have been deleted or completed while the bytes were arriving.
  const now = getJob(rt.db, jobId);
  if (!now || now.deleted || now.status !== 'CREATED') {
    await rm(part, { force: true });
    throw now && !now.deleted ? conflict(`the upload of this job was completed while these bytes arrived (status ${now.status})`) : notFound('voice file job');
  }
  // Stored under the extension of the sniffed format, so that a --transcriber-command built on sox or ffmpeg can read it.
  const sniffed = sniffAudio(await readHead(part));
  const path = uploadFileOf(rt, jobId, sniffed?.extension);
  await rename(part, path);
  if (now.upload_path && now.upload_path !== path) await rm(now.upload_path, { force: true });
  const audioType = declaredType && declaredType !== 'application/octet-stream' ? declaredType : undefined;
  const contentType = audioType ?? sniffed?.contentType ?? 'application/octet-stream';
  rt.db.run('UPDATE voice_jobs SET upload_path = ?, upload_bytes = ?, content_type = ? WHERE id = ?', [path, bytes, contentType, jobId]);
  return new Response(JSON.stringify({ jobId, bytes, contentType }), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
}
