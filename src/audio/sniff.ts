import type { UPLOAD_CONTENT_TYPES } from '../contract/limits.js';
import { fsPromises } from '../io/require.js';

/**
 * The audio formats voice jobs accept, told apart by their first bytes (never by the file name):
 * RIFF/WAVE, MP3 (an ID3 tag or an MPEG audio frame sync), and MP4/M4A (an `ftyp` box).
 * Shared by the sandbox worker and the CLI's preflight check (which imports only this module).
 */

export type AudioKind = 'wav' | 'mp3' | 'mp4';

export interface SniffedAudio {
  kind: AudioKind;
  /** The Content-Type to upload it with. */
  contentType: (typeof UPLOAD_CONTENT_TYPES)[number];
  /** Human name, e.g. "WAV". */
  label: string;
  /** File name extension of the format, e.g. `m4a` (the sandbox stores an upload as `<job>.<extension>`). */
  extension: 'wav' | 'mp3' | 'm4a' | 'mp4';
}

/** Bytes needed to recognise every format. */
export const SNIFF_BYTES = 12;

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
const AUDIO_MP4_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ']);

export function sniffAudio(head: Uint8Array): SniffedAudio | null {
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return { kind: 'wav', contentType: 'audio/wav', label: 'WAV', extension: 'wav' };
  if (head.length >= 3 && ascii(head, 0, 3) === 'ID3') return { kind: 'mp3', contentType: 'audio/mpeg', label: 'MP3', extension: 'mp3' };
  // MPEG audio frame: 11 sync bits, a valid version (not 01) and layer (not 00; layer 00 is AAC ADTS).
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && ((head[1] >> 3) & 3) !== 1 && ((head[1] >> 1) & 3) !== 0)
    return { kind: 'mp3', contentType: 'audio/mpeg', label: 'MP3', extension: 'mp3' };
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const audioOnly = AUDIO_MP4_BRANDS.has(ascii(head, 8, 12));
    return { kind: 'mp4', contentType: audioOnly ? 'audio/mp4' : 'video/mp4', label: audioOnly ? 'M4A' : 'MP4', extension: audioOnly ? 'm4a' : 'mp4' };
  }
  return null;
}

/** The first bytes of a file. */
export async function readHead(path: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const fh = await fsPromises().open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** What the first bytes look like, for error messages: printable ASCII or hex. */
export function describeHead(head: Uint8Array): string {
  if (head.length === 0) return 'the file is empty';
  const printable = head.every((b) => b >= 0x20 && b < 0x7f);
  return printable ? `it starts with "${ascii(head, 0, head.length)}"` : `it starts with bytes ${Buffer.from(head.subarray(0, 8)).toString('hex').replace(/(..)/g, '$1 ').trim()}`;
}

/** 15000 → "4 h 10 min" (audio lengths in messages). */
export function formatHours(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${h} h ${String(m).padStart(2, '0')} min`;
}
