// Montgomery product and square, product scanning with one limb product per pair of limbs.
//
// Column k of x*y needs x_i y_j + x_j y_i for every pair i + j = k. The subtractive Karatsuba identity
//     x_i y_j + x_j y_i = x_i y_i + x_j y_j - (x_i - x_j)(y_i - y_j)
// turns the two products into one, given the diagonal products D_i = x_i y_i. Summed over a run of pairs,
// the D_i become one difference of prefix sums PD_j = D_0 + ... + D_(j-1). So x*y costs n(n+1)/2 limb
// products instead of n^2.
//
// The reduction terms q_i p_j get the same treatment with the q_i, which are produced one column at a
// time, and p_i - p_j, which is a constant. The one exception is the pair (0, k) in column k < n: q_k is
// chosen from that column's sum, so q_0 p_k and q_k p_0 stay two plain products. A Montgomery product
// then costs n(n+1)/2 + n(n+1)/2 + (n - 1) + n limb products instead of 2n^2 + n.
//
// Why it is exact: every run of pairs ("block") adds a value that lies in [0, bound] as a whole, even
// though its single terms are signed (the (x_i - x_j)(y_j - y_i) are). i64 arithmetic is exact mod 2^64,
// so the accumulator is exact as long as its true value stays in [0, 2^64) wherever we shift it. The
// generator tracks that bound per column and splits off a carry before a block that could overflow.
// A signed term needs |x_i - x_j| |y_i - y_j| < 2^63, so this shape needs w <= 31.

import { Func, i64, local, comment } from '../wat/index.js';
import { loadLimb, storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';

const U64_MAX = (1n << 64n) - 1n;

/**
 * a + b + c + ... as a running sum, left to right. A balanced tree would be shallower, but it keeps every
 * product of a column live at once; V8 then spills, and the kernel is bound by instruction count, not by
 * this depth (bench/README.md: 5-10% faster at n = 9 and 13).
 */
function runningSum(exprs) {
  return exprs.slice(1).reduce((sum, e) => i64.add(sum, e), exprs[0]);
}

/** Beyond this many limbs, straight-line kernels grow past what engines optimise well. */
export const MAX_UNROLLED_LIMBS = 16;

/** The pairs shape needs signed pair products that fit an i64, and few enough limbs for straight-line code. */
export const pairsShapeFits = ({ w, n }) => w <= 31 && n <= MAX_UNROLLED_LIMBS;

/**
 * The function out = x*y/R mod p (or x^2/R when `square`), product scanning with pair products.
 * Inputs in [0, 2p) with w-bit limbs; output in [0, 2p), normalized limbs. At most n^2 + 3n - 1 limb
 * products (fewer when p has zero limbs or equal limbs).
 */
export function montgomeryPairs(params, { name, exportName = name, square = false }) {
  const { n, w, mu, pLimbs, limbMax: m } = params;
  if (!pairsShapeFits(params)) throw new RangeError(`the pairs shape needs w <= 31 and n <= ${MAX_UNROLLED_LIMBS} (w = ${w}, n = ${n})`);
  const W = BigInt(w);
  const fn = new Func(name, {
    params: square ? [['out', 'i32'], ['x', 'i32']] : [['out', 'i32'], ['x', 'i32'], ['y', 'i32']],
    exportName,
    doc: square
      ? `${name}(out, x): out = x^2 / R mod p. Input in [0, 2p), output in [0, 2p). out may alias x.
Product scanning: cross products doubled, reduction by pair products (${(n * (n + 1)) / 2 + (n * (n + 1)) / 2 + 2 * n - 1} limb products).`
      : `${name}(out, x, y): out = x * y / R mod p. Inputs in [0, 2p), output in [0, 2p). out may alias x or y.
Product scanning with pair products (subtractive Karatsuba per pair of limbs): ${n * (n + 1) + 2 * n - 1} limb products.`,
  });
  const body = [];
  const x = (i) => local.get(`x${i}`);
  const y = (i) => local.get(`y${i}`);
  const q = (i) => local.get(`q${i}`);
  body.push(comment(square ? 'x_j in locals' : 'x_j, y_j in locals'));
  for (let j = 0; j < n; j++) body.push(local.set(fn.local(`x${j}`), loadLimb('x', j)));
  if (!square) {
    for (let j = 0; j < n; j++) body.push(local.set(fn.local(`y${j}`), loadLimb('y', j)));
    body.push(comment('PD_j = x_0 y_0 + ... + x_(j-1) y_(j-1) (mod 2^64; only differences of a few terms are used)'));
    for (let j = 1; j <= n; j++) {
      const d = i64.mul(x(j - 1), y(j - 1));
      body.push(local.set(fn.local(`PD${j}`), j === 1 ? d : i64.add(local.get(`PD${j - 1}`), d)));
    }
  }
  // PQ_j = q_1 p_1 + ... + q_(j-1) p_(j-1), built as the q_j appear. A zero limb of p adds nothing, so the
  // prefix keeps its previous local.
  const pqName = [null, null]; // pqName[j] = local holding PQ_j, null for the empty sum
  const prefixDiff = (names, a, b) => {
    // sum over indices a..b (inclusive) = P_(b+1) - P_a
    const hi = names[b + 1];
    const lo = names[a];
    if (hi === null || hi === lo) return null;
    return lo === null ? local.get(hi) : i64.sub(local.get(hi), local.get(lo));
  };
  const pdNames = [null, ...Array.from({ length: n }, (_, j) => `PD${j + 1}`)];
  /**
   * The diagonal terms of a block of pairs i in `is` (and the centre k/2 when `withCentre`) of column k: the
   * indices is[0]..is[last] and k - is[last]..k - is[0], one prefix difference where they meet.
   */
  const diagonalTerms = (names, k, is, withCentre) => {
    const a = is.length ? is[0] : k / 2;
    const b = is.length ? is[is.length - 1] : k / 2;
    if (withCentre || (is.length && k - b === b + 1)) return [prefixDiff(names, a, k - a)];
    return [prefixDiff(names, a, b), prefixDiff(names, k - b, k - a)];
  };
  const blockNote = (k, is, withCentre, centreNote) =>
    `${is.length ? `pairs i = ${is[0]}..${is[is.length - 1]}` : ''}${withCentre ? `${is.length ? ' and ' : ''}${centreNote(k / 2)}` : ''}`;

  fn.local('acc');
  fn.local('hi');
  let accBound = 0n; // the true accumulator value is in [0, accBound]
  let hiBound = null; // null: hi holds nothing in this column
  let pending = []; // expressions not yet added into acc
  let notes = [];
  // The running accumulator arrives last (it waits on the previous column's carry), so it joins the
  // already-summed terms at the end instead of heading the running sum.
  const flush = () => {
    const accFirst = pending[0] === local.get('acc') && pending.length > 1;
    if (pending.length) body.push(local.set('acc', accFirst ? i64.add(runningSum(pending.slice(1)), pending[0]) : runningSum(pending)));
    pending = [];
  };
  const split = () => {
    flush();
    body.push(comment('carry: the next block could overflow 64 bits'));
    const c = i64.shr_u(local.get('acc'), shiftConst(w));
    body.push(local.set('hi', hiBound === null ? c : i64.add(local.get('hi'), c)));
    body.push(local.set('acc', i64.and(local.get('acc'), maskConst(w))));
    hiBound = (hiBound ?? 0n) + (accBound >> W);
    accBound = m;
    pending = [local.get('acc')];
  };
  /** Adds a block: expressions whose sum lies in [0, bound]. */
  const addBlock = (exprs, bound, note) => {
    exprs = exprs.filter((e) => e !== null);
    if (exprs.length === 0) return;
    if (bound > U64_MAX - m) throw new Error(`${name}: a block (${note}) cannot fit a 64-bit accumulator`);
    if (accBound + bound > U64_MAX) split();
    pending.push(...exprs);
    accBound += bound;
    notes.push(note);
  };

  /**
   * Pairs (i, k - i) for i in `pairIs` (each i < k - i), then the centre k/2 when `centre`, cut into blocks whose
   * bound fits one accumulator. `pairBound(i, j)` bounds x_i y_j + x_j y_i (or its analogue), `centreBound` the
   * centre product.
   */
  const pairBlocks = (k, pairIs, centre, { pairBound, centreBound, emit }) => {
    const limit = U64_MAX - m; // a block must fit on top of a freshly split accumulator
    let start = 0;
    let centreDone = !centre;
    while (start < pairIs.length || !centreDone) {
      let bound = 0n;
      let end = start;
      while (end < pairIs.length && bound + pairBound(pairIs[end], k - pairIs[end]) <= limit) {
        bound += pairBound(pairIs[end], k - pairIs[end]);
        end++;
      }
      const withCentre = !centreDone && end === pairIs.length && bound + centreBound <= limit;
      if (end === start && !withCentre) throw new Error(`${name}: one product of column ${k} does not fit a 64-bit accumulator`);
      if (withCentre) {
        bound += centreBound;
        centreDone = true;
      }
      emit(pairIs.slice(start, end), withCentre, bound);
      start = end;
    }
  };

  for (let k = 0; k <= 2 * n - 2; k++) {
    notes = [];
    const columnStart = body.length;
    if (k > 0) {
      pending = [local.get('acc')];
      notes.push('carry');
    }
    const lo = Math.max(0, k - n + 1);
    const centre = k % 2 === 0; // then k/2 lies in [lo, min(k, n - 1)]: column k has a square term
    const pairs = [];
    for (let i = lo; i < k - i; i++) pairs.push(i);

    // x*y (or x^2) part of column k
    if (square) {
      pairBlocks(k, pairs, centre, {
        pairBound: () => 2n * m * m,
        centreBound: m * m,
        emit: (is, withCentre, bound) => {
          const exprs = [];
          if (is.length) exprs.push(i64.shl(runningSum(is.map((i) => i64.mul(x(i), x(k - i)))), i64.const(1)));
          if (withCentre) exprs.push(i64.mul(x(k / 2), x(k / 2)));
          addBlock(exprs, bound, `${is.length ? `2 (${is.map((i) => `x_${i} x_${k - i}`).join(' + ')})` : ''}${withCentre ? `${is.length ? ' + ' : ''}x_${k / 2}^2` : ''}`);
        },
      });
    } else {
      pairBlocks(k, pairs, centre, {
        pairBound: () => 2n * m * m,
        centreBound: m * m,
        emit: (is, withCentre, bound) => {
          const exprs = diagonalTerms(pdNames, k, is, withCentre);
          for (const i of is) exprs.push(i64.mul(i64.sub(x(i), x(k - i)), i64.sub(y(k - i), y(i))));
          addBlock(exprs, bound, `sum x_i y_j over ${blockNote(k, is, withCentre, (c) => `x_${c} y_${c}`)}`);
        },
      });
    }

    // reduction part: q_i p_(k-i) for the q already known
    const qpPairs = k < n ? pairs.filter((i) => i >= 1) : pairs;
    if (k < n && k >= 1 && pLimbs[k] !== 0n) addBlock([i64.mul(q(0), limbConst(pLimbs[k]))], m * pLimbs[k], `q_0 p_${k}`);
    pairBlocks(k, qpPairs, centre && k >= 2, {
      pairBound: (i, j) => m * (pLimbs[i] + pLimbs[j]),
      centreBound: centre ? m * pLimbs[k / 2] : 0n,
      emit: (is, withCentre, bound) => {
        // newest q last: the pair (1, k - 1) and the prefix PQ_k wait on q_(k-1), the rest is ready earlier
        const pairProducts = [];
        for (const i of is.toReversed()) {
          const c = pLimbs[k - i] - pLimbs[i];
          if (c !== 0n) pairProducts.push(i64.mul(i64.sub(q(i), q(k - i)), i64.const(c)));
        }
        addBlock([...pairProducts, ...diagonalTerms(pqName, k, is, withCentre)], bound, `sum q_i p_j over ${blockNote(k, is, withCentre, (c) => `q_${c} p_${c}`)}`);
      },
    });

    if (k < n) {
      flush();
      body.push(comment(`q_${k} = (column * mu) mod 2^${w}: clears the low ${w} bits`));
      body.push(local.set(fn.local(`q${k}`), i64.and(i64.mul(local.get('acc'), i64.const(mu)), maskConst(w))));
      pending = [local.get('acc')];
      addBlock([i64.mul(q(k), limbConst(pLimbs[0]))], m * pLimbs[0], `q_${k} p_0`);
      flush();
      if (k >= 1) {
        // PQ_(k+1) = PQ_k + q_k p_k
        if (pLimbs[k] === 0n) pqName[k + 1] = pqName[k];
        else {
          const name_ = fn.local(`PQ${k + 1}`);
          const d = i64.mul(q(k), limbConst(pLimbs[k]));
          body.push(local.set(name_, pqName[k] === null ? d : i64.add(local.get(pqName[k]), d)));
          pqName[k + 1] = name_;
        }
      }
    } else {
      flush();
      body.push(storeLimb('out', k - n, i64.and(local.get('acc'), maskConst(w))));
    }
    body.splice(columnStart, 0, comment(`column ${k}: ${notes.join(' + ')}`));
    const c = i64.shr_u(local.get('acc'), shiftConst(w));
    body.push(local.set('acc', hiBound === null ? c : i64.add(c, local.get('hi'))));
    accBound = (accBound >> W) + (hiBound ?? 0n);
    hiBound = null;
  }
  body.push(comment('the value is < 2p < R, so the last carry is the top limb'));
  body.push(storeLimb('out', n - 1, local.get('acc')));
  fn.push(...body);
  return fn;
}
