// deriveFieldParams({ p, w }): everything the field kernels need for one prime and limb size, as one
// frozen object. The generated module prints it in its header.

import { bitLength, isProbablePrime, modInverse, toBigInt } from './number-theory.js';
import { planMontgomeryCarries } from './carry-plan.js';

export const MIN_LIMB_BITS = 26;
export const MAX_LIMB_BITS = 32;

/** Limbs of x in radix 2^w, least significant first, as BigInts. */
export function toLimbs(x, w, n) {
  const mask = (1n << BigInt(w)) - 1n;
  const limbs = [];
  for (let i = 0; i < n; i++) limbs.push((x >> BigInt(i * w)) & mask);
  if (x >> BigInt(n * w)) throw new RangeError(`${x} does not fit in ${n} limbs of ${w} bits`);
  return limbs;
}

export function fromLimbs(limbs, w) {
  return limbs.reduceRight((acc, l) => (acc << BigInt(w)) + BigInt(l), 0n);
}

/**
 * @param {{ p: bigint | string, w?: number, checkPrime?: boolean }} options
 * Lazy-reduction contract: every kernel accepts and returns values in [0, 2p) unless its name says
 * otherwise. n is the least limb count with 4p < R = 2^(n*w), which makes a Montgomery product of two
 * values in [0, 2p) land in [0, 2p) for every p of this bit length, including primes just below 2^(n*w - 2).
 */
export function deriveFieldParams({ p, w = 30, checkPrime = true } = {}) {
  if (typeof p !== 'bigint') {
    if (typeof p === 'string') p = toBigInt(p, 'p');
    else throw new TypeError(`p must be a BigInt (or a decimal/0x-hex string), got ${typeof p}`);
  }
  if (!Number.isInteger(w) || w < MIN_LIMB_BITS || w > MAX_LIMB_BITS) {
    throw new RangeError(`limb size w must be an integer in ${MIN_LIMB_BITS}..${MAX_LIMB_BITS}, got ${w}`);
  }
  if (p < 3n) throw new RangeError(`p must be an odd prime >= 3, got ${p}`);
  if ((p & 1n) === 0n) throw new RangeError(`p must be odd, got an even number (${p})`);
  if (checkPrime && !isProbablePrime(p)) throw new RangeError(`p is not prime: ${p}`);

  const bits = bitLength(p);
  const n = Math.ceil((bits + 2) / w);
  const W = BigInt(w);
  const R = 1n << BigInt(n * w);
  const limbMax = (1n << W) - 1n;
  const twoP = 2n * p;
  const pLimbs = toLimbs(p, w, n);
  const twoPLimbs = toLimbs(twoP, w, n);
  // Inputs are below 2p, so the top limb is bounded by that of 2p - 1.
  const topLimbMax = (twoP - 1n) >> BigInt((n - 1) * w);
  const yMax = pLimbs.map((_, j) => (j === n - 1 && topLimbMax < limbMax ? topLimbMax : limbMax));
  const carryPlan = planMontgomeryCarries({ n, w, xMax: limbMax, yMax, pLimbs });

  return Object.freeze({
    p,
    w,
    n,
    bits,
    bytes: Math.ceil(bits / 8),
    elementBytes: 4 * n,
    R,
    R2: (R * R) % p,
    one: R % p, // 1 in Montgomery form
    mu: Number((1n << W) - modInverse(p % (1n << W), 1n << W)), // -p^-1 mod 2^w
    pLimbs: Object.freeze(pLimbs),
    twoPLimbs: Object.freeze(twoPLimbs),
    limbMax,
    lazy: Object.freeze({ bound: '2p', condition: '4p < R', holds: 4n * p < R }),
    carryPlan,
  });
}

/** The parameters as printable lines, for module headers and the CLI. */
export function describeFieldParams(params) {
  const hex = (x) => '0x' + x.toString(16);
  return [
    `p = ${hex(params.p)} (${params.bits} bits)`,
    `w = ${params.w}, n = ${params.n}, R = 2^${params.n * params.w}, lazy range [0, 2p) since 4p < R`,
    `mu = -p^-1 mod 2^w = ${params.mu}`,
    `R^2 mod p = ${hex(params.R2)}`,
    `carry plan (operand-scanning shapes): ${params.carryPlan.summary}`,
  ];
}
