// Kernels of F_p2 = F_p[u] / (u^2 - beta), built on the base field's functions (prefix fp) for any prime and
// any small non-residue beta. An element is c0 | c1 (c0 + c1 u), each a base-field element of E bytes, so
// 2E bytes; Montgomery form and the range [0, 2p) per component, as the base field's kernels take and give.
// Every kernel may be called with out aliasing an input: products are formed in stack temporaries first.
//
// Counts per operation (M = base-field product): mul 3M (Karatsuba), sqr 2M (complex method), inv 2M + 1
// base inverse + 2M (through the norm). beta is applied with additions: |beta| <= 16 (deriveG2Params).

import { Func, i32, local, comment, op } from '../wat/index.js';
import { elementSlots } from './scratch.js';

const call = (name, ...args) => op(`call $${name}`, ...args);

/** Small-integer multiples by additions: out = k * x (k >= 1, out != x). */
function scaleBy(fp, k, out, x) {
  const bits = k.toString(2);
  const body = [call(fp('copy'), out, x)];
  for (let i = 1; i < bits.length; i++) {
    body.push(call(fp('add'), out, out, out));
    if (bits[i] === '1') body.push(call(fp('add'), out, out, x));
  }
  return body;
}

/**
 * @param fieldParams the base field's (from deriveFieldParams)
 * @param options.fp the base field's name function; options.prefix the names of these kernels ('fp2')
 * @param options.nonResidue beta (BigInt, small, a non-residue mod p)
 * @param options.batched the base field has mul2 / mul4 (the FMA build): the independent base products of mul, sqr,
 *   norm and conjScale go in one call
 * @returns [Func] with names prefix_add, _sub, _neg, _reduce, _copy, _setZero, _setOne, _isZero, _eq, _mul, _sqr,
 *   _norm, _conjScale, _inv, _toMontgomery, _fromMontgomery, _fromBytes, _toBytes
 */
export function fp2Kernels(fieldParams, { fp, prefix = 'fp2', nonResidue, batched = false }) {
  const E = fieldParams.elementBytes;
  const B = fieldParams.bytes;
  const beta = BigInt(nonResidue);
  const k = Number(beta < 0n ? -beta : beta);
  const f2 = (name) => `${prefix}_${name}`;
  const c0 = (p) => local.get(p);
  const c1 = (p) => i32.add(local.get(p), i32.const(E));
  const { reserve, release, slot } = elementSlots(E);
  const funcs = [];
  const kernel = (name, params, doc, body, { result, locals = [] } = {}) => {
    const fn = new Func(f2(name), { params: params.map((p) => [p, 'i32']), result, exportName: f2(name), doc: `${f2(name)}(${params.join(', ')}): ${doc}` });
    for (const l of locals) fn.local(l, 'i32');
    fn.push(...body);
    funcs.push(fn);
  };
  const componentwise = (name, baseName, params, doc) =>
    kernel(name, params, doc, [
      call(fp(baseName), ...params.map((p) => c0(p))),
      call(fp(baseName), ...params.map((p) => c1(p))),
    ]);

  componentwise('add', 'add', ['out', 'x', 'y'], 'out = x + y. Components in [0, 2p) in and out.');
  componentwise('sub', 'sub', ['out', 'x', 'y'], 'out = x - y. Components in [0, 2p) in and out.');
  componentwise('neg', 'neg', ['out', 'x'], 'out = -x.');
  componentwise('reduce', 'reduce', ['out', 'x'], 'out = x with canonical components [0, p).');
  componentwise('copy', 'copy', ['out', 'x'], `out = x (${2 * E} bytes).`);
  componentwise('setZero', 'setZero', ['out'], 'out = 0.');
  componentwise('toMontgomery', 'toMontgomery', ['out', 'x'], 'both components to Montgomery form.');
  componentwise('fromMontgomery', 'fromMontgomery', ['out', 'x'], 'both components from Montgomery form, canonical.');
  kernel('setOne', ['out'], 'out = 1 (c0 = R mod p, c1 = 0).', [call(fp('setOne'), c0('out')), call(fp('setZero'), c1('out'))]);
  kernel('isZero', ['x'], '1 if x = 0, else 0.', [i32.and(call(fp('isZero'), c0('x')), call(fp('isZero'), c1('x')))], { result: 'i32' });
  kernel('eq', ['x', 'y'], '1 if x = y, else 0.', [i32.and(call(fp('eq'), c0('x'), c0('y')), call(fp('eq'), c1('x'), c1('y')))], { result: 'i32' });
  kernel('fromBytes', ['out', 'src'], `c0 | c1 from ${B}-byte little-endian integers each (normal form, not converted).
Returns 1 when both are < p, else 0.`,
  [i32.and(call(fp('fromBytes'), c0('out'), local.get('src')), call(fp('fromBytes'), c1('out'), i32.add(local.get('src'), i32.const(B))))], { result: 'i32' });
  kernel('toBytes', ['dst', 'x'], `c0 | c1 as ${B}-byte little-endian integers (x canonical, normal form).`,
    [call(fp('toBytes'), local.get('dst'), c0('x')), call(fp('toBytes'), i32.add(local.get('dst'), i32.const(B)), c1('x'))]);

  // beta * t added to (sign +1) or subtracted from (sign -1) acc, t kept: `tmp` holds |beta| t when |beta| > 1.
  const addBetaTimes = (acc, t, tmp, sign) => {
    const add = (beta > 0n) === (sign > 0) ? 'add' : 'sub';
    if (k === 1) return [call(fp(add), acc, acc, t)];
    return [...scaleBy(fp, k, tmp, t), call(fp(add), acc, acc, tmp)];
  };

  kernel('mul', ['out', 'x', 'y'], `out = x y, Karatsuba: t0 = x0 y0, t1 = x1 y1,
c0 = t0 + beta t1, c1 = (x0 + x1)(y0 + y1) - t0 - t1 (beta = ${beta}). 3 base products.`, [
    reserve(4),
    local.set('t0', slot(0)), local.set('t1', slot(1)), local.set('s', slot(2)), local.set('t', slot(3)),
    ...(batched
      ? [
        call(fp('add'), local.get('s'), c0('x'), c1('x')),
        call(fp('add'), local.get('t'), c0('y'), c1('y')),
        comment('the three products in one four-lane call (its last lane repeats the third)'),
        call(fp('mul4'), local.get('t0'), c0('x'), c0('y'), local.get('t1'), c1('x'), c1('y'), local.get('s'), local.get('s'), local.get('t'), local.get('s'), local.get('s'), local.get('t')),
      ]
      : [
        call(fp('mul'), local.get('t0'), c0('x'), c0('y')),
        call(fp('mul'), local.get('t1'), c1('x'), c1('y')),
        call(fp('add'), local.get('s'), c0('x'), c1('x')),
        call(fp('add'), local.get('t'), c0('y'), c1('y')),
        call(fp('mul'), local.get('s'), local.get('s'), local.get('t')),
      ]),
    comment('x and y are read for the last time above: out may alias them'),
    call(fp('sub'), c1('out'), local.get('s'), local.get('t0')),
    call(fp('sub'), c1('out'), c1('out'), local.get('t1')),
    ...addBetaTimes(local.get('t0'), local.get('t1'), local.get('t'), +1),
    call(fp('copy'), c0('out'), local.get('t0')),
    release(4),
  ], { locals: ['t0', 't1', 's', 't'] });

  kernel('sqr', ['out', 'x'], `out = x^2, complex method: v = x0 x1,
c0 = (x0 + x1)(x0 + beta x1) - v - beta v, c1 = 2 v (beta = ${beta}). 2 base products.`, [
    reserve(4),
    local.set('v', slot(0)), local.set('s', slot(1)), local.set('t', slot(2)), local.set('tmp', slot(3)),
    batched ? [] : call(fp('mul'), local.get('v'), c0('x'), c1('x')),
    call(fp('add'), local.get('s'), c0('x'), c1('x')),
    call(fp('copy'), local.get('t'), c0('x')),
    ...addBetaTimes(local.get('t'), c1('x'), local.get('tmp'), +1),
    batched
      ? call(fp('mul2'), local.get('v'), c0('x'), c1('x'), local.get('s'), local.get('s'), local.get('t'))
      : call(fp('mul'), local.get('s'), local.get('s'), local.get('t')),
    comment('x is read for the last time above'),
    ...(beta === -1n
      ? [comment('beta = -1: - v - beta v = 0')]
      : [call(fp('sub'), local.get('s'), local.get('s'), local.get('v')), ...addBetaTimes(local.get('s'), local.get('v'), local.get('tmp'), -1)]),
    call(fp('copy'), c0('out'), local.get('s')),
    call(fp('add'), c1('out'), local.get('v'), local.get('v')),
    release(4),
  ], { locals: ['v', 's', 't', 'tmp'] });

  kernel('norm', ['out', 'x'], `out (an F_p element) = N(x) = x conj(x) = x0^2 - beta x1^2 (beta = ${beta}). 2 base products.`, [
    reserve(2),
    local.set('t', slot(0)), local.set('tmp', slot(1)),
    batched
      ? call(fp('mul2'), local.get('t'), c1('x'), c1('x'), local.get('out'), c0('x'), c0('x'))
      : [call(fp('sqr'), local.get('t'), c1('x')), call(fp('sqr'), local.get('out'), c0('x'))],
    ...addBetaTimes(local.get('out'), local.get('t'), local.get('tmp'), -1),
    release(2),
  ], { locals: ['t', 'tmp'] });

  kernel('conjScale', ['out', 'x', 's'], `out = conj(x) s = (x0 s, -x1 s) for s in F_p. c1 is written first, so s may be out's c0.`, [
    ...(batched
      ? [call(fp('mul2'), c1('out'), c1('x'), local.get('s'), c0('out'), c0('x'), local.get('s')), call(fp('neg'), c1('out'), c1('out'))]
      : [call(fp('mul'), c1('out'), c1('x'), local.get('s')), call(fp('neg'), c1('out'), c1('out')), call(fp('mul'), c0('out'), c0('x'), local.get('s'))]),
  ]);

  kernel('inv', ['out', 'x'], `out = 1 / x = (x0 - x1 u) / (x0^2 - beta x1^2): one base inversion of the norm,
nonzero for x != 0 since beta is a non-residue; 0 maps to 0 (as the base field's inv). Variable time.`, [
    reserve(3),
    local.set('n', slot(0)), local.set('t', slot(1)), local.set('tmp', slot(2)),
    call(fp('sqr'), local.get('n'), c0('x')),
    call(fp('sqr'), local.get('t'), c1('x')),
    ...addBetaTimes(local.get('n'), local.get('t'), local.get('tmp'), -1),
    call(fp('inv'), local.get('n'), local.get('n')),
    call(fp('mul'), c0('out'), c0('x'), local.get('n')),
    call(fp('mul'), c1('out'), c1('x'), local.get('n')),
    call(fp('neg'), c1('out'), c1('out')),
    release(3),
  ], { locals: ['n', 't', 'tmp'] });
  return funcs;
}
