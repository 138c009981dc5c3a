import { UsageError } from '../../errors.js';
import type { Context } from '../types.js';

/** Flag parsing shared by the voice commands: everything is checked before any request. */

export const OUTPUT_MODES = ['text', 'json', 'srt'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/** Default of --wait-timeout: how long to wait for a job. */
export const DEFAULT_WAIT = '2h';

const UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** "90" (seconds), "90s", "30m", "2h", "1h30m" → milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const text = value.trim().toLowerCase();
  let ms = 0;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else {
    const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
    if (!parts.length || parts.map((p) => p[0]).join('') !== text) throw new UsageError(`${flag} "${value}" is not a duration`, 'Use e.g. 90s, 30m, 2h or 1h30m (a bare number is seconds).');
    for (const [, n, unit] of parts) ms += Number(n) * UNITS[unit];
  }
  if (!(ms > 0)) throw new UsageError(`${flag} "${value}" must be longer than zero`);
  return ms;
}

/**
 * `--wait-timeout`: how long to wait for a job. `--timeout` keeps its one meaning, seconds per request, here as
 * everywhere; a duration given to it (`--timeout 30m`, the wait before it had its own flag) is pointed at
 * --wait-timeout instead of being refused as a bad number of seconds.
 */
export function takeWaitTimeout(ctx: Context, waitTimeout: string | undefined): number {
  const global = ctx.globals.timeout;
  if (global !== undefined && !/^\d+(\.\d+)?$/.test(global.trim()))
    throw new UsageError(`--timeout "${global}" is the per-request timeout in seconds`, `To wait longer for the job, use --wait-timeout ${global}.`);
  return parseDuration('--wait-timeout', waitTimeout ?? DEFAULT_WAIT);
}

/** --format, else -o json / --json, else text. */
export function outputMode(ctx: Context, format: string | undefined): OutputMode {
  if (format !== undefined) {
    if (!(OUTPUT_MODES as readonly string[]).includes(format)) throw new UsageError(`--format "${format}" is not one of ${OUTPUT_MODES.join(', ')}`);
    return format as OutputMode;
  }
  return ctx.output.json ? 'json' : 'text';
}

/** A path as one shell word (for commands printed to copy and paste). */
export function shellWord(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
