#!/usr/bin/env node
// npm run evaluate-msm: the main benchmark. Makes its own seeded inputs, checks one result against an
// independent implementation (@noble/curves), times each size several times and prints medians, spread
// and a per-phase breakdown. --compare also times ffjavascript (single thread) on the same inputs.

import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadCurve, curveNames } from '../index.js';
import { nobleMsm, ffjavascriptCurve, toFfjavascriptInputs, ffjavascriptMsm } from './peers.js';

const HELP = `usage: npm run evaluate-msm -- [options]
  --curve a,b     curves to run (default bls12-381,bn254; known: ${curveNames.join(', ')})
  --sizes 12,14   log2 of the input sizes (default 12,14,16)
  --runs 5        timed runs per size (after one warm-up run)
  --window c      force the window size (default: chosen by N)
  --compare       also time ffjavascript's single-threaded G1.multiExpAffine (bls12-381, bn254)
  --check-size k  log2 size whose result is checked against @noble/curves (default: the smallest size)
  --json          print the results as JSON instead of a table`;

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      curve: { type: 'string', default: 'bls12-381,bn254' },
      sizes: { type: 'string', default: '12,14,16' },
      runs: { type: 'string', default: '5' },
      window: { type: 'string' },
      compare: { type: 'boolean', default: false },
      'check-size': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (e) {
  console.error(`evaluate-msm: ${e.message}\n${HELP}`);
  process.exit(2);
}
if (args.help) {
  console.log(HELP);
  process.exit(0);
}
const curves = args.curve.split(',').map((s) => s.trim());
const sizes = args.sizes.split(',').map(Number);
const runs = Number(args.runs);
const window = args.window === undefined ? undefined : Number(args.window);
for (const c of curves) if (!curveNames.includes(c)) fail(`unknown curve ${c}; known: ${curveNames.join(', ')}`);
if (sizes.some((k) => !Number.isInteger(k) || k < 0 || k > 20)) fail('--sizes takes integers 0..20');
if (!Number.isInteger(runs) || runs < 1) fail('--runs takes a positive integer');
const checkSize = args['check-size'] === undefined ? Math.min(...sizes) : Number(args['check-size']);

function fail(message) {
  console.error(`evaluate-msm: ${message}`);
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const progress = (text) => {
  if (!args.json) process.stderr.write(`\r${text.padEnd(70)}`);
};
const results = [];

for (const name of curves) {
  const curve = await loadCurve(name);
  const ff = args.compare ? await ffjavascriptCurve(curve.params) : null;
  for (const k of sizes) {
    const n = 2 ** k;
    progress(`${name} 2^${k}: generating ${n} points and scalars (seeded)...`);
    const points = curve.randomPointsBytes(n, { seed: 1000 + k });
    const scalars = curve.randomScalarsBytes(n, { seed: 2000 + k });
    progress(`${name} 2^${k}: warm-up and ${runs} timed runs...`);
    const first = curve.msmBytes(points, scalars, { window });
    let check = 'not checked';
    if (k === checkSize) {
      progress(`${name} 2^${k}: checking against @noble/curves...`);
      const want = await nobleMsm(curve.params, points, scalars);
      const got = curve.decodePoint(first);
      const same = want === null ? got === null : got !== null && got.x === want.x && got.y === want.y;
      if (!same) {
        console.error(`\nevaluate-msm: ${name} 2^${k}: result differs from @noble/curves`);
        process.exit(1);
      }
      check = 'matches @noble/curves';
    }
    const times = [];
    const phases = {};
    let windowUsed;
    for (let r = 0; r < runs; r++) {
      const timings = {};
      const t0 = performance.now();
      curve.msmBytes(points, scalars, { window, timings });
      times.push(performance.now() - t0);
      windowUsed = timings.window;
      for (const [ph, ms] of Object.entries(timings)) if (ph !== 'window' && ph !== 'windows') (phases[ph] ??= []).push(ms);
    }
    const row = {
      curve: name, logN: k, n, window: windowUsed, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times),
      phasesMs: Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)])), check,
    };
    if (ff) {
      progress(`${name} 2^${k}: ffjavascript (single thread)...`);
      const { bases, scalars: ffScalars } = toFfjavascriptInputs(ff, curve.params, points, scalars);
      const theirs = await ffjavascriptMsm(ff, bases, ffScalars);
      const ours = curve.decodePoint(first);
      if (!(theirs === null ? ours === null : ours && ours.x === theirs.x && ours.y === theirs.y)) {
        console.error(`\nevaluate-msm: ${name} 2^${k}: result differs from ffjavascript`);
        process.exit(1);
      }
      const ffTimes = [];
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        await ff.G1.multiExpAffine(bases, ffScalars);
        ffTimes.push(performance.now() - t0);
      }
      row.ffjavascriptMedianMs = median(ffTimes);
      row.speedup = row.ffjavascriptMedianMs / row.medianMs;
    }
    results.push(row);
  }
  if (ff) await ff.terminate();
}
progress('');
if (!args.json) process.stderr.write('\r');

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
if (args.json) {
  console.log(JSON.stringify({ machine, runs, results }, null, 2));
} else {
  console.log(`wasmsm evaluate-msm: ${machine}; ${runs} runs per size (median, min-max), single thread`);
  const phaseNames = [...new Set(results.flatMap((r) => Object.keys(r.phasesMs)))];
  const header = ['curve', 'N', 'c', 'median ms', 'min-max', ...(args.compare ? ['ffjavascript ms', 'speedup'] : []), ...phaseNames];
  const rows = results.map((r) => [
    r.curve, `2^${r.logN}`, r.window, r.medianMs.toFixed(1), `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`,
    ...(args.compare ? [r.ffjavascriptMedianMs?.toFixed(1) ?? '-', r.speedup ? `${r.speedup.toFixed(2)}x` : '-'] : []),
    ...phaseNames.map((ph) => (r.phasesMs[ph] ?? 0).toFixed(1)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  for (const r of results) if (r.check !== 'not checked') console.log(`check: ${r.curve} 2^${r.logN} ${r.check}`);
}
