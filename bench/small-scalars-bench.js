#!/usr/bin/env node
// The MSM on scalars of few bits (what a circuit's witness holds: Groth16's A, B and C MSMs) against random ones,
// with ffjavascript on the same inputs in the same run, runs interleaved; each row checked against ffjavascript's
// result. Prints each kind's median, its phases (from `timings`: window c, windows K, the bits planned for) and the
// ratio. The plan takes the largest scalar's bit length (src/msm/plan.js msmShape).
//
//   node bench/small-scalars-bench.js                      # BN254 G1, 2^16, one thread against ffjavascript's single thread
//   node bench/small-scalars-bench.js --threads 2 --group g2  # a pool of 2 against ffjavascript's workers (one per core)

import { cpus } from 'node:os';
import { loadCurve } from '../index.js';
import { ffjavascriptCurve, ffjavascriptMsm, ffjavascriptThreads, toFfjavascriptInputs } from '../scripts/peers.js';
import { fail, median, parseCli, printTable, runtimeName } from '../scripts/lib.js';

const KINDS = {
  random: 'random scalars < r',
  bits: 'scalars 0 or 1',
  'bits+full': 'scalars 0 or 1, every 16th random < r',
  bits16: '16-bit scalars',
  zero: 'all zero',
};

const HELP = `usage: node bench/small-scalars-bench.js [options]
  --curve c     bn254 (default) or bls12-381 (the curves ffjavascript has)
  --group g     g1 (default) or g2
  --size k      log2 of the points (default 16)
  --runs r      timed runs of each (default 5, after one warm-up)
  --threads t   1 (default: curve.msmBytes against ffjavascript single-threaded) or more (a pool of t against
                ffjavascript's default workers)
  --kinds a,b   scalar kinds (default all): ${Object.entries(KINDS).map(([k, v]) => `${k} (${v})`).join(', ')}`;

const args = parseCli('small-scalars-bench', HELP, {
  curve: { type: 'string', default: 'bn254' },
  group: { type: 'string', default: 'g1' },
  size: { type: 'string', default: '16' },
  runs: { type: 'string', default: '5' },
  threads: { type: 'string', default: '1' },
  kinds: { type: 'string', default: Object.keys(KINDS).join(',') },
});
const runs = Number(args.runs);
const T = Number(args.threads);
const n = 2 ** Number(args.size);
const kinds = args.kinds.split(',');
for (const k of kinds) if (!KINDS[k]) fail('small-scalars-bench', `unknown kind ${k} (known: ${Object.keys(KINDS).join(', ')})`, 2);

const curve = await loadCurve(args.curve);
const g = args.group === 'g2' ? curve.g2 : curve;
const ff = await ffjavascriptCurve(curve.params, { threads: T > 1 });
if (!ff) fail('small-scalars-bench', `ffjavascript has no ${args.curve}`, 2);
const pool = T > 1 ? await g.threads({ count: T }) : null;

const S = g.scalarBytes;
const points = g.randomPointsBytes(n, { seed: 1000 + n });
const random = g.randomScalarsBytes(n, { seed: 2000 + n });
/** Scalars of a kind: random ones cut to what the kind keeps. */
function scalarsOf(kind) {
  const out = new Uint8Array(n * S);
  for (let i = 0; i < n; i++) {
    const o = i * S;
    if (kind === 'random' || (kind === 'bits+full' && i % 16 === 0)) out.set(random.subarray(o, o + S), o);
    else if (kind === 'bits' || kind === 'bits+full') out[o] = random[o] & 1;
    else if (kind === 'bits16') out.set(random.subarray(o, o + 2), o);
  }
  return out;
}

console.log(`${runtimeName()}, ${cpus()[0].model}, ${cpus().length} cores; ${curve.name} ${g.params.group}, 2^${args.size} points, ` +
  `${T === 1 ? 'one thread' : `a pool of ${T}`} against ffjavascript ${ffjavascriptThreads(ff) === 1 ? 'single-threaded' : `with ${ffjavascriptThreads(ff)} workers`}; medians of ${runs}`);
const rows = [];
const ms = (v) => (v === undefined ? '-' : v.toFixed(1));
for (const kind of kinds) {
  const scalars = scalarsOf(kind);
  const ours = async (timings) => (pool ? pool.msmBytes(points, scalars, { timings }) : g.msmBytes(points, scalars, { timings }));
  const { bases, scalars: ffScalars } = toFfjavascriptInputs(ff, g.params, points, scalars);
  const theirs = await ffjavascriptMsm(ff, bases, ffScalars, g.params.group);
  const got = g.decodePoint(await ours());
  if (JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? String(v) : v)) !== JSON.stringify(theirs, (_, v) => (typeof v === 'bigint' ? String(v) : v))) {
    fail('small-scalars-bench', `${kind}: the result differs from ffjavascript's`);
  }
  const a = [];
  const b = [];
  const phases = [];
  for (let r = 0; r < runs; r++) {
    const timings = {};
    let t0 = performance.now();
    await ours(timings);
    a.push(performance.now() - t0);
    phases.push(timings);
    t0 = performance.now();
    await ff[g.params.group].multiExpAffine(bases, ffScalars);
    b.push(performance.now() - t0);
  }
  const phase = (name) => (phases[0][name] === undefined ? undefined : median(phases.map((t) => t[name] ?? 0)));
  const t = phases[0];
  rows.push([
    kind, `${t.bits}${t.windows ? ` / ${t.windows} x c=${t.window}` : ''}`, ms(median(a)),
    ...(pool ? [ms(phase('decode')), ms(phase('prepare')), ms(phase('lanes'))] : [ms(phase('convert')), ms((phase('prepare') ?? 0) + (phase('digits') ?? 0)), ms(phase('accumulate')), ms(phase('reduce'))]),
    ms(median(b)), `${(median(b) / median(a)).toFixed(2)}x`,
  ]);
}
const phaseNames = pool ? ['decode', 'prepare', 'lanes'] : ['convert', 'prepare+digits', 'accumulate', 'reduce'];
printTable(['scalars', 'bits / windows', 'wasmsm ms', ...phaseNames, 'ffjavascript ms', 'ratio'], rows);
await pool?.close();
await ff.terminate();
