// A pool of worker threads that runs one curve's MSM, asynchronously, on every core. One API, two paths that
// move the same pieces (src/threads/shared-path.js: one shared WebAssembly.Memory; message-path.js: a memory
// per thread, inputs sent as slices). This file holds what both share: options, the queue (one MSM at a time;
// calls queue), abort and progress, streams, prepared-bases handles, and giving memory back.
// This thread never blocks (no Atomics.wait): it awaits messages. An error in a thread rejects that call and the
// pool stays usable; a thread that dies is replaced before the next call; an AbortSignal ends the call at once
// (its threads are stopped and replaced).

import { defaultThreadCount, canShareMemory } from '#threads-host';
import { Workers } from './thread.js';
import { SharedPath } from './shared-path.js';
import { MessagePath } from './message-path.js';
import { msmShape } from '../msm/plan.js';
import { checkAttached, checkMsmOptions, checkOptionNames, copyBytes } from '../msm/bytes.js';
import { checkedScalars, resultFromNative } from '../codecs.js';
import { noFormatOptions, resolveFormatOptions } from '../formats.js';
import { checkBasesOptions, checkPreparedScalars, countBases } from '../bases.js';
import { preparedShape } from '../msm/prepared.js';
import { abortError, checkPiece, checkStreamOptions, readStream } from '../stream.js';
import { RELEASE_AFTER_MS } from '../instance.js';
import { Timeline } from './timeline.js';

const MAX_THREADS = 256;

/** signal -> the callbacks of the calls queued with it: one listener a signal, however many calls wait on it. */
const abortWatchers = new WeakMap();

/** Call `callback` when `signal` aborts; returns what stops that (the signal's listener goes with its last callback). */
function onAbortOf(signal, callback) {
  let watch = abortWatchers.get(signal);
  if (!watch) {
    const callbacks = new Set();
    const listener = () => {
      abortWatchers.delete(signal);
      for (const f of callbacks) f();
    };
    watch = { callbacks, listener };
    abortWatchers.set(signal, watch);
    signal.addEventListener('abort', listener, { once: true });
  }
  watch.callbacks.add(callback);
  return () => {
    watch.callbacks.delete(callback);
    if (watch.callbacks.size === 0 && abortWatchers.get(signal) === watch) {
      abortWatchers.delete(signal);
      signal.removeEventListener('abort', watch.listener);
    }
  };
}

/** A pool call's options: those of the synchronous MSM but blockPoints (a testing knob the pool's lanes do not take). */
function poolOptions(options) {
  if (options?.blockPoints !== undefined) throw new TypeError('options.blockPoints (a testing knob of the synchronous MSM) does not apply to a thread pool');
  return options;
}

/**
 * Start a pool for `curve`. options.count: threads (default: the machine's cores); options.sharedMemory:
 * 'auto' (shared where the page allows it), true (required: throws where it is not available) or false;
 * options.releaseAfterMs: idle time after which memory calls grew is given back (default RELEASE_AFTER_MS;
 * Infinity: only at trim()).
 */
export async function createPool(curve, options = {}) {
  checkOptionNames(options, ['count', 'sharedMemory', 'releaseAfterMs'], 'threads options');
  const { count = defaultThreadCount(), sharedMemory: mode = 'auto', releaseAfterMs = RELEASE_AFTER_MS } = options;
  if (!Number.isInteger(count) || count < 1 || count > MAX_THREADS) {
    throw new RangeError(`count must be an integer in 1..${MAX_THREADS}, got ${typeof count === 'string' ? `the string '${count}'` : count}`);
  }
  if (typeof releaseAfterMs !== 'number' || !(releaseAfterMs >= 0) || (releaseAfterMs >= 2 ** 31 && releaseAfterMs !== Infinity)) {
    throw new RangeError(`releaseAfterMs must be milliseconds in 0..2^31-1, or Infinity (only at trim()), got ${releaseAfterMs}`);
  }
  if (mode !== 'auto' && mode !== true && mode !== false) throw new TypeError(`sharedMemory must be 'auto', true or false, got ${mode}`);
  if (!curve.module || !curve.moduleBytes) {
    throw new TypeError('threads() needs a curve loaded by loadCurve, a curve subpath or curveLoader (it shares their compiled module)');
  }
  if (mode === true && !canShareMemory()) {
    throw new Error('sharedMemory: true needs SharedArrayBuffer: serve the page cross-origin isolated (COOP same-origin and COEP require-corp or credentialless)');
  }
  const pool = new MsmPool(curve, count, mode === 'auto' ? canShareMemory() : mode, releaseAfterMs);
  await pool.start();
  return pool;
}

export class MsmPool {
  #curve;
  #path; // SharedPath or MessagePath
  #workers = null;
  #queue = Promise.resolve();
  #working = Promise.resolve(); // the steps of the call that has the threads (they may outlast its promise: close())
  #closed = false;
  #closing = new AbortController(); // close(): the call under way settles at once (a stream may wait on its source)
  #nextBasesId = 1;
  #releaseTimer = null;
  #releaseAfterMs;

  constructor(curve, count, sharedMemory, releaseAfterMs = RELEASE_AFTER_MS) {
    this.#curve = curve;
    this.#releaseAfterMs = releaseAfterMs;
    /** Number of threads. */
    this.count = count;
    /** true: the shared-memory path; false: the message path. */
    this.sharedMemory = sharedMemory;
    this.#path = sharedMemory ? new SharedPath(curve, count) : new MessagePath(curve, count);
  }

  async start() {
    await this.#path.start();
    this.#workers = new Workers(this.count, (t) => this.#path.initFor(t));
    this.#path.attach(this.#workers);
    try {
      await this.#workers.ready();
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /**
   * sum_i scalars[i] * points[i] over the pool, same inputs and result as Curve.msmBytes. The inputs are read
   * when the call's turn comes: do not change them before the promise settles.
   * options: { window, checkSubgroup, timings, maxMemory, signal: AbortSignal, onProgress(fraction in [0, 1]),
   *   pointFormat, scalarFormat, resultFormat (as Curve.msmBytes: points in another format are decoded by the
   *   threads, scalars on this thread before the call queues; the result is converted back here) }
   */
  async msmBytes(pointBytes, scalarBytes, options) {
    return this.#msmBytes(pointBytes, scalarBytes, options);
  }

  /**
   * msmBytes with the points in parts (Uint8Arrays, each a whole number of points) that the caller gives up: on the
   * message path each part goes to a thread of its own as it is, transferred (detached here), not copied, so the
   * points are in memory once (groth16Prove's H MSM: its zkey section read in one part a thread). Parts that share a
   * buffer, more parts than threads, or shared memory: msmBytes over the parts joined.
   */
  async msmParts(parts, scalarBytes, options) {
    const own = parts.every((part) => part.buffer instanceof ArrayBuffer) && new Set(parts.map((part) => part.buffer)).size === parts.length;
    if (!this.sharedMemory && parts.length <= this.count && own) return this.#msmBytes(parts, scalarBytes, options, true);
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    parts.reduce((at, part) => (joined.set(part, at), at + part.length), 0);
    return this.#msmBytes(joined, scalarBytes, options);
  }

  async #msmBytes(pointBytes, scalarBytes, options, parts = false) {
    options = poolOptions(checkMsmOptions(options, { async: true }));
    const P = this.#curve.params;
    const formats = resolveFormatOptions(P, options);
    // Scalars are converted and checked here (a byte shuffle); points in another format are decoded by the
    // threads, a slice each, when the call's turn comes (a square root per point for compressed formats).
    const checked = checkedScalars(P, formats, pointBytes, scalarBytes, { parts });
    const n = checked.n;
    scalarBytes = checked.scalarBytes;
    // The window is bounded by the whole input (the message path's threads see slices).
    if (options.window !== undefined) msmShape(P, n, options.window);
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal);
    const pointFormat = formats?.point;
    const path = this.#path;
    let run = this.#queue.then(() =>
      this.#exclusive(options, async (progress) => {
        // inputs transferred while the call waited for its turn: the library's error, not the engine's
        for (const [bytes, what] of [...(parts ? pointBytes : [pointBytes]).map((b) => [b, 'pointBytes']), [scalarBytes, 'scalarBytes']]) if (n > 0) checkAttached(bytes, what);
        if (!this.sharedMemory) return path.msm(pointBytes, scalarBytes, n, options, progress, pointFormat);
        // snarkjs points are read as they are by the threads' prepare; the other formats are decoded first
        if (pointFormat?.kind === 'snarkjs') return path.msmBytes(pointBytes, scalarBytes, n, options, progress, pointFormat);
        if (pointFormat) pointBytes = await path.decodePoints(pointBytes, pointFormat, n, options.timings, 0, false);
        return path.msmBytes(pointBytes, scalarBytes, n, options, progress);
      }),
    );
    if (formats) run = run.then((out) => resultFromNative(this.#curve, formats, out, options.timings));
    return this.#enqueue(run, signal);
  }

  /**
   * Work other than an MSM on the pool's threads, queued as an MSM is: each of `tasks` ({ args, transfer }, or a
   * function that makes it when a thread takes the task) runs the worker operation `op` (src/threads/worker.js:
   * 'frCosetBlock') on the next free thread. Resolves to the results in order. Used by groth16Prove for its NTTs.
   */
  async runTasks(op, tasks) {
    const run = this.#queue.then(() => this.#exclusive({}, () => this.#workers.runEach(op, tasks)));
    return this.#enqueue(run);
  }

  /** The BigInt form, like Curve.msm: { x, y } points (or null) and bigint scalars; returns { x, y } or null. */
  async msm(points, scalars, options) {
    if (Array.isArray(points) && Array.isArray(scalars) && points.length !== scalars.length) {
      throw new RangeError(`points and scalars differ in length (${points.length} vs ${scalars.length})`);
    }
    const curve = this.#curve;
    if (options !== undefined) noFormatOptions(poolOptions(checkMsmOptions(options, { async: true })), 'msm');
    return curve.decodePoint(await this.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), options));
  }

  /**
   * The MSM of a stream of { points, scalars } byte chunks of any size (as Curve.msmStream), on the pool's threads
   * in chunks that fit options.maxMemory; the pool is this call's until the stream ends. options: as msmBytes'
   * but onProgress (a stream has no known length). Resolves to the result in the result format.
   */
  async msmStream(source, options) {
    const P = this.#curve.params;
    const checked = checkStreamOptions(P, poolOptions(options));
    options = checked.options;
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal);
    const path = this.#path;
    const pointFormat = checked.formats?.point;
    let run = this.#queue.then(() =>
      this.#exclusive(options, async (progress) => {
        const sink = path.chunks(Infinity, options, progress, pointFormat);
        const read = { ...checked, signal, scalarLayout: checked.formats?.scalar, room: () => sink.room };
        try {
          await readStream(P, source, read, async (points, scalars, count, first) => {
            if (this.sharedMemory && pointFormat && pointFormat.kind !== 'snarkjs') points = await path.decodePoints(points, pointFormat, count, options.timings, first, false);
            await sink.append(points, scalars, count, first);
          });
          return await sink.finish();
        } catch (e) {
          // a bad point that came before (the shared path checks a chunk's points when it sums it)
          const earlier = e?.argument === 'points' ? null : sink.pendingPointError?.();
          await sink.abandon?.(); // the message path's threads hold the stream's shares
          throw earlier ?? e;
        }
      }),
    );
    if (checked.formats) run = run.then((out) => resultFromNative(this.#curve, checked.formats, out, options.timings));
    return this.#enqueue(run, signal);
  }

  /**
   * An accumulator on the pool for callers who make the chunks themselves: `await acc.add(points, scalars)` (pieces
   * of any size, as msmStream's chunks; copied, so the caller may reuse or transfer its arrays once add() returns;
   * resolves when the pool has taken the piece, which keeps a fast caller from queueing far ahead), then
   * `await acc.result()`. A piece that is not Uint8Arrays rejects at add() and ends the accumulator. The pool is the
   * accumulator's until result() or free(). options: as msmStream's.
   */
  msmAccumulator(options) {
    const chunks = [];
    let wake = null;
    let ended = false;
    const controller = new AbortController();
    const source = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          while (chunks.length === 0 && !ended) await new Promise((resolve) => (wake = resolve));
          if (chunks.length === 0) return { done: true };
          const { chunk, taken } = chunks.shift();
          if (chunk.error) throw chunk.error;
          taken();
          return { done: false, value: chunk };
        },
        return: async () => ({ done: true }),
      }),
    };
    // free() aborts the stream, as does the caller's own signal
    const own = checkStreamOptions(this.#curve.params, poolOptions(options)).options.signal;
    if (own?.aborted) controller.abort(own.reason);
    const onOwnAbort = () => controller.abort(own.reason);
    own?.addEventListener('abort', onOwnAbort, { once: true });
    const result = this.msmStream(source, { ...options, signal: controller.signal });
    result.catch(() => {});
    result.finally(() => own?.removeEventListener('abort', onOwnAbort)).catch(() => {}); // the caller's signal outlives it
    const push = (entry) => {
      chunks.push(entry);
      wake?.();
    };
    return {
      add: (points, scalars) => {
        if (ended) return Promise.reject(new Error('this accumulator is finished (result() or free() was called)'));
        try {
          checkPiece(points, scalars, 'add()');
        } catch (error) {
          // as the synchronous accumulator: the bad piece ends it, and result() rejects with the same error
          ended = true;
          push({ chunk: { error }, taken: () => {} });
          return Promise.reject(error);
        }
        if (points == null && scalars == null) return Promise.resolve(); // nothing to add, as the synchronous add()
        // copies: the pool reads a piece when the stream comes to it, and the caller's arrays are the caller's
        const chunk = { points: points && copyBytes(points), scalars: scalars && copyBytes(scalars) };
        const taken = new Promise((resolve, reject) => {
          push({ chunk, taken: resolve });
          result.catch(reject);
        });
        // a piece still queued when the accumulator ends rejects with result()'s error (or free()'s AbortError): that
        // is the caller's to see where it awaits add(), and no unhandled rejection where it does not (copied pieces
        // need no awaiting)
        taken.catch(() => {});
        return taken;
      },
      result: () => {
        ended = true;
        wake?.();
        return result;
      },
      free: () => {
        ended = true;
        controller.abort();
        wake?.();
        return result.then(() => {}, () => {});
      },
    };
  }

  /** Make `run` the pool's last call; with a signal, the returned promise rejects at once on abort. */
  #enqueue(run, signal) {
    this.#queue = run.catch(() => {});
    if (!signal) return run;
    // A call still waiting for its turn rejects at once too (at its turn it stops before it starts).
    return new Promise((resolve, reject) => {
      const unwatch = onAbortOf(signal, () => reject(abortError(signal)));
      run.then(resolve, reject).finally(unwatch);
    });
  }

  /** Run body(progress) when the pool is free: the signal, onProgress and memory rules every call shares. */
  async #exclusive(options, body) {
    if (this.#closed) throw new Error('the thread pool is closed');
    clearTimeout(this.#releaseTimer);
    const { signal, onProgress } = options;
    if (signal?.aborted) throw abortError(signal);
    let onAbort;
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    let onClose;
    const closed = new Promise((_, reject) => {
      onClose = () => reject(new Error('the thread pool is closed'));
      this.#closing.signal.addEventListener('abort', onClose, { once: true });
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
    // timings.perThread: every operation the threads run for this call, stamped (timeline.js)
    const timeline = options.timings ? new Timeline(this.count) : null;
    // an aborted call stops before each step: its body never starts on the threads the abort put in place
    const going = () => {
      if (signal?.aborted) throw abortError(signal);
    };
    const work = (async () => {
      await this.#workers.ready();
      going();
      this.#workers.timeline = timeline;
      // a budget below what the pool holds from earlier calls: give that back first, as a curve does
      const { maxMemory } = options;
      if (maxMemory !== undefined && this.#path.budgetBytes() > maxMemory && this.#path.releasable({ all: true }) > 0) {
        await this.#path.release({ all: true });
        going();
      }
      return body(progress);
    })();
    this.#working = work.catch(() => {});
    try {
      const result = await Promise.race([work, aborted, closed]);
      timeline?.finish(options.timings);
      progress(1);
      if (callbackError) throw callbackError.error;
      return result;
    } catch (e) {
      if (signal?.aborted) {
        await this.#workers.stop();
        // the aborted call's own steps settle (its threads are gone, its stream's reads reject on the signal) before
        // the next call starts: else it would go on over the next call's threads and memory
        await work.catch(() => {});
        // A browser ends a worker asynchronously: keep this call's memory until the replacements run, by which
        // time the old threads have stopped writing it.
        await this.#workers.ready().catch(() => {});
      }
      throw e;
    } finally {
      if (this.#workers.timeline === timeline) this.#workers.timeline = null;
      signal?.removeEventListener('abort', onAbort);
      this.#closing.signal.removeEventListener('abort', onClose);
      this.#path.endCall?.();
      this.#releaseLater();
    }
  }

  /** A call left memory the pool would not keep idle: give it back releaseAfterMs after the last call. */
  #releaseLater() {
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = null;
    if (this.#closed || this.#releaseAfterMs === Infinity || this.#path.releasable() <= 0) return;
    this.#releaseTimer = setTimeout(() => this.#release(false).catch(() => {}), this.#releaseAfterMs);
    this.#releaseTimer.unref?.(); // Node: a pending release never keeps the process alive
  }

  /**
   * Give back the Wasm memory calls grew beyond what the pool keeps (its prepared tables): shared memory moves to a
   * new memory with new threads; on the message path threads that grew are replaced (a replaced thread rebuilds its
   * slice of prepared bases at their next call). Runs by itself releaseAfterMs after a call that left more than
   * RESIDENT_BYTES. Queued after calls already made.
   */
  trim() {
    return this.#release(true);
  }

  /** Queue a release of what calls grew (all: everything beyond the kept tables; else what exceeds what a thread keeps). */
  #release(all) {
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = null;
    const run = this.#queue.then(async () => {
      if (this.#closed || this.#path.releasable({ all }) <= 0) return;
      await this.#workers.ready().catch(() => {});
      try {
        await this.#path.release({ all });
      } catch (e) {
        if (!this.#closed) throw e; // closed meanwhile: its threads are gone, and no new ones start
      }
    });
    return this.#enqueue(run);
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
    const state = { id: this.#nextBasesId++, N, ...checked, freed: false, released: false, curve: this.#curve };
    const run = this.#queue.then(() => this.#exclusive({}, () => this.#path.keepBases(state, pointBytes)));
    await this.#enqueue(run);
    return new PoolBases(state, {
      msmBytes: (scalarBytes, opts) => this.#preparedMsm(state, scalarBytes, opts),
      free: () => this.#freeBases(state),
    });
  }

  async #preparedMsm(state, scalarBytes, options) {
    if (state.freed) throw new Error('these prepared bases were freed'); // free() was called (its turn may be to come)
    options = poolOptions(checkMsmOptions(options, { async: true }));
    const P = this.#curve.params;
    const { k, scalarBytes: native, formats } = checkPreparedScalars(P, state.layout, scalarBytes, options);
    // a window the MSM of these k cannot take is refused here, on either path (the message path's threads see slices)
    if (options.window !== undefined) preparedShape(P, state.layout, k, options.window);
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal);
    let run = this.#queue.then(() =>
      this.#exclusive(options, (progress) => {
        if (state.released) throw new Error('these prepared bases were freed');
        return this.#path.preparedMsm(state, native, k, options, progress);
      }),
    );
    if (formats) run = run.then((out) => resultFromNative(this.#curve, formats, out, options.timings));
    return this.#enqueue(run, signal);
  }

  /** Free a table (shared: its memory is reused once the tables made after it are freed too) or the threads' slices. */
  #freeBases(state) {
    if (state.freed) return Promise.resolve();
    state.freed = true; // no call after this one; those made before it run first (the queue)
    const run = this.#queue.then(async () => {
      state.released = true;
      if (!this.#closed) await this.#path.freeBases(state);
    });
    return this.#enqueue(run);
  }

  /**
   * Bytes of Wasm memory the pool's MSMs hold now: the shared memory (prepared tables included) and the memories its
   * threads decoded points in, or the threads' own memories on the message path (their slices of prepared bases not
   * counted). trim() gives back what calls grew; after close(), 0 once the last call's steps have ended (the memories
   * go then).
   */
  get memoryBytes() {
    return this.#path.memoryBytes();
  }

  /** Tests only: thread t dies as if it crashed. */
  killThreadForTesting(t) {
    this.#workers.list[t]?.crashForTesting();
  }

  /** Stop every thread; later calls reject. Resolves when the threads have ended. */
  async close() {
    this.#closed = true;
    clearTimeout(this.#releaseTimer);
    this.#closing.abort(); // the call under way rejects now, those queued behind it at their turn
    // the shared memory goes once no call's steps run any more (a stream's may still wait on its source)
    Promise.all([this.#queue, this.#working]).then(() => this.#path?.drop?.());
    await this.#workers?.close();
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
    if (options !== undefined) noFormatOptions(poolOptions(checkMsmOptions(options, { async: true })), 'msm');
    const curve = this.#state.curve;
    return curve.decodePoint(await this.msmBytes(curve.encodeScalars(scalars), options));
  }

  /** Give the table back (queued after calls already made); later calls reject. */
  free() {
    return this.#ops.free();
  }
}
