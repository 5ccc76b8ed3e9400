// F_p2 kernels (codegen/kernels/field2.js) against plain BigInt math, on the prime matrix x every limb size
// w in 26..32, with two non-residues per prime (a negative and a positive one: beta = -1 where it applies,
// so both the plain path and the addition chains for |beta| > 1 run). Inputs are raw limbs anywhere in the lazy
// range [0, 2p) per component, biased to the edges; every output is checked for its value, its documented
// range and limb widths. The oracle is written here, not taken from codegen/.

import { describe, it, expect } from 'vitest';
import { deriveFieldParams } from '../codegen/params/field.js';
import { buildFieldModule } from '../codegen/modules/field-module.js';
import { fp2Kernels } from '../codegen/kernels/field2.js';
import { compileWat } from '../codegen/compile.js';
import { instantiate } from '../src/runtime/loader.js';
import { mod, modInv, modPow } from '../src/bigint/field.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { LIMB_SIZES, LONG_TESTS, primeMatrix, makeRng, edgeValues, hex } from './harness.js';

const MATRIX = primeMatrix().filter((e) => e.p > 3n);

const isNonResidue = (b, p) => mod(b, p) !== 0n && modPow(mod(b, p), (p - 1n) / 2n, p) === p - 1n;

/** The least |beta| <= 16 non-residue of each sign (p = 3 mod 4 gives beta = -1). */
function nonResidues(p) {
  const out = [];
  for (const sign of [-1n, 1n]) {
    for (let k = 1n; k <= 16n; k++) {
      if (isNonResidue(sign * k, p)) {
        out.push(sign * k);
        break;
      }
    }
  }
  return out;
}

/** The F_p2 kernels over the integer build's base field (limbs of w bits), or with kernel 'fma' the FMA build's. */
async function instantiateFp2(p, w, beta, { kernel = 'int' } = {}) {
  const params = deriveFieldParams(kernel === 'fma' ? { p, kernel } : { p, w });
  const { module, layout, f } = buildFieldModule(params, { prefix: 'fp' });
  // the FMA build's F_p2 products batch their independent base products (fp_mul2 / fp_mul4), as its curve module does
  for (const fn of fp2Kernels(params, { fp: f, nonResidue: beta, batched: kernel === 'fma' })) module.add(fn);
  const bytes = await compileWat(module.render(), `fp2-${params.bits}-w${params.w}.wat`, { relaxedSimd: kernel === 'fma' });
  const { exports, memory } = await instantiate(await WebAssembly.compile(bytes), { minPages: layout.minPages + 1 });
  return { params, exports, memory, heapBase: exports.fp_heapBase.value };
}

/** The reference: F_p2 = F_p[u] / (u^2 - beta) on [c0, c1] BigInt pairs. */
function oracle(p, beta) {
  const m = (x) => mod(x, p);
  return {
    mul: ([a0, a1], [b0, b1]) => [m(a0 * b0 + beta * a1 * b1), m(a0 * b1 + a1 * b0)],
    add: ([a0, a1], [b0, b1]) => [m(a0 + b0), m(a1 + b1)],
    sub: ([a0, a1], [b0, b1]) => [m(a0 - b0), m(a1 - b1)],
    neg: ([a0, a1]) => [m(-a0), m(-a1)],
    inv: ([a0, a1]) => {
      const norm = m(a0 * a0 - beta * a1 * a1);
      if (norm === 0n) return [0n, 0n];
      const ni = modInv(norm, p);
      return [m(a0 * ni), m(-a1 * ni)];
    },
  };
}

function runFp2(inst, beta, rng) {
  const { params, exports: ex, memory, heapBase } = inst;
  const { p, n, w, elementBytes: E, bytes: B } = params;
  const R = 1n << BigInt(n * w);
  const Rinv = modInv(R % p, p);
  const F = oracle(p, beta);
  const W = BigInt(w);
  const [x, y, out, buf] = [heapBase, heapBase + 2 * E, heapBase + 4 * E, heapBase + 6 * E];
  // limbs in u32 words (integer build) or u64 words (FMA build), E / n bytes each
  const words = (ptr) => (E / n === 8 ? new BigUint64Array(memory.buffer, ptr, n) : new Uint32Array(memory.buffer, ptr, n));
  const word = E / n === 8 ? (v) => v : Number;
  const writeRaw = (ptr, v) => {
    const a = words(ptr);
    for (let j = 0; j < n; j++, v >>= W) a[j] = word(v & ((1n << W) - 1n));
  };
  const readRaw = (ptr) => {
    const a = words(ptr);
    let v = 0n;
    let wide = false;
    for (let j = n - 1; j >= 0; j--) {
      if (BigInt(a[j]) >> W) wide = true;
      v = (v << W) + BigInt(a[j]);
    }
    return { v, wide };
  };
  const write2 = (ptr, [c0, c1]) => {
    writeRaw(ptr, c0);
    writeRaw(ptr + E, c1);
  };
  /** The element a raw pair stands for (Montgomery form), checked for range [0, bound) and limb widths. */
  const value2 = (ptr, bound, what) => {
    const parts = [readRaw(ptr), readRaw(ptr + E)];
    for (const [i, { v, wide }] of parts.entries()) {
      if (wide) failures.push(`${what}: c${i} has a limb wider than ${w} bits`);
      if (v >= bound) failures.push(`${what}: c${i} = ${hex(v)} is not below ${bound === p ? 'p' : '2p'}`);
    }
    return parts.map(({ v }) => mod(v * Rinv, p));
  };
  const val = ([c0, c1]) => [mod(c0 * Rinv, p), mod(c1 * Rinv, p)];
  const same = (a, b) => a[0] === b[0] && a[1] === b[1];
  const failures = [];
  let checks = 0;
  const expectEq = (got, want, what) => {
    checks++;
    if (!same(got, want)) failures.push(`${what}: got [${got.map(hex)}], want [${want.map(hex)}]`);
  };

  const edges = edgeValues(p, w, n, { bound: 2n * p, rng });
  const pick = () => (rng.int(3) === 0 ? rng.below(2n * p) : rng.pick(edges));
  const inputs = [];
  for (const a of edges.slice(0, 8)) for (const b of edges.slice(0, 8)) inputs.push([a, b]);
  for (let i = 0; i < (LONG_TESTS ? 400 : 80); i++) inputs.push([pick(), pick()]);
  const pairs = inputs.map((a, i) => [a, inputs[(i * 7 + 3) % inputs.length]]);

  for (const [a, b] of pairs) {
    const tag = `p=${hex(p)} w=${w} beta=${beta} x=[${a.map(hex)}] y=[${b.map(hex)}]`;
    for (const [name, want, args] of [
      ['mul', F.mul(val(a), val(b)), 2], ['add', F.add(val(a), val(b)), 2], ['sub', F.sub(val(a), val(b)), 2],
      ['sqr', F.mul(val(a), val(a)), 1], ['neg', F.neg(val(a)), 1], ['inv', F.inv(val(a)), 1],
    ]) {
      write2(x, a);
      write2(y, b);
      ex[`fp2_${name}`](out, x, ...(args === 2 ? [y] : []));
      expectEq(value2(out, 2n * p, `${name} ${tag}`), want, `${name} ${tag}`);
      // out aliasing the first input, and for products the second
      write2(x, a);
      ex[`fp2_${name}`](x, x, ...(args === 2 ? [y] : []));
      expectEq(value2(x, 2n * p, `${name} (out = x) ${tag}`), want, `${name} (out = x) ${tag}`);
      if (args === 2) {
        write2(x, a);
        write2(y, b);
        ex[`fp2_${name}`](y, x, y);
        expectEq(value2(y, 2n * p, `${name} (out = y) ${tag}`), want, `${name} (out = y) ${tag}`);
      }
    }
    // norm (an F_p element) and conj(x) * s with s = the first component of y, also in place as batchAdd calls it
    write2(x, a);
    write2(y, b);
    ex.fp2_norm(out, x);
    const [a0, a1] = val(a);
    const { v: normRaw, wide } = readRaw(out);
    checks++;
    if (wide || normRaw >= 2n * p || mod(normRaw * Rinv, p) !== mod(a0 * a0 - beta * a1 * a1, p)) failures.push(`norm ${tag}: got ${hex(normRaw)}`);
    const s0 = val(b)[0];
    const scaled = [mod(a0 * s0, p), mod(-a1 * s0, p)];
    ex.fp2_conjScale(out, x, y);
    expectEq(value2(out, 2n * p, `conjScale ${tag}`), scaled, `conjScale ${tag}`);
    write2(out, b);
    ex.fp2_conjScale(out, x, out);
    expectEq(value2(out, 2n * p, `conjScale (s = out's c0) ${tag}`), scaled, `conjScale (s = out's c0) ${tag}`);
    write2(x, a);
    write2(y, b);
    ex.fp2_reduce(out, x);
    expectEq(value2(out, p, `reduce ${tag}`), val(a), `reduce ${tag}`);
    checks += 2;
    if (ex.fp2_isZero(x) !== (same(val(a), [0n, 0n]) ? 1 : 0)) failures.push(`isZero ${tag}`);
    if (ex.fp2_eq(x, y) !== (same(val(a), val(b)) ? 1 : 0)) failures.push(`eq ${tag}`);
    write2(y, a.map((c) => mod(c, p) + (rng.int(2) ? p : 0n)));
    checks++;
    if (ex.fp2_eq(x, y) !== 1) failures.push(`eq (other representative) ${tag}`);
    // conversions: normal form in [0, 2p) to Montgomery form and back, and bytes
    write2(x, a);
    ex.fp2_toMontgomery(out, x);
    expectEq(value2(out, 2n * p, `toMontgomery ${tag}`), [mod(a[0], p), mod(a[1], p)], `toMontgomery ${tag}`);
    ex.fp2_fromMontgomery(out, x);
    const canon = readRawPair(out);
    checks++;
    if (!same(canon, val(a))) failures.push(`fromMontgomery ${tag}: got [${canon.map(hex)}]`);
    const bytes = new Uint8Array(memory.buffer, buf, 2 * B);
    ex.fp2_toBytes(buf, out);
    const le = (o) => bytes.slice(o, o + B).reduceRight((acc, v) => (acc << 8n) + BigInt(v), 0n);
    expectEq([le(0), le(B)], val(a), `toBytes ${tag}`);
    checks++;
    if (ex.fp2_fromBytes(x, buf) !== 1 || !same(readRawPair(x), val(a))) failures.push(`fromBytes ${tag}`);
  }
  function readRawPair(ptr) {
    return [readRaw(ptr).v, readRaw(ptr + E).v];
  }
  // fromBytes rejects a component >= p (p itself, and all-ones bytes where they exceed p)
  for (const [c0, c1] of [[p, 0n], [0n, p], [(1n << BigInt(8 * B)) - 1n, 1n]]) {
    const bytes = new Uint8Array(memory.buffer, buf, 2 * B);
    for (let k = 0; k < B; k++) {
      bytes[k] = Number((c0 >> BigInt(8 * k)) & 0xffn);
      bytes[B + k] = Number((c1 >> BigInt(8 * k)) & 0xffn);
    }
    checks++;
    if (ex.fp2_fromBytes(x, buf) !== 0) failures.push(`fromBytes accepted [${hex(c0)}, ${hex(c1)}] (>= p)`);
  }
  // setOne / setZero
  ex.fp2_setOne(out);
  expectEq(value2(out, 2n * p, 'setOne'), [1n, 0n], 'setOne');
  ex.fp2_setZero(out);
  expectEq(value2(out, 2n * p, 'setZero'), [0n, 0n], 'setZero');
  // a long dependent chain: z = z * y, z = z^2 + z alternately, from edge inputs
  let z = pairs[0][0];
  let zv = val(z);
  const yv = val(pairs[1][1]);
  write2(x, z);
  write2(y, pairs[1][1]);
  for (let i = 0; i < (LONG_TESTS ? 2000 : 200); i++) {
    if (i % 2) {
      ex.fp2_mul(x, x, y);
      zv = F.mul(zv, yv);
    } else {
      ex.fp2_sqr(out, x);
      ex.fp2_add(x, out, x);
      zv = F.add(F.mul(zv, zv), zv);
    }
  }
  expectEq(value2(x, 2n * p, 'chain'), zv, `chain p=${hex(p)} w=${w} beta=${beta}`);
  return { failures: failures.slice(0, 20), checks };
}

describe('F_p2 kernels vs BigInt on the prime matrix', () => {
  // A prime = 1 mod 8 where 3, 5, 7, 11 and 13 are squares too has no non-residue of size <= 16: the kernels
  // (and deriveG2Params) do not serve it. Such primes are left out here, and only those.
  const excluded = MATRIX.filter((e) => nonResidues(e.p).length === 0);
  it(`leaves out only primes without a small non-residue (${excluded.map((e) => e.name).join(', ') || 'none'})`, () => {
    expect(excluded.length).toBeLessThan(MATRIX.length / 10);
    for (const e of excluded) for (let b = -16n; b <= 16n; b++) expect(isNonResidue(b, e.p)).toBe(false);
  });
  MATRIX.filter((e) => !excluded.includes(e)).forEach((entry, index) => {
    const betas = nonResidues(entry.p);
    describe(`${entry.group} ${entry.name} (${entry.bits} bits), beta in {${betas.join(', ')}}`, () => {
      for (const w of LIMB_SIZES) {
        // every (prime, w) with one of the two betas, alternating; both under WASMSM_LONG_TESTS
        const chosen = LONG_TESTS ? betas : [betas[(index + w) % betas.length]];
        for (const beta of chosen) {
          it(`w=${w} beta=${beta}`, async () => {
            const inst = await instantiateFp2(entry.p, w, beta);
            const { failures, checks } = runFp2(inst, beta, makeRng(`fp2.test ${entry.name} ${w} ${beta}`));
            expect(checks).toBeGreaterThan(1000);
            expect(failures).toEqual([]);
          });
        }
      }
    });
  });
});

// The FMA build's F_p2 (what its G2 runs on): the same kernels over the FMA base field (51- or 52-bit limbs in u64
// words, products by fused multiply-add; mul, sqr, norm and conjScale batched through fp_mul2 / fp_mul4). Its limb
// size follows from p, so one module per prime, with both non-residues. Needs a fused relaxed_madd (Node 22/24).
describe.runIf(relaxedFmaSupport() === 'fused')('F_p2 kernels of the FMA build vs BigInt on the prime matrix', () => {
  const primes = MATRIX.filter((e) => nonResidues(e.p).length > 0);
  it('cover the shipped base fields with G2 (BN254, BLS12-381) and most of the matrix', () => {
    const names = primes.map((e) => e.name).join(' ');
    for (const field of ['bn254.p', 'bls12-381.p']) expect(names).toContain(field);
    expect(primes.length).toBeGreaterThan(MATRIX.length * 0.9);
  });
  primes.forEach((entry) => {
    const betas = nonResidues(entry.p);
    it(`${entry.group} ${entry.name} (${entry.bits} bits), beta in {${betas.join(', ')}}`, async () => {
      for (const beta of betas) {
        const inst = await instantiateFp2(entry.p, undefined, beta, { kernel: 'fma' });
        expect(inst.params).toMatchObject({ kernel: 'fma', limbBytes: 8 });
        const { failures, checks } = runFp2(inst, beta, makeRng(`fp2.test fma ${entry.name} ${beta}`));
        expect(checks).toBeGreaterThan(1000);
        expect(failures).toEqual([]);
      }
    });
  });
});
