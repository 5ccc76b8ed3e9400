// The curve kernels that read and write points as bytes (codegen/kernels/curve.js's codec part):
// g_fromScaledBytes / g_fromBytes (x | y little-endian, all zero = infinity, into Montgomery-form affine points,
// checked: coordinates < p, on the curve) and g_toBytes. Twisted-Edwards and Montgomery-form curves have their own
// (codegen/kernels/model.js).

import { Func, i32, i64, local, comment, loop, block, br, br_if, if_ } from '../wat/index.js';

/**
 * 1 when the `bytes` bytes at local `ptr` (+ offset) are all zero, else 0: one OR of i64 words (then of the last
 * bytes), unrolled.
 */
export function allZero(ptr, bytes, offset = 0) {
  const words = Array.from({ length: Math.floor(bytes / 8) }, (_, k) => i64.load(local.get(ptr), offset + 8 * k));
  for (let k = 8 * words.length; k < bytes; k++) words.push(i64.extend_i32_u(i32.load8_u(local.get(ptr), offset + k)));
  return i64.eqz(words.reduce((acc, w) => i64.or(acc, w)));
}

/** g_fromScaledBytes, g_fromBytes and g_toBytes over curveKernels' context (its helpers and options). */
export function codecKernels({ fieldParams, fp, layout, aIsZero, base, batched, g, S, X, Y, INF, setInf, call, affineBytes }) {
  const funcs = [];
  {
    const B = fieldParams.bytes;
    const fn = new Func(g('fromScaledBytes'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32'], ['scale', 'i32']], result: 'i32', exportName: g('fromScaledBytes'),
      doc: `${g('fromScaledBytes')}(dst, src, count, scale): decode count affine points, each x | y as ${B}-byte little-endian
integers v < p (all zero = infinity), into Montgomery-form points at dst: each base-field part becomes v K / R, K the
base-field element at scale (normal limbs). K = R^2 reads normal form (g_fromBytes); K = R^2 / 2^k reads values
already multiplied by 2^k (snarkjs' Montgomery form), with no conversion pass before. Returns -1 when all are valid,
else 4 * index + reason for the first bad one: 1 = x >= p, 2 = y >= p, 3 = not on the curve.`,
    });
    fn.local('i', 'i32');
    fn.local('zero', 'i32');
    // FMA build, points over F_p: four points per step where none is infinity and every coordinate is below p, their
    // products four per call (mul4); else one point at a time, which finds the first bad point in order
    const four = batched && !base;
    const K4 = [0, 1, 2, 3];
    if (four) for (const k of K4) fn.local(`p${k}`, 'i32');
    const t0 = (k) => S.slot(2 * k);
    const t1 = (k) => S.slot(2 * k + 1);
    const fours = four
      ? [
        block('one', [
          br_if('one', i32.gt_u(i32.add(local.get('i'), i32.const(4)), local.get('count'))),
          br_if('one', K4.map((k) => allZero('src', 2 * B, 2 * B * k)).reduce((x, y) => i32.or(x, y))),
          ...K4.map((k) => local.set(`p${k}`, k ? i32.add(local.get('dst'), i32.const(k * affineBytes)) : local.get('dst'))),
          br_if('one', i32.eqz(K4.flatMap((k) => [
            call(fp('fromBytes'), X(`p${k}`), i32.add(local.get('src'), i32.const(2 * B * k))),
            call(fp('fromBytes'), Y(`p${k}`), i32.add(local.get('src'), i32.const(2 * B * k + B))),
          ]).reduce((x, y) => i32.and(x, y)))),
          comment('four points, none infinity, coordinates below p: to Montgomery form, then y^2 = x^3 + a x + b, four products per call'),
          ...[0, 2].map((h) => call(fp('mul4'), ...[h, h + 1].flatMap((k) => [X(`p${k}`), X(`p${k}`), local.get('scale'), Y(`p${k}`), Y(`p${k}`), local.get('scale')]))),
          ...K4.map((k) => setInf(`p${k}`, 0)),
          S.reserve(8),
          ...[0, 2].map((h) => call(fp('mul4'), ...[h, h + 1].flatMap((k) => [t0(k), X(`p${k}`), X(`p${k}`), t1(k), Y(`p${k}`), Y(`p${k}`)]))),
          ...(aIsZero ? [] : K4.map((k) => call(fp('add'), t0(k), t0(k), i32.const(layout.curveA)))),
          call(fp('mul4'), ...K4.flatMap((k) => [t0(k), t0(k), X(`p${k}`)])),
          ...K4.map((k) => call(fp('add'), t0(k), t0(k), i32.const(layout.curveB))),
          ...K4.map((k) => if_(i32.eqz(call(fp('eq'), t0(k), t1(k))), [
            S.release(8),
            `(return (i32.add (i32.shl (i32.add (local.get $i) (i32.const ${k})) (i32.const 2)) (i32.const 3)))`,
          ])),
          S.release(8),
          local.set('src', i32.add(local.get('src'), i32.const(8 * B))),
          local.set('dst', i32.add(local.get('dst'), i32.const(4 * affineBytes))),
          local.set('i', i32.add(local.get('i'), i32.const(4))),
          br('next'),
        ]),
      ]
      : [];
    fn.push(
      local.set('i', i32.const(0)),
      block('done', [
        loop('next', [
          br_if('done', i32.ge_u(local.get('i'), local.get('count'))),
          ...fours,
          comment(`all-zero encoding = infinity: the OR of its ${2 * B} bytes, 8 at a time`),
          local.set('zero', allZero('src', 2 * B)),
          if_(
            local.get('zero'),
            [call(fp('setZero'), X('dst')), call(fp('setZero'), Y('dst')), setInf('dst', 1)],
            [
              if_(i32.eqz(call(fp('fromBytes'), X('dst'), local.get('src'))), [`(return (i32.add (i32.shl (local.get $i) (i32.const 2)) (i32.const 1)))`]),
              if_(i32.eqz(call(fp('fromBytes'), Y('dst'), i32.add(local.get('src'), i32.const(B)))), [`(return (i32.add (i32.shl (local.get $i) (i32.const 2)) (i32.const 2)))`]),
              comment('to Montgomery form: mont(v, K) for every base-field part of x and y'),
              base
                ? (() => {
                  const parts = [X, Y].flatMap((C) => [0, 1].map((k) => (k ? i32.add(C('dst'), i32.const(k * base.E)) : C('dst'))));
                  // the four base-field parts of x and y: one call where the products come four per call
                  return base.batched
                    ? call(base.fp('mul4'), ...parts.flatMap((part) => [part, part, local.get('scale')]))
                    : parts.map((part) => call(base.fp('mul'), part, part, local.get('scale')));
                })()
                : batched
                  ? call(fp('mul2'), X('dst'), X('dst'), local.get('scale'), Y('dst'), Y('dst'), local.get('scale'))
                  : [call(fp('mul'), X('dst'), X('dst'), local.get('scale')), call(fp('mul'), Y('dst'), Y('dst'), local.get('scale'))],
              setInf('dst', 0),
              if_(i32.eqz(call(g('isOnCurve'), local.get('dst'))), [`(return (i32.add (i32.shl (local.get $i) (i32.const 2)) (i32.const 3)))`]),
            ],
          ),
          local.set('src', i32.add(local.get('src'), i32.const(2 * B))),
          local.set('dst', i32.add(local.get('dst'), i32.const(affineBytes))),
          local.set('i', i32.add(local.get('i'), i32.const(1))),
          br('next'),
        ]),
      ]),
      i32.const(-1),
    );
    funcs.push(fn);
    const plain = new Func(g('fromBytes'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32']], result: 'i32', exportName: g('fromBytes'),
      doc: `${g('fromBytes')}(dst, src, count): ${g('fromScaledBytes')} with K = R^2: points in normal form.`,
    });
    plain.push(call(g('fromScaledBytes'), local.get('dst'), local.get('src'), local.get('count'), i32.const(layout.r2)));
    funcs.push(plain);
  }
  {
    const B = fieldParams.bytes;
    const fn = new Func(g('toBytes'), {
      params: [['dst', 'i32'], ['pt', 'i32']], exportName: g('toBytes'),
      result: 'i32',
      doc: `${g('toBytes')}(dst, pt): encode an affine point as x | y (${B}-byte little-endian each, canonical), infinity as zeros.
Returns 1 (every point has this encoding; the other models' g_toBytes can return 0).`,
    });
    fn.local('t', 'i32');
    fn.push(
      S.reserve(1),
      local.set('t', S.slot(0)),
      if_(
        INF('pt'),
        [call(fp('setZero'), local.get('t')), call(fp('toBytes'), local.get('dst'), local.get('t')), call(fp('toBytes'), i32.add(local.get('dst'), i32.const(B)), local.get('t'))],
        [
          call(fp('fromMontgomery'), local.get('t'), X('pt')),
          call(fp('toBytes'), local.get('dst'), local.get('t')),
          call(fp('fromMontgomery'), local.get('t'), Y('pt')),
          call(fp('toBytes'), i32.add(local.get('dst'), i32.const(B)), local.get('t')),
        ],
      ),
      S.release(1),
      i32.const(1),
    );
    funcs.push(fn);
  }

  return funcs;
}
