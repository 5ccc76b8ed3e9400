// One thread of the pool (src/threads/pool.js): instantiates the curve's module, over the pool's shared
// memory or over a memory of its own, and runs the operations the pool sends. It imports no Curve and no
// host code, so the browser build bundles it into one self-contained script (wasm/threads-worker.js).
//
// In:  { type: 'init', module, params, memory?, stackTop?, syncWord?, ownModule? }   { type: 'run', id, op, args, giveBack? }
// Out: { type: 'ready' } | { type: 'initFailed', error } | { type: 'done', id, result, spent, memoryBytes, started, ended, steps? }
//      | { type: 'failed', id, error, spent, memoryBytes } | { type: 'progress', id, fraction }
// spent: with giveBack, the ArrayBuffers the run message brought that are free now (spentBuffers), transferred back.
// memoryBytes: what the thread's memories of its own (not prepared bases') have grown to, for the pool's release.
// started, ended: when the operation ran (timeline.js clock, shared by all threads), for timings.perThread; steps:
// the thread's own step times inside it (shared path: convert, prepare, digits, sort, gather, accumulate, reduce;
// message path: the phases of its slice's MSM), when the pool asked for timings (args.timed).

import { instantiate } from '../runtime/loader.js';
import { Heap } from '../runtime/heap.js';
import { claimLane, countDigits, phaseTimer, prepareRange, reducePieces } from '../msm/index.js';
import { convertPoints, inputError } from '../msm/bytes.js';
import { letGoOf } from '../msm/buffers.js';
import { checkSubgroupRange } from '../msm/subgroup.js';
import { ChunkedMsm, msmBytesOn, pointScaleBytes } from '../msm/chunked.js';
import { planWithBatch } from '../msm/plan.js';
import { STAGING_POINTS } from '../msm/layout.js';
import { decodePointBatch, decodeScratchBytes } from '../codecs.js';
import { pointLayout, resolveFormatOptions } from '../formats.js';
import { buildTable, countPreparedDigits, preparedDigits } from '../msm/prepared.js';
import { preparedMsmOn, prepareOn } from '../bases.js';
import { withHeap } from '../instance.js';
import { frCosetBlock, frDifBlock } from '../fr/thread-ops.js';
import { frCalls } from '../fr/shared.js';
import { clock } from './timeline.js';

/** An Error as plain data (structured clone keeps only some of an Error's fields everywhere). */
export const errorData = (e) => ({
  name: e?.name ?? 'Error',
  message: e?.message ?? String(e),
  argument: e?.argument,
  index: e?.index,
  reason: e?.reason,
  need: e?.need,
});

/**
 * The buffers of the arrays a message's args brought (its top-level Uint8Arrays, not shared) that the op's result does
 * not carry back: free once the op is done, since every op copies what it keeps into Wasm memory (keepBases,
 * streamAdd) or hands the array back as its result (frDifBlock, frCosetBlock). Either they go back to the pool with
 * the answer (giveBack: the message path makes its next slices in them) or they are let go of at once: a new array,
 * in a thread's heap or the main thread's, adds to the process's peak, since V8 frees a large array only at a
 * collection (and Chromium's renderer keeps its bytes for later arrays of the same thread).
 */
const spentBuffers = (args, result) => [
  ...new Set(Object.values(args ?? {}).filter((v) => v instanceof Uint8Array && v.buffer instanceof ArrayBuffer && v.buffer.byteLength > 0).map((v) => v.buffer)),
].filter((buffer) => buffer !== result?.buffer);

/** port: { post(message, transfer), listen(onMessage) } over this thread's connection to the pool. */
export function serveThread(port) {
  let instance = null; // { exports, memory, heap, params }
  let ctx = null; // { ex, memory, params }
  let syncWord = 0;
  let ownModule = null; // shared path: the module over a memory of its own, for work with a heap (decoding)
  let own = null;
  let baseModule = null; // the module over a memory of its own, for prepared bases (an instance each)
  const bases = new Map(); // message path: id -> { instance, layout, table } of this thread's slice
  const streams = new Map(); // message path: id -> { msm: ChunkedMsm, format } of a stream's share on this thread

  /** g_fromScaledBytes' K for points in `format` that the MSM's check converts (snarkjs), else undefined. */
  const scaleOf = (format) => (format ? pointLayout(ctx.params, format).scale : undefined);

  /** An instance with a heap of this thread's own: the main one on the message path, else made once. */
  const ownInstance = async () => {
    if (instance) return instance;
    if (!own) {
      const made = await instantiate(ownModule, { minPages: ctx.params.minPages, group: ctx.params.group });
      own = withHeap(made, ctx.params);
    }
    return own;
  };

  // Shared memory: an Atomics operation on one word after this thread's writes (publish) and before its
  // reads (acquire), matched by the pool's, orders the plain stores of different threads; message passing
  // alone does not promise that.
  const publish = () => {
    if (syncWord) Atomics.add(new Int32Array(ctx.memory.buffer, syncWord, 1), 0, 1);
  };
  const acquire = () => {
    if (syncWord) Atomics.load(new Int32Array(ctx.memory.buffer, syncWord, 1), 0);
  };

  const ops = {
    /**
     * Shared memory: check and convert points [first, first + count), GLV and digits of those pairs; returns
     * their nonzero digits per window (for the weighted split).
     */
    prepare({ io, staging, scale, first, count, checkSubgroup, jac, timed }, progress, steps) {
      const P = ctx.params;
      const phase = timed ? phaseTimer(steps) : () => {};
      const points = io.points + first * P.affineBytes;
      convertPoints(ctx, points, staging + first * 2 * P.field.bytes, count, first, scale);
      phase('convert');
      if (checkSubgroup) {
        checkSubgroupRange(ctx, jac, points, count, first);
        phase('subgroup');
      }
      prepareRange(ctx, io, first, count, phase);
      publish();
      const segments = countDigits(ctx, io, first, count);
      phase('count');
      return segments;
    },
    /** Shared memory: the table entries of bases [first, first + count), with heap scratch of its own at `scratch`. */
    buildTable({ layout, table, staging, first, count, checkSubgroup, scratch }) {
      buildTable(ctx, new Heap(ctx.memory, scratch), layout, table, staging, first, count, { checkSubgroup });
      publish();
    },
    /** Shared memory: GLV and digits of the scalars [first, first + count) of a prepared MSM; their nonzero digits. */
    preparedDigits({ io, layout, first, count }) {
      preparedDigits(ctx, io, layout, first, count);
      publish();
      return countPreparedDigits(ctx, io, layout, first, count);
    },
    /** Own memory: keep this thread's slice of prepared bases (in an instance of their own) under `id`. */
    async keepBases({ id, pointBytes, n, checkSubgroup, precompute, format }) {
      const params = ctx.params;
      const made = withHeap(await instantiate(baseModule, { minPages: params.minPages, group: params.group }), params);
      const formats = format ? resolveFormatOptions(params, { pointFormat: format }) : null;
      bases.set(id, { instance: made, ...prepareOn(made, pointBytes, n, { checkSubgroup, precompute, formats }) });
    },
    /** Own memory: an MSM over the first k bases of this thread's slice `id`. */
    preparedMsm({ id, scalarBytes, k, options }, progress) {
      const kept = bases.get(id);
      if (!kept) throw new Error(`prepared bases ${id} are not on this thread`);
      return preparedMsmOn(kept.instance, kept.layout, kept.table, scalarBytes, k, { ...options, partial: true, onProgress: progress });
    },
    freeBases({ id }) {
      bases.delete(id);
    },
    /**
     * Shared memory: the pieces of one chunk this thread claims (`claim`: { queue, ranges, counters, t, carry,
     * reduce }, allocClaimLanes and claimLane) added to their buckets, and after the last chunk their reduction into
     * its partial sums; returns the pieces it claimed.
     */
    lane({ io, lane, claim, timed }, progress, steps) {
      const progressOf = { progress: (done, total) => progress(done / total), phase: timed ? phaseTimer(steps) : undefined };
      const claimed = claimLane(ctx, io, lane, claim, progressOf);
      publish();
      return claimed;
    },
    /** Shared memory: after the last chunk, the lane's buckets reduced into its partial sums. */
    reduce({ io, lane, timed }, progress, steps) {
      reducePieces(ctx, io, lane, timed ? phaseTimer(steps) : undefined);
      publish();
    },
    /** Either path: points of one slice in `format` to the native encoding (decompression in Wasm). */
    async decode({ bytes, format, check = true }) {
      // checked here too (on the curve), so each slice names its lowest bad point whatever the kind; not for an
      // MSM's input (check = false), which the MSM checks (SharedPath.decodePoints)
      return decodePointBatch(await ownInstance(), pointLayout(ctx.params, format), bytes, { check });
    },
    /**
     * Own memory: a whole MSM over this thread's share of the inputs; points in `format` decoded first, but snarkjs
     * points read as they are, converted by the product that checks them (pointScale). The own-memory MSMs return
     * partial sums (partialBytes: a share may sum to a point without an affine form), which the pool adds (sumPartials).
     */
    async msm({ pointBytes, scalarBytes, n, options, format, timed }, progress, steps) {
      const pointScale = scaleOf(format);
      const phase = timed ? phaseTimer(steps) : () => {};
      let points = pointBytes;
      if (format && pointScale === undefined) {
        points = await ops.decode({ bytes: pointBytes, format });
        letGoOf(pointBytes); // decoded: the slice that came is garbage
        phase('decode');
      }
      try {
        return msmBytesOn(instance, points, scalarBytes, n, { ...options, pointScale, partial: true, onProgress: progress, ...(timed && { timings: steps }) });
      } finally {
        if (points !== pointBytes) letGoOf(points); // decoded here (the message's own arrays go back to the pool: port.listen)
      }
    },
    /** Own memory: this thread's share of a stream (about `points` points, or Infinity), a ChunkedMsm kept under `id` until streamFinish. */
    streamBegin({ id, options, format, points }) {
      const P = ctx.params;
      const pointScale = scaleOf(format);
      // the formats to decode (snarkjs points are read as they are, as in msm); the scratch that either takes
      const layout = format && pointScale === undefined ? pointLayout(P, format) : null;
      // points to decode: in batches whose scratch fits beside the MSM within the budget (plan.js planWithBatch)
      const reserveFor = (batch) => (layout ? decodeScratchBytes(P, layout, batch) : pointScale !== undefined ? pointScaleBytes(P) : 0);
      const { plan, batch } = planWithBatch(P, points, { ...options, base: instance.heap.mark() }, reserveFor, layout ? STAGING_POINTS : 1);
      streams.set(id, { msm: new ChunkedMsm(instance, plan, { checkSubgroup: options.checkSubgroup, pointScale, partial: true }), layout, batch });
    },
    /** Own memory: count points and scalars of a stream (points in its format; scalars native, checked), the first at index `first`. */
    streamAdd({ id, pointBytes, scalarBytes, count, first }) {
      const { msm, layout, batch } = streams.get(id);
      const PB = 2 * ctx.params.field.bytes;
      const S = ctx.params.scalarBytes;
      for (let at = 0; at < count; ) {
        const take = Math.min(msm.room, count - at, layout ? batch : Infinity);
        let points = pointBytes.subarray(at * (layout?.size ?? PB), (at + take) * (layout?.size ?? PB));
        if (layout) {
          try {
            points = decodePointBatch(instance, layout, points, { check: false });
          } catch (e) {
            throw e?.argument ? inputError(e.argument, e.index + first + at, e.reason) : e;
          }
        }
        msm.append(points, scalarBytes.subarray(at * S, (at + take) * S), take, first + at);
        at += take;
      }
    },
    /** Own memory: a stream that failed (a bad point here or on another thread, a source that threw): its memory freed. */
    streamFree({ id }) {
      streams.get(id)?.msm.free();
      streams.delete(id);
    },
    /** Own memory: the stream's share summed; the thread's memory is free again. */
    streamFinish({ id }) {
      const { msm } = streams.get(id);
      streams.delete(id);
      try {
        return msm.finish();
      } finally {
        msm.free();
      }
    },
    /**
     * Scalar-field work (pool.runTasks): a block of an NTT or of Groth16's evaluations-to-coset step, in an fr instance
     * of its own (frDifBlock, frCosetBlock), or kernel calls over an fr twin's shared memory (frCalls).
     */
    frDifBlock,
    frCosetBlock,
    frCalls,
    /** Own memory: move to a fresh instance (the grown memory is garbage here; prepared bases keep theirs). */
    async trim() {
      instance = withHeap(await instantiate(baseModule, { minPages: ctx.params.minPages, group: ctx.params.group }), ctx.params);
      ctx = { ex: instance.exports, memory: instance.memory, params: ctx.params };
    },
  };

  /** Bytes of this thread's memories of its own (the main one on the message path, the decoding one). */
  const memoryBytes = () => (instance ? instance.memory.buffer.byteLength : 0) + (own ? own.memory.buffer.byteLength : 0);

  port.listen(async (message) => {
    if (message.type === 'init') {
      try {
        const { module, params, memory, stackTop } = message;
        const made = await instantiate(module, memory ? { memory, group: params.group } : { minPages: params.minPages, group: params.group });
        if (stackTop) made.exports.fp_sp.value = stackTop; // a scratch stack of its own in the shared memory
        // shared memory: the pool owns the heap; this thread only works at the addresses it is given
        instance = memory ? null : withHeap(made, params);
        ctx = { ex: made.exports, memory: made.memory, params };
        syncWord = message.syncWord ?? 0;
        ownModule = message.ownModule ?? null;
        baseModule = ownModule ?? module;
        port.post({ type: 'ready' });
      } catch (e) {
        port.post({ type: 'initFailed', error: errorData(e) });
      }
      return;
    }
    if (message.type !== 'run') return;
    const { id, op, args, giveBack } = message;
    // the buffers the message brought, free once the op is done: sent back where the pool asked for them (its slices,
    // for its next), else let go of here
    const spent = (result) => {
      const buffers = spentBuffers(args, result);
      if (giveBack) return buffers;
      letGoOf(...buffers);
      return [];
    };
    try {
      const started = clock();
      acquire();
      const steps = {};
      const result = await ops[op](args, (fraction) => port.post({ type: 'progress', id, fraction }), steps);
      const ended = clock();
      const timed = Object.keys(steps).length > 0 ? { steps } : {};
      const back = spent(result);
      port.post({ type: 'done', id, result, spent: back, memoryBytes: memoryBytes(), started, ended, ...timed }, [...(result instanceof Uint8Array ? [result.buffer] : []), ...back]);
    } catch (e) {
      const back = spent();
      port.post({ type: 'failed', id, error: errorData(e), spent: back, memoryBytes: memoryBytes() }, back);
    }
  });
}
