// The GLV split on the GPU (codegen/kernels/wgsl-glv.js: decomposeScalars) on SwiftShader, for every shipped curve
// whose G1 has the endomorphism (x, y) -> (beta x, y): each half against the generator's formula
// (codegen/params/glv.js glvDecomposeReference, which the Wasm kernel follows too), and, independently, against the
// identity k0 + k1 lambda = k (mod r) with lambda from the BigInt oracle (src/bigint/glv.js) and the proven bound
// |k_i| < 2^halfBits. Scalars biased to the edges: 0, 1, r - 1, lambda and its neighbours, powers of two, runs of
// ones (every 16-bit limb's carry), and the two sides of each rounding step (k g_i at 2^(m-1) mod 2^m).
// The MSMs that use it are in test/gpu-msm.test.js.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { TOY_GLV, skipGpuSuite, testDevice, runCompute } from './gpu.js';
import { makeRng } from './harness.js';
import { curveNames } from '../index.js';
import { loadCurve } from '../index.js';
import { findGlvConstants } from '../src/bigint/glv.js';
import { mod } from '../src/bigint/field.js';
import { deriveCurveParams } from '../codegen/params/curve.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { deriveGlvParams, glvDecomposeReference } from '../codegen/params/glv.js';
import { fieldWgsl } from '../codegen/kernels/wgsl-field.js';
import { glvWgsl, gpuGlvShape } from '../codegen/kernels/wgsl-glv.js';

const curveJson = (name) => JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));

/** A curve's G1 GLV params as the GPU module takes them (the 'nearest' rounding of the Wasm build): a shipped name or params. */
function glvOf(curve) {
  const json = typeof curve === 'string' ? curveJson(curve) : curve;
  return { json, glv: deriveGlvParams(deriveCurveParams(json), { rounding: 'nearest', degreeTwo: true }) };
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

const GLV_CURVES = curveNames.filter((name) => gpuGlvShape(glvOf(name).glv));

describe('the GPU modules\' GLV shape', () => {
  it('G1 of the curves with (beta x, y) has it; the degree-2 map, Edwards-only curves and G2 have none', async () => {
    expect(GLV_CURVES).toEqual(['bls12-381', 'bn254', 'bls12-377', 'pallas', 'vesta', 'secp256k1', 'grumpkin']);
    for (const name of curveNames) {
      const curve = await loadCurve(name);
      const { glv } = glvOf(name);
      expect(curve.params.gpu.glv, name).toEqual(GLV_CURVES.includes(name) ? { halfBits: glv.halfBits, H: glv.H, recordWords: glv.H + 1 } : null);
      if (curve.g2) expect(curve.g2.params.gpu.glv, `${name} G2`).toBeNull();
    }
    expect(() => glvWgsl(glvOf('bandersnatch').glv, null, { scalarWords: 8 })).toThrow(/beta x, y/);
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
      const code = `${fieldWgsl(field)}\n${prelude(scalarWords)}\n${glvWgsl(glv, field, { scalarWords })}`;
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
});
