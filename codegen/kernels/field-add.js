// Additive kernels and comparisons. Ranges are in each function's doc; all take w-bit limbs in memory.
// Conditional corrections are branch-free: a borrow travels as 0 / -1 and masks the correction.

import { Func, i32, i64, local, comment } from '../wat/index.js';
import { limbAccess, limbConst, limbTerms, chain } from './limbs.js';
import { toLimbs } from '../params/field.js';

const ptrParams = (...names) => names.map((n) => [n, 'i32']);

/**
 * out = z + (m & borrowMask), where borrowMask is 0 or -1 (all ones): adds m back when the last step went negative.
 * Locals are named after `tag` (the prefix of an inlined body, '' in the kernel itself).
 */
function addMaskedAndStore(fn, params, src, limbsOfM, maskLocal, tag = '', out = 'out') {
  const { n, w } = params;
  const T = limbTerms(params);
  // The sum may carry past the top limb exactly when the borrow is undone (that carry is R): mask it off.
  return chain(fn, {
    n, w, dst: `${tag}r`, keepTopCarry: true, carry: `${tag}carry`,
    term: (j) => (limbsOfM[j] === 0n ? local.get(`${src}${j}`) : T.add(local.get(`${src}${j}`), i64.and(limbConst(limbsOfM[j]), local.get(maskLocal)))),
  }).concat(storeLocals(params, `${tag}r`, out));
}

function storeLocals(params, src, out = 'out') {
  const { store } = limbAccess(params);
  return Array.from({ length: params.n }, (_, j) => store(out, j, local.get(`${src}${j}`)));
}

/** z = x + y (no reduction): the shared first half of add and addNoReduce. */
const sumChain = (fn, p, a = 'x', b = 'y') =>
  chain(fn, { ...p, dst: 'z', term: (j) => limbTerms(p).add(limbAccess(p).load(a, j), limbAccess(p).load(b, j)) });

/** d = z - m with the borrow kept in `carry` (0 or -1). */
const subConstChain = (fn, p, src, m) =>
  chain(fn, { ...p, dst: 'd', signed: true, keepTopCarry: true, term: (j) => limbTerms(p).sub(local.get(`${src}${j}`), limbConst(m[j])) });

export function fieldAdd(params, { name = 'add' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x', 'y'), exportName: name,
    doc: `${name}(out, x, y): out = x + y mod p. Inputs in [0, 2p), output in [0, 2p). out may alias x or y.`,
  });
  fn.push(comment('z = x + y < 4p < R'), sumChain(fn, params));
  fn.push(comment('d = z - 2p; if that borrowed, add 2p back (branch-free)'), subConstChain(fn, params, 'z', params.twoPLimbs));
  fn.push(local.set(fn.local('m'), local.get('carry')), addMaskedAndStore(fn, params, 'd', params.twoPLimbs, 'm'));
  return fn;
}

export function fieldAddNoReduce(params, { name = 'addNoReduce' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x', 'y'), exportName: name,
    doc: `${name}(out, x, y): out = x + y as integers. Inputs in [0, p), output in [0, 2p). out may alias x or y.`,
  });
  fn.push(sumChain(fn, params), storeLocals(params, 'z'));
  return fn;
}

/** out = x - y, plus m when it went negative (x, y, out: pointer locals; the other locals named after `tag`). */
function subThenMaskAdd(fn, params, m, { x = 'x', y = 'y', out = 'out', tag = '' } = {}) {
  const { load } = limbAccess(params);
  const T = limbTerms(params);
  return [
    chain(fn, { ...params, dst: `${tag}d`, carry: `${tag}carry`, signed: true, keepTopCarry: true, term: (j) => T.sub(load(x, j), load(y, j)) }),
    local.set(fn.local(`${tag}m`), local.get(`${tag}carry`)),
    addMaskedAndStore(fn, params, `${tag}d`, m, `${tag}m`, tag, out),
  ];
}

export function fieldSub(params, { name = 'sub' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x', 'y'), exportName: name,
    doc: `${name}(out, x, y): out = x - y mod p. Inputs in [0, 2p), output in [0, 2p). out may alias x or y.`,
  });
  fn.push(comment('d = x - y in (-2p, 2p); add 2p when negative'), subThenMaskAdd(fn, params, params.twoPLimbs));
  return fn;
}

/**
 * fieldSub and fieldNeg written into the body of `fn` instead of called, with subLazy and isZeroLazy, which have no
 * kernel of their own: each takes i32 address expressions and returns statements (sub and neg: the kernels' ranges;
 * out may alias x or y). The locals start with `tag`. For the batch-affine addition (codegen/kernels/curve.js): there
 * the differences that only feed products skip their reduction, and written in they measured faster than as calls
 * (bench/README.md, "Unreduced differences in the batch-affine addition").
 */
export function inlineAdditive(fn, params, tag = 'f_') {
  const pointers = (values) => Object.entries(values).map(([name, value]) => local.set(fn.local(`${tag}${name}`, 'i32'), value));
  const names = { x: `${tag}x`, y: `${tag}y`, out: `${tag}out`, tag };
  const { load } = limbAccess(params);
  const T = limbTerms(params);
  return {
    sub: (out, x, y) => [...pointers({ out, x, y }), subThenMaskAdd(fn, params, params.twoPLimbs, names)],
    neg: (out, x) => [...pointers({ out, x }), negBody(fn, params, names)],
    /** out = x - y + 2p as integers, in (0, 4p): no correction, for a product's first operand where lazyOperandFits */
    subLazy: (out, x, y) => [
      ...pointers({ out, x, y }),
      chain(fn, { ...params, dst: `${tag}d`, carry: `${tag}carry`, signed: true, term: (j) => T.add(T.sub(load(names.x, j), load(names.y, j)), limbConst(params.twoPLimbs[j])) }),
      storeLocals(params, `${tag}d`, names.out),
    ],
    /** the i32 local `result` = 1 if x in (0, 4p), as subLazy writes it, is 0 mod p (x is p, 2p or 3p), else 0 */
    isZeroLazy: (result, x) => [
      ...pointers({ x }),
      ...Array.from({ length: params.n }, (_, j) => local.set(fn.local(`${tag}d${j}`), load(names.x, j))),
      local.set(result, i32.or(i32.or(equalsConst(params, `${tag}d`, params.pLimbs), equalsConst(params, `${tag}d`, params.twoPLimbs)), equalsConst(params, `${tag}d`, threePLimbs(params)))),
    ],
  };
}

/**
 * Whether a Montgomery product may take an unreduced x in (0, 4p) (inlineAdditive's subLazy) as its first operand,
 * with the second in [0, 2p), and still give [0, 2p): its result is t = (x y + q p) / R < x y / R + p < 8p^2 / R + p,
 * below 2p when 8p < R. The products' accumulators are bounded for any first operand of w-bit limbs (the integer
 * kernel's carry plan takes xMax = 2^w - 1, test/bounds.test.js; the FMA kernel's columns assume every limb below 2^W).
 */
export const lazyOperandFits = (params) => (params.kernel === 'int' || params.kernel === 'fma') && params.reduction !== 'crandall' && 8n * params.p < params.R;

const threePLimbs = (params) => toLimbs(3n * params.p, params.w, params.n);

/** 1 when the locals prefix0.. hold the limbs of the constant (a zero limb is compared as itself, without an xor). */
function equalsConst(params, prefix, limbs) {
  let differs = null;
  for (let j = 0; j < params.n; j++) {
    const x = limbs[j] === 0n ? local.get(`${prefix}${j}`) : i64.xor(local.get(`${prefix}${j}`), limbConst(limbs[j]));
    differs = differs === null ? x : i64.or(differs, x);
  }
  return i64.eqz(differs);
}

export function fieldSubNoReduce(params, { name = 'subNoReduce' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x', 'y'), exportName: name,
    doc: `${name}(out, x, y): out = x - y + p as integers. Inputs in [0, p), output in (0, 2p). out may alias x or y.`,
  });
  const { load } = limbAccess(params);
  const T = limbTerms(params);
  fn.push(chain(fn, { ...params, dst: 'z', signed: true, term: (j) => T.sub(T.add(load('x', j), limbConst(params.pLimbs[j])), load('y', j)) }));
  fn.push(storeLocals(params, 'z'));
  return fn;
}

export function fieldNeg(params, { name = 'neg' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x'), exportName: name,
    doc: `${name}(out, x): out = -x mod p. Input in [0, 2p), output in [0, 2p) (0 maps to 0). out may alias x.`,
  });
  fn.push(comment('d = 0 - x; add 2p unless x = 0'), negBody(fn, params));
  return fn;
}

function negBody(fn, params, { x = 'x', out = 'out', tag = '' } = {}) {
  const T = limbTerms(params);
  return [
    chain(fn, { ...params, dst: `${tag}d`, carry: `${tag}carry`, signed: true, keepTopCarry: true, term: (j) => T.sub(i64.const(0), limbAccess(params).load(x, j)) }),
    local.set(fn.local(`${tag}m`), local.get(`${tag}carry`)),
    addMaskedAndStore(fn, params, `${tag}d`, params.twoPLimbs, `${tag}m`, tag, out),
  ];
}

export function fieldReduce(params, { name = 'reduce' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x'), exportName: name,
    doc: `${name}(out, x): out = x mod p, canonical. Input in [0, 2p), output in [0, p). out may alias x.`,
  });
  fn.push(chain(fn, { ...params, dst: 'z', term: (j) => limbAccess(params).load('x', j) }));
  fn.push(comment('d = x - p; add p back when that borrowed'), subConstChain(fn, params, 'z', params.pLimbs));
  fn.push(local.set(fn.local('m'), local.get('carry')), addMaskedAndStore(fn, params, 'd', params.pLimbs, 'm'));
  return fn;
}

/** 1 when the locals prefix0.. hold 0 or p (the two representatives of zero in [0, 2p)). */
const isZeroExpr = (params, prefix) => i32.or(equalsConst(params, prefix, params.pLimbs.map(() => 0n)), equalsConst(params, prefix, params.pLimbs));

export function fieldIsZero(params, { name = 'isZero' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('x'), result: 'i32', exportName: name,
    doc: `${name}(x): 1 if x = 0 mod p, else 0. Input in [0, 2p).`,
  });
  for (let j = 0; j < params.n; j++) fn.push(local.set(fn.local(`z${j}`), limbAccess(params).load('x', j)));
  fn.push(isZeroExpr(params, 'z'));
  return fn;
}

export function fieldEq(params, { name = 'eq' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('x', 'y'), result: 'i32', exportName: name,
    doc: `${name}(x, y): 1 if x = y mod p, else 0. Inputs in [0, 2p).`,
  });
  fn.push(comment('x - y lies in (-2p, 2p); it is 0 mod p exactly when it is -p, 0 or p'));
  const { load } = limbAccess(params);
  const T = limbTerms(params);
  fn.push(chain(fn, { ...params, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(load('x', j), load('y', j)) }));
  fn.push(comment('fold -p into p by adding 2p when negative'));
  fn.push(local.set(fn.local('m'), local.get('carry')));
  fn.push(chain(fn, { ...params, dst: 'z', keepTopCarry: true, term: (j) => T.add(local.get(`d${j}`), i64.and(limbConst(params.twoPLimbs[j]), local.get('m'))) }));
  fn.push(isZeroExpr(params, 'z'));
  return fn;
}

export function fieldCopy(params, { name = 'copy' } = {}) {
  const fn = new Func(name, {
    params: ptrParams('out', 'x'), exportName: name,
    doc: `${name}(out, x): out = x (${params.elementBytes} bytes).`,
  });
  fn.push(limbAccess(params).copy('out', 'x'));
  return fn;
}

/** Writes a constant element (limbs given) to out. */
export function fieldSetConst(params, { name, limbs, doc }) {
  const fn = new Func(name, { params: ptrParams('out'), exportName: name, doc });
  fn.push(limbAccess(params).setConst('out', limbs));
  return fn;
}

