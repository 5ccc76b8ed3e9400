// Curve kernels over the field module's functions (prefix `fp`): affine points for the batched hot path (here),
// points from and to bytes (curve-codec.js), Jacobian points for the few steps that cannot be batched
// (curve-jacobian.js). y^2 = x^3 + a*x + b.
//
// Memory layout (documented once, used by src/curve.js):
//   affine point   = x (E bytes) | y (E bytes) | infinity flag (u32) | padding            -> affineBytes
//                    (2E + 8, or the next multiple of 64 when that costs at most 25% more: see curveSizes)
//   Jacobian point = X | Y | Z (E bytes each), infinity when Z = 0                        -> 3E bytes
// E = elementBytes of the base field; coordinates in Montgomery form, range [0, 2p).

import { Func, i32, local, comment, op, loop, block, br, br_if, if_, select } from '../wat/index.js';
import { codecKernels } from './curve-codec.js';
import { inlineAdditive, lazyOperandFits } from './field-add.js';
import { jacobianKernels } from './curve-jacobian.js';
import { elementSlots } from './scratch.js';

const call = (name, ...args) => op(`call $${name}`, ...args);

/** g_gather works in groups of this many entries, touching the next group's points while it copies one. */
const GATHER_GROUP = 32;

/**
 * Sizes of points in memory. An affine point is padded to a multiple of 64 bytes (one cache line) when
 * that costs at most a quarter more, else to the least size at which none crosses an extra line: arrays of
 * them, 64-byte aligned, then never split a point over an extra line, which matters for the random reads
 * of the bucket sort.
 */
export function curveSizes(fieldParams) {
  const E = fieldParams.elementBytes;
  const packed = 2 * E + 8;
  const lines = Math.ceil(packed / 64) * 64;
  // Else the least multiple of 8 at which no point of the array crosses more lines than its size needs: 88 bytes
  // (BN254's FMA build) would put a quarter of the points over three lines, and g_gather touches two per point.
  const crossesNoExtraLine = (size) => Array.from({ length: 8 }, (_, k) => (k * size) % 64).every((at) => Math.ceil((at + size) / 64) === Math.ceil(size / 64));
  let affineBytes = packed;
  if (packed % 64 !== 0 && lines * 4 <= packed * 5) affineBytes = lines;
  else while (!crossesNoExtraLine(affineBytes)) affineBytes += 8;
  return { E, affineBytes, jacobianBytes: 3 * E, infOffset: 2 * E };
}

/**
 * @param fieldParams from deriveFieldParams
 * @param options.fp the field's name function (op -> WAT name)
 * @param options.layout addresses of curve constants: a, b, r2 = R^2 (and beta when GLV applies)
 * @param options.aIsZero skip the a-terms
 * @param options.base for coordinates in F_p2: { fp, E } of the base field F_p. batchAdd then inverts the norms
 *   N(d) = d conj(d) in F_p (one batch over F_p) and takes 1/d = conj(d) / N(d): 7 base products per pair for
 *   the inversion instead of 9 (three F_p2 products of 3 each). Needs fp('norm') and fp('conjScale').
 * @param options.codec false: leave g_fromBytes / g_toBytes to another model's kernels (codegen/kernels/model.js)
 * @param options.batchedProducts the field has fp mul2 / mul4 (the FMA build: two / four products per call, in about
 *   the time of one / two): batchAdd (over F_p), decoding and the GLV map run their independent products together
 */
export function curveKernels(fieldParams, { fp, layout, aIsZero, hasEndomorphism, prefix = 'g', base = null, batchedProducts: batched = false, codec = true }) {
  const { E, affineBytes, infOffset } = curveSizes(fieldParams);
  const g = (name) => `${prefix}_${name}`;
  const S = elementSlots(E);
  const X = (p) => local.get(p);
  const Y = (p) => i32.add(local.get(p), i32.const(E));
  const Z = (p) => i32.add(local.get(p), i32.const(2 * E));
  const INF = (p) => i32.load(local.get(p), infOffset);
  const setInf = (p, v) => i32.store(local.get(p), i32.const(v), infOffset);
  const funcs = [];
  const ctx = { fieldParams, fp, layout, aIsZero, base, batched, g, S, X, Y, Z, INF, setInf, call, E, affineBytes };

  // --- affine -----------------------------------------------------------------------------------
  {
    const fn = new Func(g('isOnCurve'), {
      params: [['pt', 'i32']], result: 'i32', exportName: g('isOnCurve'),
      doc: `${g('isOnCurve')}(pt): 1 if the affine point satisfies y^2 = x^3 + a x + b (or is infinity), else 0.`,
    });
    fn.local('t0', 'i32');
    fn.local('t1', 'i32');
    fn.local('ok', 'i32');
    fn.push(
      if_(INF('pt'), ['(return (i32.const 1))']),
      S.reserve(2),
      local.set('t0', S.slot(0)),
      local.set('t1', S.slot(1)),
      comment('t0 = x^3 + a x + b, t1 = y^2'),
      batched
        ? call(fp('mul2'), local.get('t0'), X('pt'), X('pt'), local.get('t1'), Y('pt'), Y('pt'))
        : [call(fp('sqr'), local.get('t0'), X('pt')), call(fp('sqr'), local.get('t1'), Y('pt'))],
      aIsZero ? [] : call(fp('add'), local.get('t0'), local.get('t0'), i32.const(layout.curveA)),
      call(fp('mul'), local.get('t0'), local.get('t0'), X('pt')),
      call(fp('add'), local.get('t0'), local.get('t0'), i32.const(layout.curveB)),
      local.set('ok', call(fp('eq'), local.get('t0'), local.get('t1'))),
      S.release(2),
      local.get('ok'),
    );
    funcs.push(fn);
  }
  {
    const fn = new Func(g('gather'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['entries', 'i32'], ['count', 'i32']], exportName: g('gather'),
      doc: `${g('gather')}(dst, src, entries, count): dst[i] = +-src[entries[i] & 0x7fffffff], negated when bit 31 of
entries[i] is set. Affine points of ${affineBytes} bytes; entries are u32.`,
    });
    for (const l of ['e', 's', 'left', 'group', 'ahead', 'aheadLeft', 'touch']) fn.local(l, 'i32');
    const lines = Array.from({ length: Math.ceil(affineBytes / 64) }, (_, k) => 64 * k);
    const srcOf = (e) => i32.add(local.get('src'), i32.mul(i32.and(e, i32.const('0x7fffffff')), i32.const(affineBytes)));
    const atMost = (x, most) => select(local.get(x), i32.const(most), i32.lt_u(local.get(x), i32.const(most)));
    fn.push(
      comment('bytes of entries left, not end pointers: an array that ends at 4 GiB would have its end wrap to 0'),
      local.set('left', i32.shl(local.get('count'), i32.const(2))),
      block('done', [
        loop('group', [
          br_if('done', i32.eqz(local.get('left'))),
          local.set('group', atMost('left', 4 * GATHER_GROUP)),
          local.set('left', i32.sub(local.get('left'), local.get('group'))),
          comment(`read one word of each cache line of the next group's points: a tight loop keeps many misses in flight`),
          local.set('ahead', i32.add(local.get('entries'), local.get('group'))),
          local.set('aheadLeft', atMost('left', 4 * GATHER_GROUP)),
          block('touched', [
            loop('touch', [
              br_if('touched', i32.eqz(local.get('aheadLeft'))),
              local.set('s', srcOf(i32.load(local.get('ahead')))),
              ...lines.map((o) => local.set('touch', i32.xor(local.get('touch'), i32.load(local.get('s'), o)))),
              local.set('ahead', i32.add(local.get('ahead'), i32.const(4))),
              local.set('aheadLeft', i32.sub(local.get('aheadLeft'), i32.const(4))),
              br('touch'),
            ]),
          ]),
          comment('copy this group (its lines were touched one group earlier)'),
          block('copied', [
            loop('copy', [
              br_if('copied', i32.eqz(local.get('group'))),
              local.set('e', i32.load(local.get('entries'))),
              local.set('s', srcOf(local.get('e'))),
              call(fp('copy'), local.get('dst'), local.get('s')),
              if_(
                i32.shr_u(local.get('e'), i32.const(31)),
                [base ? call(fp('neg'), Y('dst'), Y('s')) : inlineAdditive(fn, fieldParams).neg(Y('dst'), Y('s'))],
                [call(fp('copy'), Y('dst'), Y('s'))],
              ),
              i32.store(local.get('dst'), i32.load(local.get('s'), infOffset), infOffset),
              local.set('dst', i32.add(local.get('dst'), i32.const(affineBytes))),
              local.set('entries', i32.add(local.get('entries'), i32.const(4))),
              local.set('group', i32.sub(local.get('group'), i32.const(4))),
              br('copy'),
            ]),
          ]),
          br('group'),
        ]),
      ]),
      comment('keep the look-ahead reads alive'),
      '(global.set $sink (local.get $touch))',
    );
    funcs.push(fn);
  }
  if (hasEndomorphism) {
    const fn = new Func(g('endomorphism'), {
      params: [['dst', 'i32'], ['src', 'i32'], ['count', 'i32']], exportName: g('endomorphism'),
      doc: `${g('endomorphism')}(dst, src, count): dst[i] = (beta * x, y) for count affine points (the GLV map lambda * P).`,
    });
    const step = (k) => [
      local.set('dst', i32.add(local.get('dst'), i32.const(k * affineBytes))),
      local.set('src', i32.add(local.get('src'), i32.const(k * affineBytes))),
      local.set('count', i32.sub(local.get('count'), i32.const(k))),
    ];
    const at = (p, k, part) => i32.add(local.get(p), i32.const(k * affineBytes + part * E));
    fn.push(
      batched
        ? block('groupsDone', [
          loop('group', [
            comment('four points per product call; their y and flags below, one point at a time'),
            br_if('groupsDone', i32.lt_u(local.get('count'), i32.const(4))),
            call(fp('mul4'), ...[0, 1, 2, 3].flatMap((k) => [at('dst', k, 0), at('src', k, 0), i32.const(layout.beta)])),
            ...[0, 1, 2, 3].flatMap((k) => [call(fp('copy'), at('dst', k, 1), at('src', k, 1)), i32.store(at('dst', k, 0), i32.load(at('src', k, 0), infOffset), infOffset)]),
            ...step(4),
            br('group'),
          ]),
        ])
        : [],
      block('done', [
        loop('next', [
          br_if('done', i32.eqz(local.get('count'))),
          call(fp('mul'), X('dst'), X('src'), i32.const(layout.beta)),
          call(fp('copy'), Y('dst'), Y('src')),
          i32.store(local.get('dst'), INF('src'), infOffset),
          ...step(1),
          br('next'),
        ]),
      ]),
    );
    funcs.push(fn);
  }
  {
    // Kinds of pair in a batch: what the backward pass must do.
    const SKIP = 0;
    const ADD = 1;
    const DOUBLE = 2;
    // the field of the batch inversion's running product: F_p itself, or F_p for the norms of F_p2 elements
    const accFp = base ? base.fp : fp;
    const fn = new Func(g('batchAdd'), {
      params: [['pairs', 'i32'], ['count', 'i32'], ['scratch', 'i32']], exportName: g('batchAdd'),
      doc: `${g('batchAdd')}(pairs, count, scratch): for each (dst, src) u32 pointer pair, dst = dst + src (affine), with one
field inversion for the whole batch. Every dst must be distinct and no src may be another pair's dst.
Handles every degenerate case without poisoning the batch: src = infinity (dst kept), dst = infinity
(dst = src), dst = src (doubling), dst = -src (infinity). scratch: count * ${2 * E + 4} bytes.`,
    });
    for (const l of ['i', 'dst', 'src', 'd', 'pre', 'kinds', 'lam', 't', 'acc']) fn.local(l, 'i32');
    fn.local('kind', 'i32');
    // Over F_p the subtractions are written in, not called (inlineAdditive); over F_p2 they are F_p2 kernels. Where
    // lazyOperandFits (8p < R), a difference that only feeds products as their first operand stays unreduced, in
    // (0, 4p): d_i = x2 - x1 (its zero test then takes p, 2p and 3p), the slope's numerator and x1 - x3.
    const inline = base ? null : inlineAdditive(fn, fieldParams);
    const sub = inline ? inline.sub : (out, x, y) => call(fp('sub'), out, x, y);
    const lazy = inline && lazyOperandFits(fieldParams);
    const subLazy = lazy ? inline.subLazy : sub;
    fn.local('dIsZero', 'i32');
    const dIsZero = (d) => (lazy ? inline.isZeroLazy('dIsZero', d) : local.set('dIsZero', call(fp('isZero'), d)));
    const dAt = (i) => i32.add(local.get('scratch'), i32.mul(i, i32.const(E)));
    const preAt = (i) => i32.add(i32.add(local.get('scratch'), i32.mul(local.get('count'), i32.const(E))), i32.mul(i, i32.const(E)));
    const kindAt = (i) => i32.add(local.get('kinds'), i32.shl(i, i32.const(2)));
    const loadPair = [
      local.set('dst', i32.load(i32.add(local.get('pairs'), i32.shl(local.get('i'), i32.const(3))))),
      local.set('src', i32.load(i32.add(local.get('pairs'), i32.shl(local.get('i'), i32.const(3))), 4)),
      local.set('d', dAt(local.get('i'))),
      local.set('pre', preAt(local.get('i'))),
    ];
    // lam = the slope's numerator of pair (dst, src): y2 - y1, or 3 x1^2 + a to double (t: scratch)
    const numerator = (kind, lam, t, dst, src) => if_(
      i32.eq(kind, i32.const(DOUBLE)),
      [
        comment('doubling: numerator 3 x^2 + a'),
        call(fp('sqr'), local.get(t), X(dst)),
        call(fp('add'), local.get(lam), local.get(t), local.get(t)),
        call(fp('add'), local.get(lam), local.get(lam), local.get(t)),
        aIsZero ? [] : call(fp('add'), local.get(lam), local.get(lam), i32.const(layout.curveA)),
      ],
      [subLazy(local.get(lam), Y(src), Y(dst))],
    );
    // with t = lambda^2: t = x3 = lambda^2 - x1 - x2 and u = x1 - x3; then, with u = lambda (x1 - x3): y3 = u - y1, x1 = x3
    const x3 = (t, u, dst, src) => [
      sub(local.get(t), local.get(t), X(dst)),
      sub(local.get(t), local.get(t), X(src)),
      subLazy(local.get(u), X(dst), local.get(t)),
    ];
    const y3 = (t, u, dst) => [sub(Y(dst), local.get(u), Y(dst)), call(fp('copy'), X(dst), local.get(t))];
    // pair i (loadPair done): kind_i, and d_i = x2 - x1 (or 2 y1 to double) when it adds; the dst-only cases done here
    const classify = [
      local.set('kind', i32.const(SKIP)),
      if_(i32.eqz(INF('src')), [
        if_(
          INF('dst'),
          [comment('infinity + Q = Q'), call(fp('copy'), X('dst'), X('src')), call(fp('copy'), Y('dst'), Y('src')), setInf('dst', 0)],
          [
            subLazy(local.get('d'), X('src'), X('dst')),
            local.set('kind', i32.const(ADD)),
            dIsZero(local.get('d')),
            if_(local.get('dIsZero'), [
              comment('same x: P + P doubles (unless y = 0), P + (-P) is infinity'),
              local.set('kind', i32.const(SKIP)),
              if_(
                i32.and(call(fp('eq'), Y('dst'), Y('src')), i32.eqz(call(fp('isZero'), Y('dst')))),
                [call(fp('add'), local.get('d'), Y('dst'), Y('dst')), local.set('kind', i32.const(DOUBLE))],
                [setInf('dst', 1)],
              ),
            ]),
          ],
        ),
      ]),
      i32.store(kindAt(local.get('i')), local.get('kind')),
    ];
    if (batched && !base) {
      funcs.push(batchAddFourLanes({ fn, E, affineBytes, layout, fp, S, X, Y, loadPair, classify, numerator, x3, y3, kindAt, dAt, preAt, SKIP }));
    } else {
      fn.push(
        local.set('kinds', i32.add(local.get('scratch'), i32.mul(local.get('count'), i32.const(2 * E)))),
        S.reserve(3),
        local.set('acc', S.slot(0)),
        local.set('lam', S.slot(1)),
        local.set('t', S.slot(2)),
        call(accFp('setOne'), local.get('acc')),
        comment('forward: classify each pair, d_i = x2 - x1 (or 2 y1 to double), prefix products of the d_i'),
        local.set('i', i32.const(0)),
        block('fwdDone', [
          loop('fwd', [
            br_if('fwdDone', i32.ge_u(local.get('i'), local.get('count'))),
            ...loadPair,
            ...classify,
            if_(local.get('kind'), [
              ...(base
                ? [
                  comment('pre = (prefix product of the norms, N(d_i)) in F_p, acc *= N(d_i)'),
                  call(base.fp('copy'), local.get('pre'), local.get('acc')),
                  call(fp('norm'), i32.add(local.get('pre'), i32.const(base.E)), local.get('d')),
                  call(base.fp('mul'), local.get('acc'), local.get('acc'), i32.add(local.get('pre'), i32.const(base.E))),
                ]
                : [call(fp('copy'), local.get('pre'), local.get('acc')), call(fp('mul'), local.get('acc'), local.get('d'), local.get('acc'))]),
            ]),
            local.set('i', i32.add(local.get('i'), i32.const(1))),
            br('fwd'),
          ]),
        ]),
        call(accFp('inv'), local.get('acc'), local.get('acc')),
        comment('backward: 1/d_i = prefix_i * acc, then acc *= d_i; lambda, x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1'),
        block('bwdDone', [
          loop('bwd', [
            br_if('bwdDone', i32.eqz(local.get('i'))),
            local.set('i', i32.sub(local.get('i'), i32.const(1))),
            local.set('kind', i32.load(kindAt(local.get('i')))),
            if_(local.get('kind'), [
              ...loadPair,
              ...(base
                ? [
                  comment('1/N(d_i) = prefix_i * acc, acc *= N(d_i), then 1/d_i = conj(d_i) / N(d_i)'),
                  call(base.fp('mul'), local.get('pre'), local.get('pre'), local.get('acc')),
                  call(base.fp('mul'), local.get('acc'), local.get('acc'), i32.add(local.get('pre'), i32.const(base.E))),
                  call(fp('conjScale'), local.get('pre'), local.get('d'), local.get('pre')),
                ]
                : [call(fp('mul'), local.get('pre'), local.get('pre'), local.get('acc')), call(fp('mul'), local.get('acc'), local.get('d'), local.get('acc'))]),
              numerator(local.get('kind'), 'lam', 't', 'dst', 'src'),
              call(fp('mul'), local.get('lam'), local.get('lam'), local.get('pre')),
              call(fp('sqr'), local.get('t'), local.get('lam')),
              ...x3('t', 'pre', 'dst', 'src'),
              comment('y3 = lambda (x1 - x3) - y1, with x3 in t'),
              call(fp('mul'), local.get('pre'), local.get('pre'), local.get('lam')),
              ...y3('t', 'pre', 'dst'),
            ]),
            br('bwd'),
          ]),
        ]),
        S.release(3),
      );
      funcs.push(fn);
    }
  }

  if (codec) funcs.push(...codecKernels(ctx));
  funcs.push(...jacobianKernels(ctx));
  return funcs;
}

/**
 * g_batchAdd with its products four at a time (the FMA build's fp mul4, which runs four products in about the time
 * of two): the same contract and the same formulas as the one-at-a-time loop. Pair i joins prefix-product stream
 * i mod 4, so the forward and backward chains run four abreast; the four stream totals share one inversion; then
 * each group of four pairs takes its inverses, lambdas, squares and y products four per call. A pair that does not
 * add gets d_i = 1 and works on a zero dummy point, and lanes past the end read the constant 1: no lane branches
 * around a four-lane call.
 */
function batchAddFourLanes({ fn, E, affineBytes, layout, fp, S, X, Y, classify, loadPair, numerator, x3, y3, kindAt, dAt, preAt, SKIP }) {
  const LANES = [0, 1, 2, 3];
  const dummySlots = Math.ceil(affineBytes / E);
  // stack: acc_s, lam_s, t_s (4 each), spare (the pre of a lane past the end), 3 temporaries, the dummy point
  const reserved = 16 + dummySlots;
  for (const name of ['spare', 'tmp0', 'tmp1', 'tmp2', 'dummy']) fn.local(name, 'i32');
  for (const s of LANES) for (const name of ['acc', 'lam', 't', 'dst', 'src', 'd', 'pre', 'kind']) fn.local(`${name}${s}`, 'i32');
  const get = (name) => local.get(name);
  const four = (kernel, out, x, y) => call(fp(kernel), ...LANES.flatMap((s) => [get(`${out}${s}`), get(`${x}${s}`), get(`${y}${s}`)]));
  const perLane = (body) => LANES.flatMap(body);
  const index = (s) => i32.add(get('i'), i32.const(s));
  const inRange = (s) => i32.lt_u(index(s), get('count'));
  const pairWord = (s, offset) => i32.load(i32.add(get('pairs'), i32.shl(index(s), i32.const(3))), offset);
  // d_s and pre_s of lane s: pair i + s, or the constant 1 and the spare slot past the end
  const laneSlots = (s) => [
    local.set(`d${s}`, select(dAt(index(s)), i32.const(layout.oneMont), inRange(s))),
    local.set(`pre${s}`, select(preAt(index(s)), get('spare'), inRange(s))),
  ];
  fn.push(
    local.set('kinds', i32.add(get('scratch'), i32.mul(get('count'), i32.const(2 * E)))),
    S.reserve(reserved),
    ...perLane((s) => [
      local.set(`acc${s}`, S.slot(s)),
      local.set(`lam${s}`, S.slot(4 + s)),
      local.set(`t${s}`, S.slot(8 + s)),
      call(fp('setOne'), get(`acc${s}`)),
    ]),
    local.set('spare', S.slot(12)),
    local.set('tmp0', S.slot(13)),
    local.set('tmp1', S.slot(14)),
    local.set('tmp2', S.slot(15)),
    local.set('dummy', S.slot(16)),
    call(fp('setZero'), X('dummy')),
    call(fp('setZero'), Y('dummy')),
    comment('classify every pair, d_i = x2 - x1 (or 2 y1 to double); a pair that does not add gets d_i = 1'),
    local.set('i', i32.const(0)),
    block('classified', [
      loop('classify', [
        br_if('classified', i32.ge_u(get('i'), get('count'))),
        ...loadPair,
        ...classify,
        if_(i32.eqz(get('kind')), [call(fp('setOne'), get('d'))]),
        local.set('i', i32.add(get('i'), i32.const(1))),
        br('classify'),
      ]),
    ]),
    comment('forward, four streams: pre_i = product of the d_j with j < i, j = i mod 4; acc_s = the product of stream s'),
    local.set('i', i32.const(0)),
    block('fwdDone', [
      loop('fwd', [
        br_if('fwdDone', i32.ge_u(get('i'), get('count'))),
        ...perLane((s) => [...laneSlots(s), call(fp('copy'), get(`pre${s}`), get(`acc${s}`))]),
        four('mul4', 'acc', 'd', 'acc'),
        local.set('i', i32.add(get('i'), i32.const(4))),
        br('fwd'),
      ]),
    ]),
    comment('one inversion for the four streams: 1/acc_0 = acc_1 / (acc_0 acc_1 acc_2 acc_3), and so on'),
    call(fp('mul2'), get('tmp0'), get('acc0'), get('acc1'), get('tmp1'), get('acc2'), get('acc3')),
    call(fp('mul'), get('tmp2'), get('tmp0'), get('tmp1')),
    call(fp('inv'), get('tmp2'), get('tmp2')),
    call(fp('mul2'), get('tmp0'), get('tmp2'), get('tmp1'), get('tmp1'), get('tmp2'), get('tmp0')),
    call(fp('mul4'), get('acc0'), get('tmp0'), get('acc1'), get('acc1'), get('tmp0'), get('acc0'), get('acc2'), get('tmp1'), get('acc3'), get('acc3'), get('tmp1'), get('acc2')),
    comment('backward, four pairs at a time from the last group: 1/d_i = pre_i acc_s, then acc_s *= d_i; lambda, x3, y3'),
    local.set('i', i32.and(i32.add(get('count'), i32.const(3)), i32.const(-4))),
    block('bwdDone', [
      loop('bwd', [
        br_if('bwdDone', i32.eqz(get('i'))),
        local.set('i', i32.sub(get('i'), i32.const(4))),
        ...perLane((s) => [
          ...laneSlots(s),
          local.set(`kind${s}`, i32.const(SKIP)),
          if_(inRange(s), [local.set(`kind${s}`, i32.load(kindAt(index(s))))]),
          local.set(`dst${s}`, get('dummy')),
          local.set(`src${s}`, get('dummy')),
          if_(get(`kind${s}`), [local.set(`dst${s}`, pairWord(s, 0)), local.set(`src${s}`, pairWord(s, 4))]),
        ]),
        four('mul4', 'pre', 'pre', 'acc'),
        four('mul4', 'acc', 'd', 'acc'),
        ...perLane((s) => [numerator(get(`kind${s}`), `lam${s}`, `t${s}`, `dst${s}`, `src${s}`)]),
        four('mul4', 'lam', 'lam', 'pre'),
        four('mul4', 't', 'lam', 'lam'),
        ...perLane((s) => x3(`t${s}`, `pre${s}`, `dst${s}`, `src${s}`)),
        comment('y3 = lambda (x1 - x3) - y1, x3 = t'),
        four('mul4', 'pre', 'pre', 'lam'),
        ...perLane((s) => y3(`t${s}`, `pre${s}`, `dst${s}`)),
        br('bwd'),
      ]),
    ]),
    S.release(reserved),
  );
  return fn;
}
