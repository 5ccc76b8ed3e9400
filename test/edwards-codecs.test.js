// The encodings of twisted Edwards points (src/codecs-edwards.js, listed in src/formats.js): RFC 8032 for ed25519
// and Zcash's repr_J for Jubjub against @noble/curves' toBytes / fromBytes (both: y little-endian, x's parity in the
// top bit); circomlib's packPoint (Baby Jubjub) against @zk-kit/baby-jubjub's packPoint / unpackPoint (circomlibjs'
// rule, MIT) and against the rule written here in BigInt; arkworks' compressed TEFlags form (x > (p - 1) / 2 in the top
// bit) against that rule and against points gnark-crypto compressed (test/vectors/gnark-edwards.json); arkworks' uncompressed form is the native one. Round trips (decode,
// encode, msmBytes in and out in the format), the neutral (0, 1) and (0, -1), and every malformed class: y >= p, a y
// with no x, the sign bit on x = 0, wrong lengths, a format on a curve it is not for; checkSubgroup on decoding.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { jubjub } from '@noble/curves/misc.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import * as zkKitBabyJub from '@zk-kit/baby-jubjub';
import { readFileSync } from 'node:fs';
import { makeRng, randomScalar } from '../src/bigint/curve.js';
import { KERNELS } from './harness.js';
import { edwardsOps } from './msm-oracle.js';

const leBytes = (x, n) => Uint8Array.from({ length: n }, (_, i) => Number((x >> BigInt(8 * i)) & 0xffn));
const concat = (arrays) => {
  const out = new Uint8Array(arrays.reduce((s, a) => s + a.length, 0));
  let o = 0;
  for (const a of arrays) (out.set(a, o), (o += a.length));
  return out;
};

/** The compressed encoding by the rule: y little-endian, the top bit set when x is odd ('parity') or x > (p-1)/2. */
function compress(curve, P, rule) {
  const out = leBytes(P.y, curve.coordinateBytes);
  if (rule === 'parity' ? P.x & 1n : P.x > (curve.p - 1n) / 2n) out[out.length - 1] |= 0x80;
  return out;
}

// [curve, format, sign rule, noble class whose toBytes is the format (or null)]
const CASES = [
  ['ed25519', 'rfc8032', 'parity', ed25519.Point],
  ['ed25519', 'arkworks-compressed', 'half', null],
  ['jubjub', 'zcash-compressed', 'parity', jubjub.Point],
  ['jubjub', 'arkworks-compressed', 'half', null],
  ['baby-jubjub', 'circomlib', 'half', null],
  ['bandersnatch', 'arkworks-compressed', 'half', null],
  ['ed-on-bls12-377', 'arkworks-compressed', 'half', null],
];

for (const [name, format, rule, NoblePoint] of CASES) {
  for (const kernel of KERNELS) {
    describe(`${name} '${format}' (${kernel} build)`, () => {
      let curve;
      let ed;
      let rng;
      let points;
      beforeAll(async () => {
        curve = await loadCurve(name, { kernel });
        ed = edwardsOps(curve);
        rng = makeRng(`edwards codecs ${name}`);
        points = curve.randomPoints(60, { seed: 5 });
        points.push(ed.ZERO, { x: 0n, y: curve.p - 1n }, curve.generator, ed.neg(curve.generator));
      });

      it('round trips: decodePoints / encodePoint against the rule (and noble), the neutral and (0, -1) included', () => {
        const encoded = concat(points.map((P) => compress(curve, P, rule)));
        expect(curve.pointFormats[format]).toBe(curve.coordinateBytes);
        if (NoblePoint) expect(encoded).toEqual(concat(points.map((P) => NoblePoint.fromAffine(P).toBytes())));
        const native = curve.encodePoints(points);
        expect(curve.decodePoints(encoded, format)).toEqual(native);
        expect(curve.encodePoint(native, format)).toEqual(encoded);
        expect(curve.decodePoints(encoded, format, { checkSubgroup: false })).toEqual(native);
        if (NoblePoint) for (let i = 0; i < 8; i++) expect(NoblePoint.fromBytes(encoded.subarray(32 * i, 32 * i + 32)).toAffine()).toEqual(points[i]);
      });

      it('msmBytes with pointFormat and resultFormat in the format', () => {
        const n = 40;
        const P = points.slice(0, n);
        const scalars = P.map(() => randomScalar(rng, curve.r));
        const want = curve.msm(P, scalars);
        if (NoblePoint) expect(pippenger(NoblePoint, P.map((Q) => NoblePoint.fromAffine(Q)), scalars).toAffine()).toEqual(want);
        const got = curve.msmBytes(concat(P.map((Q) => compress(curve, Q, rule))), curve.encodeScalars(scalars), { pointFormat: format });
        expect(got).toEqual(compress(curve, want, rule));
        const native = curve.msmBytes(concat(P.map((Q) => compress(curve, Q, rule))), curve.encodeScalars(scalars), { pointFormat: format, resultFormat: 'native' });
        expect(curve.decodePoint(native)).toEqual(want);
        expect(curve.msmBytes(new Uint8Array(0), new Uint8Array(0), { pointFormat: format })).toEqual(compress(curve, ed.ZERO, rule));
      });

      it('malformed: y >= p, a y with no x, the sign bit on x = 0, wrong lengths; small-order points with checkSubgroup', () => {
        const good = compress(curve, points[0], rule);
        const B = curve.coordinateBytes;
        const bad = (bytes, message) => {
          const batch = concat([good, good, bytes]);
          expect(() => curve.decodePoints(batch, format), message.source).toThrow(message);
          expect(() => curve.msmBytes(batch, curve.encodeScalars([1n, 2n, 3n]), { pointFormat: format })).toThrow(message);
        };
        // y = p + 1 (non-canonical 1) and y = p, both below the sign bit
        bad(leBytes(curve.p + 1n, B), /^points\[2\]: y coordinate is >= p$/);
        bad(leBytes(curve.p, B), /^points\[2\]: y coordinate is >= p$/);
        // the neutral (0, 1) and (0, -1) with the sign bit: a second encoding of each
        for (const y of [1n, curve.p - 1n]) {
          const e = leBytes(y, B);
          e[B - 1] |= 0x80;
          bad(e, /^points\[2\]: the sign bit is set but x = 0 \(a non-canonical encoding\)$/);
        }
        // a y with no point: the first y >= 2 whose x^2 is not a square
        let y = 2n;
        while (ed.liftY(y) !== null) y++;
        bad(leBytes(y, B), /^points\[2\]: no point of the curve has this y/);
        expect(() => curve.decodePoints(concat([good, good.subarray(1)]), format)).toThrow(new RegExp(`^bytes length ${2 * B - 1} is not a multiple of ${B}`));
        expect(() => curve.msmBytes(good.subarray(1), curve.encodeScalars([1n]), { pointFormat: format })).toThrow(/is not a multiple of/);
        // the native all-zero is (0, 0), not a point
        expect(() => curve.encodePoint(new Uint8Array(2 * B), format)).toThrow(/points\[0\]: point is not on the curve/);
        // (0, -1), of order 2, is not in the subgroup
        const order2 = compress(curve, { x: 0n, y: curve.p - 1n }, rule);
        expect(() => curve.decodePoints(concat([good, order2]), format, { checkSubgroup: true })).toThrow(/^points\[1\] is not in the subgroup of order r$/);
        expect(() => curve.msmBytes(concat([good, order2]), curve.encodeScalars([1n, 1n]), { pointFormat: format, checkSubgroup: true })).toThrow(/^points\[1\] is not in the subgroup/);
      });
    });
  }
}

describe("baby-jubjub 'circomlib' against @zk-kit/baby-jubjub", () => {
  it("its packPoint is our encodePoint, its unpackPoint our decodePoints, on points it makes and points we make", async () => {
    const curve = await loadCurve('baby-jubjub');
    const { Base8, mulPointEscalar, packPoint, unpackPoint } = zkKitBabyJub;
    const rng = makeRng('zk-kit baby-jubjub');
    // the peer's points: multiples of its Base8 (the subgroup generator), both signs of x among them
    const theirs = Array.from({ length: 24 }, () => mulPointEscalar(Base8, randomScalar(rng, curve.r))).map(([x, y]) => ({ x, y }));
    const ours = curve.randomPoints(24, { seed: 11 });
    const points = [...theirs, ...ours, { x: 0n, y: 1n }, { x: 0n, y: curve.p - 1n }];
    expect(points.some((P) => P.x > curve.p / 2n) && points.some((P) => P.x !== 0n && P.x < curve.p / 2n)).toBe(true);
    const packed = concat(points.map((P) => leBytes(packPoint([P.x, P.y]), 32)));
    expect(curve.encodePoint(curve.encodePoints(points), 'circomlib')).toEqual(packed);
    expect(curve.decodePoints(packed, 'circomlib')).toEqual(curve.encodePoints(points));
    for (let i = 0; i < points.length; i++) {
      const [x, y] = unpackPoint(BigInt('0x' + Buffer.from(packed.subarray(32 * i, 32 * i + 32)).reverse().toString('hex')));
      expect({ x, y }).toEqual(points[i]);
    }
    // an MSM on the peer's points, its result packed by the peer
    const scalars = theirs.map(() => randomScalar(rng, curve.r));
    const want = theirs.reduce((acc, P, i) => zkKitBabyJub.addPoint(acc, mulPointEscalar([P.x, P.y], scalars[i])), [0n, 1n]);
    const got = curve.msmBytes(packed.subarray(0, 32 * theirs.length), curve.encodeScalars(scalars), { pointFormat: 'circomlib' });
    expect(got).toEqual(leBytes(packPoint(want), 32));
  });
});

describe("'arkworks-compressed' against gnark-crypto's compressed points (the same rule, another implementation)", () => {
  const vectors = JSON.parse(readFileSync(new URL('./vectors/gnark-edwards.json', import.meta.url), 'utf8'));
  for (const name of ['ed-on-bls12-377', 'jubjub', 'bandersnatch']) {
    it(`${name}: ${vectors[name].length} multiples of gnark's base, both signs of x`, async () => {
      const curve = await loadCurve(name);
      const points = vectors[name].map((v) => ({ x: BigInt(v.x), y: BigInt(v.y) }));
      expect(points.some((P) => P.x > curve.p / 2n) && points.some((P) => P.x < curve.p / 2n)).toBe(true);
      const compressed = concat(vectors[name].map((v) => Uint8Array.from(Buffer.from(v.compressed, 'hex'))));
      const native = curve.encodePoints(points); // throws if one is off our curve
      expect(curve.encodePoint(native, 'arkworks-compressed')).toEqual(compressed);
      expect(curve.decodePoints(compressed, 'arkworks-compressed', { checkSubgroup: true })).toEqual(native);
    });
  }
});

describe('Edwards formats: which curve takes which', () => {
  it('each compressed format only on its curves; arkworks not on Baby Jubjub; no short-Weierstrass format on an Edwards curve', async () => {
    const formats = {};
    for (const name of ['ed25519', 'jubjub', 'baby-jubjub', 'bandersnatch', 'ed-on-bls12-377']) formats[name] = Object.keys((await loadCurve(name)).pointFormats).sort();
    expect(formats).toEqual({
      ed25519: ['arkworks-compressed', 'arkworks-uncompressed', 'native', 'rfc8032'],
      jubjub: ['arkworks-compressed', 'arkworks-uncompressed', 'native', 'zcash-compressed'],
      'baby-jubjub': ['circomlib', 'native'],
      bandersnatch: ['arkworks-compressed', 'arkworks-uncompressed', 'native'],
      'ed-on-bls12-377': ['arkworks-compressed', 'arkworks-uncompressed', 'native'],
    });
    const jj = await loadCurve('jubjub');
    expect(() => jj.decodePoints(new Uint8Array(32), 'rfc8032')).toThrow(/^point format 'rfc8032' is defined for ed25519 only, not for jubjub; jubjub takes 'native', 'zcash-compressed', 'arkworks-compressed', 'arkworks-uncompressed'$/);
    expect(() => jj.decodePoints(new Uint8Array(64), 'zcash-uncompressed')).toThrow(/^point format 'zcash-uncompressed' is defined for bls12-381, bls12-377 only/);
    const bjj = await loadCurve('baby-jubjub');
    expect(() => bjj.decodePoints(new Uint8Array(32), 'arkworks-compressed')).toThrow(/^point format 'arkworks-compressed' is not for baby-jubjub: arkworks' Baby Jubjub \(ark-ed-on-bn254\) is another model/);
    const bls = await loadCurve('bls12-381');
    expect(() => bls.decodePoints(new Uint8Array(32), 'circomlib')).toThrow(/^point format 'circomlib' is defined for baby-jubjub only/);
    // arkworks' uncompressed Edwards form is x | y: the native bytes, unchanged
    const P = jj.randomPoints(3, { seed: 1 });
    expect(jj.decodePoints(jj.encodePoints(P), 'arkworks-uncompressed')).toEqual(jj.encodePoints(P));
    expect(jj.encodePoint(jj.encodePoints(P), 'arkworks-uncompressed')).toEqual(jj.encodePoints(P));
  });

  it('a pool decodes the format in its threads: ed25519 rfc8032 in, rfc8032 out, equal to noble', { timeout: 30_000 }, async () => {
    const curve = await loadCurve('ed25519');
    const n = 300;
    const points = curve.randomPoints(n, { seed: 8 });
    const scalars = curve.randomScalars(n, { seed: 9 });
    const encoded = concat(points.map((P) => ed25519.Point.fromAffine(P).toBytes()));
    const want = pippenger(ed25519.Point, points.map((P) => ed25519.Point.fromAffine(P)), scalars).toBytes();
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        expect(await pool.msmBytes(encoded, curve.encodeScalars(scalars), { pointFormat: 'rfc8032' }), `shared ${sharedMemory}`).toEqual(want);
        const bases = await pool.prepareBases(encoded, { pointFormat: 'rfc8032', checkSubgroup: true });
        expect(curve.encodePoint(await bases.msmBytes(curve.encodeScalars(scalars)), 'rfc8032')).toEqual(want);
        await bases.free();
      } finally {
        await pool.close();
      }
    }
  });
});
