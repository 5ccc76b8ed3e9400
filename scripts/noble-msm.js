// @noble/curves as an independent MSM oracle, from wasmsm's byte encodings. Browser-safe (no Node built-ins):
// the tests, evaluate-msm and the browser example's pure-JS comparison all use it. A devDependency only.

const bytesToBigIntLE = (bytes, offset, length) => {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
};

function decodePoints(bytes, coordinateBytes) {
  const n = bytes.length / (2 * coordinateBytes);
  const out = [];
  for (let i = 0; i < n; i++) {
    const o = 2 * coordinateBytes * i;
    const x = bytesToBigIntLE(bytes, o, coordinateBytes);
    const y = bytesToBigIntLE(bytes, o + coordinateBytes, coordinateBytes);
    out.push(x === 0n && y === 0n ? null : { x, y });
  }
  return out;
}

function decodeScalars(bytes, scalarBytes) {
  return Array.from({ length: bytes.length / scalarBytes }, (_, i) => bytesToBigIntLE(bytes, i * scalarBytes, scalarBytes));
}

/** The noble Point class for a curve (built-in ones where noble ships them, else the generic constructor). */
export async function noblePointClass(params) {
  if (params.name === 'bls12-381') return (await import('@noble/curves/bls12-381.js')).bls12_381.G1.Point;
  if (params.name === 'bn254') return (await import('@noble/curves/bn254.js')).bn254.G1.Point;
  if (params.name === 'secp256k1') return (await import('@noble/curves/secp256k1.js')).secp256k1.Point;
  const { weierstrass } = await import('@noble/curves/abstract/weierstrass.js');
  const { p, r, h, a, b, generator } = params;
  return weierstrass({ p, n: r, h, a, b, Gx: generator.x, Gy: generator.y });
}

/** sum s_i P_i by @noble/curves' pippenger, from our byte encodings; returns { x, y } or null. */
export async function nobleMsm(params, pointBytes, scalarBytes) {
  const Point = await noblePointClass(params);
  const { pippenger } = await import('@noble/curves/abstract/curve.js');
  const points = decodePoints(pointBytes, params.field.bytes).map((P) => (P === null ? Point.ZERO : Point.fromAffine(P)));
  const scalars = decodeScalars(scalarBytes, params.scalarBytes);
  const Q = pippenger(Point, points, scalars);
  return Q.is0() ? null : Q.toAffine();
}

export { decodePoints };
