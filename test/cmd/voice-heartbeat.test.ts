import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOG_EVERY_MS } from '../../src/io/progress.js';
import { DEMO_KEYS, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import type { Clock } from '../../src/timing.js';
import { writeSpeechLikeWav } from '../helpers/audio.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

/**
 * The heartbeat of a long voice wait off a terminal (issue 13 item 4), in virtual time: the real 10 s interval of
 * src/io's spinner, the real poll schedule of the voice job and the sandbox's real job pace, with no real second
 * passing. vitest's fake timers drive setTimeout/setInterval and Date; the command's waits (ctx.clock) go through
 * the global setTimeout, looked up at each wait, so that once the timers are faked they are too.
 */
const timerClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const abort = () => (globalThis.clearTimeout(t), reject(signal!.reason));
      const t = globalThis.setTimeout(() => (signal?.removeEventListener('abort', abort), resolve()), ms);
      signal?.addEventListener('abort', abort, { once: true });
    }),
};

let dir: string;
let speech: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nvx-voice-heartbeat-'));
  speech = join(dir, 'speech.wav');
  writeSpeechLikeWav(speech);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a long wait in a pipe (issue 13 item 4)', () => {
  it('prints a line on stderr at least every 10 s while the job is processed, not 11 s of silence per stage', async () => {
    // The same command once with real timers first: vitest loads the command's lazily imported modules over an RPC
    // whose timeout is a timer, which virtual time would fire.
    const quick = await commandSandbox({ options: { jobSeconds: 0.01 } });
    try {
      const warm = await runCommand(['voice', 'upload', speech, '--workspace', WS.product, '-o', 'text'], { sandbox: quick, key: DEMO_KEYS.admin.token });
      expect(warm.exitCode, warm.stderr).toBe(0);
    } finally {
      await quick.close();
    }
    // Each stage of the job takes 11 s: without the heartbeat the status line changes only when the stage does.
    const slow = await commandSandbox({ options: { jobSeconds: 11 } });
    const realSetTimeout = globalThis.setTimeout;
    try {
      const lines: Array<{ at: number; text: string }> = [];
      let partial = '';
      let virtual = false;
      let finished = false;
      const run = runCommand(['voice', 'upload', speech, '--workspace', WS.product, '-o', 'text'], {
        sandbox: slow,
        key: DEMO_KEYS.admin.token,
        clock: timerClock,
        onStderr: (s) => {
          partial += s;
          const parts = partial.split('\n');
          partial = parts.pop()!;
          for (const text of parts) {
            lines.push({ at: Date.now(), text });
            // The upload (real file reads, whose watchdog timers must not run ahead of them) is over: from here on
            // the wait is timers only, and runs in virtual time (the clock goes on from the real now).
            if (!virtual && text.startsWith('Uploaded speech.wav')) {
              vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], shouldClearNativeTimers: true });
              virtual = true;
            }
          }
        },
      }).finally(() => (finished = true));
      while (!finished && !virtual) await new Promise((r) => realSetTimeout(r, 10));
      const started = Date.now();
      // Virtual time moves 100 ms at a time; between steps, real I/O (the sandbox reads the upload) gets 5 ms of real time.
      while (!finished) {
        await vi.advanceTimersByTimeAsync(100);
        await new Promise((r) => realSetTimeout(r, 5));
        if (Date.now() - started > 300_000) throw new Error(`no end after 300 s of virtual time:\n${lines.map((l) => l.text).join('\n')}`);
      }
      const r = await run;
      const shown = lines.map((l) => `${l.at - started} ms: ${l.text}`).join('\n');
      expect(r.exitCode, shown).toBe(0);
      expect(virtual, shown).toBe(true);
      // From the first line to the end: never more than the interval without a line.
      const times = [...lines.map((l) => l.at), Date.now()];
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.max(...gaps), shown).toBeLessThanOrEqual(LOG_EVERY_MS);
      expect(LOG_EVERY_MS).toBe(10_000);
      expect(Date.now() - started, shown).toBeGreaterThan(20_000);
      // Some of those lines are the heartbeat: the status line again, unchanged but for the time waited.
      const id = /Created voice job ([0-9a-f-]{36})/.exec(r.stderr)![1];
      const statusLines = lines.filter((l) => l.text.startsWith(`Job ${id}: `));
      expect(new Set(statusLines.map((l) => l.text.replace(/ · .*$/, ''))).size, shown).toBeLessThan(statusLines.length);
    } finally {
      vi.useRealTimers();
      await slow.close();
    }
  });
});
