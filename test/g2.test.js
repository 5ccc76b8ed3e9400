// G2 (curve.g2) on BLS12-381 and BN254 against @noble/curves' G2 (scripts/noble-msm.js, which shares no code
// with the library): the degenerate input of the G1 suites (repeated points, P and -P in one bucket, infinity,
// zero and edge scalars), n = 0, 1 and a non-power-of-two n; BigInt points and noble Point objects in and out;
// bad input (coordinates >= p, off the twist, off the subgroup with checkSubgroup); the thread pool on both paths
// and prepared bases, which run the same MSM. The F_p2 kernels themselves are tested in test/fp2.test.js.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { nobleMsm, noblePointClass } from '../scripts/noble-msm.js';
import { subgroupTestOf } from '../src/msm/subgroup.js';
import { makeRng, randomScalar } from '../src/bigint/curve.js';
import { degenerateInput, scalarsToBytes, writeLE } from './msm-oracle.js';

const hexOf = (v) => `0x${v.toString(16)}`;
const show = (P) => (P === null ? 'infinity' : `(${hexOf(P.x.c0)} + ${hexOf(P.x.c1)} u, ${hexOf(P.y.c0)} + ${hexOf(P.y.c1)} u)`);

/** G2 points as x.c0 | x.c1 | y.c0 | y.c1, little-endian, B bytes each: written here, not by the library. */
function g2PointsToBytes(B, points) {
  const out = new Uint8Array(points.length * 4 * B);
  points.forEach((P, i) => {
    if (P === null) return;
    [P.x.c0, P.x.c1, P.y.c0, P.y.c1].forEach((v, k) => writeLE(v, out, (4 * i + k) * B, B));
  });
  return out;
}

for (const name of ['bls12-381', 'bn254']) {
  describe(`G2 of ${name}`, { timeout: 120_000 }, () => {
    let curve;
    let g2;
    let Point;
    let B;
    let input;
    let expected;

    beforeAll(async () => {
      curve = await loadCurve(name);
      g2 = curve.g2;
      Point = await noblePointClass(g2.params);
      B = curve.params.field.bytes;
      const Fp2neg = (v) => ({ c0: v.c0 === 0n ? 0n : curve.p - v.c0, c1: v.c1 === 0n ? 0n : curve.p - v.c1 });
      const oracle = { neg: (P) => (P === null ? null : { x: P.x, y: Fp2neg(P.y) }) };
      const { points, scalars } = degenerateInput(g2, oracle, g2.randomPoints(200, { seed: 5 }), makeRng(`g2 ${name}`));
      input = { points, scalars, pointBytes: g2PointsToBytes(B, points), scalarBytes: scalarsToBytes(g2.scalarBytes, scalars) };
      expected = show(await nobleMsm(g2.params, input.pointBytes, input.scalarBytes));
    });

    it('is a G2 over F_p2 with the documented encoding and its own generator', () => {
      expect(g2.group).toBe('G2');
      expect(curve.group).toBe('G1');
      expect(g2.g2).toBeUndefined();
      expect(g2.coordinateBytes).toBe(2 * B);
      expect(g2.pointBytes).toBe(4 * B);
      expect(g2.scalarBytes).toBe(curve.scalarBytes);
      expect(Object.keys(g2.pointFormats)).toEqual(['native', 'snarkjs']);
      const G = Point.BASE.toAffine();
      expect(show(g2.generator)).toBe(show(G));
      // the generator's encoding, byte for byte
      expect([...g2.encodePoints([g2.generator])]).toEqual([...g2PointsToBytes(B, [G])]);
      expect(show(g2.decodePoint(g2PointsToBytes(B, [G])))).toBe(show(G));
    });

    it('random points are on the twist and in G2 (noble agrees)', () => {
      for (const P of g2.randomPoints(8, { seed: 3 })) expect(() => Point.fromAffine(P).assertValidity()).not.toThrow();
    });

    it('the degenerate input equals noble: msmBytes, msm with BigInt points and with noble Points', () => {
      const { points, scalars, pointBytes, scalarBytes } = input;
      expect(points.length % 2).toBe(1);
      expect(show(g2.decodePoint(g2.msmBytes(pointBytes, scalarBytes)))).toBe(expected);
      expect(show(g2.msm(points, scalars))).toBe(expected);
      const objects = points.map((P) => (P === null ? Point.ZERO : Point.fromAffine(P)));
      const sum = g2.toPoint(g2.msm(objects, scalars), Point);
      expect(show(sum.is0() ? null : sum.toAffine())).toBe(expected);
      // forced small and large windows run more windows and more buckets over the same degenerate points
      for (const window of [3, 9]) expect(show(g2.decodePoint(g2.msmBytes(pointBytes, scalarBytes, { window })))).toBe(expected);
    });

    it('n = 0, 1 and 1000 random points equal noble', async () => {
      expect(g2.msm([], [])).toBeNull();
      const rng = makeRng(`g2 random ${name}`);
      const P = g2.randomPoints(1000, { seed: 9 });
      const s = P.map(() => randomScalar(rng, curve.r));
      for (const n of [1, 1000]) {
        const pointBytes = g2PointsToBytes(B, P.slice(0, n));
        const scalarBytes = scalarsToBytes(g2.scalarBytes, s.slice(0, n));
        expect(show(g2.decodePoint(g2.msmBytes(pointBytes, scalarBytes))), `n = ${n}`).toBe(show(await nobleMsm(g2.params, pointBytes, scalarBytes)));
      }
      // one point times r - 1 is its negation
      const [Q] = P;
      const negQ = Point.fromAffine(Q).negate().toAffine();
      expect(show(g2.msm([Q], [curve.r - 1n]))).toBe(show(negQ));
    });

    it('rejects bad points with the index and the reason; off-subgroup points only with checkSubgroup', () => {
      const P = g2.randomPoints(3, { seed: 11 });
      const scalars = scalarsToBytes(g2.scalarBytes, [1n, 2n, 3n]);
      const at = (i, mutate) => {
        const pts = P.map((Q) => ({ x: { ...Q.x }, y: { ...Q.y } }));
        mutate(pts[i]);
        return g2PointsToBytes(B, pts);
      };
      expect(() => g2.msmBytes(at(1, (Q) => (Q.x.c1 = curve.p)), scalars)).toThrow(/points\[1\]: x coordinate is >= p/);
      expect(() => g2.msmBytes(at(2, (Q) => (Q.y.c0 = curve.p + 1n)), scalars)).toThrow(/points\[2\]: y coordinate is >= p/);
      expect(() => g2.msmBytes(at(0, (Q) => (Q.y.c1 ^= 1n)), scalars)).toThrow(/points\[0\]: .*not on the curve/);
      expect(() => g2.msm([{ x: 1n, y: 2n }], [1n])).toThrow(TypeError);
      expect(() => g2.msm([{ x: { c0: curve.p, c1: 0n }, y: { c0: 1n, c1: 0n } }], [1n])).toThrow(/points\[0\]\.x\.c0 is not in \[0, p\)/);
      expect(() => g2.msmBytes(g2PointsToBytes(B, P), scalars, { pointFormat: 'arkworks-compressed' })).toThrow(/G2 points take 'native' and 'snarkjs' only/);
      expect(() => g2.msmBytes(g2PointsToBytes(B, P).subarray(1), scalars)).toThrow(/not a multiple of/);

      // a point on the twist outside G2: x with x^3 + b' a square in F_p2 (noble's F_p2 square root)
      const { Fp2 } = (name === 'bls12-381' ? bls12_381 : bn254).fields;
      let off = null;
      for (let c = 1n; off === null; c++) {
        const x = Fp2.create({ c0: c, c1: 1n });
        const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), g2.params.b);
        let y;
        try {
          y = Fp2.sqrt(rhs);
        } catch {
          continue;
        }
        if (y && Fp2.eql(Fp2.sqr(y), rhs)) off = { x, y };
      }
      expect(() => Point.fromAffine(off).assertValidity()).toThrow(); // noble: not in the subgroup
      const bytes = g2PointsToBytes(B, [P[0], P[1], off]);
      expect(() => g2.msmBytes(bytes, scalars)).not.toThrow(); // on the curve: taken without the check
      expect(() => g2.msmBytes(bytes, scalars, { checkSubgroup: true })).toThrow(/points\[2\] is not in the subgroup of order r/);
      expect(show(g2.decodePoint(g2.msmBytes(bytes.subarray(0, 8 * B), scalars.subarray(0, 2 * g2.scalarBytes), { checkSubgroup: true }))))
        .toBe(show(g2.msm(P.slice(0, 2), [1n, 2n])));
      // the G1 curve is untouched by G2 use
      const g1Points = curve.randomPoints(2);
      expect(curve.msm(g1Points, [1n, 0n])).toEqual(g1Points[0]);
    });

    it(`subgroup test: ${name === 'bls12-381' ? 'the endomorphism test (BLS12, gcd(r, h2) = 1)' : 'r * P (no cheaper test proven here)'}`, () => {
      expect(subgroupTestOf(g2.params).kind).toBe(name === 'bls12-381' ? 'bls12' : 'order');
    });

    it('a pool (both paths, 2 threads) and prepared bases (with and without precompute) equal noble', async () => {
      for (const sharedMemory of [true, false]) {
        const pool = await g2.threads({ count: 2, sharedMemory });
        try {
          expect(show(g2.decodePoint(await pool.msmBytes(input.pointBytes, input.scalarBytes))), `pool shared ${sharedMemory}`).toBe(expected);
          const bases = await pool.prepareBases(input.pointBytes, { precompute: true });
          expect(show(g2.decodePoint(await bases.msmBytes(input.scalarBytes))), `pool prepared shared ${sharedMemory}`).toBe(expected);
          await bases.free();
        } finally {
          await pool.close();
        }
      }
      for (const precompute of [false, true]) {
        const bases = g2.prepareBases(input.pointBytes, { precompute, checkSubgroup: true });
        expect(show(g2.decodePoint(bases.msmBytes(input.scalarBytes))), `prepared, precompute ${precompute}`).toBe(expected);
        const k = 7;
        const prefix = await nobleMsm(g2.params, input.pointBytes.subarray(0, k * g2.pointBytes), input.scalarBytes.subarray(0, k * g2.scalarBytes));
        expect(show(bases.msm(input.scalars.slice(0, k))), `prefix ${k}`).toBe(show(prefix));
        bases.free();
      }
    });
  });
}
