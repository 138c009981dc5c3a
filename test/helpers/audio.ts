import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wavefile from 'wavefile';

/**
 * Audio made by the tests (and by scripts/make-sample.mjs): speech-like WAVs from wavefile — tone bursts
 * shaped like syllables (a voiced fundamental with harmonics, a rise-and-fall envelope, a pitch glide),
 * grouped into words separated by pauses — and, where espeak-ng and sox are installed, real speech.
 */

export interface Span {
  startMs: number;
  endMs: number;
}

export interface PhraseOptions {
  /** Each word is a list of syllable lengths in ms. */
  words: number[][];
  /** Silence before the first word. Default 400. */
  leadMs?: number;
  /** Silence between the syllables of a word (shorter than the sandbox's 300 ms merge gap). Default 70. */
  syllableGapMs?: number;
  /** Silence between words (longer than the merge gap, so each word is one speech segment). Default 600. */
  pauseMs?: number;
  /** Silence after the last word. Default 400. */
  tailMs?: number;
}

export interface Phrase {
  syllables: Span[];
  /** Where each word is: the speech segments the sandbox should find. */
  words: Span[];
  durationMs: number;
}

/** Lay out syllables and words on a timeline. */
export function phrase(o: PhraseOptions): Phrase {
  const gap = o.syllableGapMs ?? 70;
  let t = o.leadMs ?? 400;
  const syllables: Span[] = [];
  const words: Span[] = [];
  o.words.forEach((word, i) => {
    if (i > 0) t += o.pauseMs ?? 600;
    const start = t;
    word.forEach((len, j) => {
      if (j > 0) t += gap;
      syllables.push({ startMs: t, endMs: t + len });
      t += len;
    });
    words.push({ startMs: start, endMs: t });
  });
  return { syllables, words, durationMs: t + (o.tailMs ?? 400) };
}

/** mulberry32: deterministic noise. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SynthOptions {
  sampleRate?: number;
  /** Peak level of the syllables, full scale = 1. Default 0.6. */
  amplitude?: number;
  /** Level of the background noise, full scale = 1. Default 0.002 (about -54 dBFS). */
  noise?: number;
  seed?: number;
}

/** Mono samples in [-1, 1]: each syllable a voiced tone with harmonics under a rise-and-fall envelope, over faint noise. */
export function synthesize(p: Phrase, o: SynthOptions = {}): Float64Array {
  const rate = o.sampleRate ?? 16000;
  const amp = o.amplitude ?? 0.6;
  const rand = prng(o.seed ?? 1);
  const out = new Float64Array(Math.round((p.durationMs * rate) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = (rand() * 2 - 1) * (o.noise ?? 0.002);
  p.syllables.forEach((s, k) => {
    const from = Math.round((s.startMs * rate) / 1000);
    const to = Math.min(out.length, Math.round((s.endMs * rate) / 1000));
    const n = to - from;
    const f0 = 120 + 25 * ((k * 7) % 5); // a different pitch per syllable
    let phase = 0;
    for (let i = 0; i < n; i++) {
      const x = i / n;
      const envelope = Math.sin(Math.PI * x) ** 0.6; // quick rise, sustained vowel, fall
      const f = f0 * (1.1 - 0.2 * x); // falling intonation
      phase += (2 * Math.PI * f) / rate;
      const voiced = Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase) + 0.12 * Math.sin(5 * phase);
      out[from + i] += (amp / 1.87) * envelope * voiced;
    }
  });
  return out;
}

export type BitDepth = '8' | '16' | '24' | '32' | '32f';

/** A WAV file (wavefile) from samples in [-1, 1]. */
export function wavBytes(samples: Float64Array, o: { sampleRate?: number; bitDepth?: BitDepth; channels?: number } = {}): Buffer {
  const depth = o.bitDepth ?? '16';
  const channels = o.channels ?? 1;
  const scaled =
    depth === '32f'
      ? Float32Array.from(samples)
      : depth === '8'
        ? Uint8Array.from(samples, (s) => Math.max(0, Math.min(255, Math.round(s * 127 + 128))))
        : Array.from(samples, (s) => Math.round(Math.max(-1, Math.min(1, s)) * (2 ** (Number(depth) - 1) - 1)));
  const wav = new wavefile.WaveFile();
  const data = channels === 1 ? scaled : Array.from({ length: channels }, () => scaled);
  wav.fromScratch(channels, o.sampleRate ?? 16000, depth, data as ArrayLike<number>);
  return Buffer.from(wav.toBuffer());
}

/** A speech-like WAV: its bytes and where its words are. */
export function speechLikeWav(p: PhraseOptions, o: SynthOptions & { bitDepth?: BitDepth; channels?: number } = {}): { bytes: Buffer; phrase: Phrase } {
  const ph = phrase(p);
  return { bytes: wavBytes(synthesize(ph, o), { sampleRate: o.sampleRate, bitDepth: o.bitDepth, channels: o.channels }), phrase: ph };
}

/** Three words over about four seconds, the default test recording. */
export const THREE_WORDS: PhraseOptions = { words: [[180, 220], [160, 140, 200], [260]] };

/** A RIFF/WAVE header followed by bytes that are not audio (the sandbox cannot decode it: FAILED). */
export function garbageWav(bytes = 4096): Buffer {
  const rand = prng(7);
  const body = Buffer.from(Array.from({ length: bytes }, () => Math.floor(rand() * 256)));
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(bytes + 4, 4);
  head.write('WAVE', 8, 'latin1');
  return Buffer.concat([head, body]);
}

/** A valid 16-bit mono WAV header announcing `dataBytes` of PCM, then that many bytes of a quiet tone, written in 1 MB pieces. */
export function writeLargeWav(path: string, dataBytes: number, sampleRate = 16000): void {
  const wav = new wavefile.WaveFile();
  wav.fromScratch(1, sampleRate, '16', []);
  const header = Buffer.from(wav.toBuffer());
  header.writeUInt32LE(36 + dataBytes, 4);
  header.writeUInt32LE(dataBytes, 40);
  const piece = Buffer.alloc(1 << 20);
  for (let i = 0; i < piece.length / 2; i++) piece.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / sampleRate)), i * 2);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    for (let left = dataBytes; left > 0; left -= piece.length) writeSync(fd, piece, 0, Math.min(piece.length, left));
  } finally {
    closeSync(fd);
  }
}

// ---- MP4/M4A without an encoder ----

const mp4Box = (type: string, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};
const be32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const be16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const UNITY = Buffer.concat([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(be32));

/**
 * An M4A file (ftyp `M4A `, one AAC sound track) whose headers announce `seconds` of audio but which holds no
 * samples: enough for the format and duration (music-metadata reads the headers; the sandbox cuts MP4 into
 * fixed windows without decoding it). No AAC encoder is needed.
 */
export function m4aHeaderOnly(seconds: number, sampleRate = 44100): Buffer {
  const timescale = 1000;
  const duration = Math.round(seconds * timescale);
  const mvhd = mp4Box('mvhd', be32(0), be32(0), be32(0), be32(timescale), be32(duration), be32(0x10000), be16(0x100), Buffer.alloc(10), UNITY, Buffer.alloc(24), be32(2));
  const tkhd = mp4Box('tkhd', be32(7), be32(0), be32(0), be32(1), be32(0), be32(duration), Buffer.alloc(8), be16(0), be16(0), be16(0x100), be16(0), UNITY, be32(0), be32(0));
  const mdhd = mp4Box('mdhd', be32(0), be32(0), be32(0), be32(sampleRate), be32(Math.round(seconds * sampleRate)), be16(0x55c4), be16(0));
  const hdlr = mp4Box('hdlr', be32(0), be32(0), Buffer.from('soun', 'latin1'), Buffer.alloc(12), Buffer.alloc(1));
  const mp4a = mp4Box('mp4a', Buffer.alloc(6), be16(1), Buffer.alloc(8), be16(1), be16(16), be16(0), be16(0), be32(sampleRate * 65536));
  const empty = (type: string, extra = 0) => mp4Box(type, be32(0), ...Array.from({ length: 1 + extra }, () => be32(0)));
  const stbl = mp4Box('stbl', mp4Box('stsd', be32(0), be32(1), mp4a), empty('stts'), empty('stsc'), empty('stsz', 1), empty('stco'));
  const minf = mp4Box('minf', mp4Box('smhd', be32(0), be16(0), be16(0)), stbl);
  const moov = mp4Box('moov', mvhd, mp4Box('trak', tkhd, mp4Box('mdia', mdhd, hdlr, minf)));
  return Buffer.concat([mp4Box('ftyp', Buffer.from('M4A ', 'latin1'), be32(0), Buffer.from('M4A mp42isom', 'latin1')), moov, mp4Box('mdat')]);
}

export function writeSpeechLikeWav(path: string, p: PhraseOptions = THREE_WORDS, o: SynthOptions & { bitDepth?: BitDepth } = {}): Phrase {
  const { bytes, phrase: ph } = speechLikeWav(p, o);
  writeFileSync(path, bytes);
  return ph;
}

// ---- real speech from espeak-ng and sox ----

export function hasTool(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore', env }).status === 0;
}

/**
 * Whether sox writes MP3 — a capability, not a program on PATH: Debian's plain `sox` package has no MP3 writer
 * ("no handler for file extension `mp3'"), which comes with libsox-fmt-mp3. A short tone is converted for real,
 * and the result must start like an MP3 (an ID3 tag or a frame sync).
 */
export function soxWritesMp3(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!hasTool('sox', env)) return false;
  const dir = mkdtempSync(join(tmpdir(), 'nvx-sox-'));
  try {
    const wav = join(dir, 'tone.wav');
    const mp3 = join(dir, 'tone.mp3');
    writeFileSync(wav, speechLikeWav({ words: [[120]], leadMs: 20, tailMs: 20 }).bytes);
    if (spawnSync('sox', [wav, mp3], { stdio: 'ignore', env }).status !== 0 || !existsSync(mp3)) return false;
    const head = readFileSync(mp3).subarray(0, 3);
    return head.toString('latin1') === 'ID3' || (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the spoken-audio tests need, each checked by doing it, and the Debian packages that give it (.ci/run installs them). */
export const CAPABILITIES = {
  'espeak-ng': { what: 'espeak-ng speaking to a WAV', packages: 'espeak-ng', check: () => hasTool('espeak-ng') },
  'sox-mp3': { what: 'sox writing MP3', packages: 'sox libsox-fmt-mp3', check: () => soxWritesMp3() },
} as const;
export type Capability = keyof typeof CAPABILITIES;

const known = new Map<Capability, boolean>();

/**
 * Why a test needing these capabilities cannot run here, naming the packages to install (undefined: it can).
 * Under CI (env CI set, where .ci/run installs them) a missing capability is a failure, not a skip.
 */
export function missingCapabilities(...names: Capability[]): string | undefined {
  const missing = names.filter((n) => {
    if (!known.has(n)) known.set(n, CAPABILITIES[n].check());
    return !known.get(n);
  });
  if (!missing.length) return undefined;
  const note = `needs ${missing.map((n) => CAPABILITIES[n].what).join(' and ')}: apt-get install ${missing.map((n) => CAPABILITIES[n].packages).join(' ')}`;
  if (process.env.CI) throw new Error(`CI ${note} (.ci/run installs it)`);
  return note;
}

/** Spoken English from espeak-ng as a WAV file. */
export function espeakWav(text: string, path: string): void {
  execFileSync('espeak-ng', ['-w', path, text], { stdio: 'ignore' });
}

/** Convert with sox (e.g. WAV to MP3). */
export function soxConvert(from: string, to: string): void {
  execFileSync('sox', [from, to], { stdio: 'ignore' });
}
