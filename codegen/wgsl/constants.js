// Host-side writers of F_p constants as WGSL text, shared by the WGSL generators (codegen/kernels/wgsl-*.js): an
// element is `Fp(l0, ..., l(n-1))` (the alias array<u32, FP_N> of codegen/wgsl/README.md), little-endian limbs of w
// bits, written by the WGSL writer's u32Array as wgsl-field.js writes its own constants; an F_p2 element is
// `Fp2(Fp(...), Fp(...))` (c0, c1: the struct of kernels/wgsl-field2.js).

import { u32Array } from './index.js';

const mod = (x, p) => ((x % p) + p) % p;

/** The n limbs of w bits of 0 <= x < R = 2^(n w), least significant first, as Numbers. */
export function fpLimbs(fieldParams, x) {
  const { w, n } = fieldParams;
  if (typeof x !== 'bigint' || x < 0n || x >> BigInt(n * w)) throw new RangeError(`fpLimbs: ${x} is not in [0, 2^${n * w})`);
  const mask = (1n << BigInt(w)) - 1n;
  return Array.from({ length: n }, (_, i) => Number((x >> BigInt(i * w)) & mask));
}

/** `Fp(...)` holding the plain value x (no Montgomery factor), e.g. p itself or an exponent. */
export function wgslFpPlain(fieldParams, x) {
  return u32Array('Fp', fpLimbs(fieldParams, x));
}

/** x R mod p: the Montgomery form of x (any BigInt, reduced mod p first), canonical in [0, p). */
export function toMontgomery(fieldParams, x) {
  const { p, R } = fieldParams;
  return mod(mod(x, p) * R, p);
}

/** `Fp(...)` holding x in Montgomery form, x R mod p in [0, p): the form every fp_ kernel takes. */
export function wgslFp(fieldParams, x) {
  return wgslFpPlain(fieldParams, toMontgomery(fieldParams, x));
}

/**
 * `Fp2(Fp(...), Fp(...))` holding c0 + c1 u in Montgomery form, each component x R mod p in [0, p) (the Fp2 struct of
 * codegen/kernels/wgsl-field2.js). x: { c0, c1 } or [c0, c1], BigInts or integer strings (a curve JSON's g2 pair).
 */
export function wgslFp2(fieldParams, x) {
  const [c0, c1] = (Array.isArray(x) ? x : [x?.c0, x?.c1]).map((v) => {
    if (v === undefined || v === null) throw new TypeError('wgslFp2: x must be { c0, c1 } or [c0, c1]');
    return BigInt(v);
  });
  const parts = [wgslFp(fieldParams, c0), wgslFp(fieldParams, c1)];
  const flat = `Fp2(${parts.join(', ')})`;
  if (flat.length <= 100 && !flat.includes('\n')) return flat;
  return `Fp2(\n${parts.map((t) => t.split('\n').map((l) => `  ${l}`).join('\n')).join(',\n')}\n)`;
}
