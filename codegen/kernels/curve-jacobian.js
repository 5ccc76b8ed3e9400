// The Jacobian kernels of curveKernels (codegen/kernels/curve.js): conversions to and from affine, doubling and a
// complete addition, for the few steps of the MSM that cannot be batched (combining windows and threads' sums).
// Jacobian point = X | Y | Z (E bytes each), infinity when Z = 0.

import { Func, i32, local, comment, if_ } from '../wat/index.js';

/** g_jacFromAffine, g_jacToAffine, g_jacDouble, g_jacCopy, g_jacNeg, g_jacIsInfinity and g_jacAdd over curveKernels' context. */
export function jacobianKernels({ fp, layout, aIsZero, g, S, X, Y, Z, INF, setInf, call, E }) {
  const funcs = [];
  {
    const fn = new Func(g('jacFromAffine'), {
      params: [['out', 'i32'], ['pt', 'i32']], exportName: g('jacFromAffine'),
      doc: `${g('jacFromAffine')}(out, pt): Jacobian (x, y, 1), or Z = 0 for infinity.`,
    });
    fn.push(
      if_(INF('pt'), [call(fp('setOne'), X('out')), call(fp('setOne'), Y('out')), call(fp('setZero'), Z('out'))], [
        call(fp('copy'), X('out'), X('pt')),
        call(fp('copy'), Y('out'), Y('pt')),
        call(fp('setOne'), Z('out')),
      ]),
    );
    funcs.push(fn);
  }
  {
    const fn = new Func(g('jacToAffine'), {
      params: [['out', 'i32'], ['pt', 'i32']], exportName: g('jacToAffine'),
      doc: `${g('jacToAffine')}(out, pt): affine (X/Z^2, Y/Z^3) with one inversion; Z = 0 gives infinity.
Coordinates canonical [0, p).`,
    });
    fn.local('zi', 'i32');
    fn.local('zz', 'i32');
    fn.push(
      if_(call(fp('isZero'), Z('pt')), [call(fp('setZero'), X('out')), call(fp('setZero'), Y('out')), setInf('out', 1), '(return)']),
      S.reserve(2),
      local.set('zi', S.slot(0)),
      local.set('zz', S.slot(1)),
      call(fp('inv'), local.get('zi'), Z('pt')),
      call(fp('sqr'), local.get('zz'), local.get('zi')),
      call(fp('mul'), Y('out'), Y('pt'), local.get('zz')),
      call(fp('mul'), Y('out'), Y('out'), local.get('zi')),
      call(fp('mul'), X('out'), X('pt'), local.get('zz')),
      call(fp('reduce'), X('out'), X('out')),
      call(fp('reduce'), Y('out'), Y('out')),
      setInf('out', 0),
      S.release(2),
    );
    funcs.push(fn);
  }
  {
    const fn = new Func(g('jacDouble'), {
      params: [['out', 'i32'], ['pt', 'i32']], exportName: g('jacDouble'),
      doc: `${g('jacDouble')}(out, pt): out = 2 pt (Jacobian). out may alias pt.
XX = X^2, YY = Y^2, S = 4 X YY, M = 3 XX + a Z^4, X3 = M^2 - 2S, Y3 = M (S - X3) - 8 YY^2, Z3 = 2 Y Z.`,
    });
    for (const l of ['xx', 'yy', 's', 'm', 't']) fn.local(l, 'i32');
    fn.push(
      S.reserve(5),
      local.set('xx', S.slot(0)), local.set('yy', S.slot(1)), local.set('s', S.slot(2)), local.set('m', S.slot(3)), local.set('t', S.slot(4)),
      call(fp('sqr'), local.get('xx'), X('pt')),
      call(fp('sqr'), local.get('yy'), Y('pt')),
      call(fp('mul'), local.get('s'), X('pt'), local.get('yy')),
      call(fp('add'), local.get('s'), local.get('s'), local.get('s')),
      call(fp('add'), local.get('s'), local.get('s'), local.get('s')),
      call(fp('add'), local.get('m'), local.get('xx'), local.get('xx')),
      call(fp('add'), local.get('m'), local.get('m'), local.get('xx')),
      aIsZero ? [] : [
        call(fp('sqr'), local.get('t'), Z('pt')),
        call(fp('sqr'), local.get('t'), local.get('t')),
        call(fp('mul'), local.get('t'), local.get('t'), i32.const(layout.curveA)),
        call(fp('add'), local.get('m'), local.get('m'), local.get('t')),
      ],
      comment('Z3 = 2 Y Z first, before Y is overwritten'),
      call(fp('mul'), Z('out'), Y('pt'), Z('pt')),
      call(fp('add'), Z('out'), Z('out'), Z('out')),
      call(fp('sqr'), local.get('t'), local.get('m')),
      call(fp('sub'), local.get('t'), local.get('t'), local.get('s')),
      call(fp('sub'), X('out'), local.get('t'), local.get('s')),
      call(fp('sub'), local.get('t'), local.get('s'), X('out')),
      call(fp('mul'), local.get('t'), local.get('t'), local.get('m')),
      call(fp('sqr'), local.get('yy'), local.get('yy')),
      call(fp('add'), local.get('yy'), local.get('yy'), local.get('yy')),
      call(fp('add'), local.get('yy'), local.get('yy'), local.get('yy')),
      call(fp('add'), local.get('yy'), local.get('yy'), local.get('yy')),
      call(fp('sub'), Y('out'), local.get('t'), local.get('yy')),
      S.release(5),
    );
    funcs.push(fn);
  }
  {
    const fn = new Func(g('jacAdd'), {
      params: [['out', 'i32'], ['p1', 'i32'], ['p2', 'i32']], exportName: g('jacAdd'),
      doc: `${g('jacAdd')}(out, p1, p2): out = p1 + p2 (Jacobian), complete: infinity, p1 = p2 and p1 = -p2 handled.
out may alias p1 or p2.`,
    });
    for (const l of ['z1z1', 'z2z2', 'u1', 'u2', 's1', 's2', 'h', 'r', 'hh', 'hhh', 'v']) fn.local(l, 'i32');
    const Pz = (p) => i32.add(local.get(p), i32.const(2 * E));
    fn.push(
      if_(call(fp('isZero'), Pz('p1')), [call(g('jacCopy'), local.get('out'), local.get('p2')), '(return)']),
      if_(call(fp('isZero'), Pz('p2')), [call(g('jacCopy'), local.get('out'), local.get('p1')), '(return)']),
      S.reserve(11),
      ...['z1z1', 'z2z2', 'u1', 'u2', 's1', 's2', 'h', 'r', 'hh', 'hhh', 'v'].map((l, i) => local.set(l, S.slot(i))),
      call(fp('sqr'), local.get('z1z1'), Pz('p1')),
      call(fp('sqr'), local.get('z2z2'), Pz('p2')),
      call(fp('mul'), local.get('u1'), X('p1'), local.get('z2z2')),
      call(fp('mul'), local.get('u2'), X('p2'), local.get('z1z1')),
      call(fp('mul'), local.get('s1'), Y('p1'), Pz('p2')),
      call(fp('mul'), local.get('s1'), local.get('s1'), local.get('z2z2')),
      call(fp('mul'), local.get('s2'), Y('p2'), Pz('p1')),
      call(fp('mul'), local.get('s2'), local.get('s2'), local.get('z1z1')),
      call(fp('sub'), local.get('h'), local.get('u2'), local.get('u1')),
      call(fp('sub'), local.get('r'), local.get('s2'), local.get('s1')),
      if_(call(fp('isZero'), local.get('h')), [
        if_(
          call(fp('isZero'), local.get('r')),
          [comment('same point: double'), call(g('jacDouble'), local.get('out'), local.get('p1'))],
          [comment('opposite points: infinity'), call(fp('setOne'), X('out')), call(fp('setOne'), Y('out')), call(fp('setZero'), Z('out'))],
        ),
        S.release(11),
        '(return)',
      ]),
      comment('X3 = r^2 - H^3 - 2 U1 H^2, Y3 = r (U1 H^2 - X3) - S1 H^3, Z3 = Z1 Z2 H'),
      call(fp('sqr'), local.get('hh'), local.get('h')),
      call(fp('mul'), local.get('hhh'), local.get('h'), local.get('hh')),
      call(fp('mul'), local.get('v'), local.get('u1'), local.get('hh')),
      call(fp('mul'), Z('out'), Pz('p1'), Pz('p2')),
      call(fp('mul'), Z('out'), Z('out'), local.get('h')),
      call(fp('sqr'), local.get('u2'), local.get('r')),
      call(fp('sub'), local.get('u2'), local.get('u2'), local.get('hhh')),
      call(fp('sub'), local.get('u2'), local.get('u2'), local.get('v')),
      call(fp('sub'), X('out'), local.get('u2'), local.get('v')),
      call(fp('sub'), local.get('v'), local.get('v'), X('out')),
      call(fp('mul'), local.get('v'), local.get('v'), local.get('r')),
      call(fp('mul'), local.get('s1'), local.get('s1'), local.get('hhh')),
      call(fp('sub'), Y('out'), local.get('v'), local.get('s1')),
      S.release(11),
    );
    const copy = new Func(g('jacCopy'), { params: [['out', 'i32'], ['pt', 'i32']], exportName: g('jacCopy'), doc: `${g('jacCopy')}(out, pt): out = pt.` });
    copy.push(call(fp('copy'), X('out'), X('pt')), call(fp('copy'), Y('out'), Y('pt')), call(fp('copy'), Z('out'), Z('pt')));
    const neg = new Func(g('jacNeg'), { params: [['out', 'i32'], ['pt', 'i32']], exportName: g('jacNeg'), doc: `${g('jacNeg')}(out, pt): out = -pt (Y negated). out may alias pt.` });
    neg.push(call(fp('copy'), X('out'), X('pt')), call(fp('neg'), Y('out'), Y('pt')), call(fp('copy'), Z('out'), Z('pt')));
    const isInf = new Func(g('jacIsInfinity'), {
      params: [['pt', 'i32']], result: 'i32', exportName: g('jacIsInfinity'), doc: `${g('jacIsInfinity')}(pt): 1 if pt is the point at infinity (Z = 0), else 0.`,
    });
    isInf.push(call(fp('isZero'), Z('pt')));
    funcs.push(copy, neg, isInf, fn);
  }
  return funcs;
}
