// The F_p2 kernels in WGSL (prefix fp2_, codegen/wgsl/README.md "G2"), F_p2 = F_p[u] / (u^2 - beta) over the fp_
// kernels of wgsl-field.js (this text goes after fieldWgsl's), and the coord_ layer of G2 (Coord = Fp2), through
// which the MSM's kernels move coordinates. The math is that of the WAT F_p2 layer (kernels/field2.js): Karatsuba
// products (3 fp_mul), complex squaring (2 fp_mul), beta applied by additions (|beta| <= 16, deriveG2Params).
// Every component is a Montgomery-form Fp in the lazy range [0, 2p) in and out, as the fp_ kernels take and give;
// each fp2_ function only chains fp_ functions on such values, so no new bound is needed.
// SwiftShader inlines every call: each fp_mul call site costs compile time, so the products here are the fewest the
// formulas allow, each written once. (fp2_mul's three products in a WGSL loop, one call site, compiled no faster there:
// BN254's G2 g_add took 128 s against 111 s, so each product keeps its own call site.)

import { comment, fn } from '../wgsl/index.js';

const range = (n) => Array.from({ length: n }, (_, i) => i);

/**
 * k x for a small integer k >= 1 by doublings and additions (left to right over k's bits); x is a WGSL name (read
 * more than once). Each step is an fp_ call on [0, 2p) values, so the result is in [0, 2p).
 */
function timesSmall(k, x) {
  let acc = x;
  const bits = k.toString(2);
  for (let i = 1; i < bits.length; i++) {
    acc = `fp_double(${acc})`;
    if (bits[i] === '1') acc = `fp_add(${acc}, ${x})`;
  }
  return acc;
}

/** acc + c x (c a signed small integer, x a name) as fp_ calls; c = 0 leaves acc. */
function plusTimes(acc, c, x) {
  if (c === 0n) return acc;
  const k = Number(c < 0n ? -c : c);
  return `${c > 0n ? 'fp_add' : 'fp_sub'}(${acc}, ${timesSmall(k, x)})`;
}

/** Fp(a[from], ..., a[from + n - 1]), one limb a line when that is long. */
function fpFromArray(a, from, n) {
  const items = range(n).map((j) => `${a}[${from + j}]`);
  const flat = `Fp(${items.join(', ')})`;
  return flat.length <= 100 ? flat : `Fp(\n${items.map((e) => `  ${e}`).join(',\n')}\n)`;
}

const indent = (text) => text.split('\n').map((l) => `  ${l}`).join('\n');

/** `type(items...)` wrapped 8 items a line when long. */
function ctor(type, items) {
  const flat = `${type}(${items.join(', ')})`;
  if (flat.length <= 100) return flat;
  const rows = [];
  for (let i = 0; i < items.length; i += 8) rows.push('  ' + items.slice(i, i + 8).join(', '));
  return `${type}(\n${rows.join(',\n')}\n)`;
}

/**
 * The F_p2 layer's WGSL text (no module header): struct Fp2, FP2_ZERO, FP2_ONE, the fp2_ functions, then the coord_
 * layer of G2. Append it to fieldWgsl(fieldParams, ...)'s text (which must not carry the G1 coord_ layer).
 * @param fieldParams deriveFieldParams({ p, w, kernel: 'gpu' }) of the base field
 * @param options.nonResidue beta (BigInt, number or decimal string): a small integer, |beta| <= 16, non-zero; the
 *   caller (deriveG2Params) has checked it is a non-residue mod p
 * @param options.coord append the coord_ layer (fp2CoordWgsl; default true)
 */
export function field2Wgsl(fieldParams, { nonResidue, coord = true } = {}) {
  if (fieldParams?.kernel !== 'gpu') throw new RangeError('field2Wgsl needs deriveFieldParams({ kernel: \'gpu\' })');
  if (nonResidue === undefined) throw new TypeError('field2Wgsl: options.nonResidue (beta) is required');
  const beta = BigInt(nonResidue);
  if (beta === 0n || beta < -16n || beta > 16n) throw new RangeError(`field2Wgsl: nonResidue must be a small non-zero integer (|beta| <= 16), got ${beta}`);
  const two = (name, doc, body) => fn({ doc, signature: `${name}(x: Fp2, y: Fp2) -> Fp2`, body });
  const one = (name, doc, body) => fn({ doc, signature: `${name}(x: Fp2) -> Fp2`, body });
  const parts = [
    comment(`F_p2 = F_p[u] / (u^2 - beta), beta = ${beta} (codegen/kernels/wgsl-field2.js): an Fp2 is c0 + c1 u, each
component an Fp (Montgomery form) in the lazy range [0, 2p) unless a function says otherwise.`),
    [
      'struct Fp2 { c0: Fp, c1: Fp }',
      'const FP2_ZERO: Fp2 = Fp2(FP_ZERO, FP_ZERO);',
      'const FP2_ONE: Fp2 = Fp2(FP_ONE, FP_ZERO); // 1 in Montgomery form: (R mod p, 0)',
    ].join('\n'),
    two('fp2_add', 'fp2_add(x, y) = x + y: componentwise fp_add, [0, 2p) -> [0, 2p).', ['return Fp2(fp_add(x.c0, y.c0), fp_add(x.c1, y.c1));']),
    two('fp2_sub', 'fp2_sub(x, y) = x - y: componentwise fp_sub, [0, 2p) -> [0, 2p).', ['return Fp2(fp_sub(x.c0, y.c0), fp_sub(x.c1, y.c1));']),
    one('fp2_neg', 'fp2_neg(x) = -x: componentwise fp_neg, [0, 2p) -> [0, 2p).', ['return Fp2(fp_neg(x.c0), fp_neg(x.c1));']),
    one('fp2_double', 'fp2_double(x) = 2x: componentwise fp_double, [0, 2p) -> [0, 2p).', ['return Fp2(fp_double(x.c0), fp_double(x.c1));']),
    two('fp2_mul', `fp2_mul(x, y) = x y, Karatsuba with 3 fp_mul: t0 = x0 y0, t1 = x1 y1, s = (x0 + x1)(y0 + y1);
c0 = t0 + beta t1, c1 = s - t0 - t1 (beta = ${beta}${beta === -1n ? ': c0 = t0 - t1' : ', by additions'}). [0, 2p) -> [0, 2p).`, [
      'let t0 = fp_mul(x.c0, y.c0);',
      'let t1 = fp_mul(x.c1, y.c1);',
      'let s = fp_mul(fp_add(x.c0, x.c1), fp_add(y.c0, y.c1));',
      `return Fp2(${plusTimes('t0', beta, 't1')}, fp_sub(fp_sub(s, t0), t1));`,
    ]),
    one('fp2_sqr', `fp2_sqr(x) = x^2, complex squaring with 2 fp_mul: v = x0 x1, m = (x0 + x1)(x0 + beta x1);
c0 = m - v - beta v, c1 = 2 v (beta = ${beta}${beta === -1n ? ': c0 = m = (x0 + x1)(x0 - x1)' : ''}). [0, 2p) -> [0, 2p).`, [
      'let v = fp_mul(x.c0, x.c1);',
      'let x1 = x.c1;',
      `let m = fp_mul(fp_add(x.c0, x1), ${plusTimes('x.c0', beta, 'x1')});`,
      comment(`m - (1 + beta) v, 1 + beta = ${1n + beta}`),
      `return Fp2(${plusTimes('m', -(1n + beta), 'v')}, fp_double(v));`,
    ]),
    one('fp2_canonical', 'fp2_canonical(x): both components fp_canonical, [0, 2p) -> [0, p).', ['return Fp2(fp_canonical(x.c0), fp_canonical(x.c1));']),
    fn({
      doc: 'fp2_isZero(x): x = 0 (both components 0 mod p), for components in [0, 2p).',
      signature: 'fp2_isZero(x: Fp2) -> bool',
      body: ['return fp_isZero(x.c0) & fp_isZero(x.c1);'],
    }),
    fn({
      doc: 'fp2_eq(x, y): x = y (both components equal mod p), for components in [0, 2p).',
      signature: 'fp2_eq(x: Fp2, y: Fp2) -> bool',
      body: ['return fp_eq(x.c0, y.c0) & fp_eq(x.c1, y.c1);'],
    }),
    ...(coord ? [fp2CoordWgsl(fieldParams)] : []),
  ];
  return parts.join('\n\n') + '\n';
}

/**
 * The coord_ layer of G2 (codegen/wgsl/README.md "G2"): alias Coord = Fp2, COORD_N = 2 FP_N, COORD_WORDS = 2 FP_WORDS
 * (c0 then c1), and coord_fromLimbs, coord_toLimbs, coord_fromWords, coord_toWords, coord_ltP, coord_toMontgomery over the fp_
 * functions (G1's layer is wgsl-field.js's fpCoordWgsl). Limbs are moved with constant indices only.
 */
export function fp2CoordWgsl(fieldParams) {
  const { n, bytes } = fieldParams;
  const words = Math.ceil(bytes / 4);
  return [
    comment(`The coord_ layer of G2 (codegen/wgsl/README.md): a coordinate is an Fp2, ${2 * n} u32 limbs in the kernels (c0's ${n}
then c1's); in the byte encoding and in the GPU buffers ${2 * words} u32 words, c0's ${words} then c1's (the native G2
encoding, x.c0 | x.c1 | y.c0 | y.c1, each component ${bytes} bytes little-endian${bytes % 4 ? `, padded here to ${words * 4} bytes` : ''}; the buffers hold
each component mod p in Montgomery form).`),
    [
      'alias Coord = Fp2;',
      `const COORD_N: u32 = 2u * FP_N; // ${2 * n} limbs: c0 then c1`,
      `const COORD_WORDS: u32 = 2u * FP_WORDS; // ${2 * words} words: c0 then c1`,
    ].join('\n'),
    fn({
      doc: 'coord_fromLimbs(a): c0 = a[0 .. FP_N), c1 = a[FP_N .. 2 FP_N) (limbs as stored; no check, no conversion).',
      signature: 'coord_fromLimbs(a: array<u32, COORD_N>) -> Coord',
      body: [`return Fp2(\n${indent(fpFromArray('a', 0, n))},\n${indent(fpFromArray('a', n, n))}\n);`],
    }),
    fn({
      doc: 'coord_toLimbs(x): c0\'s limbs then c1\'s (the inverse of coord_fromLimbs).',
      signature: 'coord_toLimbs(x: Coord) -> array<u32, COORD_N>',
      body: [`return ${ctor('array<u32, COORD_N>', [...range(n).map((j) => `x.c0[${j}]`), ...range(n).map((j) => `x.c1[${j}]`)])};`],
    }),
    fn({
      doc: `coord_fromWords(v): c0 from v[0 .. FP_WORDS), c1 from v[FP_WORDS .. 2 FP_WORDS), each through fp_fromWords (plain
values, not reduced; a component >= R is marked so that coord_ltP rejects it).`,
      signature: 'coord_fromWords(v: array<u32, COORD_WORDS>) -> Coord',
      body: [
        `let w0 = ${ctor('array<u32, FP_WORDS>', range(words).map((k) => `v[${k}]`))};`,
        `let w1 = ${ctor('array<u32, FP_WORDS>', range(words).map((k) => `v[${words + k}]`))};`,
        'return Fp2(fp_fromWords(w0), fp_fromWords(w1));',
      ],
    }),
    fn({
      doc: 'coord_toWords(x): the words of c0 mod p then of c1 mod p (fp_toWords; coord_fromWords\' inverse on [0, p)).',
      signature: 'coord_toWords(x: Coord) -> array<u32, COORD_WORDS>',
      body: [
        'let w0 = fp_toWords(x.c0);',
        'let w1 = fp_toWords(x.c1);',
        `return ${ctor('array<u32, COORD_WORDS>', [...range(words).map((k) => `w0[${k}]`), ...range(words).map((k) => `w1[${k}]`)])};`,
      ],
    }),
    fn({
      doc: 'coord_ltP(x): both components < p (plain limbs, the input range check, as fp_ltP).',
      signature: 'coord_ltP(x: Coord) -> bool',
      body: ['return fp_ltP(x.c0) & fp_ltP(x.c1);'],
    }),
    fn({
      doc: 'coord_toMontgomery(x): both components x R mod p, from plain [0, p) (coord_ltP) to [0, 2p).',
      signature: 'coord_toMontgomery(x: Coord) -> Coord',
      body: ['return Fp2(fp_toMontgomery(x.c0), fp_toMontgomery(x.c1));'],
    }),
  ].join('\n\n') + '\n';
}
