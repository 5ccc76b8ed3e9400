import { loadCurve } from './index.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
for (const [name, noble] of [['bls12-381', bls12_381], ['bn254', bn254]]) {
  const curve = await loadCurve(name);
  const g2 = curve.g2;
  const N = 50;
  const pts = g2.randomPoints(N);
  const sc = g2.randomScalars(N);
  const P = noble.G2.Point;
  let ok = true;
  for (const q of pts.slice(0, 3)) { const pt = P.fromAffine(q); pt.assertValidity(); }
  let acc = P.ZERO;
  for (let i = 0; i < N; i++) acc = acc.add(P.fromAffine(pts[i]).multiply(sc[i]));
  const got = g2.msm(pts, sc);
  const exp = acc.toAffine();
  console.log(name, got.x.c0 === exp.x.c0 && got.x.c1 === exp.x.c1 && got.y.c0 === exp.y.c0 && got.y.c1 === exp.y.c1);
  // check subgroup
  const bytes = g2.randomPointsBytes(20);
  const t = performance.now();
  g2.msmBytes(bytes, g2.randomScalarsBytes(20), { checkSubgroup: true });
  console.log('subgroup ok', (performance.now() - t).toFixed(1));
}
