import { createReadStream, readSync } from 'node:fs';
import { fsPromises } from '../io/require.js';

/**
 * A streaming reader for PCM WAV files: finds the `fmt ` and `data` chunks, then measures the energy of
 * the samples frame by frame without holding the file in memory (files may be hundreds of MB).
 */

export interface WavLayout {
  /** 1 = integer PCM, 3 = IEEE float (WAVE_FORMAT_EXTENSIBLE is resolved to its sub-format). */
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per sample frame (all channels). */
  blockAlign: number;
  dataOffset: number;
  /** Bytes of sample data actually present in the file. */
  dataBytes: number;
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;
/** Chunk headers read while looking for `data` (LIST/fact/… chunks before it are skipped). */
const MAX_CHUNKS = 64;

/** The layout of a WAV file, or null when it is not a PCM/float WAV this reader can decode. */
export async function readWavLayout(path: string): Promise<WavLayout | null> {
  const fh = await fsPromises().open(path, 'r');
  try {
    const { size } = await fh.stat();
    return await wavLayoutOf(size, async (buf, position) => (await fh.read(buf, 0, buf.length, position)).bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * readWavLayout of a file already open as `fd` (`size` bytes), read synchronously: the CLI's preflight, where each
 * read on libuv's pool cost a round trip to a worker thread before the job could be created.
 */
export function readWavLayoutFd(fd: number, size: number): Promise<WavLayout | null> {
  return wavLayoutOf(size, (buf, position) => readSync(fd, buf, 0, buf.length, position));
}

/** Reads `buf.length` bytes at `position` (fewer at the end of the file); resolves with how many it read. */
type ReadAt = (buf: Buffer, position: number) => number | Promise<number>;

async function wavLayoutOf(size: number, read: ReadAt): Promise<WavLayout | null> {
  const head = Buffer.alloc(12);
  if ((await read(head, 0)) < 12) return null;
  if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return null;
  let pos = 12;
  let fmt: Omit<WavLayout, 'dataOffset' | 'dataBytes'> | null = null;
  const chunk = Buffer.alloc(8);
  for (let i = 0; i < MAX_CHUNKS && pos + 8 <= size; i++) {
    await read(chunk, pos);
    const id = chunk.toString('latin1', 0, 4);
    const len = chunk.readUInt32LE(4);
    const body = pos + 8;
    if (id === 'fmt ') {
      const f = Buffer.alloc(Math.min(len, 40));
      if ((await read(f, body)) < 16) return null;
      let formatTag = f.readUInt16LE(0);
      if (formatTag === EXTENSIBLE && f.length >= 26) formatTag = f.readUInt16LE(24);
      fmt = { formatTag, channels: f.readUInt16LE(2), sampleRate: f.readUInt32LE(4), blockAlign: f.readUInt16LE(12), bitsPerSample: f.readUInt16LE(14) };
    } else if (id === 'data') {
      if (!fmt || !decodable(fmt)) return null;
      // Streaming writers leave the size at 0 or 0xFFFFFFFF: trust the file's length instead.
      const present = size - body;
      const dataBytes = len === 0 || len > present ? present : len;
      return { ...fmt, dataOffset: body, dataBytes: dataBytes - (dataBytes % fmt.blockAlign) };
    }
    pos = body + len + (len % 2);
  }
  return null;
}

function decodable(f: Omit<WavLayout, 'dataOffset' | 'dataBytes'>): boolean {
  if (f.channels < 1 || f.sampleRate < 1 || f.blockAlign !== (f.channels * f.bitsPerSample) / 8) return false;
  if (f.formatTag === PCM) return [8, 16, 24, 32].includes(f.bitsPerSample);
  return f.formatTag === FLOAT && (f.bitsPerSample === 32 || f.bitsPerSample === 64);
}

type SampleReader = (buf: Buffer, offset: number) => number;

/** A sample as a number in [-1, 1]. */
function sampleReader(l: WavLayout): SampleReader {
  if (l.formatTag === FLOAT) return l.bitsPerSample === 32 ? (b, o) => b.readFloatLE(o) : (b, o) => b.readDoubleLE(o);
  switch (l.bitsPerSample) {
    case 8:
      return (b, o) => (b[o] - 128) / 128;
    case 16:
      return (b, o) => b.readInt16LE(o) / 32768;
    case 24:
      return (b, o) => b.readIntLE(o, 3) / 8388608;
    default:
      return (b, o) => b.readInt32LE(o) / 2147483648;
  }
}

/** The duration of PCM audio with this layout, in seconds: its data chunk is authoritative (streaming writers leave other sizes wrong). */
export function wavSeconds(layout: WavLayout): number {
  return layout.dataBytes / layout.blockAlign / layout.sampleRate;
}

export interface FrameEnergy {
  /** Length of one frame in milliseconds (the last frame may be shorter). */
  frameMs: number;
  /** Root mean square of each frame, all channels together, in [0, 1]. */
  rms: Float64Array;
  /** Root mean square of the whole file. */
  fileRms: number;
  durationMs: number;
}

/** The RMS of every `frameMs` frame of the file's samples, streamed from disk. */
export async function frameEnergy(path: string, layout: WavLayout, frameMs = 30): Promise<FrameEnergy> {
  const bytesPerSample = layout.bitsPerSample / 8;
  const framesPerWindow = Math.max(1, Math.round((layout.sampleRate * frameMs) / 1000));
  const windowBytes = framesPerWindow * layout.blockAlign;
  const totalFrames = layout.dataBytes / layout.blockAlign;
  const rms = new Float64Array(Math.ceil(totalFrames / framesPerWindow));
  const read = sampleReader(layout);
  let window = 0;
  let inWindow = 0; // bytes of the current window seen so far
  let sum = 0;
  let total = 0;
  let carry: Buffer = Buffer.alloc(0);
  const flush = () => {
    const samples = inWindow / bytesPerSample;
    rms[window++] = Math.sqrt(sum / samples);
    total += sum;
    sum = 0;
    inWindow = 0;
  };
  if (layout.dataBytes > 0) {
    const stream = createReadStream(path, { start: layout.dataOffset, end: layout.dataOffset + layout.dataBytes - 1, highWaterMark: 1 << 20 });
    for await (const piece of stream as AsyncIterable<Buffer>) {
      const buf = carry.length ? Buffer.concat([carry, piece]) : piece;
      const usable = buf.length - (buf.length % bytesPerSample);
      for (let o = 0; o < usable; o += bytesPerSample) {
        const s = read(buf, o);
        sum += s * s;
        inWindow += bytesPerSample;
        if (inWindow === windowBytes) flush();
      }
      carry = buf.subarray(usable);
    }
  }
  if (inWindow > 0) flush();
  const samples = layout.dataBytes / bytesPerSample;
  return { frameMs: (framesPerWindow * 1000) / layout.sampleRate, rms: rms.subarray(0, window), fileRms: samples ? Math.sqrt(total / samples) : 0, durationMs: (totalFrames * 1000) / layout.sampleRate };
}
