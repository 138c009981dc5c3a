import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { soxWritesMp3 } from '../helpers/audio.js';

/**
 * The spoken-audio tests need sox to *write MP3*, not just a sox on PATH: Debian's plain `sox` package reads and
 * writes WAV but has no MP3 handler (that is libsox-fmt-mp3). Fake soxes on a PATH of their own stand for both.
 */

const dir = mkdtempSync(join(tmpdir(), 'nvx-fake-sox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeSox(name: string, script: string): NodeJS.ProcessEnv {
  const bin = join(dir, name);
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'sox'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, 'sox'), 0o755);
  return { ...process.env, PATH: `${bin}:/usr/bin:/bin` };
}

describe('sox writing MP3 (a capability, not a program)', () => {
  it('is missing with a sox that has no MP3 handler (Debian sox without libsox-fmt-mp3)', () => {
    const env = fakeSox('plain', `echo "sox FAIL formats: no handler for file extension \\\`mp3'" >&2; exit 2`);
    expect(soxWritesMp3(env)).toBe(false);
  });

  it('is missing with a sox that exits 0 but writes no MP3', () => {
    const env = fakeSox('liar', 'for a; do out="$a"; done; printf "RIFF" > "$out"');
    expect(soxWritesMp3(env)).toBe(false);
  });

  it('is there with a sox that writes an MP3', () => {
    const env = fakeSox('mp3', 'for a; do out="$a"; done; printf "ID3\\004\\000" > "$out"');
    expect(soxWritesMp3(env)).toBe(true);
  });

  it('is missing without sox at all', () => {
    expect(soxWritesMp3({ ...process.env, PATH: join(dir, 'nothing-here') })).toBe(false);
  });
});
