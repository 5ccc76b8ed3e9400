// MSM end to end (loadCurve -> msm / msmBytes) on every shipped curve, against two oracles that share no
// code with the library: @noble/curves' pippenger (scripts/peers.js nobleMsm) for every size, and the plain
// BigInt double-and-add of src/bigint/curve.js for small n and for every single-point expectation.
//
// Sizes: 0, 1, 2, 3 and 2^k - 1, 2^k, 2^k + 1 up to 2^11 on a few curves (the oracles are slow), up to 2^8 on
// the rest. Degenerate inputs on every curve: zero scalars, scalars at the edges of r, lambda and 2^k, the
// same point many times (buckets must double), P and -P (buckets must cancel), GLV images of a point in the
// same MSM, infinity in the input, forced window sizes, msmBytes vs msm, and the timings option.
//
// Every input is deterministic: test names carry curve, n and seed so any failure replays.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { relaxedFmaSupport, wideArithmeticSupport } from '../src/runtime/features.js';
import { nobleMsm, noblePointClass } from '../scripts/peers.js';
import { makeCurve, makeRng, randomScalar } from '../src/bigint/curve.js';
import { pointsToBytes, scalarsToBytes, WEIERSTRASS_CURVES } from './msm-oracle.js';

// Largest size exponent k (n up to 2^k + 1) per curve: the oracles are slow, so the biggest sizes run on
// three curves only (48-byte BLS, 32-byte BN, secp256k1 with p near 2^256) and the rest stop at 2^7 + 1.
const MAX_K = { 'bls12-381': 11, bn254: 11, secp256k1: 10 };
const MAX_K_SMALL = 7;
const BIG_CURVES = new Set(Object.keys(MAX_K));
const BIGINT_ORACLE_MAX_N = 9; // the double-and-add oracle costs ~10 ms per point
const FORCED_WINDOWS = [2, 3, 7, 16];

// Oracle inputs are encoded by test/harness.js, never by the library's encoders.

const show = (P) => (P === null ? 'infinity' : `(0x${P.x.toString(16)}, 0x${P.y.toString(16)})`);

async function nobleSum(curve, points, scalars) {
  return nobleMsm(curve.params, pointsToBytes(curve.params.field.bytes, points), scalarsToBytes(curve.params.scalarBytes, scalars));
}

function sizesUpTo(maxK) {
  const s = new Set([0, 1, 2, 3]);
  for (let k = 2; k <= maxK; k++) for (const n of [2 ** k - 1, 2 ** k, 2 ** k + 1]) s.add(n);
  return [...s].sort((a, b) => a - b);
}

/** Scalars at the edges: 0, 1, r - 1, lambda and its neighbours, 2^k, 2^k - 1 (all-ones), r - 2^k, patterns. */
function specialScalars(curve) {
  const r = curve.r;
  const rBits = r.toString(2).length;
  const lambda = curve.params.glv.lambda;
  const halfBits = curve.params.glv.halfBits;
  const list = [0n, 1n, 2n, 3n, r - 1n, r - 2n, r - 3n, (r - 1n) / 2n, (r + 1n) / 2n];
  list.push(lambda, lambda + 1n, lambda - 1n, r - lambda, r - lambda - 1n, r - lambda + 1n);
  list.push((lambda * lambda) % r, (2n * lambda) % r, (lambda << 64n) % r);
  const ks = [1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, halfBits - 1, halfBits, halfBits + 1, rBits - 2, rBits - 1];
  for (const k of ks) list.push(1n << BigInt(k));
  const ones = [2, 8, 16, 29, 30, 31, 32, 64, 127, 128, 129, halfBits + 1, 192, rBits - 2, rBits - 1];
  for (const k of ones) list.push((1n << BigInt(k)) - 1n);
  for (const k of [1, 64, 128]) list.push(r - (1n << BigInt(k)));
  const fives = BigInt('0x' + '5'.repeat(64)) & ((1n << BigInt(rBits - 1)) - 1n);
  const as = BigInt('0x' + 'a'.repeat(64)) & ((1n << BigInt(rBits - 1)) - 1n);
  list.push(fives, as);
  const seen = new Set();
  return list.filter((s) => s >= 0n && s < r && !seen.has(s) && seen.add(s));
}

for (const name of WEIERSTRASS_CURVES) { // the Edwards curves: edwards.test.js
  describe(`msm on ${name}`, { timeout: 60_000 }, () => {
    let curve;
    let oracle;
    let pool; // random points shared by the size sweep (prefixes of one deterministic list)
    let NoblePoint;
    const maxK = MAX_K[name] ?? MAX_K_SMALL;
    const sizes = sizesUpTo(maxK);
    const POOL_SEED = 11;

    beforeAll(async () => {
      curve = await loadCurve(name);
      oracle = makeCurve(curve.params);
      NoblePoint = await noblePointClass(curve.params);
      pool = curve.randomPoints(Math.max(2 ** maxK + 1, 400), { seed: POOL_SEED });
      // The pool comes from the library: make sure it is a sound input before trusting any comparison.
      for (const P of pool.slice(0, 64)) expect(oracle.isOnCurve(P)).toBe(true);
    });

    const P0 = () => pool[0];
    const nobleMul = (P, s) => {
      const Q = NoblePoint.fromAffine(P).multiplyUnsafe(s);
      return Q.is0() ? null : Q.toAffine();
    };
    const rng = (seed) => makeRng(seed);
    const randomScalars = (n, seed) => {
      const g = rng(seed);
      return Array.from({ length: n }, () => randomScalar(g, curve.r));
    };

    /** Run msm and compare with noble (always) and the BigInt oracle (small n, or a given expectation). */
    async function check(points, scalars, { options, expected, label = '' } = {}) {
      const ours = curve.msm(points, scalars, options);
      const theirs = await nobleSum(curve, points, scalars);
      expect(show(ours), `noble ${label}`).toBe(show(theirs));
      if (expected !== undefined) {
        expect(show(ours), `bigint oracle ${label}`).toBe(show(expected));
      } else if (points.length <= BIGINT_ORACLE_MAX_N) {
        expect(show(ours), `bigint oracle ${label}`).toBe(show(oracle.msm(points, scalars)));
      }
      return ours;
    }

    // ---- size sweep ----------------------------------------------------------------------------------------

    it(`random inputs, n in {${sizes.join(', ')}} (points seed ${POOL_SEED}, scalars seed 1000 + n)`, async () => {
      for (const n of sizes) {
        const points = pool.slice(0, n);
        const scalars = randomScalars(n, 1000 + n);
        await check(points, scalars, { label: `n = ${n}, scalars seed ${1000 + n}` });
      }
    });

    it('n = 0 gives infinity', () => {
      expect(curve.msm([], [])).toBe(null);
      for (const c of FORCED_WINDOWS) expect(curve.msm([], [], { window: c })).toBe(null);
    });

    // ---- zero scalars --------------------------------------------------------------------------------------

    it('all scalars zero gives infinity (n = 1, 5, 300; several windows)', () => {
      expect(curve.msm([curve.generator], [0n])).toBe(null);
      expect(curve.msm([P0()], [0n])).toBe(null);
      for (const n of [5, 300]) {
        const points = pool.slice(0, n);
        const zeros = new Array(n).fill(0n);
        expect(curve.msm(points, zeros)).toBe(null);
        for (const c of n === 5 ? FORCED_WINDOWS : [2, 3]) expect(curve.msm(points, zeros, { window: c }), `window ${c}`).toBe(null);
      }
    });

    it('zero scalars mixed with nonzero ones are skipped', async () => {
      const points = pool.slice(0, 40);
      const scalars = randomScalars(40, 77).map((s, i) => (i % 3 === 0 ? 0n : s));
      await check(points, scalars, { label: 'every third scalar zero, seed 77' });
    });

    // ---- special scalars -----------------------------------------------------------------------------------

    it('each special scalar alone (0, 1, r - 1, lambda, lambda + 1, r - lambda, 2^k, 2^k - 1, ...) times G (BigInt oracle) and times a random point (noble)', async () => {
      const scalars = specialScalars(curve);
      expect(scalars.length).toBeGreaterThan(40);
      for (const s of scalars) {
        const label = `s = 0x${s.toString(16)}`;
        expect(show(curve.msm([curve.generator], [s])), `${label}, P = G`).toBe(show(oracle.mul(curve.generator, s)));
        expect(show(curve.msm([P0()], [s])), `${label}, P = pool[0]`).toBe(show(nobleMul(P0(), s)));
      }
    });

    it('all special scalars in one MSM over random points, default and forced windows', async () => {
      const scalars = specialScalars(curve);
      const points = pool.slice(0, scalars.length);
      const expected = await nobleSum(curve, points, scalars);
      await check(points, scalars, { expected, label: 'special scalars' });
      for (const c of FORCED_WINDOWS) {
        expect(show(curve.msm(points, scalars, { window: c })), `window ${c}`).toBe(show(expected));
      }
    });

    // ---- repeated points: buckets must double --------------------------------------------------------------

    it('the same point many times with equal scalars (buckets double)', async () => {
      const P = P0();
      const r = curve.r;
      const cases = [
        [300, randomScalars(1, 5)[0]],
        [256, 1n],
        [257, r - 1n],
        [100, curve.params.glv.lambda],
        [128, 1n << 64n],
        [2, 1n],
        [3, 2n],
      ];
      for (const [count, s] of cases) {
        const points = new Array(count).fill(P);
        const scalars = new Array(count).fill(s);
        const expected = oracle.mul(P, (BigInt(count) * s) % r);
        await check(points, scalars, { expected, label: `${count} x P, s = 0x${s.toString(16)}` });
        for (const c of [2, 7]) {
          expect(show(curve.msm(points, scalars, { window: c })), `${count} x P, window ${c}`).toBe(show(expected));
        }
      }
    });

    it('the generator repeated 512 times with scalar 1 (every bucket tree level doubles)', () => {
      const points = new Array(512).fill(curve.generator);
      expect(show(curve.msm(points, new Array(512).fill(1n)))).toBe(show(oracle.mul(curve.generator, 512n)));
    });

    it('P, P, 2P, 2P, 4P, 4P, ... with equal scalars (doubling at every tree level)', async () => {
      const P = P0();
      const points = [];
      let Q = P;
      for (let i = 0; i < 6; i++) {
        points.push(Q, Q);
        Q = oracle.double(Q);
      }
      const s = randomScalars(1, 9)[0];
      const scalars = new Array(points.length).fill(s);
      // sum = 2 * (1 + 2 + ... + 32) P = 126 P
      await check(points, scalars, { expected: oracle.mul(P, (126n * s) % curve.r) });
    });

    it('the same point with different scalars', async () => {
      const P = P0();
      for (const [count, seed] of [[200, 21], [7, 22], [33, 23]]) {
        const scalars = randomScalars(count, seed);
        const points = new Array(count).fill(P);
        const total = scalars.reduce((a, b) => a + b, 0n) % curve.r;
        await check(points, scalars, { expected: oracle.mul(P, total), label: `${count} x P, seed ${seed}` });
      }
    });

    // ---- P and -P: buckets must cancel ---------------------------------------------------------------------

    it('P and -P with equal scalars cancel', async () => {
      const P = P0();
      const N = oracle.neg(P);
      const s = randomScalars(1, 31)[0];
      await check([P, N], [s, s], { expected: null, label: '[P, -P]' });
      await check([N, P], [1n, 1n], { expected: null, label: '[-P, P], s = 1' });
      await check([P, P, N, N], [s, s, s, s], { expected: null, label: '[P, P, -P, -P]' });
      await check([P, N, P, N], [s, s, s, s], { expected: null, label: '[P, -P, P, -P]' });
      await check([P, P, oracle.neg(oracle.double(P)), null], [s, s, s, s], { expected: null, label: '[P, P, -2P, inf]' });
      const alt = Array.from({ length: 300 }, (_, i) => (i % 2 ? N : P));
      await check(alt, new Array(300).fill(s), { expected: null, label: '150 x (P, -P)' });
      const halves = [...new Array(150).fill(P), ...new Array(150).fill(N)];
      await check(halves, new Array(300).fill(s), { expected: null, label: '150 x P then 150 x -P' });
      // cancelling pairs next to other points leave exactly the others
      const Q = pool[1];
      const t = randomScalars(1, 32)[0];
      await check([P, Q, N], [s, t, s], { expected: oracle.mul(Q, t), label: '[P, Q, -P]' });
      const odd = [...new Array(101).fill(P), ...new Array(100).fill(N)];
      await check(odd, new Array(201).fill(s), { expected: oracle.mul(P, s), label: '101 x P, 100 x -P' });
    });

    it('P and -P with different scalars', async () => {
      const P = P0();
      const N = oracle.neg(P);
      const [s, t] = randomScalars(2, 41);
      const r = curve.r;
      await check([P, N], [s, t], { expected: oracle.mul(P, (s - t + r) % r) });
      await check([P, N], [s, r - s], { expected: oracle.mul(P, (2n * s) % r), label: 's and r - s' });
      const scalars = randomScalars(100, 42);
      const points = scalars.map((_, i) => (i % 2 ? N : P));
      const total = scalars.reduce((a, x, i) => (i % 2 ? a - x : a + x), 0n);
      await check(points, scalars, { expected: oracle.mul(P, ((total % r) + r) % r), label: '50 x (P, -P), seed 42' });
    });

    // ---- GLV images in the same MSM -----------------------------------------------------------------------

    it('a point and its endomorphism images (lambda P, -lambda P, lambda^2 P) in the same MSM', async () => {
      const P = P0();
      const r = curve.r;
      const lambda = curve.params.glv.lambda;
      const LP = oracle.mul(P, lambda);
      const L2P = oracle.mul(P, (lambda * lambda) % r);
      const NLP = oracle.neg(LP);
      await check([P, LP], [lambda, 1n], { expected: oracle.mul(P, (2n * lambda) % r), label: '[P, lambda P] x [lambda, 1]' });
      await check([LP, P], [1n, r - lambda], { expected: null, label: '[lambda P, P] x [1, r - lambda]' });
      await check([P, NLP], [lambda, 1n], { expected: null, label: '[P, -lambda P] x [lambda, 1]' });
      await check([P, LP, L2P], [1n, 1n, 1n], { expected: oracle.mul(P, (1n + lambda + lambda * lambda) % r), label: 'P + lambda P + lambda^2 P' });
      const s = randomScalars(1, 51)[0];
      await check([P, LP, L2P, NLP], [s, s, s, s], { label: 'equal random scalar' });
    });

    // ---- infinity in the input ------------------------------------------------------------------------------

    it('points at infinity (null) in the input', async () => {
      const P = P0();
      const s = randomScalars(1, 61)[0];
      await check([null], [s], { expected: null, label: '[inf]' });
      await check([null], [0n], { expected: null, label: '[inf] x 0' });
      await check([null, null, null], [1n, curve.r - 1n, s], { expected: null, label: 'all null, n = 3' });
      await check([null, P, null], [s, s, s], { expected: oracle.mul(P, s), label: '[inf, P, inf]' });
      await check([P, null], [s, s], { expected: oracle.mul(P, s), label: '[P, inf]' });
      const allNull = new Array(300).fill(null);
      expect(curve.msm(allNull, randomScalars(300, 62))).toBe(null);
      for (const c of FORCED_WINDOWS) expect(curve.msm(allNull, randomScalars(300, 62), { window: c }), `window ${c}`).toBe(null);
      const mixed = pool.slice(0, 100).map((Q, i) => (i % 3 === 1 ? null : Q));
      await check(mixed, randomScalars(100, 63), { label: 'every third point null, seed 63' });
      const nullsAndRepeats = Array.from({ length: 64 }, (_, i) => (i % 2 ? null : P));
      await check(nullsAndRepeats, new Array(64).fill(s), { expected: oracle.mul(P, (32n * s) % curve.r), label: '32 x (P, inf)' });
    });

    // ---- forced windows ------------------------------------------------------------------------------------

    it(`forced windows ${FORCED_WINDOWS.join(', ')} agree with the default and with noble (mixed degenerate input)`, async () => {
      const P = P0();
      const N = oracle.neg(P);
      const special = specialScalars(curve);
      const points = [...pool.slice(2, 2 + special.length), P, P, P, N, N, null, null, ...pool.slice(100, 140)];
      const s = randomScalars(1, 71)[0];
      const scalars = [...special, s, s, 5n, s, 5n, s, 0n, ...randomScalars(40, 72)];
      const expected = await nobleSum(curve, points, scalars);
      const timings = {};
      expect(show(curve.msm(points, scalars, { timings })), 'default window').toBe(show(expected));
      for (const c of FORCED_WINDOWS) {
        const t = {};
        expect(show(curve.msm(points, scalars, { window: c, timings: t })), `window ${c}`).toBe(show(expected));
        expect(t.window).toBe(c);
      }
    });

    if (BIG_CURVES.has(name)) {
      it('forced windows on n = 1025 random points (seed 81)', async () => {
        const points = pool.slice(0, 1025);
        const scalars = randomScalars(1025, 81);
        const expected = await nobleSum(curve, points, scalars);
        for (const c of [undefined, ...FORCED_WINDOWS]) {
          expect(show(curve.msm(points, scalars, { window: c })), `window ${c}`).toBe(show(expected));
        }
      });
    }

    // ---- msmBytes and timings ------------------------------------------------------------------------------

    it('msmBytes agrees with msm (random, degenerate, infinity result)', async () => {
      const cases = [
        [pool.slice(0, 100), randomScalars(100, 91)],
        [[P0(), oracle.neg(P0())], [7n, 7n]],
        [[null, P0()], [1n, curve.r - 1n]],
        [[], []],
      ];
      const bytesPerPoint = 2 * curve.params.field.bytes;
      for (const [points, scalars] of cases) {
        const pb = pointsToBytes(curve.params.field.bytes, points);
        const sb = scalarsToBytes(curve.params.scalarBytes, scalars);
        const out = curve.msmBytes(pb, sb);
        expect(out).toBeInstanceOf(Uint8Array);
        expect(out.length).toBe(bytesPerPoint);
        const viaMsm = curve.msm(points, scalars);
        expect(show(curve.decodePoint(out))).toBe(show(viaMsm));
        expect(out).toEqual(pointsToBytes(curve.params.field.bytes, [viaMsm]));
        expect(show(viaMsm)).toBe(show(await nobleSum(curve, points, scalars)));
      }
      // the library's own random byte inputs, through both paths
      const pb = curve.randomPointsBytes(50, { seed: 92 });
      const sb = curve.randomScalarsBytes(50, { seed: 93 });
      const fromBytes = curve.decodePoint(curve.msmBytes(pb, sb));
      expect(show(fromBytes)).toBe(show(curve.msm(curve.randomPoints(50, { seed: 92 }), curve.randomScalars(50, { seed: 93 }))));
      expect(show(fromBytes)).toBe(show(await nobleMsm(curve.params, pb, sb)));
    });

    it('options.timings fills per-phase numbers', () => {
      const timings = {};
      curve.msm(pool.slice(0, 64), randomScalars(64, 95), { timings });
      for (const phase of ['prepare', 'sort', 'accumulate', 'reduce', 'combine']) {
        expect(typeof timings[phase], `timings.${phase}`).toBe('number');
      }
      for (const [key, v] of Object.entries(timings)) {
        expect(Number.isFinite(v) && v >= 0, `timings.${key} = ${v}`).toBe(true);
      }
      expect(Number.isInteger(timings.window)).toBe(true);
      const bytesTimings = {};
      curve.msmBytes(curve.randomPointsBytes(8), curve.randomScalarsBytes(8), { timings: bytesTimings });
      expect(Object.keys(bytesTimings)).toEqual(expect.arrayContaining(['prepare', 'accumulate', 'combine']));
    });

    // ---- the other build -------------------------------------------------------------------------------------

    it(`the integer build (the fallback) and the FMA build give the same results, where this engine runs both`, async () => {
      expect(curve.kernel).toBe(relaxedFmaSupport() === 'fused' ? 'fma' : 'int');
      const int = await loadCurve(name, { kernel: 'int' });
      expect(int.kernel).toBe('int');
      if (relaxedFmaSupport() !== 'fused') {
        await expect(loadCurve(name, { kernel: 'fma' })).rejects.toThrow(/kernel 'fma' needs relaxed SIMD|fused/);
        return;
      }
      const fma = await loadCurve(name, { kernel: 'fma' });
      expect(fma).toBe(curve);
      // batches with doublings, cancellations, infinity and zero scalars inside the four-lane groups, and tails of 1..3
      for (const n of [1, 2, 3, 4, 5, 6, 7, 9, 64, 333, 399]) {
        const points = pool.slice(0, n);
        const scalars = randomScalars(n, 3000 + n);
        for (let i = 0; i + 3 < n; i += 7) {
          points[i + 1] = points[i];
          scalars[i + 1] = scalars[i];
          points[i + 2] = oracle.neg(points[i]);
          scalars[i + 2] = scalars[i];
          points[i + 3] = null;
        }
        if (n > 4) scalars[4] = 0n;
        const label = `n = ${n}, scalars seed ${3000 + n}`;
        const want = show(await nobleSum(curve, points, scalars));
        expect(show(int.msm(points, scalars)), `int ${label}`).toBe(want);
        expect(show(fma.msm(points, scalars)), `fma ${label}`).toBe(want);
        for (const c of [2, 7]) expect(show(fma.msm(points, scalars, { window: c })), `fma ${label}, window ${c}`).toBe(want);
      }
      const pb = int.randomPointsBytes(300, { seed: 5 });
      const sb = int.randomScalarsBytes(300, { seed: 6 });
      expect(fma.msmBytes(pb, sb)).toEqual(int.msmBytes(pb, sb));
    });
  });
}

describe('kernel selection (loadCurve options.kernel)', () => {
  it(`auto takes the FMA build exactly where relaxed_madd is fused (here: ${relaxedFmaSupport()}) and there is no wide arithmetic; a bad kernel is a RangeError`, async () => {
    const auto = await loadCurve('bn254');
    expect(auto.kernel).toBe(wideArithmeticSupport() ? 'wide' : relaxedFmaSupport() === 'fused' ? 'fma' : 'int');
    expect(await loadCurve('bn254', { kernel: 'auto' })).toBe(auto);
    expect(auto.params.kernel).toBe(auto.kernel);
    expect(auto.params.fma).toBeUndefined();
    expect(auto.params.wide).toBeUndefined();
    const int = await loadCurve('bn254', { kernel: 'int' });
    expect(int.params.E).toBe(int.params.field.n * 4);
    expect(int.g2.kernel).toBe('int');
    await expect(loadCurve('bn254', { kernel: 'simd' })).rejects.toThrow(/kernel must be one of 'auto', 'int', 'fma', 'wide', got "simd"/);
    if (relaxedFmaSupport() === 'fused') {
      const fma = await loadCurve('bn254', { kernel: 'fma' });
      expect(fma.params.E).toBe(fma.params.field.n * 8);
      expect(fma.g2.kernel).toBe('fma');
      expect(fma.exports.fp_mul4).toBeTypeOf('function');
      expect(int.exports.fp_mul4).toBeUndefined();
    }
  });
});
