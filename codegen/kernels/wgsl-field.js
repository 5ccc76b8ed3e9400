// The field kernels in WGSL (prefix fp_, the contract of codegen/wgsl/README.md), over
// deriveFieldParams({ p, w, kernel: 'gpu' }): n limbs of w = 12..16 bits in u32 words, Montgomery form, lazy range
// [0, 2p) (4p < R = 2^(n w)). WGSL has no 64-bit integers and only the low 32 bits of a product; with w <= 16
// every limb product fits a u32, and the carry plan (codegen/params/carry-plan.js, 32-bit accumulators) places
// every t >> w split at generation time from the exact worst-case sum of each accumulator. The product-scanning
// shapes (for the bench) are in wgsl-field-scanning.js.
//
// Style of the text: values are `let`s where they are computed once; the product's accumulators are `var`s
// reassigned in straight-line code (the compilers make SSA of both); limbs are indexed by constants only (a dynamic
// index can force an array into local memory on GPUs), except x[i] once per outer step in the loop shape of fp_mul,
// which measured as fast as the unrolled one on an H100 (bench/gpu-field.js). Borrows are bit 31 of a u32
// difference: every difference of w-bit limbs lies in (-2^31, 2^31).

import { u32, comment, fn, fpOf, limbMask } from '../wgsl/index.js';
import { wgslFpPlain } from '../wgsl/constants.js';
import { karatsubaFits, productScanningWgsl } from './wgsl-field-scanning.js';

export { karatsubaFits };

/**
 * Shapes of fp_mul: operand scanning (CIOS) with every outer step written out, or one step in a WGSL loop (n times
 * less code); or product scanning, column by column (`product`), or the same reduction over the columns of a
 * one-level Karatsuba product (`karatsuba`, where karatsubaFits: the form of barretenberg's Wasm product in
 * ../shared/references 000), for the bench to compare.
 */
export const MUL_SHAPES = Object.freeze(['unrolled', 'loop', 'product', 'karatsuba']);
/** Shapes of fp_sqr: fp_mul(x, x), or its own product scanning (`scanning`: each cross product x_i x_j once, doubled). */
export const SQR_SHAPES = Object.freeze(['mul', 'scanning']);

const range = (n) => Array.from({ length: n }, (_, i) => i);
const chunks = (a, k) => range(Math.ceil(a.length / k)).map((i) => a.slice(i * k, i * k + k));

/** The field's WGSL text: constants, then every fp_ function (no module header; see wgslHeader). */
export function fieldWgsl(params, { sqr = 'mul', mul = 'unrolled' } = {}) {
  if (params.kernel !== 'gpu') throw new RangeError(`fieldWgsl needs deriveFieldParams({ kernel: 'gpu' }), got kernel ${JSON.stringify(params.kernel)}`);
  if (!SQR_SHAPES.includes(sqr)) throw new RangeError(`unknown sqr shape ${JSON.stringify(sqr)} (${SQR_SHAPES.join(', ')})`);
  if (!MUL_SHAPES.includes(mul)) throw new RangeError(`unknown mul shape ${JSON.stringify(mul)} (${MUL_SHAPES.join(', ')})`);
  const { n, w, p, bytes } = params;
  const words = Math.ceil(bytes / 4);
  const limbs = (x) => wgslFpPlain(params, x);
  const parts = [
    comment(`F_p: Montgomery arithmetic mod p with ${n} limbs of ${w} bits in u32 words (codegen/kernels/wgsl-field.js).
An Fp holds little-endian limbs of w bits: x R mod p (Montgomery form, R = 2^${n * w}) in the lazy range [0, 2p)
unless a function says otherwise; p = 0x${p.toString(16)}.`),
    [
      `const FP_N: u32 = ${n}u; // limbs`,
      `const FP_W: u32 = ${w}u; // bits per limb`,
      `const FP_WORDS: u32 = ${words}u; // u32 words of one coordinate in the byte encoding (${bytes} bytes)`,
      `alias Fp = array<u32, FP_N>;`,
      `const FP_ZERO: Fp = Fp();`,
    ].join('\n'),
    `// 1 in Montgomery form: R mod p\nconst FP_ONE: Fp = ${limbs(params.one)};`,
    `// R^2 mod p: fp_mul(x, FP_R2) = x R mod p\nconst FP_R2: Fp = ${limbs(params.R2)};`,
    `// p itself (plain limbs)\nconst FP_P: Fp = ${limbs(p)};`,
    fpAdd(params, 'fp_add', ['x', 'y'], 'x + y mod p'),
    fpAdd(params, 'fp_double', ['x', 'x'], '2x mod p'),
    fpSub(params, 'fp_sub', ['x', 'y'], 'x - y mod p'),
    fpSub(params, 'fp_neg', [null, 'x'], '-x mod p (0 - x: fp_neg(0) = 0)'),
    mul === 'product' || mul === 'karatsuba' ? productScanningWgsl(params, { karatsuba: mul === 'karatsuba' }) : fpMul(params, mul),
    sqr === 'scanning'
      ? productScanningWgsl(params, { square: true })
      : fn({
        doc: `fp_sqr(x) = x^2 / R mod p through fp_mul: [0, 2p) -> [0, 2p).`,
        signature: 'fp_sqr(x: Fp) -> Fp',
        body: ['return fp_mul(x, x);'],
      }),
    fpCanonical(params),
    fpIsZero(params),
    fn({
      doc: 'fp_eq(x, y): x = y mod p, for x, y in [0, 2p) (compares the canonical residues).',
      signature: 'fp_eq(x: Fp, y: Fp) -> bool',
      body: [
        'let a = fp_canonical(x);',
        'let b = fp_canonical(y);',
        `return (${range(n).map((j) => `(a[${j}] ^ b[${j}])`).join(' | ')}) == 0u;`,
      ],
    }),
    fpFromWords(params, words),
    fpToWords(params, words),
    fpLtP(params),
    fn({
      doc: 'fp_toMontgomery(x) = x R mod p: x plain in [0, p) (fp_ltP) -> [0, 2p), as fp_mul(x, FP_R2).',
      signature: 'fp_toMontgomery(x: Fp) -> Fp',
      body: ['return fp_mul(x, FP_R2);'],
    }),
  ];
  return parts.join('\n\n') + '\n';
}

/**
 * Statements of a carried add chain over limbs a_j + b_j (+ the carry): `let s_j` w-bit limbs, the top limb
 * unmasked (the caller proves the sum < R). Terms are WGSL expressions; null means a zero limb.
 */
function addChain({ n, w }, a, b, out, tmp) {
  const lines = [];
  for (let j = 0; j < n; j++) {
    const terms = [a[j], b[j], j > 0 ? `(${tmp}${j - 1} >> ${w}u)` : null].filter((t) => t !== null && t !== '0u');
    const sum = terms.length ? terms.join(' + ') : '0u';
    if (j === n - 1) lines.push(`let ${out}${j} = ${sum};`);
    else lines.push(`let ${tmp}${j} = ${sum};`, `let ${out}${j} = ${tmp}${j} & ${limbMask(w)};`);
  }
  return lines;
}

/**
 * A borrowed subtract chain a - b: `let d_j` w-bit limbs and `let {tmp}_j` the raw differences, whose bit 31 is the
 * borrow out of limb j (a difference of w-bit limbs and a borrow is in (-2^31, 2^31)).
 */
function subChain({ n, w }, a, b, out, tmp) {
  const lines = [];
  for (let j = 0; j < n; j++) {
    const terms = [a[j] ?? '0u', b[j], j > 0 ? `(${tmp}${j - 1} >> 31u)` : null].filter((t) => t !== null);
    lines.push(`let ${tmp}${j} = ${terms.join(' - ')};`, `let ${out}${j} = ${tmp}${j} & ${limbMask(w)};`);
  }
  return lines;
}

const limbExprs = (name, n) => (name === null ? range(n).map(() => null) : range(n).map((j) => `${name}[${j}]`));
const constExprs = (limbs) => limbs.map((l) => (l === 0n ? null : u32(l)));

/** fp_add / fp_double: s = x + y < 4p < R, then s - 2p where that does not borrow. */
function fpAdd(params, name, [x, y], what) {
  const { n, twoPLimbs } = params;
  const body = [
    comment(`s = ${x} + ${y} < 4p < R: the top limb takes no carry out`),
    ...addChain(params, limbExprs(x, n), limbExprs(y, n), 's', 'a'),
    comment('d = s - 2p; keep s where that borrows (s < 2p)'),
    ...subChain(params, limbExprs(null, n).map((_, j) => `s${j}`), constExprs(twoPLimbs).map((e) => e ?? '0u'), 'd', 'b'),
    `let keep = (b${n - 1} >> 31u) == 1u;`,
    `return ${fpOf(range(n).map((j) => `select(d${j}, s${j}, keep)`))};`,
  ];
  const signature = name === 'fp_double' ? 'fp_double(x: Fp) -> Fp' : `${name}(x: Fp, y: Fp) -> Fp`;
  return fn({ doc: `${name}(${name === 'fp_double' ? 'x' : 'x, y'}) = ${what}: [0, 2p) inputs -> [0, 2p).`, signature, body });
}

/** fp_sub / fp_neg: d = x - y in (-2p, 2p); add 2p where it borrowed. */
function fpSub(params, name, [x, y], what) {
  const { n, w, twoPLimbs } = params;
  const body = [
    comment(`d = ${x ?? '0'} - ${y} + R (mod R) with the borrow out of the top limb`),
    ...subChain(params, limbExprs(x, n), limbExprs(y, n), 'd', 'b'),
    comment('where it borrowed (x < y), add 2p: d + 2p in [0, 2p); the carry out of the top limb cancels the R'),
    `let m = 0u - (b${n - 1} >> 31u);`,
    ...range(n).flatMap((j) => {
      const terms = [`d${j}`, twoPLimbs[j] === 0n ? null : `(${u32(twoPLimbs[j])} & m)`, j > 0 ? `(v${j - 1} >> ${w}u)` : null].filter(Boolean);
      return [`let v${j} = ${terms.join(' + ')};`];
    }),
    `return ${fpOf(range(n).map((j) => `v${j} & ${limbMask(w)}`))};`,
  ];
  const signature = name === 'fp_neg' ? 'fp_neg(x: Fp) -> Fp' : `${name}(x: Fp, y: Fp) -> Fp`;
  return fn({ doc: `${name}(${name === 'fp_neg' ? 'x' : 'x, y'}) = ${what}: [0, 2p) inputs -> [0, 2p).`, signature, body });
}

function fpCanonical(params) {
  const { n, pLimbs } = params;
  return fn({
    doc: 'fp_canonical(x) = x mod p: [0, 2p) -> [0, p) (x - p where that does not borrow).',
    signature: 'fp_canonical(x: Fp) -> Fp',
    body: [
      ...subChain(params, limbExprs('x', n), constExprs(pLimbs).map((e) => e ?? '0u'), 'd', 'b'),
      `let keep = (b${n - 1} >> 31u) == 1u;`,
      `return ${fpOf(range(n).map((j) => `select(d${j}, x[${j}], keep)`))};`,
    ],
  });
}

function fpIsZero({ n, pLimbs }) {
  return fn({
    doc: 'fp_isZero(x): x = 0 mod p, for x in [0, 2p) (x is 0 or p).',
    signature: 'fp_isZero(x: Fp) -> bool',
    body: [
      `let z = ${range(n).map((j) => `x[${j}]`).join(' | ')};`,
      `let e = ${range(n).map((j) => `(x[${j}] ^ ${u32(pLimbs[j])})`).join(' | ')};`,
      'return (z == 0u) | (e == 0u);',
    ],
  });
}

function fpLtP(params) {
  const { n, pLimbs } = params;
  return fn({
    doc: `fp_ltP(x): x < p for plain limbs (the input range check); limbs below the top one of w bits, the top one < 2^31
(fp_fromWords marks a value >= R by bit w of the top limb, which this rejects).`,
    signature: 'fp_ltP(x: Fp) -> bool',
    body: [
      ...subChain(params, limbExprs('x', n), constExprs(pLimbs).map((e) => e ?? '0u'), 'd', 'b').filter((l) => !l.startsWith('let d')),
      `return (b${n - 1} >> 31u) == 1u;`,
    ],
  });
}

/** Bits [lo, lo + width) of the little-endian words v (width <= 32), as a WGSL expression; null when all zero. */
function wordBits(words, lo, width) {
  const terms = [];
  for (let k = Math.floor(lo / 32); k < words && k * 32 < lo + width; k++) {
    const shift = lo - 32 * k; // word k's bit 0 sits at bit -shift of the field
    terms.push(shift > 0 ? `(v[${k}] >> ${shift}u)` : shift < 0 ? `(v[${k}] << ${-shift}u)` : `v[${k}]`);
  }
  if (!terms.length) return null;
  const needMask = lo + width < words * 32 || terms.length > 1 || lo % 32 !== 0;
  const e = terms.join(' | ');
  return needMask && width < 32 ? `(${e}) & ${limbMask(width)}` : e;
}

function fpFromWords({ n, w }, words) {
  const body = [];
  const limbs = range(n).map((j) => wordBits(words, j * w, w) ?? '0u');
  const total = words * 32;
  if (total > n * w) {
    // bits at and above n w: a value >= R; bit w of the top limb records them so that fp_ltP rejects it
    const high = [];
    for (let k = Math.floor((n * w) / 32); k < words; k++) {
      const shift = n * w - 32 * k;
      high.push(shift > 0 ? `(v[${k}] >> ${shift}u)` : `v[${k}]`);
    }
    body.push(`let high = ${high.join(' | ')}; // bits >= n w = ${n * w}`);
    limbs[n - 1] = `(${limbs[n - 1]}) | select(0u, ${u32(1n << BigInt(w))}, high != 0u)`;
  }
  body.push(`return Fp(\n${limbs.map((l) => `  ${l}`).join(',\n')}\n);`);
  return fn({
    doc: `fp_fromWords(v): ${words} little-endian u32 words -> ${n} limbs of ${w} bits (the plain value, not reduced). A value
of ${total} bits >= R = 2^${n * w} sets bit ${w} of the top limb instead, so that fp_ltP rejects it.`,
    signature: 'fp_fromWords(v: array<u32, FP_WORDS>) -> Fp',
    body,
  });
}

/** fp_toWords: the canonical residue (fp_canonical) as FP_WORDS little-endian u32 words: p < 2^(32 words) holds it. */
function fpToWords({ n, w }, words) {
  const out = range(words).map((k) => {
    const terms = [];
    for (let j = 0; j < n; j++) {
      const shift = j * w - 32 * k; // limb j's bit 0 at bit `shift` of word k
      if (shift >= 32 || shift + w <= 0) continue;
      terms.push(shift > 0 ? `(c[${j}] << ${shift}u)` : shift < 0 ? `(c[${j}] >> ${-shift}u)` : `c[${j}]`);
    }
    return terms.length ? terms.join(' | ') : '0u';
  });
  return fn({
    doc: `fp_toWords(x): x in [0, 2p) -> the ${words} little-endian u32 words of x mod p (fp_canonical; fp_fromWords' inverse on
[0, p)): how the MSM keeps points in GPU memory, ${words * 4} bytes a coordinate instead of ${n * 4} of limbs.`,
    signature: 'fp_toWords(x: Fp) -> array<u32, FP_WORDS>',
    body: ['let c = fp_canonical(x);', `return array<u32, FP_WORDS>(\n${out.map((e) => `  ${e}`).join(',\n')}\n);`],
  });
}

/**
 * The Montgomery product, operand scanning (CIOS), fully unrolled. Outer step i adds x_i y + q_i p to the
 * accumulators S and shifts them down one limb; the carry plan says where a column's sum t is split into
 * t & (2^w - 1) and a carry t >> w, so that no u32 accumulator ever passes 2^32 - 1 (a proof, not a check).
 */
function fpMul(params, shape = 'unrolled') {
  const { n, w, mu, pLimbs, carryPlan } = params;
  const M = limbMask(w);
  const body = [
    comment('x_i and y_j in lets; S_j the accumulators (u32, lazily carried), t the column sum, c0/c1 the carries'),
    ...range(n).map((j) => (shape === 'loop' ? `let y${j} = y[${j}];` : `let x${j} = x[${j}]; let y${j} = y[${j}];`)),
    `var t: u32; var q: u32; var c0: u32; var c1: u32;`,
    ...chunks(range(n).map((j) => `var S${j}: u32 = 0u;`), 8).map((row) => row.join(' ')),
  ];
  if (shape === 'loop') {
    // the carry plan is a fixpoint over the outer step, so one step proven for the largest S serves every i
    body.push(comment(`outer step i = 0..${n - 1} in a loop: S = (S + x_i*y + q_i*p) / 2^${w}`));
    body.push('for (var i = 0u; i < FP_N; i++) {', '  let xi = x[i];', ...montgomeryStep(params, 'i', M).map((l) => `  ${l}`), '}');
  } else {
    for (let i = 0; i < n; i++) {
      body.push(comment(`outer step ${i}: S = (S + x_${i}*y + q_${i}*p) / 2^${w}`));
      body.push(...montgomeryStep(params, i, M));
    }
  }
  body.push(comment('normalize: propagate the lazy carries so every limb has w bits (the value is < 2p < R)'));
  for (let j = 0; j < n - 1; j++) {
    body.push(`t = ${j === 0 ? 'S0' : `S${j} + c0`}; let r${j} = t & ${M}; c0 = t >> ${w}u;`);
  }
  body.push(`let r${n - 1} = ${n === 1 ? 'S0' : `S${n - 1} + c0`};`);
  body.push(`return ${fpOf(range(n).map((j) => `r${j}`))};`);
  return fn({
    doc: `fp_mul(x, y) = x y / R mod p (Montgomery product): [0, 2p) x [0, 2p) -> [0, 2p), since 4p < R.
CIOS, ${shape === 'loop' ? 'the outer step in a loop (compact: the shader compilers take it fast)' : 'fully unrolled'}, ${2 * n * n - pLimbs.filter((l) => l === 0n).length * n} limb products. Carry plan (u32 accumulators): ${carryPlan.summary}.
mu = -p^-1 mod 2^w = ${mu}.`,
    signature: 'fp_mul(x: Fp, y: Fp) -> Fp',
    body,
  });
}

/** One outer step of the product as statements, following carryPlan.columns (the WAT generator's montgomeryStep). */
function montgomeryStep(params, i, M) {
  const { n, w, mu, pLimbs, carryPlan } = params;
  const out = [];
  const firstStep = i === 0;
  const carry = (j) => `c${j % 2}`;
  for (let j = 0; j < n; j++) {
    const column = carryPlan.columns[j];
    const lines = [];
    const notes = [];
    let acc = null; // the pending sum, not yet written to t
    let carryStarted = false;
    const flush = () => {
      if (acc !== null && acc !== 't') lines.push(`t = ${acc};`);
      acc = null;
    };
    const takeCarry = (cj) => {
      lines.push(`${cj} = ${carryStarted ? `${cj} + (t >> ${w}u)` : `t >> ${w}u`};`);
      carryStarted = true;
    };
    for (const name of column.ops) {
      if (name === 'split') {
        if (acc === null) continue; // nothing summed yet (the first step has no S term)
        notes.push('[split: carry t >> w]');
        flush();
        takeCarry(carry(j));
        lines.push(`t = t & ${M};`);
        acc = 't';
        continue;
      }
      if (name === 'S' && firstStep) continue; // S = 0 before the first step
      if (j === 0 && name === 'qp') {
        flush();
        lines.push(`q = (t * ${u32(mu)}) & ${M}; // q_${i} = (t * mu) mod 2^${w}, so that t + q_${i}*p_0 = 0 mod 2^${w}`);
        acc = 't';
      }
      const term = {
        S: `S${j}`,
        xy: `x${i} * y${j}`,
        qp: pLimbs[j] === 0n ? null : `q * ${u32(pLimbs[j])}`,
        carry: carry(j - 1),
      }[name];
      if (term === null) continue;
      notes.push({ S: `S_${j}`, xy: `x_${i}*y_${j}`, qp: `q_${i}*p_${j}`, carry: 'carry' }[name]);
      acc = acc === null ? term : `${acc} + ${term}`;
    }
    if (acc === null) acc = '0u';
    const target = j === 0 ? 't' : `S_${j - 1}`;
    out.push(comment(`column ${j}: ${target} = ${notes.join(' + ')}${column.endSplit || j === 0 ? ', carry out' : ''}`));
    if (j === 0) {
      flush();
      takeCarry(carry(0));
      if (n === 1) lines.push(`S0 = ${carry(0)};`); // one limb: column 0 is also the last
    } else if (column.endSplit) {
      flush();
      takeCarry(carry(j));
      lines.push(`S${j - 1} = t & ${M};`);
    } else {
      lines.push(`S${j - 1} = ${acc};`);
    }
    if (j === n - 1 && n > 1) lines.push(`S${n - 1} = ${carryStarted ? carry(j) : '0u'};`);
    out.push(...lines);
  }
  return out;
}

/**
 * The `coord_` layer of G1 (codegen/wgsl/README.md): the MSM's kernels move coordinates through it, and a G1
 * coordinate is one F_p element, so every function is the fp_ one (G2's layer, over F_p2, is in wgsl-field2.js).
 */
export function fpCoordWgsl() {
  return `// G1 coordinates are F_p elements: the coord_ layer the MSM's kernels use (codegen/wgsl/README.md)
alias Coord = Fp;
const COORD_N: u32 = FP_N;
const COORD_WORDS: u32 = FP_WORDS;
fn coord_fromLimbs(a: array<u32, COORD_N>) -> Coord { return a; }
fn coord_toLimbs(x: Coord) -> array<u32, COORD_N> { return x; }
fn coord_fromWords(v: array<u32, COORD_WORDS>) -> Coord { return fp_fromWords(v); }
fn coord_toWords(x: Coord) -> array<u32, COORD_WORDS> { return fp_toWords(x); }
fn coord_ltP(x: Coord) -> bool { return fp_ltP(x); }
fn coord_toMontgomery(x: Coord) -> Coord { return fp_toMontgomery(x); }
`;
}
