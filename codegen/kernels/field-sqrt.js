// Exponentiation by a fixed exponent held in memory, and square roots: x^((p+1)/4) when p = 3 mod 4,
// Tonelli-Shanks otherwise. Variable time in the value of x (Tonelli-Shanks loop lengths).

import { Func, i32, local, comment, op, loop, block, br, br_if, if_ } from '../wat/index.js';
import { elementSlots } from './scratch.js';

const call = (name, ...args) => op(`call $${name}`, ...args);

/**
 * pow(out, x, exponent, bits): out = x^e with e the little-endian integer of `bits` bits at `exponent`,
 * left to right. Montgomery form in and out, ranges [0, 2p). out may alias x.
 */
export function fieldPow(params, { name = 'pow', f }) {
  const E = params.elementBytes;
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32'], ['exponent', 'i32'], ['bits', 'i32']], exportName: name,
    doc: `${name}(out, x, exponent, bits): out = x^e, e = the bits-bit little-endian integer at exponent.
Montgomery form, [0, 2p) in and out. out may alias x. Variable time in e (not in x).`,
  });
  fn.local('acc', 'i32');
  fn.push(
    `(global.set $sp (i32.sub (global.get $sp) (i32.const ${E})))`,
    local.set('acc', '(global.get $sp)'),
    call(f('setOne'), local.get('acc')),
    block('done', [
      loop('bit', [
        br_if('done', i32.eqz(local.get('bits'))),
        local.set('bits', i32.sub(local.get('bits'), i32.const(1))),
        call(f('sqr'), local.get('acc'), local.get('acc')),
        if_(
          i32.and(
            i32.shr_u(i32.load8_u(i32.add(local.get('exponent'), i32.shr_u(local.get('bits'), i32.const(3)))), i32.and(local.get('bits'), i32.const(7))),
            i32.const(1),
          ),
          [call(f('mul'), local.get('acc'), local.get('acc'), local.get('x'))],
        ),
        br('bit'),
      ]),
    ]),
    call(f('copy'), local.get('out'), local.get('acc')),
    `(global.set $sp (i32.add (global.get $sp) (i32.const ${E})))`,
  );
  return fn;
}

/**
 * sqrt(out, x) -> 1 and out = a square root of x (canonical, Montgomery form) when x is a square,
 * else 0 (out untouched). `layout` gives the addresses of the constants it needs.
 */
export function fieldSqrt(params, { name = 'sqrt', f, layout }) {
  const { p, elementBytes: E } = params;
  const fn = new Func(name, {
    params: [['out', 'i32'], ['x', 'i32']], result: 'i32', exportName: name,
    doc: `${name}(out, x): if x is a square mod p, out = a square root (Montgomery form, canonical [0, p)) and
returns 1; otherwise returns 0 and leaves out as it was. Input in [0, 2p). out may alias x.
Variable time.`,
  });
  const { reserve, release, slot } = elementSlots(E);
  if (p % 4n === 3n) {
    fn.local('c', 'i32');
    fn.local('ok', 'i32');
    fn.push(
      comment('p = 3 mod 4: c = x^((p+1)/4) is a root when x is a square; check c^2 = x'),
      reserve(2),
      local.set('c', slot(0)),
      call(f('pow'), local.get('c'), local.get('x'), i32.const(layout.sqrtExponent), i32.const(layout.sqrtExponentBits)),
      call(f('sqr'), slot(1), local.get('c')),
      local.set('ok', call(f('eq'), slot(1), local.get('x'))),
      if_(local.get('ok'), [call(f('reduce'), local.get('out'), local.get('c'))]),
      release(2),
      local.get('ok'),
    );
    return fn;
  }
  // Tonelli-Shanks with p - 1 = Q * 2^S, Q odd; z a fixed non-residue, c0 = z^Q.
  for (const l of ['w', 'root', 't', 'c', 't2', 'b']) fn.local(l, 'i32');
  fn.local('m', 'i32');
  fn.local('i', 'i32');
  fn.local('j', 'i32');
  fn.local('ok', 'i32');
  fn.push(
    comment(`Tonelli-Shanks: p - 1 = Q * 2^${layout.twoAdicity}, Q odd`),
    reserve(6),
    local.set('w', slot(0)), local.set('root', slot(1)), local.set('t', slot(2)),
    local.set('c', slot(3)), local.set('t2', slot(4)), local.set('b', slot(5)),
    local.set('ok', i32.const(1)),
    block('done', [
      if_(call(f('isZero'), local.get('x')), [call(f('setZero'), local.get('root')), br('done')]),
      comment('w = x^((Q-1)/2); root = x*w = x^((Q+1)/2); t = root*w = x^Q; c = z^Q; m = S'),
      call(f('pow'), local.get('w'), local.get('x'), i32.const(layout.sqrtExponent), i32.const(layout.sqrtExponentBits)),
      call(f('mul'), local.get('root'), local.get('x'), local.get('w')),
      call(f('mul'), local.get('t'), local.get('root'), local.get('w')),
      call(f('copy'), local.get('c'), i32.const(layout.sqrtC0)),
      local.set('m', i32.const(layout.twoAdicity)),
      loop('outer', [
        br_if('done', call(f('eq'), local.get('t'), i32.const(layout.oneMont))),
        comment('least i with t^(2^i) = 1; i = m means x is not a square'),
        call(f('copy'), local.get('t2'), local.get('t')),
        local.set('i', i32.const(0)),
        loop('findI', [
          call(f('sqr'), local.get('t2'), local.get('t2')),
          local.set('i', i32.add(local.get('i'), i32.const(1))),
          if_(i32.ge_u(local.get('i'), local.get('m')), [local.set('ok', i32.const(0)), br('done')]),
          br_if('findI', i32.eqz(call(f('eq'), local.get('t2'), i32.const(layout.oneMont)))),
        ]),
        comment('b = c^(2^(m-i-1)); m = i; c = b^2; t = t*c; root = root*b'),
        call(f('copy'), local.get('b'), local.get('c')),
        local.set('j', i32.sub(i32.sub(local.get('m'), local.get('i')), i32.const(1))),
        block('sqrDone', [
          loop('sqrB', [
            br_if('sqrDone', i32.eqz(local.get('j'))),
            call(f('sqr'), local.get('b'), local.get('b')),
            local.set('j', i32.sub(local.get('j'), i32.const(1))),
            br('sqrB'),
          ]),
        ]),
        local.set('m', local.get('i')),
        call(f('sqr'), local.get('c'), local.get('b')),
        call(f('mul'), local.get('t'), local.get('t'), local.get('c')),
        call(f('mul'), local.get('root'), local.get('root'), local.get('b')),
        br('outer'),
      ]),
    ]),
    if_(local.get('ok'), [call(f('reduce'), local.get('out'), local.get('root'))]),
    release(6),
    local.get('ok'),
  );
  return fn;
}
