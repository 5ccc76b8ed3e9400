#!/usr/bin/env node
// The one-thread MSM of the wide build against the FMA build, in one headless Chromium page with
// --js-flags=--wasm-wide-arithmetic (no Node runs the wide build yet): the library bundled (esbuild) into a page,
// both builds loaded, the same seeded inputs (evaluate-msm's: points seed 1000 + k, scalars seed 2000 + k), one
// warm-up each, then --runs rounds that time each build once, alternating which goes first, so the noise of a
// shared machine falls on both alike. Every run's result must equal the FMA build's first one. Prints medians
// and minima (ms) and the ratio FMA / wide (above 1: the wide build is faster).
//
//   flock /tmp/wasmsm-bench.lock node bench/msm-wide.bench.js [--curves bn254,bls12-381] [--logn 16] [--runs 9]
//                                                            [--kernels fma,wide] [--group g1|g2] [--json]

import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { launchChromium, findChromium, WIDE_ARITHMETIC_FLAGS, repoDir } from '../examples/browser/harness.js';
import { median } from '../scripts/lib.js';

const { values: args } = parseArgs({
  options: {
    curves: { type: 'string', default: 'bn254,bls12-381' },
    logn: { type: 'string', default: '16' },
    runs: { type: 'string', default: '9' },
    kernels: { type: 'string', default: 'fma,wide' },
    group: { type: 'string', default: 'g1' },
    json: { type: 'boolean', default: false },
  },
});
const logn = Number(args.logn);
const runs = Number(args.runs);
const kernels = args.kernels.split(',');
if (args.group !== 'g1' && args.group !== 'g2') throw new RangeError(`--group takes g1 or g2, got ${JSON.stringify(args.group)}`);

/** Runs in the page (no closure): both builds of one curve on the same inputs, interleaved. */
async function pageBench({ curve: name, logn, runs, kernels, group }) {
  const { loadCurve } = globalThis.wasmsm;
  const n = 2 ** logn;
  const curves = [];
  for (const kernel of kernels) {
    const curve = await loadCurve(name, { kernel });
    curves.push(group === 'g2' ? curve.g2 : curve);
  }
  const points = curves[0].randomPointsBytes(n, { seed: 1000 + logn });
  const scalars = curves[0].randomScalarsBytes(n, { seed: 2000 + logn });
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const want = hex(curves[0].msmBytes(points, scalars)); // also the first build's warm-up
  const times = curves.map(() => []);
  for (let k = 1; k < curves.length; k++) if (hex(curves[k].msmBytes(points, scalars)) !== want) throw new Error(`${curves[k].kernel}: a different result`);
  for (let r = 0; r < runs; r++) {
    const order = curves.map((_, k) => k);
    if (r % 2) order.reverse();
    for (const k of order) {
      const t0 = performance.now();
      const out = curves[k].msmBytes(points, scalars);
      times[k].push(performance.now() - t0);
      if (hex(out) !== want) throw new Error(`${curves[k].kernel}: a different result in run ${r}`);
    }
  }
  return { kernels: curves.map((c) => c.kernel), times };
}

const esbuild = await import('esbuild');
const { outputFiles } = await esbuild.build({
  stdin: { contents: "import { loadCurve } from './index.js'; globalThis.wasmsm = { loadCurve };", resolveDir: repoDir },
  bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
});
const browser = await launchChromium(findChromium(), { args: WIDE_ARITHMETIC_FLAGS });
const page = await browser.newPage();
await page.addScriptTag({ content: outputFiles[0].text });
const machine = `${cpus()[0].model.trim()}, ${cpus().length} logical CPUs`;
const results = [];
try {
  for (const curve of args.curves.split(',')) {
    process.stderr.write(`${curve} ${args.group.toUpperCase()} 2^${logn}: ${kernels.join(' and ')}, warm-up + ${runs} rounds...\n`);
    const r = await page.evaluate(pageBench, { curve, logn, runs, kernels, group: args.group });
    results.push({ curve, ...r, medians: r.times.map(median), minima: r.times.map((t) => Math.min(...t)) });
  }
} finally {
  await browser.close();
}
if (args.json) {
  console.log(JSON.stringify({ machine, chromium: browser.version(), logn, runs, results }, null, 2));
} else {
  console.log(`One-thread MSM, ${args.group.toUpperCase()}, 2^${logn} points, ${runs} interleaved rounds after a warm-up, ms (median / min); ${machine}; Chromium ${browser.version()} ${WIDE_ARITHMETIC_FLAGS.join(' ')}`);
  console.log(`| curve | ${results[0].kernels.join(' | ')} | ${results[0].kernels[0]} / ${results[0].kernels.at(-1)} (medians) | (minima) |`);
  console.log(`|:--|${results[0].kernels.map(() => '--:|').join('')}--:|--:|`);
  for (const r of results) {
    const cells = r.medians.map((m, k) => `${m.toFixed(1)} / ${r.minima[k].toFixed(1)}`);
    console.log(`| ${r.curve} | ${cells.join(' | ')} | ${(r.medians[0] / r.medians.at(-1)).toFixed(2)}x | ${(r.minima[0] / r.minima.at(-1)).toFixed(2)}x |`);
  }
}
