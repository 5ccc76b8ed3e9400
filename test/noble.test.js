// wasmsm/noble against @noble/curves' own pippenger, on every curve wasmsm ships (noble's Point classes where noble
// has the curve, weierstrass() classes built from our params for the others): random projective points, ZERO points,
// zero scalars, n - 1, n = 0 and 1, repeated points, P and -P; noble's input errors; the subgroup check; a pool.

import { describe, it, expect, afterAll } from 'vitest';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { p256 } from '@noble/curves/nist.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { curveNames, curveParams, loadCurve } from '../index.js';
import { load, msm, NobleMsm } from '../src/adapters/noble.js';
import { noblePointClass } from '../scripts/noble-msm.js';
import { makeRng } from './harness.js';

/** Every (curve, group) with the noble Point class that stands for it. */
const groups = [];
for (const name of curveNames) {
  const params = await curveParams(name);
  const Point = await noblePointClass(params);
  // null: noble refuses the curve (bandersnatch's non-square a); test/edwards.test.js checks it against a BigInt law
  if (Point) groups.push({ label: `${name} G1`, Point });
  if (params.g2 && ['bls12-381', 'bn254'].includes(name)) groups.push({ label: `${name} G2`, Point: await noblePointClass(params.g2) });
}

/** n points: multiples of the base (projective, Z != 1), with ZERO, a repeat, P and -P among them, and scalars. */
function inputs(Point, n, seed) {
  const rng = makeRng(seed);
  const r = Point.Fn.ORDER;
  const points = Array.from({ length: n }, () => Point.BASE.multiply(1n + rng.below(r - 1n)));
  const scalars = Array.from({ length: n }, () => rng.below(r));
  if (n >= 8) {
    points[1] = Point.ZERO;
    points[2] = points[0];
    points[3] = points[0].negate();
    points[4] = Point.fromAffine(points[5].toAffine()); // Z = 1
    scalars[5] = 0n;
    scalars[6] = r - 1n;
    scalars[7] = scalars[0]; // with P and -P below: cancels
    points[7] = points[0].negate();
  }
  return { points, scalars };
}

const handles = [];
afterAll(() => Promise.all(handles.map((h) => h.close())));

describe('wasmsm/noble: msm(Point, points, scalars) equals noble pippenger', () => {
  for (const { label, Point } of groups) {
    it(label, async () => {
      for (const [n, seed] of [[0, 1], [1, 2], [2, 3], [9, 4], [70, 5]]) {
        const { points, scalars } = inputs(Point, n, `${label} ${seed}`);
        const ours = await msm(Point, points, scalars);
        expect(ours).toBeInstanceOf(Point);
        expect(ours.equals(pippenger(Point, points, scalars)), `${label} n = ${n}`).toBe(true);
      }
      // all ZERO points, all zero scalars, a single ZERO: Point.ZERO
      expect((await msm(Point, [Point.ZERO, Point.ZERO], [5n, 7n])).is0()).toBe(true);
      expect((await msm(Point, [Point.BASE, Point.BASE.double()], [0n, 0n])).is0()).toBe(true);
      expect((await msm(Point, [Point.BASE, Point.BASE.negate()], [3n, 3n])).is0()).toBe(true);
      expect((await msm(Point, [Point.BASE], [1n])).equals(Point.BASE)).toBe(true);
    });
  }
});

describe('wasmsm/noble: inputs checked as noble checks them', () => {
  const Point = bls12_381.G1.Point;
  const r = Point.Fn.ORDER;
  const P = Point.BASE;
  const cases = [
    ['a scalar = n', [P, P], [1n, r], /invalid scalar at index 1/],
    ['a negative scalar', [P], [-1n], /invalid scalar at index 0/],
    ['a number scalar', [P], [1], /expected bigint/],
    ['a point of another class', [P, bls12_381.G2.Point.BASE], [1n, 2n], /invalid point at index 1/],
    ['an affine object', [{ x: 1n, y: 2n }], [1n], /invalid point at index 0/],
    ['lengths that differ', [P, P], [1n], /arrays of points and scalars must have equal length/],
  ];
  for (const [what, points, scalars, message] of cases) {
    it(what, async () => {
      expect(() => pippenger(Point, points, scalars)).toThrow(message);
      await expect(msm(Point, points, scalars)).rejects.toThrow(message);
    });
  }

  it('unknown options, classes and curves', async () => {
    await expect(msm(Point, [P], [1n], { pointFormat: 'zcash-compressed' })).rejects.toThrow(TypeError);
    await expect(load(Point, { threads: 2 })).rejects.toThrow(TypeError);
    await expect(msm({}, [], [])).rejects.toThrow(TypeError);
    const Other = p256.Point; // a curve wasmsm does not ship
    await expect(load(Other)).rejects.toThrow(/no wasmsm curve has this Point class/);
    await expect(load(Other, { curve: await loadCurve('bn254') })).rejects.toThrow(/another group order/);
    expect(() => new NobleMsm(Point, {})).toThrow(TypeError);
  });

  it('a point outside the subgroup of order n is a RangeError (noble would sum it; GLV could not)', async () => {
    const { Fp } = Point;
    let x = 5n;
    let y;
    for (; ; x++) {
      const y2 = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
      try { y = Fp.sqrt(y2); break; } catch { /* not a square: next x */ }
    }
    const Q = Point.fromAffine({ x, y }); // fromAffine does not validate
    expect(Q.isTorsionFree()).toBe(false);
    await expect(msm(Point, [P, Q], [1n, 2n])).rejects.toThrow(RangeError);
    await expect(msm(Point, [P, Q], [1n, 2n])).rejects.toThrow(/points\[1\]/);
    // an explicit undefined (a wrapper forwarding its own option) is the default, not false
    await expect(msm(Point, [P, Q], [1n, 2n], { checkSubgroup: undefined })).rejects.toThrow(/points\[1\]/);
  });

  it('a mixed-order point on a cofactor curve without GLV (ed25519) is summed exactly, as noble sums it', async () => {
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    const E = ed25519.Point;
    const T = E.fromAffine({ x: 0n, y: E.Fp.neg(1n) }); // (0, -1): order 2
    const Q = E.BASE.add(T);
    expect(Q.isTorsionFree()).toBe(false);
    const got = await msm(E, [E.BASE, Q, T], [3n, 5n, 7n]);
    expect(got.equals(pippenger(E, [E.BASE, Q, T], [3n, 5n, 7n]))).toBe(true);
    await expect(msm(E, [Q], [1n], { checkSubgroup: true })).rejects.toThrow(/points\[0\]/);
  });

  it('the same curve given as { curve }', async () => {
    const given = await loadCurve('bls12-381', { kernel: 'int' });
    // a kernel cannot choose another build for a curve already loaded
    await expect(load(Point, { curve: given, kernel: 'fma' })).rejects.toThrow(/options\.kernel does not apply with options\.curve \(a curve loaded in the int build\)/);
    const fast = await load(Point, { curve: given });
    const { points, scalars } = inputs(Point, 20, 'given curve');
    expect(fast.msm(points, scalars).equals(pippenger(Point, points, scalars))).toBe(true);
  });
});

describe('wasmsm/noble: a pool', () => {
  for (const sharedMemory of [true, false]) {
    it(`bn254 G1 and G2, sharedMemory ${sharedMemory}`, async () => {
      for (const { label, Point } of groups.filter((g) => g.label.startsWith('bn254'))) {
        const pool = await (await load(Point)).threads({ count: 2, sharedMemory });
        handles.push(pool);
        for (const n of [0, 1, 300]) {
          const { points, scalars } = inputs(Point, n, `pool ${label} ${n}`);
          expect((await pool.msm(points, scalars)).equals(pippenger(Point, points, scalars)), `${label} n = ${n}`).toBe(true);
        }
        await expect(pool.msm([Point.BASE], [Point.Fn.ORDER])).rejects.toThrow(/invalid scalar at index 0/);
      }
    });
  }
});
