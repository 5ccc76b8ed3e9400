// The equivalence runner: every kernel export of an instantiated field module, on raw limbs in Wasm memory, against
// plain BigInt math (src/bigint/field.js), with the conventions of harness.js: a raw value X stands for X R^-1 mod p,
// inputs anywhere in each kernel's documented range, every output checked for its congruence, its range and w bits a
// word.

import { mod, modInv, modPow, legendre, bitLength } from '../src/bigint/field.js';
import { makeRng, twoAdicity, limbCount, edgeValues, hex, rawAccess } from './harness.js';

const GUARD = 0xa5a5a5a5;

/**
 * Run every kernel export of an instantiated field on pointer inputs and compare with BigInt math.
 * Returns { failures: string[], checks: number }; each failure names the kernel, prime, w, inputs (raw hex),
 * what was expected and what came back. At most `maxPerKernel` failures are listed per kernel and `maxListed`
 * in all; a last line then counts the failures of every kernel.
 *
 * @param inst      result of instantiateField({ p, w, mulShape })
 * @param options   { rng, label, values (raw inputs in [0, 2p)), pairs (max binary pairs per kernel), maxPerKernel }
 */
export function runFieldEquivalence(inst, { rng, label = '', values, pairs = Infinity, maxPerKernel = 3, maxListed = 24 } = {}) {
  const { field } = inst;
  const p = field.p;
  const { n, w } = field;
  if (limbCount(p, w) !== n) throw new Error(`field has n = ${n}, but 4p < 2^(n*w) needs n = ${limbCount(p, w)}`);
  const R = inst.params?.R ?? 1n << BigInt(n * w); // 1 for a pseudo-Mersenne field (reduction 'crandall')
  const Rinv = modInv(R % p, p);
  const twoP = 2n * p;
  rng ??= makeRng(`equivalence ${p} ${w} ${label}`);
  const raw = rawAccess(inst);
  const E = field.elementBytes;
  const ctx = `p=${hex(p)} (${bitLength(p)} bits) w=${w} n=${n}${label ? ` [${label}]` : ''}`;

  const failures = [];
  const perKernel = new Map();
  let checks = 0;
  const fail = (kernel, msg) => {
    const k = (perKernel.get(kernel) ?? 0) + 1;
    perKernel.set(kernel, k);
    if (k <= maxPerKernel && failures.length < maxListed) failures.push(`${kernel} ${ctx}: ${msg}`);
  };
  const inputsText = (inputs) => Object.entries(inputs).map(([k, x]) => `${k}=${hex(x)}`).join(' ');

  // memory: lazy inputs, canonical inputs, and an output slot with guard elements on both sides
  const lazy = values ?? edgeValues(p, w, n, { bound: twoP, rng });
  const canon = [...new Set([...lazy.filter((x) => x < p), ...edgeValues(p, w, n, { bound: p, rng, random: 2 })])];
  const lazyBase = field.alloc(lazy.length);
  const canonBase = field.alloc(canon.length);
  const guardBefore = field.alloc(3);
  const out = guardBefore + E;
  const tmp = field.alloc(2);
  lazy.forEach((x, i) => raw.write(lazyBase + i * E, x));
  canon.forEach((x, i) => raw.write(canonBase + i * E, x));
  const lazyPtr = (i) => lazyBase + i * E;
  const canonPtr = (i) => canonBase + i * E;

  const resetGuards = () => raw.fill(guardBefore, 3 * n, GUARD);
  /** Read the output slot; checks guards and limb widths; returns the value or null (after reporting). */
  const readOut = (kernel, inputs, ptr = out) => {
    checks++;
    const before = raw.same(guardBefore, n, GUARD);
    const after = raw.same(out + E, n, GUARD);
    if (!before || !after) {
      fail(kernel, `${inputsText(inputs)}: wrote outside its output element (${before ? 'after' : 'before'} it)`);
      return null;
    }
    const r = raw.read(ptr);
    if (r.badLimb >= 0) {
      fail(kernel, `${inputsText(inputs)}: output limb ${r.badLimb} = ${hex(BigInt(r.words[r.badLimb]))} has more than ${w} bits (words ${r.words.map((x) => hex(BigInt(x))).join(',')})`);
      return null;
    }
    return r.value;
  };
  /** got must be = expected mod p and < bound. */
  const expectCongruent = (kernel, inputs, got, expected, bound = twoP) => {
    if (got === null) return;
    if (mod(got - expected, p) !== 0n || got >= bound) {
      fail(kernel, `${inputsText(inputs)}: expected a value = ${hex(mod(expected, p))} (mod p) in [0, ${bound === p ? 'p' : '2p'}), got ${hex(got)}${got >= bound ? ` (out of range)` : ''}`);
    }
  };
  const expectExact = (kernel, inputs, got, expected) => {
    if (got === null) return;
    if (got !== expected) fail(kernel, `${inputsText(inputs)}: expected exactly ${hex(expected)}, got ${hex(got)}`);
  };
  const expectFlag = (kernel, inputs, got, expected) => {
    checks++;
    if (got !== expected) fail(kernel, `${inputsText(inputs)}: expected ${expected}, got ${got}`);
  };

  // binary pairs: every pair when affordable, else a seeded sample that always contains the diagonal
  const pairList = (len) => {
    const all = len * len;
    if (all <= pairs) {
      const out_ = [];
      for (let i = 0; i < len; i++) for (let j = 0; j < len; j++) out_.push([i, j]);
      return out_;
    }
    const out_ = [];
    for (let i = 0; i < len; i++) out_.push([i, i]);
    while (out_.length < pairs) out_.push([rng.int(len), rng.int(len)]);
    return out_;
  };
  const lazyPairs = pairList(lazy.length);
  const canonPairs = pairList(canon.length);

  // --- Montgomery products: every mul export, sqr ---
  const mulKernels = ['mul', 'mulUnrolled', 'mulLoop'].filter((k) => typeof field[k] === 'function');
  for (const k of mulKernels) {
    for (const [i, j] of lazyPairs) {
      resetGuards();
      field[k](out, lazyPtr(i), lazyPtr(j));
      const x = lazy[i];
      const y = lazy[j];
      expectCongruent(k, { x, y }, readOut(k, { x, y }), x * y * Rinv);
    }
  }
  for (let i = 0; i < lazy.length; i++) {
    resetGuards();
    field.sqr(out, lazyPtr(i));
    const x = lazy[i];
    expectCongruent('sqr', { x }, readOut('sqr', { x }), x * x * Rinv);
  }

  // --- additive kernels ---
  for (const [i, j] of lazyPairs) {
    const x = lazy[i];
    const y = lazy[j];
    resetGuards();
    field.add(out, lazyPtr(i), lazyPtr(j));
    expectCongruent('add', { x, y }, readOut('add', { x, y }), x + y);
    resetGuards();
    field.sub(out, lazyPtr(i), lazyPtr(j));
    expectCongruent('sub', { x, y }, readOut('sub', { x, y }), x - y);
    expectFlag('eq', { x, y }, field.eq(lazyPtr(i), lazyPtr(j)), mod(x - y, p) === 0n ? 1 : 0);
  }
  for (const [i, j] of canonPairs) {
    const x = canon[i];
    const y = canon[j];
    resetGuards();
    field.addNoReduce(out, canonPtr(i), canonPtr(j));
    expectExact('addNoReduce', { x, y }, readOut('addNoReduce', { x, y }), x + y);
    resetGuards();
    field.subNoReduce(out, canonPtr(i), canonPtr(j));
    expectExact('subNoReduce', { x, y }, readOut('subNoReduce', { x, y }), x - y + p);
  }
  for (let i = 0; i < lazy.length; i++) {
    const x = lazy[i];
    resetGuards();
    field.neg(out, lazyPtr(i));
    const got = readOut('neg', { x });
    expectCongruent('neg', { x }, got, -x);
    if (x === 0n) expectExact('neg', { x }, got, 0n);
    resetGuards();
    field.reduce(out, lazyPtr(i));
    expectExact('reduce', { x }, readOut('reduce', { x }), x % p);
    expectFlag('isZero', { x }, field.isZero(lazyPtr(i)), x % p === 0n ? 1 : 0);
    resetGuards();
    field.copy(out, lazyPtr(i));
    expectExact('copy', { x }, readOut('copy', { x }), x);
  }
  resetGuards();
  field.setZero(out);
  expectExact('setZero', {}, readOut('setZero', {}), 0n);
  resetGuards();
  field.setOne(out);
  expectExact('setOne', {}, readOut('setOne', {}), R % p);

  // --- conversions ---
  for (let i = 0; i < lazy.length; i++) {
    const x = lazy[i];
    resetGuards();
    field.toMontgomery(out, lazyPtr(i));
    expectCongruent('toMontgomery', { x }, readOut('toMontgomery', { x }), x * R);
    resetGuards();
    field.fromMontgomery(out, lazyPtr(i));
    expectExact('fromMontgomery', { x }, readOut('fromMontgomery', { x }), mod(x * Rinv, p));
  }
  checkBytes();

  // --- inversion ---
  for (let i = 0; i < lazy.length; i++) {
    const x = lazy[i];
    resetGuards();
    field.inv(out, lazyPtr(i));
    const expected = x % p === 0n ? 0n : mod(R * R * modInv(x, p), p);
    expectExact('inv', { x }, readOut('inv', { x }), expected);
  }
  checkBatchInverse();

  // --- pow and sqrt ---
  checkPow();
  checkSqrt();

  // --- aliasing: out = x (= y) for the kernels documented to allow it ---
  checkAliasing();

  // the inputs must still be intact after all of the above
  lazy.forEach((x, i) => {
    const r = raw.read(lazyPtr(i));
    if (r.value !== x) fail('inputs', `input element ${i} was overwritten: was ${hex(x)}, now ${hex(r.value)}`);
  });
  canon.forEach((x, i) => {
    const r = raw.read(canonPtr(i));
    if (r.value !== x) fail('inputs', `canonical input element ${i} was overwritten: was ${hex(x)}, now ${hex(r.value)}`);
  });

  const total = [...perKernel.values()].reduce((a, b) => a + b, 0);
  if (total > failures.length) {
    failures.push(`${ctx}: ${total} failures in all: ${[...perKernel].map(([k, c]) => `${k} x${c}`).join(', ')}`);
  }
  return { failures, checks, failingKernels: [...perKernel.keys()] };

  function checkBytes() {
    const B = field.bytes;
    if (B !== Math.ceil(bitLength(p) / 8)) fail('bytes', `field.bytes = ${B}, expected ceil(bits(p)/8) = ${Math.ceil(bitLength(p) / 8)}`);
    const buf = field.heap.alloc(B + 8);
    const bytesAt = () => new Uint8Array(field.memory.buffer, buf, B + 8);
    const maxBytes = 1n << BigInt(8 * B);
    const candidates = new Set([0n, 1n, p - 1n, p, p + 1n, maxBytes - 1n, maxBytes >> 1n, (maxBytes >> 1n) + 1n, R % maxBytes]);
    for (let e = 0; e < 8 * B; e += Math.max(1, Math.floor((8 * B) / 12))) candidates.add(1n << BigInt(e));
    for (let e = 8 * B - 1; e >= 8 * B - 8 && e >= 0; e--) candidates.add(1n << BigInt(e));
    if (n * w < 8 * B) {
      candidates.add(1n << BigInt(n * w)); // not representable in n limbs: must be flagged, truncation must not pass
      candidates.add((1n << BigInt(n * w)) + 1n);
    }
    for (let i = 0; i < 6; i++) candidates.add(rng.below(maxBytes));
    for (let i = 0; i < 6; i++) candidates.add(rng.below(p));
    for (const x of candidates) {
      if (x < 0n || x >= maxBytes) continue;
      const b = bytesAt();
      b.fill(0xee);
      for (let k = 0, v = x; k < B; k++, v >>= 8n) b[k] = Number(v & 0xffn);
      resetGuards();
      const flag = field.fromBytes(out, buf);
      expectFlag('fromBytes', { bytes: x }, flag, x < p ? 1 : 0);
      const got = readOut('fromBytes', { bytes: x });
      if (x < R) expectExact('fromBytes', { bytes: x }, got, x);
      // toBytes on canonical values, and the round trip
      if (x < p) {
        const b2 = bytesAt();
        b2.fill(0xee);
        raw.write(tmp, x);
        field.toBytes(buf, tmp);
        checks++;
        const back = bytesAt();
        let y = 0n;
        for (let k = B - 1; k >= 0; k--) y = (y << 8n) | BigInt(back[k]);
        if (y !== x) fail('toBytes', `x=${hex(x)}: expected bytes of ${hex(x)}, got ${hex(y)}`);
        if (back.subarray(B).some((c) => c !== 0xee)) fail('toBytes', `x=${hex(x)}: wrote past ${B} bytes`);
        resetGuards();
        expectFlag('fromBytes(toBytes)', { x }, field.fromBytes(out, buf), 1);
        expectExact('fromBytes(toBytes)', { x }, readOut('fromBytes(toBytes)', { x }), x);
      }
    }
  }

  function checkBatchInverse() {
    const lists = [
      lazy,
      [],
      [0n],
      [p],
      [1n],
      [0n, 0n, p, 0n],
      [lazy[lazy.length - 1], 0n, lazy[lazy.length - 2], p, lazy[lazy.length - 3], 0n],
      Array.from({ length: 17 }, (_, i) => (i % 5 === 2 ? 0n : rng.below(twoP))),
    ];
    const maxLen = Math.max(...lists.map((l) => l.length));
    const xs = field.alloc(maxLen + 1);
    const outs = field.alloc(maxLen + 2);
    for (const list of lists) {
      list.forEach((x, i) => raw.write(xs + i * E, x));
      raw.fill(outs, (maxLen + 2) * n, GUARD);
      const outBase = outs + E;
      field.batchInverse(outBase, xs, list.length);
      const shown = `count=${list.length} x=[${list.map(hex).join(',')}]`;
      checks++;
      if (!raw.same(outs, n, GUARD)) fail('batchInverse', `${shown}: wrote before out`);
      if (!raw.same(outBase + list.length * E, n, GUARD)) fail('batchInverse', `${shown}: wrote past out[count-1]`);
      list.forEach((x, i) => {
        const r = raw.read(outBase + i * E);
        checks++;
        if (r.badLimb >= 0) return fail('batchInverse', `${shown}: out[${i}] limb ${r.badLimb} has more than ${w} bits`);
        const expected = x % p === 0n ? 0n : mod(R * R * modInv(x, p), p);
        if (mod(r.value - expected, p) !== 0n || r.value >= twoP) {
          fail('batchInverse', `${shown}: out[${i}] (x=${hex(x)}) expected = ${hex(expected)} (mod p) in [0, 2p), got ${hex(r.value)}`);
        }
        const back = raw.read(xs + i * E).value;
        if (back !== x) fail('batchInverse', `${shown}: x[${i}] was modified: ${hex(x)} -> ${hex(back)}`);
      });
    }
  }

  function checkPow() {
    const maxBits = bitLength(p) + 40;
    const expBuf = field.heap.alloc(Math.ceil(maxBits / 8) + 8);
    const writeExp = (e) => {
      const b = new Uint8Array(field.memory.buffer, expBuf, Math.ceil(maxBits / 8) + 8);
      b.fill(0);
      for (let k = 0, v = e; v > 0n; k++, v >>= 8n) b[k] = Number(v & 0xffn);
    };
    const exps = [0n, 1n, 2n, 3n, 255n, 256n, p - 1n, p - 2n, (p - 1n) / 2n, (p + 1n) / 2n, rng.bits(bitLength(p)), rng.bits(40)];
    const xs = [0n, 1n, p, p - 1n, 2n * p - 1n, R % p, rng.below(twoP), rng.below(twoP)].filter((x) => x < twoP);
    for (const e of exps) {
      writeExp(e);
      for (const x of xs) {
        for (const bits of [bitLength(e), bitLength(e) + 9]) {
          raw.write(tmp, x);
          resetGuards();
          field.pow(out, tmp, expBuf, bits);
          const a = mod(x * Rinv, p);
          const expected = modPow(a, e, p) * R; // 0^0 = 1
          expectCongruent('pow', { x, e, bits: BigInt(bits) }, readOut('pow', { x, e }), expected);
        }
      }
    }
  }

  function checkSqrt() {
    const s = twoAdicity(p);
    const xs = new Set(lazy);
    // squares (Montgomery raw of a^2), and for p = 1 mod 4 elements deep in the 2-Sylow subgroup
    for (let i = 0; i < 6; i++) {
      const a = rng.below(p);
      xs.add(mod(a * a * R, p));
    }
    if (p % 4n === 1n && p > 5n) {
      let z = 2n;
      while (legendre(z, p) !== -1) z++;
      const g = modPow(z, (p - 1n) >> BigInt(s), p); // order 2^s
      xs.add(mod(g * R, p)); // non-square
      xs.add(mod(g * g * R, p)); // square of order 2^(s-1): longest Tonelli-Shanks run
      xs.add(mod(modPow(g, 6n, p) * R, p));
      xs.add(mod(z * R, p));
    }
    for (const x of xs) {
      if (x >= twoP) continue;
      const a = mod(x * Rinv, p);
      const isSquare = a === 0n || legendre(a, p) === 1;
      raw.write(tmp, x);
      resetGuards();
      raw.fill(out, n, 0x5a5a5a5a & (2 ** w - 1));
      const marker = raw.read(out).value;
      const ok = field.sqrt(out, tmp);
      expectFlag('sqrt', { x }, ok, isSquare ? 1 : 0);
      const got = readOut('sqrt', { x });
      if (got === null) continue;
      if (!isSquare) {
        if (got !== marker) fail('sqrt', `x=${hex(x)} (non-square): out must be left untouched, was ${hex(marker)}, now ${hex(got)}`);
        continue;
      }
      const root = mod(got * Rinv, p);
      checks++;
      if (got >= p || (root * root) % p !== a) {
        fail('sqrt', `x=${hex(x)} (value ${hex(a)}): expected a canonical root r in [0, p) with (r/R)^2 = ${hex(a)}, got ${hex(got)} (value ${hex(root)}, squares to ${hex((root * root) % p)})`);
      }
      if (raw.read(tmp).value !== x) fail('sqrt', `x=${hex(x)}: input modified`);
    }
  }

  function checkAliasing() {
    const picks = [lazy.length - 1, Math.floor(lazy.length / 2), 1].map((i) => Math.min(i, lazy.length - 1));
    const a = tmp;
    const b = tmp + E;
    for (const i of picks) {
      for (const j of picks) {
        const x = lazy[i];
        const y = lazy[j];
        const run = (kernel, call, expected, { exact = false, bound = twoP, yAlso = true } = {}) => {
          for (const alias of yAlso ? ['out=x', 'out=y', 'out=x=y'] : ['out=x']) {
            raw.write(a, x);
            raw.write(b, y);
            let xv = x;
            let yv = y;
            if (alias === 'out=x') call(a, a, b);
            else if (alias === 'out=y') call(b, a, b);
            else {
              yv = x;
              call(a, a, a);
            }
            const r = raw.read(alias === 'out=y' ? b : a);
            const inputs = { x: xv, y: yv, [alias]: 1n };
            checks++;
            if (r.badLimb >= 0) {
              fail(`${kernel} (${alias})`, `${inputsText(inputs)}: limb ${r.badLimb} has more than ${w} bits`);
              continue;
            }
            const want = expected(xv, yv);
            if (exact ? r.value !== want : mod(r.value - want, p) !== 0n || r.value >= bound) {
              fail(`${kernel} (${alias})`, `${inputsText(inputs)}: expected ${exact ? 'exactly ' : '= '}${hex(exact ? want : mod(want, p))}, got ${hex(r.value)}`);
            }
          }
        };
        for (const k of mulKernels) run(k, (o, u, v) => field[k](o, u, v), (u, v) => u * v * Rinv);
        run('add', (o, u, v) => field.add(o, u, v), (u, v) => u + v);
        run('sub', (o, u, v) => field.sub(o, u, v), (u, v) => u - v);
        if (x < p && y < p) {
          run('addNoReduce', (o, u, v) => field.addNoReduce(o, u, v), (u, v) => u + v, { exact: true });
          run('subNoReduce', (o, u, v) => field.subNoReduce(o, u, v), (u, v) => u - v + p, { exact: true });
        }
        if (j !== picks[0]) continue;
        const unary = { yAlso: false };
        run('sqr', (o, u) => field.sqr(o, u), (u) => u * u * Rinv, unary);
        run('neg', (o, u) => field.neg(o, u), (u) => -u, unary);
        run('reduce', (o, u) => field.reduce(o, u), (u) => u % p, { ...unary, exact: true });
        run('toMontgomery', (o, u) => field.toMontgomery(o, u), (u) => u * R, unary);
        run('fromMontgomery', (o, u) => field.fromMontgomery(o, u), (u) => mod(u * Rinv, p), { ...unary, exact: true });
        run('inv', (o, u) => field.inv(o, u), (u) => (u % p === 0n ? 0n : mod(R * R * modInv(u, p), p)), { ...unary, exact: true });
      }
    }
    // pow and sqrt with out = x
    const expBuf = field.heap.alloc(16);
    new Uint8Array(field.memory.buffer, expBuf, 16).set([0x35, 0x01]); // e = 0x135
    for (const i of picks) {
      const x = lazy[i];
      raw.write(a, x);
      field.pow(a, a, expBuf, 9);
      const got = raw.read(a).value;
      const want = modPow(mod(x * Rinv, p), 0x135n, p) * R;
      checks++;
      if (mod(got - want, p) !== 0n || got >= twoP) fail('pow (out=x)', `x=${hex(x)} e=0x135: expected = ${hex(mod(want, p))}, got ${hex(got)}`);
      const sq = mod(x * x * Rinv, p); // a square (raw Montgomery of (x/R)^2)
      raw.write(a, sq);
      const ok = field.sqrt(a, a);
      const root = raw.read(a).value;
      checks++;
      if (ok !== 1 || root >= p || mod(root * root * Rinv - sq, p) !== 0n) {
        fail('sqrt (out=x)', `x=${hex(sq)}: expected 1 and a canonical root, got ${ok} and ${hex(root)}`);
      }
    }
  }
}
