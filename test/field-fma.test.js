// The FMA Montgomery product (codegen/kernels/field-mul-fma.js) against BigInt: the prime matrix plus primes at
// the FMA limb sizes' own edges, edge-biased inputs in [0, 2p) in all four lanes, and long dependent chains.
// The kernels need relaxed SIMD with a fused multiply-add: under an engine without it (Node 20) the suite checks
// that the probe says so and that the kernel module is rejected, the fallback the loader relies on.

import { describe, it, expect } from 'vitest';
import { deriveFmaParams, fmaMontgomeryMul, f64Bits } from '../codegen/kernels/field-mul-fma.js';
import { fmaModuleWat, instantiateFma, fmaElements } from '../codegen/modules/fma-module.js';
import { compileWat } from '../codegen/compile.js';
import { relaxedFmaSupport, relaxedFmaProbeBytes, RELAXED_FMA_PROBE_WAT } from '../src/runtime/features.js';
import { modInv } from '../src/bigint/field.js';
import { LONG_TESTS, primeMatrix, curvePrimes, makeRng, edgeValues, prevPrime, nextPrime, hex } from './harness.js';
import { runFieldEquivalence } from './field-equivalence.js';
import { instantiateField } from '../codegen/index.js';

const SUPPORT = relaxedFmaSupport();
const BN254_P = curvePrimes().bn254.p;
const BLS12_381_P = curvePrimes()['bls12-381'].p;

/** The prime matrix, and for each FMA limb size the primes at its n-limb edges (4p just below R; top limb 1). */
function fmaPrimes() {
  const list = primeMatrix().map((e) => ({ name: e.name, p: e.p }));
  for (const W of [51, 52]) {
    for (const n of [1, 2, 3, 5, 8, 10]) {
      const top = prevPrime(1n << BigInt(n * W - 2));
      if (deriveFmaParams(top).W === W) list.push({ name: `top(n=${n},W=${W})`, p: top });
      if (n > 1) {
        const bottom = nextPrime(1n << BigInt((n - 1) * W));
        if (deriveFmaParams(bottom).W === W) list.push({ name: `bottom(n=${n},W=${W})`, p: bottom });
      }
    }
  }
  return list;
}

describe('FMA kernel parameters (generation time)', () => {
  it('W = 52 only where it saves a limb; n is the least with 4p < R', () => {
    expect(deriveFmaParams(BN254_P)).toMatchObject({ W: 52, n: 5, splitOps: 4, elementBytes: 40 });
    expect(deriveFmaParams(BLS12_381_P)).toMatchObject({ W: 51, n: 8, splitOps: 3, elementBytes: 64 });
    for (const { p } of fmaPrimes()) {
      const fp = deriveFmaParams(p);
      expect(4n * p < fp.R).toBe(true);
      expect(4n * p < 1n << BigInt((fp.n - 1) * fp.W)).toBe(false);
      expect((p * fp.mu + 1n) % (1n << BigInt(fp.W))).toBe(0n);
    }
  });

  it('rejects what it cannot build', () => {
    expect(() => deriveFmaParams(10n)).toThrow(RangeError);
    expect(() => fmaMontgomeryMul(deriveFmaParams(BN254_P), { lanes: 3 })).toThrow(/lanes must be 1, 2 or 4/);
  });

  it('writes the split constants exactly (hex floats where decimal could round)', () => {
    const wat = fmaModuleWat(BLS12_381_P).wat;
    // C = 2^103 and C + K = 2^103 + 3 * 2^51 for W = 51
    expect(wat).toContain(`(f64.const 0x1.0000000000000p+103)`);
    expect(wat).toContain(`(f64.const 0x1.0000000000003p+103)`);
    expect(f64Bits(2 ** 103 + 3 * 2 ** 51) - f64Bits(2 ** 103)).toBe(3n);
  });
});

describe('relaxed-SIMD probe', () => {
  it('its bytes are what wabt assembles from its text', async () => {
    expect([...relaxedFmaProbeBytes()]).toEqual([...(await compileWat(RELAXED_FMA_PROBE_WAT, 'probe.wat', { relaxedSimd: true }))]);
  });

  it('agrees with whether the engine validates the kernel module', async () => {
    const bytes = await compileWat(fmaModuleWat(BN254_P).wat, 'fma.wat', { relaxedSimd: true });
    expect(['fused', 'unfused', 'unsupported']).toContain(SUPPORT);
    expect(WebAssembly.validate(bytes)).toBe(SUPPORT !== 'unsupported');
    // Node 21+ ships relaxed SIMD; on x64 and arm64 its madd is fused
    const major = Number(process.versions.node.split('.')[0]);
    if (major >= 22 && ['x64', 'arm64'].includes(process.arch)) expect(SUPPORT).toBe('fused');
  });
});

describe.runIf(SUPPORT === 'fused')('FMA Montgomery product vs BigInt', () => {
  const primes = fmaPrimes();

  it('covers the shipped fields, random primes of 128..768 bits and both limb sizes edges', () => {
    const names = primes.map((e) => e.name).join(' ');
    for (const curve of ['bn254.p', 'bls12-381.p', 'secp256k1.p', 'pallas.p', 'bls12-377.p']) expect(names).toContain(curve);
    for (const bits of [128, 256, 384, 512, 768]) expect(names).toContain(`random${bits}`);
    expect(primes.some((e) => e.name.startsWith('top') && e.name.includes('W=51'))).toBe(true);
    expect(primes.some((e) => e.name.startsWith('top') && e.name.includes('W=52'))).toBe(true);
  });

  for (const { name, p } of primes) {
    it(`${name} (${p.toString(2).length} bits)`, async () => {
      const { exports, memory, fp } = await instantiateFma(p, { chainKernels: true });
      const mem = fmaElements(memory, fp);
      const E = fp.elementBytes;
      const Rinv = modInv(fp.R % p, p);
      const rng = makeRng(`field-fma ${name}`);
      // tiny primes: every raw value in [0, 2p)
      const values = p < 40n ? Array.from({ length: Number(2n * p) }, (_, i) => BigInt(i)) : edgeValues(p, fp.W, fp.n, { rng, random: LONG_TESTS ? 60 : 12 });
      const value = (i) => values[i % values.length];
      const at = (region, lane) => 4096 + region * 4 * E + lane * E;
      const failures = [];
      let checks = 0;
      const check = (label, inputs, kernel, lanes) => {
        for (let l = 0; l < lanes; l++) {
          mem.write(at(0, l), inputs[l][0]);
          mem.write(at(1, l), inputs[l][1]);
        }
        kernel(...Array.from({ length: lanes }, (_, l) => [at(2, l), at(0, l), at(1, l)]).flat());
        for (let l = 0; l < lanes; l++) {
          const [x, y] = inputs[l];
          const { x: out, normalized } = mem.read(at(2, l));
          checks++;
          if (!normalized || out >= 2n * p || (out - x * y * Rinv) % p !== 0n) failures.push(`${label} lane ${l}: ${hex(x)} * ${hex(y)} -> ${hex(out)}`);
        }
      };
      // every edge value against every other, spread over the four lanes (and two lanes for mulFma2)
      const pairs = [];
      for (const x of values) for (const y of values) pairs.push([x, y]);
      for (let i = 0; i < pairs.length; i += 4) {
        const quad = [0, 1, 2, 3].map((l) => pairs[(i + l) % pairs.length]);
        check('mulFma', quad, exports.mulFma, 4);
        check('mulFma2', quad.slice(2), exports.mulFma2, 2);
      }
      // aliasing: out = x in one lane, out = y in another, out = another lane's input
      mem.write(at(0, 0), value(5));
      mem.write(at(1, 0), value(7));
      exports.mulFma(at(0, 0), at(0, 0), at(1, 0), at(1, 1), at(0, 0), at(1, 0), at(2, 2), at(0, 0), at(0, 0), at(2, 3), at(1, 0), at(1, 0));
      const r = (v) => mem.read(v).x;
      for (const [got, want] of [[r(at(0, 0)), value(5) * value(7)], [r(at(1, 1)), value(5) * value(7)], [r(at(2, 2)), value(5) * value(5)], [r(at(2, 3)), value(7) * value(7)]]) {
        checks++;
        if ((got - want * Rinv) % p !== 0n || got >= 2n * p) failures.push(`aliasing: ${hex(got)}`);
      }
      // long dependent chains in the four lanes: x_l = x_l * y_l / R, k times
      const k = LONG_TESTS ? 2000 : 200;
      const start = [0, 1, 2, 3].map((l) => [value(3 * l + 1), value(5 * l + 2)]);
      for (let l = 0; l < 4; l++) {
        mem.write(at(0, l), start[l][0]);
        mem.write(at(1, l), start[l][1]);
      }
      exports.mulFmaChain(at(0, 0), at(1, 0), k);
      for (let l = 0; l < 4; l++) {
        let [x, y] = start[l];
        for (let i = 0; i < k; i++) x = (x * y * Rinv) % p;
        const { x: got, normalized } = mem.read(at(0, l));
        checks++;
        if (!normalized || got >= 2n * p || (got - x) % p !== 0n) failures.push(`chain lane ${l}: ${hex(got)} != ${hex(x)} mod p`);
      }
      expect(checks).toBe(6 * Math.ceil(pairs.length / 4) + 4 + 4); // four lanes and two per quad, aliasing, chains
      expect(failures).toEqual([]);
    });
  }
});

// The FMA build's field module: every other kernel (add, sub, neg, reduce, eq, inversion, square root, bytes, batch
// inversion, pow) generated over the FMA layout, and mul / sqr / mul2 / mul4 through the same equivalence runner
// as the integer kernels (test/harness.js), on the matrix plus the FMA limb sizes' edges.
describe.runIf(SUPPORT === 'fused')('FMA build field module: every kernel vs BigInt', () => {
  const primes = fmaPrimes().filter(({ p }) => p > 3n); // p = 3 has no room for the edge values' spread
  it(`${primes.length} primes, each kernel export against BigInt with edge-biased inputs in [0, 2p)`, { timeout: 600_000 }, async () => {
    for (const { name, p } of primes) {
      const inst = await instantiateField({ p, kernel: 'fma' });
      expect(inst.params).toMatchObject({ kernel: 'fma', limbBytes: 8, w: deriveFmaParams(p).W });
      const { failures, checks } = runFieldEquivalence(inst, { rng: makeRng(`fma build ${name}`), label: `${name}, FMA build`, pairs: LONG_TESTS ? Infinity : 200 });
      expect(failures, name).toEqual([]);
      expect(checks, name).toBeGreaterThan(500);
      // mul2 and mul4 against mul, lane by lane, with aliasing across lanes
      const { field } = inst;
      const E = field.elementBytes;
      const rng = makeRng(`fma build lanes ${name}`);
      const base = field.alloc(12);
      const at = (i) => base + i * E;
      const values = edgeValues(p, inst.params.w, inst.params.n, { bound: 2n * p, rng }).slice(0, 8);
      while (values.length < 8) values.push(BigInt(values.length));
      const raw = (i, x) => field.writeLimbs(at(i), x);
      values.forEach((x, i) => raw(i, x));
      const rInv = modInv(inst.params.R % p, p);
      field.mul4(at(8), at(0), at(1), at(9), at(2), at(3), at(10), at(4), at(5), at(11), at(6), at(7));
      field.mul2(at(0), at(0), at(7), at(7), at(1), at(0));
      const want = (x, y) => (x * y * rInv) % p;
      const got = (i) => field.readLimbs(at(i));
      for (const [i, x, y] of [[8, 0, 1], [9, 2, 3], [10, 4, 5], [11, 6, 7]]) {
        expect(got(i) < 2n * p && got(i) % p === want(values[x], values[y]), `${name} mul4 lane ${i - 8}`).toBe(true);
      }
      expect(got(0) % p, `${name} mul2 lane 0 (out aliases x)`).toBe(want(values[0], values[7]));
      expect(got(7) % p, `${name} mul2 lane 1 (out is lane 0's y)`).toBe(want(values[1], values[0]));
    }
  });
});
