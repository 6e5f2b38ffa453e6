import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: PGlite instances are memory-hungry and CPU-bound, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
  },
});
