// Prepared bases on the GPU (gpu.prepareBases): the points uploaded and converted once, held in chunks of their own
// plan (with the GLV split, each phi(P) beside them), for many MSMs; the calls themselves run through their GpuCurve.

import { GpuDeviceLostError } from './errors.js';
import { GpuMsmRun, STORAGE } from './msm.js';
import { planGpuCall } from './plan.js';
import { affineWords } from './layout.js';
import { BAD_POINT_REASON, inputError } from '../msm/bytes.js';

/** Bases held on the GPU as converted affine points (with GLV, each phi(P) after them), a chunk of the plan per buffer pair. */
export class GpuBases {
  #gpu;
  #bytes; // the caller's points until they are uploaded (read when prepareBases' turn comes)
  #held = null; // { state, chunk, glv, points: GPUBuffer[], skip: GPUBuffer[], counts: the points in each }
  #freed = false; // free() was called: later calls throw, earlier ones run
  #lost = false; // the device that held them was lost (their buffers went with it)

  constructor(gpu, bytes, length, maxMemory) {
    this.#gpu = gpu;
    this.#bytes = bytes;
    this.length = length;
    this.maxMemory = maxMemory;
  }

  upload() {
    return this.#gpu.uploadBases(this);
  }

  /** @internal upload and convert the bases on this device, once */
  async convertOn(state, maxMemory, gpu) {
    // the chunk sized for full scalars: the widest MSM these bases will serve (with GLV: each phi(P) held too)
    const bits = this.#gpu.scalarBits;
    const plan = planGpuCall(gpu, Math.max(1, this.length), bits, { maxMemory, limits: state.device.limits });
    state.buffers.fit(plan.bytes, maxMemory);
    const points = [];
    const skip = [];
    const counts = [];
    const run = new GpuMsmRun(state.kernels, state.buffers, gpu, plan);
    let status;
    try {
      run.start();
      for (let first = 0; first < this.length; first += plan.chunk) {
        const count = Math.min(plan.chunk, this.length - first);
        // (STORAGE alone: the bases are written and read by the kernels only)
        const p = state.device.createBuffer({ label: 'bases', size: Math.max(16, (plan.glv ? 2 : 1) * count * 4 * affineWords(gpu)), usage: STORAGE });
        const s = state.device.createBuffer({ label: 'bases skip', size: Math.max(16, count * 4), usage: STORAGE });
        points.push(p);
        skip.push(s);
        counts.push(count);
        await run.convert(this.#bytes, first, count, { points: p, skip: s });
        run.submit();
        await state.device.queue.onSubmittedWorkDone();
      }
      ({ status } = await run.readResult('status', 0));
    } catch (e) {
      // (a lost device, say): nothing held
      for (const b of [...points, ...skip]) b.destroy();
      run.release();
      throw e;
    }
    this.#bytes = null;
    this.#held = { state, chunk: plan.chunk, glv: plan.glv, points, skip, counts };
    if (status !== 0xffffffff) {
      this.release(); // (inside the upload's own turn)
      throw inputError('points', status >>> 2, `: ${BAD_POINT_REASON[status & 3]}`);
    }
  }

  /** @internal the held buffers on the current device */
  on(state) {
    if (this.#lost || (this.#held && this.#held.state !== state)) throw new GpuDeviceLostError('the GPU device that held these prepared bases was lost: prepare them again');
    if (!this.#held) throw new Error('these prepared bases were freed');
    return this.#held;
  }

  /** @internal their device was lost: their buffers went with it */
  invalidate() {
    this.#held = null;
    this.#lost = true;
    this.#gpu.forgetBases(this);
  }

  msmBytes(scalarBytes, options) {
    if (this.#freed) return Promise.reject(new Error('these prepared bases were freed'));
    return this.#gpu.basesMsm(this, scalarBytes, options);
  }

  /** Give the GPU memory back, once the calls made before this one are done (later calls throw). */
  free() {
    if (this.#freed) return Promise.resolve();
    this.#freed = true;
    return this.#gpu.afterCalls(() => this.release());
  }

  /** @internal the buffers destroyed now (free()'s turn, a failed upload, close()) */
  release() {
    this.#freed = true;
    this.#bytes = null;
    if (this.#held) for (const b of [...this.#held.points, ...this.#held.skip]) b.destroy();
    this.#held = null;
    this.#gpu.forgetBases(this);
  }
}
