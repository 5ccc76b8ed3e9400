// The GLV split on the GPU: k = k0 + k1 lambda (mod r) with |k0|, |k1| < 2^halfBits, by the formula and the proven
// bounds of codegen/params/glv.js (the Wasm kernel's, codegen/kernels/scalar-glv.js), and the image phi(P) =
// (beta x, y) that the second half multiplies (in G2, over F_p2, (omega x, y) with omega in F_p the cube root of 1
// that acts as the same lambda: codegen/params/g2.js glvOmega). WGSL has no 64-bit integers, so the big numbers are
// little-endian limbs of 16 bits in u32: a limb product is at most (2^16 - 1)^2 = 2^32 - 2^17 + 1, and a column step
// adds to it a limb and a carry, each at most 2^16 - 1, so every step's sum is at most 2^32 - 1 and never wraps.
//
//   c_i^ = floor((k g_i + 2^(m-1)) / 2^m) = (k g_i >> m) + bit m - 1 of k g_i   (the 'nearest' rounding; m = 32 j)
//   k0 = k + c_1^ A1 + c_2^ A2,  k1 = c_1^ B1 + c_2^ B2   (mod 2^(32 T), two's complement: |k_i| < 2^(32 T - 1))
//
// Each half goes to the halves buffer as a record of GLV_RECORD = H + 1 words: |k_i| in H words, then its sign
// (1: negative), half 0 of scalar i at record i and half 1 at record count + i, the index of phi(P_i) among the
// converted points (convertPoints writes it there). The digits kernels read these records where prm.glv is set.

import { bitLength } from '../params/number-theory.js';
import { comment, u32Array } from '../wgsl/index.js';
import { fpLimbs, wgslFp } from '../wgsl/constants.js';

const limbs16 = (x, count) => fpLimbs({ w: 16, n: count }, x);
const limbCount = (x) => Math.max(1, Math.ceil(bitLength(x) / 16));

/**
 * The shape the runner needs (src/gpu/plan.js, msm.js): words per half and per record, and the halves' bits, which
 * size the windows. Null where the curve has no (beta x, y) endomorphism (a degree-2 one, or none).
 */
export function gpuGlvShape(glv) {
  if (!glv || glv.endomorphism?.kind !== 'beta') return null;
  return Object.freeze({ halfBits: glv.halfBits, H: glv.H, recordWords: glv.H + 1 });
}

/**
 * WGSL: GLV_BETA, GLV_H, GLV_RECORD, glv_imageX and the entry point decomposeScalars (bindings 1 scalars, 2 halves).
 * glv: from buildGlvParams (as the Wasm build's); field: the GPU field params; omega: G2's
 * cube root of 1 (coordinates in F_p2), or none for G1 (beta, coordinates in F_p).
 */
export function glvWgsl(glv, field, { scalarWords, omega = null }) {
  if (!gpuGlvShape(glv)) throw new RangeError('the GPU GLV split needs the endomorphism (x, y) -> (beta x, y)');
  if (glv.rounding !== 'nearest' || glv.m % 32 !== 0) throw new RangeError('the GPU GLV split takes the nearest rounding with m a multiple of 32');
  const { m, T, H } = glv;
  const KL = 2 * scalarWords; // limbs of k
  const TL = 2 * T; // limbs of k0, k1 (mod 2^(32 T))
  const M16 = m / 16; // the limb where k g_i >> m starts
  const mod = 1n << BigInt(32 * T);
  const { a1, b1, a2, b2 } = glv.basis;
  const wrap = (x) => ((x % mod) + mod) % mod;
  // the unsigned constants of codegen/params/glv.js: A1 = -s1 a1, A2 = -s2 a2, B1 = -s1 b1, B2 = -s2 b2 (mod 2^(32 T))
  const A1 = wrap(-BigInt(glv.s1) * a1);
  const A2 = wrap(-BigInt(glv.s2) * a2);
  const B1 = wrap(-BigInt(glv.s1) * b1);
  const B2 = wrap(-BigInt(glv.s2) * b2);
  // (a long one wrapped, its rows indented under the statement in a function body)
  const arr = (values) => u32Array(`array<u32, ${values.length}>`, values).replaceAll('\n', '\n  ');

  /** fn glv_c{i}: c_i^ from k's limbs; GL limbs of g_i, CL of c_i^ (the largest c_i^ over k < r: cMax_i). */
  const roundFn = (i, g, cMax) => {
    const GL = limbCount(g);
    const CL = limbCount(cMax);
    if (M16 + CL > KL + GL) throw new RangeError('GLV: c_i^ reaches past the product');
    return `/** c_${i}^ = floor((k g_${i} + 2^${m - 1}) / 2^${m}) in ${CL} limbs (c_${i}^ <= 0x${cMax.toString(16)}) */
fn glv_c${i}(k: array<u32, ${KL}>) -> array<u32, ${CL}> {
  var g = ${arr(limbs16(g, GL))};
  var t: array<u32, ${KL + GL}>; // k g_${i}, row by row
  for (var i = 0u; i < ${KL}u; i++) {
    var carry = 0u;
    for (var j = 0u; j < ${GL}u; j++) {
      let s = t[i + j] + k[i] * g[j] + carry;
      t[i + j] = s & 0xffffu;
      carry = s >> 16u;
    }
    t[i + ${GL}u] = carry;
  }
  var c: array<u32, ${CL}>;
  var carry = t[${M16 - 1}u] >> 15u; // bit ${m - 1}: rounds to the nearest
  for (var j = 0u; j < ${CL}u; j++) {
    let s = t[${M16}u + j] + carry;
    c[j] = s & 0xffffu;
    carry = s >> 16u;
  }
  return c;
}`;
  };
  const C1L = limbCount(glv.cMax1);
  const C2L = limbCount(glv.cMax2);
  /** acc += c x (mod 2^(16 TL)) for the constant x: row by row, the carry out of the top limb dropped */
  const mac = (acc, c, CL, x) => `  {
    var x = ${arr(limbs16(x, TL)).replaceAll('\n', '\n  ')};
    for (var i = 0u; i < ${CL}u; i++) {
      var carry = 0u;
      for (var j = 0u; i + j < ${TL}u; j++) {
        let s = ${acc}[i + j] + ${c}[i] * x[j] + carry;
        ${acc}[i + j] = s & 0xffffu;
        carry = s >> 16u;
      }
    }
  }`;

  return `
// ---------------------------------------------------------------------------------------------------------------
// GLV on the GPU (codegen/kernels/wgsl-glv.js)
${comment(`k = k0 + k1 lambda (mod r), |k0|, |k1| < 2^${glv.halfBits}; lambda * (x, y) = (${omega === null ? `beta x, y), beta = 0x${glv.beta.toString(16)}` : `omega x, y) in G2, omega = 0x${omega.toString(16)}`}`)}

const GLV_BETA: Fp = ${wgslFp(field, omega ?? glv.beta)}; // ${omega === null ? 'beta' : 'omega'} R mod p
const GLV_H: u32 = ${H}u; // u32 words of |k_i|
const GLV_RECORD: u32 = ${H + 1}u; // words of one half's record: |k_i|, then its sign

/** The x of phi(P): ${omega === null ? 'beta x' : 'omega x, componentwise (omega in F_p)'}, [0, 2p) -> [0, 2p) */
fn glv_imageX(x: Coord) -> Coord {
  return ${omega === null ? 'fp_mul(x, GLV_BETA)' : 'Fp2(fp_mul(x.c0, GLV_BETA), fp_mul(x.c1, GLV_BETA))'};
}

@group(0) @binding(1) var<storage, read> dc_scalars: array<u32>;
@group(0) @binding(2) var<storage, read_write> dc_halves: array<u32>;

${roundFn(1, glv.g1, glv.cMax1)}

${roundFn(2, glv.g2, glv.cMax2)}

/** The record at \`at\` from v (two's complement mod 2^${32 * T}): |v| in GLV_H words, then 1 if v < 0 */
fn glv_store(at: u32, v: array<u32, ${TL}>) {
  let negative = v[${TL - 1}u] >> 15u;
  let flip = select(0u, 0xffffu, negative != 0u);
  var carry = negative; // -v = (v xor (2^${32 * T} - 1)) + 1
  var a: array<u32, ${TL}>;
  for (var j = 0u; j < ${TL}u; j++) {
    let s = (v[j] ^ flip) + carry;
    a[j] = s & 0xffffu;
    carry = s >> 16u;
  }
  for (var j = 0u; j < GLV_H; j++) { dc_halves[at + j] = a[2u * j] | (a[2u * j + 1u] << 16u); }
  dc_halves[at + GLV_H] = negative;
}

@compute @workgroup_size(WORKGROUP)
fn decomposeScalars(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, WORKGROUP);
  if (i >= prm.count) { return; }
  var k: array<u32, ${KL}>;
  for (var j = 0u; j < SCALAR_WORDS; j++) {
    let w = dc_scalars[i * SCALAR_WORDS + j];
    k[2u * j] = w & 0xffffu;
    k[2u * j + 1u] = w >> 16u;
  }
  let c1 = glv_c1(k);
  let c2 = glv_c2(k);
  var k0: array<u32, ${TL}>;
  for (var j = 0u; j < ${Math.min(TL, KL)}u; j++) { k0[j] = k[j]; }
${mac('k0', 'c1', C1L, A1)}
${mac('k0', 'c2', C2L, A2)}
  var k1: array<u32, ${TL}>;
${mac('k1', 'c1', C1L, B1)}
${mac('k1', 'c2', C2L, B2)}
  glv_store(i * GLV_RECORD, k0);
  glv_store((prm.count + i) * GLV_RECORD, k1);
}
`;
}
