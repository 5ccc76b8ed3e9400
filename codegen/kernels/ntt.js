// Number-theoretic transform kernels over a prime field r with a 2^s-th root of unity, on elements in Montgomery form
// in memory (n limbs, E = elementBytes each, contiguous). Every kernel keeps the field module's lazy range: inputs
// and outputs in [0, 2r), since the field's add, sub and mul take and give [0, 2r) (4r < R).
//
// Layers. An NTT of N = 2^logN elements has logN layers of N/2 butterflies each; butterfly b of a layer whose
// half-size is len (pairs at distance len) works on i = 2 (b - j) + j and i + len, with j = b mod len.
//   DIF (decimation in frequency, natural -> bit-reversed order): layer l has len = N / 2^(l+1) (len = N/2 first),
//     (x, y) <- (x + y, (x - y) w^j)
//   DIT (decimation in time, bit-reversed -> natural order): layer l has len = 2^l (len = 1 first),
//     (x, y) <- (x + y w^j, x - y w^j)
// with w = a primitive 2len-th root of unity (its inverse for an inverse transform), read from a twiddle table laid
// out per layer: table[len + j] = w_(2len)^j for len = 1, 2, 4, ..., N/2 and j < len (entry 0 unused; N E bytes).
//
// Splitting over threads: butterflies [bStart, bEnd) of layers [layerFrom, layerTo). For DIF, once the first k layers
// are done, block t of the array (M = N / 2^k elements) is an independent sub-transform whose butterflies are
// [t M/2, (t+1) M/2) in every later layer; for DIT the same holds for the first logN - k layers. So one call per
// block covers those layers, and the other layers split into ranges of butterflies with a barrier between layers.

import { Func, i32, i64, local, comment, loop, block, br, br_if, if_, call, select } from '../wat/index.js';
import { elementAt as at, fourPerCall, releaseStack as release, reserveStack as reserve, stackTop as sp } from './scratch.js';
import { batchBytes, bitReverse, mulPowers, mulPowersBitrev, scale } from './fr-arrays.js';
import { limbAccess, limbConst, limbTerms, chain } from './limbs.js';
import { lazyOperandFits } from './field-add.js';

/**
 * The loop over layers [layerFrom, layerTo) and butterflies [bStart, bEnd), with `len` and `x`, `y`, `tw` set per butterfly.
 * With `group` (a module whose products come four per call), the butterflies first go four at a time, b .. b+3 with
 * x0..x3, y0..y3, tw0..tw3 set for each (each from its own j, so a group may straddle two blocks of a layer), then
 * one at a time for the rest of the range.
 */
function butterflyLoops(fn, E, lenOfLayer, body, group = null) {
  for (const name of ['layer', 'len', 'b', 'j', 'x', 'y', 'tw', 'tmp']) fn.local(name, 'i32');
  const butterfly = (bExpr, x, y, tw) => [
    local.set('j', i32.and(bExpr, i32.sub(local.get('len'), i32.const(1)))),
    local.set(x, at(E, 'a', i32.add(i32.shl(i32.sub(bExpr, local.get('j')), i32.const(1)), local.get('j')))),
    local.set(y, i32.add(local.get(x), i32.mul(local.get('len'), i32.const(E)))),
    local.set(tw, at(E, 'table', i32.add(local.get('len'), local.get('j')))),
  ];
  const groups = [];
  if (group) {
    for (let k = 0; k < 4; k++) for (const name of ['x', 'y', 'tw']) fn.local(`${name}${k}`, 'i32');
    groups.push(
      block('groupsDone', [
        loop('groups', [
          br_if('groupsDone', i32.gt_u(i32.add(local.get('b'), i32.const(4)), local.get('bEnd'))),
          comment('butterflies b .. b+3: x_k, y_k, tw_k as below, each from its own j'),
          ...[0, 1, 2, 3].flatMap((k) => butterfly(k ? i32.add(local.get('b'), i32.const(k)) : local.get('b'), `x${k}`, `y${k}`, `tw${k}`)),
          ...group,
          local.set('b', i32.add(local.get('b'), i32.const(4))),
          br('groups'),
        ]),
      ]),
    );
  }
  return [
    local.set('tmp', sp),
    local.set('layer', local.get('layerFrom')),
    block('layersDone', [
      loop('layers', [
        br_if('layersDone', i32.ge_u(local.get('layer'), local.get('layerTo'))),
        local.set('len', lenOfLayer),
        local.set('b', local.get('bStart')),
        ...groups,
        block('butterfliesDone', [
          loop('butterflies', [
            br_if('butterfliesDone', i32.ge_u(local.get('b'), local.get('bEnd'))),
            comment('j = b mod len; x = a[2 (b - j) + j], y = a[that + len], tw = table[len + j]'),
            ...butterfly(local.get('b'), 'x', 'y', 'tw'),
            ...body,
            local.set('b', i32.add(local.get('b'), i32.const(1))),
            br('butterflies'),
          ]),
        ]),
        local.set('layer', i32.add(local.get('layer'), i32.const(1))),
        br('layers'),
      ]),
    ]),
  ];
}

/** tmp_k: the k-th of four elements of scratch at tmp (the group's differences or products). */
const tmpK = (E, k) => (k ? i32.add(local.get('tmp'), i32.const(k * E)) : local.get('tmp'));

/**
 * addSub(sum, diff, x, y): sum = x + y, diff = x - y (mod r, lazy), both limbs of x and y read once into locals first,
 * so the outputs may alias the inputs (the butterfly writes them back over x and y).
 */
export function addSub(params, { name, lazyDiff = false }) {
  const { n, w, twoPLimbs } = params;
  const { load, store } = limbAccess(params);
  const T = limbTerms(params);
  const fn = new Func(name, {
    params: [['sum', 'i32'], ['diff', 'i32'], ['x', 'i32'], ['y', 'i32']], exportName: name,
    doc: lazyDiff
      ? `${name}(sum, diff, x, y): sum = x + y mod r in [0, 2r), and diff = x - y + 2r as integers, in (0, 4r) (not reduced: only
for a product, see lazyDiffFits). Inputs in [0, 2r). Reads x and y before writing, so sum and diff may alias x and y.`
      : `${name}(sum, diff, x, y): sum = x + y and diff = x - y mod r. Inputs in [0, 2r), outputs in [0, 2r). Reads x and y
before writing, so sum and diff may alias x and y (in either order).`,
  });
  const masked = (src, dst, mask, out) => [
    ...chain(fn, {
      n, w, dst, keepTopCarry: true,
      term: (j) => (twoPLimbs[j] === 0n ? local.get(`${src}${j}`) : T.add(local.get(`${src}${j}`), i64.and(limbConst(twoPLimbs[j]), local.get(mask)))),
    }),
    ...Array.from({ length: n }, (_, j) => store(out, j, local.get(`${dst}${j}`))),
  ];
  for (let j = 0; j < n; j++) {
    fn.push(local.set(fn.local(`x${j}`), load('x', j)), local.set(fn.local(`y${j}`), load('y', j)));
  }
  if (!lazyDiff) fn.local('m');
  fn.push(
    comment('z = x + y < 4r; d = z - 2r; sum = z where that borrows, else d (a select per limb, branch-free)'),
    chain(fn, { n, w, dst: 'z', term: (j) => T.add(local.get(`x${j}`), local.get(`y${j}`)) }),
    chain(fn, { n, w, dst: 'd', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`z${j}`), limbConst(twoPLimbs[j])) }),
    local.set(fn.local('borrowed', 'i32'), i64.ne(local.get('carry'), i64.const(0))),
    ...Array.from({ length: n }, (_, j) => store('sum', j, select(local.get(`z${j}`), local.get(`d${j}`), local.get('borrowed')))),
    ...(lazyDiff
      ? [
        comment('e = x - y + 2r in (0, 4r), no reduction'),
        chain(fn, { n, w, dst: 'e', signed: true, term: (j) => T.add(T.sub(local.get(`x${j}`), local.get(`y${j}`)), limbConst(twoPLimbs[j])) }),
        ...Array.from({ length: n }, (_, j) => store('diff', j, local.get(`e${j}`))),
      ]
      : [
        comment('e = x - y in (-2r, 2r); when negative, add 2r'),
        chain(fn, { n, w, dst: 'e', signed: true, keepTopCarry: true, term: (j) => T.sub(local.get(`x${j}`), local.get(`y${j}`)) }),
        local.set('m', local.get('carry')),
        ...masked('e', 'f', 'm', 'diff'),
      ]),
  );
  return fn;
}

/**
 * Whether the DIF butterfly may feed the product an unreduced difference d in (0, 4r) (fr_addSubLazy) as its first
 * operand: field-add.js lazyOperandFits (8r < R; the twiddle b < 2r, so t < d b / R + r < 2r). The integer build
 * only: in the FMA build's groups of four butterflies it measured no faster (0.96-0.98x, BN254 2^16 forward and
 * inverse, Node 24).
 */
export const lazyDiffFits = (params) => params.kernel === 'int' && lazyOperandFits(params);

const layerParams = [['a', 'i32'], ['logN', 'i32'], ['layerFrom', 'i32'], ['layerTo', 'i32'], ['bStart', 'i32'], ['bEnd', 'i32'], ['table', 'i32']];

/** nttDif(a, logN, layerFrom, layerTo, bStart, bEnd, table): DIF butterflies, natural -> bit-reversed. */
export function nttDif(params, { name, f }) {
  const E = params.elementBytes;
  const four = fourPerCall(params);
  const scratch = four ? 4 * E : E;
  const fn = new Func(name, {
    params: layerParams, exportName: name,
    doc: `${name}(a, logN, layerFrom, layerTo, bStart, bEnd, table): decimation-in-frequency layers [layerFrom, layerTo) of the
NTT of the N = 2^logN elements at a, butterflies [bStart, bEnd) of each (0 .. N/2 for all of them). Layer l pairs
elements len = N / 2^(l+1) apart: (x, y) <- (x + y, (x - y) w^j), w^j = table[len + j]. All layers in order take
natural order to bit-reversed order. Montgomery form, [0, 2r) in and out. table[len] must be 1 (as ${f('nttTwiddles')} writes it:
groups of four butterflies multiply by w^0 too). Uses ${scratch} bytes of the scratch stack.`,
  });
  fn.push(reserve(scratch));
  const lazy = lazyDiffFits(params);
  const group = four && [
    if_(i32.eq(local.get('len'), i32.const(1)), [
      comment('the last layer: every w^j = 1'),
      ...[0, 1, 2, 3].map((k) => call(f('addSub'), local.get(`x${k}`), local.get(`y${k}`), local.get(`x${k}`), local.get(`y${k}`))),
    ], [
      comment('(x_k, tmp_k) = (x_k + y_k, x_k - y_k); y_k = tmp_k w^(j_k), four products in one call (w^0 = 1 multiplied too)'),
      ...[0, 1, 2, 3].map((k) => call(f('addSub'), local.get(`x${k}`), tmpK(E, k), local.get(`x${k}`), local.get(`y${k}`))),
      call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [local.get(`y${k}`), tmpK(E, k), local.get(`tw${k}`)])),
    ]),
  ];
  fn.push(...butterflyLoops(fn, E, i32.shl(i32.const(1), i32.sub(i32.sub(local.get('logN'), i32.const(1)), local.get('layer'))), [
    if_(local.get('j'), [
      comment(lazy
        ? '(x, tmp) = (x + y, x - y + 2r), tmp in (0, 4r) unreduced: the product still ends in [0, 2r) since 8r < R; y = tmp w^j'
        : '(x, tmp) = (x + y, x - y); y = tmp w^j'),
      call(f(lazy ? 'addSubLazy' : 'addSub'), local.get('x'), local.get('tmp'), local.get('x'), local.get('y')),
      call(f('mul'), local.get('y'), local.get('tmp'), local.get('tw')),
    ], [
      comment('w^0 = 1: (x, y) = (x + y, x - y)'),
      call(f('addSub'), local.get('x'), local.get('y'), local.get('x'), local.get('y')),
    ]),
  ], group));
  fn.push(release(scratch));
  return fn;
}

/** nttDit(a, logN, layerFrom, layerTo, bStart, bEnd, table): DIT butterflies, bit-reversed -> natural. */
export function nttDit(params, { name, f }) {
  const E = params.elementBytes;
  const four = fourPerCall(params);
  const scratch = four ? 4 * E : E;
  const fn = new Func(name, {
    params: layerParams, exportName: name,
    doc: `${name}(a, logN, layerFrom, layerTo, bStart, bEnd, table): decimation-in-time layers [layerFrom, layerTo) of the
NTT of the N = 2^logN elements at a, butterflies [bStart, bEnd) of each (0 .. N/2 for all of them). Layer l pairs
elements len = 2^l apart: (x, y) <- (x + y w^j, x - y w^j), w^j = table[len + j]. All layers in order take
bit-reversed order to natural order. Montgomery form, [0, 2r) in and out. table[len] must be 1 (as ${f('nttTwiddles')} writes it:
groups of four butterflies multiply by w^0 too). Uses ${scratch} bytes of the scratch stack.`,
  });
  fn.push(reserve(scratch));
  const group = four && [
    if_(i32.eq(local.get('len'), i32.const(1)), [
      comment('the first layer: every w^j = 1'),
      ...[0, 1, 2, 3].map((k) => call(f('addSub'), local.get(`x${k}`), local.get(`y${k}`), local.get(`x${k}`), local.get(`y${k}`))),
    ], [
      comment('tmp_k = y_k w^(j_k), four products in one call (w^0 = 1 multiplied too); (x_k, y_k) = (x_k + tmp_k, x_k - tmp_k)'),
      call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [tmpK(E, k), local.get(`y${k}`), local.get(`tw${k}`)])),
      ...[0, 1, 2, 3].map((k) => call(f('addSub'), local.get(`x${k}`), local.get(`y${k}`), local.get(`x${k}`), tmpK(E, k))),
    ]),
  ];
  fn.push(...butterflyLoops(fn, E, i32.shl(i32.const(1), local.get('layer')), [
    if_(local.get('j'), [
      comment('tmp = y w^j; (x, y) = (x + tmp, x - tmp)'),
      call(f('mul'), local.get('tmp'), local.get('y'), local.get('tw')),
      call(f('addSub'), local.get('x'), local.get('y'), local.get('x'), local.get('tmp')),
    ], [
      comment('w^0 = 1: (x, y) = (x + y, x - y)'),
      call(f('addSub'), local.get('x'), local.get('y'), local.get('x'), local.get('y')),
    ]),
  ], group));
  fn.push(release(scratch));
  return fn;
}

/** nttTwiddles(table, logN, root): the per-layer twiddle table of a transform of size 2^logN. */
export function nttTwiddles(params, { name, f }) {
  const E = params.elementBytes;
  const fn = new Func(name, {
    params: [['table', 'i32'], ['logN', 'i32'], ['root', 'i32']], exportName: name,
    doc: `${name}(table, logN, root): table[len + j] = w_(2len)^j for len = 1, 2, ..., N/2 and j < len, N = 2^logN, where
root is a primitive N-th root of unity w_N (Montgomery form) and w_(2len) = w_N^(N/(2len)). The table takes N elements
(N ${E} bytes; entry 0 is not written). Top layer: N/2 - 1 products; every lower layer copies every other entry of the
one above, w_(2len)^j = w_(4len)^(2j). Output in [0, 2r).`,
  });
  for (const name of ['half', 'j', 'len']) fn.local(name, 'i32');
  const top = (j) => at(E, 'table', i32.add(local.get('half'), j));
  const four = fourPerCall(params);
  fn.push(
    if_(i32.eqz(local.get('logN')), [comment('N = 1: no layers'), '(return)']),
    local.set('half', i32.shl(i32.const(1), i32.sub(local.get('logN'), i32.const(1)))),
    comment('table[N/2 + j] = w_N^j: table[N/2] = 1, then one product per entry'),
    call(f('setOne'), at(E, 'table', local.get('half'))),
    local.set('j', i32.const(1)),
    ...(four
      ? [
        if_(i32.ge_u(local.get('half'), i32.const(8)), [
          comment('four chains: table[N/2 + j] for j < 4 one by one, then w_N^4 times the entry four back, four per call'),
          reserve(E),
          ...[1, 2, 3].map((j) => call(f('mul'), top(i32.const(j)), top(i32.const(j - 1)), local.get('root'))),
          call(f('mul'), sp, top(i32.const(2)), top(i32.const(2))),
          local.set('j', i32.const(4)),
          block('top4Done', [
            loop('top4', [
              br_if('top4Done', i32.ge_u(local.get('j'), local.get('half'))),
              call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [top(i32.add(local.get('j'), i32.const(k))), top(i32.add(local.get('j'), i32.const(k - 4))), sp])),
              local.set('j', i32.add(local.get('j'), i32.const(4))),
              br('top4'),
            ]),
          ]),
          release(E),
        ]),
      ]
      : []),
    block('topDone', [
      loop('top', [
        br_if('topDone', i32.ge_u(local.get('j'), local.get('half'))),
        call(f('mul'), at(E, 'table', i32.add(local.get('half'), local.get('j'))), at(E, 'table', i32.add(local.get('half'), i32.sub(local.get('j'), i32.const(1)))), local.get('root')),
        local.set('j', i32.add(local.get('j'), i32.const(1))),
        br('top'),
      ]),
    ]),
    comment('lower layers: table[len + j] = table[2 len + 2 j]'),
    local.set('len', i32.shr_u(local.get('half'), i32.const(1))),
    block('layersDone', [
      loop('layers', [
        br_if('layersDone', i32.eqz(local.get('len'))),
        local.set('j', i32.const(0)),
        block('rowDone', [
          loop('row', [
            br_if('rowDone', i32.ge_u(local.get('j'), local.get('len'))),
            call(f('copy'), at(E, 'table', i32.add(local.get('len'), local.get('j'))), at(E, 'table', i32.shl(i32.add(local.get('len'), local.get('j')), i32.const(1)))),
            local.set('j', i32.add(local.get('j'), i32.const(1))),
            br('row'),
          ]),
        ]),
        local.set('len', i32.shr_u(local.get('len'), i32.const(1))),
        br('layers'),
      ]),
    ]),
  );
  return fn;
}

/**
 * Every NTT kernel of the module, named through f (prefix). layout: the module's constants (buildFieldModule), whose
 * R^2 and 1 the byte conversions take four at a time where the products come four per call.
 */
export function nttKernels(params, { f, layout = null }) {
  return [
    addSub(params, { name: f('addSub') }),
    ...(lazyDiffFits(params) ? [addSub(params, { name: f('addSubLazy'), lazyDiff: true })] : []),
    nttTwiddles(params, { name: f('nttTwiddles'), f }),
    nttDif(params, { name: f('nttDif'), f }),
    nttDit(params, { name: f('nttDit'), f }),
    bitReverse(params, { name: f('bitReverse'), f }),
    mulPowers(params, { name: f('mulPowers'), f }),
    mulPowersBitrev(params, { name: f('mulPowersBitrev'), f }),
    scale(params, { name: f('scale'), f }),
    ...batchBytes(params, { f, layout }),
  ];
}
