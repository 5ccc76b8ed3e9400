// The WGSL field kernels (codegen/kernels/wgsl-field.js) on WebGPU (Dawn on SwiftShader, test/gpu.js), every fp_
// function against plain BigInt math (src/bigint/field.js), on a matrix of primes x limb sizes w = 12..16 with
// edge-biased inputs: congruence, the documented output range, and at most w bits in every limb. One shader module
// per (prime, w, shape of fp_mul), all vectors in one dispatch. Also deriveFieldParams({ kernel: 'gpu' }) and a
// worst-case bound walk over each generated fp_mul text (no u32 can wrap).
//
// SwiftShader compiles a loop-shape module in 0.1-1 s and an unrolled one of BLS12-381 at w = 16 in 10 s: CI runs a
// smaller matrix (about 20 s on 2 cores: every w for BN254 and BLS12-381, one w each elsewhere, rotating; the
// unrolled and product shapes on a few); WASMSM_LONG_TESTS=1 runs every prime at every w in every shape (about
// 10 minutes). No Dawn or no adapter fails the suite.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  deriveFieldParams, describeFieldParams, MIN_GPU_LIMB_BITS, MAX_GPU_LIMB_BITS,
} from '../codegen/params/field.js';
import { fieldWgsl, karatsubaFits, MUL_SHAPES } from '../codegen/kernels/wgsl-field.js';
import { wgslHeader } from '../codegen/wgsl/index.js';
import { mod, modInv, bitLength } from '../src/bigint/field.js';
import { LONG_TESTS, curvePrimes, makeRng, edgeValues, randomPrime, prevPrime, nextPrime, limbCount, hex } from './harness.js';
import { testDevice, runCompute, skipGpuSuite } from './gpu.js';

const GPU_LIMB_SIZES = [12, 13, 14, 15, 16];
const U32_MAX = (1n << 32n) - 1n;

/**
 * [{ name, p, ws, unrolled, product, karatsuba }]: the primes, the limb sizes each runs at with the loop shape of
 * fp_mul (the shipped one), and the limb sizes that also run the unrolled, product-scanning and Karatsuba shapes (n
 * times more code to compile: a few in CI, all with WASMSM_LONG_TESTS).
 */
function gpuPrimeMatrix() {
  const list = [];
  const curves = curvePrimes();
  const rng = makeRng('wasmsm gpu field primes v1');
  const union = (a, b) => [...new Set([...a, ...b])].sort((u, v) => u - v);
  const add = (name, p, ws, { unrolled = [], product = [], karatsuba = product } = {}) => {
    if (LONG_TESTS) unrolled = product = karatsuba = ws;
    // (karatsuba only where its columns fit a u32: w <= 13 for the large primes)
    karatsuba = karatsuba.filter((w) => karatsubaFits(deriveFieldParams({ p, w, kernel: 'gpu' })));
    const seen = list.find((e) => e.p === p);
    if (seen) {
      Object.assign(seen, {
        ws: union(seen.ws, ws), unrolled: union(seen.unrolled, unrolled), product: union(seen.product, product), karatsuba: union(seen.karatsuba, karatsuba),
      });
    } else list.push({ name, p, ws, unrolled, product, karatsuba });
  };
  let rot = 0;
  const some = () => (LONG_TESTS ? GPU_LIMB_SIZES : [GPU_LIMB_SIZES[rot++ % GPU_LIMB_SIZES.length]]);
  for (const [name, { p }] of Object.entries(curves)) {
    // the unrolled product at w = 16 (a split in every column) for BN254 only: SwiftShader takes 10 s for BLS12-381's
    if (name === 'bn254') add(`${name}.p`, p, GPU_LIMB_SIZES, { unrolled: [13, 16], product: [13, 16], karatsuba: [12, 13] });
    else if (name === 'bls12-381') add(`${name}.p`, p, GPU_LIMB_SIZES, { unrolled: [13], product: [13], karatsuba: [13] });
    else add(`${name}.p`, p, some());
  }
  for (const bits of LONG_TESTS ? [32, 64, 100, 128, 200, 256, 384, 512] : [32, 100, 256, 512]) {
    add(`random${bits}`, randomPrime(rng, bits), some());
  }
  // adversarial, for each w: 4p just below R (the top limb nearly full) and p just above 2^((n-1) w)
  for (const w of GPU_LIMB_SIZES) {
    for (const n of LONG_TESTS ? [1, 2, 9, 24] : [2, 24]) {
      if (n * w - 2 >= 2) add(`top(n=${n},w=${w})`, prevPrime(1n << BigInt(n * w - 2)), [w], n === 2 ? { unrolled: [w], product: [w] } : {});
      if (n > 1 && (LONG_TESTS || n === 2 || w === 12 || w === 16)) add(`bottom(n=${n},w=${w})`, nextPrime(1n << BigInt((n - 1) * w)), [w]);
    }
  }
  add('p=3', 3n, LONG_TESTS ? GPU_LIMB_SIZES : [12], { product: [12] });
  // an odd limb count for the Karatsuba shape (a high half one limb longer than the low one)
  add('top(n=9,w=13)', prevPrime(1n << BigInt(9 * 13 - 2)), [13], { karatsuba: [13] });
  if (LONG_TESTS) add('p=65537', 65537n, GPU_LIMB_SIZES);
  return list;
}

const MATRIX = gpuPrimeMatrix();

// ---------------------------------------------------------------------------------------------------------
// The test entry point: per vector, inputs x, y in [0, 2p), z in [0, p), v (FP_WORDS words, any value); outputs
// the ten Fp results (fp_toWords' words in an Fp's slot) then three bools. Thread 0 also writes the constants after the last vector.

const OUTPUTS = ['fp_add', 'fp_sub', 'fp_neg', 'fp_double', 'fp_mul', 'fp_sqr', 'fp_canonical', 'fp_toMontgomery', 'fp_fromWords', 'fp_toWords'];
const FLAGS = ['fp_isZero', 'fp_eq', 'fp_ltP'];

const entryWgsl = (count) => `
@group(0) @binding(0) var<storage, read_write> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
const COUNT: u32 = ${count}u;
const IN_STRIDE: u32 = 3u * FP_N + FP_WORDS;
const OUT_STRIDE: u32 = ${OUTPUTS.length}u * FP_N + ${FLAGS.length}u;

fn load(base: u32) -> Fp {
  var r: Fp;
  for (var j = 0u; j < FP_N; j++) { r[j] = inp[base + j]; }
  return r;
}

fn store(base: u32, x: Fp) {
  var v = x;
  for (var j = 0u; j < FP_N; j++) { outp[base + j] = v[j]; }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i == 0u) {
    let c = COUNT * OUT_STRIDE;
    store(c, FP_ZERO);
    store(c + FP_N, FP_ONE);
    store(c + 2u * FP_N, FP_R2);
    outp[c + 3u * FP_N] = FP_N;
    outp[c + 3u * FP_N + 1u] = FP_W;
    outp[c + 3u * FP_N + 2u] = FP_WORDS;
  }
  if (i >= COUNT) { return; }
  let a = i * IN_STRIDE;
  let x = load(a);
  let y = load(a + FP_N);
  let z = load(a + 2u * FP_N);
  var v: array<u32, FP_WORDS>;
  for (var k = 0u; k < FP_WORDS; k++) { v[k] = inp[a + 3u * FP_N + k]; }
  let o = i * OUT_STRIDE;
  store(o, fp_add(x, y));
  store(o + FP_N, fp_sub(x, y));
  store(o + 2u * FP_N, fp_neg(x));
  store(o + 3u * FP_N, fp_double(x));
  store(o + 4u * FP_N, fp_mul(x, y));
  store(o + 5u * FP_N, fp_sqr(x));
  store(o + 6u * FP_N, fp_canonical(x));
  store(o + 7u * FP_N, fp_toMontgomery(z));
  let f = fp_fromWords(v);
  store(o + 8u * FP_N, f);
  // fp_toWords(x): FP_WORDS words (never more than FP_N) in an Fp's slot
  let tw = fp_toWords(x);
  for (var k = 0u; k < FP_WORDS; k++) { outp[o + 9u * FP_N + k] = tw[k]; }
  outp[o + 10u * FP_N] = u32(fp_isZero(x));
  outp[o + 10u * FP_N + 1u] = u32(fp_eq(x, y));
  outp[o + 10u * FP_N + 2u] = u32(fp_ltP(f));
}
`;

/** Input vectors for one (p, w): every pair of edge values (capped), pairs that are equal mod p, and words v. */
function vectors(P, rng) {
  const { p, w, n } = P;
  const words = Math.ceil(P.bytes / 4);
  const lazy = p < 64n ? Array.from({ length: Number(2n * p) }, (_, i) => BigInt(i)) : edgeValues(p, w, n, { rng, random: LONG_TESTS ? 12 : 4 });
  const canon = p < 64n ? Array.from({ length: Number(p) }, (_, i) => BigInt(i)) : edgeValues(p, w, n, { bound: p, rng, random: 2 });
  const R = 1n << BigInt(n * w);
  const top = (1n << BigInt(32 * words)) - 1n;
  const wordValues = [0n, 1n, p - 1n, p, p + 1n, 2n * p - 1n, R - 1n, R, R + 1n, top, top - p, rng.below(top), rng.below(p), (R >> 1n) + 1n]
    .filter((v) => v >= 0n && v <= top);
  const pairs = [];
  for (const x of lazy) for (const y of lazy) pairs.push([x, y]);
  const cap = LONG_TESTS ? 4096 : 512;
  const chosen = pairs.length <= cap ? pairs : rng.sample(pairs, cap);
  for (const x of lazy) chosen.push([x, x < p ? x + p : x - p], [x, x]); // x = y mod p
  return chosen.map(([x, y], i) => ({ x, y, z: canon[i % canon.length], v: wordValues[i % wordValues.length] }));
}

const toWords = (x, w, count) => {
  const mask = (1n << BigInt(w)) - 1n;
  return Array.from({ length: count }, (_, j) => Number((x >> BigInt(j * w)) & mask));
};

/** Limbs -> value, and the first limb with more than w bits (or -1). */
function readFp(words, at, n, w) {
  let value = 0n;
  let badLimb = -1;
  for (let j = n - 1; j >= 0; j--) {
    const l = BigInt(words[at + j]);
    if (l >> BigInt(w) && badLimb < 0) badLimb = j;
    value = (value << BigInt(w)) + l;
  }
  return { value, badLimb };
}

/** Run every fp_ function on the vectors; returns failure lines (at most a few per function). */
async function checkField(device, P, rng, mul, sqr = 'mul') {
  const { p, w, n } = P;
  const words = Math.ceil(P.bytes / 4);
  const R = 1n << BigInt(n * w);
  const Rinv = modInv(R % p, p);
  const vs = vectors(P, rng);
  const inStride = 3 * n + words;
  const outStride = OUTPUTS.length * n + FLAGS.length;
  const input = new Uint32Array(vs.length * inStride);
  vs.forEach(({ x, y, z, v }, i) => {
    input.set([...toWords(x, w, n), ...toWords(y, w, n), ...toWords(z, w, n), ...toWords(v, 32, words)], i * inStride);
  });
  const output = new Uint32Array(vs.length * outStride + 3 * n + 3);
  const code = fieldWgsl(P, { mul, sqr }) + entryWgsl(vs.length);
  const [, out] = await runCompute(device, code, 'main', [input, output], Math.ceil(vs.length / 64));

  const failures = [];
  const perKernel = {};
  const fail = (kernel, msg) => {
    perKernel[kernel] = (perKernel[kernel] ?? 0) + 1;
    if (perKernel[kernel] <= 3) failures.push(`${kernel} p=${hex(p)} w=${w} n=${n} mul=${mul}: ${msg}`);
  };
  const c = vs.length * outStride;
  const consts = { FP_ZERO: 0n, FP_ONE: R % p, FP_R2: (R * R) % p };
  Object.entries(consts).forEach(([name, want], k) => {
    const got = readFp(out, c + k * n, n, w).value;
    if (got !== want) fail(name, `${hex(got)}, expected ${hex(want)}`);
  });
  if (out[c + 3 * n] !== n || out[c + 3 * n + 1] !== w || out[c + 3 * n + 2] !== words) {
    fail('FP_N/FP_W/FP_WORDS', `${[...out.slice(c + 3 * n, c + 3 * n + 3)]}, expected ${[n, w, words]}`);
  }
  const mont = (x) => mod(x * Rinv, p); // the residue a raw Montgomery value stands for
  vs.forEach(({ x, y, z, v }, i) => {
    const o = i * outStride;
    const inputs = `x=${hex(x)} y=${hex(y)} z=${hex(z)} v=${hex(v)}`;
    // [name, expected residue of the raw value, upper bound (exclusive)]
    const expect = {
      fp_add: [mod(x + y, p), 2n * p],
      fp_sub: [mod(x - y, p), 2n * p],
      fp_neg: [mod(-x, p), 2n * p],
      fp_double: [mod(2n * x, p), 2n * p],
      fp_mul: [mod(x * y * Rinv, p), 2n * p],
      fp_sqr: [mod(x * x * Rinv, p), 2n * p],
      fp_canonical: [mod(x, p), p],
      fp_toMontgomery: [mod(z * R, p), 2n * p],
    };
    OUTPUTS.forEach((name, k) => {
      const { value, badLimb } = readFp(out, o + k * n, n, w);
      if (name === 'fp_fromWords') {
        const limbs = Array.from(out.slice(o + k * n, o + k * n + n), BigInt);
        const want = toWords(v, w, n).map(BigInt);
        if (v >= R) want[n - 1] |= 1n << BigInt(w); // the mark of a value >= R
        if (limbs.some((l, j) => l !== want[j])) fail(name, `${inputs}: limbs ${limbs.map(hex)}, expected ${want.map(hex)}`);
        return;
      }
      if (name === 'fp_toWords') {
        // the words of x mod p, little-endian (the canonical residue of the raw value, as fp_canonical's)
        const got = Array.from(out.slice(o + k * n, o + k * n + words), BigInt).reduce((acc, word, j) => acc | (word << BigInt(32 * j)), 0n);
        if (got !== mod(x, p)) fail(name, `${inputs}: ${hex(got)}, expected ${hex(mod(x, p))}`);
        return;
      }
      const [want, bound] = expect[name];
      if (badLimb >= 0) fail(name, `${inputs}: limb ${badLimb} has more than ${w} bits`);
      else if (value >= bound) fail(name, `${inputs}: ${hex(value)} is not below ${bound === p ? 'p' : '2p'}`);
      else if (mod(value, p) !== want) fail(name, `${inputs}: ${hex(value)} (residue ${hex(mont(value))}), expected ${hex(want)} (mod p)`);
    });
    const flags = { fp_isZero: mod(x, p) === 0n, fp_eq: mod(x - y, p) === 0n, fp_ltP: v < p };
    FLAGS.forEach((name, k) => {
      const got = out[o + OUTPUTS.length * n + k];
      if (got !== Number(flags[name])) fail(name, `${inputs}: ${got}, expected ${Number(flags[name])}`);
    });
  });
  const counted = Object.entries(perKernel).map(([k, c]) => `${k}: ${c}`).join(', ');
  if (counted) failures.push(`failures per kernel: ${counted}`);
  return { failures, vectors: vs.length };
}

// skipped only when asked (WASMSM_GPU_SUITES=skip: .ci/run's second Node); a missing Dawn or adapter fails
describe.skipIf(skipGpuSuite('gpu-field.test.js'))('WGSL field kernels on WebGPU (SwiftShader)', () => {
  let device;
  beforeAll(async () => {
    device = await testDevice(); // throws without Dawn or an adapter: the suite fails, never skips
  });
  afterAll(() => device?.destroy());

  for (const { name, p, ws, unrolled, product, karatsuba } of MATRIX) {
    for (const w of ws) {
      const shapes = { unrolled, product, karatsuba };
      for (const mul of ['loop', ...Object.keys(shapes).filter((shape) => shapes[shape].includes(w))]) {
        // the product-scanning module carries fp_sqr's own product scanning too
        const sqr = mul === 'product' ? 'scanning' : 'mul';
        it(`${name} (${bitLength(p)} bits), w = ${w}, mul ${mul}${sqr === 'mul' ? '' : `, sqr ${sqr}`}`, async () => {
          const P = deriveFieldParams({ p, w, kernel: 'gpu' });
          const { failures, vectors: count } = await checkField(device, P, makeRng(`gpu field ${p} ${w}`), mul, sqr);
          expect(failures, `${count} vectors`).toEqual([]);
        });
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------------------
// Params and bounds, without a GPU.

/**
 * Upper bounds of every u32 value in the generated fp_mul (or `name`: fp_sqr), by walking its statements: inputs x_j, y_j at their
 * largest (limbs of a value below 2p), every +, *, & mask and >> k on bounds. Returns the largest bound seen
 * and the statements whose value could pass 2^32 - 1.
 */
function walkMulText(text, P, name = 'fp_mul') {
  const body = text.slice(text.indexOf(`fn ${name}(`));
  const fnText = body.slice(0, body.indexOf('\n}\n'));
  const { n, w, p } = P;
  const M = (1n << BigInt(w)) - 1n;
  const topMax = (2n * p - 1n) >> BigInt((n - 1) * w);
  const env = new Map();
  for (let j = 0; j < n; j++) {
    env.set(`x${j}`, j === n - 1 && topMax < M ? topMax : M);
    env.set(`y${j}`, j === n - 1 && topMax < M ? topMax : M);
  }
  let max = 0n;
  const problems = [];
  const literal = (s) => BigInt(s.replace(/u$/, ''));
  // expressions are sums of products of atoms, optionally parenthesised and masked/shifted as a whole
  const evalExpr = (e) => {
    e = e.trim();
    let m;
    if ((m = e.match(/^\((.*)\)$/)) && balanced(m[1])) return evalExpr(m[1]);
    const plus = splitTop(e, '+');
    if (plus.length > 1) return plus.reduce((s, t) => s + evalExpr(t), 0n);
    if ((m = splitTop(e, '&')).length === 2) {
      const a = evalExpr(m[0]);
      const b = evalExpr(m[1]);
      return a < b ? a : b;
    }
    if ((m = splitTop(e, '>>')).length === 2) return evalExpr(m[0]) >> evalExpr(m[1]);
    const times = splitTop(e, '*');
    if (times.length > 1) return times.reduce((s, t) => s * evalExpr(t), 1n);
    if (/^(0x[0-9a-f]+|\d+)u$/.test(e)) return literal(e);
    if (env.has(e)) return env.get(e);
    throw new Error(`walkMulText: cannot read ${JSON.stringify(e)}`);
  };
  const statements = (lines) => lines.flatMap((raw) => raw.replace(/\/\/.*$/, '').trim().split(';').map((x) => x.trim()).filter(Boolean));
  const run = (stmts) => {
    for (const stmt of stmts) {
      let m;
      if ((m = stmt.match(/^let (x|y)(\d+) = /))) continue; // input bounds set above
      if (stmt === 'let xi = x[i]') {
        env.set('xi', M); // the loop shape's x_i: at most a full limb
        continue;
      }
      if (/^var \w+: u32$/.test(stmt) || stmt.startsWith('fn ')) continue; // declarations
      if ((m = stmt.match(/^let cross_(\d+) = (.*)$/))) {
        // exactly z1_k - z0_k - z2_k (z0_k only where x_lo y_lo has a column k: k <= 2h - 2)
        const k = Number(m[1]);
        if (m[2] !== `z1_${k}${k <= 2 * h - 2 ? ` - z0_${k}` : ''} - z2_${k}`) problems.push(`${stmt}: not the cross terms z1 - z0 - z2`);
        const b = crossBound(k);
        if (b > U32_MAX) problems.push(`${stmt}: can reach ${hex(b)}`);
        env.set(`cross_${m[1]}`, b);
        continue;
      }
      if ((m = stmt.match(/^(?:var |let )?(\w+)(?:: u32)? = (.*)$/))) {
        const b = evalExpr(m[2]);
        if (b > max) max = b;
        if (b > U32_MAX) problems.push(`${stmt}: can reach ${hex(b)}`);
        env.set(m[1], b);
      } else {
        throw new Error(`walkMulText: unexpected statement ${JSON.stringify(stmt)}`);
      }
    }
  };
  // the Karatsuba shape: cross_k = z1_k - z0_k - z2_k is the column's cross terms sum_i (x_lo,i y_hi,k-i + x_hi,i
  // y_lo,k-i) (z1 = z0 + z2 + cross, so it never wraps), bounded here from the limbs (h from xs0 = x0 + x_h)
  const h = Number(fnText.match(/let xs0 = x0 \+ x(\d+);/)?.[1] ?? 0);
  const crossBound = (k) => {
    const lo = (i) => (i < h ? env.get(`x${i}`) : 0n);
    const hi = (i) => (h + i < n ? env.get(`x${h + i}`) : 0n);
    let b = 0n;
    for (let i = 0; i <= k; i++) b += lo(i) * hi(k - i) + hi(i) * lo(k - i);
    return b;
  };
  const lines = fnText.split('\n').slice(1);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k].trim();
    if (line.startsWith('return')) break; // the r limbs are all computed by then
    const loop = line.match(/^for \(var i = 0u; i < FP_N; i\+\+\) \{$/);
    if (loop) {
      // the loop shape: its body n times, on the bounds the previous iteration left
      const end = lines.findIndex((l, e) => e > k && l.trim() === '}');
      const body = statements(lines.slice(k + 1, end));
      for (let i = 0; i < n; i++) run(body);
      k = end;
      continue;
    }
    run(statements([line]));
  }
  // q is masked where it is computed; the last r limb is the output's top limb
  return { max, problems, top: env.get(`r${n - 1}`) };
}

function balanced(s) {
  let d = 0;
  for (const ch of s) {
    if (ch === '(') d++;
    if (ch === ')' && --d < 0) return false;
  }
  return d === 0;
}

/** Split e at top-level occurrences of op (outside parentheses). */
function splitTop(e, op) {
  const parts = [];
  let d = 0;
  let start = 0;
  for (let i = 0; i < e.length; i++) {
    if (e[i] === '(') d++;
    else if (e[i] === ')') d--;
    else if (d === 0 && e.startsWith(op, i)) {
      parts.push(e.slice(start, i));
      i += op.length - 1;
      start = i + 1;
    }
  }
  parts.push(e.slice(start));
  return parts;
}

describe("deriveFieldParams({ kernel: 'gpu' })", () => {
  const curves = curvePrimes();
  const primes = [...Object.values(curves).flatMap(({ p, r }) => [p, r]), ...MATRIX.map((e) => e.p)];

  it('exports the gpu limb range 12..16 and refuses other w', () => {
    expect([MIN_GPU_LIMB_BITS, MAX_GPU_LIMB_BITS]).toEqual([12, 16]);
    for (const w of [11, 17, 26, 12.5, '14']) expect(() => deriveFieldParams({ p: curves.bn254.p, w, kernel: 'gpu' })).toThrow(RangeError);
    expect(() => deriveFieldParams({ p: curves.bn254.p, w: 14, kernel: 'gpu', reduction: 'crandall' })).toThrow(RangeError);
  });

  it('n minimal with 4p < R, mu = -p^-1 mod 2^w, u32 limb words, constants from first principles', () => {
    for (const p of primes) {
      for (const w of GPU_LIMB_SIZES) {
        const P = deriveFieldParams({ p, w, kernel: 'gpu' });
        const msg = `p=${hex(p)} w=${w}`;
        expect(P.n, msg).toBe(limbCount(p, w));
        expect(P.limbBytes, msg).toBe(4);
        expect(P.kernel).toBe('gpu');
        expect(mod(p * BigInt(P.mu) + 1n, 1n << BigInt(w)), msg).toBe(0n);
        expect(P.R, msg).toBe(1n << BigInt(P.n * w));
        expect(P.R2, msg).toBe((P.R * P.R) % p);
        expect(P.carryPlan.accumulatorBits, msg).toBe(32);
      }
    }
    // the integer kernels keep their 64-bit plans
    expect(deriveFieldParams({ p: curves.bn254.p, w: 30 }).carryPlan.accumulatorBits).toBe(64);
    expect(describeFieldParams(deriveFieldParams({ p: curves.bn254.p, w: 13, kernel: 'gpu' })).join('\n')).toContain('u32 accumulators');
  });

  it('the carry plan keeps every accumulator below 2^32, and the generated fp_mul text proves it (bound walk)', () => {
    const extra = GPU_LIMB_SIZES.flatMap((w) => [prevPrime(1n << BigInt(24 * w - 2)), prevPrime(1n << BigInt(2 * w - 2))]);
    for (const p of [...new Set([...primes, ...extra])]) {
      for (const w of GPU_LIMB_SIZES) {
        const P = deriveFieldParams({ p, w, kernel: 'gpu' });
        const msg = `p=${hex(p)} w=${w}`;
        expect(P.carryPlan.maxAccumulatorBits <= 32, msg).toBe(true);
        for (const b of P.carryPlan.accumulatorBounds) expect(b <= U32_MAX, msg).toBe(true);
        for (const mul of MUL_SHAPES) {
          if (mul === 'karatsuba' && !karatsubaFits(P)) {
            expect(() => fieldWgsl(P, { mul }), `${msg} karatsuba`).toThrow(/karatsuba/);
            continue;
          }
          const walk = walkMulText(fieldWgsl(P, { mul }), P);
          expect(walk.problems, `${msg} mul=${mul}`).toEqual([]);
          expect(walk.max <= U32_MAX, `${msg} mul=${mul}`).toBe(true);
        }
        const sqr = walkMulText(fieldWgsl(P, { mul: 'loop', sqr: 'scanning' }), P, 'fp_sqr');
        expect(sqr.problems, `${msg} sqr=scanning`).toEqual([]);
      }
    }
  });

  it('the bound walk has teeth: without the carry splits, the w = 16 product overflows', () => {
    const P = deriveFieldParams({ p: curves['bls12-381'].p, w: 16, kernel: 'gpu' });
    for (const mul of MUL_SHAPES.filter((shape) => shape !== 'karatsuba')) {
      const stripped = fieldWgsl(P, { mul }).replace(/\bt = t & 0xffffu;/g, '');
      expect(walkMulText(stripped, P).problems.length, mul).toBeGreaterThan(0);
    }
    const sqrStripped = fieldWgsl(P, { mul: 'loop', sqr: 'scanning' }).replace(/\bt = t & 0xffffu;/g, '');
    expect(walkMulText(sqrStripped, P, 'fp_sqr').problems.length).toBeGreaterThan(0);
    // the Karatsuba shape at w = 13: its columns fit without splits, but not with the sums' limbs half as large again
    const P13 = deriveFieldParams({ p: curves['bls12-381'].p, w: 13, kernel: 'gpu' });
    const karatsuba = fieldWgsl(P13, { mul: 'karatsuba' });
    expect(walkMulText(karatsuba, P13).problems).toEqual([]);
    const wider = karatsuba.replace(/let (xs\d+) = (x\d+) \+ (x\d+);/g, 'let $1 = $2 + $3 + $3;');
    expect(wider).not.toBe(karatsuba);
    expect(walkMulText(wider, P13).problems.length).toBeGreaterThan(0);
    const noZ0 = karatsuba.replace('let cross_10 = z1_10 - z0_10 - z2_10;', 'let cross_10 = z1_10 - z2_10;');
    expect(noZ0).not.toBe(karatsuba);
    expect(walkMulText(noZ0, P13).problems).toEqual(['let cross_10 = z1_10 - z2_10: not the cross terms z1 - z0 - z2']);
  });

  it('the text is deterministic and carries its notes and header', () => {
    const P = deriveFieldParams({ p: curves['bls12-381'].p, w: 16, kernel: 'gpu' });
    const a = fieldWgsl(P);
    expect(fieldWgsl(deriveFieldParams({ p: curves['bls12-381'].p, w: 16, kernel: 'gpu' }))).toBe(a);
    expect(a).toContain('// column 1: S_0 = S_1 + x_1*y_1');
    for (const name of ['FP_N', 'FP_W', 'FP_WORDS', 'FP_ZERO', 'FP_ONE', 'FP_R2']) expect(a).toMatch(new RegExp(`const ${name}: `));
    for (const f of ['add', 'sub', 'neg', 'double', 'mul', 'sqr', 'canonical', 'isZero', 'eq', 'fromWords', 'ltP', 'toMontgomery']) {
      expect(a).toMatch(new RegExp(`\\nfn fp_${f}\\(`));
    }
    const h = wgslHeader({ title: 'BLS12-381 field', generator: 'codegen/kernels/wgsl-field.js', params: P });
    expect(h).toContain('do not edit');
    expect(h).toContain(P.carryPlan.summary);
    expect(() => fieldWgsl(deriveFieldParams({ p: curves.bn254.p, w: 30 }))).toThrow(RangeError);
  });
});
