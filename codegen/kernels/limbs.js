// Helpers shared by the field kernels: limb loads/stores and carry chains over i64 locals.
// A field element in memory is n little-endian words, each holding one w-bit limb: u32 words for the integer
// kernels (w <= 32), u64 words for the FMA kernels (w = 51 or 52) and the wide kernels (w = 64): params.limbBytes
// says which.

import { i32, i64, local, comment, drop } from '../wat/index.js';

export const limbOffset = (j) => 4 * j;
export const loadLimb = (ptr, j) => i64.load32_u(local.get(ptr), limbOffset(j));
export const storeLimb = (ptr, j, value) => i64.store32(local.get(ptr), value, limbOffset(j));
export const maskConst = (w) => i64.const(`0x${((1n << BigInt(w)) - 1n).toString(16)}`);
export const shiftConst = (w) => i64.const(w);

/**
 * Loads and stores of one element's limbs for params' word size: load(ptr, j) -> i64, store(ptr, j, i64), and
 * whole-element copy(out, x) and setConst(out, limbs) as word moves (ptr names a local).
 */
export function limbAccess({ n, limbBytes = 4 }) {
  if (limbBytes === 4) {
    return {
      load: loadLimb,
      store: storeLimb,
      copy: (out, x) => Array.from({ length: n }, (_, j) => i32.store(local.get(out), i32.load(local.get(x), 4 * j), 4 * j)),
      setConst: (out, limbs) => limbs.map((l, j) => i32.store(local.get(out), i32.const(`0x${l.toString(16)}`), 4 * j)),
    };
  }
  if (limbBytes !== 8) throw new RangeError(`limbBytes must be 4 or 8, got ${limbBytes}`);
  return {
    load: (ptr, j) => i64.load(local.get(ptr), 8 * j),
    store: (ptr, j, value) => i64.store(local.get(ptr), value, 8 * j),
    copy: (out, x) => Array.from({ length: n }, (_, j) => i64.store(local.get(out), i64.load(local.get(x), 8 * j), 8 * j)),
    setConst: (out, limbs) => limbs.map((l, j) => i64.store(local.get(out), limbConst(l), 8 * j)),
  };
}

/**
 * The terms of a carry chain for params' limb size: add(a, b) and sub(a, b) of limbs and small corrections.
 * Below 64 bits a limb leaves headroom in an i64, so they are i64.add / i64.sub. A 64-bit limb (the wide build)
 * leaves none: they are 128-bit (i64.add128 / i64.sub128 on (limb, 0) pairs) and return a Wide128 that chain()
 * takes apart; an operand may itself be one, so x + p - y is sub(add(x, p), y) in either case.
 */
export function limbTerms({ w }) {
  if (w < 64) return { add: i64.add, sub: i64.sub };
  const pair = (v) => (v instanceof Wide128 ? [v.expr] : [v, i64.const(0)]);
  return {
    add: (a, b) => new Wide128(i64.add128(...pair(a), ...pair(b))),
    sub: (a, b) => new Wide128(i64.sub128(...pair(a), ...pair(b))),
  };
}

/** A 128-bit two's complement value on the stack as (low, high): a term of the 64-bit limb carry chain. */
class Wide128 {
  constructor(expr) {
    this.expr = expr;
  }
}

/**
 * A carry chain: r_j = f(j) + carry, keeping w bits and passing the rest on. `signed` uses an
 * arithmetic shift so a borrow travels as -1. Results land in locals `${dst}${j}`. Terms come from
 * limbTerms (or are plain limb loads). For w = 64 the sum is 128-bit: its low word is the limb and its high
 * word the carry (floor division by 2^64, so a borrow is -1 there too); the top limb without keepTopCarry
 * keeps the low word, as the top limb of every chain that drops its carry holds a value below R.
 */
export function chain(fn, { n, w, dst, term, signed = false, keepTopCarry = false, carry = 'carry' }) {
  if (w === 64) return wideChain(fn, { n, dst, term, signed, keepTopCarry, carry });
  const out = [];
  fn.local(carry);
  for (let j = 0; j < n; j++) {
    const t = j === 0 ? term(j) : i64.add(term(j), local.get(carry));
    const d = fn.local(`${dst}${j}`);
    if (j < n - 1 || keepTopCarry) {
      out.push(local.set(d, t));
      out.push(local.set(carry, (signed ? i64.shr_s : i64.shr_u)(local.get(d), shiftConst(w))));
      out.push(local.set(d, i64.and(local.get(d), maskConst(w))));
    } else {
      out.push(local.set(d, t));
    }
  }
  return out;
}

function wideChain(fn, { n, dst, term, signed, keepTopCarry, carry }) {
  const out = [];
  fn.local(carry);
  const zero = i64.const(0);
  const carryPair = () => [local.get(carry), signed ? i64.shr_s(local.get(carry), i64.const(63)) : zero];
  for (let j = 0; j < n; j++) {
    const t = term(j);
    const d = fn.local(`${dst}${j}`);
    let e = t instanceof Wide128 ? t.expr : null;
    if (j > 0) e = i64.add128(...(e === null ? [t, zero] : [e]), ...carryPair());
    if (e === null) {
      // a plain limb with nothing to add: no carry
      out.push(local.set(d, t));
      if (j < n - 1 || keepTopCarry) out.push(local.set(carry, zero));
      continue;
    }
    out.push(e, j < n - 1 || keepTopCarry ? local.pop(carry) : drop(), local.pop(d));
  }
  return out;
}

export const limbConst = (x) => i64.const(`0x${BigInt(x).toString(16)}`);
export { i32, i64, local, comment };
