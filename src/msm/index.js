// The MSM as named phases over pointers into Wasm memory. JS handles indices and scalar bits; every
// field element stays in Wasm.
//
//   prepare     GLV split of each scalar (s = s0 + s1*lambda) and the endomorphism images of the points
//   digits      signed c-bit windows of every (half-)scalar, carrying between windows, point sign folded in
//   sort        counting sort of the point indices of one window by bucket (|digit|), sign in bit 31
//   gather      copy the points of that window into bucket order (negated where the digit is negative)
//   accumulate  batch-affine passes: in pass m add the point 2^m further on into every 2^(m+1)-th slot
//   reduce      sum_l l * B_l for every window: S independent running sums per window, batch-affine
//               across all windows and segments, then a few Jacobian steps to join the segments
//   combine     sum_k 2^(c k) W_k in Jacobian coordinates

import { chooseWindow } from './window.js';

const BATCH_CHUNK = 8192;
const BLOCK_POINTS = 16384;

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * @param curve a Curve (src/curve.js)
 * @param args.points pointer to n affine points with room for 2n + 1; args.scalars pointer to n scalars
 * @returns pointer to the affine result (in the curve's heap; valid until the caller releases it)
 */
export function msmPointers(curve, { points, scalars, n, options = {} }) {
  const ex = curve.exports;
  const heap = curve.heap;
  const P = curve.params;
  const A = P.affineBytes;
  const J = P.jacobianBytes;
  const timings = options.timings ?? null;
  let t0 = now();
  const phase = (name) => {
    if (!timings) return;
    const t = now();
    timings[name] = (timings[name] ?? 0) + (t - t0);
    t0 = t;
  };

  // ---- prepare ----------------------------------------------------------------------------------
  let m; // number of (point, scalar) pairs after GLV
  let bits; // scalar bits per pair
  let halves; // where msm_digits reads each group of pairs: [words, stride, count, wordCount, negs, negStride, first]
  if (P.glv) {
    const { H, recordBytes, halfBits } = P.glv;
    const records = heap.alloc(n * recordBytes);
    ex.glv_decomposeBatch(records, scalars, n);
    ex.g_endomorphism(points + n * A, points, n);
    m = 2 * n;
    bits = halfBits;
    // Record: |k0| (H words) | |k1| (H words) | neg0 | neg1. Pair i < n takes k0, pair n + i takes k1.
    halves = [
      [records, recordBytes, n, H, records + 8 * H, recordBytes, 0],
      [records + 4 * H, recordBytes, n, H, records + 8 * H + 4, recordBytes, n],
    ];
  } else {
    m = n;
    bits = P.rBits;
    // Scalars padded to whole u32 words, so no window reads into the next scalar.
    const S = P.scalarBytes;
    const wordCount = Math.ceil(S / 4);
    const padded = heap.alloc(n * 4 * wordCount);
    const dst = new Uint8Array(curve.memory.buffer, padded, n * 4 * wordCount);
    const src = new Uint8Array(curve.memory.buffer, scalars, n * S);
    dst.fill(0);
    for (let i = 0; i < n; i++) dst.set(src.subarray(i * S, (i + 1) * S), i * 4 * wordCount);
    halves = [[padded, 4 * wordCount, n, wordCount, 0, 0, 0]];
  }
  phase('prepare');

  const c = options.window ?? chooseWindow(m, bits);
  if (!Number.isInteger(c) || c < 2 || c > 24) throw new RangeError(`window must be an integer in 2..24, got ${c}`);
  const K = Math.ceil((bits + 1) / c); // one more bit for the carry of the top signed digit
  const L = 1 << (c - 1);

  // ---- digits: every window of every pair, signed, the point's sign folded in (Wasm: msm_digits) ----
  const digits = heap.alloc(K * m * 4);
  for (const [words, stride, count, wordCount, negs, negStride, first] of halves) {
    ex.msm_digits(digits, words, stride, count, wordCount, negs, negStride, c, K, m, first);
  }
  phase('digits');

  // Segments for the bucket reduction: S running sums per window, each over L / S buckets.
  const S = Math.min(L, Math.max(1, 2 ** Math.round(Math.log2(Math.max(1, 512 / K)))));
  const segLen = L / S;

  const buckets = heap.alloc(K * L * A, 64); // bucket sums B[k][l - 1]
  const work = heap.alloc((m + 1) * A, 64); // one window's points in bucket order, plus an infinity slot
  const infinitySlot = work + m * A;
  ex.fp_setZero(infinitySlot);
  ex.fp_setZero(infinitySlot + P.E);
  new Uint32Array(curve.memory.buffer, infinitySlot + P.infOffset, 1)[0] = 1;
  const maxPairs = Math.max(m >> 1, K * S, L) + 1;
  const pairs = heap.alloc(maxPairs * 8);
  const scratch = heap.alloc(Math.min(maxPairs, BATCH_CHUNK) * (2 * P.E + 4));
  const entries = heap.alloc(Math.max(m, L, K * S) * 4);
  const countsPtr = heap.alloc((L + 2) * 4);
  const startsPtr = heap.alloc((L + 2) * 4);
  const fillPtr = heap.alloc((L + 2) * 4);
  // Views on Wasm memory: made after the last allocation that could grow (and so detach) the buffer.
  const counts = new Int32Array(curve.memory.buffer, countsPtr, L + 2);
  const starts = new Int32Array(curve.memory.buffer, startsPtr, L + 2);
  phase('allocate');

  // One inversion per chunk of pairs: large enough to amortise it (< 1%), small enough that the
  // chunk's scratch (two field elements per pair) stays in cache.
  const batchAdd = (count) => {
    for (let at = 0; at < count; at += BATCH_CHUNK) ex.g_batchAdd(pairs + 8 * at, Math.min(BATCH_CHUNK, count - at), scratch);
  };

  for (let k = 0; k < K; k++) {
    // ---- sort: counting sort of window k's pairs by bucket (Wasm: msm_bucketSort) -------------------
    ex.msm_bucketSort(digits + 4 * k * m, m, L, countsPtr, startsPtr, fillPtr, entries);
    phase('sort');

    // ---- gather + accumulate, a block of buckets at a time so its points stay in cache -------------
    // Within a bucket, pass m adds slot j + 2^m into slot j (j a multiple of 2^(m+1)): an implicit binary
    // tree, each pass one batch over the whole block.
    const pr = new Uint32Array(curve.memory.buffer, pairs, maxPairs * 2);
    for (let first = 1; first <= L; ) {
      let last = first;
      while (last < L && starts[last + 1] - starts[first] < BLOCK_POINTS) last++;
      const blockStart = starts[first];
      ex.g_gather(work + blockStart * A, points, entries + 4 * blockStart, starts[last + 1] - blockStart);
      phase('gather');
      for (let step = 1; ; step <<= 1) {
        let count = 0;
        for (let l = first; l <= last; l++) {
          const size = counts[l];
          if (size <= step) continue;
          const base = work + starts[l] * A;
          for (let j = 0; j + step < size; j += 2 * step) {
            pr[2 * count] = base + j * A;
            pr[2 * count + 1] = base + (j + step) * A;
            count++;
          }
        }
        if (count === 0) break;
        batchAdd(count);
      }
      phase('accumulate');
      first = last + 1;
    }

    // ---- bucket sums of window k: slot 0 of each bucket, infinity for empty buckets ---------------
    const bEnt = new Uint32Array(curve.memory.buffer, entries, L);
    for (let l = 1; l <= L; l++) bEnt[l - 1] = counts[l] > 0 ? starts[l] : m;
    ex.g_gather(buckets + k * L * A, work, entries, L);
    phase('gather');
  }

  // ---- reduce: per window and segment s, running sums R += B_l, T += R over the segment's buckets ----
  const R = heap.alloc(K * S * A);
  const T = heap.alloc(K * S * A);
  {
    const ent = new Uint32Array(curve.memory.buffer, entries, K * S);
    ent.fill(m);
    ex.g_gather(R, work, entries, K * S);
    ex.g_gather(T, work, entries, K * S);
    const pr = new Uint32Array(curve.memory.buffer, pairs, maxPairs * 2);
    for (let j = segLen - 1; j >= 0; j--) {
      let count = 0;
      for (let k = 0; k < K; k++) {
        for (let s = 0; s < S; s++) {
          pr[2 * count] = R + (k * S + s) * A;
          pr[2 * count + 1] = buckets + (k * L + s * segLen + j) * A;
          count++;
        }
      }
      batchAdd(count);
      count = 0;
      for (let q = 0; q < K * S; q++) {
        pr[2 * count] = T + q * A;
        pr[2 * count + 1] = R + q * A;
        count++;
      }
      batchAdd(count);
    }
  }
  phase('reduce');

  // ---- join segments (Jacobian): W_k = sum_s T_s + segLen * sum_s s * R_s; then combine windows ------
  const acc = heap.alloc(J);
  const run = heap.alloc(J);
  const sum = heap.alloc(J);
  const tmp = heap.alloc(J);
  const windowSums = heap.alloc(K * J);
  const log2SegLen = Math.log2(segLen);
  for (let k = 0; k < K; k++) {
    ex.g_jacFromAffine(run, infinitySlot);
    ex.g_jacFromAffine(sum, infinitySlot);
    for (let s = S - 1; s >= 1; s--) {
      ex.g_jacFromAffine(tmp, R + (k * S + s) * A);
      ex.g_jacAdd(run, run, tmp);
      ex.g_jacAdd(sum, sum, run);
    }
    for (let i = 0; i < log2SegLen; i++) ex.g_jacDouble(sum, sum);
    for (let s = 0; s < S; s++) {
      ex.g_jacFromAffine(tmp, T + (k * S + s) * A);
      ex.g_jacAdd(sum, sum, tmp);
    }
    ex.g_jacCopy(windowSums + k * J, sum);
  }
  ex.g_jacCopy(acc, windowSums + (K - 1) * J);
  for (let k = K - 2; k >= 0; k--) {
    for (let i = 0; i < c; i++) ex.g_jacDouble(acc, acc);
    ex.g_jacAdd(acc, acc, windowSums + k * J);
  }
  const result = heap.alloc(A);
  ex.g_jacToAffine(result, acc);
  phase('combine');
  if (timings) {
    timings.window = c;
    timings.windows = K;
  }
  return result;
}
