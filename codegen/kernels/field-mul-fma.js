// Montgomery product with f64 fused multiply-add (relaxed SIMD): two products per f64x2 op, one per lane.
//
// A limb product a*b with a, b < 2^W (W <= 52) is split exactly into a*b = H 2^W + L by two FMAs:
//   hi = fma(a, b, C)          C = 2^(W+52): C + ab stays in [C, 2C), where one ulp is 2^W, so
//                              hi = C + H 2^W with H = round(ab / 2^W) in [0, 2^W)
//   lo = fma(a, b, C + K - hi) = ab - H 2^W + K = L + K, with K = 1.5 * 2^52 and L in [-2^(W-1), 2^(W-1)]:
//                              an integer in [2^52, 2^53], exact in an f64
// (for W = 52, C + K has no f64, so lo = fma(a, b, C - hi) + K, one more op). Read as integers, the bits of
// hi and lo are H + bits(C) and L + bits(K): the limb products' halves are summed in i64x2 columns as raw
// bits, and each column starts from minus the bias its terms will bring, so no op is spent per term.
//
// The product scans columns (k = 0 .. 2n-1). Column k < n picks q_k = (column mod 2^W) mu mod 2^W (an i64.mul
// per lane: shorter than an FMA split on the dependency chain that runs through the q), adds q_k p, and
// carries column / 2^W into column k+1. Columns k >= n are the result's limbs. Every column holds its true
// value + 2^62, which makes the carry a logical shift (i64x2.shr_s has no x64 instruction below AVX-512); the
// generator proves each column's true value stays in (-2^62, 2^62).
//
// Two paired products run interleaved (`lanes: 4`): the q chain of one product is long, and the other's
// independent work fills its latency (measured on Node 24 and Chromium 156: about 1.45x (BN254) and 1.3x
// (BLS12-381) the throughput of one pair per call; bench/README.md).

import { Func, i32, i64, i64x2, v128, local, comment } from '../wat/index.js';
import { deriveFieldParams } from '../params/field.js';
import { f64Bits, splitConstants, pairHelpers, COLUMN_OFFSET } from './fma-split.js';
import { pairedCrandall } from './field-mul-fma-crandall.js';

export { f64Bits };

/**
 * The field parameters of the FMA layout for p (deriveFieldParams with kernel 'fma', p not tested for primality):
 * W = 51 unless 52 saves a limb, n the least count with 4p < R = 2^(nW), elements of n u64 words.
 */
export function deriveFmaParams(p) {
  if (typeof p !== 'bigint') throw new RangeError(`p must be an odd BigInt >= 3, got ${p}`);
  return deriveFieldParams({ p, kernel: 'fma', checkPrime: false });
}

/**
 * `${name}(out_0, x_0, y_0, ..., out_(L-1), x_(L-1), y_(L-1))`: out_l = x_l y_l / R mod p for each of the
 * `lanes` = 2 or 4 products. Elements are n u64 words of W-bit limbs (deriveFmaParams); inputs in [0, 2p) with
 * limbs below 2^W, outputs in [0, 2p) with limbs below 2^W. Every load precedes every store, so any out may
 * alias any input. Needs relaxed SIMD with a fused f64x2.relaxed_madd (the loader checks before it uses it).
 */
export function fmaMontgomeryMul(fp, { name = 'mulFma', lanes = 4, square = false, exportName = name } = {}) {
  if (lanes !== 1 && lanes !== 2 && lanes !== 4) throw new RangeError(`lanes must be 1, 2 or 4, got ${lanes}`);
  if (square && lanes !== 1) throw new RangeError('square: one product per call (lanes 1)');
  const { W, n } = fp;
  const consts = splitConstants(W);
  const pairs = Math.ceil(lanes / 2);
  const args = [];
  for (let l = 0; l < lanes; l++) args.push([`out${l}`, 'i32'], [`x${l}`, 'i32'], ...(square ? [] : [[`y${l}`, 'i32']]));
  const operation = square ? 'x_l^2' : 'x_l * y_l';
  const fn = new Func(name, {
    params: args,
    exportName,
    doc: lanes === 1
      ? `${name}(${args.map(([a]) => a).join(', ')}): out = ${square ? 'x^2' : 'x * y'} / R mod p, one product in both lanes of the paired kernel (its
latency, with nothing paired: the batched hot path calls the four-lane kernel). R = 2^${n * W}: ${n} limbs of W = ${W} bits
in u64 words. Inputs in [0, 2p), output in [0, 2p); out may alias an input.`
      : `${name}(${args.map(([a]) => a).join(', ')}): out_l = ${operation} / R mod p for l < ${lanes}, two per f64x2 (lane l % 2
of pair l >> 1). R = 2^${n * W}: ${n} limbs of W = ${W} bits in u64 words. Inputs in [0, 2p), outputs in [0, 2p);
any out may alias any input. Limb products split exactly by FMA (${fp.splitOps} f64 ops each), columns summed in i64x2.`,
  });
  // One product: lane 1 repeats lane 0 (its store writes the same limbs again); a square reads x as y.
  if (square) fn.push(local.set(fn.local('y0', 'i32'), local.get('x0')));
  if (lanes === 1) for (const x of ['out', 'x', 'y']) fn.push(local.set(fn.local(`${x}1`, 'i32'), local.get(`${x}0`)));
  const paired = fp.reduction === 'crandall' ? pairedCrandall : pairedProduct;
  const streams = Array.from({ length: pairs }, (_, s) => paired(fn, fp, consts, s));
  // interleave the two pairs' statements so each fills the other's latency
  const body = [];
  const longest = Math.max(...streams.map((s) => s.length));
  for (let i = 0; i < longest; i++) for (const s of streams) if (i < s.length) body.push(s[i]);
  const firstStore = body.findIndex((s) => typeof s === 'string' && s.includes('store64_lane'));
  const lastLoad = body.findLastIndex((s) => typeof s === 'string' && s.includes('load64'));
  if (!(lastLoad < firstStore)) throw new Error('fma kernel: a store precedes a load, out could not alias an input');
  fn.push(body);
  return fn;
}

/** The statements of one paired product: lanes 2s and 2s + 1. */
function pairedProduct(fn, fp, consts, s) {
  const { bitsC, bitsK } = consts;
  const { W, n, mu, pLimbs } = fp;
  const BW = BigInt(W);
  const mask = (1n << BW) - 1n;
  const [l0, l1] = [2 * s, 2 * s + 1];
  const { v, get, fc, ic, toF64, product, out } = pairHelpers(fn, s, consts);

  // Load limb j of lane 2s and lane 2s+1 into one vector, as f64
  for (let j = 0; j < n; j++) {
    for (const x of ['x', 'y']) {
      const pair = v128.load64_lane(1, local.get(`${x}${l1}`), v128.load64_zero(local.get(`${x}${l0}`), 8 * j), 8 * j);
      out.push(local.set(v(`${x}${j}`), toF64(pair)));
    }
  }

  // Terms per column, with the true-value bounds of the proof, and the bias their raw bits bring
  const columns = Array.from({ length: 2 * n + 1 }, () => ({ bias: 0n, lo: 0n, hi: 0n, started: false }));
  const H_MAX = (mask * mask + (1n << (BW - 1n))) >> BW; // round(ab / 2^W) for a, b <= 2^W - 1
  const L_MAX = 1n << (BW - 1n);
  // Column k's limb products before its q: x_i y_(k-i), and q_i p_(k-i) for the q already chosen (none for a zero limb of p)
  const columnProducts = (k) => {
    const list = [];
    for (let i = Math.max(0, k - n + 1); i <= Math.min(k, n - 1); i++) list.push([`x${i}`, get(`x${i}`), get(`y${k - i}`)]);
    for (let i = Math.max(0, k - n + 1); i <= Math.min(k - 1, n - 1); i++) {
      if (pLimbs[k - i] !== 0n) list.push([`q${i}`, get(`q${i}`), fc(Number(pLimbs[k - i]))]);
    }
    return list;
  };
  const terms = []; // [column, 'L' | 'H' | 'Lq'] for every half the columns receive; Lq: the low half of q_k p_0
  for (let k = 0; k < 2 * n; k++) {
    for (const _ of columnProducts(k)) terms.push([k, 'L'], [k + 1, 'H']);
    if (k < n) terms.push([k, 'Lq'], [k + 1, 'H']);
  }
  for (const [k, half] of terms) {
    const c = columns[k];
    if (half === 'H') { c.bias += bitsC; c.hi += H_MAX; } else { c.lo -= L_MAX; c.hi += L_MAX; }
    // Lq: W = 52 makes bits(K) nonzero mod 2^W, so that bias is taken off the term itself, not in advance
    if (half === 'L' || (half === 'Lq' && bitsK % (1n << BW) === 0n)) c.bias += bitsK;
    if (half === 'Lq' && bitsK % (1n << BW) !== 0n) c.lqOwnBias = true;
  }
  // Carries: column k passes floor(column / 2^W) to k + 1. Bounds on the true values, proven in order.
  for (let k = 0; k < 2 * n; k++) {
    const c = columns[k];
    if (!(c.lo > -COLUMN_OFFSET && c.hi < COLUMN_OFFSET)) throw new Error(`fma kernel: column ${k} could leave (-2^62, 2^62)`);
    const next = columns[k + 1];
    next.lo += c.lo >> BW; // floor division of the bounds
    next.hi += c.hi >> BW;
  }
  const init = (k) => {
    let bias = -columns[k].bias + COLUMN_OFFSET;
    if (k > 0) bias -= COLUMN_OFFSET >> BW; // the carry in brings 2^62 / 2^W of offset along
    return ic(bias);
  };
  const acc = (k) => `a${k}`;
  const add = (k, term) => {
    const c = columns[k];
    if (!c.started) {
      c.started = true;
      out.push(local.set(v(acc(k)), i64x2.add(init(k), term)));
    } else out.push(local.set(v(acc(k)), i64x2.add(get(acc(k)), term)));
  };
  const carry = (k) => i64x2.shr_u(get(acc(k)), i32.const(W));
  const muConst = i64.const(`0x${mu.toString(16)}`);

  for (let k = 0; k < 2 * n; k++) {
    // one comment per column for both interleaved pairs
    if (s === 0) {
      out.push(comment(k < n
        ? `column ${k}: x_i y_j${k > 0 ? ` and q_i p_j (i < ${k})` : ''} with i + j = ${k}, low halves here, high halves to column ${k + 1};\nq_${k} = (column mod 2^${W}) mu mod 2^${W}, column += q_${k} p_0 (now 0 mod 2^${W}), column ${k + 1} += column >> ${W}`
        : `column ${k}: x_i y_j and q_i p_j with i + j = ${k}; limb ${k - n} of the result${k < 2 * n - 1 ? `, column ${k + 1} += column >> ${W}` : ' (the rest of the value)'}`));
    }
    for (const [, a, b] of columnProducts(k)) {
      const [h, l] = product(a, b);
      add(k, l);
      add(k + 1, h);
    }
    if (k < n) {
      // q_k per lane with i64.mul: the low W bits of the column (the offset 2^62 is 0 mod 2^W) times mu
      const laneQ = (lane) => i64.mul(i64x2.extract_lane(lane, get(acc(k))), muConst);
      const q = v128.and(i64x2.replace_lane(1, i64x2.splat(laneQ(0)), laneQ(1)), ic(mask));
      out.push(local.set(v(`q${k}`), toF64(q)));
      const [h, l] = product(get(`q${k}`), fc(Number(pLimbs[0])));
      add(k, columns[k].lqOwnBias ? i64x2.sub(l, ic(bitsK)) : l);
      add(k + 1, h);
      add(k + 1, carry(k));
    } else {
      const limb = k < 2 * n - 1 ? v128.and(get(acc(k)), ic(mask)) : i64x2.sub(get(acc(k)), ic(COLUMN_OFFSET));
      if (k < 2 * n - 1) add(k + 1, carry(k));
      // the top column is below 2^W (the output is below 2p < R), so it is stored whole
      out.push(local.set(v('r'), limb));
      out.push(v128.store64_lane(0, local.get(`out${l0}`), get('r'), 8 * (k - n)));
      out.push(v128.store64_lane(1, local.get(`out${l1}`), get('r'), 8 * (k - n)));
    }
  }
  return out;
}
