import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { CliError, EXIT, InputNeededError } from '../../src/errors.js';
import { applyColorToEnvironment, decideCanPrompt, decideColor } from '../../src/io/iostreams.js';
import { createMemoryIO } from '../../src/io/memory.js';
import { createProgress, createSpinner, formatBar, formatBytes, formatProgressLine, type StatusSink } from '../../src/io/progress.js';
import { createPrompter } from '../../src/io/prompter.js';

const TTY = { stdoutTTY: true, stderrTTY: true };

describe('colour decision', () => {
  it.each([
    ['terminal, nothing set', {}, TTY, undefined, true],
    ['NO_COLOR', { NO_COLOR: '1' }, TTY, undefined, false],
    ['NO_COLOR empty counts as unset', { NO_COLOR: '' }, TTY, undefined, true],
    ['--no-color', {}, TTY, true, false],
    ['TERM=dumb', { TERM: 'dumb' }, TTY, undefined, false],
    ['stdout piped', {}, { stdoutTTY: false, stderrTTY: true }, undefined, false],
    ['stderr piped', {}, { stdoutTTY: true, stderrTTY: false }, undefined, false],
    ['FORCE_COLOR when piped', { FORCE_COLOR: '1' }, { stdoutTTY: false, stderrTTY: false }, undefined, true],
    ['FORCE_COLOR with TERM=dumb', { FORCE_COLOR: '3', TERM: 'dumb' }, TTY, undefined, true],
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }, TTY, undefined, false],
    ['NO_COLOR beats FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '1' }, TTY, undefined, false],
    ['--no-color beats FORCE_COLOR', { FORCE_COLOR: '1' }, TTY, true, false],
  ] as const)('%s', (_name, env, ttys, noColor, expected) => {
    expect(decideColor({ env, noColor, ...ttys })).toBe(expected);
    const { io } = createMemoryIO({ env, noColor, ...ttys });
    expect(io.color).toBe(expected);
  });

  it('the color setting applies after the environment', () => {
    expect(decideColor({ env: {}, colorSetting: 'never', ...TTY })).toBe(false);
    expect(decideColor({ env: {}, colorSetting: 'always', stdoutTTY: false, stderrTTY: false })).toBe(true);
    expect(decideColor({ env: { NO_COLOR: '1' }, colorSetting: 'always', ...TTY })).toBe(false);
  });

  describe('applyColorToEnvironment', () => {
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    afterEach(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });

    it('turns every library off with FORCE_COLOR=0 (and no NO_COLOR to conflict)', () => {
      process.env.NO_COLOR = '1';
      applyColorToEnvironment(false);
      expect(process.env.FORCE_COLOR).toBe('0');
      expect(process.env.NO_COLOR).toBeUndefined();
    });

    it('leaves libraries on when colour is on', () => {
      process.env.FORCE_COLOR = '0';
      applyColorToEnvironment(true);
      expect(process.env.FORCE_COLOR).toBeUndefined();
      process.env.FORCE_COLOR = '2';
      applyColorToEnvironment(true);
      expect(process.env.FORCE_COLOR).toBe('2');
    });

    it('forces libraries on when colour is on although a stream is piped (color always)', () => {
      delete process.env.FORCE_COLOR;
      applyColorToEnvironment(true, { terminals: false });
      expect(process.env.FORCE_COLOR).toBe('1');
      delete process.env.FORCE_COLOR;
      applyColorToEnvironment(true, { terminals: true });
      expect(process.env.FORCE_COLOR).toBeUndefined();
    });

    /** In a fresh process (chalk decides once, on import): apply the decision, then spin an ora spinner into a buffer. */
    function oraOutput(color: boolean, terminals: boolean, env: Record<string, string>): { level: number; escapes: boolean } {
      const script = `
        const { applyColorToEnvironment } = await import(${JSON.stringify(new URL('../../src/io/iostreams.ts', import.meta.url).pathname)});
        applyColorToEnvironment(${color}, { terminals: ${terminals} });
        const { Writable } = await import('node:stream');
        let out = '';
        const stream = Object.assign(new Writable({ write(c, _e, cb) { out += c; cb(); } }), { isTTY: true, columns: 80, cursorTo: () => true, moveCursor: () => true, clearLine: () => true });
        const { default: ora } = await import('ora');
        const { default: chalk } = await import('chalk');
        const s = ora({ text: 'working', stream, isEnabled: true, color: 'cyan', discardStdin: false }).start();
        await new Promise((r) => setTimeout(r, 150));
        s.stop();
        console.log(JSON.stringify({ level: chalk.level, escapes: out.includes('\u001b[36m') }));`;
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NO_COLOR' && k !== 'FORCE_COLOR'));
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...clean, TERM: 'xterm', ...env } });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout.trim().split('\n').pop()!);
    }

    it('chalk inside ora follows the decision, whatever the environment said', () => {
      expect(oraOutput(false, true, { FORCE_COLOR: '3' })).toEqual({ level: 0, escapes: false });
      expect(oraOutput(false, true, { NO_COLOR: '' })).toEqual({ level: 0, escapes: false });
      const forced = oraOutput(true, false, {});
      expect(forced.level).toBeGreaterThan(0);
      expect(forced.escapes).toBe(true);
    });
  });
});

/** Resolves once the prompt is on screen (inquirer loads lazily; input sent before that would be lost). */
async function shown(m: ReturnType<typeof createMemoryIO>, text: string): Promise<void> {
  for (let i = 0; i < 200 && !m.stderr().includes(text); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('prompting', () => {
  const both = { stdinTTY: true, stderrTTY: true };
  it.each([
    ['terminal', {}, both, undefined, true],
    ['CI set', { CI: 'true' }, both, undefined, false],
    ['CI=1', { CI: '1' }, both, undefined, false],
    ['CI=false', { CI: 'false' }, both, undefined, true],
    ['CI=0', { CI: '0' }, both, undefined, true],
    ['stdin piped', {}, { stdinTTY: false, stderrTTY: true }, undefined, false],
    ['stderr redirected', {}, { stdinTTY: true, stderrTTY: false }, undefined, false],
    // The question goes to stderr and the answer comes from stdin: `wm sync --prune > plan.tsv` may still ask.
    ['stdout redirected', {}, { stdinTTY: true, stderrTTY: true, stdoutTTY: false }, undefined, true],
    ['--no-input', {}, both, true, false],
  ] as const)('%s', (_name, env, ttys, noInput, expected) => {
    expect(decideCanPrompt({ env, noInput, ...ttys })).toBe(expected);
    expect(createMemoryIO({ env, noInput, ...ttys }).io.canPrompt).toBe(expected);
  });

  it('every prompt throws InputNeededError naming the flag when prompting is not allowed', async () => {
    const p = createPrompter(createMemoryIO({ env: { CI: '1' }, stdinTTY: true, stdoutTTY: true, stderrTTY: true }).io);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['--title', () => p.input({ message: 'Title', flag: '--title' })],
      ['--with-key', () => p.password({ message: 'API key', flag: '--with-key' })],
      ['--workspace', () => p.select({ message: 'Workspace', flag: '--workspace', choices: [{ name: 'a', value: 1 }] })],
      ['--yes', () => p.confirm({ message: 'Delete?', flag: '--yes' })],
    ];
    for (const [flag, call] of calls) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InputNeededError);
      expect((err as InputNeededError).exitCode).toBe(EXIT.INPUT_NEEDED);
      expect((err as InputNeededError).exitCode).toBe(10);
      expect((err as InputNeededError).hint).toContain(flag);
    }
  });

  it('asks on stderr and reads the answer from stdin when allowed', async () => {
    const m = createMemoryIO({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
    const answer = createPrompter(m.io).input({ message: 'Your name', flag: '--name' });
    await shown(m, 'Your name');
    m.stdin.write('Ada\n');
    await expect(answer).resolves.toBe('Ada');
    expect(m.stderr()).toContain('Your name');
    expect(m.stdout()).toBe('');
  });

  it('masks passwords with *', async () => {
    const m = createMemoryIO({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
    const answer = createPrompter(m.io).password({ message: 'Key', flag: '--with-key' });
    await shown(m, 'Key');
    m.stdin.write('id.topsecret\n');
    await expect(answer).resolves.toBe('id.topsecret');
    expect(m.stderr()).not.toContain('topsecret');
    expect(m.stderr()).toContain('*');
  });

  it('turns a closed prompt (Ctrl-C) into exit 130', async () => {
    const m = createMemoryIO({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
    const answer = createPrompter(m.io).confirm({ message: 'Go?', flag: '--yes' });
    await shown(m, 'Go?');
    m.stdin.write('\u0003');
    const err = await answer.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT.INTERRUPTED);
  });
});

describe('IOStreams', () => {
  it('columns: explicit, else the terminal, else $COLUMNS, else 80', () => {
    expect(createMemoryIO({ columns: 42, terminalColumns: 100 }).io.columns).toBe(42);
    expect(createMemoryIO({ stdoutTTY: true, terminalColumns: 100, env: { COLUMNS: '120' } }).io.columns).toBe(100);
    expect(createMemoryIO({ env: { COLUMNS: '120' } }).io.columns).toBe(120);
    expect(createMemoryIO().io.columns).toBe(80);
  });

  it('messages go to stderr, data to stdout; warnings are yellow only with colour', () => {
    const plain = createMemoryIO();
    plain.io.out('data\n');
    plain.io.info('hello');
    plain.io.warn('careful');
    plain.io.success('done');
    expect(plain.stdout()).toBe('data\n');
    expect(plain.stderr()).toBe('hello\nwarning: careful\ndone\n');

    const coloured = createMemoryIO({ ...TTY });
    coloured.io.warn('careful');
    expect(coloured.stderr()).toBe('\u001b[33mwarning:\u001b[39m careful\n');
  });

  it('a spinner is silent when stderr is not a terminal, except for an explicit final message', async () => {
    const m = createMemoryIO();
    const s = m.io.spinner('Working');
    s.text('Still working');
    s.succeed('Uploaded');
    m.io.spinner('Other').stop();
    m.io.spinner('Third').fail();
    await new Promise((r) => setTimeout(r, 50));
    expect(m.stderr()).toBe('✓ Uploaded\n');
    expect(m.stdout()).toBe('');
  });

  it('a spinner on a terminal animates on stderr and ends with a ✓ line', async () => {
    const m = createMemoryIO({ ...TTY, terminalColumns: 80, noColor: true });
    const s = m.io.spinner('Loading');
    for (let i = 0; i < 200 && !m.stderr().includes('Loading'); i++) await new Promise((r) => setTimeout(r, 10));
    s.succeed('Finished');
    expect(m.stderr()).toContain('Loading');
    expect(m.stderr().endsWith('✓ Finished\n')).toBe(true);
    expect(m.stdout()).toBe('');
  });

  it('a spinner stopped before ora loaded never starts', async () => {
    const m = createMemoryIO({ ...TTY, terminalColumns: 80 });
    m.io.spinner('Quick').stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(m.stderr()).toBe('');
  });
});

describe('progress', () => {
  it('formats bytes, rate, ETA and retries', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(5_000_000)).toBe('5 MB');
    expect(formatBytes(999_960)).toBe('1 MB');
    // Issue 13 item 2: decimal like the service's limits (500 MB is 500,000,000 bytes), not 1024-based "MB".
    expect(formatBytes(510_000_000)).toBe('510 MB');
    expect(formatBytes(LIMITS.uploadMaxBytes)).toBe('500 MB');
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB');
    const line = formatProgressLine({ label: 'Uploading a.wav', unit: 'bytes', done: 1_000_000, total: 4_000_000, elapsedMs: 2000, retries: 2 });
    expect(line).toBe('Uploading a.wav  1 MB/4 MB  500 kB/s  ETA 6s  (retries 2)');
    expect(formatProgressLine({ label: 'Rows', unit: 'rows', done: 300, elapsedMs: 10_000, retries: 0 })).toBe('Rows  300 rows  30 rows/s');
  });

  const sink = (interactive: boolean) => {
    let written = '';
    const s: StatusSink = { stderr: { write: (t: string) => ((written += t), true) } as unknown as NodeJS.WritableStream, interactive, color: false, columns: 80 };
    return { s, written: () => written };
  };

  it('redraws one line on a terminal and clears it at the end', () => {
    let t = 0;
    const { s, written } = sink(true);
    const p = createProgress(s, { unit: 'rows', label: 'Export', total: 10 }, () => t);
    t = 1000;
    p.tick(5);
    p.addRetry();
    p.done('Exported 10 rows');
    expect(written()).toContain('\r\u001b[2KExport  ██████████░░░░░░░░░░  50%  5/10  5.0 rows/s  ETA 1s');
    expect(written()).toContain('(retries 1)');
    expect(written().endsWith('\r\u001b[2KExported 10 rows\n')).toBe(true);
    expect(written()).not.toContain('\n\r');
  });

  it('draws a bar when the total is known and the terminal is wide enough', () => {
    expect(formatBar(5, 10, 10)).toBe('█████░░░░░  50%');
    expect(formatBar(0, 0, 4)).toBe('████ 100%');
    let t = 0;
    const { s, written } = sink(true);
    const p = createProgress(s, { unit: 'bytes', label: 'Uploading', total: 4_000_000 }, () => t);
    t = 1000;
    p.tick(1_000_000);
    expect(written()).toContain('Uploading  █████░░░░░░░░░░░░░░░  25%  1 MB/4 MB  1 MB/s  ETA 3s');
  });

  /** A heartbeat driven by the test: beat() runs what the progress line scheduled. */
  const manualHeartbeat = () => {
    let fn: (() => void) | undefined;
    const hb = (f: () => void) => ((fn = f), () => (fn = undefined));
    return { hb, beat: () => fn?.(), running: () => fn !== undefined };
  };

  it('in a CI log, a line at least every 10 s also while nothing moves; a wait says what it waits for (issue 13 item 4)', () => {
    const { s, written } = sink(false);
    let now = 1_000_000;
    const h = manualHeartbeat();
    const p = createProgress(s, { total: 1000, unit: 'rows', label: 'Importing into user' }, () => now, 10_000, h.hb);
    now += 8_000;
    p.tick(850);
    h.beat();
    expect(written()).toBe(''); // not yet 10 s
    // The pacer waits 57 s for the rate-limit window: announced at once, then every 10 s with the countdown.
    p.waiting(now + 57_000, 'waiting for the rate-limit window');
    now += 10_000;
    h.beat();
    now += 10_000;
    h.beat();
    expect(written().split('\n').filter(Boolean)).toEqual([
      'Importing into user  850/1000  waiting for the rate-limit window, resumes in 57s',
      'Importing into user  850/1000  waiting for the rate-limit window, resumes in 47s',
      'Importing into user  850/1000  waiting for the rate-limit window, resumes in 37s',
    ]);
    p.waiting(undefined);
    now += 10_000;
    h.beat();
    expect(written().split('\n').filter(Boolean).at(-1)).toBe('Importing into user  850/1000  22 rows/s  ETA 7s');
    p.done('Imported 1000 rows');
    expect(h.running()).toBe(false);
  });

  it('on a terminal, a wait replaces the stale rate and ETA with its countdown', () => {
    const { s, written } = sink(true);
    let now = 1_000_000;
    const h = manualHeartbeat();
    const p = createProgress(s, { total: 100, unit: 'rows', label: 'Importing' }, () => now, 10_000, h.hb);
    now += 1000;
    p.tick(85);
    p.waiting(now + 41_000, 'waiting for the rate-limit window');
    expect(written()).toContain('\r\u001b[2KImporting  85%  85/100  waiting for the rate-limit window, resumes in 41s');
    now += 1000;
    h.beat();
    expect(written()).toContain('resumes in 40s');
    expect(written()).not.toContain('ETA 1s');
    p.done();
  });

  it('a spinner off a terminal prints its text every 10 s while it runs, and stops with it', () => {
    const { s, written } = sink(false);
    const h = manualHeartbeat();
    const sp = createSpinner(s, 'Job 1: PROCESSING · 0s', 10_000, h.hb);
    expect(written()).toBe('');
    sp.text('Job 1: PROCESSING · 10s');
    h.beat();
    expect(written()).toBe('Job 1: PROCESSING · 10s\n');
    sp.stop();
    expect(h.running()).toBe(false);
  });

  it('where stderr cannot redraw (CI logs), prints a plain line at most every interval, as progress is made', () => {
    const { s, written } = sink(false);
    let now = 1_000_000;
    const p = createProgress(s, { total: 10_000, unit: 'rows', label: 'Importing into user' }, () => now, 10_000);
    now += 4_000;
    p.tick(1000);
    expect(written()).toBe(''); // not yet 10 s
    now += 6_000;
    p.addRetry();
    p.tick(1000);
    now += 5_000;
    p.tick(1000);
    expect(written()).toBe('Importing into user  2000/10000  200 rows/s  ETA 40s  (retries 1)\n');
    now += 5_000;
    p.tick(2000);
    p.done();
    now += 60_000;
    p.tick(1000);
    expect(written().split('\n').filter(Boolean)).toEqual([
      'Importing into user  2000/10000  200 rows/s  ETA 40s  (retries 1)',
      'Importing into user  5000/10000  250 rows/s  ETA 20s  (retries 1)',
    ]);
  });

  it('prints only the summary when stderr is not interactive', () => {
    const { s, written } = sink(false);
    const p = createProgress(s, { unit: 'bytes', label: 'Upload' });
    p.tick(100);
    p.setTotal(200);
    p.addRetry();
    p.done('Uploaded 200 B');
    expect(written()).toBe('Uploaded 200 B\n');
  });
});
