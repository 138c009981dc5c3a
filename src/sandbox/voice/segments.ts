/** Where the speech is: energy-based detection for decoded audio, fixed windows otherwise. */

export interface Segment {
  startMs: number;
  endMs: number;
}

export const SEGMENT_RULES = {
  /** A frame is speech when its RMS is at least this fraction of the file's RMS. */
  relativeThreshold: 0.3,
  /** Below this RMS (full scale = 1) a frame is silence whatever the file's level. */
  absoluteFloor: 1e-3,
  /** Speech separated by a shorter pause is one segment. */
  mergeGapMs: 300,
  /** Shorter segments are clicks, not speech. */
  minSegmentMs: 150,
  /** Window length for audio the sandbox does not decode. */
  fixedWindowMs: 10_000,
} as const;

/** Speech segments from per-frame RMS values: threshold, merge short gaps, drop short blips. */
export function detectSegments(rms: ArrayLike<number>, frameMs: number, fileRms: number, durationMs: number, rules = SEGMENT_RULES): Segment[] {
  const threshold = Math.max(rules.absoluteFloor, rules.relativeThreshold * fileRms);
  const runs: Segment[] = [];
  let start = -1;
  for (let i = 0; i <= rms.length; i++) {
    const active = i < rms.length && rms[i] >= threshold;
    if (active && start < 0) start = i;
    if (!active && start >= 0) {
      runs.push({ startMs: start * frameMs, endMs: Math.min(durationMs, i * frameMs) });
      start = -1;
    }
  }
  const merged: Segment[] = [];
  for (const r of runs) {
    const last = merged[merged.length - 1];
    if (last && r.startMs - last.endMs < rules.mergeGapMs) last.endMs = r.endMs;
    else merged.push({ ...r });
  }
  return merged
    .filter((s) => s.endMs - s.startMs >= rules.minSegmentMs)
    .map((s) => ({ startMs: Math.round(s.startMs), endMs: Math.round(s.endMs) }));
}

/** Consecutive windows of `windowMs` covering the whole duration (the last one shorter). */
export function fixedWindows(durationMs: number, windowMs: number = SEGMENT_RULES.fixedWindowMs): Segment[] {
  const out: Segment[] = [];
  for (let t = 0; t < durationMs; t += windowMs) out.push({ startMs: Math.round(t), endMs: Math.round(Math.min(durationMs, t + windowMs)) });
  return out;
}

/**
 * Time ranges for `count` paragraphs over the segments: consecutive segments are grouped when there are
 * more segments than paragraphs; with fewer, the span from the first to the last segment (or the whole
 * file when no speech was found) is split evenly.
 */
export function spreadOverSegments(count: number, segments: Segment[], durationMs: number): Segment[] {
  if (count <= 0) return [];
  if (segments.length >= count) {
    return Array.from({ length: count }, (_, i) => {
      const from = Math.floor((i * segments.length) / count);
      const to = Math.floor(((i + 1) * segments.length) / count) - 1;
      return { startMs: segments[from].startMs, endMs: segments[to].endMs };
    });
  }
  const start = segments.length ? segments[0].startMs : 0;
  const end = segments.length ? segments[segments.length - 1].endMs : durationMs;
  const step = (end - start) / count;
  return Array.from({ length: count }, (_, i) => ({ startMs: Math.round(start + i * step), endMs: Math.round(start + (i + 1) * step) }));
}
