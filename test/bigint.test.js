import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { weierstrass } from '@noble/curves/abstract/weierstrass.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import {
  mod,
  modAdd,
  modSub,
  modMul,
  modNeg,
  modPow,
  modInv,
  legendre,
  modSqrt,
  isProbablePrime,
  bitLength,
  bytesToBigIntLE,
  bigIntToBytesLE,
} from '../src/bigint/field.js';
import { makeCurve, parseCurveJson, makeRng, randomScalar } from '../src/bigint/curve.js';
import { findGlvConstants, reducedBasis, decompose } from '../src/bigint/glv.js';

const CURVE_NAMES = ['bls12-381', 'bn254', 'bls12-377', 'pallas', 'vesta', 'secp256k1', 'grumpkin'];
const curveDir = new URL('../codegen/curves/', import.meta.url);
const RAW = Object.fromEntries(
  CURVE_NAMES.map((n) => [n, JSON.parse(readFileSync(fileURLToPath(new URL(`${n}.json`, curveDir)), 'utf8'))]),
);
const PARAMS = Object.fromEntries(CURVE_NAMES.map((n) => [n, parseCurveJson(RAW[n])]));
const CURVES = Object.fromEntries(CURVE_NAMES.map((n) => [n, makeCurve(PARAMS[n])]));

// Primes with different shapes: p = 3 mod 4, p = 5 mod 8, and high 2-adicity (Tonelli–Shanks paths).
const TEST_PRIMES = [
  PARAMS['bls12-381'].p, // 3 mod 4
  PARAMS['bls12-381'].r, // 2-adicity 32
  PARAMS.bn254.r, // 2-adicity 28
  PARAMS.pallas.p, // 2-adicity 32
  PARAMS.secp256k1.p, // 3 mod 4
  2n ** 255n - 19n, // 5 mod 8
  PARAMS['bls12-377'].p, // 2-adicity 46
];

/** Strong-probable-prime test to one base, written independently of field.js. */
function isStrongProbablePrime(n, a) {
  let d = n - 1n;
  let s = 0;
  while (d % 2n === 0n) {
    d /= 2n;
    s++;
  }
  let x = modPow(a, d, n);
  if (x === 1n || x === n - 1n) return true;
  for (let i = 1; i < s; i++) {
    x = (x * x) % n;
    if (x === n - 1n) return true;
  }
  return false;
}

describe('field.js', () => {
  const rng = makeRng(12345);

  it('mod gives canonical residues and the basic ops agree with definitions', () => {
    expect(mod(-1n, 7n)).toBe(6n);
    expect(mod(-14n, 7n)).toBe(0n);
    expect(mod(15n, 7n)).toBe(1n);
    expect(() => mod(1n, 0n)).toThrow(RangeError);
    expect(modAdd(5n, 4n, 7n)).toBe(2n);
    expect(modSub(2n, 5n, 7n)).toBe(4n);
    expect(modMul(3n, 5n, 7n)).toBe(1n);
    expect(modNeg(0n, 7n)).toBe(0n);
    expect(modNeg(3n, 7n)).toBe(4n);
    for (const p of TEST_PRIMES) {
      for (let i = 0; i < 10; i++) {
        const a = randomScalar(rng, p);
        const b = randomScalar(rng, p);
        const c = randomScalar(rng, p);
        expect(modSub(modAdd(a, b, p), b, p)).toBe(a);
        expect(modAdd(a, modNeg(a, p), p)).toBe(0n);
        expect(modMul(a, modAdd(b, c, p), p)).toBe(modAdd(modMul(a, b, p), modMul(a, c, p), p));
        expect(modMul(a, b, p)).toBe(modMul(b, a, p));
      }
    }
  });

  it('modPow: small cases, Fermat, exponent laws, negative exponent', () => {
    expect(modPow(2n, 10n, 1000n)).toBe(24n);
    expect(modPow(0n, 0n, 7n)).toBe(1n);
    expect(modPow(5n, 3n, 1n)).toBe(0n);
    expect(modPow(3n, -1n, 7n)).toBe(5n);
    for (const p of TEST_PRIMES) {
      for (let i = 0; i < 4; i++) {
        const a = randomScalar(rng, p - 1n) + 1n;
        expect(modPow(a, p - 1n, p)).toBe(1n);
        expect(modPow(a, p, p)).toBe(a);
        const e1 = randomScalar(rng, p);
        const e2 = randomScalar(rng, p);
        expect(modPow(a, e1 + e2, p)).toBe(modMul(modPow(a, e1, p), modPow(a, e2, p), p));
        expect(modMul(modPow(a, -e1, p), modPow(a, e1, p), p)).toBe(1n);
      }
    }
  });

  it('modInv: inverse property, agreement with Fermat, errors', () => {
    for (const p of TEST_PRIMES) {
      for (let i = 0; i < 10; i++) {
        const a = randomScalar(rng, p - 1n) + 1n;
        const inv = modInv(a, p);
        expect(modMul(a, inv, p)).toBe(1n);
        expect(inv).toBe(modPow(a, p - 2n, p));
        expect(modInv(a - p, p)).toBe(inv); // negative input
      }
      expect(modInv(1n, p)).toBe(1n);
      expect(modInv(p - 1n, p)).toBe(p - 1n);
      expect(() => modInv(0n, p)).toThrow(RangeError);
      expect(() => modInv(p, p)).toThrow(RangeError);
    }
    expect(modInv(7n, 9n)).toBe(4n); // composite modulus
    expect(() => modInv(3n, 9n)).toThrow(RangeError);
    expect(() => modInv(6n, 10n)).toThrow(RangeError);
  });

  it('legendre and modSqrt: exhaustive over small primes', () => {
    for (const p of [3n, 5n, 7n, 11n, 13n, 17n, 41n, 73n, 97n, 113n, 257n, 337n]) {
      const squares = new Set();
      for (let x = 0n; x < p; x++) squares.add((x * x) % p);
      for (let a = 0n; a < p; a++) {
        const s = modSqrt(a, p);
        if (squares.has(a)) {
          expect(s).not.toBeNull();
          expect((s * s) % p).toBe(a);
          expect(legendre(a, p)).toBe(a === 0n ? 0 : 1);
        } else {
          expect(s).toBeNull();
          expect(legendre(a, p)).toBe(-1);
        }
      }
    }
    expect(modSqrt(1n, 2n)).toBe(1n);
    expect(modSqrt(0n, 2n)).toBe(0n);
  });

  it('modSqrt roundtrip and non-residues on cryptographic primes', () => {
    for (const p of TEST_PRIMES) {
      for (let i = 0; i < 6; i++) {
        const x = randomScalar(rng, p);
        const a = modMul(x, x, p);
        const s = modSqrt(a, p);
        expect(s === x || s === mod(-x, p)).toBe(true);
        expect(legendre(a, p)).toBe(a === 0n ? 0 : 1);
      }
      // A non-residue times a nonzero square is a non-residue.
      let z = 2n;
      while (legendre(z, p) !== -1) z++;
      const y = randomScalar(rng, p - 1n) + 1n;
      expect(modSqrt(modMul(z, modMul(y, y, p), p), p)).toBeNull();
      expect(modSqrt(p - 1n, p) === null).toBe(p % 4n === 3n); // -1 is a square iff p = 1 mod 4
    }
  });

  it('bitLength and little-endian byte conversion', () => {
    expect(bitLength(0n)).toBe(0);
    expect(bitLength(1n)).toBe(1);
    expect(bitLength(255n)).toBe(8);
    expect(bitLength(256n)).toBe(9);
    expect(bitLength(-256n)).toBe(9);
    expect(bitLength(PARAMS['bls12-381'].p)).toBe(381);
    expect(bitLength(PARAMS.bn254.p)).toBe(254);
    expect(bitLength(PARAMS.secp256k1.p)).toBe(256);
    expect(bigIntToBytesLE(0x0102n, 4)).toEqual(new Uint8Array([2, 1, 0, 0]));
    expect(bytesToBigIntLE(new Uint8Array([2, 1, 0, 0]))).toBe(0x0102n);
    expect(bytesToBigIntLE(new Uint8Array([]))).toBe(0n);
    expect(() => bigIntToBytesLE(256n, 1)).toThrow(RangeError);
    expect(() => bigIntToBytesLE(-1n, 4)).toThrow(RangeError);
    for (const p of TEST_PRIMES) {
      const len = Math.ceil(bitLength(p) / 8);
      for (let i = 0; i < 5; i++) {
        const x = randomScalar(rng, p);
        const bytes = bigIntToBytesLE(x, len);
        expect(bytes.length).toBe(len);
        expect(bytesToBigIntLE(bytes)).toBe(x);
        // Agrees with a big-endian hex rendering, reversed.
        const hex = x.toString(16).padStart(2 * len, '0');
        const be = Uint8Array.from(hex.match(/../g).map((h) => parseInt(h, 16)));
        expect(Array.from(bytes)).toEqual(Array.from(be).reverse());
      }
    }
  });
});

describe('isProbablePrime', () => {
  it('small numbers exactly, against a sieve', () => {
    const N = 20000;
    const sieve = new Uint8Array(N).fill(1);
    sieve[0] = sieve[1] = 0;
    for (let i = 2; i * i < N; i++) if (sieve[i]) for (let j = i * i; j < N; j += i) sieve[j] = 0;
    for (let n = 0; n < N; n++) expect(isProbablePrime(BigInt(n))).toBe(sieve[n] === 1);
    expect(isProbablePrime(-7n)).toBe(false);
    expect(isProbablePrime(1000003n)).toBe(true); // first prime above the trial-division cut-off
    expect(isProbablePrime(1000001n)).toBe(false); // 101 * 9901
    expect(isProbablePrime(1018081n)).toBe(false); // 1009^2, no factor below 1000
  });

  it('known large primes', () => {
    const primes = [
      2n ** 61n - 1n,
      2n ** 89n - 1n,
      2n ** 127n - 1n,
      2n ** 255n - 19n,
      2n ** 521n - 1n,
      2n ** 607n - 1n,
      2n ** 1279n - 1n, // > 1024 bits
      ...CURVE_NAMES.flatMap((n) => [PARAMS[n].p, PARAMS[n].r]),
    ];
    for (const p of primes) expect(isProbablePrime(p)).toBe(true);
  });

  it('composites: Carmichael numbers, strong pseudoprimes, semiprimes of large primes', () => {
    const carmichael = [561n, 1105n, 1729n, 2465n, 2821n, 6601n, 8911n, 41041n, 825265n, 321197185n, 5394826801n];
    // Chernick form (6k+1)(12k+1)(18k+1) with all three prime: Carmichael numbers with only large factors.
    let found = 0;
    for (let k = 1000n; found < 3; k++) {
      const f = [6n * k + 1n, 12n * k + 1n, 18n * k + 1n];
      if (f.every(isProbablePrime)) {
        carmichael.push(f[0] * f[1] * f[2]);
        found++;
      }
    }
    for (const n of carmichael) {
      // Sanity: Fermat test to a coprime base passes, so only the strong test can catch them.
      expect(modPow(1031n, n - 1n, n)).toBe(1n);
      expect(isProbablePrime(n)).toBe(false);
    }
    // Smallest strong pseudoprimes to all of the first k prime bases (OEIS A014233).
    const spsp = [
      [2047n, 1],
      [1373653n, 2],
      [25326001n, 3],
      [3215031751n, 4],
      [2152302898747n, 5],
      [3474749660383n, 6],
      [341550071728321n, 7],
      [3825123056546413051n, 9],
      [318665857834031151167461n, 12],
      [3317044064679887385961981n, 13],
    ];
    const bases = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n];
    for (const [n, k] of spsp) {
      for (const a of bases.slice(0, k)) expect(isStrongProbablePrime(n, a)).toBe(true);
      expect(isProbablePrime(n)).toBe(false);
    }
    expect(isProbablePrime(PARAMS.bn254.p * PARAMS.bn254.r)).toBe(false);
    expect(isProbablePrime(PARAMS.secp256k1.p ** 2n)).toBe(false);
    expect(isProbablePrime((2n ** 127n - 1n) * (2n ** 89n - 1n))).toBe(false);
    expect(isProbablePrime(2n ** 1279n + 1n)).toBe(false);
  });
});

describe('curve.js on a toy curve (exhaustive group law)', () => {
  // y^2 = x^3 + 2x + 3 over F_97, a != 0 so the a-term of doubling is exercised.
  const E = makeCurve({ p: 97n, a: 2n, b: 3n });
  const pts = [null];
  for (let x = 0n; x < 97n; x++) for (let y = 0n; y < 97n; y++) if ((y * y - x * x * x - 2n * x - 3n) % 97n === 0n) pts.push({ x, y });
  const order = BigInt(pts.length);

  it('closure, identity, inverses, commutativity, n*P = O', () => {
    expect(Number(order)).toBeGreaterThan(97 + 1 - 2 * Math.sqrt(97));
    expect(Number(order)).toBeLessThan(97 + 1 + 2 * Math.sqrt(97));
    for (const P of pts) {
      expect(E.isOnCurve(P)).toBe(true);
      expect(E.eq(E.add(P, null), P)).toBe(true);
      expect(E.add(P, E.neg(P))).toBeNull();
      expect(E.eq(E.double(P), E.add(P, P))).toBe(true);
      expect(E.mul(P, order)).toBeNull();
      expect(E.eq(E.mul(P, order + 1n), P)).toBe(true);
      expect(E.mul(P, 0n)).toBeNull();
      for (const Q of pts) {
        const R = E.add(P, Q);
        expect(E.isOnCurve(R)).toBe(true);
        expect(E.eq(R, E.add(Q, P))).toBe(true);
      }
    }
    expect(E.isOnCurve({ x: 0n, y: 0n })).toBe(false);
    expect(() => E.mul(pts[1], -1n)).toThrow(RangeError);
  });

  it('associativity and mul/msm consistency', () => {
    const rng = makeRng(7);
    const pick = () => pts[rng() % pts.length];
    for (let i = 0; i < 3000; i++) {
      const [P, Q, R] = [pick(), pick(), pick()];
      expect(E.eq(E.add(E.add(P, Q), R), E.add(P, E.add(Q, R)))).toBe(true);
    }
    for (let i = 0; i < 200; i++) {
      const P = pick();
      const k = BigInt(rng() % 300);
      let acc = null;
      for (let j = 0n; j < k; j++) acc = E.add(acc, P);
      expect(E.eq(E.mul(P, k), acc)).toBe(true);
      const Q = pick();
      const l = BigInt(rng() % 300);
      expect(E.eq(E.msm([P, Q], [k, l]), E.add(E.mul(P, k), E.mul(Q, l)))).toBe(true);
    }
    expect(E.msm([], [])).toBeNull();
    expect(() => E.msm([pts[1]], [])).toThrow(RangeError);
  });

  it('rejects singular curves', () => {
    expect(() => makeCurve({ p: 97n, a: 0n, b: 0n })).toThrow(RangeError);
  });
});

describe('curve parameter files', () => {
  const hexRe = /^0x(0|[1-9a-f][0-9a-f]*)$/;
  for (const name of CURVE_NAMES) {
    it(`${name}: format, primality, generator, group order`, () => {
      const raw = RAW[name];
      // G2 (checked at generation by codegen/params/g2.js and against @noble/curves in test/g2.test.js)
      const withG2 = ['bls12-381', 'bn254'].includes(name);
      expect(Object.keys(raw)).toEqual(['name', 'p', 'r', 'a', 'b', 'h', 'generator', ...(withG2 ? ['g2'] : [])]);
      expect(raw.name).toBe(name);
      for (const v of [raw.p, raw.r, raw.a, raw.b, raw.h, raw.generator.x, raw.generator.y]) expect(v).toMatch(hexRe);
      const { p, r, a, b, h } = PARAMS[name];
      const E = CURVES[name];
      expect(isProbablePrime(p)).toBe(true);
      expect(isProbablePrime(r)).toBe(true);
      expect(b).not.toBe(0n);
      expect(a < p && b < p).toBe(true);
      expect(h >= 1n).toBe(true);
      expect(E.G).not.toBeNull();
      expect(E.isOnCurve(E.G)).toBe(true);
      expect(E.mul(E.G, r)).toBeNull();
      expect(E.eq(E.mul(E.G, r + 1n), E.G)).toBe(true);
      // Hasse: |#E - (p + 1)| <= 2 sqrt(p)
      const t = h * r - (p + 1n);
      expect(t * t <= 4n * p).toBe(true);
      // #E = h*r kills random points; with h > 1, h*P lands in the order-r subgroup.
      const rng = makeRng(name.length * 977 + 1);
      let P = null;
      while (P === null) P = E.liftX(randomScalar(rng, p));
      expect(E.mul(P, h * r)).toBeNull();
      if (h > 1n) {
        expect(E.mul(P, r)).not.toBeNull(); // a random point is almost never already in G1
        expect(E.mul(E.mul(P, h), r)).toBeNull();
      }
    });
  }

  it('pairs: grumpkin/bn254 and pallas/vesta form cycles', () => {
    expect(PARAMS.grumpkin.p).toBe(PARAMS.bn254.r);
    expect(PARAMS.grumpkin.r).toBe(PARAMS.bn254.p);
    expect(PARAMS.pallas.p).toBe(PARAMS.vesta.r);
    expect(PARAMS.pallas.r).toBe(PARAMS.vesta.p);
    expect(PARAMS.grumpkin.b).toBe(PARAMS.grumpkin.p - 17n);
    expect(modMul(PARAMS.grumpkin.generator.y, PARAMS.grumpkin.generator.y, PARAMS.grumpkin.p)).toBe(PARAMS.grumpkin.p - 16n);
  });
});

describe('curve.js vs @noble/curves', () => {
  const noblePoint = {
    'bls12-381': bls12_381.G1.Point,
    bn254: bn254.G1.Point,
    secp256k1: secp256k1.Point,
  };
  for (const name of ['bls12-377', 'pallas', 'vesta', 'grumpkin']) {
    const c = PARAMS[name];
    noblePoint[name] = weierstrass({ p: c.p, n: c.r, h: c.h, a: c.a, b: c.b, Gx: c.generator.x, Gy: c.generator.y });
  }

  it('built-in noble curves carry the same parameters as our JSON', () => {
    for (const name of ['bls12-381', 'bn254', 'secp256k1']) {
      const C = noblePoint[name].CURVE();
      const c = PARAMS[name];
      expect([C.p, C.n, C.h, C.a, C.b, C.Gx, C.Gy]).toEqual([c.p, c.r, c.h, c.a, c.b, c.generator.x, c.generator.y]);
    }
  });

  const toNoble = (Pt, P) => (P === null ? Pt.ZERO : Pt.fromAffine(P));
  const fromNoble = (Q) => (Q.is0() ? null : Q.toAffine());

  for (const name of CURVE_NAMES) {
    it(`${name}: add, double, neg, mul, msm`, () => {
      const E = CURVES[name];
      const Pt = noblePoint[name];
      const { r } = PARAMS[name];
      const rng = makeRng(0x9e3779b9 ^ name.length);
      expect(fromNoble(Pt.BASE)).toEqual(E.G);

      // Points: random multiples of G (computed by us, then cross-checked by noble's own mul).
      const k1 = randomScalar(rng, r);
      const k2 = randomScalar(rng, r);
      const P = E.mul(E.G, k1);
      const Q = E.mul(E.G, k2);
      expect(P).toEqual(fromNoble(Pt.BASE.multiply(k1)));
      expect(Q).toEqual(fromNoble(Pt.BASE.multiply(k2)));
      const nP = toNoble(Pt, P);
      const nQ = toNoble(Pt, Q);

      expect(E.add(P, Q)).toEqual(fromNoble(nP.add(nQ)));
      expect(E.add(P, P)).toEqual(fromNoble(nP.add(nP)));
      expect(E.double(P)).toEqual(fromNoble(nP.double()));
      expect(E.neg(P)).toEqual(fromNoble(nP.negate()));
      expect(E.add(P, E.neg(P))).toBeNull();
      expect(nP.add(nP.negate()).is0()).toBe(true);
      expect(E.add(null, P)).toEqual(P);
      expect(E.add(P, null)).toEqual(P);
      expect(E.double(null)).toBeNull();
      expect(E.eq(E.mul(E.G, k1 + k2), E.add(P, Q))).toBe(true);

      // mul: edge scalars and random ones (noble rejects scalars >= r, so stay in range).
      for (const s of [0n, 1n, 2n, 3n, r - 1n, r - 2n, randomScalar(rng, r), randomScalar(rng, 1n << 64n)]) {
        expect(E.mul(P, s)).toEqual(fromNoble(nP.multiplyUnsafe(s)));
      }
      expect(E.mul(P, r - 1n)).toEqual(E.neg(P));

      // msm: includes zero scalars, infinity, a repeated point (P + P inside the sum) and -P.
      const points = [P, Q, P, E.neg(P), null, E.G, Q];
      const scalars = [randomScalar(rng, r), 0n, randomScalar(rng, r), randomScalar(rng, r), randomScalar(rng, r), 1n, r - 1n];
      const ours = E.msm(points, scalars);
      const theirs = fromNoble(pippenger(Pt, points.map((X) => toNoble(Pt, X)), scalars));
      expect(ours).toEqual(theirs);
      // Cancelling sum: s*P + s*(-P) = O.
      const s = randomScalar(rng, r);
      expect(E.msm([P, E.neg(P)], [s, s])).toBeNull();
      expect(E.msm([P, P], [0n, 0n])).toBeNull();
      // Same point twice with scalars 1, 1 must go through doubling.
      expect(E.msm([Q, Q], [1n, 1n])).toEqual(fromNoble(nQ.double()));
    });
  }
});

describe('glv.js', () => {
  // Known constants for secp256k1 (from the libsecp256k1 / SEC literature).
  const SECP_BETA = 0x7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501een;
  const SECP_LAMBDA = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;

  it('secp256k1 constants match the published ones', () => {
    const { beta, lambda } = findGlvConstants(PARAMS.secp256k1);
    expect(beta).toBe(SECP_BETA);
    expect(lambda).toBe(SECP_LAMBDA);
  });

  it('rejects curves without the endomorphism', () => {
    expect(() => findGlvConstants({ p: 97n, r: 5n, a: 2n, b: 3n, generator: { x: 0n, y: 10n } })).toThrow();
  });

  for (const name of CURVE_NAMES) {
    it(`${name}: constants, basis, decomposition`, () => {
      const E = CURVES[name];
      const { p, r } = PARAMS[name];
      const { beta, lambda } = findGlvConstants(PARAMS[name]);
      expect(mod(lambda * lambda + lambda + 1n, r)).toBe(0n);
      expect(modPow(beta, 3n, p)).toBe(1n);
      expect(beta).not.toBe(1n);
      const phi = (X) => (X === null ? null : { x: modMul(beta, X.x, p), y: X.y });
      expect(E.mul(E.G, lambda)).toEqual(phi(E.G));

      const rng = makeRng(0x1234567 + name.length);
      const P = E.mul(E.G, randomScalar(rng, r));
      expect(E.mul(P, lambda)).toEqual(phi(P));

      const basis = reducedBasis(r, lambda);
      const [[a1, b1], [a2, b2]] = basis;
      for (const [x, y] of basis) expect(mod(x + y * lambda, r)).toBe(0n);
      const det = a1 * b2 - a2 * b1;
      expect(det === r || det === -r).toBe(true);
      const half = Math.ceil(bitLength(r) / 2);
      for (const v of [a1, b1, a2, b2]) expect(bitLength(v)).toBeLessThanOrEqual(half + 1);

      const abs = (x) => (x < 0n ? -x : x);
      // Babai rounding leaves at most half of each basis vector (+1 for ties).
      const bound0 = (abs(a1) + abs(a2)) / 2n + 1n;
      const bound1 = (abs(b1) + abs(b2)) / 2n + 1n;
      const scalars = [0n, 1n, 2n, r - 1n, r - 2n, lambda, lambda + 1n, r - lambda, (r - 1n) / 2n, r, 3n * r + 5n, -7n];
      for (let k = 0n; k < BigInt(bitLength(r)); k += 17n) scalars.push(1n << k);
      for (let i = 0; i < 300; i++) scalars.push(randomScalar(rng, r));
      for (const k of scalars) {
        const { k0, k1 } = decompose(k, basis, r, lambda);
        expect(mod(k0 + k1 * lambda - k, r)).toBe(0n);
        expect(abs(k0) <= bound0 && abs(k1) <= bound1).toBe(true);
        expect(bitLength(k0)).toBeLessThanOrEqual(half + 1);
        expect(bitLength(k1)).toBeLessThanOrEqual(half + 1);
      }
      expect(decompose(0n, basis, r, lambda)).toEqual({ k0: 0n, k1: 0n });

      // On points: k*P = k0*P + k1*phi(P), signs applied through negation.
      const smul = (X, s) => (s < 0n ? E.neg(E.mul(X, -s)) : E.mul(X, s));
      for (const k of [r - 1n, lambda, randomScalar(rng, r)]) {
        const { k0, k1 } = decompose(k, basis, r, lambda);
        expect(E.add(smul(P, k0), smul(phi(P), k1))).toEqual(E.mul(P, k));
      }
    });
  }
});
