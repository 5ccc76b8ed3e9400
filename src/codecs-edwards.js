// The compressed encodings of twisted Edwards points (a x^2 + y^2 = 1 + d x^2 y^2) that formats.js lists: y as B
// little-endian bytes, the top bit of the last byte the sign of x (the neutral element (0, 1) is y = 1, sign 0).
// The formats differ only in what the sign means:
//   - 'parity': x is odd (RFC 8032 5.1.2 / 5.1.3 for ed25519; Zcash's repr_J for Jubjub, protocol spec 5.4.9.3,
//     with ZIP 216's rejection of the non-canonical encodings);
//   - 'half': x > (p - 1) / 2 (arkworks' TEFlags::XIsNegative, written with y by serialize_compressed in ark-ec's
//     twisted_edwards model; circomlib(js) babyjub packPoint).
// Decoding rejects y >= p, a y with no x on the curve, and the sign bit set with x = 0 (which would be a second
// encoding of (0, 1) or (0, -1)). x is recovered in Wasm: x^2 = (1 - y^2) / (a - d y^2) (fp_inv, fp_sqrt).
// arkworks' uncompressed form of these curves is x | y little-endian without flags: the native encoding.

/** The sign rule of each compressed Edwards format (the name in formats.js POINT_FORMATS). */
const SIGN_OF = { rfc8032: 'parity', 'zcash-compressed': 'parity', circomlib: 'half', 'arkworks-compressed': 'half' };

/** The layout of Edwards point format `name` (base: formats.js' shared fields { name, compressed, B, half }). */
export function edwardsLayout(params, base) {
  const { name, B } = base;
  if (name === 'native' || name === 'arkworks-uncompressed') return { ...base, kind: 'native', size: 2 * B };
  if (8 * B - params.field.bits < 1) throw new RangeError(`point format '${name}' needs a spare bit in the top byte of y; ${params.name} has none`);
  return { ...base, kind: 'edwards', sign: SIGN_OF[name], size: B };
}

/**
 * Point i of src (at offset o) into the staging area: y at dst[d + B], cleared sign bit. Returns 1 when the sign bit
 * is set, else 0 (codecs.js' LARGE and SMALL).
 */
export function parseEdwards(L, src, o, dst, d) {
  const { B } = L;
  for (let k = 0; k < B; k++) dst[d + B + k] = src[o + k];
  const sign = dst[d + 2 * B - 1] >> 7;
  dst[d + 2 * B - 1] &= 0x7f;
  return sign;
}

/** Whether the little-endian B bytes at bytes[o] hold an x with the sign bit set under L's rule. */
function signOf(L, bytes, o) {
  if (L.sign === 'parity') return (bytes[o] & 1) === 1;
  const { B, half } = L;
  let k = B - 1;
  while (k >= 0 && bytes[o + k] === half[k]) k--;
  return k >= 0 && bytes[o + k] > half[k];
}

/**
 * Writes x (native, little-endian) at mem[d] for the y at mem[d + B], with the sign `sign` (0 or 1), in Wasm.
 * fe: four field-element slots; K: [a, d, 1] in Montgomery form. Returns null, or the reason the encoding is bad.
 */
export function recoverX(ex, L, mem, d, sign, fe, K) {
  const { B } = L;
  const [X, T, U, Y] = fe;
  const [Ka, Kd, One] = K;
  if (!ex.fp_fromBytes(Y, d + B)) return 'y coordinate is >= p';
  ex.fp_toMontgomery(Y, Y);
  ex.fp_sqr(T, Y);
  ex.fp_mul(U, T, Kd);
  ex.fp_sub(U, Ka, U); // a - d y^2
  if (ex.fp_isZero(U)) return 'no point of the curve has this y (a - d y^2 = 0)';
  ex.fp_inv(U, U);
  ex.fp_sub(T, One, T);
  ex.fp_mul(T, T, U);
  if (!ex.fp_sqrt(X, T)) return 'no point of the curve has this y ((1 - y^2) / (a - d y^2) is not a square)';
  ex.fp_fromMontgomery(X, X);
  ex.fp_toBytes(d, X);
  let zero = true;
  for (let k = 0; k < B && zero; k++) zero = mem[d + k] === 0;
  if (zero) return sign ? 'the sign bit is set but x = 0 (a non-canonical encoding)' : null;
  if (signOf(L, mem, d) !== (sign === 1)) {
    ex.fp_neg(X, X);
    ex.fp_reduce(X, X);
    ex.fp_toBytes(d, X);
  }
  return null;
}

/** The compressed encoding of the native point at nativeBytes[s] into out[o] (format L). */
export function encodeEdwards(L, nativeBytes, s, out, o) {
  const { B } = L;
  out.set(nativeBytes.subarray(s + B, s + 2 * B), o);
  if (signOf(L, nativeBytes, s)) out[o + B - 1] |= 0x80;
}
