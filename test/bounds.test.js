// The bounds the generator claims for its straight-line Montgomery products, re-derived here from the generated
// code itself, as test/params.test.js does for the operand-scanning carry plan:
// - the integer build's `pairs` product (codegen/kernels/field-mul-pairs.js): every i64 accumulator is shifted
//   (i64.shr_u) only while its true value lies in [0, 2^64), although single terms are signed (x_i - x_j)(y_j - y_i)
//   and prefix differences, and the i64 sums wrap;
// - the FMA build's product (codegen/kernels/field-mul-fma.js): every limb product is split exactly by two fused
//   multiply-adds (hi = C + 2^W H, lo = K + L with |L| <= 2^(W-1)), their raw f64 bits summed in i64x2 columns, and
//   every column shifted while it holds its true value + 2^62 with the true value in (-2^62, 2^62), as the generator
//   states (so in (0, 2^63)).
//
// How: an abstract interpreter of the function's WAT (parsed here). i64 values are polynomials with integer
// coefficients in variables with known ranges: the loaded limbs (the claim: below 2^w), and a fresh variable for each
// value the code masks or shifts. Ring operations (add, sub, mul, shl) act on the polynomials, which track the true
// integer value exactly (i64 arithmetic is that value mod 2^64); the range of a polynomial is bounded by interval
// arithmetic over its monomials. So the Karatsuba pairs cancel symbolically to x_i y_j + x_j y_i, and an accumulator's
// range is that of what it really holds. f64 values are polynomials too, checked to be exact f64s at every operation;
// a relaxed_madd whose sum is not exact must be C + a b within one binade, which introduces H = round(a b / ulp) and
// L = a b - ulp H (|L| <= ulp / 2); a later madd of the same a, b uses a b = ulp H + L. Reading f64 lanes as i64 bits
// is checked to stay within a binade. Nothing here calls the generator's bound bookkeeping.
//
// The checker is shown to reject: a carry split removed from the shipped BLS12-381 product, inputs claimed one bit
// wider, a prefix difference that no longer cancels, an FMA column without its 2^62 offset, a narrower column window
// claimed for the FMA product, and FMA limbs claimed wider than W bits.

import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { curveNames } from '../index.js';
import { deriveFieldParams } from '../codegen/params/field.js';
import { montgomeryPairs, pairsShapeFits } from '../codegen/kernels/field-mul-pairs.js';
import { crandallMul } from '../codegen/kernels/field-mul-crandall.js';
import { fmaMontgomeryMul } from '../codegen/kernels/field-mul-fma.js';
import { LIMB_SIZES, primeMatrix, prevPrime } from './harness.js';

const TWO64 = 1n << 64n;

// ---- WAT text -> S-expressions ---------------------------------------------------------------------------------

function tokenize(text) {
  const tokens = [];
  for (let i = 0; i < text.length; ) {
    const ch = text[i];
    if (ch === ';' && text[i + 1] === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '(' || ch === ')') {
      tokens.push(ch);
      i++;
    } else if (/\s/.test(ch)) {
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s()]/.test(text[j])) j++;
      tokens.push(text.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

function parse(tokens) {
  let at = 0;
  const node = () => {
    if (tokens[at] !== '(') return tokens[at++];
    at++;
    const list = [];
    while (tokens[at] !== ')') {
      if (at >= tokens.length) throw new Error('unbalanced parentheses');
      list.push(node());
    }
    at++;
    return list;
  };
  return node();
}

/** The S-expression of function `name` in a module's text. */
function funcOf(wat, name) {
  const start = wat.indexOf(`(func $${name} `);
  if (start < 0) throw new Error(`no function $${name}`);
  return parse(tokenize(wat.slice(start)));
}

// ---- polynomials over variables with ranges ------------------------------------------------------------------

const constPoly = (c) => new Map(c === 0n ? [] : [['', c]]);
const varPoly = (name) => new Map([[name, 1n]]);
const monoKey = (vars) => vars.filter(Boolean).sort().join('*');
function addPoly(a, b, sign = 1n) {
  const out = new Map(a);
  for (const [k, c] of b) {
    const v = (out.get(k) ?? 0n) + sign * c;
    if (v === 0n) out.delete(k);
    else out.set(k, v);
  }
  return out;
}
function mulPoly(a, b) {
  let out = new Map();
  for (const [ka, ca] of a) {
    for (const [kb, cb] of b) out = addPoly(out, new Map([[monoKey([...ka.split('*'), ...kb.split('*')]), ca * cb]]));
  }
  return out;
}
const scalePoly = (a, c) => mulPoly(a, constPoly(c));
const constantOf = (a) => (a.size === 0 ? 0n : a.size === 1 && a.has('') ? a.get('') : null);
const polyKey = (a) => [...a].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, c]) => `${c}${k ? '*' + k : ''}`).join('+');

const mulInterval = ([a, b], [c, d]) => {
  const v = [a * c, a * d, b * c, b * d];
  return [v.reduce((x, y) => (y < x ? y : x)), v.reduce((x, y) => (y > x ? y : x))];
};

// ---- the interpreter -----------------------------------------------------------------------------------------

/** bits(2^e) of an f64 (e within the normal range). */
const powBits = (e) => BigInt(1023 + e) << 52n;
const floorLog2 = (x) => x.toString(2).length - 1;

/** An f64.const literal (decimal integer or hex float 0x1.<13 hex>p+e) as an exact value: { num, den: 2^k }. */
function f64Literal(text) {
  const hexFloat = /^0x1\.([0-9a-f]{13})p([+-]\d+)$/.exec(text);
  if (hexFloat) {
    const mantissa = (1n << 52n) + BigInt(`0x${hexFloat[1]}`);
    const e = Number(hexFloat[2]) - 52;
    if (e < 0) throw new Error(`f64.const ${text}: not an integer`);
    return mantissa << BigInt(e);
  }
  if (/^-?\d+$/.test(text)) {
    const v = BigInt(text);
    if ((v < 0n ? -v : v) > 1n << 53n) throw new Error(`f64.const ${text}: not exact`);
    return v;
  }
  throw new Error(`f64.const ${text}: unsupported literal`);
}
const i64Literal = (text) => BigInt.asIntN(64, BigInt(text));

/**
 * Run one function's body abstractly. options.limbBits: the claimed limb width of the inputs (w, or W for FMA);
 * options.window: the claimed range of a value at every shift, [lo, hi) (default [0, 2^64): the shift is exact).
 * options.modular: the value at a shift is known mod 2^64 only (the FMA columns: their i64 constants are biases that
 * cancel the f64 exponent bits of the terms mod 2^64), so it is taken at the representative in [0, 2^64) where its
 * range, narrower than 2^64, has one; otherwise (the pairs product) the true integer value itself must lie there.
 * options.limbMaxAt(offset): a tighter claim for the limb at that byte offset (the top limb of an input below 2p), or null.
 * Returns { shifts: [{ at, lo, hi }], problems: [string] }.
 */
function checkBounds(func, { limbBits, window = [0n, TWO64], modular = false, limbMaxAt = () => null }) {
  const ranges = new Map(); // variable -> [lo, hi]
  let fresh = 0;
  const newVar = (prefix, lo, hi) => {
    const name = `${prefix}#${fresh++}`;
    ranges.set(name, [lo, hi]);
    return name;
  };
  const rangeOf = (poly) => {
    let lo = 0n;
    let hi = 0n;
    for (const [k, c] of poly) {
      let r = [1n, 1n];
      if (k) for (const v of k.split('*')) r = mulInterval(r, ranges.get(v));
      const [a, b] = mulInterval(r, [c, c]);
      lo += a;
      hi += b;
    }
    return [lo, hi];
  };
  const problems = [];
  const shifts = [];
  const locals = new Map(); // name -> abstract value
  const limbMax = (1n << BigInt(limbBits)) - 1n;
  const loads = new Map(); // pointer local + offset -> variable
  const splits = new Map(); // key of (a, b) -> { ulp, H, L }, the latest split of that product
  let statement = -1;
  const fail = (msg) => problems.push(`statement ${statement}: ${msg}`);

  const int = (p) => ({ t: 'int', p });
  const f64 = (p) => ({ t: 'f64', p });
  /** f64 values must be exact: integers (polynomials with integer coefficients) of at most 53 significant bits. */
  const exactF64 = (p, what) => {
    const [lo, hi] = rangeOf(p);
    let s = null; // the largest power of two dividing every coefficient
    for (const c of p.values()) {
      const tz = BigInt((c < 0n ? -c : c).toString(2).split('').reverse().indexOf('1'));
      s = s === null || tz < s ? tz : s;
    }
    const scale = 1n << (s ?? 0n);
    const max = (lo < 0n ? -lo : lo) > hi ? (lo < 0n ? -lo : lo) : hi;
    if (max / scale > 1n << 53n) fail(`${what}: not an exact f64 (up to ${max}, multiples of ${scale})`);
    return f64(p);
  };
  /** The i64 bits of an exact f64 that stays in one binade [2^e, 2^(e+1)]: bits(2^e) + (v - 2^e) / ulp. */
  const bitsOf = (v) => {
    const [lo, hi] = rangeOf(v.p);
    if (lo <= 0n) {
      fail(`f64 lanes read as bits: value may be <= 0 (${lo})`);
      return int(constPoly(0n));
    }
    const e = floorLog2(lo);
    if (hi > 1n << BigInt(e + 1)) fail(`f64 lanes read as bits: [${lo}, ${hi}] leaves the binade of 2^${e}`);
    const ulp = e >= 52 ? 1n << BigInt(e - 52) : null;
    if (ulp === null) fail('f64 lanes read as bits: below 2^52');
    const shifted = addPoly(v.p, constPoly(-(1n << BigInt(e))));
    const out = new Map();
    for (const [k, c] of shifted) {
      if (c % ulp !== 0n) fail(`f64 lanes read as bits: a term ${c}${k} is not a multiple of the ulp ${ulp}`);
      out.set(k, c / ulp);
    }
    return int(addPoly(out, constPoly(powBits(e))));
  };
  const asInt = (v) => (v.t === 'f64' ? bitsOf(v) : v);
  const checkShift = (v, what) => {
    let [lo, hi] = rangeOf(v.p);
    if (modular && hi - lo < TWO64) {
      const k = (lo >= 0n ? lo : lo - TWO64 + 1n) / TWO64; // floor(lo / 2^64)
      [lo, hi] = [lo - k * TWO64, hi - k * TWO64];
    }
    shifts.push({ at: statement, lo, hi });
    if (lo < 0n || hi >= TWO64) fail(`${what}: the shifted value ranges over [${lo}, ${hi}], outside [0, 2^64)`);
    else if (lo < window[0] || hi >= window[1]) fail(`${what}: the shifted value ranges over [${lo}, ${hi}], outside the claimed [${window[0]}, ${window[1]})`);
    return [lo, hi];
  };
  /** A value masked by 2^k - 1: a fresh variable in [0, mask] (or exactly the value when it is known to lie there). */
  const masked = (v, mask, prefix) => {
    const [lo, hi] = rangeOf(v.p);
    if (lo >= 0n && hi <= mask) return v;
    return int(varPoly(newVar(prefix, 0n, mask)));
  };
  const immediates = (args) => {
    let offset = 0;
    const rest = [];
    for (const a of args) {
      if (typeof a === 'string' && a.startsWith('offset=')) offset = Number(a.slice(7));
      else rest.push(a);
    }
    return { offset, rest };
  };
  const pointerName = (node) => {
    if (!Array.isArray(node) || node[0] !== 'local.get') throw new Error(`a pointer must be a local, got ${JSON.stringify(node)}`);
    const v = locals.get(node[1]);
    return v?.t === 'ptr' ? v.name : node[1];
  };
  const load = (ptrNode, offset) => {
    const key = `${pointerName(ptrNode)}+${offset}`;
    if (!loads.has(key)) loads.set(key, newVar(`limb(${key})`, 0n, limbMaxAt(offset) ?? limbMax));
    return int(varPoly(loads.get(key)));
  };

  const evaluate = (node) => {
    if (!Array.isArray(node)) throw new Error(`unexpected atom ${node}`);
    const [op, ...args] = node;
    const ev = (i) => evaluate(args[i]);
    switch (op) {
      case 'local.get': {
        const v = locals.get(args[0]);
        if (!v) throw new Error(`local ${args[0]} read before it is set`);
        return v;
      }
      case 'i64.const':
        return int(constPoly(i64Literal(args[0])));
      case 'i32.const':
        return { t: 'i32', value: Number(args[0]) };
      case 'f64.const':
        return f64(constPoly(f64Literal(args[0])));
      case 'i64.load32_u': {
        const { offset, rest } = immediates(args);
        return load(rest[0], offset);
      }
      case 'i64.load': {
        const { offset, rest } = immediates(args);
        return load(rest[0], offset);
      }
      case 'v128.load64_zero': {
        const { offset, rest } = immediates(args);
        return load(rest[0], offset);
      }
      case 'v128.load64_lane': {
        // lane 1 of the pair from the second element, lane 0 from the vector: the lanes are alike, lane 0 stands for both
        const { rest } = immediates(args);
        return evaluate(rest[2]);
      }
      case 'i64.add':
      case 'i64x2.add':
        return int(addPoly(asInt(ev(0)).p, asInt(ev(1)).p));
      case 'i64.sub':
      case 'i64x2.sub':
        return int(addPoly(asInt(ev(0)).p, asInt(ev(1)).p, -1n));
      case 'i64.mul':
        return int(mulPoly(asInt(ev(0)).p, asInt(ev(1)).p));
      case 'i64.shl':
      case 'i64x2.shl': {
        const amount = ev(1);
        const k = amount.t === 'i32' ? BigInt(amount.value) : constantOf(amount.p);
        return int(scalePoly(asInt(ev(0)).p, 1n << k));
      }
      case 'i64.shr_u':
      case 'i64x2.shr_u': {
        const v = asInt(ev(0));
        const amount = ev(1);
        const k = BigInt(amount.t === 'i32' ? amount.value : constantOf(amount.p));
        const [lo, hi] = checkShift(v, `${op} by ${k}`);
        return int(varPoly(newVar('shifted', lo < 0n ? 0n : lo >> k, (hi >= TWO64 ? TWO64 - 1n : hi) >> k)));
      }
      case 'i64.and':
      case 'v128.and': {
        const v = asInt(ev(0));
        const mask = constantOf(asInt(ev(1)).p);
        if (mask === null || (mask & (mask + 1n)) !== 0n || mask < 0n) throw new Error(`${op}: only masks 2^k - 1 here`);
        return masked(v, mask, 'masked');
      }
      case 'i64x2.splat':
      case 'f64x2.splat':
        return ev(0);
      case 'i64x2.extract_lane':
        return evaluate(args[1]);
      case 'i64x2.replace_lane': {
        const vec = evaluate(args[1]);
        const scalar = evaluate(args[2]);
        if (polyKey(vec.p) !== polyKey(scalar.p)) fail('replace_lane: the lanes are not computed alike');
        return vec;
      }
      case 'v128.or': {
        // v128.or(i, bits(2^52)) with 0 <= i < 2^52: the f64 2^52 + i
        const [a, b] = [asInt(ev(0)), asInt(ev(1))];
        const [v, c] = constantOf(b.p) !== null ? [a, constantOf(b.p)] : [b, constantOf(a.p)];
        if (c !== powBits(52)) throw new Error('v128.or: only with the bits of 2^52 here');
        const [lo, hi] = rangeOf(v.p);
        if (lo < 0n || hi >= 1n << 52n) fail(`an integer [${lo}, ${hi}] put under the bits of 2^52 does not fit 52 bits`);
        return f64(addPoly(v.p, constPoly(1n << 52n)));
      }
      case 'f64x2.add':
        return exactF64(addPoly(ev(0).p, ev(1).p), 'f64x2.add');
      case 'f64x2.sub':
        return exactF64(addPoly(ev(0).p, ev(1).p, -1n), 'f64x2.sub');
      case 'f64x2.relaxed_madd': {
        const [a, b, c] = [ev(0), ev(1), ev(2)];
        if (a.t !== 'f64' || b.t !== 'f64' || c.t !== 'f64') throw new Error('relaxed_madd on non-f64 values');
        const pair = [polyKey(a.p), polyKey(b.p)].sort().join(' x ');
        const cConst = constantOf(c.p);
        if (cConst === null) {
          // the second madd of a product: a b = ulp H + L from its split
          const split = splits.get(pair);
          if (!split) {
            fail(`relaxed_madd(${pair}, non-constant c) before the product was split`);
            return f64(constPoly(0n));
          }
          return exactF64(addPoly(addPoly(scalePoly(varPoly(split.H), split.ulp), varPoly(split.L)), c.p), 'relaxed_madd (second of a split)');
        }
        // hi = round(c + a b) with c a constant: one binade [2^e, 2^(e+1)), ulp 2^(e - 52)
        const ab = mulPoly(a.p, b.p);
        const [abLo, abHi] = rangeOf(ab);
        if (abLo < 0n || cConst <= 0n) fail(`relaxed_madd: a b ranges over [${abLo}, ${abHi}], c = ${cConst}`);
        const e = floorLog2(cConst);
        if (cConst !== 1n << BigInt(e) || cConst + abHi >= 1n << BigInt(e + 1)) fail(`relaxed_madd: c + a b leaves the binade of c = ${cConst} (a b up to ${abHi})`);
        const ulp = 1n << BigInt(e - 52);
        const H = newVar('H', (abLo + ulp / 2n) / ulp, (abHi + ulp / 2n) / ulp);
        const L = newVar('L', -(ulp / 2n), ulp / 2n);
        splits.set(pair, { ulp, H, L });
        return f64(addPoly(constPoly(cConst), scalePoly(varPoly(H), ulp)));
      }
      default:
        throw new Error(`unsupported instruction ${op}`);
    }
  };

  const [head, , ...items] = func;
  if (head !== 'func') throw new Error('not a function');
  for (const item of items) {
    if (!Array.isArray(item)) continue;
    const [op, ...args] = item;
    if (op === 'export' || op === 'result' || op === 'local') continue;
    if (op === 'param') {
      locals.set(args[0], { t: 'ptr', name: args[0] });
      continue;
    }
    statement++;
    if (op === 'local.set') {
      const value = args[1][0] === 'local.get' && locals.get(args[1][1])?.t === 'ptr' ? locals.get(args[1][1]) : evaluate(args[1]);
      locals.set(args[0], value);
    } else if (op === 'i64.store32' || op === 'i64.store' || op === 'v128.store64_lane') {
      const { rest } = immediates(args);
      evaluate(rest[rest.length - 1]);
    } else {
      throw new Error(`unsupported statement ${op}`);
    }
  }
  return { shifts, problems };
}

// ---- the shipped products and the generator over the prime matrix ----------------------------------------------

const watOf = (name, build = '') => readFileSync(new URL(`../wasm/${name}/${name}${build}.wat`, import.meta.url), 'utf8');
const paramsOf = async (name) => (await import(`../wasm/${name}/params.js`)).default;

describe('the integer build: pairs products, every shift of an i64 accumulator in [0, 2^64)', () => {
  for (const name of curveNames) {
    it(`${name}: fp_mul and fp_sqr as shipped`, async () => {
      const { field } = await paramsOf(name);
      const wat = watOf(name);
      expect(wat).toMatch(/;; mul shape: pairs,|;; products: fp_mul and fp_sqr, product scanning with pair products, then Crandall's reduction/);
      for (const fn of ['fp_mul', 'fp_sqr']) {
        const { shifts, problems } = checkBounds(funcOf(wat, fn), { limbBits: field.w });
        expect(problems, `${name} ${fn}`).toEqual([]);
        expect(shifts.length, `${name} ${fn}: carries checked`).toBeGreaterThanOrEqual(2 * field.n - 1);
      }
    });
  }

  for (const name of curveNames) {
    it(`${name}: fr_mul and fr_sqr as shipped (the scalar field's module)`, async () => {
      const { fr } = await paramsOf(name);
      const wat = watOf(name, '.fr');
      expect(wat).toMatch(/;; mul shape: pairs,/);
      for (const fn of ['fr_mul', 'fr_sqr']) {
        const { shifts, problems } = checkBounds(funcOf(wat, fn), { limbBits: fr.w });
        expect(problems, `${name} ${fn}`).toEqual([]);
        expect(shifts.length, `${name} ${fn}: carries checked`).toBeGreaterThanOrEqual(2 * fr.n - 1);
      }
    });
  }

  it('generated for the prime matrix at w = 26..31: products with one and two q limbs per step, and the square', { timeout: 300_000 }, () => {
    const primes = primeMatrix().filter((e) => e.p > 3n);
    let checked = 0;
    for (const { name, p } of primes) {
      for (const w of LIMB_SIZES.filter((x) => x <= 31)) {
        const params = deriveFieldParams({ p, w, checkPrime: false });
        if (!pairsShapeFits(params)) continue;
        for (const [square, qStep] of [[false, 1], [false, 2], [true, 1], [true, 2]]) {
          const fn = montgomeryPairs(params, { name: 'f', square, qStep });
          const { problems } = checkBounds(parse(tokenize(fn.render())), { limbBits: w });
          expect(problems, `${name} w=${w} ${square ? 'sqr' : 'mul'} qStep ${qStep}`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });
});

describe('the pseudo-Mersenne product (reduction crandall): every shift of an i64 accumulator in [0, 2^64)', () => {
  it('primes 2^k - c at w = 26..31, limb edges and large c: mul and sqr', { timeout: 300_000 }, () => {
    const primes = [(1n << 255n) - 19n, (1n << 127n) - 1n, (1n << 221n) - 3n, (1n << 192n) - 237n, (1n << 255n) - 56971n];
    for (const w of LIMB_SIZES.filter((x) => x <= 31)) for (const n of [3, 9]) primes.push(prevPrime(1n << BigInt(n * w - 2)), prevPrime(1n << BigInt((n - 1) * w + 1)));
    let checked = 0;
    for (const p of primes) {
      for (const w of LIMB_SIZES.filter((x) => x <= 31)) {
        let params;
        try {
          params = deriveFieldParams({ p, w, checkPrime: false, reduction: 'crandall' });
        } catch {
          continue; // refused: test/field-crandall.test.js
        }
        for (const square of [false, true]) {
          const { shifts, problems } = checkBounds(parse(tokenize(crandallMul(params, { name: 'f', square }).render())), { limbBits: w });
          expect(problems, `0x${p.toString(16)} w=${w} ${square ? 'sqr' : 'mul'}`).toEqual([]);
          expect(shifts.length).toBeGreaterThanOrEqual(2 * params.n);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('the FMA build: exact splits, every column in (-2^62, 2^62) + 2^62 where it is shifted', () => {
  for (const name of curveNames) {
    it(`${name}: fp_mul, fp_mul2, fp_mul4 and fp_sqr as shipped`, async () => {
      const { fma } = await paramsOf(name);
      const wat = watOf(name, '.fma');
      // the pseudo-Mersenne product (ed25519) also shifts non-negative values from 0 up, and relies on the top limb
      // of an input below 2p (test/field-crandall.test.js checks its results; here only its shifts)
      const crandall = /pseudo-Mersenne/.test(wat);
      const { p, n, w } = fma.field;
      const options = crandall
        ? { window: [0n, 1n << 63n], limbMaxAt: (offset) => (offset === 8 * (n - 1) ? (2n * p - 1n) >> BigInt((n - 1) * w) : null) }
        : { window: [1n, 1n << 63n] };
      for (const fn of ['fp_mul', 'fp_mul2', 'fp_mul4', 'fp_sqr']) {
        const { shifts, problems } = checkBounds(funcOf(wat, fn), { limbBits: fma.field.w, modular: true, ...options });
        expect(problems, `${name} ${fn}`).toEqual([]);
        expect(shifts.length, `${name} ${fn}: columns checked`).toBeGreaterThanOrEqual(2 * fma.field.n - 1);
      }
    });
  }

  it('generated for the prime matrix (W = 51 and 52, 1 to 15 limbs): one, two and four lanes and the square', { timeout: 300_000 }, () => {
    const primes = primeMatrix().filter((e) => e.p > 3n);
    const seen = new Set();
    for (const { name, p } of primes) {
      const params = deriveFieldParams({ p, kernel: 'fma', checkPrime: false });
      seen.add(params.w);
      for (const options of [{ lanes: 1 }, { lanes: 2 }, { lanes: 4 }, { lanes: 1, square: true }]) {
        const fn = fmaMontgomeryMul(params, { name: 'f', ...options });
        const { problems } = checkBounds(parse(tokenize(fn.render())), { limbBits: params.w, window: [1n, 1n << 63n], modular: true });
        expect(problems, `${name} (n = ${params.n}, W = ${params.w}) ${JSON.stringify(options)}`).toEqual([]);
      }
    }
    expect([...seen].sort()).toEqual([51, 52]);
  });
});

describe('the checker rejects what breaks the bounds', () => {
  it('pairs: a carry split removed from the shipped BLS12-381 product, inputs one bit wider, a prefix difference shifted', async () => {
    const { field } = await paramsOf('bls12-381');
    const wat = watOf('bls12-381');
    const fnStart = wat.indexOf('(func $fp_mul ');
    const text = wat.slice(fnStart, wat.indexOf('(func $fp_mulLoop '));
    const splitAt = text.indexOf(';; carry: the next block could overflow 64 bits');
    expect(splitAt, 'the shipped product splits a column').toBeGreaterThan(0);
    // the split's two statements (hi = acc >> w, acc &= mask) replaced by hi = 0: the same value, kept in acc
    const lines = text.slice(splitAt).split('\n');
    expect(lines[1]).toMatch(/^\s*\(local\.set \$hi(Next)? \(i64\.shr_u /);
    expect(lines[2]).toMatch(/^\s*\(local\.set \$acc(Next)? \(i64\.and /);
    const withoutSplit = text.slice(0, splitAt) + [lines[1].replace(/\(i64\.shr_u .*\)\)$/, '(i64.const 0))'), ...lines.slice(3)].join('\n');
    expect(withoutSplit).not.toBe(text);
    expect(checkBounds(funcOf(text, 'fp_mul'), { limbBits: field.w }).problems).toEqual([]);
    const dropped = checkBounds(funcOf(withoutSplit, 'fp_mul'), { limbBits: field.w }).problems;
    expect(dropped.some((m) => /outside \[0, 2\^64\)/.test(m)), dropped.join('\n')).toBe(true);
    // the claim "limbs below 2^w" made one bit weaker
    const wider = checkBounds(funcOf(text, 'fp_mul'), { limbBits: field.w + 1 }).problems;
    expect(wider.some((m) => /outside \[0, 2\^64\)/.test(m))).toBe(true);
    // a block whose prefix difference no longer matches its pairs: signed terms left over
    const shifted = text.replace(/\(i64\.sub \(local\.get \$PD(\d+)\) \(local\.get \$PD(\d+)\)\)/, (_, a, b) => `(i64.sub (local.get $PD${a}) (local.get $PD${Number(b) + 1}))`);
    expect(shifted).not.toBe(text);
    const broken = checkBounds(funcOf(shifted, 'fp_mul'), { limbBits: field.w }).problems;
    expect(broken.some((m) => /ranges over \[-\d+, \d+\], outside \[0, 2\^64\)/.test(m)), broken.join('\n')).toBe(true);
  });

  it('FMA: a column without its 2^62 offset, a narrower column window, limbs wider than W', async () => {
    const { fma } = await paramsOf('bn254');
    const wat = watOf('bn254', '.fma');
    const text = wat.slice(wat.indexOf('(func $fp_mul '), wat.indexOf('(func $fp_mul2 '));
    const W = fma.field.w;
    const ok = checkBounds(funcOf(text, 'fp_mul'), { limbBits: W, window: [1n, 1n << 63n], modular: true });
    expect(ok.problems).toEqual([]);
    // the init of column 2 without its 2^62 offset: the column's true value can be negative, the logical shift is wrong
    const init = /\(local\.set \$a2_0 \(i64x2\.add \(i64x2\.splat \(i64\.const (0x[0-9a-f]+)\)\)/.exec(text);
    expect(init).not.toBeNull();
    const noOffset = text.replace(init[0], init[0].replace(init[1], `0x${BigInt.asUintN(64, BigInt(init[1]) - (1n << 62n)).toString(16)}`));
    const offsetProblems = checkBounds(funcOf(noOffset, 'fp_mul'), { limbBits: W, modular: true }).problems;
    expect(offsetProblems.some((m) => /outside \[0, 2\^64\)/.test(m)), offsetProblems.join('\n')).toBe(true);
    // the claimed window cut to (-2^53, 2^53) around the offset: the columns need more (up to about 2^56)
    const narrow = checkBounds(funcOf(text, 'fp_mul'), { limbBits: W, window: [(1n << 62n) - (1n << 53n), (1n << 62n) + (1n << 53n)], modular: true }).problems;
    expect(narrow.some((m) => /outside the claimed/.test(m))).toBe(true);
    // limbs claimed one bit wider: the limb products leave the binade of C, the split is no longer exact
    const wide = checkBounds(funcOf(text, 'fp_mul'), { limbBits: W + 1, window: [1n, 1n << 63n], modular: true }).problems;
    expect(wide.some((m) => /leaves the binade|not an exact f64|does not fit 52 bits/.test(m)), wide.slice(0, 3).join('\n')).toBe(true);
  });
});
