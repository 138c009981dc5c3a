import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { DEMO_KEYS, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { espeakWav, garbageWav, m4aHeaderOnly, missingCapabilities, soxConvert, writeLargeWav, writeSpeechLikeWav } from '../helpers/audio.js';
import { tempConfigDir } from '../helpers/cli.js';
import { acceleratedClock } from '../helpers/clock.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

type Sandbox = Awaited<ReturnType<typeof commandSandbox>>;

/**
 * The CLI's waits (polls from 1 s, upload retries from 1 s) take 1/SPEED of their real time and count in full in the
 * times it measures and prints (test/helpers/clock.ts). Each stage of a sandbox job lasts PACE seconds of real time,
 * which is PACE × SPEED = 1 s of the CLI's time: about its first poll interval, so a job is still polled more than once.
 */
const SPEED = 50;
const PACE = 0.02;
const PLACEHOLDER = /^\[sandbox transcript \d\d:\d\d:\d\d\.\d\d–\d\d:\d\d:\d\d\.\d\d: no speech engine in the sandbox; pass --transcriber-command to use one\]$/;

let sb: Sandbox;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;
let speech: string;
let words: number;

beforeAll(async () => {
  sb = await commandSandbox({ options: { jobSeconds: PACE } });
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'nvx-voice-e2e-'));
  speech = join(dir, 'speech.wav');
  words = writeSpeechLikeWav(speech).words.length;
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], key: string = DEMO_KEYS.workspaceKey.token, box: Sandbox = sb, clock = acceleratedClock(SPEED)) =>
  runCommand(args, { sandbox: box, key, configDir: config.dir, clock });
const requests = () => sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;
const jobRow = (id: string) => sb.db.get<{ status: string; deleted: number; workspace_guid: string }>('SELECT status, deleted, workspace_guid FROM voice_jobs WHERE id = ?', [id]);
const file = (name: string, bytes: Buffer | string) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

describe('voice upload', () => {
  it('prints the transcript text by default, one paragraph per speech segment', async () => {
    const r = await cli(['voice', 'upload', speech, '--locale', 'en_US']);
    expect(r.exitCode, r.stderr).toBe(0);
    const paragraphs = r.stdout.trim().split('\n\n');
    expect(paragraphs).toHaveLength(words);
    for (const p of paragraphs) expect(p).toMatch(PLACEHOLDER);
    expect(r.stderr).toMatch(/Created voice job [0-9a-f-]{36}/);
    expect(r.stderr).toMatch(/Uploaded speech\.wav \(/);
    expect(r.stderr).toMatch(/COMPLETED after \d+s \(\d+\.\d s of audio\)/);
  });

  it('prints the transcript JSON with translations and the summary', async () => {
    const r = await cli(['voice', 'upload', speech, '--translate', 'ko_KR,ja_JP', '--summary', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.jobId).toMatch(LIMITS.uuidPattern);
    expect(out.paragraphs).toHaveLength(words);
    expect(out.paragraphs[0]).toMatchObject({ index: 0, speakerLabel: null });
    expect(out.translations.map((t: any) => t.locale)).toEqual(['ko_KR', 'ja_JP']);
    expect(out.summary).toMatchObject({ locale: 'en_US', type: 'text/markdown' });
    expect(out.summary.content).toContain('Sandbox output');
    expect(jobRow(out.jobId)).toMatchObject({ status: 'COMPLETED', workspace_guid: WS.product });
  });

  it('prints SubRip subtitles with --format srt', async () => {
    const r = await cli(['voice', 'upload', speech, '--format', 'srt']);
    expect(r.exitCode, r.stderr).toBe(0);
    const cues = r.stdout.trim().split('\n\n');
    expect(cues).toHaveLength(words);
    cues.forEach((cue, i) => {
      const [n, times, text] = cue.split('\n');
      expect(n).toBe(String(i + 1));
      expect(times).toMatch(/^\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}$/);
      expect(text).toMatch(PLACEHOLDER);
    });
  });

  it('uploads M4A as audio/mp4, whatever the file is called, and gets 10-second windows', async () => {
    const r = await cli(['voice', 'upload', file('meeting.audio', m4aHeaderOnly(25)), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.paragraphs.map((p: any) => [p.startTimeMillis, p.endTimeMillis])).toEqual([
      [0, 10_000],
      [10_000, 20_000],
      [20_000, 25_000],
    ]);
    expect(sb.db.get<{ content_type: string }>('SELECT content_type FROM voice_jobs WHERE id = ?', [out.jobId])?.content_type).toBe('audio/mp4');
  });

  it('takes the output mode from -o text|json|srt as well', async () => {
    const srt = await cli(['voice', 'upload', speech, '-o', 'srt']);
    expect(srt.exitCode, srt.stderr).toBe(0);
    expect(srt.stdout.split('\n')[1]).toMatch(/^\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}$/);
    const text = await cli(['-o', 'text', 'voice', 'upload', speech]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout.split('\n\n')[0]).toMatch(PLACEHOLDER);
    // an explicit --format wins over -o
    const json = await cli(['voice', 'upload', speech, '-o', 'srt', '--format', 'json']);
    expect(JSON.parse(json.stdout).paragraphs).toHaveLength(words);
    const other = await cli(['voice', 'status', JSON.parse(json.stdout).jobId, '-o', 'srt']);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('output format "srt" is not one of table, json');
  });

  it('--no-wait prints the job id; voice wait finishes it and --out writes the files', async () => {
    const r = await cli(['voice', 'upload', speech, '--no-wait', '--translate', 'de_DE']);
    expect(r.exitCode, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(LIMITS.uuidPattern);
    expect(r.stderr).toContain(`notevox voice wait ${id}`);
    expect(['UPLOADED', 'PROCESSING', 'COMPLETED']).toContain(jobRow(id)?.status);
    const out = join(dir, 'results');
    const w = await cli(['voice', 'wait', id, '--out', out, '--format', 'srt', '--wait-timeout', '1m']);
    expect(w.exitCode, w.stderr).toBe(0);
    expect(w.stdout).toContain(' --> ');
    for (const f of ['transcript.txt', 'transcript.json', 'transcript.srt', 'translation-de_DE.txt', 'summary.md']) expect(existsSync(join(out, f)), f).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'transcript.json'), 'utf8')).jobId).toBe(id);
    expect(readFileSync(join(out, 'translation-de_DE.txt'), 'utf8')).toContain('sandbox translation en_US→de_DE');
    // the other result commands on the finished job
    const status = await cli(['voice', 'status', id, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ id, status: 'COMPLETED' });
    const saved = (name: string) => readFileSync(join(out, name), 'utf8').trimEnd();
    expect((await cli(['voice', 'transcript', id])).stdout.trimEnd()).toBe(saved('transcript.txt'));
    expect((await cli(['voice', 'translation', id, 'de_DE'])).stdout.trimEnd()).toBe(saved('translation-de_DE.txt'));
    expect((await cli(['voice', 'translations', id, '--json'])).stdout).toContain('"de_DE"');
    expect((await cli(['voice', 'summary', id, '--locale', 'de_DE'])).stdout).toContain('(de_DE)');
    const missing = await cli(['voice', 'translation', id, 'fr_FR']);
    expect(missing.exitCode).toBe(5);
    const del = await cli(['voice', 'delete', id]);
    expect(del.exitCode, del.stderr).toBe(0);
    expect(jobRow(id)?.deleted).toBe(1);
    expect((await cli(['voice', 'status', id])).exitCode).toBe(5);
  });

  it('voice wait refuses a job whose upload never completed', async () => {
    const res = await sb.app.request('/v1/external/voice-file/jobs', {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEYS.workspaceKey.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { id } = (await res.json()) as { id: string };
    const r = await cli(['voice', 'wait', id]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(`job ${id} is CREATED: its upload was never completed`);
  });

  it('exits 9 with the errorMessage when the job FAILED', async () => {
    const r = await cli(['voice', 'upload', file('garbage.wav', garbageWav())]);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toMatch(/error: voice job [0-9a-f-]{36} FAILED: unreadable audio: the WAV file has no playable audio stream/);
    expect(r.stdout).toBe('');

    sb.rt.options.transcriberCommand = "echo 'whisper: model file not found' >&2; exit 2 # {file}";
    try {
      const t = await cli(['voice', 'upload', speech, '--json']);
      expect(t.exitCode).toBe(9);
      expect(t.stderr).toContain('FAILED: the transcriber command failed (exit code 2): whisper: model file not found');
      expect(JSON.parse(t.stdout)).toMatchObject({ status: 'FAILED' });
    } finally {
      delete sb.rt.options.transcriberCommand;
    }
  });

  it('checks the file before creating anything (exit 2)', async () => {
    const big = join(dir, 'big.wav');
    writeFileSync(big, readFileSync(speech).subarray(0, 64));
    truncateSync(big, LIMITS.uploadMaxBytes + 1); // sparse: costs no disk
    const bigger = join(dir, 'bigger.wav');
    writeFileSync(bigger, readFileSync(speech).subarray(0, 64));
    truncateSync(bigger, 510_000_000);
    const long = join(dir, 'long.wav');
    writeLargeWav(long, (LIMITS.audioMaxSeconds + 60) * 100 * 2, 100);
    const before = requests();
    const cases: Array<[string[], RegExp]> = [
      [['voice', 'upload', join(dir, 'missing.wav')], /missing\.wav: no such file/],
      [['voice', 'upload', dir], /is a directory/],
      [['voice', 'upload', file('notes.wav', 'these are meeting notes, not audio\n')], /is not WAV, MP3 or MP4\/M4A audio \(it starts with "these are me/],
      [['voice', 'upload', file('empty.mp3', '')], /is empty/],
      [['voice', 'upload', big], /big\.wav is 500 MB \(500,000,001 bytes\); uploads are limited to 500 MB \(500,000,000 bytes\)/],
      [['voice', 'upload', bigger], /bigger\.wav is 510 MB \(510,000,000 bytes\); uploads are limited to 500 MB/],
      [['voice', 'upload', long], /is 4 h 01 min long; voice file jobs take at most 4 hours/],
      [['voice', 'upload', speech, '--locale', 'english'], /--locale "english" is not a locale/],
      [['voice', 'upload', speech, '--translate', 'ko_KR,ja_JP,de_DE,fr_FR,es_ES,it_IT'], /--translate ".*" names 6 items, at most 5/],
      [['voice', 'upload', speech, '--format', 'vtt'], /--format "vtt" is not one of text, json, srt/],
      [['voice', 'upload', speech, '--wait-timeout', 'soon'], /--wait-timeout "soon" is not a duration/],
      [['voice', 'upload', speech, '--timeout', '30m'], /--timeout "30m" is the per-request timeout in seconds\nhint: To wait longer for the job, use --wait-timeout 30m\./],
      [['voice', 'wait', 'not-a-job'], /"not-a-job" is not a voice job id/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(requests()).toBe(before);
  });

  it('needs a workspace for an unbound key: exit 10 listing the choices, or --workspace', async () => {
    const r = await cli(['voice', 'upload', speech], DEMO_KEYS.admin.token);
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain('bound to no workspace');
    expect(r.stderr).toContain(`Pass --workspace with one of: ${WS.product} (Product Team), ${WS.support} (Customer Support)`);
    expect(r.stderr).not.toContain(WS.sales); // voice jobs disabled there
    const ok = await cli(['voice', 'upload', speech, '--workspace', 'Customer Support', '--json'], DEMO_KEYS.admin.token);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(jobRow(JSON.parse(ok.stdout).jobId)?.workspace_guid).toBe(WS.support);
  });

  it('a key bound to a workspace: create, upload, complete and nothing else (no auth/me first)', async () => {
    const from = sb.db.get<{ id: number }>('SELECT MAX(id) AS id FROM request_log')!.id;
    const r = await cli(['voice', 'upload', speech, '--no-wait']);
    expect(r.exitCode, r.stderr).toBe(0);
    const log = sb.db.all<{ method: string; path: string; status: number }>('SELECT method, path, status FROM request_log WHERE id > ? ORDER BY id', [from]);
    expect(log.map((l) => `${l.method} ${l.path.replace(/[0-9a-f-]{36}/, 'ID')} ${l.status}`)).toEqual([
      'POST /v1/external/voice-file/jobs 200',
      'PUT /sandbox/uploads/ID 200',
      'PUT /v1/external/voice-file/jobs/ID/upload-complete 200',
    ]);
  });

  it('uses the only voice-enabled workspace an unbound key reaches', async () => {
    // Priya reaches Product Team and Sales; Sales has voice jobs disabled
    const r = await cli(['voice', 'upload', speech, '--json'], DEMO_KEYS.member.token);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Using workspace Product Team (${WS.product})`);
    expect(jobRow(JSON.parse(r.stdout).jobId)?.workspace_guid).toBe(WS.product);
    // The service's 400004 to the create without a workspace is what sends the CLI looking for one.
    expect(r.stderr).not.toContain('400004');
  });

  it('explains 403000 and 403013', async () => {
    const disabled = await cli(['voice', 'upload', speech], DEMO_KEYS.salesWorkspaceKey.token);
    expect(disabled.exitCode).toBe(4);
    expect(disabled.stderr).toContain('403000');
    expect(disabled.stderr).toContain('hint: An admin must enable voice file jobs for this workspace.');
    const noPermission = await cli(['voice', 'upload', speech], DEMO_KEYS.noVoiceWorkspaceKey.token);
    expect(noPermission.exitCode).toBe(4);
    expect(noPermission.stderr).toContain('403013');
    expect(noPermission.stderr).toContain('hint: The key lacks the voice-file permission');
  });
});

describe('voice upload against a faulty or slow sandbox', () => {
  it('retries failed uploads from the start and rides out failed polls', async () => {
    const faulty = await commandSandbox({ options: { jobSeconds: PACE }, faults: '503=0.6@/sandbox/uploads,500=0.3@/voice-file/jobs/', faultSeed: 7 });
    try {
      // the client's own retries ride out failed API calls (5 retries: a call fails for good with probability 0.3^6)
      const r = await cli(['voice', 'upload', speech, '--json', '--max-retries', '5'], DEMO_KEYS.workspaceKey.token, faulty);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/Upload failed \(503 internal_error.*\); starting over \(attempt 2\)/);
      expect(JSON.parse(r.stdout).paragraphs).toHaveLength(words);
      const uploads = faulty.db.all<{ status: number }>("SELECT status FROM request_log WHERE path LIKE '/sandbox/uploads/%'");
      expect(uploads.map((u) => u.status)).toContain(503);
      expect(uploads[uploads.length - 1].status).toBe(200);
    } finally {
      await faulty.close();
    }
  });

  it('gives up after 3 more upload attempts and deletes the job it created', async () => {
    const down = await commandSandbox({ options: { jobSeconds: PACE }, faults: '503=1@/sandbox/uploads' });
    try {
      const r = await cli(['voice', 'upload', speech], DEMO_KEYS.workspaceKey.token, down);
      expect(r.exitCode, r.stderr).toBe(8);
      for (const attempt of [2, 3, 4]) expect(r.stderr).toContain(`starting over (attempt ${attempt})`);
      expect(r.stderr).not.toContain('attempt 5');
      const uploads = down.db.all<{ status: number }>("SELECT status FROM request_log WHERE path LIKE '/sandbox/uploads/%'");
      expect(uploads.map((u) => u.status)).toEqual([503, 503, 503, 503]);
      const job = down.db.get<{ id: string; deleted: number }>('SELECT id, deleted FROM voice_jobs');
      expect(job?.deleted).toBe(1);
      expect(r.stderr).toContain(`Job ${job!.id} was deleted: its upload did not complete.`);
    } finally {
      await down.close();
    }
  });

});

describe('a job that takes longer than --wait-timeout (issue 13 item 8)', () => {
  it('exits 12 (not 8, "unavailable"), leaves the job running and says how to resume; -o json tells it apart too', async () => {
    // Each stage takes 30 s of real time: far beyond the 2 s wait (40 ms of real time on the accelerated clock).
    const slow = await commandSandbox({ options: { jobSeconds: 30 } });
    // When the CLI polls, on its clock.
    const clock = acceleratedClock(SPEED);
    const polls: Array<{ path: string; at: number }> = [];
    const send: Sandbox['wire']['send'] = (req) => {
      if (req.method === 'GET') polls.push({ path: req.url.pathname, at: clock.now() });
      return slow.wire.send(req);
    };
    const watched: Sandbox = Object.assign(Object.create(slow) as Sandbox, { wire: { ...slow.wire, send } });
    try {
      const r = await cli(['voice', 'upload', speech, '--wait-timeout', '2s', '--summary', '--timeout', '5'], DEMO_KEYS.workspaceKey.token, watched, clock);
      expect(r.exitCode, r.stderr).toBe(12);
      expect(r.stderr).toContain('(raise --wait-timeout to wait longer)');
      const id = /Created voice job ([0-9a-f-]{36})/.exec(r.stderr)![1];
      expect(r.stderr).toContain(`gave up waiting after 2s: job ${id} is still UPLOADED`);
      expect(r.stderr).toContain(`resume with \`notevox voice wait ${id} --summary\``);
      expect(slow.db.get<{ status: string; deleted: number }>('SELECT status, deleted FROM voice_jobs WHERE id = ?', [id])).toMatchObject({ status: 'UPLOADED', deleted: 0 });
      // the last look is at the deadline, not one poll interval before it
      const looks = polls.filter((p) => p.path === `/v1/external/voice-file/jobs/${id}`).map((p) => p.at);
      expect(looks.length).toBeGreaterThanOrEqual(3); // at 0, after the first interval (0.8–1.2 s), at the deadline
      expect(looks[looks.length - 1] - looks[0]).toBeGreaterThanOrEqual(1900);
      // -o json: the error object says 12 as well
      const w = await cli(['voice', 'wait', id, '--wait-timeout', '1s', '-o', 'json'], DEMO_KEYS.workspaceKey.token, slow);
      expect(w.exitCode, w.stderr).toBe(12);
      const err = JSON.parse(w.stderr.trim().split('\n').at(-1)!).error;
      expect(err).toMatchObject({ exitCode: 12, errorType: null });
      expect(err.message).toContain(`gave up waiting after 1s: job ${id} is still`);
    } finally {
      await slow.close();
    }
  });
});

describe('voice transcribe', () => {
  it('processes a batch, reports the bad file, exits 9, and skips finished files when run again', async () => {
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeSpeechLikeWav(join(inbox, 'standup.wav'));
    writeSpeechLikeWav(join(inbox, 'retro.wav'), { words: [[200], [300]] });
    writeFileSync(join(inbox, 'broken.wav'), garbageWav());
    writeFileSync(join(inbox, 'README.txt'), 'not audio');
    const out = join(dir, 'batch');
    const args = ['voice', 'transcribe', inbox, '--out', out, '--concurrency', '2', '--json'];
    const r = await cli(args);
    expect(r.exitCode, r.stderr).toBe(9);
    const rows = JSON.parse(r.stdout);
    const byFile = Object.fromEntries(rows.map((row: any) => [row.file.split('/').pop(), row]));
    expect(Object.keys(byFile).sort()).toEqual(['broken.wav', 'retro.wav', 'standup.wav']);
    expect(byFile['standup.wav']).toMatchObject({ status: 'COMPLETED', output: join(out, 'standup') });
    expect(byFile['retro.wav']).toMatchObject({ status: 'COMPLETED', output: join(out, 'retro') });
    expect(byFile['broken.wav']).toMatchObject({ status: 'FAILED', output: null });
    expect(byFile['broken.wav'].note).toContain('unreadable audio');
    expect(byFile['standup.wav'].job).toMatch(LIMITS.uuidPattern);
    expect(r.stderr).toContain('Skipping');
    expect(JSON.parse(readFileSync(join(out, 'retro', 'transcript.json'), 'utf8')).paragraphs).toHaveLength(2);
    expect(existsSync(join(out, 'standup', 'summary.md'))).toBe(true);

    const again = await cli(args);
    expect(again.exitCode).toBe(9);
    const second = Object.fromEntries(JSON.parse(again.stdout).map((row: any) => [row.file.split('/').pop(), row.status]));
    expect(second).toEqual({ 'broken.wav': 'FAILED', 'retro.wav': 'SKIPPED', 'standup.wav': 'SKIPPED' });
  });
});

describe('voice transcribe: the job recorded before the upload (issue 25 item 6)', () => {
  const jobCount = () => sb.db.get<{ n: number }>('SELECT count(*) AS n FROM voice_jobs')!.n;
  const record = (outDir: string, jobId: string, wav: string, o: { size?: number } = {}) => {
    const st = statSync(wav);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, '.notevox-job.json'), JSON.stringify({ jobId, file: wav, size: o.size ?? st.size, mtimeMs: st.mtimeMs }));
  };

  it('waits for a recorded job instead of uploading again; a new job only when it is gone or the file changed', async () => {
    const inbox = join(dir, 'recorded');
    mkdirSync(inbox);
    const wav = join(inbox, 'kept.wav');
    writeSpeechLikeWav(wav);
    const out = join(dir, 'recorded-out');
    // A job uploaded by an earlier run that was stopped while waiting.
    const up = await cli(['voice', 'upload', wav, '--no-wait']);
    expect(up.exitCode, up.stderr).toBe(0);
    const earlier = up.stdout.trim();
    record(join(out, 'kept'), earlier, wav);
    const before = jobCount();
    const r = await cli(['voice', 'transcribe', inbox, '--out', out, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ job: earlier, status: 'COMPLETED' });
    expect(r.stderr).toContain(`kept.wav: resuming job ${earlier}`);
    expect(jobCount()).toBe(before);
    expect(existsSync(join(out, 'kept', '.notevox-job.json'))).toBe(false);

    // Gone (deleted on the service): uploaded again as a new job.
    rmSync(join(out, 'kept'), { recursive: true });
    expect((await cli(['voice', 'delete', earlier])).exitCode).toBe(0);
    record(join(out, 'kept'), earlier, wav);
    const gone = await cli(['voice', 'transcribe', inbox, '--out', out, '--json']);
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)[0].job).not.toBe(earlier);
    expect(jobCount()).toBe(before + 1);

    // Another recording under the same name (size differs): a new job, said so.
    rmSync(join(out, 'kept'), { recursive: true });
    const up2 = await cli(['voice', 'upload', wav, '--no-wait']);
    record(join(out, 'kept'), up2.stdout.trim(), wav, { size: 12 });
    const changed = await cli(['voice', 'transcribe', inbox, '--out', out, '--json']);
    expect(changed.exitCode, changed.stderr).toBe(0);
    expect(changed.stderr).toContain(`changed since job ${up2.stdout.trim()} was made for it; uploading it as a new job`);
    expect(JSON.parse(changed.stdout)[0].job).not.toBe(up2.stdout.trim());
  });
});

describe('spoken audio (espeak-ng, sox)', () => {
  it('transcribes spoken WAV by its speech segments and MP3 in fixed windows', async (t) => {
    const missing = missingCapabilities('espeak-ng', 'sox-mp3');
    if (missing) t.skip(missing);
    const wav = join(dir, 'spoken.wav');
    espeakWav('Hello from the notevox sandbox. This recording has two sentences.', wav);
    const mp3 = join(dir, 'spoken.mp3');
    soxConvert(wav, mp3);
    const w = await cli(['voice', 'upload', wav, '--json']);
    expect(w.exitCode, w.stderr).toBe(0);
    const wavParagraphs = JSON.parse(w.stdout).paragraphs;
    expect(wavParagraphs.length).toBeGreaterThanOrEqual(2); // the pause between the sentences
    const m = await cli(['voice', 'upload', mp3, '--json']);
    expect(m.exitCode, m.stderr).toBe(0);
    const mp3Out = JSON.parse(m.stdout);
    expect(mp3Out.paragraphs).toHaveLength(1); // one 10-second window
    expect(mp3Out.paragraphs[0].startTimeMillis).toBe(0);
    expect(jobRow(mp3Out.jobId)?.status).toBe('COMPLETED');
  });
});
