// WebGPU in Node: the optional peer dependency `webgpu` (Dawn), imported on the first gpu() call only. Deno has
// navigator.gpu, which src/gpu/device.js takes first.

let gpu = null; // Dawn's GPU object, kept for the life of the process: its devices need it alive

export async function hostGpu() {
  if (gpu) return gpu;
  let dawn;
  try {
    const name = 'webgpu'; // a variable, so no bundler tries to resolve the optional package
    dawn = await import(/* @vite-ignore */ name);
  } catch (e) {
    throw new Error(`WebGPU in Node needs the optional peer dependency 'webgpu' (Dawn): npm install webgpu (${e.message})`);
  }
  gpu = dawn.create([]);
  return gpu;
}
