// Kernels of the curve models other than short Weierstrass (codegen/params/models.js): the conversion of points
// between the model's affine coordinates (the native byte encoding users write) and the Weierstrass image that every
// other kernel and the MSM work on, under the names g_fromBytes / g_toBytes; and the degree-2 GLV endomorphism
// (params/endomorphism.js) as g_endomorphism. The memory layout of points is curve.js's.
//
// Constants (Montgomery form, at layout addresses): mapInvB = 1/B, mapShift = A/(3B), mapB = B, mapAThird = A/3 of
// the Montgomery form, and the model's coefficients (teA, teD or montA, montB).

import { Func, i32, local, comment, op, loop, block, br, br_if, if_ } from '../wat/index.js';
import { curveSizes } from './curve.js';
import { allZero } from './curve-codec.js';
import { elementSlots } from './scratch.js';

const call = (name, ...args) => op(`call $${name}`, ...args);

/** Points converted per batch inversion in the Edwards g_fromBytes: two arrays of that many elements on the stack. */
export const edwardsBlock = (E) => Math.max(8, Math.min(64, Math.floor(3072 / E)));

/**
 * g_fromBytes and g_toBytes of a twisted-Edwards or Montgomery-form curve (model.kind).
 * @param options.fp the field's name function; options.layout the constants' addresses
 */
export function modelKernels(fieldParams, { fp, layout, model, prefix = 'g' }) {
  const { E, affineBytes, infOffset } = curveSizes(fieldParams);
  const B = fieldParams.bytes;
  const g = (name) => `${prefix}_${name}`;
  const S = elementSlots(E);
  const X = (p) => local.get(p);
  const Y = (p) => i32.add(local.get(p), i32.const(E));
  const setInf = (p, v) => i32.store(local.get(p), i32.const(v), infOffset);
  const INF = (p) => i32.load(local.get(p), infOffset);
  const get = (l) => local.get(l);
  const bad = (reason) => `(return (i32.add (i32.shl (local.get $i) (i32.const 2)) (i32.const ${reason})))`;
  const edwards = model === 'twisted-edwards';
  const paired = fieldParams.kernel === 'fma'; // mul2: two products in the time of one
  const funcs = [];
  // decode x at src and y at src + B into dst (Montgomery form), or fail(reason): 1 = x >= p, 2 = y >= p
  const decode = (dst, src, fail) => [
    if_(i32.eqz(call(fp('fromBytes'), X(dst), get(src))), fail(1)),
    if_(i32.eqz(call(fp('fromBytes'), Y(dst), i32.add(get(src), i32.const(B)))), fail(2)),
    call(fp('toMontgomery'), X(dst), X(dst)),
    call(fp('toMontgomery'), Y(dst), Y(dst)),
  ];

  if (edwards) {
    const BLK = edwardsBlock(E);
    const fn = new Func(g('fromBytes'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32']], result: 'i32', exportName: g('fromBytes'),
      doc: `${g('fromBytes')}(dst, src, count): decode count twisted-Edwards points, each x | y as ${B}-byte little-endian
integers (the neutral element is (0, 1)), checked on a x^2 + y^2 = 1 + d x^2 y^2, into their images on the
short-Weierstrass curve at dst (Montgomery form; (0, 1) -> infinity, (0, -1) -> (A/(3B), 0)):
u = (1 + y) / (1 - y), v = u / x, X = u / B + A / (3B), Y = v / B, one inversion per ${BLK} points. Returns -1 when
all are valid, else 4 * index + reason for the first bad one: 1 = x >= p, 2 = y >= p, 3 = not on the curve.`,
    });
    for (const l of ['i', 'j', 'first', 'end', 'd', 's', 't0', 't1', 't2', 'den', 'inv']) fn.local(l, 'i32');
    const reserved = 3 + 2 * BLK;
    const denAt = (k) => i32.add(S.slot(3), i32.mul(k, i32.const(E)));
    const invAt = (k) => i32.add(S.slot(3 + BLK), i32.mul(k, i32.const(E)));
    const pointAt = (i) => [
      local.set('d', i32.add(get('dst'), i32.mul(i, i32.const(affineBytes)))),
      local.set('s', i32.add(get('src'), i32.mul(i, i32.const(2 * B)))),
    ];
    const fail = (reason) => [S.release(reserved), bad(reason)];
    fn.push(
      S.reserve(reserved),
      local.set('t0', S.slot(0)),
      local.set('t1', S.slot(1)),
      local.set('t2', S.slot(2)),
      local.set('i', i32.const(0)),
      block('done', [
        loop('blocks', [
          br_if('done', i32.ge_u(get('i'), get('count'))),
          local.set('first', get('i')),
          local.set('end', i32.add(get('i'), i32.const(BLK))),
          if_(i32.gt_u(get('end'), get('count')), [local.set('end', get('count'))]),
          comment('decode and check each point of the block; den_k = (1 - y) x'),
          block('decoded', [
            loop('decode', [
              br_if('decoded', i32.ge_u(get('i'), get('end'))),
              ...pointAt(get('i')),
              ...decode('d', 's', fail),
              comment('a x^2 + y^2 = 1 + d x^2 y^2'),
              ...(paired
                ? [
                  comment('independent products two per call (FMA build): x^2, y^2; x^2 y^2, a x^2; d x^2 y^2, (1 - y) x'),
                  local.set('den', denAt(i32.sub(get('i'), get('first')))),
                  call(fp('sub'), get('den'), i32.const(layout.oneMont), Y('d')),
                  call(fp('mul2'), get('t0'), X('d'), X('d'), get('t1'), Y('d'), Y('d')),
                  call(fp('mul2'), get('t2'), get('t0'), get('t1'), get('t0'), get('t0'), i32.const(layout.teA)),
                  call(fp('mul2'), get('t2'), get('t2'), i32.const(layout.teD), get('den'), get('den'), X('d')),
                  call(fp('add'), get('t2'), get('t2'), i32.const(layout.oneMont)),
                  call(fp('add'), get('t0'), get('t0'), get('t1')),
                  if_(i32.eqz(call(fp('eq'), get('t0'), get('t2'))), fail(3)),
                ]
                : [
                  call(fp('sqr'), get('t0'), X('d')),
                  call(fp('sqr'), get('t1'), Y('d')),
                  call(fp('mul'), get('t2'), get('t0'), get('t1')),
                  call(fp('mul'), get('t2'), get('t2'), i32.const(layout.teD)),
                  call(fp('add'), get('t2'), get('t2'), i32.const(layout.oneMont)),
                  call(fp('mul'), get('t0'), get('t0'), i32.const(layout.teA)),
                  call(fp('add'), get('t0'), get('t0'), get('t1')),
                  if_(i32.eqz(call(fp('eq'), get('t0'), get('t2'))), fail(3)),
                  local.set('den', denAt(i32.sub(get('i'), get('first')))),
                  call(fp('sub'), get('den'), i32.const(layout.oneMont), Y('d')),
                  call(fp('mul'), get('den'), get('den'), X('d')),
                ]),
              local.set('i', i32.add(get('i'), i32.const(1))),
              br('decode'),
            ]),
          ]),
          comment('one inversion for the block (a zero den_k, from x = 0, stays zero)'),
          call(fp('batchInverse'), invAt(i32.const(0)), denAt(i32.const(0)), i32.sub(get('end'), get('first'))),
          local.set('j', get('first')),
          block('mapped', [
            loop('map', [
              br_if('mapped', i32.ge_u(get('j'), get('end'))),
              ...pointAt(get('j')),
              local.set('den', denAt(i32.sub(get('j'), get('first')))),
              local.set('inv', invAt(i32.sub(get('j'), get('first')))),
              if_(
                call(fp('isZero'), get('den')),
                [
                  comment('x = 0: (0, 1) is the neutral element (infinity), (0, -1) the point (A/(3B), 0)'),
                  if_(
                    call(fp('eq'), Y('d'), i32.const(layout.oneMont)),
                    [call(fp('setZero'), X('d')), call(fp('setZero'), Y('d')), setInf('d', 1)],
                    [call(fp('copy'), X('d'), i32.const(layout.mapShift)), call(fp('setZero'), Y('d')), setInf('d', 0)],
                  ),
                ],
                paired
                  ? [
                    comment('t = (1 + y) / ((1 - y) x), two products per call: Y = t / B = v / B, X = t x / B + A / (3B)'),
                    call(fp('add'), get('t0'), Y('d'), i32.const(layout.oneMont)),
                    call(fp('mul2'), get('t0'), get('t0'), get('inv'), get('t1'), X('d'), i32.const(layout.mapInvB)),
                    call(fp('mul2'), Y('d'), get('t0'), i32.const(layout.mapInvB), X('d'), get('t1'), get('t0')),
                    call(fp('add'), X('d'), X('d'), i32.const(layout.mapShift)),
                    setInf('d', 0),
                  ]
                  : [
                    comment('t = (1 + y) / ((1 - y) x B) = v / B = Y; X = t x + A / (3B)'),
                    call(fp('add'), get('t0'), Y('d'), i32.const(layout.oneMont)),
                    call(fp('mul'), get('t0'), get('t0'), get('inv')),
                    call(fp('mul'), get('t0'), get('t0'), i32.const(layout.mapInvB)),
                    call(fp('mul'), X('d'), X('d'), get('t0')),
                    call(fp('add'), X('d'), X('d'), i32.const(layout.mapShift)),
                    call(fp('copy'), Y('d'), get('t0')),
                    setInf('d', 0),
                  ],
              ),
              local.set('j', i32.add(get('j'), i32.const(1))),
              br('map'),
            ]),
          ]),
          br('blocks'),
        ]),
      ]),
      S.release(reserved),
      i32.const(-1),
    );
    funcs.push(fn);
  } else {
    const fn = new Func(g('fromBytes'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32']], result: 'i32', exportName: g('fromBytes'),
      doc: `${g('fromBytes')}(dst, src, count): decode count Montgomery-form points, each u | v as ${B}-byte little-endian
integers (all zero = the point at infinity), checked on B v^2 = u^3 + A u^2 + u, into their images
(u / B + A / (3B), v / B) on the short-Weierstrass curve at dst (Montgomery form). Returns -1 when all are valid,
else 4 * index + reason for the first bad one: 1 = u >= p, 2 = v >= p, 3 = not on the curve.`,
    });
    for (const l of ['i', 'd', 's', 't0', 't1']) fn.local(l, 'i32');
    const fail = (reason) => [S.release(2), bad(reason)];
    fn.push(
      S.reserve(2),
      local.set('t0', S.slot(0)),
      local.set('t1', S.slot(1)),
      local.set('i', i32.const(0)),
      block('done', [
        loop('next', [
          br_if('done', i32.ge_u(get('i'), get('count'))),
          local.set('d', i32.add(get('dst'), i32.mul(get('i'), i32.const(affineBytes)))),
          local.set('s', i32.add(get('src'), i32.mul(get('i'), i32.const(2 * B)))),
          if_(
            allZero('s', 2 * B),
            [call(fp('setZero'), X('d')), call(fp('setZero'), Y('d')), setInf('d', 1)],
            [
              ...decode('d', 's', fail),
              comment('B v^2 = ((u + A) u + 1) u'),
              call(fp('add'), get('t0'), X('d'), i32.const(layout.montA)),
              call(fp('mul'), get('t0'), get('t0'), X('d')),
              call(fp('add'), get('t0'), get('t0'), i32.const(layout.oneMont)),
              call(fp('mul'), get('t0'), get('t0'), X('d')),
              call(fp('sqr'), get('t1'), Y('d')),
              call(fp('mul'), get('t1'), get('t1'), i32.const(layout.montB)),
              if_(i32.eqz(call(fp('eq'), get('t0'), get('t1'))), fail(3)),
              comment('X = u / B + A / (3B), Y = v / B'),
              call(fp('mul'), X('d'), X('d'), i32.const(layout.mapInvB)),
              call(fp('add'), X('d'), X('d'), i32.const(layout.mapShift)),
              call(fp('mul'), Y('d'), Y('d'), i32.const(layout.mapInvB)),
              setInf('d', 0),
            ],
          ),
          local.set('i', i32.add(get('i'), i32.const(1))),
          br('next'),
        ]),
      ]),
      S.release(2),
      i32.const(-1),
    );
    funcs.push(fn);
  }

  {
    const fn = new Func(g('toBytes'), {
      params: [['dst', 'i32'], ['pt', 'i32']], result: 'i32', exportName: g('toBytes'),
      doc: edwards
        ? `${g('toBytes')}(dst, pt): encode the Edwards point of the Weierstrass point pt as x | y (${B}-byte little-endian,
canonical): u = B X - A/3, v = B Y, x = u / v, y = (u - 1) / (u + 1); infinity -> (0, 1), (A/(3B), 0) -> (0, -1).
Returns 1, or 0 (nothing written) for a point with no affine Edwards form (v = 0 with u != 0, or u = -1: points at
infinity of the Edwards curve, of order 2 or 4).`
        : `${g('toBytes')}(dst, pt): encode the Montgomery-form point of the Weierstrass point pt as u | v (${B}-byte
little-endian, canonical): u = B X - A/3, v = B Y; infinity as zeros. Returns 1, or 0 (nothing written) for the
point (0, 0), whose encoding would be that of infinity.`,
    });
    for (const l of ['u', 'v', 'w', 't']) fn.local(l, 'i32');
    const out = (k, value) => [call(fp('fromMontgomery'), get('t'), value), call(fp('toBytes'), i32.add(get('dst'), i32.const(k * B)), get('t'))];
    fn.push(
      S.reserve(4),
      local.set('u', S.slot(0)),
      local.set('v', S.slot(1)),
      local.set('w', S.slot(2)),
      local.set('t', S.slot(3)),
      if_(INF('pt'), [
        ...(edwards
          ? [call(fp('setZero'), get('w')), ...out(0, get('w')), ...out(1, i32.const(layout.oneMont))]
          : [call(fp('setZero'), get('w')), ...out(0, get('w')), ...out(1, get('w'))]),
        S.release(4),
        '(return (i32.const 1))',
      ]),
      comment('u = B (X - A/(3B)), v = B Y'),
      call(fp('sub'), get('u'), X('pt'), i32.const(layout.mapShift)),
      call(fp('mul'), get('u'), get('u'), i32.const(layout.mapB)),
      call(fp('mul'), get('v'), Y('pt'), i32.const(layout.mapB)),
      ...(edwards
        ? [
          if_(call(fp('isZero'), get('v')), [
            if_(call(fp('isZero'), get('u')), [
              comment('(0, 0) of the Montgomery form: the Edwards point (0, -1)'),
              call(fp('setZero'), get('w')),
              ...out(0, get('w')),
              call(fp('sub'), get('w'), get('w'), i32.const(layout.oneMont)),
              ...out(1, get('w')),
              S.release(4),
              '(return (i32.const 1))',
            ]),
            S.release(4),
            '(return (i32.const 0))',
          ]),
          call(fp('add'), get('w'), get('u'), i32.const(layout.oneMont)),
          if_(call(fp('isZero'), get('w')), [S.release(4), '(return (i32.const 0))']),
          comment('1 / (v (u + 1)), then x = u (u + 1) / (v (u + 1)), y = (u - 1) v / (v (u + 1))'),
          call(fp('mul'), get('t'), get('v'), get('w')),
          call(fp('inv'), get('t'), get('t')),
          call(fp('mul'), get('w'), get('w'), get('t')),
          call(fp('mul'), get('w'), get('w'), get('u')),
          call(fp('mul'), get('v'), get('v'), get('t')),
          call(fp('sub'), get('u'), get('u'), i32.const(layout.oneMont)),
          call(fp('mul'), get('v'), get('v'), get('u')),
          ...out(0, get('w')),
          ...out(1, get('v')),
        ]
        : [
          if_(i32.and(call(fp('isZero'), get('u')), call(fp('isZero'), get('v'))), [S.release(4), '(return (i32.const 0))']),
          ...out(0, get('u')),
          ...out(1, get('v')),
        ]),
      S.release(4),
      i32.const(1),
    );
    funcs.push(fn);
  }
  return funcs;
}

/**
 * g_endomorphism for a degree-2 GLV map (params/endomorphism.js): dst[i] = psi(src[i]) for count affine points,
 * psi(x, y) = (m2 (x + v e), m3 y (1 - v e^2)) with e = 1 / (x - x0), one inversion for all (dst holds the prefix
 * products meanwhile). Infinity and the kernel point (x0, 0) map to infinity. dst must not overlap src.
 */
export function degreeTwoEndomorphism(fieldParams, { fp, layout, prefix = 'g' }) {
  const { E, affineBytes, infOffset } = curveSizes(fieldParams);
  const g = (name) => `${prefix}_${name}`;
  const S = elementSlots(E);
  const get = (l) => local.get(l);
  const X = (p) => get(p);
  const Y = (p) => i32.add(get(p), i32.const(E));
  const fn = new Func(g('endomorphism'), {
    params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32']], exportName: g('endomorphism'),
    doc: `${g('endomorphism')}(dst, src, count): dst[i] = psi(src[i]) (the GLV map lambda * P, of degree 2):
psi(x, y) = (m2 (x + v / (x - x0)), m3 y (1 - v / (x - x0)^2)), one field inversion for the batch; infinity and
(x0, 0) give infinity. dst must not overlap src.`,
  });
  for (const l of ['i', 'd', 's', 'acc', 't']) fn.local(l, 'i32');
  const at = () => [
    local.set('d', i32.add(get('dst'), i32.mul(get('i'), i32.const(affineBytes)))),
    local.set('s', i32.add(get('src'), i32.mul(get('i'), i32.const(affineBytes)))),
  ];
  const skipped = i32.load(get('d'), infOffset);
  fn.push(
    S.reserve(2),
    local.set('acc', S.slot(0)),
    local.set('t', S.slot(1)),
    call(fp('setOne'), get('acc')),
    comment('forward: dst.x = e_i = x_i - x0, dst.y = the product of the earlier e_j; dst.flag = 1 where psi is infinity'),
    local.set('i', i32.const(0)),
    block('fwdDone', [
      loop('fwd', [
        br_if('fwdDone', i32.ge_u(get('i'), get('count'))),
        ...at(),
        call(fp('sub'), X('d'), X('s'), i32.const(layout.endoX0)),
        i32.store(get('d'), i32.or(i32.load(get('s'), infOffset), call(fp('isZero'), X('d'))), infOffset),
        if_(i32.eqz(skipped), [call(fp('copy'), Y('d'), get('acc')), call(fp('mul'), get('acc'), get('acc'), X('d'))]),
        local.set('i', i32.add(get('i'), i32.const(1))),
        br('fwd'),
      ]),
    ]),
    call(fp('inv'), get('acc'), get('acc')),
    comment('backward: 1/e_i = prefix_i * acc, acc *= e_i; then psi'),
    block('bwdDone', [
      loop('bwd', [
        br_if('bwdDone', i32.eqz(get('i'))),
        local.set('i', i32.sub(get('i'), i32.const(1))),
        ...at(),
        if_(
          skipped,
          [call(fp('setZero'), X('d')), call(fp('setZero'), Y('d'))],
          [
            call(fp('mul'), get('t'), Y('d'), get('acc')),
            call(fp('mul'), get('acc'), get('acc'), X('d')),
            comment('t = v e; x = m2 (x + t); y = m3 y (1 - t e)'),
            call(fp('mul'), Y('d'), get('t'), i32.const(layout.endoV)),
            call(fp('add'), X('d'), X('s'), Y('d')),
            call(fp('mul'), X('d'), X('d'), i32.const(layout.endoM2)),
            call(fp('mul'), get('t'), get('t'), Y('d')),
            call(fp('sub'), get('t'), i32.const(layout.oneMont), get('t')),
            call(fp('mul'), get('t'), get('t'), Y('s')),
            call(fp('mul'), Y('d'), get('t'), i32.const(layout.endoM3)),
          ],
        ),
        br('bwd'),
      ]),
    ]),
    S.release(2),
  );
  return fn;
}
