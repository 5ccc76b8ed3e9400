// Inversion by Kaliski's almost-Montgomery binary algorithm on limbs held in locals, then one Montgomery
// product with a tabulated constant to fix the power of two. Variable time (branches on the value).
// Also: Montgomery's batch-inversion trick.

import { Func, i32, i64, local, comment, op, loop, block, br, br_if, if_, select } from '../wat/index.js';
import { limbAccess, maskConst, limbConst, limbTerms, chain } from './limbs.js';

const orAll = (n, prefix) => Array.from({ length: n }, (_, j) => local.get(`${prefix}${j}`)).reduce((a, b) => i64.or(a, b));

/** a >>= z for the n-limb number in locals a0.., 0 < z < w (z an i64 local). */
function shiftRight(n, w, a, z) {
  const out = [];
  for (let j = 0; j < n; j++) {
    const lo = i64.shr_u(local.get(`${a}${j}`), local.get(z));
    out.push(local.set(`${a}${j}`, j === n - 1 ? lo : i64.or(lo, i64.and(i64.shl(local.get(`${a}${j + 1}`), i64.sub(i64.const(w), local.get(z))), maskConst(w)))));
  }
  return out;
}

/** a <<= z, top limb first so every limb still reads its old lower neighbour. */
function shiftLeft(n, w, a, z) {
  const out = [];
  for (let j = n - 1; j >= 0; j--) {
    const hi = i64.and(i64.shl(local.get(`${a}${j}`), local.get(z)), maskConst(w));
    out.push(local.set(`${a}${j}`, j === 0 ? hi : i64.or(hi, i64.shr_u(local.get(`${a}${j - 1}`), i64.sub(i64.const(w), local.get(z))))));
  }
  return out;
}

/** Copy a chain's result locals (d0..) into a0.. */
const assign = (n, dst, src) => Array.from({ length: n }, (_, j) => local.set(`${dst}${j}`, local.get(`${src}${j}`)));

/**
 * inv(out, x): out = x^-1 in Montgomery form (x = aR gives a^-1 R), canonical [0, p); x = 0 gives 0.
 * `tableAddress` holds R^3 * 2^-k mod p for k = 0..2*bits(p), the correction after k halvings.
 */
export function fieldInv(params, { name = 'inv', mulName = 'mul', reduceName = 'reduce', tableAddress }) {
  const { n, w, pLimbs, elementBytes } = params;
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']], exportName: name,
    doc: `${name}(out, x): out = x^-1 (Montgomery form in, Montgomery form out), canonical [0, p); 0 maps to 0.
Input in [0, 2p). out may alias x. Variable time: runs a data-dependent number of steps.`,
  });
  for (const a of ['u', 'v', 'r', 's', 'd']) for (let j = 0; j < n; j++) fn.local(`${a}${j}`);
  fn.local('k', 'i32');
  fn.local('z');
  const T = limbTerms(params);
  const body = [];
  body.push(comment('v = x mod p (canonical), u = p, r = 0, s = 1, k = 0'));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`v${j}`, limbAccess(params).load('x', j))));
  body.push(chain(fn, { n, w, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`v${j}`), limbConst(pLimbs[j])) }));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`v${j}`, select(local.get(`v${j}`), local.get(`d${j}`), i64.ne(local.get('carry'), i64.const(0))))));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`u${j}`, limbConst(pLimbs[j]))));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`r${j}`, i64.const(0))));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`s${j}`, i64.const(j === 0 ? 1 : 0))));
  body.push(local.set('k', i32.const(0)));
  // Invariant (Kaliski): p = u*s + v*r, with r, s < 2p, so every sum below fits in n limbs (4p < R).
  const evenStep = (a, b) => [
    comment(`${a} even: ${a} /= 2^z, ${b} *= 2^z, k += z, with z = trailing zeros of ${a} (at most w - 1 at once)`),
    local.set('z', i64.ctz(local.get(`${a}0`))),
    local.set('z', select(local.get('z'), i64.const(w - 1), i64.lt_u(local.get('z'), i64.const(w)))),
    ...shiftRight(n, w, a, 'z'),
    ...shiftLeft(n, w, b, 'z'),
    local.set('k', i32.add(local.get('k'), i32.wrap_i64(local.get('z')))),
    br('main'),
  ];
  body.push(
    block('done', [
      loop('main', [
        br_if('done', i64.eqz(orAll(n, 'v'))),
        if_(i64.eqz(i64.and(local.get('u0'), i64.const(1))), evenStep('u', 's')),
        if_(i64.eqz(i64.and(local.get('v0'), i64.const(1))), evenStep('v', 'r')),
        comment('both odd: d = v - u decides which is larger; halve the difference'),
        chain(fn, { n, w, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`v${j}`), local.get(`u${j}`)) }),
        local.set('z', i64.const(1)),
        if_(
          i64.ne(local.get('carry'), i64.const(0)),
          [
            comment('u > v: u = (u - v) / 2, r = r + s, s = 2s'),
            chain(fn, { n, w, dst: 'u', signed: true, term: (j) => T.sub(local.get(`u${j}`), local.get(`v${j}`)) }),
            ...shiftRight(n, w, 'u', 'z'),
            chain(fn, { n, w, dst: 'r', term: (j) => T.add(local.get(`r${j}`), local.get(`s${j}`)) }),
            ...shiftLeft(n, w, 's', 'z'),
          ],
          [
            comment('v >= u: v = (v - u) / 2, s = s + r, r = 2r'),
            ...assign(n, 'v', 'd'),
            ...shiftRight(n, w, 'v', 'z'),
            chain(fn, { n, w, dst: 's', term: (j) => T.add(local.get(`s${j}`), local.get(`r${j}`)) }),
            ...shiftLeft(n, w, 'r', 'z'),
          ],
        ),
        local.set('k', i32.add(local.get('k'), i32.const(1))),
        br('main'),
      ]),
    ]),
  );
  body.push(comment('r = x^-1 * 2^k (mod p) up to sign: r < 2p; result p - (r mod p) = x^-1 * 2^k'));
  body.push(chain(fn, { n, w, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`r${j}`), limbConst(pLimbs[j])) }));
  body.push(...Array.from({ length: n }, (_, j) => local.set(`r${j}`, select(local.get(`r${j}`), local.get(`d${j}`), i64.ne(local.get('carry'), i64.const(0))))));
  body.push(chain(fn, { n, w, dst: 'd', signed: true, term: (j) => T.sub(limbConst(pLimbs[j]), local.get(`r${j}`)) }));
  body.push(...Array.from({ length: n }, (_, j) => limbAccess(params).store('out', j, local.get(`d${j}`))));
  body.push(comment('x = aR, so out = (aR)^-1 2^k; one product with R^3 2^-k gives a^-1 R'));
  body.push(op(`call $${mulName}`, local.get('out'), local.get('out'), i32.add(i32.const(tableAddress), i32.mul(local.get('k'), i32.const(elementBytes)))));
  body.push(op(`call $${reduceName}`, local.get('out'), local.get('out')));
  fn.push(...body);
  return fn;
}

/**
 * batchInverse(out, x, count): out[i] = x[i]^-1 for count contiguous elements, with one inversion
 * (Montgomery's trick). Zero elements give zero and do not poison the others. out must not alias x.
 */
export function fieldBatchInverse(params, { name = 'batchInverse', prefix = '' }) {
  const { elementBytes } = params;
  const f = (op_) => (prefix ? `${prefix}_${op_}` : op_);
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32'], ['count', 'i32']], exportName: name,
    doc: `${name}(out, x, count): out[i] = x[i]^-1 (Montgomery form) for count elements of ${elementBytes} bytes;
zero elements map to zero. Inputs in [0, 2p); outputs in [0, 2p). out must not overlap x.`,
  });
  fn.local('acc', 'i32');
  fn.local('i', 'i32');
  fn.local('xi', 'i32');
  fn.local('oi', 'i32');
  const E = i32.const(elementBytes);
  fn.push(
    comment('acc: one element of scratch below the stack pointer'),
    `(global.set $sp (i32.sub (global.get $sp) ${E}))`,
    local.set('acc', '(global.get $sp)'),
    op(`call $${f('setOne')}`, local.get('acc')),
    comment('forward: out[i] = product of the nonzero x[j], j < i'),
    local.set('i', i32.const(0)),
    block('fwdDone', [
      loop('fwd', [
        br_if('fwdDone', i32.ge_u(local.get('i'), local.get('count'))),
        local.set('xi', i32.add(local.get('x'), i32.mul(local.get('i'), E))),
        local.set('oi', i32.add(local.get('out'), i32.mul(local.get('i'), E))),
        op(`call $${f('copy')}`, local.get('oi'), local.get('acc')),
        if_(i32.eqz(op(`call $${f('isZero')}`, local.get('xi'))), [op(`call $${f('mul')}`, local.get('acc'), local.get('acc'), local.get('xi'))]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('fwd'),
      ]),
    ]),
    op(`call $${f('inv')}`, local.get('acc'), local.get('acc')),
    comment('backward: out[i] = prefix_i * (product up to i)^-1; then drop x[i] from the inverse'),
    block('bwdDone', [
      loop('bwd', [
        br_if('bwdDone', i32.eqz(local.get('i'))),
        local.set('i', i32.sub(local.get('i'), i32.const(1))),
        local.set('xi', i32.add(local.get('x'), i32.mul(local.get('i'), E))),
        local.set('oi', i32.add(local.get('out'), i32.mul(local.get('i'), E))),
        if_(
          op(`call $${f('isZero')}`, local.get('xi')),
          [op(`call $${f('setZero')}`, local.get('oi'))],
          [
            op(`call $${f('mul')}`, local.get('oi'), local.get('oi'), local.get('acc')),
            op(`call $${f('mul')}`, local.get('acc'), local.get('acc'), local.get('xi')),
          ],
        ),
        br('bwd'),
      ]),
    ]),
    `(global.set $sp (i32.add (global.get $sp) ${E}))`,
  );
  return fn;
}
