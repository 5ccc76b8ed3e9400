// Subgroup membership (checkSubgroup: true): on curves with h = 1 every point on the curve is in it; on the BLS12
// curves the endomorphism test phi(P) = [-z^2] P (src/msm/subgroup.js subgroupTestOf) must agree with the BigInt
// oracle's r * P = O, reject points of every prime order (and prime-square order) the cofactor allows, alone and
// added to a subgroup point, and accept subgroup points and infinity. G2 (BLS12-381: the same endomorphism test; BN254:
// r * P = O) likewise: random twist points against [r] P computed here (affine arithmetic over @noble/curves' F_p2),
// points of every prime-power order dividing the G2 cofactor h2 (its factorization written here and checked),
// alone and added to G2 points. Every suite runs once per build this engine runs (test/harness.js KERNELS).

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve, curveNames } from '../index.js';
import { subgroupTestOf } from '../src/msm/subgroup.js';
import { makeCurve, makeRng, randomScalar } from '../src/bigint/curve.js';
import { isProbablePrime, mod, modSqrt } from '../src/bigint/field.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { KERNELS } from './harness.js';
import { doubleAndAdd, pointsToBytes, scalarsToBytes, writeLE } from './msm-oracle.js';

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
  it('h = 1 curves need none; the BLS12 curves use the endomorphism test, the Edwards curves r * P; G2: BLS12-381 the endomorphism test, BN254 r * P', async () => {
    for (const kernel of KERNELS) {
      for (const name of curveNames) {
        const curve = await loadCurve(name, { kernel });
        const kind = subgroupTestOf(curve.params).kind;
        // the twisted Edwards curves (cofactors 4 and 8) take r * P (test/edwards.test.js)
        expect(kind, `${name} ${kernel}`).toBe(curve.params.h === 1n ? 'all' : curve.model === 'twisted-edwards' ? 'order' : 'bls12');
        if (curve.g2) expect(subgroupTestOf(curve.g2.params).kind, `${name} G2 ${kernel}`).toBe(name === 'bls12-381' ? 'bls12' : 'order');
      }
    }
  });

  for (const [name, kernel] of ['bls12-381', 'bls12-377'].flatMap((n) => KERNELS.map((k) => [n, k]))) {
    describe(`${name} (${kernel} build)`, () => {
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
        curve = await loadCurve(name, { kernel });
        expect(curve.kernel).toBe(kernel);
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

// ---- G2 ------------------------------------------------------------------------------------------------------

/**
 * The G2 cofactor h2 = #E'(F_p2) / r of each curve as [prime, exponent] pairs. Checked below against the params'
 * h2 (the product) and each factor for primality, so a wrong entry fails here rather than weakening the test.
 */
const G2_COFACTOR = {
  'bls12-381': [[13n, 2], [23n, 2], [2713n, 1], [11953n, 1], [262069n, 1],
    [402096035359507321594726366720466575392706800671181159425656785868777272553337714697862511267018014931937703598282857976535744623203249n, 1]],
  bn254: [[10069n, 1], [5864401n, 1], [1875725156269n, 1], [197620364512881247228717050342013327560683201906968909n, 1]],
};

/** Affine arithmetic on y^2 = x^3 + b' over a noble F_p2 (null = infinity): add and double-and-add, written here. */
function twistArithmetic(F, b) {
  const add = (P, Q) => {
    if (P === null) return Q;
    if (Q === null) return P;
    let l;
    if (F.eql(P.x, Q.x)) {
      if (F.is0(F.add(P.y, Q.y))) return null;
      const xx = F.sqr(P.x);
      l = F.div(F.add(F.add(xx, xx), xx), F.add(P.y, P.y));
    } else {
      l = F.div(F.sub(Q.y, P.y), F.sub(Q.x, P.x));
    }
    const x = F.sub(F.sub(F.sqr(l), P.x), Q.x);
    return { x, y: F.sub(F.mul(l, F.sub(P.x, x)), P.y) };
  };
  const mul = (P, k) => doubleAndAdd(add, P, k);
  const onTwist = (P) => F.eql(F.sqr(P.y), F.add(F.mul(F.sqr(P.x), P.x), b));
  return { add, mul, onTwist };
}

for (const name of ['bls12-381', 'bn254']) {
  describe(`G2 subgroup check of ${name}`, { timeout: 120_000 }, () => {
    const F = (name === 'bls12-381' ? bls12_381 : bn254).fields.Fp2;
    let r;
    let h2;
    let twist;
    let B;
    const sample = { random: [], torsion: [], inG2: [] };
    const key = (P) => `${P.x.c0},${P.x.c1}`;

    beforeAll(async () => {
      const g2 = (await loadCurve(name, { kernel: 'int' })).g2;
      ({ r } = g2);
      h2 = g2.params.h;
      B = g2.params.field.bytes / 2;
      twist = twistArithmetic(F, F.create(g2.params.b));
      const rng = makeRng(`g2 subgroup ${name}`);
      // random points of the twist: x with x^3 + b' a square in F_p2 (noble's square root)
      while (sample.random.length < 14) {
        const x = F.create({ c0: randomScalar(rng, g2.p), c1: randomScalar(rng, g2.p) });
        let y;
        try {
          y = F.sqrt(F.add(F.mul(F.sqr(x), x), F.create(g2.params.b)));
        } catch {
          continue;
        }
        if (y && !F.is0(y)) sample.random.push({ x, y });
      }
      // G2 points by clearing the cofactor of random points, and the generator
      sample.inG2 = [g2.generator, ...sample.random.slice(0, 4).map((P) => twist.mul(P, h2))];
      // for each prime l of h2: [h2 r / l^v] P lies in the l-part of E'(F_p2); multiplying by l walks its orders
      // l^j, ..., l down to O. Every nonzero point on the way, and its sum with a G2 point, lies outside G2.
      for (const [l, v] of G2_COFACTOR[name]) {
        const lPart = l ** BigInt(v);
        let found = 0;
        for (const P of sample.random) {
          for (let Q = twist.mul(P, (h2 / lPart) * r); Q !== null && found < 3; Q = twist.mul(Q, l)) {
            sample.torsion.push({ P: Q, lPart, what: `order a power of ${l}` });
            found++;
          }
          if (found >= 2) break;
        }
        if (found === 0) throw new Error(`no point of order a power of ${l} found`);
      }
      sample.torsion.push(...sample.torsion.map(({ P, what }, i) => ({ P: twist.add(P, sample.inG2[i % sample.inG2.length]), what: `G2 point + ${what}` })));
    });

    it('h2: the factorization written here is that of the params (product, each factor prime) and r does not divide it', () => {
      expect(G2_COFACTOR[name].reduce((acc, [l, v]) => acc * l ** BigInt(v), 1n)).toBe(h2);
      for (const [l] of G2_COFACTOR[name]) expect(isProbablePrime(l), String(l)).toBe(true);
      expect(h2 % r).not.toBe(0n);
    });

    it('the sample points: on the twist; random ones mostly outside G2; the torsion ones of the orders claimed', () => {
      for (const P of [...sample.random, ...sample.inG2, ...sample.torsion.map((t) => t.P)]) expect(twist.onTwist(P)).toBe(true);
      for (const P of sample.inG2) expect(twist.mul(P, r)).toBeNull();
      expect(sample.random.filter((P) => twist.mul(P, r) !== null).length).toBeGreaterThan(10);
      for (const { P, what } of sample.torsion) expect(twist.mul(P, r), what).not.toBeNull();
      for (const { P, lPart, what } of sample.torsion) if (lPart) expect(twist.mul(P, lPart), `${what}: [${lPart}] P = O`).toBeNull();
      for (const [l] of G2_COFACTOR[name]) expect(sample.torsion.some((t) => t.what === `order a power of ${l}`), String(l)).toBe(true);
    });

    for (const kernel of KERNELS) {
      it(`${kernel} build: accepts exactly the points with [r] P = O (random twist points, cofactor components, G2 points)`, async () => {
        const g2 = (await loadCurve(name, { kernel })).g2;
        expect(g2.kernel).toBe(kernel);
        const bytesOf = (points) => {
          const out = new Uint8Array(points.length * 4 * B);
          points.forEach((P, i) => [P.x.c0, P.x.c1, P.y.c0, P.y.c1].forEach((v, k) => writeLE(v, out, (4 * i + k) * B, B)));
          return out;
        };
        const accepted = (P) => {
          try {
            g2.msmBytes(bytesOf([P]), scalarsToBytes(g2.scalarBytes, [1n]), { checkSubgroup: true });
            return true;
          } catch (e) {
            expect(e.message).toBe('points[0] is not in the subgroup of order r');
            return false;
          }
        };
        const verdicts = sample.random.map(accepted);
        expect(verdicts, 'random twist points: accepted iff [r] P = O').toEqual(sample.random.map((P) => twist.mul(P, r) === null));
        for (const P of sample.inG2) expect(accepted(P), `G2 point ${key(P)}`).toBe(true);
        for (const { P, what } of sample.torsion) expect(accepted(P), what).toBe(false);
        // without the check the same points are taken (they are on the twist)
        expect(() => g2.msmBytes(bytesOf(sample.torsion.map((t) => t.P)), scalarsToBytes(g2.scalarBytes, sample.torsion.map(() => 1n)))).not.toThrow();
        // in one input, on a pool (both paths) and in prepared bases: the first bad index is named
        const points = [...sample.inG2, sample.torsion[1].P, sample.inG2[0], sample.torsion[0].P];
        const pb = bytesOf(points);
        const sb = scalarsToBytes(g2.scalarBytes, points.map((_, i) => BigInt(i + 1)));
        const bad = sample.inG2.length;
        const named = new RegExp(`^points\\[${bad}\\] is not in the subgroup of order r$`);
        expect(() => g2.msmBytes(pb, sb, { checkSubgroup: true })).toThrow(named);
        expect(() => g2.prepareBases(pb, { checkSubgroup: true })).toThrow(named);
        for (const sharedMemory of [true, false]) {
          const pool = await g2.threads({ count: 2, sharedMemory });
          try {
            await expect(pool.msmBytes(pb, sb, { checkSubgroup: true }), `pool, shared ${sharedMemory}`).rejects.toThrow(named);
            const good = bytesOf(sample.inG2);
            const goodScalars = sb.subarray(0, sample.inG2.length * g2.scalarBytes);
            expect(await pool.msmBytes(good, goodScalars, { checkSubgroup: true })).toEqual(g2.msmBytes(good, goodScalars));
          } finally {
            await pool.close();
          }
        }
      });
    }
  });
}
