// How the pool's threads share one MSM on one memory (the shared path): the K * m (window, pair) items, window-major,
// in contiguous tasks cut by their nonzero digits (bucket additions), whatever K and the scalars; first one large
// task a thread, then 2T small ones, each taken by the next thread that comes free (Workers.runTasks), so a thread
// slowed by other work on its core (another process, a phone's small core) holds the call up by a small task at
// most. A task crosses a window or two, each costing it one bucket reduction (2L additions). Each task has buckets
// of its own, kept across chunks; each thread a work area, whichever task it runs.
// Pool-only code lives here, not in src/msm/: the bundler splits by module, so whatever a module of the curve's
// static bundle exports is in that bundle (test/bundle.test.js keeps it under 64 KiB).

import { segmentsFor, allocLaneBuckets, allocLaneWork } from '../msm/layout.js';
import { splitPieces } from '../msm/plan.js';

/** What a zero digit costs (it is sorted and skipped) next to a nonzero one (an addition), in the weighted split. */
const ZERO_DIGIT_WEIGHT = 1 / 16;

/**
 * The share of the work the pool's threads take as small tasks at the end. Measured on this project's 2-vCPU VMs:
 * with one task each, one thread of two often worked 25-35% longer than the other on the same number of additions
 * (its core shared with other work); 2T tasks of a tenth of a share each leave it at most that much behind.
 */
const TAIL_SHARE = 0.2;

/** A small task is at least this many bucket reductions' worth of additions: its cut costs it one more (2L additions). */
const MIN_TASK_REDUCTIONS = 8;

/**
 * Fractions of the work, in order, of the tasks T threads take: one large task each, then T or 2T small ones (so
 * threads of the same speed take the same number), each TAIL_SHARE / 2T of the work and at least MIN_TASK_REDUCTIONS
 * reductions of it; none where that leaves no room (small MSMs, many threads: one task each, as equal as can be).
 * reductions: the work (nonzero digits) in units of one bucket reduction (2L additions); by default the most tasks.
 */
export function taskShares(T, reductions = Infinity) {
  if (T <= 1) return [1];
  const small = Math.max(TAIL_SHARE / (2 * T), MIN_TASK_REDUCTIONS / reductions);
  const count = T * Math.min(2, Math.floor(TAIL_SHARE / (T * small) + 1e-9));
  return [...Array(T).fill((1 - count * small) / T), ...Array(count).fill(small)];
}

/** The pieces of the tasks (taskShares) of T threads for the digits' segments (weightedCuts), the empty ones left out. */
export function taskPieces(shape, T, segments) {
  const weight = segments.reduce((sum, s) => sum + s.nonzero + ZERO_DIGIT_WEIGHT * s.count, 0);
  const shares = taskShares(T, weight / (2 * shape.L));
  return splitPieces(shape, shares.length, weightedCuts(shape, shares, segments)).filter((pieces) => pieces.length);
}

/** Cuts for `shares` of `total` items: [0, ..., total]. */
const sharedCuts = (total, shares) => {
  const cuts = [0];
  let sum = 0;
  for (const share of shares.slice(0, -1)) cuts.push(Math.round((sum += share) * total));
  cuts.push(total);
  return cuts;
};

/**
 * Cuts for splitPieces into tasks that take `shares` (fractions, in order: taskShares) of the work the digits
 * ask for, not of the items: inputs with many small or zero scalars have windows (or halves of windows, under
 * GLV) with few nonzero digits. segments: [{ k, first, count, nonzero }], the nonzero digits of window k among pairs
 * [first, first + count), covering every window's pairs once; within a segment the digits count as spread
 * evenly. A cut near a window boundary moves onto it (one reduction less, a little imbalance).
 */
export function weightedCuts({ K, m, L }, shares, segments) {
  const ordered = [...segments].filter((s) => s.count > 0).sort((a, b) => a.k - b.k || a.first - b.first);
  const weights = ordered.map((s) => s.nonzero + ZERO_DIGIT_WEIGHT * s.count);
  const starts = ordered.map((s) => s.k * m + s.first);
  const before = [0];
  for (const w of weights) before.push(before.at(-1) + w);
  const total = before.at(-1);
  if (!(total > 0)) return sharedCuts(K * m, shares);
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
  let target = 0;
  for (let t = 1; t < shares.length; t++) {
    target += shares[t - 1] * total;
    while (seg < ordered.length - 1 && before[seg + 1] <= target) seg++;
    const into = weights[seg] > 0 ? Math.min(1, (target - before[seg]) / weights[seg]) : 0;
    let cut = starts[seg] + Math.round(into * ordered[seg].count);
    // A task that crosses a window boundary reduces one more window (2L additions): a cut whose nearest
    // boundary is within L of its weight (and within 1/16 of the smaller task beside it) moves onto it.
    const boundary = Math.round(cut / m) * m;
    if (Math.abs(weightAt(boundary) - target) <= Math.min(L, (Math.min(shares[t - 1], shares[t]) * total) / 16)) cut = boundary;
    cuts.push(Math.max(cuts[t - 1], cut));
  }
  cuts.push(K * m);
  return cuts;
}

/**
 * The pieces of a chunk of m pairs cut at the same places (fractions of a window) as `lanes` (pieces per task)
 * were for a chunk of m0 pairs: every task keeps its windows, so its buckets carry across chunks.
 */
export function scalePieces(lanes, m0, m) {
  const at = (x) => Math.round((x * m) / m0);
  return lanes.map((pieces) => pieces.map(({ k, first, count }) => ({ k, first: at(first), count: at(first + count) - at(first) })));
}

/**
 * The lanes of a pool of T threads on one memory (the shared path), for planMsm: a work area per thread and the
 * buckets of its tasks (at most taskShares(T)), at most K + tasks - 1 pieces in all (each cut adds one), with at
 * most segmentsFor(1, L) running sums each, a task's 1..K pieces keeping at most pieceSums of them at once.
 */
export const poolLanes = (T) => (heap, P, shape, maxPairs, blockPoints) => {
  const { K, L } = shape;
  const pieces = (count) => Array.from({ length: count }, (_, k) => ({ k, first: 0, count: 0 }));
  const pieceSums = Math.max(...pieces(K).map((_, p) => (p + 1) * segmentsFor(p + 1, L)));
  for (let t = 0; t < T; t++) allocLaneWork(heap, P, shape, { blockPoints, maxPiece: maxPairs, pieceSums });
  const tasks = taskShares(T).length;
  for (let i = 0; i < tasks; i++) allocLaneBuckets(heap, P, shape, pieces(i === 0 ? K : 1), { segments: segmentsFor(1, L) });
};

/**
 * The pool's lanes over one memory: each list of pieces (a task: taskPieces) its buckets, each of T threads a work
 * area for the largest task (maxPairs: pairs a piece may have in any chunk). lane(i, t) is task i as thread t runs it.
 */
export function allocTasks(heap, P, shape, pieceLists, T, { maxPairs } = {}) {
  const tasks = pieceLists.map((pieces) => allocLaneBuckets(heap, P, shape, pieces));
  const maxPiece = maxPairs ?? Math.max(1, ...tasks.flatMap((task) => task.pieces.map((p) => p.count)));
  const pieceSums = Math.max(1, ...tasks.map((task) => task.pieces.length * task.S));
  const works = Array.from({ length: T }, () => allocLaneWork(heap, P, shape, { maxPiece, pieceSums }));
  return { tasks, lane: (i, t) => ({ ...works[t], ...tasks[i] }) };
}

/** onProgress(i, fraction of task i) as progress(fraction of all the tasks' items done). */
export function tasksProgress(tasks, shape, progress) {
  const items = tasks.map((task) => task.pieces.reduce((sum, p) => sum + p.count, 0));
  const done = new Array(tasks.length).fill(0);
  const total = shape.K * shape.m || 1;
  return (i, fraction) => {
    done[i] = fraction * items[i];
    progress(done.reduce((a, b) => a + b, 0) / total);
  };
}
