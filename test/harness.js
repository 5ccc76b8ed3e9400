// Test harness for the generated field kernels: a seeded BigInt PRNG, edge-biased inputs, the matrix of
// primes to test, and raw reads and writes of limbs in Wasm memory (src/bigint/field.js is the oracle; nothing here
// trusts codegen/). The equivalence runner over every kernel export is field-equivalence.js.
//
// Conventions. A raw value X (the integer held by the limbs) stands for X * R^-1 mod p (Montgomery form),
// R = 2^(n*w). Kernels documented for [0, 2p) get inputs anywhere in [0, 2p) (so p itself, p + 1 and
// 2p - 1 appear as representatives); kernels documented for [0, p) get only [0, p). Every output is checked
// for its congruence, its documented range, and that each u32 word holds at most w bits.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mod, isProbablePrime, bitLength } from '../src/bigint/field.js';
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