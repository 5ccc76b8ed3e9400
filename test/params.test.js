// deriveFieldParams and the Montgomery carry plan, checked against independent computations: the limb count,
// R, mu and the limbs from first principles, and the carry plan by our own worst-case bound walk over the
// plan's columns (not by calling the planner); and deriveG2Params' refusal of a G2 cofactor that r divides.

import { describe, it, expect } from 'vitest';
import { deriveFieldParams, describeFieldParams, toLimbs, fromLimbs, MIN_LIMB_BITS, MAX_LIMB_BITS } from '../codegen/params/field.js';
import { generateFieldWat } from '../codegen/index.js';
import { limbProductsPerMul } from '../codegen/kernels/field-mul.js';
import { defaultQStep } from '../codegen/kernels/field-mul-pairs.js';
import { modInv } from '../src/bigint/field.js';
import { LIMB_SIZES, primeMatrix, curvePrimes, makeRng, limbCount, hex } from './harness.js';
import { deriveG2Params } from '../codegen/params/g2.js';

const U64_MAX = (1n << 64n) - 1n;
const MATRIX = primeMatrix();
const CURVES = curvePrimes();

/** Independent recombination: sum of limb_j * 2^(j*w). */
const recombine = (limbs, w) => limbs.reduce((acc, l, j) => acc + BigInt(l) * (1n << BigInt(j * w)), 0n);

describe('deriveFieldParams', () => {
  it('exports the limb size range 26..32', () => {
    expect([MIN_LIMB_BITS, MAX_LIMB_BITS]).toEqual([26, 32]);
  });

  it('n is the least limb count with 4p < R = 2^(n*w), for the matrix primes and every w', () => {
    for (const { p, name } of MATRIX) {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        const msg = `${name} w=${w}`;
        expect(P.n, msg).toBe(limbCount(p, w));
        expect(4n * p < 1n << BigInt(P.n * w), msg).toBe(true);
        expect(4n * p >= 1n << BigInt((P.n - 1) * w), `${msg}: n - 1 limbs would do`).toBe(true);
        expect(P.lazy.holds, msg).toBe(true);
      }
    }
  });

  it('n for odd moduli of every size 2..1100 bits, and exactly at the 4p < R boundary (checkPrime: false)', () => {
    const rng = makeRng('params n sweep');
    for (let bits = 2; bits <= 1100; bits += 1) {
      const p = (rng.bits(bits) | (1n << BigInt(bits - 1)) | 1n);
      const w = LIMB_SIZES[bits % LIMB_SIZES.length];
      const P = deriveFieldParams({ p, w, checkPrime: false });
      expect(P.n, `${hex(p)} w=${w}`).toBe(limbCount(p, w));
      expect(P.bits).toBe(bits);
    }
    for (const w of LIMB_SIZES) {
      for (let n = 1; n <= 40; n++) {
        const edge = 1n << BigInt(n * w - 2); // 4p < R  <=>  p < edge
        expect(deriveFieldParams({ p: edge - 1n, w, checkPrime: false }).n, `2^${n * w - 2} - 1, w=${w}`).toBe(n);
        expect(deriveFieldParams({ p: edge + 1n, w, checkPrime: false }).n, `2^${n * w - 2} + 1, w=${w}`).toBe(n + 1);
        if (n >= 2) {
          const low = (1n << BigInt((n - 1) * w)) + 1n;
          expect(deriveFieldParams({ p: low, w, checkPrime: false }).n, `2^${(n - 1) * w} + 1, w=${w}`).toBe(n);
        }
      }
    }
  });

  it('R, R^2 mod p, one, mu, limbs, sizes', () => {
    for (const { p, name } of MATRIX) {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        const msg = `${name} w=${w}`;
        const W = 1n << BigInt(w);
        const R = 1n << BigInt(P.n * w);
        expect(P.p).toBe(p);
        expect(P.w).toBe(w);
        expect(P.R, msg).toBe(R);
        expect(P.R2, msg).toBe((R * R) % p);
        expect(P.one, msg).toBe(R % p);
        // mu = -p^-1 mod 2^w: mu * p = -1 (mod 2^w), as a plain number in [0, 2^w)
        expect(typeof P.mu, msg).toBe('number');
        expect(Number.isInteger(P.mu) && P.mu >= 0 && BigInt(P.mu) < W, msg).toBe(true);
        expect((BigInt(P.mu) * p + 1n) % W, msg).toBe(0n);
        expect(BigInt(P.mu), msg).toBe((W - modInv(p % W, W)) % W);
        // limbs
        expect(P.pLimbs.length, msg).toBe(P.n);
        expect(P.twoPLimbs.length, msg).toBe(P.n);
        for (const l of [...P.pLimbs, ...P.twoPLimbs]) {
          expect(typeof l).toBe('bigint');
          expect(l >= 0n && l < W, msg).toBe(true);
        }
        expect(recombine(P.pLimbs, w), msg).toBe(p);
        expect(recombine(P.twoPLimbs, w), msg).toBe(2n * p);
        expect(P.limbMax).toBe(W - 1n);
        expect(P.bits).toBe(p.toString(2).length);
        expect(P.bytes).toBe(Math.ceil(P.bits / 8));
        expect(P.elementBytes).toBe(4 * P.n);
      }
    }
  });

  it('toLimbs / fromLimbs round trip, and toLimbs refuses values that do not fit', () => {
    const rng = makeRng('limbs');
    for (const w of LIMB_SIZES) {
      for (const n of [1, 2, 9, 13]) {
        for (let i = 0; i < 20; i++) {
          const x = rng.bits(n * w);
          const limbs = toLimbs(x, w, n);
          expect(limbs.length).toBe(n);
          expect(recombine(limbs, w)).toBe(x);
          expect(fromLimbs(limbs, w)).toBe(x);
        }
        expect(() => toLimbs(1n << BigInt(n * w), w, n)).toThrow(RangeError);
      }
    }
  });

  it('returns a deeply frozen object', () => {
    const P = deriveFieldParams({ p: CURVES['bls12-381'].p, w: 30 });
    for (const o of [P, P.pLimbs, P.twoPLimbs, P.lazy, P.carryPlan, P.carryPlan.columns, P.carryPlan.accumulatorBounds,
      ...P.carryPlan.columns, ...P.carryPlan.columns.map((c) => c.ops)]) {
      expect(Object.isFrozen(o)).toBe(true);
    }
    // ESM is strict mode: writes throw
    expect(() => { P.p = 5n; }).toThrow(TypeError);
    expect(() => { P.n = 1; }).toThrow(TypeError);
    expect(() => { P.extra = 1; }).toThrow(TypeError);
    expect(() => { P.pLimbs[0] = 0n; }).toThrow(TypeError);
    expect(() => P.pLimbs.push(1n)).toThrow(TypeError);
    expect(() => { P.carryPlan.columns[0].endSplit = false; }).toThrow(TypeError);
    expect(() => P.carryPlan.columns[1].ops.push('split')).toThrow(TypeError);
    expect(P.p).toBe(CURVES['bls12-381'].p);
  });

  it('is deterministic, and a hex or decimal string p gives the same object', () => {
    const { p } = CURVES.bn254;
    for (const w of LIMB_SIZES) {
      const a = deriveFieldParams({ p, w });
      expect(deriveFieldParams({ p, w })).toEqual(a);
      expect(deriveFieldParams({ p: '0x' + p.toString(16), w })).toEqual(a);
      expect(deriveFieldParams({ p: p.toString(10), w })).toEqual(a);
    }
    expect(deriveFieldParams({ p }).w).toBe(30);
  });

  it('describeFieldParams names p, w, n, mu and the carry plan', () => {
    const P = deriveFieldParams({ p: CURVES.bn254.p, w: 30 });
    const text = describeFieldParams(P).join('\n');
    expect(text).toContain(P.p.toString(16));
    expect(text).toContain(`w = 30, n = ${P.n}`);
    expect(text).toContain(`mu = -p^-1 mod 2^w = ${P.mu}`);
    expect(text).toContain(P.carryPlan.summary);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The carry plan, re-checked by an independent worst-case walk.
//
// The Montgomery product runs n outer steps; step i computes, column by column, an i64 accumulator
//   column 0: t = S_0 + x_i*y_0 (+ q_i*p_0);  carry = t >> w
//   column j: t = S_j + x_i*y_j + q_i*p_j + carry_(j-1);  S_(j-1) = t   (t split into w bits + carry at 'split'
//             ops and at the end of columns with endSplit)
// in the order the plan lists the terms. We walk all n steps (not a fixpoint) with the largest value every
// term can take: x limbs and q below 2^w, y limbs below 2^w except the top one, bounded by (2p - 1) >> ((n-1)w)
// because inputs are below 2p. Every partial sum must stay <= 2^64 - 1, then the closing carry pass too.

function walkPlan({ p, n, w, pLimbs }, columns) {
  const W = BigInt(w);
  const M = (1n << W) - 1n;
  const yTop = (2n * p - 1n) >> BigInt((n - 1) * w);
  const yMax = (j) => (j === n - 1 && yTop < M ? yTop : M);
  const problems = [];
  let maxAcc = 0n;
  let S = new Array(n).fill(0n);
  let carries = 0;
  let products = 0;
  for (let i = 0; i < n; i++) {
    const next = new Array(n).fill(0n);
    let carry = null;
    for (let j = 0; j < n; j++) {
      const { ops, endSplit } = columns[j];
      const count = (name) => ops.filter((o) => o === name).length;
      if (count('xy') !== 1 || count('qp') !== 1) problems.push(`column ${j}: needs exactly one xy and one qp term (${ops})`);
      if (count('S') > 1 || count('carry') > 1) problems.push(`column ${j}: repeated term (${ops})`);
      if (!ops.includes('S') && S[j] > 0n) problems.push(`step ${i} column ${j}: drops S_${j} (bound ${hex(S[j])})`);
      if ((carry !== null) !== ops.includes('carry')) {
        problems.push(`step ${i} column ${j}: ${carry !== null ? 'drops the carry from column ' + (j - 1) : 'adds a carry nobody produced'}`);
      }
      if (j === 0) {
        // q_i is computed from t when qp comes up: S_0 and x_i*y_0 must already be in t
        const at = ops.indexOf('qp');
        if (ops.indexOf('xy') > at || (ops.includes('S') && ops.indexOf('S') > at)) problems.push(`column 0: q computed before t is complete (${ops})`);
      }
      let acc = 0n;
      let out = null;
      for (const op of ops) {
        if (op === 'split') {
          out = (out ?? 0n) + (acc >> W);
          acc = acc < M ? acc : M;
          carries++;
          continue;
        }
        const bound = { S: S[j], xy: M * yMax(j), qp: M * pLimbs[j], carry: carry ?? 0n }[op];
        if (bound === undefined) {
          problems.push(`column ${j}: unknown op ${op}`);
          continue;
        }
        if (op === 'xy' || op === 'qp') products++;
        acc += bound;
        if (acc > maxAcc) maxAcc = acc;
        if (acc > U64_MAX) problems.push(`step ${i} column ${j}: after ${op} the accumulator can reach ${hex(acc)} > 2^64 - 1`);
      }
      if (j === 0 || endSplit) {
        out = (out ?? 0n) + (acc >> W);
        acc = acc < M ? acc : M;
        carries++;
      }
      if (j > 0) next[j - 1] = acc;
      carry = out;
    }
    next[n - 1] = carry ?? 0n;
    S = next;
  }
  let c = 0n;
  for (let j = 0; j < n; j++) {
    const t = S[j] + c;
    if (t > maxAcc) maxAcc = t;
    if (t > U64_MAX) problems.push(`normalize limb ${j}: ${hex(t)} > 2^64 - 1`);
    c = t >> W;
  }
  return { problems, maxAcc, carriesPerStep: carries / n, productsPerStep: products / n };
}

/** Text of one function in a module. */
function funcText(wat, name) {
  const start = wat.indexOf(`(func $${name} `);
  if (start < 0) throw new Error(`no function ${name}`);
  const end = wat.indexOf('\n  (func ', start + 1);
  return wat.slice(start, end < 0 ? undefined : end);
}

describe('carry plan', () => {
  const targets = [
    ['bls12-381.p', CURVES['bls12-381'].p],
    ['bls12-381.r', CURVES['bls12-381'].r],
    ['bn254.p', CURVES.bn254.p],
    ['bn254.r', CURVES.bn254.r],
  ];

  for (const [name, p] of targets) {
    it(`${name}: no i64 accumulator can exceed 2^64 - 1, w = 26..32 (independent worst-case walk)`, () => {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        const walk = walkPlan(P, P.carryPlan.columns);
        expect(walk.problems, `${name} w=${w}`).toEqual([]);
        expect(walk.maxAcc <= U64_MAX).toBe(true);
        expect(walk.productsPerStep).toBe(2 * P.n);
        // the plan's own claims agree with the walk
        expect(walk.carriesPerStep, `${name} w=${w}`).toBe(P.carryPlan.splitsPerStep);
        expect(P.carryPlan.maxAccumulatorBits <= 64).toBe(true);
        for (const b of P.carryPlan.accumulatorBounds) expect(b <= U64_MAX).toBe(true);
      }
    });
  }

  it('every prime in the matrix, every w: the walk finds no overflow and no dropped term', () => {
    for (const { p, name } of MATRIX) {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        expect(walkPlan(P, P.carryPlan.columns).problems, `${name} w=${w}`).toEqual([]);
      }
    }
  });

  it('w = 32 needs a carry after almost every limb product; w = 30 needs few', () => {
    for (const [name, p] of targets) {
      const P32 = deriveFieldParams({ p, w: 32 });
      const P30 = deriveFieldParams({ p, w: 30 });
      const c32 = walkPlan(P32, P32.carryPlan.columns);
      const c30 = walkPlan(P30, P30.carryPlan.columns);
      // w = 32: two full limb products already exceed 2^64 - 1, so no accumulator holds two "big" products
      // (bound > (2^64 - 1) / 2); only products with a small limb of p (q*p_j) can share one
      expect(2n * ((1n << 32n) - 1n) ** 2n > U64_MAX).toBe(true);
      const M = (1n << 32n) - 1n;
      const yTop = (2n * p - 1n) >> BigInt((P32.n - 1) * 32);
      const big = P32.pLimbs.reduce((s, pj, j) => s + (M * (j === P32.n - 1 && yTop < M ? yTop : M) > U64_MAX / 2n ? 1 : 0) + (M * pj > U64_MAX / 2n ? 1 : 0), 0);
      expect(c32.carriesPerStep, `${name} w=32`).toBeGreaterThanOrEqual(big - 1);
      expect(c32.carriesPerStep / c32.productsPerStep, `${name} w=32`).toBeGreaterThanOrEqual(0.85);
      // w = 30: sixteen products fit, so at most one carry per 8 products
      expect(16n * ((1n << 30n) - 1n) ** 2n < U64_MAX).toBe(true);
      expect(c30.carriesPerStep, `${name} w=30`).toBeLessThanOrEqual(Math.ceil(c30.productsPerStep / 8));
      expect(c30.carriesPerStep).toBeGreaterThanOrEqual(1); // column 0 always carries (it is divided out)
    }
  });

  it('the mid-column carries at w = 32 are needed: dropping any one of them overflows', () => {
    for (const [name, p] of targets) {
      for (const w of [32]) {
        const P = deriveFieldParams({ p, w });
        const cols = P.carryPlan.columns;
        let removable = 0;
        for (let j = 0; j < P.n; j++) {
          const splitAt = cols[j].ops.indexOf('split');
          if (splitAt >= 0) {
            const mutated = cols.map((c, k) => (k === j ? { ...c, ops: c.ops.filter((_, m) => m !== splitAt) } : c));
            if (walkPlan(P, mutated).problems.length === 0) removable++;
          }
        }
        expect(removable, `${name} w=${w}: a carry the bounds do not need`).toBe(0);
      }
    }
  });

  it('the walk is not vacuous: the w = 32 plan without its mid-column carries overflows', () => {
    for (const [name, p] of targets) {
      const P32 = deriveFieldParams({ p, w: 32 });
      const stripped = P32.carryPlan.columns.map((c) => ({ ...c, ops: c.ops.filter((o) => o !== 'split') }));
      expect(walkPlan(P32, stripped).problems.some((s) => s.includes('2^64 - 1')), name).toBe(true);
    }
  });

  it('the generated mul follows the plan: one shift per planned carry, per step, plus the closing pass', () => {
    for (const [name, p] of targets) {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        const wat = generateFieldWat({ p, w, mulShape: 'loop' });
        const shifts = (text) => (text.match(/i64\.shr_u/g) ?? []).length;
        const perStep = P.carryPlan.splitsPerStep;
        expect(shifts(funcText(wat, 'mul')), `${name} w=${w} loop`).toBe(perStep + P.n - 1);
        expect(shifts(funcText(wat, 'mulUnrolled')), `${name} w=${w} unrolled`).toBe(P.n * perStep + P.n - 1);
        // 2n limb products per step, plus q = t * mu
        const muls = (text) => (text.match(/i64\.mul/g) ?? []).length;
        const zeroLimbs = P.pLimbs.filter((l) => l === 0n).length; // q*p_j is skipped when p_j = 0
        expect(muls(funcText(wat, 'mul')), `${name} w=${w}`).toBe(2 * P.n - zeroLimbs + 1);
        expect(muls(funcText(wat, 'mulUnrolled')), `${name} w=${w}`).toBe(P.n * (2 * P.n - zeroLimbs + 1));
      }
    }
  });
});

describe('limb products per Montgomery product, by shape', () => {
  it('operand scanning costs n(2n + 1) less the zero limbs of p; pairs about n^2 + 3n - 1, fewer with two q limbs per step', () => {
    for (const [name, { p }] of Object.entries(curvePrimes())) {
      for (const w of LIMB_SIZES) {
        const P = deriveFieldParams({ p, w });
        const { n, pLimbs } = P;
        const nonzero = pLimbs.filter((l) => l !== 0n).length;
        expect(limbProductsPerMul(P, 'unrolled'), `${name} w=${w}`).toBe(n * (n + 1 + nonzero));
        expect(limbProductsPerMul(P, 'loop'), `${name} w=${w}`).toBe(n * (n + 1 + nonzero));
        if (w > 31) continue;
        // x*y: n diagonal products + one per pair. Reduction: q_k = t*mu and q_k p_0 per column, q_0 p_k and
        // q_k p_k for k >= 1, and one per pair (i, j) of indices >= 1 whose limbs of p differ.
        let pairs = 0;
        for (let i = 1; i < n; i++) for (let j = i + 1; j < n; j++) if (pLimbs[i] !== pLimbs[j]) pairs++;
        const nonzeroAbove0 = pLimbs.slice(1).filter((l) => l !== 0n).length;
        let expected = (n * (n + 1)) / 2 + 2 * n + 2 * nonzeroAbove0 + pairs;
        expect(expected).toBeLessThanOrEqual(n * n + 3 * n - 1);
        if (defaultQStep(P) === 2) {
          // two q limbs per step: one product by mu2 per two columns; in column k + 1 of the step at k >= 2 the
          // pair (1, k) waits on q_k, so it becomes the single products q_1 p_k and q_k p_1
          expected -= Math.floor(n / 2);
          for (let k = 2; k + 1 < n; k += 2) expected += (pLimbs[k] !== 0n) + (pLimbs[1] !== 0n) - (pLimbs[1] !== pLimbs[k]);
        }
        expect(limbProductsPerMul(P, 'pairs'), `${name} w=${w}`).toBe(expected);
      }
    }
  });
});

describe('deriveG2Params', () => {
  // A toy twist y^2 = x^3 + (3 + u) over F_p2, p = 103 (u^2 = -1): its group has 10804 = 2^2 37 73 points, and G below
  // has order 73. With h = 148 (the true cofactor) the params are accepted; h = 146 = 2 r puts h r = 10658 inside the
  // Hasse interval too, but r divides it: the twist could then hold several subgroups of order r, which neither
  // r P = O nor GLV tells apart, so it is refused, naming the field.
  const curve = { p: 103n, r: 73n, a: 0n };
  const g2 = (h) => ({ nonResidue: '-1', b: ['3', '1'], h, generator: { x: ['67', '29'], y: ['92', '66'] } });
  it('refuses a g2.h that r divides (inside the Hasse interval), accepts the true cofactor', () => {
    expect(deriveG2Params(curve, g2('148')).h).toBe(148n);
    expect(() => deriveG2Params(curve, g2('146'))).toThrow(/g2\.h is a multiple of r/);
  });
});
