// A pool of worker threads that runs one curve's MSM, asynchronously, on every core. Two paths, one API:
//
// - shared memory (Node; browsers when crossOriginIsolated): one shared WebAssembly.Memory, an instance of
//   the curve's module on every thread and one on this thread. The inputs are written once; the threads
//   check and convert the points and compute the digits (prepare, 1/T of the points each), then each runs a
//   share of the (window, pair) items with the same number of nonzero digits and reduces its buckets
//   (src/msm/plan.js); this thread adds the partial sums.
// - messages (any page): every thread has an instance and a memory of its own. The points and scalars are
//   split in T slices, each sent (transferred) to one thread, which runs a whole MSM on it; this thread adds
//   the T results.
//
// Points in another encoding (src/codecs.js) are decoded by the threads first, a slice each.
// Prepared bases (prepareBases): shared memory keeps one table in the pool's memory, built and read by all
// threads; the message path keeps a slice on each thread (rebuilt from a kept copy when a thread is replaced).
// One MSM runs at a time; calls queue. This thread never blocks (no Atomics.wait): it awaits messages.
// An error in a thread rejects that call and the pool stays usable; a thread that dies is replaced before
// the next call; an AbortSignal ends the call at once (its threads are stopped and replaced).

import { defaultThreadCount, canShareMemory, startWorker } from '#threads-host';
import { instantiate, sharedMemory, sharedMemoryModuleBytes } from '../runtime/loader.js';
import { Heap } from '../runtime/heap.js';
import { equalShares, msmShape, splitPieces, weightedCuts } from '../msm/plan.js';
import { allocInputs, allocLane, combineWindows, lanePartials, phaseTimer, setInfinity } from '../msm/index.js';
import { checkMsmOptions, inputError, pointToBytes, subgroupScratchBytes, sumPointBytes } from '../msm/bytes.js';
import { checkedScalars, noFormatOptions, resolveFormatOptions, resultFromNative } from '../codecs.js';
import { allocPreparedInputs, buildScratchBytes, checkTableFits, preparedDigitsZero, preparedShape, tableLayout } from '../msm/prepared.js';
import { checkBasesOptions, checkPreparedScalars, countBases } from '../bases.js';

/** Each thread's scratch stack in the shared memory (the module's own stack is 16 KiB). */
const STACK_BYTES = 1 << 16;
const MAX_THREADS = 256;

function errorFromData(data, offset = 0) {
  if (data.argument && typeof data.index === 'number') return inputError(data.argument, data.index + offset, data.reason);
  const Type = { RangeError, TypeError }[data.name] ?? Error;
  const e = new Type(data.message);
  if (!(data.name in { RangeError: 1, TypeError: 1, Error: 1 })) e.name = data.name;
  return e;
}

function abortError(signal) {
  const reason = signal.reason;
  if (reason?.name === 'AbortError') return reason;
  const e = new DOMException('the MSM was aborted', 'AbortError');
  if (reason !== undefined) Object.defineProperty(e, 'cause', { value: reason });
  return e;
}

/** One worker: started, initialised, then asked to run one operation at a time. */
class Thread {
  #host; // promise of the host's worker handle
  #pending = null; // { resolve, reject, onProgress } of the operation running
  #initialised = null; // { resolve, reject } until the worker answers init
  #nextId = 1;

  constructor(init, label) {
    this.label = label;
    this.dead = false;
    this.#host = startWorker();
    this.ready = this.#start(init);
    this.ready.catch(() => {});
  }

  async #start(init) {
    const host = await this.#host;
    const done = new Promise((resolve, reject) => {
      this.#initialised = { resolve, reject };
    });
    host.listen(
      (message) => {
        if (message.type === 'ready') this.#initialised.resolve();
        else if (message.type === 'initFailed') {
          // a thread that cannot start is ended, and replaced before the next call
          this.#initialised.reject(errorFromData(message.error));
          this.terminate();
        }
        else if (message.type === 'progress') this.#pending?.onProgress?.(message.fraction);
        else if (message.type === 'done' || message.type === 'failed') {
          const pending = this.#pending;
          this.#pending = null;
          if (message.type === 'done') pending?.resolve(message.result);
          else pending?.reject(message.error);
        }
      },
      (error) => {
        this.#fail(`failed: ${error?.message ?? error}`);
        this.terminate(); // a browser worker that reported an error may still be running
      },
    );
    // Starting counts as busy: the process must not exit while a pool is being made.
    host.hold(true);
    host.post(init, []);
    try {
      await done;
    } finally {
      host.hold(false);
    }
  }

  /** The worker is gone (or going): whatever waits on it rejects. */
  #fail(what) {
    if (this.dead) return;
    this.dead = true;
    const message = `wasmsm thread ${this.label} ${what}`;
    this.#initialised?.reject(new Error(message));
    this.#pending?.reject({ name: 'Error', message });
    this.#pending = null;
  }

  /** Resolves with the operation's result; rejects with error data ({ name, message, ... }). */
  async run(op, args, { transfer = [], onProgress } = {}) {
    if (this.dead) throw { name: 'Error', message: `wasmsm thread ${this.label} is not running` };
    const host = await this.#host;
    try {
      host.hold(true);
      return await new Promise((resolve, reject) => {
        this.#pending = { resolve, reject, onProgress };
        host.post({ type: 'run', id: this.#nextId++, op, args }, transfer);
      });
    } finally {
      host.hold(false);
    }
  }

  /** Tests only: end the worker as a crash would (the failure path runs). */
  async crashForTesting() {
    (await this.#host).terminate();
  }

  async terminate() {
    this.#fail('was stopped');
    let host;
    try {
      host = await this.#host;
    } catch {
      return; // never started: nothing to stop
    }
    await host.terminate();
  }
}

/**
 * Start a pool for `curve`. options.count: threads (default: the machine's cores); options.sharedMemory:
 * 'auto' (shared where the page allows it), true (required: throws where it is not available) or false.
 */
export async function createPool(curve, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('threads options must be an object');
  const { count = defaultThreadCount(), sharedMemory: mode = 'auto' } = options;
  if (!Number.isInteger(count) || count < 1 || count > MAX_THREADS) {
    throw new RangeError(`count must be an integer in 1..${MAX_THREADS}, got ${count}`);
  }
  if (mode !== 'auto' && mode !== true && mode !== false) throw new TypeError(`sharedMemory must be 'auto', true or false, got ${mode}`);
  if (!curve.module || !curve.moduleBytes) {
    throw new TypeError('threads() needs a curve loaded by loadCurve, a curve subpath or curveLoader (it shares their compiled module)');
  }
  if (mode === true && !canShareMemory()) {
    throw new Error('sharedMemory: true needs SharedArrayBuffer: serve the page cross-origin isolated (COOP same-origin and COEP require-corp or credentialless)');
  }
  const pool = new MsmPool(curve, count, mode === 'auto' ? canShareMemory() : mode);
  await pool.start();
  return pool;
}

export class MsmPool {
  #curve;
  #threads = [];
  #queue = Promise.resolve();
  #closed = false;
  #shared = null; // shared path: { module, memory, instance, stacks, syncWord }
  #kept = []; // shared path: prepared bases' tables, [{ start, end, live }] in the order allocated
  #keptTop = 0; // shared path: the heap's top between calls (the end of the last live table)
  #nextBasesId = 1;

  constructor(curve, count, sharedMemory) {
    this.#curve = curve;
    /** Number of threads. */
    this.count = count;
    /** true: the shared-memory path; false: the message path. */
    this.sharedMemory = sharedMemory;
  }

  async start() {
    const curve = this.#curve;
    if (this.sharedMemory) {
      const module = await WebAssembly.compile(sharedMemoryModuleBytes(curve.moduleBytes));
      const memory = sharedMemory(curve.params.minPages);
      const made = await instantiate(module, { memory, group: curve.params.group });
      const heap = new Heap(memory, made.exports.fp_heapBase.value);
      // Below every MSM's mark, for the pool's life: one scratch stack per thread and the sync word.
      const stacks = Array.from({ length: this.count }, () => heap.alloc(STACK_BYTES, 16) + STACK_BYTES);
      const syncWord = heap.alloc(8);
      this.#keptTop = heap.mark();
      const instance = { exports: made.exports, memory, heap, params: curve.params };
      this.#shared = { module, memory, instance, stacks, syncWord };
    }
    this.#threads = Array.from({ length: this.count }, (_, t) => this.#startThread(t));
    try {
      await this.#ready();
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  #startThread(t) {
    const { params, module } = this.#curve;
    const init = this.#shared
      ? {
          type: 'init', module: this.#shared.module, params, memory: this.#shared.memory, stackTop: this.#shared.stacks[t],
          syncWord: this.#shared.syncWord, ownModule: module,
        }
      : { type: 'init', module, params };
    return new Thread(init, t);
  }

  /** Replace dead threads, then wait until every thread is ready. */
  async #ready() {
    this.#threads = this.#threads.map((thread, t) => (thread.dead ? this.#startThread(t) : thread));
    await Promise.all(this.#threads.map((thread) => thread.ready));
  }

  /**
   * sum_i scalars[i] * points[i] over the pool, same inputs and result as Curve.msmBytes. The inputs are read
   * when the call's turn comes: do not change them before the promise settles.
   * options: { window, checkSubgroup, timings, signal: AbortSignal, onProgress(fraction in [0, 1]),
   *   pointFormat, scalarFormat, resultFormat (as Curve.msmBytes: points in another format are decoded by the
   *   threads, scalars on this thread before the call queues; the result is converted back here) }
   */
  async msmBytes(pointBytes, scalarBytes, options) {
    options = checkMsmOptions(options);
    const P = this.#curve.params;
    const formats = resolveFormatOptions(P, options);
    // Scalars are converted and checked here (a byte shuffle); points in another format are decoded by the
    // threads, a slice each, when the call's turn comes (a square root per point for compressed formats).
    const checked = checkedScalars(P, formats, pointBytes, scalarBytes);
    const n = checked.n;
    scalarBytes = checked.scalarBytes;
    // The window is bounded by the whole input (the message path's threads see slices).
    if (options.window !== undefined) msmShape(P, n, options.window);
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal);
    const pointFormat = formats?.point;
    let run = this.#queue.then(() =>
      this.#exclusive(options, async (progress) => {
        if (!this.sharedMemory) return this.#msmMessages(pointBytes, scalarBytes, n, options, progress, pointFormat);
        if (pointFormat) pointBytes = await this.#decodePoints(pointBytes, pointFormat, n, options.timings);
        return this.#msmShared(pointBytes, scalarBytes, n, options, progress);
      }),
    );
    if (formats) run = run.then((out) => resultFromNative(this.#curve, formats, out, options.timings));
    return this.#enqueue(run, signal);
  }

  /** Make `run` the pool's last call; with a signal, the returned promise rejects at once on abort. */
  #enqueue(run, signal) {
    this.#queue = run.catch(() => {});
    if (!signal) return run;
    // A call still waiting for its turn rejects at once too (at its turn it stops before it starts).
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** The BigInt form, like Curve.msm: { x, y } points (or null) and bigint scalars; returns { x, y } or null. */
  async msm(points, scalars, options) {
    if (Array.isArray(points) && Array.isArray(scalars) && points.length !== scalars.length) {
      throw new RangeError(`points and scalars differ in length (${points.length} vs ${scalars.length})`);
    }
    const curve = this.#curve;
    if (options !== undefined) noFormatOptions(checkMsmOptions(options), 'msm');
    return curve.decodePoint(await this.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), options));
  }

  /** Run body(progress) when the pool is free: the signal, onProgress and memory rules every call shares. */
  async #exclusive(options, body) {
    if (this.#closed) throw new Error('the thread pool is closed');
    const { signal, onProgress } = options;
    if (signal?.aborted) throw abortError(signal);
    let onAbort;
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // A callback that throws must not crash a message handler: the MSM finishes, then rejects with its error.
    let callbackError = null;
    const progress = (fraction) => {
      if (!onProgress || callbackError) return;
      try {
        onProgress(Math.min(1, Math.max(0, fraction)));
      } catch (e) {
        callbackError = { error: e };
      }
    };
    const mark = this.#shared?.instance.heap.mark();
    const work = (async () => {
      await this.#ready();
      return body(progress);
    })();
    try {
      const result = await Promise.race([work, aborted]);
      progress(1);
      if (callbackError) throw callbackError.error;
      return result;
    } catch (e) {
      if (signal?.aborted) {
        work.catch(() => {});
        await Promise.all(this.#threads.map((thread) => thread.terminate()));
        // A browser ends a worker asynchronously: keep this call's memory until the replacements run, by which
        // time the old threads have stopped writing it.
        await this.#ready().catch(() => {});
      }
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // every call starts at #keptTop; one that prepared bases raised it
      if (this.#shared) this.#shared.instance.heap.release(Math.max(mark, this.#keptTop));
    }
  }

  /** Points in `format` to the native encoding, a slice per thread (each copied once and transferred). */
  async #decodePoints(bytes, format, n, timings) {
    const phase = phaseTimer(timings);
    const T = Math.min(this.count, n);
    const size = format.size;
    const native = 2 * this.#curve.params.field.bytes;
    const ranges = equalShares(n, T);
    const slices = await this.#runAll(
      'decode',
      (t) => {
        if (t >= T) return null;
        const slice = bytes.slice(ranges[t][0] * size, ranges[t][1] * size);
        return { args: { bytes: slice, format: format.name }, transfer: [slice.buffer] };
      },
      { offsetOf: (t) => ranges[t]?.[0] ?? 0 },
    );
    const out = new Uint8Array(n * native);
    for (let t = 0; t < T; t++) out.set(slices[t], ranges[t][0] * native);
    phase('decode');
    return out;
  }

  /** Every thread runs op(argsOf(t)); waits for all (no thread may still write memory that is freed), then throws the first error. */
  async #runAll(op, argsOf, { onProgress, offsetOf = () => 0 } = {}) {
    const outcomes = await Promise.allSettled(
      this.#threads.map((thread, t) => {
        const args = argsOf(t);
        if (!args) return null;
        return thread.run(op, args.args, { transfer: args.transfer, onProgress: onProgress && ((f) => onProgress(t, f)) });
      }),
    );
    const failed = outcomes.map((o, t) => [o, t]).filter(([o]) => o.status === 'rejected');
    if (failed.length) {
      // The lowest input index first, so the error names the first bad input.
      const errors = failed.map(([o, t]) => errorFromData(o.reason, offsetOf(t)));
      errors.sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
      throw errors[0];
    }
    return outcomes.map((o) => o.value);
  }

  /** Order this thread's reads after the threads' writes, and its writes before theirs (Atomics on one word). */
  #acquire() {
    const { memory, syncWord } = this.#shared;
    Atomics.load(new Int32Array(memory.buffer, syncWord, 1), 0);
  }

  #publish() {
    const { memory, syncWord } = this.#shared;
    Atomics.add(new Int32Array(memory.buffer, syncWord, 1), 0, 1);
  }

  async #msmShared(pointBytes, scalarBytes, n, options, progress) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const A = P.affineBytes;
    const phase = phaseTimer(options.timings);
    const shape = msmShape(P, n, options.window, T);
    const points = heap.alloc(2 * n * A + A, 64);
    const staging = heap.alloc(pointBytes.length);
    const scalars = heap.alloc(scalarBytes.length + 8);
    const io = allocInputs(heap, P, shape, { points, scalars });
    const jacs = options.checkSubgroup ? this.#threads.map(() => heap.alloc(subgroupScratchBytes(P), 64)) : [];
    // Views after the last allocation: a grown shared memory has a new, longer buffer.
    new Uint8Array(memory.buffer, staging, pointBytes.length).set(pointBytes);
    new Uint8Array(memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
    const ctx = { ex: instance.exports, memory, params: P };
    setInfinity(memory, P, io.infinity);
    this.#publish();
    phase('allocate');

    // prepare: points [first, first + count) per thread; with checkSubgroup it is most of the work.
    const prepareShare = options.checkSubgroup ? 0.8 : 0.1;
    const ranges = equalShares(n, T);
    const segments = await this.#runAll(
      'prepare',
      (t) => {
        const [first, end] = ranges[t];
        if (end === first) return null;
        return { args: { io, staging, first, count: end - first, checkSubgroup: !!options.checkSubgroup, jac: jacs[t] } };
      },
      { offsetOf: () => 0 },
    );
    this.#acquire();
    progress(prepareShare);
    phase('prepare');
    const out = await this.#lanes(io, shape, segments.flatMap((s) => s ?? []), progress, prepareShare, phase);
    if (options.timings) Object.assign(options.timings, { window: shape.c, windows: shape.K, threads: T });
    return out;
  }

  /**
   * Shared memory, after the digits: cut the items into equal shares of the nonzero digits (small or zero
   * scalars leave windows nearly empty), run a lane per thread, add the partial sums here. Returns the result's
   * encoding.
   */
  async #lanes(io, shape, segments, progress, prepareShare, phase) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const ctx = { ex: instance.exports, memory, params: P };
    const cuts = weightedCuts(shape, T, segments);
    const lanes = splitPieces(shape, T, cuts).map((pieces) => (pieces.length ? allocLane(heap, P, shape, pieces) : null));
    this.#publish();
    phase('allocate');

    // accumulate + reduce: each thread its lane; progress by items done.
    const total = shape.K * shape.m || 1;
    const laneItems = lanes.map((lane) => (lane ? lane.pieces.reduce((s, p) => s + p.count, 0) : 0));
    const laneDone = new Array(T).fill(0);
    await this.#runAll('lane', (t) => lanes[t] && { args: { io, lane: lanes[t] } }, {
      onProgress: (t, fraction) => {
        laneDone[t] = fraction * laneItems[t];
        progress(prepareShare + ((1 - prepareShare) * laneDone.reduce((a, b) => a + b, 0)) / total);
      },
    });
    phase('lanes');

    this.#acquire();
    const partials = lanes.flatMap((lane) => (lane ? lanePartials(P, lane) : []));
    const out = pointToBytes(instance, combineWindows(ctx, heap, io, partials));
    phase('combine');
    return out;
  }

  /** Each thread decodes (when `pointFormat` is given) and sums its own slice: one round of messages. */
  async #msmMessages(pointBytes, scalarBytes, n, options, progress, pointFormat) {
    const curve = this.#curve;
    const T = Math.min(this.count, n);
    const PB = pointFormat ? pointFormat.size : curve.pointBytes;
    const S = curve.scalarBytes;
    const phase = phaseTimer(options.timings);
    if (T === 0) return new Uint8Array(curve.pointBytes); // infinity, native
    const ranges = equalShares(n, T);
    const fractions = new Array(T).fill(0);
    const threadOptions = { window: options.window, checkSubgroup: !!options.checkSubgroup, windowLimitPoints: n };
    const results = await this.#runAll(
      'msm',
      (t) => {
        if (t >= T) return null;
        const [first, end] = ranges[t];
        // Copies of the slices, transferred: the pool keeps none of them.
        const slicePoints = pointBytes.slice(first * PB, end * PB);
        const sliceScalars = scalarBytes.slice(first * S, end * S);
        return {
          args: { pointBytes: slicePoints, scalarBytes: sliceScalars, n: end - first, options: threadOptions, format: pointFormat?.name },
          transfer: [slicePoints.buffer, sliceScalars.buffer],
        };
      },
      {
        offsetOf: (t) => ranges[t]?.[0] ?? 0,
        onProgress: (t, fraction) => {
          fractions[t] = fraction * (ranges[t][1] - ranges[t][0]);
          progress((0.99 * fractions.reduce((a, b) => a + b, 0)) / n);
        },
      },
    );
    phase('slices');
    const out = sumPointBytes(curve, results.filter(Boolean));
    phase('combine');
    if (options.timings) options.timings.threads = T;
    return out;
  }

  /**
   * Bases that serve many MSMs on this pool, checked and converted once (as Curve.prepareBases, same options).
   * Shared memory: one table in the pool's memory, built by all threads, read by all. Messages: each thread
   * keeps a slice (and rebuilds it if the thread is replaced). Resolves to a handle whose msmBytes(scalars),
   * msm(scalars) and free() are asynchronous and queue with the pool's other calls.
   */
  async prepareBases(pointBytes, options) {
    const P = this.#curve.params;
    const checked = checkBasesOptions(P, options);
    const N = countBases(P, checked.formats, pointBytes);
    const state = { id: this.#nextBasesId++, N, ...checked, freed: false, curve: this.#curve };
    const run = this.#queue.then(() =>
      this.#exclusive({}, () => (this.sharedMemory ? this.#keepShared(state, pointBytes) : this.#keepSlices(state, pointBytes))),
    );
    await this.#enqueue(run);
    return new PoolBases(state, {
      msmBytes: (scalarBytes, opts) => this.#preparedMsm(state, scalarBytes, opts),
      free: () => this.#freeBases(state),
    });
  }

  /** Shared memory: the table above every earlier one, the threads building a share of the bases each. */
  async #keepShared(state, pointBytes) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const layout = tableLayout(P, state.N, state.precompute);
    const ranges = equalShares(state.N, T);
    // the largest share (equalShares gives the first threads the smaller ones): each thread's scratch holds its batch
    const scratchBytes = buildScratchBytes(P, layout, Math.max(...ranges.map(([first, last]) => last - first)));
    // before any point is decoded: the N native points are staged above the table
    checkTableFits(layout, heap.mark() + state.N * 2 * P.field.bytes + T * scratchBytes, P);
    const native = state.formats?.point ? await this.#decodePoints(pointBytes, state.formats.point, state.N) : pointBytes;
    const start = heap.mark();
    const table = heap.alloc(Math.max(1, layout.bytes), 64);
    const end = heap.mark();
    const staging = heap.alloc(native.length);
    const scratch = ranges.map(() => heap.alloc(scratchBytes, 64));
    new Uint8Array(memory.buffer, staging, native.length).set(native);
    this.#publish();
    const PB = 2 * P.field.bytes;
    await this.#runAll('buildTable', (t) => {
      const [first, last] = ranges[t];
      if (last === first) return null;
      return { args: { layout, table, staging: staging + first * PB, first, count: last - first, checkSubgroup: state.checkSubgroup, scratch: scratch[t] } };
    });
    this.#acquire();
    state.layout = layout;
    state.shared = { table, region: { start, end, live: true } };
    this.#kept.push(state.shared.region);
    this.#keptTop = end;
  }

  /** Messages: a slice of the bases to each thread in `which` (all at first; replaced threads later). */
  async #keepSlices(state, pointBytes, which = null) {
    const P = this.#curve.params;
    if (!state.ranges) {
      const T = Math.min(this.count, state.N);
      const PB = state.formats?.point ? state.formats.point.size : 2 * P.field.bytes;
      state.ranges = equalShares(state.N, T);
      // kept to rebuild a slice on a thread that replaces a dead one
      state.slices = state.ranges.map(([first, last]) => pointBytes.slice(first * PB, last * PB));
      state.holders = [];
      state.layout = tableLayout(P, state.N, state.precompute);
    }
    await this.#runAll(
      'keepBases',
      (t) => {
        if (t >= state.ranges.length || (which && !which.includes(t))) return null;
        const bytes = state.slices[t].slice();
        const [first, last] = state.ranges[t];
        // every slice with the window of the whole table (the one precomputeWindow reports)
        const precompute = state.precompute && { window: state.layout.c };
        const args = { id: state.id, pointBytes: bytes, n: last - first, checkSubgroup: state.checkSubgroup, precompute, format: state.formats?.point?.name };
        return { args, transfer: [bytes.buffer] };
      },
      { offsetOf: (t) => state.ranges[t]?.[0] ?? 0 },
    );
    state.ranges.forEach((_, t) => {
      if (!which || which.includes(t)) state.holders[t] = this.#threads[t];
    });
  }

  async #preparedMsm(state, scalarBytes, options) {
    if (state.freed) throw new Error('these prepared bases were freed');
    options = checkMsmOptions(options);
    const P = this.#curve.params;
    const { k, scalarBytes: native, formats } = checkPreparedScalars(P, state.layout, scalarBytes, options);
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal);
    let run = this.#queue.then(() =>
      this.#exclusive(options, (progress) => {
        if (state.freed) throw new Error('these prepared bases were freed');
        return this.sharedMemory ? this.#preparedShared(state, native, k, options, progress) : this.#preparedSlices(state, native, k, options, progress);
      }),
    );
    if (formats) run = run.then((out) => resultFromNative(this.#curve, formats, out, options.timings));
    return this.#enqueue(run, signal);
  }

  /** Shared memory: the threads split the scalars for the digits, then the table's items by nonzero digits. */
  async #preparedShared(state, scalarBytes, k, options, progress) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const { layout } = state;
    const { table } = state.shared;
    const phase = phaseTimer(options.timings);
    const shape = preparedShape(P, layout, k, options.window);
    const scalars = heap.alloc(scalarBytes.length + 8);
    const io = allocPreparedInputs(heap, P, shape, { table, scalars });
    new Uint8Array(memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
    const ctx = { ex: instance.exports, memory, params: P };
    setInfinity(memory, P, io.infinity);
    preparedDigitsZero(ctx, io);
    this.#publish();
    phase('allocate');
    const ranges = equalShares(k, T);
    const segments = await this.#runAll('preparedDigits', (t) => {
      const [first, last] = ranges[t];
      return last === first ? null : { args: { io, layout, first, count: last - first } };
    });
    this.#acquire();
    phase('digits');
    const prepareShare = 0.05;
    progress(prepareShare);
    const out = await this.#lanes(io, shape, segments.flatMap((s) => s ?? []), progress, prepareShare, phase);
    if (options.timings) Object.assign(options.timings, { window: shape.c, windows: shape.K, flat: shape.flat, threads: T });
    return out;
  }

  /** Messages: each thread sums the prefix of its slice; threads that replaced dead ones get their slice first. */
  async #preparedSlices(state, scalarBytes, k, options, progress) {
    const phase = phaseTimer(options.timings);
    const stale = state.ranges.map((_, t) => t).filter((t) => state.holders[t] !== this.#threads[t]);
    if (stale.length) await this.#keepSlices(state, null, stale);
    const S = this.#curve.scalarBytes;
    const counts = state.ranges.map(([first, last]) => Math.max(0, Math.min(k, last) - first));
    const fractions = new Array(counts.length).fill(0);
    const threadOptions = options.window === undefined ? {} : { window: options.window };
    const results = await this.#runAll(
      'preparedMsm',
      (t) => {
        if (!counts[t]) return null;
        const first = state.ranges[t][0];
        const slice = scalarBytes.slice(first * S, (first + counts[t]) * S);
        return { args: { id: state.id, scalarBytes: slice, k: counts[t], options: threadOptions }, transfer: [slice.buffer] };
      },
      {
        onProgress: (t, fraction) => {
          fractions[t] = fraction * counts[t];
          progress((0.99 * fractions.reduce((a, b) => a + b, 0)) / Math.max(1, k));
        },
      },
    );
    phase('slices');
    const out = sumPointBytes(this.#curve, results.filter(Boolean));
    phase('combine');
    if (options.timings) options.timings.threads = counts.filter(Boolean).length;
    return out;
  }

  /** Free a table (shared: its memory is reused once the tables made after it are freed too) or the threads' slices. */
  #freeBases(state) {
    if (state.freed) return Promise.resolve();
    state.freed = true;
    const run = this.#queue.then(async () => {
      if (this.#closed) return;
      if (state.shared) {
        state.shared.region.live = false;
        while (this.#kept.length && !this.#kept.at(-1).live) this.#keptTop = this.#kept.pop().start;
        this.#shared.instance.heap.release(this.#keptTop);
        return;
      }
      await this.#ready().catch(() => {});
      await Promise.allSettled(state.ranges.map((_, t) => (state.holders[t] === this.#threads[t] ? this.#threads[t].run('freeBases', { id: state.id }) : null)));
    });
    return this.#enqueue(run);
  }

  /** Tests only: thread t dies as if it crashed. */
  killThreadForTesting(t) {
    this.#threads[t]?.crashForTesting();
  }

  /** Stop every thread; later calls reject. Resolves when the threads have ended. */
  async close() {
    this.#closed = true;
    await Promise.all(this.#threads.map((thread) => thread.terminate()));
  }
}

/** Prepared bases on a pool (MsmPool.prepareBases): asynchronous msmBytes, msm and free, queued with the pool's calls. */
class PoolBases {
  #state;
  #ops;

  constructor(state, ops) {
    this.#state = state;
    this.#ops = ops;
    /** Number of bases. */
    this.length = state.N;
    /** The precompute table's window c, or 0 without precompute. */
    this.precomputeWindow = state.layout.c;
    /** Wasm memory the table takes, in bytes (all threads together). */
    this.tableBytes = state.layout.bytes;
  }

  /** sum_{i < k} scalars[i] * bases[i] for k scalars (k <= length). options as Curve's prepared bases, plus signal and onProgress. */
  msmBytes(scalarBytes, options) {
    return this.#ops.msmBytes(scalarBytes, options);
  }

  /** The BigInt form: bigint scalars; resolves to { x, y } or null. */
  async msm(scalars, options) {
    if (options !== undefined) noFormatOptions(checkMsmOptions(options), 'msm');
    const curve = this.#state.curve;
    return curve.decodePoint(await this.msmBytes(curve.encodeScalars(scalars), options));
  }

  /** Give the table back (queued after calls already made); later calls reject. */
  free() {
    return this.#ops.free();
  }
}
