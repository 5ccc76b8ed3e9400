// curve.gpu(): the MSM on a WebGPU device, with the inputs, encodings and results of curve.msmBytes. Loaded on the
// first gpu() call; the curve's WGSL module is imported and compiled then, once per device, and reused by every call.

import { acquireDevice, describeAdapter } from './device.js';
import { GpuDeviceLostError, GpuUnavailableError } from './errors.js';
import { GpuBuffers, GpuKernels, GpuMsmRun } from './msm.js';
import { MAX_GPU_POINTS, planGpuCall, planGpuMsm, useGlv } from './plan.js';
import { GpuBases } from './bases.js';
import { pointWords } from './layout.js';
import {
  apartFrom, BAD_POINT_REASON, bigIntToBytesLE, checkMsmInputs, checkMsmOptions, checkOptionNames, inputError, modInverse, modelOf, neutralBytes, scalarBitLength,
  batchInverse, checkScalarRange, sumPointBytes,
} from '../msm/bytes.js';
import { inputsToNative, resultFromNative } from '../codecs.js';
import { checkBasesOptions, checkPreparedScalars, countBases } from '../bases.js';
import { noFormatOptions, resolveFormatOptions } from '../formats.js';
import { abortError } from '../stream.js';

export { GpuDeviceLostError, GpuUnavailableError };

const CALL_OPTIONS = ['window', 'timings', 'checkSubgroup', 'onProgress', 'maxMemory', 'pointFormat', 'scalarFormat', 'resultFormat', 'signal'];
const GPU_OPTIONS = ['device', 'powerPreference', 'maxMemory'];
/** prepareBases' options on the GPU (no precompute table: maxMemory bounds the buffers of its calls instead). */
const GPU_BASES_OPTIONS = ['checkSubgroup', 'pointFormat', 'maxMemory'];
/** An MSM over the GPU's prepared bases: msmBytes' options less those prepareBases took. */
const GPU_BASES_CALL_OPTIONS = CALL_OPTIONS.filter((name) => !GPU_BASES_OPTIONS.includes(name));

/** msmBytes' option checks (src/msm/bytes.js) over the GPU's names; its window may be 1 (a tiny input's best). */
function checkCallOptions(options) {
  if (options === undefined) return {};
  checkOptionNames(options, CALL_OPTIONS);
  const { window } = options;
  if (window != null && !(Number.isInteger(window) && window >= 1 && window <= 24)) throw new RangeError(`window must be an integer in 1..24, got ${window}`);
  checkMsmOptions({ ...options, window: undefined }, { async: true });
  return options;
}

/**
 * The GPU module's shape for the runner: coordinates, words per component and per scalar, GLV's halves (the limbs
 * stay inside the kernels: the buffers hold words, src/gpu/layout.js).
 */
function gpuShape(params) {
  const { coords, glv = null } = params.gpu;
  const degree = params.field.degree ?? 1; // 2 for G2: a coordinate is c0 | c1
  const componentBytes = params.field.base?.bytes ?? params.field.bytes;
  return Object.freeze({
    coords, degree, componentBytes, componentWords: Math.ceil(componentBytes / 4),
    scalarBytes: params.scalarBytes, scalarWords: Math.ceil(params.scalarBytes / 4), glv,
  });
}

/** F_p or F_p2 (u^2 = beta) arithmetic on BigInts for the result's last division: [c0] or [c0, c1]. */
function coordinateField(p, degree, beta) {
  const mod = (x) => ((x % p) + p) % p;
  if (degree === 1) return { mul: ([a], [b]) => [mod(a * b)], inv: ([a]) => [modInverse(a, p)], isZero: ([a]) => a === 0n };
  return {
    mul: ([a0, a1], [b0, b1]) => [mod(a0 * b0 + beta * a1 * b1), mod(a0 * b1 + a1 * b0)],
    // (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 - beta a1^2)
    inv: ([a0, a1]) => {
      const t = modInverse(mod(a0 * a0 - beta * a1 * a1), p);
      return [mod(a0 * t), mod(-a1 * t)];
    },
    isZero: ([a0, a1]) => a0 === 0n && a1 === 0n,
  };
}

/**
 * The result point from the accumulator's coordinates (Montgomery form: each ratio below cancels R) to the native
 * encoding: XYZZ (X / ZZ, Y / ZZZ) on a short Weierstrass curve, extended (X / Z, Y / Z) on a twisted Edwards one;
 * over F_p2 for G2 (c0 | c1 per coordinate).
 */
export function resultBytes(params, gpu, coords) {
  const out = affineBytes(params, gpu, coords, 1)[0];
  if (!out) throw new RangeError('the result is a point at infinity of the Edwards curve (of order 2 or 4), which has no affine coordinates: some input point is outside the subgroup of order r (checkSubgroup finds it)');
  return out;
}

/**
 * `count` points in the accumulator's coordinates to the native encoding, with one inversion for all (Montgomery's
 * trick): an array of encodings, with null for a point at infinity of the Edwards form (no affine coordinates).
 */
export function affineBytes(params, gpu, coords, count) {
  const { p } = params;
  const B = gpu.componentBytes;
  const F = coordinateField(p, gpu.degree, params.nonResidue ?? -1n);
  const CW = gpu.componentWords;
  const PW = pointWords(gpu);
  // each component the little-endian words of its canonical Montgomery residue (coord_toWords)
  const value = (i, t) => Array.from({ length: gpu.degree }, (_, c) => {
    let x = 0n;
    const at = i * PW + (t * gpu.degree + c) * CW;
    for (let j = CW - 1; j >= 0; j--) x = (x << 32n) | BigInt(coords[at + j]);
    return x % p;
  });
  // each point's (numerator, denominator) pair per coordinate: XYZZ (X / ZZ, Y / ZZZ); extended (X / Z, Y / Z)
  const edwards = modelOf(params) === 'twisted-edwards';
  const points = Array.from({ length: count }, (_, i) => edwards
    ? [[value(i, 0), value(i, 2)], [value(i, 1), value(i, 2)]]
    : [[value(i, 0), value(i, 2)], [value(i, 1), value(i, 3)]]);
  // a point's two denominators, or neither where it is infinity (ZZ = 0: ZZZ = 0 too) or has no affine form (Z = 0)
  const denominators = points.flatMap(([x, y]) => (F.isZero(x[1]) ? [] : [x[1], y[1]]));
  const inverses = batchInverse(denominators, F.mul, F.inv);
  let next = 0;
  return points.map(([x, y]) => {
    const out = new Uint8Array(2 * gpu.degree * B);
    if (F.isZero(x[1])) return edwards ? null : out; // XYZZ's infinity: all zero
    const coordinates = [F.mul(x[0], inverses[next++]), F.mul(y[0], inverses[next++])];
    coordinates.flat().forEach((v, i) => bigIntToBytesLE(v, out, i * B, B));
    return out;
  });
}

/**
 * The calls under way on each device (its last call's settling). The GpuCurves that share one (a device passed to
 * gpu(), or one gpu's own device passed to another: G1's and G2's, say) take turns on it: a device has one stack of
 * error scopes, and each call's must catch its own errors only (two calls at once would pop each other's).
 */
const sharedDeviceTails = new WeakMap();

/**
 * The MSM on a GPU for one curve (G1): msmBytes, msm, prepareBases, close. Calls run one at a time, in order (and
 * with the calls of the other GpuCurves on a device passed to gpu()).
 */
export class GpuCurve {
  #curve;
  #options;
  #code;
  #state = null; // { device, owned, adapterInfo, kernels, buffers, lost }
  #tail = Promise.resolve();
  #closed = false; // close() was called: calls made after it reject; those made before it run first
  #bases = new Set();

  constructor(curve, code, options, state) {
    this.#curve = curve;
    this.#code = code;
    this.#options = options;
    this.#state = state;
    this.gpuParams = gpuShape(curve.params);
    /** the widest scalars' bits, which prepared bases are planned for */
    this.scalarBits = curve.params.rBits;
  }

  /** The adapter's description (vendor / architecture / device / description), for benchmark rows. */
  get adapter() {
    return describeAdapter(this.#state?.adapterInfo);
  }

  /** The device in use (a new one after a loss). */
  get device() {
    return this.#state?.device;
  }

  static async open(curve, code, options = {}) {
    const state = await GpuCurve.#connect(code, options, !!curve.params.gpu.glv);
    return new GpuCurve(curve, code, options, state);
  }

  static async #connect(code, options, glv) {
    const { device, owned, adapterInfo } = await acquireDevice(options);
    const state = { device, owned, adapterInfo, lost: null, kernels: null, buffers: new GpuBuffers(device) };
    device.lost.then((info) => {
      state.lost = info;
    });
    try {
      state.kernels = await GpuKernels.compile(device, code, glv);
    } catch (e) {
      if (owned) device.destroy();
      throw e;
    }
    return state;
  }

  /** The state for a call: a new device when the last one was lost (ours only: a caller's device is theirs). */
  async #ready() {
    if (!this.#state) throw new Error('the GPU MSM is closed');
    if (this.#state.lost) {
      if (!this.#state.owned) throw new GpuDeviceLostError(`the GPU device given to gpu() was lost (${this.#state.lost.message || this.#state.lost.reason}); pass a new one`);
      for (const bases of this.#bases) bases.invalidate();
      this.#state = await GpuCurve.#connect(this.#code, this.#options, !!this.gpuParams.glv);
    }
    return this.#state;
  }

  /**
   * Run body(state) after the calls before it; a lost device turns its outcome into GpuDeviceLostError. The GPU's own
   * errors (a validation error: a buffer destroyed or invalid; out of memory) come only to error scopes, and a submit
   * they stop leaves the buffers as they were: the call's result is refused when its scopes caught one.
   */
  #exclusive(options, body) {
    if (this.#closed) return Promise.reject(new Error('the GPU MSM is closed'));
    // a device passed to gpu(), or this one's own: another GpuCurve may have been given it (gpu({ device: g.device }))
    const device = this.#options.device ?? this.#state?.device;
    const before = device ? Promise.all([this.#tail, sharedDeviceTails.get(device)]) : this.#tail;
    const run = before.then(async () => {
      const { signal } = options;
      if (signal?.aborted) throw abortError(signal);
      const state = await this.#ready();
      const budget = options.maxMemory ?? this.#options.maxMemory;
      const { device } = state;
      device.pushErrorScope('validation');
      device.pushErrorScope('out-of-memory');
      const scopes = () => Promise.all([device.popErrorScope(), device.popErrorScope()]).then((errors) => errors.find(Boolean) ?? null, () => null);
      let popped = false;
      try {
        const result = await body(state, budget);
        popped = true;
        const popping = performance.now();
        const error = await scopes();
        if (options.timings) options.timings.finish = performance.now() - popping;
        if (state.lost) throw new GpuDeviceLostError(`the GPU device was lost during the MSM (${state.lost.message || state.lost.reason}); the next call gets a new one`);
        if (error) throw new Error(`the GPU reported an error during the call, so its result is not used: ${error.message}`);
        return result;
      } catch (e) {
        if (!popped) await scopes(); // (its own error is the one to tell)
        // a device lost mid-call fails what it touched (a map, a validation error): say so, never a result
        if (state.lost && !(e instanceof GpuDeviceLostError)) {
          throw new GpuDeviceLostError(`the GPU device was lost during the MSM (${state.lost.message || state.lost.reason}); the next call gets a new one`, { cause: e });
        }
        throw e;
      }
    });
    this.#tail = run.catch(() => {});
    if (device) sharedDeviceTails.set(device, this.#tail);
    return run;
  }

  /**
   * sum_i scalars[i] * points[i] on the GPU, with the inputs, formats and result of curve.msmBytes. The arrays are read
   * when the call's turn comes (after the calls before it): do not change or transfer them until it settles, as with
   * the pool's msmBytes (a copy of a 2^20-point input would cost more than the GPU's whole MSM). options: window,
   * maxMemory (GPU bytes for the working buffers; default 1 GiB, or gpu()'s), timings (ms: convert, digits, sort,
   * accumulate, reduce, combine by GPU timestamps where the device has them, else each phase run alone, combine with
   * the host's part added; prepare, upload, encode (the passes' commands), scalarCheck, wait, download and finish
   * (the GPU's error scopes read) by the host's clock; phaseClock says which), signal, onProgress (fraction of the
   * chunks done), checkSubgroup, pointFormat, scalarFormat, resultFormat.
   * The scalars' range (< r) is checked while the GPU runs the first chunk, unless a format option or checkSubgroup
   * has it checked first (as on the CPU, a bad scalar is reported before a bad point).
   */
  msmBytes(pointBytes, scalarBytes, options) {
    let n;
    let formats;
    let checkScalars;
    const curve = this.#curve;
    try {
      options = checkCallOptions(options);
      // views of the curve's memory: copied now, as curve.msmBytes does (a format's decoding or the subgroup test grows
      // it here, and any CPU call on the curve may before this call's turn: either detaches them)
      pointBytes = apartFrom(curve.memory, pointBytes);
      scalarBytes = apartFrom(curve.memory, scalarBytes);
      formats = resolveFormatOptions(curve.params, options);
      // (inputsToNative checks the scalars' range too)
      if (formats) [pointBytes, scalarBytes] = inputsToNative(curve, formats, pointBytes, scalarBytes, options.timings);
      // the scalars' range is checked here before a subgroup test, else while the GPU runs (#run)
      checkScalars = !formats && !options.checkSubgroup;
      n = checkMsmInputs(curve.params, pointBytes, scalarBytes, { range: !formats && !checkScalars });
      if (n > MAX_GPU_POINTS) throw new RangeError(`the GPU MSM takes at most ${MAX_GPU_POINTS} points a call, got ${n}`);
      // the subgroup test runs in Wasm on this thread (variable time); the MSM then takes the points as they are
      if (options.checkSubgroup) curve.decodePoints(pointBytes, 'native', { checkSubgroup: true });
    } catch (e) {
      return Promise.reject(e);
    }
    // the arrays are read when the call's turn comes, as the pool's msmBytes reads them: no copy of the input
    return this.#exclusive(options, async (state, maxMemory) => {
      const out = await this.#run(state, { points: pointBytes, scalars: scalarBytes, n, prepared: null, checkScalars }, options, maxMemory);
      return resultFromNative(curve, formats, out, options.timings);
    });
  }

  /** The BigInt form, as curve.msm: points { x, y } or null (or Point objects), scalars bigint in [0, r). */
  async msm(points, scalars, options) {
    if (Array.isArray(points) && Array.isArray(scalars) && points.length !== scalars.length) {
      throw new RangeError(`points and scalars differ in length (${points.length} vs ${scalars.length})`);
    }
    noFormatOptions(checkCallOptions(options), 'msm');
    const curve = this.#curve;
    return curve.decodePoint(await this.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), options));
  }

  /**
   * Bases uploaded and converted once, for many MSMs: `await bases.msmBytes(scalarBytes)` sums any prefix of them
   * (as many scalars as given). options: { pointFormat, checkSubgroup, maxMemory }. bases.free() gives the GPU memory back.
   */
  async prepareBases(pointBytes, options = {}) {
    const curve = this.#curve;
    const P = curve.params;
    if (options?.precompute !== undefined) throw new TypeError('options.precompute is for the CPU\'s prepared bases; the GPU sums prepared bases without a table');
    checkOptionNames(options, GPU_BASES_OPTIONS, 'the GPU\'s prepareBases options');
    const maxMemory = options?.maxMemory;
    if (maxMemory !== undefined && !(typeof maxMemory === 'number' && maxMemory > 0)) throw new TypeError('options.maxMemory must be a positive number of bytes');
    const { checkSubgroup, formats } = checkBasesOptions(P, withoutMaxMemory(options));
    const n = countBases(P, formats, pointBytes);
    if (n > MAX_GPU_POINTS) throw new RangeError(`the GPU MSM takes at most ${MAX_GPU_POINTS} points, got ${n}`);
    // other formats decoded (and checked) here; native points are checked on the GPU as they are converted
    const native = formats?.point || checkSubgroup ? curve.decodePoints(pointBytes, formats?.point?.name ?? 'native', { checkSubgroup }) : apartFrom(curve.memory, pointBytes);
    const bases = new GpuBases(this, native, n, maxMemory);
    this.#bases.add(bases);
    try {
      await bases.upload();
    } catch (e) {
      bases.release(); // no one gets them to free: their buffers (and the caller's points) go now, not at close()
      throw e;
    }
    return bases;
  }

  /** @internal the upload and conversion of prepared bases, in the call order */
  uploadBases(bases) {
    return this.#exclusive({ maxMemory: bases.maxMemory }, (state, maxMemory) => bases.convertOn(state, maxMemory, this.gpuParams));
  }

  /** @internal an MSM over prepared bases */
  basesMsm(bases, scalarBytes, options) {
    let k;
    let formats;
    const curve = this.#curve;
    try {
      for (const key of GPU_BASES_OPTIONS) {
        if (options?.[key] !== undefined) throw new TypeError(`options.${key} belongs to the GPU's prepareBases (the bases were checked, and their calls' memory bounded, there)`);
      }
      checkOptionNames(options, GPU_BASES_CALL_OPTIONS, 'the GPU\'s prepared bases\' msmBytes options');
      options = checkCallOptions(options);
      // the scalars' range is checked while the GPU runs, as msmBytes does (it cost 7 ms before the passes at 2^20)
      ({ k, scalarBytes, formats } = checkPreparedScalars(curve.params, { N: bases.length, Kt: 1 }, apartFrom(curve.memory, scalarBytes), options, { range: false }));
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#exclusive(options, async (state) => {
      const out = await this.#run(state, { points: null, scalars: scalarBytes, n: k, prepared: bases.on(state), checkScalars: true }, options);
      return resultFromNative(curve, formats, out, options.timings);
    });
  }

  /** The phases, chunk by chunk, then the result read back and checked. */
  async #run(state, { points, scalars, n, prepared, checkScalars = false }, options, maxMemory) {
    const { params } = this.#curve;
    const gpu = this.gpuParams;
    const { timings } = options;
    const started = performance.now();
    // r's bits at most: a longer scalar is >= r, which checkScalarRange rejects before any result
    const bits = scalarBitLength(scalars, params.scalarBytes, n, params.rBits);
    // no valid input gets here with bits > rBits: that scalar's error comes before the plan's
    if (checkScalars && (n === 0 || (bits === 0 && !points) || bits > params.rBits)) checkScalarRange(params, scalars, n);
    if (n === 0 || (bits === 0 && !points)) return neutralBytes(params);
    // prepared bases: their chunk is fixed and their memory held, so only the device's limits bound the plan; GLV
    // where they hold the images phi(P) (whatever the model says of n: useGlv)
    const limits = state.device.limits;
    const plan = prepared
      ? planGpuMsm(gpu, prepared.chunk, Math.max(1, bits), { window: options.window, limits, maxMemory: Infinity, glv: prepared.glv && useGlv(gpu, bits) })
      : planGpuCall(gpu, n, Math.max(1, bits), { window: options.window, limits, maxMemory });
    // prepared bases are held in chunks of their own plan; a window too large for that chunk does not fit
    if (prepared && plan.chunk !== prepared.chunk) throw new RangeError(`window ${plan.c} needs more GPU memory than a chunk of these prepared bases allows`);
    if (!prepared) state.buffers.fit(plan.bytes, maxMemory);
    const run = new GpuMsmRun(state.kernels, state.buffers, gpu, plan, { timings });
    if (timings) Object.assign(timings, { chunks: 0, window: plan.c, prepare: performance.now() - started });
    try {
      return await this.#runChunks(run, { points, scalars, n, prepared, checkScalars }, options);
    } finally {
      run.release();
    }
  }

  async #runChunks(run, { points, scalars, n, prepared, checkScalars }, { timings, signal, onProgress }) {
    const { params } = this.#curve;
    const { plan, gpu } = run;
    run.start();
    const chunks = Math.ceil(n / plan.chunk);
    for (let k = 0; k < chunks; k++) {
      if (signal?.aborted) throw abortError(signal);
      const first = k * plan.chunk;
      const count = Math.min(plan.chunk, n - first);
      if (prepared) {
        await run.sum(scalars, first, count, k === 0, prepared.points[k], prepared.skip[k], prepared.counts[k]);
      } else {
        await run.convert(points, first, count);
        await run.sum(scalars, first, count, k === 0);
      }
      // one chunk in flight at a time: the next one's uploads reuse the same staging and input buffers
      run.submit();
      // the scalars' range on the CPU while the first chunk runs on the GPU (a bad one: no result, the same error)
      if (k === 0 && checkScalars) {
        const checking = performance.now();
        checkScalarRange(params, scalars, n);
        if (timings) timings.scalarCheck = performance.now() - checking;
      }
      if (k + 1 < chunks) await run.device.queue.onSubmittedWorkDone();
      if (timings) timings.chunks++;
      try {
        onProgress?.((k + 1) / chunks);
      } catch {
        // a progress callback that throws does not stop the MSM
      }
    }
    if (signal?.aborted) throw abortError(signal);
    // (a device lost meanwhile turns whatever this gives into GpuDeviceLostError: #exclusive)
    const { coords, status } = await run.readResult();
    if (status !== 0xffffffff) throw inputError('points', status >>> 2, `: ${BAD_POINT_REASON[status & 3]}`);
    // combine: sum_k 2^(c k) W_k on the CPU, unless a window's sum has no affine form to send there
    const started = performance.now();
    const windows = affineBytes(params, gpu, coords, plan.K);
    if (windows.some((w) => w === null)) {
      await run.combineOnGpu();
      return resultBytes(params, gpu, (await run.readResult('sumsA', 1)).coords);
    }
    const out = sumPointBytes(this.#curve, windows, { shift: plan.c });
    if (timings) timings.combine = (timings.combine ?? 0) + (performance.now() - started);
    return out;
  }

  /** Give back the GPU buffers kept between calls (the compiled kernels stay). */
  trim() {
    return this.#exclusive({}, (state) => state.buffers.free());
  }

  /** Free every buffer and prepared bases; destroy the device if gpu() made it. Calls after close() fail. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail;
    for (const bases of [...this.#bases]) bases.release();
    this.#state?.buffers.free();
    if (this.#state?.owned) this.#state.device.destroy();
    this.#state = null;
  }

  /** @internal */
  forgetBases(bases) {
    this.#bases.delete(bases);
  }

  /** @internal run() after the calls made before it (a prepared bases' free()) */
  afterCalls(run) {
    const done = this.#tail.then(run);
    this.#tail = done.catch(() => {});
    return done;
  }
}

function withoutMaxMemory(options) {
  const { maxMemory, ...rest } = options ?? {};
  return rest;
}

/** curve.gpu(options): a GpuCurve on a device of its own, or the caller's ({ device }). */
export async function openGpu(curve, importCode, options = {}) {
  checkOptionNames(options, GPU_OPTIONS, 'gpu options');
  if (options.maxMemory !== undefined && !(typeof options.maxMemory === 'number' && options.maxMemory > 0)) throw new TypeError('gpu options.maxMemory must be a positive number of bytes');
  if (!curve.params.gpu || !importCode) throw new GpuUnavailableError(`${curve.name} ${curve.group} has no GPU kernels`);
  const code = (await importCode()).default;
  return GpuCurve.open(curve, code, options);
}
