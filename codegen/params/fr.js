// The scalar field r of a curve as an NTT field: its limb shape (the same carry plan as any prime field), two-adicity
// s, a primitive 2^s-th root of unity and the default coset generator, each derived and self-checked here.

import { deriveFieldParams } from './field.js';
import { bitLength, modPow } from './number-theory.js';

/**
 * @param r the scalar-field prime
 * @param options.w limb bits (default 30: 9 limbs for the 251..256-bit r of every shipped curve)
 * @returns frozen { field (deriveFieldParams of r, with bytes = n8), n8, s, rootOfUnity, nonResidue, cosetGenerator }
 *   n8 = 8 ceil(bits / 64): bytes per canonical element, as snarkjs / ffjavascript write them;
 *   s: r - 1 = 2^s q, q odd; rootOfUnity = z^q for the least quadratic non-residue z, a primitive 2^s-th root of unity;
 *   cosetGenerator: the least non-residue g with g^(2^s) != 1, so g H is disjoint from every subgroup H of order 2^j <= 2^s
 */
export function deriveFrParams(r, { w = 30 } = {}) {
  const base = deriveFieldParams({ p: r, w });
  const n8 = 8 * Math.ceil(bitLength(r) / 64);
  if (n8 * 8 > base.n * base.w) throw new RangeError(`fr: ${n8}-byte elements do not fit ${base.n} limbs of ${base.w} bits`);
  const field = Object.freeze({ ...base, bytes: n8 });
  let q = r - 1n;
  let s = 0;
  while ((q & 1n) === 0n) {
    q >>= 1n;
    s++;
  }
  const isNonResidue = (z) => modPow(z, (r - 1n) / 2n, r) === r - 1n;
  let z = 2n;
  while (!isNonResidue(z)) z++;
  const rootOfUnity = modPow(z, q, r);
  // self-checks: the root has order exactly 2^s
  if (modPow(rootOfUnity, 1n << BigInt(s), r) !== 1n) throw new Error(`fr: root^(2^${s}) != 1 for r = ${r}`);
  if (s > 0 && modPow(rootOfUnity, 1n << BigInt(s - 1), r) === 1n) throw new Error(`fr: root^(2^${s - 1}) = 1 for r = ${r}`);
  let g = z;
  while (!isNonResidue(g) || modPow(g, 1n << BigInt(s), r) === 1n) g++;
  return Object.freeze({ r, field, n8, s, rootOfUnity, nonResidue: z, cosetGenerator: g });
}

/** A primitive 2^j-th root of unity (j <= s): rootOfUnity^(2^(s - j)). */
export function rootOfUnityOfOrder(fr, j) {
  if (!Number.isInteger(j) || j < 0 || j > fr.s) throw new RangeError(`fr: no root of unity of order 2^${j} (two-adicity s = ${fr.s})`);
  return modPow(fr.rootOfUnity, 1n << BigInt(fr.s - j), fr.r);
}
