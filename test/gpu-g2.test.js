// G2 on the GPU: the F_p2 kernels and the coord_ layer of codegen/kernels/wgsl-field2.js, and the g_ curve kernels
// over F_p2 (curveWgsl(..., { field: 'fp2' })), on SwiftShader (test/gpu.js), against BigInt math written here (an
// F_p2 and the affine law of y^2 = x^3 + b'; anchored to @noble/curves' G2 on the shipped curves). Over the shipped
// field shape (fp_mul in a loop, w = 13, codegen/modules/gpu-module.js).
// - fp2_ / coord_: BN254's and BLS12-381's p (beta = -1), and a prime where -1 is a square with a negative and a
//   positive beta (the addition chains of beta): edge-biased components, in [0, 2p) unless a function needs [0, p);
//   values, the documented ranges and w-bit limbs are checked.
// - g_ over F_p2: SwiftShader inlines every call and compiles slowly, superlinearly in a function's size: the G2 g_add
//   of BN254 (64 inlined fp_mul, g_double's included) takes about 110 s, BLS12-381's over 200 s. So by default every
//   op and every degenerate case runs on toy twists y^2 = x^3 + b' over F_p2 of 64-bit primes (the same text, fewer
//   limbs: the formulas branch on the cases, not on p) with beta = -1, and the doublings on one with beta = 2;
//   the shipped curves' G2 run their constants, the coord_ loading of the native encoding, g_isOnCurve (k G2 and
//   points off the twist), g_negAffine, g_fromAffine, g_isZero, and BN254's g_doubleAffine.
//   WASMSM_LONG_TESTS: every op on BN254's and BLS12-381's G2 with k G2 points (about 6 minutes: 100 s, 250 s).
// Points go in as XYZZ with random F_p2 scale factors, components lifted to [p, 2p) one time in four; results are
// checked for the range, for ZZ^3 = ZZZ^2, and compared in affine form. No Dawn or no adapter fails the suite.

import { groupLawVectors } from './gpu-vectors.js';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { testDevice, runCompute, skipGpuSuite } from './gpu.js';
import { LONG_TESTS, makeRng, edgeValues, prevPrime, hex } from './harness.js';
import { mod, modInv, modPow } from '../src/bigint/field.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { fieldWgsl } from '../codegen/kernels/wgsl-field.js';
import { field2Wgsl } from '../codegen/kernels/wgsl-field2.js';
import { curveWgsl } from '../codegen/kernels/wgsl-curve.js';
import { fpLimbs, wgslFp2, toMontgomery } from '../codegen/wgsl/constants.js';
import { GPU_LIMB_BITS, GPU_MUL_SHAPE } from '../codegen/modules/gpu-module.js';

const W = GPU_LIMB_BITS;
const curveJson = (name) => JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));
const NOBLE = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point };
const isNonResidue = (b, p) => mod(b, p) !== 0n && modPow(mod(b, p), (p - 1n) / 2n, p) === p - 1n;
const smallNonResidue = (p, sign) => { for (let k = 1n; ; k++) if (isNonResidue(sign * k, p)) return sign * k; };

// ---- the oracle: F_p2 = F_p[u] / (u^2 - beta) on { c0, c1 }, and the affine law of y^2 = x^3 + b' (null = infinity)

function fp2(p, beta) {
  const m = (x) => mod(x, p);
  const F = {
    p, beta,
    of: (c0, c1 = 0n) => ({ c0: m(c0), c1: m(c1) }),
    add: (x, y) => F.of(x.c0 + y.c0, x.c1 + y.c1),
    sub: (x, y) => F.of(x.c0 - y.c0, x.c1 - y.c1),
    neg: (x) => F.of(-x.c0, -x.c1),
    mul: (x, y) => F.of(x.c0 * y.c0 + beta * x.c1 * y.c1, x.c0 * y.c1 + x.c1 * y.c0),
    small: (k, x) => F.of(BigInt(k) * x.c0, BigInt(k) * x.c1),
    eq: (x, y) => m(x.c0 - y.c0) === 0n && m(x.c1 - y.c1) === 0n,
    isZero: (x) => m(x.c0) === 0n && m(x.c1) === 0n,
    inv: (x) => {
      const ni = modInv(m(x.c0 * x.c0 - beta * x.c1 * x.c1), p);
      return F.of(x.c0 * ni, -x.c1 * ni);
    },
    random: (rng) => F.of(rng.below(p), rng.below(p)),
  };
  return F;
}

function twist(F, b) {
  const E = {
    F, b,
    onCurve: (P) => P === null || F.eq(F.mul(P.y, P.y), F.add(F.mul(F.mul(P.x, P.x), P.x), b)),
    neg: (P) => (P === null ? null : { x: P.x, y: F.neg(P.y) }),
    eq: (P, Q) => (P === null || Q === null ? P === Q : F.eq(P.x, Q.x) && F.eq(P.y, Q.y)),
    add(P, Q) {
      if (P === null) return Q;
      if (Q === null) return P;
      let l;
      if (F.eq(P.x, Q.x)) {
        if (!F.eq(P.y, Q.y) || F.isZero(P.y)) return null;
        l = F.mul(F.small(3, F.mul(P.x, P.x)), F.inv(F.small(2, P.y)));
      } else {
        l = F.mul(F.sub(Q.y, P.y), F.inv(F.sub(Q.x, P.x)));
      }
      const x = F.sub(F.sub(F.mul(l, l), P.x), Q.x);
      return { x, y: F.sub(F.mul(l, F.sub(P.x, x)), P.y) };
    },
    double: (P) => E.add(P, P),
    mul(P, k) {
      let R = null;
      for (let A = P; k > 0n; k >>= 1n, A = E.add(A, A)) if (k & 1n) R = E.add(R, A);
      return R;
    },
  };
  return E;
}

/** The G2 of a shipped curve: its twist from the JSON's g2 section, the generator and the group order. */
function shippedG2(name) {
  const json = curveJson(name);
  const p = BigInt(json.p);
  const pair = ([c0, c1]) => ({ c0: BigInt(c0), c1: BigInt(c1) });
  const F = fp2(p, BigInt(json.g2.nonResidue));
  const E = twist(F, pair(json.g2.b));
  const G = { x: pair(json.g2.generator.x), y: pair(json.g2.generator.y) };
  return { name, json, p, beta: F.beta, F, E, G, r: BigInt(json.r), g2: json.g2 };
}

/**
 * A toy twist over a 64-bit prime p = 3 mod 4 (beta = -1) or p = 1 mod 4 (beta the least positive non-residue):
 * G random, b' = y^2 - x^3 so that G is on it; and a second b' = -x_T^3 with T = (x_T, 0) of order 2.
 */
function toyG2(name, p, beta, rng) {
  const F = fp2(p, beta);
  const G = { x: F.random(rng), y: F.random(rng) };
  const b = F.sub(F.mul(G.y, G.y), F.mul(F.mul(G.x, G.x), G.x));
  const T = { x: F.random(rng), y: F.of(0n) };
  const bT = F.neg(F.mul(F.mul(T.x, T.x), T.x));
  const json = { name, p: hex(p), a: '0x0', b: '0x1', g2: { nonResidue: String(beta), b: [hex(b.c0), hex(b.c1)] } };
  return { name, json, p, beta, F, E: twist(F, b), ET: twist(F, bT), G, T, r: 1n << 64n };
}

// ---- raw values: Fp2 components as w-bit limbs (Montgomery form where the kernels take it)

const limbsOf = (x, w, n) => Array.from({ length: n }, (_, j) => Number((x >> BigInt(j * w)) & ((1n << BigInt(w)) - 1n)));

/** Limbs at `at` -> { value, bad } (bad: a limb above w bits). */
function readRaw(words, at, n, w) {
  let value = 0n;
  let bad = false;
  for (let j = n - 1; j >= 0; j--) {
    if (words[at + j] >>> w) bad = true;
    value = (value << BigInt(w)) + BigInt(words[at + j]);
  }
  return { value, bad };
}

// ============================================================================================================
// fp2_ and coord_ kernels

const FP2_OUT = ['fp2_add', 'fp2_sub', 'fp2_neg', 'fp2_double', 'fp2_mul', 'fp2_sqr', 'fp2_canonical', 'coord_toMontgomery', 'coord_fromWords', 'coord_limbs', 'coord_toWords'];
const FP2_FLAGS = ['fp2_isZero', 'fp2_eq', 'coord_ltP'];

// per vector: x, y (Fp2, [0, 2p) components), z (Fp2, plain [0, p)), v (COORD_WORDS words); thread 0 also writes
// FP2_ZERO, FP2_ONE, COORD_N and COORD_WORDS after the last vector.
const fp2EntryWgsl = (count) => `
@group(0) @binding(0) var<storage, read_write> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
const COUNT: u32 = ${count}u;
const IN_STRIDE: u32 = 3u * COORD_N + COORD_WORDS;
const OUT_STRIDE: u32 = ${FP2_OUT.length}u * COORD_N + ${FP2_FLAGS.length}u;
fn load(at: u32) -> Coord {
  var a: array<u32, COORD_N>;
  for (var j = 0u; j < COORD_N; j++) { a[j] = inp[at + j]; }
  return coord_fromLimbs(a);
}
fn store(at: u32, x: Coord) {
  let a = coord_toLimbs(x);
  for (var j = 0u; j < COORD_N; j++) { outp[at + j] = a[j]; }
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i == 0u) {
    let c = COUNT * OUT_STRIDE;
    store(c, FP2_ZERO);
    store(c + COORD_N, FP2_ONE);
    outp[c + 2u * COORD_N] = COORD_N;
    outp[c + 2u * COORD_N + 1u] = COORD_WORDS;
  }
  if (i >= COUNT) { return; }
  let a = i * IN_STRIDE;
  let x = load(a);
  let y = load(a + COORD_N);
  let z = load(a + 2u * COORD_N);
  var v: array<u32, COORD_WORDS>;
  for (var k = 0u; k < COORD_WORDS; k++) { v[k] = inp[a + 3u * COORD_N + k]; }
  let o = i * OUT_STRIDE;
  store(o, fp2_add(x, y));
  store(o + COORD_N, fp2_sub(x, y));
  store(o + 2u * COORD_N, fp2_neg(x));
  store(o + 3u * COORD_N, fp2_double(x));
  store(o + 4u * COORD_N, fp2_mul(x, y));
  store(o + 5u * COORD_N, fp2_sqr(x));
  store(o + 6u * COORD_N, fp2_canonical(x));
  store(o + 7u * COORD_N, coord_toMontgomery(z));
  let f = coord_fromWords(v);
  store(o + 8u * COORD_N, f);
  store(o + 9u * COORD_N, x); // through coord_fromLimbs and coord_toLimbs
  // coord_toWords(x): COORD_WORDS words (never more than COORD_N) in a coordinate's slot
  let tw = coord_toWords(x);
  for (var k = 0u; k < COORD_WORDS; k++) { outp[o + 10u * COORD_N + k] = tw[k]; }
  outp[o + 11u * COORD_N] = u32(fp2_isZero(x));
  outp[o + 11u * COORD_N + 1u] = u32(fp2_eq(x, y));
  outp[o + 11u * COORD_N + 2u] = u32(coord_ltP(f));
}
`;

/** Vectors: components from the edge values (pairs of them, 0 in one component, x = y mod p), z canonical, v words. */
function fp2Vectors(P, rng) {
  const { p, w, n } = P;
  const words = Math.ceil(P.bytes / 4);
  const lazy = edgeValues(p, w, n, { rng, random: 4 });
  const canon = edgeValues(p, w, n, { bound: p, rng, random: 2 });
  const top = (1n << BigInt(32 * words)) - 1n;
  const wordValues = [0n, 1n, p - 1n, p, p + 1n, 2n * p - 1n, top, rng.below(top), rng.below(p), rng.below(p)];
  const lift = (x) => (x < p ? x + p : x - p);
  const pick = () => rng.pick(lazy);
  const V = [];
  const push = (x, y) => V.push({ x, y, z: [rng.pick(canon), rng.pick(canon)], v: [rng.pick(wordValues), rng.pick(wordValues)] });
  for (let i = 0; i < 384; i++) push([pick(), pick()], [pick(), pick()]);
  for (const e of lazy) {
    push([e, 0n], [0n, e]);
    push([e, rng.pick(lazy)], [lift(e), rng.pick(lazy)]);
    const x = [pick(), e];
    push(x, [lift(x[0]), lift(x[1])]); // equal mod p
    push(x, [...x]);
  }
  for (const x of [[0n, 0n], [p, 0n], [0n, p], [p, p], [2n * p - 1n, 2n * p - 1n], [p - 1n, p - 1n]]) push(x, [0n, 0n]);
  return V;
}

async function checkFp2(device, P, beta, rng) {
  const { p, w, n } = P;
  const words = Math.ceil(P.bytes / 4);
  const R = 1n << BigInt(n * w);
  const Rinv = modInv(R % p, p);
  const F = fp2(p, beta);
  const vs = fp2Vectors(P, rng);
  const C = 2 * n;
  const inStride = 3 * C + 2 * words;
  const outStride = FP2_OUT.length * C + FP2_FLAGS.length;
  const input = new Uint32Array(vs.length * inStride);
  vs.forEach(({ x, y, z, v }, i) => {
    input.set([...x, ...y, ...z].flatMap((c) => limbsOf(c, w, n)).concat(v.flatMap((c) => limbsOf(c, 32, words))), i * inStride);
  });
  const output = new Uint32Array(vs.length * outStride + 2 * C + 2);
  const code = fieldWgsl(P, { mul: GPU_MUL_SHAPE }) + field2Wgsl(P, { nonResidue: beta }) + fp2EntryWgsl(vs.length);
  const [, out] = await runCompute(device, code, 'main', [input, output], Math.ceil(vs.length / 64));

  const failures = [];
  const count = {};
  const fail = (k, msg) => {
    count[k] = (count[k] ?? 0) + 1;
    if (count[k] <= 3) failures.push(`${k} p=${hex(p)} beta=${beta}: ${msg}`);
  };
  const read = (at) => [readRaw(out, at, n, w), readRaw(out, at + n, n, w)];
  const c = vs.length * outStride;
  const [z0, z1] = read(c);
  const [o0, o1] = read(c + C);
  if (z0.value !== 0n || z1.value !== 0n) fail('FP2_ZERO', `${hex(z0.value)}, ${hex(z1.value)}`);
  if (o0.value !== R % p || o1.value !== 0n) fail('FP2_ONE', `${hex(o0.value)}, ${hex(o1.value)}`);
  if (out[c + 2 * C] !== C || out[c + 2 * C + 1] !== 2 * words) fail('COORD_N/COORD_WORDS', `${out[c + 2 * C]}, ${out[c + 2 * C + 1]}`);
  const mont = ([a, b]) => F.of(a * Rinv, b * Rinv); // the element a raw Montgomery pair stands for
  const lifted = ([a, b]) => F.of(a, b);
  vs.forEach(({ x, y, z, v }, i) => {
    const o = i * outStride;
    const X = mont(x);
    const Y = mont(y);
    const inputs = `x=${x.map(hex)} y=${y.map(hex)}`;
    // [expected element, the form it is read in, the bound of each component]
    const want = {
      fp2_add: [F.add(X, Y), mont, 2n * p],
      fp2_sub: [F.sub(X, Y), mont, 2n * p],
      fp2_neg: [F.neg(X), mont, 2n * p],
      fp2_double: [F.add(X, X), mont, 2n * p],
      fp2_mul: [F.mul(X, Y), mont, 2n * p],
      fp2_sqr: [F.mul(X, X), mont, 2n * p],
      fp2_canonical: [lifted(x), lifted, p],
      coord_toMontgomery: [F.of(z[0] * R, z[1] * R), lifted, 2n * p],
      coord_limbs: [{ c0: x[0], c1: x[1] }, ([a, b]) => ({ c0: a, c1: b }), 2n * p],
    };
    FP2_OUT.forEach((k, j) => {
      const [a, b] = read(o + j * C);
      if (k === 'coord_fromWords') {
        // the plain value of each component; a value >= R sets bit w of the top limb instead (fp_fromWords)
        v.forEach((val, h) => {
          const got = (h ? b : a).value;
          if (val < R ? got !== val : got >> R.toString(2).length - 1 === 0n) fail(k, `v=${v.map(hex)}: component ${h} ${hex(got)}`);
        });
        return;
      }
      if (k === 'coord_toWords') {
        // c0 mod p's words, then c1 mod p's, little-endian
        const value = (at) => Array.from(out.slice(at, at + words), BigInt).reduce((acc, word, h) => acc | (word << BigInt(32 * h)), 0n);
        const got = [value(o + j * C), value(o + j * C + words)];
        if (got[0] !== mod(x[0], p) || got[1] !== mod(x[1], p)) fail(k, `${inputs}: ${got.map(hex)}`);
        return;
      }
      if (a.bad || b.bad) return fail(k, `${inputs}: a limb above ${w} bits`);
      const [e, form, bound] = want[k];
      if (a.value >= bound || b.value >= bound) return fail(k, `${inputs}: a component not below ${hex(bound)}`);
      const got = form([a.value, b.value]);
      const same = k === 'coord_limbs' ? got.c0 === e.c0 && got.c1 === e.c1 : F.eq(got, e);
      if (!same) fail(k, `${inputs} z=${z.map(hex)}: got ${hex(got.c0)}, ${hex(got.c1)}; want ${hex(e.c0)}, ${hex(e.c1)}`);
    });
    const flags = {
      fp2_isZero: F.isZero(X),
      fp2_eq: F.eq(X, Y),
      coord_ltP: v.every((val) => val < p),
    };
    FP2_FLAGS.forEach((k, j) => {
      if (out[o + 11 * C + j] !== (flags[k] ? 1 : 0)) fail(k, `${inputs} v=${v.map(hex)}: ${out[o + 11 * C + j]}, want ${flags[k]}`);
    });
  });
  if (Object.keys(count).length) failures.push(`failures per kernel: ${JSON.stringify(count)}`);
  return { failures, vectors: vs.length };
}

// ============================================================================================================
// g_ over F_p2

const OP = { add: 0, addAffine: 1, double: 2, isOnCurve: 3, negFromAffine: 4, zero: 5, doubleAffine: 6, load: 7 };
// isOnCurve and load share one g_isOnCurve call site (each inlined call costs compile time)
const ON_CURVE = 'flag = select(0u, 1u, inRange && g_isOnCurve(A)); out = g_fromAffine(A);';
const CALLS = [
  'out = g_add(P, Q);',
  'out = g_addAffine(P, A);',
  'out = g_double(P);',
  ON_CURVE,
  'out = g_fromAffine(g_negAffine(A));',
  'flag = select(0u, 1u, g_isZero(P) && !g_isNeutralAffine(A));',
  'out = g_doubleAffine(A);',
  ON_CURVE, // load: A from the native encoding first (LOAD_WGSL)
];
// the native encoding (x.c0 | x.c1 | y.c0 | y.c1 in words, at Q) through coord_fromWords, coord_ltP and
// coord_toMontgomery into A: then out = (x, y, 1, 1), flag = in range and on the twist
const LOAD_WGSL = `  if (io[at] == ${OP.load}u) {
    var wx: array<u32, COORD_WORDS>; var wy: array<u32, COORD_WORDS>;
    for (var k = 0u; k < COORD_WORDS; k++) { wx[k] = io[at + 1u + 4u * COORD_N + k]; wy[k] = io[at + 1u + 4u * COORD_N + COORD_WORDS + k]; }
    let x = coord_fromWords(wx); let y = coord_fromWords(wy);
    inRange = coord_ltP(x) && coord_ltP(y);
    A = Affine(coord_toMontgomery(x), coord_toMontgomery(y));
  }
`;
const CHEAP_OPS = [OP.isOnCurve, OP.negFromAffine, OP.zero, OP.load];
// one module per group (SwiftShader inlines every call; the additions in one entry point would compile for minutes)
const OP_GROUPS = [[OP.add], [OP.addAffine], [OP.double, OP.doubleAffine], CHEAP_OPS];

// record: op | P (4 Coord) | Q (4 Coord) | A (2 Coord) | out (4 Coord) | flag
const curveEntryWgsl = (ops) => `
@group(0) @binding(0) var<storage, read_write> io: array<u32>;
const STRIDE: u32 = 2u + 14u * COORD_N;
fn ld(at: u32) -> Coord {
  var a: array<u32, COORD_N>;
  for (var i = 0u; i < COORD_N; i++) { a[i] = io[at + i]; }
  return coord_fromLimbs(a);
}
fn ldPoint(at: u32) -> Point {
  var c: array<Coord, G_COORDS>;
  for (var k = 0u; k < G_COORDS; k++) { c[k] = ld(at + k * COORD_N); }
  return g_fromCoords(c);
}
fn stPoint(at: u32, P: Point) {
  let c = g_coords(P);
  for (var k = 0u; k < G_COORDS; k++) {
    let a = coord_toLimbs(c[k]);
    for (var i = 0u; i < COORD_N; i++) { io[at + k * COORD_N + i] = a[i]; }
  }
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= arrayLength(&io) / STRIDE) { return; }
  let at = v * STRIDE;
  let P = ldPoint(at + 1u);
  let Q = ldPoint(at + 1u + 4u * COORD_N);
  var A = Affine(ld(at + 1u + 8u * COORD_N), ld(at + 1u + 9u * COORD_N));
  var inRange = true;
${ops.includes(OP.load) ? LOAD_WGSL : ''}  var out = g_zero();
  var flag = 0u;
  switch io[at] {
${[...new Set(ops.map((op) => CALLS[op]))].map((call) => `    case ${ops.filter((op) => CALLS[op] === call).map((op) => `${op}u`).join(', ')}: { ${call} }`).join('\n')}
    default: { flag = 7u; }
  }
  stPoint(at + 1u + 10u * COORD_N, out);
  io[at + 1u + 14u * COORD_N] = flag;
}
`;

/** The vectors of one twist: { op, P, Q, A, words, want, label }; points null at infinity. */
function curveVectors(C, rng, words) {
  const { E, F, G, r } = C;
  const V = [];
  const { pts } = groupLawVectors(V, { E, G, r, zero: null, rng, OP, doubleAffines: 3 });
  for (const P of pts.slice(0, 4)) V.push({ op: OP.isOnCurve, A: P, want: true, label: 'isOnCurve k G' });
  const off = [
    { x: pts[0].x, y: F.add(pts[0].y, F.of(1n)) },
    { x: F.add(pts[1].x, F.of(0n, 1n)), y: pts[1].y },
    { x: F.of(0n), y: F.of(0n) },
    { x: pts[2].y, y: pts[2].x },
    { x: pts[3].x, y: F.of(pts[3].y.c1, pts[3].y.c0) }, // the components of y swapped
  ].filter((P) => !E.onCurve(P));
  expect(off.length).toBeGreaterThanOrEqual(4);
  for (const P of off) V.push({ op: OP.isOnCurve, A: P, want: false, label: 'isOnCurve off the twist' });
  V.push({ op: OP.negFromAffine, A: pts[1], want: E.neg(pts[1]), label: 'g_fromAffine(g_negAffine(Q))' });
  V.push({ op: OP.zero, P: null, A: pts[0], want: true, label: 'g_isZero(0)' });
  V.push({ op: OP.zero, P: pts[0], A: pts[0], want: false, label: 'g_isZero(P)' });
  // the native encoding: k G, and out-of-range components (c1 of y = p; c0 of x >= 2^(32 FP_WORDS) - 1)
  const p = F.p;
  const top = (1n << BigInt(32 * words)) - 1n;
  const plusP = (c) => (c + p <= top ? c + p : top); // out of range either way
  for (const P of pts.slice(0, 3)) V.push({ op: OP.load, words: [P.x.c0, P.x.c1, P.y.c0, P.y.c1], want: P, flag: true, label: 'load native k G' });
  V.push({ op: OP.load, words: [pts[4].x.c0, pts[4].x.c1, pts[4].y.c0, plusP(pts[4].y.c1)], want: null, flag: false, label: 'load y.c1 + p' });
  V.push({ op: OP.load, words: [plusP(pts[5].x.c0), pts[5].x.c1, pts[5].y.c0, pts[5].y.c1], want: null, flag: false, label: 'load x.c0 + p' });
  V.push({ op: OP.load, words: [pts[6].y.c0, pts[6].y.c1, pts[6].x.c0, pts[6].x.c1], want: null, flag: false, label: 'load off the twist' });
  return V;
}

/**
 * Vectors at a point T = (x, 0) of order 2 on a second toy twist (the shipped G2 have none): 2T = 0 through every
 * formula. Only g_isOnCurve reads b', so they run in the first twist's modules.
 */
function torsionVectors(C) {
  const { ET, T } = C;
  expect(ET.onCurve(T)).toBe(true);
  return [
    { op: OP.double, P: T, want: null, label: 'double T (order 2)' },
    { op: OP.doubleAffine, A: T, want: null, label: 'doubleAffine T (order 2)' },
    { op: OP.add, P: T, Q: T, want: null, label: 'T + T (order 2)' },
    { op: OP.addAffine, P: T, A: T, want: null, label: 'addAffine T + T (order 2)' },
  ];
}

/** Run vectors through the GPU, one module and one dispatch per op group; returns the failures. */
async function runCurve(device, { C, json, vectors, ops, label }) {
  const { p, F } = C;
  const P = deriveFieldParams({ p, w: W, kernel: 'gpu' });
  const { n } = P;
  const words = Math.ceil(P.bytes / 4);
  const rng = makeRng(`gpu-g2 ${label}`);
  const Cn = 2 * n;
  const stride = 2 + 14 * Cn;
  const Rinv = modInv(P.R % p, p);
  const failures = [];
  const text = fieldWgsl(P, { mul: GPU_MUL_SHAPE }) + field2Wgsl(P, { nonResidue: C.beta }) + curveWgsl(json, P, { field: 'fp2' });
  for (const group of OP_GROUPS) {
    const G = vectors.filter((v) => group.includes(v.op) && ops.includes(v.op));
    if (!G.length) continue;
    const io = new Uint32Array(G.length * stride);
    const put = (at, x) => {
      for (const [h, c] of [x.c0, x.c1].entries()) {
        const m = toMontgomery(P, c);
        io.set(fpLimbs(P, m < p && rng.int(4) === 0 ? m + p : m), at + h * n);
      }
    };
    const putPoint = (at, Pt) => {
      let coords;
      if (Pt === null) coords = [F.random(rng), F.random(rng), F.of(0n), F.of(0n)];
      else {
        const l = rng.int(4) === 0 ? F.of(1n) : F.random(rng);
        const l2 = F.mul(l, l);
        const l3 = F.mul(l2, l);
        coords = [F.mul(Pt.x, l2), F.mul(Pt.y, l3), l2, l3];
      }
      coords.forEach((x, i) => put(at + i * Cn, x));
    };
    G.forEach((v, i) => {
      const at = i * stride;
      io[at] = v.op;
      if (v.P !== undefined) putPoint(at + 1, v.P);
      if (v.Q !== undefined) putPoint(at + 1 + 4 * Cn, v.Q);
      if (v.A !== undefined) {
        put(at + 1 + 8 * Cn, v.A.x);
        put(at + 1 + 9 * Cn, v.A.y);
      }
      if (v.words) io.set(v.words.flatMap((c) => limbsOf(c, 32, words)), at + 1 + 4 * Cn);
    });
    const [out] = await runCompute(device, `${text}\n${curveEntryWgsl(group)}`, 'main', [io], Math.ceil(G.length / 64));
    G.forEach((v, i) => {
      const at = i * stride;
      const where = `${label} ${v.label}`;
      const flag = out[at + 1 + 14 * Cn];
      const wantFlag = typeof v.want === 'boolean' ? v.want : v.flag;
      if (wantFlag !== undefined && flag !== (wantFlag ? 1 : 0)) failures.push(`${where}: flag ${flag}, want ${wantFlag}`);
      if (typeof v.want === 'boolean' || (v.op === OP.load && !v.flag)) return;
      const coords = [];
      for (let k = 0; k < 4; k++) {
        const cs = [0, 1].map((h) => readRaw(out, at + 1 + (10 + k) * Cn + h * n, n, P.w));
        if (cs.some((c) => c.bad)) failures.push(`${where}: a limb above ${P.w} bits`);
        if (cs.some((c) => c.value >= 2n * p)) failures.push(`${where}: coordinate ${k} has a component not below 2p`);
        coords.push(F.of(cs[0].value * Rinv, cs[1].value * Rinv));
      }
      const [X, Y, ZZ, ZZZ] = coords;
      if (!F.eq(F.mul(F.mul(ZZ, ZZ), ZZ), F.mul(ZZZ, ZZZ))) return failures.push(`${where}: ZZ^3 != ZZZ^2`);
      const got = F.isZero(ZZ) ? null : { x: F.mul(X, F.inv(ZZ)), y: F.mul(Y, F.inv(ZZZ)) };
      if (!C.E.eq(got, v.want)) {
        failures.push(`${where}: got ${JSON.stringify(got, big)}, want ${JSON.stringify(v.want, big)}`);
      }
    });
  }
  return failures;
}
const wordsOf = (p) => Math.ceil(deriveFieldParams({ p, w: W, kernel: 'gpu' }).bytes / 4);
const big = (_, v) => (typeof v === 'bigint' ? hex(v) : v);

const ALL_OPS = Object.values(OP);
const SHIPPED = ['bn254', 'bls12-381'];
// default: the cheap ops on both shipped G2, and BN254's g_doubleAffine (g_double too doubles the compile time);
// WASMSM_LONG_TESTS: every op on both
const SHIPPED_OPS = (name) => (LONG_TESTS ? ALL_OPS : name === 'bn254' ? [...CHEAP_OPS, OP.doubleAffine] : CHEAP_OPS);

function toyTwists() {
  const rng = makeRng('gpu-g2 toy twists');
  let p3 = prevPrime(1n << 64n);
  while (p3 % 4n !== 3n) p3 = prevPrime(p3);
  let p1 = prevPrime(1n << 63n);
  while (p1 % 4n !== 1n) p1 = prevPrime(p1);
  // beta > 1 changes fp2_mul and fp2_sqr only (checked above on their own), not the formulas: its doublings suffice
  return [
    { ...toyG2('toy-g2-beta-1', p3, -1n, rng), ops: ALL_OPS },
    { ...toyG2('toy-g2-beta+', p1, smallNonResidue(p1, 1n), rng), ops: LONG_TESTS ? ALL_OPS : [...CHEAP_OPS, OP.double, OP.doubleAffine] },
  ];
}

describe.skipIf(skipGpuSuite('gpu-g2.test.js'))('G2 on WebGPU (SwiftShader): fp2_, coord_ and g_ over F_p2', () => {
  let device;
  beforeAll(async () => {
    device = await testDevice(); // throws without Dawn or an adapter: the suite fails, never skips
  });
  afterAll(() => device?.destroy());

  const fieldCases = [
    ...SHIPPED.map((name) => ({ name: `${name}.p`, p: BigInt(curveJson(name).p), beta: BigInt(curveJson(name).g2.nonResidue) })),
  ];
  {
    // -1 a square (p = 1 mod 4): the least negative and positive non-residues, |beta| > 1 (fp2_mul and fp2_sqr by additions)
    let p = prevPrime(1n << 255n);
    while (p % 4n !== 1n) p = prevPrime(p);
    for (const sign of [-1n, 1n]) fieldCases.push({ name: '255-bit p = 1 mod 4', p, beta: smallNonResidue(p, sign) });
  }
  for (const { name, p, beta } of fieldCases) {
    it(`fp2_ and coord_ kernels, ${name}, beta = ${beta}, w = ${W}`, async () => {
      const P = deriveFieldParams({ p, w: W, kernel: 'gpu' });
      const { failures, vectors } = await checkFp2(device, P, beta, makeRng(`gpu fp2 ${p} ${beta}`));
      expect(vectors).toBeGreaterThan(400);
      expect(failures).toEqual([]);
    }, 30_000);
  }

  for (const C of toyTwists()) {
    it(`${C.name} (64-bit p, beta = ${C.beta}): ${C.ops === ALL_OPS ? 'every g_ op, P + P, P + (-P), P + 0, 0 + Q, 0 + 0' : 'the doublings'}, order 2; isOnCurve; loads`, async () => {
      const V = [...curveVectors(C, makeRng(`gpu-g2 vectors ${C.name}`), wordsOf(C.p)), ...torsionVectors(C)];
      expect(V.length).toBeGreaterThan(60);
      expect(await runCurve(device, { C, json: C.json, vectors: V, ops: C.ops, label: C.name })).toEqual([]);
    }, 90_000);
  }

  for (const name of SHIPPED) {
    const ops = SHIPPED_OPS(name);
    it(`${name} G2 (k G2): ${ops === ALL_OPS ? 'every op, every degenerate case' : `isOnCurve, negAffine, fromAffine, isZero, native loads${ops.includes(OP.doubleAffine) ? ', doubleAffine' : ''}`}`, async () => {
      const C = shippedG2(name);
      // the oracle's twist and generator are noble's G2 (k G2 in both)
      const k = 0x1234567890abcdefn;
      const mine = C.E.mul(C.G, k);
      const theirs = NOBLE[name].BASE.multiply(k).toAffine();
      expect([mine.x.c0, mine.x.c1, mine.y.c0, mine.y.c1]).toEqual([theirs.x.c0, theirs.x.c1, theirs.y.c0, theirs.y.c1]);
      const V = curveVectors(C, makeRng(`gpu-g2 vectors ${name}`), wordsOf(C.p));
      expect(await runCurve(device, { C, json: C.json, vectors: V, ops, label: name })).toEqual([]);
    }, LONG_TESTS ? 900_000 : 120_000);
  }
});

describe('curveWgsl over F_p2 and field2Wgsl (generation)', () => {
  it('writes the twist\'s b\' in Montgomery form as an Fp2 constant, coordinates typed Coord, fp2_ calls only', () => {
    for (const name of SHIPPED) {
      const json = curveJson(name);
      const P = deriveFieldParams({ p: BigInt(json.p), w: W, kernel: 'gpu' });
      const text = curveWgsl(json, P, { field: 'fp2' });
      expect(text).toContain(`const G_B: Coord = ${wgslFp2(P, json.g2.b)};`);
      // its limbs read back: b' R mod p per component
      const body = /const G_B: Coord = Fp2\(([^;]*)\);/.exec(text)[1];
      const parts = [...body.matchAll(/Fp\(([^)]*)\)/g)].map(([, limbs]) => limbs.split(',').map((t) => BigInt(t.trim().replace(/u$/, ''))));
      expect(parts.map((l) => l.length)).toEqual([P.n, P.n]);
      const Rinv = modInv(P.R % P.p, P.p);
      const values = parts.map((l) => (l.reduceRight((acc, x) => (acc << BigInt(W)) + x, 0n) * Rinv) % P.p);
      expect(values).toEqual(json.g2.b.map((c) => BigInt(c)));
      expect(text).toContain('struct Point { x: Coord, y: Coord, zz: Coord, zzz: Coord }');
      expect(text).toContain('fn g_coords(P: Point) -> array<Coord, G_COORDS>');
      expect(text).not.toMatch(/\bfp_\w+\(|\bFP_(ZERO|ONE)\b|: Fp\b|G_A/);
      // the same text from deriveG2Params-shaped input ({ c0, c1 } BigInts)
      const b = { c0: BigInt(json.g2.b[0]), c1: BigInt(json.g2.b[1]) };
      expect(curveWgsl({ ...json, g2: undefined }, P, { field: 'fp2', g2: { b } })).toBe(text);
      const f2 = field2Wgsl(P, { nonResidue: json.g2.nonResidue });
      expect(f2.match(/\bfp_mul\(/g).length).toBe(3 + 2); // Karatsuba and the complex squaring
    }
  });
  it('leaves G1 as it was and rejects what it cannot write', () => {
    const json = curveJson('bn254');
    const P = deriveFieldParams({ p: BigInt(json.p), w: W, kernel: 'gpu' });
    expect(curveWgsl(json, P, { field: 'fp' })).toBe(curveWgsl(json, P));
    expect(() => curveWgsl({ ...json, g2: undefined }, P, { field: 'fp2' })).toThrow(/g2/);
    expect(() => curveWgsl(json, P, { field: 'fp3' })).toThrow(RangeError);
    expect(() => curveWgsl({ ...json, a: '5' }, P, { field: 'fp2' })).toThrow(/a = 0/);
    expect(() => curveWgsl(json, P, { field: 'fp2', g2: { b: [0, 0] } })).toThrow(/nonzero/);
    expect(() => field2Wgsl(P, { nonResidue: 0 })).toThrow(RangeError);
    expect(() => field2Wgsl(P, { nonResidue: 17 })).toThrow(RangeError);
    expect(() => field2Wgsl(P, {})).toThrow(TypeError);
  });
});
