// Test harness for the generated field kernels: a seeded BigInt PRNG, edge-biased inputs, the matrix of
// primes to test, and an equivalence runner that checks every kernel export on raw limbs in Wasm memory
// against plain BigInt math (src/bigint/field.js is the oracle; nothing here trusts codegen/).
//
// Conventions. A raw value X (the integer held by the limbs) stands for X * R^-1 mod p (Montgomery form),
// R = 2^(n*w). Kernels documented for [0, 2p) get inputs anywhere in [0, 2p) (so p itself, p + 1 and
// 2p - 1 appear as representatives); kernels documented for [0, p) get only [0, p). Every output is checked
// for its congruence, its documented range, and that each u32 word holds at most w bits.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mod, modInv, modPow, legendre, isProbablePrime, bitLength } from '../src/bigint/field.js';
import { randomScalar } from '../src/bigint/curve.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { curveNames } from '../index.js';

export const LIMB_SIZES = [26, 27, 28, 29, 30, 31, 32];
export const LONG_TESTS = Boolean(process.env.WASMSM_LONG_TESTS);

/**
 * The builds of a curve this engine runs, for suites that run once per build: the integer build everywhere, and the
 * FMA build where the relaxed-SIMD probe finds a fused relaxed_madd (Node 22/24, Chromium; not Node 20, so CI runs
 * the suite under both). loadCurve(name, { kernel }) loads one.
 */
export const KERNELS = Object.freeze(relaxedFmaSupport() === 'fused' ? ['int', 'fma'] : ['int']);

// ---------------------------------------------------------------------------------------------------------
// Seeded PRNG (xoshiro128**, seeded through splitmix32). Never Math.random: every failure replays.

/** 32-bit FNV-1a of a string, used to turn a test label into a seed. */
export function hashSeed(seed) {
  if (typeof seed === 'number') return seed >>> 0;
  const s = String(seed);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * makeRng(seed) with seed a number, string or BigInt. Methods: u32(), int(n) in [0, n), bits(k) a BigInt
 * of at most k bits, below(m) a BigInt in [0, m), between(lo, hi) in [lo, hi), pick(array).
 */
export function makeRng(seed = 1) {
  let x = hashSeed(typeof seed === 'bigint' ? seed.toString(16) : seed);
  const splitmix = () => {
    x = (x + 0x9e3779b9) | 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let s0 = splitmix();
  let s1 = splitmix();
  let s2 = splitmix();
  let s3 = splitmix();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  const rotl = (v, k) => (v << k) | (v >>> (32 - k));
  const u32 = () => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
  const bits = (k) => {
    let v = 0n;
    for (let got = 0; got < k; got += 32) v = (v << 32n) | BigInt(u32());
    const extra = Math.ceil(k / 32) * 32 - k;
    return v >> BigInt(extra);
  };
  const below = (m) => {
    if (m <= 0n) throw new RangeError('below(m) needs m > 0');
    const k = bitLength(m);
    for (;;) {
      const v = bits(k);
      if (v < m) return v;
    }
  };
  const int = (n) => {
    if (!(n > 0)) throw new RangeError('int(n) needs n > 0');
    const limit = Math.floor(0x100000000 / n) * n;
    for (;;) {
      const v = u32();
      if (v < limit) return v % n;
    }
  };
  return {
    u32,
    int,
    bits,
    below,
    between: (lo, hi) => lo + below(hi - lo),
    pick: (arr) => arr[int(arr.length)],
    /** A few distinct items of arr, in a seeded order. */
    sample(arr, count) {
      const a = [...arr];
      for (let i = a.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a.slice(0, count);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Primes.

/** Largest prime strictly below x. */
export function prevPrime(x) {
  let c = x - 1n;
  if (c % 2n === 0n) c -= 1n;
  for (; c >= 2n; c -= 2n) if (isProbablePrime(c)) return c;
  if (x > 2n) return 2n;
  throw new RangeError(`no prime below ${x}`);
}

/** Smallest prime strictly above x. */
export function nextPrime(x) {
  let c = x + 1n;
  if (c <= 2n) return 2n;
  if (c % 2n === 0n) c += 1n;
  for (;; c += 2n) if (isProbablePrime(c)) return c;
}

/** A random prime of exactly `bits` bits with p = residue mod modulus (default: any odd prime). */
export function randomPrime(rng, bits, { residue = 1n, modulus = 2n } = {}) {
  const lo = 1n << BigInt(bits - 1);
  const hi = 1n << BigInt(bits);
  for (;;) {
    let c = lo + rng.below(lo);
    c += mod(residue - c, modulus);
    for (; c < hi; c += modulus) if (isProbablePrime(c)) return c;
  }
}

/** 2-adicity of p - 1: the s in p - 1 = Q * 2^s with Q odd. */
export function twoAdicity(p) {
  let s = 0;
  for (let q = p - 1n; (q & 1n) === 0n; q >>= 1n) s++;
  return s;
}

/** The least n with 4p < 2^(n*w): the limb count the lazy [0, 2p) range needs. Independent of codegen. */
export function limbCount(p, w) {
  let n = 1;
  while (4n * p >= 1n << BigInt(n * w)) n++;
  return n;
}

const CURVE_NAMES = ['bls12-381', 'bn254', 'bls12-377', 'pallas', 'vesta', 'secp256k1', 'grumpkin'];

/** { name: { p, r } } for the seven shipped curves, read from codegen/curves/*.json. */
export function curvePrimes() {
  const dir = new URL('../codegen/curves/', import.meta.url);
  const files = readdirSync(fileURLToPath(dir)).filter((f) => f.endsWith('.json'));
  const out = {};
  for (const name of CURVE_NAMES) {
    if (!files.includes(`${name}.json`)) throw new Error(`codegen/curves/${name}.json is missing`);
    const json = JSON.parse(readFileSync(fileURLToPath(new URL(`${name}.json`, dir)), 'utf8'));
    out[name] = { p: BigInt(json.p), r: BigInt(json.r) };
  }
  return out;
}

export const RANDOM_PRIME_BITS = [32, 64, 100, 128, 200, 256, 384, 512, 768, 1024];

let matrixCache = null;

/**
 * The primes every field suite runs on, as [{ name, p, group, bits, targetW? }], deduplicated by value
 * (names merged). Groups:
 *   curve       base and scalar fields of the seven shipped curves;
 *   random      one random prime per size in RANDOM_PRIME_BITS, from a fixed seed;
 *   adversarial for limb size targetW, the largest prime below 2^(n*w - 2) (4p just below R: the largest
 *               value with n limbs, top limb nearly full) and the smallest prime above 2^((n-1)*w) (top limb
 *               of p = 1, the least that still needs n limbs); n = 1 primes (one limb) as well;
 *   sqrt        both square-root paths: p = 3 mod 4, p = 5 mod 8, p = 1 mod 2^s with s = 32, 40, 64;
 *   special     structured primes in use elsewhere (Mersenne, Goldilocks, BabyBear, KoalaBear, 2^255 - 19);
 *   small       tiny primes (3, 5, 7, 13, 17, 257, 65537), which get one limb and can be tested exhaustively.
 */
export function primeMatrix() {
  if (matrixCache) return matrixCache;
  const list = [];
  const add = (name, p, group, extra = {}) => list.push({ name, p, group, bits: bitLength(p), ...extra });

  const curves = curvePrimes();
  for (const [name, { p, r }] of Object.entries(curves)) {
    add(`${name}.p`, p, 'curve');
    add(`${name}.r`, r, 'curve');
  }

  const rng = makeRng('wasmsm primeMatrix v1');
  for (const bits of RANDOM_PRIME_BITS) add(`random${bits}`, randomPrime(rng, bits), 'random');

  for (const w of LIMB_SIZES) {
    add(`top(n=1,w=${w})`, prevPrime(1n << BigInt(w - 2)), 'adversarial', { targetW: w });
    for (const n of [2, 9]) {
      add(`top(n=${n},w=${w})`, prevPrime(1n << BigInt(n * w - 2)), 'adversarial', { targetW: w });
      add(`bottom(n=${n},w=${w})`, nextPrime(1n << BigInt((n - 1) * w)), 'adversarial', { targetW: w });
    }
  }
  // BLS12-381-sized edges: 13 limbs of 30 bits and 12 limbs of 32 bits.
  add('top(n=13,w=30)', prevPrime(1n << 388n), 'adversarial', { targetW: 30 });
  add('top(n=12,w=32)', prevPrime(1n << 382n), 'adversarial', { targetW: 32 });
  add('bottom(n=12,w=32)', nextPrime(1n << 352n), 'adversarial', { targetW: 32 });

  add('p3mod4(128)', randomPrime(rng, 128, { residue: 3n, modulus: 4n }), 'sqrt');
  add('p5mod8(200)', randomPrime(rng, 200, { residue: 5n, modulus: 8n }), 'sqrt');
  add('k*2^32+1 (least k)', (() => {
    for (let k = 1n; ; k++) if (isProbablePrime(k * (1n << 32n) + 1n)) return k * (1n << 32n) + 1n;
  })(), 'sqrt');
  add('k*2^32+1 (256 bits)', (() => {
    for (;;) {
      const p = ((rng.bits(223) | (1n << 222n)) << 33n) + (1n << 32n) + 1n; // k odd: 2-adicity exactly 32
      if (isProbablePrime(p)) return p;
    }
  })(), 'sqrt');
  add('k*2^40+1 (100 bits)', randomPrime(rng, 100, { residue: 1n + (1n << 40n), modulus: 1n << 41n }), 'sqrt');
  add('k*2^64+1 (128 bits)', randomPrime(rng, 128, { residue: 1n + (1n << 64n), modulus: 1n << 65n }), 'sqrt');

  add('2^31-1', (1n << 31n) - 1n, 'special');
  add('babybear', 15n * (1n << 27n) + 1n, 'special');
  add('koalabear', (1n << 31n) - (1n << 24n) + 1n, 'special');
  add('goldilocks', (1n << 64n) - (1n << 32n) + 1n, 'special');
  add('2^61-1', (1n << 61n) - 1n, 'special');
  add('2^127-1', (1n << 127n) - 1n, 'special');
  add('2^255-19', (1n << 255n) - 19n, 'special');
  add('2^521-1', (1n << 521n) - 1n, 'special');

  for (const p of [3n, 5n, 7n, 13n, 17n, 257n, 65537n]) add(`small${p}`, p, 'small');

  const byValue = new Map();
  for (const e of list) {
    if (!isProbablePrime(e.p)) throw new Error(`primeMatrix: ${e.name} is not prime`);
    const seen = byValue.get(e.p);
    if (seen) seen.name += ` = ${e.name}`;
    else byValue.set(e.p, { ...e });
  }
  matrixCache = Object.freeze([...byValue.values()].map((e) => Object.freeze(e)));
  return matrixCache;
}

// ---------------------------------------------------------------------------------------------------------
// Edge-biased inputs.

/**
 * Raw values in [0, bound), bound = 2p for kernels that take the lazy range and p for those that need [0, p):
 * 0, 1, 2, p - 1, p - 2, (p - 1)/2, and with bound 2p also p, p + 1, 2p - 2, 2p - 1; one in Montgomery form
 * (R mod p) and minus one (p - R mod p), plus its other representative; values whose low k limbs are all ones
 * (2^(k*w) - 1) and a single full limb; powers of two around limb and prime boundaries; `random` random values.
 */
export function edgeValues(p, w, n, { bound = 2n * p, rng = makeRng(`edge ${p} ${w}`), random = 6, allOnes = 4 } = {}) {
  const W = BigInt(w);
  const R = 1n << BigInt(n * w);
  const bits = bitLength(p);
  const v = [0n, 1n, 2n, 3n, p - 1n, p - 2n, (p - 1n) / 2n, (p + 1n) / 2n];
  if (bound > p) v.push(p, p + 1n, 2n * p - 2n, 2n * p - 1n, p + (p - 1n) / 2n);
  const one = R % p;
  v.push(one, mod(-one, p), one + p, (R * R) % p);
  // limbs all ones: 2^(k*w) - 1, k = 1, 2, ..., n - 1 (sampled when n is large), and a full limb alone
  let ks = Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1);
  if (ks.length > allOnes) ks = [1, 2, n - 2, n - 1, ...rng.sample(ks.slice(2, -2), Math.max(0, allOnes - 4))];
  for (const k of ks) v.push((1n << (BigInt(k) * W)) - 1n);
  if (n >= 2) v.push(((1n << W) - 1n) << (BigInt(n - 2) * W));
  // powers of two: limb boundaries and the top bits of p and 2p
  for (const e of [w - 1, w, w + 1, bits - 2, bits - 1, bits, (n - 1) * w, (n - 1) * w - 1]) {
    if (e >= 0) v.push(1n << BigInt(e));
  }
  // the top limb at its largest value below the bound, lower limbs zero
  const topShift = BigInt((n - 1) * w);
  if (n >= 2) v.push(((bound - 1n) >> topShift) << topShift);
  for (let i = 0; i < random; i++) v.push(rng.below(bound));
  return [...new Set(v.filter((x) => x >= 0n && x < bound))];
}

// ---------------------------------------------------------------------------------------------------------
// Raw memory access, independent of src/field.js (which masks nothing on read).

const hex = (x) => (typeof x === 'bigint' ? (x < 0n ? '-0x' + (-x).toString(16) : '0x' + x.toString(16)) : String(x));
export { hex };

/** u32 words of the element at ptr, fresh view (memory may have grown). */
/** count limb words at ptr: u32 (integer kernels) or u64 (FMA kernels) by limbBytes. */
function words(memory, ptr, count, limbBytes = 4) {
  return limbBytes === 4 ? new Uint32Array(memory.buffer, ptr, count) : new BigUint64Array(memory.buffer, ptr, count);
}

/**
 * An accessor for one instantiated field ({ params, field } from instantiateField): write/read raw limbs,
 * with the limb-width check on read.
 */
export function rawAccess(inst) {
  const { field } = inst;
  const { n, w } = field;
  const limbBytes = field.elementBytes / n;
  const W = BigInt(w);
  const limbMax = (1n << W) - 1n;
  const at = (ptr, count) => words(field.memory, ptr, count, limbBytes);
  // a word as stored: u32 words hold Numbers, u64 words (FMA and wide kernels) BigInts
  const word = limbBytes === 4 ? Number : BigInt;
  return {
    n,
    w,
    write(ptr, x) {
      if (x < 0n || x >> BigInt(n * w)) throw new RangeError(`rawAccess.write: ${hex(x)} does not fit ${n} limbs of ${w} bits`);
      const a = at(ptr, n);
      for (let j = 0; j < n; j++, x >>= W) a[j] = word(x & limbMax);
    },
    /** { value, badLimb } where badLimb is the first word index holding more than w bits, or -1. */
    read(ptr) {
      const a = Array.from(at(ptr, n), BigInt);
      let value = 0n;
      let badLimb = -1;
      for (let j = n - 1; j >= 0; j--) {
        if (a[j] > limbMax) badLimb = j;
        value = (value << W) + a[j];
      }
      return { value, badLimb, words: a };
    },
    fill(ptr, count, value) {
      at(ptr, count).fill(word(value));
    },
    same(ptr, count, value) {
      return at(ptr, count).every((x) => x === word(value));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Equivalence runner.

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

// ---- msmBytes encodings written independently of the library (the oracle side never uses its encoders) ----

export function writeLE(x, out, offset, length) {
  for (let i = 0; i < length; i++, x >>= 8n) out[offset + i] = Number(x & 0xffn);
}

/** Points ({ x, y } or null) as x | y little-endian, B bytes each; coordinates written as given, even out of range. */
export function pointsToBytes(B, points) {
  const out = new Uint8Array(points.length * 2 * B);
  points.forEach((P, i) => {
    if (P === null) return;
    writeLE(P.x, out, 2 * B * i, B);
    writeLE(P.y, out, 2 * B * i + B, B);
  });
  return out;
}

/** Scalars as S-byte little-endian integers. */
export function scalarsToBytes(S, scalars) {
  const out = new Uint8Array(scalars.length * S);
  scalars.forEach((s, i) => writeLE(s, out, S * i, S));
  return out;
}

/** One input holding every degenerate case, in a non-power-of-two count. */
export function degenerateInput(curve, oracle, pool, rng) {
  const r = curve.r;
  const P = pool[0];
  const Q = pool[1];
  const points = [];
  const scalars = [];
  const add = (pt, s) => {
    points.push(pt);
    scalars.push(s);
  };
  const s1 = randomScalar(rng, r);
  for (let i = 0; i < 40; i++) add(P, s1); // one bucket in every window: doublings
  for (let i = 0; i < 9; i++) add(Q, 1n);
  add(Q, r - 1n); // Q - Q inside the bucket sums
  const s2 = randomScalar(rng, r);
  for (let i = 0; i < 6; i++) add(oracle.neg(pool[2]), s2);
  for (let i = 0; i < 6; i++) add(pool[2], s2); // P + (-P) cancels
  add(null, s2); // infinity
  for (let i = 3; i < 20; i++) add(pool[i], 0n); // zero scalars
  for (const s of [1n, 2n, r - 1n, r - 2n, (r - 1n) / 2n, 1n << 64n, (1n << 127n) - 1n]) add(pool[30], s);
  if (curve.params.glv) add(pool[31], curve.params.glv.lambda);
  for (let i = 40; points.length < 123; i++) add(pool[i], randomScalar(rng, r));
  return { points, scalars };
}

/** k * P by double-and-add from the top bit, for any group law add(P, Q) with null as the neutral element. */
export function doubleAndAdd(add, P, k) {
  let acc = null;
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    acc = add(acc, acc);
    if ((k >> BigInt(i)) & 1n) acc = add(acc, P);
  }
  return acc;
}

/**
 * Affine twisted Edwards arithmetic on a x^2 + y^2 = 1 + d x^2 y^2 over F_p, written from the curve equation alone
 * (no map to another model): the unified addition law x3 = (x1 y2 + y1 x2) / (1 + d t), y3 = (y1 y2 - a x1 x2) /
 * (1 - d t), t = x1 x2 y1 y2 (Bernstein et al. 2008), which is complete for a square a and a non-square d and holds
 * on Bandersnatch's (non-square a) points of order r. null is accepted as the neutral element (0, 1) (doubleAndAdd
 * starts from it) and never returned. liftY(y) is a point with that y (either root) or null.
 */
export function edwardsOps({ p, a, d }) {
  const m = (v) => ((v % p) + p) % p;
  const inv = (v) => {
    let [r0, r1, s0, s1] = [m(v), p, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    if (r0 !== 1n) throw new Error('edwardsOps: a denominator of the addition law is zero');
    return m(s0);
  };
  const ZERO = Object.freeze({ x: 0n, y: 1n });
  const add = (P, Q) => {
    P ??= ZERO;
    Q ??= ZERO;
    const t = m(d * P.x * Q.x % p * P.y % p * Q.y);
    return { x: m((P.x * Q.y + P.y * Q.x) * inv(1n + t)), y: m((P.y * Q.y - a * P.x * Q.x) * inv(1n - t)) };
  };
  const mul = (P, k) => doubleAndAdd(add, P, k) ?? ZERO;
  const neg = (P) => ({ x: m(-P.x), y: P.y });
  const onCurve = (P) => m(a * P.x * P.x + P.y * P.y - 1n - d * P.x * P.x % p * P.y * P.y) === 0n;
  const sqrt = (v) => {
    // Tonelli-Shanks (p odd prime)
    v = m(v);
    if (v === 0n) return 0n;
    const pow = (b, e) => {
      let r = 1n;
      for (b = m(b); e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p;
      return r;
    };
    if (pow(v, (p - 1n) / 2n) !== 1n) return null;
    let q = p - 1n;
    let s = 0;
    while (!(q & 1n)) [q, s] = [q >> 1n, s + 1];
    let z = 2n;
    while (pow(z, (p - 1n) / 2n) !== p - 1n) z++;
    let [M, c, t, R] = [s, pow(z, q), pow(v, q), pow(v, (q + 1n) / 2n)];
    while (t !== 1n) {
      let i = 0;
      for (let u = t; u !== 1n; u = (u * u) % p) i++;
      let b = c;
      for (let j = 0; j < M - i - 1; j++) b = (b * b) % p;
      [M, c, t, R] = [i, (b * b) % p, (t * b * b) % p, (R * b) % p];
    }
    return R;
  };
  const liftY = (y) => {
    const den = m(a - d * y * y);
    if (den === 0n) return null;
    const x = sqrt(m((1n - y * y) * inv(den)));
    return x === null ? null : { x, y: m(y) };
  };
  return { ZERO, add, mul, neg, onCurve, liftY, sqrt, inv };
}

/**
 * The shipped short-Weierstrass curves: the suites whose oracle (src/bigint/curve.js makeCurve) and hand-made
 * off-curve points are written for y^2 = x^3 + a x + b run on these; the twisted Edwards curves have their own
 * (edwards.test.js, edwards-codecs.test.js).
 */
export const WEIERSTRASS_CURVES = Object.freeze(
  curveNames.filter((n) => JSON.parse(readFileSync(new URL(`../codegen/curves/${n}.json`, import.meta.url), 'utf8')).model === undefined),
);

// Inputs that come in pieces, and errors, for the suites of readers and provers (groth16-formats, groth16-prove).

/**
 * A ReadableStream of `bytes` in chunks of `size` (fresh copies, as a network stream gives them), each made when
 * asked for (pull): Node's stream queue is slow with 10^5 chunks waiting in it.
 */
export const streamOf = (bytes, size = bytes.length) => {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, (at += size)));
    },
  });
};
/** An async iterable of `bytes` in chunks of `size` (copies). */
export async function* iterableOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function errorOf(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}
