// The independent side of the MSM suites: msmBytes encodings written without the library's encoders, one input holding
// every degenerate case, double-and-add for any group law, affine twisted Edwards arithmetic from the curve equation,
// and the list of shipped short-Weierstrass curves.

import { readFileSync } from 'node:fs';
import { randomScalar } from '../src/bigint/curve.js';
import { curveNames } from '../index.js';

export function writeLE(x, out, offset, length) {
  for (let i = 0; i < length; i++, x >>= 8n) out[offset + i] = Number(x & 0xffn);
}

/** Points ({ x, y } or null) as x | y little-endian, B bytes each; coordinates written as given, even out of range. */
export function pointsToBytes(B, points) {
  const out = new Uint8Array(points.length * 2 * B);
  points.forEach((P, i) => {
    if (P === null) return;
    writeLE(P.x, out, 2 * B * i, B);
    writeLE(P.y, out, 2 * B * i + B, B);
  });
  return out;
}

/** Scalars as S-byte little-endian integers. */
export function scalarsToBytes(S, scalars) {
  const out = new Uint8Array(scalars.length * S);
  scalars.forEach((s, i) => writeLE(s, out, S * i, S));
  return out;
}

/** One input holding every degenerate case, in a non-power-of-two count. */
export function degenerateInput(curve, oracle, pool, rng) {
  const r = curve.r;
  const P = pool[0];
  const Q = pool[1];
  const points = [];
  const scalars = [];
  const add = (pt, s) => {
    points.push(pt);
    scalars.push(s);
  };
  const s1 = randomScalar(rng, r);
  for (let i = 0; i < 40; i++) add(P, s1); // one bucket in every window: doublings
  for (let i = 0; i < 9; i++) add(Q, 1n);
  add(Q, r - 1n); // Q - Q inside the bucket sums
  const s2 = randomScalar(rng, r);
  for (let i = 0; i < 6; i++) add(oracle.neg(pool[2]), s2);
  for (let i = 0; i < 6; i++) add(pool[2], s2); // P + (-P) cancels
  add(null, s2); // infinity
  for (let i = 3; i < 20; i++) add(pool[i], 0n); // zero scalars
  for (const s of [1n, 2n, r - 1n, r - 2n, (r - 1n) / 2n, 1n << 64n, (1n << 127n) - 1n]) add(pool[30], s);
  if (curve.params.glv) add(pool[31], curve.params.glv.lambda);
  for (let i = 40; points.length < 123; i++) add(pool[i], randomScalar(rng, r));
  return { points, scalars };
}

/** k * P by double-and-add from the top bit, for any group law add(P, Q) with null as the neutral element. */
export function doubleAndAdd(add, P, k) {
  let acc = null;
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    acc = add(acc, acc);
    if ((k >> BigInt(i)) & 1n) acc = add(acc, P);
  }
  return acc;
}

/**
 * Affine twisted Edwards arithmetic on a x^2 + y^2 = 1 + d x^2 y^2 over F_p, written from the curve equation alone
 * (no map to another model): the unified addition law x3 = (x1 y2 + y1 x2) / (1 + d t), y3 = (y1 y2 - a x1 x2) /
 * (1 - d t), t = x1 x2 y1 y2 (Bernstein et al. 2008), which is complete for a square a and a non-square d and holds
 * on Bandersnatch's (non-square a) points of order r. null is accepted as the neutral element (0, 1) (doubleAndAdd
 * starts from it) and never returned. liftY(y) is a point with that y (either root) or null.
 */
export function edwardsOps({ p, a, d }) {
  const m = (v) => ((v % p) + p) % p;
  const inv = (v) => {
    let [r0, r1, s0, s1] = [m(v), p, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    if (r0 !== 1n) throw new Error('edwardsOps: a denominator of the addition law is zero');
    return m(s0);
  };
  const ZERO = Object.freeze({ x: 0n, y: 1n });
  const add = (P, Q) => {
    P ??= ZERO;
    Q ??= ZERO;
    const t = m(d * P.x * Q.x % p * P.y % p * Q.y);
    return { x: m((P.x * Q.y + P.y * Q.x) * inv(1n + t)), y: m((P.y * Q.y - a * P.x * Q.x) * inv(1n - t)) };
  };
  const mul = (P, k) => doubleAndAdd(add, P, k) ?? ZERO;
  const neg = (P) => ({ x: m(-P.x), y: P.y });
  const onCurve = (P) => m(a * P.x * P.x + P.y * P.y - 1n - d * P.x * P.x % p * P.y * P.y) === 0n;
  const sqrt = (v) => {
    // Tonelli-Shanks (p odd prime)
    v = m(v);
    if (v === 0n) return 0n;
    const pow = (b, e) => {
      let r = 1n;
      for (b = m(b); e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p;
      return r;
    };
    if (pow(v, (p - 1n) / 2n) !== 1n) return null;
    let q = p - 1n;
    let s = 0;
    while (!(q & 1n)) [q, s] = [q >> 1n, s + 1];
    let z = 2n;
    while (pow(z, (p - 1n) / 2n) !== p - 1n) z++;
    let [M, c, t, R] = [s, pow(z, q), pow(v, q), pow(v, (q + 1n) / 2n)];
    while (t !== 1n) {
      let i = 0;
      for (let u = t; u !== 1n; u = (u * u) % p) i++;
      let b = c;
      for (let j = 0; j < M - i - 1; j++) b = (b * b) % p;
      [M, c, t, R] = [i, (b * b) % p, (t * b * b) % p, (R * b) % p];
    }
    return R;
  };
  const liftY = (y) => {
    const den = m(a - d * y * y);
    if (den === 0n) return null;
    const x = sqrt(m((1n - y * y) * inv(den)));
    return x === null ? null : { x, y: m(y) };
  };
  return { ZERO, add, mul, neg, onCurve, liftY, sqrt, inv };
}

/**
 * The shipped short-Weierstrass curves: the suites whose oracle (src/bigint/curve.js makeCurve) and hand-made
 * off-curve points are written for y^2 = x^3 + a x + b run on these; the twisted Edwards curves have their own
 * (edwards.test.js, edwards-codecs.test.js).
 */
export const WEIERSTRASS_CURVES = Object.freeze(
  curveNames.filter((n) => JSON.parse(readFileSync(new URL(`../codegen/curves/${n}.json`, import.meta.url), 'utf8')).model === undefined),
);
