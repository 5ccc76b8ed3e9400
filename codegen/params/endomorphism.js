// A degree-2 endomorphism of a short-Weierstrass curve y^2 = x^3 + a x + b (a != 0), found from the curve alone: the
// GLV map of curves with complex multiplication by sqrt(-2) (Bandersnatch; Masson, Sanso, Zhang, ePrint 2021/1152) or
// by (1 + sqrt(-7)) / 2. Derived and checked at generation time; the cube-root map of a = 0 curves is params/glv.js.
//
// Math. A rational point T = (x0, 0) of order 2 is the kernel of a 2-isogeny phi: E -> E' (Velu 1971):
//   v = 3 x0^2 + a,   phi(x, y) = (x + v / (x - x0),  y (1 - v / (x - x0)^2)),
//   E': y^2 = x^3 + (a - 5v) x + (b - 7 x0 v).
// When E' is isomorphic to E over F_p, by (x, y) -> (m^2 x, m^3 y) with a = m^4 a' and b = m^6 b' (so
// m^2 = (b a') / (a b') and m a square root of it in F_p), psi = iso o phi is an endomorphism of E of degree 2.
// Its characteristic polynomial is psi^2 - t psi + 2 = 0 with |t| < 2 sqrt 2; on the subgroup of order r, psi acts
// as multiplication by a root lambda of lambda^2 - t lambda + 2 mod r. t is read off psi(psi(G)) + 2G = t psi(G),
// lambda from lambda G = psi(G). psi(T) = infinity; the MSM applies psi to points of order r only (and to any
// point, with the result documented as wrong when the point has a small-order part, as for every GLV curve).

import { mod, modInverse, modSqrt } from './number-theory.js';
import { affineOps } from './curve.js';

// ---- polynomials over F_p, coefficient arrays from the constant term up ----

const trim = (f) => {
  const g = f.slice();
  while (g.length && g[g.length - 1] === 0n) g.pop();
  return g;
};

function polyDivmod(f, g, p) {
  let r = trim(f);
  const q = [];
  const lead = modInverse(g[g.length - 1], p);
  while (r.length >= g.length) {
    const k = r.length - g.length;
    const c = mod(r[r.length - 1] * lead, p);
    q[k] = c;
    for (let i = 0; i < g.length; i++) r[k + i] = mod(r[k + i] - c * g[i], p);
    r = trim(r);
  }
  return { q, r };
}

function polyMulMod(f, g, m, p) {
  const out = new Array(f.length + g.length).fill(0n);
  f.forEach((x, i) => g.forEach((y, j) => (out[i + j] = mod(out[i + j] + x * y, p))));
  return polyDivmod(out, m, p).r;
}

function polyPowMod(f, e, m, p) {
  let acc = [1n];
  let base = polyDivmod(f, m, p).r;
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) acc = polyMulMod(acc, base, m, p);
    base = polyMulMod(base, base, m, p);
  }
  return acc;
}

function polyGcd(f, g, p) {
  let [u, v] = [trim(f), trim(g)];
  while (v.length) [u, v] = [v, polyDivmod(u, v, p).r];
  const lead = modInverse(u[u.length - 1], p);
  return u.map((c) => mod(c * lead, p));
}

const sub = (f, g, p) => trim(Array.from({ length: Math.max(f.length, g.length) }, (_, i) => mod((f[i] ?? 0n) - (g[i] ?? 0n), p)));

/** The roots in F_p of a squarefree monic f: gcd(f, x^p - x), then split by Cantor-Zassenhaus. */
export function polyRoots(f, p) {
  const xp = polyPowMod([0n, 1n], p, f, p);
  const linear = polyGcd(f, sub(xp, [0n, 1n], p), p);
  const roots = [];
  const split = (g) => {
    if (g.length <= 1) return;
    if (g.length === 2) {
      roots.push(mod(-g[0], p));
      return;
    }
    for (let delta = 0n; ; delta++) {
      const h = polyGcd(g, sub(polyPowMod([delta, 1n], (p - 1n) / 2n, g, p), [1n], p), p);
      if (h.length > 1 && h.length < g.length) {
        split(h);
        split(polyDivmod(g, h, p).q);
        return;
      }
    }
  };
  split(linear);
  return roots.sort((u, v) => (u < v ? -1 : 1));
}

/**
 * The map of an endomorphism as GLV params name it (glv.endomorphism): { kind: 'beta', beta }, (x, y) -> (beta x, y);
 * or { kind: 'degree-2', x0, v, m2, m3 }, (x, y) -> (m2 (x + v / (x - x0)), m3 y (1 - v / (x - x0)^2)). Affine
 * points { x, y } mod p, null for infinity (and for the point (x0, 0) the degree-2 map sends there).
 */
export function endomorphismMap(endomorphism, p) {
  if (endomorphism.kind === 'beta') return (P) => (P === null ? null : { x: mod(endomorphism.beta * P.x, p), y: P.y });
  const { x0, v, m2, m3 } = endomorphism;
  return (P) => {
    if (P === null || P.x === x0) return null;
    const s = modInverse(mod(P.x - x0, p), p);
    return { x: mod(m2 * (P.x + v * s), p), y: mod(m3 * P.y * (1n - v * s * s), p) };
  };
}

/**
 * The degree-2 endomorphism of the curve ({ p, r, a, b, generator }), or null when it has none over F_p:
 * { kind: 'degree-2', x0, v, m2, m3, t, lambda }, psi(x, y) = (m2 (x + v / (x - x0)), m3 y (1 - v / (x - x0)^2)).
 */
export function findDegreeTwoEndomorphism({ p, r, a, b, generator: G }) {
  a = mod(a, p);
  b = mod(b, p);
  if (a === 0n || b === 0n || p < 5n) return null;
  const ops = affineOps(p, a);
  const inv = (x) => modInverse(mod(x, p), p);
  for (const x0 of polyRoots([b, a, 0n, 1n], p)) {
    const v = mod(3n * x0 * x0 + a, p);
    const a1 = mod(a - 5n * v, p);
    const b1 = mod(b - 7n * x0 * v, p);
    if (a1 === 0n || b1 === 0n) continue;
    const m2 = mod(b * a1 * inv(a * b1), p);
    if (mod(m2 * m2 * a1 - a, p) !== 0n || mod(m2 * m2 * m2 * b1 - b, p) !== 0n) continue; // E' not isomorphic to E
    const m = modSqrt(m2, p);
    if (m === null) continue; // isomorphic over F_p(m) only: psi maps to the quadratic twist
    const m3 = mod(m2 * m, p);
    const psi = endomorphismMap({ kind: 'degree-2', x0, v, m2, m3 }, p);
    const pG = psi(G);
    if (pG === null || !ops.onCurve(pG, b)) throw new Error('degree-2 endomorphism: psi(G) is not on the curve');
    const ppG = psi(pG);
    const lhs = ops.add(ppG, ops.mul(G, 2n));
    let t = null;
    for (const c of [0n, 1n, -1n, 2n, -2n]) {
      const rhs = c === 0n ? null : ops.mul(c > 0n ? pG : { x: pG.x, y: mod(-pG.y, p) }, c > 0n ? c : -c);
      if ((lhs === null && rhs === null) || (lhs && rhs && lhs.x === rhs.x && lhs.y === rhs.y)) t = c;
    }
    if (t === null) throw new Error('degree-2 endomorphism: psi^2 - t psi + 2 != 0 for every |t| <= 2');
    const root = modSqrt(mod(t * t - 8n, r), r);
    if (root === null) continue; // psi does not act on the subgroup of order r as a scalar
    const half = (r + 1n) / 2n;
    for (const lambda of [mod((t + root) * half, r), mod((t - root) * half, r)].sort((u, w) => (u < w ? -1 : 1))) {
      const lG = ops.mul(G, lambda);
      if (lG && lG.x === pG.x && lG.y === pG.y) {
        if (mod(lambda * lambda - t * lambda + 2n, r) !== 0n) throw new Error('degree-2 endomorphism: lambda^2 - t lambda + 2 != 0 mod r');
        return Object.freeze({ kind: 'degree-2', x0, v, m2, m3, t, lambda });
      }
    }
  }
  return null;
}
