// WebGPU in Node: the optional peer dependency `webgpu` (Dawn), imported on the first gpu() call only. Deno has
// navigator.gpu, which src/gpu/device.js takes first.

import { GpuUnavailableError } from './errors.js';

let gpu = null; // Dawn's GPU object, kept for the life of the process: its devices need it alive

export async function hostGpu() {
  if (gpu) return gpu;
  let dawn;
  try {
    const name = 'webgpu'; // a variable, so no bundler tries to resolve the optional package
    dawn = await import(/* @vite-ignore */ name);
  } catch (e) {
    throw new GpuUnavailableError(`WebGPU in Node needs the optional peer dependency 'webgpu' (Dawn): npm install webgpu (${e.message})`);
  }
  try {
    gpu = dawn.create([]);
  } catch (e) {
    throw new GpuUnavailableError(`Dawn (the webgpu package) did not start: ${e.message}`);
  }
  return gpu;
}
