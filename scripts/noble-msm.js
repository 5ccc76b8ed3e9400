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

/** The noble Point class for a curve (built-in ones where noble ships them, else the generic constructor). */
export async function noblePointClass(params) {
  const group = params.group === 'G2' ? 'G2' : 'G1';
  if (params.name === 'bls12-381') return (await import('@noble/curves/bls12-381.js')).bls12_381[group].Point;
  if (params.name === 'bn254') return (await import('@noble/curves/bn254.js')).bn254[group].Point;
  if (group === 'G2') throw new RangeError(`no @noble/curves G2 for ${params.name}`);
  if (params.name === 'secp256k1') return (await import('@noble/curves/secp256k1.js')).secp256k1.Point;
  const { weierstrass } = await import('@noble/curves/abstract/weierstrass.js');
  const { p, r, h, a, b, generator } = params;
  return weierstrass({ p, n: r, h, a, b, Gx: generator.x, Gy: generator.y });
}

/** sum s_i P_i by @noble/curves' pippenger, from our byte encodings; returns { x, y } or null. */
export async function nobleMsm(params, pointBytes, scalarBytes) {
  const Point = await noblePointClass(params);
  const { pippenger } = await import('@noble/curves/abstract/curve.js');
  const points = decodePoints(pointBytes, params.field.bytes, params.field.degree).map((P) => (P === null ? Point.ZERO : Point.fromAffine(P)));
  const scalars = decodeScalars(scalarBytes, params.scalarBytes);
  const Q = pippenger(Point, points, scalars);
  return Q.is0() ? null : Q.toAffine();
}

export { decodePoints };
