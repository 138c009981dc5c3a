import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { writeSpeechLikeWav } from '../helpers/audio.js';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { shellQuote } from '../helpers/pty.js';
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

/**
 * Issue 25 item 6: `voice transcribe` stopped by Ctrl-C after its uploads, then run again as the docs say: the
 * rerun waits for the jobs the first run recorded (DIR/<name>/.notevox-job.json, written before each upload)
 * instead of uploading the files again as new jobs; and on a terminal the lines that say how to resume stay on
 * the screen (the status block is redrawn below them, never over them).
 */
describe('voice transcribe: Ctrl-C, then the same command again', () => {
  const jobs = (box: Sandbox) => box.db.all<{ id: string; status: string; deleted: number }>('SELECT id, status, deleted FROM voice_jobs ORDER BY id');

  it('makes no second job for a file that was uploaded', async () => {
    const slow = await startTestSandbox({ options: { jobSeconds: 5 } });
    try {
      const inbox = join(dir, 'resume-inbox');
      mkdirSync(inbox);
      writeSpeechLikeWav(join(inbox, 'one.wav'));
      writeSpeechLikeWav(join(inbox, 'two.wav'), { words: [[200], [300]] });
      const out = join(dir, 'resume-batch');
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: config.dir, NOTEVOX_BASE_URL: slow.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.workspaceKey.token };
      const args = [BIN, 'voice', 'transcribe', inbox, '--out', out, '--json'];
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const until = Date.now() + 20_000;
      while (!(/one\.wav: (UPLOADED|PROCESSING)/.test(stderr) && /two\.wav: (UPLOADED|PROCESSING)/.test(stderr))) {
        if (Date.now() > until) throw new Error(`the uploads never completed: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(130);
      const first = jobs(slow);
      expect(first, stderr).toHaveLength(2);
      expect(first.every((j) => j.deleted === 0 && j.status !== 'COMPLETED'), JSON.stringify(first)).toBe(true);
      expect(stderr).toMatch(/keeps running on the service\. Resume with: notevox voice wait /);
      expect(stderr).toContain('Or run the same command again');
      for (const name of ['one', 'two']) expect(existsSync(join(out, name, '.notevox-job.json'))).toBe(true);

      // Asynchronously: the sandbox answers from this process.
      const rerun = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const again = { stdout: '', stderr: '', status: null as number | null };
      rerun.stdout.on('data', (d) => (again.stdout += d));
      rerun.stderr.on('data', (d) => (again.stderr += d));
      again.status = await new Promise<number | null>((resolve) => rerun.on('exit', resolve));
      expect(again.status, again.stderr).toBe(0);
      // The same two jobs, now COMPLETED: nothing uploaded twice.
      expect(jobs(slow).map((j) => [j.id, j.status])).toEqual(first.map((j) => [j.id, 'COMPLETED']));
      const rows = JSON.parse(again.stdout) as Array<{ job: string; status: string }>;
      expect(rows.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
      expect(rows.map((r) => r.job).sort()).toEqual(first.map((j) => j.id).sort());
      expect(again.stderr).toMatch(/resuming job/);
      for (const name of ['one', 'two']) {
        expect(existsSync(join(out, name, 'transcript.json'))).toBe(true);
        expect(existsSync(join(out, name, '.notevox-job.json'))).toBe(false);
      }
    } finally {
      await slow.close();
    }
  });

  it('on a terminal, the resume lines survive the redraw of the status lines', async () => {
    const slow = await startTestSandbox({ options: { jobSeconds: 30 } });
    try {
      const inbox = join(dir, 'pty-inbox');
      mkdirSync(inbox);
      writeSpeechLikeWav(join(inbox, 'alpha.wav'));
      writeSpeechLikeWav(join(inbox, 'beta.wav'), { words: [[200], [300]] });
      const waiting = /(UPLOADED|PROCESSING)[^\n]*\n[^\n]*(UPLOADED|PROCESSING)/;
      // A terminal of 100×30 (script's pseudo-terminal has no size of its own here), then Ctrl-C typed on it.
      const cmd = `stty cols 100 rows 30; exec ${[process.execPath, BIN, 'voice', 'transcribe', inbox, '--out', join(dir, 'pty-out')].map(shellQuote).join(' ')}`;
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: config.dir, NOTEVOX_BASE_URL: slow.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.workspaceKey.token };
      const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let screen = '';
      let typed = false;
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        screen += d;
        if (!typed && waiting.test(screen.slice(-400))) {
          typed = true;
          child.stdin.write('\u0003');
        }
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearTimeout(timer);
      expect(screen).toContain('\u001b[2A'); // the status lines were redrawn in place: the case at hand
      expect(exitCode).toBe(130);
      const shown = terminalScreen(screen).join('\n');
      for (const id of jobs(slow).map((j) => j.id)) expect(shown, shown).toContain(`Job ${id} keeps running on the service. Resume with: notevox voice wait ${id}`);
      expect(shown).toContain('Or run the same command again');
    } finally {
      await slow.close();
    }
  });
});

/**
 * What a terminal shows at the end of `text`: the lines after carriage returns, line feeds, cursor-up (CSI n A),
 * erase-line (CSI 2K) and erase-below (CSI J) have done their work; other escape sequences are dropped.
 */
const CSI = new RegExp(String.raw`^\u001b\[([0-9;?]*)([A-Za-z])`);

function terminalScreen(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  const at = (r: number) => (lines[r] ??= '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\u001b' && text[i + 1] === '[') {
      const m = CSI.exec(text.slice(i));
      if (!m) continue;
      i += m[0].length - 1;
      const n = Number(m[1] || '1');
      if (m[2] === 'A') row = Math.max(0, row - n);
      else if (m[2] === 'K' && m[1] === '2') lines[row] = '';
      else if (m[2] === 'J') {
        lines[row] = at(row).slice(0, col);
        lines.length = row + 1;
      }
    } else if (c === '\r') col = 0;
    else if (c === '\n') {
      row++;
      at(row);
    } else {
      const line = at(row).padEnd(col);
      lines[row] = line.slice(0, col) + c + line.slice(col + 1);
      col++;
    }
  }
  return lines;
}
