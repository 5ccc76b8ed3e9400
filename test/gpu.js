// WebGPU for the test suites: Dawn (the `webgpu` package) on SwiftShader, the Vulkan driver of Debian's chromium,
// so every GPU kernel runs in CI on machines without a GPU (../shared/device/README.md). SwiftShader proves
// correctness, never speed.

import { existsSync } from 'node:fs';

/** The Vulkan driver of Debian's chromium: SwiftShader, Vulkan on the CPU (scripts/test-runtimes.js takes it too). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * A generated curve with the GLV split on the GPU: y^2 = x^3 + 2 over a 23-bit p = 1 mod 3, of prime order r = 1 mod 3
 * (3-byte scalars in one word, halves of 11 bits). test/gpu-glv.test.js and test/gpu-msm.test.js.
 */
export const TOY_GLV = Object.freeze({ name: 'toy-glv', p: '0x400063', a: '0x0', b: '0x2', r: '0x3ff1d5', h: '0x1', generator: Object.freeze({ x: '0x2', y: '0xcfdc0' }) });

/**
 * A twisted Edwards curve whose short Weierstrass image has a = 0 (p and r = 1 mod 3): deriveGlvParams finds (beta x,
 * y) there, which the GPU, holding Edwards coordinates, must not apply (a review's case: every MSM was refused).
 */
export const EDWARDS_J0 = Object.freeze({ name: 'te-j0', model: 'twisted-edwards', p: '0x100141', a: '0x5', d: '0x2a767', r: '0x155fb', h: '0xc', generator: Object.freeze({ x: '0xd150b', y: '0xb00a5' }) });

let gpuPromise = null;

/**
 * Dawn's GPU object, on SwiftShader where the suite runs without a driver of its own (VK_ICD_FILENAMES set before
 * Dawn creates its Vulkan instance). Resolves to null where neither Dawn nor a Vulkan driver is at hand.
 */
export function testGpu() {
  gpuPromise ??= (async () => {
    if (!process.env.VK_ICD_FILENAMES && !process.env.VK_DRIVER_FILES && existsSync(SWIFTSHADER_ICD)) {
      process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    }
    const { create, globals } = await import('webgpu');
    Object.assign(globalThis, globals); // GPUBufferUsage, GPUMapMode, GPUShaderStage
    return create([]);
  })();
  return gpuPromise;
}

/** A device on the test adapter (a new one each call; destroy it when done). */
export async function testDevice() {
  const gpu = await testGpu();
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter: install chromium (SwiftShader) and libvulkan1');
  return adapter.requestDevice({
    requiredFeatures: adapter.features.has('timestamp-query') ? ['timestamp-query'] : [],
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
      maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
    },
  });
}

/**
 * Run one compute entry point over u32 storage buffers and read them all back.
 * buffers: Uint32Array per binding (group 0, binding i, in order), each read_write storage; workgroups: the
 * dispatch count in x. Throws the shader's compilation errors with their lines.
 */
export async function runCompute(device, code, entryPoint, buffers, workgroups) {
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length) throw new Error(errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('\n'));
  device.pushErrorScope('validation');
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } });
  const gpuBuffers = buffers.map((data) => {
    const size = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
    const b = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
  });
  const reads = gpuBuffers.map((b) => device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: gpuBuffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  }));
  pass.dispatchWorkgroups(workgroups);
  pass.end();
  gpuBuffers.forEach((b, i) => encoder.copyBufferToBuffer(b, 0, reads[i], 0, b.size));
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  if (error) throw new Error(error.message);
  const out = [];
  for (let i = 0; i < reads.length; i++) {
    await reads[i].mapAsync(GPUMapMode.READ);
    out.push(new Uint32Array(reads[i].getMappedRange().slice(0, buffers[i].byteLength)));
    reads[i].unmap();
    reads[i].destroy();
    gpuBuffers[i].destroy();
  }
  return out;
}

/**
 * Set by .ci/run for its second Node: the WebGPU suites run the same WGSL on the same SwiftShader whichever Node
 * drives Dawn, so they run under the first only (as the Chromium suites do).
 */
export const GPU_SUITES_SKIPPED = process.env.WASMSM_GPU_SUITES === 'skip';

/** Whether a WebGPU suite is skipped in this run (with a message naming `file`). */
export function skipGpuSuite(file) {
  if (GPU_SUITES_SKIPPED) console.warn(`${file}: SKIPPED: WASMSM_GPU_SUITES=skip`);
  return GPU_SUITES_SKIPPED;
}
