import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { PassThrough, Writable } from 'node:stream';
import { createIOStreams, type IOStreams, type IOStreamsOptions } from './iostreams.js';

export interface MemoryIO {
  io: IOStreams;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Feed stdin (call `stdin.end()` to close it). */
  stdin: PassThrough;
}

function collector(isTTY: boolean, columns: number | undefined, sink: (s: string) => void): Writable {
  const w = new Writable({
    write(chunk, _enc, cb) {
      sink(String(chunk));
      cb();
    },
  });
  Object.assign(w, { isTTY, columns });
  // What a tty.WriteStream adds and spinners use.
  if (isTTY) {
    Object.assign(w, {
      cursorTo: (x: number, y?: number) => cursorTo(w, x, y),
      moveCursor: (dx: number, dy: number) => moveCursor(w, dx, dy),
      clearLine: (dir: -1 | 0 | 1) => clearLine(w, dir),
    });
  }
  return w;
}

/** IOStreams over in-memory streams, for tests: choose which streams look like terminals. Writes are synchronous. */
export function createMemoryIO(
  opts: { stdinTTY?: boolean; stdoutTTY?: boolean; stderrTTY?: boolean; terminalColumns?: number } & Omit<IOStreamsOptions, 'stdin' | 'stdout' | 'stderr'> = {},
): MemoryIO {
  let out = '';
  let err = '';
  const stdin = new PassThrough();
  Object.assign(stdin, { isTTY: Boolean(opts.stdinTTY) });
  const io = createIOStreams({
    ...opts,
    env: opts.env ?? {},
    stdin,
    stdout: collector(Boolean(opts.stdoutTTY), opts.terminalColumns, (s) => (out += s)),
    stderr: collector(Boolean(opts.stderrTTY), opts.terminalColumns, (s) => (err += s)),
  });
  return { io, stdout: () => out, stderr: () => err, stdin };
}
