// Pseudo-Mersenne primes p = 2^k - c with small c: the constants of Crandall's reduction
// (codegen/kernels/field-mul-crandall.js) and the bounds that make it exact, checked once per prime and limb size.

const U64_MAX = (1n << 64n) - 1n;

/**
 * The constants of the reduction for p = 2^k - c, n limbs of w bits, or null when p is not of that form with a
 * c small enough: k = bits(p), c = 2^k - p < 2^w, j0 = ceil(k / w), cF = c 2^(j0 w - k) (< 2^(2w), one or two
 * limbs). The value bounds of the kernel's steps B and C: null unless its output is below 2p for every input pair
 * below 2p (the kernel checks its limb and column bounds as it is generated).
 */
export function crandallConstants({ p, w, n, bits: k }) {
  const c = (1n << BigInt(k)) - p;
  if (c <= 0n || c >= 1n << BigInt(Math.min(w, k - 2))) return null; // c < 2^w keeps c T in one product; k - 2: p well above 2^(k-1)
  const W = BigInt(w);
  const j0 = Math.ceil(k / w);
  const F = BigInt(j0 * w);
  const cF = c << (F - BigInt(k));
  const cLimbs = cF >> W ? [cF & ((1n << W) - 1n), cF >> W] : [cF]; // cF in w-bit limbs
  const X = (2n * p - 1n) ** 2n; // the largest product of two inputs below 2p
  const vMax = ((1n << F) - 1n) + cF * (X >> F); // step B's value
  const tMax = vMax >> BigInt(k); // V >> k
  const outMax = ((1n << BigInt(k)) - 1n) + c * tMax; // step C's value
  if (outMax >= 2n * p) return null;
  if (c * tMax + (1n << W) > U64_MAX) return null;
  return Object.freeze({ k, c, j0, cF, cLimbs: Object.freeze(cLimbs), productMax: X, foldMax: vMax, tMax, outMax });
}

