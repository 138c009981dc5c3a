import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { LIMITS } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';
import { formatBytes } from '../../io/progress.js';
import { describeHead, formatHours, SNIFF_BYTES, sniffAudio, type SniffedAudio } from '../../audio/sniff.js';
import { readWavLayoutFd, wavSeconds } from '../../audio/wav.js';

/** What `voice upload` checks before it creates anything: the file exists, is audio by its content, and fits the limits. */

export interface AudioFile extends SniffedAudio {
  path: string;
  name: string;
  size: number;
  /** Its modification time when checked (a batch's job record tells the same recording from another by it). */
  mtimeMs: number;
  /** Undefined when the header does not tell it cheaply (the service then decides). */
  durationSeconds?: number;
}

const FORMAT_HINT = 'The format is read from the content, not the file name: convert it to MP3, WAV or M4A (e.g. `ffmpeg -i input output.mp3`).';

/**
 * The checks read the file synchronously (stat, the first bytes, a WAV's header): a handful of small reads of a
 * local file, which through fs/promises each went to libuv's pool and back, with FileHandle's code to compile on
 * first use: 8-12 ms for a first preflight in a fresh process, ~1 ms this way, all before the job is created.
 */
export async function preflight(path: string): Promise<AudioFile> {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new UsageError(`${path}: no such file`);
    throw new UsageError(`cannot read ${path}: ${err.code ?? err.message}`);
  }
  if (st.isDirectory()) throw new UsageError(`${path} is a directory`, 'Upload a file, or use `notevox voice transcribe DIR` for every recording in it.');
  if (!st.isFile()) throw new UsageError(`${path} is not a regular file`);
  if (st.size === 0) throw new UsageError(`${path} is empty`);
  if (st.size > LIMITS.uploadMaxBytes)
    throw new UsageError(`${path} is ${formatBytes(st.size)} (${st.size.toLocaleString('en-US')} bytes); uploads are limited to ${formatBytes(LIMITS.uploadMaxBytes)} (${LIMITS.uploadMaxBytes.toLocaleString('en-US')} bytes)`, 'Compress it (e.g. to MP3) or split it into parts.');
  let fd: number;
  const head = Buffer.alloc(SNIFF_BYTES);
  let headBytes: number;
  try {
    fd = openSync(path, 'r');
    try {
      headBytes = readSync(fd, head, 0, SNIFF_BYTES, 0);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot read ${path}: ${err.code === 'EACCES' ? 'permission denied' : (err.code ?? err.message)}`);
  }
  try {
    const sniffed = sniffAudio(head.subarray(0, headBytes));
    if (!sniffed) throw new UsageError(`${path} is not WAV, MP3 or MP4/M4A audio (${describeHead(head.subarray(0, headBytes))})`, FORMAT_HINT);
    const durationSeconds = await headerDuration(path, fd, sniffed, st.size);
    if (durationSeconds !== undefined && durationSeconds > LIMITS.audioMaxSeconds)
      throw new UsageError(`${path} is ${formatHours(durationSeconds)} long; voice file jobs take at most ${LIMITS.audioMaxSeconds / 3600} hours`, 'Split the recording into parts.');
    return { ...sniffed, path, name: basename(path), size: st.size, mtimeMs: st.mtimeMs, durationSeconds };
  } finally {
    closeSync(fd);
  }
}

/** Extensions music-metadata picks its parser by; a file whose name says otherwise is parsed by its content instead. */
const EXTENSIONS: Record<SniffedAudio['kind'], string[]> = {
  wav: ['.wav', '.wave'],
  mp3: ['.mp3', '.mp2', '.mpga'],
  mp4: ['.m4a', '.m4b', '.mp4', '.m4v', '.mov'],
};

/**
 * The duration from the file's headers. music-metadata (without a full scan) reads only the headers when given
 * a path, but it chooses the parser by the file name: a misnamed file is streamed with the sniffed type instead.
 */
async function headerDuration(path: string, fd: number, sniffed: SniffedAudio, size: number): Promise<number | undefined> {
  // PCM WAV: the header says it all, without loading music-metadata (memory matters during big uploads).
  const layout = sniffed.kind === 'wav' ? await readWavLayoutFd(fd, size) : null;
  if (layout) return wavSeconds(layout);
  const { parseFile, parseStream } = await import('music-metadata');
  const options = { duration: false, skipCovers: true };
  try {
    let meta;
    if (EXTENSIONS[sniffed.kind].includes(extname(path).toLowerCase())) meta = await parseFile(path, options);
    else {
      const stream = createReadStream(path);
      try {
        meta = await parseStream(stream, { mimeType: sniffed.contentType, size }, options);
      } finally {
        stream.destroy();
      }
    }
    const d = meta.format.duration;
    return d !== undefined && Number.isFinite(d) ? d : undefined;
  } catch (e) {
    throw new UsageError(`${path} looks like ${sniffed.label} but cannot be read: ${(e as Error).message.split(path).join('the file')}`, FORMAT_HINT);
  }
}
