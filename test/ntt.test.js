// The scalar field r of every shipped curve in Wasm (curve.fr(), src/fr/): the NTT against a BigInt DFT (every size
// 2^0..2^8 that the two-adicity s allows, forward, inverse, coset and inverse coset), larger sizes up to 2^12 by Horner
// evaluation at random indices and round trips, the pointer-level orders and Groth16's evaluationsToCoset chain, split
// butterfly ranges (as threads would run them), the field kernels over r, the byte conversions, and every bad input.
// WASMSM_LONG_TESTS=1 takes the Horner checks to 2^14 and the full DFT to 2^9.

import { describe, it, expect, beforeAll, vi } from 'vitest';
import { curveNames } from '../index.js';
import { mod, modInv, modPow } from '../src/bigint/field.js';
import { nttPasses } from '../src/fr/ntt.js';
import { KERNELS, LONG_TESTS, makeRng } from './harness.js';

const FULL_LOG = LONG_TESTS ? 9 : 8;
const HORNER_LOG = LONG_TESTS ? 14 : 12;

/** Inputs biased to the edges: 0, 1, r - 1, small values, and uniform ones. */
function edgeBiased(rng, r, N) {
  return Array.from({ length: N }, () => {
    const k = rng.int(8);
    return k === 0 ? 0n : k === 1 ? 1n : k === 2 ? r - 1n : k === 3 ? BigInt(rng.int(16)) : rng.below(r);
  });
}

/** sum_i x_i (shift w^j)^i for every j (the O(N^2) DFT, with a table of powers of w). */
function dft(x, w, r, shift = 1n) {
  const N = x.length;
  const wPow = [1n];
  for (let k = 1; k < N; k++) wPow.push((wPow[k - 1] * w) % r);
  const shifted = x.map((xi, i) => (xi * modPow(shift, BigInt(i), r)) % r);
  return wPow.map((_, j) => {
    let acc = 0n;
    for (let i = 0; i < N; i++) acc += shifted[i] * wPow[(i * j) % N];
    return acc % r;
  });
}

/** The polynomial with coefficients x at z (Horner). */
function horner(x, z, r) {
  let acc = 0n;
  for (let i = x.length - 1; i >= 0; i--) acc = (acc * z + x[i]) % r;
  return acc;
}

const toBytes = (xs, B) => {
  const out = new Uint8Array(xs.length * B);
  xs.forEach((x, i) => {
    for (let k = 0; k < B; k++, x >>= 8n) out[i * B + k] = Number(x & 0xffn);
  });
  return out;
};

// every build this engine runs: the Fr module's build follows the curve's (the FMA one takes its products four per call)
describe.each(curveNames.flatMap((name) => KERNELS.map((kernel) => [name, kernel])))('%s Fr, %s build', (name, kernel) => {
  let fr;
  let r;
  let rng;
  beforeAll(async () => {
    const { load } = await import(`../src/curves/${name}.js`);
    fr = await (await load({ kernel })).fr();
    expect(fr.params.kernel).toBe(kernel);
    r = fr.r;
    rng = makeRng(`ntt ${name} ${kernel}`);
  });

  it('has a root of unity of order exactly 2^j for every j <= s, and a coset generator outside every 2^j subgroup', async () => {
    const { load } = await import(`../src/curves/${name}.js`);
    const curve = await load({ kernel });
    expect(await curve.fr()).toBe(fr); // one instance per curve and build
    if (curve.g2) expect(await curve.g2.fr()).toBe(fr); // and G2 shares it
    expect(fr.params.rootOfUnity).toBe(fr.rootOfUnity(fr.s));
    expect(mod(r - 1n, 1n << BigInt(fr.s))).toBe(0n);
    expect(((r - 1n) >> BigInt(fr.s)) & 1n).toBe(1n);
    for (let j = 0; j <= fr.s; j++) {
      const w = fr.rootOfUnity(j);
      expect(modPow(w, 1n << BigInt(j), r)).toBe(1n);
      if (j > 0) expect(modPow(w, 1n << BigInt(j - 1), r)).not.toBe(1n);
    }
    expect(modPow(fr.cosetGenerator, 1n << BigInt(fr.s), r)).not.toBe(1n);
    expect(() => fr.rootOfUnity(fr.s + 1)).toThrow(new RegExp(`s = ${fr.s}`));
  });

  it('field kernels over r against BigInt (edge values)', () => {
    const f = fr.field;
    const values = [0n, 1n, 2n, r - 1n, r - 2n, (r - 1n) / 2n, ...Array.from({ length: 6 }, () => rng.below(r))];
    const mark = fr.heap.mark();
    try {
      const [a, b, out] = [fr.alloc(), fr.alloc(), fr.alloc()];
      for (const x of values) {
        for (const y of values) {
          f.write(a, x);
          f.write(b, y);
          f.mul(out, a, b);
          expect(f.read(out)).toBe((x * y) % r);
          f.add(out, a, b);
          expect(f.read(out)).toBe((x + y) % r);
          f.sub(out, a, b);
          expect(f.read(out)).toBe(mod(x - y, r));
        }
        if (x !== 0n) {
          f.inv(out, a);
          expect(f.read(out)).toBe(modInv(x, r));
        }
      }
    } finally {
      fr.heap.release(mark);
    }
  });

  it('fr_mulPowers and fr_mulPowersBitrev (a region of the array at a time) against BigInt, sizes 2^0 to 2^13', () => {
    const f = fr.field;
    const ex = fr.exports;
    const mark = fr.heap.mark();
    try {
      for (const logN of [0, 1, 2, 5, 10, 11, 13]) {
        const N = 2 ** logN;
        const a = fr.alloc(N);
        const [first, g] = [fr.alloc(), fr.alloc()];
        const xs = edgeBiased(rng, r, N);
        const [c, gv] = [rng.below(r), rng.below(r)];
        f.write(first, c);
        f.write(g, gv);
        const bitrev = (i) => (logN ? parseInt(i.toString(2).padStart(logN, '0').split('').reverse().join(''), 2) : 0);
        for (const reversed of [false, true]) {
          xs.forEach((x, i) => f.write(a + i * fr.elementBytes, x));
          if (reversed) ex.fr_mulPowersBitrev(a, logN, first, g);
          else ex.fr_mulPowers(a, N, first, g);
          const want = [...xs];
          for (let i = 0, p = c; i < N; i++, p = (p * gv) % r) {
            const at = reversed ? bitrev(i) : i;
            want[at] = (xs[at] * p) % r;
          }
          const got = Array.from({ length: N }, (_, i) => f.read(a + i * fr.elementBytes));
          expect(got, `2^${logN} ${reversed ? 'bit-reversed' : 'natural'}`).toEqual(want);
        }
      }
    } finally {
      fr.heap.release(mark);
    }
  });

  it('fr_addSub and fr_addSubLazy at the ends of [0, 2r); the product of an unreduced difference (< 4r) by a twiddle (< 2r) ends below 2r', () => {
    const f = fr.field;
    const ex = fr.exports;
    const R = 1n << BigInt(fr.params.n * fr.params.w);
    const mark = fr.heap.mark();
    try {
      const [x, y, s, d, t, out] = [fr.alloc(), fr.alloc(), fr.alloc(), fr.alloc(), fr.alloc(), fr.alloc()];
      const ends = [0n, 1n, r - 1n, r, r + 1n, 2n * r - 1n, rng.below(2n * r)];
      for (const a of ends) {
        for (const b of ends) {
          f.writeLimbs(x, a);
          f.writeLimbs(y, b);
          ex.fr_addSub(s, d, x, y);
          expect(f.readLimbs(s) < 2n * r && f.readLimbs(d) < 2n * r).toBe(true);
          expect([mod(f.readLimbs(s), r), mod(f.readLimbs(d), r)]).toEqual([mod(a + b, r), mod(a - b, r)]);
          if (!ex.fr_addSubLazy) continue;
          ex.fr_addSubLazy(s, d, x, y);
          const diff = f.readLimbs(d);
          expect(diff).toBe(a - b + 2n * r);
          expect(mod(f.readLimbs(s), r)).toBe(mod(a + b, r));
          for (const tw of [2n * r - 1n, r - 1n, 1n]) {
            f.writeLimbs(t, tw);
            f.mul(out, d, t);
            const product = f.readLimbs(out);
            expect(product < 2n * r, `${a} ${b} ${tw}`).toBe(true);
            expect(product).toBe(mod(diff * tw * modInv(R % r, r), r) + (product >= r ? r : 0n));
          }
        }
      }
    } finally {
      fr.heap.release(mark);
    }
  });

  it(`equals the BigInt DFT for every size 2^0..2^${FULL_LOG} within 2^s: forward, inverse, coset and inverse coset`, () => {
    for (let logN = 0; logN <= Math.min(FULL_LOG, fr.s); logN++) {
      const N = 2 ** logN;
      const x = edgeBiased(rng, r, N);
      const w = fr.rootOfUnity(logN);
      const wInv = modInv(w, r);
      const nInv = modInv(BigInt(N), r);
      const g = fr.cosetGenerator;
      expect(fr.ntt(x)).toEqual(dft(x, w, r));
      expect(fr.ntt(x, { inverse: true })).toEqual(dft(x, wInv, r).map((v) => (v * nInv) % r));
      expect(fr.intt(x)).toEqual(fr.ntt(x, { inverse: true }));
      const cosetEvals = fr.ntt(x, { coset: true });
      expect(cosetEvals).toEqual(dft(x, w, r, g));
      // inverse coset: coefficients c_i = g^-i (1/N) sum_j y_j w^-ij
      expect(fr.intt(x, { coset: true })).toEqual(dft(x, wInv, r).map((v, i) => (v * nInv % r) * modPow(modInv(g, r), BigInt(i), r) % r));
      expect(fr.intt(cosetEvals, { coset: true })).toEqual(x);
      // a given coset generator, and bytes in and out
      const h = 7n + BigInt(logN);
      expect(fr.ntt(x, { coset: h })).toEqual(dft(x, w, r, h));
      const bytes = fr.ntt(toBytes(x, fr.bytes));
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(bytes).toEqual(toBytes(dft(x, w, r), fr.bytes));
    }
  });

  it(`up to 2^${HORNER_LOG} (within 2^s): a dozen outputs by Horner evaluation, coset too, and intt(ntt(x)) = x`, () => {
    for (let logN = FULL_LOG + 1; logN <= Math.min(HORNER_LOG, fr.s); logN++) {
      const N = 2 ** logN;
      const x = edgeBiased(rng, r, N);
      const w = fr.rootOfUnity(logN);
      const g = fr.cosetGenerator;
      const y = fr.ntt(x);
      const yc = fr.ntt(x, { coset: true });
      for (const j of [0, 1, N - 1, N / 2, ...Array.from({ length: 8 }, () => rng.int(N))]) {
        const wj = modPow(w, BigInt(j), r);
        expect(y[j]).toBe(horner(x, wj, r));
        expect(yc[j]).toBe(horner(x, (g * wj) % r, r));
      }
      expect(fr.intt(y)).toEqual(x);
      expect(fr.intt(yc, { coset: true })).toEqual(x);
    }
  });

  it('pointer level: every input and output order, Groth16 evaluationsToCoset, butterfly ranges split as threads would', () => {
    const logN = Math.min(fr.s, 11);
    const N = 2 ** logN;
    const x = edgeBiased(rng, r, N);
    const E = fr.elementBytes;
    const bitrev = (i) => (logN ? parseInt(i.toString(2).padStart(logN, '0').split('').reverse().join(''), 2) : 0);
    const reorder = (xs) => xs.map((_, i) => xs[bitrev(i)]);
    for (const inverse of [false, true]) fr.twiddles(logN, inverse);
    const mark = fr.heap.mark();
    try {
      const ptr = fr.alloc(N);
      const io = fr.heap.alloc(N * fr.bytes);
      const put = (xs) => {
        new Uint8Array(fr.memory.buffer, io, N * fr.bytes).set(toBytes(xs, fr.bytes));
        fr.fromBytesPointer(ptr, io, N);
      };
      const get = () => {
        fr.toBytesPointer(io, ptr, N);
        const b = new Uint8Array(fr.memory.buffer, io, N * fr.bytes);
        return Array.from({ length: N }, (_, i) => fr.field.read(ptr + i * E)).map((v, i) => {
          let z = 0n;
          for (let k = fr.bytes - 1; k >= 0; k--) z = (z << 8n) | BigInt(b[i * fr.bytes + k]);
          expect(z).toBe(v);
          return v;
        });
      };
      for (const inverse of [false, true]) {
        for (const coset of [false, true]) {
          const expected = fr.ntt(x, { inverse, coset });
          for (const input of ['natural', 'bit-reversed']) {
            for (const output of ['natural', 'bit-reversed']) {
              put(input === 'natural' ? x : reorder(x));
              fr.nttPointer(ptr, logN, { inverse, coset, input, output });
              expect(get()).toEqual(output === 'natural' ? expected : reorder(expected));
            }
          }
        }
      }
      // plain limbs in and out (montgomery: false): the linear transform needs no conversion
      for (const coset of [false, true]) {
        new Uint8Array(fr.memory.buffer, io, N * fr.bytes).set(toBytes(x, fr.bytes));
        fr.fromBytesPointer(ptr, io, N, { montgomery: false });
        fr.nttPointer(ptr, logN, { coset });
        fr.toBytesPointer(io, ptr, N, { montgomery: false });
        expect(new Uint8Array(fr.memory.buffer, io, N * fr.bytes).slice()).toEqual(toBytes(fr.ntt(x, { coset }), fr.bytes));
      }
      const shifts = [fr.cosetGenerator, ...(logN < fr.s ? [fr.rootOfUnity(logN + 1)] : [])];
      for (const g of shifts) {
        put(x);
        fr.evaluationsToCoset(ptr, logN, g);
        expect(get()).toEqual(fr.ntt(fr.intt(x), { coset: g }));
        // one scratch table of the caller's, built for each direction in turn: the same result
        const mark = fr.heap.mark();
        put(x);
        fr.evaluationsToCoset(ptr, logN, g, { table: fr.alloc(N) });
        expect(get()).toEqual(fr.ntt(fr.intt(x), { coset: g }));
        fr.heap.release(mark);
      }
      // DIF and DIT by hand, as threads would run them: nttPasses with blocks of 2^3; the passes of blocks in reverse
      // order (they are independent), each whole-array layer cut into two butterfly ranges run in reverse order
      for (const [kernel, input] of [['dif', 'natural'], ['dit', 'bit-reversed']]) {
        put(input === 'natural' ? x : reorder(x));
        const table = fr.twiddles(logN);
        const run = kernel === 'dif' ? fr.exports.fr_nttDif : fr.exports.fr_nttDit;
        const passes = nttPasses(kernel, logN, 3);
        const blocks = passes.filter(([, , , b0, b1]) => b1 - b0 < N / 2).reverse();
        const whole = passes.filter(([, , , b0, b1]) => b1 - b0 === N / 2);
        const runWhole = () => {
          for (const [, from, to, b0, b1] of whole) {
            for (let layer = from; layer < to; layer++) {
              const cut = b0 + rng.int(b1 - b0 + 1);
              run(ptr, logN, layer, layer + 1, cut, b1, table);
              run(ptr, logN, layer, layer + 1, b0, cut, table);
            }
          }
        };
        if (kernel === 'dif') runWhole();
        for (const [, from, to, b0, b1] of blocks) run(ptr, logN, from, to, b0, b1, table);
        if (kernel === 'dit') runWhole();
        const y = get();
        expect(kernel === 'dif' ? reorder(y) : y).toEqual(fr.ntt(x));
      }
    } finally {
      fr.heap.release(mark);
    }
    // a release below a cached twiddle table drops it; the next call builds it again
    const forward = fr.ntt(x);
    fr.heap.release(fr.heap.base);
    expect(fr.ntt(x)).toEqual(forward);
    // trim: a fresh instance at the base size, the same results
    const before = fr.memory;
    fr.trim();
    expect(fr.memory).not.toBe(before);
    expect(fr.memory.buffer.byteLength).toBeLessThanOrEqual(before.buffer.byteLength);
    expect(fr.ntt(x)).toEqual(forward);
  });

  it('byte conversions of every count 0 to 9 (the FMA build converts four per step), and the first value >= r named wherever it falls', () => {
    const B = fr.bytes;
    const mark = fr.heap.mark();
    try {
      const ptr = fr.alloc(9);
      const io = fr.heap.alloc(9 * B);
      const back = fr.heap.alloc(9 * B);
      for (let count = 0; count <= 9; count++) {
        const xs = edgeBiased(rng, r, count);
        new Uint8Array(fr.memory.buffer, io, count * B).set(toBytes(xs, B));
        for (const montgomery of [true, false]) {
          fr.fromBytesPointer(ptr, io, count, { montgomery });
          if (montgomery) expect(Array.from({ length: count }, (_, i) => fr.field.read(ptr + i * fr.elementBytes))).toEqual(xs);
          fr.toBytesPointer(back, ptr, count, { montgomery });
          expect(new Uint8Array(fr.memory.buffer, back, count * B).slice(), `count ${count}`).toEqual(toBytes(xs, B));
        }
        for (let bad = 0; bad < count; bad++) {
          const spoiled = [...xs];
          spoiled[bad] = r;
          if (bad + 1 < count) spoiled[bad + 1] = r + 1n; // a second one after it: the first is named
          new Uint8Array(fr.memory.buffer, io, count * B).set(toBytes(spoiled, B));
          expect(() => fr.fromBytesPointer(ptr, io, count), `count ${count}, bad ${bad}`).toThrow(new RegExp(`element ${bad} is not in \\[0, r\\)`));
        }
      }
    } finally {
      fr.heap.release(mark);
    }
  });

  it('bad input: each a clear error, and the field keeps working', () => {
    const B = fr.bytes;
    expect(() => fr.ntt([1n, 2n, 3n])).toThrow(/length 3 is not a power of two/);
    expect(() => fr.ntt([])).toThrow(/length 0 is not a power of two/);
    const tooLong = 2 ** (fr.s + 1);
    if (fr.s < 12) {
      expect(() => fr.ntt(new Array(tooLong).fill(0n))).toThrow(new RegExp(`two-adicity s = ${fr.s}`));
      expect(() => fr.nttPointer(0, fr.s + 1)).toThrow(new RegExp(`s = ${fr.s}`));
    }
    expect(() => fr.ntt([0n, r])).toThrow(/values\[1\] is not in \[0, r\)/);
    expect(() => fr.ntt([-1n, 0n])).toThrow(/values\[0\] is not in \[0, r\)/);
    expect(() => fr.ntt([0n, 1])).toThrow(/values\[1\] must be a BigInt/);
    // a hole in the array is refused as undefined is, not read as zero
    const holey = [1n, 2n];
    delete holey[1];
    expect(() => fr.ntt(holey)).toThrow(/values\[1\] must be a BigInt, got undefined/);
    expect(() => fr.intt(new Array(2))).toThrow(/values\[0\] must be a BigInt, got undefined/);
    expect(() => fr.ntt(toBytes([0n, r], B))).toThrow(/element 1 is not in \[0, r\)/);
    const allOnes = new Uint8Array(2 * B).fill(0xff);
    expect(() => fr.ntt(allOnes)).toThrow(/element 0 is not in \[0, r\)/);
    expect(() => fr.ntt(new Uint8Array(B + 1))).toThrow(new RegExp(`byte length ${B + 1} is not a multiple of ${B}`));
    expect(() => fr.ntt('1234')).toThrow(TypeError);
    expect(() => fr.ntt([1n, 2n], { coset: 0n })).toThrow(/coset generator must be in \(0, r\)/);
    expect(() => fr.ntt([1n, 2n], { coset: 3 })).toThrow(TypeError);
    expect(() => fr.nttPointer(0, 1, { input: 'reversed' })).toThrow(/input order must be/);
    expect(() => fr.nttPointer(0, 1.5)).toThrow(/logN must be a non-negative integer/);
    // a misspelt option is never ignored (it gave the forward transform)
    expect(() => fr.ntt([1n, 2n], { invrse: true })).toThrow(/^\S+ Fr: unknown option "invrse" in ntt options \(known: inverse, coset\)$/);
    expect(() => fr.intt([1n, 2n], { inverse: false })).toThrow(/unknown option "inverse" in intt options \(known: coset\)/);
    expect(() => fr.nttPointer(0, 1, { ouput: 'natural' })).toThrow(/unknown option "ouput" in nttPointer options/);
    expect(() => fr.ntt([1n, 2n], { inverse: 1 })).toThrow(/ntt options\.inverse must be a boolean/);
    expect(() => fr.ntt([1n, 2n], null)).toThrow(/ntt options must be an object/);
    expect(fr.ntt([5n])).toEqual([5n]);
    expect(fr.intt(fr.ntt([1n, 2n]))).toEqual([1n, 2n]);
  });
});

describe('a curve without a scalar-field module', () => {
  it('curve.fr() rejects, naming the curve', async () => {
    const { curveLoader } = await import('../src/curve.js');
    const { params } = await import('../src/curves/bn254.js');
    const { fr: _fr, ...noFr } = params;
    const curve = await curveLoader({ ...noFr, name: 'bn254-no-fr' }, () => import('../wasm/bn254/bn254.wasm.js'))({ kernel: 'int' });
    await expect(curve.fr()).rejects.toThrow(/curve bn254-no-fr has no scalar-field module/);
  });
});

describe('fr.nttOn: the NTT split over a thread pool', () => {
  it("bytes that are a view of the field's own memory: copied before the call allocates there (which grows it), by fr.ntt and fr.nttOn's message path", { timeout: 120_000 }, async () => {
    const { loadCurve } = await import('../index.js');
    const curve = await loadCurve('bn254');
    const fr = await curve.fr();
    const N = 2 ** 16;
    const rng = makeRng('view of fr.memory');
    const values = Array.from({ length: N }, () => rng.below(fr.r));
    const want = toBytes(fr.ntt(values), fr.bytes);
    const pool = await curve.threads({ count: 2, sharedMemory: false });
    try {
      for (const [what, run] of [['fr.ntt', (v) => fr.ntt(v)], ['fr.nttOn', (v) => fr.nttOn(pool, v)]]) {
        fr.trim(); // the memory at its base size: the call's twiddle table and elements grow it
        const at = fr.heap.alloc(N * fr.bytes); // (which may grow the memory itself: the view is made after it)
        const view = new Uint8Array(fr.memory.buffer, at, N * fr.bytes);
        view.set(toBytes(values, fr.bytes));
        expect(Buffer.from(await run(view)).equals(Buffer.from(want)), what).toBe(true);
      }
      await expect(fr.nttOn(pool, [1n, 2n], { invrse: true })).rejects.toThrow(/unknown option "invrse" in nttOn options/);
    } finally {
      await pool.close();
    }
  });

  it('calls made at once take turns on the field (fr.exclusive): each result is fr.ntt\'s, on both pool paths and two pools', { timeout: 120_000 }, async () => {
    const { loadCurve } = await import('../index.js');
    const curve = await loadCurve('bn254');
    const fr = await curve.fr();
    for (const sharedMemory of [true, false]) {
      const pools = [await curve.threads({ count: 2, sharedMemory }), await curve.threads({ count: 2, sharedMemory })];
      try {
        const rng = makeRng(`turns ${sharedMemory}`);
        const inputs = Array.from({ length: 6 }, (_, i) => Array.from({ length: 2 ** (6 + i) }, () => rng.below(fr.r)));
        const want = inputs.map((x, i) => fr.ntt(x, { inverse: i % 2 === 1, coset: i % 3 === 0 }));
        const got = await Promise.all(inputs.map((x, i) => fr.nttOn(pools[i % 2], x, { inverse: i % 2 === 1, coset: i % 3 === 0 })));
        got.forEach((y, i) => expect(y, `sharedMemory ${sharedMemory}, call ${i}`).toEqual(want[i]));
        // the case a stack cannot take: a small call (allocated first) ends while a large one (allocated above it) is
        // under way, and a third starts then; without turns it would take the large one's arrays
        const big = Array.from({ length: 2 ** 12 }, () => rng.below(fr.r));
        const small = inputs[0];
        const first = fr.nttOn(pools[0], small);
        const large = fr.nttOn(pools[1], big, { coset: true });
        const third = first.then(() => fr.nttOn(pools[0], inputs[3], { inverse: true, coset: true }));
        expect(await first).toEqual(fr.ntt(small));
        expect(await large).toEqual(fr.ntt(big, { coset: true }));
        expect(await third).toEqual(want[3]);
        // fr.trim() would move the heap from under a call in flight on the message path (it works on fr's own heap):
        // refused; a call on the shared twin keeps the twin it runs on (trim() only drops fr's reference to it)
        const during = fr.nttOn(pools[0], big);
        if (sharedMemory) fr.trim();
        else expect(() => fr.trim()).toThrow(/trim\(\) while an fr.nttOn or a proof works on this field's heap/);
        expect(await during).toEqual(fr.ntt(big));
        fr.trim(); // once it is done
        expect(await fr.nttOn(pools[1], small)).toEqual(fr.ntt(small));
      } finally {
        await Promise.all(pools.map((p) => p.close()));
      }
    }
  });

  it('equals fr.ntt on BN254 and BLS12-381 Fr, sizes 2^0 to 2^10, forward, inverse and on cosets, both pool paths (in place in shared memory; blocks sent to the threads), 1 to 3 threads', { timeout: 120_000 }, async () => {
    const { loadCurve } = await import('../index.js');
    for (const name of ['bn254', 'bls12-381']) {
      const curve = await loadCurve(name);
      const fr = await curve.fr();
      for (const [count, sharedMemory] of [[1, true], [2, true], [3, true], [2, false], [3, false]]) {
        const pool = await curve.threads({ count, sharedMemory });
        expect(pool.sharedMemory).toBe(sharedMemory);
        try {
          for (const logN of [0, 1, 2, 3, 7, 10]) {
            const rng = makeRng(logN + 17 * count);
            const values = Array.from({ length: 2 ** logN }, (_, i) => (i % 5 === 0 ? fr.r - 1n : i % 7 === 0 ? 0n : rng.below(fr.r)));
            for (const options of [{}, { inverse: true }, { coset: true }, { inverse: true, coset: 7n }]) {
              expect(await fr.nttOn(pool, values, options), `${name} 2^${logN} ${count} threads ${JSON.stringify(options, (k, v) => (typeof v === 'bigint' ? String(v) : v))}`).toEqual(fr.ntt(values, options));
            }
          }
          const bytes = new Uint8Array(4 * fr.bytes).fill(1);
          expect(await fr.nttOn(pool, bytes)).toEqual(fr.ntt(bytes));
          await expect(fr.nttOn(pool, [0n, fr.r])).rejects.toThrow(/values\[1\] is not in \[0, r\)/);
          // an element >= r in the last block, as bytes: named by its index
          const withR = new Uint8Array(8 * fr.bytes);
          for (let k = 0, x = fr.r; k < fr.bytes; k++, x >>= 8n) withR[6 * fr.bytes + k] = Number(x & 0xffn);
          await expect(fr.nttOn(pool, withR)).rejects.toThrow(/element 6 is not in \[0, r\)/);
          expect(await fr.nttOn(pool, bytes, { inverse: true }), 'works after the error').toEqual(fr.ntt(bytes, { inverse: true }));
        } finally {
          await pool.close();
        }
      }
      await expect(fr.nttOn({}, [1n, 2n])).rejects.toThrow(/nttOn takes a thread pool/);
      const pool = await curve.threads({ count: 2 });
      try {
        await expect(fr.nttOn(pool, null)).rejects.toThrow(/values must be an array of BigInt or a Uint8Array/);
        await expect(fr.nttOn(pool, [1n, 2n, 3n])).rejects.toThrow(/length 3 is not a power of two/);
        // an engine that refuses the twin's shared memory: the message path, the same values
        const refused = vi.spyOn(fr, 'sharedTwin').mockImplementation(() => Promise.reject(new RangeError('cannot create a shared WebAssembly.Memory')));
        try {
          const values = Array.from({ length: 32 }, (_, i) => BigInt(i * i + 1));
          expect(await fr.nttOn(pool, values, { inverse: true, coset: true })).toEqual(fr.ntt(values, { inverse: true, coset: true }));
          expect(refused).toHaveBeenCalled();
        } finally {
          refused.mockRestore();
        }
      } finally {
        await pool.close();
      }
    }
  });

  it("Groth16's evaluationsToCoset in place on the shared twin (src/fr/shared.js) equals fr.evaluationsToCoset: 2^k blocks, k = 0..3, cached tables or one built twice", { timeout: 120_000 }, async () => {
    const { loadCurve } = await import('../index.js');
    const { sharedEvaluationsToCoset } = await import('../src/fr/shared.js');
    const curve = await loadCurve('bn254');
    const fr = await curve.fr();
    const twin = await fr.sharedTwin();
    expect(await fr.sharedTwin()).toBe(twin);
    expect(twin.shared.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    const pool = await curve.threads({ count: 3, sharedMemory: true });
    const E = fr.elementBytes;
    try {
      for (const logN of [0, 1, 3, 6, 11]) {
        for (let k = 0; k <= Math.min(3, logN); k++) {
          for (const cacheTables of [true, false]) {
            const rng = makeRng(100 * logN + 10 * k + Number(cacheTables));
            const N = 2 ** logN;
            const polys = [0, 1].map(() => Array.from({ length: N }, (_, i) => (i % 9 === 0 ? fr.r - 1n : rng.below(fr.r))));
            const shift = 5n + BigInt(k);
            const markT = twin.heap.mark();
            const ptrs = polys.map((values) => {
              const ptr = twin.alloc(N);
              values.forEach((x, i) => twin.field.write(ptr + i * E, x));
              return ptr;
            });
            await sharedEvaluationsToCoset(twin, (op, tasks) => pool.runTasks(op, tasks), ptrs, logN, shift, k, { cacheTables });
            const markF = fr.heap.mark();
            polys.forEach((values, p) => {
              const ptr = fr.alloc(N);
              values.forEach((x, i) => fr.field.write(ptr + i * E, x));
              fr.evaluationsToCoset(ptr, logN, shift);
              const want = Array.from({ length: N }, (_, i) => fr.field.read(ptr + i * E));
              const got = Array.from({ length: N }, (_, i) => twin.field.read(ptrs[p] + i * E));
              expect(got, `2^${logN} k ${k} cacheTables ${cacheTables} poly ${p}`).toEqual(want);
            });
            fr.heap.release(markF);
            twin.heap.release(markT);
          }
        }
      }
      // fr.trim() drops the twin; the next shared call makes a new one, which the threads take in the old one's place
      const values = Array.from({ length: 64 }, (_, i) => BigInt(i) * 0x9e3779b97f4a7c15n % fr.r);
      fr.trim();
      const next = await fr.sharedTwin();
      expect(next).not.toBe(twin);
      expect(await fr.nttOn(pool, values, { coset: true })).toEqual(fr.ntt(values, { coset: true }));
    } finally {
      await pool.close();
    }
  });

  it("Groth16's evaluationsToCoset on the message path (src/fr/thread-ops.js) equals fr.evaluationsToCoset, its blocks copied as threads take them: one array per thread, whatever 2^k", { timeout: 120_000 }, async () => {
    const { loadCurve } = await import('../index.js');
    const { evaluationsToCosetOnThreads } = await import('../src/fr/thread-ops.js');
    const curve = await loadCurve('bn254');
    const fr = await curve.fr();
    const pool = await curve.threads({ count: 2, sharedMemory: false });
    const E = fr.elementBytes;
    // the proof's arrays (src/groth16/phases.js Arrays), counting the new ones: a block's array goes back as its
    // result comes, so two threads never need a third, where each of the 3 2^k blocks had one of its own
    const free = [];
    let made = 0;
    const arrays = {
      take: (bytes) => (free.length ? new Uint8Array(free.pop(), 0, bytes) : (made++, new Uint8Array(bytes))),
      adopt: (array) => free.push(array.buffer),
    };
    try {
      for (const logN of [1, 6, 11]) {
        for (let k = 0; k <= Math.min(3, logN); k++) {
          for (const cacheTables of [true, false]) {
            const rng = makeRng(1000 + 100 * logN + 10 * k + Number(cacheTables));
            const N = 2 ** logN;
            const polys = [0, 1, 2].map(() => Array.from({ length: N }, (_, i) => (i % 7 === 0 ? fr.r - 1n : rng.below(fr.r))));
            const shift = 3n + BigInt(k);
            const mark = fr.heap.mark();
            const ptrs = polys.map((values) => {
              const ptr = fr.alloc(N);
              values.forEach((x, i) => fr.field.write(ptr + i * E, x));
              return ptr;
            });
            free.length = 0;
            made = 0;
            await evaluationsToCosetOnThreads(fr, (op, tasks) => pool.runTasks(op, tasks), ptrs, logN, shift, k, { cacheTables, arrays });
            expect(made, `2^${logN} k ${k}: new arrays for ${3 * 2 ** k} blocks`).toBeLessThanOrEqual(pool.count);
            const got = ptrs.map((ptr) => Array.from({ length: N }, (_, i) => fr.field.read(ptr + i * E)));
            polys.forEach((values, p) => {
              const ptr = fr.alloc(N);
              values.forEach((x, i) => fr.field.write(ptr + i * E, x));
              fr.evaluationsToCoset(ptr, logN, shift);
              const want = Array.from({ length: N }, (_, i) => fr.field.read(ptr + i * E));
              expect(got[p], `2^${logN} k ${k} cacheTables ${cacheTables} poly ${p}`).toEqual(want);
            });
            fr.heap.release(mark);
          }
        }
      }
    } finally {
      await pool.close();
    }
  });
});
