#!/usr/bin/env node
// Decompression throughput: 2^logN BLS12-381 points in the ZCash compressed encoding to the native encoding
// (curve.decodePoints, a square root per point in Wasm), next to the MSM of the same size, on this machine.
// Also the thread pool (--threads, default 2): its threads decode a slice each, then run the MSM.

import { loadCurve } from '../index.js';
import { parseCli } from '../scripts/lib.js';

const HELP = `usage: node bench/decompress-bench.js [options]
  --logn 16       log2 of the number of points (default 16)
  --runs 3        timed runs (median)
  --curve c       default bls12-381
  --format f      a point format of the curve (default zcash-compressed)
  --threads 2     the pool's thread count for the threaded rows (default 2; 0 skips them)`;
const args = parseCli('decompress-bench', HELP, {
  logn: { type: 'string', default: '16' },
  runs: { type: 'string', default: '3' },
  curve: { type: 'string', default: 'bls12-381' },
  format: { type: 'string', default: 'zcash-compressed' },
  threads: { type: 'string', default: '2' },
});
const logn = Number(args.logn);
const runs = Number(args.runs);
const curveName = args.curve;
const format = args.format;
const threads = Number(args.threads);
const n = 1 << logn;

const curve = await loadCurve(curveName);
const native = curve.randomPointsBytes(n, { seed: 1 });
const scalars = curve.randomScalarsBytes(n, { seed: 2 });
const encoded = curve.encodePoint(native, format);
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};

time(() => curve.decodePoints(encoded.subarray(0, 1024 * curve.pointFormats[format]), format)); // warm-up
const decode = median(Array.from({ length: runs }, () => time(() => curve.decodePoints(encoded, format))));
const decodeSub = median(Array.from({ length: Math.min(runs, 2) }, () => time(() => curve.decodePoints(encoded, format, { checkSubgroup: true }))));
time(() => curve.msmBytes(native.subarray(0, 1024 * curve.pointBytes), scalars.subarray(0, 1024 * curve.scalarBytes)));
const msm = median(Array.from({ length: runs }, () => time(() => curve.msmBytes(native, scalars))));
const msmFormat = median(Array.from({ length: runs }, () => time(() => curve.msmBytes(encoded, scalars, { pointFormat: format }))));

const timeAsync = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
let pooled = null;
if (threads > 0) {
  const pool = await curve.threads({ count: threads });
  await pool.msmBytes(encoded.subarray(0, 1024 * curve.pointFormats[format]), scalars.subarray(0, 1024 * curve.scalarBytes), { pointFormat: format });
  const times = [];
  const decodeTimes = [];
  for (let i = 0; i < runs; i++) {
    const timings = {};
    times.push(await timeAsync(() => pool.msmBytes(encoded, scalars, { pointFormat: format, timings })));
    decodeTimes.push(timings.decode);
  }
  const native2 = [];
  for (let i = 0; i < runs; i++) native2.push(await timeAsync(() => pool.msmBytes(native, scalars)));
  pooled = { msm: median(native2), msmFormat: median(times), decode: median(decodeTimes) };
  await pool.close();
}

console.log(`${curveName}, ${format}, N = 2^${logn}, median of ${runs} (Node ${process.version})`);
console.log(`  decodePoints:                         ${decode.toFixed(0)} ms  (${((n / decode) * 1000).toFixed(0)} points/s, ${((decode / n) * 1000).toFixed(1)} us/point)`);
console.log(`  decodePoints + checkSubgroup:         ${decodeSub.toFixed(0)} ms`);
console.log(`  msmBytes (native input):              ${msm.toFixed(0)} ms`);
console.log(`  msmBytes ({ pointFormat: '${format}' }): ${msmFormat.toFixed(0)} ms`);
if (pooled) {
  console.log(`  pool of ${threads}: msmBytes (native input):       ${pooled.msm.toFixed(0)} ms`);
  console.log(`  pool of ${threads}: msmBytes ({ pointFormat }):    ${pooled.msmFormat.toFixed(0)} ms, of which decoding on the threads ${pooled.decode.toFixed(0)} ms`);
}
