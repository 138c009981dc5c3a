import { LIMITS } from '../../contract/limits.js';
import { detectSegments, fixedWindows, type Segment } from './segments.js';
import { describeHead, formatHours, readHead, sniffAudio } from '../../audio/sniff.js';
import { frameEnergy, readWavLayout, wavSeconds } from '../../audio/wav.js';

/** What the sandbox can learn from an uploaded file without a speech engine: its format, length and speech segments. */

export interface AudioAnalysis {
  /** e.g. "WAV (PCM, 16000 Hz, 1 channel)". */
  format: string;
  durationMs: number;
  segments: Segment[];
  /** How the segments were found. */
  segmentation: 'energy' | 'windows';
}

/** The audio cannot be processed; the message becomes the job's `errorMessage`. */
export class AudioRejected extends Error {}

/** A form upload's body: a `--boundary` line and a part with `Content-Disposition: form-data`. */
export function isMultipartBody(head: Uint8Array): boolean {
  const text = Buffer.from(head).toString('latin1');
  return /^--\S+\r?\n/.test(text) && /content-disposition:\s*form-data/i.test(text);
}

export async function analyzeAudio(path: string): Promise<AudioAnalysis> {
  const head = await readHead(path);
  const sniffed = sniffAudio(head);
  if (!sniffed) {
    if (isMultipartBody(await readHead(path, 1024)))
      throw new AudioRejected('the upload is a multipart/form-data body, not audio: PUT the raw bytes of the file to the uploadUri (as to an S3 presigned URL), not a form');
    throw new AudioRejected(`unsupported audio format: the file is not WAV, MP3 or MP4/M4A (${describeHead(head)})`);
  }
  const { parseFile } = await import('music-metadata');
  let meta;
  try {
    meta = await parseFile(path, { skipCovers: true });
  } catch (e) {
    throw new AudioRejected(`unreadable audio: the ${sniffed.label} file could not be decoded (${(e as Error).message.split(path).join('the upload')})`);
  }
  const f = meta.format;
  const layout = sniffed.kind === 'wav' ? await readWavLayout(path) : null;
  // For PCM WAV the data chunk is authoritative (streaming writers leave sizes the parser misreads).
  const seconds = layout ? wavSeconds(layout) : f.duration;
  if (!seconds || !Number.isFinite(seconds) || !f.sampleRate) {
    throw new AudioRejected(`unreadable audio: the ${sniffed.label} file has no playable audio stream (no sample rate or duration could be read)`);
  }
  if (seconds > LIMITS.audioMaxSeconds)
    throw new AudioRejected(`the audio is ${formatHours(seconds)} long; voice file jobs take at most ${LIMITS.audioMaxSeconds / 3600} hours`);
  const channels = f.numberOfChannels ?? layout?.channels;
  const format = `${sniffed.label} (${[f.codec, `${f.sampleRate} Hz`, channels ? `${channels} channel${channels > 1 ? 's' : ''}` : undefined].filter(Boolean).join(', ')})`;
  const durationMs = seconds * 1000;
  if (layout) {
    const energy = await frameEnergy(path, layout);
    return { format, durationMs, segments: detectSegments(energy.rms, energy.frameMs, energy.fileRms, durationMs), segmentation: 'energy' };
  }
  return { format, durationMs, segments: fixedWindows(durationMs), segmentation: 'windows' };
}
