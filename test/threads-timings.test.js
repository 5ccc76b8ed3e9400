// timings.perThread of the thread pool (src/threads/timeline.js), on both paths: one entry per thread, every phase
// starting at or after the call's start, ending after it starts and before the call returns, busy time within the
// phase's span, and the waiting time what the call's length leaves; the existing keys (window, threads, the phase
// times) stay. Also calls in chunks (a phase that runs once per chunk), streams and prepared bases, and
// summarizePerThread (what evaluate-msm --threads prints).

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { summarizePerThread } from '../src/threads/timeline.js';

const PATHS = [
  ['shared memory', true],
  ['messages', false],
];
// slack for float rounding between the threads' stamps and this thread's clock (ms)
const EPS = 1e-6;

/** Check perThread of one call that took `elapsed` ms as seen from here (its start is after ours). */
function checkPerThread(timings, T, elapsed, label) {
  const { perThread } = timings;
  expect(perThread, label).toHaveLength(T);
  perThread.forEach((entry, t) => {
    expect(entry.thread, label).toBe(t);
    let busy = 0;
    for (const [name, phase] of Object.entries(entry.phases)) {
      const what = `${label}, thread ${t}, ${name}`;
      expect(phase.start, what).toBeGreaterThanOrEqual(0);
      expect(phase.end, what).toBeGreaterThanOrEqual(phase.start);
      expect(phase.end, what).toBeLessThanOrEqual(elapsed + EPS);
      expect(phase.busy, what).toBeGreaterThanOrEqual(0);
      expect(phase.busy, what).toBeLessThanOrEqual(phase.end - phase.start + EPS);
      expect(phase.runs, what).toBeGreaterThanOrEqual(1);
      busy += phase.busy;
    }
    expect(entry.busy, label).toBeCloseTo(busy, 6);
    expect(entry.wait, label).toBeGreaterThanOrEqual(0);
    expect(entry.busy + entry.wait, label).toBeLessThanOrEqual(elapsed + EPS);
  });
  return perThread;
}

async function timed(run) {
  const timings = {};
  const t0 = performance.now();
  const out = await run(timings);
  return { out, timings, elapsed: performance.now() - t0 };
}

describe('thread pool: timings.perThread', { timeout: 120_000 }, () => {
  let curve;
  let points;
  let scalars;
  let expected;
  const n = 3000;
  beforeAll(async () => {
    curve = await loadCurve('bn254');
    points = curve.randomPointsBytes(n, { seed: 7 });
    scalars = curve.randomScalarsBytes(n, { seed: 8 });
    expected = curve.msmBytes(points, scalars);
  });

  for (const [label, sharedMemory] of PATHS) {
    it(`${label}: one entry per thread, phases within the call, the existing keys kept (1 and 3 threads)`, async () => {
      for (const T of [1, 3]) {
        const pool = await curve.threads({ count: T, sharedMemory });
        try {
          const { out, timings, elapsed } = await timed((timings) => pool.msmBytes(points, scalars, { timings }));
          expect(out).toEqual(expected);
          expect(timings.threads).toBe(T);
          // perThread is not enumerable: every value a loop over timings sees is a number, as before
          expect(Object.values(timings).every((v) => typeof v === 'number')).toBe(true);
          expect(Object.keys(timings)).not.toContain('perThread');
          const perThread = checkPerThread(timings, T, elapsed, `${label}, T = ${T}`);
          if (sharedMemory) {
            expect(timings.window).toBeGreaterThan(0);
            expect(timings.lanes).toBeGreaterThan(0);
            for (const entry of perThread) {
              // every thread prepares its points, then runs its lane: prepare ends before the lanes start
              expect(Object.keys(entry.phases).sort()).toEqual(['lanes', 'prepare']);
              expect(entry.phases.prepare.end).toBeLessThanOrEqual(entry.phases.lanes.start);
              // and its own steps inside them: no more than its busy time
              for (const step of ['convert', 'digits', 'sort', 'gather', 'accumulate', 'reduce']) expect(entry.steps[step], step).toBeGreaterThanOrEqual(0);
              expect(Object.values(entry.steps).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(entry.busy + EPS);
            }
          } else {
            expect(timings.slices).toBeGreaterThan(0);
            for (const entry of perThread) {
              expect(Object.keys(entry.phases)).toEqual(['slices']);
              // the phases of the thread's own MSM, inside its slice's
              expect(entry.steps.accumulate).toBeGreaterThan(0);
              expect(Object.values(entry.steps).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(entry.phases.slices.busy + EPS);
            }
          }
          // without timings: nothing recorded, and the next call with timings starts afresh
          const plain = await pool.msmBytes(points, scalars);
          expect(plain).toEqual(expected);
          const again = await timed((timings) => pool.msmBytes(points, scalars, { timings }));
          checkPerThread(again.timings, T, again.elapsed, `${label}, T = ${T}, again`);
        } finally {
          await pool.close();
        }
      }
    });

    it(`${label}: in chunks (maxMemory), a stream and prepared bases`, async () => {
      const T = 2;
      const pool = await curve.threads({ count: T, sharedMemory });
      try {
        const chunked = await timed((timings) => pool.msmBytes(points, scalars, { timings, maxMemory: 3 * 2 ** 20 }));
        expect(chunked.out).toEqual(expected);
        const perThread = checkPerThread(chunked.timings, T, chunked.elapsed, `${label}, chunks`);
        if (sharedMemory) {
          expect(chunked.timings.chunks).toBeGreaterThan(1);
          // one prepare and one lane (its claims of the chunk's pieces) per chunk on every thread
          for (const entry of perThread) {
            expect(entry.phases.prepare.runs).toBe(chunked.timings.chunks);
            expect(entry.phases.lanes.runs).toBe(chunked.timings.chunks);
          }
        }
        const PB = curve.pointBytes;
        const S = curve.scalarBytes;
        const source = (async function* () {
          for (let at = 0; at < n; at += 1000) yield { points: points.slice(at * PB, (at + 1000) * PB), scalars: scalars.slice(at * S, (at + 1000) * S) };
        })();
        const streamed = await timed((timings) => pool.msmStream(source, { timings }));
        expect(streamed.out).toEqual(expected);
        checkPerThread(streamed.timings, T, streamed.elapsed, `${label}, stream`);
        const bases = await pool.prepareBases(points);
        try {
          const prepared = await timed((timings) => bases.msmBytes(scalars, { timings }));
          expect(prepared.out).toEqual(expected);
          const entries = checkPerThread(prepared.timings, T, prepared.elapsed, `${label}, prepared bases`);
          expect(entries.some((e) => Object.keys(e.phases).length > 0)).toBe(true);
        } finally {
          await bases.free();
        }
      } finally {
        await pool.close();
      }
    });
  }

  it('summarizePerThread: least, median and largest busy time per phase, imbalance and waiting', () => {
    const entry = (thread, busy, wait) => ({ thread, phases: { lanes: { start: 1, end: 1 + busy, busy, runs: 1 } }, busy, wait, steps: { sort: busy / 10, gather: busy / 5 } });
    const s = summarizePerThread([entry(0, 10, 2), entry(1, 20, 1), entry(2, 30, 0), { thread: 3, phases: {}, busy: 0, wait: 31 }]);
    expect(s.threads).toBe(4);
    expect(s.phases.lanes).toMatchObject({ threads: 3, min: 10, median: 20, max: 30, imbalance: 1.5, start: 1, end: 31 });
    expect(s.steps.sort).toBeCloseTo(6, 9);
    expect(s.steps.gather).toBeCloseTo(12, 9);
    expect(s.totalWait).toBe(34);
    expect(s.maxWait).toBe(31);
  });
});
