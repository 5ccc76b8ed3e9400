// The time model of the shared-memory pool (npm run thread-model -- --time), on top of the counted work of
// bench/thread-model.js: what the counts do not see, as a few terms fitted to the figures measured on the 16-core
// Xeon of issue #38, so that a change can be judged by the term it moves.
//
//   t(T) = serial + prepare + lanes + rounds
//   serial  = sigma * n                      the caller's thread alone: the inputs into the shared memory, the
//                                            allocation, the cuts, the combine (measured on 2 cores: perThread's
//                                            first start and the gaps between phases)
//   prepare = pi * a * adds(1) / T * (1 + betaP * (T - 1))
//                                            GLV and digits, 1/T of the points each; pi its share of the one-thread
//                                            time (measured), betaP the memory traffic T threads share (fitted to the
//                                            16-thread prepare phase)
//   lanes   = a * maxAdds(T) * (1 + betaL * (T - 1)) * (chunks > 1 ? 1 + gamma : 1)
//                                            the busiest thread's counted additions (imbalance and the reduction each
//                                            thread repeats are in the counts); betaL: the sort, the gather and the
//                                            buckets of T threads sharing caches and memory; gamma: input in chunks,
//                                            whose pieces were fixed when the Xeon's figures were taken (a slow
//                                            thread held up every chunk; the threads now claim in every chunk)
//   rounds  = rho * (2 * chunks + 1)         a round of messages per phase and chunk
//
// a (ms per addition) is fitted per curve and size to the one-thread pool (2^20, not measured on one thread, takes
// 2^18's; an addition costs more at 2^18 than at 2^16 on one thread already: larger buckets and point reads, memory
// traffic that one thread has too); betaL and gamma by least squares (logs) over the 16-thread rows. Chunks come from the plan (planMsm with the FMA build's layout, the pool's layout, T
// threads) under the working set the row ran with: 256 MiB before issue #38, defaultWorkingSet after.

import { planMsm } from '../src/msm/plan.js';
import { runtimeForKernel } from '../src/runtime/kernels.js';
import { defaultWorkingSet } from '../src/threads/working-set.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** Issue #38's table: the 16-core Intel Xeon (one socket, 300 MiB L3, no SMT), Node 24.21, FMA build, shared path. */
export const XEON = Object.freeze({
  machine: '16-core Intel Xeon (one socket, 300 MiB L3, no SMT), Node 24.21, FMA build, shared path (issue #38)',
  memory: { totalBytes: 128 * GiB, freeBytes: 125 * GiB },
  workingSetBefore: 256 * MiB,
  // ms: the runs' medians (two runs: two figures); maxMemory: the row ran with that budget
  rows: [
    { curve: 'bn254', logN: 16, threads: 1, ms: [546, 589] },
    { curve: 'bn254', logN: 16, threads: 16, ms: [59, 72] },
    { curve: 'bn254', logN: 18, threads: 1, ms: [2170, 2494] },
    { curve: 'bn254', logN: 18, threads: 16, ms: [225, 255] },
    { curve: 'bn254', logN: 20, threads: 16, ms: [684, 1046] },
    { curve: 'bn254', logN: 20, threads: 16, ms: [745], maxMemory: GiB },
    { curve: 'bls12-381', logN: 16, threads: 1, ms: [862] }, // the synchronous msmBytes: the issue has no one-thread pool figure here
    { curve: 'bls12-381', logN: 16, threads: 16, ms: [102] },
    { curve: 'bls12-381', logN: 18, threads: 1, ms: [3271, 3725] },
    { curve: 'bls12-381', logN: 18, threads: 16, ms: [400, 425] },
    { curve: 'bls12-381', logN: 20, threads: 16, ms: [1492] },
    { curve: 'bls12-381', logN: 20, threads: 16, ms: [1370], maxMemory: GiB },
  ],
  // BN254 2^18, 16 threads, the phases (ms): 2 chunks, so accumulate (the first) and lanes (the last)
  phases16: { curve: 'bn254', logN: 18, prepare: 17.8, lanes: 92.8, accumulate: 108.2, combine: 0.2 },
  // gnark-crypto v0.22, -tasks T, same inputs
  gnark: {
    bn254: { 16: { 1: [395, 455], 16: [39] }, 18: { 1: [1951], 16: [130] }, 20: { 16: [391] } },
    'bls12-381': { 16: { 1: [591, 644], 16: [69] }, 18: { 1: [2167], 16: [234] }, 20: { 16: [688] } },
  },
});

/**
 * Measured on the 2-vCPU VM (evaluate-msm --threads 1,2 with timings.perThread, 2^16 and 2^18): prepare over the
 * lanes at one thread, and the caller's serial time per point.
 */
export const MEASURED_2CORE = Object.freeze({ pi: { bn254: 0.059, 'bls12-381': 0.053 }, sigmaMsPerPoint: 8e-6, rhoMs: 0.3 });

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Chunks of the pool's plan for n points on T threads within a working set (or maxMemory), with the FMA layout. */
export function chunksOf(params, n, T, { workingSet, maxMemory } = {}) {
  const P = params.fma ? runtimeForKernel(params, 'fma') : params;
  return planMsm(P, n, { threads: T, pool: true, workingSet, maxMemory }).chunks;
}

/** The model's terms for one row; counts: { adds1, maxAdds } of thread-model; fit: { a, betaP, betaL, gamma }. */
export function predict({ n, T, chunks, counts, pi, fit, sigma = MEASURED_2CORE.sigmaMsPerPoint, rho = MEASURED_2CORE.rhoMs }) {
  const { a, betaP, betaL, gamma } = fit;
  const serial = sigma * n;
  const prepareIdeal = (pi * a * counts.adds1) / T;
  const prepare = prepareIdeal * (1 + betaP * (T - 1));
  const lanesIdeal = (a * counts.adds1) / T; // the one-thread work split evenly
  const lanesCounted = a * counts.maxAdds; // + imbalance and repeated reductions (counted)
  const lanesShared = lanesCounted * (1 + betaL * (T - 1));
  const lanes = lanesShared * (chunks > 1 ? 1 + gamma : 1);
  const rounds = rho * (2 * chunks + 1);
  const total = serial + prepare + lanes + rounds;
  return {
    total,
    terms: {
      ideal: prepareIdeal + lanesIdeal,
      'prepare traffic': prepare - prepareIdeal,
      'imbalance + repeated reductions': lanesCounted - lanesIdeal,
      'lanes traffic': lanesShared - lanesCounted,
      chunks: lanes - lanesShared,
      'serial + rounds': serial + rounds,
    },
    prepare,
    lanes,
  };
}

/**
 * Fit the model to XEON. counts(curve, logN, T) -> { adds1, maxAdds } (thread-model's counts); params(curve): the
 * curve's runtime params (with its fma build). Returns { fit per curve, rows with predicted and measured }.
 */
export function fitXeon(counts, params, data = XEON) {
  const { pi } = MEASURED_2CORE;
  const sigma = MEASURED_2CORE.sigmaMsPerPoint;
  const rho = MEASURED_2CORE.rhoMs;
  const rowsOf = data.rows.map((r) => {
    const n = 2 ** r.logN;
    const workingSet = data.workingSetBefore;
    const chunks = chunksOf(params(r.curve), n, r.threads, { workingSet, maxMemory: r.maxMemory });
    return { ...r, n, chunks, counts: counts(r.curve, r.logN, r.threads), measured: mean(r.ms) };
  });
  // a per curve and size: the one-thread pool (T = 1: no contention); a size without one takes the largest below
  const a = {};
  for (const r of rowsOf) {
    if (r.threads !== 1) continue;
    a[`${r.curve} 2^${r.logN}`] = (r.measured - sigma * r.n - rho * (2 * r.chunks + 1)) / (r.counts.adds1 * (1 + pi[r.curve]));
  }
  const aOf = (curve, logN) => {
    for (let k = logN; k > 0; k--) if (a[`${curve} 2^${k}`] !== undefined) return a[`${curve} 2^${k}`];
    throw new Error(`no one-thread figure for ${curve} at 2^${logN} or below`);
  };
  // betaP: the 16-thread prepare phase of BN254 2^18
  const ph = data.phases16;
  const r16 = rowsOf.find((x) => x.curve === ph.curve && x.logN === ph.logN && x.threads === 16);
  const prepareIdeal = (pi[ph.curve] * aOf(ph.curve, ph.logN) * r16.counts.adds1) / 16;
  const betaP = Math.max(0, (ph.prepare / prepareIdeal - 1) / 15);
  // betaL and gamma: least squares of the logs over the 16-thread rows (each run's figure one observation)
  let best = null;
  for (let betaL = 0; betaL <= 0.1 + 1e-9; betaL += 0.0005) {
    for (let gamma = 0; gamma <= 1.5 + 1e-9; gamma += 0.01) {
      let err = 0;
      for (const r of rowsOf) {
        if (r.threads === 1) continue;
        const p = predict({ n: r.n, T: r.threads, chunks: r.chunks, counts: r.counts, pi: pi[r.curve], fit: { a: aOf(r.curve, r.logN), betaP, betaL, gamma } }).total;
        for (const ms of r.ms) err += Math.log(p / ms) ** 2;
      }
      if (!best || err < best.err) best = { betaL, gamma, err };
    }
  }
  const fit = (curve, logN) => ({ a: aOf(curve, logN), betaP, betaL: best.betaL, gamma: best.gamma });
  const rows = rowsOf.map((r) => ({ ...r, ...predict({ n: r.n, T: r.threads, chunks: r.chunks, counts: r.counts, pi: pi[r.curve], fit: fit(r.curve, r.logN) }) }));
  return { a, betaP, betaL: best.betaL, gamma: best.gamma, rms: Math.sqrt(best.err / rowsOf.filter((r) => r.threads > 1).reduce((s, r) => s + r.ms.length, 0)), rows, fit };
}

/**
 * The fitted model's prediction for (curve, logN, T) with the working set before issue #38 and with
 * defaultWorkingSet (the machine's memory), each with its chunks.
 */
export function predictBoth(fitted, counts, params, curve, logN, T, data = XEON) {
  const n = 2 ** logN;
  const P = params(curve);
  const c = counts(curve, logN, T);
  const pi = MEASURED_2CORE.pi[curve];
  const before = chunksOf(P, n, T, { workingSet: data.workingSetBefore });
  const after = chunksOf(P, n, T, { workingSet: defaultWorkingSet(T, data.memory) });
  return {
    before: { chunks: before, ...predict({ n, T, chunks: before, counts: c, pi, fit: fitted.fit(curve, logN) }) },
    after: { chunks: after, ...predict({ n, T, chunks: after, counts: c, pi, fit: fitted.fit(curve, logN) }) },
  };
}
