// Curve constants against the published ones (test/published.js, written from the curves' specifications, not read
// from this repo): the shipped params files (codegen/curves/*.json), the runtime params every build loads, and the
// @noble/curves oracle the MSM tests compare with. For bls12-377, pallas, vesta and grumpkin that oracle is noble's
// generic weierstrass() built from the library's own params (scripts/noble-msm.js), so without this check a wrong
// generator or modulus in a params file would be wrong in the oracle too, and no MSM test would notice.
// The published constants are first checked to hold together (primes, seeds, the generator on the curve, of order r,
// the Hasse bound), with arithmetic written here.

import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadCurve, curveNames } from '../index.js';
import { noblePointClass } from '../scripts/noble-msm.js';
import { isProbablePrime } from '../src/bigint/field.js';
import { KERNELS } from './harness.js';
import { doubleAndAdd, edwardsOps } from './msm-oracle.js';
import { PUBLISHED, published } from './published.js';

const hex = (x) => `0x${x.toString(16)}`;

/** Affine double-and-add on y^2 = x^3 + a x + b over F_p, null = infinity. */
function affine({ p, a }) {
  const m = (v) => ((v % p) + p) % p;
  const inv = (v) => {
    let [r0, r1, s0, s1] = [m(v), p, 1n, 0n];
    while (r1) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    return m(s0);
  };
  const add = (P, Q) => {
    if (P === null) return Q;
    if (Q === null) return P;
    let l;
    if (P.x === Q.x) {
      if (m(P.y + Q.y) === 0n) return null;
      l = m((3n * P.x * P.x + a) * inv(2n * P.y));
    } else {
      l = m((Q.y - P.y) * inv(Q.x - P.x));
    }
    const x = m(l * l - P.x - Q.x);
    return { x, y: m(l * (P.x - x) - P.y) };
  };
  const mul = (P, k) => doubleAndAdd(add, P, k);
  return { add, mul };
}

describe('published curve constants (test/published.js)', () => {
  it('cover every shipped curve', () => {
    expect(Object.keys(PUBLISHED).sort()).toEqual([...curveNames].sort());
  });

  for (const name of Object.keys(PUBLISHED)) {
    it(`${name}: hold together (p, r prime; the seed's formulas; G on the curve, of order r; h r inside the Hasse bound)`, () => {
      const c = published(name);
      expect(isProbablePrime(c.p), 'p prime').toBe(true);
      expect(isProbablePrime(c.r), 'r prime').toBe(true);
      const { seed } = PUBLISHED[name];
      if (seed?.kind === 'bls12') {
        const { z } = seed;
        expect(c.r, 'r = z^4 - z^2 + 1').toBe(z ** 4n - z ** 2n + 1n);
        expect(c.p, 'p = (z - 1)^2 r / 3 + z').toBe(((z - 1n) ** 2n * c.r) / 3n + z);
        expect(c.h, 'h = (z - 1)^2 / 3').toBe((z - 1n) ** 2n / 3n);
      }
      if (seed?.kind === 'bn') {
        const { u } = seed;
        expect(c.p).toBe(36n * u ** 4n + 36n * u ** 3n + 24n * u ** 2n + 6n * u + 1n);
        expect(c.r).toBe(36n * u ** 4n + 36n * u ** 3n + 18n * u ** 2n + 6n * u + 1n);
      }
      const { x, y } = c.G;
      if (c.model === 'twisted-edwards') {
        const ed = edwardsOps(c);
        expect(ed.onCurve(c.G), 'G on the curve').toBe(true);
        expect(ed.mul(c.G, c.r), 'r G = (0, 1)').toEqual(ed.ZERO);
        expect(ed.mul(c.G, c.r - 1n)).toEqual({ x: c.p - x, y });
      } else {
        expect((y * y - (x * x * x + c.a * x + c.b)) % c.p, 'G on the curve').toBe(0n);
        const E = affine(c);
        expect(E.mul(c.G, c.r), 'r G = O').toBe(null);
        expect(E.mul(c.G, c.r - 1n)).toEqual({ x, y: c.p - y });
      }
      const d = c.h * c.r - (c.p + 1n);
      expect(d * d <= 4n * c.p, 'h r inside the Hasse interval').toBe(true);
    });
  }
});

describe('the shipped params, the loaded builds and the noble oracle equal the published constants', () => {
  for (const name of curveNames) {
    it(`${name}: codegen/curves/${name}.json`, () => {
      const c = published(name);
      const json = JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));
      const k = c.model === 'twisted-edwards' ? 'd' : 'b';
      expect(json.model).toBe(c.model);
      const got = { p: BigInt(json.p), r: BigInt(json.r), a: BigInt(json.a), [k]: BigInt(json[k]), h: BigInt(json.h ?? '1'), x: BigInt(json.generator.x), y: BigInt(json.generator.y) };
      expect(Object.fromEntries(Object.entries(got).map(([key, v]) => [key, hex(v)]))).toEqual(
        Object.fromEntries(Object.entries({ p: c.p, r: c.r, a: c.a, [k]: c[k], h: c.h, x: c.G.x, y: c.G.y }).map(([key, v]) => [key, hex(v)])),
      );
    });

    it(`${name}: every build's runtime params (${KERNELS.join(', ')}) and the @noble/curves oracle the MSM tests use`, async () => {
      const c = published(name);
      for (const kernel of KERNELS) {
        const curve = await loadCurve(name, { kernel });
        const k = c.model === 'twisted-edwards' ? 'd' : 'b';
        expect({ p: curve.p, r: curve.r, a: curve.a, [k]: curve[k], h: curve.params.h, G: curve.generator }, kernel).toEqual({ p: c.p, r: c.r, a: c.a, [k]: c[k], h: c.h, G: c.G });
        const Point = await noblePointClass(curve.params);
        if (Point === null) {
          // noble refuses a non-square a (Bandersnatch): the MSM tests use test/harness.js edwardsOps there
          expect(name).toBe('bandersnatch');
          continue;
        }
        const C = Point.CURVE();
        expect({ p: C.p, n: C.n, a: C.a, [k]: C[k], Gx: C.Gx, Gy: C.Gy }, `${kernel}: noble's curve`).toEqual({ p: c.p, n: c.r, a: c.a, [k]: c[k], Gx: c.G.x, Gy: c.G.y });
        expect(Point.BASE.toAffine()).toEqual(c.G);
      }
    });
  }
});
