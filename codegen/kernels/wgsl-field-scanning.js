// The product-scanning shapes of the WGSL field's products (codegen/kernels/wgsl-field.js, which picks them by its
// mul and sqr options): fp_mul column by column, over a one-level Karatsuba product's columns, and fp_sqr with each
// cross product once. Every column's worst-case bound is checked as the text is written, as the CIOS shapes' carry
// plan is proven: a term that could pass 2^32 - 1 throws.

import { u32, comment, fn, fpOf, limbMask } from '../wgsl/index.js';

const range = (n) => Array.from({ length: n }, (_, i) => i);
const span = (a, b) => range(Math.max(0, b - a)).map((i) => a + i); // a .. b - 1

/**
 * The Montgomery product by product scanning (FIPS), unrolled: column k sums every x_i y_(k-i) and q_i p_(k-i), with
 * q_k = (t mu) mod 2^w chosen in column k < n so that the column's low w bits vanish; columns n..2n-1 are the limbs
 * of the result. One column accumulator t (u32) and its high part h: before a term could take t past 2^32 - 1,
 * h += t >> w and t &= 2^w - 1 (t + h 2^w unchanged). The bounds are exact worst cases (limbs of values below 2p, q
 * below 2^w, the limbs of p), checked here as the text is written: a term that could overflow throws. karatsuba:
 * each column's x y part is C_k from karatsubaColumns, one term, instead of its limb products. square: fp_sqr(x), each
 * column's x x part as (sum_(i < k - i) x_i x_(k-i)) 2 + x_(k/2)^2 (its bound the same as the product's).
 */
export function productScanningWgsl(params, { karatsuba = false, square = false } = {}) {
  const { n, w, mu, p, pLimbs } = params;
  const M = limbMask(w);
  const W = BigInt(w);
  const MASK = (1n << W) - 1n;
  const MAX = (1n << 32n) - 1n;
  const limbMax = inputLimbMax(params);
  const body = [
    comment(`x_${square ? 'i' : 'i and y_j'} in lets; t the column sum, h its high part (t + h 2^w), c the carry into the next column`),
    ...range(n).map((j) => (square ? `let x${j} = x[${j}];` : `let x${j} = x[${j}]; let y${j} = y[${j}];`)),
  ];
  const pairsOf = (k) => span(Math.max(0, k - n + 1), Math.min(k, n - 1) + 1);
  let xyTerms = (k) => pairsOf(k).map((i) => ({ expr: `x${i} * y${k - i}`, bound: limbMax(i) * limbMax(k - i), note: `x_${i}*y_${k - i}` }));
  let xyProducts = n * n;
  if (square) {
    const columns = squareColumns(params, limbMax);
    xyTerms = (k) => columns.terms[k];
    xyProducts = columns.products;
  }
  if (karatsuba) {
    const columns = karatsubaColumns(params);
    body.push(...columns.lines);
    xyTerms = (k) => [{ expr: `C${k}`, bound: columns.bounds[k], note: `C_${k}` }];
    xyProducts = columns.products;
  }
  body.push('var t: u32; var h: u32; var c: u32;');
  let carry = 0n; // bound of c, the carry into column k
  let largest = 0n;
  let splits = 0;
  for (let k = 0; k <= 2 * n - 2; k++) {
    const lo = Math.max(0, k - n + 1);
    const hi = Math.min(k, n - 1);
    const lines = [];
    const notes = [];
    let acc = k === 0 ? null : 'c';
    let tBound = k === 0 ? 0n : carry;
    let hBound = null; // null: h not started in this column
    const flush = () => {
      if (acc !== null && acc !== 't') lines.push(`t = ${acc};`);
      acc = 't';
    };
    const add = (expr, bound, note) => {
      if (bound === 0n) return;
      if (tBound + bound > MAX) {
        if (acc === null || tBound === 0n) throw new Error(`fp_mul (product scanning): one term exceeds 2^32 - 1 (w = ${w})`);
        flush();
        lines.push(`h = ${hBound === null ? `t >> ${w}u` : `h + (t >> ${w}u)`}; t = t & ${M}; // split`);
        hBound = (hBound ?? 0n) + (tBound >> W);
        tBound = tBound < MASK ? tBound : MASK;
        notes.push('[split]');
        splits++;
      }
      if (tBound + bound > MAX) throw new Error(`fp_mul (product scanning): a term exceeds 2^32 - 1 after a split (w = ${w})`);
      acc = acc === null ? expr : `${acc} + ${expr}`;
      tBound += bound;
      notes.push(note);
      if (tBound > largest) largest = tBound;
    };
    if (k > 0) notes.push('carry');
    for (const { expr, bound, note } of xyTerms(k)) add(expr, bound, note);
    for (let i = lo; i <= Math.min(hi, k < n ? k - 1 : hi); i++) {
      if (pLimbs[k - i] !== 0n) add(`q${i} * ${u32(pLimbs[k - i])}`, MASK * pLimbs[k - i], `q_${i}*p_${k - i}`);
    }
    if (k < n) {
      flush();
      lines.push(`let q${k} = (t * ${u32(mu)}) & ${M}; // q_${k} = (t * mu) mod 2^${w}: the column's low w bits vanish`);
      add(`q${k} * ${u32(pLimbs[0])}`, MASK * pLimbs[0], `q_${k}*p_0`);
    }
    flush();
    if (k >= n) lines.push(`let r${k - n} = t & ${M};`);
    lines.push(`c = ${hBound === null ? `t >> ${w}u` : `h + (t >> ${w}u)`};`);
    carry = (hBound ?? 0n) + (tBound >> W);
    if (hBound !== null && hBound > MAX) throw new Error(`fp_mul (product scanning): h exceeds 2^32 - 1 (w = ${w})`);
    if (carry > MAX) throw new Error(`fp_mul (product scanning): the carry exceeds 2^32 - 1 (w = ${w})`);
    body.push(comment(`column ${k}: t = ${notes.join(' + ')}${k >= n ? `; r_${k - n} = t mod 2^w` : ''}`), ...lines);
  }
  // the last column (2n - 1) holds only the carry: the top limb, below 2^w since the result is below 2p < R
  body.push(`let r${n - 1} = c;`);
  body.push(`return ${fpOf(range(n).map((j) => `r${j}`))};`);
  const reductionProducts = n * n - pLimbs.filter((l) => l === 0n).length * n;
  const shape = square ? 'Product scanning, each cross product once and doubled' : karatsuba ? 'Karatsuba (one level) for x y, then the reduction by product scanning' : 'Product scanning';
  return fn({
    doc: `${square ? 'fp_sqr(x) = x^2 / R mod p: [0, 2p) -> [0, 2p)' : 'fp_mul(x, y) = x y / R mod p (Montgomery product): [0, 2p) x [0, 2p) -> [0, 2p)'}, since 4p < R.
${shape}, fully unrolled, ${xyProducts + reductionProducts} limb products; ${splits} splits of a column sum (u32
accumulators, exact worst-case bounds: largest sum < 2^${largest.toString(2).length}). mu = -p^-1 mod 2^w = ${mu}.`,
    signature: square ? 'fp_sqr(x: Fp) -> Fp' : 'fp_mul(x: Fp, y: Fp) -> Fp',
    body,
  });
}

/**
 * The x x part of each column k of fp_sqr: the cross products x_i x_(k-i) (i < k - i) in groups doubled at once, each
 * group's doubled sum small enough to follow a split (below 2^32 - 2^w), and x_(k/2)^2; a product too large to double
 * in a u32 (w = 16) goes in twice. { terms: per column [{ expr, bound, note }], products: the limb products written }.
 */
function squareColumns({ n, w }, limbMax) {
  const roomy = (1n << 32n) - 1n - ((1n << BigInt(w)) - 1n);
  let products = 0;
  const terms = range(2 * n - 1).map((k) => {
    const column = [];
    let group = [];
    let groupBound = 0n;
    const close = () => {
      if (group.length) column.push({ expr: `(${group.join(' + ')}) * 2u`, bound: 2n * groupBound, note: `2 (${group.join(' + ').replace(/x(\d+) \* x(\d+)/g, 'x_$1 x_$2')})` });
      group = [];
      groupBound = 0n;
    };
    for (let i = Math.max(0, k - n + 1); i < k - i; i++) {
      const b = limbMax(i) * limbMax(k - i);
      if (2n * b > roomy) {
        close();
        for (const _ of [0, 1]) column.push({ expr: `x${i} * x${k - i}`, bound: b, note: `x_${i}*x_${k - i}` });
        products += 2;
        continue;
      }
      if (2n * (groupBound + b) > roomy) close();
      group.push(`x${i} * x${k - i}`);
      groupBound += b;
      products++;
    }
    close();
    if (k % 2 === 0) {
      column.push({ expr: `x${k / 2} * x${k / 2}`, bound: limbMax(k / 2) ** 2n, note: `x_${k / 2}^2` });
      products++;
    }
    return column;
  });
  return { terms, products };
}

/** The largest limb j of a value below 2p (the inputs of fp_mul): 2^w - 1, or less for the top limb. */
function inputLimbMax({ n, w, p }) {
  const MASK = (1n << BigInt(w)) - 1n;
  const topMax = (2n * p - 1n) >> BigInt((n - 1) * w);
  return (j) => (j === n - 1 && topMax < MASK ? topMax : MASK);
}

/**
 * The columns C_k = sum_i x_i y_(k-i) (k = 0..2n-2, no carries) by one level of Karatsuba: with x = x_lo + x_hi B^h
 * (h = floor(n/2) low limbs, m = n - h high ones), z0 = x_lo y_lo, z2 = x_hi y_hi and z1 = (x_lo + x_hi)(y_lo + y_hi)
 * column by column (h^2 + 2 m^2 limb products instead of n^2), then C_k = z0_k + (z1 - z0 - z2)_(k-h) + z2_(k-2h).
 * Every value is exact in u32: z1_k - z0_k - z2_k is the column's cross terms, never negative, and every bound (the
 * sums' limbs, each z1 column, each C_k) is checked below 2^32 here; a prime and w where one is not throw
 * (karatsubaFits). { lines, bounds: C_k's, products }.
 */
function karatsubaColumns(params) {
  const { n, w } = params;
  const MAX = (1n << 32n) - 1n;
  if (n < 2) throw new RangeError('fp_mul (karatsuba) needs n >= 2 limbs');
  const limbMax = inputLimbMax(params);
  const h = Math.floor(n / 2);
  const m = n - h;
  const lo = (i) => (i < h ? limbMax(i) : 0n);
  const hi = (i) => (i < m ? limbMax(h + i) : 0n);
  const pairs = (k, size) => span(Math.max(0, k - size + 1), Math.min(k, size - 1) + 1).map((i) => [i, k - i]);
  const sumOver = (k, size, f) => pairs(k, size).reduce((s, [i, j]) => s + f(i, j), 0n);
  const lines = [comment(`Karatsuba: x = x_lo + x_hi 2^(${h} w), the sums xs = x_lo + x_hi and ys (limbs below 2^${w + 1})`)];
  for (let i = 0; i < m; i++) {
    lines.push(i < h ? `let xs${i} = x${i} + x${h + i}; let ys${i} = y${i} + y${h + i};` : `let xs${i} = x${h + i}; let ys${i} = y${h + i};`);
  }
  const column = (name, k, size, term, bound) => {
    const b = sumOver(k, size, bound);
    if (b > MAX) throw new RangeError(`fp_mul (karatsuba): column ${k} of ${name} can reach 2^${b.toString(2).length - 1} or more (w = ${w}): no u32 holds it`);
    lines.push(`let ${name}_${k} = ${pairs(k, size).map(([i, j]) => term(i, j)).join(' + ')};`);
  };
  lines.push(comment(`z0 = x_lo y_lo, z2 = x_hi y_hi, z1 = xs ys, by columns`));
  for (let k = 0; k <= 2 * h - 2; k++) column('z0', k, h, (i, j) => `x${i} * y${j}`, (i, j) => lo(i) * lo(j));
  for (let k = 0; k <= 2 * m - 2; k++) column('z2', k, m, (i, j) => `x${h + i} * y${h + j}`, (i, j) => hi(i) * hi(j));
  for (let k = 0; k <= 2 * m - 2; k++) column('z1', k, m, (i, j) => `xs${i} * ys${j}`, (i, j) => (lo(i) + hi(i)) * (lo(j) + hi(j)));
  lines.push(comment('the cross terms z1 - z0 - z2, then the columns C_k = z0_k + cross_(k-h) + z2_(k-2h)'));
  for (let k = 0; k <= 2 * m - 2; k++) lines.push(`let cross_${k} = z1_${k}${k <= 2 * h - 2 ? ` - z0_${k}` : ''} - z2_${k};`);
  const bounds = [];
  for (let k = 0; k <= 2 * n - 2; k++) {
    const parts = [];
    if (k <= 2 * h - 2) parts.push(`z0_${k}`);
    if (k - h >= 0 && k - h <= 2 * m - 2) parts.push(`cross_${k - h}`);
    if (k - 2 * h >= 0 && k - 2 * h <= 2 * m - 2) parts.push(`z2_${k - 2 * h}`);
    bounds.push(sumOver(k, n, (i, j) => limbMax(i) * limbMax(j)));
    if (bounds[k] > MAX) throw new RangeError(`fp_mul (karatsuba): column ${k} of x y can reach 2^${bounds[k].toString(2).length - 1} or more (w = ${w})`);
    lines.push(`let C${k} = ${parts.join(' + ')};`);
  }
  return { lines, bounds, products: h * h + 2 * m * m };
}

/** Whether fieldWgsl can write fp_mul in the karatsuba shape for these params (n >= 2, every column within a u32). */
export function karatsubaFits(params) {
  try {
    karatsubaColumns(params);
    return true;
  } catch (e) {
    if (e instanceof RangeError) return false;
    throw e;
  }
}
