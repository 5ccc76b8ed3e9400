// deriveFieldParams({ p, w }): everything the field kernels need for one prime and limb size, as one
// frozen object. The generated module prints it in its header.

import { bitLength, isProbablePrime, modInverse, toBigInt } from './number-theory.js';
import { planMontgomeryCarries } from './carry-plan.js';
import { crandallConstants } from './crandall.js';

export const MIN_LIMB_BITS = 26;
export const MAX_LIMB_BITS = 32;
/** The WGSL kernels' limb sizes (kernel 'gpu'): u32 words and u32 accumulators, so every limb product fits 32 bits. */
export const MIN_GPU_LIMB_BITS = 12;
export const MAX_GPU_LIMB_BITS = 16;
export const DEFAULT_GPU_LIMB_BITS = 16;

/** Limbs of x in radix 2^w, least significant first, as BigInts. */
export function toLimbs(x, w, n) {
  const mask = (1n << BigInt(w)) - 1n;
  const limbs = [];
  for (let i = 0; i < n; i++) limbs.push((x >> BigInt(i * w)) & mask);
  if (x >> BigInt(n * w)) throw new RangeError(`${x} does not fit in ${n} limbs of ${w} bits`);
  return limbs;
}

export function fromLimbs(limbs, w) {
  return limbs.reduceRight((acc, l) => (acc << BigInt(w)) + BigInt(l), 0n);
}

/**
 * The FMA kernels' limb shape for a prime of `bits` bits: W = 51 (three f64 ops per limb-product split) unless
 * W = 52 saves a limb; n the least count with 4p < R = 2^(nW), the same lazy-reduction condition as below.
 */
export function fmaLimbShape(bits) {
  const limbsFor = (W) => Math.ceil((bits + 2) / W);
  const w = limbsFor(52) < limbsFor(51) ? 52 : 51;
  return { w, n: limbsFor(w) };
}

/** The wide kernels' limb count for a prime of `bits` bits: the least n with 4p < R = 2^(64n). */
export const wideLimbCount = (bits) => Math.ceil((bits + 2) / 64);

/**
 * @param {{ p: bigint | string, w?: number, checkPrime?: boolean, kernel?: 'int' | 'fma' | 'wide' | 'gpu' }} options
 * kernel 'int' (default): limbs of w = 26..32 bits in u32 words, for the integer kernels (codegen/kernels/field-mul.js).
 * kernel 'gpu': limbs of w = 12..16 bits (default 16) in u32 words, for the WGSL kernels (codegen/kernels/wgsl-field.js);
 * WGSL has no 64-bit integers, so the carry plan is proven for u32 accumulators (with w <= 16 a limb product fits).
 * kernel 'fma': limbs of w = 51 or 52 bits (fmaLimbShape) in u64 words, for the relaxed-SIMD FMA product
 * (codegen/kernels/field-mul-fma.js); w is then derived, not given. The other kernels take either.
 * kernel 'wide': limbs of w = 64 bits in u64 words, for the wide-arithmetic product (codegen/kernels/field-mul-wide.js).
 * reduction 'montgomery' (default) or 'crandall' (kernel 'int' only): for p = 2^k - c with small c, the product
 * is Crandall's (codegen/kernels/field-mul-crandall.js) and R = 1, so "Montgomery form" is the plain value and
 * every constant, conversion and the inversion's table, all derived from R, stay consistent.
 * Lazy-reduction contract: every kernel accepts and returns values in [0, 2p) unless its name says
 * otherwise. n is the least limb count with 4p < R = 2^(n*w), which makes a Montgomery product of two
 * values in [0, 2p) land in [0, 2p) for every p of this bit length, including primes just below 2^(n*w - 2).
 */
export function deriveFieldParams({ p, w, checkPrime = true, kernel = 'int', reduction = 'montgomery' } = {}) {
  if (typeof p !== 'bigint') {
    if (typeof p === 'string') p = toBigInt(p, 'p');
    else throw new TypeError(`p must be a BigInt (or a decimal/0x-hex string), got ${typeof p}`);
  }
  if (kernel !== 'int' && kernel !== 'fma' && kernel !== 'wide' && kernel !== 'gpu') {
    throw new RangeError(`kernel must be 'int', 'fma', 'wide' or 'gpu', got ${JSON.stringify(kernel)}`);
  }
  w ??= kernel === 'gpu' ? DEFAULT_GPU_LIMB_BITS : 30;
  if (kernel === 'int' && (!Number.isInteger(w) || w < MIN_LIMB_BITS || w > MAX_LIMB_BITS)) {
    throw new RangeError(`limb size w must be an integer in ${MIN_LIMB_BITS}..${MAX_LIMB_BITS}, got ${w}`);
  }
  if (kernel === 'gpu' && (!Number.isInteger(w) || w < MIN_GPU_LIMB_BITS || w > MAX_GPU_LIMB_BITS)) {
    throw new RangeError(`limb size w of kernel 'gpu' must be an integer in ${MIN_GPU_LIMB_BITS}..${MAX_GPU_LIMB_BITS}, got ${w}`);
  }
  if (kernel === 'gpu' && reduction !== 'montgomery') throw new RangeError(`kernel 'gpu' has only reduction 'montgomery', got ${JSON.stringify(reduction)}`);
  if (reduction !== 'montgomery' && reduction !== 'crandall') {
    throw new RangeError(`reduction must be 'montgomery' or 'crandall', got ${JSON.stringify(reduction)}`);
  }
  if (reduction === 'crandall' && kernel === 'wide') throw new RangeError(`reduction 'crandall' needs kernel 'int' or 'fma', got ${JSON.stringify(kernel)}`);
  if (p < 3n) throw new RangeError(`p must be an odd prime >= 3, got ${p}`);
  if ((p & 1n) === 0n) throw new RangeError(`p must be odd, got an even number (${p})`);
  if (checkPrime && !isProbablePrime(p)) throw new RangeError(`p is not prime: ${p}`);

  const bits = bitLength(p);
  if (kernel === 'fma') return deriveFmaFieldParams(p, bits, reduction);
  if (kernel === 'wide') {
    return Object.freeze({ ...limbShapeParams(p, bits, 64, wideLimbCount(bits), 'wide'), mu: mu(p, 64n) });
  }
  const n = Math.ceil((bits + 2) / w);
  const W = BigInt(w);
  const limbMax = (1n << W) - 1n;
  const twoP = 2n * p;
  const pLimbs = toLimbs(p, w, n);
  const twoPLimbs = toLimbs(twoP, w, n);
  // Inputs are below 2p, so the top limb is bounded by that of 2p - 1.
  const topLimbMax = (twoP - 1n) >> BigInt((n - 1) * w);
  const yMax = pLimbs.map((_, j) => (j === n - 1 && topLimbMax < limbMax ? topLimbMax : limbMax));
  const accumulatorBits = kernel === 'gpu' ? 32 : 64;
  const carryPlan = planMontgomeryCarries({ n, w, xMax: limbMax, yMax, pLimbs, accumulatorBits });

  const shape = limbShapeParams(p, bits, w, n, kernel);
  if (reduction === 'crandall') {
    // the kernel is the pairs shape's columns: w <= 31 (signed pair products), n <= 16 (straight-line code)
    const crandall = w <= 31 && n <= 16 ? crandallConstants(shape) : null;
    if (!crandall) throw new RangeError(`reduction 'crandall' needs p = 2^k - c with a small c, w <= 31 and n <= 16 limbs (p = 0x${p.toString(16)}, w = ${w}, n = ${n})`);
    return Object.freeze({ ...shape, R: 1n, R2: 1n, one: 1n, reduction, crandall, carryPlan });
  }
  return Object.freeze({ ...shape, reduction, mu: Number(mu(p, W)), carryPlan });
}

function deriveFmaFieldParams(p, bits, reduction) {
  const { w, n } = fmaLimbShape(bits);
  const shape = {
    ...limbShapeParams(p, bits, w, n, 'fma'),
    W: w, // the FMA kernel's name for w
    splitOps: w <= 51 ? 3 : 4, // f64 ops per limb-product split (codegen/kernels/field-mul-fma.js)
  };
  if (reduction === 'crandall') {
    // the kernel (codegen/kernels/field-mul-fma-crandall.js) proves its bounds as it is generated, or refuses p
    const c = (1n << BigInt(bits)) - p;
    if (c >= 1n << 20n) throw new RangeError(`reduction 'crandall' needs p = 2^k - c with a small c (p = 0x${p.toString(16)})`);
    return Object.freeze({ ...shape, R: 1n, R2: 1n, one: 1n, reduction, crandall: Object.freeze({ k: bits, c }) });
  }
  return Object.freeze({ ...shape, reduction, mu: mu(p, BigInt(w)) /* a BigInt: w > 32 */ });
}

/** -p^-1 mod 2^w */
const mu = (p, W) => (1n << W) - modInverse(p % (1n << W), 1n << W);

/** What every kernel's params hold for n limbs of w bits: u32 limb words for 'int' and 'gpu', u64 for 'fma' and 'wide'. */
function limbShapeParams(p, bits, w, n, kernel) {
  const R = 1n << BigInt(n * w);
  const limbBytes = kernel === 'int' || kernel === 'gpu' ? 4 : 8;
  return {
    p,
    w,
    n,
    bits,
    bytes: Math.ceil(bits / 8),
    kernel,
    limbBytes,
    elementBytes: limbBytes * n,
    R,
    R2: (R * R) % p,
    one: R % p, // 1 in Montgomery form
    pLimbs: Object.freeze(toLimbs(p, w, n)),
    twoPLimbs: Object.freeze(toLimbs(2n * p, w, n)),
    limbMax: (1n << BigInt(w)) - 1n,
    lazy: Object.freeze({ bound: '2p', condition: '4p < R', holds: 4n * p < R }),
  };
}

/** The parameters as printable lines, for module headers and the CLI. */
export function describeFieldParams(params) {
  const hex = (x) => '0x' + x.toString(16);
  if (params.reduction === 'crandall') {
    const { k, c } = params.crandall;
    const j0 = params.kernel === 'fma' ? params.n : params.crandall.j0; // the limb boundary the product folds at first
    return [
      `p = ${hex(params.p)} = 2^${k} - ${c} (${params.bits} bits)`,
      `w = ${params.w}, n = ${params.n}, lazy range [0, 2p) since 4p < 2^${params.n * params.w}`,
      `pseudo-Mersenne (Crandall) reduction, R = 1 (no Montgomery factor): 2^${j0 * params.w} = 0x${(c << BigInt(j0 * params.w - k)).toString(16)} and 2^${k} = ${c} (mod p)`,
      ...(params.kernel === 'fma' ? [`FMA product: limbs split by f64 fused multiply-add (${params.splitOps} ops per limb product), columns in i64x2`] : []),
    ];
  }
  return [
    `p = ${hex(params.p)} (${params.bits} bits)`,
    `w = ${params.w}, n = ${params.n}, R = 2^${params.n * params.w}, lazy range [0, 2p) since 4p < R`,
    `mu = -p^-1 mod 2^w = ${params.mu}`,
    `R^2 mod p = ${hex(params.R2)}`,
    {
      fma: `FMA product: limbs split by f64 fused multiply-add (${params.splitOps} ops per limb product), columns in i64x2`,
      wide: 'wide product: i64.mul_wide_u and i64.add128 (CIOS), bounds proven by codegen/kernels/field-mul-wide.js',
    }[params.kernel] ?? `carry plan (${params.kernel === 'gpu' ? 'CIOS, u32 accumulators' : 'operand-scanning shapes'}): ${params.carryPlan.summary}`,
  ];
}
