// The MSM as named phases over pointers into Wasm memory. JS handles indices and scalar bits; every
// field element stays in Wasm. One thread runs them all in order (msmPointers); the thread pool
// (src/threads/) runs the same functions, split over threads, on one shared memory.
//
//   prepare     GLV split of each scalar (s = s0 + s1*lambda) and the endomorphism images of the points, when
//               the shape splits them (scalars wider than a GLV half: plan.js msmShape)
//   digits      signed c-bit windows of every (half-)scalar, carrying between windows, point sign folded in
//   sort        counting sort of a piece's point indices by bucket (|digit|), sign in bit 31
//   gather      copy a block of buckets' points into bucket order (negated where the digit is negative)
//   accumulate  batch-affine passes: in pass m add the point 2^m further on into every 2^(m+1)-th slot
//   reduce      sum_l l * B_l for every piece: S independent running sums per piece, batch-affine
//               across all pieces and segments, then a few Jacobian steps to join the segments
//   combine     sum_k 2^(c k) W_k in Jacobian coordinates
//
// A piece is (window k, a range of pairs): the single thread has one piece per window over all pairs; a
// thread of the pool takes a contiguous share of the K * m (window, pair) items, window-major (plan.js), and
// then the pieces of other threads' shares that none has started (claimLane), in every chunk.
// Input that comes in chunks (chunked.js) runs prepare .. accumulate once per chunk into buckets that outlive
// the chunks (lane.carry), then reduce and combine once.
// What each phase works in is allocated by layout.js.

import { BATCH_CHUNK } from './layout.js';

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** Adds each phase's milliseconds into `timings` (when given): phase(name) closes the phase running since the last call. */
export function phaseTimer(timings) {
  let t0 = now();
  return (name) => {
    if (!timings) return;
    const t = now();
    timings[name] = (timings[name] ?? 0) + (t - t0);
    t0 = t;
  };
}

/** Write the affine point at infinity at ptr (io.infinity: once per MSM, before any piece runs). */
export function setInfinity(memory, P, ptr) {
  new Uint8Array(memory.buffer, ptr, P.infOffset).fill(0); // x = y = 0 (all-zero limbs), in any coordinate field
  new Uint32Array(memory.buffer, ptr + P.infOffset, 1)[0] = 1;
}

/**
 * prepare + digits for the points and scalars [first, first + count): endomorphism images, GLV records (or padded
 * scalars), then every window's digit of those pairs (both halves under GLV). Records sit at their pair's index, or,
 * when io.recordPoints is set (one thread), in an area of that many reused a block at a time.
 */
export function prepareRange(ctx, io, first, count, phase = () => {}) {
  const { ex, memory, params: P } = ctx;
  const { n, m, c, K, glv } = io.shape;
  const A = P.affineBytes;
  const S = P.scalarBytes;
  if (glv) ex.g_endomorphism(io.points + (n + first) * A, io.points + first * A, count);
  const block = io.recordPoints ?? count;
  for (let at = 0; at < count; at += block) {
    const size = Math.min(block, count - at);
    const from = first + at; // the block's first pair
    const slot = io.recordPoints ? 0 : from; // where its records go
    if (glv) ex.glv_decomposeBatch(io.records + slot * P.glv.recordBytes, io.scalars + from * S, size);
    else {
      const stride = io.halves[0][1];
      const dst = new Uint8Array(memory.buffer, io.padded + slot * stride, size * stride);
      const src = new Uint8Array(memory.buffer, io.scalars + from * S, size * S);
      if (stride === S) dst.set(src); // scalars of whole words: as they are
      else {
        dst.fill(0);
        for (let i = 0; i < size; i++) dst.set(src.subarray(i * S, (i + 1) * S), i * stride);
      }
    }
    phase('prepare');
    for (const [words, stride, wordCount, negs, negStride, firstPair] of io.halves) {
      ex.msm_digits(io.digits, words + slot * stride, stride, size, wordCount, negs && negs + slot * negStride, negStride, c, K, m, firstPair + from, 1);
    }
    phase('digits');
  }
}

/**
 * The nonzero digits of every window among the items [start, start + count) of each range ([[start, count]]):
 * segments [{ k, first, count, nonzero }] for weightedCuts (src/threads/split.js).
 */
export function digitSegments(ctx, io, ranges) {
  const { m, K } = io.shape;
  const digits = new Int32Array(ctx.memory.buffer, io.digits, K * m);
  const segments = [];
  for (const [start, count] of ranges) {
    for (let k = 0; k < K; k++) {
      let nonzero = 0;
      for (let i = k * m + start, end = i + count; i < end; i++) if (digits[i] !== 0) nonzero++;
      segments.push({ k, first: start, count, nonzero });
    }
  }
  return segments;
}

/** digitSegments of pairs [first, first + count) and their GLV halves' pairs. */
export const countDigits = (ctx, io, first, count) => digitSegments(ctx, io, io.halves.map((half) => [half[5] + first, count]));

/**
 * dst += src for `count` (dst, src) pointer pairs written at lane.pairs: one inversion per chunk, large
 * enough to amortise it (< 1%), small enough that the chunk's scratch stays in cache. `work` counts
 * additions and inversions when given (the work model in bench/thread-model.js).
 */
function batchAdd(ctx, lane, count) {
  for (let at = 0; at < count; at += BATCH_CHUNK) {
    const size = Math.min(BATCH_CHUNK, count - at);
    if (ctx.work) {
      ctx.work.additions += size;
      ctx.work.inversions += 1;
    }
    if (!ctx.countOnly) ctx.ex.g_batchAdd(lane.pairs + 8 * at, size, lane.scratch);
  }
}

/**
 * Sum runs of points in place: run i has sizes[i] points from base[i] on; afterwards slot 0 of each run holds
 * its sum. Pass m adds slot j + 2^m into slot j (j a multiple of 2^(m+1)): an implicit binary tree, each
 * pass one batch over all runs.
 */
function sumRuns(ctx, lane, bases, sizes, runs) {
  const A = ctx.params.affineBytes;
  const pr = new Uint32Array(ctx.memory.buffer, lane.pairs, lane.maxPairs * 2);
  for (let step = 1; ; step <<= 1) {
    let count = 0;
    for (let r = 0; r < runs; r++) {
      const size = sizes[r];
      if (size <= step) continue;
      const base = bases[r];
      for (let j = 0; j + step < size; j += 2 * step) {
        pr[2 * count] = base + j * A;
        pr[2 * count + 1] = base + (j + step) * A;
        count++;
      }
    }
    if (count === 0) return;
    batchAdd(ctx, lane, count);
  }
}

/**
 * sort + gather + accumulate for piece `index` of the lane: its L bucket sums B_1..B_L (infinity when empty)
 * at its buckets (pieceBuckets), or with lane.carry these pairs' sums added to the buckets' sums of earlier
 * chunks. Buckets are summed a block at a time (whole buckets, at most lane.cap points); a bucket larger than
 * the work area is summed a part at a time, its running sum carried in slot 0.
 */
export function accumulatePiece(ctx, io, lane, index, phase = () => {}) {
  const { ex, memory, params: P } = ctx;
  const { m, L } = io.shape;
  const { k, first, count: pieceCount } = lane.pieces[index];
  const A = P.affineBytes;
  const src = io.points + first * A;
  const { work, cap, infIndex } = lane;
  const buckets = pieceBuckets(lane, index, L * A);

  // countOnly (the work model): the same sort, passes and batches, no point arithmetic.
  if (index === 0 && !ctx.countOnly) setInfinity(memory, P, work + infIndex * A);
  ex.msm_bucketSort(io.digits + 4 * (k * m + first), pieceCount, L, lane.counts, lane.starts, lane.fill, lane.entries);
  phase('sort');
  const counts = new Int32Array(memory.buffer, lane.counts, L + 2);
  const starts = new Int32Array(memory.buffer, lane.starts, L + 2);
  // After the sort, `fill` is free: it holds the slots whose points are copied out as bucket sums.
  const sumSlots = new Uint32Array(memory.buffer, lane.fill, L + 2);
  const gather = (dst, from, entries, count) => {
    if (!ctx.countOnly) ex.g_gather(dst, from, entries, count);
  };
  const bases = [];
  const sizes = [];
  for (let l = 1; l <= L; ) {
    const size = counts[l];
    if (size > cap) {
      // slot 0 carries the running sum: from infinity, or from the bucket's sum of earlier chunks
      sumSlots[0] = lane.carry ? 0 : infIndex;
      gather(work, lane.carry ? buckets + (l - 1) * A : work, lane.fill, 1);
      for (let at = 0; at < size; at += cap) {
        const take = Math.min(cap, size - at);
        gather(work + A, src, lane.entries + 4 * (starts[l] + at), take);
        phase('gather');
        sumRuns(ctx, lane, [work], [take + 1], 1);
        phase('accumulate');
      }
      sumSlots[0] = 0;
      gather(buckets + (l - 1) * A, work, lane.fill, 1);
      l++;
      continue;
    }
    let last = l;
    let total = size;
    while (last < L && counts[last + 1] <= cap - total) total += counts[++last];
    gather(work, src, lane.entries + 4 * starts[l], total);
    phase('gather');
    let runs = 0;
    for (let j = l; j <= last; j++) {
      if (counts[j] < 2) continue;
      bases[runs] = work + (starts[j] - starts[l]) * A;
      sizes[runs++] = counts[j];
    }
    sumRuns(ctx, lane, bases, sizes, runs);
    if (lane.carry) {
      // buckets kept from earlier chunks: B_j += this chunk's sum of bucket j (one batch; empty ones untouched)
      const pr = new Uint32Array(memory.buffer, lane.pairs, lane.maxPairs * 2);
      let merges = 0;
      for (let j = l; j <= last; j++) {
        if (counts[j] === 0) continue;
        pr[2 * merges] = buckets + (j - 1) * A;
        pr[2 * merges + 1] = work + (starts[j] - starts[l]) * A;
        merges++;
      }
      batchAdd(ctx, lane, merges);
      phase('accumulate');
    } else {
      phase('accumulate');
      for (let j = l; j <= last; j++) sumSlots[j - l] = counts[j] > 0 ? starts[j] - starts[l] : infIndex;
      gather(buckets + (l - 1) * A, work, lane.fill, last - l + 1);
      phase('gather');
    }
    l = last + 1;
  }
}

/** Where the L buckets of the lane's piece q are: its own area, or the claim queue's at the piece's slot. */
const pieceBuckets = (lane, q, bytesPerPiece) => lane.buckets + (lane.slots ? lane.slots[q] : q) * bytesPerPiece;

/** The lane's pieces that have a bucket other than infinity (all of them for the work model, which has no points). */
function livePieces(ctx, lane, L) {
  const pieces = lane.pieces.map((_, q) => q);
  if (ctx.countOnly) return pieces;
  const { affineBytes: A, infOffset } = ctx.params;
  const flags = new Uint32Array(ctx.memory.buffer);
  return pieces.filter((q) => {
    for (let l = 0, at = pieceBuckets(lane, q, L * A) + infOffset; l < L; l++, at += A) if (flags[at >>> 2] === 0) return true;
    return false;
  });
}

/**
 * reduce: for every piece of the lane, sum_l l * B_l into lane.partials (Jacobian). S running sums per piece,
 * R += B_l and T += R over each segment of L / S buckets (batch-affine across all pieces and segments), then
 * sum_l l B_l = sum_s T_s + (L / S) * sum_s s * R_s in Jacobian coordinates. A piece whose buckets are all
 * infinity (a window no digit reached, e.g. above small scalars' bits) costs no addition: its partial is infinity.
 */
export function reducePieces(ctx, io, lane, phase = () => {}) {
  const { ex, memory, params: P } = ctx;
  const { L } = io.shape;
  const A = P.affineBytes;
  const J = P.jacobianBytes;
  const { S, R, T } = lane;
  const segLen = L / S;
  const live = livePieces(ctx, lane, L);
  const items = lane.pieces.length * S;
  const pr = new Uint32Array(memory.buffer, lane.pairs, lane.maxPairs * 2);
  if (!ctx.countOnly) {
    const ent = new Uint32Array(memory.buffer, lane.entries, items);
    ent.fill(lane.infIndex);
    ex.g_gather(R, lane.work, lane.entries, items);
    ex.g_gather(T, lane.work, lane.entries, items);
  }
  for (let j = segLen - 1; j >= 0; j--) {
    let count = 0;
    for (const q of live) {
      const buckets = pieceBuckets(lane, q, L * A);
      for (let s = 0; s < S; s++) {
        pr[2 * count] = R + (q * S + s) * A;
        pr[2 * count + 1] = buckets + (s * segLen + j) * A;
        count++;
      }
    }
    batchAdd(ctx, lane, count);
    count = 0;
    for (const q of live) {
      for (let s = 0; s < S; s++, count++) {
        pr[2 * count] = T + (q * S + s) * A;
        pr[2 * count + 1] = R + (q * S + s) * A;
      }
    }
    batchAdd(ctx, lane, count);
  }
  phase('reduce');
  if (ctx.countOnly) return;
  const [run, sum, tmp] = [lane.jac, lane.jac + J, lane.jac + 2 * J];
  const log2SegLen = Math.log2(segLen);
  for (let q = 0; q < lane.pieces.length; q++) ex.g_jacFromAffine(lane.partials + q * J, io.infinity);
  for (const q of live) {
    ex.g_jacFromAffine(run, io.infinity);
    ex.g_jacFromAffine(sum, io.infinity);
    for (let s = S - 1; s >= 1; s--) {
      ex.g_jacFromAffine(tmp, R + (q * S + s) * A);
      ex.g_jacAdd(run, run, tmp);
      ex.g_jacAdd(sum, sum, run);
    }
    for (let i = 0; i < log2SegLen; i++) ex.g_jacDouble(sum, sum);
    for (let s = 0; s < S; s++) {
      ex.g_jacFromAffine(tmp, T + (q * S + s) * A);
      ex.g_jacAdd(sum, sum, tmp);
    }
    ex.g_jacCopy(lane.partials + q * J, sum);
  }
  phase('combine');
}

/**
 * sort + gather + accumulate of every piece of the lane (progress(done, total) after each); afterwards the
 * buckets carry into the next chunk's pieces.
 */
export function accumulateLane(ctx, io, lane, { phase, progress } = {}) {
  for (let i = 0; i < lane.pieces.length; i++) {
    accumulatePiece(ctx, io, lane, i, phase);
    progress?.(i + 1, lane.pieces.length);
  }
  lane.carry = true;
}

/**
 * Thread t's lane of allocClaimLanes (layout.js) over one chunk: claims its own pieces of `queue` one at a time
 * from its counter, then those of threads t + 1, t + 2, ... (mod T) that no thread has claimed yet, each from
 * that thread's counter (i32 words at `counters`, shared by the threads), adding each into its buckets (the queue
 * slot's, so a piece's buckets are the same whichever thread claims it in each chunk); with `carry` onto the sums
 * of earlier chunks, where every piece was claimed by some thread. With `reduce` (the last chunk, where each piece
 * is claimed once) it then reduces what it claimed. progress(done, total) counts this thread's items against all
 * of the queue's. Returns { pieces, slots }: the pieces it claimed, whose partial sums it wrote (lanePartials) or
 * reducePieces would write, and their places in the queue.
 */
export function claimLane(ctx, io, lane, { queue, ranges, counters, t, carry = false, reduce = true }, { phase, progress } = {}) {
  const T = ranges.length;
  const claims = new Int32Array(ctx.memory.buffer, counters, T);
  const total = queue.reduce((sum, piece) => sum + piece.count, 0);
  lane.pieces = [];
  lane.slots = [];
  lane.carry = carry;
  let done = 0;
  for (let i = 0; i < T; i++) {
    const u = (t + i) % T;
    const [start, end] = ranges[u];
    for (let g = start + Atomics.add(claims, u, 1); g < end; g = start + Atomics.add(claims, u, 1)) {
      lane.pieces.push(queue[g]);
      lane.slots.push(g);
      accumulatePiece(ctx, io, lane, lane.pieces.length - 1, phase);
      done += queue[g].count;
      progress?.(done, total);
    }
  }
  if (reduce) reducePieces(ctx, io, lane, phase);
  return { pieces: lane.pieces, slots: lane.slots };
}

/** All of one lane's work over input in one chunk: its pieces, then their reduction. */
export function runLane(ctx, io, lane, { phase, progress } = {}) {
  accumulateLane(ctx, io, lane, { phase, progress });
  reducePieces(ctx, io, lane, phase);
}

/**
 * combine: W_k = the sum of the partial sums of window k's pieces (`partials`: [{ k, ptr }]), then
 * sum_k 2^(c k) W_k by doubling and adding; the affine result is written at a fresh heap address. With `jacobian`:
 * the address of the Jacobian sum instead, which holds every point (partialBytes), those without an affine form too.
 */
export function combineWindows(ctx, heap, io, partials, { jacobian = false } = {}) {
  const { ex, params: P } = ctx;
  const { c, K } = io.shape;
  const J = P.jacobianBytes;
  const windowSums = heap.alloc(K * J);
  const acc = heap.alloc(J);
  for (let k = 0; k < K; k++) ex.g_jacFromAffine(windowSums + k * J, io.infinity);
  for (const { k, ptr } of partials) ex.g_jacAdd(windowSums + k * J, windowSums + k * J, ptr);
  ex.g_jacCopy(acc, windowSums + (K - 1) * J);
  for (let k = K - 2; k >= 0; k--) {
    for (let i = 0; i < c; i++) ex.g_jacDouble(acc, acc);
    ex.g_jacAdd(acc, acc, windowSums + k * J);
  }
  if (jacobian) return acc;
  const result = heap.alloc(P.affineBytes);
  ex.g_jacToAffine(result, acc);
  return result;
}

/** The partial sums a lane wrote, as combineWindows takes them. */
export const lanePartials = (P, lane) => lane.pieces.map((piece, q) => ({ k: piece.k, ptr: lane.partials + q * P.jacobianBytes }));
