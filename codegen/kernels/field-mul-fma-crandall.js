// The FMA product mod a pseudo-Mersenne prime p = 2^k - c (params reduction 'crandall', R = 1): the limb products
// split by FMA as in field-mul-fma.js, but no q limbs, so no chain of dependent products runs through the columns.
//
//   A  columns a_0 .. a_(2n-1) of x*y, independent, each holding its true value c_j + 2^62 (the init constant
//      cancels the f64 bits the raw halves bring, and adds M p, which keeps V below non-negative);
//   B  2^(nW) = c 2^(nW-k) = cF (mod p): the high columns split once into u_j = (c_j mod 2^W) + (c_(j-1) >> W),
//      each small enough that cF u_j fits, and d_j = c_j + cF u_(n+j) is carried into limbs; V >> k = T leaves the
//      top limb;
//   C  2^k = c (mod p): V' = (V mod 2^k) + c T, carried: the output, below 2p.
// Every shift works on a true value + 2^62 in [0, 2^63) or on a non-negative value: a logical shift. The generator
// bounds every column (from the inputs' limbs, the top one below that of 2p) and refuses a prime it cannot prove.

import { Func, i64x2, v128, local, comment } from '../wat/index.js';
import { pairHelpers, splitConstants, COLUMN_OFFSET } from './fma-split.js';

const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
const popcount = (x) => x.toString(2).split('').filter((b) => b === '1').length;

/** x * constant in i64x2 lanes, exact mod 2^64: shifts and adds for a sparse constant, else i64x2.mul. */
function timesConst(x, constant, ic) {
  if (popcount(constant) > 4) return i64x2.mul(x, ic(constant));
  const terms = [];
  for (let b = 0; constant >> BigInt(b); b++) if ((constant >> BigInt(b)) & 1n) terms.push(b === 0 ? x : i64x2.shl(x, `(i32.const ${b})`));
  return terms.reduce((a, t) => i64x2.add(a, t));
}

/** The statements of one paired product mod 2^k - c: lanes 2s and 2s + 1 (fmaMontgomeryMul calls it for crandall params). */
export function pairedCrandall(fn, fp, consts, s) {
  const { W, n, p, crandall: { k, c } } = fp;
  const BW = BigInt(W);
  const mask = (1n << BW) - 1n;
  const { bitsC, bitsK } = consts;
  const [l0, l1] = [2 * s, 2 * s + 1];
  const { v, get, ic, toF64, product, out } = pairHelpers(fn, s, consts);
  const name = `crandall FMA product (p = 2^${k} - ${c}, W = ${W}, n = ${n})`;
  const fits = (lo, hi, what) => {
    if (!(lo > -COLUMN_OFFSET && hi < COLUMN_OFFSET)) throw new Error(`${name}: ${what} could leave (-2^62, 2^62)`);
  };
  const cF = c << (BigInt(n * W) - BigInt(k)); // 2^(nW) mod p
  const top = k - (n - 1) * W; // bit k is bit `top` of the top limb
  if (!(top > 0 && top <= W)) throw new Error(`${name}: bit k is not in the top limb`);

  for (let j = 0; j < n; j++) {
    for (const x of ['x', 'y']) {
      const pair = v128.load64_lane(1, local.get(`${x}${l1}`), v128.load64_zero(local.get(`${x}${l0}`), 8 * j), 8 * j);
      out.push(local.set(v(`${x}${j}`), toF64(pair)));
    }
  }

  // A: true-value bounds [lo, hi] and raw-bit bias of every column; limbs below 2^W, the top one below that of 2p.
  const limbMax = (j) => (j === n - 1 ? (2n * p - 1n) >> BigInt((n - 1) * W) : mask);
  const col = Array.from({ length: 2 * n }, () => ({ lo: 0n, hi: 0n, bias: 0n, terms: [] }));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const hMax = (limbMax(i) * limbMax(j) + (1n << (BW - 1n))) >> BW;
      col[i + j].lo -= 1n << (BW - 1n);
      col[i + j].hi += 1n << (BW - 1n);
      col[i + j].bias += bitsK;
      col[i + j + 1].hi += hMax;
      col[i + j + 1].bias += bitsC;
    }
  }
  // M p added (M 2^k at the top limb, -M c at limb 0) so that V >= 0 below; M from the bounds without it.
  const lowValue = (cols) => cols.slice(0, n).reduce((acc, x, j) => acc + x.lo * (1n << BigInt(j * W)), 0n);
  const highLow = col.slice(n).reduce((acc, x) => acc + (x.lo < 0n ? floorDiv(x.lo, 1n << BW) : 0n), 0n); // u's negative part, at most
  const vMin = lowValue(col) + cF * highLow * (1n << BigInt((n - 1) * W)); // loose: every negative part at the top position
  const M = vMin < 0n ? (-vMin + p - 1n) / p : 0n;
  col[n - 1].lo += M << BigInt(top);
  col[n - 1].hi += M << BigInt(top);
  col[0].lo -= M * c;
  col[0].hi -= M * c;
  col.forEach((x, j) => fits(x.lo, x.hi, `column ${j}`));
  out.push(comment(`A: columns of x y (true value + 2^62), independent; + ${M} p (${M} 2^${top} in column ${n - 1}, -${M * c} in column 0) keeps V >= 0`));
  const a = (j) => `a${j}`;
  const add = (j, term) => {
    const x = col[j];
    if (x.terms.length === 0) {
      let init = COLUMN_OFFSET - x.bias;
      if (j === n - 1) init += M << BigInt(top);
      if (j === 0) init -= M * c;
      out.push(local.set(v(a(j)), i64x2.add(ic(init), term)));
    } else out.push(local.set(v(a(j)), i64x2.add(get(a(j)), term)));
    x.terms.push(term);
  };
  for (let kk = 0; kk <= 2 * n - 2; kk++) {
    for (let i = Math.max(0, kk - n + 1); i <= Math.min(kk, n - 1); i++) {
      const [h, l] = product(get(`x${i}`), get(`y${kk - i}`));
      add(kk, l);
      add(kk + 1, h);
    }
  }

  // B: u_j for the high positions n .. 2n (u_2n must be 0), d_j = c_j + cF u_(n+j), carried.
  out.push(comment(`B: 2^${n * W} = ${cF} (mod p): u_j = (column j mod 2^${W}) + (column j-1 >> ${W}) for j >= ${n}; d_j = column j + ${cF} u_(${n}+j), carried`));
  const OFF = COLUMN_OFFSET >> BW; // the offset a logical shift by W brings along
  const u = [];
  for (let j = n; j <= 2 * n; j++) {
    const parts = [];
    let lo = 0n;
    let hi = 0n;
    if (j < 2 * n) {
      parts.push(v128.and(get(a(j)), ic(mask)));
      hi += mask;
    }
    if (j > n) {
      const below = col[j - 1];
      lo += floorDiv(below.lo, 1n << BW);
      hi += floorDiv(below.hi, 1n << BW);
      if (below.lo >> BW !== 0n || below.hi >> BW !== 0n) parts.push(i64x2.sub(i64x2.shr_u(get(a(j - 1)), `(i32.const ${W})`), ic(OFF)));
    }
    if (j === 2 * n) {
      if (lo !== 0n || hi !== 0n) throw new Error(`${name}: the product reaches position 2n`);
      break;
    }
    out.push(local.set(v(`u${j}`), parts.reduce((x, y) => i64x2.add(x, y))));
    u[j] = { lo, hi };
  }
  let carryLo = 0n;
  let carryHi = 0n;
  for (let j = 0; j < n; j++) {
    const lo = col[j].lo + cF * u[n + j].lo + carryLo;
    const hi = col[j].hi + cF * u[n + j].hi + carryHi;
    fits(lo, hi, `d_${j} + carry`);
    let e = i64x2.add(get(a(j)), timesConst(get(`u${n + j}`), cF, ic));
    if (j > 0) e = i64x2.add(e, i64x2.sub(get('carry'), ic(OFF)));
    out.push(local.set(v('e'), e));
    if (j < n - 1) {
      out.push(local.set(v(`r${j}`), v128.and(get('e'), ic(mask))));
      out.push(local.set(v('carry'), i64x2.shr_u(get('e'), `(i32.const ${W})`)));
      carryLo = floorDiv(lo, 1n << BW);
      carryHi = floorDiv(hi, 1n << BW);
      continue;
    }
    // C: T = V >> k from the top limb (bits top..), V' = (V mod 2^k) + c T
    const tLo = floorDiv(lo, 1n << BigInt(top));
    const tHi = floorDiv(hi, 1n << BigInt(top));
    if (tLo < 0n) throw new Error(`${name}: V could be negative`);
    const outMax = (1n << BigInt(k)) - 1n + c * tHi;
    if (outMax >= 2n * p) throw new Error(`${name}: the output could reach 2p`);
    out.push(comment(`C: 2^${k} = ${c} (mod p): T = V >> ${k} (top limb from bit ${top}), V' = (V mod 2^${k}) + ${c} T < 2p, carried`));
    out.push(local.set(v(`r${j}`), v128.and(get('e'), ic((1n << BigInt(top)) - 1n))));
    out.push(local.set(v('T'), i64x2.sub(i64x2.shr_u(get('e'), `(i32.const ${top})`), ic(COLUMN_OFFSET >> BigInt(top)))));
  }
  // all values below are non-negative and below 2^62
  for (let j = 0; j < n; j++) {
    let limb = get(`r${j}`);
    limb = j === 0 ? i64x2.add(limb, timesConst(get('T'), c, ic)) : i64x2.add(limb, get('carry'));
    if (j < n - 1) {
      out.push(local.set(v('e'), limb));
      out.push(local.set(v('carry'), i64x2.shr_u(get('e'), `(i32.const ${W})`)));
      limb = v128.and(get('e'), ic(mask));
    }
    out.push(local.set(v('e'), limb));
    out.push(v128.store64_lane(0, local.get(`out${l0}`), get('e'), 8 * j));
    out.push(v128.store64_lane(1, local.get(`out${l1}`), get('e'), 8 * j));
  }
  return out;
}

/** Whether the generator proves its bounds for these FMA params (reduction 'crandall'): p = 2^k - c with k a little below a multiple of W. */
export function fmaCrandallFits(fp) {
  const probe = new Func('probe', { params: ['out0', 'x0', 'y0', 'out1', 'x1', 'y1'].map((x) => [x, 'i32']) });
  try {
    pairedCrandall(probe, fp, splitConstants(fp.W), 0);
    return true;
  } catch {
    return false;
  }
}
