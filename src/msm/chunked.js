// The MSM on one thread over input that comes a chunk at a time, in the memory its plan allows (plan.js).
// A ChunkedMsm owns what outlives a chunk: the chunk's input area (filled by append, points converted and
// checked as they come), then, from the first full chunk on, the digits area and a lane whose buckets carry
// every window's sums from chunk to chunk. finish() reduces and combines once; free() gives it all back.
// msmBytesOn (Curve.msmBytes, the pool's message path) is one ChunkedMsm fed the whole input.

import { allocInputs, allocLane, allocWork, chunkIO, FIRST_CHUNK_POINTS, growInputs, pairsOf, recordPointsFor, STAGING_POINTS } from './layout.js';
import { planMsm, singleThreadPieces, windowWithin } from './plan.js';
import { accumulateLane, combineWindows, lanePartials, phaseTimer, prepareRange, reducePieces, setInfinity } from './index.js';
import { apartFrom, convertPoints, neutralBytes, partialBytes, pointToBytes, scalarBitLength } from './bytes.js';
import { checkSubgroupRange } from './subgroup.js';

/** Heap bytes a ChunkedMsm's pointScale takes on top of its plan: K, and the alignment it moves. */
export const pointScaleBytes = (P) => P.E + 64;

export class ChunkedMsm {
  #instance;
  #ctx;
  #plan;
  #options;
  #phase;
  #mark;
  #inputs;
  #work = null;
  #lane = null;
  #filled = 0; // points in the chunk being filled
  #done = 0; // points summed in earlier chunks
  #scale = 0; // address of g_fromScaledBytes' K (pointScale), 0 for native points

  /**
   * @param instance { exports, memory, params, heap } (src/instance.js); the MSM allocates above heap.mark()
   * @param plan planMsm's plan; a plan for n = Infinity (a stream) chooses its window when the first chunk is summed
   * @param options { checkSubgroup, timings, onProgress (with total), total (points expected), blockPoints,
   *   pointScale (K of g_fromScaledBytes, for points given scaled: snarkjs' layout.scale; default native points),
   *   partial (finish gives partialBytes' form, null for the neutral element: a thread's share on the message path) }
   */
  constructor(instance, plan, { checkSubgroup = false, timings, onProgress, total = Infinity, blockPoints, pointScale, partial = false } = {}) {
    this.#instance = instance;
    this.#ctx = { ex: instance.exports, memory: instance.memory, params: instance.params };
    this.#plan = plan;
    this.#options = { checkSubgroup, timings, onProgress, total, blockPoints, partial };
    this.#phase = phaseTimer(timings);
    this.#mark = instance.heap.mark();
    try {
      if (pointScale !== undefined) instance.fp.writeLimbs((this.#scale = instance.fp.alloc()), pointScale);
      // a known length fills whole chunks; a stream's first chunk grows with what comes (growInputs)
      const C = Number.isFinite(plan.chunks) ? plan.chunkPoints : Math.min(plan.chunkPoints, FIRST_CHUNK_POINTS);
      this.#inputs = allocInputs(instance.heap, instance.params, C, this.#inputOptions(C));
    } catch (e) {
      // (memory refused to grow: the caller has no object to free, and a retry plans from this mark)
      instance.heap.release(this.#mark);
      throw e;
    }
  }

  #inputOptions = (capacity) => ({ stagingPoints: Math.min(STAGING_POINTS, capacity), subgroupScratch: this.#options.checkSubgroup ? 1 : 0 });

  /** Points the chunk being filled still takes. */
  get room() {
    return this.#plan.chunkPoints - this.#filled;
  }

  /**
   * Take `count` <= room points (native bytes: checked here, on the curve and, when asked, in the subgroup) and
   * their scalars (native bytes, already checked below r); `first` is the index of the first of them in the
   * whole input, for errors. A chunk that becomes full is summed. After a throw the object can only be freed.
   */
  append(pointBytes, scalarBytes, count, first) {
    const ctx = this.#ctx;
    const { memory, params: P } = ctx;
    const PB = 2 * P.field.bytes;
    const S = P.scalarBytes;
    if (count > this.room) throw new RangeError(`${count} points do not fit the ${this.room} left in this chunk`);
    this.#inputs = growInputs(this.#instance.heap, memory, P, this.#inputs, this.#filled + count, this.#plan.chunkPoints, this.#filled, this.#inputOptions);
    const { staging, stagingPoints, points, scalars, subgroup } = this.#inputs;
    for (let at = 0; at < count; at += stagingPoints) {
      const size = Math.min(stagingPoints, count - at);
      new Uint8Array(memory.buffer, staging, size * PB).set(pointBytes.subarray(at * PB, (at + size) * PB));
      const dst = points + (this.#filled + at) * P.affineBytes;
      convertPoints(ctx, dst, staging, size, first + at, this.#scale);
      if (this.#options.checkSubgroup) checkSubgroupRange(ctx, subgroup[0], dst, size, first + at);
    }
    new Uint8Array(memory.buffer, scalars + this.#filled * S, count * S).set(scalarBytes.subarray(0, count * S));
    this.#phase('convert');
    this.#filled += count;
    if (this.#filled === this.#plan.chunkPoints) this.#sumChunk(false);
  }

  /** The digits area and the lane, once: for a stream that ends inside its first chunk, with the window for what came. */
  #allocWork(last) {
    const { heap, params: P } = this.#instance;
    const count = this.#filled;
    let shape = this.#plan.shape;
    let capacity = this.#plan.chunkPoints;
    if (last) {
      capacity = count;
      if (!Number.isFinite(this.#plan.chunks)) shape = windowWithin(P, count, this.#plan);
    }
    this.#work = allocWork(heap, P, shape, capacity, { recordPoints: recordPointsFor(capacity) });
    const m = pairsOf(shape) * capacity;
    this.#lane = allocLane(heap, P, shape, singleThreadPieces({ K: shape.K, m }), { blockPoints: this.#options.blockPoints, maxPairs: m });
    setInfinity(this.#ctx.memory, P, this.#work.infinity);
    this.#phase('allocate');
  }

  /** prepare .. accumulate of the points in the chunk, into the lane's buckets. */
  #sumChunk(last) {
    const count = this.#filled;
    if (count === 0) return;
    if (!this.#lane) this.#allocWork(last && this.#done === 0);
    const ctx = this.#ctx;
    const io = chunkIO(ctx.params, this.#inputs, this.#work, count);
    prepareRange(ctx, io, 0, count, this.#phase);
    this.#lane.pieces = singleThreadPieces(io.shape);
    const { onProgress, total } = this.#options;
    const done = this.#done;
    const progress = onProgress && Number.isFinite(total)
      ? (finished, pieces) => onProgress((done + (count * finished) / pieces) / (total + 1))
      : undefined;
    accumulateLane(ctx, io, this.#lane, { phase: this.#phase, progress });
    this.#done += count;
    this.#filled = 0;
  }

  /**
   * Sums the last chunk, reduces and combines: the result in the msmBytes encoding (neutralBytes for the neutral
   * element), or with `partial` in partialBytes' (null for the neutral element).
   */
  finish() {
    this.#sumChunk(true);
    const { params: P } = this.#ctx;
    const { timings, onProgress, partial } = this.#options;
    let out;
    if (!this.#lane) out = partial ? null : neutralBytes(P);
    else {
      const io = { shape: this.#work.shape, infinity: this.#work.infinity };
      reducePieces(this.#ctx, io, this.#lane, this.#phase);
      const sum = combineWindows(this.#ctx, this.#instance.heap, io, lanePartials(P, this.#lane), { jacobian: partial });
      out = partial ? partialBytes(this.#instance, sum) : pointToBytes(this.#instance, sum);
      this.#phase('combine');
      if (timings) Object.assign(timings, { window: io.shape.c, windows: io.shape.K, bits: io.shape.bits });
    }
    if (timings) Object.assign(timings, { chunks: Math.ceil(this.#done / this.#plan.chunkPoints), chunkPoints: this.#plan.chunkPoints });
    onProgress?.(1);
    return out;
  }

  /** Give the memory back to the instance's heap. */
  free() {
    this.#instance.heap.release(this.#mark);
    this.#instance = null;
  }
}

/**
 * The MSM of checked native byte inputs (checkMsmInputs) on an instance ({ exports, memory, params, heap }),
 * planned for options.maxMemory (or the default working set) and for the largest scalar's bit length (plan.js
 * msmShape). Without maxMemory, an engine that will not grow the memory as far as the plan needs gets the MSM again
 * in chunks that fit the memory it did give.
 * options: { window, timings, checkSubgroup, onProgress, maxMemory, blockPoints, windowLimitPoints, workingSet,
 * pointScale (ChunkedMsm) }.
 */
export function msmBytesOn(instance, pointBytes, scalarBytes, n, options = {}) {
  // inputs that are views of this instance's memory: copied once, before any attempt overwrites or detaches them
  pointBytes = apartFrom(instance.memory, pointBytes);
  scalarBytes = apartFrom(instance.memory, scalarBytes);
  const scalarBits = scalarBitLength(scalarBytes, instance.params.scalarBytes, n);
  const planOptions = {
    window: options.window, maxMemory: options.maxMemory, checkSubgroup: !!options.checkSubgroup, blockPoints: options.blockPoints,
    windowLimitPoints: options.windowLimitPoints, workingSet: options.workingSet, base: instance.heap.mark(), scalarBits,
    reserve: options.pointScale === undefined ? 0 : pointScaleBytes(instance.params),
  };
  let plan = planMsm(instance.params, n, planOptions);
  for (;;) {
    try {
      return msmOnInstance(instance, pointBytes, scalarBytes, n, plan, options);
    } catch (e) {
      if (!e?.outOfMemory || options.maxMemory !== undefined) throw e;
      let smaller;
      try {
        smaller = planMsm(instance.params, n, { ...planOptions, maxMemory: Math.floor(0.9 * instance.memory.buffer.byteLength) });
      } catch {
        throw e;
      }
      if (smaller.bytes >= plan.bytes) throw e;
      plan = smaller;
    }
  }
}

/** One MSM, planned, on one instance: a ChunkedMsm fed the whole input. */
function msmOnInstance(instance, pointBytes, scalarBytes, n, plan, options) {
  const P = instance.params;
  const PB = 2 * P.field.bytes;
  const S = P.scalarBytes;
  const msm = new ChunkedMsm(instance, plan, { ...options, total: n });
  try {
    for (let first = 0; first < n; ) {
      const count = Math.min(msm.room, n - first);
      msm.append(pointBytes.subarray(first * PB, (first + count) * PB), scalarBytes.subarray(first * S, (first + count) * S), count, first);
      first += count;
    }
    return msm.finish();
  } finally {
    msm.free();
  }
}
