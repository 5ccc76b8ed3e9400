// The GPU accumulation's warp divergence, counted: each accumulate thread sums a segment of S sorted bucket entries,
// and the 32 threads of a warp run in step. With a loop per bucket a warp waits, at every bucket, on its thread with
// the longest bucket; with one loop over the entries (the shipped kernel) each turn is one addition for every thread,
// plus the store of a finished bucket when any thread of the warp has one. This counts both, in additions per entry
// (1 is no divergence), on the plan's real c, K, L and S (src/gpu/plan.js) and random digits (bucket sizes Poisson
// with mean m / L, as uniform digits give in every window but the top one).
//
//   node bench/accumulate-divergence.js [--warps 400] [--store 0.1]
//
// --store: a bucket's store (four coordinates to canonical words) as a fraction of an addition.

import { parseCli, printTable } from '../scripts/lib.js';
import { chunkShape } from '../src/gpu/plan.js';

const HELP = `accumulate-divergence: the GPU accumulation's warp divergence, a loop per bucket against one loop over the entries

  --warps   warps sampled per case (default 400)
  --store   a bucket's store as a fraction of an addition (default 0.1)`;
const args = parseCli('accumulate-divergence', HELP, { warps: { type: 'string' }, store: { type: 'string' } });
const warps = Number(args.warps ?? 400);
const storeCost = Number(args.store ?? 0.1);

/** A Poisson sample of mean `mean` (Knuth's; the means here are below a few hundred: in halves above 30). */
function poisson(mean) {
  if (mean > 30) return poisson(mean / 2) + poisson(mean / 2);
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = Math.random(); p > limit; p *= Math.random()) k++;
  return k;
}

/** The bucket lengths inside each of a warp's 32 consecutive segments of S entries. */
function warpSegments(S, mean) {
  const segments = [];
  let left = 0; // entries of the current bucket not yet taken
  for (let t = 0; t < 32; t++) {
    const lengths = [];
    for (let need = S; need > 0;) {
      while (left === 0) left = poisson(mean);
      const take = Math.min(left, need);
      lengths.push(take);
      need -= take;
      left -= take;
    }
    segments.push(lengths);
  }
  return segments;
}

const shape = { degree: 1, componentWords: 8, scalarWords: 8, coords: 4, glv: { recordWords: 8 } };
const cases = [['full (254-255 bits)', 255], ['GLV halves (127 bits)', 127]];
const rows = [];
for (const [label, bits] of cases) {
  for (const logN of [16, 20]) {
    {
      const split = bits < 200 ? 2 : 1; // a GLV half of each scalar on P, the other on phi(P)
      const m = split * 2 ** logN;
      const { c, K, L, segment: S } = chunkShape(shape, 2 ** logN, bits, undefined, split === 2);
      let nested = 0;
      let flat = 0;
      for (let w = 0; w < warps; w++) {
        const segments = warpSegments(S, m / L);
        const turns = Math.max(...segments.map((s) => s.length));
        for (let k = 0; k < turns; k++) nested += Math.max(...segments.map((s) => s[k] ?? 0)) + storeCost;
        const ends = new Set();
        for (const lengths of segments) lengths.reduce((e, l) => (ends.add(e + l), e + l), 0);
        flat += S + storeCost * ends.size;
      }
      rows.push([label, `2^${logN}`, m, c, K, S, (m / L).toFixed(1), (nested / warps / S).toFixed(3), (flat / warps / S).toFixed(3), `${(nested / flat).toFixed(2)}x`]);
    }
  }
}
console.log(`additions per entry for a warp of 32 threads (${warps} warps sampled a case, a store ${storeCost} of an addition)`);
printTable(['scalars', 'N', 'points m', 'c', 'K', 'S', 'entries a bucket', 'loop per bucket', 'one loop', 'ratio'], rows);
