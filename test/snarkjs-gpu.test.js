// wasmsm/snarkjs with the GPU (accelerate(curve, { gpu })), on SwiftShader through Dawn: a Groth16 proof (bits8,
// BN254) whose G1 MSMs ran on the GPU verifies with snarkjs's verifier, and each of those MSMs equals ffjavascript's
// own on the same buffers; direct MSMs with infinity, zero scalars, BigBuffer pages cut inside a pair and a bad
// point; a device lost mid-proof fails the proof; restore() destroys the GPU device it made, and Node exits by itself.
// Without an adapter (every run): gpu: true rejects at accelerate(), gpu: 'auto' proves on the pool. groth16Prove with
// gpu gives the pools' proof for the same r and s; without an adapter gpu: true rejects, 'auto' proves on the pools.
// SwiftShader compiles the kernels slowly (10-60 s per device): one curve, the smallest circuit, one shared device.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as snarkjs from 'snarkjs';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accelerate, Groth16Prover } from 'wasmsm/snarkjs';
import { GpuDeviceLostError, GpuUnavailableError } from 'wasmsm';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { skipGpuSuite, testDevice, testGpu } from './gpu.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const hex = (b) => Buffer.from(b).toString('hex');

let f; // the bits8 Groth16 fixture on bn128
let vkey;

beforeAll(async () => {
  f = await fixture(snarkjs, 'bits8', 'bn128', 'groth16');
  vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
}, 600_000);

afterAll(terminateCurves);

/** A public signal changed by one. */
const tampered = (signals) => signals.map((s, i) => (i === 0 ? String(BigInt(s) + 1n) : s));

/** n affine points of G in ffjavascript's LEM form (distinct multiples of g); `infinity(i)` picks zeros. */
function basesOf(G, n, infinity = () => false) {
  const out = new Uint8Array(n * 2 * G.F.n8);
  let P = G.timesScalar(G.g, 0x9e3779b97f4a7c15n);
  for (let i = 0; i < n; i++, P = G.add(P, G.g)) if (!infinity(i)) G.toRprLEM(out, i * 2 * G.F.n8, G.toAffine(P));
  return out;
}

/** n 32-byte little-endian scalars below r (seeded); `zero(i)` picks zeros. */
function scalarsOf(r, n, zero = () => false) {
  const out = new Uint8Array(32 * n);
  let x = 12345n;
  for (let i = 0; i < n; i++) {
    x = (x * 0x5851f42d4c957f2dn + 0x14057b7ef767814fn) % (1n << 256n);
    if (zero(i)) continue;
    let v = x % r;
    for (let j = 0; j < 32; j++, v >>= 8n) out[32 * i + j] = Number(v & 0xffn);
  }
  return out;
}

/** A BigBuffer-shaped object whose pages are cut at `cuts` (byte offsets): what ffjavascript hands over past 1 GiB. */
function paged(bytes, cuts) {
  const ends = [...cuts, bytes.length];
  return { byteLength: bytes.length, buffers: ends.map((end, i) => bytes.slice(i === 0 ? 0 : ends[i - 1], end)) };
}

/** Replace navigator.gpu by one with no adapter while fn runs (Node 21+ has a navigator of its own). */
async function withoutAdapter(fn) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: { requestAdapter: async () => null } }, configurable: true });
  try {
    return await fn();
  } finally {
    if (saved) Object.defineProperty(globalThis, 'navigator', saved);
    else delete globalThis.navigator;
  }
}

describe('wasmsm/snarkjs gpu option without a GPU', () => {
  it("gpu: true rejects at accelerate() and leaves the curve as it was; 'auto' proves on the pool; bad values are TypeErrors", { timeout: 300_000 }, async () => {
    const curve = await snarkjs.curves.getCurveFromName('bn128');
    const own = { G1: curve.G1.multiExpAffine, G2: curve.G2.multiExpAffine };
    for (const gpu of ['yes', 1, null, { devise: 1 }, { optional: 'yes' }, { maxMemory: -1 }, { powerPreference: 'fast' }, { device: 5 }]) {
      await expect(accelerate(curve, { gpu }), JSON.stringify(gpu)).rejects.toThrow(TypeError);
    }
    await withoutAdapter(async () => {
      for (const gpu of [true, {}]) {
        const e = await accelerate(curve, { gpu, threads: 1 }).then(() => null, (err) => err);
        expect(e).toBeInstanceOf(GpuUnavailableError);
        expect(e.message).toMatch(/no usable GPU \(WebGPU found no adapter.*gpu: 'auto'/);
        expect(e.cause).toBeInstanceOf(GpuUnavailableError);
        expect(curve.G1.multiExpAffine, 'put back').toBe(own.G1);
        expect(curve.G2.multiExpAffine, 'put back').toBe(own.G2);
      }
      for (const gpu of ['auto', { optional: true }]) {
        const handle = await accelerate(curve, { gpu, minPoints: 1, threads: 1 });
        let proved;
        try {
          expect(handle.gpu).toBeNull();
          expect(handle.gpuError).toBeInstanceOf(GpuUnavailableError);
          proved = await snarkjs.groth16.prove(f.zkey, f.wtns);
        } finally {
          await handle.restore();
        }
        expect(handle.stats.routed).toBeGreaterThanOrEqual(5); // A, B1, C, H on G1's pool; B2 on G2's
        expect(handle.stats.gpu).toBe(0);
        expect(await snarkjs.groth16.verify(vkey, proved.publicSignals, proved.proof)).toBe(true);
      }
    });
    // groth16Prove: gpu true rejects the proof with GpuUnavailableError; 'auto' proves on the pools
    await withoutAdapter(async () => {
      const strict = new Groth16Prover({ gpu: true, threads: 1 });
      await expect(strict.prove(f.zkey, f.wtns)).rejects.toThrow(GpuUnavailableError);
      await strict.close();
      const lenient = new Groth16Prover({ gpu: 'auto', threads: 1 });
      const ours = await lenient.prove(f.zkey, f.wtns);
      await lenient.close();
      expect(await snarkjs.groth16.verify(vkey, ours.publicSignals, ours.proof)).toBe(true);
    });
    // gpu: false is no GPU at all, not even an attempt
    const handle = await accelerate(curve, { gpu: false, threads: 1, groups: ['G1'] });
    expect(handle.gpu).toBeNull();
    expect(handle.gpuError).toBeNull();
    await handle.restore();
  });
});

describe.skipIf(skipGpuSuite('snarkjs-gpu.test.js'))('wasmsm/snarkjs with G1 on the GPU (SwiftShader)', () => {
  let device; // one device for the in-process tests: its pipelines compile once

  beforeAll(async () => {
    await testGpu(); // Dawn loaded, SwiftShader chosen (VK_ICD_FILENAMES, inherited by the child process below)
    device = await testDevice();
  }, 60_000);

  afterAll(() => device?.destroy());

  it("groth16Prove with G1's MSMs on the GPU: the proof is the pools' for the same r and s, and it verifies", { timeout: 600_000 }, async () => {
    const onGpu = new Groth16Prover({ gpu: { device }, threads: 1 });
    const onPool = new Groth16Prover({ threads: 1 });
    try {
      const blinding = { r: 0x1234567890abcdefn, s: 0xfedcba0987654321n };
      const a = await onGpu.prove(f.zkey, f.wtns, blinding);
      const b = await onPool.prove(f.zkey, f.wtns, blinding);
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      expect(await snarkjs.groth16.verify(vkey, a.publicSignals, a.proof)).toBe(true);
    } finally {
      await onPool.close();
      await onGpu.close();
    }
  });

  it("a Groth16 proof verifies with snarkjs's verifier, and each G1 MSM equals ffjavascript's on the same buffers", { timeout: 600_000 }, async () => {
    const curve = await snarkjs.curves.getCurveFromName('bn128');
    const own = { G1: curve.G1.multiExpAffine, G2: curve.G2.multiExpAffine };
    const handle = await accelerate(curve, { gpu: { device }, minPoints: 1, threads: 1 });
    expect(typeof handle.gpu).toBe('string');
    const routed = curve.G1.multiExpAffine;
    const calls = []; // the G1 MSMs of the proof: copies of their inputs, and the route's result
    curve.G1.multiExpAffine = async function (bases, scalars, ...rest) {
      const inputs = { bases: bases.slice(), scalars: scalars.slice() };
      calls.push({ ...inputs, result: await routed.call(this, bases, scalars, ...rest) });
      return calls.at(-1).result;
    };
    let proved;
    try {
      proved = await snarkjs.groth16.prove(f.zkey, f.wtns);
    } finally {
      curve.G1.multiExpAffine = routed;
      await handle.restore();
    }
    expect(curve.G1.multiExpAffine).toBe(own.G1);
    expect(curve.G2.multiExpAffine).toBe(own.G2);
    expect(handle.gpu, 'the GPU closed').toBeNull();
    // A, B1, C, H on the GPU; B2 on G2's pool
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(handle.stats.gpu).toBe(calls.length);
    expect(handle.stats.routed).toBe(calls.length + 1);
    expect(handle.stats.fallback).toBe(0);
    for (const [i, { bases, scalars, result }] of calls.entries()) {
      const theirs = await own.G1.call(curve.G1, bases, scalars);
      expect(hex(curve.G1.toAffine(result)), `G1 MSM ${i} of ${bases.length / 64} points`).toBe(hex(curve.G1.toAffine(theirs)));
    }
    const { proof, publicSignals } = proved;
    expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
    expect(await snarkjs.groth16.verify(vkey, tampered(publicSignals), proof)).toBe(false);
  });

  it("direct G1 MSMs: infinity, zero scalars, BigBuffer pages cut inside a pair, a bad point's index", { timeout: 300_000 }, async () => {
    const curve = await snarkjs.curves.getCurveFromName('bn128');
    const G = curve.G1;
    const own = G.multiExpAffine;
    const n = 300;
    const bases = basesOf(G, n, (i) => i % 37 === 5);
    const handle = await accelerate(curve, { gpu: { device }, minPoints: 1, groups: ['G1'] });
    try {
      // ffjavascript's own on the same bytes (flat: its BigBuffer path calls slice(), which `paged` lacks)
      const same = async (b, s, what, flat = [b, s]) => {
        const ours = await G.multiExpAffine(b, s);
        expect(hex(G.toAffine(ours)), what).toBe(hex(G.toAffine(await own.call(G, ...flat))));
      };
      await same(bases, scalarsOf(curve.r, n), 'random scalars');
      await same(bases, scalarsOf(curve.r, n, (i) => i % 3 !== 0), 'two thirds zero (the pairs left out)');
      await same(bases, new Uint8Array(32 * n), 'all zero');
      await same(bases.subarray(0, 64), scalarsOf(curve.r, 1), 'n = 1');
      // pages cut inside a pair (bases: inside point 100; scalars: inside scalar 70)
      const scalars = scalarsOf(curve.r, n);
      await same(paged(bases, [100 * 64 + 17, 200 * 64]), paged(scalars, [70 * 32 + 5]), 'BigBuffer pages', [bases, scalars]);
      expect(handle.stats.gpu).toBe(5);
      // a point off the curve: an error naming its index in the caller's arrays, also where zero pairs were left out
      const bad = bases.slice();
      bad[250 * 64] ^= 1;
      await expect(G.multiExpAffine(bad, scalarsOf(curve.r, n))).rejects.toThrow(/points\[250\]/);
      await expect(G.multiExpAffine(bad, scalarsOf(curve.r, n, (i) => i < 200))).rejects.toThrow(/points\[250\]/);
    } finally {
      await handle.restore();
    }
  });

  it('restore() destroys the GPU device the route made, and a Node process exits by itself', { timeout: 300_000 }, async () => {
    // a device of its own (gpu: true), the kernels compiled in the child; the time from 'done' to the exit tells
    // "kept alive" from a slow compile. Dawn reached through navigator.gpu, so that the child sees the device the
    // route made and checks that restore() destroyed it (Node exits even with a live one).
    const script = `
      import * as snarkjs from 'snarkjs';
      import { create } from 'webgpu';
      import { accelerate, Groth16Prover } from 'wasmsm/snarkjs';
      const dawn = create([]);
      let made = null;
      const requestAdapter = async (o) => {
        const a = await dawn.requestAdapter(o);
        return a && { limits: a.limits, info: a.info, requestDevice: async (d) => (made = await a.requestDevice(d)) };
      };
      Object.defineProperty(globalThis, 'navigator', { value: { gpu: { requestAdapter } }, configurable: true });
      const curve = await snarkjs.curves.getCurveFromName('bn128');
      const own = curve.G1.multiExpAffine;
      const handle = await accelerate(curve, { gpu: true, threads: 1, minPoints: 1 });
      const n = 40;
      const b = new Uint8Array(n * 64), s = new Uint8Array(n * 32);
      for (let i = 0; i < n; i++) {
        curve.G1.toRprLEM(b, 64 * i, curve.G1.toAffine(curve.G1.timesScalar(curve.G1.g, i + 1)));
        s[32 * i] = i + 1;
      }
      const ours = curve.G1.toAffine(await curve.G1.multiExpAffine(b, s));
      const theirs = curve.G1.toAffine(await own.call(curve.G1, b, s));
      if (handle.stats.gpu !== 1 || !curve.G1.eq(ours, theirs)) throw new Error('not the GPU, or not the same point');
      await handle.restore();
      const lost = await Promise.race([made.lost, new Promise((resolve) => setTimeout(resolve, 5000, null))]);
      if (lost?.reason !== 'destroyed') throw new Error('restore() left the GPU device alive');
      await curve.terminate();
      console.log('done');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, env: process.env });
    let stdout = '';
    let stderr = '';
    let doneAt = null;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (doneAt === null && stdout.includes('done')) doneAt = Date.now();
    });
    child.stderr.on('data', (d) => (stderr += d));
    const killer = setTimeout(() => child.kill(), 280_000);
    const status = await new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    clearTimeout(killer);
    const exitedAfter = doneAt === null ? null : Date.now() - doneAt;
    // (Dawn's Vulkan loader complains of XDG_RUNTIME_DIR where it is not set: not ours)
    expect(stderr.split('\n').filter((line) => line && !/XDG_RUNTIME_DIR/.test(line)).join('\n')).toBe('');
    expect(stdout.trim()).toBe('done');
    expect(status).toBe(0);
    expect(exitedAfter, 'something kept Node alive after restore()').toBeLessThan(10_000);
  });

  // last: it destroys the suite's device
  it('a device lost mid-proof: the proof rejects with GpuDeviceLostError, never a proof', { timeout: 300_000 }, async () => {
    const curve = await snarkjs.curves.getCurveFromName('bn128');
    const handle = await accelerate(curve, { gpu: { device }, minPoints: 1, threads: 1 });
    const routed = curve.G1.multiExpAffine;
    let count = 0;
    curve.G1.multiExpAffine = async function (...args) {
      const result = await routed.apply(this, args);
      if (++count === 1) device.destroy(); // after the proof's first G1 MSM (A)
      return result;
    };
    try {
      await expect(snarkjs.groth16.prove(f.zkey, f.wtns)).rejects.toThrow(GpuDeviceLostError);
    } finally {
      curve.G1.multiExpAffine = routed;
      await handle.restore();
    }
    expect(count).toBeGreaterThanOrEqual(1);
    expect(handle.stats.gpu).toBeGreaterThanOrEqual(2);
  });
});
