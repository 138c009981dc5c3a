import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAtomicFile, writeFileAtomic } from '../../src/io/atomic-file.js';

const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'notevox-atomic-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('atomic files', () => {
  it('the target appears only on commit, with the content and mode asked for', () => {
    const dir = scratch();
    const target = join(dir, 'out.csv');
    const f = openAtomicFile(target, 0o600);
    f.writeSync('entry\nKubernetes\n');
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual([f.tmpPath.split('/').pop()]);
    f.commit();
    expect(readFileSync(target, 'utf8')).toBe('entry\nKubernetes\n');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['out.csv']);
    f.discard(); // after a commit: nothing to do
    expect(existsSync(target)).toBe(true);
  });

  it('discard leaves an existing target as it was and removes the temporary file', async () => {
    const dir = scratch();
    const target = join(dir, 'transcript.txt');
    writeFileSync(target, 'old');
    const f = openAtomicFile(target);
    await f.write('half of the new');
    f.discard();
    f.discard();
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['transcript.txt']);
  });

  it('writeFileAtomic replaces the whole file, and a path that cannot be written fails before anything appears', () => {
    const dir = scratch();
    const target = join(dir, 'state.db');
    writeFileAtomic(target, 'one');
    writeFileAtomic(target, new Uint8Array([116, 119, 111]), { sync: true });
    expect(readFileSync(target, 'utf8')).toBe('two');
    expect(() => writeFileAtomic(join(dir, 'missing', 'x.md'), 'text')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(['state.db']);
  });

  it('owns its descriptor: closed exactly once, so a later discard never closes a file that reused the number', async () => {
    const dir = scratch();
    const a = openAtomicFile(join(dir, 'a.txt'));
    await a.write('partial');
    a.discard();
    const other = openSync(join(dir, 'other.txt'), 'w'); // most likely the number `a` had
    a.discard();
    writeSync(other, 'still open');
    closeSync(other);
    expect(readFileSync(join(dir, 'other.txt'), 'utf8')).toBe('still open');
    await expect(a.write('more')).rejects.toMatchObject({ code: 'EBADF' });
    expect(readdirSync(dir)).toEqual(['other.txt']);
  });

  it('a commit that fails (a directory took the name) removes the temporary file and reports the real error', async () => {
    const dir = scratch();
    const f = openAtomicFile(join(dir, 'out.csv'));
    await f.write('a,b\n');
    mkdirSync(join(dir, 'out.csv'));
    expect(() => f.commit()).toThrow(/EISDIR/);
    expect(readdirSync(dir)).toEqual(['out.csv']);
    f.discard();
  });
});
