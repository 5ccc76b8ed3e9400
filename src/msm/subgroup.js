// Subgroup membership of affine points in Wasm memory: which test a curve takes (once per params) and the check
// over a range of points, a RangeError naming the first point outside the subgroup of order r.

import { inputError } from './bytes.js';

function isqrt(x) {
  if (x < 2n) return x;
  let y = 1n << BigInt((x.toString(2).length + 1) >> 1);
  for (;;) {
    const next = (y + x / y) >> 1n;
    if (next >= y) return y;
    y = next;
  }
}

function gcd(a, b) {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}

const subgroupTests = new WeakMap();

/**
 * How points of this curve are shown to lie in the subgroup of order r (once per params):
 * - 'all': h = 1, so #E(F_p) = r and every point on the curve is in it;
 * - 'bls12': a BLS12 curve (r = z^4 - z^2 + 1, p = (z - 1)^2 r / 3 + z) with the GLV endomorphism
 *   phi(x, y) = (beta x, y), which acts on G1 as lambda; mu = -z^2 or z^2 - 1 (as integers), whichever is
 *   lambda mod r. Test: phi(P) = [mu] P, two multiplications by the sparse 64-bit z instead of one by r (the
 *   test of M. Scott, IACR ePrint 2021/1130). Proof: E(F_p) = G1 x H with #H = h prime to r; write P = P1 + Q.
 *   phi(P1) = [mu] P1, so the test holds iff phi(Q) = [mu] Q, and then, as P + phi(P) + phi^2(P) = O for every
 *   P (the three points on the line y = const), (mu^2 + mu + 1) Q = O. Here mu^2 + mu + 1 = r exactly, and
 *   gcd(r, h) = 1 (checked below), so Q = O. test/subgroup.test.js checks it against r * P and on points of
 *   every prime-power order dividing h;
 * - 'order': r * P = infinity, a full scalar multiplication (any other curve).
 */
export function subgroupTestOf(P) {
  let test = subgroupTests.get(P);
  if (test) return test;
  test = { kind: 'order' };
  if (P.h === 1n) test = { kind: 'all' };
  else if (P.glv) {
    // z^2 = (1 + sqrt(4r - 3)) / 2 when r = z^4 - z^2 + 1
    const d = 4n * P.r - 3n;
    const root = isqrt(d);
    if (root * root === d && (1n + root) % 2n === 0n) {
      const z2 = (1n + root) / 2n;
      const zAbs = isqrt(z2);
      for (const z of zAbs * zAbs === z2 ? [zAbs, -zAbs] : []) {
        if (((z - 1n) ** 2n * P.r) % 3n !== 0n || ((z - 1n) ** 2n * P.r) / 3n + z !== P.p) continue;
        // phi acts on G1 as lambda, one of the two cube roots of unity -z^2 and z^2 - 1 mod r.
        const minusZ2 = (P.r - (z2 % P.r)) % P.r;
        const lambdaIsMinusZ2 = P.glv.lambda === minusZ2;
        const mu = lambdaIsMinusZ2 ? -z2 : z2 - 1n;
        if ((lambdaIsMinusZ2 || P.glv.lambda === (z2 - 1n) % P.r) && gcd(mu * mu + mu + 1n, P.h) === 1n) {
          test = { kind: 'bls12', zAbs, zBits: zAbs.toString(2), lambdaIsMinusZ2 };
        }
      }
    }
  }
  subgroupTests.set(P, test);
  return test;
}

/** Bytes of scratch checkSubgroupRange needs. */
export const subgroupScratchBytes = (P) => 3 * P.jacobianBytes + P.affineBytes;

/**
 * Each of count affine points at `points` is in the subgroup of order r (subgroupTestOf: nothing to do when
 * h = 1, the BLS12 endomorphism test, or r * P = infinity), else a RangeError naming the index. `scratch` is
 * subgroupScratchBytes(P) bytes; `first` as in convertPoints.
 */
export function checkSubgroupRange(ctx, scratch, points, count, first = 0) {
  const { ex, params: P } = ctx;
  const test = subgroupTestOf(P);
  if (test.kind === 'all') return;
  const A = P.affineBytes;
  const J = P.jacobianBytes;
  const [acc, base, tmp, phi] = [scratch, scratch + J, scratch + 2 * J, scratch + 3 * J];
  const isInfinity = (jac) => ex.g_jacIsInfinity(jac);
  /** acc = [bits] base, by double-and-add from the top bit (bits has a leading 1). */
  const multiply = (bits) => {
    ex.g_jacCopy(acc, base);
    for (let k = 1; k < bits.length; k++) {
      ex.g_jacDouble(acc, acc);
      if (bits[k] === '1') ex.g_jacAdd(acc, acc, base);
    }
  };
  for (let i = 0; i < count; i++) {
    const pt = points + i * A;
    let inSubgroup;
    if (test.kind === 'bls12') {
      // acc = [z^2] P: two multiplications by |z| (the signs cancel)
      ex.g_jacFromAffine(base, pt);
      multiply(test.zBits);
      ex.g_jacCopy(base, acc);
      multiply(test.zBits);
      // lambda = -z^2: phi(P) + [z^2] P = O.  lambda = z^2 - 1: phi(P) + P - [z^2] P = O.
      ex.g_endomorphism(phi, pt, 1);
      ex.g_jacFromAffine(tmp, phi);
      if (!test.lambdaIsMinusZ2) {
        ex.g_jacNeg(acc, acc);
        ex.g_jacFromAffine(base, pt);
        ex.g_jacAdd(tmp, tmp, base);
      }
      ex.g_jacAdd(acc, acc, tmp);
      inSubgroup = isInfinity(acc);
    } else {
      ex.g_jacFromAffine(base, pt);
      multiply(P.r.toString(2));
      inSubgroup = isInfinity(acc);
    }
    if (!inSubgroup) throw inputError('points', first + i, ' is not in the subgroup of order r');
  }
}
