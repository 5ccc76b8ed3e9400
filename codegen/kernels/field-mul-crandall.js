// Product and square mod a pseudo-Mersenne prime p = 2^k - c (c small): the full product by the pairs shape's
// columns (field-mul-pairs.js: one limb product per pair of limbs), then Crandall's reduction, which needs no
// q limbs: 2^k = c mod p, so the bits above k fold back onto the bottom multiplied by c.
//
//   A  X = x*y = sum u_j 2^(j w) over 2n positions, each column split into its low w bits and the rest, which
//      joins the next position (product scanning, no carry chain: the columns are independent);
//   B  fold at the limb boundary F = j0 w, the first at or above bit k: 2^F = c 2^(F-k) = cF (mod p), so
//      V = sum_(j < j0) u_j 2^(j w) + cF sum_(j >= j0) u_j 2^((j - j0) w), carried into n limbs (cF as one or
//      two w-bit limbs);
//   C  fold at bit k: V' = (V mod 2^k) + c (V >> k), carried into canonical limbs.
//
// The generator bounds every step from the inputs' range [0, 2p) and proves V' < 2p (so the output is in the
// lazy range with no final subtraction). With R = 1 (params.reduction 'crandall'), "Montgomery form" is the
// plain value: toMontgomery, fromMontgomery, the inversion's table and every constant follow from params.R.

import { Func, i64, local, comment } from '../wat/index.js';
import { storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';
import { pairColumns, pairsShapeFits, countLimbProducts, MAX_UNROLLED_LIMBS } from './field-mul-pairs.js';

const U64_MAX = (1n << 64n) - 1n;

/** Whether the pseudo-Mersenne kernel applies to params: reduction 'crandall' (codegen/params/crandall.js) within the pairs shape's limits. */
export const crandallFits = (params) => pairsShapeFits(params) && params.crandall !== undefined;

const DOC = (name, square) => square
  ? `${name}(out, x): out = x^2 mod p, p = 2^k - c (R = 1). Input in [0, 2p), output in [0, 2p). out may alias x.`
  : `${name}(out, x, y): out = x * y mod p, p = 2^k - c (R = 1). Inputs in [0, 2p), output in [0, 2p). out may alias x or y.`;

/** out = x*y mod p (or x^2 when `square`) by the steps above. */
export function crandallMul(params, { name = 'mul', exportName = name, square = false } = {}) {
  const { n, w, limbMax: m, crandall } = params;
  if (!crandallFits(params)) throw new RangeError(`the pseudo-Mersenne product needs p = 2^k - c with small c, w <= 31 and n <= ${MAX_UNROLLED_LIMBS} (w = ${w}, n = ${n})`);
  const { k, c, j0, cF, cLimbs, productMax } = crandall;
  const W = BigInt(w);
  const fn = new Func(name, {
    params: square ? [['out', 'i32'], ['x', 'i32']] : [['out', 'i32'], ['x', 'i32'], ['y', 'i32']],
    exportName,
    doc: DOC(name, square),
  });
  const body = [];
  const cols = pairColumns(fn, body, params, { name, square });
  const z = (j) => local.get(`z${j}`);

  // A: X = sum u_j 2^(j w) with u_j = (column j mod 2^w) + (column j-1 >> w): no carry runs from column to column, so
  // the columns are independent; the one carry chain comes in B. u_j 2^(j w) <= X bounds u_j as well.
  body.push(comment(`A: x${square ? '^2' : ' * y'} = sum u_j 2^(${w} j), u_j = (column j mod 2^${w}) + (column j-1 >> ${w}): independent columns`));
  const uMax = [];
  let carryBound = 0n;
  const setU = (j, u, bound) => {
    const valueBound = productMax >> BigInt(j * w);
    uMax.push(bound < valueBound ? bound : valueBound);
    if (uMax[j] > U64_MAX) throw new Error(`${name}: u_${j} could overflow 64 bits`);
    body.push(local.set(fn.local(`z${j}`), u));
  };
  for (let j = 0; j <= 2 * n - 2; j++) {
    if (j < n) cols.loadLimbs(j);
    const col = cols.openColumn(j, 'acc', 'hi', null);
    cols.productTerms(col);
    cols.flush(col);
    const low = i64.and(local.get('acc'), maskConst(w));
    setU(j, j === 0 ? low : i64.add(low, local.get('carry')), m + carryBound);
    carryBound = cols.carryOut(col, 'carry');
  }
  setU(2 * n - 1, local.get('carry'), carryBound);
  uMax.push(0n); // position 2n: empty unless the step below fills it

  // Where cF_l u_i could pass 64 bits (w = 31, or cF near 2^w), the positions from j0 up are split once more,
  // u_i = (u_i mod 2^w) + (u_(i-1) >> w), all in parallel: then u_i < 2^w + a few bits.
  const limit = U64_MAX - (1n << 62n);
  if (cLimbs.some((cl) => uMax.slice(j0).some((u) => cl * u > limit))) {
    body.push(comment(`positions ${j0}.. split once more (u_i mod 2^${w}) + (u_(i-1) >> ${w}), so that cF u_i fits 64 bits`));
    const old = uMax.slice();
    for (let i = 2 * n; i >= j0; i--) {
      const low = i < 2 * n ? i64.and(z(i), maskConst(w)) : null;
      const up = i > j0 ? i64.shr_u(z(i - 1), shiftConst(w)) : null;
      if (low === null && old[i - 1] >> W === 0n) continue;
      const bound = (i < 2 * n ? (old[i] < m ? old[i] : m) : 0n) + (i > j0 ? old[i - 1] >> W : 0n);
      const valueBound = productMax >> BigInt(i * w);
      uMax[i] = bound < valueBound ? bound : valueBound;
      body.push(local.set(fn.local(`z${i}`), low === null ? up : up === null ? low : i64.add(low, up)));
    }
  }
  const zMax = uMax;

  // B: V = (X mod 2^F) + cF (X >> F), F = j0 w; column j takes z_j (j < j0) and cF_l z_(j0 + j - l); column n is the
  // carry out (and whatever folds onto position n).
  body.push(comment(`B: 2^${j0 * w} = ${c} * 2^${j0 * w - k} = cF (mod p): V = (X mod 2^${j0 * w}) + cF (X >> ${j0 * w}), cF = 0x${cF.toString(16)}`));
  const rMax = [];
  carryBound = null;
  for (let j = 0; j <= n; j++) {
    const col = cols.openColumn(j, 'acc', 'hi', carryBound);
    if (j < j0) cols.addBlock(col, [z(j)], zMax[j], `z_${j}`);
    cLimbs.forEach((cl, l) => {
      const i = j0 + j - l;
      if (cl === 0n || i < j0 || i > 2 * n || zMax[i] === 0n) return;
      cols.addBlock(col, [i64.mul(z(i), limbConst(cl))], cl * zMax[i], `cF_${l} z_${i}`);
    });
    cols.flush(col);
    if (j === n) {
      // the top: acc + 2^w hi must be one value below 2^64
      if (col.hiBound !== null) throw new Error(`${name}: the top of step B was split`);
      fn.local(`r${n}`);
      body.push(local.set(`r${n}`, local.get('acc')));
      rMax.push(col.accBound);
      break;
    }
    body.push(local.set(fn.local(`r${j}`), i64.and(local.get('acc'), maskConst(w))));
    rMax.push(m);
    carryBound = cols.carryOut(col, 'acc');
  }
  // A term past position n would be lost: the bounds say there is none.
  for (let i = j0; i <= 2 * n; i++) {
    cLimbs.forEach((cl, l) => {
      if (cl !== 0n && zMax[i] !== 0n && i - j0 + l > n) throw new Error(`${name}: z_${i} folds past the top`);
    });
  }

  // C: V' = (V mod 2^k) + c (V >> k): bit k lies in limb t at position s.
  const t = Math.floor(k / w);
  const s = k - t * w;
  body.push(comment(`C: 2^${k} = ${c} (mod p): T = V >> ${k} (limb ${t} from bit ${s} up), V' = (V mod 2^${k}) + ${c} T < 2p, carried`));
  let T = s === 0 ? local.get(`r${t}`) : i64.shr_u(local.get(`r${t}`), i64.const(s));
  let tBound = rMax[t] >> BigInt(s);
  for (let j = t + 1; j <= n; j++) {
    const shift = BigInt(j * w - k);
    if (rMax[j] === 0n) continue;
    tBound += rMax[j] << shift;
    T = i64.add(T, i64.shl(local.get(`r${j}`), i64.const(shift)));
  }
  if (tBound * c + (1n << W) > U64_MAX) throw new Error(`${name}: c T could overflow 64 bits`);
  body.push(local.set(fn.local('T'), T));
  fn.local('carry');
  for (let j = 0; j <= t; j++) {
    let limb = local.get(`r${j}`);
    if (j === t) limb = i64.and(limb, limbConst((1n << BigInt(s)) - 1n));
    if (j === 0) limb = i64.add(limb, i64.mul(local.get('T'), limbConst(c)));
    else limb = i64.add(limb, local.get('carry'));
    if (j === t) {
      body.push(storeLimb('out', j, limb));
      continue;
    }
    body.push(local.set('acc', limb));
    body.push(local.set('carry', i64.shr_u(local.get('acc'), shiftConst(w))));
    body.push(storeLimb('out', j, i64.and(local.get('acc'), maskConst(w))));
  }
  for (let j = t + 1; j < n; j++) body.push(storeLimb('out', j, i64.const(0)));
  fn.push(...body);
  fn.doc += `\nProduct scanning with pair products, Crandall's reduction (2^${k} = ${c}): ${countLimbProducts(fn)} limb products.`;
  return fn;
}
