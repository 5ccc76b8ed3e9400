// The plan of a GPU MSM: the window model, and the window, chunk, segment and group sizes of a call within the
// memory budget and the device's limits, with or without the GLV split. Pure arithmetic: no device here.

import { SCAN_BLOCK, affineWords, pointWords } from './layout.js';

/** Working memory on the GPU when the caller sets no maxMemory. */
export const DEFAULT_GPU_MEMORY = 2 ** 30;
/**
 * Accumulate threads aimed at (enough to fill a large GPU: each sums a segment of the entries) and reduce threads
 * (each reduces a group of buckets, then adds (g M) T by double-and-add: fewer, larger groups make that a smaller
 * share). Chosen on an H200 (docs/gpu.md): with 2^14 reduce threads the reduce phase ran 1.5-1.75x faster than
 * with 2^15 at 2^20 points, with 2^17 2.3x slower; 2^18 accumulate threads were slower than 2^16 in every row, 2^17
 * in three of four. run: the sums each sumRuns thread adds, a level at a time (a chain of `run` additions a level):
 * 4 made the reduce phase 17-30% faster than 16 in all six rows of an H200 run (BN254 and BLS12-381, 2^10 to 2^20).
 * Benchmarks set them to compare (evaluate-msm --gpu --gpu-threads); the plan of each call reads them.
 */
export const GPU_THREADS = { accumulate: 2 ** 16, reduce: 2 ** 14, run: 4 };
/**
 * GLV on the GPU where the module has it (gpu.glv): each scalar split in two halves of about half its bits, the second
 * on phi(P) = (beta x, y), so half the windows (half the buckets to reduce) over twice the points (about the same
 * number of bucket entries), where the window model counts fewer additions that way. Benchmarks turn it off to compare
 * (evaluate-msm --gpu --gpu-no-glv).
 */
export const GPU_GLV = { enabled: true };
/** Point indices travel as index << 1 | sign, and error codes as index << 2 | reason, in u32. */
export const MAX_GPU_POINTS = 2 ** 30 - 1;

export const ceilDiv = (a, b) => Math.ceil(a / b);
const nextPow2 = (x) => 2 ** Math.ceil(Math.log2(Math.max(1, x)));

/**
 * The window model: for m points of `bits`-bit scalars, the c minimizing the additions, m K mixed additions to fill
 * the buckets and about 2 K L full ones (each about 1.3 mixed) to reduce them; { c, cost } (cost in mixed additions).
 */
function windowModel(m, bits) {
  let best = { c: 1, cost: Infinity };
  for (let c = 1; c <= 20; c++) {
    const K = Math.floor(bits / c) + 1;
    const cost = K * (m + 2.6 * 2 ** (c - 1));
    if (cost < best.cost) best = { c, cost };
  }
  return best;
}

/** Window bits for m points of `bits`-bit scalars (the window model's). */
export function chooseGpuWindow(m, bits) {
  return windowModel(m, bits).c;
}

/** The scan's levels: counts[0] = K L + 1 histogram entries, each next level one sum per block of the one before. */
function scanLevels(count) {
  const counts = [count];
  while (counts.at(-1) > SCAN_BLOCK) counts.push(ceilDiv(counts.at(-1), SCAN_BLOCK));
  counts.push(1); // the top block's total
  return counts;
}

/**
 * The shape of one chunk of `chunk` points: window c, K windows of L buckets, segment S, reduce groups of M, and
 * every buffer's bytes. gpu: the module's shape (src/gpu/index.js gpuShape: words per component and scalar, ...). glv:
 * the scalars split in halves (gpu.glv; bits is then their halfBits): the digits of 2 chunk points (each P and its
 * phi(P)), the points' buffer twice as large, and the halves' records.
 */
export function chunkShape(gpu, chunk, bits, window, glv = false) {
  const split = glv ? 2 : 1;
  const c = window ?? chooseGpuWindow(split * chunk, bits);
  const K = Math.floor(bits / c) + 1;
  const L = 2 ** (c - 1);
  const entries = split * chunk * K;
  const segment = Math.min(256, Math.max(4, ceilDiv(entries, GPU_THREADS.accumulate)));
  const segments = Math.max(1, ceilDiv(entries, segment));
  const groupSize = Math.min(L, nextPow2(ceilDiv(K * L, GPU_THREADS.reduce)));
  const groups = ceilDiv(L, groupSize);
  const run = GPU_THREADS.run;
  // (a TypeError: planGpuCall takes a RangeError to mean that a plan does not fit)
  if (!(Number.isInteger(run) && run >= 2)) throw new TypeError(`GPU_THREADS.run must be an integer >= 2, got ${run}`);
  const PW = 4 * pointWords(gpu);
  const levels = scanLevels(K * L + 1);
  const bytes = {
    input: chunk * 2 * gpu.degree * gpu.componentWords * 4,
    scalars: chunk * gpu.scalarWords * 4,
    points: split * chunk * 4 * affineWords(gpu),
    skip: chunk * 4,
    entries: entries * 4,
    cursors: K * L * 4,
    parts: 2 * segments * PW,
    buckets: K * L * PW,
    sumsA: K * groups * PW,
    sumsB: K * ceilDiv(groups, run) * PW,
    result: K * PW, // the window sums, added up over the chunks
    status: 16,
  };
  if (glv) bytes.halves = 2 * chunk * 4 * gpu.glv.recordWords;
  levels.forEach((count, i) => (bytes[`scan${i}`] = count * 4));
  // host-visible: the uploads' staging buffers (within the device's largest buffer, outside the GPU budget)
  const staging = { stagePoints: bytes.input, stageScalars: bytes.scalars };
  for (const b of [bytes, staging]) for (const k of Object.keys(b)) b[k] = Math.max(16, Math.ceil(b[k] / 16) * 16);
  const total = Object.values(bytes).reduce((a, b) => a + b, 0);
  return { chunk, glv, c, K, L, segment, segments, groupSize, groups, run, levels, bytes, staging, total };
}

/**
 * Whether scalars of `bits` bits can be split by GLV: the module has the split (gpu.glv), the halves are shorter, and
 * benchmarks have not turned it off (GPU_GLV). Whether a call does is planGpuCall's choice; prepared bases that hold
 * the images split every call this allows (a call on a prefix of them plans over their chunk, which a plan without
 * the split, a larger window, may not fit).
 */
export function useGlv(gpu, bits) {
  return !!gpu.glv && GPU_GLV.enabled && bits > gpu.glv.halfBits;
}

/** The window model's additions of a plan over n points: K (points + 2.6 L) a chunk, as windowModel counts them. */
const planAdditions = (plan, n) => plan.K * ((plan.glv ? 2 : 1) * n + 2.6 * plan.L * plan.chunks);

/**
 * The plan of an MSM of n points (planGpuMsm), split by GLV where useGlv allows it and the window model counts fewer
 * additions over the plan's chunks that way: a window's rounding up can take back what the split saves (Pallas's
 * 128-bit halves of 255-bit scalars from about 0.5 to 1.7 million points in one chunk), and the chunks of a large
 * input decide, not its size.
 */
export function planGpuCall(gpu, n, bits, options) {
  // (a RangeError: no chunk of that plan fits; anything else is thrown)
  const plan = (glv) => {
    try {
      return planGpuMsm(gpu, n, bits, { ...options, glv });
    } catch (e) {
      if (e instanceof RangeError) return e;
      throw e;
    }
  };
  const plain = plan(false);
  const split = useGlv(gpu, bits) ? plan(true) : plain;
  if (split instanceof Error) {
    if (plain instanceof Error) throw plain;
    return plain;
  }
  return plain instanceof Error || planAdditions(split, n) < planAdditions(plain, n) ? split : plain;
}

/**
 * The plan of an MSM of n points: the largest chunk (n, halved until it fits) whose buffers fit the device's
 * limits and the budget. The caller's window holds for every chunk. RangeError when not even one point fits.
 * glv: split the scalars (planGpuCall chooses), windows then over gpu.glv.halfBits.
 */
export function planGpuMsm(gpu, n, bits, { maxMemory = DEFAULT_GPU_MEMORY, window, limits, glv = false }) {
  const fits = (shape) => shape.total <= maxMemory &&
    Object.values(shape.bytes).every((b) => b <= limits.maxStorageBufferBindingSize && b <= limits.maxBufferSize);
  // with GLV, entries carry the indices of 2 chunk points (index << 1 | sign): within MAX_GPU_POINTS
  const most = glv ? Math.floor(MAX_GPU_POINTS / 2) : MAX_GPU_POINTS;
  for (let chunk = Math.min(most, Math.max(1, n)); ; chunk = Math.ceil(chunk / 2)) {
    const shape = chunkShape(gpu, chunk, glv ? gpu.glv.halfBits : bits, window, glv);
    if (fits(shape)) return { ...shape, chunks: Math.max(1, Math.ceil(n / chunk)) };
    if (chunk === 1) {
      throw new RangeError(`the GPU MSM needs at least ${shape.total} bytes for one point with window ${shape.c} (maxMemory ${maxMemory}, ` +
        `largest buffer ${limits.maxStorageBufferBindingSize} bytes)`);
    }
  }
}
