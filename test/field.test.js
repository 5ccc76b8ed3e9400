// Field kernels against the BigInt oracle: every kernel export of the generated module, on the prime matrix
// (test/harness.js) x every limb size w in 26..32, with edge-biased raw inputs in the lazy range [0, 2p).
// Set WASMSM_LONG_TESTS=1 for every mul shape on every (p, w), more random inputs, more random primes and
// longer chains.

import { describe, it, expect } from 'vitest';
import { instantiateField, generateFieldWat, deriveFieldParams, compileWat } from '../codegen/index.js';
import { fieldModuleWat } from '../codegen/modules/field-module.js';
import { montgomeryPairs, defaultQStep } from '../codegen/kernels/field-mul-pairs.js';
import { toLimbs, fromLimbs } from '../codegen/params/field.js';
import { Module } from '../codegen/wat/index.js';
import { instantiate } from '../src/runtime/loader.js';
import { Heap } from '../src/runtime/heap.js';
import { Field } from '../src/field.js';
import { mod, modInv, modPow, legendre, isProbablePrime } from '../src/bigint/field.js';
import {
  LIMB_SIZES, LONG_TESTS, RANDOM_PRIME_BITS, primeMatrix, curvePrimes, makeRng, randomPrime, edgeValues, rawAccess,
  limbCount, hex, prevPrime, nextPrime,
} from './harness.js';
import { runFieldEquivalence } from './field-equivalence.js';

const MATRIX = primeMatrix();
const GROUPS = ['curve', 'random', 'adversarial', 'sqrt', 'special', 'small'];
const SHAPES = ['pairs', 'unrolled', 'loop'];

/** The shapes that can build (p, w): pairs needs w <= 31 and n <= 16. */
const validShapes = (p, w) => SHAPES.filter((s) => s !== 'pairs' || (w <= 31 && limbCount(p, w) <= 16));

/** Which mul shapes build the module for (prime #i, w): rotating, so every prime and every w sees each shape. */
const shapesFor = (i, p, w) => {
  const valid = validShapes(p, w);
  return LONG_TESTS ? valid : [valid[(i + w) % valid.length]];
};

describe('kernels vs BigInt on the prime matrix', () => {
  it('the matrix covers every group, every random size, both sqrt paths and the n-limb edges', () => {
    for (const g of GROUPS) expect(MATRIX.some((e) => e.group === g), g).toBe(true);
    for (const bits of RANDOM_PRIME_BITS) expect(MATRIX.some((e) => e.group === 'random' && e.bits === bits), `${bits}`).toBe(true);
    expect(MATRIX.some((e) => e.p % 4n === 3n)).toBe(true);
    expect(MATRIX.some((e) => e.p % 8n === 5n)).toBe(true);
    expect(MATRIX.some((e) => (e.p - 1n) % (1n << 32n) === 0n && e.p > 1n << 200n)).toBe(true);
    for (const w of LIMB_SIZES) {
      // a prime with 4p just below R for this w, and one just above 2^((n-1)w)
      expect(MATRIX.some((e) => e.bits % w === w - 2 && e.bits > w), `top edge w=${w}`).toBe(true);
      expect(MATRIX.some((e) => e.bits % w === 1 && e.bits > w), `bottom edge w=${w}`).toBe(true);
    }
    for (const e of MATRIX) expect(isProbablePrime(e.p), e.name).toBe(true);
  });

  MATRIX.forEach((entry, index) => {
    describe(`${entry.group} ${entry.name} (${entry.bits} bits)`, () => {
      for (const w of LIMB_SIZES) {
        for (const mulShape of shapesFor(index, entry.p, w)) {
          it(`w=${w} mul=${mulShape}`, async () => {
            const inst = await instantiateField({ p: entry.p, w, mulShape });
            expect(inst.params.n).toBe(limbCount(entry.p, w));
            // tiny primes: every raw value in [0, 2p) against every other
            const values = entry.p < 40n ? Array.from({ length: Number(2n * entry.p) }, (_, i) => BigInt(i)) : undefined;
            const { failures, checks } = runFieldEquivalence(inst, {
              rng: makeRng(`field.test ${entry.name} ${w} ${mulShape}`),
              label: `${entry.name}, mul=${mulShape}`,
              values,
              pairs: LONG_TESTS || values ? Infinity : 900,
            });
            expect(checks).toBeGreaterThan(500);
            expect(failures).toEqual([]);
          });
        }
      }
    });
  });

  if (LONG_TESTS) {
    describe('long: more random primes of every size x every w', () => {
      const rng = makeRng('field.test long random primes');
      for (const bits of RANDOM_PRIME_BITS) {
        for (let k = 0; k < 3; k++) {
          const p = randomPrime(rng, bits);
          for (const w of LIMB_SIZES) {
            it(`${bits} bits #${k} w=${w}`, async () => {
              for (const mulShape of validShapes(p, w)) {
                const inst = await instantiateField({ p, w, mulShape });
                const values = edgeValues(p, w, inst.params.n, { rng: makeRng(`long ${p} ${w}`), random: 24 });
                const { failures } = runFieldEquivalence(inst, { values, label: `random ${bits}, mul=${mulShape}` });
                expect(failures).toEqual([]);
              }
            });
          }
        }
      }
    });
  }
});

describe('the three mul shapes', () => {
  const { p } = curvePrimes()['bls12-381'];
  it('each build exports one other shape under its own name; auto picks pairs up to w = 31', async () => {
    const loop = await instantiateField({ p, w: 30, mulShape: 'loop' });
    const unrolled = await instantiateField({ p, w: 30, mulShape: 'unrolled' });
    const pairs = await instantiateField({ p, w: 30, mulShape: 'pairs' });
    expect(typeof loop.field.mulUnrolled).toBe('function');
    expect(loop.field.mulLoop).toBeUndefined();
    expect(typeof unrolled.field.mulLoop).toBe('function');
    expect(unrolled.field.mulUnrolled).toBeUndefined();
    expect(typeof pairs.field.mulLoop).toBe('function');
    expect(loop.wat).toContain('mul shape: loop');
    expect(unrolled.wat).toContain('mul shape: unrolled');
    expect(pairs.wat).toContain('mul shape: pairs');
    expect(generateFieldWat({ p, w: 31 })).toContain('mul shape: pairs');
    expect(generateFieldWat({ p, w: 32 })).toContain('mul shape: unrolled');
  });

  it('pairs, unrolled and loop agree bit for bit on random lazy inputs, every w', async () => {
    for (const w of LIMB_SIZES) {
      const builds = [];
      for (const mulShape of validShapes(p, w)) {
        const inst = await instantiateField({ p, w, mulShape });
        const raw = rawAccess(inst);
        const alt = inst.field.mulLoop ? 'mulLoop' : 'mulUnrolled';
        builds.push({ inst, raw, alt, ptrs: [inst.field.alloc(), inst.field.alloc(), inst.field.alloc(), inst.field.alloc()] });
      }
      expect(builds.length).toBe(w <= 31 ? 3 : 2);
      const rng = makeRng(`shapes ${w}`);
      for (let i = 0; i < 300; i++) {
        const x = i === 0 ? 2n * p - 1n : rng.below(2n * p);
        const y = i === 0 ? 2n * p - 1n : rng.below(2n * p);
        const got = [];
        for (const { inst, raw, alt, ptrs: [xp, yp, o1, o2] } of builds) {
          raw.write(xp, x);
          raw.write(yp, y);
          inst.field.mul(o1, xp, yp);
          inst.field[alt](o2, xp, yp);
          got.push(raw.read(o1).value, raw.read(o2).value);
        }
        expect(new Set(got).size, `w=${w} x=${hex(x)} y=${hex(y)}: ${got.map(hex)}`).toBe(1);
      }
    }
  });

  it('an unknown shape, or pairs where it cannot fit, is an error', async () => {
    await expect(instantiateField({ p, w: 30, mulShape: 'diagonal' })).rejects.toThrow(/mul shape/);
    expect(() => generateFieldWat({ p, w: 30, mulShape: 'diagonal' })).toThrow(/mul shape/);
    expect(() => generateFieldWat({ p, w: 32, mulShape: 'pairs' })).toThrow(/pairs needs w <= 31/);
    const p1024 = (1n << 1024n) - 105n; // n = 35 at w = 30: too many limbs for straight-line code
    expect(() => generateFieldWat({ p: p1024, w: 30, mulShape: 'pairs' })).toThrow(RangeError);
  });
});

describe('pairs: one or two q limbs per reduction step', () => {
  /** A module with just the pairs mul and sqr at qStep 1 and 2, on its own memory. */
  async function stepKernels(params) {
    const m = new Module({ header: 'pairs kernels, qStep 1 and 2', memory: { import: ['env', 'memory'], minPages: 1 } });
    for (const qStep of [1, 2]) {
      m.add(montgomeryPairs(params, { name: `mul${qStep}`, qStep }));
      m.add(montgomeryPairs(params, { name: `sqr${qStep}`, qStep, square: true }));
    }
    const memory = new WebAssembly.Memory({ initial: 1 });
    const { instance } = await WebAssembly.instantiate(await compileWat(m.render(), 'pairs-steps.wat'), { env: { memory } });
    return { exports: instance.exports, words: new Uint32Array(memory.buffer) };
  }

  it('both steps give the same limbs, x*y/R mod p in [0, 2p), on every group of the matrix', async () => {
    let builds = 0;
    for (const [i, entry] of MATRIX.entries()) {
      const ws = LONG_TESTS ? [26, 27, 28, 29, 30, 31] : [26 + (i % 6)];
      for (const w of ws) {
        const params = deriveFieldParams({ p: entry.p, w });
        if (params.n > 16) continue;
        builds++;
        const { n, p } = params;
        const { exports, words } = await stepKernels(params);
        const write = (word, x) => words.set(toLimbs(x, w, n).map(Number), word);
        const read = (word) => fromLimbs(Array.from(words.subarray(word, word + n)), w);
        const rInv = modInv((1n << BigInt(n * w)) % p, p);
        const values = edgeValues(p, w, n, { rng: makeRng(`q steps ${i} ${w}`) });
        for (let t = 0; t < values.length; t++) {
          const x = values[t];
          const y = values[(t * 7 + 3) % values.length];
          write(0, x);
          write(n, y);
          const got = [];
          for (const qStep of [1, 2]) {
            exports[`mul${qStep}`](8 * n * 4, 0, 4 * n);
            got.push(read(8 * n));
            exports[`sqr${qStep}`](8 * n * 4, 0);
            got.push(read(8 * n));
          }
          const label = `${entry.name} w=${w} x=${hex(x)} y=${hex(y)}`;
          expect(got[0], label).toBe(got[2]);
          expect(got[1], label).toBe(got[3]);
          expect(got[0] < 2n * p && mod(got[0], p) === mod(x * y * rInv, p), label).toBe(true);
          expect(got[1] < 2n * p && mod(got[1], p) === mod(x * x * rInv, p), label).toBe(true);
        }
      }
    }
    expect(builds).toBeGreaterThan(50);
  });

  it('the default is two steps up to 12 limbs and one above; anything else is an error', () => {
    expect(defaultQStep(deriveFieldParams({ p: curvePrimes().bn254.p, w: 29 }))).toBe(2);
    expect(defaultQStep(deriveFieldParams({ p: curvePrimes()['bls12-381'].p, w: 30 }))).toBe(1);
    expect(generateFieldWat({ p: curvePrimes().bn254.p, w: 29 })).toContain('two q limbs per reduction step');
    const params = deriveFieldParams({ p: curvePrimes().bn254.p, w: 29 });
    expect(() => montgomeryPairs(params, { name: 'mul', qStep: 3 })).toThrow(/qStep must be 1 or 2/);
  });
});

describe('long chains of dependent operations (shipped curves, base fields)', () => {
  const STEPS = LONG_TESTS ? 100_000 : 10_000;
  const curves = Object.entries(curvePrimes());

  for (const [name, { p }] of curves) {
    it(`${name}: ${STEPS} x <- x*y with both mul exports, every w, from the top of the lazy range`, async () => {
      for (const w of LIMB_SIZES) {
        const inst = await instantiateField({ p, w, mulShape: SHAPES[w % 3] }); // w = 32 gets loop
        const { field } = inst;
        const raw = rawAccess(inst);
        const R = 1n << BigInt(inst.params.n * w);
        const Rinv = modInv(R % p, p);
        const rng = makeRng(`chain ${name} ${w}`);
        for (const k of ['mul', field.mulUnrolled ? 'mulUnrolled' : 'mulLoop']) {
          for (const [x0, y] of [[2n * p - 1n, 2n * p - 1n], [rng.below(2n * p), rng.below(2n * p)], [p, 2n * p - 1n]]) {
            const x = field.alloc();
            const yp = field.alloc();
            raw.write(x, x0);
            raw.write(yp, y);
            for (let i = 0; i < STEPS; i++) field[k](x, x, yp);
            const got = raw.read(x);
            // x_N = x_0 * (y/R)^N (mod p)
            const want = mod(x0 * modPow(y * Rinv, BigInt(STEPS), p), p);
            const msg = `${k} ${name} w=${w} x0=${hex(x0)} y=${hex(y)} after ${STEPS} steps`;
            expect(got.badLimb, msg).toBe(-1);
            expect(got.value < 2n * p, `${msg}: ${hex(got.value)} not below 2p`).toBe(true);
            expect(hex(mod(got.value, p)), msg).toBe(hex(want));
          }
        }
      }
    });
  }

  for (const [name, { p }] of curves) {
    it(`${name}: ${STEPS} mixed steps (mul, sqr, add, sub, neg, inv) tracked by BigInt, w = 26, 30, 32`, async () => {
      for (const w of [26, 30, 32]) {
        const inst = await instantiateField({ p, w });
        const { field } = inst;
        const raw = rawAccess(inst);
        const R = 1n << BigInt(inst.params.n * w);
        const Rinv = modInv(R % p, p);
        const rng = makeRng(`mixed ${name} ${w}`);
        const [X, Y, Z] = [field.alloc(), field.alloc(), field.alloc()];
        // raw values tracked mod p
        let x = rng.below(2n * p);
        let y = rng.below(2n * p);
        let z = 2n * p - 1n;
        raw.write(X, x);
        raw.write(Y, y);
        raw.write(Z, z);
        const check = (i) => {
          for (const [ptr, v, label] of [[X, x, 'x'], [Y, y, 'y'], [Z, z, 'z']]) {
            const got = raw.read(ptr);
            const msg = `${name} w=${w} step ${i}: ${label}`;
            expect(got.badLimb, msg).toBe(-1);
            expect(got.value < 2n * p, `${msg} = ${hex(got.value)} not below 2p`).toBe(true);
            expect(hex(mod(got.value, p)), msg).toBe(hex(mod(v, p)));
          }
        };
        for (let i = 1; i <= STEPS; i++) {
          field.mul(X, X, Y);
          x = (x * y * Rinv) % p;
          field.add(Y, Y, X);
          y = (y + x) % p;
          field.sub(Z, Z, Y);
          z = mod(z - y, p);
          field.sqr(Y, Y);
          y = (y * y * Rinv) % p;
          if (i % 7 === 0) {
            field.neg(X, X);
            x = mod(-x, p);
          }
          if (i % 97 === 0) {
            field.inv(Z, Z);
            z = z === 0n ? 0n : mod(R * R * modInv(z, p), p);
          }
          if (i % 1000 === 0) check(i);
        }
        check(STEPS);
      }
    });
  }
});

describe('BigInt facade of instantiateField', () => {
  it('mul, add, sub, sqr, neg, inv, sqrt agree with BigInt on canonical and unreduced inputs', async () => {
    for (const name of ['bls12-381', 'bn254', 'secp256k1']) {
      const { p, r } = curvePrimes()[name];
      for (const q of [p, r]) {
        for (const w of [26, 30, 32]) {
          const F = await instantiateField({ p: q, w });
          const rng = makeRng(`facade ${q} ${w}`);
          const xs = [0n, 1n, q - 1n, q, q + 1n, -1n, -q - 5n, 3n * q + 7n, rng.below(q), rng.below(q)];
          for (const x of xs) {
            const xr = mod(x, q);
            for (const y of xs.slice(0, 6)) {
              const yr = mod(y, q);
              expect(F.mul(x, y)).toBe((xr * yr) % q);
              expect(F.add(x, y)).toBe((xr + yr) % q);
              expect(F.sub(x, y)).toBe(mod(xr - yr, q));
            }
            expect(F.sqr(x)).toBe((xr * xr) % q);
            expect(F.neg(x)).toBe(mod(-xr, q));
            expect(F.inv(x)).toBe(xr === 0n ? 0n : modInv(xr, q));
            const s = F.sqrt(x);
            if (xr !== 0n && legendre(xr, q) === -1) expect(s).toBeNull();
            else {
              expect(s !== null && s >= 0n && s < q).toBe(true);
              expect((s * s) % q).toBe(xr);
            }
          }
        }
      }
    }
  });

  it('rejects non-BigInt arguments with a TypeError', async () => {
    const F = await instantiateField({ p: curvePrimes().bn254.p, w: 30 });
    expect(() => F.mul(1, 2n)).toThrow(TypeError);
    expect(() => F.mul(1n, '2')).toThrow(/must be a BigInt/);
    expect(() => F.inv(3)).toThrow(TypeError);
    expect(() => F.sqrt(4)).toThrow(/must be a BigInt/);
    expect(() => F.field.write(F.field.alloc(), 5)).toThrow(TypeError);
    expect(() => F.field.write(F.field.alloc(), F.params.p)).toThrow(RangeError);
  });
});

describe('scratch stack and constants survive heavy use', () => {
  for (const [label, pick] of [['p = 3 mod 4 (bls12-381.p)', (c) => c['bls12-381'].p], ['p = 1 mod 2^32 (bls12-381.r)', (c) => c['bls12-381'].r]]) {
    it(`${label}: sp is restored by pow, sqrt, inv, batchInverse; 2000 calls leave the module intact`, async () => {
      const p = pick(curvePrimes());
      for (const w of [26, 30, 32]) {
        const params = deriveFieldParams({ p, w });
        const { wat, layout } = fieldModuleWat(params);
        const { exports, memory } = await instantiate(await WebAssembly.compile(await compileWat(wat)), { minPages: layout.minPages + 1 });
        const field = new Field(exports, params, new Heap(memory, exports.heapBase.value));
        const raw = rawAccess({ field });
        const R = 1n << BigInt(params.n * w);
        const Rinv = modInv(R % p, p);
        const sp0 = exports.sp.value;
        const constants = new Uint8Array(memory.buffer, 0, layout.stackBottom).slice();
        const [x, o, e] = [field.alloc(), field.alloc(), field.alloc()];
        const xs = field.alloc(8);
        const outs = field.alloc(8);
        new Uint8Array(memory.buffer, e, 4).set([0xff, 0xff, 0xff, 0x7f]);
        const rng = makeRng(`sp ${p} ${w}`);
        for (let i = 0; i < 500; i++) {
          raw.write(x, rng.below(2n * p));
          field.pow(o, x, e, 31);
          field.sqrt(o, x);
          field.inv(o, x);
          for (let j = 0; j < 8; j++) raw.write(xs + j * params.elementBytes, j === 3 ? 0n : rng.below(2n * p));
          field.batchInverse(outs, xs, 8);
          expect(exports.sp.value, `w=${w} call ${i}`).toBe(sp0);
        }
        expect(Buffer.from(new Uint8Array(memory.buffer, 0, layout.stackBottom)).equals(Buffer.from(constants))).toBe(true);
        // and the module still computes
        const a = rng.below(p);
        raw.write(x, mod(a * R, p));
        field.sqr(o, x);
        expect(mod(raw.read(o).value * Rinv, p)).toBe((a * a) % p);
      }
    });
  }
});

describe('determinism', () => {
  const curves = curvePrimes();
  it('generateFieldWat gives identical text for identical inputs', () => {
    for (const { p } of [curves['bls12-381'], curves.bn254, { p: (1n << 127n) - 1n }]) {
      for (const w of [26, 29, 30, 32]) {
        for (const mulShape of validShapes(p, w)) {
          const a = generateFieldWat({ p, w, mulShape });
          const b = generateFieldWat({ p, w, mulShape });
          expect(a === b, `p=${hex(p)} w=${w} ${mulShape}`).toBe(true);
          expect(generateFieldWat({ p: hex(p), w, mulShape }) === a, 'hex-string p').toBe(true);
        }
      }
    }
  });

  it('the text depends on p, w and the shape, and instantiateField builds exactly that text', async () => {
    const { p } = curves.bn254;
    const texts = new Set();
    let builds = 0;
    for (const w of LIMB_SIZES) {
      for (const mulShape of validShapes(p, w)) {
        texts.add(generateFieldWat({ p, w, mulShape }));
        builds++;
      }
    }
    texts.add(generateFieldWat({ p: curves.grumpkin.p, w: 30 }));
    expect(builds).toBe(LIMB_SIZES.length * SHAPES.length - 1); // no pairs at w = 32
    expect(texts.size).toBe(builds + 1);
    const inst = await instantiateField({ p, w: 31, mulShape: 'unrolled' });
    expect(inst.wat).toBe(generateFieldWat({ p, w: 31, mulShape: 'unrolled' }));
    // defaults: w = 30 and the default shape, the same in both entry points
    expect(generateFieldWat({ p })).toBe(generateFieldWat({ p, w: 30 }));
    expect((await instantiateField({ p })).wat).toBe(generateFieldWat({ p }));
  });

  it('the text compiles to the same bytes twice', async () => {
    const wat = generateFieldWat({ p: curves.pallas.p, w: 30 });
    const [a, b] = [await compileWat(wat), await compileWat(wat)];
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });
});

describe('bad input', () => {
  const entryPoints = [
    ['deriveFieldParams', (o) => deriveFieldParams(o)],
    ['generateFieldWat', (o) => generateFieldWat(o)],
  ];
  const cases = [
    ['even p', { p: 1n << 255n, w: 30 }, RangeError, /p must be odd/],
    ['even p (4)', { p: 4n, w: 30 }, RangeError, /p must be odd/],
    ['p = 2', { p: 2n, w: 30 }, RangeError, /odd prime >= 3/],
    ['p = 1', { p: 1n, w: 30 }, RangeError, /odd prime >= 3/],
    ['p = 0', { p: 0n, w: 30 }, RangeError, /odd prime >= 3/],
    ['negative p', { p: -7n, w: 30 }, RangeError, /odd prime >= 3/],
    ['composite p = 15', { p: 15n, w: 30 }, RangeError, /not prime/],
    ['Carmichael 561', { p: 561n, w: 30 }, RangeError, /not prime/],
    ['strong pseudoprime to 2, 3, 5, 7 (3215031751)', { p: 3215031751n, w: 30 }, RangeError, /not prime/],
    ['product of two large primes', { p: prevPrime(1n << 128n) * nextPrime(1n << 127n), w: 30 }, RangeError, /not prime/],
    ['p^2 for bn254.p', { p: curvePrimes().bn254.p ** 2n, w: 30 }, RangeError, /not prime/],
    ['w = 25', { p: 101n, w: 25 }, RangeError, /limb size w must be an integer in 26\.\.32, got 25/],
    ['w = 33', { p: 101n, w: 33 }, RangeError, /limb size w must be an integer in 26\.\.32, got 33/],
    ['w = 1.5', { p: 101n, w: 1.5 }, RangeError, /limb size w must be an integer in 26\.\.32, got 1\.5/],
    ['w = 30.5', { p: 101n, w: 30.5 }, RangeError, /limb size w/],
    ['w = NaN', { p: 101n, w: NaN }, RangeError, /limb size w/],
    ['p a number', { p: 101, w: 30 }, TypeError, /p must be a BigInt/],
    ['p undefined', { w: 30 }, TypeError, /p must be a BigInt/],
    ['p null', { p: null, w: 30 }, TypeError, /p must be a BigInt/],
    ['p an object', { p: {}, w: 30 }, TypeError, /p must be a BigInt/],
    ['p a non-numeric string', { p: 'seven', w: 30 }, TypeError, /p must be a BigInt/],
  ];
  for (const [label, options, ErrorClass, message] of cases) {
    for (const [fnName, fn] of entryPoints) {
      it(`${fnName}: ${label} -> ${ErrorClass.name}`, () => {
        let error;
        try {
          fn(options);
        } catch (e) {
          error = e;
        }
        expect(error, 'must throw').toBeDefined();
        expect(error).toBeInstanceOf(ErrorClass);
        expect(error.message).toMatch(message);
      });
    }
    it(`instantiateField: ${label} -> rejects with ${ErrorClass.name}`, async () => {
      const promise = instantiateField(options);
      await expect(promise).rejects.toBeInstanceOf(ErrorClass);
      await expect(promise).rejects.toThrow(message);
    });
  }
  it('no argument at all is a TypeError about p', () => {
    expect(() => generateFieldWat()).toThrow(TypeError);
    expect(() => deriveFieldParams()).toThrow(/p must be a BigInt/);
  });
  it('a decimal or 0x-hex string p is accepted and equals the BigInt', () => {
    const { p } = curvePrimes().bn254;
    expect(deriveFieldParams({ p: p.toString(), w: 30 }).p).toBe(p);
    expect(deriveFieldParams({ p: '0x' + p.toString(16), w: 30 }).p).toBe(p);
  });
});

// Minimal reproductions of the two kernel defects the matrix finds, so they read at a glance.
describe('focused reproductions', () => {
  it('one-limb fields (bits(p) <= w - 2, so n = 1): mul(1, 1) is R^-1 mod p, not 0', async () => {
    for (const [p, w] of [[3n, 30], [65537n, 26], [prevPrime(1n << 30n), 32], [prevPrime(1n << 28n), 30]]) {
      const inst = await instantiateField({ p, w });
      expect(inst.params.n).toBe(1);
      const raw = rawAccess(inst);
      const [x, o] = [inst.field.alloc(), inst.field.alloc()];
      raw.write(x, 1n);
      inst.field.mul(o, x, x);
      const R = 1n << BigInt(w);
      const got = raw.read(o).value;
      expect(hex(mod(got, p)), `p=${hex(p)} w=${w}: raw mul(1, 1)`).toBe(hex(modInv(R % p, p)));
      expect(inst.mul(2n, 3n), `p=${hex(p)} w=${w}: F.mul(2n, 3n)`).toBe(6n % p);
    }
  });

  it('fromBytes flags a value >= p even when its high bits lie above n*w (8 * bytes > n * w)', async () => {
    for (const [p, w] of [[prevPrime(1n << 50n), 26], [prevPrime(1n << 58n), 30], [(1n << 521n) - 1n, 31]]) {
      const inst = await instantiateField({ p, w });
      const { n, bytes } = inst.params;
      expect(8 * bytes > n * w, `p=${hex(p)} w=${w}: needs 8*bytes > n*w`).toBe(true);
      const buf = inst.field.alloc(Math.ceil(bytes / inst.field.elementBytes) + 1);
      const out = inst.field.alloc();
      const value = 1n << BigInt(8 * bytes - 1); // >= p, and >= 2^(n*w)
      const b = new Uint8Array(inst.field.memory.buffer, buf, bytes);
      b.fill(0);
      b[bytes - 1] = 0x80;
      expect(inst.field.fromBytes(out, buf), `p=${hex(p)} w=${w} n=${n} bytes=${bytes}: fromBytes(${hex(value)})`).toBe(0);
    }
  });
});
