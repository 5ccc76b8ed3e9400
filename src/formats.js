// The point and scalar formats a curve takes (which exist, which curves they are for, their byte layouts) and the
// format options of msmBytes resolved against them. The decoding and encoding are codecs.js (short Weierstrass) and
// codecs-edwards.js (twisted Edwards).

import { bigIntToBytesLE, modelOf, modInverse } from './msm/bytes.js';
import { edwardsLayout } from './codecs-edwards.js';

/** Curves arkworks has in other coordinates: its formats would mean other points there. */
const ARKWORKS_NOT = Object.freeze({ 'baby-jubjub': "arkworks' Baby Jubjub (ark-ed-on-bn254) is another model of the curve (a = 1), in other coordinates: use 'circomlib' or 'native'" });

/**
 * The point formats: which curves take them, and the spec each follows (the README table is written from this).
 * kind selects the parser/encoder below; on bls12-381 arkworks' own crate (ark-bls12-381) serializes G1 in the
 * ZCash format, and gnark-crypto uses the ZCash flags on the BLS12 curves, so those resolve to kind 'zcash'.
 * A format with curves: null takes every curve of its `models` (all when absent) but those in `not` (name: why).
 */
const POINT_FORMATS = {
  native: { curves: null, compressed: false, spec: 'wasmsm msmBytes' },
  'zcash-compressed': { curves: ['bls12-381', 'bls12-377', 'jubjub'], compressed: true, spec: 'zkcrypto/bls12_381 (ZCash), IETF pairing-friendly-curves App. C; Jubjub: Zcash protocol spec 5.4.9.3 repr_J with ZIP 216' },
  'zcash-uncompressed': { curves: ['bls12-381', 'bls12-377'], compressed: false, spec: 'zkcrypto/bls12_381 (ZCash)' },
  'arkworks-compressed': {
    curves: null, models: ['short-weierstrass', 'twisted-edwards'], not: ARKWORKS_NOT, compressed: true, spec: 'ark-serialize CanonicalSerialize, SWFlags / TEFlags (ark-ec)',
  },
  'arkworks-uncompressed': {
    curves: null, models: ['short-weierstrass', 'twisted-edwards'], not: ARKWORKS_NOT, compressed: false, spec: 'ark-serialize CanonicalSerialize, SWFlags (ark-ec); twisted Edwards: x | y, as native',
  },
  rfc8032: { curves: ['ed25519'], compressed: true, spec: 'RFC 8032 5.1.2 / 5.1.3 (ed25519 points)' },
  circomlib: { curves: ['baby-jubjub'], compressed: true, spec: 'circomlib(js) babyjub packPoint / unpackPoint' },
  'gnark-compressed': { curves: ['bn254', 'bls12-381', 'bls12-377'], compressed: true, spec: 'gnark-crypto ecc/<curve>/marshal.go Bytes()' },
  'gnark-uncompressed': { curves: ['bn254', 'bls12-381', 'bls12-377'], compressed: false, spec: 'gnark-crypto ecc/<curve>/marshal.go RawBytes()' },
  eip2537: { curves: ['bls12-381'], compressed: false, spec: 'EIP-2537 G1 point encoding' },
  snarkjs: { curves: ['bn254', 'bls12-381'], compressed: false, g2: true, spec: 'ffjavascript affine LEM (zkey/ptau sections); G2: c0 | c1 per coordinate' },
};

const SCALAR_FORMATS = {
  le: { curves: null, spec: 'wasmsm msmBytes: little-endian, scalarBytes each, < r' },
  be: { curves: null, spec: 'big-endian, scalarBytes each, < r' },
  eip2537: { curves: ['bls12-381'], spec: 'EIP-2537 MSM: 32-byte big-endian, any value (reduced mod r)' },
  snarkjs: { curves: ['bn254', 'bls12-381'], spec: 'ffjavascript multiExpAffine: 32-byte little-endian normal form, < r' },
};

/** Why the format (a table entry) does not apply to the curve (params), or null when it does. */
function refusal(entry, name, params) {
  const { curves, models, not } = entry;
  if (curves) return curves.includes(params.name) ? null : `is defined for ${curves.join(', ')} only, not for ${params.name}`;
  if (models && !models.includes(modelOf(params))) return `is defined for ${models.join(' and ')} curves, not for ${params.name} (${modelOf(params)})`;
  if (not && Object.hasOwn(not, params.name)) return `is not for ${params.name}: ${not[params.name]}`;
  return null;
}

function checkName(table, kind, name, params) {
  if (typeof name !== 'string') throw new TypeError(`${kind} format must be a string, got ${name === null ? 'null' : typeof name}`);
  // the formats this curve takes, for the errors
  const taken = () => `${params.name} takes ${Object.keys(table).filter((k) => refusal(table[k], k, params) === null).map((k) => `'${k}'`).join(', ')}`;
  if (!Object.hasOwn(table, name)) throw new RangeError(`unknown ${kind} format '${name}': ${taken()}`);
  const why = refusal(table[name], name, params);
  if (why) throw new RangeError(`${kind} format '${name}' ${why}; ${taken()}`);
}

/**
 * The byte layout of point format `name` on a curve (params): { name, kind, size, compressed, B, ... }.
 * Cached on the params object's behalf in a WeakMap.
 */
const layoutCache = new WeakMap();
export function pointLayout(params, name) {
  checkName(POINT_FORMATS, 'point', name, params);
  if (params.group === 'G2' && !POINT_FORMATS[name].g2 && name !== 'native') {
    throw new RangeError(`point format '${name}' is for G1; G2 points take 'native' and 'snarkjs' only`);
  }
  let byName = layoutCache.get(params);
  if (!byName) layoutCache.set(params, (byName = new Map()));
  let layout = byName.get(name);
  if (layout) return layout;
  const B = params.field.bytes;
  const bits = params.field.bits;
  const { compressed } = POINT_FORMATS[name];
  const half = new Uint8Array(B);
  bigIntToBytesLE((params.p - 1n) / 2n, half, 0, B);
  const base = { name, compressed, B, half };
  if (modelOf(params) === 'twisted-edwards') {
    layout = edwardsLayout(params, base);
  } else if (name === 'native') {
    layout = { ...base, kind: 'native', size: 2 * B };
  } else if (name.startsWith('zcash') || (name.startsWith('gnark') && params.name !== 'bn254') || (name.startsWith('arkworks') && params.name === 'bls12-381')) {
    // Big-endian, B bytes per coordinate, three flag bits on top of the first byte: 0x80 compressed,
    // 0x40 infinity, 0x20 y is the larger root (compressed only).
    if (8 * B - bits < 3) throw new RangeError(`point format '${name}' needs 3 spare bits per coordinate; ${params.name} has ${8 * B - bits}`);
    layout = { ...base, kind: 'zcash', size: compressed ? B : 2 * B };
  } else if (name.startsWith('gnark')) {
    // gnark-crypto bn254: two flag bits on top of the first byte: 0b10 smallest, 0b11 largest, 0b01 infinity
    // (compressed); 0b00 uncompressed, where infinity is all zero.
    layout = { ...base, kind: 'gnark2', size: compressed ? B : 2 * B };
  } else if (name.startsWith('arkworks')) {
    // Little-endian; SWFlags (bit 7 YIsNegative, bit 6 PointAtInfinity) in the last byte of the last
    // coordinate, which takes ceil((bits + 2) / 8) bytes (one more than B when there are fewer than 2 spare bits).
    const F = Math.ceil((bits + 2) / 8);
    layout = { ...base, kind: 'ark', F, size: compressed ? F : B + F };
  } else if (name === 'eip2537') {
    layout = { ...base, kind: 'eip2537', pad: 64 - B, size: 128 };
  } else if (name === 'snarkjs') {
    // x * 2^(8B) mod p, little-endian (ffjavascript's n8 = B on bn254 and bls12-381); infinity all zero. G2: each
    // coordinate c0 | c1, each part so in the base field's Bp bytes (B = 2 Bp).
    const Bp = params.field.base?.bytes ?? B;
    const R = 1n << BigInt(8 * Bp);
    const Rinv = modInverse(R, params.p);
    // With this build's Montgomery radix Rb, a product by K (v * K / Rb) takes a snarkjs value v to
    // scale: K = Rb^2 / R, this build's Montgomery form (g_fromScaledBytes: the product that checks a point);
    // unscale: K = Rb / R, normal form (the synchronous decode, src/codecs.js).
    const F = params.field.base ?? params.field;
    const Rb = 1n << BigInt(F.n * F.w);
    const unscale = (Rb * Rinv) % params.p;
    layout = { ...base, kind: 'snarkjs', size: 2 * B, Bp, R, scale: (Rb * unscale) % params.p, unscale };
  }
  byName.set(name, layout);
  return layout;
}

/** Bytes per scalar and how to read it, for scalar format `name` on a curve. */
export function scalarLayout(params, name) {
  checkName(SCALAR_FORMATS, 'scalar', name, params);
  const width = name === 'eip2537' || name === 'snarkjs' ? 32 : params.scalarBytes;
  return { name, width, bigEndian: name === 'be' || name === 'eip2537', reduce: name === 'eip2537' };
}

/** The formats of `table` this curve takes, each with sizeOf(name): { native: 96, ... }. */
function supported(table, params, sizeOf) {
  const group = (name) => table !== POINT_FORMATS || params.group !== 'G2' || name === 'native' || table[name].g2;
  const entries = [];
  for (const name of Object.keys(table)) {
    if (!group(name) || refusal(table[name], name, params) !== null) continue;
    try {
      entries.push([name, sizeOf(name)]);
    } catch (e) {
      // a layout this curve's field leaves no room for (flag bits above p's top bit): not one of its formats; asked
      // for by name, it is this RangeError
      if (!(e instanceof RangeError)) throw e;
    }
  }
  return Object.freeze(Object.fromEntries(entries));
}

/** For each point format a curve takes, its bytes per point: { native: 96, ... }. */
export const pointFormatsOf = (params) => supported(POINT_FORMATS, params, (name) => pointLayout(params, name).size);

/** For each scalar format a curve takes, its bytes per scalar. */
export const scalarFormatsOf = (params) => supported(SCALAR_FORMATS, params, (name) => scalarLayout(params, name).width);

/**
 * The format options of msmBytes: { pointFormat, scalarFormat, resultFormat } validated for this curve.
 * Returns null when all are native (or absent), else { point, scalar, result } layouts (point/scalar null when native).
 */
export function resolveFormatOptions(params, options) {
  const { pointFormat, scalarFormat, resultFormat } = options;
  if (pointFormat === undefined && scalarFormat === undefined && resultFormat === undefined) return null;
  const point = pointFormat === undefined ? null : pointLayout(params, pointFormat);
  const scalar = scalarFormat === undefined ? null : scalarLayout(params, scalarFormat);
  const result = pointLayout(params, resultFormat ?? pointFormat ?? 'native');
  return {
    point: point?.kind === 'native' ? null : point,
    scalar: scalar?.name === 'le' ? null : scalar,
    result: result.kind === 'native' ? null : result,
  };
}

/** msm (BigInt points and scalars) has no byte formats: a format option there is a mistake. */
export function noFormatOptions(options, method) {
  for (const key of ['pointFormat', 'scalarFormat', 'resultFormat']) {
    if (options[key] !== undefined) throw new TypeError(`options.${key} is for msmBytes; ${method} takes points and scalars as values`);
  }
  return options;
}
