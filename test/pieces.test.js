// The caller's buffers (issue #37): once acc.add() returns (sync or a pool's), and once a stream asks its source for
// the next chunk, the caller may reuse or transfer the bytes it gave: what waits for its other half is copied (a
// pool's add copies the piece). Each case reuses one buffer, overwriting it after every add, or transfers it, and compares the sum
// with msmBytes of the same input. Then a property test: random sequences of adds with random piece sizes (cut
// inside points and scalars, points and scalars out of step), buffers reused or transferred, random budgets, on G1,
// G2 and both pool paths, every result against msmBytes (a short run here; WASMSM_LONG_TESTS=1 runs a long one).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadCurve } from '../index.js';
import { makeRng } from '../src/bigint/curve.js';
import { LONG_TESTS } from './harness.js';

/** A buffer's bytes gone from the caller: transferred away (detached) as postMessage would. */
const transfer = (bytes) => structuredClone(bytes.buffer, { transfer: [bytes.buffer] });

describe('the caller may reuse or transfer its buffers once add() returns', { timeout: 120_000 }, () => {
  let bn;
  let bls;
  const pools = [];

  beforeAll(async () => {
    bn = await loadCurve('bn254');
    bls = await loadCurve('bls12-381');
    for (const sharedMemory of [true, false]) pools.push(await bn.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity }));
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
  });

  const inputs = (g, n, seed) => ({ points: g.randomPointsBytes(n, { seed }), scalars: g.randomScalarsBytes(n, { seed: seed + 1 }) });

  it('sync accumulator (G1, G2): points that wait for their scalars, and scalars split across adds, from one reused buffer', () => {
    for (const g of [bn, bls.g2]) {
      const { points, scalars } = inputs(g, 40, 61);
      const want = g.msmBytes(points, scalars);
      const PB = 2 * g.params.field.bytes;
      const acc = g.msmAccumulator();
      const buffer = new Uint8Array(3 * PB + 5);
      // all the points first, in pieces cut inside points, each from the same buffer, overwritten after add()
      for (let at = 0; at < points.length; at += buffer.length) {
        const piece = points.subarray(at, at + buffer.length);
        buffer.set(piece);
        acc.add(buffer.subarray(0, piece.length));
        buffer.fill(0xa5);
      }
      // then the scalars, 7 bytes at a time
      for (let at = 0; at < scalars.length; at += 7) {
        buffer.set(scalars.subarray(at, at + 7));
        acc.add(undefined, buffer.subarray(0, Math.min(7, scalars.length - at)));
        buffer.fill(0x5a);
      }
      expect(acc.result()).toEqual(want);
    }
  });

  it('sync accumulator: a piece transferred after add()', () => {
    const { points, scalars } = inputs(bn, 20, 63);
    const acc = bn.msmAccumulator();
    const p = points.slice(0, 100);
    const s = scalars.slice(0, 50);
    acc.add(p, s);
    transfer(p);
    transfer(s);
    acc.add(points.slice(100), scalars.slice(50));
    expect(acc.result()).toEqual(bn.msmBytes(points, scalars));
  });

  it('msmStream (curve and pools) over a generator that reuses its buffer, points or scalars or both', async () => {
    const { points, scalars } = inputs(bn, 50, 65);
    const want = bn.msmBytes(points, scalars);
    function* reusing(reusePoints, reuseScalars) {
      const pbuf = new Uint8Array(150);
      const sbuf = new Uint8Array(70);
      for (let p = 0, s = 0; p < points.length || s < scalars.length; p += 150, s += 70) {
        const pp = points.subarray(p, p + 150);
        const ss = scalars.subarray(s, s + 70);
        const chunk = {
          points: reusePoints ? (pbuf.set(pp), pbuf.subarray(0, pp.length)) : pp.slice(),
          scalars: reuseScalars ? (sbuf.set(ss), sbuf.subarray(0, ss.length)) : ss.slice(),
        };
        yield chunk;
        // the stream asked for the next chunk: scribble on what it was given
        pbuf.fill(0x33);
        sbuf.fill(0x77);
      }
    }
    for (const [rp, rs] of [[true, false], [false, true], [true, true]]) {
      expect(await bn.msmStream(reusing(rp, rs)), `points ${rp}, scalars ${rs}`).toEqual(want);
      for (const pool of pools) expect(await pool.msmStream(reusing(rp, rs)), `pool ${pool.sharedMemory}`).toEqual(want);
    }
  });

  it('pool accumulator (both paths): after add(), awaited or not, the buffer is overwritten or transferred', async () => {
    const { points, scalars } = inputs(bn, 30, 67);
    const want = bn.msmBytes(points, scalars);
    for (const pool of pools) {
      const acc = pool.msmAccumulator();
      const buffer = new Uint8Array(200);
      for (let at = 0; at < points.length; at += 200) {
        buffer.set(points.subarray(at, at + 200));
        await acc.add(buffer.subarray(0, Math.min(200, points.length - at)));
        buffer.fill(0x11);
      }
      for (let at = 0; at < scalars.length; at += 100) {
        const piece = scalars.slice(at, at + 100);
        const added = acc.add(undefined, piece);
        transfer(piece); // before the pool has taken it
        await added;
      }
      expect(await acc.result(), `sharedMemory ${pool.sharedMemory}`).toEqual(want);
    }
  });

  it('msmStream over two byte streams that each refill one buffer', async () => {
    const { points, scalars } = inputs(bn, 50, 71);
    const want = bn.msmBytes(points, scalars);
    function* refilling(bytes, size) {
      const buffer = new Uint8Array(size);
      for (let at = 0; at < bytes.length; at += size) {
        const piece = bytes.subarray(at, at + size);
        buffer.set(piece);
        yield buffer.subarray(0, piece.length);
        buffer.fill(0x99);
      }
    }
    const source = () => ({ points: refilling(points, 333), scalars: refilling(scalars, 77) });
    expect(await bn.msmStream(source())).toEqual(want);
    for (const pool of pools) expect(await pool.msmStream(source()), `pool ${pool.sharedMemory}`).toEqual(want);
  });

  it('pool prepared bases keep their own copy: the points overwritten after prepareBases resolves, a thread replaced', async () => {
    const { points, scalars } = inputs(bn, 64, 73);
    const want = bn.msmBytes(points, scalars);
    for (const pool of pools) {
      const bytes = points.slice();
      const bases = await pool.prepareBases(bytes);
      bytes.fill(0x42);
      expect(await bases.msmBytes(scalars), `sharedMemory ${pool.sharedMemory}`).toEqual(want);
      // a replaced thread rebuilds its slice (message path) from the pool's copy, not the caller's array
      pool.killThreadForTesting(1);
      // the call that finds the thread dead may fail with it; the pool replaces it for the next
      const first = await bases.msmBytes(scalars).catch((e) => e);
      if (first instanceof Error) expect(first.message).toMatch(/wasmsm thread 1/);
      else expect(first).toEqual(want);
      expect(await bases.msmBytes(scalars), `sharedMemory ${pool.sharedMemory}, a thread replaced`).toEqual(want);
      await bases.free();
    }
  });

  it('pool accumulator: a piece that is not Uint8Arrays rejects at add() (as the sync form throws), and result() with it', async () => {
    for (const pool of pools) {
      const acc = pool.msmAccumulator();
      const add = acc.add(new Uint16Array(32));
      await expect(add).rejects.toThrow(TypeError);
      await expect(add).rejects.toThrow('add().points must be a Uint8Array (or absent)');
      await expect(acc.result()).rejects.toThrow('add().points must be a Uint8Array (or absent)');
      await expect(acc.add(new Uint8Array(64))).rejects.toThrow(/finished/);
      // the pool is usable afterwards
      const { points, scalars } = inputs(bn, 3, 69);
      expect(await pool.msmBytes(points, scalars)).toEqual(bn.msmBytes(points, scalars));
    }
    expect(() => bn.msmAccumulator().add(new Uint16Array(32))).toThrow('add().points must be a Uint8Array (or absent)');
  });

  it('an add() with neither array adds nothing (sync and pool); after a failed add() the sync accumulator throws that error again', async () => {
    const { points, scalars } = inputs(bn, 6, 73);
    const want = bn.msmBytes(points, scalars);
    const half = (bytes, size) => [bytes.subarray(0, 3 * size), bytes.subarray(3 * size)];
    const [p0, p1] = half(points, bn.pointBytes);
    const [s0, s1] = half(scalars, bn.scalarBytes);
    for (const pool of pools) {
      const acc = pool.msmAccumulator();
      await acc.add(p0, s0);
      await acc.add();
      await acc.add(undefined, undefined);
      await acc.add(null, null);
      await acc.add(p1, s1);
      expect(await acc.result(), `shared ${pool.sharedMemory}`).toEqual(want);
    }
    const acc = bn.msmAccumulator();
    acc.add();
    acc.add(points, scalars);
    expect(acc.result()).toEqual(want);
    const failed = bn.msmAccumulator();
    failed.add(p0, s0);
    expect(() => failed.add(new Uint16Array(32))).toThrow('add().points must be a Uint8Array (or absent)');
    expect(() => failed.result()).toThrow('add().points must be a Uint8Array (or absent)');
    expect(() => failed.add(p1, s1)).toThrow('add().points must be a Uint8Array (or absent)');
  });

  it('pool.msmBytes: an input transferred while the call waits for its turn is the library\'s TypeError', async () => {
    for (const pool of pools) {
      const busy = inputs(bn, 500, 77);
      const late = inputs(bn, 10, 78);
      const first = pool.msmBytes(busy.points, busy.scalars);
      const queued = pool.msmBytes(late.points, late.scalars);
      structuredClone(late.points.buffer, { transfer: [late.points.buffer] });
      expect(await first).toEqual(bn.msmBytes(busy.points, busy.scalars));
      await expect(queued, `shared ${pool.sharedMemory}`).rejects.toThrow(/^pointBytes is a view of a detached ArrayBuffer/);
    }
  });

  it('a stream with a bad point and a later problem names the bad point on every path, as the curve\'s stream does', async () => {
    const n = 1000;
    const { points, scalars } = inputs(bn, n, 79);
    const [PB, S] = [bn.pointBytes, bn.scalarBytes];
    const badAt = (i) => {
      const out = points.slice();
      out[i * PB] ^= 1; // off the curve
      return out;
    };
    const p3 = badAt(3);
    const shortOne = () => [{ points: p3, scalars: scalars.subarray(0, (n - 1) * S) }]; // and one scalar short
    const p0 = badAt(0);
    const s999 = scalars.slice().fill(0xff, 999 * S); // and scalars[999] >= r, in the next chunk
    const laterScalar = () => [{ points: p0.subarray(0, 500 * PB), scalars: s999.subarray(0, 500 * S) }, { points: p0.subarray(500 * PB), scalars: s999.subarray(500 * S) }];
    for (const run of [(source) => bn.msmStream(source), ...pools.map((pool) => (source) => pool.msmStream(source))]) {
      await expect(run(shortOne())).rejects.toThrow(/^points\[3\]: point is not on the curve$/);
      await expect(run(laterScalar())).rejects.toThrow(/^points\[0\]: point is not on the curve$/);
    }
  });

  it('a locked ReadableStream as one side of { points, scalars } is refused with its own error, not as a wrong type', async () => {
    const { points, scalars } = inputs(bn, 4, 75);
    const lockedStream = () => {
      const stream = new ReadableStream({ start: (c) => (c.enqueue(scalars), c.close()) });
      stream.getReader();
      return stream;
    };
    await expect(bn.msmStream({ points, scalars: lockedStream() })).rejects.toThrow(/locked/);
    for (const pool of pools) await expect(pool.msmStream({ points, scalars: lockedStream() })).rejects.toThrow(/locked/);
    await expect(bn.msmStream({ points, scalars: 5 })).rejects.toThrow(/^source\.scalars must be a ReadableStream or an iterable of Uint8Array chunks, or a Uint8Array$/);
    await expect(bn.msmStream({ points, scalars: { points } })).rejects.toThrow(/^source\.scalars must be a ReadableStream/);
  });

  it('close() while a stream waits on its source: the stream rejects at once, and the call queued behind it', async () => {
    const { points, scalars } = inputs(bn, 10, 71);
    for (const sharedMemory of [true, false]) {
      const pool = await bn.threads({ count: 2, sharedMemory });
      let resume;
      const gate = new Promise((resolve) => (resume = resolve));
      async function* source() {
        yield { points: points.subarray(0, 5 * bn.pointBytes), scalars: scalars.subarray(0, 5 * bn.scalarBytes) };
        await gate; // a source that stalls (a network stream, say)
        yield { points: points.subarray(5 * bn.pointBytes), scalars: scalars.subarray(5 * bn.scalarBytes) };
      }
      const stream = pool.msmStream(source()).then(() => 'resolved', (e) => e.message);
      const queued = pool.msmBytes(points, scalars).then(() => 'resolved', (e) => e.message);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await pool.close();
      const settled = await Promise.race([Promise.all([stream, queued]), new Promise((resolve) => setTimeout(() => resolve('still pending'), 2000))]);
      resume();
      expect(settled, `sharedMemory ${sharedMemory}`).toEqual(['the thread pool is closed', 'the thread pool is closed']);
    }
  });

  it('pool accumulator: a caller\'s signal keeps no listener of a finished or freed accumulator', async () => {
    const { getEventListeners } = await import('node:events');
    const { points, scalars } = inputs(bn, 5, 70);
    for (const pool of pools) {
      const signal = new AbortController().signal;
      for (let i = 0; i < 3; i++) {
        const acc = pool.msmAccumulator({ signal });
        await acc.add(points, scalars);
        expect(await acc.result()).toEqual(bn.msmBytes(points, scalars));
        await pool.msmAccumulator({ signal }).free();
      }
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    }
  });
});

/**
 * One random run: n pairs fed in random pieces (points and scalars cut independently, each piece 0 to ~3 records
 * and a few bytes), from buffers that are reused (overwritten after each add) or transferred, or fresh; a random
 * budget. `kind`: 'sync' (g.msmAccumulator), 'stream' (g.msmStream over a generator), 'pool' (pool.msmAccumulator),
 * 'pool-stream'. Returns [result, msmBytes of the same input, a description].
 */
async function randomRun(rng, g, kind, pool, material, least) {
  const PB = 2 * g.params.field.bytes;
  const S = g.scalarBytes;
  // a few pairs, up to 200, or up to all (past FIRST_CHUNK_POINTS: a stream's first chunk grows as pairs come)
  const n = [rng.int(0, 8), rng.int(0, Math.min(200, material.n)), rng.int(0, material.n)][rng.int(0, 2)];
  const first = rng.int(0, material.n - n);
  const points = material.points.slice(first * PB, (first + n) * PB);
  const scalars = material.scalars.slice(first * S, (first + n) * S);
  // some zero scalars, some runs of equal points: buckets that cancel or double across pieces
  for (let i = 0; i < n; i++) if (rng.int(0, 9) === 0) scalars.fill(0, i * S, (i + 1) * S);
  // none, 4 GiB and more than 2 GiB (the memory grows with what comes, not to these), and from the least that runs
  // (one point per chunk) to a few times it: chunks of 1 to ~100 points, buckets carried across them
  const checkSubgroup = rng.int(0, 3) === 0;
  const low = least[Number(checkSubgroup)];
  const budgets = [undefined, 2 ** 32, 2 ** 31 + 2 ** 20, low, Math.floor(low * (1 + rng.int(1, 16) / 8))];
  const maxMemory = budgets[rng.int(0, budgets.length - 1)];
  const want = g.msmBytes(points, scalars);
  const mode = ['reuse', 'transfer', 'fresh'][rng.int(0, 2)];
  const describe = `${g.group} ${kind} n=${n} maxMemory=${maxMemory} checkSubgroup=${checkSubgroup} ${mode}`;
  // the pieces, in order: [points bytes | undefined, scalars bytes | undefined]
  const steps = [];
  for (let p = 0, s = 0; p < points.length || s < scalars.length; ) {
    const take = (size, at, total) => Math.min(total - at, rng.int(0, 3) * size + rng.int(0, size + 3));
    const dp = take(PB, p, points.length);
    const ds = take(S, s, scalars.length);
    steps.push([rng.int(0, 5) || dp ? points.subarray(p, p + dp) : undefined, rng.int(0, 5) || ds ? scalars.subarray(s, s + ds) : undefined]);
    p += dp;
    s += ds;
  }
  const buffers = [new Uint8Array(4 * PB + 8), new Uint8Array(4 * S + 8)];
  const give = (bytes, side) => {
    if (bytes === undefined) return undefined;
    if (mode !== 'reuse') return bytes.slice();
    buffers[side].set(bytes);
    return buffers[side].subarray(0, bytes.length);
  };
  const after = (given) => {
    given.forEach((bytes, side) => {
      if (!bytes) return;
      if (mode === 'reuse') buffers[side].fill(rng.int(0, 255));
      else if (mode === 'transfer') transfer(bytes);
    });
  };
  let out;
  if (kind === 'sync' || kind === 'pool') {
    const acc = (kind === 'sync' ? g : pool).msmAccumulator({ maxMemory, checkSubgroup });
    for (const [pp, ss] of steps) {
      const given = [give(pp, 0), give(ss, 1)];
      const added = acc.add(given[0], given[1]);
      after(given); // a pool's add copies: before its promise resolves
      await added;
    }
    out = await acc.result();
  } else {
    function* source() {
      for (const [pp, ss] of steps) {
        const given = [give(pp, 0), give(ss, 1)];
        yield { points: given[0], scalars: given[1] };
        after(given);
      }
    }
    out = await (kind === 'stream' ? g : pool).msmStream(source(), { maxMemory, checkSubgroup });
  }
  return [out, want, describe];
}

describe('property: random adds, piece sizes, reused and transferred buffers, budgets (G1, G2, both pool paths) equal msmBytes', { timeout: 3_600_000 }, () => {
  const RUNS = LONG_TESTS ? 200 : 10;
  let targets;
  const pools = [];

  beforeAll(async () => {
    const bn = await loadCurve('bn254');
    const bls = await loadCurve('bls12-381');
    const material = (g, n, seed) => ({ n, points: g.randomPointsBytes(n, { seed }), scalars: g.randomScalarsBytes(n, { seed: seed + 1 }) });
    const m1 = material(bn, LONG_TESTS ? 4000 : 1500, 71);
    const m2 = material(bls.g2, LONG_TESTS ? 1500 : 150, 73);
    for (const sharedMemory of [true, false]) pools.push(await bn.threads({ count: 2, sharedMemory, releaseAfterMs: Infinity }));
    const g2pool = await bls.g2.threads({ count: 2, sharedMemory: false, releaseAfterMs: Infinity });
    pools.push(g2pool);
    targets = [
      [bn, 'sync', null, m1], [bn, 'stream', null, m1], [bls.g2, 'sync', null, m2], [bls.g2, 'stream', null, m2],
      [bn, 'pool', pools[0], m1], [bn, 'pool-stream', pools[0], m1], [bn, 'pool', pools[1], m1], [bn, 'pool-stream', pools[1], m1],
      [bls.g2, 'pool', g2pool, m2],
    ];
    // each target's least budget without and with checkSubgroup (its scratch), from the RangeError that names it
    for (const target of targets) {
      const [g, , pool] = target;
      const least = [];
      for (const checkSubgroup of [false, true]) {
        const error = await (pool ?? g).msmStream([], { maxMemory: 1000, checkSubgroup }).then(() => null, (e) => e);
        least.push(Number(/at least (\d+) bytes/.exec(error?.message)?.[1]));
      }
      expect(Math.min(...least)).toBeGreaterThan(1000);
      target.push(least);
    }
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
  });

  it(`${RUNS} runs on each of sync, stream, pool accumulator and pool stream (shared and message paths), G1 and G2`, async () => {
    const next = makeRng(0x37);
    const rng = { int: (lo, hi) => lo + (next() % (hi - lo + 1)) };
    for (let run = 0; run < RUNS; run++) {
      for (const [g, kind, pool, material, least] of targets) {
        const [out, want, what] = await randomRun(rng, g, kind, pool, material, least);
        expect(out, `run ${run}: ${what}${pool ? ` (sharedMemory ${pool.sharedMemory})` : ''}`).toEqual(want);
      }
    }
  });
});
