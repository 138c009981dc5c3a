import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { ApiError, NetworkError } from '../../src/client/errors.js';
import type { EndpointId } from '../../src/contract/endpoints.js';
import { createMemoryIO } from '../../src/io/memory.js';
import { pool } from '../../src/pool.js';
import { completeUpload, isTransient, nextPollDelay, POLL } from '../../src/commands/voice/job.js';
import { jobId, translationLocales } from '../../src/commands/args.js';
import { parseDuration, shellWord } from '../../src/commands/voice/options.js';
import { COMPLETE_MARKER, readTranscript, resultsJson, srtTime, toSrt, writeResults, type Results } from '../../src/commands/voice/output.js';
import { preflight } from '../../src/commands/voice/preflight.js';
import { EXIT } from '../../src/errors.js';
import { m4aHeaderOnly, speechLikeWav, THREE_WORDS } from '../helpers/audio.js';

const dir = mkdtempSync(join(tmpdir(), 'nvx-voice-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const JOB = '6f1c2e3d-4b5a-4c6d-8e7f-9a0b1c2d3e4f';

describe('flags', () => {
  it('parses durations', () => {
    expect(parseDuration('--timeout', '90')).toBe(90_000);
    expect(parseDuration('--timeout', '2h')).toBe(7_200_000);
    expect(parseDuration('--timeout', '1h30m')).toBe(5_400_000);
    expect(parseDuration('--timeout', '250ms')).toBe(250);
    for (const bad of ['', 'soon', '2 h', '0', '1x', 'h']) expect(() => parseDuration('--timeout', bad), bad).toThrow(/--timeout/);
  });

  it('checks locales, their number, and job ids', () => {
    expect(translationLocales('ko_KR, ja_JP,ko_KR')).toEqual(['ko_KR', 'ja_JP']);
    expect(() => translationLocales('ko-KR')).toThrow('"ko-KR" is not a locale');
    expect(() => translationLocales('aa_AA,bb_BB,cc_CC,dd_DD,ee_EE,ff_FF')).toThrow('names 6 items');
    expect(jobId(JOB.toUpperCase())).toBe(JOB);
    expect(() => jobId('123')).toThrow('is not a voice job id');
  });

  it('quotes paths for printed commands', () => {
    expect(shellWord('out/dir-1')).toBe('out/dir-1');
    expect(shellWord("my results/it's")).toBe(`'my results/it'\\''s'`);
  });
});

describe('polling', () => {
  it('backs off from 1 s by 1.5× to a 30 s cap, with ±20 % jitter', () => {
    const bases: number[] = [];
    let d: number | undefined;
    for (let i = 0; i < 12; i++) {
      d = nextPollDelay(d, () => 0.5).base;
      bases.push(d);
    }
    expect(bases.slice(0, 4)).toEqual([1000, 1500, 2250, 3375]);
    expect(bases[bases.length - 1]).toBe(POLL.capMs);
    expect(nextPollDelay(undefined, () => 0).wait).toBe(800);
    expect(nextPollDelay(undefined, () => 1).wait).toBe(1200);
  });

  it('retries only transient failures', () => {
    const api = (status: number) => new ApiError({ status, errorType: 'x', apiMessage: 'm' });
    expect(isTransient(api(503))).toBe(true);
    expect(isTransient(api(429))).toBe(true);
    expect(isTransient(api(403))).toBe(false);
    expect(isTransient(new NetworkError({ target: 'h', failure: { code: 'ECONNRESET', reason: 'reset', retryable: true }, attempts: 1 }))).toBe(true);
    expect(isTransient(new Error('bug'))).toBe(false);
  });
});

describe('upload-complete', () => {
  /** A client whose upload-complete answers 409 and whose job is in `status`. */
  const client = (status: string) =>
    ({
      async call(id: EndpointId) {
        if (id === 'voice.uploadComplete') throw new ApiError({ status: 409, errorType: 'conflict', code: 409000, apiMessage: 'the upload was already completed' });
        if (id === 'voice.get') return { status: 200, headers: {}, data: { id: JOB, status }, attempts: 1 };
        throw new Error(`unexpected ${id}`);
      },
    }) as unknown as ApiClient;

  it('continues when a 409 means an earlier attempt landed', async () => {
    expect((await completeUpload(client('PROCESSING'), JOB)).status).toBe('PROCESSING');
  });
  it('passes the 409 on when the job never left CREATED', async () => {
    await expect(completeUpload(client('CREATED'), JOB)).rejects.toMatchObject({ status: 409, exitCode: EXIT.REJECTED });
  });
});

const results: Results = {
  transcript: {
    jobId: JOB,
    locale: 'en_US',
    text: 'Hello there.\n\nGeneral Kenobi.',
    segments: [
      { index: 0, startTimeMillis: 1200, endTimeMillis: 2850, speakerLabel: null, text: 'Hello there.' },
      { index: 1, startTimeMillis: 3_723_004, endTimeMillis: 3_725_000, speakerLabel: 'Grievous', text: 'General Kenobi.' },
    ],
  },
  translations: [{ jobId: JOB, locale: 'de_DE', text: 'Hallo.' }],
  summary: { jobId: JOB, locale: 'en_US', summary: { type: 'text/markdown', content: '- Hello' } },
};

describe('output', () => {
  it('writes SubRip cues', () => {
    expect(srtTime(3_723_004)).toBe('01:02:03,004');
    expect(toSrt(results.transcript)).toBe('1\n00:00:01,200 --> 00:00:02,850\nHello there.\n\n2\n01:02:03,004 --> 01:02:05,000\nGrievous: General Kenobi.\n');
  });

  it('puts translations and the summary beside the transcript in JSON', () => {
    expect(resultsJson(results)).toMatchObject({
      jobId: JOB,
      segments: results.transcript.segments,
      translations: [{ locale: 'de_DE', text: 'Hallo.' }],
      summary: { locale: 'en_US', type: 'text/markdown', content: '- Hello' },
    });
    expect(resultsJson({ ...results, translations: [], summary: undefined })).not.toHaveProperty('translations');
  });

  it('reads segments, falls back to paragraphs, and takes items with missing fields without failing (decisions.md §4.5)', () => {
    const seg = results.transcript.segments;
    const bare = { jobId: JOB, locale: 'en_US', text: 'x' };
    expect(readTranscript({ ...bare, segments: seg }, JOB).segments).toEqual(seg);
    expect(readTranscript({ ...bare, paragraphs: seg }, JOB).segments).toEqual(seg);
    // segments win over paragraphs when both are there; every other field of the answer is kept
    const both = readTranscript({ ...bare, segments: seg, paragraphs: [], extra: 1 }, JOB);
    expect(both).toMatchObject({ segments: seg, paragraphs: [], extra: 1 });
    // neither: no segments, the text as it is
    expect(readTranscript(bare, JOB)).toEqual({ ...bare, segments: [] });
    // items missing fields: position, previous end, no speaker, no text; non-objects left out; text from the segments
    const sparse = readTranscript({ segments: [{ text: 'One.', endTimeMillis: 900 }, 'junk', { startTimeMillis: 1000, speakerLabel: 7 }, { text: 'Three.' }] }, JOB);
    expect(sparse).toEqual({
      jobId: JOB,
      locale: '',
      text: 'One.\n\nThree.',
      segments: [
        { index: 0, startTimeMillis: 0, endTimeMillis: 900, speakerLabel: null, text: 'One.' },
        { index: 1, startTimeMillis: 1000, endTimeMillis: 1000, speakerLabel: null, text: '' },
        { index: 2, startTimeMillis: 1000, endTimeMillis: 1000, speakerLabel: null, text: 'Three.' },
      ],
    });
    expect(toSrt(sparse)).toBe('1\n00:00:00,000 --> 00:00:00,900\nOne.\n\n2\n00:00:01,000 --> 00:00:01,000\nThree.\n');
    for (const odd of [null, 'text', [], { segments: 'x' }]) expect(readTranscript(odd, JOB)).toMatchObject({ jobId: JOB, text: '', segments: [] });
  });

  it('writes the result files, leaving no temporary files', async () => {
    const out = join(dir, 'out', 'nested');
    const names = await writeResults(out, results, createMemoryIO().io);
    expect(names[names.length - 1]).toBe(COMPLETE_MARKER);
    expect(readdirSync(out).sort()).toEqual(['summary.md', 'transcript.json', 'transcript.srt', 'transcript.txt', 'translation-de_DE.txt']);
    expect(readFileSync(join(out, 'transcript.txt'), 'utf8')).toBe('Hello there.\n\nGeneral Kenobi.\n');
    expect(JSON.parse(readFileSync(join(out, 'transcript.json'), 'utf8'))).toEqual(results.transcript);
  });
});

describe('preflight', () => {
  it('reads the format from the content, not the name', async () => {
    const wavAsMp3 = join(dir, 'actually-a-wav.mp3');
    writeFileSync(wavAsMp3, speechLikeWav(THREE_WORDS).bytes);
    const f = await preflight(wavAsMp3);
    expect(f).toMatchObject({ kind: 'wav', contentType: 'audio/wav', name: 'actually-a-wav.mp3' });
    expect(f.durationSeconds).toBeCloseTo(3.37, 1);
    const m4aAsBin = join(dir, 'meeting.bin');
    writeFileSync(m4aAsBin, m4aHeaderOnly(90));
    expect(await preflight(m4aAsBin)).toMatchObject({ kind: 'mp4', contentType: 'audio/mp4', durationSeconds: 90 });
    const long = join(dir, 'long.m4a');
    writeFileSync(long, m4aHeaderOnly(4 * 3600 + 300));
    await expect(preflight(long)).rejects.toMatchObject({ exitCode: EXIT.USAGE, message: `${long} is 4 h 05 min long; voice file jobs take at most 4 hours` });
    const textAsWav = join(dir, 'notes.wav');
    writeFileSync(textAsWav, 'not audio at all');
    await expect(preflight(textAsWav)).rejects.toMatchObject({ exitCode: EXIT.USAGE, message: expect.stringContaining('is not WAV, MP3 or MP4/M4A audio') });
  });
});

describe('batch pool', () => {
  it('runs at most `limit` items at a time, all of them, and passes an error on after the others finished', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const items = Array.from({ length: 9 }, (_, i) => i);
    await pool(items, 3, async (i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5 + (i % 3) * 5));
      running--;
      done.push(i);
    });
    expect(peak).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual(items);
    const finished: number[] = [];
    await expect(
      pool([0, 1, 2], 2, async (i) => {
        if (i === 0) throw new Error('boom');
        await new Promise((r) => setTimeout(r, 10));
        finished.push(i);
      }),
    ).rejects.toThrow('boom');
    expect(finished).toEqual([1, 2]);
  });
});
