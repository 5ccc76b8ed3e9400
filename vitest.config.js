// Two groups of suites, run one after the other (sequence.groupOrder):
// - 'main-thread': suites whose work stays on vitest's worker thread (no pool, child process or browser). They
//   run side by side, one file per core: on a 2-core machine vitest's default would run one file at a time.
// - 'engine': suites that start thread pools, child processes or Chromium, or measure memory. They run with
//   vitest's default (cores - 1 files at once): two of them side by side on 2 cores time each other out.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const MAIN_THREAD = [
  'test/bigint.test.js', 'test/bounds.test.js', 'test/bundle.test.js', 'test/curve-constants.test.js',
  'test/field-crandall.test.js', 'test/field-fma.test.js', 'test/field.test.js', 'test/fp2.test.js',
  'test/glv.test.js', 'test/msm.test.js', 'test/params.test.js',
];

export default defineConfig({
  test: {
    // A limit for hangs, not a timing: vitest's 5 s default failed suites that take 3 s on a shared CI host.
    testTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: { name: 'main-thread', include: MAIN_THREAD, maxWorkers: availableParallelism(), sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'engine', include: ['test/*.test.js'], exclude: MAIN_THREAD, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
