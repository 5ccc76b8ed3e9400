#!/usr/bin/env node
// npm run fixed-base-model: how much faster than msmBytes a table of precomputed multiples can make one MSM,
// counted in point additions (about 85% of the time at every size; decoding, digits, sort and gather are left
// out). N bases under GLV are m = 2N pairs; each pair's scalar is a GLV half, sampled (random scalars split by
// the BigInt GLV oracle), so the top window's many zero digits count as they do in the real MSM. Per design, the
// best window and its additions:
//
//   msmBytes       K windows of c bits, each: its nonzero digits into L = 2^(c-1) buckets, a reduction of 2L
//   flat           precompute 2^(c t) Q: all K windows share one set of L buckets and one reduction (shipped)
//   flat, radix    the same with balanced digits in radix 2D + 1 (D buckets): D can sit between powers of two
//   bucket set     precompute also 2Q and 3Q: a digit d = m b (m in {1, 2, 3}) lands in bucket b of a set B of
//                  the numbers up to D, the least found (greedy); the reduction runs over |B| buckets
//   radix + set    both
//
// Each bucket sum is counted by bucketAdditions (src/msm/prepared.js), the model the shipped table's window comes from.
// Figures and what they mean: bench/README.md "Prepared bases".

import { parseCli, printTable } from '../scripts/lib.js';
import { chooseWindow } from '../src/msm/window.js';
import { bucketAdditions } from '../src/msm/prepared.js';
import { decompose, reducedBasis } from '../src/bigint/glv.js';
import { makeRng, randomScalar } from '../src/bigint/curve.js';

const HELP = `usage: npm run fixed-base-model -- [--curve bls12-381,bn254] [--sizes 12,16,18] [--samples 2000]
  --curve     curves with GLV whose scalars are sampled (wasm/<curve>/params.js)
  --sizes     log2 of N, the number of bases (m = 2N pairs)
  --samples   random scalars split into GLV halves to count nonzero digits`;
const args = parseCli('fixed-base-model', HELP, {
  curve: { type: 'string', default: 'bls12-381,bn254' },
  sizes: { type: 'string', default: '12,16,18' },
  samples: { type: 'string', default: '2000' },
});
const sizes = args.sizes.split(',').map(Number);
const samples = Number(args.samples);

/** |B| for buckets up to D with multipliers {1, 2, 3}: from the top, each uncovered d is covered by the b in {d, d/2, d/3} that covers most. */
const bucketSetSizes = new Map();
function bucketSetSize(D) {
  if (bucketSetSizes.has(D)) return bucketSetSizes.get(D);
  const covered = new Uint8Array(D + 1);
  let size = 0;
  for (let d = D; d >= 1; d--) {
    if (covered[d]) continue;
    let best = d;
    let bestGain = -1;
    for (const m of [1, 2, 3]) {
      if (d % m) continue;
      const b = d / m;
      let gain = 0;
      for (const x of [b, 2 * b, 3 * b]) if (x <= D && !covered[x]) gain++;
      if (gain > bestGain) [best, bestGain] = [b, gain];
    }
    size++;
    for (const x of [best, 2 * best, 3 * best]) if (x <= D) covered[x] = 1;
  }
  bucketSetSizes.set(D, size);
  return size;
}

/** The fraction of nonzero digits in each of K windows when every half is written in balanced radix R. */
function nonzeroRates(halves, R, K) {
  const half = R / 2n;
  const nonzero = new Array(K).fill(0);
  for (let k of halves) {
    for (let t = 0; t < K; t++) {
      let d = k % R;
      if (d > half) d -= R;
      if (d !== 0n) nonzero[t]++;
      k = (k - d) / R;
    }
    if (k !== 0n) throw new Error(`a half does not fit ${K} digits of radix ${R}`);
  }
  return nonzero.map((x) => x / halves.length);
}

const best = (candidates) => candidates.reduce((a, b) => (b.additions < a.additions ? b : a));
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

const rows = [];
for (const name of args.curve.split(',')) {
  const P = (await import(`../wasm/${name}/params.js`)).default;
  if (!P.glv) throw new Error(`${name} has no GLV endomorphism`);
  const basis = reducedBasis(P.r, P.glv.lambda);
  const rng = makeRng(7);
  const halves = [];
  for (let i = 0; i < samples; i++) {
    const { k0, k1 } = decompose(randomScalar(rng, P.r), basis, P.r, P.glv.lambda);
    halves.push(k0 < 0n ? -k0 : k0, k1 < 0n ? -k1 : k1);
  }
  const bits = P.glv.halfBits + 1; // a carry above the top bit
  const windows = [];
  for (let c = 4; c <= 23; c++) {
    const K = Math.ceil(bits / c);
    windows.push({ c, K, D: 2 ** (c - 1), rates: nonzeroRates(halves, 1n << BigInt(c), K) });
  }
  const radixes = [];
  for (let K = 5; K <= 34; K++) {
    const D = Math.ceil((2 ** (bits / K) - 1) / 2);
    if (D <= 2 ** 22) radixes.push({ K, D, rates: nonzeroRates(halves, BigInt(2 * D + 1), K) });
  }
  for (const logN of sizes) {
    const m = 2 * 2 ** logN;
    const c0 = chooseWindow(m, P.glv.halfBits);
    const w0 = windows.find((w) => w.c === c0);
    const msmBytes = { design: 'msmBytes', window: `c = ${c0}, K = ${w0.K}`, additions: sum(w0.rates.map((rate) => bucketAdditions(m * rate, w0.D))), points: 1 };
    /** The best window of a shared-bucket design: `buckets(D)` buckets for digits up to D, `points` per pair and window. */
    const shared = (design, list, buckets, points) =>
      best(
        list.map((w) => {
          const L = buckets(w.D);
          const set = L === w.D ? '' : `, |B| = ${(L / w.D).toFixed(3)} D`;
          return { design, window: `${w.c ? `c = ${w.c}, ` : ''}K = ${w.K}, D = ${w.D}${set}`, additions: bucketAdditions(m * sum(w.rates), L), points: points * w.K };
        }),
      );
    const designs = [
      msmBytes,
      shared('flat', windows, (D) => D, 1),
      shared('flat, radix', radixes, (D) => D, 1),
      shared('bucket set', windows, bucketSetSize, 3),
      shared('radix + set', radixes, bucketSetSize, 3),
    ];
    for (const r of designs) rows.push({ curve: name, logN, ...r, vsMsmBytes: msmBytes.additions / r.additions });
  }
}

console.log(`fixed-base-model: modelled additions of one MSM over N bases (GLV halves from ${samples} random scalars); points stored per pair`);
printTable(
  ['curve', 'N', 'design', 'window', 'additions', 'points', 'msmBytes / design'],
  rows.map((r) => [r.curve, `2^${r.logN}`, r.design, r.window, Math.round(r.additions).toLocaleString('en'), r.points, `${r.vsMsmBytes.toFixed(3)}x`]),
);
