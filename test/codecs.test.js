// Point and scalar formats (src/codecs.js): round trips on every curve, cross-checks against independent
// implementations on their own encodings (@noble/curves for ZCash, ffjavascript for snarkjs' Montgomery LEM),
// fixed vectors for arkworks and gnark written down from their specs and test suites, every malformed-input class,
// and the MSM in each format (synchronous and on a 2-thread pool) against the native encoding. Everything runs once
// per build this engine runs (test/harness.js KERNELS): decompression's square roots and the subgroup checks are
// kernels of each build.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBn128, buildBls12381 } from 'ffjavascript';
import { loadCurve, curveNames } from '../index.js';
import { KERNELS } from './harness.js';
import { published } from './published.js';

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const fromHex = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const concat = (...arrays) => {
  const out = new Uint8Array(arrays.reduce((s, a) => s + a.length, 0));
  let o = 0;
  for (const a of arrays) (out.set(a, o), (o += a.length));
  return out;
};
const beBytes = (x, length) => fromHex(x.toString(16).padStart(2 * length, '0'));
const leBytes = (x, length) => beBytes(x, length).reverse();

/** points[i] with N - 1 random points and one infinity, in the native encoding. */
function samplePoints(curve, n, seed = 3) {
  const pts = curve.randomPointsBytes(n, { seed });
  pts.set(curve.encodePoints([null]), 2 * curve.pointBytes); // points[2] = infinity (an Edwards curve's (0, 1))
  return pts;
}

/** Expect fn to throw a RangeError naming points[index] (or scalars[index]) and matching `reason`. */
function expectInputError(fn, index, reason, argument = 'points') {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, 'expected an error').toBeInstanceOf(RangeError);
  expect(error.message).toContain(`${argument}[${index}]`);
  if (reason) expect(error.message).toMatch(reason);
  return error;
}

for (const kernel of KERNELS) describe(`${kernel} build`, () => {
  const curves = {};
  beforeAll(async () => {
    for (const name of curveNames) {
      curves[name] = await loadCurve(name, { kernel });
      expect(curves[name].kernel).toBe(kernel);
    }
  });

  describe('round trips', () => {
    it('every format of every curve: native -> format -> native is the identity (random points and infinity)', () => {
      for (const name of curveNames) {
        const curve = curves[name];
        const pts = samplePoints(curve, 9);
        for (const [format, size] of Object.entries(curve.pointFormats)) {
          const encoded = curve.encodePoint(pts, format);
          expect(encoded.length, `${name} ${format}`).toBe(9 * size);
          expect(hex(curve.decodePoints(encoded, format, { checkSubgroup: true })), `${name} ${format}`).toBe(hex(pts));
        }
      }
    });

    it('lists the formats of each curve with their sizes', () => {
      expect(curves['bls12-381'].pointFormats).toEqual({
        native: 96, 'zcash-compressed': 48, 'zcash-uncompressed': 96, 'arkworks-compressed': 48, 'arkworks-uncompressed': 96,
        'gnark-compressed': 48, 'gnark-uncompressed': 96, eip2537: 128, snarkjs: 96,
      });
      expect(curves.bn254.pointFormats).toEqual({
        native: 64, 'arkworks-compressed': 32, 'arkworks-uncompressed': 64, 'gnark-compressed': 32, 'gnark-uncompressed': 64, snarkjs: 64,
      });
      // 255- and 256-bit fields leave fewer than two spare bits: arkworks adds a byte for the flags.
      expect(curves.pallas.pointFormats['arkworks-compressed']).toBe(33);
      expect(curves.secp256k1.pointFormats['arkworks-uncompressed']).toBe(65);
      expect(curves['bls12-377'].pointFormats['zcash-compressed']).toBe(48);
      expect(curves['bls12-381'].scalarFormats).toEqual({ le: 32, be: 32, eip2537: 32, snarkjs: 32 });
      expect(curves.pallas.scalarFormats).toEqual({ le: 32, be: 32 });
    });
  });

  describe('against @noble/curves (ZCash encoding of BLS12-381 G1)', () => {
    it('compressed and uncompressed bytes equal noble toBytes(true/false), both ways', () => {
      const curve = curves['bls12-381'];
      const pts = samplePoints(curve, 16, 11);
      const comp = curve.encodePoint(pts, 'zcash-compressed');
      const unc = curve.encodePoint(pts, 'zcash-uncompressed');
      for (let i = 0; i < 16; i++) {
        const a = curve.decodePoint(pts.subarray(i * 96, (i + 1) * 96));
        const P = a === null ? bls12_381.G1.Point.ZERO : bls12_381.G1.Point.fromAffine(a);
        expect(hex(comp.subarray(i * 48, (i + 1) * 48))).toBe(hex(P.toBytes(true)));
        expect(hex(unc.subarray(i * 96, (i + 1) * 96))).toBe(hex(P.toBytes(false)));
      }
      // noble's bytes in, ours out
      const nobleBytes = concat(...Array.from({ length: 8 }, (_, i) => bls12_381.G1.Point.BASE.multiply(BigInt(1000 + 77 * i)).toBytes(true)));
      const native = curve.decodePoints(nobleBytes, 'zcash-compressed', { checkSubgroup: true });
      for (let i = 0; i < 8; i++) {
        const P = bls12_381.G1.Point.BASE.multiply(BigInt(1000 + 77 * i)).toAffine();
        expect(curve.decodePoint(native.subarray(i * 96, (i + 1) * 96))).toEqual({ x: P.x, y: P.y });
      }
    });

    it('the generator and infinity: the ZCash vectors', () => {
      const curve = curves['bls12-381'];
      // zkcrypto/bls12_381 and the IETF pairing-friendly-curves draft: G1 generator compressed.
      const g = '97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb';
      const native = curve.encodePoints([curve.generator, null]);
      expect(hex(curve.encodePoint(native.subarray(0, 96), 'zcash-compressed'))).toBe(g);
      expect(hex(curve.encodePoint(native.subarray(96), 'zcash-compressed'))).toBe('c0' + '00'.repeat(47));
      expect(hex(curve.encodePoint(native.subarray(96), 'zcash-uncompressed'))).toBe('40' + '00'.repeat(95));
      // ark-bls12-381 serializes G1 in the ZCash format, and gnark-crypto uses the ZCash flags on BLS12 curves.
      expect(hex(curve.encodePoint(native.subarray(0, 96), 'arkworks-compressed'))).toBe(g);
      expect(hex(curve.encodePoint(native.subarray(0, 96), 'gnark-compressed'))).toBe(g);
    });
  });

  describe('against ffjavascript (snarkjs affine LEM)', () => {
    for (const [name, build] of [['bn254', buildBn128], ['bls12-381', buildBls12381]]) {
      for (const group of ['G1', 'G2']) {
        it(`${name} ${group}: LEM buffers equal ours both ways, infinity is all zero, multiExpAffine agrees`, async () => {
          const curve = group === 'G1' ? curves[name] : curves[name].g2;
          // G2: each coordinate c0 | c1; toObject gives [c0, c1] where decodePoint gives { c0, c1 }.
          const coordinate = group === 'G1' ? (v) => v : ([c0, c1]) => ({ c0, c1 });
          const ff = await build(true);
          try {
            const G = ff[group];
            const n = 12;
            const n8 = G.F.n8;
            expect(2 * n8).toBe(curve.pointBytes);
            const bases = new Uint8Array(n * 2 * n8);
            const expected = [];
            for (let i = 0; i < n; i++) {
              const P = i === 3 ? G.zeroAffine : G.toAffine(G.timesScalar(G.g, 12345 + 1000 * i));
              G.toRprLEM(bases, i * 2 * n8, P);
              const [x, y] = G.toObject(P);
              expected.push(i === 3 ? null : { x: coordinate(x), y: coordinate(y) });
            }
            const native = curve.decodePoints(bases, 'snarkjs');
            for (let i = 0; i < n; i++) expect(curve.decodePoint(native.subarray(i * curve.pointBytes, (i + 1) * curve.pointBytes))).toEqual(expected[i]);
            expect(hex(curve.encodePoint(native, 'snarkjs'))).toBe(hex(bases));
            expect(hex(bases.subarray(3 * 2 * n8, 4 * 2 * n8))).toBe('00'.repeat(2 * n8));

            // multiExpAffine takes 32-byte little-endian scalars in normal form: our 'snarkjs' (= 'le') scalars.
            const scalars = curve.randomScalarsBytes(n, { seed: 5 });
            const theirs = G.toObject(G.toAffine(await G.multiExpAffine(bases, scalars)));
            const ours = curve.decodePoint(curve.msmBytes(bases, scalars, { pointFormat: 'snarkjs', scalarFormat: 'snarkjs', resultFormat: 'native' }));
            expect(ours).toEqual({ x: coordinate(theirs[0]), y: coordinate(theirs[1]) });
            const oursLem = curve.msmBytes(bases, scalars, { pointFormat: 'snarkjs', scalarFormat: 'snarkjs' });
            const theirsLem = new Uint8Array(2 * n8);
            G.toRprLEM(theirsLem, 0, G.toAffine(await G.multiExpAffine(bases, scalars)));
            expect(hex(oursLem)).toBe(hex(theirsLem));
            if (group === 'G2') {
              // a part >= p is named by its place
              const bad = bases.slice(0, 2 * n8);
              bad.fill(0xff, n8 / 2, n8);
              expect(() => curve.decodePoints(bad, 'snarkjs')).toThrow(/points\[0\]: x\.c1 coordinate is >= p/);
            }
          } finally {
            await ff.terminate();
          }
        });
      }
    }
  });

  describe('fixed vectors: arkworks and gnark', () => {
    it('bn254 generator (1, 2)', () => {
      const curve = curves.bn254;
      const g = curve.encodePoints([curve.generator]);
      // arkworks (ark-ec SWFlags, ark-ff serialize_with_flags): x little-endian in 32 bytes, flags in the top two
      // bits of the last byte; y = 2 <= -y, so YIsPositive (no bit). Uncompressed: x | y, y carrying the flags.
      expect(hex(curve.encodePoint(g, 'arkworks-compressed'))).toBe('01' + '00'.repeat(31));
      expect(hex(curve.encodePoint(g, 'arkworks-uncompressed'))).toBe('01' + '00'.repeat(31) + '02' + '00'.repeat(31));
      // gnark-crypto ecc/bn254/marshal.go: big-endian, mCompressedSmallest = 0b10 << 6.
      expect(hex(curve.encodePoint(g, 'gnark-compressed'))).toBe('80' + '00'.repeat(30) + '01');
      expect(hex(curve.encodePoint(g, 'gnark-uncompressed'))).toBe('00'.repeat(31) + '01' + '00'.repeat(31) + '02');
      // -G = (1, p - 2) is the larger root: arkworks YIsNegative = 1 << 7; gnark mCompressedLargest = 0b11 << 6.
      const minusG = curve.encodePoints([{ x: 1n, y: curve.p - 2n }]);
      expect(hex(curve.encodePoint(minusG, 'arkworks-compressed'))).toBe('01' + '00'.repeat(30) + '80');
      expect(hex(curve.encodePoint(minusG, 'gnark-compressed'))).toBe('c0' + '00'.repeat(30) + '01');
      // Infinity: arkworks PointAtInfinity = 1 << 6 (x = 0); gnark mCompressedInfinity = 0b01 << 6, and its
      // uncompressed infinity is all zero ("infinity and uncompressed is not flagged" in marshal.go).
      const inf = new Uint8Array(64);
      expect(hex(curve.encodePoint(inf, 'arkworks-compressed'))).toBe('00'.repeat(31) + '40');
      expect(hex(curve.encodePoint(inf, 'arkworks-uncompressed'))).toBe('00'.repeat(63) + '40');
      expect(hex(curve.encodePoint(inf, 'gnark-compressed'))).toBe('40' + '00'.repeat(31));
      expect(hex(curve.encodePoint(inf, 'gnark-uncompressed'))).toBe('00'.repeat(64));
      // and back
      for (const f of ['arkworks-compressed', 'arkworks-uncompressed', 'gnark-compressed', 'gnark-uncompressed']) {
        expect(hex(curve.decodePoints(curve.encodePoint(concat(g, minusG, inf), f), f))).toBe(hex(concat(g, minusG, inf)));
      }
    });

    it('bn254 arkworks/gnark against an independent encoder built from noble affine coordinates', () => {
      const curve = curves.bn254;
      const p = curve.p;
      for (let k = 1n; k < 40n; k += 3n) {
        const { x, y } = bn254.G1.Point.BASE.multiply(k).toAffine();
        const large = y > (p - 1n) / 2n;
        const native = curve.encodePoints([{ x, y }]);
        const ark = leBytes(x, 32);
        if (large) ark[31] |= 0x80;
        const gnark = beBytes(x, 32);
        gnark[0] |= large ? 0xc0 : 0x80;
        expect(hex(curve.encodePoint(native, 'arkworks-compressed'))).toBe(hex(ark));
        expect(hex(curve.encodePoint(native, 'gnark-compressed'))).toBe(hex(gnark));
        expect(curve.decodePoint(curve.decodePoints(ark, 'arkworks-compressed'))).toEqual({ x, y });
        expect(curve.decodePoint(curve.decodePoints(gnark, 'gnark-compressed'))).toEqual({ x, y });
      }
    });

    // arkworks' CanonicalSerialize of an affine short-Weierstrass point, by hand: x little-endian in
    // buffer_byte_size(MODULUS_BIT_SIZE + 2) bytes (ark-ff serialize_with_flags), the SWFlags bits OR-ed into the
    // last byte: 0x80 YIsNegative (y > -y, i.e. y > (p - 1) / 2), 0x40 PointAtInfinity (x = 0); uncompressed: x in
    // buffer_byte_size(MODULUS_BIT_SIZE) bytes, then y with the flags the same way. 255- and 256-bit fields leave no
    // spare top bits, so the flags take a byte of their own (33 / 65 bytes). The generators are the published ones
    // (test/published.js); the bytes are written out below, not produced by the library.
    const ARKWORKS_GENERATORS = {
      secp256k1: {
        compressed: '9817f8165b81f259d928ce2ddbfc9b02070b87ce9562a055acbbdcf97e66be79' + '00',
        uncompressed: '9817f8165b81f259d928ce2ddbfc9b02070b87ce9562a055acbbdcf97e66be79' + 'b8d410fb8fd0479c195485a648b417fda808110efcfba45d65c4a32677da3a48' + '00',
        negated: '9817f8165b81f259d928ce2ddbfc9b02070b87ce9562a055acbbdcf97e66be79' + '80',
      },
      pallas: { // G = (p - 1, 2)
        compressed: '00000000ed302d991bf94c09fc984622' + '00'.repeat(15) + '40' + '00',
        uncompressed: '00000000ed302d991bf94c09fc984622' + '00'.repeat(15) + '40' + '02' + '00'.repeat(31) + '00',
        negated: '00000000ed302d991bf94c09fc984622' + '00'.repeat(15) + '40' + '80',
      },
      vesta: { // G = (p - 1, 2), vesta's p
        compressed: '0000000021eb468cdda89409fc984622' + '00'.repeat(15) + '40' + '00',
        uncompressed: '0000000021eb468cdda89409fc984622' + '00'.repeat(15) + '40' + '02' + '00'.repeat(31) + '00',
        negated: '0000000021eb468cdda89409fc984622' + '00'.repeat(15) + '40' + '80',
      },
      grumpkin: { // 254 bits: the flags fit x's top byte; G = (1, sqrt(-16)), y < (p - 1) / 2
        compressed: '01' + '00'.repeat(31),
        uncompressed: '01' + '00'.repeat(31) + '2c273f828dc43f83941218f1450d272d635da406755e13cf0200000000000000',
        negated: '01' + '00'.repeat(30) + '80',
      },
      'bls12-377': { // 377 bits in 48 bytes; G's y > (p - 1) / 2, so YIsNegative (0x80) on the top byte of x (0x00)
        compressed: 'efe91bb26eb1b9ea4e39cdff121548d55ccb37bdc8828218bb419daa2c1e958554ff87bf2562fcc8670a74fede4888' + '80',
        negated: 'efe91bb26eb1b9ea4e39cdff121548d55ccb37bdc8828218bb419daa2c1e958554ff87bf2562fcc8670a74fede4888' + '00',
      },
    };

    for (const [name, vectors] of Object.entries(ARKWORKS_GENERATORS)) {
      it(`${name}: arkworks encodings of the published generator, its negation and infinity, written by hand`, () => {
        const curve = curves[name];
        const { G, p } = published(name);
        const size = curve.pointFormats['arkworks-compressed'];
        expect(size, 'bytes per compressed point').toBe(Math.ceil((p.toString(2).length + 2) / 8));
        expect(vectors.compressed.length / 2).toBe(size);
        const minusG = { x: G.x, y: p - G.y };
        const native = curve.encodePoints([G, minusG, null]);
        expect(hex(curve.encodePoint(native.subarray(0, curve.pointBytes), 'arkworks-compressed')), 'G').toBe(vectors.compressed);
        expect(hex(curve.encodePoint(native.subarray(curve.pointBytes, 2 * curve.pointBytes), 'arkworks-compressed')), '-G').toBe(vectors.negated);
        expect(hex(curve.encodePoint(native.subarray(2 * curve.pointBytes), 'arkworks-compressed')), 'infinity').toBe('00'.repeat(size - 1) + '40');
        // and read back: the hand-written bytes decode to the published points
        const decoded = curve.decodePoints(fromHex(vectors.compressed + vectors.negated + '00'.repeat(size - 1) + '40'), 'arkworks-compressed', { checkSubgroup: true });
        expect(hex(decoded)).toBe(hex(native));
        if (vectors.uncompressed) {
          const B = curve.coordinateBytes;
          expect(vectors.uncompressed.length / 2).toBe(B + size);
          expect(curve.pointFormats['arkworks-uncompressed']).toBe(B + size);
          expect(hex(curve.encodePoint(native.subarray(0, curve.pointBytes), 'arkworks-uncompressed'))).toBe(vectors.uncompressed);
          expect(hex(curve.encodePoint(native.subarray(2 * curve.pointBytes), 'arkworks-uncompressed'))).toBe('00'.repeat(B + size - 1) + '40');
          expect(curve.decodePoint(curve.decodePoints(fromHex(vectors.uncompressed), 'arkworks-uncompressed'))).toEqual(G);
        }
      });
    }

    it('ark-bls12-381 test vectors of malformed encodings are rejected', () => {
      const curve = curves['bls12-381'];
      // From ark-bls12-381 curves/g1.rs tests non_canonical_identity_point and bad_flag_combination.
      expectInputError(() => curve.decodePoints(fromHex('c01' + '0'.repeat(93)), 'arkworks-compressed'), 0, /infinity .* nonzero bits/);
      expectInputError(() => curve.decodePoints(fromHex('c0' + '00'.repeat(94) + '01'), 'arkworks-uncompressed'), 0, /compression flag/);
      expectInputError(() => curve.decodePoints(fromHex('60' + '00'.repeat(47)), 'arkworks-compressed'), 0, /bad flag bits 0x60/);
      expectInputError(() => curve.decodePoints(fromHex('e0' + '00'.repeat(47)), 'arkworks-compressed'), 0, /bad flag bits 0xe0/);
    });

    it('bls12-377: arkworks little-endian SWFlags, ZCash/gnark flags big-endian, same points', () => {
      const curve = curves['bls12-377'];
      const pts = samplePoints(curve, 6, 4);
      const ark = curve.encodePoint(pts, 'arkworks-compressed');
      const zc = curve.encodePoint(pts, 'zcash-compressed');
      expect(hex(curve.encodePoint(pts, 'gnark-compressed'))).toBe(hex(zc));
      for (let i = 0; i < 6; i++) {
        const a = curve.decodePoint(pts.subarray(i * 96, (i + 1) * 96));
        if (a === null) {
          expect(hex(ark.subarray(i * 48, (i + 1) * 48))).toBe('00'.repeat(47) + '40');
          expect(hex(zc.subarray(i * 48, (i + 1) * 48))).toBe('c0' + '00'.repeat(47));
          continue;
        }
        const large = a.y > (curve.p - 1n) / 2n;
        const arkExpected = leBytes(a.x, 48);
        arkExpected[47] |= large ? 0x80 : 0;
        const zcExpected = beBytes(a.x, 48);
        zcExpected[0] |= large ? 0xa0 : 0x80;
        expect(hex(ark.subarray(i * 48, (i + 1) * 48))).toBe(hex(arkExpected));
        expect(hex(zc.subarray(i * 48, (i + 1) * 48))).toBe(hex(zcExpected));
      }
    });

    it('EIP-2537: 16 zero bytes + 48 big-endian per coordinate; infinity all zero', () => {
      const curve = curves['bls12-381'];
      const { x, y } = curve.generator;
      const expected = concat(new Uint8Array(16), beBytes(x, 48), new Uint8Array(16), beBytes(y, 48));
      const native = curve.encodePoints([curve.generator, null]);
      expect(hex(curve.encodePoint(native, 'eip2537'))).toBe(hex(expected) + '00'.repeat(128));
    });
  });

  describe('malformed input: RangeError naming the index, curve usable afterwards', () => {
    const stillWorks = (curve) => {
      const pts = curve.randomPointsBytes(4);
      const sc = curve.randomScalarsBytes(4);
      expect(curve.msmBytes(pts, sc).length).toBe(curve.pointBytes);
      expect(hex(curve.msmBytes(curve.encodePoint(pts, 'native'), sc))).toBe(hex(curve.msmBytes(pts, sc)));
    };

    it('native points: the first bad one is named wherever it falls (the FMA build checks four per step), and infinity anywhere keeps the sum', () => {
      // every short-Weierstrass G1 (g_fromBytes; the Edwards models have their own codec): a bad point at each index of
      // 9 (two steps of four and a tail), each kind, and a second bad point of another kind after it in the same step
      for (const name of curveNames) {
        const curve = curves[name];
        if (curve.model !== 'short-weierstrass') continue;
        const n = 9;
        const PB = curve.pointBytes;
        const B = PB / 2;
        const pts = curve.randomPointsBytes(n, { seed: 41 });
        const sc = curve.randomScalarsBytes(n, { seed: 42 });
        const kinds = {
          x: [(q) => q.fill(0xff, 0, B), /^points\[(\d+)\]: x coordinate is >= p$/],
          y: [(q) => q.fill(0xff, B, PB), /^points\[(\d+)\]: y coordinate is >= p$/],
          curve: [(q) => (q[B] ^= 1), /^points\[(\d+)\]: point is not on the curve$/],
        };
        const named = (bytes) => {
          try {
            curve.msmBytes(bytes, sc);
          } catch (e) {
            return e.message;
          }
          return null;
        };
        for (const [kind, [spoil, reason]] of Object.entries(kinds)) {
          for (let i = 0; i < n; i++) {
            const bad = pts.slice();
            spoil(bad.subarray(i * PB, (i + 1) * PB));
            expect(named(bad), `${name} ${kind} at ${i}`).toMatch(reason);
            expect(named(bad).match(reason)[1], `${name} ${kind} at ${i}`).toBe(String(i));
            for (const [later, [spoilLater]] of Object.entries(kinds)) {
              for (let j = i + 1; j < Math.min(n, (i | 3) + 1); j++) {
                const two = bad.slice();
                spoilLater(two.subarray(j * PB, (j + 1) * PB));
                expect(named(two), `${name} ${kind} at ${i}, then ${later} at ${j}`).toMatch(reason);
                expect(named(two).match(reason)[1], `${name} ${kind} at ${i}, then ${later} at ${j}`).toBe(String(i));
              }
            }
          }
        }
        // infinity at each index: the sum without that pair
        for (let i = 0; i < n; i++) {
          const withInf = pts.slice();
          withInf.set(curve.encodePoints([null]), i * PB);
          const zeroed = sc.slice();
          zeroed.fill(0, i * curve.scalarBytes, (i + 1) * curve.scalarBytes);
          expect(hex(curve.msmBytes(withInf, sc)), `${name} infinity at ${i}`).toBe(hex(curve.msmBytes(pts, zeroed)));
        }
        stillWorks(curve);
      }
    });

    it('bls12-381 ZCash: each class of bad input', () => {
      const curve = curves['bls12-381'];
      const pts = samplePoints(curve, 6);
      const good = curve.encodePoint(pts, 'zcash-compressed');
      const bad = (i, edit) => {
        const b = good.slice();
        edit(b.subarray(i * 48, (i + 1) * 48));
        return b;
      };
      // bad flag bits
      expectInputError(() => curve.decodePoints(bad(4, (q) => (q[0] &= 0x7f)), 'zcash-compressed'), 4, /compression flag/);
      expectInputError(() => curve.decodePoints(bad(1, (q) => (q[0] |= 0x60)), 'zcash-compressed'), 1, /bad flag bits 0xe0/);
      // infinity with nonzero bits (points[2] is infinity)
      expectInputError(() => curve.decodePoints(bad(2, (q) => (q[47] = 1)), 'zcash-compressed'), 2, /infinity .* nonzero bits/);
      // x >= p
      expectInputError(() => curve.decodePoints(bad(3, (q) => q.set([0x9f, 0xff, 0xff])), 'zcash-compressed'), 3, /x coordinate is >= p/);
      // x not on the curve: find an x with no square root of x^3 + 4
      const p = curve.p;
      let x = 5n;
      const isSquare = (v) => v === 0n || modPow(v, (p - 1n) / 2n, p) === 1n;
      while (isSquare((x * x * x + 4n) % p)) x++;
      expectInputError(() => curve.decodePoints(bad(5, (q) => (q.set(beBytes(x, 48)), (q[0] |= 0x80))), 'zcash-compressed'), 5, /not the x-coordinate of a point on the curve/);
      // the lowest bad index wins when there are several
      const two = bad(5, (q) => (q[0] &= 0x7f));
      two[3 * 48] &= 0x7f;
      expectInputError(() => curve.decodePoints(two, 'zcash-compressed'), 3);
      // wrong length
      expect(() => curve.decodePoints(good.subarray(1), 'zcash-compressed')).toThrow(/not a multiple of 48/);
      expect(() => curve.msmBytes(good, new Uint8Array(6 * 32 + 1), { pointFormat: 'zcash-compressed', scalarFormat: 'be' })).toThrow(/not a multiple of 32/);
      // not in the subgroup: (0, 2) is on y^2 = x^3 + 4 but not of order r
      const notInG1 = fromHex('80' + '00'.repeat(47));
      expect(curve.decodePoint(curve.decodePoints(notInG1, 'zcash-compressed'))).toEqual({ x: 0n, y: 2n });
      expectInputError(() => curve.decodePoints(concat(good, notInG1), 'zcash-compressed', { checkSubgroup: true }), 6, /subgroup/);
      expectInputError(
        () => curve.msmBytes(concat(good, notInG1), curve.randomScalarsBytes(7), { pointFormat: 'zcash-compressed', checkSubgroup: true }),
        6,
        /subgroup/,
      );
      // uncompressed: flags, and (0, 0) without the infinity flag
      const unc = curve.encodePoint(pts, 'zcash-uncompressed');
      const u = unc.slice();
      u[96] |= 0x20;
      expectInputError(() => curve.decodePoints(u, 'zcash-uncompressed'), 1, /sign flag/);
      expectInputError(() => curve.decodePoints(concat(unc, new Uint8Array(96)), 'zcash-uncompressed'), 6, /\(0, 0\)/);
      const offCurve = unc.slice();
      offCurve[96 + 95] ^= 1;
      expectInputError(() => curve.decodePoints(offCurve, 'zcash-uncompressed'), 1, /not on the curve/);
      // in msmBytes too, before a later malformed point; timings get the conversion's milliseconds
      offCurve[4 * 96] |= 0x80;
      expectInputError(() => curve.msmBytes(offCurve, curve.randomScalarsBytes(6), { pointFormat: 'zcash-uncompressed' }), 1, /not on the curve/);
      const timings = {};
      curve.msmBytes(good, curve.randomScalarsBytes(6), { pointFormat: 'zcash-compressed', scalarFormat: 'eip2537', timings });
      expect(timings.decode).toBeGreaterThan(0);
      expect(timings.encode).toBeGreaterThanOrEqual(0);
      stillWorks(curve);
    });

    it('EIP-2537, snarkjs, arkworks, gnark and scalar formats', () => {
      const curve = curves['bls12-381'];
      const pts = samplePoints(curve, 4);
      const eip = curve.encodePoint(pts, 'eip2537');
      const e = eip.slice();
      e[128 + 64 + 3] = 1;
      expectInputError(() => curve.decodePoints(e, 'eip2537'), 1, /nonzero padding/);
      const lem = curve.encodePoint(pts, 'snarkjs');
      const l = lem.slice();
      l.fill(0xff, 96 * 3, 96 * 3 + 48);
      expectInputError(() => curve.decodePoints(l, 'snarkjs'), 3, /x coordinate is >= p/);

      const bn = curves.bn254;
      const bpts = samplePoints(bn, 4);
      const ark = bn.encodePoint(bpts, 'arkworks-compressed');
      const a = ark.slice();
      a[32 * 1 + 31] |= 0xc0;
      expectInputError(() => bn.decodePoints(a, 'arkworks-compressed'), 1, /bad flag bits 0xc0/);
      const a2 = ark.slice();
      a2[32 * 2] = 7; // points[2] is infinity (flag 0x40) with a nonzero x
      expectInputError(() => bn.decodePoints(a2, 'arkworks-compressed'), 2, /infinity .* nonzero bits/);
      const gn = bn.encodePoint(bpts, 'gnark-compressed');
      const g = gn.slice();
      g[0] &= 0x3f;
      expectInputError(() => bn.decodePoints(g, 'gnark-compressed'), 0, /bad flag bits/);
      const gu = bn.encodePoint(bpts, 'gnark-uncompressed');
      gu[64 * 3] |= 0x80;
      expectInputError(() => bn.decodePoints(gu, 'gnark-uncompressed'), 3, /bad flag bits 0x80/);
      // pallas: arkworks' extra flag byte must have no other bits
      const pal = curves.pallas;
      const pa = pal.encodePoint(pal.randomPointsBytes(2), 'arkworks-compressed');
      pa[33 + 32] |= 1;
      expectInputError(() => pal.decodePoints(pa, 'arkworks-compressed'), 1, /x coordinate is >= p/);

      // scalars: big-endian >= r is rejected; EIP-2537 reduces mod r
      const r = curve.r;
      const sc = concat(beBytes(5n, 32), beBytes(r, 32));
      const two = curve.encodePoints([curve.generator, curve.generator]);
      expectInputError(() => curve.msmBytes(two, sc, { scalarFormat: 'be' }), 1, /not in \[0, r\)/, 'scalars');
      const reduced = curve.msmBytes(two, concat(beBytes(5n, 32), beBytes(r + 2n, 32)), { scalarFormat: 'eip2537' });
      expect(curve.decodePoint(reduced)).toEqual(curve.msm([curve.generator], [7n]));
      stillWorks(curve);
      stillWorks(bn);
    });

    it('option values are validated', () => {
      const curve = curves['bls12-381'];
      const pts = curve.randomPointsBytes(2);
      const sc = curve.randomScalarsBytes(2);
      expect(() => curve.msmBytes(pts, sc, { pointFormat: 'zcash' })).toThrow(/^unknown point format 'zcash': bls12-381 takes 'native', 'zcash-compressed', 'zcash-uncompressed', 'arkworks-compressed', 'arkworks-uncompressed', 'gnark-compressed', 'gnark-uncompressed', 'eip2537', 'snarkjs'$/);
      expect(() => curve.msmBytes(pts, sc, { scalarFormat: 'little' })).toThrow(RangeError);
      expect(() => curve.msmBytes(pts, sc, { resultFormat: 'nope' })).toThrow(/unknown point format/);
      expect(() => curve.msmBytes(pts, sc, { pointFormat: 3 })).toThrow(TypeError);
      expect(() => curves.bn254.decodePoints(new Uint8Array(48), 'zcash-compressed')).toThrow(/defined for bls12-381, bls12-377, jubjub only, not for bn254/);
      expect(() => curves.pallas.encodePoint(new Uint8Array(64), 'eip2537')).toThrow(/bls12-381 only/);
      expect(() => curves.bn254.msmBytes(new Uint8Array(64), new Uint8Array(32), { scalarFormat: 'eip2537' })).toThrow(/^scalar format 'eip2537' is defined for bls12-381 only, not for bn254; bn254 takes 'le', 'be', 'snarkjs'$/);
      expect(() => curve.msm([curve.generator], [1n], { pointFormat: 'zcash-compressed' })).toThrow(/msmBytes/);
      expect(() => curve.decodePoints(new Uint8Array(48), 'zcash-compressed', { checkSubgroup: 'yes' })).toThrow(TypeError);
      expect(() => curve.encodePoint(curve.encodePoints([{ x: 1n, y: 1n }]), 'zcash-compressed')).toThrow(/points\[0\]: point is not on the curve/);
    });
  });

  describe('MSM in each format equals the native MSM', () => {
    let pools = [];
    afterAll(async () => {
      await Promise.all(pools.map((p) => p.close()));
    });

    for (const name of ['bls12-381', 'bn254', 'bls12-377', 'pallas']) {
      it(`${name}: every point format (result in that format), scalars le/be, synchronous and a 2-thread pool`, async () => {
        const curve = curves[name];
        const n = 300;
        const pts = samplePoints(curve, n, 21);
        const sc = curve.randomScalarsBytes(n, { seed: 22 });
        const scBE = new Uint8Array(sc.length);
        for (let i = 0; i < n; i++) scBE.set(sc.subarray(i * 32, (i + 1) * 32).slice().reverse(), i * 32);
        const reference = curve.msmBytes(pts, sc);
        const pool = await curve.threads({ count: 2 });
        pools.push(pool);
        for (const format of Object.keys(curve.pointFormats)) {
          const input = curve.encodePoint(pts, format);
          const expected = hex(curve.encodePoint(reference, format));
          expect(hex(curve.msmBytes(input, sc, { pointFormat: format })), `${name} ${format}`).toBe(expected);
          expect(hex(curve.msmBytes(input, scBE, { pointFormat: format, scalarFormat: 'be', resultFormat: 'native' }))).toBe(hex(reference));
          expect(hex(await pool.msmBytes(input, scBE, { pointFormat: format, scalarFormat: 'be' })), `${name} ${format} pool`).toBe(expected);
        }
        // an input error on the pool names the index too, and the pool stays usable
        const zc = curve.pointFormats['zcash-compressed'] ? curve.encodePoint(pts, 'zcash-compressed') : null;
        if (zc) {
          zc[48 * 7] &= 0x7f;
          await expect(pool.msmBytes(zc, sc, { pointFormat: 'zcash-compressed' })).rejects.toThrow(/points\[7\]/);
          // in the second thread's slice (points are decoded by the threads): the caller's index, not the slice's
          const late = curve.encodePoint(pts, 'zcash-compressed');
          late[48 * 250] &= 0x7f;
          await expect(pool.msmBytes(late, sc, { pointFormat: 'zcash-compressed' })).rejects.toThrow(/^points\[250\]: /);
          expect(hex(await pool.msmBytes(pts, sc))).toBe(hex(reference));
        }
      }, 60_000);
    }

    it('the first bad point is named whatever its kind: an off-curve point before a bad flag (curve, chunks, both pool paths)', async () => {
      const curve = curves['bls12-381'];
      for (const n of [10, 4200]) {
        const pts = samplePoints(curve, n, 5);
        const sc = curve.randomScalarsBytes(n, { seed: 6 });
        const bad = curve.encodePoint(pts, 'zcash-uncompressed');
        const late = n === 10 ? 7 : 4100; // in another chunk (4096 points) or another thread's slice
        bad[96 * 1 + 95] ^= 1; // point 1: y changes, so it is off the curve
        bad[96 * late] |= 0x80; // point `late`: the compression flag set on a 96-byte encoding
        expect(() => curve.msmBytes(bad, sc, { pointFormat: 'zcash-uncompressed' })).toThrow(/^points\[1\]: point is not on the curve$/);
        for (const sharedMemory of [true, false]) {
          const pool = await curve.threads({ count: 2, sharedMemory });
          pools.push(pool);
          await expect(pool.msmBytes(bad, sc, { pointFormat: 'zcash-uncompressed' }), `n = ${n}, shared ${sharedMemory}`).rejects.toThrow(/^points\[1\]: point is not on the curve$/);
          // off the curve only (the threads decode without the check; the MSM's own check names it)
          const off = curve.encodePoint(pts, 'zcash-uncompressed');
          off[96 * late + 95] ^= 1;
          await expect(pool.msmBytes(off, sc, { pointFormat: 'zcash-uncompressed' }), `n = ${n}, shared ${sharedMemory}`).rejects.toThrow(new RegExp(`^points\\[${late}\\]: point is not on the curve$`));
        }
      }
    }, 60_000);

    it('snarkjs points, which the pool reads as they are on both paths (G1, G2; msmBytes and a stream; the synchronous MSM too; infinity; bad points named)', async () => {
      for (const name of ['bn254', 'bls12-381']) {
        for (const C of [curves[name], curves[name].g2]) {
          const n = 301;
          const PB = C.pointBytes;
          const pts = C.randomPointsBytes(n, { seed: 31 });
          pts.fill(0, 5 * PB, 6 * PB); // infinity
          const sc = C.randomScalarsBytes(n, { seed: 32 });
          const reference = C.msmBytes(pts, sc);
          const input = C.encodePoint(pts, 'snarkjs');
          expect(hex(input.subarray(5 * PB, 6 * PB))).toBe('00'.repeat(PB));
          const at = (i, change) => {
            const bad = input.slice();
            change(bad.subarray(i * PB, (i + 1) * PB));
            return bad;
          };
          const badX = at(250, (q) => q.fill(0xff, 0, curves[name].coordinateBytes));
          const offCurve = at(260, (q) => (q[PB / 2] ^= 1));
          const group = C === curves[name] ? 'G1' : 'G2';
          expect(hex(C.msmBytes(input, sc, { pointFormat: 'snarkjs', resultFormat: 'native' })), `${name} ${group} synchronous`).toBe(hex(reference));
          expect(() => C.msmBytes(badX, sc, { pointFormat: 'snarkjs' })).toThrow(/^points\[250\]: x(\.c0)? coordinate is >= p \(as a Montgomery value\)$/);
          expect(() => C.msmBytes(offCurve, sc, { pointFormat: 'snarkjs' })).toThrow(/^points\[260\]: point is not on the curve$/);
          for (const sharedMemory of [true, false]) {
            const what = `${name} ${group} shared ${sharedMemory}`;
            const pool = await C.threads({ count: 2, sharedMemory });
            pools.push(pool);
            expect(hex(await pool.msmBytes(input, sc, { pointFormat: 'snarkjs', resultFormat: 'native' })), what).toBe(hex(reference));
            const stream = { points: [input.subarray(0, 100 * PB + 7), input.subarray(100 * PB + 7)], scalars: [sc.subarray(0, 32 * 200), sc.subarray(32 * 200)] };
            expect(hex(await pool.msmStream(stream, { pointFormat: 'snarkjs', resultFormat: 'native' })), what).toBe(hex(reference));
            // in the second thread's share: the caller's index
            await expect(pool.msmBytes(badX, sc, { pointFormat: 'snarkjs' }), what).rejects.toThrow(/^points\[250\]: x(\.c0)? coordinate is >= p \(as a Montgomery value\)$/);
            await expect(pool.msmBytes(offCurve, sc, { pointFormat: 'snarkjs' }), what).rejects.toThrow(/^points\[260\]: point is not on the curve$/);
          }
        }
      }
    });

    it('n = 0 in a format gives infinity in that format, synchronously and on both pool paths', async () => {
      const curve = curves['bls12-381'];
      const empty = new Uint8Array(0);
      const want = hex(curve.msmBytes(empty, empty, { pointFormat: 'zcash-compressed' }));
      expect(want).toBe('c0' + '00'.repeat(47));
      for (const sharedMemory of [true, false]) {
        const pool = await curve.threads({ count: 2, sharedMemory });
        pools.push(pool);
        expect(hex(await pool.msmBytes(empty, empty, { pointFormat: 'zcash-compressed' })), `shared ${sharedMemory}`).toBe(want);
      }
    });

    it('message-passing pool path with formats', async () => {
      const curve = curves.bn254;
      const pts = samplePoints(curve, 200, 8);
      const sc = curve.randomScalarsBytes(200);
      const pool = await curve.threads({ count: 2, sharedMemory: false });
      pools.push(pool);
      const input = curve.encodePoint(pts, 'gnark-compressed');
      expect(hex(await pool.msmBytes(input, sc, { pointFormat: 'gnark-compressed', resultFormat: 'native' }))).toBe(hex(curve.msmBytes(pts, sc)));
      // x with no square root, in the second thread's slice: named by the caller's index
      const bad = input.slice();
      for (let v = 1; ; v++) {
        bad[32 * 150 + 31] = input[32 * 150 + 31] ^ v; // the lowest byte of x, until x^3 + 3 is not a square
        try {
          curve.decodePoints(bad.subarray(32 * 150, 32 * 151), 'gnark-compressed');
        } catch {
          break;
        }
      }
      const error = await pool.msmBytes(bad, sc, { pointFormat: 'gnark-compressed' }).catch((e) => e);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(/^points\[150\]: /);
    }, 60_000);
  });

  describe('@noble/curves Point objects', () => {
    it('curve.msm takes noble Points (and ZERO); toPoint gives a noble Point back', async () => {
      const curve = curves['bls12-381'];
      const G = bls12_381.G1.Point.BASE;
      const points = [G.multiply(3n), G.multiply(5n), bls12_381.G1.Point.ZERO, G];
      const scalars = [2n, 3n, 9n, 4n];
      const sum = curve.msm(points, scalars);
      const expected = G.multiply(2n * 3n + 3n * 5n + 4n);
      expect(sum).toEqual(expected.toAffine());
      const P = curve.toPoint(sum, bls12_381.G1.Point);
      expect(P.equals(expected)).toBe(true);
      expect(curve.toPoint(curve.encodePoints([sum]), bls12_381.G1.Point).equals(expected)).toBe(true);
      expect(curve.toPoint(null, bls12_381.G1.Point).is0()).toBe(true);
      expect(() => curve.toPoint(sum, {})).toThrow(TypeError);
      const pool = await curve.threads({ count: 2 });
      try {
        expect(await pool.msm(points, scalars)).toEqual(expected.toAffine());
      } finally {
        await pool.close();
      }
      const bn = curves.bn254;
      const B = bn254.G1.Point.BASE;
      expect(bn.toPoint(bn.msm([B, B.multiply(7n)], [1n, 2n]), bn254.G1.Point).equals(B.multiply(15n))).toBe(true);
    });
  });
});

function modPow(b, e, m) {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
