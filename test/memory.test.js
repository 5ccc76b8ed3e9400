// Memory (issue #23): the MSM in chunks whose buckets carry across them (maxMemory), over streamed input
// (msmStream, msmAccumulator) and on pools (both paths), against @noble/curves and the one-shot msmBytes, on every
// curve and on G2. Degenerate cases across chunk boundaries (P in one chunk and -P in another, a bucket that sums
// to infinity and then gets points again, all-zero chunks, chunks of 1 point and of odd sizes, pieces larger than
// the input); errors that name the index in the whole input (a bad point in the third chunk, a scalar >= r in a later
// piece, a stream that ends inside a point or with a stray scalar); an abort mid-stream and a stream that throws,
// each leaving the curve or pool usable; memory given back (trim, and by itself when idle); an engine that will not
// grow the memory (a memory with a small maximum).
// The process-level check that RSS comes back after a large MSM is in test/memory-rss.test.js.

import { describe, it, expect, beforeAll } from 'vitest';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { makeCurve, makeRng, randomScalar } from '../src/bigint/curve.js';
import { LONG_TESTS } from './harness.js';
import { degenerateInput, pointsToBytes, scalarsToBytes, WEIERSTRASS_CURVES, writeLE } from './msm-oracle.js';
import { planMsm } from '../src/msm/plan.js';
import { scalarBitLength } from '../src/msm/bytes.js';
import { msmBytesOn } from '../src/msm/chunked.js';
import { withHeap, RELEASE_AFTER_MS, RESIDENT_BYTES } from '../src/instance.js';
import { instantiateSync } from '../src/runtime/loader.js';
import { Heap } from '../src/runtime/heap.js';

const show = (P) => (P === null ? 'infinity' : JSON.stringify(P, (_, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v)));
const MiB = 2 ** 20;

/** G1 points as the harness encodes them; G2 points ({ c0, c1 } coordinates) likewise, c0 first. */
function encodePoints(g, points) {
  const B = g.params.field.bytes;
  if (g.group === 'G1') return pointsToBytes(B, points);
  const half = B / 2;
  const out = new Uint8Array(points.length * 2 * B);
  points.forEach((P, i) => {
    if (P === null) return;
    [P.x.c0, P.x.c1, P.y.c0, P.y.c1].forEach((v, k) => writeLE(v, out, 2 * B * i + k * half, half));
  });
  return out;
}

/** An oracle that negates points of either group (what degenerateInput needs). */
function negOracle(g) {
  const p = g.p;
  const neg = (v) => (typeof v === 'bigint' ? (v === 0n ? 0n : p - v) : { c0: neg(v.c0), c1: neg(v.c1) });
  return { neg: (P) => (P === null ? null : { x: P.x, y: neg(P.y) }) };
}

/**
 * The smallest maxMemory whose plan (window c forced) has chunks of exactly `points` points; scalarBits: the largest
 * scalar's bit length, which msmBytes plans with (a stream plans without it).
 */
function budgetForChunk(g, n, points, window, scalarBits) {
  const base = g.exports.fp_heapBase.value;
  const planned = (maxMemory) => {
    try {
      return planMsm(g.params, n, { window, maxMemory, base, scalarBits }).chunkPoints;
    } catch {
      return 0;
    }
  };
  let lo = base;
  let hi = 64 * MiB;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (planned(mid) >= points) hi = mid;
    else lo = mid;
  }
  expect(planned(hi), `a budget for chunks of ${points} points`).toBe(points);
  return hi;
}

/**
 * A maxMemory under which a pool's msmBytes of these inputs (window c) runs in chunks of at most `most` points, and
 * of more than half that: from the least budget (its RangeError names it) up in steps of 8 KiB, by running it (a
 * growing budget keeps the pool's threads; a smaller one than the pool holds would replace them).
 */
async function poolBudgetForChunks(pool, pointBytes, scalarBytes, window, most) {
  const chunkPoints = async (maxMemory) => {
    const t = {};
    await pool.msmBytes(pointBytes, scalarBytes, { window, maxMemory, timings: t });
    return t.chunkPoints;
  };
  // (the least budget's chunks are of one point: a few KiB more per point, and the scan starts above those)
  let budget = (await pool.msmBytes(pointBytes, scalarBytes, { window, maxMemory: 1 }).catch((e) => e)).need + 16384;
  while ((await chunkPoints(budget + 8192)) <= most) budget += 8192;
  expect(await chunkPoints(budget), `a pool budget for chunks of at most ${most} points`).toBeGreaterThan(most / 2);
  return budget;
}

/** The least maxMemory of any plan for n points (from the RangeError that names it). */
function leastBudget(g, n) {
  try {
    planMsm(g.params, n, { maxMemory: 1, base: g.exports.fp_heapBase.value });
  } catch (e) {
    return Number(/at least (\d+) bytes/.exec(e.message)[1]);
  }
  throw new Error('a 1-byte budget was accepted');
}

/** Source helpers: pieces of the given sizes in bytes (cycled), points and scalars cut independently. */
async function* pieces(pointBytes, scalarBytes, pointSizes, scalarSizes) {
  let a = 0;
  let b = 0;
  for (let i = 0; a < pointBytes.length || b < scalarBytes.length; i++) {
    const pa = Math.min(pointBytes.length - a, pointSizes[i % pointSizes.length]);
    const pb = Math.min(scalarBytes.length - b, scalarSizes[i % scalarSizes.length]);
    yield { points: pointBytes.subarray(a, a + pa), scalars: scalarBytes.subarray(b, b + pb) };
    a += pa;
    b += pb;
  }
}

const groupsOf = (curve) => [curve, curve.g2].filter(Boolean);

for (const name of WEIERSTRASS_CURVES) { // the Edwards curves: edwards.test.js
  describe(`memory: ${name}`, { timeout: 300_000 }, () => {
    const cases = []; // per group: { g, label, pointBytes, scalarBytes, n, expected (noble), oneShot }

    beforeAll(async () => {
      const curve = await loadCurve(name);
      for (const g of groupsOf(curve)) {
        const rng = makeRng(`memory ${name} ${g.group}`);
        const pool = g.randomPoints(200, { seed: 31 });
        const { points, scalars } = degenerateInput(g, negOracle(g), pool, rng);
        // 123 degenerate pairs, then random ones: 301 in all (not a power of two)
        for (let i = 0; points.length < 301; i++) {
          points.push(pool[(7 * i) % 200]);
          scalars.push(randomScalar(rng, g.r));
        }
        const pointBytes = encodePoints(g, points);
        const scalarBytes = scalarsToBytes(g.scalarBytes, scalars);
        const expected = show(await nobleMsm(g.params, pointBytes, scalarBytes));
        const oneShot = g.msmBytes(pointBytes, scalarBytes);
        expect(show(g.decodePoint(oneShot)), `${g.group}: one-shot msmBytes against noble`).toBe(expected);
        cases.push({ g, label: g.group, pointBytes, scalarBytes, n: points.length, expected, oneShot });
      }
    });

    it('msmBytes within maxMemory: chunks of 1 point (the least budget), 2, 7 and 64 points equal noble', () => {
      for (const { g, label, pointBytes, scalarBytes, n, expected } of cases) {
        const least = leastBudget(g, n);
        const timings = {};
        expect(show(g.decodePoint(g.msmBytes(pointBytes, scalarBytes, { maxMemory: least, timings }))), `${label}, least budget ${least}`).toBe(expected);
        expect(timings.chunkPoints, `${label}: the least budget runs one point per chunk`).toBe(1);
        expect(timings.chunks).toBe(n);
        expect(() => g.msmBytes(pointBytes, scalarBytes, { maxMemory: least - 1 }), `${label}: one byte less`).toThrow(RangeError);
        // what an unbudgeted call grew (the curve keeps up to RESIDENT_BYTES idle) is given back by a call whose
        // budget is below it: each call below stays within its own budget
        g.msmBytes(g.randomPointsBytes(4096, { seed: 5 }), g.randomScalarsBytes(4096, { seed: 6 }));
        expect(g.memory.buffer.byteLength, `${label}: the unbudgeted call grew the memory`).toBeGreaterThan(2 * budgetForChunk(g, n, 64, 5));
        for (const C of [2, 7, 64]) {
          const maxMemory = budgetForChunk(g, n, C, 5);
          const t = {};
          const got = show(g.decodePoint(g.msmBytes(pointBytes, scalarBytes, { maxMemory, window: 5, timings: t })));
          expect(got, `${label}: chunks of ${C}`).toBe(expected);
          expect([t.chunkPoints, t.chunks]).toEqual([C, Math.ceil(n / C)]);
          // the budget holds: the call ran in the curve's memory, which it grew no further than maxMemory
          expect(g.memory.buffer.byteLength, `${label}: chunks of ${C}: memory`).toBeLessThanOrEqual(maxMemory + 65536);
        }
      }
    });

    it('fewer points never need more: the least budget of n points runs 1, 2 and 3 of them (a larger window than theirs where theirs does not fit)', () => {
      for (const { g, label, pointBytes, scalarBytes, n } of cases) {
        const least = leastBudget(g, n);
        for (const k of [1, 2, 3]) {
          expect(leastBudget(g, k), `${label}: ${k} points`).toBeLessThanOrEqual(least);
          const [points, scalars] = [pointBytes.subarray(0, k * g.pointBytes), scalarBytes.subarray(0, k * g.scalarBytes)];
          expect(g.msmBytes(points, scalars, { maxMemory: least }), `${label}: ${k} points in ${least} bytes`).toEqual(g.msmBytes(points, scalars));
        }
      }
    });

    it('msmStream (pieces of odd sizes, of single pairs, larger than the input; two byte streams) and msmAccumulator equal noble', async () => {
      for (const { g, label, pointBytes, scalarBytes, n, expected } of cases) {
        const PB = g.pointBytes;
        const S = g.scalarBytes;
        const small = budgetForChunk(g, Infinity, 5, 4);
        const streams = [
          ['odd pieces, chunks of 5', pieces(pointBytes, scalarBytes, [PB * 3 + 5, 17, PB * 11 - 1], [S * 7 + 3, 5, S * 2]), { maxMemory: small, window: 4 }],
          ['one pair per piece', pieces(pointBytes, scalarBytes, [PB], [S]), {}],
          ['one piece larger than the input', [{ points: pointBytes, scalars: scalarBytes }, { points: new Uint8Array(0) }], { maxMemory: 2 * MiB }],
          ['points first, then scalars', [{ points: pointBytes }, { scalars: scalarBytes }], {}],
          ['two byte streams read in step', {
            points: new ReadableStream({ pull(c) { c.enqueue(pointBytes.slice(0, 1000)); c.enqueue(pointBytes.slice(1000)); c.close(); } }),
            scalars: [scalarBytes.subarray(0, 33), scalarBytes.subarray(33)],
          }, { maxMemory: small, window: 4 }],
        ];
        for (const [what, source, options] of streams) {
          const timings = {};
          expect(show(g.decodePoint(await g.msmStream(source, { ...options, timings }))), `${label}: ${what}`).toBe(expected);
          // its memory of its own grew no further than the budget (or the default working set)
          expect(timings.memoryBytes, `${label}: ${what}: memory`).toBeLessThanOrEqual((options.maxMemory ?? 256 * MiB) + 65536);
        }
        const acc = g.msmAccumulator({ maxMemory: small, window: 4 });
        for (let i = 0; i < n; i += 13) acc.add(pointBytes.subarray(i * PB, (i + 13) * PB), scalarBytes.subarray(i * S, (i + 13) * S));
        expect(acc.length).toBe(n);
        expect(show(g.decodePoint(acc.result())), `${label}: accumulator`).toBe(expected);
        expect(acc.memoryBytes).toBeLessThanOrEqual(small + 65536);
        expect(() => acc.add(pointBytes.subarray(0, PB), scalarBytes.subarray(0, S)), 'after result()').toThrow(/finished/);
        // a short stream chooses its window for what came, not for the long stream it might have been
        const t = {};
        await g.msmStream([{ points: pointBytes.subarray(0, 3 * PB), scalars: scalarBytes.subarray(0, 3 * S) }], { timings: t });
        expect(t.window).toBe(planMsm(g.params, 3).shape.c);
      }
    });

    for (const sharedMemory of [true, false]) {
      it(`a pool (${sharedMemory ? 'shared memory' : 'messages'}, 2 threads): msmBytes within maxMemory, msmStream and msmAccumulator equal noble`, async () => {
        for (const { g, label, pointBytes, scalarBytes, n, expected, oneShot } of cases) {
          const pool = await g.threads({ count: 2, sharedMemory });
          try {
            const PB = g.pointBytes;
            const S = g.scalarBytes;
            for (const maxMemory of [undefined, 600_000, 3 * MiB]) {
              const got = await pool.msmBytes(pointBytes, scalarBytes, { maxMemory });
              expect(show(g.decodePoint(got)), `${label}, maxMemory ${maxMemory}`).toBe(expected);
              expect(got).toEqual(oneShot);
            }
            const source = pieces(pointBytes, scalarBytes, [PB * 5 + 1, 3], [S * 9, 1]);
            expect(show(g.decodePoint(await pool.msmStream(source, { maxMemory: 3 * MiB }))), `${label}: stream`).toBe(expected);
            const acc = pool.msmAccumulator({ maxMemory: 3 * MiB });
            for (let i = 0; i < n; i += 50) await acc.add(pointBytes.subarray(i * PB, (i + 50) * PB), scalarBytes.subarray(i * S, (i + 50) * S));
            expect(show(g.decodePoint(await acc.result())), `${label}: accumulator`).toBe(expected);
          } finally {
            await pool.close();
          }
        }
      });
    }
  });
}

describe('memory: chunk boundaries, errors, aborts, giving memory back', { timeout: 300_000 }, () => {
  let curve;
  let oracle;
  let P;
  let Q;
  let R;

  beforeAll(async () => {
    curve = await loadCurve('bn254');
    oracle = makeCurve(curve.params);
    [P, Q, R] = curve.randomPoints(3, { seed: 41 });
  });

  const bytesOf = (points, scalars) => [pointsToBytes(curve.params.field.bytes, points), scalarsToBytes(curve.scalarBytes, scalars)];

  it('P in one chunk and -P in another; a bucket that sums to infinity, then gets points again; all-zero chunks', () => {
    const s = 0x1234567n;
    const negP = oracle.neg(P);
    // with chunks of 1, 2 and 3 points these fall in different chunks; the zeros fill chunks of their own
    const points = [P, null, R, R, R, R, negP, Q, null, R, R, R, P, P, negP];
    const scalars = [s, s, 0n, 0n, 0n, 0n, s, s, 0n, 0n, 0n, 0n, s, s, s];
    const want = oracle.msm(points, scalars);
    expect(show(want)).toBe(show(oracle.add(oracle.mul(Q, s), oracle.mul(P, s))));
    const [pb, sb] = bytesOf(points, scalars);
    for (const C of [1, 2, 3, 4, 15]) {
      for (const window of [2, 4, 9]) {
        const maxMemory = budgetForChunk(curve, points.length, C, window, scalarBitLength(sb, curve.scalarBytes));
        const t = {};
        expect(show(curve.decodePoint(curve.msmBytes(pb, sb, { maxMemory, window, timings: t }))), `chunks of ${C}, window ${window}`).toBe(show(want));
        expect(t.chunkPoints).toBe(C);
      }
    }
    // the same scalar on P and -P only, in different chunks: the sum is infinity
    const [pb2, sb2] = bytesOf([P, R, negP], [s, 0n, s]);
    expect(curve.decodePoint(curve.msmBytes(pb2, sb2, { maxMemory: budgetForChunk(curve, 3, 1, 4, scalarBitLength(sb2, curve.scalarBytes)), window: 4 }))).toBe(null);
  });

  it('a pool with shared memory over chunks (2, 3 and 5 threads): any thread claims any piece of a chunk and adds to its buckets of earlier chunks; a last chunk smaller than the rest; a stream of whole chunks reduced after the last', async () => {
    const sample = curve.randomPoints(64, { seed: 43 });
    const base = degenerateInput(curve, oracle, [...sample, ...sample, ...sample], makeRng('pool chunks'));
    // the negations of the first 60 with their scalars: P here, -P (and 2P, 0) some chunks later
    const points = [...base.points, ...base.points.slice(0, 60).map((pt) => oracle.neg(pt)), ...curve.randomPoints(90, { seed: 44 })];
    const scalars = [...base.scalars, ...base.scalars.slice(0, 60), ...base.scalars.slice(0, 90)];
    const n = points.length;
    const [pb, sb] = bytesOf(points, scalars);
    const want = show(await nobleMsm(curve.params, pb, sb));
    expect(show(curve.decodePoint(curve.msmBytes(pb, sb)))).toBe(want);
    const window = 5; // 26 windows of 16 buckets: many pieces to claim
    for (const count of [2, 3, 5]) {
      const threads = await curve.threads({ count, sharedMemory: true });
      try {
        const maxMemory = await poolBudgetForChunks(threads, pb, sb, window, Math.floor(n / 4));
        const t = {};
        expect(show(curve.decodePoint(await threads.msmBytes(pb, sb, { window, maxMemory, timings: t }))), `${count} threads`).toBe(want);
        expect(t.chunks, `${count} threads: chunks`).toBeGreaterThanOrEqual(3);
        expect(n % t.chunkPoints, `${count} threads: a smaller last chunk`).not.toBe(0);
        // a stream of exactly 3 of its chunks: each comes full, so the last is reduced after it ('reduce')
        const probe = {};
        await threads.msmStream([{ points: pb, scalars: sb }], { window, maxMemory, timings: probe });
        const m = 3 * probe.chunkPoints;
        expect(m, `${count} threads: three stream chunks fit the input`).toBeLessThanOrEqual(n);
        const ts = {};
        const PB = curve.pointBytes;
        const S = curve.scalarBytes;
        const streamed = await threads.msmStream([{ points: pb.subarray(0, m * PB), scalars: sb.subarray(0, m * S) }], { window, maxMemory, timings: ts });
        expect(ts.chunks, `${count} threads: stream chunks`).toBe(3);
        expect(show(curve.decodePoint(streamed)), `${count} threads: stream`).toBe(show(await nobleMsm(curve.params, pb.subarray(0, m * PB), sb.subarray(0, m * S))));
      } finally {
        await threads.close();
      }
    }
  });

  it('bad input names its index in the whole input: a bad point in the third chunk, a scalar >= r in a later piece, a stream that ends badly', async () => {
    const n = 40;
    const points = curve.randomPoints(n, { seed: 42 });
    const scalars = Array.from({ length: n }, (_, i) => BigInt(i + 1));
    const [pb, sb] = bytesOf(points, scalars);
    const PB = curve.pointBytes;
    const S = curve.scalarBytes;
    const offCurve = pb.slice();
    offCurve[27 * PB] ^= 1; // point 27: chunks of 10 put it in the third
    const maxMemory = budgetForChunk(curve, n, 10, 4);
    expect(() => curve.msmBytes(offCurve, sb, { maxMemory, window: 4 })).toThrow(/points\[27\]: point is not on the curve/);
    await expect(curve.msmStream(pieces(offCurve, sb, [PB * 10], [S * 10]), { maxMemory, window: 4 })).rejects.toThrow(/points\[27\]: point is not on the curve/);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        await expect(pool.msmBytes(offCurve, sb, { maxMemory: 2 * MiB })).rejects.toThrow(/points\[27\]/);
        await expect(pool.msmStream(pieces(offCurve, sb, [PB * 10], [S * 10]))).rejects.toThrow(/points\[27\]/);
        expect(curve.decodePoint(await pool.msmBytes(pb, sb))).toEqual(curve.msm(points, scalars)); // still usable
      } finally {
        await pool.close();
      }
    }
    const bigScalar = sb.slice();
    writeLE(curve.r, bigScalar, 33 * S, S);
    await expect(curve.msmStream(pieces(pb, bigScalar, [PB * 7], [S * 7]))).rejects.toThrow(/scalars\[33\] is not in \[0, r\)/);
    const acc = curve.msmAccumulator();
    expect(() => acc.add(pb, bigScalar)).toThrow(/scalars\[33\]/);
    await expect(curve.msmStream([{ points: pb.subarray(0, 5 * PB + 3), scalars: sb.subarray(0, 5 * S) }])).rejects.toThrow(/ended inside point 5: 3 of its 64 bytes/);
    await expect(curve.msmStream([{ points: pb.subarray(0, 5 * PB), scalars: sb.subarray(0, 6 * S) }])).rejects.toThrow(/5 points but 6 scalars/);
    await expect(curve.msmStream([{ points: pb.subarray(0, 5 * PB), scalars: sb.subarray(0, 5 * S - 1) }])).rejects.toThrow(/ended inside scalar 4/);
    await expect(curve.msmStream([{ points: 'x' }])).rejects.toThrow(TypeError);
    // chunks that would add nothing (bytes themselves, misspelt keys) are refused, not summed to infinity
    await expect(curve.msmStream([pb, sb])).rejects.toThrow(/^chunk 0 of the source must be \{ points, scalars \}.*, got Uint8Array of \d+ bytes/);
    await expect(curve.msmStream([{ point: pb, scalar: sb }])).rejects.toThrow(/^chunk 0 of the source must be \{ points, scalars \}.*keys \["point","scalar"\]/);
    await expect(curve.msmStream([{ points: pb.subarray(0, PB), scalars: sb.subarray(0, S) }, {}])).rejects.toThrow(/^chunk 1 of the source/);
    await expect(curve.msmStream(42)).rejects.toThrow(TypeError);
    // the curve is usable after each
    expect(curve.msmBytes(pb, sb)).toEqual(curve.msmBytes(pb, sb, { maxMemory }));
  });

  it('an abort mid-stream rejects with an AbortError at once; a stream that throws rejects with its error; curve and pool stay usable', async () => {
    const n = 600;
    const [pb, sb] = [curve.randomPointsBytes(n), curve.randomScalarsBytes(n)];
    const want = curve.msmBytes(pb, sb);
    const PB = curve.pointBytes;
    const S = curve.scalarBytes;
    const make = () => {
      const controller = new AbortController();
      let sent = 0;
      async function* source() {
        for (let i = 0; i < n; i += 100) {
          if (i === 300) {
            controller.abort();
            await new Promise(() => {}); // the source stalls: the abort must not wait for it
          }
          sent = i + 100;
          yield { points: pb.subarray(i * PB, (i + 100) * PB), scalars: sb.subarray(i * S, (i + 100) * S) };
        }
      }
      return { controller, source: source(), sent: () => sent };
    };
    const a = make();
    await expect(curve.msmStream(a.source, { signal: a.controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(a.sent()).toBe(300);
    async function* failing() {
      yield { points: pb.subarray(0, 10 * PB), scalars: sb.subarray(0, 10 * S) };
      throw new Error('the network went away');
    }
    await expect(curve.msmStream(failing())).rejects.toThrow('the network went away');
    expect(curve.msmBytes(pb, sb)).toEqual(want);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        const b = make();
        const t0 = performance.now();
        await expect(pool.msmStream(b.source, { signal: b.controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
        expect(performance.now() - t0).toBeLessThan(5000);
        await expect(pool.msmStream(failing())).rejects.toThrow('the network went away');
        await expect(pool.msmStream([pb, sb])).rejects.toThrow(/^chunk 0 of the source must be \{ points, scalars \}/);
        expect(await pool.msmBytes(pb, sb)).toEqual(want);
        expect(await pool.msmStream([{ points: pb, scalars: sb }])).toEqual(want);
      } finally {
        await pool.close();
      }
    }
  });

  it('options are checked: unknown names (every options object), maxMemory types, a budget too small names the least, signal only where calls are asynchronous', async () => {
    const [pb, sb] = bytesOf([P, Q], [3n, 5n]);
    expect(() => curve.msmBytes(pb, sb, { maxMemroy: 1e6 })).toThrow(/unknown option "maxMemroy"/);
    expect(() => curve.msm([P], [1n], { windows: 3 })).toThrow(TypeError);
    for (const bad of ['64', -1, 0, NaN, Infinity, 10n]) expect(() => curve.msmBytes(pb, sb, { maxMemory: bad }), String(bad)).toThrow(TypeError);
    expect(() => curve.msmBytes(pb, sb, { maxMemory: 1000 })).toThrow(/too small for this MSM: it needs at least \d+ bytes/);
    expect(() => curve.msmBytes(pb, sb, { signal: new AbortController().signal })).toThrow(/asynchronous/);
    await expect(curve.msmStream([], { onProgress: () => {} })).rejects.toThrow(/onProgress/);
    await expect(curve.msmStream([], { maxMemory: 1000 })).rejects.toThrow(/too small/);
    expect(() => curve.msmAccumulator({ signal: new AbortController().signal })).toThrow(/free\(\)/);
    const bases = curve.prepareBases(pb);
    expect(() => bases.msmBytes(sb, { maxMemory: 1e6 })).toThrow(/does not apply to prepared bases/);
    // a window that is not an integer says so (a NaN was "needs at least Infinity bytes")
    for (const window of [NaN, 2.5, '5']) {
      expect(() => curve.msmBytes(pb, sb, { window }), String(window)).toThrow(`window must be an integer in 2..24, got ${window}`);
      await expect(curve.msmStream([], { window })).rejects.toThrow(`window must be an integer in 2..24, got ${window}`);
      expect(() => curve.msmAccumulator({ window })).toThrow(`window must be an integer in 2..24, got ${window}`);
    }
    const pool = await curve.threads({ count: 2 });
    try {
      await expect(pool.msmBytes(pb, sb, { maxMemroy: 1 })).rejects.toThrow(/unknown option/);
      await expect(pool.msmBytes(pb, sb, { maxMemory: 1000 })).rejects.toThrow(/too small/);
      await expect(pool.msmStream([], { window: NaN })).rejects.toThrow('window must be an integer in 2..24, got NaN');
    } finally {
      await pool.close();
    }
    // the least budget a "too small" error names works, and a byte less does not: on both pool paths (the message
    // path's threads each get maxMemory / T: it named the least for one thread), with and without a window
    const [pb2, sb2] = [curve.randomPointsBytes(40, { seed: 51 }), curve.randomScalarsBytes(40, { seed: 52 })];
    const want = curve.msmBytes(pb2, sb2);
    for (const sharedMemory of [true, false]) {
      const pool2 = await curve.threads({ count: 2, sharedMemory });
      try {
        for (const window of [undefined, 5]) {
          const calls = {
            msmBytes: (maxMemory) => pool2.msmBytes(pb2, sb2, { maxMemory, window }),
            msmStream: (maxMemory) => pool2.msmStream([{ points: pb2, scalars: sb2 }], { maxMemory, window }),
          };
          for (const [name, call] of Object.entries(calls)) {
            const what = `sharedMemory ${sharedMemory}, window ${window}, ${name}`;
            const least = await call(1000).then(() => null, (e) => Number(/at least (\d+) bytes/.exec(e.message)?.[1]));
            expect(least, what).toBeGreaterThan(1000);
            expect(await call(least), what).toEqual(want);
            await expect(call(least - 1), what).rejects.toThrow(`at least ${least} bytes`);
          }
        }
      } finally {
        await pool2.close();
      }
    }
    // threads whose slices need different amounts (a full scalar in one, a small one in the other, message path):
    // the least named is the most any of them needs, and it works
    const mixed = curve.randomScalarsBytes(2, { seed: 53 });
    mixed.fill(0, 1, curve.scalarBytes);
    const pool3 = await curve.threads({ count: 2, sharedMemory: false });
    try {
      const least = await pool3.msmBytes(pb2.subarray(0, 2 * curve.pointBytes), mixed, { maxMemory: 1 }).then(() => null, (e) => Number(/at least (\d+) bytes/.exec(e.message)?.[1]));
      expect(await pool3.msmBytes(pb2.subarray(0, 2 * curve.pointBytes), mixed, { maxMemory: least })).toEqual(curve.msmBytes(pb2.subarray(0, 2 * curve.pointBytes), mixed));
    } finally {
      await pool3.close();
    }
    // no maxMemory, a window whose buckets pass the default working set: the error says so (not "maxMemory undefined")
    await expect(curve.msmStream([{ points: pb2, scalars: sb2 }], { window: 20 })).rejects.toThrow(/^the default working set \(no maxMemory given\) is too small for this MSM/);
    await expect(curve.threads({ count: 2, shared: true })).rejects.toThrow(/unknown option "shared"/);
    // every other options object too: a misspelt name is never ignored
    await expect(loadCurve('bn254', { kernal: 'int' })).rejects.toThrow(/unknown option "kernal" in load options/);
    expect(() => curve.prepareBases(pb, { precomute: true })).toThrow(/unknown option "precomute" in prepareBases options/);
    expect(() => curve.decodePoints(pb, 'native', { checkSubgrup: true })).toThrow(/unknown option "checkSubgrup"/);
    expect(() => curve.randomPoints(3, { sed: 1 })).toThrow(/unknown option "sed"/);
    expect(() => curve.randomScalarsBytes(3, { sed: 1 })).toThrow(/unknown option "sed"/);
    // n = 0 streams and accumulators: infinity
    expect(curve.decodePoint(await curve.msmStream([]))).toBe(null);
    expect(curve.decodePoint(curve.msmAccumulator().result())).toBe(null);
  });

  it('memory goes back: trim() (curve, g2, pools on both paths, prepared bases kept), and by itself when idle', async () => {
    const bls = await loadCurve('bls12-381');
    const n = 1 << 15;
    const [pb, sb] = [bls.randomPointsBytes(n), bls.randomScalarsBytes(n)];
    const want = bls.msmBytes(pb, sb);
    expect(bls.memory.buffer.byteLength, 'an unbounded 2^15 MSM grows the memory past RESIDENT_BYTES').toBeGreaterThan(RESIDENT_BYTES);
    const g2Before = bls.g2.msmBytes(bls.g2.randomPointsBytes(3), bls.g2.randomScalarsBytes(3));
    bls.trim();
    expect(bls.memory.buffer.byteLength).toBeLessThanOrEqual(MiB);
    expect(bls.g2.memory).toBe(bls.memory); // G2 moved with it
    expect(bls.g2.msmBytes(bls.g2.randomPointsBytes(3), bls.g2.randomScalarsBytes(3))).toEqual(g2Before);
    expect(bls.msmBytes(pb, sb)).toEqual(want);
    await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_MS + 300));
    expect(bls.memory.buffer.byteLength, 'released by itself after RELEASE_AFTER_MS idle').toBeLessThanOrEqual(MiB);
    // a budgeted call in a small memory: the memory stays within the budget
    bls.msmBytes(pb, sb, { maxMemory: 8 * MiB });
    expect(bls.memory.buffer.byteLength).toBeLessThanOrEqual(8 * MiB + 65536);

    for (const sharedMemory of [true, false]) {
      const pool = await bls.threads({ count: 2, sharedMemory });
      try {
        const bases = await pool.prepareBases(pb.subarray(0, 1000 * bls.pointBytes), { precompute: true });
        const prepared = await bases.msmBytes(sb.subarray(0, 1000 * bls.scalarBytes));
        const small = pool.memoryBytes;
        expect(await pool.msmBytes(pb, sb)).toEqual(want);
        const grown = pool.memoryBytes;
        expect(grown, 'the pool grew for the MSM').toBeGreaterThan(small + 8 * MiB);
        await pool.trim();
        expect(pool.memoryBytes, 'trim gives back what the MSM grew').toBeLessThan(small + 2 * MiB);
        expect(await bases.msmBytes(sb.subarray(0, 1000 * bls.scalarBytes)), 'prepared bases survive trim').toEqual(prepared);
        expect(await pool.msmBytes(pb, sb)).toEqual(want);
        await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_MS + 500));
        expect(pool.memoryBytes, 'released by itself when idle').toBeLessThan(small + 2 * MiB);
        expect(await bases.msmBytes(sb.subarray(0, 1000 * bls.scalarBytes))).toEqual(prepared);
        await bases.free();
      } finally {
        await pool.close();
      }
    }
  });

  it('releaseAfterMs: how long an idle pool keeps what a call grew (Infinity: until trim()); bad values are RangeErrors', async () => {
    const bls = await loadCurve('bls12-381');
    const n = 1 << 15;
    const [pb, sb] = [bls.randomPointsBytes(n, { seed: 5 }), bls.randomScalarsBytes(n, { seed: 6 })];
    const want = bls.msmBytes(pb, sb);
    for (const bad of [-1, NaN, '5', 2 ** 31, null]) {
      await expect(bls.threads({ count: 2, releaseAfterMs: bad }), String(bad)).rejects.toThrow(/releaseAfterMs must be milliseconds/);
    }
    for (const sharedMemory of [true, false]) {
      const kept = await bls.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      const soon = await bls.threads({ count: 2, sharedMemory, releaseAfterMs: 200 });
      try {
        const small = [kept.memoryBytes, soon.memoryBytes];
        expect(await kept.msmBytes(pb, sb)).toEqual(want);
        expect(await soon.msmBytes(pb, sb)).toEqual(want);
        const grown = kept.memoryBytes;
        expect(grown, `shared ${sharedMemory}: the pool grew for the MSM`).toBeGreaterThan(small[0] + 8 * MiB);
        await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_MS + 500));
        expect(kept.memoryBytes, `shared ${sharedMemory}: Infinity keeps it`).toBe(grown);
        expect(soon.memoryBytes, `shared ${sharedMemory}: 200 ms gives it back`).toBeLessThan(small[1] + 2 * MiB);
        await kept.trim();
        expect(kept.memoryBytes, `shared ${sharedMemory}: trim() still gives it back`).toBeLessThan(small[0] + 2 * MiB);
        expect(await kept.msmBytes(pb, sb)).toEqual(want);
      } finally {
        await Promise.all([kept.close(), soon.close()]);
      }
    }
  });

  it.skipIf(!LONG_TESTS)('past 2^32 bytes of input (WASMSM_LONG_TESTS): a stream of 65 x 64 MiB of points, on one thread and on pools', async () => {
    // the same 2^20 points 65 times (4.06 GiB of points, 2^26 pairs), scalars zero but for the first 1024 of each
    // round: counts, offsets and indices past 2^32 bytes, in bounded memory; the sum is 65 times one round's
    const n = 1 << 20;
    const rounds = 65;
    const pointBytes = curve.randomPointsBytes(n, { seed: 43 });
    const scalarBytes = new Uint8Array(n * curve.scalarBytes);
    scalarBytes.set(curve.randomScalarsBytes(1024, { seed: 44 }));
    const one = curve.decodePoint(curve.msmBytes(pointBytes, scalarBytes));
    const want = curve.msm([one], [BigInt(rounds)]);
    const source = function* () {
      for (let r = 0; r < rounds; r++) yield { points: pointBytes, scalars: scalarBytes };
    };
    expect(rounds * pointBytes.length).toBeGreaterThan(2 ** 32);
    const timings = {};
    expect(curve.decodePoint(await curve.msmStream(source(), { maxMemory: 64 * MiB, timings }))).toEqual(want);
    expect(timings.chunks * timings.chunkPoints).toBeGreaterThanOrEqual(rounds * n);
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        expect(curve.decodePoint(await pool.msmStream(source(), { maxMemory: 128 * MiB }))).toEqual(want);
      } finally {
        await pool.close();
      }
    }
  }, 3_600_000);

  it('the message path sends a large input a batch at a time (no slice copied whole): the same result, within maxMemory', async () => {
    const n = 2 * 2 ** 18 + 5; // past 2^18 points a thread: batches of 2^16 per thread
    const [pb, sb] = [curve.randomPointsBytes(n, { seed: 45 }), curve.randomScalarsBytes(n, { seed: 46 })];
    const want = curve.msmBytes(pb, sb, { maxMemory: 64 * MiB });
    const pool = await curve.threads({ count: 2, sharedMemory: false });
    try {
      const progress = [];
      expect(await pool.msmBytes(pb, sb, { onProgress: (f) => progress.push(f) })).toEqual(want);
      expect(progress.length).toBeGreaterThan(4);
      expect(progress.at(-1)).toBe(1);
      expect(await pool.msmBytes(pb, sb, { maxMemory: 16 * MiB })).toEqual(want);
      expect(pool.memoryBytes).toBeLessThanOrEqual(16 * MiB + 2 * 65536);
    } finally {
      await pool.close();
    }
  });

  it('a stream grows its memory from what has arrived, not to its budget: a short one costs about what msmBytes does (G1, G2, both pool paths)', async () => {
    // issue #37: 256 points with maxMemory 4 GiB grew 2963 MiB; 16 points without a budget 170 MiB (msmBytes: 1.3 MiB)
    const bls = await loadCurve('bls12-381');
    for (const g of [curve, bls.g2]) {
      for (const n of [16, 1500]) {
        const [pb, sb] = [g.randomPointsBytes(n, { seed: 47 }), g.randomScalarsBytes(n, { seed: 48 })];
        const want = g.msmBytes(pb, sb);
        // what msmBytes of these points grows a fresh instance to (an accumulator's own instance starts as fresh)
        const fresh = withHeap(instantiateSync(g.module, { minPages: g.params.minPages, group: g.params.group }), g.params);
        expect(msmBytesOn(fresh, pb, sb, n)).toEqual(want);
        const bound = 2 * fresh.memory.buffer.byteLength + 2 * MiB;
        for (const maxMemory of [undefined, 2 ** 32]) {
          const timings = {};
          expect(await g.msmStream([{ points: pb, scalars: sb }], { maxMemory, timings })).toEqual(want);
          expect(timings.memoryBytes, `${g.group} ${n} points, maxMemory ${maxMemory}`).toBeLessThanOrEqual(bound);
          const acc = g.msmAccumulator({ maxMemory });
          acc.add(pb, sb);
          expect(acc.result()).toEqual(want);
          expect(acc.memoryBytes).toBeLessThanOrEqual(bound);
        }
      }
    }
    for (const sharedMemory of [true, false]) {
      const pool = await curve.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity });
      try {
        const n = 256;
        const [pb, sb] = [curve.randomPointsBytes(n, { seed: 49 }), curve.randomScalarsBytes(n, { seed: 50 })];
        const want = await pool.msmBytes(pb, sb);
        const bound = 2 * pool.memoryBytes + 2 * MiB;
        for (const maxMemory of [undefined, 2 ** 32]) {
          await pool.trim();
          expect(await pool.msmStream([{ points: pb, scalars: sb }], { maxMemory })).toEqual(want);
          expect(pool.memoryBytes, `sharedMemory ${sharedMemory}, maxMemory ${maxMemory}`).toBeLessThanOrEqual(bound);
        }
      } finally {
        await pool.close();
      }
    }
  });

  it('an engine that will not grow the memory: the MSM runs in chunks that fit what it gave; with maxMemory it is a RangeError', () => {
    const bls = curve; // bn254
    const n = 1 << 14;
    const [pb, sb] = [bls.randomPointsBytes(n), bls.randomScalarsBytes(n)];
    const want = bls.msmBytes(pb, sb);
    const P0 = bls.params;
    // a memory that stops at 4 MiB stands for an engine that refuses to grow
    const capped = () => withHeap(instantiateSync(bls.module, { memory: new WebAssembly.Memory({ initial: P0.minPages, maximum: 64 }) }), P0);
    const t = {};
    const instance = capped();
    expect(msmBytesOn(instance, pb, sb, n, { timings: t })).toEqual(want);
    expect(t.chunks).toBeGreaterThan(1);
    expect(instance.memory.buffer.byteLength).toBeLessThanOrEqual(4 * MiB);
    expect(() => msmBytesOn(capped(), pb, sb, n, { maxMemory: 64 * MiB })).toThrow(/out of Wasm memory/);
  });

  it('a heap refuses a size that is negative or not a number (it would move its top down over live data)', () => {
    const heap = new Heap(new WebAssembly.Memory({ initial: 1 }), 1024);
    const at = heap.alloc(64);
    for (const bytes of [-8, NaN, undefined]) expect(() => heap.alloc(bytes), String(bytes)).toThrow(RangeError);
    expect(heap.mark()).toBe(at + 64);
    expect(heap.alloc(0)).toBe(at + 64);
  });
});

describe('points in a format to decode, within a small budget', { timeout: 120_000 }, () => {
  it('compressed BLS12-381 points stream in a budget native points fit: decoded fewer at a time (sync, accumulator, both pool paths)', async () => {
    const bls = await loadCurve('bls12-381');
    const n = 300;
    const [native, scalars] = [bls.randomPointsBytes(n, { seed: 61 }), bls.randomScalarsBytes(n, { seed: 62 })];
    const compressed = bls.encodePoint(native, 'zcash-compressed');
    const want = bls.msmBytes(native, scalars);
    const options = { pointFormat: 'zcash-compressed', resultFormat: 'native' };
    // a decode batch of 4096 compressed points takes about 1 MiB of scratch; these budgets are a fifth of that
    expect(await bls.msmStream([{ points: compressed, scalars }], { ...options, maxMemory: 200_000 })).toEqual(want);
    const acc = bls.msmAccumulator({ ...options, maxMemory: 200_000 });
    acc.add(compressed.subarray(0, 100 * 48), scalars.subarray(0, 100 * 32));
    acc.add(compressed.subarray(100 * 48), scalars.subarray(100 * 32));
    expect(acc.result()).toEqual(want);
    for (const sharedMemory of [false, true]) {
      const pool = await bls.threads({ count: 2, sharedMemory });
      try {
        expect(await pool.msmStream([{ points: compressed, scalars }], { ...options, maxMemory: 400_000 }), `sharedMemory ${sharedMemory}`).toEqual(want);
      } finally {
        await pool.close();
      }
    }
  });

  it('a pool with shared memory counts the memories its threads decode in (outside the budget) and gives them back at trim()', async () => {
    const bls = await loadCurve('bls12-381');
    const n = 8192;
    const [native, scalars] = [bls.randomPointsBytes(n, { seed: 63 }), bls.randomScalarsBytes(n, { seed: 64 })];
    const compressed = bls.encodePoint(native, 'zcash-compressed');
    const want = bls.msmBytes(native, scalars);
    const pool = await bls.threads({ count: 2, sharedMemory: true });
    try {
      const fresh = pool.memoryBytes;
      const options = { pointFormat: 'zcash-compressed', resultFormat: 'native', maxMemory: 4 * MiB };
      expect(await pool.msmBytes(compressed, scalars, options)).toEqual(want);
      // the shared memory within the budget, and each thread's decoding memory (4096 points a batch: about 1 MiB) on top
      expect(pool.memoryBytes, 'the decoding memories counted').toBeGreaterThan(options.maxMemory + 65536);
      await pool.trim();
      expect(pool.memoryBytes, 'trim gives them back').toBeLessThanOrEqual(fresh);
      expect(await pool.msmStream([{ points: compressed, scalars }], options)).toEqual(want);
      expect(pool.memoryBytes).toBeGreaterThan(options.maxMemory + 65536);
    } finally {
      await pool.close();
    }
  });
});
