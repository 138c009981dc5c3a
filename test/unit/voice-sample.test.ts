import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeAudio } from '../../src/sandbox/voice/analyze.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE = join(ROOT, 'samples', 'hello.wav');
const dir = mkdtempSync(join(tmpdir(), 'nvx-sample-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('samples/hello.wav (the demo recording)', () => {
  it('is exactly what scripts/make-sample.mjs generates', () => {
    const out = join(dir, 'hello.wav');
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'make-sample.mjs'), out], { stdio: 'pipe' });
    expect(readFileSync(out).equals(readFileSync(SAMPLE))).toBe(true);
  });

  it('has the three spoken phrases the demo shows as paragraphs', async () => {
    const a = await analyzeAudio(SAMPLE);
    expect(a.segmentation).toBe('energy');
    expect(a.durationMs).toBeCloseTo(3720, -1);
    expect(a.segments).toHaveLength(3);
  });
});
