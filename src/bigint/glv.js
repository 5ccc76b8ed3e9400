// GLV endomorphism oracle for a = 0 curves with p = 1 mod 3 (Gallant,
// Lambert, Vanstone, CRYPTO 2001). phi(x, y) = (beta*x, y) acts on the
// order-r subgroup as multiplication by lambda. Everything is derived from
// p, r and the generator, and checked on the generator, so a wrong constant
// cannot slip through. Slow and direct on purpose; the code generator has
// its own implementation that is compared against this one.

import { mod, modPow, modSqrt } from './field.js';
import { makeCurve } from './curve.js';

/**
 * Find (beta, lambda) with beta a nontrivial cube root of unity mod p,
 * lambda a root of x^2 + x + 1 mod r, and lambda*G = (beta*Gx, Gy).
 * Of the two valid pairs, the one with the smaller lambda is returned so the
 * answer is deterministic.
 * @param {{ p: bigint|string, r: bigint|string, a?: bigint|string, b: bigint|string,
 *           generator: { x: bigint|string, y: bigint|string } }} params
 * @returns {{ beta: bigint, lambda: bigint }}
 */
export function findGlvConstants(params) {
  const curve = makeCurve({ ...params, a: params.a ?? 0n });
  const { p, r, G } = curve;
  if (curve.a !== 0n) throw new RangeError('GLV oracle needs a = 0');
  if (p % 3n !== 1n) throw new RangeError('need p = 1 mod 3 for a cube root of unity in F_p');
  if (r % 3n !== 1n) throw new RangeError('need r = 1 mod 3 for a cube root of unity in F_r');

  // beta: z^((p-1)/3) is a cube root of unity, nontrivial for a non-cube z.
  let beta = 1n;
  for (let z = 2n; beta === 1n; z++) beta = modPow(z, (p - 1n) / 3n, p);
  const betas = [beta, mod(beta * beta, p)];

  // lambda: roots of x^2 + x + 1, i.e. (-1 +- sqrt(-3)) / 2 mod r.
  const s = modSqrt(r - 3n, r);
  if (s === null) throw new Error('-3 is not a square mod r');
  const inv2 = (r + 1n) / 2n;
  const lambdas = [mod((s - 1n) * inv2, r), mod((-s - 1n) * inv2, r)].sort((u, v) => (u < v ? -1 : u > v ? 1 : 0));

  for (const lambda of lambdas) {
    const lG = curve.mul(G, lambda);
    for (const b of betas) {
      if (lG !== null && lG.x === mod(b * G.x, p) && lG.y === G.y) {
        if (mod(lambda * lambda + lambda + 1n, r) !== 0n || modPow(b, 3n, p) !== 1n || b === 1n)
          throw new Error('GLV constants failed self-check');
        return { beta: b, lambda };
      }
    }
  }
  throw new Error('no (beta, lambda) pair matches on the generator');
}

/**
 * Short basis of the lattice L = {(a, b) : a + b*lambda = 0 mod r}.
 * Run extended Euclid on (r, lambda), keeping r_i = s_i*r + t_i*lambda, so
 * (r_i, -t_i) is in L for every i. Stop at the last remainder >= sqrt(r)
 * (index m): v1 = (r_{m+1}, -t_{m+1}), and v2 is the shorter of
 * (r_m, -t_m) and (r_{m+2}, -t_{m+2}). Both have norm about sqrt(r).
 * @param {bigint} r prime group order
 * @param {bigint} lambda eigenvalue of the endomorphism
 * @returns {[[bigint, bigint], [bigint, bigint]]} [v1, v2], each [a, b]
 */
export function reducedBasis(r, lambda) {
  // rs[i], ts[i] hold r_i, t_i; r_0 = r (t_0 = 0), r_1 = lambda (t_1 = 1).
  const rs = [r, mod(lambda, r)];
  const ts = [0n, 1n];
  while (rs[rs.length - 1] !== 0n) {
    const i = rs.length - 1;
    const q = rs[i - 1] / rs[i];
    rs.push(rs[i - 1] - q * rs[i]);
    ts.push(ts[i - 1] - q * ts[i]);
  }
  let m = 0;
  for (let i = 0; i < rs.length; i++) if (rs[i] * rs[i] >= r) m = i;
  const vec = (i) => [rs[i], -ts[i]];
  const norm2 = ([x, y]) => x * x + y * y;
  const v1 = vec(m + 1);
  const cands = [vec(m)];
  if (m + 2 < rs.length) cands.push(vec(m + 2));
  const v2 = cands.length === 2 && norm2(cands[1]) < norm2(cands[0]) ? cands[1] : cands[0];
  for (const [x, y] of [v1, v2]) {
    if (mod(x + y * lambda, r) !== 0n) throw new Error('basis vector not in lattice');
  }
  const det = v1[0] * v2[1] - v1[1] * v2[0];
  if (det !== r && det !== -r) throw new Error('basis does not span the lattice');
  return [v1, v2];
}

/**
 * Split k into (k0, k1) with k0 + k1*lambda = k mod r by Babai rounding:
 * write (k, 0) in the basis over Q, round the coefficients, and subtract the
 * resulting lattice vector. What is left is within half a basis vector of
 * the origin in each direction, hence about sqrt(r) in size.
 * @param {bigint} k any integer (reduced mod r first)
 * @param {[[bigint, bigint], [bigint, bigint]]} basis from reducedBasis
 * @param {bigint} r
 * @param {bigint} lambda
 * @returns {{ k0: bigint, k1: bigint }} signed
 */
export function decompose(k, basis, r, lambda) {
  const kk = mod(k, r);
  const [[a1, b1], [a2, b2]] = basis;
  const det = a1 * b2 - a2 * b1;
  // (kk, 0) = c1*v1 + c2*v2 with c1 = kk*b2/det, c2 = -kk*b1/det (Cramer).
  const c1 = roundDiv(kk * b2, det);
  const c2 = roundDiv(-kk * b1, det);
  const k0 = kk - c1 * a1 - c2 * a2;
  const k1 = -c1 * b1 - c2 * b2;
  if (mod(k0 + k1 * lambda - kk, r) !== 0n) throw new Error('decompose: identity failed');
  return { k0, k1 };
}

/** Nearest integer to n/d (ties upward), exact for any signs. */
function roundDiv(n, d) {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  return floorDiv(2n * n + d, 2n * d);
}

/** floor(n/d) for d > 0; BigInt division truncates toward zero instead. */
function floorDiv(n, d) {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}
