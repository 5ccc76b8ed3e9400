// Helpers shared by the field kernels: limb loads/stores and carry chains over i64 locals.
// A field element in memory is n little-endian words, each holding one w-bit limb: u32 words for the integer
// kernels (w <= 32), u64 words for the FMA kernels (w = 51 or 52): params.limbBytes says which.

import { i32, i64, local, comment } from '../wat/index.js';

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
 * A carry chain: r_j = f(j) + carry, keeping w bits and passing the rest on. `signed` uses an
 * arithmetic shift so a borrow travels as -1. Results land in locals `${dst}${j}`.
 */
export function chain(fn, { n, w, dst, term, signed = false, keepTopCarry = false, carry = 'carry' }) {
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

export const limbConst = (x) => i64.const(`0x${BigInt(x).toString(16)}`);
export { i32, i64, local, comment };
