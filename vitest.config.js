// Two groups of suites, run one after the other (sequence.groupOrder):
// - 'main-thread': suites whose work stays on vitest's worker thread (no pool, no browser, no child process but
//   esbuild's service). They run side by side, one file per core, where vitest's default on 2 cores is one at a time.
//   A new suite lands in 'engine' until it is listed here.
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
    // A limit for hangs, not a timing: under vitest's 5 s default a test of 2.6 s alone failed in CI (a shared host).
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
