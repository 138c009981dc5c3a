import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { writeSpeechLikeWav } from '../helpers/audio.js';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

const PACE = 0.2;

let sb: Sandbox;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;
let speech: string;

beforeAll(async () => {
  sb = await startTestSandbox({ options: { jobSeconds: PACE } });
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'nvx-voice-e2e-'));
  speech = join(dir, 'speech.wav');
  writeSpeechLikeWav(speech);
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const jobRow = (id: string) => sb.db.get<{ status: string; deleted: number; workspace_guid: string }>('SELECT status, deleted, workspace_guid FROM voice_jobs WHERE id = ?', [id]);

/**
 * What needs a process: a pseudo-terminal, and Ctrl-C (SIGINT). The rest of voice is tested in-process
 * (test/cmd/voice.test.ts; the 10 s heartbeat of a long wait in a pipe in virtual time, test/cmd/voice-heartbeat.test.ts).
 */

describe('voice upload in a process', () => {
  it('asks for the workspace on a terminal (pseudo-terminal via script)', async () => {
    const cmd = [process.execPath, BIN, 'voice', 'upload', speech, '--json'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: config.dir, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.admin.token };
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      screen += s;
      if (!answered && screen.includes('Workspace for the voice job') && screen.includes('Customer Support')) {
        answered = true;
        child.stdin.write('\u001b[B\r'); // arrow down to the second choice, Enter
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    expect(code, screen).toBe(0);
    expect(screen).toContain(`Product Team (${WS.product})`);
    expect(screen).not.toContain('Sales');
    const jobId = /"jobId": "([0-9a-f-]{36})"/.exec(screen)?.[1];
    expect(jobRow(jobId!)?.workspace_guid).toBe(WS.support);
  });

  it('Ctrl-C during the upload deletes the job it created', async () => {
    const slow = await startTestSandbox({ options: { jobSeconds: PACE }, faults: 'latency=1:8000@/sandbox/uploads' });
    try {
      const child = spawn(process.execPath, [BIN, 'voice', 'upload', speech], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: config.dir, NOTEVOX_BASE_URL: slow.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.workspaceKey.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const job = () => slow.db.get<{ id: string; deleted: number }>('SELECT id, deleted FROM voice_jobs');
      const until = Date.now() + 20_000;
      while (!stderr.includes('Created voice job')) {
        if (Date.now() > until) throw new Error(`the upload never started: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 500)); // the PUT is on its way, held by the injected latency
      expect(job()!.deleted).toBe(0);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      const settle = Date.now() + 5000;
      while (job()!.deleted !== 1 && Date.now() < settle) await new Promise((r) => setTimeout(r, 50));
      expect(job()!.deleted, stderr).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe('Ctrl-C after upload-complete', () => {
  it('leaves the job running and prints the command that resumes it', async () => {
    const slow = await startTestSandbox({ options: { jobSeconds: 30 } });
    try {
      const out = join(dir, 'resume out');
      const child = spawn(process.execPath, [BIN, 'voice', 'upload', speech, '--format', 'srt', '--out', out], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: config.dir, NOTEVOX_BASE_URL: slow.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.workspaceKey.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const until = Date.now() + 20_000;
      while (!/UPLOADED · \d+s/.test(stderr)) {
        if (Date.now() > until) throw new Error(`the wait never started: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      const id = /Created voice job ([0-9a-f-]{36})/.exec(stderr)![1];
      expect(stderr).toContain(`Job ${id} keeps running on the service. Resume with: notevox voice wait ${id} --format srt --out '${out}'`);
      const row = slow.db.get<{ status: string; deleted: number }>('SELECT status, deleted FROM voice_jobs WHERE id = ?', [id]);
      expect(row).toMatchObject({ status: 'UPLOADED', deleted: 0 });
    } finally {
      await slow.close();
    }
  });
});
