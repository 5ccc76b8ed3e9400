#!/usr/bin/env node
// The unbounded msmBytes of this checkout against another checkout's (an earlier commit), in one process on the
// same inputs, runs interleaved, medians: for claims like "no slower than before". The other checkout needs its
// Wasm built (npm ci && npm run build:wasm there), e.g.
//   git worktree add ../wasmsm-before <commit> && (cd ../wasmsm-before && npm ci && npm run build:wasm)
//   node bench/compare-checkouts.js --baseline ../wasmsm-before --curve bls12-381,bn254 --sizes 16,18 --runs 7
// Prints each row's medians, their ratio (this / baseline), whether the results are equal, and both Wasm memories.
// --threads T: each checkout's thread pool of T threads instead (pool.msmBytes, memories not compared).
// --busy-ms N (with --threads): the calling thread computes for N ms from 30 ms into each call, while the threads
// sum their shares (a page's main thread at work beside the pool, a third thread on the cores).

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, parseCli, printTable } from '../scripts/lib.js';
import { loadCurve } from '../index.js';

const HELP = `usage: node bench/compare-checkouts.js --baseline <dir> [--curve a,b] [--sizes 16,18] [--runs 7] [--kernel auto|int|fma] [--threads T [--busy-ms N]]`;
const args = parseCli('compare-checkouts', HELP, {
  baseline: { type: 'string' },
  curve: { type: 'string', default: 'bls12-381,bn254' },
  sizes: { type: 'string', default: '16,18' },
  runs: { type: 'string', default: '7' },
  kernel: { type: 'string', default: 'auto' },
  threads: { type: 'string' },
  'busy-ms': { type: 'string', default: '0' },
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
for (const name of args.curve.split(',')) {
  const before = await baseline.loadCurve(name, { kernel: args.kernel });
  const now = await loadCurve(name, { kernel: args.kernel });
  const pools = threads ? await Promise.all([before, now].map((curve) => curve.threads({ count: threads, releaseAfterMs: Infinity }))) : null;
  const pooled = (pool) => async (p, s) => {
    const call = pool.msmBytes(p, s);
    if (busyMs > 0) {
      await new Promise((wake) => setTimeout(wake, 30));
      busy(busyMs);
    }
    return call;
  };
  const runners = pools ? pools.map(pooled) : [before, now].map((curve) => async (p, s) => curve.msmBytes(p, s));
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
