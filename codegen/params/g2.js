// deriveG2Params(curve, json.g2): the group G2 of a pairing-friendly curve, on its sextic twist
// y^2 = x^3 + b' over F_p2 = F_p[u] / (u^2 - beta), validated with plain BigInt arithmetic at generation time.
// Also the GLV map on G2: (x, y) -> (omega x, y) with omega a cube root of unity in F_p acts on the twist's
// order-r subgroup as lambda or lambda^2; we pick the omega whose eigenvalue is G1's lambda, so G1 and G2
// share one scalar decomposition.

import { isProbablePrime, mod, modInverse, modPow, toBigInt } from './number-theory.js';
import { affineLaw } from './curve.js';

/** F_p2 = F_p[u] / (u^2 - beta) on { c0, c1 } BigInts (c0 + c1 u). The reference the kernels are tested against. */
export function fp2Ops(p, beta) {
  const m = (x) => mod(x, p);
  const F = {
    p, beta,
    ZERO: Object.freeze({ c0: 0n, c1: 0n }),
    ONE: Object.freeze({ c0: 1n, c1: 0n }),
    of: (c0, c1 = 0n) => ({ c0: m(c0), c1: m(c1) }),
    add: (x, y) => ({ c0: m(x.c0 + y.c0), c1: m(x.c1 + y.c1) }),
    sub: (x, y) => ({ c0: m(x.c0 - y.c0), c1: m(x.c1 - y.c1) }),
    neg: (x) => ({ c0: m(-x.c0), c1: m(-x.c1) }),
    mul: (x, y) => ({ c0: m(x.c0 * y.c0 + beta * x.c1 * y.c1), c1: m(x.c0 * y.c1 + x.c1 * y.c0) }),
    sqr: (x) => F.mul(x, x),
    eq: (x, y) => m(x.c0 - y.c0) === 0n && m(x.c1 - y.c1) === 0n,
    isZero: (x) => m(x.c0) === 0n && m(x.c1) === 0n,
    /** 1 / x through the norm: (c0 - c1 u) / (c0^2 - beta c1^2); the norm of a nonzero x is nonzero as beta is a non-residue. */
    inv: (x) => {
      const norm = m(x.c0 * x.c0 - beta * x.c1 * x.c1);
      if (norm === 0n) throw new RangeError('inverse of zero in F_p2');
      const ni = modInverse(norm, p);
      return { c0: m(x.c0 * ni), c1: m(-x.c1 * ni) };
    },
  };
  return F;
}

/** Affine arithmetic on y^2 = x^3 + b over a field F (a = 0), null = infinity. Enough to validate at generation time. */
export function twistOps(F, b) {
  const { add, mul } = affineLaw(F, F.ZERO);
  const onCurve = (P) => P === null || F.eq(F.sqr(P.y), F.add(F.mul(F.sqr(P.x), P.x), b));
  const eq = (P, Q) => (P === null || Q === null ? P === Q : F.eq(P.x, Q.x) && F.eq(P.y, Q.y));
  return { add, mul, onCurve, eq };
}

const pair = (v, what, p) => {
  if (!Array.isArray(v) || v.length !== 2) throw new TypeError(`curve params: ${what} must be [c0, c1]`);
  const [c0, c1] = v.map((x, i) => toBigInt(x, `${what}[${i}]`));
  if (c0 < 0n || c0 >= p || c1 < 0n || c1 >= p) throw new RangeError(`curve params: ${what} coordinates must be in [0, p)`);
  return { c0, c1 };
};

/**
 * @param curve from deriveCurveParams (G1: p, r, a, b, field)
 * @param json { nonResidue, b: [c0, c1], h, generator: { x: [c0, c1], y: [c0, c1] } } (numbers as in the G1 fields)
 * @param glv G1's GLV params (or null): G2 gets the endomorphism with the same lambda when one exists
 * @returns frozen { nonResidue, b, h, generator, glvOmega (or null) }
 * @throws {TypeError|RangeError} naming the field that is wrong
 */
export function deriveG2Params(curve, json, glv = null) {
  if (!json || typeof json !== 'object') throw new TypeError('curve params: g2 must be an object');
  for (const k of ['nonResidue', 'b', 'h', 'generator']) if (json[k] === undefined) throw new TypeError(`curve params: g2 is missing "${k}"`);
  const { p, r } = curve;
  if (curve.a !== 0n) throw new RangeError('curve params: g2 is supported for curves with a = 0 (sextic twists y^2 = x^3 + b\')');
  const beta = toBigInt(json.nonResidue, 'g2.nonResidue');
  if (beta === 0n || modPow(mod(beta, p), (p - 1n) / 2n, p) !== p - 1n) {
    throw new RangeError('curve params: g2.nonResidue must be a quadratic non-residue mod p (F_p2 = F_p[u] / (u^2 - nonResidue))');
  }
  if (beta < -16n || beta > 16n) throw new RangeError('curve params: g2.nonResidue must be a small integer (|beta| <= 16): the kernels multiply by it with additions');
  const F = fp2Ops(p, beta);
  const b = pair(json.b, 'g2.b', p);
  if (F.isZero(b)) throw new RangeError('curve params: g2.b must be nonzero');
  const h = toBigInt(json.h, 'g2.h');
  if (h < 1n) throw new RangeError('curve params: g2.h must be positive');
  if (typeof json.generator !== 'object' || json.generator === null) throw new TypeError('curve params: g2.generator must be { "x": [c0, c1], "y": [c0, c1] }');
  const G = { x: pair(json.generator.x, 'g2.generator.x', p), y: pair(json.generator.y, 'g2.generator.y', p) };
  const E = twistOps(F, b);
  if (!E.onCurve(G)) throw new RangeError('curve params: g2.generator is not on y^2 = x^3 + b\' over F_p2');
  if (E.mul(G, r) !== null) throw new RangeError('curve params: g2.generator does not have order r');
  // Hasse over F_p2: #E'(F_p2) = h r lies in [p^2 + 1 - 2p, p^2 + 1 + 2p].
  const d = h * r - (p * p + 1n);
  if (d * d > 4n * p * p) throw new RangeError('curve params: g2.h * r is not a possible group order over F_p2 (Hasse bound)');
  // r dividing h: several subgroups of order r on the twist, which r P = O and GLV cannot tell apart (as on G1)
  if (h % r === 0n) throw new RangeError('curve params: g2.h is a multiple of r: the twist may then have several subgroups of order r (wasmsm needs r not dividing g2.h)');
  if (!isProbablePrime(r)) throw new RangeError('curve params: r is not prime');
  let glvOmega = null;
  if (glv) {
    // The two primitive cube roots of unity in F_p are beta_G1 and its square; one acts as lambda on G2.
    const lambdaG = E.mul(G, glv.lambda);
    for (const omega of [glv.beta, mod(glv.beta * glv.beta, p)]) {
      if (E.eq(lambdaG, { x: F.mul(G.x, F.of(omega)), y: G.y })) glvOmega = omega;
    }
    if (glvOmega === null) throw new RangeError('curve params: no cube root of unity acts as lambda on g2 (is b\' on a twist of this curve?)');
  }
  return Object.freeze({ nonResidue: beta, b: Object.freeze(b), h, generator: Object.freeze(G), glvOmega });
}
