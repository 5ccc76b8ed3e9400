// The wide-arithmetic Montgomery product (codegen/kernels/field-mul-wide.js) against BigInt: the prime matrix plus
// primes at the 64-bit limb counts' own edges (4p just below R = 2^(64n); just above 2^(64(n-1))), edge-biased
// inputs in [0, 2p) in every pair (one product per call and two interleaved), squares, aliased outputs and four
// dependent chains. No Node runs the wide
// opcodes yet: the products run in headless Chromium with --js-flags=--wasm-wide-arithmetic (test/wide-engine.js),
// and this process checks that its engine rejects the module (what the loader's probe relies on). Outside CI the
// engine suite is skipped, with a message, when no chromium is found; in CI (CI=true) that fails.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import binaryen from 'binaryen';
import { deriveWideParams, wideMontgomeryBounds, wideMontgomeryMul, SCANNING_SQUARE_MIN_LIMBS } from '../codegen/kernels/field-mul-wide.js';
import { wideModuleWat, wideModuleBytes } from '../codegen/modules/wide-module.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { fieldModuleWat } from '../codegen/modules/field-module.js';
import { compileWideWat, compileWat } from '../codegen/compile.js';
import { wideArithmeticSupport, wideArithmeticProbeBytes, WIDE_ARITHMETIC_PROBE_WAT } from '../src/runtime/features.js';
import { modInv } from '../src/bigint/field.js';
import { primeMatrix, curvePrimes, makeRng, edgeValues, prevPrime, nextPrime, hex } from './harness.js';
import { suiteEngine, wideFieldRun } from './wide-engine.js';

const BN254_P = curvePrimes().bn254.p;
const BLS12_381_P = curvePrimes()['bls12-381'].p;

/** The prime matrix, and for n = 1..6 and 9 limbs of 64 bits the primes at the edges of that count. */
function widePrimes() {
  const list = primeMatrix().map((e) => ({ name: e.name, p: e.p }));
  for (const n of [1, 2, 3, 4, 5, 6, 9]) {
    list.push({ name: `top(n=${n},w=64)`, p: prevPrime(1n << BigInt(64 * n - 2)) });
    if (n > 1) list.push({ name: `bottom(n=${n},w=64)`, p: nextPrime(1n << BigInt(64 * (n - 1))) });
  }
  return list;
}

describe('wide kernel parameters and bounds (generation time)', () => {
  it('n is the least count of 64-bit limbs with 4p < R: 4 for BN254, 6 for BLS12-381', () => {
    expect(deriveWideParams(BN254_P)).toMatchObject({ w: 64, n: 4, limbBytes: 8, elementBytes: 32, kernel: 'wide' });
    expect(deriveWideParams(BLS12_381_P)).toMatchObject({ w: 64, n: 6, elementBytes: 48 });
    for (const { p } of widePrimes()) {
      const fp = deriveWideParams(p);
      expect(4n * p < fp.R).toBe(true);
      expect(4n * p < 1n << BigInt(64 * (fp.n - 1))).toBe(false);
      expect((p * fp.mu + 1n) % (1n << 64n)).toBe(0n);
    }
  });

  it('proves every step of the product for every prime, with the output below 2p', () => {
    for (const { name, p } of widePrimes()) {
      const fp = deriveWideParams(p);
      const { steps, outMax, columns } = wideMontgomeryBounds(fp);
      expect(steps, name).toHaveLength(fp.n);
      expect(columns, name).toHaveLength(2 * fp.n - 1); // the scanning squaring's columns
      for (const c of columns) expect(c.L < 1n << 128n && c.H < 1n << 128n && c.carry < 1n << 128n, name).toBe(true);
      expect(outMax < 2n * p, name).toBe(true);
      for (const s of steps) expect(s.afterReduce < fp.R && s.afterMultiply < fp.R << 64n, name).toBe(true);
    }
  });

  it('refuses what it cannot prove: a prime with 4p >= R, params of another layout', () => {
    const p = prevPrime(1n << 255n); // 4p > 2^256: forced onto 4 limbs, the output could reach 2p
    const forced = { ...deriveWideParams(p), n: 4, R: 1n << 256n };
    expect(() => wideMontgomeryBounds(forced)).toThrow(/wide kernel: .*could (pass|reach)/);
    expect(() => wideMontgomeryMul(forced)).toThrow(/wide kernel/);
    expect(deriveWideParams(p).n).toBe(5);
    expect(() => wideMontgomeryBounds(deriveFieldParams({ p: BN254_P }))).toThrow(/wide layout/);
    expect(() => deriveWideParams(10)).toThrow(RangeError);
    expect(() => wideMontgomeryMul(deriveWideParams(BN254_P), { lanes: 4 })).toThrow(/lanes must be 1 or 2/);
    expect(() => wideMontgomeryMul(deriveWideParams(BN254_P), { square: true, squareForm: 'karatsuba' })).toThrow(/squareForm/);
  });

  it('squares by product scanning from SCANNING_SQUARE_MIN_LIMBS limbs up (BLS12-381), by the product below (BN254)', () => {
    const doc = (p) => wideMontgomeryMul(deriveWideParams(p), { name: 's', square: true }).render();
    expect(SCANNING_SQUARE_MIN_LIMBS).toBe(6);
    expect(doc(BLS12_381_P)).toContain('product scanning');
    expect(doc(BN254_P)).toContain('CIOS');
  });

  it('writes the WAT with the wide opcodes, which binaryen assembles and wabt cannot parse', async () => {
    const { wat } = wideModuleWat(BN254_P);
    expect(wat).toContain('(i64.mul_wide_u');
    expect(wat).toContain('(i64.add128');
    expect(wat).toMatch(/Inputs in \[0, 2p\), output in \[0, 2p\)/);
    const bytes = await compileWideWat(wat, 'bn254-wide.wat');
    expect(bytes[0]).toBe(0);
    await expect(compileWat(wat, 'bn254-wide.wat')).rejects.toThrow();
    await expect(compileWideWat('(module (func (i64.add (i32.const 1))))', 'bad.wat')).rejects.toThrow(/bad\.wat/);
  });

  it('the hand-written feature probe is the text it documents (read back by binaryen)', () => {
    const F = binaryen.Features.Multivalue | binaryen.Features.WideArithmetic;
    const fromText = binaryen.parseText(WIDE_ARITHMETIC_PROBE_WAT);
    const fromBytes = binaryen.readBinary(wideArithmeticProbeBytes());
    fromText.setFeatures(F);
    fromBytes.setFeatures(F);
    expect(fromBytes.validate()).toBeTruthy();
    expect(fromBytes.emitText()).toBe(fromText.emitText());
    fromText.dispose();
    fromBytes.dispose();
  });

  it.skipIf(wideArithmeticSupport())(`this engine (Node ${process.version}) rejects the wide opcodes: the probe says so, the module does not validate`, async () => {
    expect(wideArithmeticSupport()).toBe(false);
    expect(WebAssembly.validate(wideArithmeticProbeBytes())).toBe(false);
    const { bytes } = await wideModuleBytes(BN254_P);
    expect(WebAssembly.validate(bytes)).toBe(false);
  });
});

/** What the engine returned, checked against BigInt: every product, square, aliased call and chain. */
function checkRun(name, p, fp, values, r) {
  const Rinv = modInv(fp.R % p, p);
  const expectProduct = (got, x, y, what) => {
    const g = BigInt(got);
    if (!(g < 2n * p && (g - ((x * y * Rinv) % p)) % p === 0n)) {
      throw new Error(`${name}: ${what}: x = ${hex(x)}, y = ${hex(y)}: got ${got}, want ${hex((x * y * Rinv) % p)} (+ 0 or p)`);
    }
  };
  const V = values.length;
  for (let i = 0; i < V; i++) {
    for (let j = 0; j < V; j++) {
      expectProduct(r.products[i * V + j], values[i], values[j], 'mulWide');
      expectProduct(r.paired[i * V + j][0], values[i], values[j], 'mulWide2 (first)');
      expectProduct(r.paired[i * V + j][1], values[j], values[(i + 1) % V], 'mulWide2 (second)');
    }
    expectProduct(r.squares[i], values[i], values[i], 'sqrWide');
    expectProduct(r.squaresAlt[i][0], values[i], values[i], 'sqrWideAlt (the other squaring form)');
    expectProduct(r.squaresAlt[i][1], values[i], values[i], 'sqrWideAlt(x, x)');
    const y = values[(i + 1) % V];
    const [outIsX, outIsY, all, sqrInPlace, pairedFirst, pairedSecond] = r.aliased[i];
    expectProduct(pairedFirst, y, values[i], 'mulWide2 with out0 = y1');
    expectProduct(pairedSecond, values[i], y, 'mulWide2 with out1 = x0');
    expectProduct(outIsX, values[i], y, 'mulWide(x, x, y)');
    expectProduct(outIsY, values[i], y, 'mulWide(y, x, y)');
    expectProduct(all, values[i], values[i], 'mulWide(x, x, x)');
    expectProduct(sqrInPlace, values[i], values[i], 'sqrWide(x, x)');
    // aliasing must give the same representative as the plain call
    expect(outIsX, `${name}: out = x`).toBe(r.products[i * V + ((i + 1) % V)]);
  }
  for (let l = 0; l < 4; l++) {
    let x = values[l % V];
    const y = values[(V - 1 - l + 4 * V) % V];
    for (let s = 0; s < 50; s++) x = (x * y * Rinv) % p;
    for (const [label, got] of [['mulWideChain4', r.chains[l]], ['mulWide2Chain4', r.chains2[l]]]) {
      const g = BigInt(got);
      expect(g < 2n * p && (g - x) % p === 0n, `${name}: ${label} chain ${l}`).toBe(true);
    }
  }
}

describe('wide kernel vs BigInt, in an engine with wide arithmetic', () => {
  let engine;
  beforeAll(async () => {
    engine = await suiteEngine('field-wide.test.js');
  }, 60_000);
  afterAll(() => engine?.close?.());

  it('the probe holds there: hi((2^64 - 1)^2) = 2^64 - 2', async (ctx) => {
    if (!engine.where) ctx.skip();
    const { bytes, fp } = await wideModuleBytes(7n, { chainKernels: true });
    const r = await engine.run(wideFieldRun, { bytes: [...bytes], n: fp.n, values: ['0x1', '0x2', '0x3', '0x4'], probe: [...wideArithmeticProbeBytes()] });
    expect(r.probe).toBe('-2');
  }, 60_000);

  it('every prime of the matrix and the 64-bit edges: all pairs of edge values, squares, aliasing, chains', async (ctx) => {
    if (!engine.where) ctx.skip();
    const probe = [...wideArithmeticProbeBytes()];
    let checked = 0;
    for (const { name, p } of widePrimes()) {
      const { bytes, fp } = await wideModuleBytes(p, { chainKernels: true });
      const rng = makeRng(`wide ${name}`);
      // edge values at 64-bit limb boundaries, plus values with every limb near 2^64 - 1 below 2p
      const values = edgeValues(p, 64, fp.n, { rng, random: 4 });
      for (const x of [2n * p - 1n - (rng.below(1n << 16n)), (1n << BigInt(64 * fp.n - 1)) - 1n]) {
        if (x >= 0n && x < 2n * p && !values.includes(x)) values.push(x);
      }
      const r = await engine.run(wideFieldRun, { bytes: [...bytes], n: fp.n, values: values.map(hex), probe });
      checkRun(name, p, fp, values, r);
      checked += values.length ** 2;
    }
    expect(checked).toBeGreaterThan(10_000);
  }, 240_000);

  // The wide build's field module: add, sub, neg, reduce, eq, isZero, the conversions and bytes, inversion, batch
  // inversion, pow and sqrt over 64-bit limbs (their carries through i64.add128 / i64.sub128), and mul, sqr,
  // through the same equivalence runner as the integer and FMA builds (test/harness.js), in the engine.
  it('the wide build field module: every kernel export vs BigInt on the matrix and the 64-bit edges', async (ctx) => {
    if (!engine.where) ctx.skip();
    let checks = 0;
    for (const { name, p } of widePrimes().filter((e) => e.p > 3n)) {
      const fp = deriveFieldParams({ p, kernel: 'wide', checkPrime: false });
      const { wat, layout } = fieldModuleWat(fp);
      const bytes = await compileWideWat(wat, `field-wide-${name}.wat`);
      const shape = { p: hex(p), w: fp.w, n: fp.n, bits: fp.bits, bytes: fp.bytes, elementBytes: fp.elementBytes };
      const r = await engine.suite('wideFieldEquivalence', { bytes: [...bytes], shape, minPages: layout.minPages, label: name, pairs: 200 });
      expect(r.failures, name).toEqual([]);
      expect(r.checks, name).toBeGreaterThan(500);
      checks += r.checks;
    }
    expect(checks).toBeGreaterThan(20_000);
  }, 600_000);
});
