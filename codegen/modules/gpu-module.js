// One WGSL module per curve and group (G1; G2 where the curve has one): the field kernels (kernels/wgsl-field.js), the curve kernels of its model
// (kernels/wgsl-curve.js) and the MSM's entry points (kernels/wgsl-msm.js), behind one header. Written to
// wasm/<curve>/<curve>.wgsl (G2: <curve>.g2.wgsl) by shipped.js (and by the codegen CLI for a new curve); its shape goes into the runtime
// params as `gpu`, which src/gpu/ reads.

import { deriveFieldParams } from '../params/field.js';
import { fieldWgsl, fpCoordWgsl } from '../kernels/wgsl-field.js';
import { curveWgsl } from '../kernels/wgsl-curve.js';
import { field2Wgsl } from '../kernels/wgsl-field2.js';
import { msmWgsl } from '../kernels/wgsl-msm.js';
import { glvWgsl, gpuGlvShape } from '../kernels/wgsl-glv.js';
import { wgslHeader } from '../wgsl/index.js';

/** The limb size and product shape of the shipped GPU kernels (w = 12..16 and both shapes work; bench/gpu-field.js measures them). */
export const GPU_LIMB_BITS = 13;
export const GPU_MUL_SHAPE = 'loop';

/**
 * @param json a curve's params (codegen/curves/*.json as parsed): p, model, a, b / a, d; for G2 its g2 section
 * @param {{ scalarBytes: number, group?: 'G1' | 'G2', glv?: object | null, glvOmega?: bigint | null, w?: number, mul?: 'unrolled' | 'loop' | 'product' | 'karatsuba', sqr?: 'mul' | 'scanning', generator?: string }} options
 *   mul, sqr: the shapes of fp_mul and fp_sqr (kernels/wgsl-field.js MUL_SHAPES, SQR_SHAPES)
 *   group 'G2': the same MSM over the sextic twist, coordinates in F_p2 (kernels/wgsl-field2.js); glv: the curve's GLV
 *   params (buildGlvParams), split on the GPU where the endomorphism is (x, y) -> (beta x, y): in G2 by
 *   (omega x, y) with omega = json.g2's glvOmega (params/g2.js: the cube root of 1 acting as the same lambda)
 * @returns {{ wgsl: string, gpu: { w, n, coords, glv } }} glv: the halves' shape (kernels/wgsl-glv.js), or null
 */
export function buildGpuModule(json, { scalarBytes, group = 'G1', glv = null, glvOmega = null, w = GPU_LIMB_BITS, mul = GPU_MUL_SHAPE, sqr = 'mul', generator = 'codegen/modules/gpu-module.js' }) {
  const field = deriveFieldParams({ p: BigInt(json.p), w, kernel: 'gpu' });
  const model = json.model ?? 'short-weierstrass';
  const g2 = group === 'G2';
  if (g2 && !json.g2) throw new RangeError(`${json.name ?? 'the curve'} has no g2 section`);
  const header = wgslHeader({
    title: `${json.name ?? 'curve'} ${group} (${g2 ? 'the sextic twist over F_p2' : model}): the GPU MSM's kernels in WGSL`,
    generator,
    params: field,
    lines: [`scalars of ${scalarBytes} bytes; entry points: see codegen/kernels/wgsl-msm.js`],
  });
  const coordinates = g2 ? field2Wgsl(field, { nonResidue: BigInt(json.g2.nonResidue) }) : fpCoordWgsl();
  const curve = g2 ? curveWgsl(json, field, { field: 'fp2', g2: json.g2 }) : curveWgsl(json, field);
  // (the map acts on short Weierstrass coordinates: an Edwards curve whose Weierstrass image has one keeps its windows)
  const glvShape = model !== 'short-weierstrass' || (g2 && glvOmega === null) ? null : gpuGlvShape(glv);
  const split = glvShape ? glvWgsl(glv, field, { scalarWords: Math.ceil(scalarBytes / 4), omega: g2 ? glvOmega : null }) : '';
  const wgsl = `${header}\n${fieldWgsl(field, { mul, sqr })}\n${coordinates}\n${curve}\n${msmWgsl({ model, scalarBytes, glv: !!glvShape })}${split}`;
  return { wgsl, gpu: Object.freeze({ w: field.w, n: field.n, coords: 4, glv: glvShape }) };
}
