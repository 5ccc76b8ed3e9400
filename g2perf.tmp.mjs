import { loadCurve } from './index.js';
for (const name of ['bls12-381', 'bn254']) {
  const curve = await loadCurve(name);
  for (const logN of [12, 14]) {
    const N = 1 << logN;
    for (const G of [curve, curve.g2]) {
      const pts = G.randomPointsBytes(N), sc = G.randomScalarsBytes(N);
      G.msmBytes(pts, sc);
      const t = performance.now(); const timings = {};
      G.msmBytes(pts, sc, { timings });
      console.log(name, G.group, logN, (performance.now() - t).toFixed(0), 'ms', JSON.stringify(Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)]))));
    }
  }
}
