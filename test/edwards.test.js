// The twisted Edwards curves (ed25519, jubjub, baby-jubjub, ed-on-bls12-377, bandersnatch): every curve method on
// points { x, y } in the curve's own coordinates, against oracles that share nothing with the library's map to a
// short-Weierstrass image: @noble/curves (ed25519, jubjub, babyjubjub, and its edwards() for ed-on-bls12-377; it
// refuses Bandersnatch's non-square a) and the BigInt affine Edwards law of test/harness.js (edwardsOps), which
// also makes the inputs: P_i = k_i G with k_i known, so sum s_i P_i = (sum s_i k_i) G is one double-and-add.
// Degenerate inputs: the neutral (0, 1) given as null and as the point, P + P, P + (-P), repeats, zero scalars,
// n = 0 and 1. Chunks (maxMemory), accumulators and streams on one thread and a pool. Small-order and mixed-order points (cofactors 8 and 4): summed right without checkSubgroup on the
// curves without GLV, rejected with it (msm, msmBytes, decodePoints, prepareBases, a pool). Each build this engine
// runs (test/harness.js KERNELS).

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { jubjub, babyjubjub } from '@noble/curves/misc.js';
import { edwards } from '@noble/curves/abstract/edwards.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { makeRng, randomScalar } from '../src/bigint/curve.js';
import { KERNELS } from './harness.js';
import { edwardsOps } from './msm-oracle.js';
import { planMsm } from '../src/msm/plan.js';

const NOBLE = { ed25519: ed25519.Point, jubjub: jubjub.Point, 'baby-jubjub': babyjubjub.Point };
const CURVES = ['ed25519', 'jubjub', 'baby-jubjub', 'ed-on-bls12-377', 'bandersnatch'];

/** noble's Point class for the curve, or null where noble refuses its params (Bandersnatch: a is not a square). */
function noblePoint(curve) {
  if (NOBLE[curve.name]) return NOBLE[curve.name];
  const { p, r: n, a, d, generator: G } = curve;
  try {
    return edwards({ p, n, h: curve.params.h, a, d, Gx: G.x, Gy: G.y });
  } catch (e) {
    expect(curve.name).toBe('bandersnatch');
    expect(e.message).toMatch(/must be a square/);
    return null;
  }
}

const same = (P, Q) => P.x === Q.x && P.y === Q.y;

/** The number of affine points of order dividing h, besides (0, 1): h - 1, but 1 on Bandersnatch (see torsion). */
const affineTorsion = (curve) => (curve.name === 'bandersnatch' ? 1 : Number(curve.params.h) - 1);

for (const name of CURVES) {
  for (const kernel of KERNELS) {
    describe(`${name} (${kernel} build)`, () => {
      let curve;
      let ed;
      let Point;
      let rng;
      /** n points k_i G (k_i = k0 + i k1, so consecutive additions make them) with their k_i. */
      let multiples;
      /** The torsion: points of each order dividing h, > 1 (from r * R for random curve points R). */
      let torsion;
      const sumOf = (ks, scalars) => ed.mul(curve.generator, ks.reduce((acc, k, i) => (acc + k * scalars[i]) % curve.r, 0n));
      const nobleSum = (points, scalars) => {
        const Q = pippenger(Point, points.map((P) => (P === null ? Point.ZERO : Point.fromAffine(P))), scalars).toAffine();
        return { x: Q.x, y: Q.y };
      };

      beforeAll(async () => {
        curve = await loadCurve(name, { kernel });
        expect(curve.model).toBe('twisted-edwards');
        ed = edwardsOps(curve);
        Point = noblePoint(curve);
        rng = makeRng(`edwards ${name}`);
        const k0 = randomScalar(rng, curve.r);
        const k1 = randomScalar(rng, curve.r);
        const P1 = ed.mul(curve.generator, k1);
        multiples = { points: [ed.mul(curve.generator, k0)], ks: [k0] };
        for (let i = 1; i < 700; i++) {
          multiples.points.push(ed.add(multiples.points[i - 1], P1));
          multiples.ks.push((multiples.ks[i - 1] + k1) % curve.r);
        }
        // Bandersnatch (a not a square): of E[4], only (0, -1) is affine; the other two points of order 2 are the
        // Edwards curve's points at infinity, where the affine law fails (edwardsOps throws: that R is skipped).
        torsion = new Map();
        for (let y = 2n; torsion.size < affineTorsion(curve) && y < 200n; y++) {
          const R = ed.liftY(y);
          if (R === null) continue;
          try {
            for (let T = ed.mul(R, curve.r); !same(T, ed.ZERO); T = ed.add(T, T)) torsion.set(`${T.x},${T.y}`, T);
          } catch (e) {
            expect(name).toBe('bandersnatch');
          }
        }
      });

      it('the generator and the params: on the curve, of order r; noble (where it takes the curve) has the same base point', () => {
        expect(ed.onCurve(curve.generator)).toBe(true);
        expect(ed.mul(curve.generator, curve.r)).toEqual(ed.ZERO);
        if (Point) expect(Point.BASE.toAffine()).toEqual(curve.generator);
        expect(Boolean(curve.params.glv)).toBe(name === 'bandersnatch');
      });

      it('msm with the degenerate inputs: null and (0, 1), P + P, P + (-P), repeats, zero scalars, r - 1; n = 0, 1', () => {
        const { points: M, ks } = multiples;
        const points = [...M.slice(0, 20), null, ed.ZERO, M[3], ed.neg(M[4]), M[4], M[5], M[5]];
        const pk = [...ks.slice(0, 20), 0n, 0n, ks[3], curve.r - ks[4], ks[4], ks[5], ks[5]];
        const scalars = points.map(() => randomScalar(rng, curve.r));
        scalars[1] = 0n;
        scalars[2] = curve.r - 1n;
        scalars[3] = 1n;
        scalars[23] = scalars[24]; // P + (-P) cancels
        const want = sumOf(pk, scalars);
        expect(curve.msm(points, scalars)).toEqual(want);
        if (Point) expect(nobleSum(points, scalars)).toEqual(want);
        expect(curve.msm([], [])).toEqual(ed.ZERO);
        expect(curve.msm([M[0]], [1n])).toEqual(M[0]);
        expect(curve.msm([M[0]], [0n])).toEqual(ed.ZERO);
        expect(curve.msm([null], [5n])).toEqual(ed.ZERO);
        expect(curve.msm([M[0], M[0]], [1n, 1n])).toEqual(ed.add(M[0], M[0]));
        expect(curve.msm([M[0], ed.neg(M[0])], [7n, 7n])).toEqual(ed.ZERO);
        expect(curve.msm([curve.generator], [curve.r - 1n])).toEqual(ed.neg(curve.generator));
        expect(curve.msm(M.slice(0, 9), M.slice(0, 9).map(() => 0n))).toEqual(ed.ZERO);
      });

      it('msmBytes on 700 and 333 points (non-powers of two), with repeats; the native encoding of the neutral is (0, 1)', () => {
        const { points, ks } = multiples;
        for (const n of [700, 333]) {
          const P = points.slice(0, n);
          const scalars = P.map(() => randomScalar(rng, curve.r));
          const want = sumOf(ks.slice(0, n), scalars);
          const got = curve.decodePoint(curve.msmBytes(curve.encodePoints(P), curve.encodeScalars(scalars)));
          expect(got, `n = ${n}`).toEqual(want);
          if (Point && n === 333) expect(nobleSum(P, scalars)).toEqual(want);
        }
        const neutral = curve.msmBytes(new Uint8Array(0), new Uint8Array(0));
        expect(neutral).toEqual(curve.encodePoints([ed.ZERO]));
        expect(curve.encodePoints([null])).toEqual(curve.encodePoints([ed.ZERO]));
        expect(curve.decodePoint(neutral)).toEqual(ed.ZERO);
        // all zero is (0, 0), not a point of the curve
        expect(() => curve.msmBytes(new Uint8Array(curve.pointBytes), curve.encodeScalars([1n]))).toThrow(/points\[0\].*not on the curve/);
        expect(() => curve.msm([{ x: 1n, y: 1n }], [1n])).toThrow(/points\[0\].*not on the curve/);
      });

      it('small-order and mixed-order points: rejected with checkSubgroup; summed right without it (curves without GLV)', async () => {
        const h = curve.params.h;
        expect(torsion.size).toBe(affineTorsion(curve)); // every affine point of E[h] but (0, 1) was found
        for (const T of torsion.values()) {
          expect(ed.onCurve(T)).toBe(true);
          expect(same(ed.mul(T, h), ed.ZERO)).toBe(true);
        }
        const T = [...torsion.values()];
        const { points: M, ks } = multiples;
        const mixed = T.map((t, i) => ed.add(M[i], t));
        const points = [...M.slice(0, 10), ...T, ...mixed, ...T];
        const scalars = points.map(() => randomScalar(rng, curve.r));
        const bad = 10; // the first point outside the subgroup
        const message = new RegExp(`^points\\[${bad}\\] is not in the subgroup of order r$`);
        expect(() => curve.msm(points, scalars, { checkSubgroup: true })).toThrow(message);
        expect(() => curve.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), { checkSubgroup: true })).toThrow(message);
        expect(() => curve.decodePoints(curve.encodePoints(points), 'native', { checkSubgroup: true })).toThrow(/^points\[10\] is not in the subgroup/);
        expect(() => curve.prepareBases(curve.encodePoints(points), { checkSubgroup: true })).toThrow(message);
        for (let i = 0; i < T.length; i++) {
          expect(() => curve.msm([M[0], T[i]], [1n, 1n], { checkSubgroup: true }), `torsion ${i}`).toThrow(/^points\[1\] is not/);
          expect(() => curve.msm([mixed[i]], [1n], { checkSubgroup: true }), `mixed ${i}`).toThrow(/^points\[0\] is not/);
        }
        expect(curve.msm(M.slice(0, 10), scalars.slice(0, 10), { checkSubgroup: true })).toEqual(sumOf(ks.slice(0, 10), scalars));
        if (!curve.params.glv) {
          // The sum over the whole group, by the affine Edwards law (complete here), and by noble.
          let want = ed.ZERO;
          for (let i = 0; i < points.length; i++) want = ed.add(want, ed.mul(points[i], scalars[i]));
          expect(curve.msm(points, scalars)).toEqual(want);
          expect(nobleSum(points, scalars)).toEqual(want);
          expect(curve.msm([T[0], T[0]], [1n, curve.r - 1n])).toEqual(ed.add(T[0], ed.mul(T[0], curve.r - 1n)));
        }
      });

      it('prepared bases, with and without precompute, on prefixes', () => {
        const { points, ks } = multiples;
        const n = 150;
        const bases = points.slice(0, n);
        const scalars = bases.map(() => randomScalar(rng, curve.r));
        scalars[7] = 0n;
        for (const precompute of [false, true]) {
          const prepared = curve.prepareBases(curve.encodePoints(bases), { precompute, checkSubgroup: true });
          try {
            for (const k of [0, 1, 77, n]) {
              const got = curve.decodePoint(prepared.msmBytes(curve.encodeScalars(scalars.slice(0, k))));
              expect(got, `precompute ${precompute}, k = ${k}`).toEqual(k === 0 ? ed.ZERO : sumOf(ks.slice(0, k), scalars));
            }
          } finally {
            prepared.free();
          }
        }
      });

      it('chunks (maxMemory), msmAccumulator and msmStream, one thread and a pool: the same sums, the neutral when empty', { timeout: 60_000 }, async () => {
        const { points, ks } = multiples;
        const n = 500;
        const P = curve.encodePoints(points.slice(0, n));
        const scalars = points.slice(0, n).map(() => randomScalar(rng, curve.r));
        const S = curve.encodeScalars(scalars);
        const want = curve.encodePoints([sumOf(ks.slice(0, n), scalars)]);
        // the least budget of any plan (the RangeError names it): chunks of a few points
        let least;
        try {
          planMsm(curve.params, n, { maxMemory: 1, base: curve.exports.fp_heapBase.value });
        } catch (e) {
          least = Number(/at least (\d+) bytes/.exec(e.message)[1]);
        }
        const timings = {};
        expect(curve.msmBytes(P, S, { maxMemory: least, timings })).toEqual(want);
        expect(timings.chunks).toBeGreaterThan(10);
        const acc = curve.msmAccumulator({ maxMemory: least });
        for (let i = 0; i < n; i += 77) acc.add(P.subarray(i * curve.pointBytes, Math.min(n, i + 77) * curve.pointBytes), S.subarray(i * curve.scalarBytes, Math.min(n, i + 77) * curve.scalarBytes));
        expect(acc.result()).toEqual(want);
        expect(curve.msmAccumulator().result()).toEqual(curve.encodePoints([ed.ZERO]));
        expect(await curve.msmStream({ points: P, scalars: S })).toEqual(want);
        const pool = await curve.threads({ count: 2 });
        try {
          expect(await pool.msmBytes(P, S, { maxMemory: 4 * least })).toEqual(want);
          expect(await pool.msmStream({ points: P, scalars: S })).toEqual(want);
          // a stream in the curve's encoding, decoded by the pool as it comes
          const format = Object.keys(curve.pointFormats).find((f) => f !== 'native');
          expect(await pool.msmStream({ points: curve.encodePoint(P, format), scalars: S }, { pointFormat: format, resultFormat: 'native' })).toEqual(want);
          const pacc = pool.msmAccumulator();
          expect(await pacc.result()).toEqual(curve.encodePoints([ed.ZERO]));
        } finally {
          await pool.close();
        }
      });

      it('a pool of 2 threads, shared memory and messages: msm, msmBytes, checkSubgroup, prepared bases', { timeout: 60_000 }, async () => {
        const { points, ks } = multiples;
        const n = 400;
        const P = points.slice(0, n);
        const scalars = P.map(() => randomScalar(rng, curve.r));
        const want = sumOf(ks.slice(0, n), scalars);
        const T = torsion.values().next().value;
        for (const sharedMemory of [true, false]) {
          const pool = await curve.threads({ count: 2, sharedMemory });
          try {
            expect(await pool.msm(P, scalars), `shared ${sharedMemory}`).toEqual(want);
            expect(curve.decodePoint(await pool.msmBytes(curve.encodePoints(P), curve.encodeScalars(scalars)))).toEqual(want);
            expect(await pool.msm([], [])).toEqual(ed.ZERO);
            expect(await pool.msm([P[0], ed.neg(P[0])], [3n, 3n])).toEqual(ed.ZERO);
            await expect(pool.msm([P[0], T], [1n, 1n], { checkSubgroup: true })).rejects.toThrow(/^points\[1\] is not in the subgroup/);
            const bases = await pool.prepareBases(curve.encodePoints(P), { precompute: sharedMemory });
            expect(await bases.msm(scalars)).toEqual(want);
            await bases.free();
          } finally {
            await pool.close();
          }
        }
      });
    });
  }
}
