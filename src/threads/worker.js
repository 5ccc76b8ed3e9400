// One thread of the pool (src/threads/pool.js): instantiates the curve's module, over the pool's shared
// memory or over a memory of its own, and runs the operations the pool sends. It imports no Curve and no
// host code, so the browser build bundles it into one self-contained script (wasm/threads-worker.js).
//
// In:  { type: 'init', module, params, memory?, stackTop? }   { type: 'run', id, op, args }
// Out: { type: 'ready' } | { type: 'initFailed', error } | { type: 'done', id, result }
//      | { type: 'failed', id, error } | { type: 'progress', id, fraction }

import { instantiate } from '../runtime/loader.js';
import { Heap } from '../runtime/heap.js';
import { countDigits, prepareRange, runLane } from '../msm/index.js';
import { convertPoints, checkSubgroupRange, msmBytesOn } from '../msm/bytes.js';

/** An Error as plain data (structured clone keeps only some of an Error's fields everywhere). */
export const errorData = (e) => ({
  name: e?.name ?? 'Error',
  message: e?.message ?? String(e),
  argument: e?.argument,
  index: e?.index,
  reason: e?.reason,
});

/** port: { post(message, transfer), listen(onMessage) } over this thread's connection to the pool. */
export function serveThread(port) {
  let instance = null; // { exports, memory, heap, params }
  let ctx = null; // { ex, memory, params }
  let syncWord = 0;

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
    prepare({ io, staging, first, count, checkSubgroup, jac }) {
      const P = ctx.params;
      const points = io.points + first * P.affineBytes;
      convertPoints(ctx, points, staging + first * 2 * P.field.bytes, count, first);
      if (checkSubgroup) checkSubgroupRange(ctx, jac, points, count, first);
      prepareRange(ctx, io, first, count);
      publish();
      return countDigits(ctx, io, first, count);
    },
    /** Shared memory: a lane's pieces and their reduction into its partial sums. */
    lane({ io, lane }, progress) {
      runLane(ctx, io, lane, { progress: (done, total) => progress(done / total) });
      publish();
    },
    /** Own memory: a whole MSM over this thread's share of the inputs. */
    msm({ pointBytes, scalarBytes, n, options }, progress) {
      return msmBytesOn(instance, pointBytes, scalarBytes, n, { ...options, onProgress: progress });
    },
  };

  port.listen(async (message) => {
    if (message.type === 'init') {
      try {
        const { module, params, memory, stackTop } = message;
        const made = await instantiate(module, memory ? { memory } : { minPages: params.minPages });
        if (stackTop) made.exports.fp_sp.value = stackTop; // a scratch stack of its own in the shared memory
        instance = { exports: made.exports, memory: made.memory, params, heap: new Heap(made.memory, made.exports.fp_heapBase.value) };
        ctx = { ex: made.exports, memory: made.memory, params };
        syncWord = message.syncWord ?? 0;
        port.post({ type: 'ready' });
      } catch (e) {
        port.post({ type: 'initFailed', error: errorData(e) });
      }
      return;
    }
    if (message.type !== 'run') return;
    const { id, op, args } = message;
    try {
      acquire();
      const result = ops[op](args, (fraction) => port.post({ type: 'progress', id, fraction }));
      port.post({ type: 'done', id, result }, result instanceof Uint8Array ? [result.buffer] : []);
    } catch (e) {
      port.post({ type: 'failed', id, error: errorData(e) });
    }
  });
}
