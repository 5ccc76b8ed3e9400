// Montgomery multiplication and squaring, operand-scanning with the generation-time carry plan
// (codegen/params/carry-plan.js). Two shapes: the outer step in a Wasm `loop` (the blueprint found this
// faster on V8) or fully unrolled; both run the same proven step.

import { Func, i32, i64, local, loop, br_if, comment } from '../wat/index.js';
import { loadLimb, storeLimb, maskConst, shiftConst, limbConst } from './limbs.js';

const hex = (x) => '0x' + BigInt(x).toString(16);

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

export function montgomeryMul(params, { name = 'mul', shape = 'loop', exportName = name } = {}) {
  const { n } = params;
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

/** Squaring through the product kernel: one definition of the carry plan to trust. */
export function montgomerySqr(params, { name = 'sqr', mulName = 'mul', exportName = name } = {}) {
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']],
    exportName,
    doc: `${name}(out, x): out = x^2 / R mod p. Input in [0, 2p), output in [0, 2p). out may alias x.`,
  });
  fn.push(`(call $${mulName} (local.get $out) (local.get $x) (local.get $x))`);
  return fn;
}

export { hex };
