// Window size c for m (point, scalar) pairs of `bits` bits.
//
// Measured with `npm run tune-window` on the reference machine (Intel Xeon, 2 vCPUs, Node 20.20, 2026-11-21)
// for BLS12-381 and BN254 with GLV (128-bit halves): the best c by log2(m), m = 2N pairs. Between
// measured sizes the nearer row applies. Outside the table, and for scalars of at most 64 bits, a cost model:
// K = ceil((bits + 1) / c) windows, each costing m additions to fill buckets plus 2 * 2^(c-1) to reduce them.
const MEASURED = new Map([
  [9, 9], [10, 9], [11, 10], [12, 10], [13, 11], [14, 12], [15, 13], [16, 13], [17, 14], [18, 15], [19, 16], [20, 16], [21, 16],
]);

/** Scalars of at most this many bits get the model's window (a table row would cover bits they do not have). */
const SMALL_BITS = 64;

/** A RangeError unless c is a window the MSM takes (2^(c-1) buckets a window). */
export function checkWindow(c) {
  if (!Number.isInteger(c) || c < 2 || c > 24) throw new RangeError(`window must be an integer in 2..24, got ${c}`);
}

export function chooseWindow(m, bits) {
  const logM = m > 0 ? Math.round(Math.log2(m)) : 0;
  // the table holds for wide scalars; small ones (plan.js msmShape: the largest scalar's bits) take the model
  if (bits > SMALL_BITS && MEASURED.has(logM)) return MEASURED.get(logM);
  let best = 2;
  let bestCost = Infinity;
  for (let c = 2; c <= 20; c++) {
    const K = Math.ceil((bits + 1) / c);
    const cost = K * (m + 2 ** c);
    if (cost < bestCost) {
      bestCost = cost;
      best = c;
    }
  }
  return best;
}
