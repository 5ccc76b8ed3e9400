// The GLV split on the GPU (codegen/kernels/wgsl-glv.js: decomposeScalars) on SwiftShader, for every shipped curve
// whose G1 has the endomorphism (x, y) -> (beta x, y): each half against the generator's formula
// (codegen/params/glv.js glvDecomposeReference, which the Wasm kernel follows too), and, independently, against the
// identity k0 + k1 lambda = k (mod r) with lambda from the BigInt oracle (src/bigint/glv.js) and the proven bound
// |k_i| < 2^halfBits. Scalars biased to the edges: 0, 1, r - 1, lambda and its neighbours, powers of two, runs of
// ones (every 16-bit limb's carry), and the two sides of each rounding step (k g_i at 2^(m-1) mod 2^m).
// The MSMs that use it are in test/gpu-msm.test.js.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { EDWARDS_J0, TOY_GLV, skipGpuSuite, testDevice, runCompute } from './gpu.js';
import { makeRng } from './harness.js';
import { curveNames } from '../index.js';
import { loadCurve } from '../index.js';
import { findGlvConstants } from '../src/bigint/glv.js';
import { mod } from '../src/bigint/field.js';
import { deriveCurveParams } from '../codegen/params/curve.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { buildGlvParams, glvDecomposeReference } from '../codegen/params/glv.js';
import { fieldWgsl, fpCoordWgsl } from '../codegen/kernels/wgsl-field.js';
import { field2Wgsl } from '../codegen/kernels/wgsl-field2.js';
import { deriveG2Params } from '../codegen/params/g2.js';
import { fpLimbs, wgslFp } from '../codegen/wgsl/constants.js';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { glvWgsl, gpuGlvShape } from '../codegen/kernels/wgsl-glv.js';
import { generateCurve } from '../codegen/modules/curve-module.js';

const curveJson = (name) => JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));

/** A curve's G1 GLV params as the GPU module takes them (the 'nearest' rounding of the Wasm build): a shipped name or params. */
function glvOf(curve) {
  const json = typeof curve === 'string' ? curveJson(curve) : curve;
  return { json, glv: buildGlvParams(deriveCurveParams(json)) };
}

/** Scalars in [0, r) at the decomposition's edges, then random ones. */
function edgeScalars(glv, rng, random = 64) {
  const { r, lambda, m, g1, g2 } = glv;
  const M = 1n << BigInt(m);
  const ks = [0n, 1n, 2n, r - 1n, r - 2n, lambda, lambda - 1n, lambda + 1n, r - lambda, (r - 1n) / 2n, (r + 1n) / 2n];
  for (let i = 0; (1n << BigInt(i)) < r; i += 7) ks.push(1n << BigInt(i), (1n << BigInt(i)) - 1n);
  // the rounding's steps: k g_i just below and at j 2^m + 2^(m-1), for a few j
  for (const g of [g1, g2]) {
    for (let t = 0; t < 6; t++) {
      const top = ((r - 1n) * g) / M; // (0 where g_i is tiny: BLS12-381's c_1^ is 0 or 1)
      const j = top > 0n ? rng.below(top) : 0n;
      const k = (j * M + M / 2n + g - 1n) / g; // the least k with k g >= j 2^m + 2^(m-1)
      for (const v of [k - 1n, k]) if (v >= 0n && v < r) ks.push(v);
    }
  }
  for (let i = 0; i < random; i++) ks.push(rng.below(r));
  return ks.filter((k) => k >= 0n && k < r);
}

/** The module's prelude that the split's text expects (the MSM's uniform, workgroup size, invocation index). */
const prelude = (scalarWords) => `
struct Params { count: u32 }
@group(0) @binding(0) var<storage, read_write> prm: Params;
const WORKGROUP: u32 = 64u;
const SCALAR_WORDS: u32 = ${scalarWords}u;
fn invocation(wg: vec3u, nwg: vec3u, lid: u32, size: u32) -> u32 { return (wg.y * nwg.x + wg.x) * size + lid; }
`;

const GLV_CURVES = curveNames.filter((name) => gpuGlvShape(glvOf(name).glv) && (curveJson(name).model ?? 'short-weierstrass') === 'short-weierstrass');


describe('the GPU modules\' GLV shape', () => {
  it('G1 of the curves with (beta x, y) has it, and G2 of bn254 and bls12-381 ((omega x, y)); the degree-2 map and Edwards curves have none', async () => {
    expect(GLV_CURVES).toEqual(['bls12-381', 'bn254', 'bls12-377', 'pallas', 'vesta', 'secp256k1', 'grumpkin']);
    for (const name of curveNames) {
      const curve = await loadCurve(name);
      const { glv } = glvOf(name);
      expect(curve.params.gpu.glv, name).toEqual(GLV_CURVES.includes(name) ? { halfBits: glv.halfBits, H: glv.H, recordWords: glv.H + 1 } : null);
      if (curve.g2) expect(curve.g2.params.gpu.glv, `${name} G2`).toEqual(curve.params.gpu.glv);
      // the shipped modules' constant: beta R mod p in G1, omega R mod p in G2 (omega, not beta, acts as lambda there)
      if (!GLV_CURVES.includes(name)) continue;
      const { json } = glvOf(name);
      const field = deriveFieldParams({ p: BigInt(json.p), w: curve.params.gpu.w, kernel: 'gpu' });
      const shipped = (file) => readFileSync(new URL(`../wasm/${name}/${file}`, import.meta.url), 'utf8');
      expect(shipped(`${name}.wgsl`), name).toContain(`const GLV_BETA: Fp = ${wgslFp(field, glv.beta)};`);
      if (curve.g2) {
        const { glvOmega } = deriveG2Params(deriveCurveParams(json), json.g2, glv);
        expect(glvOmega, name).not.toBe(glv.beta);
        expect(shipped(`${name}.g2.wgsl`), `${name} G2`).toContain(`const GLV_BETA: Fp = ${wgslFp(field, glvOmega)};`);
      }
    }
    expect(() => glvWgsl(glvOf('bandersnatch').glv, null, { scalarWords: 8 })).toThrow(/beta x, y/);
    expect(gpuGlvShape(glvOf(EDWARDS_J0).glv)).not.toBeNull(); // the map exists on its Weierstrass image...
    expect(generateCurve(EDWARDS_J0, { gpu: true }).runtime.gpu.glv).toBeNull(); // ...and the GPU module leaves it
  });
});

describe.skipIf(skipGpuSuite('gpu-glv.test.js'))('decomposeScalars on SwiftShader (Dawn)', () => {
  let device;
  beforeAll(async () => {
    device = await testDevice();
  }, 60_000);
  afterAll(() => device?.destroy());

  for (const name of [...GLV_CURVES, TOY_GLV]) {
    it(`${name.name ?? name}: each half equals the generator's formula, k0 + k1 lambda = k (mod r), |k_i| < 2^halfBits`, async () => {
      const { json, glv } = glvOf(name);
      const { lambda } = findGlvConstants({ p: json.p, r: json.r, a: json.a, b: json.b, generator: json.generator });
      expect(lambda).toBe(glv.lambda);
      const field = deriveFieldParams({ p: BigInt(json.p), w: 13, kernel: 'gpu' });
      const scalarWords = Math.ceil(glv.scalarBytes / 4);
      const code = `${fieldWgsl(field)}\n${fpCoordWgsl()}\n${prelude(scalarWords)}\n${glvWgsl(glv, field, { scalarWords })}`;
      const ks = edgeScalars(glv, makeRng(`gpu glv ${json.name}`));
      const count = ks.length;
      const words = new Uint32Array(count * scalarWords);
      ks.forEach((k, i) => {
        for (let j = 0; j < scalarWords; j++) words[i * scalarWords + j] = Number((k >> BigInt(32 * j)) & 0xffffffffn);
      });
      const R = glv.H + 1;
      const [, , halves] = await runCompute(device, code, 'decomposeScalars',
        [new Uint32Array([count, 0, 0, 0]), words, new Uint32Array(2 * count * R).fill(0xdeadbeef)], Math.ceil(count / 64));
      const half = (j) => {
        let v = 0n;
        for (let t = glv.H - 1; t >= 0; t--) v = (v << 32n) | BigInt(halves[j * R + t]);
        expect(halves[j * R + glv.H], `${json.name} sign word of record ${j}`).toBeLessThanOrEqual(1);
        return halves[j * R + glv.H] ? -v : v;
      };
      const bound = 1n << BigInt(glv.halfBits);
      ks.forEach((k, i) => {
        const [k0, k1] = [half(i), half(count + i)];
        expect({ k0, k1 }, `${json.name} k = ${k}`).toEqual(glvDecomposeReference(glv, k));
        expect(mod(k0 + k1 * lambda - k, glv.r), `${json.name} k = ${k}`).toBe(0n);
        expect(k0 < bound && -k0 < bound && k1 < bound && -k1 < bound, `${json.name} k = ${k}: halves within 2^${glv.halfBits}`).toBe(true);
      });
    }, 120_000);
  }

  // G2's image (omega x, y) over F_p2: omega (params/g2.js) checked against noble's G2, where lambda G2 = (omega x, y)
  // must hold, and glv_imageX against BigInt on edge-biased F_p2 values in [0, 2p)
  for (const [name, G2] of [['bn254', bn254.G2.Point], ['bls12-381', bls12_381.G2.Point]]) {
    it(`${name} G2: omega acts as lambda on noble's G2, and glv_imageX multiplies both components by it`, async () => {
      const { json, glv } = glvOf(name);
      const { glvOmega: omega, nonResidue } = deriveG2Params(deriveCurveParams(json), json.g2, glv);
      const p = BigInt(json.p);
      const { lambda } = findGlvConstants({ p: json.p, r: json.r, a: json.a, b: json.b, generator: json.generator });
      const g = G2.BASE.toAffine();
      const lg = G2.BASE.multiply(lambda).toAffine();
      expect([lg.x.c0, lg.x.c1, lg.y.c0, lg.y.c1]).toEqual([mod(omega * g.x.c0, p), mod(omega * g.x.c1, p), g.y.c0, g.y.c1]);

      const field = deriveFieldParams({ p, w: 13, kernel: 'gpu' });
      const n = field.n;
      const scalarWords = Math.ceil(glv.scalarBytes / 4);
      const rng = makeRng(`gpu glv g2 ${name}`);
      const edges = [0n, 1n, p - 1n, p, p + 1n, 2n * p - 1n];
      const values = [...edges.flatMap((a) => [[a, rng.below(p)], [rng.below(p), a]]), ...Array.from({ length: 20 }, () => [rng.below(2n * p), rng.below(2n * p)])];
      const test = `
@group(0) @binding(1) var<storage, read_write> io: array<u32>;
@compute @workgroup_size(1)
fn imageX(@builtin(workgroup_id) wg: vec3u) {
  if (prm.count != 0u) { return; } // (binding 0 in use, as runCompute binds it)
  var c0: Fp;
  var c1: Fp;
  for (var j = 0u; j < FP_N; j++) { c0[j] = io[(2u * wg.x) * FP_N + j]; c1[j] = io[(2u * wg.x + 1u) * FP_N + j]; }
  let y = glv_imageX(Fp2(c0, c1));
  for (var j = 0u; j < FP_N; j++) { io[(2u * wg.x) * FP_N + j] = y.c0[j]; io[(2u * wg.x + 1u) * FP_N + j] = y.c1[j]; }
}`;
      const code = `${fieldWgsl(field)}\n${field2Wgsl(field, { nonResidue })}\n${prelude(scalarWords)}\n${glvWgsl(glv, field, { scalarWords, omega })}\n${test}`;
      // (values in [0, 2p) as limbs: Montgomery form of v / R, so that what comes back is omega v / R as limbs, read mod p)
      const io = new Uint32Array(values.length * 2 * n);
      values.forEach(([a, b], i) => [a, b].forEach((v, c) => io.set(fpLimbs(field, v), (2 * i + c) * n)));
      const [, out] = await runCompute(device, code, 'imageX', [new Uint32Array(4), io], values.length);
      const limbsValue = (at) => {
        let v = 0n;
        for (let j = n - 1; j >= 0; j--) v = (v << BigInt(field.w)) | BigInt(out[at + j]);
        return v;
      };
      values.forEach(([a, b], i) => [a, b].forEach((v, c) => {
        const got = limbsValue((2 * i + c) * n);
        expect(got < 2n * p, `${name} ${v}: in [0, 2p)`).toBe(true);
        // fp_mul(v, omega R) = v omega R / R = v omega (mod p): the limbs hold v omega
        expect(mod(got, p), `${name} component ${c} of value ${i}`).toBe(mod(v * omega, p));
      }));
    }, 120_000);
  }
});
