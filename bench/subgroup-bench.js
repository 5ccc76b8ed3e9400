#!/usr/bin/env node
// Cost per point of the subgroup check (checkSubgroup: true) on the BLS12 curves: the endomorphism test
// phi(P) = [-z^2] P that the library uses, against r * P = O (what it would do without the endomorphism).
// Usage: node bench/subgroup-bench.js
import { loadCurve } from '../index.js';
import { convertPoints } from '../src/msm/bytes.js';
import { checkSubgroupRange, subgroupScratchBytes } from '../src/msm/subgroup.js';
for (const name of ['bls12-381', 'bls12-377']) {
  const curve = await loadCurve(name);
  const P = curve.params;
  const n = 2000;
  const bytes = curve.randomPointsBytes(n);
  const mark = curve.heap.mark();
  const pts = curve.heap.alloc(n * P.affineBytes, 64), staging = curve.heap.alloc(bytes.length), scratch = curve.heap.alloc(subgroupScratchBytes(P), 64);
  new Uint8Array(curve.memory.buffer, staging, bytes.length).set(bytes);
  const ctx = { ex: curve.exports, memory: curve.memory, params: P };
  convertPoints(ctx, pts, staging, n);
  const slow = { ...ctx, params: { ...P, glv: null } }; // no endomorphism known: r * P
  const time = (c) => { const t = performance.now(); checkSubgroupRange(c, scratch, pts, n); return (performance.now() - t) / n * 1000; };
  time(ctx); time(slow);
  const fast = Math.min(time(ctx), time(ctx), time(ctx)), full = Math.min(time(slow), time(slow), time(slow));
  console.log(`${name}: endomorphism test ${fast.toFixed(1)} us/point, r * P ${full.toFixed(1)} us/point, ratio ${(fast / full).toFixed(3)}`);
  curve.heap.release(mark);
}
