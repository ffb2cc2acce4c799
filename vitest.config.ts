import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/src/**/*.test.ts'],
    // API tests spin up real stores (SQLite files, PostgreSQL databases); give them room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at once at least: vitest's default (the CPUs less one) ran one at a time on a 2-core machine, where most
    // files wait on databases, sockets and timers; the whole suite took 1,618 s so and 977 s with two (forty-fifth
    // session, both backends, the same machine and load), and CI's 25 minutes were nearly spent (a failed run stopped at
    // 1,309 s before its last step). With three, 608 s against 1,016 s with two (forty-ninth session, both backends,
    // a quiet machine for the three; no test failed of timing).
    maxWorkers: Math.max(3, os.availableParallelism() - 1),
  },
});
