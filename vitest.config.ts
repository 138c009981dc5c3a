import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in: vitest's own (the longest last time first, or on a fresh checkout with no timings yet,
 * the largest file first), except that e2e files go first, then the in-process
 * command tests, then the unit tests. e2e files are the longest and the hungriest for CPU (each spawns built CLIs
 * and sandboxes by the dozen; the config-file test starts 100 at once), yet small as files: by size alone they
 * started last, and two of them ran side by side for the last 30 s of the suite while the other core had nothing
 * left to do. Started first, they run beside the static checks (npm test runs tsc and oxlint at a lower priority),
 * and the many short unit files fill both cores at the end.
 */
class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((f, i) => [f, i]));
    const kind = (f: TestSpecification) => (f.moduleId.includes('/test/e2e/') ? 0 : f.moduleId.includes('/test/cmd/') ? 1 : 2);
    return sorted.sort((a, b) => kind(a) - kind(b) || position.get(a)! - position.get(b)!);
  }
}

export default defineConfig({
  test: {
    // dist/ is built here when stale (e2e runs it); npm test no longer builds before vitest.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: HeavyFirst },
    // Each worker shares its module graph between the files that run in it (isolate: false): the sandbox (sql.js,
    // hono), the contract and the CLI are loaded and compiled once per worker instead of once per file, which was
    // about half of the suite's CPU time. Files run one at a time in a worker, and none mocks a module; the one that
    // fakes the global timers (voice-heartbeat) restores them in a finally, as the files after it need.
    include: ['test/unit/**/*.test.ts', 'test/cmd/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    isolate: false,
  },
});
