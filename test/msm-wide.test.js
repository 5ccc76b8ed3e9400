// The wide build (kernel 'wide': 64-bit limbs, wide-arithmetic products) runs the same MSM as the other builds.
// No Node runs the wide opcodes yet, so the MSMs run where test/wide-engine.js finds the feature: headless Chromium
// with --js-flags=--wasm-wide-arithmetic (the library bundled into the page with test/wide-page.js).
// - BN254 and BLS12-381, G1 and G2, against @noble/curves (scripts/noble-msm.js): the degenerate input of the
//   other suites (repeated points, P and -P in one bucket, infinity, zero and edge scalars), n = 0, 1, and a
//   random non-power-of-two n; a point off the curve and a coordinate >= p are rejected as in the other builds.
// - The thread pool on its shared-memory path and its message path (BLS12-381 G1 and G2), against @noble/curves.
// - Every other shipped curve: the degenerate input (G1) against the build this process runs (itself checked
//   against the oracles by msm.test.js and edwards.test.js).
// - Selection: 'auto' takes 'wide' there, 'wide' / 'fma' / 'int' force one; here (no wide arithmetic) 'wide' is a
//   RangeError and 'auto' never picks it.
// Outside CI the engine suite is skipped, with a message, when no chromium is found; in CI (CI=true) that fails.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadCurve, curveNames } from '../index.js';
import { nobleMsm } from '../scripts/noble-msm.js';
import { makeRng, randomScalar } from '../src/bigint/curve.js';
import { wideArithmeticSupport } from '../src/runtime/features.js';
import { degenerateInput, scalarsToBytes, writeLE } from './msm-oracle.js';
import { suiteEngine } from './wide-engine.js';

const hexOf = (v) => `0x${v.toString(16)}`;
const coordinate = (v) => (typeof v === 'bigint' ? hexOf(v) : `${hexOf(v.c0)} + ${hexOf(v.c1)} u`);
const show = (P) => (P === null ? 'infinity' : `(${coordinate(P.x)}, ${coordinate(P.y)})`);

/** Points as x | y (G2: x.c0 | x.c1 | y.c0 | y.c1), little-endian, B bytes per base-field element: written here. */
function pointsToBytes(B, points) {
  const parts = (v) => (typeof v === 'bigint' ? [v] : [v.c0, v.c1]);
  const k = typeof points.find((P) => P !== null).x === 'bigint' ? 1 : 2;
  const out = new Uint8Array(points.length * 2 * k * B);
  points.forEach((P, i) => {
    if (P !== null) [...parts(P.x), ...parts(P.y)].forEach((v, j) => writeLE(v, out, (2 * k * i + j) * B, B));
  });
  return out;
}

/** -P for a short Weierstrass point over F_p or F_p2. */
const negOf = (p) => (P) => {
  if (P === null) return null;
  const neg = (v) => (v === 0n ? 0n : p - v);
  return { x: P.x, y: typeof P.y === 'bigint' ? neg(P.y) : { c0: neg(P.y.c0), c1: neg(P.y.c1) } };
};

/** Inputs of one group: the degenerate input, n = 0, n = 1 and `random` random pairs (bytes). */
function inputsOf(group, { random, seed }) {
  const B = group.params.field.base?.bytes ?? group.params.field.bytes;
  const pool = group.randomPoints(200, { seed });
  const rng = makeRng(`msm-wide ${group.params.name} ${group.group}`);
  const degenerate = degenerateInput(group, { neg: negOf(group.p) }, pool, rng);
  const many = group.randomPoints(random, { seed: seed + 1 });
  const manyScalars = many.map(() => randomScalar(rng, group.r));
  return [
    { label: 'degenerate', points: degenerate.points, scalars: degenerate.scalars },
    { label: 'n = 1', points: [pool[7]], scalars: [randomScalar(rng, group.r)] },
    { label: `n = ${random}`, points: many, scalars: manyScalars },
  ].map(({ label, points, scalars }) => ({ label, pointBytes: pointsToBytes(B, points), scalarBytes: scalarsToBytes(group.scalarBytes, scalars) }))
    .concat([{ label: 'n = 0', pointBytes: new Uint8Array(0), scalarBytes: new Uint8Array(0) }]);
}

const run = (group, inputs) => inputs.map(({ pointBytes, scalarBytes }) => ({ group, points: [...pointBytes], scalars: [...scalarBytes] }));

describe('kernel selection without wide arithmetic (this process)', () => {
  it.skipIf(wideArithmeticSupport())(`Node ${process.version}: 'wide' is a RangeError naming the feature; 'auto' does not take it`, async () => {
    await expect(loadCurve('bn254', { kernel: 'wide' })).rejects.toThrow(RangeError);
    await expect(loadCurve('bls12-381', { kernel: 'wide' })).rejects.toThrow(/kernel 'wide' needs the Wasm wide-arithmetic proposal.*--wasm-wide-arithmetic/);
    expect(['int', 'fma']).toContain((await loadCurve('bn254')).kernel);
    await expect(loadCurve('bn254', { kernel: 'wider' })).rejects.toThrow(/'auto', 'int', 'fma', 'wide'/);
  });
});

describe('the wide build in an engine with wide arithmetic', () => {
  let engine;
  beforeAll(async () => {
    engine = await suiteEngine('msm-wide.test.js');
  }, 120_000);
  afterAll(() => engine?.close?.());

  it("selection there: 'auto' and 'wide' load the wide build, 'fma' and 'int' theirs", async (ctx) => {
    if (!engine.where) ctx.skip();
    expect(await engine.suite('wideLoad', { curve: 'bn254' })).toEqual({ kernel: 'wide' });
    for (const kernel of ['wide', 'fma', 'int']) expect(await engine.suite('wideLoad', { curve: 'bls12-381', kernel })).toEqual({ kernel });
  }, 120_000);

  for (const name of ['bn254', 'bls12-381']) {
    it(`${name}: G1 and G2 against @noble/curves, degenerate cases included; bad points rejected`, async (ctx) => {
      if (!engine.where) ctx.skip();
      const curve = await loadCurve(name);
      const groups = [['G1', curve, 1000], ['G2', curve.g2, 300]];
      const cases = groups.flatMap(([group, c, random]) => inputsOf(c, { random, seed: 11 }).map((input) => ({ group, c, ...input })));
      // a point off the curve (y + 1) and a coordinate >= p (x = p), one each among good points
      const B = curve.params.field.bytes;
      const offCurve = Uint8Array.from(cases[0].pointBytes);
      offCurve[2 * B * 3 + B] ^= 1;
      const bigX = Uint8Array.from(cases[0].pointBytes);
      writeLE(curve.p, bigX, 2 * B * 5, B);
      const bad = [offCurve, bigX].map((pointBytes) => ({ group: 'G1', points: [...pointBytes], scalars: [...cases[0].scalarBytes] }));
      const { kernel, results } = await engine.suite('wideMsm', {
        curve: name, kernel: 'wide',
        runs: [...cases.map(({ group, pointBytes, scalarBytes }) => ({ group, points: [...pointBytes], scalars: [...scalarBytes] })), ...bad],
      });
      expect(kernel).toBe('wide');
      for (const [i, { group, c, label, pointBytes, scalarBytes }] of cases.entries()) {
        expect(results[i].error, `${name} ${group} ${label}`).toBeUndefined();
        const expected = show(await nobleMsm(c.params, pointBytes, scalarBytes));
        expect(show(c.decodePoint(Uint8Array.from(results[i]))), `${name} ${group} ${label}`).toBe(expected);
      }
      for (const [k, pointBytes] of [offCurve, bigX].entries()) {
        const got = results[cases.length + k];
        let want;
        try {
          curve.msmBytes(pointBytes, cases[0].scalarBytes);
        } catch (e) {
          want = `${e.name}: ${e.message}`;
        }
        expect(want, 'this process rejects it').toBeDefined();
        expect(got.error, `${name}: bad point ${k}`).toBe(want);
      }
    }, 300_000);
  }

  it('the thread pool on both paths (shared memory and messages), G1 and G2 of BLS12-381, against @noble/curves; snarkjs points', async (ctx) => {
    if (!engine.where) ctx.skip();
    const curve = await loadCurve('bls12-381');
    const cases = [['G1', curve], ['G2', curve.g2]].map(([group, c]) => ({ group, c, ...inputsOf(c, { random: 700, seed: 31 })[2] }));
    // the same inputs in snarkjs' Montgomery form, which the shared path's threads read as they are (g_fromScaledBytes)
    const snarkjs = { pointFormat: 'snarkjs', resultFormat: 'native' };
    const runs = [
      ...cases.map(({ group, pointBytes, scalarBytes }) => ({ group, points: [...pointBytes], scalars: [...scalarBytes] })),
      ...cases.map(({ group, c, pointBytes, scalarBytes }) => ({ group, points: [...c.encodePoint(pointBytes, 'snarkjs')], scalars: [...scalarBytes], options: snarkjs })),
    ];
    for (const sharedMemory of [true, false]) {
      const { kernel, results, poolShared } = await engine.suite('wideMsm', { curve: 'bls12-381', kernel: 'wide', pool: { count: 2, sharedMemory }, runs });
      expect([kernel, poolShared]).toEqual(['wide', sharedMemory]);
      for (const [i, { group, c, pointBytes, scalarBytes }] of [...cases, ...cases].entries()) {
        const what = `${group} shared ${sharedMemory}${i >= cases.length ? ' snarkjs points' : ''}`;
        expect(results[i].error, what).toBeUndefined();
        expect(show(c.decodePoint(Uint8Array.from(results[i]))), what).toBe(show(await nobleMsm(c.params, pointBytes, scalarBytes)));
      }
    }
  }, 300_000);

  it('every other shipped curve: the degenerate input, n = 1 and n = 300 as the build of this process computes them', async (ctx) => {
    if (!engine.where) ctx.skip();
    for (const name of curveNames.filter((n) => n !== 'bn254' && n !== 'bls12-381')) {
      const curve = await loadCurve(name);
      const weierstrass = curve.model === undefined || curve.model === 'weierstrass';
      const inputs = weierstrass
        ? inputsOf(curve, { random: 300, seed: 21 })
        : [{ label: 'n = 300', pointBytes: curve.randomPointsBytes(300, { seed: 21 }), scalarBytes: curve.randomScalarsBytes(300, { seed: 22 }) }];
      const { kernel, results } = await engine.suite('wideMsm', { curve: name, kernel: 'wide', runs: run('G1', inputs) });
      expect(kernel).toBe('wide');
      inputs.forEach(({ label, pointBytes, scalarBytes }, i) => {
        expect(results[i], `${name} ${label}`).toEqual([...curve.msmBytes(pointBytes, scalarBytes)]);
      });
    }
  }, 600_000);
});
