// deriveCurveParams(json): a short-Weierstrass curve y^2 = x^3 + a x + b over F_p with a subgroup of
// prime order r, validated, plus its field parameters and (when the curve has one) its GLV endomorphism.

import { deriveFieldParams } from './field.js';
import { bitLength, isProbablePrime, mod, modInverse, toBigInt } from './number-theory.js';
import { MODELS, MODEL_COEFFICIENTS, curveModel } from './models.js';

/**
 * The affine group law of y^2 = x^3 + a x + b over a field F ({ add, sub, mul, sqr, inv, eq, isZero } on its
 * elements; a is one of them), null = infinity: add, and mul(P, k) by double-and-add. Plain BigInt arithmetic for
 * the generation-time checks of G1 (F_p, affineOps) and G2 (F_p2, params/g2.js).
 */
export function affineLaw(F, a) {
  const add = (P, Q) => {
    if (P === null) return Q;
    if (Q === null) return P;
    let l;
    if (F.eq(P.x, Q.x)) {
      if (F.isZero(F.add(P.y, Q.y))) return null;
      const xx = F.sqr(P.x);
      l = F.mul(F.add(F.add(F.add(xx, xx), xx), a), F.inv(F.add(P.y, P.y)));
    } else {
      l = F.mul(F.sub(Q.y, P.y), F.inv(F.sub(Q.x, P.x)));
    }
    const x = F.sub(F.sub(F.sqr(l), P.x), Q.x);
    return { x, y: F.sub(F.mul(l, F.sub(P.x, x)), P.y) };
  };
  const mul = (P, k) => {
    let acc = null;
    for (let i = bitLength(k) - 1; i >= 0; i--) {
      acc = add(acc, acc);
      if ((k >> BigInt(i)) & 1n) acc = add(acc, P);
    }
    return acc;
  };
  return { add, mul };
}

/** F_p on BigInts, for affineLaw. */
function primeField(p) {
  return {
    add: (x, y) => mod(x + y, p),
    sub: (x, y) => mod(x - y, p),
    mul: (x, y) => mod(x * y, p),
    sqr: (x) => mod(x * x, p),
    inv: (x) => modInverse(x, p),
    eq: (x, y) => mod(x - y, p) === 0n,
    isZero: (x) => mod(x, p) === 0n,
  };
}

/** Plain BigInt affine arithmetic over F_p, enough to validate a generator at generation time. */
export function affineOps(p, a) {
  const { add, mul } = affineLaw(primeField(p), mod(a, p));
  const onCurve = (P, b) => P === null || mod(P.y * P.y - (P.x * P.x * P.x + a * P.x + b), p) === 0n;
  return { add, mul, onCurve };
}

/**
 * @param json { name, model?, p, r, h, generator: { x, y }, w?, reduction? ('montgomery', the default, or 'crandall'
 *   for p = 2^k - c with small c: codegen/params/field.js), and the model's coefficients: a, b (short Weierstrass,
 *   the default), a, d ("model": "twisted-edwards") or A, B ("model": "montgomery") } with numbers as 0x-hex or
 *   decimal strings. A curve of another model is checked in its own equation, then mapped to its short-Weierstrass
 *   image (params/models.js), on which every check below runs and the MSM works: the result's a, b and generator are
 *   the image's; `model` keeps the model's own ({ kind, coefficients, generator, A, B, ... }, null for Weierstrass).
 * @throws {TypeError|RangeError} naming the field that is wrong
 */
export function deriveCurveParams(json, { w } = {}) {
  if (!json || typeof json !== 'object') throw new TypeError('curve params must be an object');
  const kind = json.model ?? 'short-weierstrass';
  if (!MODELS.includes(kind)) throw new RangeError(`curve params: model must be one of ${MODELS.join(', ')}, got ${JSON.stringify(kind)}`);
  const coefficientNames = MODEL_COEFFICIENTS[kind];
  for (const k of ['p', 'r', ...coefficientNames, 'generator']) if (json[k] === undefined) throw new TypeError(`curve params: missing field "${k}"`);
  if (typeof json.generator !== 'object' || json.generator.x === undefined || json.generator.y === undefined) {
    throw new TypeError('curve params: generator must be { "x": ..., "y": ... }');
  }
  const name = json.name ?? 'curve';
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new TypeError(`curve params: name must be lowercase letters, digits and dashes, got ${JSON.stringify(name)}`);
  }
  const p = toBigInt(json.p, 'p');
  const r = toBigInt(json.r, 'r');
  const h = json.h === undefined ? 1n : toBigInt(json.h, 'h');
  if (p < 5n || !isProbablePrime(p)) throw new RangeError(`curve params: p is not a prime >= 5: ${json.p}`);
  if (r < 3n || !isProbablePrime(r)) throw new RangeError(`curve params: r is not a prime >= 3: ${json.r}`);
  const G0 = { x: toBigInt(json.generator.x, 'generator.x'), y: toBigInt(json.generator.y, 'generator.y') };
  if (G0.x < 0n || G0.x >= p || G0.y < 0n || G0.y >= p) throw new RangeError('curve params: generator coordinates must be in [0, p)');
  let a;
  let b;
  let G = G0;
  let model = null;
  if (kind === 'short-weierstrass') {
    a = mod(toBigInt(json.a, 'a'), p);
    b = mod(toBigInt(json.b, 'b'), p);
    if (b === 0n) throw new RangeError('curve params: b must be nonzero');
  } else {
    const coefficients = Object.fromEntries(coefficientNames.map((k) => [k, mod(toBigInt(json[k], k), p)]));
    const m = curveModel(kind, p, coefficients);
    if (!m.onCurve(G0)) throw new RangeError(`curve params: generator is not on the curve (${kind === 'montgomery' ? 'B v^2 = u^3 + A u^2 + u' : 'a x^2 + y^2 = 1 + d x^2 y^2'})`);
    if (kind === 'twisted-edwards' && G0.x === 0n) throw new RangeError('curve params: the generator has x = 0 (the neutral element or the point of order 2)');
    ({ a, b } = m.weierstrass);
    G = m.toWeierstrass(G0);
    if (G === null || G.y === 0n) throw new RangeError('curve params: generator does not have order r (it has order 1 or 2)');
    model = Object.freeze({ ...m, generator: Object.freeze(G0) });
  }
  if (mod(4n * a * a * a + 27n * b * b, p) === 0n) throw new RangeError('curve params: singular curve (4a^3 + 27b^2 = 0 mod p)');
  const ops = affineOps(p, a);
  if (!ops.onCurve(G, b)) throw new RangeError('curve params: generator is not on the curve');
  if (ops.mul(G, r) !== null) throw new RangeError('curve params: generator does not have order r (r * G != infinity)');
  // Hasse: #E = h r lies in [p + 1 - 2 sqrt p, p + 1 + 2 sqrt p].
  const n = h * r;
  const d = n - (p + 1n);
  if (d * d > 4n * p) throw new RangeError(`curve params: h * r = ${n} is not a possible group order for this p (Hasse bound)`);
  const reduction = json.reduction ?? 'montgomery';
  if (reduction !== 'montgomery' && reduction !== 'crandall') throw new RangeError(`curve params: reduction must be "montgomery" or "crandall", got ${JSON.stringify(reduction)}`);
  let field;
  try {
    field = deriveFieldParams({ p, w: w ?? json.w ?? 30, checkPrime: false, reduction });
  } catch (e) {
    throw new RangeError(`curve params: reduction: ${e.message}`);
  }
  return Object.freeze({
    name, p, r, a, b, h, generator: Object.freeze(G), model,
    rBits: bitLength(r),
    scalarBytes: Math.ceil(bitLength(r) / 8),
    field,
  });
}
