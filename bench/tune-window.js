#!/usr/bin/env node
// npm run tune-window: time the MSM at each size for window sizes around the current choice, to refresh
// the table in src/msm/window.js. Prints, per curve and log2 N, the median ms for each c and the best c.

import { parseArgs } from 'node:util';
import { loadCurve } from '../index.js';
import { chooseWindow } from '../src/msm/window.js';

const { values: args } = parseArgs({
  options: {
    curve: { type: 'string', default: 'bls12-381,bn254' },
    sizes: { type: 'string', default: '8,10,12,14,16,18' },
    runs: { type: 'string', default: '3' },
    spread: { type: 'string', default: '2' },
  },
});
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const name of args.curve.split(',')) {
  const curve = await loadCurve(name);
  const bits = curve.params.glv ? curve.params.glv.halfBits : curve.params.rBits;
  for (const k of args.sizes.split(',').map(Number)) {
    const n = 2 ** k;
    const m = curve.params.glv ? 2 * n : n;
    const points = curve.randomPointsBytes(n, { seed: k });
    const scalars = curve.randomScalarsBytes(n, { seed: k + 100 });
    const c0 = chooseWindow(m, bits);
    const spread = Number(args.spread);
    const row = [];
    for (let c = Math.max(2, c0 - spread); c <= c0 + spread; c++) {
      curve.msmBytes(points, scalars, { window: c });
      const times = [];
      for (let r = 0; r < Number(args.runs); r++) {
        const t0 = performance.now();
        curve.msmBytes(points, scalars, { window: c });
        times.push(performance.now() - t0);
      }
      row.push([c, median(times)]);
    }
    const best = row.reduce((a, b) => (b[1] < a[1] ? b : a));
    console.log(`${name} 2^${k} (m = ${m}): ${row.map(([c, t]) => `c=${c} ${t.toFixed(1)}`).join('  ')}  -> best c=${best[0]} (current ${c0})`);
  }
}
