// Montgomery product over 64-bit limbs with Wasm wide arithmetic: i64.mul_wide_u (64 x 64 -> 128 bits) and
// i64.add128, in the CIOS order (coarsely integrated operand scanning). For each limb y_i of y:
//   multiply   (t_j, C) = t_j + x_j y_i + C          j = 0 .. n-1, then t_n = C
//   reduce     m = t_0 mu mod 2^64, (_, C) = t_0 + m p_0 (the low word is 0 by the choice of m),
//              (t_(j-1), C) = t_j + m p_j + C        j = 1 .. n-1, then t_(n-1) = t_n + C
// One step of either loop cannot pass 2^128: (2^64 - 1) + (2^64 - 1)^2 + (2^64 - 1) = 2^128 - 1. The words t_n
// and the last adds are single i64 adds because the value t stays below 2^(64(n+1)) after a multiply and below
// 2^(64n) after a reduce: wideMontgomeryBounds proves both at generation time, step by step, from inputs in
// [0, 2p), and that the result is in [0, 2p) without a final subtraction (4p < R).
// Interleaving the two passes per column (two carry chains side by side, FIOS-like) was measured in Chromium
// 156: the same latency (BN254 20.0 ns) and no better throughput, so the simpler order stays.
//
// The opcodes are the wide-arithmetic proposal's (V8 behind --wasm-wide-arithmetic, Chromium 156 with
// --js-flags=--wasm-wide-arithmetic): a module holding one fails validation elsewhere, Node 20 and 24 included.

import { Func, i64, local, drop, comment } from '../wat/index.js';
import { deriveFieldParams } from '../params/field.js';
import { limbConst } from './limbs.js';

const WORD = 1n << 64n;
const WORD_MAX = WORD - 1n;

/** The wide layout's field parameters for p (deriveFieldParams with kernel 'wide', p not tested for primality). */
export function deriveWideParams(p) {
  if (typeof p !== 'bigint') throw new RangeError(`p must be an odd BigInt >= 3, got ${p}`);
  return deriveFieldParams({ p, kernel: 'wide', checkPrime: false });
}

/**
 * The bounds the kernel relies on, proven with exact integers for inputs x, y in [0, 2p) (any y limbs below 2^64,
 * any m below 2^64): after the multiply of step i, t < 2^(64(n+1)); after its reduce, t < 2^(64n); the output is
 * below 2p. Returns the bounds (tests print them); throws if one fails.
 */
export function wideMontgomeryBounds(fp) {
  const { n, p, R } = fp;
  if (fp.kernel !== 'wide' || fp.w !== 64) throw new RangeError('wideMontgomeryBounds: params of the wide layout (w = 64)');
  const xMax = 2n * p - 1n;
  // one multiply-accumulate step: t_j + x_j y_i + C with every term below 2^64
  if (WORD_MAX + WORD_MAX * WORD_MAX + WORD_MAX >= WORD * WORD) throw new Error('wide kernel: a limb step passes 2^128');
  const steps = [];
  let t = 0n;
  for (let i = 0; i < n; i++) {
    const afterMultiply = t + xMax * WORD_MAX;
    if (afterMultiply >= 1n << BigInt(64 * (n + 1))) throw new Error(`wide kernel: step ${i}: t could pass 2^${64 * (n + 1)} after the multiply`);
    t = (afterMultiply + WORD_MAX * p) >> 64n; // exact division: the reduce makes the low word 0
    if (t >= R) throw new Error(`wide kernel: step ${i}: t could pass R = 2^${64 * n} after the reduce`);
    steps.push({ afterMultiply, afterReduce: t });
  }
  // the result is (x y + M p) / R with M < R: below ((2p - 1)^2 + (R - 1) p) / R
  const outMax = (xMax * xMax + (R - 1n) * p) / R;
  if (outMax >= 2n * p) throw new Error('wide kernel: the output could reach 2p (needs 4p < R)');
  return { steps, outMax };
}

/**
 * `${name}(out, x, y)`: out = x y / R mod p (R = 2^(64n)), elements of n u64 limbs. Inputs in [0, 2p), output in
 * [0, 2p); every load precedes every store, so out may alias x or y. With `square`, `${name}(out, x)`: x^2 / R
 * (the same products: a squaring that halves them is not written yet). With `lanes: 2`,
 * `${name}(out0, x0, y0, out1, x1, y1)`: two independent products, their statements interleaved so that each
 * fills the other's latency; any out may alias any input.
 */
export function wideMontgomeryMul(fp, { name = 'mulWide', exportName = name, square = false, lanes = 1 } = {}) {
  if (lanes !== 1 && lanes !== 2) throw new RangeError(`lanes must be 1 or 2, got ${lanes}`);
  if (square && lanes !== 1) throw new RangeError('square: one product per call (lanes 1)');
  const { n } = fp;
  wideMontgomeryBounds(fp);
  const sfx = (l) => (lanes === 1 ? '' : String(l));
  const params = [];
  for (let l = 0; l < lanes; l++) params.push([`out${sfx(l)}`, 'i32'], [`x${sfx(l)}`, 'i32'], ...(square ? [] : [[`y${sfx(l)}`, 'i32']]));
  const fn = new Func(name, {
    params,
    exportName,
    doc: `${name}(${params.map(([p]) => p).join(', ')}): ${lanes === 2 ? 'out_l = x_l * y_l / R mod p for l < 2' : `out = ${square ? 'x^2' : 'x * y'} / R mod p`} (Montgomery product), R = 2^${64 * n}: ${n} limbs of 64 bits.
Inputs in [0, 2p), output in [0, 2p) (proven at generation time: codegen/kernels/field-mul-wide.js). out may alias an input.
Wide arithmetic, CIOS: per limb y_i, a multiply pass and a reduce pass, each one carry chain through i64.add128.${lanes === 2 ? '\nThe two products\' statements alternate.' : ''}`,
  });
  const streams = Array.from({ length: lanes }, (_, l) => productUnits(fn, fp, { s: sfx(l), square, comments: l === 0 }));
  const body = [];
  for (let i = 0; i < streams[0].length; i++) for (const units of streams) body.push(units[i]);
  const flat = body.flat(Infinity).filter((u) => typeof u === 'string');
  if (!(flat.findLastIndex((u) => u.includes('i64.load')) < flat.findIndex((u) => u.includes('i64.store')))) {
    throw new Error('wide kernel: a store precedes a load, out could not alias an input');
  }
  return fn.push(...body);
}

/** One product's statements as units (a unit: one limb step or one assignment), locals suffixed with `s`. */
function productUnits(fn, fp, { s, square, comments }) {
  const { n, pLimbs, mu } = fp;
  const y = square ? `x${s}` : `y${s}`;
  const note = (text) => (comments ? comment(text) : null);
  const units = [note('x_j stay in locals for the whole product')];
  const x = (j) => local.get(fn.local(`x${s}_${j}`));
  for (let j = 0; j < n; j++) units.push(local.set(fn.local(`x${s}_${j}`), i64.load(local.get(`x${s}`), 8 * j)));
  const t = (j) => fn.local(`t${s}_${j}`);
  const C = fn.local(`C${s}`);
  const zero = i64.const(0);
  /** tj + a * b (+ carry), leaving the low word in `lo` (dropped if null) and the high word in C */
  const mac = (a, b, { tj, carry = C, lo }) => {
    let e = i64.mul_wide_u(a, b);
    if (tj !== undefined) e = i64.add128(e, local.get(tj), zero);
    if (carry) e = i64.add128(e, local.get(carry), zero);
    return [e, local.pop(C), lo === null ? drop() : local.pop(lo)];
  };
  const yi = fn.local(`y${s}_i`);
  const m = fn.local(`m${s}`);
  for (let i = 0; i < n; i++) {
    const first = i === 0;
    units.push([note(`step ${i}: t += x y_${i}, then t = (t + m p) / 2^64 with m = t_0 mu mod 2^64`), local.set(yi, i64.load(local.get(y), 8 * i))]);
    for (let j = 0; j < n; j++) units.push(mac(x(j), local.get(yi), { tj: first ? undefined : t(j), carry: j > 0 ? C : null, lo: t(j) }));
    units.push(local.set(t(n), local.get(C))); // t_n was 0: t < 2^(64n) after the last reduce
    units.push(local.set(m, i64.mul(local.get(t(0)), limbConst(mu))));
    units.push(mac(local.get(m), limbConst(pLimbs[0]), { tj: t(0), carry: null, lo: null }));
    for (let j = 1; j < n; j++) units.push(mac(local.get(m), limbConst(pLimbs[j]), { tj: t(j), lo: t(j - 1) }));
    units.push(local.set(t(n - 1), i64.add(local.get(t(n)), local.get(C))));
  }
  units.push(note('t < 2p: the result'));
  for (let j = 0; j < n; j++) units.push(i64.store(local.get(`out${s}`), local.get(t(j)), 8 * j));
  return units;
}
