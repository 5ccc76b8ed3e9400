// Montgomery multiplication and squaring. Three shapes of the product:
// - `pairs` (codegen/kernels/field-mul-pairs.js): product scanning, one limb product per pair of limbs;
//   the default wherever it fits (w <= 31, n <= 16), and the square for those sizes;
// - `unrolled` and `loop`: operand scanning with the generation-time carry plan
//   (codegen/params/carry-plan.js), fully unrolled or with the outer step in a Wasm `loop` (the blueprint
//   found the loop faster on V8; here it is not). They cover w = 32 and large n, and cross-check `pairs`.

import { Func, i32, i64, local, loop, br_if, comment } from '../wat/index.js';
import { loadLimb, storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';
import { montgomeryPairs, pairsShapeFits, countLimbProducts, MAX_UNROLLED_LIMBS } from './field-mul-pairs.js';

export { MAX_UNROLLED_LIMBS };


/**
 * Statements for one outer step: S = (S + x_i*y + q_i*p) / 2^w, where `xi` is the local holding x_i.
 * `firstStep` lets the unrolled shape drop the S terms, which are still zero.
 */
function montgomeryStep(fn, params, { firstStep = false, stepNote = 'i' } = {}) {
  const { n, w, mu, pLimbs, carryPlan } = params;
  const out = [];
  const carryLocal = (j) => fn.local(`c${j % 2}`);
  const t = fn.local('t');
  fn.local('q');
  const S = (j) => fn.local(`S${j}`);
  const termExpr = (name, j) => {
    if (name === 'S') return local.get(S(j));
    if (name === 'xy') return i64.mul(local.get('xi'), local.get(`y${j}`));
    if (name === 'qp') return pLimbs[j] === 0n ? null : i64.mul(local.get('q'), limbConst(pLimbs[j]));
    if (name === 'carry') return local.get(carryLocal(j - 1));
    throw new Error(name);
  };
  for (let j = 0; j < n; j++) {
    const column = carryPlan.columns[j];
    const columnStart = out.length;
    let acc = null; // pending folded sum not yet written to t
    let carryStarted = false;
    const notes = [];
    const flush = () => {
      if (acc !== null) out.push(local.set(t, acc));
      acc = null;
    };
    const split = () => {
      flush();
      const hi = i64.shr_u(local.get(t), shiftConst(w));
      out.push(local.set(carryLocal(j), carryStarted ? i64.add(local.get(carryLocal(j)), hi) : hi));
      out.push(local.set(t, i64.and(local.get(t), maskConst(w))));
      carryStarted = true;
      acc = local.get(t);
    };
    for (const name of column.ops) {
      if (name === 'split') {
        notes.push('carry');
        split();
        continue;
      }
      if (name === 'S' && firstStep) continue;
      if (j === 0 && name === 'qp') {
        flush();
        out.push(comment(`q_${stepNote} = (t * mu) mod 2^${w}, so that t + q_${stepNote}*p_0 = 0 mod 2^${w} (mu = ${mu})`));
        out.push(local.set('q', i64.and(i64.mul(local.get(t), i64.const(mu)), maskConst(w))));
        acc = local.get(t);
      }
      const e = termExpr(name, j);
      if (e === null) continue;
      notes.push({ S: `S_${j}`, xy: `x_${stepNote}*y_${j}`, qp: `q_${stepNote}*p_${j}`, carry: 'carry' }[name]);
      acc = acc === null ? e : i64.add(acc, e);
    }
    if (acc === null) acc = i64.const(0);
    const target = j === 0 ? 't' : `S_${j - 1}`;
    out.splice(columnStart, 0, comment(`column ${j}: ${target} = ${notes.join(' + ')}${column.endSplit ? ', carry out' : ''}`));
    if (j === 0) {
      flush();
      const hi = i64.shr_u(local.get(t), shiftConst(w));
      out.push(local.set(carryLocal(0), carryStarted ? i64.add(local.get(carryLocal(0)), hi) : hi));
      // With a single limb, column 0 is also the last: its carry is the new S_0.
      if (n === 1) out.push(local.set(S(0), local.get(carryLocal(0))));
      continue;
    }
    if (column.endSplit) {
      flush();
      const hi = i64.shr_u(local.get(t), shiftConst(w));
      out.push(local.set(carryLocal(j), carryStarted ? i64.add(local.get(carryLocal(j)), hi) : hi));
      out.push(local.set(S(j - 1), i64.and(local.get(t), maskConst(w))));
      carryStarted = true;
    } else {
      out.push(local.set(S(j - 1), acc));
    }
    if (j === n - 1) {
      out.push(local.set(S(n - 1), carryStarted ? local.get(carryLocal(j)) : i64.const(0)));
    }
  }
  return out;
}

/** Closing carry pass: S back to w-bit limbs, stored at out. The value is < 2p < R, so no carry leaves the top. */
function normalizeAndStore(fn, params) {
  const { n, w } = params;
  const out = [comment('normalize: propagate the lazy carries so every limb has w bits, then store')];
  fn.local('t');
  fn.local('c0');
  for (let j = 0; j < n; j++) {
    const sum = j === 0 ? local.get(`S${j}`) : i64.add(local.get(`S${j}`), local.get('c0'));
    if (j === n - 1) {
      out.push(storeLimb('out', j, sum));
    } else {
      out.push(local.set('t', sum));
      out.push(local.set('c0', i64.shr_u(local.get('t'), shiftConst(w))));
      out.push(storeLimb('out', j, i64.and(local.get('t'), maskConst(w))));
    }
  }
  return out;
}

const DOC_MUL = (name, shape) => `${name}(out, x, y): out = x * y / R mod p (Montgomery product), ${shape}.
Inputs in [0, 2p), output in [0, 2p) (holds because 4p < R). out may alias x or y.`;

export function montgomeryMul(params, { name = 'mul', shape = 'auto', exportName = name } = {}) {
  const { n } = params;
  shape = resolveMulShape(params, shape);
  if (shape === 'pairs') return montgomeryPairs(params, { name, exportName });
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32'], ['y', 'i32']],
    exportName,
    doc: DOC_MUL(name, shape === 'loop' ? 'outer step in a loop' : 'fully unrolled') +
      `\nCarry plan: ${params.carryPlan.summary}.`,
  });
  fn.local('xi');
  for (let j = 0; j < n; j++) fn.local(`S${j}`);
  const body = [comment('y_j stay in locals for the whole product')];
  for (let j = 0; j < n; j++) body.push(local.set(fn.local(`y${j}`), loadLimb('y', j)));
  if (shape === 'loop') {
    fn.local('xEnd', 'i32');
    body.push(local.set('xEnd', i32.add(local.get('x'), i32.const(4 * n))));
    body.push(
      loop('outer', [
        comment('one outer step per limb x_i of x: S = (S + x_i*y + q_i*p) / 2^w'),
        local.set('xi', i64.load32_u(local.get('x'))),
        montgomeryStep(fn, params),
        local.set('x', i32.add(local.get('x'), i32.const(4))),
        br_if('outer', i32.ne(local.get('x'), local.get('xEnd'))),
      ]),
    );
  } else if (shape === 'unrolled') {
    for (let i = 0; i < n; i++) {
      body.push(comment(`outer step ${i}: S = (S + x_${i}*y + q_${i}*p) / 2^w`));
      body.push(local.set('xi', loadLimb('x', i)));
      body.push(montgomeryStep(fn, params, { firstStep: i === 0, stepNote: String(i) }));
    }
  }
  body.push(normalizeAndStore(fn, params));
  fn.push(...body);
  return fn;
}

export const MUL_SHAPES = Object.freeze(['pairs', 'unrolled', 'loop']);

/**
 * 'auto' picks the pairs product where it fits (w <= 31, n <= 16; measured fastest, bench/README.md), else the
 * unrolled operand-scanning product up to MAX_UNROLLED_LIMBS limbs, else the loop.
 */
export function resolveMulShape(params, shape) {
  if (shape === 'auto') return pairsShapeFits(params) ? 'pairs' : params.n <= MAX_UNROLLED_LIMBS ? 'unrolled' : 'loop';
  if (!MUL_SHAPES.includes(shape)) throw new Error(`unknown mul shape ${JSON.stringify(shape)} (choose auto, ${MUL_SHAPES.join(', ')})`);
  if (shape === 'pairs' && !pairsShapeFits(params)) {
    throw new RangeError(`mul shape pairs needs w <= 31 and n <= ${MAX_UNROLLED_LIMBS} limbs (w = ${params.w}, n = ${params.n})`);
  }
  return shape;
}

/** i64.mul executed per Montgomery product of the given shape (the loop runs its step n times). */
export function limbProductsPerMul(params, shape) {
  shape = resolveMulShape(params, shape);
  return countLimbProducts(montgomeryMul(params, { shape })) * (shape === 'loop' ? params.n : 1);
}

function sqrThroughMul(params, { name, exportName, mulName }) {
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']],
    exportName,
    doc: `${name}(out, x): out = x^2 / R mod p through ${mulName} (w = ${params.w}, n = ${params.n}: no dedicated square).
Input in [0, 2p), output in [0, 2p). out may alias x.`,
  });
  fn.push(`(call $${mulName} (local.get $out) (local.get $x) (local.get $x))`);
  return fn;
}

/**
 * Squaring: the pairs kernel with doubled cross products, n(n+1)/2 limb products for x^2, where it fits
 * (w <= 31: a doubled cross product must fit 64 bits); otherwise a call to mul.
 */
export function montgomerySqr(params, { name = 'sqr', exportName = name, mulName = 'mul' } = {}) {
  if (!pairsShapeFits(params)) return sqrThroughMul(params, { name, exportName, mulName });
  return montgomeryPairs(params, { name, exportName, square: true });
}
