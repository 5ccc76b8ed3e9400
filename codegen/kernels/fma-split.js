// The exact split of a limb product by two fused multiply-adds, shared by the FMA products (field-mul-fma.js:
// Montgomery; field-mul-fma-crandall.js: pseudo-Mersenne). field-mul-fma.js's header says why it is exact.

import { i64, i64x2, f64x2, v128, local } from '../wat/index.js';

export const F64_MANTISSA = 52;

/** The IEEE-754 bits of an f64, as a BigInt. */
export function f64Bits(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0);
}

/** An f64 constant in text: decimal for integers below 2^53, else the exact hex float of its bits. */
export function f64Literal(x) {
  if (Number.isSafeInteger(x)) return String(x);
  const bits = f64Bits(x);
  const exponent = Number((bits >> 52n) & 0x7ffn) - 1023;
  if (x <= 0 || exponent === 1024 || exponent === -1023) throw new RangeError(`${x}: only positive normal constants here`);
  return `0x1.${(bits & ((1n << 52n) - 1n)).toString(16).padStart(13, '0')}p+${exponent}`;
}

/**
 * The constants of the split for limb size W, checked: the facts the header comment relies on, proven with
 * exact integer arithmetic on the f64 values (IEEE-754 round-to-nearest, the only mode Wasm has).
 */
export function splitConstants(W) {
  const C = 2 ** (W + F64_MANTISSA);
  const K = 1.5 * 2 ** F64_MANTISSA;
  const ulp = (x) => 2n ** BigInt(Math.floor(Math.log2(x)) - F64_MANTISSA);
  const limbMax = (1n << BigInt(W)) - 1n;
  // C + ab with ab <= limbMax^2 stays below 2C, so hi keeps C's exponent and its ulp 2^W
  if (!(limbMax * limbMax < BigInt(C)) || ulp(C) !== 1n << BigInt(W)) throw new Error(`split: W = ${W} leaves C's binade`);
  // L + K in [2^52, 2^53] for |L| <= 2^(W-1): an integer the f64 holds exactly; bits(lo) - bits(K) = L also at 2^53
  const halfUlp = 1n << BigInt(W - 1);
  if (!(BigInt(K) - halfUlp >= 1n << 52n && BigInt(K) + halfUlp <= 1n << 53n)) throw new Error(`split: W = ${W} leaves K's binade`);
  // C + K as one f64 (three-op split): exact iff K is a multiple of C's ulp
  const fusedSub = BigInt(K) % ulp(C) === 0n;
  return { C, K, fusedSub, bitsC: f64Bits(C), bitsK: f64Bits(K), bits52: f64Bits(2 ** 52) };
}

/** 2^62: every column holds true value + COLUMN_OFFSET, so (column >> W) is a logical shift. */
export const COLUMN_OFFSET = 1n << 62n;

/**
 * The building blocks of one paired product (lanes 2s and 2s + 1): v(name) declares a v128 local of this pair,
 * get(name) reads it, fc / ic splat an f64 / i64 constant, toF64 converts i64 lanes below 2^52 to f64 exactly, and
 * product(a, b) appends the split of a b to `out` and returns [hi, lo] as raw bits: H + bits(C), L + bits(K).
 */
export function pairHelpers(fn, s, { C, K, fusedSub, bits52 }) {
  const v = (name) => fn.local(`${name}_${s}`, 'v128');
  const get = (name) => local.get(`${name}_${s}`);
  const fc = (x) => f64x2.splat(`(f64.const ${f64Literal(x)})`);
  const ic = (x) => i64x2.splat(i64.const(`0x${BigInt.asUintN(64, x).toString(16)}`));
  const toF64 = (ints) => f64x2.sub(v128.or(ints, ic(bits52)), fc(2 ** 52)); // exact for ints < 2^52
  const out = [];
  let tmp = 0;
  const product = (a, b) => {
    const id = tmp++ % 4;
    const [hi, lo] = [v(`h${id}`), v(`l${id}`)];
    out.push(local.set(hi, f64x2.relaxed_madd(a, b, fc(C))));
    out.push(
      local.set(lo, fusedSub
        ? f64x2.relaxed_madd(a, b, f64x2.sub(fc(C + K), local.get(hi)))
        : f64x2.add(f64x2.relaxed_madd(a, b, f64x2.sub(fc(C), local.get(hi))), fc(K))),
    );
    return [local.get(hi), local.get(lo)];
  };
  return { v, get, fc, ic, toF64, product, out };
}
