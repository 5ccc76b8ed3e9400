// The pseudo-Mersenne field (reduction 'crandall': Crandall's product, R = 1) against the BigInt oracle: every kernel
// export of the generated module (mul, sqr, and the inversion, square root, conversions and constants that follow
// from R = 1), on primes 2^k - c x every limb size w in 26..31, with edge-biased raw inputs in the lazy range
// [0, 2p) (0, 1, p - 1, 2p - 1, all-ones limbs, limb boundaries: test/harness.js edgeValues). w = 32 and primes
// not of that form are refused. The FMA build's product (field-mul-fma-crandall.js: five 52-bit limbs for
// 2^255 - 19) the same way where the engine fuses relaxed_madd (Node 24). Set WASMSM_LONG_TESTS=1 for more random c.

import { describe, it, expect } from 'vitest';
import { instantiateField, deriveFieldParams } from '../codegen/index.js';
import { crandallMul } from '../codegen/kernels/field-mul-crandall.js';
import { crandallConstants } from '../codegen/params/crandall.js';
import { LONG_TESTS, makeRng, rawAccess, prevPrime, limbCount, hex } from './harness.js';
import { runFieldEquivalence } from './field-equivalence.js';
import { fmaCrandallFits } from '../codegen/kernels/field-mul-fma-crandall.js';
import { fmaMontgomeryMul } from '../codegen/kernels/field-mul-fma.js';
import { buildCurveModule } from '../codegen/modules/curve-module.js';
import { deriveCurveParams } from '../codegen/params/curve.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { readFileSync } from 'node:fs';
import { isProbablePrime } from '../src/bigint/field.js';

const CRANDALL_LIMB_SIZES = [26, 27, 28, 29, 30, 31];

/** The largest prime 2^k - c with c >= cMin (odd c), or null when none is near. */
function pseudoMersenne(k, cMin = 1n) {
  const p = prevPrime((1n << BigInt(k)) - cMin + 1n);
  return p;
}

/** Primes 2^k - c: named ones, each w's limb edges (k = n w - 2: 4p just below 2^(n w); k = (n - 1) w + 1), random c. */
function crandallPrimes() {
  const list = [
    { name: '2^255-19', p: (1n << 255n) - 19n },
    { name: '2^127-1', p: (1n << 127n) - 1n },
    { name: '2^221-3', p: (1n << 221n) - 3n },
    { name: '2^61-1', p: (1n << 61n) - 1n },
    { name: '2^31-1', p: (1n << 31n) - 1n },
    { name: '2^89-1', p: (1n << 89n) - 1n },
    { name: '2^130-5', p: (1n << 130n) - 5n },
    { name: '2^192-237', p: (1n << 192n) - 237n },
    { name: '2^414-17', p: (1n << 414n) - 17n },
  ];
  const rng = makeRng('field-crandall primes');
  for (const w of CRANDALL_LIMB_SIZES) {
    for (const n of [3, 9]) {
      list.push({ name: `2^${n * w - 2}-c top(n=${n},w=${w})`, p: pseudoMersenne(n * w - 2) });
      list.push({ name: `2^${(n - 1) * w + 1}-c bottom(n=${n},w=${w})`, p: pseudoMersenne((n - 1) * w + 1) });
    }
  }
  // random k, and c up to 2^16 (larger c: fewer bits of headroom in the bounds)
  for (let i = 0; i < (LONG_TESTS ? 12 : 4); i++) {
    const k = 40 + rng.int(360);
    const c = pseudoMersenne(k, 1n + rng.below(1n << 16n));
    list.push({ name: `2^${k}-${(1n << BigInt(k)) - c}`, p: c });
  }
  return list.map((e) => ({ ...e, k: e.p.toString(2).length, c: (1n << BigInt(e.p.toString(2).length)) - e.p }));
}

const PRIMES = crandallPrimes();

describe('pseudo-Mersenne kernels vs BigInt: primes 2^k - c x w = 26..31', () => {
  it('the list holds primes of the form 2^k - c with small c, both limb edges for every w', () => {
    for (const e of PRIMES) {
      expect(isProbablePrime(e.p), e.name).toBe(true);
      expect(e.c > 0n && e.c < 1n << 20n, e.name).toBe(true);
    }
    for (const w of CRANDALL_LIMB_SIZES) {
      expect(PRIMES.some((e) => e.k % w === w - 2 && e.k > w), `top edge w=${w}`).toBe(true);
      expect(PRIMES.some((e) => e.k % w === 1 && e.k > w), `bottom edge w=${w}`).toBe(true);
    }
  });

  for (const entry of PRIMES) {
    describe(`${entry.name} (${entry.k} bits, c = ${entry.c})`, () => {
      for (const w of CRANDALL_LIMB_SIZES) {
        if (limbCount(entry.p, w) > 16) continue;
        it(`w=${w}`, async () => {
          const inst = await instantiateField({ p: entry.p, w, reduction: 'crandall' });
          expect(inst.params.R).toBe(1n);
          expect(inst.params.n).toBe(limbCount(entry.p, w));
          const { failures, checks } = runFieldEquivalence(inst, {
            rng: makeRng(`field-crandall ${entry.name} ${w}`),
            label: `${entry.name}, crandall`,
            pairs: LONG_TESTS ? Infinity : 900,
          });
          expect(checks).toBeGreaterThan(500);
          expect(failures).toEqual([]);
        });
      }
    });
  }
});

describe('pseudo-Mersenne product: bounds and edges', () => {
  it('x * y at the top of the lazy range (2p - 1) and with all-ones low limbs lands in [0, 2p), exactly = x y mod p', async () => {
    for (const w of CRANDALL_LIMB_SIZES) {
      for (const p of [(1n << 255n) - 19n, (1n << 127n) - 1n, pseudoMersenne(3 * w - 2)]) {
        const inst = await instantiateField({ p, w, reduction: 'crandall' });
        const raw = rawAccess(inst);
        const { n } = inst.params;
        const [a, b, out] = [inst.field.alloc(), inst.field.alloc(), inst.field.alloc()];
        const allOnesBelow2p = (((2n * p - 1n) >> BigInt((n - 1) * w)) << BigInt((n - 1) * w)) - 1n; // top limb as high as it goes, the rest all ones
        const values = [0n, 1n, p - 1n, p, 2n * p - 1n, allOnesBelow2p];
        for (const x of values) {
          for (const y of values) {
            expect(x < 2n * p && y < 2n * p).toBe(true);
            raw.write(a, x);
            raw.write(b, y);
            inst.field.mul(out, a, b);
            const got = raw.read(out);
            expect(got.badLimb, `w=${w} p=${hex(p)} x=${hex(x)} y=${hex(y)}`).toBe(-1);
            expect(got.value < 2n * p, `w=${w} x=${hex(x)} y=${hex(y)}: ${hex(got.value)} >= 2p`).toBe(true);
            expect(got.value % p, `w=${w} x=${hex(x)} y=${hex(y)}`).toBe((x * y) % p);
            inst.field.sqr(out, a);
            expect(raw.read(out).value % p).toBe((x * x) % p);
          }
        }
      }
    }
  });

  it('the generation-time proof: output bound below 2p, c T in 64 bits; the kernel has fewer limb products than n^2', () => {
    const P = deriveFieldParams({ p: (1n << 255n) - 19n, w: 30, reduction: 'crandall' });
    expect(P.crandall).toMatchObject({ k: 255, c: 19n, j0: 9, cF: 19n << 15n });
    expect(P.crandall.outMax < 2n * P.p).toBe(true);
    const text = crandallMul(P).render();
    const products = (text.match(/\(i64\.mul /g) ?? []).length;
    expect(products).toBeLessThan(P.n * P.n);
    expect(text).toContain(';; C: 2^255 = 19 (mod p)');
  });

  it('refuses what it cannot prove: w = 32, more than 16 limbs, p not 2^k - c with small c', () => {
    const p = (1n << 255n) - 19n;
    expect(() => deriveFieldParams({ p, w: 32, reduction: 'crandall' })).toThrow(RangeError);
    expect(() => deriveFieldParams({ p: (1n << 521n) - 1n, w: 30, reduction: 'crandall' })).toThrow(/n <= 16/);
    // BN254's p is far from a power of two; 2^k + c is not 2^k - c
    expect(() => deriveFieldParams({ p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n, reduction: 'crandall' })).toThrow(RangeError);
    expect(() => deriveFieldParams({ p: (1n << 255n) + 95n, reduction: 'crandall', checkPrime: false })).toThrow(RangeError);
    expect(() => deriveFieldParams({ p: (1n << 255n) + 95n, kernel: 'fma', reduction: 'crandall', checkPrime: false })).toThrow(RangeError);
    expect(() => deriveFieldParams({ p, reduction: 'barrett' })).toThrow(/reduction must be/);
    // a c too large for the bounds at this w: null, so deriveFieldParams refuses it
    expect(crandallConstants({ p: (1n << 100n) - ((1n << 27n) - 39n), w: 26, n: 4, bits: 100 })).toBe(null);
  });
});

// The FMA product takes primes 2^k - c with k a little below a multiple of W (51 or 52): these, from 1 to 8 limbs.
const FMA_PRIMES = [
  (1n << 255n) - 19n, (1n << 46n) - 21n, (1n << 50n) - 27n, (1n << 94n) - 3n, (1n << 102n) - 33n, (1n << 150n) - 3n, (1n << 152n) - 17n,
  (1n << 206n) - 5n, (1n << 251n) - 9n, (1n << 258n) - 87n, (1n << 310n) - 77n, (1n << 355n) - 49n, (1n << 414n) - 17n,
];

describe('pseudo-Mersenne FMA product: which primes, and the curve module', () => {
  it('the generator proves its bounds for the primes above and refuses others (the FMA build then stays Montgomery)', () => {
    for (const p of FMA_PRIMES) {
      expect(isProbablePrime(p)).toBe(true);
      const P = deriveFieldParams({ p, kernel: 'fma', reduction: 'crandall' });
      expect(P.R).toBe(1n);
      expect(fmaCrandallFits(P), hex(p)).toBe(true);
      for (const lanes of [1, 2, 4]) expect(fmaMontgomeryMul(P, { lanes }).render()).toContain('C: 2^');
    }
    const refused = deriveFieldParams({ p: (1n << 127n) - 1n, kernel: 'fma', reduction: 'crandall' });
    expect(fmaCrandallFits(refused)).toBe(false);
    expect(() => fmaMontgomeryMul(refused, { lanes: 4 })).toThrow(/crandall FMA product/);
    expect(() => deriveFieldParams({ p: (1n << 255n) - 19n, kernel: 'wide', reduction: 'crandall' })).toThrow(RangeError);
  });

  it("a curve with reduction 'crandall' gets Crandall's FMA product where it fits, Montgomery's where not", () => {
    const ed = JSON.parse(readFileSync(new URL('../codegen/curves/ed25519.json', import.meta.url), 'utf8'));
    expect(ed.reduction).toBe('crandall');
    const wat = buildCurveModule(deriveCurveParams(ed), { kernel: 'fma' }).module.render();
    expect(wat).toMatch(/^;; ed25519 .*: pseudo-Mersenne arithmetic mod p with 5 limbs of 52 bits/);
    // the same curve over 2^255 - 19 but built for a prime the FMA product refuses is covered by fmaCrandallFits above
  });
});

describe.runIf(relaxedFmaSupport() === 'fused')('pseudo-Mersenne FMA build vs BigInt (every kernel, lazy edges)', () => {
  for (const p of FMA_PRIMES) {
    it(`2^${p.toString(2).length} - ${(1n << BigInt(p.toString(2).length)) - p}`, async () => {
      const inst = await instantiateField({ p, kernel: 'fma', reduction: 'crandall' });
      expect(inst.params.R).toBe(1n);
      const { failures, checks } = runFieldEquivalence(inst, { rng: makeRng(`fma crandall ${p}`), label: 'FMA crandall', pairs: LONG_TESTS ? Infinity : 600 });
      expect(checks).toBeGreaterThan(300);
      expect(failures).toEqual([]);
    });
  }

  it('mul and sqr at the top of the lazy range and with all-ones limbs, 2^255 - 19', async () => {
    const p = (1n << 255n) - 19n;
    const inst = await instantiateField({ p, kernel: 'fma', reduction: 'crandall' });
    const raw = rawAccess(inst);
    const { n, w } = inst.params;
    const [a, b, out] = [inst.field.alloc(), inst.field.alloc(), inst.field.alloc()];
    const values = [0n, 1n, p - 1n, p, 2n * p - 1n, (((2n * p - 1n) >> BigInt((n - 1) * w)) << BigInt((n - 1) * w)) - 1n, (1n << 208n) - 1n];
    for (const x of values) {
      for (const y of values) {
        raw.write(a, x);
        raw.write(b, y);
        inst.field.mul(out, a, b);
        const got = raw.read(out);
        expect(got.badLimb, `x=${hex(x)} y=${hex(y)}`).toBe(-1);
        expect(got.value < 2n * p && got.value % p === (x * y) % p, `x=${hex(x)} y=${hex(y)}: ${hex(got.value)}`).toBe(true);
        inst.field.sqr(out, a);
        expect(raw.read(out).value % p).toBe((x * x) % p);
      }
    }
  });
});
