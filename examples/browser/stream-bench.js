#!/usr/bin/env node
// npm run bench:stream: a streamed MSM in headless Chromium within a memory budget. Makes seeded inputs in Node
// (evaluate-msm's: points seed 1000 + k, scalars seed 2000 + k), writes them as two files next to the streamed
// page (stream.html), serves it on 127.0.0.1 and opens it: the page fetches both and runs
// curve.msmStream({ points: body, scalars: body }, { maxMemory }). The page's result must equal Node's msmBytes
// on the same inputs, which is checked against @noble/curves (unless --no-noble). Prints the page's time, its Wasm
// memory (the stream's own instance, or the pool's) and the budget, next to Node's unbounded msmBytes.
//
//   node examples/browser/stream-bench.js [--curve bls12-381] [--logn 20] [--max-memory 64] [--threads 0]
//                                         [--kernel auto] [--no-noble] [--json]

import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { buildStreamPage, serve, launchChromium, openStreamPage, distDir } from './harness.js';
import { loadCurve } from '../../index.js';
import { nobleMsm } from '../../scripts/peers.js';

const { values: args } = parseArgs({
  options: {
    curve: { type: 'string', default: 'bls12-381' },
    logn: { type: 'string', default: '20' },
    'max-memory': { type: 'string', default: '64' },
    threads: { type: 'string', default: '0' },
    kernel: { type: 'string', default: 'auto' },
    'no-noble': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const logn = Number(args.logn);
const maxMemoryMiB = Number(args['max-memory']);
const threads = Number(args.threads);
const log = (s) => process.stderr.write(`${s}\n`);
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const MiB = 2 ** 20;

const curve = await loadCurve(args.curve, { kernel: args.kernel });
const n = 2 ** logn;
log(`${args.curve} 2^${logn}: generating the inputs (seeded)...`);
const pointBytes = curve.randomPointsBytes(n, { seed: 1000 + logn });
const scalarBytes = curve.randomScalarsBytes(n, { seed: 2000 + logn });
log(`node ${process.version}: msmBytes without a budget...`);
let t0 = performance.now();
const expected = curve.msmBytes(pointBytes, scalarBytes);
const nodeMs = performance.now() - t0;
const nodeWasmMiB = curve.memory.buffer.byteLength / MiB;
curve.trim();
let check = 'not checked against @noble/curves';
if (!args['no-noble']) {
  log('checking it against @noble/curves (slow at this size)...');
  const want = await nobleMsm(curve.params, pointBytes, scalarBytes);
  const got = curve.decodePoint(expected);
  if (JSON.stringify(want, (_, v) => (typeof v === 'bigint' ? v.toString(16) : v)) !== JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? v.toString(16) : v))) {
    log('Node msmBytes differs from @noble/curves');
    process.exit(1);
  }
  check = 'equals @noble/curves';
}

const outdir = join(distDir, 'stream');
await buildStreamPage({ outdir, pointBytes, scalarBytes });
const server = await serve(outdir, { isolated: true });
const browser = await launchChromium();
log(`chromium ${browser.version()}: streaming 2^${logn} points within ${maxMemoryMiB} MiB${threads ? ` on a pool of ${threads}` : ''}...`);
t0 = performance.now();
const { report, logs } = await openStreamPage(browser, server.url, { curve: args.curve, maxMemory: maxMemoryMiB, threads, kernel: args.kernel });
await browser.close();
await server.close();
if (report.state !== 'done') {
  log(`the page failed: ${report.error}\n${logs.join('\n')}`);
  process.exit(1);
}
const same = report.result === hex(expected);
const chrome = report.userAgent.match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? report.userAgent;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} logical CPUs`;
const row = {
  machine, curve: args.curve, logn, maxMemoryMiB, threads, chrome, pageKernel: report.kernel, nodeKernel: curve.kernel, same, check,
  pageMs: report.ms, pageWasmMiB: report.memoryBytes / MiB, window: report.timings.window, chunks: report.timings.chunks, chunkPoints: report.timings.chunkPoints,
  nodeUnboundedMs: nodeMs, nodeUnboundedWasmMiB: nodeWasmMiB,
};
if (args.json) console.log(JSON.stringify(row, null, 2));
else {
  console.log(`${args.curve}, N = 2^${logn}, ${machine}; page: ${chrome}, ${report.kernel} build${threads ? `, pool of ${threads} (${report.sharedMemory ? 'shared memory' : 'messages'})` : ', main thread'}`);
  console.log(`| | time (fetch + MSM) | Wasm memory | window, chunks |`);
  console.log('|:--|--:|--:|--:|');
  console.log(`| page: msmStream of two fetch bodies, maxMemory ${maxMemoryMiB} MiB | ${report.ms.toFixed(0)} ms | ${row.pageWasmMiB.toFixed(1)} MiB | c = ${row.window}, ${row.chunks} x ${row.chunkPoints} |`);
  console.log(`| Node ${process.version}: msmBytes, no budget (${curve.kernel}) | ${nodeMs.toFixed(0)} ms | ${nodeWasmMiB.toFixed(1)} MiB | |`);
  console.log(`\nthe page's result ${same ? 'equals' : 'DIFFERS from'} Node's, which ${check}`);
}
if (!same) process.exit(1);
