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
      const made = await instantiate(module, { memory });
      const heap = new Heap(memory, made.exports.fp_heapBase.value);
      // Below every MSM's mark, for the pool's life: one scratch stack per thread and the sync word.
      const stacks = Array.from({ length: this.count }, () => heap.alloc(STACK_BYTES, 16) + STACK_BYTES);
      const syncWord = heap.alloc(8);
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
    let run = this.#queue.then(() => this.#exclusive(pointBytes, scalarBytes, n, options, formats?.point));
    if (formats) run = run.then((out) => resultFromNative(this.#curve, formats, out, options.timings));
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

  async #exclusive(pointBytes, scalarBytes, n, options, pointFormat) {
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
      if (!this.sharedMemory) return this.#msmMessages(pointBytes, scalarBytes, n, options, progress, pointFormat);
      if (pointFormat) pointBytes = await this.#decodePoints(pointBytes, pointFormat, n, options.timings);
      return this.#msmShared(pointBytes, scalarBytes, n, options, progress);
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
      if (this.#shared) this.#shared.instance.heap.release(mark);
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
    setInfinity(ctx.ex, memory, P, io.infinity);
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
    // Equal shares of the nonzero digits (small or zero scalars leave windows nearly empty).
    const cuts = weightedCuts(shape, T, segments.flatMap((s) => s ?? []));
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
    if (options.timings) Object.assign(options.timings, { window: shape.c, windows: shape.K, threads: T });
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
