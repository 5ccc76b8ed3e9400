// An independent BigInt reimplementation of snarkjs's Groth16 prover (snarkjs src/groth16_prove.js), the oracle
// groth16Prove is compared with: Fr in BigInt, G1 / G2 by @noble/curves. Slow (a DFT in BigInt): small circuits only.
//
// The algebra, as snarkjs does it:
//   A_T[c] = sum of coefficient * w[signal] over matrix 0's records of constraint c (B_T the same for matrix 1),
//   C_T = A_T .* B_T on the domain of size n = domainSize;
//   A, B, C = their coefficients (inverse DFT), then evaluations on the coset g H, g = ffjavascript's Fr.w[power + 1]
//   (a primitive 2n-th root; Fr.shift when power is Fr's two-adicity), which is where the zkey's H points are the
//   odd Lagrange points of the 2n domain; P = A .* B - C there, the scalars of the H MSM;
//   pi_a = A + alpha1 + r delta1; pi_b = B2 + beta2 + s delta2; pib1 = B1 + beta1 + s delta1;
//   pi_c = C + H + s pi_a + r pib1 - r s delta1.

import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { decodePoint, coefficients } from '../src/groth16/zkey.js';
import { witnessValues } from '../src/groth16/wtns.js';

const NOBLE = { bn128: bn254, bls12381: bls12_381 };

const mod = (a, m) => ((a % m) + m) % m;
function pow(b, e, m) {
  let r = 1n;
  for (b = mod(b, m); e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
const inv = (a, m) => pow(a, m - 2n, m);

/**
 * Roots of unity as ffjavascript derives them (src/wasm_field1.js): nqr the smallest integer >= 2 with
 * nqr^((r-1)/2) = -1, r - 1 = 2^s t with t odd, w[s] = nqr^t, w[i] = w[i+1]^2; shift = nqr^2.
 * @returns {{ s: number, w: bigint[], shift: bigint }}
 */
export function rootsOfUnity(r) {
  let nqr = 2n;
  while (pow(nqr, (r - 1n) >> 1n, r) !== r - 1n) nqr++;
  let s = 0;
  let t = r - 1n;
  while (!(t & 1n)) {
    s++;
    t >>= 1n;
  }
  const w = [];
  w[s] = pow(nqr, t, r);
  for (let i = s - 1; i >= 0; i--) w[i] = (w[i + 1] * w[i + 1]) % r;
  if (w[0] !== 1n) throw new Error('roots of unity: w[0] is not 1');
  return { s, w, shift: (nqr * nqr) % r };
}

/** The DFT of a (length a power of two) at root: out[i] = sum_j a[j] root^(i j), radix-2 recursive. */
export function dft(a, root, r) {
  const n = a.length;
  if (n === 1) return [a[0]];
  const even = dft(a.filter((_, i) => i % 2 === 0), (root * root) % r, r);
  const odd = dft(a.filter((_, i) => i % 2 === 1), (root * root) % r, r);
  const out = new Array(n);
  let x = 1n;
  for (let i = 0; i < n / 2; i++, x = (x * root) % r) {
    const t = (x * odd[i]) % r;
    out[i] = (even[i] + t) % r;
    out[i + n / 2] = mod(even[i] - t, r);
  }
  return out;
}

/** The coefficients of the polynomial whose evaluations at root^i are v: the inverse DFT (1/n included). */
export function idft(v, root, r) {
  const nInv = inv(BigInt(v.length), r);
  return dft(v, inv(root, r), r).map((x) => (x * nInv) % r);
}

/** The polynomial with coefficients a evaluated at g * root^i (scaling a[i] by g^i, as batchApplyKey does). */
export function cosetDft(a, g, root, r) {
  let k = 1n;
  return dft(a.map((x) => {
    const y = (x * k) % r;
    k = (k * g) % r;
    return y;
  }), root, r);
}

/** Points of an LEM section (G1: coords 1, G2: coords 2) as noble Points. */
function points(bytes, header, coords, Point) {
  const size = 2 * coords * header.n8q;
  const out = [];
  for (let at = 0; at < bytes.length; at += size) out.push(toNoble(Point, decodePoint(bytes.subarray(at, at + size), header, coords), coords));
  return out;
}

function toNoble(Point, p, coords) {
  if (p === null) return Point.ZERO;
  if (coords === 1) return Point.fromAffine(p);
  const F2 = Point.Fp;
  return Point.fromAffine({ x: F2.create(p.x), y: F2.create(p.y) });
}

/** sum s_i P_i (zero scalars and points at infinity welcome). */
function msm(Point, pts, scalars) {
  if (pts.length !== scalars.length) throw new Error(`msm: ${pts.length} points, ${scalars.length} scalars`);
  return pts.length ? pippenger(Point, pts, scalars) : Point.ZERO;
}

const mul = (P, k) => (k === 0n ? P.constructor.ZERO : P.multiply(k));

/** A G1 / G2 point in snarkjs's JSON: projective with z "1" (G2 coordinates [c0, c1]); infinity as snarkjs writes it. */
function g1Json(P) {
  if (P.is0()) return ['0', '1', '0'];
  const { x, y } = P.toAffine();
  return [String(x), String(y), '1'];
}
function g2Json(P) {
  if (P.is0()) return [['0', '0'], ['1', '0'], ['0', '0']];
  const { x, y } = P.toAffine();
  return [[String(x.c0), String(x.c1)], [String(y.c0), String(y.c1)], ['1', '0']];
}

/**
 * The intermediate values of the prover, for tests of each step: { A_T, B_T, C_T, coset, P } (BigInt arrays and
 * the coset generator), from a readZkey() result and a readWtns() result.
 */
export function quotientScalars(zkey, wtns) {
  const { header, sections } = zkey;
  const { r, domainSize: n, power } = header;
  const w = witnessValues(wtns);
  const A_T = new Array(n).fill(0n);
  const B_T = new Array(n).fill(0n);
  for (const { matrix, constraint, signal, value } of coefficients(sections[4], header)) {
    const T = matrix === 0 ? A_T : B_T;
    T[constraint] = (T[constraint] + value * w[signal]) % r;
  }
  const C_T = A_T.map((a, i) => (a * B_T[i]) % r);
  const roots = rootsOfUnity(r);
  const coset = power === roots.s ? roots.shift : roots.w[power + 1];
  const root = roots.w[power];
  const [A, B, C] = [A_T, B_T, C_T].map((T) => cosetDft(idft(T, root, r), coset, root, r));
  const P = A.map((a, i) => mod(a * B[i] - C[i], r));
  return { A_T, B_T, C_T, coset, P };
}

/**
 * The Groth16 proof of `wtns` under `zkey` with blinding r and s (BigInts in [0, r)), exactly as snarkjs computes it,
 * in snarkjs's JSON: { proof: { pi_a, pi_b, pi_c, protocol: 'groth16', curve }, publicSignals }.
 * zkey: readZkey()'s { header, sections } (sections 4 to 9); wtns: readWtns()'s result.
 */
export function referenceProve(zkey, wtns, { r: rr, s: ss }) {
  const { header, sections } = zkey;
  const { r, nPublic, curve } = header;
  const { G1, G2 } = NOBLE[curve];
  const w = witnessValues(wtns);
  const { P } = quotientScalars(zkey, wtns);

  const A = msm(G1.Point, points(sections[5], header, 1, G1.Point), w);
  const B1 = msm(G1.Point, points(sections[6], header, 1, G1.Point), w);
  const B2 = msm(G2.Point, points(sections[7], header, 2, G2.Point), w);
  const C = msm(G1.Point, points(sections[8], header, 1, G1.Point), w.slice(nPublic + 1));
  const H = msm(G1.Point, points(sections[9], header, 1, G1.Point), P);

  const alpha1 = toNoble(G1.Point, header.vk_alpha_1, 1);
  const beta1 = toNoble(G1.Point, header.vk_beta_1, 1);
  const beta2 = toNoble(G2.Point, header.vk_beta_2, 2);
  const delta1 = toNoble(G1.Point, header.vk_delta_1, 1);
  const delta2 = toNoble(G2.Point, header.vk_delta_2, 2);

  const pi_a = A.add(alpha1).add(mul(delta1, rr));
  const pi_b = B2.add(beta2).add(mul(delta2, ss));
  const pib1 = B1.add(beta1).add(mul(delta1, ss));
  const pi_c = C.add(H).add(mul(pi_a, ss)).add(mul(pib1, rr)).add(mul(delta1, mod(-rr * ss, r)));

  return {
    proof: { pi_a: g1Json(pi_a), pi_b: g2Json(pi_b), pi_c: g1Json(pi_c), protocol: 'groth16', curve },
    publicSignals: w.slice(1, nPublic + 1).map(String),
  };
}
