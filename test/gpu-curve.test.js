// The WGSL curve kernels (codegen/kernels/wgsl-curve.js, the g_ contract of codegen/wgsl/README.md) on SwiftShader,
// against BigInt: src/bigint/curve.js makeCurve for short Weierstrass, harness edwardsOps for twisted Edwards, and
// for the points at infinity of Bandersnatch's Edwards form the Weierstrass image (params/models.js), over the
// shipped field (wgsl-field.js). A few shader modules per curve (OP_GROUPS), each with all its vectors in one
// dispatch: SwiftShader compiles slowly and runs fast enough.
// Points go in with random projective scale factors and, at random, coordinates lifted from [0, p) to [0, 2p)
// (the lazy range every kernel accepts); results come back, are checked for the range and for the invariant of
// their coordinates (ZZ^3 = ZZZ^2, XY = ZT), and are compared in affine form (projectively at infinity).
// No Dawn or no adapter fails the suite: testDevice throws.

import { groupLawVectors } from './gpu-vectors.js';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { testDevice, runCompute, skipGpuSuite } from './gpu.js';
import { makeRng, prevPrime, hex, LONG_TESTS } from './harness.js';
import { edwardsOps } from './msm-oracle.js';
import { curveNames } from '../index.js';
import { makeCurve } from '../src/bigint/curve.js';
import { mod, modInv, modPow } from '../src/bigint/field.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { curveModel } from '../codegen/params/models.js';
import { fieldWgsl } from '../codegen/kernels/wgsl-field.js';
import { curveWgsl } from '../codegen/kernels/wgsl-curve.js';
import { fpLimbs, wgslFp, toMontgomery } from '../codegen/wgsl/constants.js';

const readJson = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const curveJson = (name) => readJson(`../codegen/curves/${name}.json`);

// SwiftShader compiles slowly, and superlinearly in a function's size (it inlines every call): at 254 bits g_add
// (with its g_double) takes 5-25 s, g_addAffine 3-10 s, and all the g_ functions in one entry point crash it. The
// curve variants and the degenerate cases, not the size of p, are what the kernels branch on; so by default:
// - toy curves over 64-bit primes (5-6 limbs, a few seconds each), one per formula variant: every op, every case;
// - every shipped curve: its constants (host side), and on the GPU g_isOnCurve (valid and invalid points),
//   g_negAffine, g_fromAffine, g_isZero, g_isNeutralAffine;
// - every op on BN254, ed25519 (a = -1) and Bandersnatch (the incomplete Edwards addition, its points at infinity).
// WASMSM_LONG_TESTS: every shipped curve but the two BLS12 ones (TOO_LARGE) and NIST P-256 through every op at
// w = 13 (about 40 s each), every shipped curve's cheap ops at w = 16, the toys at every w.
const OP = { add: 0, addAffine: 1, double: 2, isOnCurve: 3, isNeutralAffine: 4, negFromAffine: 5, zero: 6, doubleAffine: 7 };
const W = 13;
// SwiftShader's compiler crashes (SIGSEGV) on 6 dependent fp_mul calls at BLS12-381's p, w = 16 (24 limbs), on the
// additions of the 377- and 381-bit curves (BLS12-381: g_add at w = 13, every op at w = 16; BLS12-377: g_addAffine at
// w = 13), and at w = 16 (more carry splits per product) on g_double of ed25519 alone: those get their constants and
// plumbing checked only.
const TOO_LARGE = ['bls12-377', 'bls12-381'];
const FULL = LONG_TESTS
  ? curveNames.filter((name) => !TOO_LARGE.includes(name)).map((name) => ({ name, w: W }))
  : ['bn254', 'ed25519', 'bandersnatch'].map((name) => ({ name, w: W }));
const CHEAP = LONG_TESTS
  ? [...TOO_LARGE.map((name) => ({ name, w: W })), ...curveNames.map((name) => ({ name, w: 16 }))]
  : [...curveNames.map((name) => ({ name, w: W })), { name: 'bls12-381', w: 16 }, { name: 'jubjub', w: 16 }];
const TOY_LIMB_SIZES = LONG_TESTS ? [12, 13, 14, 15, 16] : [13];
const SECOND_W = { toy64: 16, 'toy-edwards-incomplete': 14 }; // 16: the field's default; 14 compiles in a third of the time

const CALLS = [
  'out = g_add(P, Q);',
  'out = g_addAffine(P, A);',
  'out = g_double(P);',
  'flag = select(0u, 1u, g_isOnCurve(A));',
  'flag = select(0u, 1u, g_isNeutralAffine(A));',
  'out = g_fromAffine(g_negAffine(A));',
  'flag = select(0u, 1u, g_isZero(P));',
  'out = g_doubleAffine(A);',
];
const ALL_OPS = Object.values(OP);
// the ops without an addition: the curve's constants (g_isOnCurve) and the point plumbing
const CHEAP_OPS = [OP.isOnCurve, OP.isNeutralAffine, OP.negFromAffine, OP.zero];
// One module per group: SwiftShader inlines every call, and its compiler crashes (SIGSEGV) on entry points much larger
// than one addition of a 255-bit curve (g_double and g_doubleAffine of ed25519 at w = 16 together already).
const OP_GROUPS = [[OP.add], [OP.addAffine], [OP.double], [OP.doubleAffine], CHEAP_OPS];

// record: op | P (4 Fp) | Q (4 Fp) | A (2 Fp) | out (4 Fp) | flag; loads and stores through g_fromCoords / g_coords.
const harnessWgsl = (ops) => `
@group(0) @binding(0) var<storage, read_write> io: array<u32>;
const STRIDE: u32 = 2u + 14u * FP_N;
fn ld(at: u32) -> Fp {
  var x: Fp;
  for (var i = 0u; i < FP_N; i++) { x[i] = io[at + i]; }
  return x;
}
fn ldPoint(at: u32) -> Point {
  var c: array<Fp, G_COORDS>;
  for (var k = 0u; k < G_COORDS; k++) { c[k] = ld(at + k * FP_N); }
  return g_fromCoords(c);
}
fn stPoint(at: u32, P: Point) {
  var c = g_coords(P);
  for (var k = 0u; k < G_COORDS; k++) { for (var i = 0u; i < FP_N; i++) { io[at + k * FP_N + i] = c[k][i]; } }
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= arrayLength(&io) / STRIDE) { return; }
  let at = v * STRIDE;
  let P = ldPoint(at + 1u);
  let Q = ldPoint(at + 1u + 4u * FP_N);
  let A = Affine(ld(at + 1u + 8u * FP_N), ld(at + 1u + 9u * FP_N));
  var out = g_zero();
  var flag = 0u;
  switch io[at] {
${ops.map((op) => `    case ${op}u: { ${CALLS[op]} }`).join('\n')}
    default: { flag = 7u; }
  }
  stPoint(at + 1u + 10u * FP_N, out);
  io[at + 1u + 14u * FP_N] = flag;
}
`;

/**
 * The model's host side: how a point goes in (a projective representative with a random scale), how a result is
 * read back and compared. Affine points are { x, y } (BigInt, canonical); the neutral element is null for
 * Weierstrass; an Edwards point at infinity is { inf: [X, T] } (Bandersnatch only).
 */
function weierstrassModel(json) {
  const c = makeCurve(json);
  const { p } = c;
  const m = (v) => ((v % p) + p) % p;
  return {
    c,
    p,
    G: c.G,
    add: c.add,
    double: c.double,
    neg: c.neg,
    mul: c.mul,
    onCurve: (P) => c.isOnCurve(P),
    zero: null,
    // X = x l^2, Y = y l^3, ZZ = l^2, ZZZ = l^3; infinity: ZZ = ZZZ = 0 with any X, Y
    represent: (P, l, rng) => (P === null ? [rng.below(p), rng.below(p), 0n, 0n] : [m(P.x * l * l), m(P.y * l * l * l), m(l * l), m(l * l * l)]),
    read([X, Y, ZZ, ZZZ]) {
      if (m(ZZ * ZZ * ZZ - ZZZ * ZZZ) !== 0n) return { bad: 'ZZ^3 != ZZZ^2' };
      if (ZZ === 0n) return { point: null };
      return { point: { x: m(X * modInv(ZZ, p)), y: m(Y * modInv(ZZZ, p)) } };
    },
    same: (P, Q) => c.eq(P, Q),
  };
}

function edwardsModel(json) {
  const p = BigInt(json.p);
  const a = BigInt(json.a);
  const d = BigInt(json.d);
  const ops = edwardsOps({ p, a, d });
  const m = (v) => ((v % p) + p) % p;
  // the Weierstrass image, for sums that land on (or start from) a point at infinity of the Edwards form
  const model = curveModel('twisted-edwards', p, { a, d });
  const img = makeCurve({ p, a: model.weierstrass.a, b: model.weierstrass.b });
  const shift = m(model.A * modInv(3n * model.B, p));
  const toImage = (P) => {
    if (P === null || !P.inf) return model.toWeierstrass(P ?? ops.ZERO);
    // (X : 0 : 0 : T) = (u (u + 1) : 0 : 0 : u (u - 1)) at v = 0: X / T = (u + 1) / (u - 1)
    const s = m(P.inf[0] * modInv(P.inf[1], p));
    const u = m((s + 1n) * modInv(s - 1n, p));
    return { x: m(u * modInv(model.B, p) + shift), y: 0n };
  };
  const fromImage = (W) => {
    const E = model.fromWeierstrass(W);
    if (E !== undefined) return E;
    const u = m((W.x - shift) * model.B); // v = 0: a point at infinity
    return { inf: [m(u * (u + 1n)), m(u * (u - 1n))] };
  };
  const viaImage = (f) => (...args) => fromImage(f(...args.map((P) => (typeof P === 'bigint' ? P : toImage(P)))));
  const atInfinity = (...Ps) => Ps.some((P) => P && P.inf);
  const ext = (P) => (P.inf ? [P.inf[0], 0n, 0n, P.inf[1]] : [P.x, P.y, 1n, m(P.x * P.y)]);
  return {
    p,
    a,
    d,
    ops,
    img,
    toImage,
    fromImage,
    G: { x: BigInt(json.generator.x), y: BigInt(json.generator.y) },
    // the affine law where it holds; through the image where a point at infinity is involved or would be the sum
    add: (P, Q) => (atInfinity(P, Q) || !safeAdd(ops, P, Q) ? viaImage(img.add)(P, Q) : ops.add(P, Q)),
    double: (P) => (atInfinity(P) ? viaImage(img.double)(P) : ops.add(P, P)),
    neg: (P) => (P.inf ? { inf: [m(-P.inf[0]), P.inf[1]] } : ops.neg(P)),
    mul: (P, k) => ops.mul(P, k),
    onCurve: (P) => ops.onCurve(P),
    zero: ops.ZERO,
    // (l x, l y, l, l x y); at infinity (l X, 0, 0, l T)
    represent: (P, l) => ext(P).map((v) => m(v * l)),
    read([X, Y, Z, T]) {
      if (m(X * Y - Z * T) !== 0n) return { bad: 'XY != ZT' };
      if (X === 0n && Y === 0n && Z === 0n && T === 0n) return { bad: 'all coordinates zero' };
      if (Z === 0n) return { point: { inf: [X, T] } };
      const iZ = modInv(Z, p);
      return { point: { x: m(X * iZ), y: m(Y * iZ) } };
    },
    same(P, Q) {
      const [e, f] = [ext(P), ext(Q)];
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (m(e[i] * f[j] - e[j] * f[i]) !== 0n) return false;
      return true;
    },
  };
}

/** The affine Edwards law's denominators 1 +- d x1 x2 y1 y2 are nonzero. */
function safeAdd(ops, P, Q) {
  try {
    ops.add(P, Q);
    return true;
  } catch {
    return false;
  }
}

/** The vectors of one curve: { op, P, Q, A, want, label } with P, Q as points (null = infinity) and A affine. */
function vectors(M, edwards, rng, r) {
  const V = [];
  const zero = M.zero;
  const { pts, pick, add, addAffine, double, doubleAffine } = groupLawVectors(V, { E: M, G: M.G, r, zero, rng, OP, doubleAffines: 2 });
  const torsion = [];
  if (edwards) {
    const { p, a, d } = M;
    const m = (v) => ((v % p) + p) % p;
    torsion.push({ x: 0n, y: p - 1n }); // order 2
    const s = M.ops.sqrt(modInv(a, p)); // order 4: (+-1/sqrt(a), 0), affine where a is a square
    if (s !== null) torsion.push({ x: s, y: 0n }, { x: m(-s), y: 0n });
    V.push({ op: OP.isNeutralAffine, A: zero, want: true, label: 'isNeutralAffine (0, 1)' });
    V.push({ op: OP.isNeutralAffine, A: torsion[0], want: false, label: 'isNeutralAffine (0, -1)' });
    addAffine(pts[0], zero, 'P + (0, 1) affine');
    // the points at infinity of the Edwards form (Bandersnatch): (X : 0 : 0 : T), (X/T)^2 = d/a
    const t = M.ops.sqrt(m(d * modInv(a, p)));
    if (t !== null) {
      const inf = [{ inf: [t, 1n] }, { inf: [m(-t), 1n] }];
      for (const O of inf) {
        const [R, S] = [pick(), pick()];
        const RO = M.add(R, O); // affine: R + O, with a component of order 2
        add(O, O, 'inf + inf');
        add(O, R, 'inf + P');
        add(R, O, 'P + inf');
        addAffine(O, R, 'inf + Q');
        double(O, 'inf');
        add(R, RO, 'P - Q at infinity');
        addAffine(R, RO, 'P - Q at infinity');
        add(M.neg(R), RO, 'P + Q at infinity');
        addAffine(M.neg(RO), R, 'P + Q at infinity');
        add(RO, M.add(S, O), 'both with the component');
        addAffine(RO, M.add(S, inf[1]), 'the two components');
        add(RO, RO, 'P + P with the component');
        double(RO, 'with the component');
        doubleAffine(RO, 'with the component');
      }
      add(inf[0], inf[1], 'inf1 + inf2');
    }
  } else {
    V.push({ op: OP.isNeutralAffine, A: pts[0], want: false, label: 'isNeutralAffine' });
    // points of order 2, (x, 0) with x^3 + a x + b = 0: x = -1 (BLS12-377: b = 1), or for a = 0 and p = 2 mod 3 the
    // cube root of -b, (-b)^((2p - 1) / 3) (toy64)
    const { p } = M;
    const xs = [p - 1n, ...(M.c.a === 0n && p % 3n === 2n ? [modPow(mod(-M.c.b, p), (2n * p - 1n) / 3n, p)] : [])];
    for (const x of xs) if (M.onCurve({ x, y: 0n }) && !torsion.some((T) => T.x === x)) torsion.push({ x, y: 0n });
  }
  for (const T of torsion) {
    double(T, `torsion ${T.x},${T.y}`);
    doubleAffine(T, `torsion ${T.x},${T.y}`);
    add(T, T, 'T + T (small order)');
    addAffine(T, T, 'T + T (small order)');
    add(pts[3], T, 'P + T (small order)');
    addAffine(pts[4], T, 'P + T (small order)');
    add(M.add(pts[5], T), pts[5], 'P + T + P');
    for (const U of torsion) add(T, U, 'T + U (small order)');
  }
  // g_isOnCurve: valid points, then invalid ones (y + 1, x + 1, (0, 0), a point of another curve's shape)
  for (const P of [...pts.slice(0, 4), ...torsion]) V.push({ op: OP.isOnCurve, A: P, want: true, label: 'isOnCurve valid' });
  if (edwards) V.push({ op: OP.isOnCurve, A: zero, want: true, label: 'isOnCurve (0, 1)' });
  const off = [
    { x: pts[0].x, y: (pts[0].y + 1n) % M.p },
    { x: (pts[1].x + 1n) % M.p, y: pts[1].y },
    { x: 0n, y: 0n },
    { x: pts[2].y, y: pts[2].x },
  ].filter((P) => !M.onCurve(P));
  expect(off.length).toBeGreaterThanOrEqual(3);
  for (const P of off) V.push({ op: OP.isOnCurve, A: P, want: false, label: 'isOnCurve invalid' });
  V.push({ op: OP.negFromAffine, A: pts[1], want: M.neg(pts[1]), label: 'g_fromAffine(g_negAffine(Q))' });
  V.push({ op: OP.zero, P: zero, want: true, label: 'g_isZero(0)' });
  V.push({ op: OP.zero, P: pts[0], want: false, label: 'g_isZero(P)' });
  if (torsion.length) V.push({ op: OP.zero, P: torsion[0], want: false, label: 'g_isZero(T)' });
  return V;
}

const modelOf = (json) => (json.model === 'twisted-edwards' ? edwardsModel(json) : weierstrassModel(json));

/**
 * The vectors of a curve whose op is in ops through the GPU, one module and one dispatch per group of OP_GROUPS.
 * r bounds the random scalars (the group order where known). Returns the count of vectors run.
 */
async function runVectors({ json, w, r = BigInt(json.r), ops = ALL_OPS, label }) {
  const edwards = json.model === 'twisted-edwards';
  const M = modelOf(json);
  const F = deriveFieldParams({ p: BigInt(json.p), w, kernel: 'gpu' });
  const { p, n } = F;
  const rng = makeRng(`gpu-curve ${label}`);
  const V = vectors(M, edwards, rng, r).filter((v) => ops.includes(v.op));
  const stride = 2 + 14 * n;
  const Rinv = modInv(F.R % p, p);
  const failures = [];
  const fieldText = fieldWgsl(F);
  for (const group of OP_GROUPS) {
    const G = V.filter((v) => group.includes(v.op));
    if (!G.length) continue;
    const io = new Uint32Array(G.length * stride);
    // Montgomery form, lifted to x + p in [p, 2p) one time in four
    const put = (at, x) => {
      const v = toMontgomery(F, x);
      io.set(fpLimbs(F, v < p && rng.int(4) === 0 ? v + p : v), at);
    };
    const putPoint = (at, P) => {
      const l = rng.int(4) === 0 ? 1n : 1n + rng.below(p - 1n);
      M.represent(P, l, rng).forEach((x, i) => put(at + i * n, x));
    };
    G.forEach((v, i) => {
      const at = i * stride;
      io[at] = v.op;
      if (v.P !== undefined) putPoint(at + 1, v.P);
      if (v.Q !== undefined) putPoint(at + 1 + 4 * n, v.Q);
      if (v.A !== undefined) {
        put(at + 1 + 8 * n, v.A.x);
        put(at + 1 + 9 * n, v.A.y);
      }
    });
    const code = `${fieldText}\n${curveWgsl(json, F)}\n${harnessWgsl(group)}`;
    const [out] = await runCompute(device, code, 'main', [io], Math.ceil(G.length / 64));
    const limbMask = (1 << w) - 1;
    G.forEach((v, i) => {
      const at = i * stride;
      const where = `${label} #${V.indexOf(v)} ${v.label}`;
      const flag = out[at + 1 + 14 * n];
      if (typeof v.want === 'boolean') {
        if (flag !== (v.want ? 1 : 0)) failures.push(`${where}: ${flag}, want ${v.want}`);
        return;
      }
      const coords = [];
      for (let k = 0; k < 4; k++) {
        const limbs = Array.from(out.subarray(at + 1 + (10 + k) * n, at + 1 + (11 + k) * n));
        if (limbs.some((l) => (l & ~limbMask) !== 0)) failures.push(`${where}: a limb above ${w} bits`);
        const x = limbs.reduceRight((acc, l) => (acc << BigInt(w)) + BigInt(l), 0n);
        if (x >= 2n * p) failures.push(`${where}: coordinate ${k} not below 2p`);
        coords.push((x * Rinv) % p);
      }
      const got = M.read(coords);
      if (got.bad) failures.push(`${where}: ${got.bad}`);
      else if (!M.same(got.point, v.want)) failures.push(`${where}: got ${JSON.stringify(got.point, big)}, want ${JSON.stringify(v.want, big)}`);
    });
  }
  expect(failures).toEqual([]);
  return V.length;
}

/**
 * Toy curves over 64-bit primes, where the kernels compile in seconds: each model and
 * each specialisation of the generator (a = 0 and a != 0; a = -1, a square, a non-square). The generator is a point
 * found from a seeded rng; scalars are taken below 2^64 (the order is not needed by the oracles).
 */
function toyCurves() {
  const rng = makeRng('gpu-curve toy curves');
  const isSquare = (x, p) => modPow(mod(x, p), (p - 1n) / 2n, p) === 1n;
  const p1 = prevPrime(1n << 64n);
  const p4 = (() => { let p = prevPrime(1n << 63n); while (p % 4n !== 1n) p = prevPrime(p); return p; })();
  const nonSquares = (p, k) => { const out = []; for (let x = 2n; out.length < k; x++) if (!isSquare(x, p)) out.push(x); return out; };
  const sw = (name, p, a, b) => {
    const c = makeCurve({ p, a, b });
    let G = null;
    while (!G) G = c.liftX(rng.below(p));
    return { name, p: hex(p), a: hex(mod(a, p)), b: hex(b), generator: { x: hex(G.x), y: hex(G.y) } };
  };
  const ed = (name, p, a, d) => {
    const ops = edwardsOps({ p, a, d });
    let G = null;
    while (!G || G.x === 0n) G = ops.liftY(rng.below(p));
    return { name, model: 'twisted-edwards', p: hex(p), a: hex(a), d: hex(d), generator: { x: hex(G.x), y: hex(G.y) } };
  };
  const [n1, n2] = nonSquares(p4, 2);
  const squareA = (() => { const x = 5n + rng.below(1000n); return mod(x * x, p4); })();
  return [
    readJson('../scripts/examples/toy64.json'), // a = 0, cofactor 6: points of order 2 and 3
    sw('toy-a-3', p1, -3n, 7n),
    ed('toy-edwards-a-1', p4, p4 - 1n, n1),
    ed('toy-edwards-a-square', p4, squareA, n1),
    ed('toy-edwards-incomplete', p4, n1, n2),
  ];
}
const TOYS = toyCurves();

const big = (_, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);

let device;

describe.skipIf(skipGpuSuite('gpu-curve.test.js'))('WGSL curve kernels (g_) against BigInt, on SwiftShader', () => {
  beforeAll(async () => {
    device = await testDevice();
  }, 60_000);
  afterAll(() => device?.destroy());

  for (const json of TOYS) {
    for (const w of [...TOY_LIMB_SIZES, ...(!LONG_TESTS && SECOND_W[json.name] ? [SECOND_W[json.name]] : [])]) {
      it(`${json.name} (64-bit p), w = ${w}: add, addAffine, double(Affine) on random points, P + P, P + (-P), P + 0, 0 + Q, 0 + 0, small order; isOnCurve`, async () => {
        expect(await runVectors({ json, w, r: 1n << 64n, label: `${json.name} w=${w}` })).toBeGreaterThan(50);
      }, 30_000);
    }
  }

  for (const { name, w } of FULL) {
    it(`${name}, w = ${w}, every op, every degenerate case`, async () => {
      expect(await runVectors({ json: curveJson(name), w, label: `${name} w=${w}` })).toBeGreaterThan(50);
    }, 300_000);
  }

  for (const { name, w } of CHEAP) {
    it(`${name}, w = ${w}, isOnCurve (valid and invalid points), negAffine, fromAffine, isZero, isNeutralAffine`, async () => {
      expect(await runVectors({ json: curveJson(name), w, ops: CHEAP_OPS, label: `${name} w=${w}` })).toBeGreaterThan(8);
    }, 30_000);
  }

  if (LONG_TESTS) {
    for (const w of [W]) {
      it(`NIST P-256 (a = -3, not shipped), w = ${w}, every op`, async () => {
        expect(await runVectors({ json: readJson('../scripts/examples/p256.json'), w, label: `p256 w=${w}` })).toBeGreaterThan(50);
      }, 300_000);
    }
  }
});

describe('curveWgsl (generation)', () => {
  const F = deriveFieldParams({ p: BigInt(curveJson('bn254').p), w: 13, kernel: 'gpu' });
  it('is deterministic, writes a = 0 out, and its comments carry the formulas', () => {
    const text = curveWgsl(curveJson('bn254'), F);
    expect(curveWgsl(curveJson('bn254'), F)).toBe(text);
    expect(text).not.toMatch(/G_A/);
    expect(text).toContain('// U2 = X2 * ZZ1\n  let U2 = fp_mul(p2.x, p1.zz);');
    expect(text).toContain(`const G_B: Fp = ${wgslFp(F, 3n)};`);
  });
  it('writes every curve constant as its Montgomery form (each shipped curve, w = 13 and 16)', () => {
    for (const name of curveNames) {
      const json = curveJson(name);
      const p = BigInt(json.p);
      for (const w of [13, 16]) {
        const Fc = deriveFieldParams({ p, w, kernel: 'gpu' });
        const text = curveWgsl(json, Fc);
        const found = {};
        for (const [, id, body] of text.matchAll(/const (G_\w+): Fp = Fp\(([^)]*)\);/g)) {
          const limbs = body.split(',').map((t) => BigInt(t.trim().replace(/u$/, '')));
          expect(limbs.length).toBe(Fc.n);
          found[id] = (limbs.reduceRight((acc, l) => (acc << BigInt(w)) + l, 0n) * modInv(Fc.R % p, p)) % p;
        }
        const c = (k) => mod(BigInt(json[k]), p);
        const want = json.model === 'twisted-edwards'
          ? { G_D: c('d'), ...(c('a') === p - 1n ? { G_K: mod(2n * c('d'), p) } : { G_A: c('a') }) }
          : { G_B: c('b'), ...(c('a') === 0n ? {} : { G_A: c('a') }) };
        expect(found, `${name} w=${w}`).toEqual(want);
      }
    }
  });
  it('takes the dedicated addition only where the unified one is incomplete (Bandersnatch: a non-square)', () => {
    const edwardsText = (name) => curveWgsl(curveJson(name), deriveFieldParams({ p: BigInt(curveJson(name).p), w: 13, kernel: 'gpu' }));
    for (const name of curveNames.filter((n) => curveJson(n).model === 'twisted-edwards')) {
      const text = edwardsText(name);
      expect(text.includes('g_addDedicated'), name).toBe(name === 'bandersnatch');
      expect(text.includes('the unified addition is complete'), name).toBe(name !== 'bandersnatch');
    }
  });
  it('accepts deriveCurveParams-shaped input (the model object, not the Weierstrass image) and rejects a square d', () => {
    const json = curveJson('jubjub');
    const Fj = deriveFieldParams({ p: BigInt(json.p), w: 13, kernel: 'gpu' });
    const model = { kind: 'twisted-edwards', coefficients: { a: BigInt(json.a), d: BigInt(json.d) } };
    expect(curveWgsl({ name: 'jubjub', model, a: 5n, b: 7n }, Fj)).toBe(curveWgsl(json, Fj));
    expect(() => curveWgsl({ ...json, d: '4' }, Fj)).toThrow(/non-square/);
  });
});
