// Montgomery multiplication and squaring, operand-scanning with the generation-time carry plan
// (codegen/params/carry-plan.js). Two shapes: the outer step in a Wasm `loop` (the blueprint found this
// faster on V8) or fully unrolled; both run the same proven step.

import { Func, i32, i64, local, loop, br_if, comment } from '../wat/index.js';
import { loadLimb, storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';


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
  } else throw new Error(`unknown mul shape ${shape}`);
  body.push(normalizeAndStore(fn, params));
  fn.push(...body);
  return fn;
}

const U64_MAX = (1n << 64n) - 1n;

/** Beyond this many limbs, straight-line kernels grow past what engines optimise well: use the loop. */
export const MAX_UNROLLED_LIMBS = 16;

/** 'auto' picks the unrolled product for up to MAX_UNROLLED_LIMBS limbs, the loop beyond. */
export const resolveMulShape = (params, shape) => (shape === 'auto' ? (params.n <= MAX_UNROLLED_LIMBS ? 'unrolled' : 'loop') : shape);

/** The dedicated square needs a doubled cross product to fit 64 bits (w <= 31) and a modest n. */
const sqrIsUnrolled = ({ n, limbMax }) => n <= MAX_UNROLLED_LIMBS && 2n * limbMax * limbMax <= U64_MAX - limbMax;

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

/** a + b + c + ... as a balanced tree of i64.add: depth log2(k) instead of k - 1. */
function balancedSum(exprs) {
  if (exprs.length === 1) return exprs[0];
  const mid = exprs.length >> 1;
  return i64.add(balancedSum(exprs.slice(0, mid)), balancedSum(exprs.slice(mid)));
}

/**
 * Squaring, product-scanning: column k of x^2 needs each cross product x_i x_j (i < j) once, summed in groups
 * that can be doubled within 64 bits, so a square costs n(n+1)/2 limb products instead of n^2 before the
 * reduction's n^2 + n. Every column is a balanced tree of adds (short dependency chains).
 * The reduction q_k = (column * mu) mod 2^w is folded into the same columns. Column sums are tracked
 * with exact bounds; a carry into `hi` is placed wherever one more term could overflow 64 bits.
 */
export function montgomerySqr(params, { name = 'sqr', exportName = name, mulName = 'mul' } = {}) {
  if (!sqrIsUnrolled(params)) return sqrThroughMul(params, { name, exportName, mulName });
  const { n, w, mu, pLimbs, limbMax } = params;
  const W = BigInt(w);
  const mask = limbMax;
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']],
    exportName,
    doc: `${name}(out, x): out = x^2 / R mod p. Input in [0, 2p), output in [0, 2p). out may alias x.
Product scanning with ${(n * (n + 1)) / 2} + ${n * n + n} limb products (a product costs ${2 * n * n + n}).`,
  });
  const body = [comment('x_j in locals')];
  for (let j = 0; j < n; j++) body.push(local.set(fn.local(`x${j}`), loadLimb('x', j)));
  fn.local('acc');
  fn.local('hi');
  let accBound = 0n;
  let hiBound = null; // null: hi holds nothing for this column
  let pending = []; // terms not yet added into acc: summed as a balanced tree so adds run in parallel
  const terms = [];
  const flush = () => {
    if (pending.length) body.push(local.set('acc', balancedSum(pending)));
    pending = [];
  };
  const addTerm = (expr, bound, note) => {
    if (bound > U64_MAX - mask) throw new Error(`sqr: one term (${note}) does not fit a 64-bit accumulator for w = ${w}`);
    if (accBound + bound > U64_MAX) {
      flush();
      body.push(comment('carry: the next term could overflow 64 bits'));
      const c = i64.shr_u(local.get('acc'), shiftConst(w));
      body.push(local.set('hi', hiBound === null ? c : i64.add(local.get('hi'), c)));
      body.push(local.set('acc', i64.and(local.get('acc'), maskConst(w))));
      hiBound = (hiBound ?? 0n) + (accBound >> W);
      accBound = mask;
      pending = [local.get('acc')];
    }
    pending.push(expr);
    accBound += bound;
    terms.push(note);
  };
  for (let k = 0; k <= 2 * n - 2; k++) {
    terms.length = 0;
    const columnStart = body.length;
    if (k > 0) {
      pending = [local.get('acc')];
      terms.push('carry');
    }
    // Cross products x_i x_j (i < j) are summed in groups small enough to double in 64 bits, then doubled.
    let group = [];
    let groupBound = 0n;
    let groupNote = [];
    const flushGroup = () => {
      if (group.length) addTerm(i64.shl(balancedSum(group), i64.const(1)), 2n * groupBound, `2 (${groupNote.join(' + ')})`);
      group = [];
      groupBound = 0n;
      groupNote = [];
    };
    for (let i = Math.max(0, k - n + 1); i < k - i; i++) {
      if (2n * (groupBound + mask * mask) > U64_MAX) flushGroup();
      group.push(i64.mul(local.get(`x${i}`), local.get(`x${k - i}`)));
      groupBound += mask * mask;
      groupNote.push(`x_${i} x_${k - i}`);
    }
    flushGroup();
    if (k % 2 === 0) addTerm(i64.mul(local.get(`x${k / 2}`), local.get(`x${k / 2}`)), mask * mask, `x_${k / 2}^2`);
    for (let i = Math.max(0, k - n + 1); i <= Math.min(k - 1, n - 1); i++) {
      if (pLimbs[k - i] !== 0n) addTerm(i64.mul(local.get(`q${i}`), limbConst(pLimbs[k - i])), mask * pLimbs[k - i], `q_${i} p_${k - i}`);
    }
    if (k < n) {
      flush();
      body.push(comment(`q_${k} = (column * mu) mod 2^${w}: clears the low ${w} bits`));
      body.push(local.set(fn.local(`q${k}`), i64.and(i64.mul(local.get('acc'), i64.const(mu)), maskConst(w))));
      pending = [local.get('acc')];
      addTerm(i64.mul(local.get(`q${k}`), limbConst(pLimbs[0])), mask * pLimbs[0], `q_${k} p_0`);
      flush();
    } else {
      flush();
      body.push(storeLimb('out', k - n, i64.and(local.get('acc'), maskConst(w))));
    }
    body.splice(columnStart, 0, comment(`column ${k}: ${terms.join(' + ')}`));
    const c = i64.shr_u(local.get('acc'), shiftConst(w));
    body.push(local.set('acc', hiBound === null ? c : i64.add(c, local.get('hi'))));
    accBound = (accBound >> W) + (hiBound ?? 0n);
    hiBound = null;
  }
  body.push(comment('the value is < 2p < R, so the last carry is the top limb'));
  body.push(storeLimb('out', n - 1, local.get('acc')));
  fn.push(...body);
  return fn;
}

