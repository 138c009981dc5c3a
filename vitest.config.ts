import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // dist/ is built here when stale (e2e runs it); npm test no longer builds before vitest.
    globalSetup: ['test/global-setup.ts'],
    include: ['test/unit/**/*.test.ts', 'test/cmd/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
