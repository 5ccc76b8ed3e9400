#!/usr/bin/env node
// npm run thread-model: the work model of the shared-memory thread pool. Counts, does not time: for each
// thread count T it takes the real plan (msmShape with T threads, weightedCuts and splitPieces, as the pool) and runs every thread's lane
// of the real code path (src/msm/index.js runLane) in count-only mode on seeded random inputs: the bucket
// sort runs for real in Wasm and the batches are built exactly as in an MSM, but no point is added. Each
// batch-affine addition is counted, and one inversion per batch chunk. The lanes run one after another on
// this thread, so load on the machine does not change the figures.
//
// predicted speedup = additions of the single-thread plan (T = 1, its own window) / additions of the busiest
// thread. Not modelled: prepare (split evenly, n / T points per thread), the Jacobian join at the end of each
// lane's reduction (listed separately), the main thread's combine, and memory bandwidth.

import { cpus } from 'node:os';
import { loadCurve, curveNames } from '../index.js';
import { parseCli, printTable } from '../scripts/lib.js';
import { equalShares, msmShape, splitPieces } from '../src/msm/plan.js';
import { weightedCuts } from '../src/threads/split.js';
import { countDigits, prepareRange, runLane } from '../src/msm/index.js';
import { allocInputs, allocLane, allocWork, chunkIO } from '../src/msm/layout.js';
import { convertPoints } from '../src/msm/bytes.js';
import { fitXeon, predictBoth, XEON } from './thread-time.js';

const HELP = `usage: npm run thread-model -- [options]
  --curve a,b     curves (default bls12-381,bn254; known: ${curveNames.join(', ')})
  --sizes 16,18   log2 of the input sizes (default 16,18,20)
  --threads 4,8   thread counts besides the 1-thread baseline (default 4,8,16,32; with --time 2,4,8,16)
  --window c      force the window of the threaded rows (default: the pool's choice for each T)
  --inv-cost 16   additions one inversion is worth, for the inversion-weighted speedup (default 16)
  --markdown      print a markdown table (as in bench/README.md) instead of the text table
  --json          print the results as JSON instead of a table
  --time          the time model (bench/thread-time.js): fit to issue #38's 16-core Xeon figures, predicted
                  against measured, the terms at 16 threads, before and after the working set of issue #38
                  (needs sizes 16,18,20 and threads 16, the defaults with --time)`;

const args = parseCli('thread-model', HELP, {
  curve: { type: 'string', default: 'bls12-381,bn254' },
  sizes: { type: 'string', default: '16,18,20' },
  threads: { type: 'string' },
  window: { type: 'string' },
  'inv-cost': { type: 'string', default: '16' },
  markdown: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  time: { type: 'boolean', default: false },
});
args.threads ??= args.time ? '2,4,8,16' : '4,8,16,32';
const fail = (message) => {
  console.error(`thread-model: ${message}`);
  process.exit(2);
};
const curves = args.curve.split(',').map((s) => s.trim());
const sizes = args.sizes.split(',').map(Number);
const threadCounts = [1, ...args.threads.split(',').map(Number).filter((t) => t !== 1)];
const invCost = Number(args['inv-cost']);
const window = args.window === undefined ? undefined : Number(args.window);
if (window !== undefined && !(Number.isInteger(window) && window >= 2 && window <= 24)) fail('--window takes an integer 2..24');
for (const c of curves) if (!curveNames.includes(c)) fail(`unknown curve ${c}; known: ${curveNames.join(', ')}`);
if (sizes.some((k) => !Number.isInteger(k) || k < 1 || k > 22)) fail('--sizes takes integers 1..22');
if (threadCounts.some((t) => !Number.isInteger(t) || t < 1 || t > 256)) fail('--threads takes integers 1..256');
if (!(invCost >= 0)) fail('--inv-cost takes a non-negative number');

const showProgress = !args.json && process.stderr.isTTY;
const progress = (text) => {
  if (showProgress) process.stderr.write(`\r${text.padEnd(72)}`);
};

/** Count one lane: additions and inversions of its batches, and the Jacobian steps of its reduction's join. */
function countLane(curve, ctx, io, shape, pieces) {
  const mark = curve.heap.mark();
  try {
    const lane = allocLane(curve.heap, curve.params, shape, pieces);
    ctx.work = { additions: 0, inversions: 0 };
    runLane(ctx, io, lane);
    const { S } = lane;
    return {
      pieces: pieces.length,
      items: pieces.reduce((s, p) => s + p.count, 0),
      additions: ctx.work.additions,
      inversions: ctx.work.inversions,
      // reducePieces' Jacobian tail, per piece: 2 (S - 1) + S additions and log2(L / S) doublings.
      jacAdditions: pieces.length * (3 * S - 2),
      jacDoublings: pieces.length * Math.log2(shape.L / S),
    };
  } finally {
    curve.heap.release(mark);
  }
}

const results = [];
for (const name of curves) {
  const curve = await loadCurve(name);
  const P = curve.params;
  const ctx = { ex: curve.exports, memory: curve.memory, params: P, countOnly: true, work: null };
  for (const k of sizes) {
    const n = 2 ** k;
    progress(`${name} 2^${k}: generating ${n} points and scalars (seeded)...`);
    // The inputs of evaluate-msm for this size.
    const pointBytes = curve.randomPointsBytes(n, { seed: 1000 + k });
    const scalarBytes = curve.randomScalarsBytes(n, { seed: 2000 + k });
    const mark = curve.heap.mark();
    try {
      // As the pool's shared path, the input in one chunk: points (room for their images), staging, scalars.
      const inputs = allocInputs(curve.heap, P, n);
      new Uint8Array(curve.memory.buffer, inputs.staging, pointBytes.length).set(pointBytes);
      new Uint8Array(curve.memory.buffer, inputs.scalars, scalarBytes.length).set(scalarBytes);
      convertPoints(ctx, inputs.points, inputs.staging, n);
      let baseline = null;
      for (const T of threadCounts) {
        const markT = curve.heap.mark();
        try {
          const shape = msmShape(P, n, T > 1 ? window : undefined, T);
          const io = chunkIO(P, inputs, allocWork(curve.heap, P, shape, n), n);
          progress(`${name} 2^${k} T=${T}: prepare and digits (c = ${shape.c})...`);
          prepareRange(ctx, io, 0, n);
          const lanes = [];
          // As the pool: the nonzero digits of each thread's range of points, then the weighted split.
          const segments = [];
          for (const [first, end] of equalShares(n, T)) segments.push(...countDigits(ctx, io, first, end - first));
          const split = splitPieces(shape, T, weightedCuts(shape, T, segments));
          for (let t = 0; t < T; t++) {
            progress(`${name} 2^${k} T=${T}: counting thread ${t + 1} of ${T}...`);
            lanes.push(countLane(curve, ctx, io, shape, split[t]));
          }
          const sum = (f) => lanes.reduce((s, l) => s + f(l), 0);
          const busiest = lanes.reduce((a, b) => (b.additions > a.additions ? b : a));
          const weighted = (l) => l.additions + invCost * l.inversions;
          const busiestWeighted = Math.max(...lanes.map(weighted));
          const row = {
            curve: name, logN: k, n, threads: T, window: shape.c, windows: shape.K, buckets: shape.L, pairs: shape.m,
            maxAdditions: busiest.additions,
            minAdditions: Math.min(...lanes.map((l) => l.additions)),
            maxInversions: Math.max(...lanes.map((l) => l.inversions)),
            minInversions: Math.min(...lanes.map((l) => l.inversions)),
            totalAdditions: sum((l) => l.additions),
            totalInversions: sum((l) => l.inversions),
            maxPieces: Math.max(...lanes.map((l) => l.pieces)),
            maxJacAdditions: Math.max(...lanes.map((l) => l.jacAdditions)),
            maxJacDoublings: Math.max(...lanes.map((l) => l.jacDoublings)),
            lanes,
          };
          baseline ??= row;
          row.speedup = baseline.totalAdditions / row.maxAdditions;
          row.efficiency = row.speedup / T;
          row.workInflation = row.totalAdditions / baseline.totalAdditions;
          row.weightedSpeedup = (baseline.totalAdditions + invCost * baseline.totalInversions) / busiestWeighted;
          row.weightedEfficiency = row.weightedSpeedup / T;
          results.push(row);
        } finally {
          curve.heap.release(markT);
        }
      }
    } finally {
      curve.heap.release(mark);
    }
  }
}
progress('');
if (showProgress) process.stderr.write('\r');

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
const target = () => {
  const below = results.filter((r) => r.threads > 1 && r.threads <= 16 && r.logN === 18 && r.efficiency < 0.85);
  if (!results.some((r) => r.logN === 18 && r.threads > 1 && r.threads <= 16)) return '';
  const what = 'target (efficiency >= 0.85 up to 16 threads at 2^18)';
  return below.length ? `${what} missed: ${below.map((r) => `${r.curve} T=${r.threads} ${r.efficiency.toFixed(3)}`).join(', ')}` : `${what}: met`;
};
const weightedGap = Math.max(0, ...results.map((r) => Math.abs(r.weightedEfficiency - r.efficiency)));
if (args.json) {
  // with --time, one document with the time model too (below)
  if (!args.time) console.log(JSON.stringify({ machine, invCost, window: window ?? null, results }, null, 2));
} else if (args.markdown) {
  console.log('| curve | N | T | c | K | additions, busiest thread | least busy | inversions, busiest | least busy | additions, all threads | work vs 1 thread | predicted speedup | speedup / T |');
  console.log('|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const r of results) {
    console.log(`| ${r.curve} | 2^${r.logN} | ${r.threads} | ${r.window} | ${r.windows} | ${r.maxAdditions} | ${r.minAdditions} | ${r.maxInversions} | ${r.minInversions} | ${r.totalAdditions} | ${r.workInflation.toFixed(3)} | ${r.speedup.toFixed(2)} | ${r.efficiency.toFixed(3)} |`);
  }
  console.log(`\n${[target(), `inversion-weighted (1 inversion = ${invCost} additions) efficiency within ${weightedGap.toFixed(3)} of speedup / T`].filter(Boolean).join('; ')}.`);
} else {
  console.log(`wasmsm thread-model: counted batch-affine additions and inversions per thread (real plan and sort, no arithmetic)`);
  console.log(`speedup = single-thread additions / busiest thread's additions; work x = all threads' additions / single-thread additions`);
  const header = ['curve', 'N', 'T', 'c', 'K', 'adds max', 'adds min', 'inv max', 'inv min', 'adds total', 'work x', 'speedup', 'speedup/T'];
  const rows = results.map((r) => [
    r.curve, `2^${r.logN}`, r.threads, r.window, r.windows, r.maxAdditions, r.minAdditions, r.maxInversions, r.minInversions,
    r.totalAdditions, r.workInflation.toFixed(3), r.speedup.toFixed(2), r.efficiency.toFixed(3),
  ]);
  printTable(header, rows);
  console.log(`inversion-weighted efficiency (1 inversion = ${invCost} additions) is within ${weightedGap.toFixed(3)} of speedup/T`);
  const t = target();
  if (t) console.log(t);
}

if (args.time) {
  // each curve's runtime params with their fma build (chunksOf plans with the FMA layout, as on the Xeon)
  const curveParams = {};
  for (const name of curves) curveParams[name] = (await import(`../wasm/${name}/params.js`)).default;
  const params = (name) => curveParams[name];
  const counts = (curve, logN, T) => {
    const one = results.find((r) => r.curve === curve && r.logN === logN && r.threads === 1);
    const row = results.find((r) => r.curve === curve && r.logN === logN && r.threads === T);
    if (!one || !row) fail(`--time needs the counts of ${curve} 2^${logN} at ${T} threads (--sizes 16,18,20 --threads 16)`);
    return { adds1: one.totalAdditions, maxAdds: row.maxAdditions };
  };
  const fitted = fitXeon(counts, params, { ...XEON, rows: XEON.rows.filter((r) => curves.includes(r.curve)) });
  const timeResults = { fit: { a: fitted.a, betaP: fitted.betaP, betaL: fitted.betaL, gamma: fitted.gamma, rmsLogError: fitted.rms }, rows: [], scaling: [] };
  for (const r of fitted.rows) timeResults.rows.push({ curve: r.curve, logN: r.logN, threads: r.threads, maxMemory: r.maxMemory ?? null, chunks: r.chunks, measuredMs: r.ms, predictedMs: r.total, terms: r.terms });
  for (const name of curves) {
    for (const k of sizes) {
      for (const T of threadCounts) {
        if (!results.some((r) => r.curve === name && r.logN === k && r.threads === T)) continue;
        const both = predictBoth(fitted, counts, params, name, k, T);
        timeResults.scaling.push({ curve: name, logN: k, threads: T, before: { chunks: both.before.chunks, ms: both.before.total, terms: both.before.terms }, after: { chunks: both.after.chunks, ms: both.after.total, terms: both.after.terms } });
      }
    }
  }
  for (const s of timeResults.scaling) {
    const one = timeResults.scaling.find((x) => x.curve === s.curve && x.logN === s.logN && x.threads === 1);
    s.before.speedup = one.before.ms / s.before.ms;
    s.after.speedup = one.after.ms / s.after.ms;
  }
  if (args.json) {
    console.log(JSON.stringify({ machine, invCost, window: window ?? null, results, timeModel: timeResults }, null, 2));
  } else {
    const f = timeResults.fit;
    console.log(`\ntime model (bench/thread-time.js) fitted to ${XEON.machine}:`);
    console.log(`  a = ${Object.entries(f.a).map(([c, v]) => `${c} ${(v * 1e6).toFixed(0)} ns`).join(', ')} per addition (one thread); betaP ${f.betaP.toFixed(4)} (prepare's traffic per extra thread), betaL ${f.betaL.toFixed(4)} (the lanes'), gamma ${f.gamma.toFixed(2)} (input in chunks); rms log error ${f.rmsLogError.toFixed(3)}`);
    printTable(['curve', 'N', 'T', 'maxMemory', 'chunks', 'measured ms', 'predicted ms', 'ideal', 'prepare traffic', 'imbalance+reductions', 'lanes traffic', 'chunks', 'serial+rounds'],
      timeResults.rows.map((r) => [r.curve, `2^${r.logN}`, r.threads, r.maxMemory ? `${r.maxMemory / 2 ** 20} MiB` : '-', r.chunks, r.measuredMs.join(' / '), r.predictedMs.toFixed(0),
        ...Object.values(r.terms).map((v) => v.toFixed(1))]));
    console.log('\npredicted scaling, working set before issue #38 (256 MiB) and after (defaultWorkingSet on the Xeon\'s memory): ms, speedup over 1 thread');
    printTable(['curve', 'N', 'T', 'chunks before', 'ms before', 'speedup', 'chunks after', 'ms after', 'speedup', 'speedup / T', 'lanes traffic', 'imbalance+reductions'],
      timeResults.scaling.map((s) => [s.curve, `2^${s.logN}`, s.threads, s.before.chunks, s.before.ms.toFixed(0), s.before.speedup.toFixed(2), s.after.chunks, s.after.ms.toFixed(0), s.after.speedup.toFixed(2), (s.after.speedup / s.threads).toFixed(3),
        s.after.terms['lanes traffic'].toFixed(1), s.after.terms['imbalance + repeated reductions'].toFixed(1)]));
  }
}
