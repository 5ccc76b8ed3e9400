#!/usr/bin/env node
// Host -> GPU upload paths for 64 MiB, side by side on the GPU it finds: queue.writeBuffer (fresh staging memory each
// call) against a MAP_WRITE staging buffer kept from call to call (map, fill, copy on the queue: what the GPU MSM
// does, src/gpu/msm.js GpuMsmRun.upload), and the host's scalar scans at 2^20 (bit length, range check).
// Here (SwiftShader): VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node bench/gpu-upload.js
// On the GPU machine, from .device/: bash .device/setup.sh && /tmp/dev/node-gpu bench/gpu-upload.js /tmp/dev/wasmsm

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const lib = pathToFileURL(resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname)).href;
const { acquireDevice } = await import(`${lib}/src/gpu/device.js`);
const { loadCurve } = await import(`${lib}/index.js`);
const { scalarBitLength, checkScalarRange } = await import(`${lib}/src/msm/bytes.js`);

const ms = (t) => (performance.now() - t).toFixed(2);
const curve = await loadCurve('bn254');
const n = 2 ** 20;
const scalars = curve.randomScalarsBytes(n, { seed: 2 });
let t = performance.now();
scalarBitLength(scalars, 32, n);
const full = ms(t);
t = performance.now();
scalarBitLength(scalars, 32, n, curve.params.rBits);
const early = ms(t);
t = performance.now();
checkScalarRange(curve.params, scalars, n);
console.log(`host, BN254 2^20 scalars: bit length ${full} ms (${early} ms stopping at r's bits), range check ${ms(t)} ms`);

const { device, adapterInfo } = await acquireDevice();
console.log(`GPU: ${[adapterInfo?.vendor, adapterInfo?.architecture, adapterInfo?.device].filter(Boolean).join(' / ')}`);
const bytes = new Uint8Array(64 * 2 ** 20).fill(7);
const target = device.createBuffer({ size: bytes.length, usage: 0x80 | 0x8 | 0x4 }); // STORAGE | COPY_DST | COPY_SRC
const stage = device.createBuffer({ size: bytes.length, usage: 0x2 | 0x4 }); // MAP_WRITE | COPY_SRC
for (let round = 0; round < 4; round++) {
  t = performance.now();
  device.queue.writeBuffer(target, 0, bytes);
  const written = ms(t);
  await device.queue.onSubmittedWorkDone();
  const writeDone = ms(t);
  t = performance.now();
  await stage.mapAsync(2 /* GPUMapMode.WRITE */);
  const mapped = ms(t);
  new Uint8Array(stage.getMappedRange()).set(bytes);
  const filled = ms(t);
  stage.unmap();
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(stage, 0, target, 0, bytes.length);
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
  console.log(`64 MiB: writeBuffer ${written} ms (on the GPU ${writeDone}) | kept staging: mapped ${mapped}, filled ${filled}, copied ${ms(t)} ms`);
}
device.destroy();
process.exit(0);
