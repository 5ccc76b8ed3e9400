// Subgroup membership (checkSubgroup: true): on curves with h = 1 every point on the curve is in it; on the BLS12
// curves the endomorphism test phi(P) = [-z^2] P (src/msm/subgroup.js subgroupTestOf) must agree with the BigInt
// oracle's r * P = O, reject points of every prime order (and prime-square order) the cofactor allows, alone and
// added to a subgroup point, and accept subgroup points and infinity.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve, curveNames } from '../index.js';
import { subgroupTestOf } from '../src/msm/subgroup.js';
import { makeCurve, makeRng, randomScalar } from '../src/bigint/curve.js';
import { isProbablePrime, mod, modSqrt } from '../src/bigint/field.js';
import { pointsToBytes, scalarsToBytes } from './harness.js';

function isqrt(x) {
  let y = x;
  let next = (y + 1n) >> 1n;
  while (next < y) {
    y = next;
    next = (y + x / y) >> 1n;
  }
  return y;
}

/** The primes dividing n: trial division up to 10^6, then the rest must be 1, a prime or a prime's square. */
function primeFactors(n) {
  const out = [];
  for (let d = 2n; d <= 1_000_000n && d * d <= n; d += d === 2n ? 1n : 2n) {
    if (n % d === 0n) {
      out.push(d);
      while (n % d === 0n) n /= d;
    }
  }
  if (n > 1n) {
    const root = isqrt(n);
    const prime = root * root === n ? root : n;
    expect(isProbablePrime(prime), `cofactor part ${n} is a prime or a prime's square`).toBe(true);
    out.push(prime);
  }
  return out;
}

describe('subgroup checks', () => {
  it('h = 1 curves need none; the BLS12 curves use the endomorphism test', async () => {
    for (const name of curveNames) {
      const curve = await loadCurve(name);
      const kind = subgroupTestOf(curve.params).kind;
      expect(kind, name).toBe(curve.params.h === 1n ? 'all' : 'bls12');
    }
  });

  for (const name of ['bls12-381', 'bls12-377']) {
    describe(name, () => {
      let curve;
      let oracle;
      let rng;
      /** A random point on the curve (mostly outside the subgroup: h is large). */
      const randomOnCurve = () => {
        for (;;) {
          const x = randomScalar(rng, curve.p);
          const y = modSqrt(mod(x * x * x + curve.a * x + curve.b, curve.p), curve.p);
          if (y !== null && y !== 0n) return { x, y };
        }
      };
      /** The library's verdict on one point: true (accepted) or false (the subgroup RangeError). */
      const accepted = (P) => {
        try {
          curve.msmBytes(pointsToBytes(curve.params.field.bytes, [P]), scalarsToBytes(curve.params.scalarBytes, [1n]), { checkSubgroup: true });
          return true;
        } catch (e) {
          expect(e.message).toMatch(/^points\[0\] is not in the subgroup of order r$/);
          return false;
        }
      };

      beforeAll(async () => {
        curve = await loadCurve(name);
        oracle = makeCurve(curve.params);
        rng = makeRng(`subgroup ${name}`);
      });

      it('agrees with r * P = O on random points of the curve, and accepts subgroup points and infinity', () => {
        let outside = 0;
        for (let i = 0; i < 40; i++) {
          const P = randomOnCurve();
          const inSubgroup = oracle.mul(P, curve.r) === null;
          if (!inSubgroup) outside++;
          expect(accepted(P), `random point ${i}`).toBe(inSubgroup);
        }
        expect(outside).toBeGreaterThan(30);
        for (const P of curve.randomPoints(20, { seed: 9 })) expect(accepted(P)).toBe(true);
        expect(accepted(null)).toBe(true);
        expect(accepted(curve.generator)).toBe(true);
      });

      it('rejects the order-3 point (0, sqrt(b)), points of every prime-power order dividing h, and their sums with subgroup points', { timeout: 60_000 }, () => {
        const b = modSqrt(curve.b, curve.p);
        expect(accepted({ x: 0n, y: b })).toBe(false);
        const h = curve.params.h;
        const G = curve.generator;
        for (const l of primeFactors(h)) {
          // The l-part of h: [r * h / l^v] R lies in the l-Sylow subgroup; multiplying by l walks down its
          // orders l^j, ..., l. Every nonzero point on the way must be rejected, alone and plus a subgroup point.
          let lPart = 1n;
          while (h % (lPart * l) === 0n) lPart *= l;
          let found = 0;
          for (let tries = 0; tries < 3; tries++) {
            for (let Q = oracle.mul(randomOnCurve(), (h / lPart) * curve.r); Q !== null; Q = oracle.mul(Q, l)) {
              found++;
              expect(accepted(Q), `a point of order a power of ${l}`).toBe(false);
              expect(accepted(oracle.add(Q, oracle.mul(G, randomScalar(rng, curve.r)))), `subgroup point + order a power of ${l}`).toBe(false);
            }
          }
          expect(found, `points of order a power of ${l}`).toBeGreaterThan(0);
        }
      });
    });
  }
});
