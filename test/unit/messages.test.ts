import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 13 item 11: a command that changed something says so the same way as every other — through
 * `io.success` (`✓ …` with colour, the bare line without) — not as a plain `io.info` line.
 */
const COMMANDS = fileURLToPath(new URL('../../src/commands', import.meta.url));
const DONE = /\bio\.info\(\s*[`'"](Created|Renamed|Deleted|Moved|Updated|Removed|Added|Logged in|Set |Wrote|Exported|Imported|Rotated)/;

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) yield* sources(join(dir, e.name));
    else if (e.name.endsWith('.ts')) yield join(dir, e.name);
  }
}

describe('messages about a completed change', () => {
  it('go through io.success in every command', () => {
    const plain: string[] = [];
    for (const file of sources(COMMANDS)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (DONE.test(line)) plain.push(`${relative(COMMANDS, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(plain).toEqual([]);
  });
});
