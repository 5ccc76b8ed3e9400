// The Groth16 prover's kernels over the scalar field Fr, beside the NTT in the Fr module: the QAP's evaluations on
// the domain from a snarkjs zkey's coefficients and a witness, and the join A * B - C on the coset that gives the H
// MSM's scalars. Names take the module's prefix (fr_...); elements are Montgomery form (x R' mod r, R' = 2^(n w))
// in [0, 2r) unless a doc says otherwise.
//
// snarkjs's encodings these kernels read (ffjavascript's Montgomery radix is R_ff = 2^(8 n8), n8 = params.bytes):
//   witness values: canonical little-endian n8-byte integers w in [0, r);
//   coefficient records: u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal, then the value as the canonical
//   n8-byte integer v = c R_ff^2 mod r (c the coefficient), which ffjavascript multiplies, as a Montgomery
//   representative, by the raw witness: v w / R_ff = c w R_ff, the Montgomery form of c w in its radix.
// Here the witness is stored once as the representative X = w (R' / R_ff)^2 mod r (the Montgomery form of w R' / R_ff^2),
// so that one of our products with the raw v gives v X / R' = c w R' : the Montgomery form of c w in our radix, with
// no per-record correction.

import { Func, i32, local, comment, op, block, loop, br, br_if, if_, ret } from '../wat/index.js';
import { modInverse } from '../params/number-theory.js';
import { elementAt, fourPerCall, releaseStack as release, reserveStack as reserve, stepsOfFour } from './scratch.js';

/** The Montgomery-form constant the witness is multiplied by: (R' / R_ff)^2 mod r. */
export function witnessScale(params) {
  const { p, R, bytes } = params;
  const Rff = 1n << BigInt(8 * bytes);
  return (((R % p) * (R % p)) % p * modInverse((Rff * Rff) % p, p)) % p;
}

/** Statements that run `body` for i = 0 .. count - 1 (locals i, count); from: false continues from the i there is. */
const forEach = (label, body, { from = true } = {}) => [
  ...(from ? [local.set('i', i32.const(0))] : []),
  block(`${label}Done`, [
    loop(label, [br_if(`${label}Done`, i32.ge_u(local.get('i'), local.get('count'))), ...body, local.set('i', i32.add(local.get('i'), i32.const(1))), br(label)]),
  ]),
];

/** stepsOfFour (codegen/kernels/scratch.js) from i = 0. */
const forEachFour = (label, body) => [local.set('i', i32.const(0)), ...stepsOfFour(label, body)];

const K4 = [0, 1, 2, 3];

/**
 * The four kernels, for a module built by buildFieldModule with prefix `prefix`; scaleAddress holds witnessScale
 * in Montgomery form (an extra constant of the module), oneAddress the integer 1 (its `oneNormal`). Where the
 * products come four per call (the FMA build's mul4) each kernel runs four elements or records per step first.
 */
export function groth16Kernels(params, { prefix = 'fr', scaleAddress, oneAddress }) {
  const f = (name) => `${prefix}_${name}`;
  const E = params.elementBytes;
  const n8 = params.bytes;
  const four = fourPerCall(params);
  const at = (base, index, size) => elementAt(size, base, index);
  const callF = (name, ...args) => op(`call $${f(name)}`, ...args);
  const plusI = (k) => (k ? i32.add(local.get('i'), i32.const(k)) : local.get('i'));
  const allOf = (conditions) => conditions.reduce((x, y) => i32.and(x, y));

  const witness = new Func(f('qapWitness'), {
    params: [['out', 'i32'], ['bytes', 'i32'], ['count', 'i32']], result: 'i32', exportName: f('qapWitness'),
    doc: `${f('qapWitness')}(out, bytes, count): out[i] = the representative w_i (R'/R_ff)^2 mod r (the Montgomery form of
w_i R'/R_ff^2), w_i the ${n8}-byte little-endian integer at bytes + ${n8} i (a .wtns value), for the coefficient products of
${f('qapEvaluate')}. Returns 0, or i + 1 for the first w_i >= r (the outputs from it on are then unspecified). Outputs in
[0, 2r). out may not overlap bytes.`,
  });
  witness.local('i', 'i32');
  witness.local('o', 'i32');
  witness.push(
    ...(four
      ? forEachFour('fours', [
        comment('four values below r (else one at a time from here, which stops at the first that is not), then their products'),
        br_if('foursDone', i32.eqz(allOf(K4.map((k) => callF('fromBytes', at('out', plusI(k), E), at('bytes', plusI(k), n8)))))),
        callF('mul4', ...K4.flatMap((k) => [at('out', plusI(k), E), at('out', plusI(k), E), i32.const(scaleAddress)])),
      ])
      : []),
    ...forEach('each', [
      local.set('o', at('out', local.get('i'), E)),
      if_(i32.eqz(callF('fromBytes', local.get('o'), at('bytes', local.get('i'), n8))), [ret(i32.add(local.get('i'), i32.const(1)))]),
      comment("X = mont(w, scale R') = w (R'/R_ff)^2"),
      callF('mul', local.get('o'), local.get('o'), i32.const(scaleAddress)),
    ], { from: !four }),
    ret(i32.const(0)),
  );

  const record = 12 + n8;
  const scratch = four ? 4 * E : E;
  const evaluate = new Func(f('qapEvaluate'), {
    params: [['coefs', 'i32'], ['count', 'i32'], ['witness', 'i32'], ['a', 'i32'], ['b', 'i32'], ['domainSize', 'i32'], ['nVars', 'i32']],
    result: 'i32', exportName: f('qapEvaluate'),
    doc: `${f('qapEvaluate')}(coefs, count, witness, a, b, domainSize, nVars): for each of count ${record}-byte records
(u32 matrix, u32 constraint, u32 signal, ${n8}-byte value v) at coefs: (matrix 0 ? a : b)[constraint] += v * X[signal],
X the output of ${f('qapWitness')}: the QAP's A and B evaluations on the domain, Montgomery form in [0, 2r). a and b
hold domainSize elements each and must be zeroed first. Returns 0, or i + 1 for the first record i with a matrix
other than 0 and 1, a constraint >= domainSize, a signal >= nVars or a value >= r (records before it are added).
Uses ${scratch} bytes of the scratch stack.`,
  });
  for (const name of ['i', 'rec', 'm', 'c', 's', 'target', 't']) evaluate.local(name, 'i32');
  const recordOk = (m, c, s) => i32.and(i32.and(i32.le_u(m, i32.const(1)), i32.lt_u(c, local.get('domainSize'))), i32.lt_u(s, local.get('nVars')));
  const tK = (k) => (k ? i32.add(local.get('t'), i32.const(k * E)) : local.get('t'));
  if (four) for (const k of K4) for (const name of ['m', 'c', 's']) evaluate.local(`${name}${k}`, 'i32');
  evaluate.push(
    comment(`t: ${four ? 'four elements' : 'one element'} of scratch below the stack pointer`),
    reserve(scratch),
    local.set('t', '(global.get $sp)'),
    ...(four
      ? forEachFour('fours', [
        comment('four records, all in range and below r (else one at a time from here, which stops at the first that is not)'),
        local.set('rec', at('coefs', local.get('i'), record)),
        ...K4.flatMap((k) => ['m', 'c', 's'].map((name, field) => local.set(`${name}${k}`, i32.load(local.get('rec'), k * record + 4 * field)))),
        br_if('foursDone', i32.eqz(allOf(K4.map((k) => recordOk(local.get(`m${k}`), local.get(`c${k}`), local.get(`s${k}`)))))),
        br_if('foursDone', i32.eqz(allOf(K4.map((k) => callF('fromBytes', tK(k), i32.add(local.get('rec'), i32.const(k * record + 12))))))),
        comment("t_k = v_k X[s_k] / R' = c_k w_k R', four in one call; then added one by one (two may share a target)"),
        callF('mul4', ...K4.flatMap((k) => [tK(k), tK(k), at('witness', local.get(`s${k}`), E)])),
        ...K4.flatMap((k) => [
          local.set('target', at('a', local.get(`c${k}`), E)),
          if_(local.get(`m${k}`), [local.set('target', at('b', local.get(`c${k}`), E))]),
          callF('add', local.get('target'), local.get('target'), tK(k)),
        ]),
      ])
      : []),
    ...forEach('each', [
      local.set('rec', at('coefs', local.get('i'), record)),
      local.set('m', i32.load(local.get('rec'))),
      local.set('c', i32.load(local.get('rec'), 4)),
      local.set('s', i32.load(local.get('rec'), 8)),
      comment('u32 fields compared unsigned: a record out of range is an error, never a write outside a or b'),
      if_(i32.eqz(recordOk(local.get('m'), local.get('c'), local.get('s'))), [release(scratch), ret(i32.add(local.get('i'), i32.const(1)))]),
      if_(i32.eqz(callF('fromBytes', local.get('t'), i32.add(local.get('rec'), i32.const(12)))), [release(scratch), ret(i32.add(local.get('i'), i32.const(1)))]),
      comment("t = v X[s] / R' = c w R'"),
      callF('mul', local.get('t'), local.get('t'), at('witness', local.get('s'), E)),
      local.set('target', at('a', local.get('c'), E)),
      if_(local.get('m'), [local.set('target', at('b', local.get('c'), E))]),
      callF('add', local.get('target'), local.get('target'), local.get('t')),
    ], { from: !four }),
    release(scratch),
    ret(i32.const(0)),
  );

  const product = new Func(f('qapProduct'), {
    params: [['c', 'i32'], ['a', 'i32'], ['b', 'i32'], ['count', 'i32']], exportName: f('qapProduct'),
    doc: `${f('qapProduct')}(c, a, b, count): c[i] = a[i] b[i] (C's evaluations on the domain, as snarkjs takes them).
Montgomery form, inputs and outputs in [0, 2r). c may alias a or b.`,
  });
  product.local('i', 'i32');
  product.local('o', 'i32');
  product.push(
    ...(four ? forEachFour('fours', [callF('mul4', ...K4.flatMap((k) => ['c', 'a', 'b'].map((x) => at(x, plusI(k), E))))]) : []),
    ...forEach('each', [
      local.set('o', i32.mul(local.get('i'), i32.const(E))),
      callF('mul', i32.add(local.get('c'), local.get('o')), i32.add(local.get('a'), local.get('o')), i32.add(local.get('b'), local.get('o'))),
    ], { from: !four }),
  );

  const join = new Func(f('qapJoin'), {
    params: [['out', 'i32'], ['a', 'i32'], ['b', 'i32'], ['c', 'i32'], ['count', 'i32']], exportName: f('qapJoin'),
    doc: `${f('qapJoin')}(out, a, b, c, count): out + ${n8} i = a[i] b[i] - c[i] as a canonical ${n8}-byte little-endian integer
(the H MSM's scalars). a, b, c Montgomery form in [0, 2r); a is overwritten (scratch). ${n8 <= E ? `out may be c itself (one call over
the whole range: c[i] is read before out + ${n8} i is written, which ends below c[i + 1]); otherwise it` : 'out'} may not overlap a, b or c.`,
  });
  join.local('i', 'i32');
  join.local('o', 'i32');
  const aK = (k) => at('a', plusI(k), E);
  join.push(
    ...(four
      ? forEachFour('fours', [
        comment('a_k = a_k b_k - c_k, four products in one call; out of Montgomery form (times 1 / R) in one more'),
        callF('mul4', ...K4.flatMap((k) => [aK(k), aK(k), at('b', plusI(k), E)])),
        ...K4.map((k) => callF('sub', aK(k), aK(k), at('c', plusI(k), E))),
        callF('mul4', ...K4.flatMap((k) => [aK(k), aK(k), i32.const(oneAddress)])),
        ...K4.flatMap((k) => [callF('reduce', aK(k), aK(k)), callF('toBytes', at('out', plusI(k), n8), aK(k))]),
      ])
      : []),
    ...forEach('each', [
      local.set('o', at('a', local.get('i'), E)),
      callF('mul', local.get('o'), local.get('o'), at('b', local.get('i'), E)),
      callF('sub', local.get('o'), local.get('o'), at('c', local.get('i'), E)),
      callF('fromMontgomery', local.get('o'), local.get('o')),
      callF('toBytes', at('out', local.get('i'), n8), local.get('o')),
    ], { from: !four }),
  );
  return [witness, evaluate, product, join];
}
