// The shape of one MSM (window c, K windows, L buckets per window) and how its work splits into pieces.
// A piece is (window k, pairs [first, first + count)). One thread takes one piece per window over all
// pairs. T threads take the K * m (window, pair) items window-major, a contiguous share each (cut by the
// pool: src/threads/split.js); a share crosses about K / T + 1 windows, each costing it one bucket reduction
// (2L additions).
// A large input runs in chunks of C points (planMsm): each chunk's pieces add into buckets that outlive it, so
// the memory is one chunk's inputs and digits plus the buckets, whatever N.

import { checkWindow, chooseWindow } from './window.js';
import { Heap, MEMORY_LIMIT } from '../runtime/heap.js';
import { allocFinish, allocInputs, allocLane, allocWork, lanePieces, pairsOf, pairsPerPoint, recordPointsFor, STAGING_POINTS } from './layout.js';

/**
 * @param P runtime params of the curve; n points; window: a forced c, or undefined to choose
 * @param scalarBits the bit length of the largest scalar when known (scalarBitLength), else the curve's: scalars
 *   of at most P.glv.halfBits bits are not split (GLV would only add a half of zeros), and the windows cover just
 *   their bits, so small scalars take few windows (all bits: one window of two buckets)
 * @returns frozen { n, m pairs, glv (pairs are GLV halves), bits per pair, c, K windows, L buckets per window }
 */
export function msmShape(P, n, window, threads = 1, { windowLimitPoints = n, scalarBits } = {}) {
  const glv = !!P.glv && !(scalarBits <= P.glv.halfBits);
  const m = glv ? 2 * n : n;
  const bits = glv ? P.glv.halfBits : Math.max(1, Math.min(P.rBits, scalarBits ?? P.rBits));
  // 2^(c-1) buckets per window, in memory that is never given back: no more than the pairs can fill.
  // (windowLimitPoints: the whole MSM's points, when this is a thread's slice of it; the curve's pairs per point,
  // so whether a window is allowed does not depend on the scalars)
  const mLimit = pairsPerPoint(P) * Math.max(n, windowLimitPoints);
  const maxC = Math.max(16, Math.ceil(Math.log2(Math.max(1, mLimit))) + 2);
  const c = window ?? Math.min(maxC, chooseThreadedWindow(m, bits, threads));
  checkWindow(c);
  if (c > maxC) throw new RangeError(`window ${c} is too large for ${Math.max(n, windowLimitPoints)} points: at most ${maxC} (each window has 2^(c-1) buckets)`);
  // One more bit than the scalar for the carry of the top signed digit.
  return Object.freeze({ n, m, glv, bits, c, K: Math.ceil((bits + 1) / c), L: 1 << (c - 1) });
}

export const singleThreadPieces = ({ K, m }) => Array.from({ length: K }, (_, k) => ({ k, first: 0, count: m }));

/**
 * The pieces of each of T threads (an empty list for a thread with nothing to do). Thread t takes the items
 * [cuts[t], cuts[t + 1]) of the window-major order (item k * m + i is pair i of window k); by default
 * equal shares.
 */
export function splitPieces({ K, m }, T, cuts = equalCuts(K * m, T)) {
  const lanes = [];
  for (let t = 0; t < T; t++) {
    const end = cuts[t + 1];
    const pieces = [];
    for (let at = cuts[t]; at < end; ) {
      const k = Math.floor(at / m);
      const first = at - k * m;
      const count = Math.min(m - first, end - at);
      pieces.push({ k, first, count });
      at += count;
    }
    lanes.push(pieces);
  }
  return lanes;
}

/** Cuts of `total` items into T equal shares: [0, ..., total]. */
export const equalCuts = (total, T) => Array.from({ length: T + 1 }, (_, t) => Math.floor((t * total) / T));

/** n items in T contiguous shares as near equal as can be: [[first, end), ...] (how the pool splits points). */
export function equalShares(n, T) {
  const cuts = equalCuts(n, T);
  return Array.from({ length: T }, (_, t) => [cuts[t], cuts[t + 1]]);
}

/**
 * Modelled additions of the busiest of T threads for window c: its pairs plus 2L per piece it reduces. An
 * upper bound (a bucket of s points costs s - 1 additions), used to compare windows, not to predict time.
 */
export function busiestLaneCost(m, bits, T, c) {
  const K = Math.ceil((bits + 1) / c);
  const L = 1 << (c - 1);
  let worst = 0;
  for (const pieces of splitPieces({ K, m }, T)) {
    const cost = pieces.reduce((sum, p) => sum + p.count + 2 * L, 0);
    worst = Math.max(worst, cost);
  }
  return worst;
}

/**
 * The window for T threads. One thread: the measured table (window.js). More threads: from that c down
 * to c - 4, the largest window whose modelled busiest thread is within 3% of the best (more threads share
 * fewer windows each, so each reduction weighs more and a smaller c can win).
 */
export function chooseThreadedWindow(m, bits, T = 1) {
  const c1 = chooseWindow(m, bits);
  if (T <= 1) return c1;
  const candidates = [];
  for (let c = c1; c >= Math.max(2, c1 - 4); c--) candidates.push([c, busiestLaneCost(m, bits, T, c)]);
  const best = Math.min(...candidates.map(([, cost]) => cost));
  return candidates.find(([, cost]) => cost <= best * 1.03)[0];
}

/**
 * The working set (bytes of heap) an MSM without maxMemory keeps to: chunks of as many points as fit. Chunking
 * costs next to no time (a chunk adds its pairs to the buckets as one pass would, plus O(K L) bookkeeping), so
 * this only has to keep a large N from taking N-proportional memory.
 */
export const DEFAULT_WORKING_SET = 256 * 2 ** 20;

/** The window of a stream of unknown length is chosen as for this many points (then bounded by its memory). */
const STREAM_WINDOW_POINTS = 2 ** 20;

/**
 * Modelled costs, in additions, that come with each chunk and window: per bucket (the sort's counters, the
 * scan over the buckets, the merge batches) and per batch inversion. With these the plan's window for BLS12-381
 * 2^18 under budgets of 12, 24, 40 and 64 MiB was the fastest of the windows 13..16 that fit, or within the runs'
 * spread (5%) of it (`evaluate-msm --max-memory 12,24,40,64` with and without `--window c`; docs/memory.md).
 */
const PER_BUCKET_AND_CHUNK = 0.02;
const PER_CHUNK_WINDOW = 40;

/** The shape of window c (bits and K from the curve; n and m are a chunk's, set by chunkIO). */
const shapeOf = (P, c, n, windowLimitPoints, scalarBits) => msmShape(P, Number.isFinite(n) ? n : STREAM_WINDOW_POINTS, c, 1, { windowLimitPoints, scalarBits });

/**
 * Bytes one MSM allocates (layout.js, counted on a sizing heap) for chunks of `capacity` points with this shape.
 * One thread stages points and keeps records a block at a time; a pool's shared path (`pool`) keeps the whole
 * chunk's (its threads fill their own ranges) and splits the pieces over `threads` lanes, each at most
 * ceil(K / T) + 1 windows (a contiguous share of the window-major items).
 */
export function msmBytesFor(P, shape, capacity, { threads = 1, pool = false, checkSubgroup = false, blockPoints, reserve = 0 } = {}) {
  const heap = Heap.sizer();
  allocInputs(heap, P, capacity, {
    stagingPoints: pool ? capacity : Math.min(STAGING_POINTS, capacity),
    subgroupScratch: checkSubgroup ? threads : 0,
  });
  const inputs = heap.top;
  allocWork(heap, P, shape, capacity, { recordPoints: pool ? capacity : recordPointsFor(capacity) });
  const lanes = Math.min(threads, shape.K * pairsOf(shape) * capacity) || 1;
  const piecesPerLane = lanePieces(shape.K, lanes);
  const pieces = Array.from({ length: piecesPerLane }, (_, k) => ({ k, first: 0, count: 0 }));
  // A pool's lanes over input in one chunk claim their pieces (allocClaimLanes): at most K + lanes - 1 pieces, a
  // lane's running sums sized for all of them, their buckets in one area that the lanes' own count here covers
  // (lanes * piecesPerLane >= K + lanes: a piece's buckets to spare for alignment), and a claim counter per thread.
  const claiming = pool && lanes > 1;
  const maxPieces = claiming ? shape.K + lanes - 1 : piecesPerLane;
  for (let t = 0; t < lanes; t++) allocLane(heap, P, shape, pieces, { blockPoints, maxPairs: pairsOf(shape) * capacity, maxPieces });
  if (claiming) heap.alloc(4 * threads, 4);
  allocFinish(heap, P, shape);
  heap.alloc(reserve); // scratch of the caller's on top (decoding a point format)
  return { inputs, total: heap.top };
}

/** The largest capacity in [1, limit] whose bytes fit `budget`, or 0 (bytes grow with the capacity). */
function largestChunk(P, shape, limit, budget, options) {
  if (msmBytesFor(P, shape, 1, options).total > budget) return 0;
  let lo = 1;
  let hi = limit;
  if (msmBytesFor(P, shape, hi, options).total <= budget) return hi;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (msmBytesFor(P, shape, mid, options).total <= budget) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * How an MSM of n points (Infinity: a stream of unknown length) runs: its window and chunk size.
 * options: { window (a forced c), maxMemory (bytes of Wasm memory for the whole MSM), base (bytes below the MSM's
 * heap start, counted in maxMemory), threads, pool (the shared path's layout: see msmBytesFor), checkSubgroup,
 * blockPoints, windowLimitPoints (see msmShape), reserve (bytes of scratch the caller takes on top), workingSet (the
 * budget without maxMemory; default DEFAULT_WORKING_SET), scalarBits (the largest scalar's bit length, when known: see msmShape) }.
 * The window chosen for n stands, in as few chunks as fit the budget, while those chunks are not small against its
 * buckets; else, of the smaller windows, the one whose largest chunk that fits gives the least modelled work (by
 * 3%: the larger window on a near tie); where none of those fits (a few points, whose small window means many windows),
 * the least larger window that fits. A budget too small for one point per chunk is a RangeError that names the least
 * that works.
 * Returns { shape: { c, K, L, bits, glv }, chunkPoints, chunks, bytes, inputBytes, budget, window, scalarBits, sizeOptions }.
 */
export function planMsm(P, n, { window, maxMemory, base = 0, threads = 1, pool = false, checkSubgroup = false, blockPoints, windowLimitPoints, reserve, workingSet = DEFAULT_WORKING_SET, scalarBits } = {}) {
  const known = Number.isFinite(n);
  const sizeOptions = { threads, pool, checkSubgroup, blockPoints, reserve };
  const best = window ?? msmShape(P, known ? n : STREAM_WINDOW_POINTS, undefined, threads, { scalarBits }).c;
  // a Wasm memory addresses 4 GiB: a larger budget is that
  const budget = Math.min(maxMemory ?? workingSet + base, MEMORY_LIMIT) - base;
  const limit = known ? Math.max(1, n) : 2 ** 31;
  let chosen = null;
  let least = Infinity;
  /** The largest chunk of `shape` within the budget (0: none), the least budget of any window tried kept. */
  const fit = (shape) => {
    least = Math.min(least, msmBytesFor(P, shape, 1, sizeOptions).total);
    return largestChunk(P, shape, limit, budget, sizeOptions);
  };
  for (let c = best; c >= (window ?? 2); c--) {
    const shape = shapeOf(P, c, n, windowLimitPoints, scalarBits);
    const C = fit(shape);
    if (C === 0) continue;
    const points = known ? n : STREAM_WINDOW_POINTS;
    const chunks = Math.max(1, Math.ceil(points / C));
    const cost = shape.K * (pairsOf(shape) * points + 2 * shape.L) + chunks * shape.K * (PER_BUCKET_AND_CHUNK * shape.L + PER_CHUNK_WINDOW);
    // the window chosen for n was measured best; the model must find a smaller one clearly better to move off it
    if (!chosen || cost < 0.97 * chosen.cost) chosen = { shape, C, cost };
    // the window chosen for n stands while its chunks are not small against its buckets (in chunks of L / 3
    // points it took 1.04x one chunk's time at 2^18, docs/memory.md); else the model picks among the smaller ones
    if (c === best && C >= Math.min(limit, shape.L / 4)) break;
  }
  // A few points take a small window, and so many windows, each with memory of its own: where none of those fits, a
  // larger window that does (fewer windows, more buckets) runs instead of refusing a budget that more points fit
  for (let c = best + 1; !chosen && window === undefined && c <= 24; c++) {
    let shape;
    try {
      shape = shapeOf(P, c, n, windowLimitPoints, scalarBits);
    } catch {
      break; // past the largest window the points allow (msmShape)
    }
    const C = fit(shape);
    if (C > 0) chosen = { shape, C };
  }
  if (!chosen) throw budgetError(maxMemory, Math.ceil(least + base), window);
  const { shape, C } = chosen;
  const bytes = msmBytesFor(P, shape, C, sizeOptions);
  return Object.freeze({
    shape: Object.freeze({ c: shape.c, K: shape.K, L: shape.L, bits: shape.bits, glv: shape.glv }),
    chunkPoints: C,
    chunks: known ? Math.ceil(n / C) : Infinity,
    bytes: bytes.total,
    inputBytes: bytes.inputs,
    budget,
    window,
    scalarBits,
    sizeOptions: Object.freeze(sizeOptions),
  });
}

/**
 * planMsm(P, n, options) with reserveFor(batch) bytes of scratch beside it, for batches of up to maxBatch points decoded
 * at a time: the largest power of two that leaves a plan within the budget, so a tight budget decodes fewer points a
 * batch instead of refusing. Returns { plan, batch }; a budget too small for batches of one point is planMsm's error.
 */
export function planWithBatch(P, n, options, reserveFor, maxBatch) {
  for (let batch = maxBatch; ; batch = Math.max(1, batch >> 1)) {
    try {
      return { plan: planMsm(P, n, { ...options, reserve: reserveFor(batch) }), batch };
    } catch (e) {
      if (batch === 1 || e?.need === undefined) throw e;
    }
  }
}

/**
 * The RangeError of a budget too small to run at all, naming the least that works (`need` bytes, also kept as
 * e.need, so a pool whose threads each plan within a share of the budget can name the least for all of them).
 */
export function budgetError(maxMemory, need, window) {
  // no maxMemory given: the default working set is what was too small, and a maxMemory is the way past it
  const budget = maxMemory === undefined ? 'the default working set (no maxMemory given)' : `maxMemory ${maxMemory} bytes`;
  const e = new RangeError(
    `${budget} is too small for this MSM: it needs at least ${need} bytes (${(need / 2 ** 20).toFixed(2)} MiB)` +
      `${window === undefined ? '' : ` with window ${window}`}, one point per chunk`,
  );
  e.need = need;
  return e;
}

/**
 * The shape for a stream planned with n = Infinity that ended inside its first chunk, after n points: the
 * window chosen for n (or the largest smaller one whose digits and lanes fit what the plan left beside the
 * inputs), or the plan's own when its window was forced.
 */
export function windowWithin(P, n, plan) {
  if (plan.window !== undefined) return plan.shape;
  const { threads = 1 } = plan.sizeOptions;
  const best = msmShape(P, n, undefined, threads, { scalarBits: plan.scalarBits });
  for (let c = best.c; c >= 2; c--) {
    const shape = msmShape(P, n, c, 1, { scalarBits: plan.scalarBits });
    const { inputs, total } = msmBytesFor(P, shape, n, plan.sizeOptions);
    if (total - inputs <= plan.budget - plan.inputBytes) return shape;
  }
  return msmShape(P, n, 2, 1, { scalarBits: plan.scalarBits });
}
