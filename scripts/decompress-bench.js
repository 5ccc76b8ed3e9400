#!/usr/bin/env node
// Decompression throughput: 2^logN BLS12-381 points in the ZCash compressed encoding to the native encoding
// (curve.decodePoints, a square root per point in Wasm), next to the MSM of the same size, on this machine.
// Usage: node scripts/decompress-bench.js [--logn 16] [--runs 3] [--curve bls12-381] [--format zcash-compressed]

import { loadCurve } from '../index.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const logn = Number(opt('logn', 16));
const runs = Number(opt('runs', 3));
const curveName = opt('curve', 'bls12-381');
const format = opt('format', 'zcash-compressed');
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

console.log(`${curveName}, ${format}, N = 2^${logn}, median of ${runs} (Node ${process.version})`);
console.log(`  decodePoints:                         ${decode.toFixed(0)} ms  (${((n / decode) * 1000).toFixed(0)} points/s, ${((decode / n) * 1000).toFixed(1)} us/point)`);
console.log(`  decodePoints + checkSubgroup:         ${decodeSub.toFixed(0)} ms`);
console.log(`  msmBytes (native input):              ${msm.toFixed(0)} ms`);
console.log(`  msmBytes ({ pointFormat: '${format}' }): ${msmFormat.toFixed(0)} ms`);
