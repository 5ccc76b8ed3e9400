#!/usr/bin/env node
// The twisted Edwards MSMs side by side with their peers, in one run (wrap it in flock: docs/curves.md):
//   - Ed-on-BLS12-377 at each --sizes and --threads against montgomery's twisted-Edwards MSM (its main branch,
//     scripts/run-msm-ed-377.ts --evaluate in a child process: 10 timed runs after 5, median) and against our own
//     BLS12-377 G1 MSM (cost per point of the Edwards curve against the short-Weierstrass one);
//   - ed25519 at --ed25519-size at each --threads against @noble/curves' pippenger (its Edwards point class, one
//     thread), with the median phase timings of our one-thread MSM.
// Ours: msmBytes on one thread, or a pool of T on shared memory; one warm-up, then --runs timed runs, median.
// Rounds interleave the implementations (--rounds), each round's medians kept; the table shows the median over rounds.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCurve } from '../index.js';
import { fail, median, medianMs, parseCli, printTable } from '../scripts/lib.js';

const HELP = `Usage: node bench/edwards-bench.js [--sizes 16,18] [--threads 1,2] [--runs 10] [--rounds 2]
  [--ed25519-size 16] [--noble-runs 2] [--montgomery <dir>] [--no-montgomery] [--no-noble]
  --montgomery: a checkout of montgomery's main branch, built (npm install; npx tsc), default $MONTGOMERY_DIR or
  /tmp/peer-montgomery`;

const values = parseCli('edwards-bench', HELP, {
  sizes: { type: 'string', default: '16,18' },
  threads: { type: 'string', default: '1,2' },
  runs: { type: 'string', default: '10' },
  rounds: { type: 'string', default: '2' },
  'ed25519-size': { type: 'string', default: '16' },
  'noble-runs': { type: 'string', default: '2' },
  montgomery: { type: 'string', default: process.env.MONTGOMERY_DIR ?? '/tmp/peer-montgomery' },
  'no-montgomery': { type: 'boolean', default: false },
  'no-noble': { type: 'boolean', default: false },
});
const list = (s) => s.split(',').filter((x) => x !== '').map(Number); // --sizes '' skips Ed-on-BLS12-377
const sizes = list(values.sizes);
const threadCounts = list(values.threads);
const runs = Number(values.runs);
const rounds = Number(values.rounds);
/** Median ms of `count` calls of the async fn after one warm-up. */
const time = (fn, count = runs) => medianMs(fn, count, { warmup: 1 });

/** montgomery's own benchmark of its twisted-Edwards MSM (Ed-on-BLS12-377), in a child process: its median ms. */
function montgomeryMs(logn, threads) {
  const dir = values.montgomery;
  if (!existsSync(join(dir, 'build', 'scripts', 'run-msm-ed-377.js'))) throw new Error(`no built montgomery checkout at ${dir} (--montgomery <dir>, or --no-montgomery)`);
  const r = spawnSync(process.execPath, ['run', 'scripts/run-msm-ed-377.ts', String(logn), String(threads), '--evaluate'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 24 });
  const m = /msm \(n=\d+\)\.\.\. (\d+)ms/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`montgomery failed (status ${r.status}): ${r.stderr.slice(-400)}`);
  return Number(m[1]);
}

/** Our msmBytes on `threads` threads (a shared-memory pool above 1): median ms. */
async function oursMs(curve, pointBytes, scalarBytes, threads) {
  if (threads === 1) return time(() => curve.msmBytes(pointBytes, scalarBytes));
  const pool = await curve.threads({ count: threads, sharedMemory: true });
  try {
    return await time(() => pool.msmBytes(pointBytes, scalarBytes));
  } finally {
    await pool.close();
  }
}

async function main() {
  const ed = await loadCurve('ed-on-bls12-377');
  const bls = await loadCurve('bls12-377');
  console.log(`node ${process.version}, ${ed.kernel === 'fma' ? 'FMA' : 'integer'} build; ${runs} runs after a warm-up, median; ${rounds} rounds, median of the rounds' medians`);
  const rows = [];
  for (const logn of sizes) {
    const n = 1 << logn;
    const inputs = {
      ed: [ed.randomPointsBytes(n, { seed: 1 }), ed.randomScalarsBytes(n, { seed: 2 })],
      bls: [bls.randomPointsBytes(n, { seed: 1 }), bls.randomScalarsBytes(n, { seed: 2 })],
    };
    for (const threads of threadCounts) {
      const got = { ed: [], bls: [], montgomery: [] };
      for (let round = 0; round < rounds; round++) {
        if (!values['no-montgomery']) got.montgomery.push(montgomeryMs(logn, threads));
        got.ed.push(await oursMs(ed, ...inputs.ed, threads));
        got.bls.push(await oursMs(bls, ...inputs.bls, threads));
        ed.trim();
        bls.trim();
      }
      const [e, b, m] = [median(got.ed), median(got.bls), got.montgomery.length ? median(got.montgomery) : NaN];
      rows.push([`2^${logn}`, threads, e.toFixed(0), m.toFixed(0), (m / e).toFixed(2), b.toFixed(0), (e / b).toFixed(2)]);
      console.log(`2^${logn}, ${threads} thread(s): ed-on-bls12-377 ${e.toFixed(0)} ms, montgomery ${m} ms, bls12-377 G1 ${b.toFixed(0)} ms`);
    }
  }
  if (rows.length) console.log('\nEd-on-BLS12-377 (ms, median)');
  if (rows.length) printTable(['n', 'threads', 'wasmsm', 'montgomery', 'montgomery / wasmsm', 'wasmsm BLS12-377 G1', 'Ed / G1 per point'], rows);

  if (!values['no-noble']) {
    const logn = Number(values['ed25519-size']);
    const n = 1 << logn;
    const curve = await loadCurve('ed25519');
    const [pointBytes, scalarBytes] = [curve.randomPointsBytes(n, { seed: 3 }), curve.randomScalarsBytes(n, { seed: 4 })];
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    const { pippenger } = await import('@noble/curves/abstract/curve.js');
    const points = [];
    const scalars = [];
    for (let i = 0; i < n; i++) {
      points.push(ed25519.Point.fromAffine(curve.decodePoint(pointBytes.subarray(i * curve.pointBytes, (i + 1) * curve.pointBytes))));
      let s = 0n;
      for (let k = curve.scalarBytes - 1; k >= 0; k--) s = (s << 8n) | BigInt(scalarBytes[i * curve.scalarBytes + k]);
      scalars.push(s);
    }
    const want = pippenger(ed25519.Point, points, scalars).toAffine();
    const got = curve.decodePoint(curve.msmBytes(pointBytes, scalarBytes));
    if (got.x !== want.x || got.y !== want.y) throw new Error('ed25519: our result differs from noble\'s');
    // Each round: noble once (single-threaded), then ours at each thread count, so the ratios come from one run.
    const ours = new Map(threadCounts.map((t) => [t, []]));
    const nobleT = [];
    for (let round = 0; round < rounds; round++) {
      nobleT.push(await time(() => pippenger(ed25519.Point, points, scalars), Number(values['noble-runs'])));
      for (const threads of threadCounts) ours.get(threads).push(await oursMs(curve, pointBytes, scalarBytes, threads));
    }
    const nb = median(nobleT);
    console.log(`\ned25519 2^${logn} (ms, median; results equal), @noble/curves pippenger (one thread) ${nb.toFixed(0)}:`);
    printTable(['threads', 'wasmsm', 'noble / wasmsm'], threadCounts.map((t) => [t, median(ours.get(t)).toFixed(0), `${(nb / median(ours.get(t))).toFixed(1)}x`]));
    console.log(`one thread's phases (ms, median of ${runs}): ${phaseLine(curve, pointBytes, scalarBytes)}`);
  }
}

/** The median of each phase of `timings` over --runs one-thread runs, as one line. */
function phaseLine(curve, pointBytes, scalarBytes) {
  const phases = {};
  let shape;
  for (let i = 0; i < runs; i++) {
    const timings = {};
    curve.msmBytes(pointBytes, scalarBytes, { timings });
    const { window, windows, chunks, chunkPoints, bits, ...ms } = timings;
    shape = `${bits}-bit scalars, window ${window}, ${windows} windows, ${chunks} chunk(s)`;
    for (const [name, v] of Object.entries(ms)) (phases[name] ??= []).push(v);
  }
  return `${Object.entries(phases).map(([name, v]) => `${name} ${median(v).toFixed(1)}`).join(', ')} (${shape})`;
}

main().then(() => process.exit(0), (e) => fail('edwards-bench', e));
