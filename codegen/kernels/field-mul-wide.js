// Montgomery product over 64-bit limbs with Wasm wide arithmetic: i64.mul_wide_u (64 x 64 -> 128 bits) and
// i64.add128, in the CIOS order (coarsely integrated operand scanning). For each limb y_i of y:
//   multiply   (t_j, C) = t_j + x_j y_i + C          j = 0 .. n-1, then t_n = C
//   reduce     m = t_0 mu mod 2^64, (_, C) = t_0 + m p_0 (the low word is 0 by the choice of m),
//              (t_(j-1), C) = t_j + m p_j + C        j = 1 .. n-1, then t_(n-1) = t_n + C
// One step of either loop cannot pass 2^128: (2^64 - 1) + (2^64 - 1)^2 + (2^64 - 1) = 2^128 - 1. The words t_n
// and the last adds are single i64 adds because the value t stays below 2^(64(n+1)) after a multiply and below
// 2^(64n) after a reduce: wideMontgomeryBounds proves both at generation time, step by step, from inputs in
// [0, 2p), and that the result is in [0, 2p) without a final subtraction (4p < R). That is the "no-carry"
// condition (the top limb of p below 2^62, so no word t_(n+1) and no carry out of t_n) for every prime this
// layout accepts, with the bounds proven rather than assumed.
//
// What was measured (Chromium 156, AMD EPYC Zen 4, ns per product, one dependent chain; bench/README.md, "Wide
// kernel", with V8's machine code read from a --perf-prof jitdump): four independent chains run no faster than
// one (a product is about 270 / 600 x86 instructions, near the out-of-order window), and what helped is fewer
// spills and register copies; fewer instructions alone did not (the swap below):
// - x_j read from memory at each use rather than held in n locals, and each step's sum written
//   C + (t_j + x_j y_i) (the carry as the first operand of the second add128: V8 then adds into t_j's register
//   instead of copying rax): BLS12-381 44.2 -> 42.6, BN254 unchanged (19.9-20.0); kept. The reduce's operands
//   swapped (p_j into rax, m read from the stack by the mul): 15 / 45 fewer instructions, yet slower (BN254
//   20.4, BLS12-381 45.8): not kept.
// - gnark's no-carry order (the multiply and the reduce of a step interleaved per limb, two carries A and C,
//   t_(n-1) = A + C): BN254 19.9, BLS12-381 42.8 with the above: no faster, not kept (the CIOS above already
//   has no t_(n+1)).
// - product scanning (FIPS, two 128-bit column accumulators, below) for the product: BN254 22.4, BLS12-381
//   49.6 (V8 spills the accumulators and the m_i): slower, not kept; for the squaring it halves the cross
//   products: BLS12-381 42.9 -> 38.6, BN254 19.9 -> 21.0, so `sqr` is the scanning squaring from 6 limbs up
//   (SCANNING_SQUARE_MIN_LIMBS) and the product with y = x below that.
//
// The opcodes are the wide-arithmetic proposal's (V8 behind --wasm-wide-arithmetic, Chromium 156 with
// --js-flags=--wasm-wide-arithmetic): a module holding one fails validation elsewhere, Node 20 and 24 included.

import { Func, i64, local, drop, comment } from '../wat/index.js';
import { deriveFieldParams } from '../params/field.js';
import { limbConst } from './limbs.js';

const WORD = 1n << 64n;
const WORD_MAX = WORD - 1n;

/** From this many limbs up, `sqr` is the scanning squaring (measured faster at 6, slower at 4; above). */
export const SCANNING_SQUARE_MIN_LIMBS = 6;

/** The wide layout's field parameters for p (deriveFieldParams with kernel 'wide', p not tested for primality). */
export function deriveWideParams(p) {
  if (typeof p !== 'bigint') throw new RangeError(`p must be an odd BigInt >= 3, got ${p}`);
  return deriveFieldParams({ p, kernel: 'wide', checkPrime: false });
}

/**
 * The bounds the kernel relies on, proven with exact integers for inputs x, y in [0, 2p) (any y limbs below 2^64,
 * any m below 2^64): after the multiply of step i, t < 2^(64(n+1)); after its reduce, t < 2^(64n); the output is
 * below 2p. For the scanning squaring, each column's accumulators (their worst case over any limbs) stay below
 * 2^128. Returns the bounds (tests print them); throws if one fails.
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
  return { steps, outMax, columns: scanningSquareBounds(n) };
}

/**
 * The scanning squaring's accumulators, column by column, each limb and m_i taken as 2^64 - 1 (a product's low
 * word at most 2^64 - 1, its high word 2^64 - 2): L (low words and the carry in), H (high words) and, while the
 * cross products are summed, the carry I set aside; doubled, then I and the square and reduction terms added.
 * The column's last word is the output limb (k >= n) or 0 (k < n, by m_k); the carry on is H + L_1. Throws if
 * an accumulator could reach 2^128. The last carry is the top limb of the result (below 2p < R: outMax).
 */
function scanningSquareBounds(n) {
  const lo = WORD_MAX;
  const hi = WORD_MAX - 1n;
  const limit = WORD * WORD;
  const columns = [];
  let carry = 0n;
  for (let k = 0; k <= 2 * n - 2; k++) {
    const terms = squareColumn(n, k);
    let L = 2n * BigInt(terms.cross.length) * lo + carry;
    let H = 2n * BigInt(terms.cross.length) * hi;
    const plain = (terms.diagonal ? 1 : 0) + terms.reduce.length + (k < n ? 1 : 0);
    L += BigInt(plain) * lo;
    H += BigInt(plain) * hi;
    if (L >= limit || H >= limit) throw new Error(`wide kernel: squaring column ${k}: an accumulator could pass 2^128`);
    carry = H + (L >> 64n);
    if (carry >= limit) throw new Error(`wide kernel: squaring column ${k}: the carry could pass 2^128`);
    columns.push({ L, H, carry });
  }
  return columns;
}

/** Column k of x^2 + M p: its cross products x_i x_j (i < j), whether x_(k/2)^2 is in it, the i of its m_i p_(k-i). */
function squareColumn(n, k) {
  const cross = [];
  for (let i = Math.max(0, k - n + 1); i < k - i; i++) cross.push([i, k - i]);
  const reduce = [];
  for (let i = Math.max(0, k - n + 1); i <= Math.min(k - 1, n - 1); i++) reduce.push(i);
  return { cross, diagonal: k % 2 === 0, reduce };
}

/**
 * `${name}(out, x, y)`: out = x y / R mod p (R = 2^(64n)), elements of n u64 limbs. Inputs in [0, 2p), output in
 * [0, 2p); every load precedes every store, so out may alias x or y. With `square`, `${name}(out, x)`: x^2 / R,
 * by default the scanning squaring from SCANNING_SQUARE_MIN_LIMBS limbs up and the product otherwise (`squareForm`
 * 'scanning' or 'product' forces one). With `lanes: 2`, `${name}(out0, x0, y0, out1, x1, y1)`: two independent
 * products, their statements interleaved so that each fills the other's latency; any out may alias any input.
 */
export function wideMontgomeryMul(fp, { name = 'mulWide', exportName = name, square = false, lanes = 1, squareForm } = {}) {
  if (lanes !== 1 && lanes !== 2) throw new RangeError(`lanes must be 1 or 2, got ${lanes}`);
  if (square && lanes !== 1) throw new RangeError('square: one product per call (lanes 1)');
  const { n } = fp;
  wideMontgomeryBounds(fp);
  const form = !square ? 'product' : squareForm ?? (n >= SCANNING_SQUARE_MIN_LIMBS ? 'scanning' : 'product');
  if (form !== 'product' && form !== 'scanning') throw new RangeError(`squareForm must be 'scanning' or 'product', got ${JSON.stringify(squareForm)}`);
  const sfx = (l) => (lanes === 1 ? '' : String(l));
  const params = [];
  for (let l = 0; l < lanes; l++) params.push([`out${sfx(l)}`, 'i32'], [`x${sfx(l)}`, 'i32'], ...(square ? [] : [[`y${sfx(l)}`, 'i32']]));
  const how = form === 'scanning'
    ? 'Wide arithmetic, product scanning: per column two 128-bit accumulators (low and high words), the cross products once, doubled.'
    : 'Wide arithmetic, CIOS: per limb y_i, a multiply pass and a reduce pass, each one carry chain through i64.add128.';
  const fn = new Func(name, {
    params,
    exportName,
    doc: `${name}(${params.map(([p]) => p).join(', ')}): ${lanes === 2 ? 'out_l = x_l * y_l / R mod p for l < 2' : `out = ${square ? 'x^2' : 'x * y'} / R mod p`} (Montgomery product), R = 2^${64 * n}: ${n} limbs of 64 bits.
Inputs in [0, 2p), output in [0, 2p) (proven at generation time: codegen/kernels/field-mul-wide.js). out may alias an input.
${how}${lanes === 2 ? '\nThe two products\' statements alternate.' : ''}`,
  });
  const units = form === 'scanning' ? scanningSquareUnits : productUnits;
  const streams = Array.from({ length: lanes }, (_, l) => units(fn, fp, { s: sfx(l), square, comments: l === 0 }));
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
  const units = [note('x_j are read from memory at each use: n fewer live registers (fewer spills)')];
  const x = (j) => i64.load(local.get(`x${s}`), 8 * j);
  const t = (j) => fn.local(`t${s}_${j}`);
  const C = fn.local(`C${s}`);
  const zero = i64.const(0);
  /** C + (tj + a * b), leaving the low word in `lo` (dropped if null) and the high word in C */
  const mac = (a, b, { tj, carry = true, lo }) => {
    let e = i64.mul_wide_u(a, b);
    if (tj !== undefined) e = i64.add128(e, local.get(tj), zero);
    if (carry) e = i64.add128(local.get(C), zero, e);
    return [e, local.pop(C), lo === null ? drop() : local.pop(lo)];
  };
  const yi = fn.local(`y${s}_i`);
  const m = fn.local(`m${s}`);
  for (let i = 0; i < n; i++) {
    const first = i === 0;
    units.push([note(`step ${i}: t += x y_${i}, then t = (t + m p) / 2^64 with m = t_0 mu mod 2^64`), local.set(yi, i64.load(local.get(y), 8 * i))]);
    for (let j = 0; j < n; j++) units.push(mac(x(j), local.get(yi), { tj: first ? undefined : t(j), carry: j > 0, lo: t(j) }));
    units.push(local.set(t(n), local.get(C))); // t_n was 0: t < 2^(64n) after the last reduce
    units.push(local.set(m, i64.mul(local.get(t(0)), limbConst(mu))));
    units.push(mac(local.get(m), limbConst(pLimbs[0]), { tj: t(0), carry: false, lo: null }));
    for (let j = 1; j < n; j++) units.push(mac(local.get(m), limbConst(pLimbs[j]), { tj: t(j), lo: t(j - 1) }));
    units.push(local.set(t(n - 1), i64.add(local.get(t(n)), local.get(C))));
  }
  units.push(note('t < 2p: the result'));
  for (let j = 0; j < n; j++) units.push(i64.store(local.get(`out${s}`), local.get(t(j)), 8 * j));
  return units;
}

/**
 * The squaring by product scanning (FIPS): column k of x^2 + M p summed in two 128-bit accumulators, L (the
 * products' low words and the carry from column k - 1) and H (their high words, weight 2^64), so that each
 * product is two independent add128s. The cross products x_i x_j (i < j) are summed alone and doubled (L and H
 * each added to itself), then the carry, x_(k/2)^2 and the m_i p_(k-i) are added. m_k = L_0 mu (k < n) zeroes
 * the column's word; the column ends with (L, H) = (H + L_1, 0). Bounds: scanningSquareBounds.
 */
function scanningSquareUnits(fn, fp, { s, comments }) {
  const { n, pLimbs, mu } = fp;
  const note = (text) => (comments ? comment(text) : null);
  const units = [];
  for (let j = 0; j < n; j++) units.push(local.set(fn.local(`x${s}_${j}`), i64.load(local.get(`x${s}`), 8 * j)));
  const x = (j) => local.get(fn.local(`x${s}_${j}`));
  const [L0, L1, H0, H1, I0, I1, lo, hi] = ['L0', 'L1', 'H0', 'H1', 'I0', 'I1', 'lo', 'hi'].map((v) => fn.local(`${v}${s}`));
  const m = (i) => fn.local(`m${s}_${i}`);
  const r = (j) => fn.local(`r${s}_${j}`);
  const zero = i64.const(0);
  const add128 = (a0, a1, b0, b1) => [i64.add128(local.get(a0), local.get(a1), b0, b1), local.pop(a1), local.pop(a0)];
  let lEmpty = true; // L and H hold nothing yet: the first product sets them
  let hEmpty = true;
  /** (L, H) += a b */
  const acc = (a, b) => {
    const u = [i64.mul_wide_u(a, b), local.pop(hi), local.pop(lo)];
    u.push(lEmpty ? [local.set(L0, local.get(lo)), local.set(L1, zero)] : add128(L0, L1, local.get(lo), zero));
    u.push(hEmpty ? [local.set(H0, local.get(hi)), local.set(H1, zero)] : add128(H0, H1, local.get(hi), zero));
    lEmpty = false;
    hEmpty = false;
    return u;
  };
  for (let k = 0; k <= 2 * n - 2; k++) {
    const { cross, diagonal, reduce } = squareColumn(n, k);
    units.push(note(`column ${k}: 2 (cross products) + carry${diagonal ? ` + x_${k / 2}^2` : ''} + m p`));
    if (cross.length) {
      const carry = !lEmpty;
      if (carry) units.push(local.set(I0, local.get(L0)), local.set(I1, local.get(L1)));
      lEmpty = true;
      hEmpty = true;
      for (const [i, j] of cross) units.push(acc(x(i), x(j)));
      units.push(add128(L0, L1, local.get(L0), local.get(L1)), add128(H0, H1, local.get(H0), local.get(H1)));
      if (carry) units.push(add128(L0, L1, local.get(I0), local.get(I1)));
    }
    if (diagonal) units.push(acc(x(k / 2), x(k / 2)));
    for (const i of reduce) units.push(acc(local.get(m(i)), limbConst(pLimbs[k - i])));
    if (k < n) {
      units.push(local.set(m(k), i64.mul(local.get(L0), limbConst(mu))));
      units.push(acc(local.get(m(k)), limbConst(pLimbs[0])));
    } else {
      units.push(local.set(r(k - n), local.get(L0)));
    }
    units.push(i64.add128(local.get(H0), local.get(H1), local.get(L1), zero), local.pop(L1), local.pop(L0));
    hEmpty = true;
  }
  units.push(note('the last carry is the top limb: L_1 = 0 (the result is below 2p < R)'));
  units.push(local.set(r(n - 1), local.get(L0)));
  for (let j = 0; j < n; j++) units.push(i64.store(local.get(`out${s}`), local.get(r(j)), 8 * j));
  return units;
}
