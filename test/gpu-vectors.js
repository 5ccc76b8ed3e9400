// The group-law vectors the WGSL curve suites share (test/gpu-curve.test.js over F_p, test/gpu-g2.test.js over F_p2):
// random sums and doublings of multiples of G, and every exceptional case of the formulas (P + P in two
// representations, P + (-P), the neutral element on either side, a result used again).

/**
 * Pushes { op, P, Q, A, want, label } onto V and returns the points it drew. E: the oracle's group law (add, double,
 * neg, mul); G, r: the generator and its order; zero: the neutral element as the oracle writes it; OP: the suite's op
 * codes (add, addAffine, double, doubleAffine); doubleAffines: how many random affine doublings. Returns the points
 * and the pushers, for a suite's own vectors.
 */
export function groupLawVectors(V, { E, G, r, zero, rng, OP, doubleAffines }) {
  const k = () => 1n + rng.below(r - 1n);
  const pts = [G, ...Array.from({ length: 7 }, () => E.mul(G, k()))];
  const pick = () => rng.pick(pts);
  const add = (P, Q, label) => V.push({ op: OP.add, P, Q, want: E.add(P, Q), label: `add ${label}` });
  const addAffine = (P, A, label) => V.push({ op: OP.addAffine, P, A, want: E.add(P, A), label: `addAffine ${label}` });
  const double = (P, label) => V.push({ op: OP.double, P, want: E.double(P), label: `double ${label}` });
  const doubleAffine = (A, label) => V.push({ op: OP.doubleAffine, A, want: E.double(A), label: `doubleAffine ${label}` });
  for (let i = 0; i < 8; i++) add(pick(), pick(), `random ${i}`);
  for (let i = 0; i < 8; i++) addAffine(pick(), pick(), `random ${i}`);
  for (let i = 0; i < 4; i++) double(pick(), `random ${i}`);
  for (let i = 0; i < doubleAffines; i++) doubleAffine(pick(), `random ${i}`);
  for (const P of pts.slice(0, 3)) {
    add(P, P, 'P + P'); // two different scale factors: the same point in two representations
    add(P, E.neg(P), 'P + (-P)');
    add(P, zero, 'P + 0');
    add(zero, P, '0 + Q');
    addAffine(P, P, 'P + P');
    addAffine(P, E.neg(P), 'P + (-P)');
    addAffine(zero, P, '0 + Q');
  }
  add(zero, zero, '0 + 0');
  double(zero, '0');
  // a sum then used again: a result of the kernels as input (P + P + P through add and the scale factors)
  add(E.add(pts[1], pts[1]), pts[1], '2P + P');
  addAffine(E.add(pts[2], pts[2]), E.neg(pts[2]), '2P + (-P)');
  return { pts, pick, add, addAffine, double, doubleAffine };
}
