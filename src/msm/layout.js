// What one MSM allocates, in the order it allocates it. The plan (plan.js) runs these same functions on a heap
// that only counts (Heap.sizer) to know an MSM's bytes before it starts, so sizes are written once.
//
//   inputs   one chunk's points (with room for their GLV images) and scalars, a staging area for the points'
//            bytes, subgroup scratch: allocated first, so a stream can fill them before its window is known
//   work     GLV records (or padded scalars), the digits of every window of the chunk, an affine infinity
//   lanes    per thread: the buckets of its pieces (they outlive the chunks), the work area of at most
//            BLOCK_POINTS points, the sort arrays and the reduction's running sums (or, for threads that claim
//            pieces as they go, the buckets of every piece in one area and the rest per thread)
//   finish   the window sums and the result (combineWindows, pointToBytes)

import { subgroupScratchBytes } from './subgroup.js';

/** Pairs per g_batchAdd call: large enough to amortise the inversion (< 1%), small enough to stay in cache. */
export const BATCH_CHUNK = 8192;
/** Points gathered and summed at once: the block's points stay in cache; also the work area's size. */
export const BLOCK_POINTS = 16384;
/** Points staged as bytes and converted at once when one thread fills a chunk. */
export const STAGING_POINTS = 4096;

/** Pairs per point: 2 under GLV (the scalar's halves k0, k1), else 1. */
export const pairsPerPoint = (P) => (P.glv ? 2 : 1);

/** Pairs per point of an MSM's shape: 2 when its scalars are split (a GLV curve, scalars wider than a half). */
export const pairsOf = (shape) => (shape.glv ? 2 : 1);

/**
 * Segments per piece in the reduction. S segments cost 2L / S inversions (one per batch of the running sums)
 * and about 3 S Jacobian steps per piece to join them; an inversion costs about three Jacobian steps here
 * (measured on BLS12-381 and BN254), so the sum is least near S = sqrt(2L / pieces).
 */
export const segmentsFor = (pieceCount, L) => Math.min(L, 2 ** Math.max(0, Math.round(Math.log2(Math.sqrt((2 * L) / Math.max(1, pieceCount))))));

/**
 * A chunk's inputs for up to `capacity` points: affine points with room for their GLV images (and one more
 * point), the scalars, `stagingPoints` points' worth of bytes to convert from, and `subgroupScratch` scratch
 * areas for the subgroup check (one per thread that checks). `end`: the heap's top after them (growInputs).
 */
export function allocInputs(heap, P, capacity, { stagingPoints = capacity, subgroupScratch = 0 } = {}) {
  const A = P.affineBytes;
  return {
    capacity,
    points: heap.alloc((pairsPerPoint(P) * capacity + 1) * A, 64),
    scalars: heap.alloc(capacity * P.scalarBytes + 8),
    stagingPoints,
    staging: heap.alloc(stagingPoints * 2 * P.field.bytes),
    subgroup: Array.from({ length: subgroupScratch }, () => heap.alloc(subgroupScratchBytes(P), 64)),
    end: heap.top,
  };
}

/**
 * The inputs of a stream's first chunk have room for this many points, then grow with what comes (growInputs), so a
 * short stream costs about what msmBytes of the same points costs, whatever its budget.
 */
export const FIRST_CHUNK_POINTS = 1024;

/**
 * The inputs of a chunk being filled (the heap's last allocation), with room for `needed` points: as they are, or
 * moved to room for twice as many (doubling: the copies cost O(points)), at most `limit`, with allocInputs' options
 * optionsFor(capacity). The points stay where they are; the first `filled` scalars and `staged` bytes of the staging
 * area move up (the staging area first: the scalars' new place may cover its old one).
 */
export function growInputs(heap, memory, P, inputs, needed, limit, filled, optionsFor, staged = 0) {
  if (needed <= inputs.capacity) return inputs;
  if (heap.top !== inputs.end) throw new Error('internal: inputs not last');
  heap.release(inputs.points);
  const capacity = Math.min(limit, Math.max(needed, 2 * inputs.capacity));
  const grown = allocInputs(heap, P, capacity, optionsFor(capacity));
  const bytes = new Uint8Array(memory.buffer);
  bytes.copyWithin(grown.staging, inputs.staging, inputs.staging + staged);
  bytes.copyWithin(grown.scalars, inputs.scalars, inputs.scalars + filled * P.scalarBytes);
  return grown;
}

/**
 * What the digits of a chunk of `capacity` points need: GLV records (or padded scalars) for `recordPoints` of them
 * (all, where threads fill their own ranges; a block reused by one thread), the digits, an infinity.
 */
export function allocWork(heap, P, shape, capacity, { recordPoints = capacity } = {}) {
  const H = pairsOf(shape);
  const perScalar = shape.glv ? P.glv.recordBytes : 4 * Math.ceil(P.scalarBytes / 4);
  return {
    shape,
    recordPoints: recordPoints < capacity ? recordPoints : undefined,
    records: heap.alloc(Math.max(1, recordPoints) * perScalar),
    digits: heap.alloc(Math.max(1, shape.K * H * capacity) * 4),
    infinity: heap.alloc(P.affineBytes, 64),
  };
}

/** Records (GLV) or padded scalars one thread keeps at once: the staging block's worth. */
export const recordPointsFor = (capacity) => Math.min(STAGING_POINTS, capacity);

/**
 * The io the phases take (src/msm/index.js) for `count` points of a chunk: pair i < count takes k0 (or the
 * scalar), pair count + i takes k1; digit k of pair j at digits[k m + j], m = the chunk's pairs.
 * Each half: [words, stride, wordCount, negs, negStride, first pair].
 */
export function chunkIO(P, inputs, work, count) {
  const { shape } = work;
  const io = {
    points: inputs.points, scalars: inputs.scalars, n: count, records: work.records, recordPoints: work.recordPoints, digits: work.digits,
    infinity: work.infinity, shape: Object.freeze({ ...shape, n: count, m: pairsOf(shape) * count }),
  };
  if (shape.glv) {
    const { H, recordBytes } = P.glv;
    // Record: |k0| (H words) | |k1| (H words) | neg0 | neg1.
    io.halves = [
      [io.records, recordBytes, H, io.records + 8 * H, recordBytes, 0],
      [io.records + 4 * H, recordBytes, H, io.records + 8 * H + 4, recordBytes, count],
    ];
  } else {
    // Scalars padded to whole u32 words, so no window reads into the next scalar.
    const wordCount = Math.ceil(P.scalarBytes / 4);
    io.padded = io.records;
    io.halves = [[io.padded, 4 * wordCount, wordCount, 0, 0, 0]];
  }
  return io;
}

/** The pieces one of `lanes` lanes may hold: ceil(K / lanes) + 1 for a contiguous share of the window-major items. */
export const lanePieces = (K, lanes) => (lanes > 1 ? Math.ceil(K / lanes) + 1 : K);

/**
 * One thread's workspace for its pieces ([{ k, first, count }], count at most `maxPairs`): a work area of at
 * most blockPoints points (plus a carry slot and an infinity slot), L buckets per piece (kept across chunks),
 * sort arrays, the reduction's running sums, and one Jacobian partial sum per piece. A lane that claims its
 * pieces as it goes (allocClaimLanes) has `pieces` empty, room for up to `maxPieces` of them, and its buckets
 * in `buckets`, the area of every claimable piece (`slots` then says which of them each of its pieces is).
 */
export function allocLane(heap, P, shape, pieces, { blockPoints = BLOCK_POINTS, maxPairs: maxPiece, maxPieces = pieces.length, expectedPieces = pieces.length, buckets } = {}) {
  const { L } = shape;
  const A = P.affineBytes;
  const J = P.jacobianBytes;
  maxPiece ??= Math.max(1, ...pieces.map((p) => p.count));
  const cap = Math.max(1, Math.min(blockPoints, maxPiece));
  const S = segmentsFor(expectedPieces, L);
  const room = Math.max(1, maxPieces);
  // a pass adds at most cap / 2 pairs; merging a block into buckets kept from earlier chunks, up to cap
  const maxPairs = Math.max(cap, room * S) + 1;
  return {
    pieces, cap, S,
    carry: false, // the buckets hold sums from earlier chunks: add to them instead of overwriting
    infIndex: cap + 1,
    work: heap.alloc((cap + 2) * A, 64),
    buckets: buckets ?? heap.alloc(Math.max(1, pieces.length) * L * A, 64),
    slots: null, // claimed pieces: the place in the claim queue (and in `buckets`) of each piece
    R: heap.alloc(room * S * A, 64),
    T: heap.alloc(room * S * A, 64),
    entries: heap.alloc(Math.max(maxPiece, L, room * S) * 4),
    counts: heap.alloc((L + 2) * 4),
    starts: heap.alloc((L + 2) * 4),
    fill: heap.alloc((L + 2) * 4),
    maxPairs,
    pairs: heap.alloc(maxPairs * 8),
    scratch: heap.alloc(Math.min(maxPairs, BATCH_CHUNK) * (2 * P.E + 4)),
    jac: heap.alloc(3 * J),
    partials: heap.alloc(room * J),
  };
}

/**
 * Lanes for threads of one shared memory that claim the pieces of `split` (one list per thread, as splitPieces
 * cuts them) as they go, for input in one chunk: each thread claims its own pieces first, then the pieces no
 * other thread has started yet, so one that other work slows down (another program, the page's main thread on
 * the same core) is helped instead of holding up the MSM at its end, and equal threads keep the split's equal
 * shares. The pieces in one queue (thread t's at ranges[t]) with their buckets in one area, a claim counter
 * per thread (i32 words at `counters`, zeroed before each run), and a lane per thread with room for every piece
 * (null for a thread whose share is empty). Returns { queue, ranges, counters, lanes }.
 */
export function allocClaimLanes(heap, P, shape, split, { blockPoints, maxPairs } = {}) {
  const queue = split.flat();
  const ranges = [];
  for (let t = 0, start = 0; t < split.length; start += split[t++].length) ranges.push([start, start + split[t].length]);
  const maxPieces = queue.length;
  maxPairs ??= Math.max(1, ...queue.map((p) => p.count));
  // a thread with no share (fewer items than threads) takes no part, as the plan counts lanes; S as the plan's
  const active = split.filter((pieces) => pieces.length > 0).length;
  const expectedPieces = lanePieces(shape.K, active);
  const buckets = heap.alloc(Math.max(1, maxPieces) * shape.L * P.affineBytes, 64);
  const counters = heap.alloc(4 * split.length, 4);
  const lanes = split.map((pieces) => (pieces.length ? allocLane(heap, P, shape, [], { blockPoints, maxPairs, maxPieces, expectedPieces, buckets }) : null));
  return { queue, ranges, counters, lanes };
}

/** Bytes combineWindows and pointToBytes take at the end. */
export function allocFinish(heap, P, shape) {
  heap.alloc(shape.K * P.jacobianBytes);
  heap.alloc(P.jacobianBytes);
  heap.alloc(P.affineBytes);
  heap.alloc(2 * P.field.bytes);
}
