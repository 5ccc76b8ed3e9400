// The pure-JS side of the comparison: @noble/curves' pippenger on the same inputs, decoded from the library's
// byte encoding (affine x | y little-endian, all-zero for infinity; scalars little-endian). Loaded on demand,
// so the page fetches noble only when it compares. Uses only what a browser has.

const readLE = (bytes, offset, length) => {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
};

async function pointClass(params) {
  if (params.name === 'bls12-381') return (await import('@noble/curves/bls12-381.js')).bls12_381.G1.Point;
  if (params.name === 'bn254') return (await import('@noble/curves/bn254.js')).bn254.G1.Point;
  if (params.name === 'secp256k1') return (await import('@noble/curves/secp256k1.js')).secp256k1.Point;
  const { weierstrass } = await import('@noble/curves/abstract/weierstrass.js');
  const { p, r, h, a, b, generator } = params;
  return weierstrass({ p, n: r, h, a, b, Gx: generator.x, Gy: generator.y });
}

/** sum s_i P_i with @noble/curves; params is curve.params; returns { x, y } or null for infinity. */
export async function pureJsMsm(params, pointBytes, scalarBytes) {
  const Point = await pointClass(params);
  const { pippenger } = await import('@noble/curves/abstract/curve.js');
  const B = params.field.bytes;
  const S = params.scalarBytes;
  const n = scalarBytes.length / S;
  const points = [];
  const scalars = [];
  for (let i = 0; i < n; i++) {
    const x = readLE(pointBytes, 2 * B * i, B);
    const y = readLE(pointBytes, 2 * B * i + B, B);
    points.push(x === 0n && y === 0n ? Point.ZERO : Point.fromAffine({ x, y }));
    scalars.push(readLE(scalarBytes, S * i, S));
  }
  const Q = pippenger(Point, points, scalars);
  return Q.is0() ? null : Q.toAffine();
}
