#!/usr/bin/env node
// npm run noble-bench: wasmsm/noble's msm(Point, points, scalars) against @noble/curves' own pippenger on the same
// noble Points (projective, Z != 1, as a computation leaves them) in the same process: the time from noble Points
// to a noble Point, conversion included, on this thread and on a pool. Every result is checked equal to noble's.

import { cpus } from 'node:os';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { loadCurve } from '../index.js';
import { load } from '../src/adapters/noble.js';
import { noblePointClass, decodePoints } from '../scripts/noble-msm.js';
import { medianMs, parseCli, runtimeName } from '../scripts/lib.js';

const HELP = `usage: npm run noble-bench -- [--sizes 8,10,12] [--runs 5] [--threads 2] [--curves bls12-381,bn254,secp256k1,bls12-381-g2] [--json]
  --sizes    log2 of the number of points
  --runs     timed calls per variant (median)
  --threads  also time a pool of this many threads (0: none)
  --curves   which noble Point classes`;
const args = parseCli('noble-bench', HELP, {
  sizes: { type: 'string', default: '8,10,12' },
  runs: { type: 'string', default: '5' },
  threads: { type: 'string', default: '2' },
  curves: { type: 'string', default: 'bls12-381,bn254,secp256k1,bls12-381-g2' },
  json: { type: 'boolean', default: false },
});
const runs = Number(args.runs);
const threads = Number(args.threads);
const time = (f) => medianMs(f, runs);

const rows = [];
for (const label of args.curves.split(',')) {
  const g2 = label.endsWith('-g2');
  const base = await loadCurve(g2 ? label.slice(0, -3) : label);
  const curve = g2 ? base.g2 : base;
  const Point = await noblePointClass(curve.params);
  const fast = await load(Point);
  const pool = threads > 0 ? await fast.threads({ count: threads }) : null;
  for (const logN of args.sizes.split(',').map(Number)) {
    const n = 2 ** logN;
    const points = decodePoints(curve.randomPointsBytes(n, { seed: logN }), curve.coordinateBytes, curve.params.field.degree)
      .map((P) => Point.fromAffine(P).double()); // projective
    const scalars = Array.from({ length: n }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15f39cc0605cedc834n ** 2n) % Point.Fn.ORDER);
    const expected = pippenger(Point, points, scalars);
    if (!fast.msm(points, scalars).equals(expected) || (pool && !(await pool.msm(points, scalars)).equals(expected))) {
      console.error(`noble-bench: ${label} 2^${logN}: wasmsm/noble differs from noble's pippenger`);
      process.exit(1);
    }
    const nobleMs = await time(() => pippenger(Point, points, scalars));
    const row = { curve: label, logN, nobleMs, wasmsmMs: await time(() => fast.msm(points, scalars)) };
    row.noSubgroupCheckMs = curve.params.h === 1n ? row.wasmsmMs : await time(() => fast.msm(points, scalars, { checkSubgroup: false }));
    if (pool) row.poolMs = await time(() => pool.msm(points, scalars));
    rows.push(row);
  }
  if (pool) await pool.close();
}

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${runtimeName()}`;
if (args.json) console.log(JSON.stringify({ machine, runs, threads, rows }, null, 2));
else {
  console.log(`noble-bench: noble Points in, a noble Point out; ${machine}; median of ${runs} runs; every result equals noble's pippenger`);
  console.log('curve          N      noble pippenger   wasmsm/noble (x)         no subgroup check (x)   ' + (threads ? `pool of ${threads} (x)` : ''));
  for (const r of rows) {
    const x = (ms) => `${ms.toFixed(1).padStart(9)} ms ${(r.nobleMs / ms).toFixed(1).padStart(6)}x`;
    console.log(`${r.curve.padEnd(14)} 2^${String(r.logN).padEnd(4)} ${r.nobleMs.toFixed(1).padStart(9)} ms   ${x(r.wasmsmMs)}    ${x(r.noSubgroupCheckMs)}    ${r.poolMs === undefined ? '' : x(r.poolMs)}`);
  }
}
