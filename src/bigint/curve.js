// Short Weierstrass curve y^2 = x^3 + a*x + b over F_p, affine textbook
// formulas only. This is the test oracle: it trades speed for being checkable
// line by line against any textbook, and shares no code with @noble/curves.
// Points are { x, y } with BigInt coordinates in [0, p); null is infinity.

import { mod, modInv, modSqrt } from './field.js';

/**
 * Accept BigInts or the hex strings used in codegen/curves/*.json, so a
 * parsed JSON file can be passed straight in.
 * @param {bigint | string | number} v
 * @returns {bigint}
 */
function big(v) {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/**
 * @typedef {{ x: bigint, y: bigint }} AffinePoint
 * @typedef {AffinePoint | null} Point  null is the point at infinity
 */

/**
 * Build the curve oracle.
 * @param {{ p: bigint|string, a: bigint|string, b: bigint|string,
 *           r?: bigint|string, h?: bigint|string,
 *           generator?: { x: bigint|string, y: bigint|string },
 *           name?: string }} params
 */
export function makeCurve(params) {
  const p = big(params.p);
  const a = mod(big(params.a), p);
  const b = mod(big(params.b), p);
  const r = params.r === undefined ? undefined : big(params.r);
  const h = params.h === undefined ? undefined : big(params.h);
  const G = params.generator ? { x: mod(big(params.generator.x), p), y: mod(big(params.generator.y), p) } : null;
  if (mod(4n * a * a * a + 27n * b * b, p) === 0n) throw new RangeError('singular curve: 4a^3 + 27b^2 = 0');

  /** @param {bigint} x */
  const rhs = (x) => mod(x * x * x + a * x + b, p);

  /** @param {Point} P */
  function isOnCurve(P) {
    if (P === null) return true;
    const { x, y } = P;
    if (x < 0n || x >= p || y < 0n || y >= p) return false;
    return mod(y * y, p) === rhs(x);
  }

  /** @param {Point} P @param {Point} Q */
  function eq(P, Q) {
    if (P === null || Q === null) return P === Q;
    return P.x === Q.x && P.y === Q.y;
  }

  /** @param {Point} P @returns {Point} */
  function neg(P) {
    if (P === null) return null;
    return { x: P.x, y: mod(-P.y, p) };
  }

  /** @param {Point} P @returns {Point} */
  function double(P) {
    if (P === null) return null;
    // A point with y = 0 has order 2: its tangent is vertical.
    if (P.y === 0n) return null;
    const l = mod((3n * P.x * P.x + a) * modInv(2n * P.y, p), p);
    const x3 = mod(l * l - 2n * P.x, p);
    const y3 = mod(l * (P.x - x3) - P.y, p);
    return { x: x3, y: y3 };
  }

  /**
   * Chord-and-tangent addition with every special case spelled out, since
   * these are exactly the cases fast complete/incomplete formulas get wrong.
   * @param {Point} P @param {Point} Q @returns {Point}
   */
  function add(P, Q) {
    if (P === null) return Q;
    if (Q === null) return P;
    if (P.x === Q.x) {
      // Same x: either Q = P (tangent) or Q = -P (vertical line).
      if (P.y === Q.y) return double(P);
      return null;
    }
    const l = mod((Q.y - P.y) * modInv(Q.x - P.x, p), p);
    const x3 = mod(l * l - P.x - Q.x, p);
    const y3 = mod(l * (P.x - x3) - P.y, p);
    return { x: x3, y: y3 };
  }

  /**
   * Left-to-right double-and-add. k is NOT reduced mod r, so r*G and
   * (h*r)*P can be used to check group orders.
   * @param {Point} P @param {bigint} k >= 0 @returns {Point}
   */
  function mul(P, k) {
    k = big(k);
    if (k < 0n) throw new RangeError('negative scalar');
    let R = null;
    for (let i = k.toString(2).length - 1; i >= 0 && k > 0n; i--) {
      R = double(R);
      if ((k >> BigInt(i)) & 1n) R = add(R, P);
    }
    return R;
  }

  /**
   * Naive MSM: the literal definition sum_i s_i * P_i, nothing clever, so it
   * can referee bucket methods.
   * @param {Point[]} points @param {bigint[]} scalars @returns {Point}
   */
  function msm(points, scalars) {
    if (points.length !== scalars.length) throw new RangeError('points and scalars differ in length');
    let acc = null;
    for (let i = 0; i < points.length; i++) acc = add(acc, mul(points[i], scalars[i]));
    return acc;
  }

  /**
   * Point with the given x if x^3 + ax + b is a square, else null; the root
   * chosen is whatever modSqrt returns. Used to sample points for tests.
   * @param {bigint} x @returns {Point}
   */
  function liftX(x) {
    x = mod(big(x), p);
    const y = modSqrt(rhs(x), p);
    return y === null ? null : { x, y };
  }

  return { name: params.name, p, a, b, r, h, G, isOnCurve, eq, neg, double, add, mul, msm, liftX };
}

/**
 * Parse a codegen/curves/*.json object (hex strings) into BigInts.
 * @param {{ name: string, p: string, r: string, a: string, b: string, h: string,
 *           generator: { x: string, y: string } }} json
 */
export function parseCurveJson(json) {
  return {
    name: json.name,
    p: BigInt(json.p),
    r: BigInt(json.r),
    a: BigInt(json.a),
    b: BigInt(json.b),
    h: BigInt(json.h),
    generator: { x: BigInt(json.generator.x), y: BigInt(json.generator.y) },
  };
}

/**
 * Small seeded PRNG (xorshift32) so randomized tests replay exactly; not for
 * anything cryptographic.
 * @param {number} seed nonzero 32-bit integer
 * @returns {() => number} uint32 generator
 */
export function makeRng(seed = 0x2545f491) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/**
 * Uniform scalar in [0, r) by rejection sampling, so there is no modulo bias
 * to reason about.
 * @param {() => number} rng uint32 generator
 * @param {bigint} r upper bound, > 0
 * @returns {bigint}
 */
export function randomScalar(rng, r) {
  if (r <= 0n) throw new RangeError('bound must be positive');
  const bits = (r - 1n).toString(2).length;
  const words = Math.ceil(bits / 32);
  const mask = (1n << BigInt(bits)) - 1n;
  for (;;) {
    let x = 0n;
    for (let i = 0; i < words; i++) x = (x << 32n) | BigInt(rng());
    x &= mask;
    if (x < r) return x;
  }
}
