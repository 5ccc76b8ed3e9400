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
// Up to 12 limbs the q come two at a time (defaultQStep): Q = q_k + 2^w q_(k+1) = s * mu2 mod 2^(2w), where
// s = column k + 2^w column k+1 mod 2^(2w) and mu2 = -p^-1 mod 2^(2w), clears both columns' low bits. That
// halves the chain of dependent products (t*mu, then q*p_0, then the carry) that limits small n.
//
// Why it is exact: every run of pairs ("block") adds a value that lies in [0, bound] as a whole, even
// though its single terms are signed (the (x_i - x_j)(y_j - y_i) are). i64 arithmetic is exact mod 2^64,
// so the accumulator is exact as long as its true value stays in [0, 2^64) wherever we shift it. The
// generator tracks that bound per column and splits off a carry before a block that could overflow.
// A signed term needs |x_i - x_j| |y_i - y_j| < 2^63, so this shape needs w <= 31.

import { Func, i64, local, comment } from '../wat/index.js';
import { loadLimb, storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';
import { modInverse } from '../params/number-theory.js';

const U64_MAX = (1n << 64n) - 1n;

/**
 * a + b + c + ... as a running sum, left to right. A balanced tree would be shallower, but it keeps every
 * product of a column live at once; V8 then spills, and the kernel is bound by instruction count, not by
 * this depth (bench/README.md: 5-10% faster at n = 9 and 13).
 */
function runningSum(exprs) {
  return exprs.slice(1).reduce((sum, e) => i64.add(sum, e), exprs[0]);
}

/** The i64.mul in a function's text: its limb products per call (straight-line code). */
export const countLimbProducts = (fn) => (fn.render().match(/\(i64\.mul /g) ?? []).length;

/** Beyond this many limbs, straight-line kernels grow past what engines optimise well. */
export const MAX_UNROLLED_LIMBS = 16;

/** The pairs shape needs signed pair products that fit an i64, and few enough limbs for straight-line code. */
export const pairsShapeFits = ({ w, n }) => w <= 31 && n <= MAX_UNROLLED_LIMBS;

/**
 * How many q limbs one reduction step chooses: 2 (Q = q_k + 2^w q_(k+1), one product by mu2 per two columns)
 * shortens the chain of dependent products through the low columns but costs a few more instructions. Measured
 * (Node 20, x64): 5-12% faster at 9 to 12 limbs on every prime tried; from 9% slower (BLS12-377) to 6% faster
 * at 13 to 15 limbs, depending on the prime, so one q per column there.
 */
export const defaultQStep = ({ n }) => (n <= 12 ? 2 : 1);

/**
 * The column machinery of the pairs shape, shared by the Montgomery product here and the pseudo-Mersenne one
 * (field-mul-crandall.js): statements go to `body`, locals to `fn`. Returns the helpers that load limbs where a
 * column first needs them, open a column (local acc + 2^w hi, true values bounded at generation time), add
 * blocks of terms with a proven bound (splitting a carry off first where 64 bits could be passed), close a column
 * into its carry out, and add column k's x*y (or x^2) terms as pair products.
 */
export function pairColumns(fn, body, params, { name, square = false }) {
  const { n, w, limbMax: m } = params;
  const W = BigInt(w);
  const x = (i) => local.get(`x${i}`);
  const y = (i) => local.get(`y${i}`);
  /**
   * Loads x_j (and y_j, and PD_(j+1) = PD_j + x_j y_j) where column j first needs them, not all up front: a
   * load stays where the text puts it (it may trap), and a value loaded early is one more for V8 to spill.
   * The stores to out come in columns >= n, after the last load, so out may alias x or y.
   */
  const loadLimbs = (j) => {
    if (square) body.push(comment(`x_${j}`));
    else if (j === 0) body.push(comment('x_0, y_0; PD_1 = x_0 y_0. PD_j = x_0 y_0 + ... + x_(j-1) y_(j-1) mod 2^64: only differences of a few are used'));
    else body.push(comment(`x_${j}, y_${j}; PD_${j + 1} = PD_${j} + x_${j} y_${j}`));
    body.push(local.set(fn.local(`x${j}`), loadLimb('x', j)));
    if (square) return;
    body.push(local.set(fn.local(`y${j}`), loadLimb('y', j)));
    const d = i64.mul(x(j), y(j));
    body.push(local.set(fn.local(`PD${j + 1}`), j === 0 ? d : i64.add(local.get(`PD${j}`), d)));
  };
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

  /**
   * A column's running sum: local `acc`, and local `hi` for carries split off when the next block could
   * overflow 64 bits, so the column's value is acc + 2^w hi. The true values stay in [0, accBound] and
   * [0, hiBound]: i64 arithmetic is exact mod 2^64, so that makes every shift exact.
   * `lateAcc`: acc holds the carry in (it waits on the previous column), so it joins the other terms last.
   */
  const openColumn = (k, acc, hi, carryBound) => {
    fn.local(acc);
    fn.local(hi);
    body.push(null); // the column's comment, written when it closes
    const carried = carryBound !== null;
    return { k, acc, hi, accBound: carried ? carryBound : 0n, hiBound: null, pending: carried ? [local.get(acc)] : [], notes: carried ? ['carry'] : [], lateAcc: carried, commentAt: body.length - 1 };
  };
  /** Sums the pending terms into acc; later terms add to acc. */
  const flush = (col) => {
    const { pending } = col;
    const accAt0 = pending[0] === local.get(col.acc);
    if (pending.length === 0) body.push(local.set(col.acc, i64.const(0)));
    else if (pending.length > 1 || !accAt0) {
      body.push(local.set(col.acc, col.lateAcc && accAt0 ? i64.add(runningSum(pending.slice(1)), pending[0]) : runningSum(pending)));
    }
    col.pending = [local.get(col.acc)];
  };
  const split = (col) => {
    flush(col);
    body.push(comment('carry: the next block could overflow 64 bits'));
    const c = i64.shr_u(local.get(col.acc), shiftConst(w));
    body.push(local.set(col.hi, col.hiBound === null ? c : i64.add(local.get(col.hi), c)));
    body.push(local.set(col.acc, i64.and(local.get(col.acc), maskConst(w))));
    col.hiBound = (col.hiBound ?? 0n) + (col.accBound >> W);
    col.accBound = m;
  };
  /** Adds a block to a column: expressions whose sum lies in [0, bound]. */
  const addBlock = (col, exprs, bound, note) => {
    exprs = exprs.filter((e) => e !== null);
    if (exprs.length === 0) return;
    if (bound > U64_MAX - m) throw new Error(`${name}: a block (${note}) cannot fit a 64-bit accumulator`);
    if (col.accBound + bound > U64_MAX) split(col);
    col.pending.push(...exprs);
    col.accBound += bound;
    col.notes.push(note);
  };
  /** The column's carry out, (acc >> w) + hi, into local `into`; returns its bound. */
  const carryOut = (col, into) => {
    flush(col);
    body[col.commentAt] = comment(`column ${col.k}: ${col.notes.join(' + ')}`);
    const c = i64.shr_u(local.get(col.acc), shiftConst(w));
    body.push(local.set(fn.local(into), col.hiBound === null ? c : i64.add(c, local.get(col.hi))));
    return (col.accBound >> W) + (col.hiBound ?? 0n);
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

  /** The pairs (i, k - i) of column k with i < k - i, as the list of i. */
  const pairsOf = (k) => {
    const is = [];
    for (let i = Math.max(0, k - n + 1); i < k - i; i++) is.push(i);
    return is;
  };

  /** Column k's x*y (or x^2) terms. */
  const productTerms = (col) => {
    const { k } = col;
    const pairs = pairsOf(k);
    const centre = k % 2 === 0; // then k/2 lies in [lo, min(k, n - 1)]: column k has a square term
    if (square) {
      pairBlocks(k, pairs, centre, {
        pairBound: () => 2n * m * m,
        centreBound: m * m,
        emit: (is, withCentre, bound) => {
          const exprs = [];
          if (is.length) exprs.push(i64.shl(runningSum(is.map((i) => i64.mul(x(i), x(k - i)))), i64.const(1)));
          if (withCentre) exprs.push(i64.mul(x(k / 2), x(k / 2)));
          addBlock(col, exprs, bound, `${is.length ? `2 (${is.map((i) => `x_${i} x_${k - i}`).join(' + ')})` : ''}${withCentre ? `${is.length ? ' + ' : ''}x_${k / 2}^2` : ''}`);
        },
      });
    } else {
      pairBlocks(k, pairs, centre, {
        pairBound: () => 2n * m * m,
        centreBound: m * m,
        emit: (is, withCentre, bound) => {
          const exprs = diagonalTerms(pdNames, k, is, withCentre);
          for (const i of is) exprs.push(i64.mul(i64.sub(x(i), x(k - i)), i64.sub(y(k - i), y(i))));
          addBlock(col, exprs, bound, `sum x_i y_j over ${blockNote(k, is, withCentre, (c) => `x_${c} y_${c}`)}`);
        },
      });
    }
  };
  return { x, y, pdNames, prefixDiff, diagonalTerms, blockNote, loadLimbs, openColumn, flush, split, addBlock, carryOut, pairBlocks, pairsOf, productTerms };
}

/**
 * The function out = x*y/R mod p (or x^2/R when `square`), product scanning with pair products.
 * Inputs in [0, 2p) with w-bit limbs; output in [0, 2p), normalized limbs. About n^2 + 3n limb products
 * (fewer when p has zero limbs or equal limbs; the function's comment gives the count).
 * `qStep`: q limbs per reduction step, 1 or 2 (defaultQStep).
 */
export function montgomeryPairs(params, { name, exportName = name, square = false, qStep = defaultQStep(params) }) {
  const { n, w, mu, pLimbs, limbMax: m } = params;
  if (!pairsShapeFits(params)) throw new RangeError(`the pairs shape needs w <= 31 and n <= ${MAX_UNROLLED_LIMBS} (w = ${w}, n = ${n})`);
  if (qStep !== 1 && qStep !== 2) throw new RangeError(`qStep must be 1 or 2, got ${qStep}`);
  const W = BigInt(w);
  const fn = new Func(name, {
    params: square ? [['out', 'i32'], ['x', 'i32']] : [['out', 'i32'], ['x', 'i32'], ['y', 'i32']],
    exportName,
    doc: square
      ? `${name}(out, x): out = x^2 / R mod p. Input in [0, 2p), output in [0, 2p). out may alias x.
Product scanning: cross products doubled, reduction by pair products`
      : `${name}(out, x, y): out = x * y / R mod p. Inputs in [0, 2p), output in [0, 2p). out may alias x or y.
Product scanning with pair products (subtractive Karatsuba per pair of limbs)`,
  });
  const body = [];
  const { addBlock, pairBlocks, pairsOf, diagonalTerms, blockNote, loadLimbs, openColumn, flush, carryOut, productTerms } = pairColumns(fn, body, params, { name, square });
  const q = (i) => local.get(`q${i}`);
  // PQ_j = q_1 p_1 + ... + q_(j-1) p_(j-1), built as the q_j appear. A zero limb of p adds nothing, so the
  // prefix keeps its previous local.
  const pqName = [null, null]; // pqName[j] = local holding PQ_j, null for the empty sum
  const R2w = 1n << (2n * W);
  const mu2 = (R2w - modInverse(params.p % R2w, R2w)) % R2w; // -p^-1 mod 2^(2w)

  /**
   * Column k's q_i p_j terms for the q already known: q_0..q_(k-1) (below n), or with `newestUnknown` only
   * q_0..q_(k-2); then the pair (1, k-1) becomes the single product q_1 p_(k-1) now, q_(k-1) p_1 later.
   */
  const reductionTerms = (col, { newestUnknown = false } = {}) => {
    const { k } = col;
    const centre = k % 2 === 0 && k >= 2;
    let qpPairs = k < n ? pairsOf(k).filter((i) => i >= 1) : pairsOf(k);
    // q_0 p_k stays a single product below n: q_k comes from this column's own sum
    const single = k < n && k >= 1 && !(newestUnknown && k === 1) ? [0] : [];
    if (newestUnknown && k >= 3) {
      qpPairs = qpPairs.filter((i) => i !== 1);
      single.push(1);
    }
    for (const i of single) {
      if (pLimbs[k - i] !== 0n) addBlock(col, [i64.mul(q(i), limbConst(pLimbs[k - i]))], m * pLimbs[k - i], `q_${i} p_${k - i}`);
    }
    pairBlocks(k, qpPairs, centre, {
      pairBound: (i, j) => m * (pLimbs[i] + pLimbs[j]),
      centreBound: centre ? m * pLimbs[k / 2] : 0n,
      emit: (is, withCentre, bound) => {
        // newest q last: the pair (1, k - 1) and the prefix PQ_k wait on q_(k-1), the rest is ready earlier
        const pairProducts = [];
        for (const i of is.toReversed()) {
          const c = pLimbs[k - i] - pLimbs[i];
          if (c !== 0n) pairProducts.push(i64.mul(i64.sub(q(i), q(k - i)), i64.const(c)));
        }
        addBlock(col, [...pairProducts, ...diagonalTerms(pqName, k, is, withCentre)], bound, `sum q_i p_j over ${blockNote(k, is, withCentre, (c) => `q_${c} p_${c}`)}`);
      },
    });
  };

  /** PQ_(k+1) = PQ_k + q_k p_k, once q_k is known (k >= 1). A zero limb of p keeps the previous local. */
  const extendPQ = (k) => {
    if (k === 0) return;
    if (pLimbs[k] === 0n) {
      pqName[k + 1] = pqName[k];
      return;
    }
    const pq = fn.local(`PQ${k + 1}`);
    const d = i64.mul(q(k), limbConst(pLimbs[k]));
    body.push(local.set(pq, pqName[k] === null ? d : i64.add(local.get(pqName[k]), d)));
    pqName[k + 1] = pq;
  };

  // Columns 0..n-1 choose the q_k. Two at a time where possible: Q = q_k + 2^w q_(k+1) = (s * mu2) mod 2^(2w),
  // with s the two columns' sum mod 2^(2w), clears both columns' low bits with one product. Compared with one
  // q per column, that halves the chain of dependent products (q_k = t_k mu, then q_k p_0, then the carry)
  // that runs through the low columns.
  let carryBound = null; // null: column 0 has no carry in
  let k = 0;
  while (k < n) {
    loadLimbs(k);
    const col = openColumn(k, 'acc', 'hi', carryBound);
    productTerms(col);
    reductionTerms(col);
    flush(col);
    if (qStep === 2 && k + 1 < n) {
      loadLimbs(k + 1);
      const next = openColumn(k + 1, 'accNext', 'hiNext', null);
      productTerms(next);
      reductionTerms(next, { newestUnknown: true });
      flush(next);
      body.push(comment(`q_${k} + 2^${w} q_${k + 1} = (s * mu2) mod 2^${2 * w}, s = column ${k} + 2^${w} (column ${k + 1} so far): clears the low ${2 * w} bits of both`));
      const high = col.hiBound === null ? local.get(next.acc) : i64.add(local.get(next.acc), local.get(col.hi));
      const s = i64.add(local.get(col.acc), i64.shl(high, shiftConst(w)));
      body.push(local.set(fn.local('Q'), i64.and(i64.mul(s, limbConst(mu2)), maskConst(2 * w))));
      body.push(local.set(fn.local(`q${k}`), i64.and(local.get('Q'), maskConst(w))));
      body.push(local.set(fn.local(`q${k + 1}`), i64.shr_u(local.get('Q'), shiftConst(w))));
      addBlock(col, [i64.mul(q(k), limbConst(pLimbs[0]))], m * pLimbs[0], `q_${k} p_0`);
      extendPQ(k);
      const bound = carryOut(col, 'carry');
      next.lateAcc = false; // the carry from column k is the late term now
      if (pLimbs[1] !== 0n) addBlock(next, [i64.mul(q(k), limbConst(pLimbs[1]))], m * pLimbs[1], `q_${k} p_1`);
      addBlock(next, [i64.mul(q(k + 1), limbConst(pLimbs[0]))], m * pLimbs[0], `q_${k + 1} p_0`);
      addBlock(next, [local.get('carry')], bound, 'carry');
      extendPQ(k + 1);
      carryBound = carryOut(next, 'acc');
      k += 2;
    } else {
      body.push(comment(`q_${k} = (column * mu) mod 2^${w}: clears the low ${w} bits`));
      body.push(local.set(fn.local(`q${k}`), i64.and(i64.mul(local.get(col.acc), i64.const(mu)), maskConst(w))));
      addBlock(col, [i64.mul(q(k), limbConst(pLimbs[0]))], m * pLimbs[0], `q_${k} p_0`);
      extendPQ(k);
      carryBound = carryOut(col, 'acc');
      k += 1;
    }
  }
  // Columns n..2n-2 give the result limbs.
  for (; k <= 2 * n - 2; k++) {
    const col = openColumn(k, 'acc', 'hi', carryBound);
    productTerms(col);
    reductionTerms(col);
    flush(col);
    body.push(storeLimb('out', k - n, i64.and(local.get(col.acc), maskConst(w))));
    carryBound = carryOut(col, 'acc');
  }
  body.push(comment('the value is < 2p < R, so the last carry is the top limb'));
  body.push(storeLimb('out', n - 1, local.get('acc')));
  fn.push(...body);
  fn.doc += `: ${countLimbProducts(fn)} limb products, ${qStep === 1 ? 'one q limb' : 'two q limbs'} per reduction step.`;
  return fn;
}
