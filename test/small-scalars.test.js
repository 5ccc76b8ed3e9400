// Small scalars (issue #24): the plan takes the largest scalar's bit length (msmShape's scalarBits), so scalars of
// at most a GLV half's bits are not split and take only the windows their bits need, and the reduction skips
// pieces whose buckets are all infinity. Every path that plans from the scalars (the synchronous msmBytes, in one
// chunk and in several, and the pool's shared-memory and message paths) against @noble/curves
// (scripts/noble-msm.js), on a GLV curve's G1 and G2 (BN254), another GLV curve (BLS12-377, 126-bit halves) and a
// curve without GLV (Ed-on-BLS12-377). Scalars are encoded by test/harness.js, never by the library.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/noble-msm.js';
import { makeRng, randomScalar } from '../src/bigint/curve.js';
import { scalarBitLength } from '../src/msm/bytes.js';
import { msmShape, planMsm } from '../src/msm/plan.js';
import { scalarsToBytes } from './msm-oracle.js';

const GROUPS = [
  ['bn254', 'G1'],
  ['bn254', 'G2'],
  ['bls12-377', 'G1'],
  ['ed-on-bls12-377', 'G1'],
];
const N = 600; // not a power of two

const isIdentity = (P) => P === null || (P.x === 0n && P.y === 1n); // Edwards: noble's identity is (0, 1)
const show = (P) => (isIdentity(P) ? 'identity' : JSON.stringify(P, (_, v) => (typeof v === 'bigint' ? v.toString(16) : v)));

/** Random bits: 0 or 1. */
const bit = (rng) => (randomScalar(rng, 2n ** 64n) & 1n);

describe('scalarBitLength', () => {
  it('is the bit length of the largest scalar (BigInt toString(2)), 0 for all zero or none', () => {
    const rng = makeRng('bit length');
    const r = (1n << 255n) - 19n;
    const sets = [[], [0n], [0n, 0n, 0n], [1n], [0n, 1n, 0n], [255n, 256n], [r - 1n, 1n], [1n << 200n, 3n], [(1n << 127n) - 1n, 1n << 126n]];
    for (let k = 0; k < 20; k++) {
      const bits = 1 + (k * 13) % 255;
      sets.push(Array.from({ length: 1 + k * 7 }, () => randomScalar(rng, 1n << BigInt(bits))));
    }
    for (const set of sets) {
      const expected = set.reduce((a, s) => Math.max(a, s === 0n ? 0 : s.toString(2).length), 0);
      expect(scalarBitLength(scalarsToBytes(32, set), 32), set.map(String).join(',')).toBe(expected);
      // with maxBits at least the largest's length (the scan may stop early), the same
      for (const maxBits of [255, 256, Math.max(1, expected), expected + 1]) {
        expect(scalarBitLength(scalarsToBytes(32, set), 32, set.length, maxBits), `${set.map(String).join(',')} maxBits ${maxBits}`).toBe(expected);
      }
      // read as words where the view allows, else as bytes: views at every offset mod 4, and 34-byte scalars
      for (const [S, offset] of [[32, 1], [32, 2], [32, 4], [34, 0], [34, 3]]) {
        const bytes = scalarsToBytes(S, set);
        const view = new Uint8Array(bytes.length + offset + 8).fill(0xff).subarray(offset, offset + bytes.length);
        view.set(bytes);
        expect(scalarBitLength(view, S), `${set.map(String).join(',')} S ${S} offset ${offset}`).toBe(expected);
        expect(scalarBitLength(view, S, set.length, Math.max(1, expected)), `${set.map(String).join(',')} S ${S} offset ${offset} maxBits`).toBe(expected);
      }
    }
  });
});

describe('msmShape from the scalars\' bits', () => {
  it('splits (GLV) only scalars wider than a half; the windows cover just the bits', async () => {
    const bn = (await loadCurve('bn254')).params;
    const half = bn.glv.halfBits;
    expect(msmShape(bn, 1000).glv).toBe(true);
    expect(msmShape(bn, 1000, undefined, 1, { scalarBits: half + 1 }).glv).toBe(true);
    const atHalf = msmShape(bn, 1000, undefined, 1, { scalarBits: half });
    expect([atHalf.glv, atHalf.m, atHalf.bits]).toEqual([false, 1000, half]);
    const bits = msmShape(bn, 25000, undefined, 1, { scalarBits: 1 });
    expect([bits.glv, bits.K, bits.c, bits.L]).toEqual([false, 1, 2, 2]);
    const zero = msmShape(bn, 25000, undefined, 2, { scalarBits: 0 });
    expect(zero.K).toBe(1);
    // whether a forced window is allowed does not depend on the scalars
    expect(() => msmShape(bn, 2 ** 16, 19, 1, { scalarBits: 1 })).not.toThrow();
    expect(() => msmShape(bn, 2 ** 16, 20, 1, { scalarBits: 1 })).toThrow(RangeError);
  });
});

for (const [name, group] of GROUPS) {
  describe(`small scalars on ${name} ${group}`, { timeout: 120_000 }, () => {
    let curve;
    let g;
    let points;
    let pointBytes;
    let pools;
    let neg;

    beforeAll(async () => {
      curve = await loadCurve(name);
      g = group === 'G2' ? curve.g2 : curve;
      points = g.randomPoints(N, { seed: 24 });
      pointBytes = g.encodePoints(points);
      neg = (P) => g.decodePoint(g.msmBytes(g.encodePoints([P]), scalarsToBytes(g.params.scalarBytes, [g.r - 1n])));
      pools = {
        shared: await g.threads({ count: 2, sharedMemory: true }),
        messages: await g.threads({ count: 2, sharedMemory: false }),
      };
    });
    afterAll(async () => {
      await pools?.shared.close();
      await pools?.messages.close();
    });

    /** Every path's result against noble's; returns the synchronous call's timings. */
    async function check(pts, scalars, label) {
      const S = g.params.scalarBytes;
      const pb = pts === points ? pointBytes : g.encodePoints(pts);
      const sb = scalarsToBytes(S, scalars);
      const expected = show(await nobleMsm(g.params, pb, sb));
      const timings = {};
      expect(show(g.decodePoint(g.msmBytes(pb, sb, { timings }))), `${label}: msmBytes`).toBe(expected);
      const last = pts.length;
      if (last > 1) {
        // chunks of a third of the points: buckets carried across chunks
        const chunked = {};
        const budget = budgetForChunk(g, last, Math.ceil(last / 3), scalarBitLength(sb, S));
        const out = g.msmBytes(pb, sb, { maxMemory: budget, timings: chunked });
        expect(show(g.decodePoint(out)), `${label}: msmBytes in ${chunked.chunks} chunks`).toBe(expected);
        expect(chunked.chunks, label).toBeGreaterThan(1);
      }
      for (const [path, pool] of Object.entries(pools)) {
        expect(show(g.decodePoint(await pool.msmBytes(pb, sb))), `${label}: pool, ${path} path`).toBe(expected);
      }
      return timings;
    }

    const rng = () => makeRng(`small ${name} ${group}`);

    it('all scalars zero: the identity, in one window', async () => {
      const t = await check(points, new Array(N).fill(0n), 'all zero');
      expect([t.windows, t.bits]).toEqual([1, 1]);
    });

    it('all scalars 0 or 1: one window of two buckets', async () => {
      const R = rng();
      const t = await check(points, points.map(() => bit(R)), '0/1');
      expect([t.windows, t.window, t.bits]).toEqual([1, 2, 1]);
      await check(points, new Array(N).fill(1n), 'all 1');
    });

    it('bits with a few full-size scalars, and one full-size among small ones', async () => {
      const R = rng();
      await check(points, points.map((_, i) => (i % 16 === 5 ? randomScalar(R, g.r) : bit(R))), 'bits, 1/16 full-size');
      await check(points, points.map((_, i) => (i === 321 ? g.r - 1n : randomScalar(R, 256n))), 'one r - 1 among bytes');
      await check(points, points.map((_, i) => (i % 3 ? randomScalar(R, 1n << 32n) : randomScalar(R, g.r))), '32-bit and full-size');
      await check(points, points.map((_, i) => (i % 2 ? 1n << 32n : 0n)), '33-bit scalars and zeros');
    });

    it('a bad point among small and full-size scalars is named by its index, the lowest first', async () => {
      const R = rng();
      const scalars = points.map((_, i) => (i % 16 === 5 ? randomScalar(R, g.r) : bit(R) + 1n));
      const sb = scalarsToBytes(g.params.scalarBytes, scalars);
      const PB = 2 * g.params.field.bytes;
      const bad = (indices) => {
        const pb = pointBytes.slice();
        for (const i of indices) pb[i * PB] ^= 1; // x changes: off the curve
        return pb;
      };
      for (const [indices, named] of [[[100], 100], [[37], 37], [[100, 37], 37], [[21, 100], 21], [[598, 599], 598]]) {
        const pb = bad(indices);
        const message = new RegExp(`^points\\[${named}\\]: point is not on the curve$`);
        expect(() => g.msmBytes(pb, sb), `${indices}`).toThrow(message);
        for (const [path, pool] of Object.entries(pools)) await expect(pool.msmBytes(pb, sb), `${indices}, ${path}`).rejects.toThrow(message);
      }
    });

    it('scalars of 8, 16, 64 bits, a GLV half and a half plus one', async () => {
      const R = rng();
      const half = g.params.glv?.halfBits ?? 126;
      for (const bits of [8, 16, 64, half, half + 1]) {
        const top = 1n << BigInt(bits - 1); // one scalar has exactly `bits` bits
        const t = await check(points, points.map((_, i) => (i === 7 ? top : randomScalar(R, top << 1n))), `${bits}-bit scalars`);
        expect(t.bits, `${bits}-bit`).toBe(g.params.glv && bits > half ? half : bits);
      }
    });

    it('windows that no digit reaches between small and large scalars (skipped in the reduction)', async () => {
      const R = rng();
      const high = 1n << BigInt(g.params.rBits - 8);
      await check(points, points.map((_, i) => (i % 2 ? high * randomScalar(R, 64n) : bit(R))), 'bits and multiples of 2^(rBits - 8)');
    });

    it('P + P and P + (-P) in one bucket', async () => {
      const [P, Q, T] = points;
      const pts = [P, P, Q, neg(Q), T, P, neg(T), Q, P];
      await check(pts, pts.map(() => 1n), 'P + P, Q - Q, T - T with scalar 1');
      await check([P, neg(P)], [1n, 1n], 'P - P alone');
      await check([P, P], [3n, 3n], 'P + P, scalar 3');
    });

    it('n = 0 and 1', async () => {
      await check([], [], 'n = 0');
      await check([points[3]], [1n], 'n = 1, scalar 1');
      await check([points[3]], [5n], 'n = 1, scalar 5');
      await check([points[3]], [0n], 'n = 1, scalar 0');
    });
  });
}

/** The smallest maxMemory whose plan for these scalars has chunks of `points` points. */
function budgetForChunk(g, n, points, scalarBits) {
  const base = g.exports.fp_heapBase.value;
  const planned = (maxMemory) => {
    try {
      return planMsm(g.params, n, { maxMemory, base, scalarBits }).chunkPoints;
    } catch {
      return 0;
    }
  };
  let lo = base;
  let hi = 64 * 2 ** 20;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (planned(mid) >= points) hi = mid;
    else lo = mid;
  }
  return hi;
}
