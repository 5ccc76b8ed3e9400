// Where a GPU device comes from: the caller's ({ device }), navigator.gpu (browsers, Deno), or in Node the optional
// `webgpu` package (Dawn), loaded on first use (#gpu-host). The device asks for the adapter's largest buffers.

import { hostGpu } from '#gpu-host';

import { GpuUnavailableError } from './errors.js';

/** The limits the MSM needs at least, and those it asks the adapter's maximum of. */
const NEEDED = { maxStorageBuffersPerShaderStage: 5, maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupSizeX: 256 };
const ASKED = ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupsPerDimension'];

/** A short description of an adapter: vendor, architecture, device, description (what each runtime gives). */
export function describeAdapter(info) {
  if (!info) return 'unknown adapter';
  const parts = [info.vendor, info.architecture, info.device, info.description].filter((s) => typeof s === 'string' && s);
  return [...new Set(parts)].join(' / ') || 'unknown adapter';
}

/**
 * { device, adapterInfo, owned }: the caller's device (owned false: never destroyed here), or a new one on the
 * first adapter of navigator.gpu or Dawn. options: { device, powerPreference }.
 */
export async function acquireDevice({ device, powerPreference = 'high-performance' } = {}) {
  if (device) {
    for (const [name, least] of Object.entries(NEEDED)) {
      if (device.limits[name] < least) throw new GpuUnavailableError(`the given GPU device has ${name} ${device.limits[name]}; the MSM needs ${least}`);
    }
    return { device, adapterInfo: device.adapterInfo ?? null, owned: false };
  }
  const gpu = globalThis.navigator?.gpu ?? (await hostGpu());
  if (!gpu) throw new GpuUnavailableError('no WebGPU here: navigator.gpu is missing (a browser with WebGPU, Deno, or Node with the webgpu package)');
  const adapter = await gpu.requestAdapter({ powerPreference });
  if (!adapter) throw new GpuUnavailableError('WebGPU found no adapter (no GPU, or no driver it can use)');
  for (const [name, least] of Object.entries(NEEDED)) {
    if (adapter.limits[name] < least) throw new GpuUnavailableError(`the GPU adapter has ${name} ${adapter.limits[name]}; the MSM needs ${least}`);
  }
  const requiredLimits = Object.fromEntries(ASKED.map((name) => [name, adapter.limits[name]]));
  // timestamps around passes, where the adapter has them, time the phases for `timings` (src/gpu/msm.js)
  const requiredFeatures = adapter.features?.has('timestamp-query') ? ['timestamp-query'] : [];
  const made = await adapter.requestDevice({ requiredLimits, requiredFeatures });
  return { device: made, adapterInfo: adapter.info ?? made.adapterInfo ?? null, owned: true };
}
