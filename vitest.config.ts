import { defineConfig } from 'vitest/config';

/**
 * Files that change what the whole worker process shares (module mocks, fake timers of the global clock): each
 * runs in a fresh worker. Every other file shares its worker's module graph with the files that ran there before
 * (isolate: false): the sandbox (sql.js, hono), the contract's zod schemas and the CLI are loaded and compiled once
 * per worker instead of once per file, which was about half of the suite's CPU time.
 */
const ISOLATED = ['test/cmd/voice-heartbeat.test.ts'];

export default defineConfig({
  test: {
    // dist/ is built here when stale (e2e runs it); npm test no longer builds before vitest.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/unit/**/*.test.ts', 'test/cmd/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
