// The thread pool (curve.threads) in Node, both paths (shared memory, messages), against the synchronous MSM
// and @noble/curves (scripts/peers.js nobleMsm, which shares no code with the library):
// - every shipped curve x thread counts 1..8 x both paths on one input made of degenerate cases (the same
//   point many times with equal scalars, P and -P, infinity, zero scalars, scalars at the edges of r) plus
//   n = 0, 1 and a non-power-of-two random size; larger inputs and forced windows on two curves;
// - a work area smaller than a bucket (the chunked bucket sum) on the synchronous path;
// - the shared path's claims (a thread takes pieces of others' shares that none has started), run one lane after
//   another with the counters forced: one lane claims all, another none, and the sums still equal the MSM;
//   and more threads than (window, pair) items, where threads without a share take no part;
// - bad input (a point off the curve, a scalar >= r, wrong lengths, a point outside the subgroup) rejects
//   with the index of the first bad input and leaves the pool usable;
// - abort, progress, a dead thread, close, queued calls, and a Node process that exits by itself with an
//   idle pool. Generated curves (codegen CLI) are checked in test/codegen-cli.test.js.

import { describe, it, expect, beforeAll, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadCurve, curveNames } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { makeCurve, makeRng, randomScalar } from '../src/bigint/curve.js';
import { degenerateInput, pointsToBytes, scalarsToBytes, WEIERSTRASS_CURVES } from './msm-oracle.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { sharedMemoryModuleBytes } from '../src/runtime/loader.js';
import { equalShares, msmShape, splitPieces } from '../src/msm/plan.js';
import { weightedCuts } from '../src/threads/split.js';
import { claimLane, combineWindows, countDigits, lanePartials, prepareRange, setInfinity } from '../src/msm/index.js';
import { allocClaimLanes, allocInputs, allocWork, chunkIO } from '../src/msm/layout.js';
import { convertPoints, pointToBytes } from '../src/msm/bytes.js';
import { Thread, Workers } from '../src/threads/thread.js';
import { FreeBuffers, letGoOf } from '../src/msm/buffers.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const PATHS = [
  ['shared memory', true],
  ['messages', false],
];
const show = (P) => (P === null ? 'infinity' : `(0x${P.x.toString(16)}, 0x${P.y.toString(16)})`);

describe('the shared-memory module', () => {
  it('equals, byte for byte, wabt assembling the same text with a shared memory import (every shipped curve, both builds)', async () => {
    const wabt = await wabtInit();
    for (const [name, build] of curveNames.flatMap((n) => [[n, ''], [n, '.fma']])) {
      const features = { mutable_globals: true, threads: true, ...(build && { relaxed_simd: true }) };
      const base = join(repo, 'wasm', name, name + build);
      const wat = readFileSync(`${base}.wat`, 'utf8');
      const sharedWat = wat.replace(/\(import "env" "memory" \(memory (\d+)\)\)/, '(import "env" "memory" (memory $1 65536 shared))');
      expect(sharedWat, name).not.toBe(wat);
      const module = wabt.parseWat(`${name}.wat`, sharedWat, features);
      module.resolveNames();
      module.validate(features);
      const expected = new Uint8Array(module.toBinary({ write_debug_names: true }).buffer);
      module.destroy();
      expect(Buffer.from(sharedMemoryModuleBytes(readFileSync(`${base}.wasm`))).equals(Buffer.from(expected)), name).toBe(true);
    }
  });
});

describe('the split of the work over threads (src/msm/plan.js)', () => {
  const P = { glv: { halfBits: 127 }, rBits: 254 };
  const covers = (shape, lanes) => {
    // every (window, pair) item exactly once, in window-major order
    const items = lanes.flat().flatMap(({ k, first, count }) => Array.from({ length: count }, (_, i) => k * shape.m + first + i));
    expect(items).toEqual(Array.from({ length: shape.K * shape.m }, (_, i) => i));
  };

  it('equal shares: every item once, shares differ by at most one item, a share crosses at most ceil(K / T) + 1 windows', () => {
    for (const [n, T] of [[1, 1], [1, 8], [5, 3], [100, 7], [1000, 16], [333, 32]]) {
      const shape = msmShape(P, n, 7, T);
      const lanes = splitPieces(shape, T);
      covers(shape, lanes);
      const sizes = lanes.map((pieces) => pieces.reduce((s, p) => s + p.count, 0));
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (const pieces of lanes) expect(pieces.length).toBeLessThanOrEqual(Math.ceil(shape.K / T) + 1);
    }
  });

  it('weighted shares: equal nonzero digits per thread when the top windows or the second GLV half are empty', () => {
    const n = 4096;
    const shape = msmShape(P, n, 13, 4); // K = 10 windows of m = 8192 pairs
    const m = shape.m;
    // small scalars: only windows 0..2 have digits, and only in the first GLV half (k1 = 0)
    const segments = [];
    for (let k = 0; k < shape.K; k++) {
      segments.push({ k, first: 0, count: n, nonzero: k < 3 ? n : 0 }, { k, first: n, count: n, nonzero: 0 });
    }
    for (const T of [2, 3, 4, 8]) {
      const lanes = splitPieces(shape, T, weightedCuts(shape, T, segments));
      covers(shape, lanes);
      const work = lanes.map((pieces) => pieces.reduce((s, p) => s + (p.k < 3 ? Math.max(0, Math.min(n, p.first + p.count) - p.first) : 0), 0));
      // an item costs 1/16 (sorted, scanned), a nonzero digit one addition more
      const items = lanes.map((pieces) => pieces.reduce((s, p) => s + p.count, 0));
      const cost = work.map((w, t) => w + items[t] / 16);
      // each share within 1/8 of an equal one: a cut moves by at most 1/16 of a share onto a window boundary
      const share = cost.reduce((a, b) => a + b, 0) / T;
      for (const c of cost) expect(Math.abs(c - share), `T = ${T}: ${cost}`).toBeLessThanOrEqual(share / 8 + 2);
      // the equal split would leave some threads almost idle
      const equal = splitPieces(shape, T).map((pieces) => pieces.reduce((s, p) => s + (p.k < 3 ? Math.max(0, Math.min(n, p.first + p.count) - p.first) : 0), 0));
      expect(Math.min(...equal)).toBeLessThan(Math.max(...equal) / 4);
    }
    expect(m).toBe(2 * n);
  });
});

describe('threads that claim pieces as they go (src/msm/index.js claimLane), run one after another here', () => {
  // A pool's threads over input in one chunk claim their own pieces, then any that no other thread has started,
  // so the claims depend on timing. Run one after another here, the lanes take the extremes: the first lane
  // run takes every piece (its own, then the others'), or, with a counter set to the end by hand, a lane takes
  // its own and another's and one takes none. The partial sums of what each claimed must add up to the MSM.
  for (const name of ['bn254', 'bls12-381']) {
    it(`${name}: one lane claims all, or its own and another's while one claims none; the sums equal msmBytes, which equals noble`, async () => {
      const curve = await loadCurve(name);
      const P = curve.params;
      const ctx = { ex: curve.exports, memory: curve.memory, params: P };
      const n = 300;
      const pointBytes = curve.randomPointsBytes(n, { seed: 7 });
      const scalarBytes = curve.randomScalarsBytes(n, { seed: 8 });
      const single = curve.msmBytes(pointBytes, scalarBytes);
      expect(show(curve.decodePoint(single))).toBe(show(await nobleMsm(P, pointBytes, scalarBytes)));
      const mark = curve.heap.mark();
      try {
        const inputs = allocInputs(curve.heap, P, n);
        new Uint8Array(curve.memory.buffer, inputs.staging, pointBytes.length).set(pointBytes);
        new Uint8Array(curve.memory.buffer, inputs.scalars, scalarBytes.length).set(scalarBytes);
        convertPoints(ctx, inputs.points, inputs.staging, n);
        const T = 3;
        const shape = msmShape(P, n, 6, T); // a small window: many pieces
        const work = allocWork(curve.heap, P, shape, n);
        setInfinity(curve.memory, P, work.infinity);
        const io = chunkIO(P, inputs, work, n);
        prepareRange(ctx, io, 0, n);
        const segments = equalShares(n, T).flatMap(([first, end]) => countDigits(ctx, io, first, end - first));
        const claim = allocClaimLanes(curve.heap, P, shape, splitPieces(shape, T, weightedCuts(shape, T, segments)));
        const { queue, ranges, counters, lanes } = claim;
        const own = ranges.map(([start, end]) => end - start);
        expect(Math.min(...own)).toBeGreaterThan(1);
        const claims = new Int32Array(curve.memory.buffer, counters, T);
        const expected = Buffer.from(single).toString('hex');
        const claimAll = (order) => order.forEach((t) => claimLane(ctx, io, lanes[t], { ...claim, t }));
        const sumOf = (list) => Buffer.from(pointToBytes(curve, combineWindows(ctx, curve.heap, io, list.flatMap((lane) => lanePartials(P, lane))))).toString('hex');
        // lane 1 first: its own pieces, then lane 2's, then lane 0's; the others find nothing left
        claims.fill(0);
        claimAll([1, 0, 2]);
        expect(lanes.map((lane) => lane.slots.length)).toEqual([0, queue.length, 0]);
        expect(lanes[1].slots.slice(0, own[1])).toEqual(Array.from({ length: own[1] }, (_, i) => ranges[1][0] + i));
        expect(sumOf(lanes)).toBe(expected);
        // lane 0 runs while the others' counters say taken: its own pieces only, a share of the MSM (so the sums
        // compared here can differ); then, freed, lane 1 takes its own and lane 2's, and lane 2 none
        claims.set([0, own[1], own[2]]);
        claimAll([0]);
        expect(lanes[0].slots.length).toBe(own[0]);
        expect(sumOf([lanes[0]])).not.toBe(expected);
        claims[1] = 0;
        claims[2] = 0;
        claimAll([1, 2]);
        expect(lanes.map((lane) => lane.slots.length)).toEqual([own[0], own[1] + own[2], 0]);
        expect(lanes.flatMap((lane) => lane.slots).sort((a, b) => a - b)).toEqual(queue.map((_, g) => g)); // each once
        expect(sumOf(lanes)).toBe(expected);
      } finally {
        curve.heap.release(mark);
      }
    });
  }
});

for (const name of WEIERSTRASS_CURVES) { // the Edwards curves: edwards.test.js
  describe(`thread pool on ${name}`, { timeout: 120_000 }, () => {
    let curve;
    let cases; // [{ label, points, scalars, bytes: [pointBytes, scalarBytes], expected bytes }]

    beforeAll(async () => {
      curve = await loadCurve(name);
      const oracle = makeCurve(curve.params);
      const pool = curve.randomPoints(200, { seed: 21 });
      const rng = makeRng(`threads ${name}`);
      const random = (n) => ({ points: pool.slice(0, n), scalars: Array.from({ length: n }, () => randomScalar(rng, curve.r)) });
      const inputs = [['n = 0', random(0)], ['n = 1', random(1)], ['n = 2', random(2)], ['n = 37 random', random(37)], ['degenerate cases, n = 123', degenerateInput(curve, oracle, pool, rng)]];
      cases = [];
      for (const [label, { points, scalars }] of inputs) {
        // The oracle's inputs are encoded by the test harness, not by the library.
        const pointBytes = pointsToBytes(curve.params.field.bytes, points);
        const scalarBytes = scalarsToBytes(curve.params.scalarBytes, scalars);
        const noble = await nobleMsm(curve.params, pointBytes, scalarBytes);
        const single = curve.msm(points, scalars);
        expect(show(single), `${label}: single thread against noble`).toBe(show(noble));
        cases.push({ label, points, scalars, pointBytes, scalarBytes, expected: show(noble) });
      }
    });

    for (const [path, sharedMemory] of PATHS) {
      it(`${path}: 1..8 threads equal the single thread and noble on n = 0, 1, 2, 37 and the degenerate cases`, async () => {
        for (let count = 1; count <= 8; count++) {
          const pool = await curve.threads({ count, sharedMemory });
          try {
            expect(pool.count).toBe(count);
            expect(pool.sharedMemory).toBe(sharedMemory);
            for (const c of cases) {
              const got = curve.decodePoint(await pool.msmBytes(c.pointBytes, c.scalarBytes));
              expect(show(got), `${c.label}, ${count} threads`).toBe(c.expected);
            }
            // The BigInt form too.
            const c = cases.at(-1);
            expect(show(await pool.msm(c.points, c.scalars)), `msm, ${count} threads`).toBe(c.expected);
          } finally {
            await pool.close();
          }
        }
      });
    }
  });
}

describe('thread pool: larger inputs and forced windows', { timeout: 120_000 }, () => {
  for (const name of ['bls12-381', 'bn254']) {
    it(`${name}: n = 3001 and 1 << 12, threads 2, 3, 5 on both paths, default and forced windows`, async () => {
      const curve = await loadCurve(name);
      for (const n of [3001, 1 << 12]) {
        const pointBytes = curve.randomPointsBytes(n, { seed: n });
        const scalarBytes = curve.randomScalarsBytes(n, { seed: n + 1 });
        const expected = show(await nobleMsm(curve.params, pointBytes, scalarBytes));
        for (const [path, sharedMemory] of PATHS) {
          for (const count of [2, 3, 5]) {
            const pool = await curve.threads({ count, sharedMemory });
            try {
              for (const window of [undefined, 3, 9, 16]) {
                const got = curve.decodePoint(await pool.msmBytes(pointBytes, scalarBytes, { window }));
                expect(show(got), `${path}, n = ${n}, ${count} threads, window ${window ?? 'default'}`).toBe(expected);
              }
            } finally {
              await pool.close();
            }
          }
        }
      }
    });
  }
});

describe('thread pool: small scalars (the weighted split)', { timeout: 120_000 }, () => {
  it('bls12-381 and bn254: scalars below 2^20, 0 and 1 (most windows and the second GLV half empty), 2 and 3 threads', async () => {
    for (const name of ['bls12-381', 'bn254']) {
      const curve = await loadCurve(name);
      const n = 2000;
      const points = curve.randomPoints(n, { seed: 17 });
      const rng = makeRng(`small ${name}`);
      const scalars = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? BigInt(i % 2) : randomScalar(rng, 1n << 20n)));
      const expected = show(await nobleMsm(curve.params, pointsToBytes(curve.params.field.bytes, points), scalarsToBytes(curve.params.scalarBytes, scalars)));
      for (const count of [2, 3]) {
        const pool = await curve.threads({ count, sharedMemory: true });
        try {
          expect(show(await pool.msm(points, scalars)), `${name}, ${count} threads`).toBe(expected);
        } finally {
          await pool.close();
        }
      }
    }
  });
});

describe('thread pool: more threads than (window, pair) items', { timeout: 120_000 }, () => {
  it('bn254 and secp256k1: n = 1, 2, 3 with scalars of 1 to 3 bits on 8 threads (threads without a share take no part) equal noble', async () => {
    for (const name of ['bn254', 'secp256k1']) {
      const curve = await loadCurve(name);
      const pool = await curve.threads({ count: 8, sharedMemory: true });
      try {
        for (const [n, bits] of [[1, 1], [2, 1], [1, 3], [3, 2]]) {
          const points = curve.randomPoints(n, { seed: 40 + n });
          const scalars = Array.from({ length: n }, (_, i) => (1n << BigInt(bits)) - 1n - BigInt(i & 1));
          const expected = show(await nobleMsm(curve.params, pointsToBytes(curve.params.field.bytes, points), scalarsToBytes(curve.params.scalarBytes, scalars)));
          const timings = {};
          expect(show(curve.decodePoint(await pool.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), { timings }))), `${name}, n = ${n}`).toBe(expected);
          // scalars this small are not GLV-split: one pair per point, windows * n items
          expect(timings.windows * n, `${name}, n = ${n}: fewer items than threads`).toBeLessThan(8);
        }
      } finally {
        await pool.close();
      }
    }
  });
});

describe('MSM with a work area smaller than a bucket (chunked bucket sums)', () => {
  it('bn254: blockPoints 1, 2, 3, 8 give the same result as the default', async () => {
    const curve = await loadCurve('bn254');
    const oracle = makeCurve(curve.params);
    const pool = curve.randomPoints(64, { seed: 5 });
    const { points, scalars } = degenerateInput(curve, oracle, [...pool, ...pool, ...pool], makeRng('chunks'));
    const expected = show(curve.msm(points, scalars));
    for (const blockPoints of [1, 2, 3, 8]) {
      for (const window of [undefined, 2, 5]) {
        expect(show(curve.msm(points, scalars, { blockPoints, window })), `blockPoints ${blockPoints}, window ${window}`).toBe(expected);
      }
    }
    // 300 copies of one point: one bucket far larger than the work area.
    const P = pool[0];
    const want = show(oracle.mul(P, 300n * 5n));
    expect(show(curve.msm(new Array(300).fill(P), new Array(300).fill(5n), { blockPoints: 7 }))).toBe(want);
  });
});

describe('thread pool: errors, abort, progress, lifecycle', { timeout: 120_000 }, () => {
  let curve;
  let pointBytes;
  let scalarBytes;
  let expected;
  const N = 1000;

  beforeAll(async () => {
    curve = await loadCurve('bls12-381');
    pointBytes = curve.randomPointsBytes(N, { seed: 3 });
    scalarBytes = curve.randomScalarsBytes(N, { seed: 4 });
    expected = curve.msmBytes(pointBytes, scalarBytes);
  });

  const offCurve = (index) => {
    const bad = pointBytes.slice();
    bad[index * curve.pointBytes] ^= 1; // x changes: (x', y) is not on the curve
    return bad;
  };

  for (const [path, sharedMemory] of PATHS) {
    it(`${path}: bad input rejects with the index of the first bad input, and the pool stays usable`, async () => {
      const pool = await curve.threads({ count: 3, sharedMemory });
      try {
        // the second thread's share holds the first bad point: the index is the caller's, not the slice's
        await expect(pool.msmBytes(offCurve(500), scalarBytes)).rejects.toThrow(/^points\[500\]: point is not on the curve$/);
        const twoBad = offCurve(900);
        twoBad.set(offCurve(401).subarray(401 * curve.pointBytes, 402 * curve.pointBytes), 401 * curve.pointBytes);
        await expect(pool.msmBytes(twoBad, scalarBytes)).rejects.toThrow(/^points\[401\]: /);
        const bigX = pointBytes.slice();
        bigX.fill(0xff, 7 * curve.pointBytes, 7 * curve.pointBytes + curve.coordinateBytes);
        await expect(pool.msmBytes(bigX, scalarBytes)).rejects.toThrow(/^points\[7\]: x coordinate is >= p$/);
        const badScalar = scalarBytes.slice();
        badScalar.fill(0xff, 999 * curve.scalarBytes, 1000 * curve.scalarBytes);
        await expect(pool.msmBytes(pointBytes, badScalar)).rejects.toThrow(/^scalars\[999\] is not in \[0, r\)$/);
        await expect(pool.msmBytes(pointBytes.subarray(1), scalarBytes)).rejects.toThrow(RangeError);
        await expect(pool.msmBytes(pointBytes, scalarBytes.subarray(0, 32))).rejects.toThrow(/1000 points but 1 scalars/);
        await expect(pool.msmBytes([], scalarBytes)).rejects.toThrow(TypeError);
        await expect(pool.msmBytes(pointBytes, scalarBytes, null)).rejects.toThrow(TypeError);
        await expect(pool.msmBytes(pointBytes, scalarBytes, { window: 1 })).rejects.toThrow(/window must be an integer in 2\.\.24/);
        // The order-3 point (0, 2) of BLS12-381 is on the curve but not in the subgroup.
        const withTorsion = pointBytes.slice();
        const at = 654 * curve.pointBytes;
        withTorsion.fill(0, at, at + curve.pointBytes);
        withTorsion[at + curve.coordinateBytes] = 2;
        const small = withTorsion.subarray(0, 700 * curve.pointBytes);
        await expect(pool.msmBytes(small, scalarBytes.subarray(0, 700 * curve.scalarBytes), { checkSubgroup: true })).rejects.toThrow(
          /^points\[654\] is not in the subgroup of order r$/,
        );
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        await pool.close();
      }
    });

    it(`${path}: abort rejects promptly with an AbortError and the pool stays usable; progress ends at 1`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const big = 1 << 14;
        const bigPoints = curve.randomPointsBytes(big, { seed: 8 });
        const bigScalars = curve.randomScalarsBytes(big, { seed: 9 });
        const controller = new AbortController();
        const started = performance.now();
        const running = pool.msmBytes(bigPoints, bigScalars, { signal: controller.signal });
        setTimeout(() => controller.abort(), 30);
        await expect(running).rejects.toMatchObject({ name: 'AbortError' });
        expect(performance.now() - started).toBeLessThan(1000);
        // aborted while waiting for its turn: rejects at once, and the call before it is not disturbed
        const c3 = new AbortController();
        const first = pool.msmBytes(bigPoints, bigScalars);
        const queued = pool.msmBytes(pointBytes, scalarBytes, { signal: c3.signal });
        const abortedAt = performance.now();
        c3.abort();
        await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
        expect(performance.now() - abortedAt).toBeLessThan(100);
        expect(await first).toEqual(curve.msmBytes(bigPoints, bigScalars));
        // already aborted: rejects without running
        await expect(pool.msmBytes(pointBytes, scalarBytes, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
        // a reason that is not an AbortError is kept as the cause
        const c2 = new AbortController();
        const second = pool.msmBytes(bigPoints, bigScalars, { signal: c2.signal });
        setTimeout(() => c2.abort(new Error('user gave up')), 10);
        const error = await second.catch((e) => e);
        expect(error.name).toBe('AbortError');
        expect(error.cause?.message).toBe('user gave up');
        // reusable, and progress is reported in [0, 1], non-decreasing, ending at 1
        const seen = [];
        expect(await pool.msmBytes(pointBytes, scalarBytes, { onProgress: (f) => seen.push(f) })).toEqual(expected);
        expect(seen.length).toBeGreaterThan(2);
        expect(seen.at(-1)).toBe(1);
        for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
        expect(seen.every((f) => f >= 0 && f <= 1)).toBe(true);
      } finally {
        await pool.close();
      }
    });

    it(`${path}: abort rejects at once, not when the MSM is done (timed against the same MSM run to its end)`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        // An input whose whole MSM takes at least 400 ms here, so "at once" (< 100 ms) and "when done" (the 3/4
        // left after the abort) cannot be confused; doubled until it does.
        let n = 1 << 15;
        let points;
        let scalars;
        let fullMs;
        for (;;) {
          points = curve.randomPointsBytes(n, { seed: 21 });
          scalars = curve.randomScalarsBytes(n, { seed: 22 });
          const t0 = performance.now();
          await pool.msmBytes(points, scalars);
          fullMs = performance.now() - t0;
          if (fullMs >= 400 || n >= 1 << 18) break;
          n *= 2;
        }
        expect(fullMs, `the MSM of ${n} points`).toBeGreaterThanOrEqual(400);
        const controller = new AbortController();
        let abortedAt = null;
        let fractionAtAbort = null;
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort();
        }, fullMs / 4);
        const error = await pool.msmBytes(points, scalars, { signal: controller.signal, onProgress: (f) => (abortedAt === null ? (fractionAtAbort = f) : null) }).catch((e) => e);
        const latency = performance.now() - abortedAt;
        expect(error?.name).toBe('AbortError');
        expect(fractionAtAbort ?? 0, 'the MSM was under way, far from its end, when aborted').toBeLessThan(0.75);
        expect(latency, `rejected ${latency.toFixed(1)} ms after abort(); the whole MSM takes ${fullMs.toFixed(0)} ms`).toBeLessThan(Math.min(100, fullMs / 4));
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        await pool.close();
      }
    });

    it(`${path}: pool.msm (BigInt points and scalars) and a prepared pool's msmBytes / msm take signal and onProgress`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const points = curve.randomPoints(N, { seed: 3 });
        const scalars = curve.randomScalars(N, { seed: 4 });
        const want = curve.decodePoint(expected);
        const monotoneToOne = (seen, what) => {
          expect(seen.length, what).toBeGreaterThan(2);
          expect(seen.at(-1), what).toBe(1);
          for (let i = 1; i < seen.length; i++) expect(seen[i], what).toBeGreaterThanOrEqual(seen[i - 1]);
          expect(seen.every((f) => f >= 0 && f <= 1), what).toBe(true);
        };
        /** Aborts the call `start(signal, onProgress)` at its first progress report; resolves to [error, ms from abort()]. */
        const abortMidway = async (start) => {
          const controller = new AbortController();
          let abortedAt = null;
          const error = await start(controller.signal, () => {
            if (abortedAt !== null) return;
            abortedAt = performance.now();
            controller.abort();
          }).catch((e) => e);
          return [error, performance.now() - abortedAt];
        };
        const big = 1 << 14;
        const bigPoints = curve.randomPointsBytes(big, { seed: 8 });
        const bigScalars = curve.randomScalarsBytes(big, { seed: 9 });

        // pool.msm
        let seen = [];
        expect(await pool.msm(points, scalars, { onProgress: (f) => seen.push(f) })).toEqual(want);
        monotoneToOne(seen, 'pool.msm progress');
        await expect(pool.msm(points, scalars, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
        const bigObjects = curve.randomPoints(big, { seed: 8 });
        const bigBigints = curve.randomScalars(big, { seed: 9 });
        let [error, latency] = await abortMidway((signal, onProgress) => pool.msm(bigObjects, bigBigints, { signal, onProgress }));
        expect(error?.name, 'pool.msm aborted').toBe('AbortError');
        expect(latency, 'pool.msm: ms from abort() to the rejection').toBeLessThan(100);
        expect(await pool.msm(points, scalars)).toEqual(want);

        // a prepared pool: msmBytes and msm
        const bases = await pool.prepareBases(bigPoints);
        const prefix = scalarBytes.subarray(0, N * curve.scalarBytes);
        const wantPrefix = curve.msmBytes(bigPoints.subarray(0, N * curve.pointBytes), prefix);
        seen = [];
        expect(await bases.msmBytes(prefix, { onProgress: (f) => seen.push(f) })).toEqual(wantPrefix);
        monotoneToOne(seen, 'prepared msmBytes progress');
        seen = [];
        expect(await bases.msm(scalars, { onProgress: (f) => seen.push(f) })).toEqual(curve.decodePoint(wantPrefix));
        monotoneToOne(seen, 'prepared msm progress');
        await expect(bases.msmBytes(prefix, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
        await expect(bases.msm(scalars, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
        [error, latency] = await abortMidway((signal, onProgress) => bases.msmBytes(bigScalars, { signal, onProgress }));
        expect(error?.name, 'prepared msmBytes aborted').toBe('AbortError');
        expect(latency, 'prepared msmBytes: ms from abort() to the rejection').toBeLessThan(100);
        // the bases survive the abort (its threads are replaced; on the message path their slices are rebuilt)
        expect(await bases.msmBytes(bigScalars)).toEqual(curve.msmBytes(bigPoints, bigScalars));
        await bases.free();
      } finally {
        await pool.close();
      }
    });

    it(`${path}: an abort while a call gives back memory for its budget rejects it, and the call queued behind it gets its own result (the aborted one never runs on the new threads)`, async () => {
      const bn = await loadCurve('bn254');
      const n = 20000;
      const A = [bn.randomPointsBytes(n, { seed: 1 }), bn.randomScalarsBytes(n, { seed: 2 })];
      const B = [bn.randomPointsBytes(n, { seed: 3 }), bn.randomScalarsBytes(n, { seed: 4 })];
      const pool = await bn.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      try {
        await pool.msmBytes(...A); // memory grown: the next call's small budget gives it back first (new threads)
        const controller = new AbortController();
        const aborted = pool.msmBytes(...A, { signal: controller.signal, maxMemory: 2 * 2 ** 20 });
        const next = pool.msmBytes(...B);
        await null;
        controller.abort();
        await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
        expect(await next).toEqual(bn.msmBytes(...B));
        expect(await pool.msmBytes(...A)).toEqual(bn.msmBytes(...A));
      } finally {
        await pool.close();
      }
    });

    it(`${path}: prepared bases take the windows the MSM of all k scalars takes (not those of a thread's slice), and refuse the others before the call`, async () => {
      const bn = await loadCurve('bn254');
      const k = 9000; // window 17 is allowed for 9000 points, not for a slice of 4500
      const [points, scalars] = [bn.randomPointsBytes(k, { seed: 61 }), bn.randomScalarsBytes(k, { seed: 62 })];
      const pool = await bn.threads({ count: 2, sharedMemory });
      try {
        const bases = await pool.prepareBases(points);
        expect(await bases.msmBytes(scalars, { window: 17 })).toEqual(bn.prepareBases(points).msmBytes(scalars, { window: 17 }));
        await expect(bases.msmBytes(new Uint8Array(0), { window: 20 })).rejects.toThrow(/^window 20 is too large for 0 points/);
        await bases.free();
      } finally {
        await pool.close();
      }
    });

    it(`${path}: prepared bases: a call made before free() runs; a prepareBases that fails (a bad point) leaves no slice on the threads`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      const ops = [];
      const run = Thread.prototype.run;
      const spy = vi.spyOn(Thread.prototype, 'run').mockImplementation(function (op, args, o) {
        ops.push([op, args?.id]);
        return run.call(this, op, args, o);
      });
      try {
        const bases = await pool.prepareBases(pointBytes);
        const before = bases.msmBytes(scalarBytes);
        const freed = bases.free();
        expect(await before).toEqual(expected);
        await freed;
        await expect(bases.msmBytes(scalarBytes)).rejects.toThrow(/these prepared bases were freed/);
        ops.length = 0;
        await expect(pool.prepareBases(offCurve(900))).rejects.toThrow(/^points\[900\]: point is not on the curve$/);
        if (!sharedMemory) {
          // the thread whose slice had no bad point built it: it is freed again
          const id = ops.find(([op]) => op === 'keepBases')[1];
          expect(ops.filter(([op, i]) => op === 'freeBases' && i === id).length).toBe(2);
        }
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        spy.mockRestore();
        await pool.close();
      }
    });

    it(`${path}: a stream that fails (a bad point, a source that throws) leaves nothing on the threads: the least budget of a call still suffices after it`, async () => {
      const bn = await loadCurve('bn254');
      const n = 4000;
      const [points, scalars] = [bn.randomPointsBytes(n, { seed: 1 }), bn.randomScalarsBytes(n, { seed: 2 })];
      const pool = await bn.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      try {
        const few = [points.subarray(0, 200 * bn.pointBytes), scalars.subarray(0, 200 * bn.scalarBytes)];
        const want = bn.msmBytes(...few);
        const need = (await pool.msmBytes(...few, { maxMemory: 1000 }).catch((e) => e)).need;
        expect(need).toBeGreaterThan(1000);
        expect(await pool.msmBytes(...few, { maxMemory: need })).toEqual(want);
        const bad = points.slice();
        bad[(n - 1) * bn.pointBytes + 3] ^= 1; // the last point off the curve: the first thread's share is added
        await expect(pool.msmStream([{ points: bad, scalars }])).rejects.toThrow(/^points\[3999\]: point is not on the curve$/);
        expect(await pool.msmBytes(...few, { maxMemory: need })).toEqual(want);
        const throwing = (async function* () {
          yield { points: points.subarray(0, 500 * bn.pointBytes), scalars: scalars.subarray(0, 500 * bn.scalarBytes) };
          throw new Error('the source broke');
        })();
        await expect(pool.msmStream(throwing)).rejects.toThrow(/the source broke/);
        expect(await pool.msmBytes(...few, { maxMemory: need })).toEqual(want);
      } finally {
        await pool.close();
      }
    });

    it(`${path}: an accumulator's pieces added without awaiting: free(), or an earlier piece's error, rejects the ones still queued, and none goes unhandled`, async () => {
      const bn = await loadCurve('bn254');
      const [points, scalars] = [bn.randomPointsBytes(8, { seed: 1 }), bn.randomScalarsBytes(8, { seed: 2 })];
      const unhandled = [];
      const onUnhandled = (reason) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      const pool = await bn.threads({ count: 2, sharedMemory });
      try {
        const dropped = pool.msmAccumulator();
        dropped.add(points, scalars); // copied: the caller need not await them
        dropped.add(points, scalars);
        await dropped.free();
        const failing = pool.msmAccumulator();
        const tooLarge = scalars.slice().fill(0xff); // every scalar >= r
        const first = failing.add(points, tooLarge);
        const second = failing.add(points, scalars);
        await expect(failing.result()).rejects.toThrow(/scalars\[0\]/);
        await expect(second).rejects.toThrow(/scalars\[0\]/); // awaited: the caller sees the stream's error
        await first.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 50)); // Node reports unhandled rejections after a tick
        expect(unhandled.map(String)).toEqual([]);
        expect(await pool.msmBytes(points, scalars)).toEqual(bn.msmBytes(points, scalars));
      } finally {
        process.off('unhandledRejection', onUnhandled);
        await pool.close();
      }
    });

    it(`${path}: close() while a trim() gives back memory: no thread starts after it, and the trim resolves`, async () => {
      const bn = await loadCurve('bn254');
      const A = [bn.randomPointsBytes(20000, { seed: 1 }), bn.randomScalarsBytes(20000, { seed: 2 })];
      const pool = await bn.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      await pool.msmBytes(...A); // memory to give back
      let trimming = false;
      let closing = null;
      const readyAfterClose = [];
      const { stop, ready } = Workers.prototype;
      // close() exactly while the trim's release is under way: at its first stop()
      const onStop = vi.spyOn(Workers.prototype, 'stop').mockImplementation(function (...args) {
        if (trimming && closing === null) {
          closing = Promise.resolve(); // (close() itself stops the threads: this spy again)
          closing = pool.close();
        }
        return stop.apply(this, args);
      });
      const onReady = vi.spyOn(Workers.prototype, 'ready').mockImplementation(function () {
        const after = closing !== null;
        const made = ready.call(this);
        made.then(() => after && readyAfterClose.push('threads started after close()'), () => {});
        return made;
      });
      try {
        trimming = true;
        await pool.trim();
        expect(closing, 'the trim released something').not.toBeNull();
        await closing;
        expect(readyAfterClose).toEqual([]);
        await expect(pool.msmBytes(...A)).rejects.toThrow(/closed/);
      } finally {
        onStop.mockRestore();
        onReady.mockRestore();
        await pool.close();
      }
    });

    it(`${path}: a thread that dies fails the call running on it, and is replaced for the next call`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const big = 1 << 13;
        const bigPoints = curve.randomPointsBytes(big, { seed: 8 });
        const bigScalars = curve.randomScalarsBytes(big, { seed: 9 });
        const running = pool.msmBytes(bigPoints, bigScalars);
        setTimeout(() => pool.killThreadForTesting(1), 20);
        await expect(running).rejects.toThrow(/wasmsm thread 1 (failed|was stopped|is not running)/);
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        await pool.close();
      }
    });

    it(`${path}: after a thread died, trim() and close() one microtask later both settle, and a later call rejects (closed)`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      const n = 1 << 14;
      await pool.msmBytes(curve.randomPointsBytes(n, { seed: 10 }), curve.randomScalarsBytes(n, { seed: 11 })); // memory for trim() to give back
      pool.killThreadForTesting(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const trimmed = pool.trim();
      await null;
      await pool.close();
      const after = pool.msmBytes(pointBytes, scalarBytes);
      const settled = await Promise.race([Promise.allSettled([trimmed, after]), new Promise((resolve) => setTimeout(() => resolve('still pending'), 5000))]);
      expect(settled).not.toBe('still pending');
      expect(settled[0].status).toBe('fulfilled');
      expect(settled[1].reason?.message).toMatch(/the thread pool is closed/);
    });

    it(`${path}: calls made at once queue and all give their own result; close() ends the pool`, async () => {
      const pool = await curve.threads({ count: 2, sharedMemory });
      const half = N / 2;
      const firstHalf = curve.msmBytes(pointBytes.subarray(0, half * curve.pointBytes), scalarBytes.subarray(0, half * curve.scalarBytes));
      const results = await Promise.all([
        pool.msmBytes(pointBytes, scalarBytes),
        pool.msmBytes(pointBytes.subarray(0, half * curve.pointBytes), scalarBytes.subarray(0, half * curve.scalarBytes)),
        pool.msmBytes(pointBytes, scalarBytes),
      ]);
      expect(results).toEqual([expected, firstHalf, expected]);
      await pool.close();
      await expect(pool.msmBytes(pointBytes, scalarBytes)).rejects.toThrow(/closed/);
    });
  }

  it('an onProgress that throws rejects that call with its error (after the threads finish), and nothing crashes', async () => {
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const boom = new Error('callback failed');
        await expect(pool.msmBytes(pointBytes, scalarBytes, { onProgress: () => { throw boom; } })).rejects.toBe(boom);
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        await pool.close();
      }
    }
  });

  it('a forced window is bounded by the whole input on both paths (not by a thread\'s slice)', async () => {
    const bn = await loadCurve('bn254');
    const n = 1 << 13;
    const pts = bn.randomPointsBytes(n, { seed: 31 });
    const sc = bn.randomScalarsBytes(n, { seed: 32 });
    const want = bn.msmBytes(pts, sc, { window: 16 });
    for (const sharedMemory of [true, false]) {
      const pool = await bn.threads({ count: 2, sharedMemory });
      try {
        // 2^13 points: at most log2(2^14) + 2 = 16; each thread's slice alone would allow only 15
        expect(await pool.msmBytes(pts, sc, { window: 16 }), `shared ${sharedMemory}`).toEqual(want);
        await expect(pool.msmBytes(pts, sc, { window: 17 })).rejects.toThrow(/window 17 is too large for 8192 points: at most 16/);
        await expect(pool.msmBytes(new Uint8Array(0), new Uint8Array(0), { window: 99 })).rejects.toThrow(/window must be an integer in 2\.\.24/);
      } finally {
        await pool.close();
      }
    }
  });

  it('a curve made with the bare constructor (no compiled module) gets a clear error from threads()', async () => {
    const { Curve } = await import('../index.js');
    const bare = new Curve(curve.params, curve.exports, curve.memory);
    await expect(bare.threads({ count: 1 })).rejects.toThrow(/threads\(\) needs a curve loaded by loadCurve/);
  });

  it('message path without maxMemory: a budget error names what the pool needs (T threads), and that budget works', async () => {
    const bn = await loadCurve('bn254');
    const [points, scalars] = [bn.randomPointsBytes(300, { seed: 41 }), bn.randomScalarsBytes(300, { seed: 42 })];
    const pool = await bn.threads({ count: 2, sharedMemory: false });
    try {
      // window 19: about 144 MiB a thread, more than each thread's half of the default working set
      const e = await pool.msmStream([{ points, scalars }], { window: 19 }).catch((error) => error);
      expect(e.message).toMatch(/^the default working set \(no maxMemory given\) is too small for this MSM: it needs at least \d+ bytes/);
      expect(e.need).toBeGreaterThan(256 * 2 ** 20);
      expect(await pool.msmStream([{ points, scalars }], { window: 19, maxMemory: e.need })).toEqual(bn.msmBytes(points, scalars));
    } finally {
      await pool.close();
    }
  });

  it('options are checked', async () => {
    await expect(curve.threads({ count: 0 })).rejects.toThrow(/count must be an integer in 1\.\.256/);
    await expect(curve.threads({ count: '2' })).rejects.toThrow(/^count must be an integer in 1\.\.256, got the string '2'$/);
    await expect(curve.threads({ count: 2.5 })).rejects.toThrow(RangeError);
    await expect(curve.threads({ sharedMemory: 'yes' })).rejects.toThrow(TypeError);
    await expect(curve.threads(null)).rejects.toThrow(TypeError);
    // the synchronous MSM's testing knob blockPoints is not taken by a pool's calls (it was accepted and ignored)
    const pool = await curve.threads({ count: 2 });
    try {
      for (const call of [
        () => pool.msmBytes(pointBytes, scalarBytes, { blockPoints: 1 }),
        () => pool.msm([], [], { blockPoints: 1 }),
        () => pool.msmStream([{ points: pointBytes, scalars: scalarBytes }], { blockPoints: 1 }),
      ]) await expect(call()).rejects.toThrow(/^options\.blockPoints \(a testing knob of the synchronous MSM\) does not apply to a thread pool$/);
      // an accumulator's options are checked when it is made, as curve.msmAccumulator's are
      expect(() => pool.msmAccumulator({ blockPoints: 1 })).toThrow(/^options\.blockPoints \(a testing knob/);
    } finally {
      await pool.close();
    }
  });

  it('one AbortSignal on many queued calls: one listener on it while they wait, none once they settle; abort rejects them all', async () => {
    const { getEventListeners } = await import('node:events');
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const controller = new AbortController();
        const calls = Array.from({ length: 12 }, () => pool.msmBytes(pointBytes, scalarBytes, { signal: controller.signal }));
        expect(getEventListeners(controller.signal, 'abort').length, `shared ${sharedMemory}`).toBeLessThanOrEqual(2); // the queue's and the running call's
        expect(await Promise.all(calls)).toEqual(calls.map(() => expected));
        expect(getEventListeners(controller.signal, 'abort').length).toBe(0);
        const waiting = Array.from({ length: 12 }, () => pool.msmBytes(pointBytes, scalarBytes, { signal: controller.signal }));
        controller.abort();
        for (const call of waiting) await expect(call).rejects.toThrow(/abort/i);
        expect(await pool.msmBytes(pointBytes, scalarBytes)).toEqual(expected);
      } finally {
        await pool.close();
      }
      expect(pool.memoryBytes, 'a closed pool holds no memory').toBe(0);
    }
  });

  it('the default thread count is the number of cores', async () => {
    const { availableParallelism } = await import('node:os');
    const pool = await curve.threads();
    try {
      expect(pool.count).toBe(availableParallelism());
      expect(pool.sharedMemory).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('a Node process with an idle pool that was never closed exits by itself after its MSM', () => {
    const script = `
      import { loadCurve } from './index.js';
      const curve = await loadCurve('bn254');
      for (const sharedMemory of [true, false]) {
        const pool = await curve.threads({ count: 3, sharedMemory });
        const out = await pool.msmBytes(curve.randomPointsBytes(300), curve.randomScalarsBytes(300));
        console.log(sharedMemory, out.length);
      }`;
    // as `node -e` (the workers must not inherit the entry options) and with process-wide V8 options
    for (const flags of [['--input-type=module'], ['--input-type=module', '--max-old-space-size=512', '--expose-gc']]) {
      const started = Date.now();
      const child = spawnSync(process.execPath, [...flags, '-e', script], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
      expect(child.stderr, flags.join(' ')).toBe('');
      expect(child.status).toBe(0);
      expect(child.stdout.trim().split('\n')).toEqual(['true 64', 'false 64']);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
  });
});

describe('a thread that never ran (src/threads/thread.js)', () => {
  it('a worker that fails to start leaves the thread dead, so the next ready() replaces it; one stopped before its worker came rejects ready', async () => {
    const failing = new Thread({ type: 'init' }, 0, () => Promise.reject(new Error('no worker here')));
    await expect(failing.ready).rejects.toThrow('no worker here');
    expect(failing.dead).toBe(true);
    const bn = await loadCurve('bn254');
    const stopped = new Thread({ type: 'init', module: bn.module, params: bn.params }, 1);
    stopped.terminate();
    const settled = await Promise.race([stopped.ready.then(() => 'ready', (e) => e.message), new Promise((resolve) => setTimeout(() => resolve('still pending'), 5000))]);
    expect(settled).toBe('wasmsm thread 1 was stopped');
  });
});

describe('a thread gives back the arrays a message brought once they are garbage (buffers.js letGoOf)', () => {
  it('detaches their buffers where the engine has ArrayBuffer.prototype.transfer, and leaves shared memory alone', () => {
    const bytes = new Uint8Array(4096).fill(7);
    const shared = new Uint8Array(new SharedArrayBuffer(16)).fill(3);
    const raw = new ArrayBuffer(64); // an ArrayBuffer itself, not a view
    letGoOf(bytes, shared, shared.buffer, raw, null, undefined);
    if (typeof ArrayBuffer.prototype.transfer === 'function') {
      expect(bytes.buffer.detached).toBe(true);
      expect(bytes.length).toBe(0);
      expect(raw.detached).toBe(true);
    } else {
      expect(bytes[4095]).toBe(7); // Node 20: the collector frees it
    }
    expect(shared[15]).toBe(3);
    expect(() => letGoOf(bytes)).not.toThrow(); // already let go
  });
});

describe('spare buffers (buffers.js FreeBuffers): the message path\'s slices and a proof\'s arrays', () => {
  it('takes the smallest free buffer that holds a request in at most twice its size; else a new one, the others given back', () => {
    const free = new FreeBuffers();
    const [b3, b8, b20] = [3, 8, 20].map((k) => new ArrayBuffer(k * 1024));
    for (const b of [b20, b3, b8, b8]) free.put(b); // the same buffer twice counts once
    free.put(new SharedArrayBuffer(64)); // not ours to keep
    expect(free.bytes).toBe(31 * 1024);
    const a = free.take(5 * 1024); // 8 KiB: the smallest that holds it, within twice 5
    expect([a.buffer, a.length, a.byteOffset]).toEqual([b8, 5 * 1024, 0]);
    expect(free.take(10 * 1024).buffer).toBe(b20); // 20 <= 2 * 10
    const c = free.take(1024); // only 3 KiB is left: more than twice 1 KiB, so a new one, and the 3 KiB goes
    expect(c.buffer).not.toBe(b3);
    expect(c.length).toBe(1024);
    expect(free.bytes).toBe(0);
    if (typeof ArrayBuffer.prototype.transfer === 'function') expect(b3.detached).toBe(true);
    // at most `limit` buffers: the one put first goes
    const few = new FreeBuffers(2);
    const kept = [5, 9, 7].map((k) => new ArrayBuffer(k));
    for (const b of kept) few.put(b);
    expect(few.bytes).toBe(16);
    if (typeof ArrayBuffer.prototype.transfer === 'function') expect(kept[0].detached).toBe(true);
    few.clear();
    expect(few.bytes).toBe(0);
  });

  it('a thread sends back the buffers its message brought where asked (giveBack), not detached, for the next slices (worker.js spentBuffers)', async () => {
    const bn = await loadCurve('bn254');
    const thread = new Thread({ type: 'init', module: bn.module, params: bn.params }, 0);
    const back = [];
    thread.onSpent = (buffers) => back.push(...buffers);
    try {
      await thread.ready;
      const n = 5;
      const points = pointsToBytes(bn.params.field.bytes, bn.randomPoints(n, { seed: 3 }));
      const scalars = scalarsToBytes(bn.params.scalarBytes, Array.from({ length: n }, (_, i) => BigInt(3 * i + 1)));
      const sizes = [points.length, scalars.length];
      const copies = [points.slice(), scalars.slice()];
      const sum = await thread.run('msm', { pointBytes: points, scalarBytes: scalars, n, options: {} }, { transfer: [points.buffer, scalars.buffer], giveBack: true });
      expect(sum).toBeInstanceOf(Uint8Array);
      expect(points.length).toBe(0); // transferred
      expect(back.map((b) => b.byteLength)).toEqual(sizes);
      for (const b of back) expect(new Uint8Array(b).length).toBe(b.byteLength); // usable here: not detached
      // not asked for (other work's arrays): the thread lets go of them, and the same sum comes
      back.length = 0;
      expect(Buffer.from(await thread.run('msm', { pointBytes: copies[0], scalarBytes: copies[1], n, options: {} }, { transfer: copies.map((c) => c.buffer) })).equals(Buffer.from(sum))).toBe(true);
      expect(back).toEqual([]);
      // a failed operation sends its buffers back too
      back.length = 0;
      const bad = new Uint8Array(bn.pointBytes).fill(0xff);
      await expect(thread.run('msm', { pointBytes: bad, scalarBytes: new Uint8Array(bn.scalarBytes), n: 1, options: {} }, { transfer: [bad.buffer], giveBack: true })).rejects.toBeTruthy();
      expect(back.map((b) => b.byteLength)).toContain(bn.pointBytes);
    } finally {
      await thread.terminate();
    }
  });
  it('a message-path pool copies its next slices into its last ones; the buffers of other work (an NTT\'s blocks) it lets go of', async () => {
    const bn = await loadCurve('bn254');
    const fr = await bn.fr();
    const pool = await bn.threads({ count: 2, sharedMemory: false });
    const put = vi.spyOn(FreeBuffers.prototype, 'put');
    const take = vi.spyOn(FreeBuffers.prototype, 'take');
    try {
      const n = 40;
      const pointBytes = pointsToBytes(bn.params.field.bytes, bn.randomPoints(n, { seed: 9 }));
      const scalarBytes = scalarsToBytes(bn.params.scalarBytes, Array.from({ length: n }, (_, i) => BigInt(i) * 977n + 5n));
      const want = show(await nobleMsm(bn.params, pointBytes, scalarBytes));
      expect(show(bn.decodePoint(await pool.msmBytes(pointBytes, scalarBytes)))).toBe(want);
      const sizes = take.mock.calls.map(([bytes]) => bytes).sort((a, b) => a - b);
      expect(sizes).toEqual([640, 640, 1280, 1280]); // points and scalars, a slice each of 2 threads
      // all 4 came back (new ArrayBuffer objects over the same bytes: a transfer moves them)
      const back = put.mock.calls.map(([b]) => b);
      expect(back.map((b) => b.byteLength).sort((a, b) => a - b)).toEqual(sizes);
      take.mockClear();
      expect(show(bn.decodePoint(await pool.msmBytes(pointBytes, scalarBytes)))).toBe(want);
      const reused = take.mock.results.filter((r) => back.includes(r.value.buffer)).length;
      expect(reused).toBe(4); // the next call's slices went into them
      put.mockClear();
      const values = Array.from({ length: 64 }, (_, i) => BigInt(i * i + 1));
      expect(await fr.nttOn(pool, values)).toEqual(fr.ntt(values));
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
      take.mockRestore();
      await pool.close();
    }
  });
});

describe('msmParts: points given up in parts, one a thread (groth16Prove\'s H)', () => {
  for (const [label, sharedMemory] of PATHS) {
    it(`${label}: the sum of msmBytes over the parts joined; on the message path the parts go to the threads as they are`, async () => {
      const bn = await loadCurve('bn254');
      const pool = await bn.threads({ count: 2, sharedMemory });
      try {
        const rng = makeRng('msmParts');
        const n = 37;
        const pointBytes = pointsToBytes(bn.params.field.bytes, bn.randomPoints(n, { seed: 41 }));
        const scalarBytes = scalarsToBytes(bn.params.scalarBytes, Array.from({ length: n }, () => randomScalar(rng, bn.r)));
        const want = await pool.msmBytes(pointBytes, scalarBytes);
        expect(show(bn.decodePoint(want))).toBe(show(await nobleMsm(bn.params, pointBytes, scalarBytes)));
        const cuts = equalShares(n, 2);
        const partsOf = () => cuts.map(([a, b]) => pointBytes.slice(a * bn.pointBytes, b * bn.pointBytes));
        const parts = partsOf();
        expect(Buffer.from(await pool.msmParts(parts, scalarBytes)).equals(Buffer.from(want))).toBe(true);
        expect(parts.every((p) => p.length === 0)).toBe(!sharedMemory); // transferred, not copied
        // parts of one buffer, and more parts than threads: joined and copied, the caller's bytes left as they were
        const one = pointBytes.slice();
        const views = cuts.map(([a, b]) => one.subarray(a * bn.pointBytes, b * bn.pointBytes));
        expect(Buffer.from(await pool.msmParts(views, scalarBytes)).equals(Buffer.from(want))).toBe(true);
        expect(Buffer.from(one).equals(Buffer.from(pointBytes))).toBe(true);
        const many = [0, 10, 20, 30, n].slice(1).map((end, i, ends) => pointBytes.slice((i ? ends[i - 1] : 0) * bn.pointBytes, end * bn.pointBytes));
        expect(Buffer.from(await pool.msmParts(many, scalarBytes)).equals(Buffer.from(want))).toBe(true);
        // a bad point is named by its index in the whole input
        const bad = partsOf();
        bad[1].fill(0xff, 2 * bn.pointBytes, 3 * bn.pointBytes);
        await expect(pool.msmParts(bad, scalarBytes)).rejects.toThrow(`points[${cuts[1][0] + 2}]`);
        expect(Buffer.from(await pool.msmParts(partsOf(), scalarBytes)).equals(Buffer.from(want))).toBe(true);
      } finally {
        await pool.close();
      }
    });
  }
});

describe('Node Buffers as inputs (a Buffer\'s slice is a view, not a copy)', () => {
  it('every pool call on both paths gives the synchronous result and leaves the caller\'s buffers whole and unchanged', { timeout: 120_000 }, async () => {
    const curve = await loadCurve('bn254');
    const n = 300;
    const points = curve.randomPointsBytes(n, { seed: 5 });
    const scalars = curve.randomScalarsBytes(n, { seed: 6 });
    const want = curve.msmBytes(points, scalars);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const calls = {
          msmBytes: (p, s) => pool.msmBytes(p, s),
          prepareBases: async (p, s) => (await pool.prepareBases(p)).msmBytes(s),
          msmStream: (p, s) => pool.msmStream([{ points: p, scalars: s }]),
          msmAccumulator: async (p, s) => {
            const acc = pool.msmAccumulator();
            await acc.add(p, s);
            p.fill(0); // the caller reuses its buffers at once: the pool kept copies
            s.fill(0);
            return acc.result();
          },
        };
        for (const [name, call] of Object.entries(calls)) {
          const p = Buffer.from(points);
          const s = Buffer.from(scalars);
          const got = await call(p, s);
          expect(Buffer.from(got).equals(Buffer.from(want)), `${name}, sharedMemory ${sharedMemory}`).toBe(true);
          expect(p.buffer.byteLength, `${name}: the caller's points were taken`).toBeGreaterThan(0);
          expect(s.buffer.byteLength, `${name}: the caller's scalars were taken`).toBeGreaterThan(0);
          if (name !== 'msmAccumulator') expect(Buffer.compare(p, Buffer.from(points)), `${name}: points changed`).toBe(0);
        }
      } finally {
        await pool.close();
      }
    }
  });
});
