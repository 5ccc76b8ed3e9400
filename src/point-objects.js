// Values as JS objects: how a coordinate (a BigInt, or { c0, c1 } in F_p2) is checked, written and read, and point
// objects of other libraries (duck-typed: @noble/curves and alike) in and out. The byte formats are src/codecs.js.

import { bigIntToBytesLE, bytesToBigIntLE } from './msm/bytes.js';

/**
 * How one coordinate is checked, written and read: a BigInt in [0, p) (G1), or { c0, c1 } for c0 + c1 u in
 * F_p2 (G2), written c0 then c1, each little-endian in the base field's bytes.
 */
export function coordinateCodec(params) {
  const p = params.p;
  if (params.field.degree !== 2) {
    return {
      shape: 'bigint',
      pointShape: '{ x: bigint, y: bigint }',
      is: (v) => typeof v === 'bigint',
      check: (v, what) => {
        if (typeof v !== 'bigint') throw new TypeError(`${what} must be a bigint`);
        if (v < 0n || v >= p) throw new RangeError(`${what} is not in [0, p)`);
      },
      isZero: (v) => v === 0n,
      write: (v, out, at, B) => bigIntToBytesLE(v, out, at, B),
      read: (bytes, at, B) => bytesToBigIntLE(bytes, at, B),
    };
  }
  return {
    shape: '{ c0: bigint, c1: bigint }',
    pointShape: '{ x: { c0, c1 }, y: { c0, c1 } }',
    is: (v) => typeof v?.c0 === 'bigint' && typeof v?.c1 === 'bigint',
    check: (v, what) => {
      if (v === null || typeof v !== 'object' || typeof v.c0 !== 'bigint' || typeof v.c1 !== 'bigint') {
        throw new TypeError(`${what} must be { c0: bigint, c1: bigint } (c0 + c1 u in F_p2)`);
      }
      for (const c of ['c0', 'c1']) if (v[c] < 0n || v[c] >= p) throw new RangeError(`${what}.${c} is not in [0, p)`);
    },
    isZero: (v) => v.c0 === 0n && v.c1 === 0n,
    write: (v, out, at, B) => {
      bigIntToBytesLE(v.c0, out, at, B / 2);
      bigIntToBytesLE(v.c1, out, at + B / 2, B / 2);
    },
    read: (bytes, at, B) => ({ c0: bytesToBigIntLE(bytes, at, B / 2), c1: bytesToBigIntLE(bytes, at + B / 2, B / 2) }),
  };
}

/** A point object with toAffine() (and is0()) to { x, y } or null; anything else is returned as is. */
export function fromPointObject(P) {
  if (P === null || typeof P !== 'object' || typeof P.toAffine !== 'function') return P;
  if (typeof P.is0 === 'function' && P.is0()) return null;
  const a = P.toAffine();
  if (a && a.x === 0n && a.y === 0n) return null; // noble's affine form of the identity
  return a;
}

/** { x, y } | null | native bytes to an instance of PointClass, via PointClass.fromAffine (ZERO for infinity). */
export function toPointObject(curve, result, PointClass) {
  if (!PointClass || typeof PointClass.fromAffine !== 'function') {
    throw new TypeError('toPoint needs a Point class with a static fromAffine({ x, y }) (e.g. bls12_381.G1.Point from @noble/curves)');
  }
  const a = result instanceof Uint8Array ? curve.decodePoint(result) : result;
  if (a === null) return PointClass.ZERO ?? PointClass.fromAffine({ x: 0n, y: 0n });
  const C = coordinateCodec(curve.params);
  if (typeof a !== 'object' || !C.is(a.x) || !C.is(a.y)) {
    throw new TypeError(`toPoint takes ${C.pointShape}, null or a point in the msmBytes encoding`);
  }
  return PointClass.fromAffine({ x: a.x, y: a.y });
}
