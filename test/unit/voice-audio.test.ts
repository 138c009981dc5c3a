import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeAudio, AudioRejected } from '../../src/sandbox/voice/analyze.js';
import { buildResults, clockTime, placeParagraphs } from '../../src/sandbox/voice/results.js';
import { detectSegments, fixedWindows, spreadOverSegments } from '../../src/sandbox/voice/segments.js';
import { sniffAudio } from '../../src/audio/sniff.js';
import { buildCommand, parseTranscriberOutput, runTranscriber, TranscriberFailed } from '../../src/sandbox/voice/transcriber.js';
import { wordReplacer } from '../../src/sandbox/voice/words.js';
import { espeakWav, m4aHeaderOnly, soxConvert, speechLikeWav, THREE_WORDS, missingCapabilities, wavBytes, type BitDepth } from '../helpers/audio.js';

const dir = mkdtempSync(join(tmpdir(), 'nvx-audio-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, bytes: Buffer | string) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

describe('sniffAudio', () => {
  const bytes = (...b: number[]) => Uint8Array.from(b);
  const ascii = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
  it('tells the formats apart by their first bytes', () => {
    expect(sniffAudio(ascii('RIFF\x24\x00\x00\x00WAVE'))?.contentType).toBe('audio/wav');
    expect(sniffAudio(ascii('RIFF\x24\x00\x00\x00AVI '))).toBeNull();
    expect(sniffAudio(ascii('ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00'))?.contentType).toBe('audio/mpeg');
    expect(sniffAudio(bytes(0xff, 0xfb, 0x90, 0x64))?.kind).toBe('mp3'); // MPEG-1 layer III
    expect(sniffAudio(bytes(0xff, 0xf1, 0x50, 0x80))).toBeNull(); // AAC ADTS (layer 00)
    expect(sniffAudio(ascii('\x00\x00\x00\x20ftypM4A '))).toMatchObject({ kind: 'mp4', contentType: 'audio/mp4', label: 'M4A' });
    expect(sniffAudio(ascii('\x00\x00\x00\x20ftypisom'))).toMatchObject({ kind: 'mp4', contentType: 'video/mp4' });
    expect(sniffAudio(ascii('hello world!'))).toBeNull();
    expect(sniffAudio(bytes())).toBeNull();
  });
});

describe('speech segments', () => {
  it('finds the words of a speech-like WAV at every bit depth and with two channels', async () => {
    const cases: Array<{ bitDepth: BitDepth; channels?: number }> = [{ bitDepth: '8' }, { bitDepth: '16' }, { bitDepth: '24' }, { bitDepth: '32' }, { bitDepth: '32f' }, { bitDepth: '16', channels: 2 }];
    for (const c of cases) {
      const { bytes, phrase } = speechLikeWav(THREE_WORDS, { ...c, sampleRate: 11025 });
      const a = await analyzeAudio(write(`w${c.bitDepth}-${c.channels ?? 1}.wav`, bytes));
      expect(a.segmentation).toBe('energy');
      expect(a.durationMs).toBeCloseTo(phrase.durationMs, -1);
      expect(a.segments, JSON.stringify(c)).toHaveLength(phrase.words.length);
      a.segments.forEach((s, i) => {
        expect(Math.abs(s.startMs - phrase.words[i].startMs)).toBeLessThanOrEqual(60);
        expect(Math.abs(s.endMs - phrase.words[i].endMs)).toBeLessThanOrEqual(60);
      });
    }
  });

  it('finds nothing in silence, merges short gaps and drops blips', async () => {
    const silence = await analyzeAudio(write('silence.wav', wavBytes(new Float64Array(16000))));
    expect(silence.segments).toEqual([]);
    expect(silence.durationMs).toBe(1000);
    const frames = (pattern: string) => Float64Array.from(pattern, (c) => (c === '#' ? 0.5 : 0.001));
    const rms = frames(`....####..####${'.'.repeat(12)}#${'.'.repeat(12)}##########`);
    // 30 ms frames: a 60 ms gap merges, a lone 30 ms frame 360 ms away from the rest is dropped
    expect(detectSegments(rms, 30, 0.3, rms.length * 30)).toEqual([
      { startMs: 120, endMs: 420 },
      { startMs: 1170, endMs: 1470 },
    ]);
    expect(detectSegments(new Float64Array(100), 30, 0, 3000)).toEqual([]);
  });

  it('splits audio it does not decode into fixed windows', () => {
    expect(fixedWindows(25_000)).toEqual([
      { startMs: 0, endMs: 10_000 },
      { startMs: 10_000, endMs: 20_000 },
      { startMs: 20_000, endMs: 25_000 },
    ]);
  });

  it('spreads paragraphs over the segments', () => {
    const segs = [
      { startMs: 0, endMs: 100 },
      { startMs: 200, endMs: 300 },
      { startMs: 400, endMs: 500 },
    ];
    expect(spreadOverSegments(2, segs, 600)).toEqual([
      { startMs: 0, endMs: 100 },
      { startMs: 200, endMs: 500 },
    ]);
    expect(spreadOverSegments(5, segs, 600).map((s) => s.startMs)).toEqual([0, 100, 200, 300, 400]);
    expect(spreadOverSegments(2, [], 1000)).toEqual([
      { startMs: 0, endMs: 500 },
      { startMs: 500, endMs: 1000 },
    ]);
  });

  it('reads M4A by its content (the upload has no extension) and cuts it into fixed windows', async () => {
    const a = await analyzeAudio(write('job.upload', m4aHeaderOnly(25)));
    expect(a.format).toBe('M4A (MPEG-4/AAC, 44100 Hz, 1 channel)');
    expect(a.durationMs).toBe(25_000);
    expect(a.segmentation).toBe('windows');
    expect(a.segments).toEqual(fixedWindows(25_000));
    await expect(analyzeAudio(write('long.upload', m4aHeaderOnly(4 * 3600 + 61)))).rejects.toThrow('the audio is 4 h 01 min long; voice file jobs take at most 4 hours');
  });

  it('rejects what it cannot process', async () => {
    await expect(analyzeAudio(write('text.wav', 'plain text, not audio'))).rejects.toThrow(AudioRejected);
    await expect(analyzeAudio(write('text.wav', 'plain text, not audio'))).rejects.toThrow(/unsupported audio format.*"plain text, "/);
  });
});

describe('spoken audio', () => {
  it('reads espeak-ng speech as WAV (segments) and as MP3 (windows)', async (t) => {
    const missing = missingCapabilities('espeak-ng', 'sox-mp3');
    if (missing) t.skip(missing);
    const wav = join(dir, 'spoken.wav');
    espeakWav('Good morning. The quarterly numbers are in.', wav);
    const mp3 = join(dir, 'spoken.mp3');
    soxConvert(wav, mp3);
    const w = await analyzeAudio(wav);
    expect(w.segmentation).toBe('energy');
    expect(w.segments.length).toBeGreaterThanOrEqual(2);
    expect(w.segments[0].startMs).toBeLessThan(300);
    const m = await analyzeAudio(mp3);
    expect(m.format).toMatch(/^MP3 /);
    expect(m.segmentation).toBe('windows');
    expect(Math.abs(m.durationMs - w.durationMs)).toBeLessThan(200);
  });
});

describe('transcriber command', () => {
  it('quotes the file path into the command', async () => {
    expect(buildCommand('stt --in {file} --fast', "/tmp/it's here.wav")).toBe(`stt --in '/tmp/it'\\''s here.wav' --fast`);
    expect(buildCommand('stt', '/a.wav')).toBe(`stt '/a.wav'`);
    const path = write("it's a file.txt", 'First paragraph.\n\n  Second one,\nstill second.\n\n\n');
    expect(await runTranscriber('cat {file}', path)).toEqual([{ text: 'First paragraph.' }, { text: 'Second one,\nstill second.' }]);
  });

  it('reads JSON paragraphs and rejects malformed ones', () => {
    expect(parseTranscriberOutput('[{"text":" Hi ","startTimeMillis":5,"speakerLabel":"S1"},{"text":""}]')).toEqual([{ text: 'Hi', startTimeMillis: 5, speakerLabel: 'S1' }]);
    expect(() => parseTranscriberOutput('[{"text": 1}]')).toThrow(TranscriberFailed);
    expect(() => parseTranscriberOutput('[not json')).toThrow(/invalid JSON/);
    expect(parseTranscriberOutput('  \n')).toEqual([]);
  });

  it('fails with the first stderr line, or on timeout', async () => {
    await expect(runTranscriber('echo; echo "  no model" >&2; exit 4 # {file}', '/x')).rejects.toThrow('the transcriber command failed (exit code 4): no model');
    await expect(runTranscriber('sleep 5 # {file}', '/x', 200)).rejects.toThrow('the transcriber command timed out after 0.2 s');
    // the whole process group ends, not only the shell: a program still holding stdout would keep it waiting
    const started = Date.now();
    await expect(runTranscriber('sleep 5; echo late # {file}', '/x', 200)).rejects.toThrow('timed out');
    expect(Date.now() - started).toBeLessThan(2000);
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 100);
    await expect(runTranscriber('sleep 5 | cat # {file}', '/x', 10_000, cancel.signal)).rejects.toThrow('the transcriber command was cancelled');
  });
});

describe('word memories and results', () => {
  const replace = wordReplacer(
    new Map([
      ['k8s', 'Kubernetes'],
      ['harbor-freight', 'HFL'],
      ['hfl', 'Harbor-Freight-Logistics'],
    ]),
  );
  it('replaces whole words, ignoring case, in one pass', () => {
    expect(replace('K8S and k8s, not k8ss or xk8s.')).toBe('Kubernetes and Kubernetes, not k8ss or xk8s.');
    expect(replace('Harbor-Freight met HFL')).toBe('HFL met Harbor-Freight-Logistics');
    expect(replace('Harbor-Freight-Co stays')).toBe('Harbor-Freight-Co stays');
    expect(wordReplacer(new Map())('unchanged')).toBe('unchanged');
  });

  it('builds the transcript, translations and summaries', () => {
    const paragraphs = placeParagraphs([{ text: 'One two three.' }, { text: 'Four.', startTimeMillis: 4000, endTimeMillis: 99_999 }], [{ startMs: 100, endMs: 900 }], 5000);
    expect(paragraphs[0]).toMatchObject({ index: 0, startTimeMillis: 100, speakerLabel: null });
    expect(paragraphs[1]).toMatchObject({ startTimeMillis: 4000, endTimeMillis: 5000 }); // clamped to the audio
    const r = buildResults(paragraphs, 'en_US', ['ko_KR']);
    expect(r.transcript.text).toBe('One two three.\n\nFour.');
    expect(r.translations[0].text).toContain('[sandbox translation en_US→ko_KR');
    expect(r.summary.transcript).toContain(`**${clockTime(100)}–${clockTime(500)}** One two three.`);
    expect(r.summary.translations.ko_KR).toContain('# Paragraph summary (ko_KR)');
    expect(clockTime(3_723_456)).toBe('01:02:03.46');
  });
});
