// @noble/curves as an independent MSM oracle, from wasmsm's byte encodings. Browser-safe (no Node built-ins):
// the tests, evaluate-msm and the browser example's pure-JS comparison all use it. A devDependency only.

const bytesToBigIntLE = (bytes, offset, length) => {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
};

/** Native points to { x, y } (or null): coordinates BigInts, or { c0, c1 } when degree = 2 (G2). */
function decodePoints(bytes, coordinateBytes, degree = 1) {
  const n = bytes.length / (2 * coordinateBytes);
  const half = coordinateBytes / 2;
  const coordinate = degree === 2
    ? (o) => ({ c0: bytesToBigIntLE(bytes, o, half), c1: bytesToBigIntLE(bytes, o + half, half) })
    : (o) => bytesToBigIntLE(bytes, o, coordinateBytes);
  const out = [];
  for (let i = 0; i < n; i++) {
    const o = 2 * coordinateBytes * i;
    let zero = true;
    for (let k = o; k < o + 2 * coordinateBytes && zero; k++) zero = bytes[k] === 0;
    out.push(zero ? null : { x: coordinate(o), y: coordinate(o + coordinateBytes) });
  }
  return out;
}

function decodeScalars(bytes, scalarBytes) {
  return Array.from({ length: bytes.length / scalarBytes }, (_, i) => bytesToBigIntLE(bytes, i * scalarBytes, scalarBytes));
}

/**
 * The noble Point class for a curve (built-in ones where noble ships them, else the generic constructor), or null for
 * a twisted Edwards curve noble refuses (a non-square a, such as Bandersnatch's -5: see edwardsMsm).
 */
export async function noblePointClass(params) {
  const group = params.group === 'G2' ? 'G2' : 'G1';
  if (params.model === 'twisted-edwards') {
    if (params.name === 'ed25519') return (await import('@noble/curves/ed25519.js')).ed25519.Point;
    if (params.name === 'jubjub') return (await import('@noble/curves/misc.js')).jubjub.Point;
    if (params.name === 'baby-jubjub') return (await import('@noble/curves/misc.js')).babyjubjub.Point;
    const { edwards } = await import('@noble/curves/abstract/edwards.js');
    const { p, r, h, a, d, generator } = params;
    try {
      return edwards({ p, n: r, h, a, d, Gx: generator.x, Gy: generator.y });
    } catch (e) {
      if (/must be a square/.test(e.message)) return null;
      throw e;
    }
  }
  if (params.model === 'montgomery') throw new RangeError('no @noble/curves class for Montgomery-form curves');
  if (params.name === 'bls12-381') return (await import('@noble/curves/bls12-381.js')).bls12_381[group].Point;
  if (params.name === 'bn254') return (await import('@noble/curves/bn254.js')).bn254[group].Point;
  if (group === 'G2') throw new RangeError(`no @noble/curves G2 for ${params.name}`);
  if (params.name === 'secp256k1') return (await import('@noble/curves/secp256k1.js')).secp256k1.Point;
  const { weierstrass } = await import('@noble/curves/abstract/weierstrass.js');
  const { p, r, h, a, b, generator } = params;
  return weierstrass({ p, n: r, h, a, b, Gx: generator.x, Gy: generator.y });
}

/**
 * sum s_i P_i by @noble/curves' pippenger, from our byte encodings; returns { x, y } or null (a twisted Edwards
 * curve's neutral element is { x: 0n, y: 1n }). Edwards curves noble refuses go to edwardsMsm.
 */
export async function nobleMsm(params, pointBytes, scalarBytes) {
  const Point = await noblePointClass(params);
  const scalars = decodeScalars(scalarBytes, params.scalarBytes);
  if (Point === null) return edwardsMsm(params, decodePoints(pointBytes, params.field.bytes), scalars);
  const { pippenger } = await import('@noble/curves/abstract/curve.js');
  const points = decodePoints(pointBytes, params.field.bytes, params.field.degree).map((P) => (P === null ? Point.ZERO : Point.fromAffine(P)));
  const Q = pippenger(Point, points, scalars);
  if (params.model === 'twisted-edwards') return Q.toAffine();
  return Q.is0() ? null : Q.toAffine();
}

/**
 * sum s_i P_i on a x^2 + y^2 = 1 + d x^2 y^2 by the bucket method in extended coordinates (X : Y : Z : T), x = X/Z,
 * y = Y/Z, T = XY/Z, with the unified addition of Hisil-Wong-Carter-Dawson 2008 (add-2008-hwcd): BigInt, for any
 * a and d (Bandersnatch's non-square a included; its points of order r never meet the law's exceptions). An oracle
 * that shares no code or map with the library, which works on a short-Weierstrass image.
 */
export function edwardsMsm({ p, a, d }, points, scalars) {
  const m = (x) => ((x % p) + p) % p;
  const ZERO = [0n, 1n, 1n, 0n];
  const add = ([X1, Y1, Z1, T1], [X2, Y2, Z2, T2]) => {
    const A = m(X1 * X2);
    const B = m(Y1 * Y2);
    const C = m(d * T1 * T2);
    const D = m(Z1 * Z2);
    const E = m((X1 + Y1) * (X2 + Y2) - A - B);
    const F = D - C;
    const G = D + C;
    const H = B - a * A;
    return [m(E * F), m(G * H), m(F * G), m(E * H)];
  };
  const c = points.length > 4096 ? 10 : points.length > 64 ? 6 : 3;
  const bits = scalars.reduce((mx, s) => Math.max(mx, s.toString(2).length), 1);
  const P = points.map((Q) => (Q === null ? ZERO : [Q.x, Q.y, 1n, m(Q.x * Q.y)]));
  let sum = ZERO;
  for (let w = Math.ceil(bits / c) - 1; w >= 0; w--) {
    for (let k = 0; k < c; k++) sum = add(sum, sum);
    const buckets = new Array(1 << c).fill(ZERO);
    scalars.forEach((s, i) => {
      const digit = Number((s >> BigInt(w * c)) & BigInt((1 << c) - 1));
      if (digit) buckets[digit] = add(buckets[digit], P[i]);
    });
    let run = ZERO;
    for (let j = buckets.length - 1; j >= 1; j--) {
      run = add(run, buckets[j]);
      sum = add(sum, run);
    }
  }
  const [X, Y, Z] = sum;
  let [r0, r1, s0, s1] = [m(Z), p, 1n, 0n];
  while (r1) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('edwardsMsm: Z = 0 (an exceptional input of the addition law)');
  return { x: m(X * s0), y: m(Y * s0) };
}

export { decodePoints };
