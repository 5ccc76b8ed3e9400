// The GPU path's errors, in a module of their own so that index.js can export them without loading the GPU code.

/** A GPU MSM cannot run here: no WebGPU, no adapter, limits too small, or no GPU kernels for this group. */
export class GpuUnavailableError extends Error {
  name = 'GpuUnavailableError';
}

/** The device was lost (or destroyed) during a call: its result is not trusted. The next call gets a new device. */
export class GpuDeviceLostError extends Error {
  name = 'GpuDeviceLostError';
}
