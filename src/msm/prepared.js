// Prepared bases: points that serve many MSMs (a proving key, a KZG setup) converted once, stored with what
// every MSM over them needs, and summed by the phases of src/msm/index.js.
//
// The table holds, for base i, its pairs j = H*i + h (h = 0: P_i; h = 1: phi(P_i) under GLV, H = 2; else H = 1)
// and, with precompute, every pair's multiples 2^(c t) Q_j for t < Kt (Kt windows of c bits); pair-major:
//
//   table[j * Kt + t] = 2^(c t) Q_j        (Kt = 1 without precompute)
//
// so the first k bases are the first H k Kt entries: a prefix of the bases is a prefix of the table.
// With precompute the digit of window t of pair j multiplies table[j Kt + t], so all windows share one set of
// buckets ("flat": one bucket accumulation over H k Kt items, one reduction, no doublings). Without it (or
// when a short prefix would not fill the table's buckets) the windows keep their own buckets as in msmBytes,
// over the table's pairs (digits between them are zero).

import { msmShape, singleThreadPieces } from './plan.js';
import { combineWindows, digitSegments, lanePartials, phaseTimer, runLane, setInfinity } from './index.js';
import { allocLane } from './layout.js';
import { MEMORY_LIMIT } from '../runtime/heap.js';
import { chooseWindow } from './window.js';
import { convertPoints } from './bytes.js';
import { checkSubgroupRange, subgroupScratchBytes } from './subgroup.js';

/** Bases converted, doubled and scattered into the table per batch. */
const BUILD_BATCH = 1024;

/** Scalar bits one pair's digits cover (a GLV half, or the whole scalar). */
const pairBits = (P) => (P.glv ? P.glv.halfBits : P.rBits);

/**
 * Modelled additions of one bucket sum of `items` digits over L buckets and its running-sum reduction: a bucket
 * of s digits costs s - 1, digits spread evenly fill L (1 - e^(-items / L)) of the L, the reduction 2L.
 */
export const bucketAdditions = (items, L) => items - L * (1 - Math.exp(-items / L)) + 2 * L;

/**
 * The window of a precompute table for N bases: the c that minimises the modelled additions of one flat MSM
 * over all N, H N Kt(c) items into 2^(c-1) buckets.
 */
export function chooseTableWindow(P, N) {
  const H = P.glv ? 2 : 1;
  let best = null;
  for (let c = 4; c <= 22; c++) {
    const cost = bucketAdditions(H * N * Math.ceil((pairBits(P) + 1) / c), 2 ** (c - 1));
    if (!best || cost < best.cost) best = { c, cost };
  }
  return best.c;
}

/**
 * What a table for N bases needs: { N, H pairs per base, c, Kt, entries, bytes }. precompute: false, or
 * { window } (c; undefined to choose).
 */
export function tableLayout(P, N, precompute) {
  const H = P.glv ? 2 : 1;
  let c = 0;
  let Kt = 1;
  if (precompute) {
    c = precompute.window ?? chooseTableWindow(P, N);
    if (!Number.isInteger(c) || c < 2 || c > 22) throw new RangeError(`precompute window must be an integer in 2..22, got ${c}`);
    Kt = Math.ceil((pairBits(P) + 1) / c);
  }
  const entries = H * N * Kt;
  return Object.freeze({ N, H, c, Kt, entries, bytes: entries * P.affineBytes });
}

/** Throws a clear RangeError when a table of `bytes` cannot fit above `top` in a 4 GiB memory. */
export function checkTableFits(layout, top, P) {
  if (top + layout.bytes + 64 * 2 ** 20 <= MEMORY_LIMIT) return;
  const mib = (x) => `${Math.ceil(x / 2 ** 20)} MiB`;
  const per = layout.H * layout.Kt * P.affineBytes;
  throw new RangeError(
    `the prepared bases need ${mib(layout.bytes)} (${layout.N} bases x ${per} bytes${layout.Kt > 1 ? `: precompute of ${layout.Kt} windows` : ''}), ` +
      `more than a 4 GiB Wasm memory holds${layout.Kt > 1 ? '; use fewer bases per handle or precompute: false' : ''}`,
  );
}

/** Heap scratch buildTable takes for `count` bases (a thread of the pool gets this much of its own). */
export function buildScratchBytes(P, layout, count) {
  const B = Math.min(BUILD_BATCH, Math.max(1, count));
  const { H, Kt } = layout;
  const round = (x) => Math.ceil(x / 8) * 8;
  return 64 + round(H * Kt * B * P.affineBytes) + round(B * 8) + round(B * (2 * P.E + 4)) + round(H * Kt * B * 4) + 64 + round(subgroupScratchBytes(P)) + 64;
}

/**
 * Fill the table's entries of bases [first, first + count) from their msmBytes encoding at `staging` (the
 * encoding of base first at staging): check and convert, check the subgroup when asked, then the doublings
 * and endomorphism images, scattered into place a batch at a time. Uses heap scratch (released).
 */
export function buildTable(ctx, heap, layout, table, staging, first, count, { checkSubgroup = false } = {}) {
  const { ex, memory, params: P } = ctx;
  const A = P.affineBytes;
  const { H, c, Kt } = layout;
  const mark = heap.mark();
  try {
    const B = Math.min(BUILD_BATCH, Math.max(1, count));
    // block: [h][t][b] for a batch of B bases (window-major, so each step works on contiguous points)
    const block = heap.alloc(H * Kt * B * A, 64);
    const pairs = heap.alloc(B * 8);
    const scratch = heap.alloc(B * (2 * P.E + 4));
    const entries = heap.alloc(H * Kt * B * 4);
    const subgroup = checkSubgroup ? heap.alloc(subgroupScratchBytes(P), 64) : 0;
    for (let at = 0; at < count; at += B) {
      const size = Math.min(B, count - at);
      convertPoints(ctx, block, staging + at * 2 * P.field.bytes, size, first + at);
      if (checkSubgroup) checkSubgroupRange(ctx, subgroup, block, size, first + at);
      for (let t = 1; t < Kt; t++) {
        const from = block + (t - 1) * B * A;
        const to = block + t * B * A;
        new Uint8Array(memory.buffer).copyWithin(to, from, from + size * A);
        // c doublings in place: g_batchAdd with dst = src doubles (one inversion per batch)
        const pr = new Uint32Array(memory.buffer, pairs, 2 * size);
        for (let b = 0; b < size; b++) pr[2 * b] = pr[2 * b + 1] = to + b * A;
        for (let d = 0; d < c; d++) ex.g_batchAdd(pairs, size, scratch);
      }
      if (H === 2) {
        for (let t = 0; t < Kt; t++) ex.g_endomorphism(block + (Kt + t) * B * A, block + t * B * A, size);
      }
      // table entry ((first + at + b) H + h) Kt + t  <-  block[h][t][b]
      const ent = new Uint32Array(memory.buffer, entries, H * Kt * size);
      for (let b = 0; b < size; b++) {
        for (let h = 0; h < H; h++) for (let t = 0; t < Kt; t++) ent[(b * H + h) * Kt + t] = (h * Kt + t) * B + b;
      }
      ex.g_gather(table + (first + at) * H * Kt * A, block, entries, H * Kt * size);
    }
  } finally {
    heap.release(mark);
  }
}

/**
 * The shape of an MSM over the first k bases of a table. flat (precompute): one window over the H k Kt
 * entries, c and Kt the table's. Otherwise the windows of msmBytes (window: a forced c) over pairs Kt apart.
 * A precompute table answers a short prefix the windowed way when that is cheaper (its 2^(c-1) buckets
 * would be mostly empty).
 */
export function preparedShape(P, layout, k, window, windowLimitPoints = k) {
  const H = layout.H;
  if (layout.Kt > 1 && window === undefined) {
    const flatCost = H * k * layout.Kt + 2 ** layout.c;
    const c1 = chooseWindow(H * k, pairBits(P));
    const K1 = Math.ceil((pairBits(P) + 1) / c1);
    // zero digits between the pairs are sorted and skipped (about 1/16 of an addition each)
    const windowedCost = K1 * (H * k + 2 ** c1 + (H * k * (layout.Kt - 1)) / 16);
    if (flatCost <= windowedCost) {
      const m = H * k * layout.Kt;
      return Object.freeze({ flat: true, n: k, m, pairs: H * k, bits: pairBits(P), c: layout.c, K: 1, digitWindows: layout.Kt, L: 1 << (layout.c - 1) });
    }
  }
  const base = msmShape(P, k, window, 1, { windowLimitPoints });
  return Object.freeze({ ...base, flat: false, m: base.m * layout.Kt, pairs: base.m, digitWindows: base.K });
}

/**
 * Memory of one MSM over the first k bases (scalars at io.scalars): GLV records or padded scalars, digits, an
 * affine infinity; io.points is the table.
 */
export function allocPreparedInputs(heap, P, shape, { table, scalars }) {
  const k = shape.n;
  const io = { points: table, scalars, n: k, shape };
  if (P.glv) io.records = heap.alloc(Math.max(1, k) * P.glv.recordBytes);
  else io.padded = heap.alloc(Math.max(1, k) * 4 * Math.ceil(P.scalarBytes / 4));
  io.digits = heap.alloc(Math.max(1, shape.K * shape.m) * 4);
  io.infinity = heap.alloc(P.affineBytes, 64);
  return io;
}

/**
 * GLV split and digits of scalars [first, first + count) into the table's index space: digit t of pair j
 * (j = H i + h) at digits[j Kt + t] (flat), or at digits[t m + j Kt] (windowed; the zeros between are
 * written by whoever allocated the digits, see preparedDigitsZero).
 */
export function preparedDigits(ctx, io, layout, first, count) {
  const { ex, memory, params: P } = ctx;
  const s = io.shape;
  const { H, Kt } = layout;
  const windowStride = s.flat ? 1 : s.m;
  let halves;
  if (P.glv) {
    const { H: words, recordBytes } = P.glv;
    ex.glv_decomposeBatch(io.records + first * recordBytes, io.scalars + first * P.scalarBytes, count);
    const rec = io.records + first * recordBytes;
    halves = [
      [rec, recordBytes, words, rec + 8 * words, recordBytes],
      [rec + 4 * words, recordBytes, words, rec + 8 * words + 4, recordBytes],
    ];
  } else {
    const S = P.scalarBytes;
    const stride = 4 * Math.ceil(S / 4);
    const dst = new Uint8Array(memory.buffer, io.padded + first * stride, count * stride);
    const src = new Uint8Array(memory.buffer, io.scalars + first * S, count * S);
    dst.fill(0);
    for (let i = 0; i < count; i++) dst.set(src.subarray(i * S, (i + 1) * S), i * stride);
    halves = [[io.padded + first * stride, stride, stride / 4, 0, 0]];
  }
  halves.forEach(([words, stride, wordCount, negs, negStride], h) => {
    ex.msm_digits(io.digits, words, stride, count, wordCount, negs, negStride, s.c, s.digitWindows, windowStride, (first * H + h) * Kt, H * Kt);
  });
}

/** Windowed digits over a precompute table leave gaps (the other windows' entries): zero them first. */
export function preparedDigitsZero(ctx, io) {
  const s = io.shape;
  if (!s.flat && s.m !== s.pairs) new Int32Array(ctx.memory.buffer, io.digits, s.K * s.m).fill(0);
}

/** Nonzero digits per window among the items of bases [first, first + count) (segments for weightedCuts). */
export function countPreparedDigits(ctx, io, layout, first, count) {
  const per = layout.H * layout.Kt;
  return digitSegments(ctx, io, [[first * per, count * per]]);
}

/**
 * One MSM over the first k bases of a table on one thread (the table and scalars at these addresses of
 * instance's memory); returns a pointer to the affine result in instance.heap (with `partial`, to the Jacobian one).
 * options: { partial, window (windowed only), windowLimitPoints (the whole MSM's k, where this is a thread's slice of it: the
 * windows allowed are the whole MSM's), timings, onProgress }
 */
export function preparedMsmPointers(instance, layout, table, { scalars, k, options = {} }) {
  const ctx = { ex: instance.exports, memory: instance.memory, params: instance.params };
  const P = instance.params;
  const timings = options.timings ?? null;
  const phase = phaseTimer(timings);
  const shape = preparedShape(P, layout, k, options.window, options.windowLimitPoints);
  const io = allocPreparedInputs(instance.heap, P, shape, { table, scalars });
  setInfinity(ctx.memory, P, io.infinity);
  preparedDigitsZero(ctx, io);
  if (k > 0) preparedDigits(ctx, io, layout, 0, k);
  phase('digits');
  const lane = allocLane(instance.heap, P, shape, singleThreadPieces(shape), options);
  phase('allocate');
  const onProgress = options.onProgress;
  runLane(ctx, io, lane, { phase, progress: onProgress && ((done, total) => onProgress(done / (total + 1))) });
  const result = combineWindows(ctx, instance.heap, io, lanePartials(P, lane), { jacobian: !!options.partial });
  phase('combine');
  onProgress?.(1);
  if (timings) Object.assign(timings, { window: shape.c, windows: shape.K, flat: shape.flat });
  return result;
}
