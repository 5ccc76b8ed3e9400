// Curve models other than short Weierstrass, each the image of a short-Weierstrass curve under a birational map
// that is a group isomorphism. The MSM runs on the Weierstrass image with the kernels every curve has; only the
// conversion of points in and out (g_fromBytes / g_toBytes, codegen/kernels/model.js) knows the model.
//
//   twisted Edwards   a x^2 + y^2 = 1 + d x^2 y^2            neutral (0, 1), -(x, y) = (-x, y)
//   Montgomery        B v^2 = u^3 + A u^2 + u                 neutral: the point at infinity, -(u, v) = (u, -v)
//   short Weierstrass Y^2 = X^3 + a_w X + b_w
//
// Maps (Bernstein, Birkner, Joye, Lange, Peters, "Twisted Edwards curves", 2008, thm 3.2; Okeya-Kurumatani-Sakurai):
//   Edwards -> Montgomery: A = 2 (a + d) / (a - d), B = 4 / (a - d); (x, y) -> (u, v) = ((1 + y) / (1 - y), u / x),
//     with (0, 1) -> infinity and (0, -1) -> (0, 0); back: x = u / v, y = (u - 1) / (u + 1).
//   Montgomery -> Weierstrass: (u, v) -> (X, Y) = (u / B + A / (3B), v / B), infinity -> infinity;
//     a_w = (3 - A^2) / (3 B^2), b_w = (2 A^3 - 9 A) / (27 B^3).
// The Edwards map is a bijection from the affine Edwards points onto E_W(F_p) when d is a non-square and a a square
// (the complete case). When a and d are both non-squares (Bandersnatch), the two Montgomery points (u, 0) with
// u^2 + A u + 1 = 0 (order 2) have no affine Edwards image: they are the Edwards curve's points at infinity. A square
// d would also leave the points with u = -1 (order 4) without one, and makes the Edwards addition law fail on
// affine points: rejected. Every point outside the affine set has small order, so a sum of points in the subgroup of
// order r never lands there; g_toBytes reports such a result instead of writing it.

import { mod, modInverse, modPow } from './number-theory.js';

export const MODELS = ['short-weierstrass', 'twisted-edwards', 'montgomery'];

/** The coefficient fields each model's params take (besides p, r, h, generator, ...). */
export const MODEL_COEFFICIENTS = Object.freeze({
  'short-weierstrass': ['a', 'b'],
  'twisted-edwards': ['a', 'd'],
  montgomery: ['A', 'B'],
});

const isSquare = (x, p) => x === 0n || modPow(x, (p - 1n) / 2n, p) === 1n;

/**
 * The model's curve and its maps to and from the Weierstrass image, over F_p; coefficients already reduced mod p.
 * Throws RangeError naming the coefficient that is wrong. Returns { kind, coefficients, A, B, weierstrass: { a, b },
 * onCurve(P), toWeierstrass(P), fromWeierstrass(P) } with points { x, y } and null for the point at infinity
 * (Edwards points are never null: the neutral element is (0, 1)); fromWeierstrass returns undefined for a point with
 * no affine image in the model.
 */
export function curveModel(kind, p, coefficients) {
  const inv = (x) => modInverse(mod(x, p), p);
  if (kind === 'twisted-edwards') {
    const { a, d } = coefficients;
    if (a === 0n) throw new RangeError('curve params: a must be nonzero (a twisted Edwards curve a x^2 + y^2 = 1 + d x^2 y^2)');
    if (d === 0n) throw new RangeError('curve params: d must be nonzero (d = 0 is not an elliptic curve)');
    if (a === d) throw new RangeError('curve params: a and d must differ (a = d is singular)');
    if (isSquare(d, p)) {
      throw new RangeError('curve params: d must be a non-square mod p: with a square d the Edwards addition law fails on some affine points (and points of order 4 have no affine form)');
    }
    const A = mod(2n * (a + d) * inv(a - d), p);
    const B = mod(4n * inv(a - d), p);
    const mont = montgomery(p, A, B);
    return {
      kind, coefficients: { a, d }, A, B, weierstrass: mont.weierstrass,
      onCurve: (P) => P !== null && mod(a * P.x * P.x + P.y * P.y - 1n - d * P.x * P.x * P.y * P.y, p) === 0n,
      toWeierstrass: (P) => {
        if (P.x === 0n) return P.y === 1n ? null : mont.toWeierstrass({ x: 0n, y: 0n });
        const u = mod((1n + P.y) * inv(1n - P.y), p);
        return mont.toWeierstrass({ x: u, y: mod(u * inv(P.x), p) });
      },
      fromWeierstrass: (W) => {
        const M = mont.fromWeierstrass(W);
        if (M === null) return { x: 0n, y: 1n };
        if (M.x === 0n && M.y === 0n) return { x: 0n, y: p - 1n };
        if (M.y === 0n || M.x === p - 1n) return undefined; // an Edwards point at infinity
        return { x: mod(M.x * inv(M.y), p), y: mod((M.x - 1n) * inv(M.x + 1n), p) };
      },
    };
  }
  if (kind === 'montgomery') {
    const { A, B } = coefficients;
    if (B === 0n) throw new RangeError('curve params: B must be nonzero (a Montgomery curve B v^2 = u^3 + A u^2 + u)');
    if (mod(A * A - 4n, p) === 0n) throw new RangeError('curve params: A^2 = 4 makes the Montgomery curve singular');
    const mont = montgomery(p, A, B);
    return {
      kind, coefficients: { A, B }, A, B, weierstrass: mont.weierstrass,
      onCurve: (P) => P === null || mod(B * P.y * P.y - P.x * P.x * P.x - A * P.x * P.x - P.x, p) === 0n,
      toWeierstrass: (P) => mont.toWeierstrass(P),
      fromWeierstrass: (W) => mont.fromWeierstrass(W),
    };
  }
  throw new RangeError(`curve params: unknown model ${JSON.stringify(kind)} (known: ${MODELS.join(', ')})`);
}

/** The Montgomery curve B v^2 = u^3 + A u^2 + u and its Weierstrass image. */
function montgomery(p, A, B) {
  const iB = modInverse(B, p);
  const shift = mod(A * modInverse(3n * B, p), p); // A / (3B)
  return {
    weierstrass: {
      a: mod((3n - A * A) * modInverse(3n * B * B, p), p),
      b: mod((2n * A * A * A - 9n * A) * modInverse(27n * B * B * B, p), p),
    },
    toWeierstrass: (P) => (P === null ? null : { x: mod(P.x * iB + shift, p), y: mod(P.y * iB, p) }),
    fromWeierstrass: (W) => (W === null ? null : { x: mod((W.x - shift) * B, p), y: mod(W.y * B, p) }),
  };
}

/**
 * The constants the conversion kernels use, in F_p: 1/B and A/(3B) (into the Weierstrass image), B and A/3 (back),
 * and the model's own coefficients (the on-curve check of the input).
 */
export function modelConstants(model, p) {
  const { A, B } = model;
  const c = {
    mapInvB: modInverse(B, p),
    mapShift: mod(A * modInverse(3n * B, p), p),
    mapB: B,
    mapAThird: mod(A * modInverse(3n, p), p),
  };
  if (model.kind === 'twisted-edwards') Object.assign(c, { teA: model.coefficients.a, teD: model.coefficients.d });
  else Object.assign(c, { montA: A, montB: B });
  return c;
}
