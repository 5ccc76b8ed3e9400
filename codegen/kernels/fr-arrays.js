// Scalar-field kernels over whole arrays, beside the NTT's butterflies (codegen/kernels/ntt.js): the bit-reversal
// permutation, products by powers (a coset shift, the inverse's 1/N, in natural or bit-reversed order), a scaling,
// and byte conversions of many elements at once. Elements in Montgomery form, [0, 2r) in and out, as the field's.

import { Func, i32, local, comment, loop, block, br, br_if, if_, call, select } from '../wat/index.js';
import { elementAt as at, fourPerCall, releaseStack as release, reserveStack as reserve, stackTop as sp, stepsOfFour } from './scratch.js';

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
