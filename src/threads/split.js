// How the shared-memory pool cuts one MSM's (window, pair) items among its threads (src/msm/plan.js splitPieces
// takes the cuts): every thread the same number of nonzero digits (bucket additions), whatever T, K and the
// scalars, and the same cuts in every chunk. Pool-only, so not in src/msm/: the bundler splits by module, and a
// curve's static bundle carries every export of the modules it imports (test/bundle.test.js: under 64 KiB).

import { equalCuts } from '../msm/plan.js';

/** What a zero digit costs (it is sorted and skipped) next to a nonzero one (an addition), in the weighted split. */
const ZERO_DIGIT_WEIGHT = 1 / 16;

/**
 * Cuts for splitPieces that give every thread the same share of the work the digits ask for, not of the items:
 * inputs with many small or zero scalars have windows (or halves of windows, under GLV) with few nonzero
 * digits. segments: [{ k, first, count, nonzero }], the nonzero digits of window k among pairs
 * [first, first + count), covering every window's pairs once; within a segment the digits count as spread
 * evenly. A cut near a window boundary moves onto it (one reduction less for a thread, a little imbalance).
 */
export function weightedCuts({ K, m, L }, T, segments) {
  const ordered = [...segments].filter((s) => s.count > 0).sort((a, b) => a.k - b.k || a.first - b.first);
  const weights = ordered.map((s) => s.nonzero + ZERO_DIGIT_WEIGHT * s.count);
  const starts = ordered.map((s) => s.k * m + s.first);
  const before = [0];
  for (const w of weights) before.push(before.at(-1) + w);
  const total = before.at(-1);
  if (!(total > 0)) return equalCuts(K * m, T);
  /** The weight of the items before item x (the segments tile the items in this order). */
  const weightAt = (x) => {
    let lo = 0;
    let hi = ordered.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= x) lo = mid;
      else hi = mid - 1;
    }
    return before[lo] + weights[lo] * Math.min(1, (x - starts[lo]) / ordered[lo].count);
  };
  const cuts = [0];
  let seg = 0;
  for (let t = 1; t < T; t++) {
    const target = (t * total) / T;
    while (seg < ordered.length - 1 && before[seg + 1] <= target) seg++;
    const into = weights[seg] > 0 ? Math.min(1, (target - before[seg]) / weights[seg]) : 0;
    let cut = starts[seg] + Math.round(into * ordered[seg].count);
    // A share that crosses a window boundary reduces one more window (2L additions): a cut whose nearest
    // boundary is within L of its weight (and within 1/16 of a share) moves onto it.
    const boundary = Math.round(cut / m) * m;
    if (Math.abs(weightAt(boundary) - target) <= Math.min(L, total / T / 16)) cut = boundary;
    cuts.push(Math.max(cuts[t - 1], cut));
  }
  cuts.push(K * m);
  return cuts;
}

/**
 * The pieces of a chunk of m pairs cut at the same places (fractions of a window) as `lanes` (pieces per thread)
 * were for a chunk of m0 pairs: every thread keeps its windows, so its buckets carry across chunks.
 */
export function scalePieces(lanes, m0, m) {
  const at = (x) => Math.round((x * m) / m0);
  return lanes.map((pieces) => pieces.map(({ k, first, count }) => ({ k, first: at(first), count: at(first + count) - at(first) })));
}
