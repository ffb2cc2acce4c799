import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/src/**/*.test.ts'],
    // API tests spin up real stores (SQLite files, PostgreSQL databases); give them room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
