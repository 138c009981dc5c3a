import { loadWidth, paint, truncate } from './text.js';

/** An activity indicator on stderr; on a non-interactive stderr only explicit final messages are printed. */
export interface Spinner {
  text(s: string): void;
  /** Stop with `✓ s` (the current text when `s` is omitted and stderr is interactive). */
  succeed(s?: string): void;
  /** Stop with `✗ s` (the current text when `s` is omitted and stderr is interactive). */
  fail(s?: string): void;
  /** Stop and clear, printing nothing. */
  stop(): void;
}

export interface Progress {
  tick(n: number): void;
  addRetry(): void;
  setTotal(n: number): void;
  /**
   * Nothing moves until `untilMs` (epoch ms) for `reason` (e.g. "waiting for the rate-limit window"): the line says
   * so with a countdown instead of a stale rate and ETA. `undefined` ends the wait.
   */
  waiting(untilMs: number | undefined, reason?: string): void;
  /** Clear the progress line and print `summary` (also when stderr is not interactive). */
  done(summary?: string): void;
}

export interface ProgressOptions {
  total?: number;
  unit: 'bytes' | 'rows';
  label: string;
}

/** What spinners and progress lines need from the terminal. */
export interface StatusSink {
  stderr: NodeJS.WritableStream;
  /** stderr is a terminal that can redraw a line (TTY, TERM not dumb, not CI). */
  interactive: boolean;
  color: boolean;
  columns: number;
}

const CLEAR_LINE = '\r\u001b[2K';
const REDRAW_EVERY_MS = 100;

/**
 * Bytes in decimal units (1 kB = 1000 B, 1 MB = 1,000,000 B), the convention of the service's limits (500 MB is
 * 500,000,000 bytes): one decimal, none when it is .0. Limits stated in binary units say MiB themselves.
 */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  if (i === 0) return `${n} B`;
  // 999,950 B is 1.0 MB, not 1000.0 kB.
  if (Number(v.toFixed(1)) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `████████░░░░░░░░░░░░  42%` for `width` cells. */
export function formatBar(done: number, total: number, width: number): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const full = Math.round(fraction * width);
  return `${'█'.repeat(full)}${'░'.repeat(width - full)} ${String(Math.floor(fraction * 100)).padStart(3)}%`;
}

/**
 * `label  [bar  42%]  done/total  rate/s  ETA 12s  (retries N)`; parts that are not known yet are left out, and
 * the bar only when `barWidth` is given and the total is known.
 */
export function formatProgressLine(p: {
  label: string;
  unit: 'bytes' | 'rows';
  done: number;
  total?: number;
  elapsedMs: number;
  retries: number;
  barWidth?: number;
  /** Replaces rate and ETA while nothing moves (a wait with its countdown). */
  note?: string;
}): string {
  const amount = (n: number) => (p.unit === 'bytes' ? formatBytes(n) : String(n));
  const parts = [p.label];
  // While waiting the bar stands still: its percentage alone leaves room for what the wait is.
  if (p.barWidth && p.total !== undefined) parts.push(p.note ? formatBar(p.done, p.total, 0).trimStart() : formatBar(p.done, p.total, p.barWidth));
  parts.push(p.total !== undefined ? `${amount(p.done)}/${amount(p.total)}` : amount(p.done) + (p.unit === 'rows' ? ' rows' : ''));
  const rate = p.elapsedMs > 0 ? p.done / (p.elapsedMs / 1000) : 0;
  if (p.note) parts.push(p.note);
  else if (rate > 0) {
    parts.push(p.unit === 'bytes' ? `${formatBytes(Math.round(rate))}/s` : `${rate.toFixed(rate < 10 ? 1 : 0)} rows/s`);
    if (p.total !== undefined && p.done < p.total) parts.push(`ETA ${formatDuration((p.total - p.done) / rate)}`);
  }
  if (p.retries > 0) parts.push(`(retries ${p.retries})`);
  return parts.join('  ');
}

const writeLine = (sink: StatusSink, line: string) => sink.stderr.write(line + '\n');

/**
 * An activity indicator. On a terminal, ora; elsewhere nothing moves, so a wait over `logEveryMs` would be silent:
 * its current text is printed as a line every `logEveryMs` until it stops.
 */
export function createSpinner(sink: StatusSink, initialText: string, logEveryMs = LOG_EVERY_MS, heartbeat: Heartbeat = defaultHeartbeat): Spinner {
  let current = initialText;
  let finished = false;
  const stopHeartbeat = sink.interactive ? () => {} : heartbeat(() => writeLine(sink, current), logEveryMs);
  let ora: { text: string; stop(): unknown } | undefined;
  if (sink.interactive) {
    // ora is loaded only when a spinner is shown; if it is stopped before it loaded, it never starts. string-width
    // (which ora imports) first, so that measuring text while ora loads never finds it half-loaded (text.ts).
    loadWidth();
    import('ora')
      .then(({ default: makeOra }) => {
        if (finished) return;
        ora = makeOra({ text: current, stream: sink.stderr, isEnabled: true, color: sink.color ? 'cyan' : false, discardStdin: false }).start();
      })
      .catch(() => {});
  }
  const finish = (mark: string | undefined, explicit: string | undefined) => {
    if (finished) return;
    finished = true;
    stopHeartbeat();
    ora?.stop();
    const text = explicit ?? (sink.interactive && mark ? current : undefined);
    if (mark && text) writeLine(sink, `${mark} ${text}`);
  };
  return {
    text(s) {
      current = s;
      if (ora) ora.text = s;
    },
    succeed: (s) => finish(paint(sink.color, 'green', '✓'), s),
    fail: (s) => finish(paint(sink.color, 'red', '✗'), s),
    stop: () => finish(undefined, undefined),
  };
}

/** Where stderr cannot redraw a line (CI logs, a pipe, TERM=dumb), a plain progress line at most this often. */
export const LOG_EVERY_MS = 10_000;
/** Cells of the bar on a terminal at least BAR_MIN_COLUMNS wide. */
const BAR_WIDTH = 20;
const BAR_MIN_COLUMNS = 80;

/** Calls `fn` every `ms` until the returned function is called; never keeps the process alive by itself. */
export type Heartbeat = (fn: () => void, ms: number) => () => void;
const defaultHeartbeat: Heartbeat = (fn, ms) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
};

/** "resumes in 41s" */
const countdown = (ms: number) => `resumes in ${formatDuration(Math.max(1, Math.ceil(ms / 1000)))}`;

/**
 * A progress line on stderr. On a terminal it is redrawn in place (with a bar when the total is known); elsewhere a
 * long run would say nothing for minutes, so a plain line with the same facts is printed every `logEveryMs`, as
 * progress is made and also while nothing moves (a wait says what it waits for): never more than `logEveryMs` of
 * silence.
 */
export function createProgress(
  sink: StatusSink,
  opts: ProgressOptions,
  now: () => number = Date.now,
  logEveryMs = LOG_EVERY_MS,
  heartbeat: Heartbeat = defaultHeartbeat,
): Progress {
  const start = now();
  let total = opts.total;
  let done = 0;
  let retries = 0;
  let lastDraw = 0;
  let lastLog = start;
  let drawn = false;
  let finished = false;
  let wait: { until: number; reason: string } | undefined;
  const facts = (t: number) => ({
    label: opts.label,
    unit: opts.unit,
    done,
    total,
    elapsedMs: t - start,
    retries,
    note: wait ? `${wait.reason}, ${countdown(wait.until - t)}` : undefined,
  });
  const draw = (force: boolean) => {
    if (finished) return;
    const t = now();
    if (!sink.interactive) {
      if (force || t - lastLog < logEveryMs) return;
      lastLog = t;
      writeLine(sink, formatProgressLine(facts(t)));
      return;
    }
    if (!force && t - lastDraw < REDRAW_EVERY_MS) return;
    lastDraw = t;
    drawn = true;
    const line = formatProgressLine({ ...facts(t), barWidth: sink.columns >= BAR_MIN_COLUMNS ? BAR_WIDTH : undefined });
    sink.stderr.write(CLEAR_LINE + truncate(line, Math.max(10, sink.columns - 1)));
  };
  // Non-interactive: a line when logEveryMs passed without one; on a terminal, the countdown of a wait each second.
  const stopHeartbeat = heartbeat(
    () => {
      if (!sink.interactive) draw(false);
      else if (wait) draw(true);
    },
    Math.min(1000, logEveryMs),
  );
  return {
    tick(n) {
      done += n;
      draw(false);
    },
    waiting(untilMs, reason = 'waiting') {
      const was = wait;
      wait = untilMs === undefined ? undefined : { until: untilMs, reason };
      // On a terminal the line changes at once; in a log, a long wait is worth a line when it starts.
      if (sink.interactive) draw(true);
      else if (wait && !was && wait.until - now() >= logEveryMs) {
        lastLog = now();
        writeLine(sink, formatProgressLine(facts(lastLog)));
      }
    },
    addRetry() {
      retries++;
      draw(true);
    },
    setTotal(n) {
      total = n;
      draw(false);
    },
    done(summary) {
      if (finished) return;
      stopHeartbeat();
      if (drawn) sink.stderr.write(CLEAR_LINE);
      finished = true;
      if (summary) writeLine(sink, summary);
    },
  };
}
