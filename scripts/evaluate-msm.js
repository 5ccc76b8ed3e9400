#!/usr/bin/env node
// npm run evaluate-msm: the main benchmark. Makes its own seeded inputs, checks one result against an
// independent implementation (@noble/curves), times each size several times and prints medians, spread
// and a per-phase breakdown. --compare also times ffjavascript (single thread) on the same inputs.
// --threads 1,2 times the thread pool (curve.threads) instead, at each thread count, the pools taking turns run by
// run, with the speedup over the 1-thread pool round by round; --compare then times ffjavascript's default
// multi-threaded engine.
// --group g2 runs each curve's G2 (curve.g2: bls12-381, bn254) instead of G1, in every mode and through the
// same code (the group object stands where the curve object stood); --group both runs G1 then G2 and gives
// each G2 row its median time over the matching G1 row's (g2OverG1). Every row carries group: 'G1' | 'G2'.
// --kernel picks the build of each curve's Wasm (loadCurve's option; default auto); --kernel both runs the
// integer build, then the FMA build, of each curve in every mode and gives each FMA row the matching integer row's
// median over its own (fmaSpeedup). Every row carries kernel: 'int' | 'fma' and node (the Node version).

import { cpus } from 'node:os';
import { loadCurve, curveNames } from '../index.js';
import { median, parseCli, printTable, runtimeName, sameBytes } from './lib.js';
import { nobleMsm, ffjavascriptCurve, ffjavascriptThreads, toFfjavascriptInputs, ffjavascriptMsm } from './peers.js';
import { summarizePerThread } from '../src/threads/timeline.js';

const HELP = `usage: npm run evaluate-msm -- [options]
  --curve a,b     curves to run (default bls12-381,bn254; known: ${curveNames.join(', ')})
  --group g       g1 (default), g2 or both: the group(s) to run, G2 being curve.g2 (bls12-381, bn254 only);
                  every mode below runs on each group alike, and both adds G2/G1, the ratio of each G2 row's
                  median to the matching G1 row's (g2OverG1 in --json)
  --sizes 12,14   log2 of the input sizes (default 12,14,16)
  --runs 5        timed runs per size (after one warm-up run)
  --window c      force the window size (default: chosen by N)
  --compare       also time ffjavascript's single-threaded G1/G2.multiExpAffine (bls12-381, bn254); with
                  --threads, its default multi-threaded engine (one worker per CPU) instead
  --check-size k  log2 size whose result is checked against @noble/curves (default: the smallest size)
  --threads 1,2   time the thread pool (await curve.threads({ count }).msmBytes) at each count, a 1-thread
                  pool always among them: the pools take turns, one run each per round, and 'vs 1 thread' is
                  the median over the rounds of the 1-thread run's time over this count's (its range beside
                  it; speedupRange in --json), which the machine's drifting speed moves less; then a summary of
                  timings.perThread (per phase: least/median/most busy ms over the threads, imbalance, the
                  threads' waiting time; in --json as each row's perThread)
  --path p        with --threads: the pool's path, shared (default), messages or both
  --no-sync       with --threads: do not time the synchronous msmBytes (shown for reference)
  --prepared      time prepared bases (curve.prepareBases, without and with precompute) against msmBytes on
                  the same inputs, runs interleaved; rows carry prepared: true, precompute and setupMs
  --max-memory m  memory budgets in MiB (e.g. 64,256): each size runs without a budget and with each maxMemory,
                  runs interleaved, each after trim() (so each grows its memory from the base); rows carry
                  maxMemoryMiB, peakWasmMiB (the Wasm memory after the call), rssMiB (the process's RSS after
                  it), the plan (window, chunks x points) and vsUnbounded; with --threads T, on a pool of T
                  (no warm-up round above 2^20). Run node --expose-gc scripts/evaluate-msm.js for RSS figures
                  that do not carry the memory an earlier row let go (and --check-size 0 to skip the noble check)
  --kernel k      auto (default: the FMA build where this engine's relaxed SIMD multiply-add is fused), int,
                  fma, or both: each curve with the integer build, then the FMA build, and the FMA rows'
                  speedup over the integer ones (fmaSpeedup in --json)
  --gpu           the GPU MSM (curve.gpu(): WebGPU, in Node through the optional webgpu package) next to the thread
                  pool on the same inputs (--threads T: the pool's size, default every core), with the adapter's
                  description, prepared bases, and the split between transfers and phases (scripts/evaluate-gpu.js);
                  --group g2 or both runs G2 too (curve.g2.gpu())
  --gpu-variants  with --gpu: also time GPU kernels of other limb sizes and product shapes, w:mul[:sqr], e.g.
                  13:loop,16:unrolled,13:karatsuba,13:loop:scanning (G1; kernels/wgsl-field.js's shapes)
  --gpu-threads   with --gpu: also time the shipped kernels with 2^a accumulate and 2^r reduce threads (and runs of
                  run sums in the reduce's last steps, default 4), a:r[:run], e.g. 17:15,16:17,16:14:8
  --gpu-no-glv    with --gpu: also time the shipped kernels without the GLV split, on the curves that have it
  --gpu-windows   with --gpu: also time the shipped kernels with these windows c (msmBytes' window), e.g. 10,12
  --gpu-wgsl      with --gpu: also time the kernels of dir/<curve>/<curve>[.g2].wgsl (another checkout's wasm/) on
                  this checkout's host side, e.g. ../old/wasm
  --json          print the results as JSON instead of a table`;

const args = parseCli('evaluate-msm', HELP, {
  curve: { type: 'string', default: 'bls12-381,bn254' },
  group: { type: 'string', default: 'g1' },
  sizes: { type: 'string', default: '12,14,16' },
  runs: { type: 'string', default: '5' },
  window: { type: 'string' },
  compare: { type: 'boolean', default: false },
  'check-size': { type: 'string' },
  threads: { type: 'string' },
  path: { type: 'string' },
  'no-sync': { type: 'boolean', default: false },
  prepared: { type: 'boolean', default: false },
  'max-memory': { type: 'string' },
  kernel: { type: 'string', default: 'auto' },
  json: { type: 'boolean', default: false },
  gpu: { type: 'boolean', default: false },
  'gpu-variants': { type: 'string' },
  'gpu-threads': { type: 'string' },
  'gpu-no-glv': { type: 'boolean' },
  'gpu-windows': { type: 'string' },
  'gpu-wgsl': { type: 'string' },
});
const curves = args.curve.split(',').map((s) => s.trim());
/** Decimal integers only ('' and '0x2' are not 0 and 2): a list item left empty by a comma is an error. */
const integerOf = (text) => (/^\d+$/.test(text.trim()) ? Number(text) : NaN);
const sizes = args.sizes.split(',').map(integerOf);
const runs = integerOf(args.runs);
const window = args.window === undefined ? undefined : integerOf(args.window);
for (const c of curves) if (!curveNames.includes(c)) fail(`unknown curve ${c}; known: ${curveNames.join(', ')}`);
if (sizes.some((k) => !Number.isInteger(k) || k < 0 || k > 26)) fail('--sizes takes integers 0..26, separated by commas');
if (!Number.isInteger(runs) || runs < 1) fail('--runs takes a positive integer');
if (window !== undefined && !(Number.isInteger(window) && window >= 2 && window <= 24)) fail('--window takes an integer 2..24');
const checkSize = args['check-size'] === undefined ? Math.min(...sizes) : integerOf(args['check-size']);
// 0 skips the check; any other value must be one of the sizes (else the check would be skipped without a word)
if (checkSize !== 0 && !sizes.includes(checkSize)) fail(`--check-size takes 0 (no check) or one of --sizes (${sizes.join(', ')}), got ${args['check-size']}`);
const threadCounts = args.threads === undefined ? null : [...new Set([1, ...args.threads.split(',').map(integerOf)])];
if (threadCounts?.some((t) => !Number.isInteger(t) || t < 1 || t > 256)) fail('--threads takes integers 1..256');
if (!threadCounts && (args.path !== undefined || args['no-sync'])) fail('--path and --no-sync need --threads');
if (args.prepared && (threadCounts || args.compare)) fail('--prepared runs on one thread, without --threads or --compare');
const budgetsMiB = args['max-memory'] === undefined ? null : args['max-memory'].split(',').map((m) => (m.trim() === '' ? NaN : Number(m)));
if (budgetsMiB?.some((m) => !(m > 0))) fail('--max-memory takes positive numbers of MiB');
if (budgetsMiB && (args.prepared || args.compare)) fail('--max-memory runs without --prepared and --compare');
const PATHS = { shared: ['shared'], messages: ['messages'], both: ['shared', 'messages'] };
const paths = PATHS[args.path ?? 'shared'];
if (!paths) fail('--path takes shared, messages or both');
const GROUPS = { g1: ['G1'], g2: ['G2'], both: ['G1', 'G2'] };
const groups = GROUPS[args.group.toLowerCase()];
if (!groups) fail('--group takes g1, g2 or both');
const KERNEL_CHOICES = { auto: ['auto'], int: ['int'], fma: ['fma'], both: ['int', 'fma'] };
const kernels = KERNEL_CHOICES[args.kernel];
if (!kernels) fail('--kernel takes auto, int, fma or both');
// --gpu runs its own rows (each --group, the default build, the whole input): the CPU modes' options do not reach it
const CPU_ONLY = ['kernel', 'window', 'max-memory', 'prepared', 'compare', 'path', 'no-sync'];
const givenCpuOnly = CPU_ONLY.filter((o) => (o === 'kernel' ? args.kernel !== 'auto' : args[o] !== undefined && args[o] !== false));
if (args.gpu && givenCpuOnly.length) fail(`--gpu does not take ${givenCpuOnly.map((o) => `--${o}`).join(', ')}`);
if (args['gpu-variants'] !== undefined && groups.includes('G2')) fail('--gpu-variants builds G1 kernels only: give it without --group g2 or both');
if (!args.gpu && (args['gpu-variants'] !== undefined || args['gpu-threads'] !== undefined || args['gpu-windows'] !== undefined || args['gpu-no-glv'] || args['gpu-wgsl'] !== undefined)) fail('--gpu-variants, --gpu-threads, --gpu-windows, --gpu-no-glv and --gpu-wgsl need --gpu');

/**
 * What the modes run, in order: each curve's selected groups, [{ name, group, label, curve }], where curve is
 * the group object (the curve itself for G1, curve.g2 for G2) and label names it in messages.
 */
const targets = [];
for (const name of curves) for (const kernel of kernels) {
  let curve;
  try {
    curve = await loadCurve(name, { kernel });
  } catch (e) {
    fail(`--kernel ${args.kernel}: ${e.message}`);
  }
  for (const group of groups) {
    const g = group === 'G1' ? curve : curve.g2;
    if (!g) {
      const withG2 = [];
      for (const c of curveNames) if ((await loadCurve(c)).g2) withG2.push(c);
      fail(`--group ${args.group}: curve ${name} has no G2 (G2 exists for ${withG2.join(', ')})`);
    }
    targets.push({ name, group, label: `${group === 'G1' ? name : `${name} ${group}`}${kernels.length > 1 ? ` (${curve.kernel})` : ''}`, curve: g });
  }
}

/** A usage error: exit 2. */
function fail(message) {
  console.error(`evaluate-msm: ${message}`);
  process.exit(2);
}

/** A result that differs from another computation of it: exit 1 (on a line of its own after the progress line). */
function mismatch(message) {
  console.error(`\nevaluate-msm: ${message}`);
  process.exit(1);
}

/** Entries of `timings` that are not phase times (ms): the window, the scalar bits, counts of windows, threads and chunks. */
const NOT_PHASES = new Set(['window', 'windows', 'threads', 'chunks', 'chunkPoints', 'flat', 'memoryBytes', 'bits', 'perThread']);
const isPhase = (key) => !NOT_PHASES.has(key);

const progress = (text) => {
  if (!args.json) process.stderr.write(`\r${text.padEnd(70)}`);
};
const results = [];

/** The inputs of size 2^k every mode (and the browser benches) use: points seed 1000 + k, scalars seed 2000 + k. */
function seededInputs(curve, name, k) {
  const n = 2 ** k;
  progress(`${name} 2^${k}: generating ${n} points and scalars (seeded)...`);
  return { n, points: curve.randomPointsBytes(n, { seed: 1000 + k }), scalars: curve.randomScalarsBytes(n, { seed: 2000 + k }) };
}
/** Affine points as decodePoint gives them (or null): coordinates are BigInts (G1) or { c0, c1 } (G2). */
const sameCoordinate = (a, b) => (typeof a === 'bigint' ? a === b : typeof b === 'object' && a.c0 === b.c0 && a.c1 === b.c1);
const samePoint = (a, b) => (a === null ? b === null : b !== null && sameCoordinate(a.x, b.x) && sameCoordinate(a.y, b.y));

/** The @noble/curves check of size k (when k is the check size): 'matches @noble/curves', or exits 1. */
async function nobleCheck(curve, name, k, points, scalars, first) {
  if (k !== checkSize) return 'not checked';
  progress(`${name} 2^${k}: checking against @noble/curves...`);
  const want = await nobleMsm(curve.params, points, scalars);
  if (!samePoint(want, curve.decodePoint(first))) mismatch(`${name} 2^${k}: result differs from @noble/curves`);
  return 'matches @noble/curves';
}

/**
 * --compare: ffjavascript's engine for a target (null if it has none), built with `options` and kept for the
 * next target of the same curve (its other group); the previous curve's engine is terminated first.
 */
let ffEngine = null;
async function ffjavascriptFor({ name, curve }, options) {
  if (!args.compare) return null;
  if (ffEngine?.name !== name) {
    await closeFfjavascript();
    ffEngine = { name, ff: await ffjavascriptCurve(curve.params, options) };
  }
  return ffEngine.ff;
}
async function closeFfjavascript() {
  if (ffEngine?.ff) await ffEngine.ff.terminate();
  ffEngine = null;
}

/** ffjavascript on the same inputs: its result checked against ours (exits 1 if it differs), then runs timed. */
async function timeFfjavascript(ff, curve, name, k, points, scalars, first) {
  const group = curve.params.group;
  const { bases, scalars: ffScalars } = toFfjavascriptInputs(ff, curve.params, points, scalars);
  const theirs = await ffjavascriptMsm(ff, bases, ffScalars, group);
  if (!samePoint(theirs, curve.decodePoint(first))) mismatch(`${name} 2^${k}: result differs from ffjavascript`);
  const ffTimes = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await ff[group].multiExpAffine(bases, ffScalars);
    ffTimes.push(performance.now() - t0);
  }
  return median(ffTimes);
}

/** The default: the synchronous single-thread msmBytes (and ffjavascript's single-threaded engine). */
async function runSingleThread() {
  for (const target of targets) {
    const { label: name, group, curve } = target;
    const ff = await ffjavascriptFor(target);
    for (const k of sizes) {
      const { n, points, scalars } = seededInputs(curve, name, k);
      progress(`${name} 2^${k}: warm-up and ${runs} timed runs...`);
      const first = curve.msmBytes(points, scalars, { window });
      const check = await nobleCheck(curve, name, k, points, scalars, first);
      const times = [];
      const phases = {};
      let windowUsed;
      for (let r = 0; r < runs; r++) {
        const timings = {};
        const t0 = performance.now();
        curve.msmBytes(points, scalars, { window, timings });
        times.push(performance.now() - t0);
        windowUsed = timings.window;
        for (const [ph, ms] of Object.entries(timings)) if (isPhase(ph)) (phases[ph] ??= []).push(ms);
      }
      const row = {
        curve: target.name, group, kernel: curve.kernel, node: process.version, logN: k, n, threads: 1, path: 'sync', window: windowUsed, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times),
        phasesMs: Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)])), check,
      };
      if (ff) {
        progress(`${name} 2^${k}: ffjavascript (single thread)...`);
        row.ffjavascriptMedianMs = await timeFfjavascript(ff, curve, name, k, points, scalars, first);
        row.speedup = row.ffjavascriptMedianMs / row.medianMs;
      }
      results.push(row);
    }
  }
  await closeFfjavascript();
}

/**
 * --prepared: per size, msmBytes and prepared bases without and with precompute on the same inputs, one run
 * of each in turn (so the machine's drift hits all three alike); the setup (prepareBases) is timed once.
 */
async function runPrepared() {
  for (const { name: curveName, group, label: name, curve } of targets) {
    for (const k of sizes) {
      const { n, points, scalars } = seededInputs(curve, name, k);
      const first = curve.msmBytes(points, scalars);
      const check = await nobleCheck(curve, name, k, points, scalars, first);
      const variants = [{ prepared: false, run: (opts) => curve.msmBytes(points, scalars, { window, ...opts }) }];
      for (const precompute of [false, true]) {
        progress(`${name} 2^${k}: prepareBases({ precompute: ${precompute} })...`);
        const t0 = performance.now();
        const bases = curve.prepareBases(points, { precompute });
        const setupMs = performance.now() - t0;
        if (!sameBytes(bases.msmBytes(scalars), first)) mismatch(`${name} 2^${k}: prepared result (precompute ${precompute}) differs from msmBytes`);
        variants.push({ prepared: true, precompute, bases, setupMs, run: (opts) => bases.msmBytes(scalars, { ...(precompute ? {} : { window }), ...opts }) });
      }
      for (const v of variants) {
        v.times = [];
        v.phases = {};
      }
      progress(`${name} 2^${k}: ${runs} timed runs of each...`);
      for (let r = 0; r < runs; r++) {
        for (const v of variants) {
          const timings = {};
          const t0 = performance.now();
          v.run({ timings });
          v.times.push(performance.now() - t0);
          v.window = timings.window;
          for (const [ph, ms] of Object.entries(timings)) if (isPhase(ph)) (v.phases[ph] ??= []).push(ms);
        }
      }
      const base = median(variants[0].times);
      for (const v of variants) {
        results.push({
          curve: curveName, group, kernel: curve.kernel, node: process.version, logN: k, n, threads: 1, path: 'sync', prepared: v.prepared, ...(v.prepared && { precompute: v.precompute, setupMs: v.setupMs, tableBytes: v.bases.tableBytes }),
          window: v.window, medianMs: median(v.times), minMs: Math.min(...v.times), maxMs: Math.max(...v.times), speedupVsMsmBytes: base / median(v.times),
          phasesMs: Object.fromEntries(Object.entries(v.phases).map(([ph, xs]) => [ph, median(xs)])), check,
        });
        v.bases?.free();
      }
    }
  }
}

let ffjsThreads = null;

/** The medians over the runs of summarizePerThread's figures (per phase: busy min, median, max, imbalance; waits). */
function medianSummary(summaries) {
  if (!summaries.length) return null;
  const names = [...new Set(summaries.flatMap((s) => Object.keys(s.phases)))];
  const of = (f) => median(summaries.map(f).filter((x) => x !== undefined));
  const phases = {};
  for (const name of names) {
    const runs = summaries.filter((s) => s.phases[name]);
    phases[name] = Object.fromEntries(['threads', 'min', 'median', 'max', 'imbalance', 'start', 'end'].map((key) => [key, median(runs.map((s) => s.phases[name][key]))]));
  }
  const stepNames = [...new Set(summaries.flatMap((s) => Object.keys(s.steps ?? {})))];
  const steps = Object.fromEntries(stepNames.map((name) => [name, of((s) => s.steps?.[name])]));
  return { phases, steps, totalWait: of((s) => s.totalWait), maxWait: of((s) => s.maxWait), threads: summaries[0].threads };
}

/**
 * The rows of one path at one size: a pool per thread count, all started first (start-up is not timed; each keeps what
 * its calls grow until it closes, as one pool running its calls back to back would), then a warm-up round and `runs`
 * timed rounds, each pool one run per round in thread-count order: a change in the machine's speed falls on every
 * count alike, and each count's speedup is the median over the rounds of the 1-thread run's time over its own (with
 * the least and largest: speedupRange). Every result is checked against the synchronous one.
 */
async function poolRows(target, k, n, points, scalars, first, path, { syncMs, check }) {
  const { label: name, group, curve } = target;
  const pools = [];
  try {
    for (const T of threadCounts) {
      const pool = await curve.threads({ count: T, sharedMemory: path === 'shared', releaseAfterMs: Infinity });
      pools.push(pool);
      if (pool.count !== T || pool.sharedMemory !== (path === 'shared')) {
        throw new Error(`asked for ${T} threads on the ${path} path, got ${pool.count} (sharedMemory ${pool.sharedMemory})`);
      }
    }
    progress(`${name} 2^${k}: pools of ${threadCounts.join(', ')} threads, ${path} path: a warm-up and ${runs} rounds...`);
    const runsOf = pools.map(() => ({ times: [], phases: {}, perThread: [], windowUsed: null }));
    for (let r = -1; r < runs; r++) {
      for (const [i, pool] of pools.entries()) {
        const timings = {};
        const t0 = performance.now();
        const got = await pool.msmBytes(points, scalars, { window, timings });
        const ms = performance.now() - t0;
        if (!sameBytes(got, first)) mismatch(`${name} 2^${k}: the pool (${path}, ${pool.count} threads) differs from the single-thread msmBytes`);
        if (r < 0) continue; // warm-up
        const into = runsOf[i];
        into.times.push(ms);
        into.windowUsed = timings.window ?? null;
        for (const [ph, v] of Object.entries(timings)) if (isPhase(ph)) (into.phases[ph] ??= []).push(v);
        if (timings.perThread) into.perThread.push(summarizePerThread(timings.perThread));
      }
    }
    const baseline = runsOf[0].times; // threadCounts starts with 1
    return runsOf.map(({ times, phases, perThread, windowUsed }, i) => {
      const speedups = times.map((ms, r) => baseline[r] / ms);
      return {
        curve: target.name, group, kernel: curve.kernel, node: process.version, logN: k, n, threads: threadCounts[i], path, window: windowUsed,
        medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times),
        phasesMs: Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)])),
        perThread: medianSummary(perThread),
        syncMs, check: `equals msmBytes${check === 'not checked' ? '' : `, which ${check}`}`,
        speedupVsOneThread: median(speedups), speedupRange: [Math.min(...speedups), Math.max(...speedups)],
      };
    });
  } finally {
    for (const pool of pools) await pool.close();
  }
}

/**
 * --threads: for each size, the synchronous msmBytes once (the reference result, and its time unless
 * --no-sync), then each path's pools in turns (poolRows). --compare: ffjavascript's default multi-threaded engine
 * on the same inputs.
 */
async function runThreaded() {
  try {
    for (const target of targets) {
      const { label: name, curve } = target;
      const ff = await ffjavascriptFor(target, { threads: true });
      if (ff) ffjsThreads = ffjavascriptThreads(ff);
      for (const k of sizes) {
        const { n, points, scalars } = seededInputs(curve, name, k);
        progress(`${name} 2^${k}: synchronous msmBytes...`);
        const first = curve.msmBytes(points, scalars, { window });
        const check = await nobleCheck(curve, name, k, points, scalars, first);
        let syncMs = null;
        if (!args['no-sync']) {
          const times = [];
          for (let r = 0; r < runs; r++) {
            const t0 = performance.now();
            curve.msmBytes(points, scalars, { window });
            times.push(performance.now() - t0);
          }
          syncMs = median(times);
        }
        const sizeRows = [];
        for (const path of paths) sizeRows.push(...(await poolRows(target, k, n, points, scalars, first, path, { syncMs, check })));
        if (ff) {
          progress(`${name} 2^${k}: ffjavascript (${ffjsThreads} workers)...`);
          const ffjsMs = await timeFfjavascript(ff, curve, name, k, points, scalars, first);
          for (const row of sizeRows) Object.assign(row, { ffjsMs, ffjsThreads, vsFfjs: ffjsMs / row.medianMs });
        }
        results.push(...sizeRows);
      }
    }
  } finally {
    await closeFfjavascript();
  }
}

/**
 * --max-memory: per size (and per pool size with --threads), the MSM without a budget and with each budget on the
 * same inputs, one run of each in turn, each after trim() so it grows its memory from the base; every result is
 * checked against the unbounded one. Peak Wasm memory is the memory's size after the call (it never shrinks
 * during one), RSS the process's after it.
 */
async function runMemory() {
  const MiB = 2 ** 20;
  for (const { name: curveName, group, label: name, curve } of targets) {
    for (const k of sizes) {
      const { n, points, scalars } = seededInputs(curve, name, k);
      // the counts asked for (no 1-thread baseline pool here: each row's baseline is its own unbounded run)
      const counts = args.threads?.split(',').map(Number);
      const pools = counts ? counts.flatMap((T) => paths.map((path) => [T, path])) : [[null, 'sync']];
      for (const [T, path] of pools) {
        const pool = T === null ? null : await curve.threads({ count: T, sharedMemory: path === 'shared' });
        try {
          const variants = [null, ...budgetsMiB].map((mib) => ({ mib, times: [], peaks: [], rss: [], timings: null }));
          let first = null;
          let check = 'not checked';
          // a warm-up round, except where one run takes long enough to need none (N > 2^20)
          for (let r = k > 20 ? 0 : -1; r < runs; r++) {
            for (const v of variants) {
              if (v.tooSmall) continue;
              progress(`${name} 2^${k}${T ? `, pool of ${T} (${path})` : ''}: ${r < 0 ? 'warm-up' : `run ${r + 1} of ${runs}`}, ${v.mib ? `maxMemory ${v.mib} MiB` : 'no budget'}...`);
              if (pool) await pool.trim();
              else curve.trim();
              globalThis.gc?.(); // with node --expose-gc: the memory trim() let go is gone from the RSS of the next row
              const timings = {};
              const options = { window, timings, ...(v.mib && { maxMemory: v.mib * MiB }) };
              const t0 = performance.now();
              let got;
              try {
                got = pool ? await pool.msmBytes(points, scalars, options) : curve.msmBytes(points, scalars, options);
              } catch (e) {
                // a budget the (forced) window cannot run in: a row that says so, not an end to the run
                if (!(e instanceof RangeError && /too small/.test(e.message))) throw e;
                v.tooSmall = e.message;
                continue;
              }
              const ms = performance.now() - t0;
              if (r >= 0) {
                v.times.push(ms);
                v.peaks.push(pool ? pool.memoryBytes : curve.memory.buffer.byteLength);
                v.rss.push(process.memoryUsage().rss);
                v.timings = timings;
              }
              if (!first) {
                first = got;
                check = await nobleCheck(curve, name, k, points, scalars, first);
              } else if (!sameBytes(got, first)) mismatch(`${name} 2^${k}: the result with maxMemory ${v.mib} MiB differs from the one without`);
            }
          }
          const base = median(variants[0].times);
          for (const v of variants) {
            if (v.tooSmall) {
              results.push({ curve: curveName, group, kernel: curve.kernel, node: process.version, logN: k, n, threads: T ?? 1, path, maxMemoryMiB: v.mib, tooSmall: v.tooSmall, phasesMs: {} });
              continue;
            }
            const peak = Math.max(...v.peaks);
            results.push({
              curve: curveName, group, kernel: curve.kernel, node: process.version, logN: k, n, threads: T ?? 1, path, maxMemoryMiB: v.mib,
              window: v.timings.window, chunks: v.timings.chunks ?? null, chunkPoints: v.timings.chunkPoints ?? null,
              medianMs: median(v.times), minMs: Math.min(...v.times), maxMs: Math.max(...v.times), vsUnbounded: median(v.times) / base,
              peakWasmMiB: peak / MiB, bytesPerPoint: peak / n, rssMiB: Math.max(...v.rss) / MiB, phasesMs: {}, check,
              result: Buffer.from(first).toString('hex'),
            });
          }
        } finally {
          await pool?.close();
        }
      }
    }
  }
}

if (args.gpu) {
  const { evaluateGpu } = await import('./evaluate-gpu.js');
  const { MUL_SHAPES, SQR_SHAPES, karatsubaFits } = await import('../codegen/kernels/wgsl-field.js');
  const { deriveFieldParams, MIN_GPU_LIMB_BITS, MAX_GPU_LIMB_BITS } = await import('../codegen/params/field.js');
  const variants = (args['gpu-variants'] ?? '').split(',').filter(Boolean).map((v) => {
    const [w, mul = 'loop', sqr = 'mul'] = v.split(':');
    const bits = w === '' ? NaN : Number(w);
    if (!(Number.isInteger(bits) && bits >= MIN_GPU_LIMB_BITS && bits <= MAX_GPU_LIMB_BITS && MUL_SHAPES.includes(mul) && SQR_SHAPES.includes(sqr))) {
      fail(`--gpu-variants: ${v} is not w:mul[:sqr] (w ${MIN_GPU_LIMB_BITS} to ${MAX_GPU_LIMB_BITS}; mul ${MUL_SHAPES.join(', ')}; sqr ${SQR_SHAPES.join(', ')})`);
    }
    // (every variant is built for every curve: one that cannot be is refused here, before any work)
    for (const { name, curve } of targets) {
      if (mul === 'karatsuba' && !karatsubaFits(deriveFieldParams({ p: curve.params.p, w: bits, kernel: 'gpu' }))) {
        fail(`--gpu-variants: ${v}: the Karatsuba product's columns do not fit a u32 for ${name} at w = ${bits} (w 13 or less)`);
      }
    }
    return { w: bits, mul, sqr };
  });
  const shapes = (args['gpu-threads'] ?? '').split(',').filter(Boolean).map((v) => {
    const parts = v.split(':').map(Number);
    const [a, r, run = 16] = parts;
    if (!(parts.length <= 3 && Number.isInteger(a) && Number.isInteger(r) && a >= 6 && a <= 24 && r >= 6 && r <= 24 && Number.isInteger(run) && run >= 2 && run <= 64)) {
      fail(`--gpu-threads: ${v} is not a:r[:run] (log2 of the accumulate and reduce threads, 6 to 24; the sums a sumRuns thread adds, 2 to 64)`);
    }
    return { accumulate: 2 ** a, reduce: 2 ** r, run };
  });
  const threads = threadCounts ? Math.max(...threadCounts) : cpus().length;
  const windows = (args['gpu-windows'] ?? '').split(',').filter(Boolean).map((v) => {
    const c = Number(v);
    if (!(Number.isInteger(c) && c >= 1 && c <= 24)) fail(`--gpu-windows: ${v} is not a window (an integer in 1..24)`);
    return c;
  });
  await evaluateGpu({ targets, sizes, runs, threads, nobleCheck, variants, shapes, windows, noGlv: args['gpu-no-glv'], wgslDir: args['gpu-wgsl'] ?? null, json: args.json, progress });
  if (!args.json) process.stderr.write(`\r${''.padEnd(70)}\r`);
  process.exit(0);
}
if (budgetsMiB) await runMemory();
else if (threadCounts) await runThreaded();
else if (args.prepared) await runPrepared();
else await runSingleThread();
/** --group both: each G2 row's median over that of the G1 row of the same curve, kernel, size and variant. */
const rowKey = (r, fields) => JSON.stringify([r.curve, r.logN, r.threads, r.path, r.prepared ?? null, r.precompute ?? null, r.maxMemoryMiB ?? null, ...fields.map((f) => r[f])]);
if (groups.length > 1) {
  const g1Ms = new Map(results.filter((r) => r.group === 'G1').map((r) => [rowKey(r, ['kernel']), r.medianMs]));
  for (const r of results) if (r.group === 'G2' && g1Ms.has(rowKey(r, ['kernel']))) r.g2OverG1 = r.medianMs / g1Ms.get(rowKey(r, ['kernel']));
}
/** --kernel both: each FMA row's speedup, the integer row's median (same curve, group, size and variant) over its own. */
if (kernels.length > 1) {
  const intMs = new Map(results.filter((r) => r.kernel === 'int').map((r) => [rowKey(r, ['group']), r.medianMs]));
  for (const r of results) if (r.kernel === 'fma' && intMs.has(rowKey(r, ['group']))) r.fmaSpeedup = intMs.get(rowKey(r, ['group'])) / r.medianMs;
}
const ratioHeader = [...(groups.length > 1 ? ['G2/G1'] : []), ...(kernels.length > 1 ? ['kernel', 'FMA vs int'] : [])];
const ratioCells = (r) => [
  ...(groups.length > 1 ? [r.g2OverG1 === undefined ? '-' : `${r.g2OverG1.toFixed(2)}x`] : []),
  ...(kernels.length > 1 ? [r.kernel, r.fmaSpeedup === undefined ? '-' : `${r.fmaSpeedup.toFixed(2)}x`] : []),
];
const labelOf = (r) => `${r.group === 'G1' ? r.curve : `${r.curve} ${r.group}`}${kernels.length > 1 ? ` (${r.kernel})` : ''}`;
progress('');
if (!args.json) process.stderr.write('\r');

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${runtimeName()}`;
const phaseNames = [...new Set(results.flatMap((r) => Object.keys(r.phasesMs)))];
if (args.json) {
  console.log(JSON.stringify({ machine, runs, ...(threadCounts && { threads: threadCounts, paths, ffjsThreads }), results }, null, 2));
} else if (budgetsMiB) {
  console.log(`wasmsm evaluate-msm: ${machine}; ${runs} runs per size and budget (median, min-max), each after trim()`);
  const header = ['curve', 'group', 'N', 'path', 'T', 'maxMemory', 'c', 'chunks', 'median ms', 'min-max', 'vs unbounded', 'peak Wasm MiB', 'bytes/point', 'RSS MiB'];
  printTable(header, results.map((r) => (r.tooSmall ? [r.curve, r.group, `2^${r.logN}`, r.path, r.threads, `${r.maxMemoryMiB} MiB`, '-', 'too small', '-', '-', '-', '-', '-', '-'] : [
    r.curve, r.group, `2^${r.logN}`, r.path, r.threads, r.maxMemoryMiB ? `${r.maxMemoryMiB} MiB` : '-', r.window ?? '-',
    r.chunks === null ? '-' : `${r.chunks} x ${r.chunkPoints}`, r.medianMs.toFixed(0), `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`,
    `${r.vsUnbounded.toFixed(2)}x`, r.peakWasmMiB.toFixed(1), r.bytesPerPoint.toFixed(0), r.rssMiB.toFixed(0),
  ])));
  console.log('check: every budgeted result equals the unbounded one');
  for (const r of results) {
    if (r.tooSmall) console.log(`${labelOf(r)} 2^${r.logN} with maxMemory ${r.maxMemoryMiB} MiB: ${r.tooSmall}`);
    if (r.maxMemoryMiB === null) console.log(`check: ${labelOf(r)} 2^${r.logN} ${r.path}: result ${r.result.slice(0, 32)}..., ${r.check === 'not checked' ? 'not checked against @noble/curves (--check-size)' : r.check}`);
  }
} else if (args.prepared) {
  console.log(`wasmsm evaluate-msm: ${machine}; ${runs} runs per size (median, min-max), single thread, prepared bases`);
  const header = ['curve', 'group', 'N', 'path', 'c', 'median ms', 'min-max', 'vs msmBytes', ...ratioHeader, 'setup ms', 'table MiB', ...phaseNames];
  printTable(header, results.map((r) => [
    r.curve, r.group, `2^${r.logN}`, r.prepared ? (r.precompute ? 'prepared, precompute' : 'prepared') : 'msmBytes', r.window, r.medianMs.toFixed(1),
    `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`, `${r.speedupVsMsmBytes.toFixed(2)}x`, ...ratioCells(r), r.prepared ? r.setupMs.toFixed(0) : '-',
    r.prepared ? (r.tableBytes / 2 ** 20).toFixed(1) : '-', ...phaseNames.map((ph) => (r.phasesMs[ph] ?? 0).toFixed(1)),
  ]));
  for (const r of results) if (r.check !== 'not checked' && !r.prepared) console.log(`check: ${labelOf(r)} 2^${r.logN} ${r.check}; prepared results equal msmBytes`);
} else if (!threadCounts) {
  console.log(`wasmsm evaluate-msm: ${machine}; ${runs} runs per size (median, min-max), single thread`);
  const header = ['curve', 'group', 'N', 'c', 'median ms', 'min-max', ...ratioHeader, ...(args.compare ? ['ffjavascript ms', 'speedup'] : []), ...phaseNames];
  printTable(header, results.map((r) => [
    r.curve, r.group, `2^${r.logN}`, r.window, r.medianMs.toFixed(1), `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`, ...ratioCells(r),
    ...(args.compare ? [r.ffjavascriptMedianMs?.toFixed(1) ?? '-', r.speedup ? `${r.speedup.toFixed(2)}x` : '-'] : []),
    ...phaseNames.map((ph) => (r.phasesMs[ph] ?? 0).toFixed(1)),
  ]));
  for (const r of results) if (r.check !== 'not checked') console.log(`check: ${labelOf(r)} 2^${r.logN} ${r.check}`);
} else {
  const ffNote = args.compare ? `; ffjavascript multi-threaded, ${ffjsThreads ?? '-'} workers` : '';
  console.log(`wasmsm evaluate-msm: ${machine}; ${runs} runs per size (median, min-max); thread pool, ${paths.join(' and ')} path${ffNote}`);
  const sync = !args['no-sync'];
  const header = ['curve', 'group', 'N', 'path', 'T', 'c', 'median ms', 'min-max', 'vs 1 thread', ...ratioHeader, ...(sync ? ['sync ms'] : []), ...(args.compare ? ['ffjs MT ms', 'vs ffjs'] : []), ...phaseNames];
  printTable(header, results.map((r) => [
    r.curve, r.group, `2^${r.logN}`, r.path, r.threads, r.window ?? '-', r.medianMs.toFixed(1), `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`, `${r.speedupVsOneThread.toFixed(2)}x${r.threads > 1 ? ` (${r.speedupRange.map((x) => x.toFixed(2)).join('-')})` : ''}`, ...ratioCells(r),
    ...(sync ? [r.syncMs.toFixed(1)] : []),
    ...(args.compare ? [r.ffjsMs?.toFixed(1) ?? '-', r.vsFfjs ? `${r.vsFfjs.toFixed(2)}x` : '-'] : []),
    ...phaseNames.map((ph) => (r.phasesMs[ph] === undefined ? '-' : r.phasesMs[ph].toFixed(1))),
  ]));
  console.log('per thread (timings.perThread, medians over the runs): per phase the busy ms of the threads that ran it, least/median/most,');
  console.log('  imbalance = most / mean, and the span from the first start to the last end; wait = the call\'s length less a thread\'s busy time');
  for (const r of results) {
    if (!r.perThread) continue;
    const phases = Object.entries(r.perThread.phases).map(([ph, p]) =>
      `${ph} ${p.min.toFixed(1)}/${p.median.toFixed(1)}/${p.max.toFixed(1)} (${p.imbalance.toFixed(2)}x, ${p.start.toFixed(1)}-${p.end.toFixed(1)})`);
    console.log(`  ${labelOf(r)} 2^${r.logN} ${r.path} T=${r.threads}: ${phases.join('; ')}; wait ${r.perThread.totalWait.toFixed(1)} ms in all, ${r.perThread.maxWait.toFixed(1)} at most`);
    const steps = Object.entries(r.perThread.steps).map(([name, ms]) => `${name} ${ms.toFixed(1)}`);
    if (steps.length) console.log(`    steps, ms summed over the threads: ${steps.join(', ')}`);
  }
  console.log('check: every pool result equals the synchronous msmBytes');
  for (const r of results) if (r.threads === 1 && r.path === paths[0] && r.check.includes('noble')) console.log(`check: ${labelOf(r)} 2^${r.logN} matches @noble/curves`);
}
