// Conversions: Montgomery form in and out, canonical little-endian bytes in and out.

import { Func, i32, i64, local, comment, op } from '../wat/index.js';
import { limbAccess, maskConst, limbConst, limbTerms, chain } from './limbs.js';

export function fieldToMontgomery(params, { name = 'toMontgomery', mulName = 'mul', r2Address }) {
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']], exportName: name,
    doc: `${name}(out, x): out = x * R mod p. Input in [0, 2p) (normal form), output in [0, 2p). out may alias x.`,
  });
  if (params.R === 1n) {
    // R = 1 (reduction 'crandall'): the value is its own Montgomery form
    fn.push(comment('R = 1: out = x'), ...limbAccess(params).copy('out', 'x'));
    return fn;
  }
  fn.push(comment('x * R = mont(x, R^2)'), op(`call $${mulName}`, local.get('out'), local.get('x'), i32.const(r2Address)));
  return fn;
}

export function fieldFromMontgomery(params, { name = 'fromMontgomery', mulName = 'mul', reduceName = 'reduce', oneAddress }) {
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']], exportName: name,
    doc: `${name}(out, x): out = x / R mod p, canonical. Input in [0, 2p), output in [0, p). out may alias x.`,
  });
  if (params.R === 1n) {
    fn.push(comment('R = 1: reduce to [0, p)'), op(`call $${reduceName}`, local.get('out'), local.get('x')));
    return fn;
  }
  fn.push(
    comment('x / R = mont(x, 1); then reduce to [0, p)'),
    op(`call $${mulName}`, local.get('out'), local.get('x'), i32.const(oneAddress)),
    op(`call $${reduceName}`, local.get('out'), local.get('out')),
  );
  return fn;
}

/**
 * fromBytes(out, bytes) -> 1 if the value is < p, else 0. Reads params.bytes little-endian bytes and
 * writes the limbs (normal form) either way; callers must check the flag.
 */
export function fieldFromBytes(params, { name = 'fromBytes' } = {}) {
  const { n, w, bytes, pLimbs } = params;
  const fn = new Func(name, {
    params: [['out', 'i32'], ['bytes', 'i32']], result: 'i32', exportName: name,
    doc: `${name}(out, bytes): out = the ${bytes}-byte little-endian integer at bytes, as limbs (not Montgomery form).
Returns 1 if that integer is < p, else 0 (out is still written).`,
  });
  for (let j = 0; j < n; j++) {
    const lo = j * w;
    const hi = Math.min((j + 1) * w, bytes * 8);
    let expr = null;
    for (let k = Math.floor(lo / 8); k * 8 < hi; k++) {
      const byte = i64.extend_i32_u(i32.load8_u(local.get('bytes'), k));
      const shift = k * 8 - lo;
      const part = shift > 0 ? i64.shl(byte, i64.const(shift)) : shift < 0 ? i64.shr_u(byte, i64.const(-shift)) : byte;
      expr = expr === null ? part : i64.or(expr, part);
    }
    fn.local(`z${j}`);
    fn.push(local.set(`z${j}`, expr === null ? i64.const(0) : i64.and(expr, maskConst(w))));
    fn.push(limbAccess(params).store('out', j, local.get(`z${j}`)));
  }
  const T = limbTerms(params);
  fn.push(comment('value < p exactly when value - p borrows'));
  fn.push(chain(fn, { n, w, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`z${j}`), limbConst(pLimbs[j])) }));
  // Bits at or above n*w do not fit the limbs: any of them set means the value is >= R > p.
  const spare = [];
  for (let k = Math.floor((n * w) / 8); k < bytes; k++) {
    const dropBits = Math.max(0, n * w - 8 * k);
    const byte = i32.load8_u(local.get('bytes'), k);
    spare.push(dropBits > 0 ? i32.shr_u(byte, i32.const(dropBits)) : byte);
  }
  const below = i64.ne(local.get('carry'), i64.const(0));
  fn.push(spare.length ? i32.and(below, i32.eqz(spare.reduce((a, b) => i32.or(a, b)))) : below);
  return fn;
}

/** toBytes(bytes, x): x canonical limbs (normal form, [0, p)) to params.bytes little-endian bytes. */
export function fieldToBytes(params, { name = 'toBytes' } = {}) {
  const { n, w, bytes } = params;
  const fn = new Func(name, {
    params: [['bytes', 'i32'], ['x', 'i32']], exportName: name,
    doc: `${name}(bytes, x): write x (limbs in normal form, canonical) as ${bytes} little-endian bytes.`,
  });
  for (let k = 0; k < bytes; k++) {
    const lo = 8 * k;
    let expr = null;
    for (let j = Math.floor(lo / w); j < n && j * w < lo + 8; j++) {
      const shift = lo - j * w;
      const limb = limbAccess(params).load('x', j);
      const part = shift > 0 ? i64.shr_u(limb, i64.const(shift)) : shift < 0 ? i64.shl(limb, i64.const(-shift)) : limb;
      expr = expr === null ? part : i64.or(expr, part);
    }
    fn.push(i32.store8(local.get('bytes'), i32.wrap_i64(expr), k));
  }
  return fn;
}
