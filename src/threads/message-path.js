// The pool's message path (any page): every thread has an instance and a memory of its own. An MSM splits the
// points and scalars in T slices, each copied once (into the buffers of earlier slices, which the threads send back)
// and transferred to its thread, which runs a whole MSM on it (chunked within its share of maxMemory,
// src/msm/chunked.js); the pool adds the T results. A stream sends every
// batch to the threads in T parts, each added to a ChunkedMsm that lives on its thread until the stream ends.
// Prepared bases: each thread keeps a slice (in an instance of its own), rebuilt from a copy the pool keeps when
// the thread is replaced. release() replaces the threads whose memory grew: a stopped worker frees it all.

import { budgetError, equalShares } from '../msm/plan.js';
import { MEMORY_LIMIT } from '../runtime/heap.js';
import { engineMemory } from '#threads-host';
import { defaultWorkingSet } from './working-set.js';
import { copyBytes, neutralBytes, sumPartials } from '../msm/bytes.js';
import { FreeBuffers } from '../msm/buffers.js';
import { tableLayout } from '../msm/prepared.js';
import { phaseTimer } from '../msm/index.js';
import { RESIDENT_BYTES } from '../instance.js';

/** What a thread's memories may hold without counting as grown: a few pages past their start. */
const GROWN_BYTES = 2 ** 20;
/** Slices up to this many points go to a thread whole (one round); larger inputs in batches of BATCH_POINTS per thread. */
const SLICE_POINTS = 2 ** 18;
const BATCH_POINTS = 2 ** 16;

export class MessagePath {
  #curve;
  #workers = null;
  #nextStream = 1;
  #states = new Set(); // prepared bases with slices on the threads
  // the slices' buffers, sent back by the threads once summed or copied (giveBack): the next call's slices go in them
  // (a new array adds to the peak until a collection, and in Chromium's renderer after it: Groth16 at 2^18, 20 MiB).
  // Other work's arrays (runTasks: the NTT's blocks) the threads let go of.
  #spares;

  constructor(curve, count) {
    this.#curve = curve;
    this.count = count;
    this.#spares = new FreeBuffers(4 * count);
  }

  async start() {}

  /** The pool is closed: its spare buffers go now (a closed pool's would wait for a collection). */
  drop() {
    this.#spares.clear();
  }

  attach(workers) {
    this.#workers = workers;
    workers.onSpent = (buffers) => buffers.forEach((buffer) => this.#spares.put(buffer));
  }

  /** A copy of bytes[start, end) to send to a thread, in a spare buffer where one holds it. */
  #slice(bytes, start, end) {
    const out = this.#spares.take(end - start);
    out.set(bytes.subarray(start, end));
    return out;
  }

  initFor() {
    return { type: 'init', module: this.#curve.module, params: this.#curve.params };
  }

  /** The threads' own memories (a stopped thread's went with it). */
  memoryBytes() {
    return this.#workers.memoryBytes();
  }

  /** What a call's maxMemory bounds (maxMemory / T a thread): the threads' memories. */
  budgetBytes() {
    return this.memoryBytes();
  }

  /** Bytes a release would give back: what the threads' memories hold past their start, less RESIDENT_BYTES unless `all`. */
  releasable({ all = false } = {}) {
    const grown = this.#workers.list.reduce((sum, thread) => sum + Math.max(0, thread.memoryBytes - GROWN_BYTES), 0);
    return grown + this.#spares.bytes - (all ? 0 : RESIDENT_BYTES);
  }

  /**
   * Give back what the threads' memories grew: a thread that grew is replaced (a stopped worker frees its memory at
   * once), or when it holds slices of prepared bases, moved to a fresh instance (its old memory freed at the thread's
   * next collection) so the slices stay.
   */
  async release() {
    this.#spares.clear();
    const threads = this.#workers.list;
    const holds = (t) => [...this.#states].some((state) => state.holders[t] === threads[t]);
    const grown = threads.map((_, t) => t).filter((t) => threads[t].memoryBytes > GROWN_BYTES);
    await Promise.allSettled(grown.filter(holds).map((t) => threads[t].run('trim', {})));
    await this.#workers.stop(grown.filter((t) => !holds(t)));
    await this.#workers.ready();
  }

  /**
   * A thread's "budget too small" for its share (maxMemory / T) as the pool's: T times the least of a thread is the
   * least budget that works for the pool.
   */
  static #poolBudgetError(e, options, T) {
    return e?.need === undefined ? e : budgetError(options.maxMemory, T * e.need, options.window);
  }

  /**
   * maxMemory (or the default working set for T threads, working-set.js) split over the threads that take part
   * (each has a memory of its own, of 4 GiB at most).
   */
  #threadOptions(options, T, n) {
    const workingSet = Math.floor(defaultWorkingSet(T, engineMemory(), T * MEMORY_LIMIT) / T);
    const out = { window: options.window, checkSubgroup: !!options.checkSubgroup, windowLimitPoints: n, workingSet };
    if (options.maxMemory !== undefined) out.maxMemory = Math.floor(options.maxMemory / T);
    return out;
  }

  /**
   * Each thread decodes (when `pointFormat` is given) and sums its own slice: one round of messages. A large input
   * goes to the threads a batch at a time instead (chunks()), so no thread's slice is ever copied whole. pointBytes
   * may be parts given up by the caller (MsmPool.msmParts, at most one a thread): each is a thread's slice as it is.
   */
  async msm(pointBytes, scalarBytes, n, options, progress, pointFormat) {
    const curve = this.#curve;
    const parts = Array.isArray(pointBytes) ? pointBytes.filter((part) => part.length > 0) : null;
    const T = parts ? parts.length : Math.min(this.count, n);
    const PB = pointFormat ? pointFormat.size : curve.pointBytes;
    const S = curve.scalarBytes;
    const phase = phaseTimer(options.timings);
    if (T === 0) return neutralBytes(curve.params); // the neutral element, native
    if (!parts && n > T * SLICE_POINTS) {
      const sink = this.chunks(n, options, progress, pointFormat);
      try {
        const batch = T * BATCH_POINTS;
        for (let first = 0; first < n; first += batch) {
          const end = Math.min(n, first + batch);
          await sink.append(pointBytes.subarray(first * PB, end * PB), scalarBytes.subarray(first * S, end * S), end - first, first);
          progress((0.99 * end) / n);
        }
        return await sink.finish();
      } catch (e) {
        await sink.abandon();
        throw e;
      }
    }
    let at = 0;
    const ranges = parts ? parts.map((part) => [at, (at += part.length / PB)]) : equalShares(n, T);
    const fractions = new Array(T).fill(0);
    const threadOptions = this.#threadOptions(options, T, n);
    const results = await this.#workers.runAll(
      'msm',
      (t) => {
        if (t >= T) return null;
        const [first, end] = ranges[t];
        // Copies of the slices (or the caller's parts), transferred; their buffers come back with the result (spares)
        const slicePoints = parts ? parts[t] : this.#slice(pointBytes, first * PB, end * PB);
        const sliceScalars = this.#slice(scalarBytes, first * S, end * S);
        return {
          args: { pointBytes: slicePoints, scalarBytes: sliceScalars, n: end - first, options: threadOptions, format: pointFormat?.name, timed: !!options.timings },
          transfer: [slicePoints.buffer, sliceScalars.buffer],
          giveBack: true,
        };
      },
      {
        offsetOf: (t) => ranges[t]?.[0] ?? 0,
        onProgress: (t, fraction) => {
          fractions[t] = fraction * (ranges[t][1] - ranges[t][0]);
          progress((0.99 * fractions.reduce((a, b) => a + b, 0)) / n);
        },
      },
    ).catch((e) => {
      throw MessagePath.#poolBudgetError(e, options, T);
    });
    phase('slices');
    const out = sumPartials(curve, results.filter(Boolean));
    phase('combine');
    if (options.timings) options.timings.threads = T;
    return out;
  }

  /**
   * An MSM over batches added one after another (a stream, or msm's large input; n: the points to come, or
   * Infinity): a ChunkedMsm on every thread, each batch split in T parts. options: { window, maxMemory,
   * checkSubgroup, timings }; pointFormat: points are decoded on the threads.
   */
  chunks(n, options, progress, pointFormat) {
    const id = this.#nextStream++;
    const T = this.count;
    const workers = this.#workers;
    const curve = this.#curve;
    const PB = pointFormat ? pointFormat.size : curve.pointBytes;
    const S = curve.scalarBytes;
    const threadOptions = this.#threadOptions(options, T, n);
    const slice = (bytes, start, end) => this.#slice(bytes, start, end);
    // each thread plans for its share when the length is known, else as a stream
    const points = Number.isFinite(n) ? Math.ceil(n / T) : Infinity;
    let begun = null;
    const begin = () => (begun ??= workers.runAll('streamBegin', () => ({ args: { id, options: threadOptions, format: pointFormat?.name, points } })).catch((e) => {
      throw MessagePath.#poolBudgetError(e, options, T);
    }));
    return {
      room: Infinity,
      async append(pointBytes, scalarBytes, count, first) {
        await begin();
        const ranges = equalShares(count, T);
        await workers.runAll(
          'streamAdd',
          (t) => {
            const [a, b] = ranges[t];
            if (a === b) return null;
            const points = slice(pointBytes, a * PB, b * PB);
            const scalars = slice(scalarBytes, a * S, b * S);
            return { args: { id, pointBytes: points, scalarBytes: scalars, count: b - a, first: first + a }, transfer: [points.buffer, scalars.buffer], giveBack: true };
          },
        );
      },
      async finish() {
        await begin();
        const results = await workers.runAll('streamFinish', () => ({ args: { id } }));
        const out = sumPartials(curve, results.filter(Boolean));
        if (options.timings) options.timings.threads = T;
        progress(1);
        return out;
      },
      /** The stream failed: each thread that began it frees its share (else its heap stays above every later plan). */
      async abandon() {
        if (begun === null) return;
        await Promise.allSettled(workers.list.map((thread) => (thread.dead ? null : thread.run('streamFree', { id }))));
      },
    };
  }

  /** Prepared bases: a slice of the bases to each thread in `which` (all at first; replaced threads later). */
  async keepBases(state, pointBytes, which = null) {
    const P = this.#curve.params;
    if (!state.ranges) {
      const T = Math.min(this.count, state.N);
      const PB = state.formats?.point ? state.formats.point.size : 2 * P.field.bytes;
      state.ranges = equalShares(state.N, T);
      // kept to rebuild a slice on a thread that replaces a dead one
      state.slices = state.ranges.map(([first, last]) => copyBytes(pointBytes, first * PB, last * PB));
      state.holders = [];
      state.layout = tableLayout(P, state.N, state.precompute);
    }
    const asked = (t) => t < state.ranges.length && (!which || which.includes(t));
    try {
      await this.#workers.runAll(
        'keepBases',
        (t) => {
          if (!asked(t)) return null;
          const bytes = this.#slice(state.slices[t], 0, state.slices[t].length);
          const [first, last] = state.ranges[t];
          // every slice with the window of the whole table (the one precomputeWindow reports)
          const precompute = state.precompute && { window: state.layout.c };
          const args = { id: state.id, pointBytes: bytes, n: last - first, checkSubgroup: state.checkSubgroup, precompute, format: state.formats?.point?.name };
          return { args, transfer: [bytes.buffer], giveBack: true };
        },
        { offsetOf: (t) => state.ranges[t]?.[0] ?? 0 },
      );
    } catch (e) {
      // a slice failed (a bad point): the ones this call made go too, else they stay on their threads, unreachable
      const threads = this.#workers.list;
      await Promise.allSettled(threads.map((thread, t) => (asked(t) && !thread.dead ? thread.run('freeBases', { id: state.id }) : null)));
      throw e;
    }
    state.ranges.forEach((_, t) => {
      if (!which || which.includes(t)) state.holders[t] = this.#workers.list[t];
    });
    this.#states.add(state);
  }

  /** Prepared bases: each thread sums the prefix of its slice; threads that replaced others get their slice first. */
  async preparedMsm(state, scalarBytes, k, options, progress) {
    const phase = phaseTimer(options.timings);
    const threads = this.#workers.list;
    const stale = state.ranges.map((_, t) => t).filter((t) => state.holders[t] !== threads[t]);
    if (stale.length) await this.keepBases(state, null, stale);
    const S = this.#curve.scalarBytes;
    const counts = state.ranges.map(([first, last]) => Math.max(0, Math.min(k, last) - first));
    const fractions = new Array(counts.length).fill(0);
    // a forced window is allowed or refused for the whole MSM's k, not each thread's slice of it
    const threadOptions = options.window === undefined ? {} : { window: options.window, windowLimitPoints: k };
    const results = await this.#workers.runAll(
      'preparedMsm',
      (t) => {
        if (!counts[t]) return null;
        const first = state.ranges[t][0];
        const slice = this.#slice(scalarBytes, first * S, (first + counts[t]) * S);
        return { args: { id: state.id, scalarBytes: slice, k: counts[t], options: threadOptions }, transfer: [slice.buffer], giveBack: true };
      },
      {
        onProgress: (t, fraction) => {
          fractions[t] = fraction * counts[t];
          progress((0.99 * fractions.reduce((a, b) => a + b, 0)) / Math.max(1, k));
        },
      },
    );
    phase('slices');
    const out = sumPartials(this.#curve, results.filter(Boolean));
    phase('combine');
    if (options.timings) options.timings.threads = counts.filter(Boolean).length;
    return out;
  }

  /** Free the threads' slices of prepared bases (threads replaced since hold none). */
  async freeBases(state) {
    this.#states.delete(state);
    await this.#workers.ready().catch(() => {});
    const threads = this.#workers.list;
    await Promise.allSettled(state.ranges.map((_, t) => (state.holders[t] === threads[t] ? threads[t].run('freeBases', { id: state.id }) : null)));
  }
}
