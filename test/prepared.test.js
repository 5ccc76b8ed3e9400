// Prepared bases (curve.prepareBases, pool.prepareBases) against @noble/curves (scripts/peers.js nobleMsm, which
// shares no code with the library) and the library's own msmBytes:
// - every shipped curve, the degenerate input of the thread tests (repeated points, P and -P in one bucket,
//   infinity, zero and edge scalars), without and with precompute (the model's window and a tiny one with many
//   windows), over prefixes 0, 1, 2, half, N - 1 and N; a short prefix of a precompute table takes the
//   windowed path, a long one the flat path (both are hit);
// - 1100 random bases on two curves, prefixes 1, 2, 1000, N - 1, N;
// - the pool, both paths, 1..3 threads, with a replaced thread (messages: the slice is rebuilt);
// - bad input, clear errors, free(), formats, the memory check.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { makeCurve, makeRng } from '../src/bigint/curve.js';
import { checkTableFits, tableLayout } from '../src/msm/prepared.js';
import { KERNELS } from './harness.js';
import { degenerateInput, pointsToBytes, scalarsToBytes, WEIERSTRASS_CURVES } from './msm-oracle.js';

const show = (P) => (P === null ? 'infinity' : `(0x${P.x.toString(16)}, 0x${P.y.toString(16)})`);
const PRECOMPUTE = [false, true, { window: 4 }];

for (const name of WEIERSTRASS_CURVES) { // the Edwards curves: edwards.test.js
  describe(`prepared bases on ${name}`, { timeout: 120_000 }, () => {
    let curve;
    let pointBytes;
    let scalarBytes;
    let N;
    const expected = new Map(); // k -> noble's sum over the first k
    const prefixes = () => [0, 1, 2, N >> 1, N - 1, N];

    beforeAll(async () => {
      curve = await loadCurve(name);
      const oracle = makeCurve(curve.params);
      const { points, scalars } = degenerateInput(curve, oracle, curve.randomPoints(200, { seed: 5 }), makeRng(`prepared ${name}`));
      N = points.length;
      // encoded by the test harness, not by the library
      pointBytes = pointsToBytes(curve.params.field.bytes, points);
      scalarBytes = scalarsToBytes(curve.params.scalarBytes, scalars);
      for (const k of prefixes()) {
        expected.set(k, show(await nobleMsm(curve.params, pointBytes.subarray(0, k * curve.pointBytes), scalarBytes.subarray(0, k * curve.scalarBytes))));
      }
    });

    it('equals noble on every prefix, without and with precompute (flat and windowed paths)', () => {
      const paths = new Set();
      for (const precompute of PRECOMPUTE) {
        const bases = curve.prepareBases(pointBytes, { precompute });
        expect(bases.length).toBe(N);
        for (const k of prefixes()) {
          const timings = {};
          const got = bases.msmBytes(scalarBytes.subarray(0, k * curve.scalarBytes), { timings });
          paths.add(timings.flat);
          expect(show(curve.decodePoint(got)), `precompute ${JSON.stringify(precompute)}, k = ${k}`).toBe(expected.get(k));
        }
        bases.free();
      }
      expect([...paths].sort()).toEqual([false, true]);
    });

    it('on a pool: both paths, 1..3 threads, equal noble', async () => {
      for (const sharedMemory of [true, false]) {
        for (const count of [1, 2, 3]) {
          const pool = await curve.threads({ count, sharedMemory });
          try {
            for (const precompute of [false, true]) {
              const bases = await pool.prepareBases(pointBytes, { precompute });
              for (const k of prefixes()) {
                const got = await bases.msmBytes(scalarBytes.subarray(0, k * curve.scalarBytes));
                expect(show(curve.decodePoint(got)), `shared ${sharedMemory}, ${count} threads, precompute ${precompute}, k = ${k}`).toBe(expected.get(k));
              }
              await bases.free();
            }
          } finally {
            await pool.close();
          }
        }
      }
    });
  });
}

describe('prepared bases: larger inputs and the API', { timeout: 300_000 }, () => {
  it('1100 random bases (BLS12-381, BN254): prefixes 1, 2, 1000, N - 1, N equal msmBytes and noble', async () => {
    for (const name of ['bls12-381', 'bn254']) {
      const curve = await loadCurve(name);
      const N = 1100;
      const points = curve.randomPointsBytes(N, { seed: 9 });
      const scalars = curve.randomScalarsBytes(N, { seed: 10 });
      const [PB, S] = [curve.pointBytes, curve.scalarBytes];
      const plain = curve.prepareBases(points);
      const pre = curve.prepareBases(points, { precompute: true });
      for (const k of [1, 2, 1000, N - 1, N]) {
        const want = curve.msmBytes(points.subarray(0, k * PB), scalars.subarray(0, k * S));
        if (k === 1000 || k === N) expect(show(curve.decodePoint(want)), `${name} k = ${k} against noble`).toBe(show(await nobleMsm(curve.params, points.subarray(0, k * PB), scalars.subarray(0, k * S))));
        expect(plain.msmBytes(scalars.subarray(0, k * S)), `${name} k = ${k}`).toEqual(want);
        expect(pre.msmBytes(scalars.subarray(0, k * S)), `${name} k = ${k}, precompute`).toEqual(want);
      }
      // the same handle again (nothing of one call leaks into the next) and the BigInt form
      const bigScalars = curve.randomScalars(10, { seed: 11 });
      expect(pre.msm(bigScalars)).toEqual(curve.msm(curve.randomPoints(N, { seed: 9 }).slice(0, 10), bigScalars));
      plain.free();
      pre.free();
    }
  });

  it('formats: compressed bases and big-endian scalars give the native result', async () => {
    const curve = await loadCurve('bls12-381');
    const points = curve.randomPointsBytes(50, { seed: 3 });
    const scalars = curve.randomScalarsBytes(50, { seed: 4 });
    const want = curve.msmBytes(points, scalars);
    const compressed = curve.encodePoint(points, 'zcash-compressed');
    const bases = curve.prepareBases(compressed, { pointFormat: 'zcash-compressed', precompute: true });
    const be = new Uint8Array(scalars.length);
    for (let i = 0; i < 50; i++) be.set(scalars.slice(32 * i, 32 * i + 32).reverse(), 32 * i);
    expect(bases.msmBytes(be, { scalarFormat: 'be' })).toEqual(want);
    expect(bases.msmBytes(scalars, { resultFormat: 'zcash-compressed' })).toEqual(curve.encodePoint(want, 'zcash-compressed'));
    const pool = await curve.threads({ count: 2 });
    try {
      const pooled = await pool.prepareBases(compressed, { pointFormat: 'zcash-compressed' });
      expect(await pooled.msmBytes(scalars)).toEqual(want);
    } finally {
      await pool.close();
    }
  });

  it('bad input: clear errors naming the index, and the subgroup check (order-3 point (0, 2) on BLS12-381)', async () => {
    const curve = await loadCurve('bls12-381');
    const points = curve.randomPointsBytes(20, { seed: 3 });
    const B = curve.coordinateBytes;
    const offCurve = points.slice();
    offCurve[7 * 2 * B] ^= 1;
    expect(() => curve.prepareBases(offCurve)).toThrow(/points\[7\]: point is not on the curve/);
    const tooBig = points.slice();
    tooBig.fill(0xff, 3 * 2 * B, 4 * 2 * B);
    expect(() => curve.prepareBases(tooBig, { precompute: true })).toThrow(/points\[3\]: x coordinate is >= p/);
    expect(() => curve.prepareBases(points.subarray(1))).toThrow(/not a multiple of 96/);
    expect(() => curve.prepareBases([1, 2])).toThrow(TypeError);
    expect(() => curve.prepareBases(points, { precompute: 'yes' })).toThrow(/precompute must be a boolean/);
    expect(() => curve.prepareBases(points, { precompute: { windw: 5 } })).toThrow(/unknown option "windw" in options.precompute/);
    expect(() => curve.prepareBases(points, { scalarFormat: 'be' })).toThrow(/belongs to the prepared bases' msmBytes/);
    // (0, 2): y^2 = x^3 + 4, a point of order 3, outside the subgroup of order r
    const order3 = points.slice();
    order3.fill(0, 5 * 2 * B, 6 * 2 * B);
    order3[5 * 2 * B + B] = 2;
    expect(() => curve.prepareBases(order3, { checkSubgroup: true })).toThrow(/points\[5\] is not in the subgroup of order r/);
    expect(() => curve.prepareBases(order3)).not.toThrow(); // not asked: documented
    const bases = curve.prepareBases(points, { checkSubgroup: true });
    const scalars = curve.randomScalarsBytes(21);
    expect(() => bases.msmBytes(scalars)).toThrow(/21 scalars but only 20 prepared bases/);
    const r = new Uint8Array(32);
    let x = curve.r;
    for (let i = 0; i < 32; i++, x >>= 8n) r[i] = Number(x & 0xffn);
    const badScalar = scalars.slice(0, 20 * 32);
    badScalar.set(r, 4 * 32);
    expect(() => bases.msmBytes(badScalar)).toThrow(/scalars\[4\] is not in \[0, r\)/);
    expect(() => bases.msmBytes(scalars.subarray(1, 32))).toThrow(/not a multiple of 32/);
    expect(() => bases.msmBytes(scalars.subarray(0, 32), { checkSubgroup: true })).toThrow(/belongs to prepareBases/);
    const pre = curve.prepareBases(points, { precompute: true });
    expect(() => pre.msmBytes(scalars.subarray(0, 32), { window: 5 })).toThrow(/window does not apply/);
    bases.free();
    expect(() => bases.msmBytes(scalars.subarray(0, 32))).toThrow(/freed/);
    // a table that cannot fit in 4 GiB: a RangeError before anything is allocated
    expect(() => checkTableFits(tableLayout(curve.params, 2 ** 22, { window: 4 }), 0, curve.params)).toThrow(/more than a 4 GiB Wasm memory holds/);

    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        await expect(pool.prepareBases(offCurve)).rejects.toThrow(/points\[7\]: point is not on the curve/);
        await expect(pool.prepareBases(order3, { checkSubgroup: true })).rejects.toThrow(/points\[5\] is not in the subgroup/);
        const pooled = await pool.prepareBases(points, { precompute: true });
        await expect(pooled.msmBytes(scalars)).rejects.toThrow(/21 scalars but only 20/);
        const want = curve.msmBytes(points, scalars.subarray(0, 20 * 32));
        expect(await pooled.msmBytes(scalars.subarray(0, 20 * 32))).toEqual(want);
        await pooled.free();
        await expect(pooled.msmBytes(scalars.subarray(0, 32))).rejects.toThrow(/freed/);
      } finally {
        await pool.close();
      }
    }
  });

  it('a precompute table beyond 4 GiB: prepareBases throws (a pool rejects) a RangeError before any memory grows or any point is decoded; both stay usable', async () => {
    // 5 * 2^16 BLS12-381 bases with 2-bit windows: 2 pairs x 64 windows x (128 or 136)-byte points each, over 5 GB.
    // All infinity: valid bases, and no point is even read before the check.
    const N = 5 * 2 ** 16;
    const grow = WebAssembly.Memory.prototype.grow;
    let grows = 0;
    for (const kernel of KERNELS) {
      const curve = await loadCurve('bls12-381', { kernel });
      const points = new Uint8Array(N * curve.pointBytes);
      expect(tableLayout(curve.params, N, { window: 2 }).bytes, kernel).toBeGreaterThan(2 ** 32);
      const tooLarge = /^the prepared bases need \d+ MiB \(327680 bases x \d+ bytes: precompute of 64 windows\), more than a 4 GiB Wasm memory holds; use fewer bases per handle or precompute: false$/;
      const pool = await curve.threads({ count: 2, sharedMemory: true });
      WebAssembly.Memory.prototype.grow = function countedGrow(...args) {
        grows++;
        return grow.apply(this, args);
      };
      try {
        grows = 0;
        expect(() => curve.prepareBases(points, { precompute: { window: 2 } }), kernel).toThrow(tooLarge);
        await expect(pool.prepareBases(points, { precompute: { window: 2 } }), `${kernel} pool`).rejects.toThrow(tooLarge);
        expect(grows, `${kernel}: Wasm memories grown before the error`).toBe(0);
        // the same bases compressed (ZCash infinity: 0xc0 then zeros): the size is known before any point is decoded
        const compressed = new Uint8Array(N * 48);
        for (let i = 0; i < N; i++) compressed[48 * i] = 0xc0;
        const started = performance.now();
        expect(() => curve.prepareBases(compressed, { pointFormat: 'zcash-compressed', precompute: { window: 2 } }), `${kernel} compressed`).toThrow(tooLarge);
        await expect(pool.prepareBases(compressed, { pointFormat: 'zcash-compressed', precompute: { window: 2 } }), `${kernel} pool, compressed`).rejects.toThrow(tooLarge);
        expect(grows, `${kernel}: Wasm memories grown before the error (compressed bases: nothing decoded first)`).toBe(0);
        expect(performance.now() - started, 'ms to the error').toBeLessThan(1000);
      } finally {
        WebAssembly.Memory.prototype.grow = grow;
      }
      try {
        // a few bases with the same precompute fit, and give the right sum, synchronously and on the pool
        const few = curve.randomPointsBytes(64, { seed: 2 });
        const scalars = curve.randomScalarsBytes(64, { seed: 3 });
        const bases = curve.prepareBases(few, { precompute: { window: 2 } });
        expect(bases.msmBytes(scalars)).toEqual(curve.msmBytes(few, scalars));
        bases.free();
        const pooled = await pool.prepareBases(few, { precompute: { window: 2 } });
        expect(await pooled.msmBytes(scalars)).toEqual(curve.msmBytes(few, scalars));
        await pooled.free();
      } finally {
        await pool.close();
      }
    }
  });

  it('shared path, threads with shares of unequal size (N not a multiple of T): every table is right', async () => {
    // equalShares gives the first threads the smaller shares (200 on 3: 66, 67, 67). Each thread builds its share
    // of the table in a scratch area of its own; one sized for the first share let a larger share write into the
    // next thread's area while that thread used it, and the table came out wrong about every other build.
    const curve = await loadCurve('bn254');
    for (const [N, count] of [[200, 3], [101, 3], [403, 4]]) {
      const points = curve.randomPointsBytes(N, { seed: N });
      const scalars = curve.randomScalarsBytes(N, { seed: N + 1 });
      const want = curve.msmBytes(points, scalars);
      const pool = await curve.threads({ count, sharedMemory: true });
      try {
        for (const precompute of [true, false]) {
          for (let build = 0; build < 8; build++) {
            const bases = await pool.prepareBases(points, { precompute });
            expect(await bases.msmBytes(scalars), `N = ${N}, ${count} threads, precompute ${precompute}, build ${build}`).toEqual(want);
            await bases.free();
          }
        }
      } finally {
        await pool.close();
      }
    }
  });

  it('a pool keeps its prepared bases across a replaced thread, and frees shared tables for reuse', async () => {
    const curve = await loadCurve('bn254');
    const points = curve.randomPointsBytes(300, { seed: 6 });
    const scalars = curve.randomScalarsBytes(300, { seed: 7 });
    const want = curve.msmBytes(points, scalars);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const bases = await pool.prepareBases(points, { precompute: true });
        const big = 1 << 14;
        const running = pool.msmBytes(curve.randomPointsBytes(big), curve.randomScalarsBytes(big));
        setTimeout(() => pool.killThreadForTesting(1), 20);
        await expect(running).rejects.toThrow(/wasmsm thread 1 (failed|was stopped|is not running)/);
        // thread 1 is replaced before the next call (messages: its slice of the bases is rebuilt from a copy)
        expect(await bases.msmBytes(scalars)).toEqual(want);
        // free the first of two tables, then the second: the next table reuses the memory
        const second = await pool.prepareBases(points);
        await bases.free();
        expect(await second.msmBytes(scalars)).toEqual(want);
        await second.free();
        const third = await pool.prepareBases(points, { precompute: true });
        expect(await third.msmBytes(scalars)).toEqual(want);
        await third.free();
      } finally {
        await pool.close();
      }
    }
  });
});
