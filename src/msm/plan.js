// The shape of one MSM (window c, K windows, L buckets per window) and how its work splits into pieces.
// A piece is (window k, pairs [first, first + count)). One thread takes one piece per window over all
// pairs. T threads take the K * m (window, pair) items window-major, a contiguous 1/T share each: every
// thread does the same number of bucket additions, whatever T and K, and a share crosses at most
// ceil(K / T) + 1 windows, each costing it one bucket reduction (2L additions).

import { chooseWindow } from './window.js';

/**
 * @param P runtime params of the curve; n points; window: a forced c, or undefined to choose
 * @returns frozen { n, m pairs, bits per pair, c, K windows, L buckets per window }
 */
export function msmShape(P, n, window, threads = 1) {
  const m = P.glv ? 2 * n : n;
  const bits = P.glv ? P.glv.halfBits : P.rBits;
  const c = window ?? chooseThreadedWindow(m, bits, threads);
  if (!Number.isInteger(c) || c < 2 || c > 24) throw new RangeError(`window must be an integer in 2..24, got ${c}`);
  // One more bit than the scalar for the carry of the top signed digit.
  return Object.freeze({ n, m, bits, c, K: Math.ceil((bits + 1) / c), L: 1 << (c - 1) });
}

export const singleThreadPieces = ({ K, m }) => Array.from({ length: K }, (_, k) => ({ k, first: 0, count: m }));

/** The pieces of each of T threads (an empty list for a thread with nothing to do). */
export function splitPieces({ K, m }, T) {
  const total = K * m;
  const lanes = [];
  for (let t = 0; t < T; t++) {
    const end = Math.floor(((t + 1) * total) / T);
    const pieces = [];
    for (let at = Math.floor((t * total) / T); at < end; ) {
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
