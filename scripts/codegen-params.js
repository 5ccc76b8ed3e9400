// The codegen CLI's input (scripts/codegen.js): its options' checks (a UsageError: exit status 2), and its params file
// (curve --params): its shape (known fields, numbers, the model's coefficients, the optional G2) and its mathematics
// (primes, the Hasse interval, the group order), each rejection an InputError whose one line says which field is
// wrong and why.

import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export const MIN_P_BITS = 8;
export const MAX_P_BITS = 768;
export const MIN_W = 26;
export const MAX_W = 32;

/** Rejected input (bad params file): exit status 1, one line. */
export class InputError extends Error {}

/** A bad command line: exit status 2, the message and a pointer to --help. */
export class UsageError extends Error {}

export const SHAPE_CHOICES = ['auto', 'pairs', 'unrolled', 'loop'];

export function parseLimbBits(text, what) {
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${what} must be an integer in ${MIN_W}..${MAX_W}, got ${JSON.stringify(text)}`);
  const w = Number(text);
  if (w < MIN_W || w > MAX_W) throw new UsageError(`${what} must be an integer in ${MIN_W}..${MAX_W}, got ${w}`);
  return w;
}

/**
 * The folder --out names, resolved: refused before any work where it is empty or names something that is not a folder
 * (the write would fail only after the generation, or write into the working directory).
 */
export function outFolder(text) {
  if (text === undefined) throw new UsageError('missing --out <dir>');
  if (text.trim() === '') throw new UsageError('--out is empty: name the folder to write (. for this one)');
  const dir = resolve(text);
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d)) {
      if (!statSync(d).isDirectory()) throw new UsageError(`--out ${text}: ${d === dir ? 'it is' : `${shown(d)} is`} a file, not a folder`);
      break;
    }
    if (dirname(d) === d) break;
  }
  return dir;
}

/** A path as the messages show it: relative to the working directory when inside it. */
export const shown = (path) => {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
};

export const hex = (x) => (x < 0n ? '-0x' + (-x).toString(16) : '0x' + x.toString(16));
const bitLength = (x) => (x === 0n ? 0 : x.toString(2).length);
/** hex, or for a number too long to read in a message its size. */
const shortHex = (x) => {
  const bits = bitLength(x < 0n ? -x : x);
  return bits > 1024 ? `a ${bits}-bit number` : hex(x);
};

const KNOWN_FIELDS = ['name', 'model', 'p', 'r', 'a', 'b', 'd', 'A', 'B', 'h', 'generator', 'w', 'reduction', 'description', 'g2'];
/** The coefficients each curve model takes (codegen/params/models.js). */
const MODEL_FIELDS = { 'short-weierstrass': ['a', 'b'], 'twisted-edwards': ['a', 'd'], montgomery: ['A', 'B'] };
const G2_FIELDS = ['nonResidue', 'b', 'h', 'generator'];
const REQUIRED_FIELDS = ['name', 'p', 'r', 'generator'];
const NUMBER_RE = /^(0x[0-9a-fA-F]+|[0-9]+)$/;
const SIGNED_NUMBER_RE = /^-?(0x[0-9a-fA-F]+|[0-9]+)$/;

/** A number field of the params file as a BigInt, or an InputError saying what is wrong with it. */
function numberField(value, what, { signed = false } = {}) {
  const expect = `a ${signed ? 'possibly negative ' : ''}0x-hex or decimal string`;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new InputError(`"${what}" is the JSON number ${value}, which JSON cannot hold exactly: write it as ${expect}, e.g. "0x..."`);
    }
    if (value < 0 && !signed) throw new InputError(`"${what}" must not be negative, got ${value}`);
    return BigInt(value);
  }
  if (typeof value !== 'string') throw new InputError(`"${what}" must be ${expect}, got ${JSON.stringify(value)}`);
  const text = value.trim();
  if (!(signed ? SIGNED_NUMBER_RE : NUMBER_RE).test(text)) {
    const why = /^-/.test(text) && !signed ? 'must not be negative' : /^0x/i.test(text) ? 'is malformed hex' : 'is not a number';
    throw new InputError(`"${what}" ${why}: expected ${expect}, got ${JSON.stringify(value)}`);
  }
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
}

/** The optional "g2" object, checked for shape and normalised (numbers as 0x-hex, the non-residue as a decimal). */
function g2Field(g2) {
  if (g2 === null || typeof g2 !== 'object' || Array.isArray(g2)) throw new InputError(`"g2" must be an object with ${G2_FIELDS.map((k) => `"${k}"`).join(', ')}`);
  const unknown = Object.keys(g2).filter((k) => !G2_FIELDS.includes(k));
  if (unknown.length) throw new InputError(`"g2" has unknown field "${unknown[0]}" (allowed: ${G2_FIELDS.join(', ')})`);
  const missing = G2_FIELDS.filter((k) => g2[k] === undefined || g2[k] === null);
  if (missing.length) throw new InputError(`missing field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"g2.${k}"`).join(', ')}`);
  const pair = (v, what) => {
    if (!Array.isArray(v) || v.length !== 2) throw new InputError(`"${what}" must be an array [c0, c1] (the element c0 + c1 u of F_p2)`);
    return v.map((c, i) => hex(numberField(c, `${what}[${i}]`)));
  };
  const g = g2.generator;
  if (g === null || typeof g !== 'object' || Array.isArray(g) || g.x === undefined || g.y === undefined) {
    throw new InputError('"g2.generator" must be an object { "x": [c0, c1], "y": [c0, c1] }');
  }
  return {
    nonResidue: String(numberField(g2.nonResidue, 'g2.nonResidue', { signed: true })),
    b: pair(g2.b, 'g2.b'),
    h: hex(numberField(g2.h, 'g2.h')),
    generator: { x: pair(g.x, 'g2.generator.x'), y: pair(g.y, 'g2.generator.y') },
  };
}

/**
 * Structural checks of the parsed JSON (fields present, known, well-formed). Returns the normalised params
 * object handed to generateCurve: the numbers as 0x-hex strings, w as a number when given.
 */
export function checkParamsShape(json) {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new InputError('the params file must hold a JSON object');
  const unknown = Object.keys(json).filter((k) => !KNOWN_FIELDS.includes(k));
  if (unknown.length) {
    throw new InputError(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (allowed: ${KNOWN_FIELDS.join(', ')}; the cofactor is "h")`);
  }
  const model = json.model ?? 'short-weierstrass';
  if (!Object.hasOwn(MODEL_FIELDS, model)) throw new InputError(`"model" must be ${Object.keys(MODEL_FIELDS).map((k) => `"${k}"`).join(', ')}, got ${JSON.stringify(json.model)}`);
  const coefficients = MODEL_FIELDS[model];
  const foreign = ['a', 'b', 'd', 'A', 'B'].filter((k) => json[k] !== undefined && !coefficients.includes(k));
  if (foreign.length) throw new InputError(`field "${foreign[0]}" is not a coefficient of the ${model} model (it takes ${coefficients.map((k) => `"${k}"`).join(', ')})`);
  const missing = [...REQUIRED_FIELDS, ...coefficients].filter((k) => json[k] === undefined || json[k] === null);
  if (missing.length) throw new InputError(`missing field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}`);
  const { name } = json;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) {
    throw new InputError(`"name" must be 1 to 64 lowercase letters, digits and dashes (it names the files), got ${name?.length > 80 ? `${JSON.stringify(name.slice(0, 64))}... (${name.length} characters)` : JSON.stringify(name)}`);
  }
  const g = json.generator;
  if (g === null || typeof g !== 'object' || Array.isArray(g)) throw new InputError('"generator" must be an object { "x": ..., "y": ... }');
  const gUnknown = Object.keys(g).filter((k) => k !== 'x' && k !== 'y');
  if (gUnknown.length) throw new InputError(`"generator" has unknown field "${gUnknown[0]}" (expected { "x": ..., "y": ... })`);
  for (const c of ['x', 'y']) if (g[c] === undefined || g[c] === null) throw new InputError(`missing field "generator.${c}"`);
  if (json.description !== undefined && typeof json.description !== 'string') throw new InputError('"description" must be a string');
  const p = numberField(json.p, 'p');
  const r = numberField(json.r, 'r');
  const coefficientValues = Object.fromEntries(coefficients.map((k) => [k, numberField(json[k], k, { signed: true })]));
  const h = json.h === undefined ? 1n : numberField(json.h, 'h');
  const x = numberField(g.x, 'generator.x');
  const y = numberField(g.y, 'generator.y');
  let w;
  if (json.w !== undefined) {
    if (!Number.isInteger(json.w) || json.w < MIN_W || json.w > MAX_W) throw new InputError(`"w" must be an integer in ${MIN_W}..${MAX_W}, got ${JSON.stringify(json.w)}`);
    w = json.w;
  }
  let reduction;
  if (json.reduction !== undefined) {
    if (json.reduction !== 'montgomery' && json.reduction !== 'crandall') throw new InputError(`"reduction" must be "montgomery" or "crandall", got ${JSON.stringify(json.reduction)}`);
    reduction = json.reduction;
  }
  const pBits = bitLength(p);
  if (pBits < MIN_P_BITS || pBits > MAX_P_BITS) throw new InputError(`p has ${pBits} bits; supported sizes are ${MIN_P_BITS}..${MAX_P_BITS} bits`);
  if (h < 1n) throw new InputError('"h" (the cofactor) must be at least 1');
  // Reduce the coefficients mod p (so "-3" works); keep everything else as given, deriveCurveParams range-checks it.
  const modP = (v) => ((v % p) + p) % p;
  return {
    name, ...(json.model === undefined ? {} : { model }), p: hex(p), r: hex(r),
    ...Object.fromEntries(Object.entries(coefficientValues).map(([k, v]) => [k, hex(modP(v))])), h: hex(h),
    generator: { x: hex(x), y: hex(y) },
    ...(w === undefined ? {} : { w }),
    ...(reduction === undefined ? {} : { reduction }),
    ...(json.g2 === undefined ? {} : { g2: g2Field(json.g2) }),
  };
}

/**
 * The mathematical checks: deriveCurveParams (p, r prime; b != 0; non-singular; G on the curve, of order r;
 * Hasse), then (h * r) * P = O for eight sample points, which catches a wrong cofactor inside the Hasse interval.
 */
export async function checkParamsMath(params) {
  const { deriveCurveParams, affineOps } = await import('../codegen/params/curve.js');
  const { isProbablePrime, modSqrt } = await import('../codegen/params/number-theory.js');
  // The checks deriveCurveParams makes too, first here with the wording a user needs.
  const p = BigInt(params.p);
  const r = BigInt(params.r);
  const h = BigInt(params.h);
  if (!isProbablePrime(p)) throw new InputError(`p = ${params.p} is not prime (${p % 2n === 0n ? 'it is even' : 'a Miller-Rabin witness shows it is composite'})`);
  // before r's primality test, whose cost grows with r's size, which nothing else bounds
  const d = h * r - (p + 1n);
  if (d * d > 4n * p) {
    throw new InputError(`h * r = ${shortHex(h * r)} cannot be the number of points: it is outside the Hasse interval p + 1 - 2 sqrt(p) .. p + 1 + 2 sqrt(p) (check r and the cofactor h = ${shortHex(h)})`);
  }
  if (r < 3n || !isProbablePrime(r)) throw new InputError(`r = ${params.r} is not prime (${r < 3n ? 'it is below 3' : r % 2n === 0n ? 'it is even' : 'a Miller-Rabin witness shows it is composite'}); r must be the prime order of the generator`);
  let curve;
  try {
    curve = deriveCurveParams(params); // with its "w" and "reduction", as the build takes them
  } catch (e) {
    if (e instanceof TypeError || e instanceof RangeError) throw new InputError(e.message.replace(/^curve params: /, ''));
    throw e;
  }
  if (params.g2) {
    const { deriveG2Params } = await import('../codegen/params/g2.js');
    const { buildGlvParams } = await import('../codegen/params/glv.js');
    try {
      deriveG2Params(curve, params.g2, buildGlvParams(curve)); // as the build derives them
    } catch (e) {
      if (e instanceof TypeError || e instanceof RangeError) throw new InputError(e.message.replace(/^curve params: /, ''));
      throw e;
    }
  }
  const { a, b } = curve;
  const ops = affineOps(p, a);
  const samples = [];
  for (let x = 1n; samples.length < 8 && x < p && x < 1000n; x++) {
    const y = modSqrt((x * x * x + a * x + b) % p, p);
    if (y === null || y === 0n) continue;
    samples.push({ x, y });
    // every sample: points of small order (x = 1, 2, ...) say little each, and a wrong h passes where their orders
    // all divide h r (p = 397, r = 5: h = 74 passed two samples of orders 10 and 5; #E = 380)
    if (ops.mul({ x, y }, h * r) !== null) {
      throw new InputError(`h * r = ${hex(h * r)} is not the group order: (h * r) * P != O for the curve point P = (${hex(x)}, ${hex(y)}); check the cofactor "h" (is it ${hex(h)}?) and r`);
    }
  }
  if (h % r === 0n) {
    throw new InputError(`h = ${params.h} is a multiple of r = ${params.r}: r^2 then divides the group order, and the curve may have several subgroups of order r, which neither the subgroup test (r P = O) nor GLV tells apart (wasmsm needs r not dividing h)`);
  }
  // Where r divides p - 1 every point of order r may be rational (E[r] = Z/r x Z/r, r^2 dividing the group order):
  // then several multiples of the group's small exponent lie in the Hasse interval, and a wrong h passes the test
  // above. GLV tells it: the endomorphism acts as lambda on G's subgroup only, so h P must be lambda-fixed as G is.
  if ((p - 1n) % r === 0n) {
    const { buildGlvParams } = await import('../codegen/params/glv.js');
    const { endomorphismMap } = await import('../codegen/params/endomorphism.js');
    let glv;
    try {
      glv = buildGlvParams(curve); // as the build derives them
    } catch (e) {
      throw new InputError(e.message.replace(/^curve params: /, ''));
    }
    const phi = glv && endomorphismMap(glv.endomorphism, p);
    for (const P of phi ? samples : []) {
      const Q = ops.mul(P, h);
      const image = phi(Q);
      const lambdaQ = ops.mul(Q, glv.lambda);
      if (Q !== null && !(image && lambdaQ && image.x === lambdaQ.x && image.y === lambdaQ.y)) {
        throw new InputError(`the points of order r are not all multiples of the generator: h P, P = (${hex(P.x)}, ${hex(P.y)}), is not in its subgroup (the endomorphism does not act on it as lambda); r^2 divides the group order and h = ${params.h} is not the cofactor, which wasmsm needs not to be a multiple of r`);
      }
    }
  }
  return curve;
}
