#!/usr/bin/env node
// The unbounded msmBytes of this checkout against another checkout's (an earlier commit), in one process on the
// same inputs, runs interleaved, medians: for claims like "no slower than before". The other checkout needs its
// Wasm built (npm ci && npm run build:wasm there), e.g.
//   git worktree add ../wasmsm-before <commit> && (cd ../wasmsm-before && npm ci && npm run build:wasm)
//   node bench/compare-checkouts.js --baseline ../wasmsm-before --curve bls12-381,bn254 --sizes 16,18 --runs 7
// Prints each row's medians, their ratio (this / baseline), whether the results are equal, and both Wasm memories.
// --threads T: each checkout's thread pool of T threads instead (pool.msmBytes, memories not compared).
// --max-memory M: the MSMs within maxMemory M MiB (in chunks where the input needs more).
// --busy-ms N (with --threads): the calling thread computes for N ms from 30 ms into each call, while the threads
// sum their shares (a page's main thread at work beside the pool, a third thread on the cores).
// --batch-add: the batch-affine addition kernel alone (g_batchAdd, the accumulation's and reduction's inner step)
// instead of the MSM: 100 calls on 1024 pairs of points per run; prints ns per pair (median and least of the runs).

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, parseCli, printTable } from '../scripts/lib.js';
import { loadCurve } from '../index.js';

const HELP = `usage: node bench/compare-checkouts.js --baseline <dir> [--curve a,b] [--sizes 16,18] [--runs 7] [--kernel auto|int|fma] [--max-memory M] [--threads T [--busy-ms N] | --batch-add]`;
const args = parseCli('compare-checkouts', HELP, {
  baseline: { type: 'string' },
  curve: { type: 'string', default: 'bls12-381,bn254' },
  sizes: { type: 'string', default: '16,18' },
  runs: { type: 'string', default: '7' },
  kernel: { type: 'string', default: 'auto' },
  threads: { type: 'string' },
  'busy-ms': { type: 'string', default: '0' },
  'max-memory': { type: 'string' },
  'batch-add': { type: 'boolean', default: false },
});
if (!args.baseline) {
  console.error(`compare-checkouts: --baseline <dir> is required\n${HELP}`);
  process.exit(2);
}
const baseline = await import(pathToFileURL(resolve(args.baseline, 'index.js')).href);
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const rows = [];
const threads = args.threads === undefined ? 0 : Number(args.threads);
const busyMs = Number(args['busy-ms']);
const budget = args['max-memory'] === undefined ? {} : { maxMemory: Number(args['max-memory']) * 2 ** 20 };
if (!(busyMs >= 0) || (busyMs > 0 && !threads)) {
  console.error(`compare-checkouts: --busy-ms takes milliseconds >= 0, with --threads\n${HELP}`);
  process.exit(2);
}
/** Keep this thread computing for ms milliseconds (no await: the pool's messages wait too). */
const busy = (ms) => {
  const end = performance.now() + ms;
  let spins = 0;
  while (performance.now() < end) spins++;
  return spins;
};
if (args['batch-add']) {
  if (threads) {
    console.error(`compare-checkouts: --batch-add times one thread's kernel; no --threads\n${HELP}`);
    process.exit(2);
  }
  await compareBatchAdd();
  process.exit(0);
}
for (const name of args.curve.split(',')) {
  const before = await baseline.loadCurve(name, { kernel: args.kernel });
  const now = await loadCurve(name, { kernel: args.kernel });
  const pools = threads ? await Promise.all([before, now].map((curve) => curve.threads({ count: threads, releaseAfterMs: Infinity }))) : null;
  const pooled = (pool) => async (p, s) => {
    const call = pool.msmBytes(p, s, budget);
    if (busyMs > 0) {
      await new Promise((wake) => setTimeout(wake, 30));
      busy(busyMs);
    }
    return call;
  };
  const runners = pools ? pools.map(pooled) : [before, now].map((curve) => async (p, s) => curve.msmBytes(p, s, budget));
  for (const k of args.sizes.split(',').map(Number)) {
    const n = 2 ** k;
    const points = now.randomPointsBytes(n, { seed: 1000 + k });
    const scalars = now.randomScalarsBytes(n, { seed: 2000 + k });
    const times = [[], []];
    let results = [];
    for (let r = -1; r < Number(args.runs); r++) {
      results = [];
      for (const [i, run] of runners.entries()) {
        const t0 = performance.now();
        results.push(await run(points, scalars));
        if (r >= 0) times[i].push(performance.now() - t0);
      }
    }
    const [b, c] = times.map(median);
    const mib = (curve) => (pools ? '-' : (curve.memory.buffer.byteLength / 2 ** 20).toFixed(1));
    rows.push([name, `2^${k}`, now.kernel, b.toFixed(0), c.toFixed(0), (c / b).toFixed(3), same(...results) ? 'yes' : 'NO', mib(before), mib(now)]);
  }
  if (pools) await Promise.all(pools.map((pool) => pool.close()));
}
console.log(`compare-checkouts: ${resolve(args.baseline)} (baseline) against this checkout; Node ${process.version}; ${threads ? `pools of ${threads} threads; ` : ''}${busyMs ? `this thread busy ${busyMs} ms in each call; ` : ''}medians of ${args.runs} interleaved runs`);
printTable(['curve', 'N', 'kernel', 'baseline ms', 'this ms', 'this / baseline', 'same result', 'baseline Wasm MiB', 'this Wasm MiB'], rows);
if (rows.some((r) => r[6] === 'NO')) process.exit(1);

/**
 * g_batchAdd of both checkouts on the same 1024 (dst, src) pairs of points (each dst gets src added 100 times per
 * run; no pair meets a special case), runs interleaved and their order alternated.
 */
async function compareBatchAdd() {
  const PAIRS = 1024;
  const CALLS = 100;
  const table = [];
  for (const name of args.curve.split(',')) {
    const curves = [await baseline.loadCurve(name, { kernel: args.kernel }), await loadCurve(name, { kernel: args.kernel })];
    const bytes = curves[1].randomPointsBytes(2 * PAIRS, { seed: 5 });
    const setups = curves.map((curve) => {
      const { affineBytes: A, E } = curve.params;
      const points = curve.heap.alloc(2 * PAIRS * A, 64);
      const encoded = curve.heap.alloc(bytes.length);
      new Uint8Array(curve.memory.buffer, encoded, bytes.length).set(bytes);
      if (curve.exports.g_fromBytes(points, encoded, 2 * PAIRS) !== -1) throw new Error(`${name}: a point did not decode`);
      const pairs = curve.heap.alloc(PAIRS * 8);
      const pr = new Uint32Array(curve.memory.buffer, pairs, 2 * PAIRS);
      for (let i = 0; i < PAIRS; i++) [pr[2 * i], pr[2 * i + 1]] = [points + i * A, points + (PAIRS + i) * A];
      const scratch = curve.heap.alloc(PAIRS * (2 * E + 4));
      return {
        run: () => {
          for (let c = 0; c < CALLS; c++) curve.exports.g_batchAdd(pairs, PAIRS, scratch);
        },
        // the last dst's x after every run: both checkouts must agree
        result: () => curve.fp.read(points + (PAIRS - 1) * A),
      };
    });
    const times = [[], []];
    for (let r = -1; r < Number(args.runs); r++) {
      for (const i of r % 2 ? [1, 0] : [0, 1]) {
        const t0 = performance.now();
        setups[i].run();
        if (r >= 0) times[i].push(((performance.now() - t0) * 1e6) / (PAIRS * CALLS));
      }
    }
    const [b, c] = times.map(median);
    const [bMin, cMin] = times.map((t) => Math.min(...t));
    table.push([name, curves[1].kernel, b.toFixed(1), c.toFixed(1), (c / b).toFixed(3), bMin.toFixed(1), cMin.toFixed(1), (cMin / bMin).toFixed(3), setups[0].result() === setups[1].result() ? 'yes' : 'NO']);
  }
  console.log(`compare-checkouts --batch-add: ${resolve(args.baseline)} (baseline) against this checkout; Node ${process.version}; g_batchAdd, ns per pair over ${args.runs} interleaved runs`);
  printTable(['curve', 'kernel', 'baseline median', 'this median', 'this / baseline', 'baseline least', 'this least', 'this / baseline (least)', 'same result'], table);
  if (table.some((r) => r[8] === 'NO')) process.exit(1);
}
