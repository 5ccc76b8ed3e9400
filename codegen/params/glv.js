// deriveGlvParams({ p, r, a, b, generator }): the GLV endomorphism constants of a curve y^2 = x^3 + b
// (a = 0) and everything the scalar-decomposition kernel needs, derived from the curve alone and checked
// at generation time. Kept apart from src/bigint/glv.js, which is the independent test oracle.
//
// Math (Gallant, Lambert, Vanstone 2001; the textbook version is Hankerson-Menezes-Vanstone, Guide to ECC,
// algorithms 3.74 and 3.62):
//
//   phi(x, y) = (beta * x, y), beta^3 = 1 != beta mod p, is an endomorphism of y^2 = x^3 + b. On the group
//   of order r it acts as multiplication by lambda, a root of lambda^2 + lambda + 1 = 0 mod r. Which of the
//   two roots goes with which beta is settled on the generator: lambda * G = (beta * Gx, Gy).
//
//   Decomposition: k = k0 + k1 * lambda (mod r) with |k0|, |k1| about sqrt(r). L = {(x, y) : x + y*lambda
//   = 0 mod r} is a lattice of determinant r. With a reduced basis v1 = (a1, b1), v2 = (a2, b2), oriented so
//   that det = a1*b2 - a2*b1 = +r, write (k, 0) = x1*v1 + x2*v2 over Q (Cramer):
//       x1 = k * b2 / r,   x2 = -k * b1 / r.
//   Replace x1, x2 by nearby integers c1, c2 (Babai rounding); (k0, k1) = (k, 0) - c1*v1 - c2*v2, i.e.
//       k0 = k - c1*a1 - c2*a2,   k1 = -c1*b1 - c2*b2,
//   which is congruent to (k, 0) modulo L, so k0 + k1*lambda = k (mod r), and
//       (k0, k1) = (x1 - c1)*v1 + (x2 - c2)*v2,
//   so |k0| <= |x1 - c1|*|a1| + |x2 - c2|*|a2| and |k1| <= |x1 - c1|*|b1| + |x2 - c2|*|b2|.
//
//   Division-free rounding (sign convention of this file): let s1 = sign(b2), e1 = |b2|, s2 = sign(-b1),
//   e2 = |b1|, so x_i = s_i * k * e_i / r. With a shift m (a multiple of 32, 2^m >= r) and the non-negative
//   constants
//       g_i = round(2^m * e_i / r),
//   the kernel computes the magnitudes  ĉ_i = floor(k * g_i / 2^m)  and uses  c_i = s_i * ĉ_i.
//   Error: k*g_i/2^m - k*e_i/r = k*(g_i - 2^m*e_i/r)/2^m, and |g_i - 2^m*e_i/r| <= 1/2, k <= r - 1, so
//       |k*g_i/2^m - k*e_i/r| <= delta_i = (r - 1) * |g_i*r - 2^m*e_i| / (r * 2^m) <= (r - 1)/2^(m+1) < 1/2,
//   and the floor takes off less than 1 more: |x_i - c_i| = |k*e_i/r - ĉ_i| < 1 + delta_i < 3/2.
//   Hence, for every k in [0, r):
//       |k0| <= (1 + delta_1)|a1| + (1 + delta_2)|a2| < 3/2 * (|a1| + |a2|),   |k1| likewise with b1, b2;
//   bound0 = the floor of that exact rational >= |k0| and bound1 likewise; halfBits = bit length of
//   max(bound0, bound1), so |k0|, |k1| < 2^halfBits. (delta_i < 1/2 is checked exactly below.)
//
//   Option rounding: 'nearest' computes ĉ_i = floor((k * g_i + 2^(m-1)) / 2^m) instead (one constant added
//   to the product, no extra multiply): the rounding error is in [-1/2, 1/2), so |x_i - c_i| <= 1/2 + delta_i
//   and |k0| <= (1/2 + delta_1)|a1| + (1/2 + delta_2)|a2| < |a1| + |a2| (likewise k1): about one bit less
//   (BLS12-381: 127 bits instead of 128, so a window split never has an empty top window).
//
//   The kernel works modulo 2^(32*T) with T = ceil((halfBits + 1) / 32) words, which holds k0 and k1 in
//   two's complement exactly, since |k_i| < 2^halfBits <= 2^(32*T - 1):
//       k0 = k + ĉ1 * A1 + ĉ2 * A2,   k1 = ĉ1 * B1 + ĉ2 * B2   (mod 2^(32*T))
//   with the unsigned constants A1 = -s1*a1, A2 = -s2*a2, B1 = -s1*b1, B2 = -s2*b2 reduced mod 2^(32*T).

import { bitLength, isProbablePrime, mod, modPow, modSqrt, toBigInt } from './number-theory.js';
import { affineOps } from './curve.js';
import { findDegreeTwoEndomorphism } from './endomorphism.js';

/** Record layout written by the decompose kernels (numbers only, so it can be copied into runtime data). */
export function glvRecordLayout(glv) {
  const { H, halfBits, scalarBytes } = glv;
  return Object.freeze({
    H,
    halfBits,
    scalarBytes,
    recordBytes: 4 * (2 * H + 2),
    k0Offset: 0, // |k0|: H little-endian u32 words
    k1Offset: 4 * H, // |k1|: H little-endian u32 words
    neg0Offset: 8 * H, // u32: 1 if k0 < 0
    neg1Offset: 8 * H + 4, // u32: 1 if k1 < 0
  });
}

// ---- lattice basis ----

/**
 * Reduced basis of {(x, y) : x + y*lambda = 0 mod r} by the extended Euclidean algorithm on (r, lambda)
 * stopped near sqrt(r) (Guide to ECC, alg. 3.74). Each remainder satisfies rem_i = s_i*r + t_i*lambda, so
 * (rem_i, -t_i) lies in the lattice. With l the last index with rem_l >= sqrt(r): v1 = (rem_{l+1}, -t_{l+1})
 * and v2 the shorter of (rem_l, -t_l) and (rem_{l+2}, -t_{l+2}). v2 is negated if needed so that
 * det = a1*b2 - a2*b1 = +r.
 */
export function glvLatticeBasis(r, lambda) {
  const rem = [r, mod(lambda, r)];
  const t = [0n, 1n];
  while (rem[rem.length - 1] !== 0n) {
    const i = rem.length - 1;
    const q = rem[i - 1] / rem[i];
    rem.push(rem[i - 1] - q * rem[i]);
    t.push(t[i - 1] - q * t[i]);
  }
  let l = 0;
  while (l + 1 < rem.length && rem[l + 1] * rem[l + 1] >= r) l++;
  const vec = (i) => [rem[i], -t[i]];
  const norm2 = ([x, y]) => x * x + y * y;
  const v1 = vec(l + 1);
  let v2 = vec(l);
  if (l + 2 < rem.length && norm2(vec(l + 2)) < norm2(v2)) v2 = vec(l + 2);
  let det = v1[0] * v2[1] - v2[0] * v1[1];
  if (det === -r) {
    v2 = [-v2[0], -v2[1]];
    det = r;
  }
  if (det !== r) throw new Error(`GLV basis does not span the lattice: det = ${det}`);
  for (const [x, y] of [v1, v2]) {
    if (mod(x + y * lambda, r) !== 0n) throw new Error('GLV basis vector is not in the lattice');
  }
  return { a1: v1[0], b1: v1[1], a2: v2[0], b2: v2[1] };
}

// ---- the decomposition, exactly as the kernel computes it (BigInt) ----

const abs = (x) => (x < 0n ? -x : x);

/**
 * k0, k1 (signed BigInts) for a scalar 0 <= k < r, by the same formula as the Wasm kernel:
 * ĉ_i = floor(k * g_i / 2^m), c_i = s_i * ĉ_i, k0 = k - c1*a1 - c2*a2, k1 = -c1*b1 - c2*b2.
 */
export function glvDecomposeReference(glv, k) {
  if (k < 0n || k >= glv.r) throw new RangeError('scalar must be in [0, r)');
  const { a1, b1, a2, b2 } = glv.basis;
  const m = BigInt(glv.m);
  const c1 = BigInt(glv.s1) * ((k * glv.g1 + glv.roundingAddend) >> m);
  const c2 = BigInt(glv.s2) * ((k * glv.g2 + glv.roundingAddend) >> m);
  return { k0: k - c1 * a1 - c2 * a2, k1: -c1 * b1 - c2 * b2 };
}

/** Deterministic BigInt PRNG (64-bit LCG, high bits) for the generation-time self-check. */
function makeBigRng(seed) {
  let s = BigInt.asUintN(64, seed);
  return (bits) => {
    let x = 0n;
    for (let got = 0; got < bits; got += 32) {
      s = BigInt.asUintN(64, s * 6364136223846793005n + 1442695040888963407n);
      x = (x << 32n) | (s >> 32n);
    }
    return x & ((1n << BigInt(bits)) - 1n);
  };
}

const SELF_CHECK_RANDOM = 400;

/**
 * The GLV params every build of a curve takes (the Wasm builds, the WGSL, the GPU benchmarks' variants): the
 * 'nearest' rounding, and a degree-2 map where the curve has one. null where it has no endomorphism.
 */
export const buildGlvParams = (curve) => deriveGlvParams(curve, { rounding: 'nearest', degreeTwo: true });

/**
 * @param {{ p: bigint, r: bigint, a?: bigint, b: bigint, generator: { x: bigint, y: bigint } }} curve
 *   (BigInts, or decimal / 0x-hex strings)
 * @param {{ rounding?: 'floor' | 'nearest', degreeTwo?: boolean }} [options] how ĉ_i is rounded (see the top of this
 *   file); degreeTwo: on an a != 0 curve, look for a degree-2 endomorphism (params/endomorphism.js) instead
 * @returns {object | null} frozen GLV parameters, or null when the curve has no such endomorphism
 *   (a != 0 without a degree-2 one, p != 1 mod 3 or r != 1 mod 3). `endomorphism` says which map: { kind: 'beta' }
 *   (lambda * (x, y) = (beta x, y)) or the degree-2 map's constants.
 */
export function deriveGlvParams({ p, r, a = 0n, b, generator } = {}, { rounding = 'floor', degreeTwo = false } = {}) {
  if (rounding !== 'floor' && rounding !== 'nearest') throw new RangeError(`rounding must be 'floor' or 'nearest', got ${rounding}`);
  p = toBigInt(p, 'p');
  r = toBigInt(r, 'r');
  a = toBigInt(a, 'a');
  b = toBigInt(b, 'b');
  if (mod(a, p) !== 0n && degreeTwo) {
    const G = { x: mod(toBigInt(generator?.x, 'generator.x'), p), y: mod(toBigInt(generator?.y, 'generator.y'), p) };
    const endomorphism = findDegreeTwoEndomorphism({ p, r, a, b, generator: G });
    return endomorphism && glvFromLambda({ p, r, lambda: endomorphism.lambda, beta: null, endomorphism }, rounding);
  }
  if (mod(a, p) !== 0n || p % 3n !== 1n || r % 3n !== 1n) return null;
  if (!isProbablePrime(r)) throw new RangeError(`r is not prime: ${r}`);
  const G = { x: mod(toBigInt(generator?.x, 'generator.x'), p), y: mod(toBigInt(generator?.y, 'generator.y'), p) };
  if (mod(G.y * G.y - G.x * G.x * G.x - b, p) !== 0n) throw new RangeError('generator is not on the curve');
  const E = affineOps(p, 0n);
  if (E.mul(G, r) !== null) throw new RangeError('r * G is not the point at infinity');

  // beta: z^((p-1)/3) is a cube root of unity, a primitive one as soon as z is not a cube.
  let beta = 1n;
  for (let z = 2n; beta === 1n; z++) beta = modPow(z, (p - 1n) / 3n, p);
  const betas = [beta, (beta * beta) % p];
  // lambda: the roots of x^2 + x + 1 mod r are (-1 +- sqrt(-3)) / 2; try the smaller first.
  const s = modSqrt(r - 3n, r);
  if (s === null) throw new Error('-3 is not a square mod r although r = 1 mod 3');
  const half = (r + 1n) / 2n;
  const lambdas = [mod((s - 1n) * half, r), mod((-s - 1n) * half, r)].sort((u, v) => (u < v ? -1 : 1));
  let match = null;
  for (const lambda of lambdas) {
    const lG = E.mul(G, lambda);
    const beta_ = lG && lG.y === G.y && betas.find((bb) => lG.x === (bb * G.x) % p);
    if (beta_) {
      match = { beta: beta_, lambda };
      break;
    }
  }
  if (!match) throw new Error('no (beta, lambda) pair satisfies lambda * G = (beta * Gx, Gy)');
  ({ beta } = match);
  const { lambda } = match;
  if (modPow(beta, 3n, p) !== 1n || beta === 1n) throw new Error('beta is not a primitive cube root of 1');
  if (mod(lambda * lambda + lambda + 1n, r) !== 0n) throw new Error('lambda^2 + lambda + 1 != 0 mod r');
  return glvFromLambda({ p, r, lambda, beta, endomorphism: Object.freeze({ kind: 'beta', beta }) }, rounding);
}

/** The lattice basis, rounding constants and proven bounds for an endomorphism acting as lambda, self-checked. */
function glvFromLambda({ p, r, lambda, beta, endomorphism }, rounding) {
  const basis = glvLatticeBasis(r, lambda);
  const { a1, b1, a2, b2 } = basis;

  // Rounding constants. m: the least multiple of 32 with 2^m >= r, which makes delta_i < 1/2.
  const scalarBits = bitLength(r);
  const m = 32 * Math.ceil(scalarBits / 32);
  const M = 1n << BigInt(m);
  const s1 = b2 < 0n ? -1 : 1;
  const s2 = -b1 < 0n ? -1 : 1;
  const e1 = abs(b2);
  const e2 = abs(b1);
  const roundDiv = (n, d) => (2n * n + d) / (2n * d); // n >= 0, d > 0
  const g1 = roundDiv(M * e1, r);
  const g2 = roundDiv(M * e2, r);
  // delta_i < 1/2  <=>  2 * (r - 1) * |g_i*r - 2^m*e_i| < r * 2^m
  for (const [g, e] of [[g1, e1], [g2, e2]]) {
    if (2n * (r - 1n) * abs(g * r - M * e) >= r * M) throw new Error('GLV rounding error bound delta < 1/2 fails');
  }

  // Proven bounds: |x_i - c_i| <= rho + delta_i with rho = 1 (floor) or 1/2 (nearest) and delta_i exact, so
  // |k0| <= (rho + delta_1)|a1| + (rho + delta_2)|a2| (likewise k1 with b), an exact rational: its floor.
  // rho + delta_i = (2 rho r 2^m + 2 (r - 1) d_i) / (2 r 2^m), d_i = |g_i r - 2^m e_i|.
  const twoRho = rounding === 'floor' ? 2n : 1n;
  const weight = (g, e) => twoRho * r * M + 2n * (r - 1n) * abs(g * r - M * e);
  const [w1, w2] = [weight(g1, e1), weight(g2, e2)];
  const roundingAddend = rounding === 'floor' ? 0n : M >> 1n;
  const bound0 = (w1 * abs(a1) + w2 * abs(a2)) / (2n * r * M);
  const bound1 = (w1 * abs(b1) + w2 * abs(b2)) / (2n * r * M);
  const halfBits = bitLength(bound0 > bound1 ? bound0 : bound1);
  const H = Math.ceil(halfBits / 32);
  const T = Math.ceil((halfBits + 1) / 32);
  const scalarBytes = Math.ceil(scalarBits / 8);

  const glv = {
    p,
    r,
    beta,
    lambda,
    endomorphism,
    basis: Object.freeze(basis),
    m,
    g1,
    g2,
    s1,
    s2,
    rounding,
    roundingAddend, // added to k * g_i before the shift: 0 (floor) or 2^(m-1) (nearest)
    // largest ĉ_i over k in [0, r) (ĉ_i is non-decreasing in k): sizes the kernel's products
    cMax1: ((r - 1n) * g1 + roundingAddend) >> BigInt(m),
    cMax2: ((r - 1n) * g2 + roundingAddend) >> BigInt(m),
    bound0,
    bound1,
    halfBits,
    H,
    T,
    scalarBits,
    scalarBytes,
    recordBytes: 4 * (2 * H + 2),
  };

  // Self-check the exact kernel formula on edges and deterministic-random scalars.
  const rng = makeBigRng(r ^ lambda);
  const ks = [0n, 1n, 2n, r - 1n, r - 2n, lambda, mod(lambda + 1n, r), r - lambda, (r - 1n) / 2n];
  for (let i = 0; i < scalarBits; i++) if (1n << BigInt(i) < r) ks.push(1n << BigInt(i));
  for (let i = 0; i < SELF_CHECK_RANDOM; i++) ks.push(rng(scalarBits + 64) % r);
  for (const k of ks) {
    const { k0, k1 } = glvDecomposeReference(glv, k);
    if (mod(k0 + k1 * lambda - k, r) !== 0n) throw new Error(`GLV self-check: k0 + k1*lambda != k for k = ${k}`);
    if (abs(k0) > bound0 || abs(k1) > bound1) throw new Error(`GLV self-check: bound violated for k = ${k}`);
  }
  return Object.freeze(glv);
}

/** The parameters as printable lines, for module headers. */
export function describeGlvParams(glv) {
  const hex = (x) => (x < 0n ? '-0x' + (-x).toString(16) : '0x' + x.toString(16));
  const { a1, b1, a2, b2 } = glv.basis;
  return [
    glv.beta !== null
      ? `GLV: beta = ${hex(glv.beta)} (cube root of 1 mod p), lambda = ${hex(glv.lambda)} (lambda * (x, y) = (beta * x, y))`
      : `GLV: lambda = ${hex(glv.lambda)}, the degree-2 map psi(x, y) = (m2 (x + v / (x - x0)), m3 y (1 - v / (x - x0)^2)), psi^2 - ${glv.endomorphism.t} psi + 2 = 0, x0 = ${hex(glv.endomorphism.x0)}`,
    `basis v1 = (${hex(a1)}, ${hex(b1)}), v2 = (${hex(a2)}, ${hex(b2)}), det = +r`,
    `c_i = s_i * floor((k * g_i${glv.roundingAddend ? ` + 2^${glv.m - 1}` : ''}) / 2^${glv.m}), s1 = ${glv.s1}, s2 = ${glv.s2}, g1 = ${hex(glv.g1)}, g2 = ${hex(glv.g2)}`,
    `|k0| <= ${hex(glv.bound0)}, |k1| <= ${hex(glv.bound1)} (<= (${glv.rounding === 'floor' ? '1' : '1/2'} + delta_1)|a1| + (... + delta_2)|a2|, likewise b): halfBits = ${glv.halfBits}`,
    `record: |k0| (${glv.H} u32), |k1| (${glv.H} u32), neg0 (u32), neg1 (u32) = ${glv.recordBytes} bytes`,
  ];
}
