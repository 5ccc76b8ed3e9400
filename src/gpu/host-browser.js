// Browsers, Deno and Bun have no package to load: WebGPU is navigator.gpu or absent (src/gpu/device.js).
export async function hostGpu() {
  return null;
}
