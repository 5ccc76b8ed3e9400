// The MSM on the GPU: the compiled entry points of a curve's WGSL module, the buffers kept from call to call, and the
// phases of one chunk of a plan (plan.js) as compute passes (convert, digits, sort, accumulate, reduce, combine).
// Points and scalars go up as bytes through staging buffers kept from call to call; the K window sums (in the
// accumulator's coordinates) come back, and the host combines them. Every phase is variable time.

import { GLV_ENTRY_POINT, MSM_ENTRY_POINTS, MSM_PARAM_FIELDS, SCAN_BLOCK, SUM_MODES, WORKGROUP, pointWords } from './layout.js';
import { DEFAULT_GPU_MEMORY, ceilDiv } from './plan.js';

// GPUBufferUsage and GPUMapMode by value: Dawn in Node does not put them on globalThis
const MAP_READ = 0x1;
const MAP_WRITE = 0x2;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const UNIFORM = 0x40;
export const STORAGE = 0x80;
const QUERY_RESOLVE = 0x200;
/** Timestamps one submission may write: two a pass, far more passes than a chunk has. */
const QUERIES = 256;

/** The compiled entry points of one curve's WGSL module on one device (compiled once, reused by every call). */
export class GpuKernels {
  static #compiled = new WeakMap(); // device -> Map(code -> Promise<GpuKernels>)

  /**
   * The kernels of `code` on `device`, compiled on first use and shared by every GpuCurve on that device. glv: the
   * module has decomposeScalars (gpu.glv).
   */
  static compile(device, code, glv = false) {
    let byCode = GpuKernels.#compiled.get(device);
    if (!byCode) GpuKernels.#compiled.set(device, (byCode = new Map()));
    if (!byCode.has(code)) {
      const made = GpuKernels.#compileNow(device, code, glv ? [...MSM_ENTRY_POINTS, GLV_ENTRY_POINT] : MSM_ENTRY_POINTS);
      made.catch(() => byCode.delete(code));
      byCode.set(code, made);
    }
    return byCode.get(code);
  }

  static async #compileNow(device, code, entryPoints) {
    const module = device.createShaderModule({ code });
    const info = await module.getCompilationInfo?.();
    const errors = (info?.messages ?? []).filter((m) => m.type === 'error');
    if (errors.length) throw new Error(`the GPU MSM's WGSL does not compile: ${errors.slice(0, 5).map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
    const pipelines = {};
    await Promise.all(entryPoints.map(async (entryPoint) => {
      pipelines[entryPoint] = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } });
    }));
    return new GpuKernels(device, pipelines);
  }

  constructor(device, pipelines) {
    this.device = device;
    this.pipelines = pipelines;
  }
}

/**
 * Buffers kept from call to call (a new one only when a call needs more than the last), given back by free().
 */
export class GpuBuffers {
  #device;
  #buffers = new Map();
  #staging = new Set(); // names of the host-visible staging buffers (MAP_WRITE): outside the GPU budget

  constructor(device) {
    this.#device = device;
  }

  get(name, size, usage = STORAGE | COPY_SRC | COPY_DST) {
    const held = this.#buffers.get(name);
    if (held && held.size >= size) return held;
    held?.destroy();
    const buffer = this.#device.createBuffer({ label: name, size, usage });
    this.#buffers.set(name, buffer);
    if (usage & MAP_WRITE) this.#staging.add(name);
    return buffer;
  }

  free() {
    for (const b of this.#buffers.values()) b.destroy();
    this.#buffers.clear();
    this.#staging.clear();
  }

  /**
   * Before a call whose GPU buffers take `need` bytes by name, within `budget` (the call's maxMemory, or the default as
   * the plan takes it): where what is held (each grown as
   * `need` asks, the others kept) would pass the budget, it is all given back first (a large chunk, then a large
   * window on a small input, would otherwise hold both shapes' largest buffers). The staging buffers are not in the
   * budget: counting them gave every call of a plan near the budget fresh buffers (fresh host memory is several
   * times slower to fill).
   */
  fit(need, budget = DEFAULT_GPU_MEMORY) {
    let total = 0;
    for (const [name, b] of this.#buffers) if (!this.#staging.has(name)) total += Math.max(b.size, need[name] ?? 0);
    for (const [name, size] of Object.entries(need)) if (!this.#buffers.has(name)) total += size;
    if (total > budget) this.free();
  }
}

/** The input's bytes as u32 words, each coordinate (or scalar) padded to whole words where its size is not. */
function toWords(bytes, count, itemBytes, itemWords, first = 0) {
  if (itemBytes === itemWords * 4) return bytes.subarray(first * itemBytes, (first + count) * itemBytes);
  const out = new Uint8Array(count * itemWords * 4);
  for (let i = 0; i < count; i++) out.set(bytes.subarray((first + i) * itemBytes, (first + i + 1) * itemBytes), i * itemWords * 4);
  return out;
}

/**
 * One MSM's passes on a device. convert() and sum() encode the phases of each chunk; the K window sums, added up over
 * the chunks, stay in the `result` buffer (the accumulator's coordinates, Montgomery form) and bad-point codes in
 * `status`, read back by readResult().
 */
export class GpuMsmRun {
  constructor(kernels, buffers, gpu, plan, { timings } = {}) {
    this.device = kernels.device;
    this.kernels = kernels;
    this.buffers = buffers;
    this.gpu = gpu;
    this.plan = plan;
    this.timings = timings;
    // phase times from GPU timestamps around each pass where the device has them (the passes run as they would
    // untimed), else from the wall clock around each phase submitted alone
    this.gpuClock = !!timings && this.device.features.has('timestamp-query');
    if (timings) timings.phaseClock = this.gpuClock ? 'gpu timestamps' : 'wall clock, each phase alone';
    this.transient = [];
    this.encoder = null;
    this.queries = null; // { set, phases: [] } of the submission being encoded
    this.reads = []; // the timestamps' read backs
    this.phaseName = null;
  }

  buffer(name) {
    return this.buffers.get(name, this.plan.bytes[name]);
  }

  /**
   * words into `target` through the staging buffer `name`, mapped for writing, filled, and copied in this
   * submission's order. A staging buffer kept from call to call is filled at memory speed, where writeBuffer's
   * fresh staging memory of each call costs several times as much (about 30 ms for 64 MiB, on an H200 as on
   * SwiftShader).
   */
  async upload(name, target, words) {
    const stage = this.buffers.get(name, this.plan.staging[name], MAP_WRITE | COPY_SRC);
    await stage.mapAsync(2 /* GPUMapMode.WRITE */, 0, words.byteLength);
    new Uint8Array(stage.getMappedRange(0, words.byteLength)).set(words);
    stage.unmap();
    this.encoder ??= this.device.createCommandEncoder();
    this.encoder.copyBufferToBuffer(stage, 0, target, 0, words.byteLength);
  }

  /** One dispatch of `entryPoint` over `threads` invocations, with the uniform fields and storage buffers given. */
  dispatch(entryPoint, fields, storage, threads, size = WORKGROUP) {
    const values = new Uint32Array(Math.ceil(MSM_PARAM_FIELDS.length / 4) * 4);
    MSM_PARAM_FIELDS.forEach((f, i) => (values[i] = fields[f] ?? 0));
    const uniform = this.device.createBuffer({ size: values.byteLength, usage: UNIFORM, mappedAtCreation: true });
    new Uint32Array(uniform.getMappedRange()).set(values);
    uniform.unmap();
    this.transient.push(uniform);
    const pipeline = this.kernels.pipelines[entryPoint];
    const bindGroup = this.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: uniform } }, ...storage.map((buffer, i) => ({ binding: i + 1, resource: { buffer } }))],
    });
    const workgroups = Math.max(1, ceilDiv(threads, size));
    const x = Math.min(workgroups, this.device.limits.maxComputeWorkgroupsPerDimension);
    let timestampWrites;
    if (this.gpuClock) {
      this.queries ??= { set: this.device.createQuerySet({ type: 'timestamp', count: QUERIES }), phases: [] };
      const k = this.queries.phases.push(this.phaseName) - 1;
      timestampWrites = { querySet: this.queries.set, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 };
    }
    const pass = this.encoder.beginComputePass(timestampWrites && { timestampWrites });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(x, ceilDiv(workgroups, x));
    pass.end();
  }

  /**
   * Encode `body` as a phase. With timings: its passes carry GPU timestamps, or (no timestamp-query) the phase is
   * submitted and awaited alone and timed by the wall clock.
   */
  async phase(name, body) {
    const encoding = performance.now();
    this.encoder ??= this.device.createCommandEncoder();
    this.phaseName = name;
    body();
    this.timeHost('encode', encoding);
    if (!this.timings || this.gpuClock) return;
    const started = performance.now();
    this.submit();
    await this.device.queue.onSubmittedWorkDone();
    this.timings[name] = (this.timings[name] ?? 0) + (performance.now() - started);
  }

  submit() {
    if (!this.encoder) return;
    const submitting = performance.now();
    const queries = this.queries;
    let read = null;
    if (queries) {
      // the timestamps resolved into a buffer and read back after the work (each pass's end - begin, in ns)
      const bytes = 16 * queries.phases.length;
      const resolved = this.device.createBuffer({ size: bytes, usage: QUERY_RESOLVE | COPY_SRC });
      read = this.device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
      this.encoder.resolveQuerySet(queries.set, 0, 2 * queries.phases.length, resolved, 0);
      this.encoder.copyBufferToBuffer(resolved, 0, read, 0, bytes);
      this.transient.push(resolved);
    }
    this.device.queue.submit([this.encoder.finish()]);
    this.encoder = null;
    this.queries = null;
    this.timeHost('encode', submitting);
    if (read) {
      const done = read.mapAsync(1 /* GPUMapMode.READ */).then(() => {
        const ns = new BigInt64Array(read.getMappedRange());
        queries.phases.forEach((name, k) => {
          this.timings[name] = (this.timings[name] ?? 0) + Math.max(0, Number(ns[2 * k + 1] - ns[2 * k])) / 1e6;
        });
        read.unmap();
      }).finally(() => {
        read.destroy();
        queries.set.destroy();
      });
      done.catch(() => {}); // awaited by readResult; a lost device fails that read instead
      this.reads.push(done);
    }
  }

  /** Time a host-side step (the uploads, the read back) into the timings. */
  timeHost(name, started) {
    if (this.timings) this.timings[name] = (this.timings[name] ?? 0) + (performance.now() - started);
  }

  /** Clear the status word (no bad point yet: all ones, atomicMin lowers it). */
  start() {
    this.device.queue.writeBuffer(this.buffer('status'), 0, new Uint32Array([0xffffffff, 0, 0, 0]));
  }

  /** Upload one chunk's points (count from input index first) and convert them: `points` and `skip` hold them. */
  async convert(pointBytes, first, count, target = { points: this.buffer('points'), skip: this.buffer('skip') }) {
    const started = performance.now();
    // each coordinate (each component in F_p2) padded to whole words on its own
    const { degree, componentBytes, componentWords } = this.gpu;
    const words = toWords(pointBytes, 2 * degree * count, componentBytes, componentWords, 2 * degree * first);
    await this.upload('stagePoints', this.buffer('input'), words);
    this.timeHost('upload', started);
    await this.phase('convert', () => {
      // (with GLV each phi(P) too, at count + i)
      const glv = this.plan.glv ? 1 : 0;
      this.dispatch('convertPoints', { count, base: first, glv, images: count }, [this.buffer('input'), target.points, target.skip, this.buffer('status')], count);
    });
    // the points' copy and conversion start while the host fills the scalars' staging buffer
    this.submit();
  }

  /**
   * The phases after conversion for one chunk of `count` points (in `points` / `skip`), scalars first..first+count
   * of scalarBytes: digits, sort, accumulate, reduce, and the window sums added to the earlier chunks' in `result`.
   * With GLV the digits are those of the scalars' halves, over the points P and phi(P) (convert wrote both; images:
   * the points converted into `points`, where phi(P_0) is, which prepared bases may hold more of than count).
   */
  async sum(scalarBytes, first, count, isFirst, points = this.buffer('points'), skip = this.buffer('skip'), images = count) {
    const { c, K, L, segment, groupSize, groups, run, levels, glv } = this.plan;
    const started = performance.now();
    const words = toWords(scalarBytes, count, this.gpu.scalarBytes, this.gpu.scalarWords, first);
    await this.upload('stageScalars', this.buffer('scalars'), words);
    this.timeHost('upload', started);
    const shape = { c, windows: K, buckets: L, segment, groupSize, groups };
    const counts = this.buffer('scan0');
    const cursors = this.buffer('cursors');
    // the digits' source and their count: the scalars, or with GLV the 2 count halves
    const digits = glv ? { ...shape, count: 2 * count, points: count, images, glv: 1 } : { ...shape, count };
    const source = glv ? this.buffer('halves') : this.buffer('scalars');
    await this.phase('digits', () => {
      if (glv) this.dispatch(GLV_ENTRY_POINT, { count }, [this.buffer('scalars'), source], count);
      this.encoder.clearBuffer(counts);
      this.dispatch('countDigits', digits, [source, skip, counts], digits.count);
    });
    await this.phase('sort', () => {
      // exclusive prefix sum of the K L + 1 counts, level by level, then each level's block offsets added back
      const top = levels.length - 2;
      for (let i = 0; i <= top; i++) {
        this.dispatch('scanBlocks', { count: levels[i] }, [this.buffer(`scan${i}`), this.buffer(`scan${i + 1}`)], levels[i + 1] * SCAN_BLOCK, SCAN_BLOCK);
      }
      for (let i = top - 1; i >= 0; i--) {
        this.dispatch('addBlockOffsets', { count: levels[i] }, [this.buffer(`scan${i}`), this.buffer(`scan${i + 1}`)], levels[i], SCAN_BLOCK);
      }
      this.encoder.clearBuffer(cursors);
      this.dispatch('scatterDigits', digits, [source, skip, cursors, counts, this.buffer('entries')], digits.count);
    });
    await this.phase('accumulate', () => {
      const segments = ceilDiv(digits.count * K, segment);
      this.dispatch('accumulate', shape, [counts, this.buffer('entries'), points, this.buffer('buckets'), this.buffer('parts')], segments);
      this.dispatch('sumPoints', { ...shape, mode: SUM_MODES.joinSegments }, [counts, this.buffer('parts'), this.buffer('buckets')], K * L);
    });
    await this.phase('reduce', () => {
      this.dispatch('sumPoints', { ...shape, mode: SUM_MODES.reduceGroups }, [counts, this.buffer('buckets'), this.buffer('sumsA')], K * groups);
      let [from, to] = ['sumsA', 'sumsB'];
      for (let runIn = groups; runIn > 1;) {
        const runOut = ceilDiv(runIn, run);
        this.dispatch('sumPoints', { windows: K, runIn, runOut, run, mode: SUM_MODES.sumRuns }, [counts, this.buffer(from), this.buffer(to)], K * runOut);
        runIn = runOut;
        [from, to] = [to, from];
      }
      this.windowSums = from;
    });
    await this.phase('combine', () => {
      this.dispatch('sumPoints', { windows: K, first: isFirst ? 1 : 0, mode: SUM_MODES.addWindows }, [counts, this.buffer(this.windowSums), this.buffer('result')], K);
    });
  }

  /**
   * sum_k 2^(c k) W_k of the window sums in `result` by Horner on one GPU thread, into `sumsA` (free after the
   * last chunk): for window sums the host cannot take (see src/gpu/index.js).
   */
  async combineOnGpu() {
    const { c, K } = this.plan;
    await this.phase('combine', () => {
      this.dispatch('sumPoints', { c, windows: K, first: 1, mode: SUM_MODES.combine }, [this.buffer('scan0'), this.buffer('result'), this.buffer('sumsA')], 1);
    });
  }

  /**
   * Submit what is left, read `points` points of buffer `name` and the status back: { coords: Uint32Array, status }.
   */
  async readResult(name = 'result', points = this.plan.K) {
    const PW = pointWords(this.gpu) * points;
    const read = this.device.createBuffer({ size: (PW + 4) * 4, usage: MAP_READ | COPY_DST });
    try {
      this.encoder ??= this.device.createCommandEncoder();
      if (PW) this.encoder.copyBufferToBuffer(this.buffer(name), 0, read, 0, PW * 4);
      this.encoder.copyBufferToBuffer(this.buffer('status'), 0, read, PW * 4, 16);
      this.submit();
      if (this.timings) {
        // with timings: the host's wait for the GPU's work apart from the read back itself
        const waiting = performance.now();
        await this.device.queue.onSubmittedWorkDone();
        this.timeHost('wait', waiting);
      }
      const started = performance.now();
      await read.mapAsync(1 /* GPUMapMode.READ */);
      const words = new Uint32Array(read.getMappedRange().slice(0));
      read.unmap();
      this.timeHost('download', started);
      await Promise.all(this.reads);
      return { coords: words.subarray(0, PW), status: words[PW] };
    } finally {
      read.destroy();
      this.release();
    }
  }

  /** Destroy the uniform and query buffers of the passes so far (after use, or when a call fails midway). */
  release() {
    for (const b of this.transient) b.destroy();
    this.transient = [];
  }
}
