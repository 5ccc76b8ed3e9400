// The pool's default working set (src/threads/working-set.js), a pure function of the threads and of the memory the
// engine reports, with injected numbers; what the Node host reports; and a maxMemory the caller sets still holding on
// both paths of a pool whose default working set is larger.

import { describe, it, expect } from 'vitest';
import { totalmem } from 'node:os';
import { defaultWorkingSet, MIN_WORKING_SET, WORKING_SET_PER_THREAD } from '../src/threads/working-set.js';
import { DEFAULT_WORKING_SET } from '../src/msm/plan.js';
import { engineMemory } from '../src/threads/host-node.js';
import { loadCurve } from '../index.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const big = { totalBytes: 128 * GiB, freeBytes: 125 * GiB }; // the 16-core Xeon of issue #38

describe('defaultWorkingSet', () => {
  it('grows with the threads on a machine with room: 256 MiB up to 4 threads, then 64 MiB a thread', () => {
    expect(WORKING_SET_PER_THREAD).toBe(64 * MiB);
    for (const T of [1, 2, 3, 4]) expect(defaultWorkingSet(T, big), `T = ${T}`).toBe(DEFAULT_WORKING_SET);
    expect(defaultWorkingSet(8, big)).toBe(512 * MiB);
    expect(defaultWorkingSet(16, big)).toBe(1 * GiB);
    expect(defaultWorkingSet(32, big)).toBe(2 * GiB);
  });

  it('at most a quarter of the total and half of the free memory (Node), never below 32 MiB', () => {
    expect(defaultWorkingSet(16, { totalBytes: 2 * GiB, freeBytes: 1.5 * GiB })).toBe(512 * MiB);
    expect(defaultWorkingSet(16, { totalBytes: 16 * GiB, freeBytes: 600 * MiB })).toBe(300 * MiB);
    expect(defaultWorkingSet(2, { totalBytes: 16 * GiB, freeBytes: 300 * MiB })).toBe(150 * MiB);
    expect(defaultWorkingSet(16, { totalBytes: 64 * MiB, freeBytes: 32 * MiB })).toBe(MIN_WORKING_SET);
    // a figure the engine does not give is not a limit
    expect(defaultWorkingSet(16, { totalBytes: 128 * GiB })).toBe(1 * GiB);
    expect(defaultWorkingSet(16, { freeBytes: 1 * GiB })).toBe(512 * MiB);
  });

  it('browsers: an eighth of navigator.deviceMemory; without it 256 MiB', () => {
    expect(defaultWorkingSet(16, { deviceGiB: 8 })).toBe(1 * GiB);
    expect(defaultWorkingSet(8, { deviceGiB: 4 })).toBe(512 * MiB);
    expect(defaultWorkingSet(8, { deviceGiB: 2 })).toBe(256 * MiB);
    expect(defaultWorkingSet(4, { deviceGiB: 1 })).toBe(128 * MiB);
    expect(defaultWorkingSet(4, { deviceGiB: 0.25 })).toBe(MIN_WORKING_SET);
    expect(defaultWorkingSet(16, {})).toBe(DEFAULT_WORKING_SET);
    expect(defaultWorkingSet(16)).toBe(DEFAULT_WORKING_SET);
    expect(defaultWorkingSet(16, { deviceGiB: undefined })).toBe(DEFAULT_WORKING_SET);
  });

  it('within what the memories can hold (the shared memory less its kept tables; 4 GiB), in whole MiB', () => {
    expect(defaultWorkingSet(64, big)).toBe(4 * GiB);
    expect(defaultWorkingSet(128, big)).toBe(4 * GiB);
    expect(defaultWorkingSet(64, big, 2 * GiB - 5 * MiB)).toBe(2 * GiB - 5 * MiB);
    expect(defaultWorkingSet(16, big, 2 * GiB - 5 * MiB)).toBe(1 * GiB);
    expect(defaultWorkingSet(16, big, 700 * MiB + 12345)).toBe(700 * MiB);
    expect(defaultWorkingSet(16, big, 20 * MiB)).toBe(20 * MiB);
    expect(defaultWorkingSet(3, { totalBytes: 3 * GiB + 7 })).toBe(256 * MiB);
    expect(defaultWorkingSet(16, { totalBytes: 3 * GiB + 7 }) % MiB).toBe(0);
  });

  it('the Node host reports the total and free memory', () => {
    const m = engineMemory();
    expect(m.totalBytes).toBe(totalmem());
    expect(m.freeBytes).toBeGreaterThan(0);
    expect(m.freeBytes).toBeLessThanOrEqual(m.totalBytes);
  });
});

describe('a maxMemory the caller sets still holds', { timeout: 120_000 }, () => {
  it('bn254, 2^14 points, 4 threads, 12 MiB: in chunks, the pool within the budget, the same result (both paths)', async () => {
    const curve = await loadCurve('bn254');
    const n = 2 ** 14;
    const points = curve.randomPointsBytes(n, { seed: 3 });
    const scalars = curve.randomScalarsBytes(n, { seed: 4 });
    const expected = curve.msmBytes(points, scalars);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 4, sharedMemory });
      try {
        const maxMemory = 12 * MiB;
        const timings = {};
        expect(await pool.msmBytes(points, scalars, { maxMemory, timings })).toEqual(expected);
        expect(pool.memoryBytes, `sharedMemory ${sharedMemory}`).toBeLessThanOrEqual(maxMemory);
        if (sharedMemory) expect(timings.chunks).toBeGreaterThan(1);
        // without a budget: one chunk (the default working set of 4 threads holds 2^14 points easily)
        const plain = {};
        expect(await pool.msmBytes(points, scalars, { timings: plain })).toEqual(expected);
        if (sharedMemory) expect(plain.chunks).toBe(1);
      } finally {
        await pool.close();
      }
    }
  });
});
