import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorEnvelope, ERROR_CODES } from '../../src/contract/errors.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { startBadServer } from '../helpers/bad-server.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';

/**
 * Issue 13 item 1: an --out file when the service fails part-way ends with the service's error and exit code, never
 * EBADF, and leaves no temporary file. The CLI runs in this process and talks HTTP to a server that fails (moved from
 * test/e2e/output-errors.test.ts, which keeps what needs a process: its standard output and tiny disks).
 */

const ADMIN = DEMO_KEYS.admin.token;
const t = useSandboxEnv('out-files');

describe('--out files when the service fails part-way (issue 13 item 1: EBADF)', () => {
  it('wm export --out: the service error and its exit code, no EBADF, no temporary file', async () => {
    const page = { content: [{ id: 1, entry: 'Acme', subEntry: null, createdAt: '2026-01-01T00:00:00Z' }], nextCursor: 'page-2' };
    const flaky = await startBadServer(undefined, (req) =>
      req.url!.includes('cursor=')
        ? { status: 503, type: 'application/json', body: JSON.stringify(errorEnvelope(503, ERROR_CODES.UNAVAILABLE, 'service unavailable')) }
        : { type: 'application/json', body: JSON.stringify(page) },
    );
    const out = join(t.dir, 'export-503');
    mkdirSync(out);
    try {
      for (let run = 0; run < 3; run++) {
        const r = await runCli(['wm', 'export', '--out', join(out, 'terms.csv'), '--max-retries', '0'], { baseUrl: flaky.baseUrl, key: ADMIN, configDir: t.config.dir });
        expect(r.exitCode, r.stderr).toBe(8);
        expect(r.stderr).toMatch(/^error: 503 internal_error, code 503000: service unavailable/m);
        expect(r.stderr, r.stderr).not.toMatch(/EBADF|a bug/);
        expect(readdirSync(out)).toEqual([]);
      }
    } finally {
      await flaky.close();
    }
  });

  it('wm export --out against --faults "503=0.3,reset=0.1": every run ends with 0 or the service\'s exit code 8, never EBADF', async () => {
    // Four pages of the organization's word memories, so that most runs meet a fault part-way.
    const faulty = await startTestSandbox({ faults: '503=0.3,reset=0.1', faultSeed: 13 });
    const out = join(t.dir, 'export-faults');
    mkdirSync(out);
    try {
      const org = faulty.db.get<{ id: string }>('SELECT id FROM organizations LIMIT 1')!.id;
      for (let i = 0; i < 3500; i++) {
        faulty.db.run("INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at) VALUES ('organization', ?, ?, NULL, '2026-01-01T00:00:00Z')", [org, `Fault${i}`]);
      }
      const codes: number[] = [];
      for (let run = 0; run < 6; run++) {
        const r = await runCli(['wm', 'export', '--scope', 'org', '--out', join(out, 'terms.csv'), '--max-retries', '1'], { baseUrl: faulty.baseUrl, key: ADMIN, configDir: t.config.dir });
        codes.push(r.exitCode);
        expect([0, 8], r.stderr).toContain(r.exitCode);
        expect(r.stderr, r.stderr).not.toMatch(/EBADF|a bug/);
        expect(readdirSync(out).filter((f) => f !== 'terms.csv')).toEqual([]);
      }
      expect(codes, 'the faults should make some runs fail').toContain(8);
    } finally {
      await faulty.close();
    }
  });
});
