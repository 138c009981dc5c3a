import { isCI, type IOStreams } from '../../io/iostreams.js';
import { formatProgressLine, type Progress, type ProgressOptions } from '../../io/progress.js';

/**
 * Progress of `wm import` and `wm sync`. On a terminal it is the redrawn line of `io.progress`. Where stderr cannot
 * redraw (CI logs, a pipe, TERM=dumb), a long run would otherwise say nothing for minutes: there a plain line with
 * the same facts (rows done/total, rows/s, ETA, retries) is printed at most every `everyMs`, on progress.
 */

export const LOG_EVERY_MS = 10_000;

/** Whether `io.progress` redraws a line on stderr (the same test as the terminal layer's). */
function redraws(io: IOStreams): boolean {
  const sized = ((io.stderr as { columns?: number }).columns ?? 0) > 0;
  return io.isStderrTTY && sized && io.env.TERM !== 'dumb' && !isCI(io.env);
}

export function rowProgress(io: IOStreams, opts: ProgressOptions, now: () => number = Date.now, everyMs = LOG_EVERY_MS): Progress {
  if (redraws(io)) return io.progress(opts);
  const start = now();
  let total = opts.total;
  let done = 0;
  let retries = 0;
  let lastLine = start;
  let finished = false;
  const maybeLog = () => {
    const t = now();
    if (finished || t - lastLine < everyMs) return;
    lastLine = t;
    io.info(formatProgressLine({ label: opts.label, unit: opts.unit, done, total, elapsedMs: t - start, retries }));
  };
  return {
    tick(n) {
      done += n;
      maybeLog();
    },
    addRetry() {
      retries++;
    },
    setTotal(n) {
      total = n;
    },
    done(summary) {
      if (finished) return;
      finished = true;
      if (summary) io.info(summary);
    },
  };
}
