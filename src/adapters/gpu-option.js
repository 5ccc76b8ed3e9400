// The `gpu` option of the adapters (wasmsm/snarkjs, wasmsm/kzg): false, true, 'auto', or an object of curve.gpu()'s
// options with `optional` (the object form of 'auto'), and opening the GPU by it.

import { GpuUnavailableError } from '../../index.js';
import { checkOptionNames } from '../msm/bytes.js';

/** The names of an object `gpu` option: curve.gpu()'s options, and `optional`. */
const GPU_OPTIONS = ['device', 'powerPreference', 'maxMemory', 'optional'];

/**
 * The `gpu` option as null (no GPU) or { options (for curve.gpu()), optional }. Checked before anything is opened,
 * so that a misspelt name is a TypeError even where 'auto' would fall back. `what` names the call in errors.
 */
export function checkGpuOption(gpu, what) {
  if (gpu === undefined || gpu === false) return null;
  if (gpu === true) return { options: {}, optional: false };
  if (gpu === 'auto') return { options: {}, optional: true };
  if (gpu === null || typeof gpu !== 'object' || Array.isArray(gpu)) throw new TypeError(`gpu must be true, false, 'auto' or an object of curve.gpu() options, got ${JSON.stringify(gpu)}`);
  checkOptionNames(gpu, GPU_OPTIONS, `${what} options.gpu`);
  const { optional = false, ...options } = gpu;
  if (typeof optional !== 'boolean') throw new TypeError('gpu.optional must be a boolean');
  if (options.device !== undefined && (options.device === null || typeof options.device !== 'object')) throw new TypeError('gpu.device must be a GPUDevice');
  if (options.maxMemory !== undefined && !(typeof options.maxMemory === 'number' && options.maxMemory > 0)) throw new TypeError('gpu.maxMemory must be a positive number of bytes');
  if (options.powerPreference !== undefined && options.powerPreference !== 'high-performance' && options.powerPreference !== 'low-power') {
    throw new TypeError(`gpu.powerPreference must be 'high-performance' or 'low-power', got ${JSON.stringify(options.powerPreference)}`);
  }
  return { options, optional };
}

/**
 * { gpu, gpuError }: curve.gpu() by the checked option. Any failure to open means no usable GPU here (no WebGPU, no
 * `webgpu` package in Node, no adapter, a driver that does not compile the kernels): an optional GPU gives the
 * reason as gpuError (the caller takes the CPU), else a GpuUnavailableError naming `what` and the way out.
 */
export async function openGpuOption(curve, option, what, fallback) {
  try {
    return { gpu: await curve.gpu(option.options), gpuError: null };
  } catch (e) {
    if (option.optional) return { gpu: null, gpuError: e };
    throw new GpuUnavailableError(`${what}: the gpu option asks for a GPU, and there is no usable GPU (${e.message}); pass gpu: 'auto' to fall back to ${fallback}`, { cause: e });
  }
}
