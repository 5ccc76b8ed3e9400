// The public API around the MSM: loadCurve / curveNames / per-curve subpaths, the random input helpers, input
// validation (every bad input gives a TypeError or RangeError naming the argument and index, and the curve
// keeps working afterwards), the optional subgroup check, and n = 0.
//
// Oracles: src/bigint/curve.js (makeCurve: isOnCurve, mul) and src/bigint/field.js (modSqrt); the
// expected value of the "still works" MSM comes from @noble/curves through scripts/peers.js.
//
// Every curve's suite runs once per build this engine runs (test/harness.js KERNELS): the integer build
// everywhere, and the FMA build where relaxed_madd is fused (Node 22/24: CI runs this file under Node 24 too).

import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadCurve, curveNames } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { makeCurve, makeRng } from '../src/bigint/curve.js';
import { mod, modSqrt } from '../src/bigint/field.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { KERNELS } from './harness.js';
import { edwardsOps, pointsToBytes, scalarsToBytes } from './msm-oracle.js';

const EXPECTED_NAMES = [
  'bls12-381', 'bn254', 'bls12-377', 'pallas', 'vesta', 'secp256k1', 'grumpkin',
  'ed25519', 'jubjub', 'bandersnatch', 'baby-jubjub', 'ed-on-bls12-377',
];

function readLE(bytes, offset, length) {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
}


const show = (P) => (P === null ? 'infinity' : `(0x${P.x.toString(16)}, 0x${P.y.toString(16)})`);

/** A point on the curve outside the order-r subgroup (cofactor > 1 only), from seeded random x. */
function nonSubgroupPoint(oracle, seed) {
  const rng = makeRng(seed);
  for (let tries = 0; tries < 1000; tries++) {
    let x = 0n;
    for (let i = 0; i < 14; i++) x = (x << 32n) | BigInt(rng());
    x = mod(x, oracle.p);
    const y = modSqrt(x * x * x + oracle.a * x + oracle.b, oracle.p);
    if (y === null) continue;
    const P = { x, y };
    if (oracle.isOnCurve(P) && oracle.mul(P, oracle.r) !== null) return P;
  }
  throw new Error('no non-subgroup point found');
}

describe('curveNames and loadCurve', () => {
  it('curveNames lists the twelve shipped curves and is frozen', () => {
    expect([...curveNames].sort()).toEqual([...EXPECTED_NAMES].sort());
    expect(Object.isFrozen(curveNames)).toBe(true);
  });

  it.each(EXPECTED_NAMES)('loadCurve(%s) returns a curve with p, r, generator, msm, msmBytes; same object twice', async (name) => {
    const curve = await loadCurve(name);
    expect(curve.name).toBe(name);
    expect(typeof curve.p).toBe('bigint');
    expect(typeof curve.r).toBe('bigint');
    expect(typeof curve.generator.x).toBe('bigint');
    expect(typeof curve.generator.y).toBe('bigint');
    expect(typeof curve.msm).toBe('function');
    expect(typeof curve.msmBytes).toBe('function');
    if (curve.model === 'twisted-edwards') {
      const ed = edwardsOps(curve);
      expect(ed.onCurve(curve.generator)).toBe(true);
      expect(ed.mul(curve.generator, curve.r)).toEqual(ed.ZERO);
    } else {
      expect(curve.model).toBe('short-weierstrass');
      const oracle = makeCurve(curve.params);
      expect(oracle.isOnCurve(curve.generator)).toBe(true);
      expect(oracle.mul(curve.generator, curve.r)).toBe(null);
    }
    expect(await loadCurve(name)).toBe(curve);
    const [a, b] = await Promise.all([loadCurve(name), loadCurve(name)]);
    expect(a).toBe(curve);
    expect(b).toBe(curve);
  });

  it(`loadCurve picks the FMA build exactly where the relaxed FMA probe says 'fused' (here: Node ${process.versions.node}, '${relaxedFmaSupport()}')`, async () => {
    const support = relaxedFmaSupport();
    const want = support === 'fused' ? 'fma' : 'int';
    const picked = {};
    for (const name of EXPECTED_NAMES) {
      const curve = await loadCurve(name);
      picked[name] = curve.kernel;
      expect(curve.kernel, name).toBe(want);
      expect(curve.params.kernel, name).toBe(want);
      // the build that runs is the one the suites below test, alone or next to the integer build
      expect(KERNELS, name).toContain(curve.kernel);
    }
    expect(KERNELS).toEqual(support === 'fused' ? ['int', 'fma'] : ['int']);
    // Printed so a CI log shows which build its run exercised.
    console.log(`Node ${process.versions.node}: relaxed FMA probe '${support}', loadCurve runs the ${want === 'fma' ? 'FMA' : 'integer'} build (kernel '${want}') on ${Object.keys(picked).join(', ')}; suites run the builds ${KERNELS.join(', ')}`);
  });

  it('loadCurve of an unknown name rejects with a RangeError naming the known curves', async () => {
    for (const bad of ['bn128', 'BN254', 'bls12_381', '', ' bn254', 'toString', '__proto__', 'constructor', undefined, null, 42, {}]) {
      let err;
      try {
        await loadCurve(bad);
      } catch (e) {
        err = e;
      }
      expect(err, `loadCurve(${String(bad)})`).toBeInstanceOf(RangeError);
      for (const known of EXPECTED_NAMES) expect(err.message, `loadCurve(${String(bad)})`).toContain(known);
    }
    // and the curves still load afterwards
    expect((await loadCurve('bn254')).name).toBe('bn254');
  });

  it.each(EXPECTED_NAMES)('package subpath wasmsm/curves/%s exposes load() and params, sharing the loaded curve', async (name) => {
    const mod = await import(`wasmsm/curves/${name}`);
    expect(typeof mod.load).toBe('function');
    expect(mod.params.name).toBe(name);
    const curve = await loadCurve(name);
    expect(mod.params.p).toBe(curve.p);
    expect(mod.params.r).toBe(curve.r);
    expect(await mod.load()).toBe(curve);
    expect(await mod.load()).toBe(await mod.load());
  });
});

// The short-Weierstrass curves (this suite's oracle and its off-curve and off-subgroup points are theirs); the
// twisted Edwards curves' API is test/edwards.test.js and test/edwards-codecs.test.js.
const WEIERSTRASS = curveNames.filter((n) => JSON.parse(readFileSync(new URL(`../codegen/curves/${n}.json`, import.meta.url), 'utf8')).model === undefined);

for (const [name, kernel] of WEIERSTRASS.flatMap((n) => KERNELS.map((k) => [n, k]))) {
  describe(`curve API on ${name} (${kernel} build)`, { timeout: 30_000 }, () => {
    let curve;
    let oracle;
    let B; // bytes per coordinate
    let S; // bytes per scalar
    let okPoints;
    let okScalars;
    let okExpected;

    beforeAll(async () => {
      curve = await loadCurve(name, { kernel });
      expect(curve.kernel).toBe(kernel);
      oracle = makeCurve(curve.params);
      B = curve.params.field.bytes;
      S = curve.params.scalarBytes;
      okPoints = curve.randomPoints(5, { seed: 3 });
      okScalars = curve.randomScalars(5, { seed: 4 });
      okExpected = await nobleMsm(curve.params, pointsToBytes(B, okPoints), scalarsToBytes(S, okScalars));
    });

    /** A correct MSM through both entry points must still give the right answer. */
    function expectStillWorks(context) {
      expect(show(curve.msm(okPoints, okScalars)), `msm after ${context}`).toBe(show(okExpected));
      const out = curve.msmBytes(pointsToBytes(B, okPoints), scalarsToBytes(S, okScalars));
      expect(show(curve.decodePoint(out)), `msmBytes after ${context}`).toBe(show(okExpected));
    }

    /** fn must throw Type with a message matching every pattern; then the curve must still work. */
    function expectError(context, fn, Type, ...patterns) {
      let err;
      try {
        fn();
      } catch (e) {
        err = e;
      }
      expect(err, `${context}: expected a ${Type.name}`).toBeInstanceOf(Type);
      for (const p of patterns) expect(err.message, context).toMatch(p);
      expectStillWorks(context);
    }

    // ---- random inputs -------------------------------------------------------------------------------------

    it('randomPoints: on the curve, in the subgroup, deterministic per seed, consistent with randomPointsBytes', () => {
      expect(curve.randomPoints(0)).toEqual([]);
      const pts = curve.randomPoints(300, { seed: 7 }); // > 256: crosses into the second row of the generator
      expect(pts.length).toBe(300);
      for (const [i, P] of pts.entries()) {
        expect(P, `point ${i}`).not.toBe(null);
        expect(oracle.isOnCurve(P), `point ${i} = ${show(P)}`).toBe(true);
      }
      expect(new Set(pts.map((P) => P.x)).size).toBe(300);
      for (const i of [0, 299]) expect(oracle.mul(pts[i], curve.r), `r * point ${i}`).toBe(null);
      expect(curve.randomPoints(300, { seed: 7 })).toEqual(pts);
      expect(curve.randomPoints(5)).toEqual(curve.randomPoints(5));
      const other = curve.randomPoints(300, { seed: 8 });
      expect(other.filter((P, i) => P.x === pts[i].x).length).toBe(0);
      expect(curve.randomPointsBytes(300, { seed: 7 })).toEqual(pointsToBytes(B, pts));
      for (const bad of [-1, 1.5, NaN, '3']) expect(() => curve.randomPoints(bad), `n = ${bad}`).toThrow(RangeError);
    });

    it('randomScalars: in [0, r), deterministic per seed, consistent with randomScalarsBytes', () => {
      expect(curve.randomScalars(0)).toEqual([]);
      const sc = curve.randomScalars(1000, { seed: 5 });
      expect(sc.length).toBe(1000);
      for (const [i, s] of sc.entries()) {
        expect(typeof s, `scalar ${i}`).toBe('bigint');
        expect(s >= 0n && s < curve.r, `scalar ${i} = 0x${s.toString(16)}`).toBe(true);
      }
      expect(new Set(sc).size).toBe(1000);
      expect(sc.some((s) => s > curve.r / 2n)).toBe(true);
      expect(sc.some((s) => s < curve.r / 2n)).toBe(true);
      expect(curve.randomScalars(1000, { seed: 5 })).toEqual(sc);
      expect(curve.randomScalars(5)).toEqual(curve.randomScalars(5));
      const other = curve.randomScalars(1000, { seed: 6 });
      expect(other.filter((s, i) => s === sc[i]).length).toBe(0);
      const bytes = curve.randomScalarsBytes(1000, { seed: 5 });
      expect(bytes.length).toBe(1000 * S);
      expect(Array.from({ length: 1000 }, (_, i) => readLE(bytes, i * S, S))).toEqual(sc);
    });

    // ---- n = 0 ---------------------------------------------------------------------------------------------

    it('n = 0 returns null (msm) and the all-zero infinity encoding (msmBytes)', () => {
      expect(curve.msm([], [])).toBe(null);
      expect(curve.msm([], [], { checkSubgroup: true })).toBe(null);
      const out = curve.msmBytes(new Uint8Array(0), new Uint8Array(0));
      expect(out).toEqual(new Uint8Array(2 * B));
      expect(curve.decodePoint(out)).toBe(null);
    });

    // ---- bad inputs ----------------------------------------------------------------------------------------

    it('mismatched lengths (msm and msmBytes)', () => {
      const G = curve.generator;
      expectError('msm 2 points, 1 scalar', () => curve.msm([G, G], [1n]), RangeError, /points/, /scalars/);
      expectError('msm 1 point, 3 scalars', () => curve.msm([G], [1n, 2n, 3n]), RangeError, /points/, /scalars/);
      expectError('msm 0 points, 1 scalar', () => curve.msm([], [1n]), RangeError, /points/, /scalars/);
      expectError(
        'msmBytes 2 points, 1 scalar',
        () => curve.msmBytes(pointsToBytes(B, [G, G]), scalarsToBytes(S, [1n])),
        RangeError,
        /points/,
        /scalars/,
      );
      expectError(
        'msmBytes 1 point, 0 scalars',
        () => curve.msmBytes(pointsToBytes(B, [G]), new Uint8Array(0)),
        RangeError,
        /points/,
        /scalars/,
      );
    });

    it('byte lengths that are not a multiple of the point or scalar size', () => {
      const pb = pointsToBytes(B, okPoints);
      const sb = scalarsToBytes(S, okScalars);
      expectError('pointBytes + 1', () => curve.msmBytes(new Uint8Array(pb.length + 1), sb), RangeError, /pointBytes/);
      expectError('pointBytes - 1', () => curve.msmBytes(pb.subarray(0, pb.length - 1), sb), RangeError, /pointBytes/);
      expectError('pointBytes of one coordinate', () => curve.msmBytes(new Uint8Array(B), scalarsToBytes(S, [1n])), RangeError, /pointBytes/);
      expectError('scalarBytes - 1', () => curve.msmBytes(pb, sb.subarray(0, sb.length - 1)), RangeError, /scalarBytes/);
      expectError('scalarBytes of 31 bytes', () => curve.msmBytes(pb.subarray(0, 2 * B), new Uint8Array(31)), RangeError, /scalarBytes/);
    });

    it('non-array and non-Uint8Array inputs', () => {
      const G = curve.generator;
      const pb = pointsToBytes(B, okPoints);
      const sb = scalarsToBytes(S, okScalars);
      expectError('msm(null, [])', () => curve.msm(null, []), TypeError, /points/);
      expectError('msm(undefined, [])', () => curve.msm(undefined, []), TypeError, /points/);
      expectError('msm(G, 1n)', () => curve.msm(G, 1n), TypeError, /points/);
      expectError('msm([G], 1n)', () => curve.msm([G], 1n), TypeError, /scalars/);
      expectError('msm([G], BigUint64Array)', () => curve.msm([G], new BigUint64Array([1n])), TypeError, /scalars/);
      expectError('msm([G], "1")', () => curve.msm([G], '1'), TypeError, /scalars/);
      expectError('msmBytes(Array, bytes)', () => curve.msmBytes([...pb], sb), TypeError, /pointBytes/);
      expectError('msmBytes(ArrayBuffer, bytes)', () => curve.msmBytes(pb.buffer, sb), TypeError, /pointBytes/);
      expectError('msmBytes(bytes, Array)', () => curve.msmBytes(pb, [...sb]), TypeError, /scalarBytes/);
      expectError('msmBytes(bytes, null)', () => curve.msmBytes(pb, null), TypeError, /scalarBytes/);
    });

    it('points of the wrong shape: numbers, arrays, strings, undefined', () => {
      const G = curve.generator;
      expectError('{x: 1, y: 2}', () => curve.msm([{ x: 1, y: 2 }], [1n]), TypeError, /points\[0\]/);
      expectError('{x: number, y: bigint}', () => curve.msm([G, { x: Number(G.x), y: G.y }], [1n, 1n]), TypeError, /points\[1\]/);
      expectError('{x: bigint, y: string}', () => curve.msm([G, G, { x: G.x, y: String(G.y) }], [1n, 1n, 1n]), TypeError, /points\[2\]/);
      expectError('[x, y] array', () => curve.msm([G, [G.x, G.y]], [1n, 1n]), TypeError, /points\[1\]/);
      expectError('undefined point', () => curve.msm([G, undefined], [1n, 1n]), TypeError, /points\[1\]/);
      expectError('string point', () => curve.msm(['G'], [1n]), TypeError, /points\[0\]/);
      expectError('{} point', () => curve.msm([{}], [1n]), TypeError, /points\[0\]/);
    });

    it('scalars of the wrong type or out of [0, r)', () => {
      const G = curve.generator;
      const r = curve.r;
      const three = [G, G, G];
      for (const [bad, what] of [[5, 'number'], ['5', 'string'], [undefined, 'undefined'], [null, 'null'], [5.5, 'float'], [{}, 'object']]) {
        expectError(`scalar ${what}`, () => curve.msm(three, [1n, bad, 2n]), TypeError, /scalars\[1\]/);
      }
      for (const bad of [-1n, -(r - 1n), r, r + 1n, 2n * r, (1n << BigInt(8 * S)) - 1n, 1n << BigInt(8 * S), 1n << 512n]) {
        expectError(`scalar 0x${bad.toString(16)}`, () => curve.msm(three, [1n, 2n, bad]), RangeError, /scalars\[2\]/);
      }
      // a large index is named exactly
      const many = curve.randomPoints(300, { seed: 9 });
      const sc = curve.randomScalars(300, { seed: 10 });
      sc[257] = r;
      expectError('scalar r at index 257', () => curve.msm(many, sc), RangeError, /scalars\[257\]/);
    });

    it('msmBytes scalar encodings >= r', () => {
      const r = curve.r;
      const pb = pointsToBytes(B, okPoints);
      for (const bad of [r, r + 1n, (1n << BigInt(8 * S)) - 1n, r + (1n << BigInt(8 * S - 8))].filter((v) => v < 1n << BigInt(8 * S))) {
        for (const index of [0, 2, 4]) {
          const sc = [...okScalars];
          sc[index] = bad;
          expectError(`scalar 0x${bad.toString(16)} at ${index}`, () => curve.msmBytes(pb, scalarsToBytes(S, sc)), RangeError, new RegExp(`scalars\\[${index}\\]`));
        }
      }
      // r - 1 is fine
      const sc = [...okScalars];
      sc[4] = r - 1n;
      expect(() => curve.msmBytes(pb, scalarsToBytes(S, sc))).not.toThrow();
    });

    it('coordinates >= p (x and y; msm and msmBytes)', () => {
      const p = curve.p;
      const G = curve.generator;
      const max = (1n << BigInt(8 * B)) - 1n;
      // msm: out of range in either coordinate, including negative
      for (const [P, coord] of [
        [{ x: p, y: G.y }, 'x'],
        [{ x: G.x + p, y: G.y }, 'x'],
        [{ x: -1n, y: G.y }, 'x'],
        [{ x: G.x, y: p }, 'y'],
        [{ x: G.x, y: G.y + p }, 'y'],
        [{ x: G.x, y: -G.y }, 'y'],
      ]) {
        expectError(`msm ${coord} = 0x${P[coord].toString(16)}`, () => curve.msm([G, P], [1n, 1n]), RangeError, /points\[1\]/, new RegExp(`\\b${coord}\\b`));
      }
      // msmBytes: the same values where they fit in B bytes; x + p reduces to a valid x, so it must not be
      // reduced silently
      const cases = [
        [{ x: p, y: G.y }, 'x'],
        [{ x: G.x + p, y: G.y }, 'x'],
        [{ x: max, y: G.y }, 'x'],
        [{ x: G.x, y: p }, 'y'],
        [{ x: G.x, y: G.y + p }, 'y'],
        [{ x: G.x, y: max }, 'y'],
      ].filter(([P]) => P.x <= max && P.y <= max);
      expect(cases.length).toBeGreaterThanOrEqual(4);
      for (const [P, coord] of cases) {
        expectError(
          `msmBytes ${coord} = 0x${P[coord].toString(16)}`,
          () => curve.msmBytes(pointsToBytes(B, [G, P, G]), scalarsToBytes(S, [1n, 1n, 1n])),
          RangeError,
          /points\[1\]/,
          new RegExp(`\\b${coord}\\b`),
        );
      }
    });

    it('points not on the curve (msm and msmBytes), named by index', () => {
      const G = curve.generator;
      const off = [
        { x: G.x, y: (G.y + 1n) % curve.p },
        { x: (G.x + 1n) % curve.p, y: G.y },
        { x: 1n, y: 1n },
      ].filter((P) => !oracle.isOnCurve(P));
      expect(off.length).toBeGreaterThanOrEqual(2);
      for (const P of off) {
        expectError(`msm off-curve ${show(P)}`, () => curve.msm([G, P], [1n, 1n]), RangeError, /points\[1\]/, /not on the curve/);
        expectError(
          `msmBytes off-curve ${show(P)}`,
          () => curve.msmBytes(pointsToBytes(B, [P]), scalarsToBytes(S, [1n])),
          RangeError,
          /points\[0\]/,
          /not on the curve/,
        );
      }
      expectError('msm (0, 0)', () => curve.msm([G, { x: 0n, y: 0n }], [1n, 1n]), RangeError, /points\[1\]/);
      // a bad point deep in a large input is named exactly, and the failed call leaves nothing behind
      const many = curve.randomPoints(1001, { seed: 12 });
      const sc = curve.randomScalars(1001, { seed: 13 });
      many[1000] = off[0];
      expectError('off-curve at index 1000', () => curve.msm(many, sc), RangeError, /points\[1000\]/, /not on the curve/);
      const pb = pointsToBytes(B, many);
      const sb = scalarsToBytes(S, sc);
      const before = curve.memory.buffer.byteLength;
      for (let i = 0; i < 20; i++) expect(() => curve.msmBytes(pb, sb)).toThrow(/points\[1000\]/);
      expect(curve.memory.buffer.byteLength, 'memory grew over repeated failed calls').toBe(before);
      expectStillWorks('repeated failures');
    });

    it('invalid window option', () => {
      for (const w of [0, 1, 25, 2.5, -3, NaN, '4']) {
        expectError(`window ${String(w)}`, () => curve.msm(okPoints, okScalars, { window: w }), RangeError, /window/);
      }
    });

    it('a window larger than the points can fill is refused (its buckets would take memory for good)', () => {
      const before = curve.memory.buffer.byteLength;
      expectError('window 24 on 5 points', () => curve.msm(okPoints, okScalars, { window: 24 }), RangeError, /window 24 is too large for 5 points: at most 16/);
      expectError('window 17 on 5 points', () => curve.msm(okPoints, okScalars, { window: 17 }), RangeError, /at most 16/);
      expect(curve.memory.buffer.byteLength).toBe(before);
      expect(show(curve.msm(okPoints, okScalars, { window: 16 }))).toBe(show(okExpected));
    });

    it('bad options and arguments get clear errors: options, timings, checkSubgroup, randomScalars, decodePoint', () => {
      const pb = pointsToBytes(B, okPoints);
      const sb = scalarsToBytes(S, okScalars);
      for (const options of [null, 5, 'fast', [1]]) {
        expectError(`options ${JSON.stringify(options)}`, () => curve.msm(okPoints, okScalars, options), TypeError, /options must be an object/);
        expectError(`msmBytes options ${JSON.stringify(options)}`, () => curve.msmBytes(pb, sb, options), TypeError, /options must be an object/);
      }
      expectError('timings: 5', () => curve.msmBytes(pb, sb, { timings: 5 }), TypeError, /options\.timings must be an object/);
      expectError('timings: null', () => curve.msm(okPoints, okScalars, { timings: null }), TypeError, /options\.timings/);
      expectError('checkSubgroup: "yes"', () => curve.msmBytes(pb, sb, { checkSubgroup: 'yes' }), TypeError, /checkSubgroup must be a boolean/);
      for (const blockPoints of [0, -1, 'x', 1.5]) {
        expectError(`blockPoints ${blockPoints}`, () => curve.msmBytes(pb, sb, { blockPoints }), RangeError, /blockPoints must be a positive integer/);
      }
      for (const n of ['x', -1, 1.5, NaN]) {
        expectError(`randomScalars(${String(n)})`, () => curve.randomScalars(n), RangeError, /n must be a non-negative integer/);
        expectError(`randomPoints(${String(n)})`, () => curve.randomPoints(n), RangeError, /n must be a non-negative integer/);
      }
      expectError('decodePoint(3 bytes)', () => curve.decodePoint(new Uint8Array(3)), RangeError, new RegExp(`a point is ${2 * B} bytes, got 3`));
      expectError('decodePoint([])', () => curve.decodePoint([]), TypeError, /Uint8Array/);
      expect(curve.decodePoint(new Uint8Array(2 * B))).toBe(null);
    });

    it('inputs that are views of the curve\'s own Wasm memory give the right result, wherever they lie', () => {
      const pb = pointsToBytes(B, okPoints);
      const sb = scalarsToBytes(S, okScalars);
      // Slide both views over the region the MSM allocates first (points, staging, scalars, ...), in both
      // orders, 8 bytes at a time: wherever an allocation overlaps a view, a copy into it must not change inputs
      // not yet read.
      const top = curve.heap.top;
      const span = (2 * okPoints.length + 2) * curve.params.affineBytes + 2 * (pb.length + sb.length);
      const need = top + 2 * span + 64;
      if (curve.memory.buffer.byteLength < need) curve.memory.grow(Math.ceil((need - curve.memory.buffer.byteLength) / 65536));
      for (const scalarsFirst of [false, true]) {
        for (let offset = 0; offset < span; offset += 8) {
          const first = top + offset;
          const [pAt, sAt] = scalarsFirst ? [first + sb.length, first] : [first, first + pb.length];
          const pView = new Uint8Array(curve.memory.buffer, pAt, pb.length);
          const sView = new Uint8Array(curve.memory.buffer, sAt, sb.length);
          pView.set(pb);
          sView.set(sb);
          const got = show(curve.decodePoint(curve.msmBytes(pView, sView)));
          if (got !== show(okExpected)) expect(got, `views at heap top + ${offset}, scalars first: ${scalarsFirst}`).toBe(show(okExpected));
        }
      }
      expectStillWorks('views of its own memory');
    });

    it('inputs are not modified; msmBytes accepts views with an offset and Buffers', () => {
      const pts = okPoints.map((P) => ({ ...P }));
      const sc = [...okScalars];
      curve.msm(pts, sc);
      expect(pts).toEqual(okPoints);
      expect(sc).toEqual(okScalars);
      const pb = pointsToBytes(B, okPoints);
      const sb = scalarsToBytes(S, okScalars);
      const pbCopy = pb.slice();
      const sbCopy = sb.slice();
      curve.msmBytes(pb, sb);
      expect(pb).toEqual(pbCopy);
      expect(sb).toEqual(sbCopy);
      const bigP = new Uint8Array(pb.length + 13).fill(0xff);
      bigP.set(pb, 7);
      const bigS = new Uint8Array(sb.length + 5).fill(0xff);
      bigS.set(sb, 3);
      const viaViews = curve.msmBytes(bigP.subarray(7, 7 + pb.length), bigS.subarray(3, 3 + sb.length));
      expect(show(curve.decodePoint(viaViews))).toBe(show(okExpected));
      const viaBuffers = curve.msmBytes(Buffer.from(pb), Buffer.from(sb));
      expect(show(curve.decodePoint(viaBuffers))).toBe(show(okExpected));
    });

    // ---- subgroup check ------------------------------------------------------------------------------------

    it('checkSubgroup accepts valid points', () => {
      const pts = curve.randomPoints(3, { seed: 14 });
      const sc = curve.randomScalars(3, { seed: 15 });
      const plain = curve.msm(pts, sc);
      expect(show(curve.msm(pts, sc, { checkSubgroup: true }))).toBe(show(plain));
      expect(show(curve.msm([curve.generator, null], [5n, 7n], { checkSubgroup: true }))).toBe(show(oracle.mul(curve.generator, 5n)));
      const bytes = curve.msmBytes(pointsToBytes(B, pts), scalarsToBytes(S, sc), { checkSubgroup: true });
      expect(show(curve.decodePoint(bytes))).toBe(show(plain));
      if (curve.params.h === 1n) {
        // prime order: every point on the curve is in the subgroup
        let lifted = null;
        for (let x = 12345n; lifted === null; x++) lifted = oracle.liftX(x);
        expect(oracle.isOnCurve(lifted)).toBe(true);
        expect(() => curve.msm([lifted], [3n], { checkSubgroup: true })).not.toThrow();
      }
    });

    if (name === 'bls12-381' || name === 'bls12-377') {
      it('checkSubgroup rejects points on the curve outside the order-r subgroup', () => {
        const G = curve.generator;
        const p = curve.p;
        const Q = nonSubgroupPoint(oracle, 0x5eed);
        expect(oracle.isOnCurve(Q)).toBe(true);
        const bad = [Q];
        // points of small order with x = 0 (order 3) or y = 0 (order 2) where the curve has them
        const b = curve.b;
        const y0 = modSqrt(b, p);
        if (y0 !== null) bad.push({ x: 0n, y: y0 }, { x: 0n, y: mod(-y0, p) });
        if (name === 'bls12-377') bad.push({ x: p - 1n, y: 0n }); // x^3 + 1 = 0 at x = -1
        for (const P of bad) {
          expect(oracle.isOnCurve(P), show(P)).toBe(true);
          expect(oracle.mul(P, curve.r), show(P)).not.toBe(null);
          expectError(`msm non-subgroup ${show(P)}`, () => curve.msm([G, P, G], [1n, 2n, 3n], { checkSubgroup: true }), RangeError, /points\[1\]/, /subgroup/);
          expectError(
            `msmBytes non-subgroup ${show(P)}`,
            () => curve.msmBytes(pointsToBytes(B, [P]), scalarsToBytes(S, [1n]), { checkSubgroup: true }),
            RangeError,
            /points\[0\]/,
            /subgroup/,
          );
        }
      });
    }
  });
}

// The forced-window limit max(16, ceil(log2(pairs)) + 2) (src/msm/plan.js msmShape) on its log2 side: above 16
// only when the pairs can fill the buckets. BN254 has GLV, so pairs = 2N.
describe('a forced window above 16: allowed up to ceil(log2(pairs)) + 2, refused beyond', () => {
  for (const kernel of KERNELS) {
    it(`bn254 (${kernel} build): 2^13 + 1 points (2^14 + 2 pairs) take window 17, not 18; 2^13 points not 17`, { timeout: 60_000 }, async () => {
      const curve = await loadCurve('bn254', { kernel });
      const n = 2 ** 13 + 1;
      const pb = curve.randomPointsBytes(n, { seed: 61 });
      const sb = curve.randomScalarsBytes(n, { seed: 62 });
      const want = curve.msmBytes(pb, sb); // the chosen window (13 at this size)
      const timings = {};
      expect(curve.msmBytes(pb, sb, { window: 17, timings }), 'window 17').toEqual(want);
      expect(timings.window).toBe(17);
      const before = curve.memory.buffer.byteLength;
      expect(() => curve.msmBytes(pb, sb, { window: 18 })).toThrow(/^window 18 is too large for 8193 points: at most 17 /);
      expect(() => curve.msmBytes(pb, sb, { window: 24 })).toThrow(/at most 17 /);
      // one point fewer: 2^14 pairs, log2 = 14, so the limit is 16
      const [pb1, sb1] = [pb.subarray(0, (n - 1) * curve.pointBytes), sb.subarray(0, (n - 1) * curve.scalarBytes)];
      expect(() => curve.msmBytes(pb1, sb1, { window: 17 })).toThrow(/^window 17 is too large for 8192 points: at most 16 /);
      expect(curve.memory.buffer.byteLength, 'a refused window allocates nothing').toBe(before);
      // the pool applies the same limit to the whole input (its message path's threads see slices of it)
      const pool = await curve.threads({ count: 2, sharedMemory: false });
      try {
        await expect(pool.msmBytes(pb, sb, { window: 18 })).rejects.toThrow(/at most 17 /);
        await expect(pool.msmBytes(pb1, sb1, { window: 17 })).rejects.toThrow(/at most 16 /);
        expect(await pool.msmBytes(pb, sb, { window: 17 }), 'pool, window 17').toEqual(want);
      } finally {
        await pool.close();
      }
    });
  }
});

describe('inputs that are views of the curve\'s memory (Buffers too), or of a detached buffer (review)', () => {
  const hex = (b) => Buffer.from(b).toString('hex');

  it('msmBytes, decodePoints and encodePoint take views of the memory the call works in, as a Node Buffer too', async () => {
    const curve = await loadCurve('bn254', { kernel: 'int' });
    const n = 3000;
    const points = curve.randomPointsBytes(n, { seed: 1 });
    const scalars = curve.randomScalarsBytes(n, { seed: 2 });
    const want = hex(curve.msmBytes(points, scalars));
    const wantCompressed = hex(curve.encodePoint(points, 'gnark-compressed'));
    curve.msmBytes(curve.randomPointsBytes(20000), curve.randomScalarsBytes(20000)); // the memory grown past the views
    const at = curve.heap.mark() + 4096;
    for (const View of [Uint8Array, Buffer]) {
      const view = (offset, bytes) => {
        const v = View === Buffer ? Buffer.from(curve.memory.buffer, offset, bytes.length) : new Uint8Array(curve.memory.buffer, offset, bytes.length);
        v.set(bytes);
        return v;
      };
      // (a Buffer's slice() is a view: the MSM's own allocations then overwrote the scalars, a wrong sum)
      expect(hex(curve.msmBytes(points, view(at, scalars))), `${View.name}: scalars`).toBe(want);
      expect(hex(curve.msmBytes(view(at, points), scalars)), `${View.name}: points`).toBe(want);
      expect(hex(curve.decodePoints(view(at, points), 'native')), `${View.name}: decodePoints`).toBe(hex(points));
      expect(hex(curve.encodePoint(view(at, points), 'gnark-compressed')), `${View.name}: encodePoint`).toBe(wantCompressed);
    }
    // a point format decoded in the curve's memory grows it: the scalars' view is copied before (not detached)
    const compressed = curve.encodePoint(points, 'gnark-compressed');
    curve.trim();
    const room = curve.heap.mark() + 1024 + scalars.length - curve.memory.buffer.byteLength;
    if (room > 0) curve.memory.grow(Math.ceil(room / 65536));
    const grownBy = curve.memory.buffer.byteLength;
    const small = new Uint8Array(curve.memory.buffer, curve.heap.mark() + 1024, scalars.length);
    small.set(scalars);
    expect(hex(curve.msmBytes(compressed, small, { pointFormat: 'gnark-compressed', resultFormat: 'native' }))).toBe(want);
    expect(curve.memory.buffer.byteLength, 'the call grew the memory under the view').toBeGreaterThan(grownBy);
  });

  it('a view of a detached buffer is a TypeError, never the sum of no points', async () => {
    const curve = await loadCurve('bn254', { kernel: 'int' });
    const points = curve.randomPointsBytes(10, { seed: 3 });
    const scalars = curve.randomScalarsBytes(10, { seed: 4 });
    const gone = (bytes) => {
      const copy = bytes.slice();
      structuredClone(copy.buffer, { transfer: [copy.buffer] });
      return copy;
    };
    expect(() => curve.msmBytes(gone(points), gone(scalars))).toThrow(/pointBytes is a view of a detached ArrayBuffer/);
    expect(() => curve.msmBytes(points, gone(scalars))).toThrow(/scalarBytes is a view of a detached ArrayBuffer/);
    expect(() => curve.decodePoints(gone(points), 'gnark-compressed')).toThrow(/detached/);
    const acc = curve.msmAccumulator();
    expect(() => acc.add(gone(points), scalars)).toThrow(/points is a view of a detached ArrayBuffer/);
    acc.free?.();
    // an empty input of its own is still no input: the neutral point
    expect(curve.decodePoint(curve.msmBytes(new Uint8Array(0), new Uint8Array(0)))).toBe(null);
  });

  it('trim() from an onProgress callback is refused (a new instance under the call gave it a wrong sum); a nested call is right', async () => {
    const curve = await loadCurve('bn254', { kernel: 'int' });
    const points = curve.randomPointsBytes(3000, { seed: 7 });
    const scalars = curve.randomScalarsBytes(3000, { seed: 8 });
    const want = hex(curve.msmBytes(points, scalars));
    const options = { maxMemory: 4 * 2 ** 20, onProgress: () => curve.trim() }; // (chunks: onProgress mid-call)
    expect(() => curve.msmBytes(points, scalars, options)).toThrow(/bn254: trim\(\) during an MSM on this curve/);
    expect(() => curve.g2.msmBytes(curve.g2.randomPointsBytes(40), curve.g2.randomScalarsBytes(40), { onProgress: () => curve.g2.trim() })).toThrow(/trim\(\) during an MSM/);
    // a call made from the callback: planned above the running one, never trimming under it. With a budget below
    // what the outer call holds (past RESIDENT_BYTES: 2^16 points) it is a RangeError, and the outer sum stays right.
    const small = [points.subarray(0, 8 * 64), scalars.subarray(0, 8 * 32)];
    let inner = null;
    const nested = curve.msmBytes(points, scalars, { onProgress: (f) => { if (f > 0.3 && !inner) inner = curve.msmBytes(...small, { maxMemory: 64 * 2 ** 20 }); } });
    expect(hex(nested)).toBe(want);
    expect(hex(inner)).toBe(hex(curve.msmBytes(...small)));
    const [bigPoints, bigScalars] = [curve.randomPointsBytes(2 ** 16, { seed: 11 }), curve.randomScalarsBytes(2 ** 16, { seed: 12 })];
    const bigWant = hex(curve.msmBytes(bigPoints, bigScalars));
    let innerError = null;
    const outer = curve.msmBytes(bigPoints, bigScalars, {
      onProgress: (f) => {
        if (f < 0.3 || innerError) return;
        try {
          curve.msmBytes(...small, { maxMemory: 20 * 2 ** 20 });
          innerError = 'none';
        } catch (e) {
          innerError = e;
        }
      },
    });
    expect(curve.memory.buffer.byteLength, 'the outer call held more than the budget').toBeGreaterThan(20 * 2 ** 20);
    expect(hex(outer)).toBe(bigWant);
    expect(innerError).toBeInstanceOf(RangeError);
    curve.trim(); // after the calls: allowed
    expect(hex(curve.msmBytes(points, scalars))).toBe(want);
  });

  it('a memory that refuses to grow in a call\'s first allocations leaves the heap where it was', async () => {
    const curve = await loadCurve('bn254', { kernel: 'int' });
    const points = curve.randomPointsBytes(5000, { seed: 9 });
    const scalars = curve.randomScalarsBytes(5000, { seed: 10 });
    const want = hex(curve.msmBytes(points, scalars));
    curve.trim();
    const { memory } = curve;
    const grow = memory.grow.bind(memory);
    let grows = 0;
    memory.grow = (pages) => { if (++grows > 1) throw new RangeError('refused (test)'); return grow(pages); };
    const base = curve.heap.mark();
    try {
      expect(() => curve.msmBytes(points, scalars, { maxMemory: 64 * 2 ** 20 })).toThrow(/out of Wasm memory/);
    } finally {
      memory.grow = grow;
    }
    expect(curve.heap.mark(), 'the heap top back at its mark').toBe(base);
    expect(hex(curve.msmBytes(points, scalars))).toBe(want);
  });

  it('window null is no window, as undefined (the accumulator forced a window of 16 for 10 points)', async () => {
    const curve = await loadCurve('bn254', { kernel: 'int' });
    const points = curve.randomPointsBytes(10, { seed: 5 });
    const scalars = curve.randomScalarsBytes(10, { seed: 6 });
    const plain = curve.msmAccumulator();
    plain.add(points, scalars);
    const timings = {};
    const withNull = curve.msmAccumulator({ window: null, timings });
    withNull.add(points, scalars);
    expect(hex(withNull.result())).toBe(hex(plain.result()));
    expect(() => curve.msmBytes(points, scalars, { window: null, maxMemory: 1 })).toThrow(/^(?!.*window null)/);
  });
});
