import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { rowProgress } from '../../src/commands/wm/progress.js';
import { createIOStreams } from '../../src/io/iostreams.js';

/** IOStreams over in-memory streams; `tty` makes stderr a sized terminal. */
function fakeIO(env: NodeJS.ProcessEnv, tty = false) {
  const stderr = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 100 } : {});
  let text = '';
  stderr.on('data', (d: Buffer) => (text += d.toString()));
  const io = createIOStreams({ env, stdin: new PassThrough(), stdout: new PassThrough(), stderr });
  return { io, text: () => text };
}

describe('wm progress', () => {
  it('prints a plain line at most every interval where stderr cannot redraw (CI logs)', () => {
    const { io, text } = fakeIO({ CI: '1' });
    let now = 1_000_000;
    const p = rowProgress(io, { total: 10_000, unit: 'rows', label: 'Importing into user' }, () => now, 10_000);
    now += 4_000;
    p.tick(1000);
    expect(text()).toBe(''); // not yet 10 s
    now += 6_000;
    p.addRetry();
    p.tick(1000);
    now += 5_000;
    p.tick(1000);
    expect(text()).toBe('Importing into user  2000/10000  200 rows/s  ETA 40s  (retries 1)\n');
    now += 5_000;
    p.tick(2000);
    p.done();
    now += 60_000;
    p.tick(1000);
    expect(text().split('\n').filter(Boolean)).toEqual([
      'Importing into user  2000/10000  200 rows/s  ETA 40s  (retries 1)',
      'Importing into user  5000/10000  250 rows/s  ETA 20s  (retries 1)',
    ]);
  });

  it('leaves a redrawable terminal to the redrawn line', () => {
    const { io, text } = fakeIO({ TERM: 'xterm' }, true);
    let now = 0;
    const p = rowProgress(io, { total: 100, unit: 'rows', label: 'Syncing' }, () => now, 10);
    now = 50;
    p.tick(50);
    expect(text()).toContain('\r');
    expect(text()).toContain('Syncing  50/100');
    p.done();
  });
});
