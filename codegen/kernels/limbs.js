// Helpers shared by the field kernels: limb loads/stores and carry chains over i64 locals.
// A field element in memory is n little-endian u32 words, each holding one w-bit limb.

import { i32, i64, local, comment } from '../wat/index.js';

export const limbOffset = (j) => 4 * j;
export const loadLimb = (ptr, j) => i64.load32_u(local.get(ptr), limbOffset(j));
export const storeLimb = (ptr, j, value) => i64.store32(local.get(ptr), value, limbOffset(j));
export const maskConst = (w) => i64.const(`0x${((1n << BigInt(w)) - 1n).toString(16)}`);
export const shiftConst = (w) => i64.const(w);

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
