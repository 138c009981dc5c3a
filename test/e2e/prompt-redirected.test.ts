import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_USERS } from '../../src/sandbox/demo-seed.js';
import { runInPty } from '../helpers/pty.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';

/**
 * Issue 29 item 2: a prompt needs a terminal on stdin and stderr, not on stdout. On a real terminal with stdout
 * redirected to a file (`wm sync --prune > plan.tsv`), the command still asks, the question on the terminal and
 * the plan in the file.
 */

const t = useSandboxEnv('prompt-redirected');

describe('a prompt with stdout redirected to a file', () => {
  it('`wm sync --prune > plan.tsv` on a terminal asks, and applies on yes', async () => {
    const csv = join(t.dir, 'terms.csv');
    writeFileSync(csv, 'entry\nRedirectedOnly\n');
    const plan = join(t.dir, 'plan.tsv');
    const env = { NOTEVOX_BASE_URL: t.sb.baseUrl, NOTEVOX_API_KEY: DEMO_KEYS.member.token, NOTEVOX_CONFIG_DIR: t.config.dir, NOTEVOX_CACHE_DIR: join(t.dir, 'cache') };
    const r = await runInPty(['wm', 'sync', csv, '--prune'], [[/Apply these \d+ changes/, 'y\r']], env, 30_000, { stdoutTo: plan });
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toMatch(/Apply these \d+ changes to the user word memories\?/);
    // The plan went to the file (TSV: stdout is not a terminal), not to the screen.
    expect(readFileSync(plan, 'utf8')).toMatch(/^create\t\tRedirectedOnly/m);
    expect(r.screen).not.toMatch(/^create\s/m);
    const stored = t.sb.db.all<{ entry: string }>("SELECT entry FROM word_memories WHERE scope_type = 'user' AND scope_id = ?", [String(DEMO_USERS.priya)]);
    expect(stored.map((s) => s.entry)).toContain('RedirectedOnly');
  });
});
