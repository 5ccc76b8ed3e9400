#!/usr/bin/env node
// npm run bench:browser: the MSM time in headless Chromium next to Node's, for the same inputs.
// Bundles the example page with esbuild, serves it on 127.0.0.1, opens ?curve=<c>&logn=<k>&runs=<r>&noble=0
// in Debian's chromium (playwright-core), then runs the same MSM in this Node process: the same seeded inputs
// (the page's defaults, which are evaluate-msm's: points seed 1000 + k, scalars seed 2000 + k), one warm-up
// run and <r> timed runs on each side, medians. Checks that both give the same point, adds Node's figure to
// the page and saves a screenshot (examples/browser/dist/screenshots/bench-<curve>-2^<k>-<kernel>.png).
//
//   node examples/browser/bench.js [--curve bls12-381] [--logn 16] [--runs 5] [--noble] [--json]
//                                  [--threads 1,2] [--kernel auto|int|fma|wide]
// (--kernel: the build of the curve's Wasm on both sides, loadCurve's option; default auto. wide: Chromium runs
// with --js-flags=--wasm-wide-arithmetic, and Node, which has no wide arithmetic yet, runs its 'auto' build.)
// (--noble also times the page's pure-JS @noble/curves MSM: slow at 2^16, tens of seconds.)
//
// --threads T1,T2,...: also time the thread pool (curve.threads({ count: T })) for each T. In the browser the
// page (?threads=T) is served twice: with COOP/COEP (cross-origin isolated: the pool's shared-memory path) and
// without (its message path); in Node the pool runs with sharedMemory: true and with false. One table: the
// main thread (the default run above) and, per T and path, the browser's and Node's medians on the same inputs.
// Every page must show Node's result; the pool must take the expected path. Pages run one at a time, and Node
// runs while the page is idle (its pool closed). Screenshots: bench-<curve>-2^<k>-t<T>-<shared|messages>.png.

import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { mkdirSync } from 'node:fs';
import { buildExample, serve, launchChromium, openExample, distDir, repoDir, findChromium, WIDE_ARITHMETIC_FLAGS } from './harness.js';
import { benchThreads } from './bench-threads.js';
import { loadCurve } from '../../index.js';
import { wideArithmeticSupport } from '../../src/runtime/features.js';

const { values: args } = parseArgs({
  options: {
    curve: { type: 'string', default: 'bls12-381' },
    logn: { type: 'string', default: '16' },
    runs: { type: 'string', default: '5' },
    noble: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    threads: { type: 'string', default: '' },
    kernel: { type: 'string', default: 'auto' },
  },
});
const threadCounts = [...new Set(args.threads.split(',').filter((t) => t.trim() !== '').map(Number))];
if (threadCounts.some((t) => !Number.isInteger(t) || t < 1 || t > 64)) throw new RangeError(`--threads takes thread counts in 1..64, comma-separated, got ${JSON.stringify(args.threads)}`);
const logn = Number(args.logn);
const runs = Number(args.runs);
const n = 2 ** logn;
const log = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (threadCounts.length) {
  await benchThreads({ ...args, logn, runs, threadCounts });
  process.exit(0);
}

// ---- browser ----------------------------------------------------------------------------------------
const outdir = join(distDir, 'bench');
await buildExample({ bundler: 'esbuild', outdir });
const server = await serve(outdir);
const browser = await launchChromium(findChromium(), { args: args.kernel === 'wide' ? WIDE_ARITHMETIC_FLAGS : [] });
log(`chromium ${browser.version()}: ${args.curve} 2^${logn}, warm-up + ${runs} runs...`);
const { page, report, logs, status } = await openExample(
  browser, server.url, { curve: args.curve, logn, runs, noble: args.noble ? 1 : 0, kernel: args.kernel }, { timeout: 30 * 60_000 },
);
if (report.state !== 'done') {
  log(`the page failed: ${status}\n${report.error ?? ''}\n${logs.join('\n')}`);
  process.exit(1);
}

// ---- Node, same inputs --------------------------------------------------------------------------------
log(`node ${process.version}: the same inputs, warm-up + ${runs} runs...`);
const curve = await loadCurve(args.curve, { kernel: args.kernel === 'wide' && !wideArithmeticSupport() ? 'auto' : args.kernel });
const points = curve.randomPointsBytes(n, { seed: 1000 + logn });
const scalars = curve.randomScalarsBytes(n, { seed: 2000 + logn });
const first = curve.decodePoint(curve.msmBytes(points, scalars));
const times = [];
const phases = {};
for (let r = 0; r < runs; r++) {
  const timings = {};
  const t0 = performance.now();
  curve.msmBytes(points, scalars, { timings });
  times.push(performance.now() - t0);
  for (const [ph, ms] of Object.entries(timings)) if (ph !== 'window' && ph !== 'windows') (phases[ph] ??= []).push(ms);
}
const nodeResult = first === null ? null : { x: `0x${first.x.toString(16)}`, y: `0x${first.y.toString(16)}` };
const same = JSON.stringify(nodeResult) === JSON.stringify(report.result);
const node = {
  version: process.version,
  msmMedianMs: median(times), msmMs: times,
  phasesMs: Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)])),
};

await page.evaluate(
  ({ what, ms, note }) => window.wasmsmExample.addTimeRow(what, ms, note),
  { what: `Node ${process.version}, same inputs: MSM median of ${runs}`, ms: node.msmMedianMs, note: same ? 'same result as the page' : 'DIFFERENT result' },
);
const shotDir = join(distDir, 'screenshots');
mkdirSync(shotDir, { recursive: true });
const shot = join(shotDir, `bench-${args.curve}-2^${logn}-${report.kernel}.png`);
await page.screenshot({ path: shot, fullPage: true });
await browser.close();
await server.close();

const chrome = report.userAgent.match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? report.userAgent;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} logical CPUs`;
if (args.json) {
  console.log(JSON.stringify({ machine, curve: args.curve, logn, runs, same, browser: { ...report, chrome }, node: { ...node, kernel: curve.kernel }, screenshot: relative(repoDir, shot) }, null, 2));
} else {
  const fmt = (ms) => (ms === undefined ? '-' : ms.toFixed(1));
  console.log(`${args.curve}, N = 2^${logn}, ${runs} timed runs after one warm-up (median ms), ${machine}; kernels: ${report.kernel} (page), ${curve.kernel} (Node)`);
  console.log(`same inputs (points seed ${1000 + logn}, scalars seed ${2000 + logn}); results ${same ? 'equal' : 'DIFFER'}\n`);
  console.log(`| | ${chrome} | Node ${process.version} | browser / Node |`);
  console.log('|:--|--:|--:|--:|');
  console.log(`| MSM (median) | ${fmt(report.msmMedianMs)} | ${fmt(node.msmMedianMs)} | ${(report.msmMedianMs / node.msmMedianMs).toFixed(2)} |`);
  console.log(`| min-max | ${fmt(Math.min(...report.msmMs))}-${fmt(Math.max(...report.msmMs))} | ${fmt(Math.min(...times))}-${fmt(Math.max(...times))} | |`);
  for (const ph of Object.keys(node.phasesMs)) {
    console.log(`| ${ph} | ${fmt(report.phasesMs[ph])} | ${fmt(node.phasesMs[ph])} | |`);
  }
  if (args.noble) console.log(`| @noble/curves pippenger (page) | ${fmt(report.nobleMs)} | | |`);
  console.log(`\nWasm memory after the MSM (browser): ${(report.memoryBytes / 2 ** 20).toFixed(1)} MiB; screenshot: ${relative(repoDir, shot)}`);
}
if (!same) process.exit(1);
