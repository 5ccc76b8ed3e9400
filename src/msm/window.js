// Window size c for m (point, scalar) pairs of `bits` bits. Cost model: K = ceil((bits + 1) / c) windows,
// each costing m additions to fill buckets plus 2 * 2^(c-1) to reduce them.
export function chooseWindow(m, bits) {
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
