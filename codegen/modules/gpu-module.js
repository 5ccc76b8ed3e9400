// One WGSL module per curve (G1): the field kernels (kernels/wgsl-field.js), the curve kernels of its model
// (kernels/wgsl-curve.js) and the MSM's entry points (kernels/wgsl-msm.js), behind one header. Written to
// wasm/<curve>/<curve>.wgsl by shipped.js (and by the codegen CLI for a new curve); its shape goes into the runtime
// params as `gpu`, which src/gpu/ reads.

import { deriveFieldParams } from '../params/field.js';
import { fieldWgsl, fpCoordWgsl } from '../kernels/wgsl-field.js';
import { curveWgsl } from '../kernels/wgsl-curve.js';
import { msmWgsl } from '../kernels/wgsl-msm.js';
import { wgslHeader } from '../wgsl/index.js';

/** The limb size and product shape of the shipped GPU kernels (w = 12..16 and both shapes work; bench/gpu-field.js measures them). */
export const GPU_LIMB_BITS = 13;
export const GPU_MUL_SHAPE = 'loop';

/**
 * @param json a curve's params (codegen/curves/*.json as parsed): p, model, a, b / a, d
 * @param {{ scalarBytes: number, w?: number, mul?: 'unrolled' | 'loop', generator?: string }} options
 * @returns {{ wgsl: string, gpu: { w, n, coords } }}
 */
export function buildGpuModule(json, { scalarBytes, w = GPU_LIMB_BITS, mul = GPU_MUL_SHAPE, generator = 'codegen/modules/gpu-module.js' }) {
  const field = deriveFieldParams({ p: BigInt(json.p), w, kernel: 'gpu' });
  const model = json.model ?? 'short-weierstrass';
  const header = wgslHeader({
    title: `${json.name ?? 'curve'} G1 (${model}): the GPU MSM's kernels in WGSL`,
    generator,
    params: field,
    lines: [`scalars of ${scalarBytes} bytes; entry points: see codegen/kernels/wgsl-msm.js`],
  });
  const wgsl = `${header}\n${fieldWgsl(field, { mul })}\n${fpCoordWgsl()}\n${curveWgsl(json, field)}\n${msmWgsl({ model, scalarBytes })}`;
  return { wgsl, gpu: Object.freeze({ w: field.w, n: field.n, coords: 4 }) };
}
