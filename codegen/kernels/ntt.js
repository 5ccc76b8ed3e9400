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
import { limbAccess, limbConst, limbTerms, chain } from './limbs.js';
import { lazyOperandFits } from './field-add.js';

const reserve = (E) => `(global.set $sp (i32.sub (global.get $sp) (i32.const ${E})))`;
const release = (E) => `(global.set $sp (i32.add (global.get $sp) (i32.const ${E})))`;
const sp = '(global.get $sp)';
/** address of element `index` (an i32 expression) of the array at `base` */
const at = (E, base, index) => i32.add(local.get(base), i32.mul(index, i32.const(E)));

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

/** Whether the module's products come four per call (the FMA build's mul4): the butterflies then go four at a time. */
const fourPerCall = (params) => params.kernel === 'fma';

/**
 * Statements that run `body` for i, i + 4, ... while i + 4 <= count (locals i and count), leaving i at the first element
 * not done for the one-at-a-time loop after them; the body may br to `${label}Done` to leave the rest to that loop.
 */
export const stepsOfFour = (label, body) => [
  block(`${label}Done`, [
    loop(label, [br_if(`${label}Done`, i32.gt_u(i32.add(local.get('i'), i32.const(4)), local.get('count'))), ...body, local.set('i', i32.add(local.get('i'), i32.const(4))), br(label)]),
  ]),
];

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

/** rev = bitrev(i + 1) from rev = bitrev(i), over the bits of count (a power of two): locals rev, count, bit. */
const nextReversed = (rev = 'rev', count = 'count', bit = 'bit', label = 'carry') => [
  comment(`${rev} = bitrev(i + 1): clear the leading ones of ${rev} from the top bit down, then set the next bit`),
  local.set(bit, i32.shr_u(local.get(count), i32.const(1))),
  block(`${label}Done`, [
    loop(label, [
      br_if(`${label}Done`, i32.eqz(i32.and(local.get(rev), local.get(bit)))),
      local.set(rev, i32.xor(local.get(rev), local.get(bit))),
      local.set(bit, i32.shr_u(local.get(bit), i32.const(1))),
      br(label),
    ]),
  ]),
  local.set(rev, i32.or(local.get(rev), local.get(bit))),
];

/** bitReverse(a, logN): the permutation a[i] <-> a[bitrev(i)]. */
export function bitReverse(params, { name, f }) {
  const E = params.elementBytes;
  const fn = new Func(name, {
    params: [['a', 'i32'], ['logN', 'i32']], exportName: name,
    doc: `${name}(a, logN): swap a[i] and a[bitrev_logN(i)] for every i < bitrev(i): natural <-> bit-reversed order of the
N = 2^logN elements at a. Values unchanged. Uses ${E} bytes of the scratch stack.`,
  });
  for (const name of ['count', 'i', 'rev', 'bit', 'tmp', 'x', 'y']) fn.local(name, 'i32');
  fn.push(
    reserve(E),
    local.set('tmp', sp),
    local.set('count', i32.shl(i32.const(1), local.get('logN'))),
    local.set('i', i32.const(0)),
    local.set('rev', i32.const(0)),
    block('done', [
      loop('next', [
        if_(i32.lt_u(local.get('i'), local.get('rev')), [
          local.set('x', at(E, 'a', local.get('i'))),
          local.set('y', at(E, 'a', local.get('rev'))),
          call(f('copy'), local.get('tmp'), local.get('x')),
          call(f('copy'), local.get('x'), local.get('y')),
          call(f('copy'), local.get('y'), local.get('tmp')),
        ]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
        ...nextReversed(),
        br('next'),
      ]),
    ]),
    release(E),
  );
  return fn;
}

/** mulPowers(a, count, first, g): a[i] *= first g^i (natural order). */
export function mulPowers(params, { name, f }) {
  const E = params.elementBytes;
  const four = fourPerCall(params);
  const scratch = four ? 5 * E : E;
  const fn = new Func(name, {
    params: [['a', 'i32'], ['count', 'i32'], ['first', 'i32'], ['g', 'i32']], exportName: name,
    doc: `${name}(a, count, first, g): a[i] = a[i] first g^i for i < count (first = c, g = 1: a scaling; first = 1: a coset
shift). Montgomery form, [0, 2r) in and out; first and g must not lie in a[0 .. count). Uses ${scratch} bytes of the
scratch stack.`,
  });
  for (const name of ['acc', 'i', 'x']) fn.local(name, 'i32');
  const accK = (k) => (k ? i32.add(local.get('acc'), i32.const(k * E)) : local.get('acc'));
  const xK = (k) => (k ? i32.add(local.get('x'), i32.const(k * E)) : local.get('x'));
  fn.push(
    reserve(scratch),
    local.set('acc', sp),
    comment('acc = first g^i'),
    call(f('copy'), local.get('acc'), local.get('first')),
    local.set('i', i32.const(0)),
    ...(four
      ? [
        comment('four at a time: acc_k = first g^(i + k), times g^4 (at acc_4) after each group'),
        ...[1, 2, 3].map((k) => call(f('mul'), accK(k), accK(k - 1), local.get('g'))),
        call(f('mul'), accK(4), local.get('g'), local.get('g')),
        call(f('mul'), accK(4), accK(4), accK(4)),
        ...stepsOfFour('groups', [
          local.set('x', at(E, 'a', local.get('i'))),
          call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [xK(k), xK(k), accK(k)])),
          call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [accK(k), accK(k), accK(4)])),
        ]),
      ]
      : []),
    block('done', [
      loop('next', [
        br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
        local.set('x', at(E, 'a', local.get('i'))),
        call(f('mul'), local.get('x'), local.get('x'), local.get('acc')),
        call(f('mul'), local.get('acc'), local.get('acc'), local.get('g')),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('next'),
      ]),
    ]),
    release(scratch),
  );
  return fn;
}

/** Bits of the exponents whose bit-reversed positions mulPowersBitrev visits in one pass: 2^10 elements stay in cache. */
const REGION_LOG = 10;

/**
 * mulPowersBitrev(a, logN, first, g): a[bitrev(i)] *= first g^i, for a bit-reversed array (the coefficients an inverse
 * DIF leaves). Exponent i = hi 2^s + lo (s = logN - b, b = min(logN, ${REGION_LOG})) sits at bitrev_s(lo) 2^b + bitrev_b(hi),
 * so for each lo the b-bit hi visit one region of 2^b elements, with powers first g^lo (g^(2^s))^hi: the same two
 * products per element as in index order, without a cache miss for each one.
 */
export function mulPowersBitrev(params, { name, f }) {
  const E = params.elementBytes;
  const four = fourPerCall(params);
  const scratch = (four ? 12 : 3) * E;
  const fn = new Func(name, {
    params: [['a', 'i32'], ['logN', 'i32'], ['first', 'i32'], ['g', 'i32']], exportName: name,
    doc: `${name}(a, logN, first, g): a[bitrev_logN(i)] = a[bitrev_logN(i)] first g^i for i < N = 2^logN: the coefficient i of a
bit-reversed array times first g^i (first = 1/N, g a coset generator: the inverse transform's scaling and the coset shift in
one pass). Visits the array a region of 2^${REGION_LOG} elements at a time. Montgomery form, [0, 2r) in and out. Uses ${scratch}
bytes of the scratch stack.`,
  });
  for (const name of ['accLo', 'cur', 'stepHi', 'loCount', 'hiCount', 'lo', 'hi', 'revLo', 'revHi', 'bit', 'k', 'base', 'x']) fn.local(name, 'i32');
  // four at a time (hiCount >= 4): exponents hi + k (hi a multiple of 4) sit at bitrev_b(hi) + bitrev_b(k), the
  // offsets 0, hiCount/2, hiCount/4, 3 hiCount/4; powers cur_k = accLo stepHi^k, times stepHi^4 after each group
  const slot = (k) => i32.add(sp, i32.const(k * E));
  const curK = (k) => slot(3 + k); // cur_0..3 at slots 3..6; stepHi^k at 7..10 (k = 0..3); stepHi^4 at 11
  const powK = (k) => slot(7 + k);
  const step4 = slot(11);
  const offsets = [i32.const(0), i32.shr_u(local.get('hiCount'), i32.const(1)), i32.shr_u(local.get('hiCount'), i32.const(2)), i32.mul(i32.shr_u(local.get('hiCount'), i32.const(2)), i32.const(3))];
  const grouped = four
    ? [
      comment('four at a time: x_k = base + (bitrev_b(hi) + offset_k) E with cur_k = accLo stepHi^k; revHi = bitrev_(b-2)(hi / 4)'),
      call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [curK(k), local.get('accLo'), powK(k)])),
      local.set('hi', i32.const(0)),
      local.set('revHi', i32.const(0)),
      local.set('k', i32.shr_u(local.get('hiCount'), i32.const(2))),
      block('groupsDone', [
        loop('groups', [
          local.set('x', i32.add(local.get('base'), i32.mul(local.get('revHi'), i32.const(E)))),
          call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => {
            const xk = k ? i32.add(local.get('x'), i32.mul(offsets[k], i32.const(E))) : local.get('x');
            return [xk, xk, curK(k)];
          })),
          call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [curK(k), curK(k), step4])),
          local.set('hi', i32.add(local.get('hi'), i32.const(1))),
          br_if('groupsDone', i32.ge_u(local.get('hi'), local.get('k'))),
          ...nextReversed('revHi', 'k', 'bit', 'groupCarry'),
          br('groups'),
        ]),
      ]),
    ]
    : null;
  const oneByOne = [
    local.set('hi', i32.const(0)),
    local.set('revHi', i32.const(0)),
    block('hiDone', [
      loop('hiNext', [
        local.set('x', i32.add(local.get('base'), i32.mul(local.get('revHi'), i32.const(E)))),
        call(f('mul'), local.get('x'), local.get('x'), local.get('cur')),
        call(f('mul'), local.get('cur'), local.get('cur'), local.get('stepHi')),
        local.set('hi', i32.add(local.get('hi'), i32.const(1))),
        br_if('hiDone', i32.ge_u(local.get('hi'), local.get('hiCount'))),
        ...nextReversed('revHi', 'hiCount', 'bit', 'hiCarry'),
        br('hiNext'),
      ]),
    ]),
  ];
  fn.push(
    reserve(scratch),
    local.set('accLo', sp),
    local.set('cur', i32.add(sp, i32.const(E))),
    local.set('stepHi', i32.add(sp, i32.const(2 * E))),
    comment(`hiCount = 2^b, b = min(logN, ${REGION_LOG}); loCount = 2^s, s = logN - b`),
    local.set('k', select(local.get('logN'), i32.const(REGION_LOG), i32.lt_u(local.get('logN'), i32.const(REGION_LOG)))),
    local.set('hiCount', i32.shl(i32.const(1), local.get('k'))),
    local.set('k', i32.sub(local.get('logN'), local.get('k'))),
    local.set('loCount', i32.shl(i32.const(1), local.get('k'))),
    comment('stepHi = g^(2^s) by s squarings; accLo = first g^lo'),
    call(f('copy'), local.get('stepHi'), local.get('g')),
    block('squaresDone', [
      loop('squares', [
        br_if('squaresDone', i32.eqz(local.get('k'))),
        call(f('mul'), local.get('stepHi'), local.get('stepHi'), local.get('stepHi')),
        local.set('k', i32.sub(local.get('k'), i32.const(1))),
        br('squares'),
      ]),
    ]),
    ...(four
      ? [
        comment('stepHi^k (k < 4) and stepHi^4, for four at a time'),
        call(f('setOne'), powK(0)),
        call(f('copy'), powK(1), local.get('stepHi')),
        call(f('mul'), powK(2), local.get('stepHi'), local.get('stepHi')),
        call(f('mul'), powK(3), powK(2), local.get('stepHi')),
        call(f('mul'), step4, powK(2), powK(2)),
      ]
      : []),
    call(f('copy'), local.get('accLo'), local.get('first')),
    block('loDone', [
      loop('loNext', [
        br_if('loDone', i32.ge_u(local.get('lo'), local.get('loCount'))),
        comment('the region bitrev_s(lo) 2^b ..: exponents lo + 2^s hi, powers accLo stepHi^hi'),
        call(f('copy'), local.get('cur'), local.get('accLo')),
        local.set('base', at(E, 'a', i32.mul(local.get('revLo'), local.get('hiCount')))),
        ...(grouped ? [if_(i32.ge_u(local.get('hiCount'), i32.const(4)), grouped, oneByOne)] : oneByOne),
        call(f('mul'), local.get('accLo'), local.get('accLo'), local.get('g')),
        local.set('lo', i32.add(local.get('lo'), i32.const(1))),
        br_if('loDone', i32.ge_u(local.get('lo'), local.get('loCount'))),
        ...nextReversed('revLo', 'loCount', 'bit', 'loCarry'),
        br('loNext'),
      ]),
    ]),
    release(scratch),
  );
  return fn;
}

/** scale(a, count, c): a[i] *= c, one product per element (the inverse transform's 1/N). */
export function scale(params, { name, f }) {
  const E = params.elementBytes;
  const fn = new Func(name, {
    params: [['a', 'i32'], ['count', 'i32'], ['c', 'i32']], exportName: name,
    doc: `${name}(a, count, c): a[i] = a[i] c for i < count (c = 1/N: the inverse transform's scaling, in either order).
Montgomery form, [0, 2r) in and out; c must not lie in a[0 .. count).`,
  });
  fn.local('x', 'i32');
  fn.local('i', 'i32');
  const xK = (k) => (k ? i32.add(local.get('x'), i32.const(k * E)) : local.get('x'));
  fn.push(
    local.set('x', local.get('a')),
    ...(fourPerCall(params)
      ? stepsOfFour('groups', [
        call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [xK(k), xK(k), local.get('c')])),
        local.set('x', i32.add(local.get('x'), i32.const(4 * E))),
      ])
      : []),
    block('done', [
      loop('next', [
        br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
        call(f('mul'), local.get('x'), local.get('x'), local.get('c')),
        local.set('x', i32.add(local.get('x'), i32.const(E))),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('next'),
      ]),
    ]),
  );
  return fn;
}

/**
 * fromBytesBatch(out, bytes, count, mont) -> i32: count canonical little-endian elements (params.bytes each) to limbs, in
 * Montgomery form when mont != 0; toBytesBatch(bytes, x, count, mont): back; toBytesStrided(..., stride): back, element k
 * at bytes + B stride k.
 *
 * mont = 0 is for linear maps such as the NTT: plain limbs x are the Montgomery form of x / R, a linear map with
 * Montgomery-form constants (twiddles, 1/N, powers of g) takes them to the Montgomery form of y / R, whose limbs are the
 * plain y. So the transform of plain limbs in is plain limbs out, and neither conversion product is needed.
 */
export function batchBytes(params, { f, layout = null }) {
  const E = params.elementBytes;
  const B = params.bytes;
  const from = new Func(f('fromBytesBatch'), {
    params: [['out', 'i32'], ['bytes', 'i32'], ['count', 'i32'], ['mont', 'i32']], result: 'i32', exportName: f('fromBytesBatch'),
    doc: `${f('fromBytesBatch')}(out, bytes, count, mont) -> i: element k (k < count) of out (${E} bytes each) = the ${B}-byte
little-endian integer at bytes + ${B} k, in [0, r): in Montgomery form when mont != 0, else as plain limbs. Stops at the
first integer >= r and returns its index (the elements from it on are then unspecified: the four-at-a-time path converts
a group before it checks it); returns count when all are below r. out must not overlap bytes.`,
  });
  from.local('i', 'i32');
  const four = fourPerCall(params) && layout !== null;
  const outK = (k) => at(E, 'out', i32.add(local.get('i'), i32.const(k)));
  const bytesK = (k) => at(B, 'bytes', i32.add(local.get('i'), i32.const(k)));
  from.push(
    ...(four
      ? [
        comment('four at a time while all four are below r (else one at a time from there, which stops at the first that is not)'),
        ...stepsOfFour('groups', [
          br_if('groupsDone', i32.eqz([0, 1, 2, 3].map((k) => call(f('fromBytes'), outK(k), bytesK(k))).reduce((x, y) => i32.and(x, y)))),
          if_(local.get('mont'), [call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [outK(k), outK(k), i32.const(layout.r2)]))]),
        ]),
      ]
      : []),
    block('done', [
      loop('next', [
        br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
        br_if('done', i32.eqz(call(f('fromBytes'), at(E, 'out', local.get('i')), at(B, 'bytes', local.get('i'))))),
        if_(local.get('mont'), [call(f('toMontgomery'), at(E, 'out', local.get('i')), at(E, 'out', local.get('i')))]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('next'),
      ]),
    ]),
    local.get('i'),
  );
  const scratch = four ? 4 * E : E;
  const strided = new Func(f('toBytesStrided'), {
    params: [['bytes', 'i32'], ['x', 'i32'], ['count', 'i32'], ['mont', 'i32'], ['stride', 'i32']], exportName: f('toBytesStrided'),
    doc: `${f('toBytesStrided')}(bytes, x, count, mont, stride): the ${B}-byte canonical little-endian encoding of each of count
elements at x (input [0, 2r); Montgomery form when mont != 0, else plain limbs), element k written at bytes + ${B} stride k
(stride 1: side by side; a block of a split NTT writes its elements between the other blocks'). bytes must not
overlap x. Uses ${scratch} bytes of the scratch stack.`,
  });
  strided.local('i', 'i32');
  strided.local('tmp', 'i32');
  strided.local('step', 'i32');
  const xK = (k) => at(E, 'x', i32.add(local.get('i'), i32.const(k)));
  const tmpAt = (k) => (k ? i32.add(local.get('tmp'), i32.const(k * E)) : local.get('tmp'));
  strided.push(
    reserve(scratch),
    local.set('tmp', sp),
    local.set('step', i32.mul(local.get('stride'), i32.const(B))),
    ...(four
      ? [
        comment('four at a time: out of Montgomery form by one call (x / R = x 1 / R), reduced, then the bytes'),
        ...stepsOfFour('groups', [
          if_(local.get('mont'),
            [call(f('mul4'), ...[0, 1, 2, 3].flatMap((k) => [tmpAt(k), xK(k), i32.const(layout.oneNormal)])), ...[0, 1, 2, 3].map((k) => call(f('reduce'), tmpAt(k), tmpAt(k)))],
            [0, 1, 2, 3].map((k) => call(f('reduce'), tmpAt(k), xK(k)))),
          ...[0, 1, 2, 3].map((k) => call(f('toBytes'), k ? i32.add(local.get('bytes'), i32.mul(local.get('step'), i32.const(k))) : local.get('bytes'), tmpAt(k))),
          local.set('bytes', i32.add(local.get('bytes'), i32.shl(local.get('step'), i32.const(2)))),
        ]),
      ]
      : []),
    block('done', [
      loop('next', [
        br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
        if_(local.get('mont'),
          [call(f('fromMontgomery'), local.get('tmp'), at(E, 'x', local.get('i')))],
          [call(f('reduce'), local.get('tmp'), at(E, 'x', local.get('i')))]),
        call(f('toBytes'), local.get('bytes'), local.get('tmp')),
        local.set('bytes', i32.add(local.get('bytes'), local.get('step'))),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('next'),
      ]),
    ]),
    release(scratch),
  );
  const to = new Func(f('toBytesBatch'), {
    params: [['bytes', 'i32'], ['x', 'i32'], ['count', 'i32'], ['mont', 'i32']], exportName: f('toBytesBatch'),
    doc: `${f('toBytesBatch')}(bytes, x, count, mont): ${f('toBytesStrided')}(bytes, x, count, mont, 1), the elements side by side.`,
  });
  to.push(call(f('toBytesStrided'), local.get('bytes'), local.get('x'), local.get('count'), local.get('mont'), i32.const(1)));
  return [from, strided, to];
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
