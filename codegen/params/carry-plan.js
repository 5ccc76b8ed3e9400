// Where the Montgomery product needs carries, decided from exact worst-case bounds on every accumulator (64-bit
// for the WAT kernels, 32-bit for the WGSL ones). Nothing here runs at run time: the plan is baked into the
// generated text.
//
// The product is operand-scanning (one outer step per limb x_i of x) with lazy carries. Outer step i
// computes, column by column (j = 0..n-1), into accumulators S_0..S_{n-1} (i64 in the WAT, u32 in the WGSL):
//   column 0:  t = S_0 + x_i*y_0;  q_i = (t * mu) mod 2^w;  t += q_i*p_0;  carry = t >> w  (t mod 2^w = 0)
//   column j:  t = S_j + x_i*y_j + q_i*p_j + carry_(j-1);  S_(j-1) = t          (shift down = divide by 2^w)
// A column "splits" when it must: carry_j = t >> w and t = t mod 2^w. The plan fixes, at generation time,
// which columns split at their end (every k-th, k as large as the bounds allow) and, where even one more
// product would overflow the accumulator (64 bits: w = 31, 32; 32 bits: w = 16), splits in the middle of a
// column too.
//
// The bound analysis is a fixpoint over the outer step: starting from S = 0, it repeats the step with the
// largest bounds seen so far until the bounds stop growing, so the same (looped or unrolled) step is proven
// safe for every i.

/**
 * @param {{ n: number, w: number, xMax: bigint, yMax: bigint[], pLimbs: bigint[], accumulatorBits?: number }} shape
 *   xMax bounds every limb of x; yMax[j] bounds limb j of y (the top limbs are smaller when inputs < 2p);
 *   accumulatorBits: the width of every accumulator and carry (64: i64 in Wasm; 32: u32 in WGSL).
 */
export function planMontgomeryCarries({ n, w, xMax, yMax, pLimbs, accumulatorBits = 64 }) {
  const shape = { n, w, xMax, yMax, pLimbs, accMax: (1n << BigInt(accumulatorBits)) - 1n };
  for (let k = n; k >= 1; k--) {
    const plan = tryPlan(shape, k, false);
    if (plan) return plan;
  }
  const plan = tryPlan(shape, 1, true);
  if (!plan) throw new Error(`no carry plan fits ${accumulatorBits}-bit accumulators for n=${n}, w=${w}`);
  return plan;
}

function tryPlan(shape, spacing, allowMidSplits) {
  const { n } = shape;
  const endSplit = Array.from({ length: n }, (_, j) => j % spacing === 0);
  let sBound = new Array(n).fill(0n);
  for (let round = 0; round < 4 * n + 8; round++) {
    const step = simulateStep(shape, sBound, endSplit, allowMidSplits);
    if (!step) return null;
    if (step.sOut.every((b, j) => b <= sBound[j])) {
      const final = finalCarryBounds(shape, sBound);
      if (!final) return null;
      return freezePlan(shape, spacing, endSplit, step, sBound, final);
    }
    sBound = sBound.map((b, j) => (step.sOut[j] > b ? step.sOut[j] : b));
  }
  return null;
}

/** One outer step with accumulator bounds sIn; returns the ops per column and the bounds after it. */
function simulateStep({ n, w, xMax, yMax, pLimbs, accMax }, sIn, endSplit, allowMidSplits) {
  const mask = (1n << BigInt(w)) - 1n;
  const W = BigInt(w);
  const qMax = mask;
  const sOut = new Array(n).fill(0n);
  const columns = [];
  let maxAccumulator = 0n;
  let carryIn = null;
  for (let j = 0; j < n; j++) {
    const terms = [
      ['S', sIn[j]],
      ['xy', xMax * yMax[j]],
      ['qp', qMax * pLimbs[j]],
    ];
    if (carryIn !== null) terms.push(['carry', carryIn]);
    const ops = [];
    let acc = 0n;
    let carryOut = null;
    for (const [name, bound] of terms) {
      if (bound === 0n && name === 'S') continue; // S_j is known to be zero (first step)
      if (acc + bound > accMax) {
        if (!allowMidSplits || acc === 0n) return null;
        ops.push('split');
        carryOut = (carryOut ?? 0n) + (acc >> W);
        acc = acc < mask ? acc : mask;
      }
      ops.push(name);
      acc += bound;
      if (acc > maxAccumulator) maxAccumulator = acc;
    }
    const split = j === 0 || endSplit[j];
    if (split) carryOut = (carryOut ?? 0n) + (acc >> W);
    if (carryOut !== null && carryOut > accMax) return null; // the carry is an accumulator too
    if (j > 0) sOut[j - 1] = split ? (acc < mask ? acc : mask) : acc;
    columns.push({ ops, endSplit: split });
    carryIn = carryOut;
  }
  sOut[n - 1] = carryIn ?? 0n;
  return { columns, sOut, maxAccumulator, topCarry: carryIn !== null };
}

/** Bounds of the closing carry pass that brings every S_j back to w bits. */
function finalCarryBounds({ n, w, accMax }, sBound) {
  let carry = 0n;
  let max = 0n;
  for (let j = 0; j < n; j++) {
    const t = sBound[j] + carry;
    if (t > accMax) return null;
    if (t > max) max = t;
    carry = t >> BigInt(w);
  }
  return { maxAccumulator: max };
}

function freezePlan({ n, w, accMax }, spacing, endSplit, step, sBound, final) {
  const midSplits = step.columns.reduce((s, c) => s + c.ops.filter((o) => o === 'split').length, 0);
  const endSplits = step.columns.filter((c) => c.endSplit).length;
  const productsPerStep = 2 * n;
  const splitsPerStep = midSplits + endSplits;
  const maxAccumulator = step.maxAccumulator > final.maxAccumulator ? step.maxAccumulator : final.maxAccumulator;
  return Object.freeze({
    accumulatorBits: accMax.toString(2).length,
    spacing,
    columns: Object.freeze(step.columns.map((c) => Object.freeze({ ops: Object.freeze([...c.ops]), endSplit: c.endSplit }))),
    topCarry: step.topCarry,
    accumulatorBounds: Object.freeze([...sBound]),
    maxAccumulatorBits: maxAccumulator.toString(2).length,
    midSplitsPerStep: midSplits,
    splitsPerStep,
    summary:
      `w=${w}, n=${n}: a carry every ${spacing} column${spacing > 1 ? 's' : ''}` +
      (midSplits ? ` plus ${midSplits} inside columns` : '') +
      `; ${splitsPerStep} carries per ${productsPerStep} limb products ` +
      `(about one per ${(productsPerStep / splitsPerStep).toFixed(1)}); ` +
      `largest accumulator < 2^${maxAccumulator.toString(2).length}`,
  });
}
