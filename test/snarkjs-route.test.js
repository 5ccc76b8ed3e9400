// wasmsm/snarkjs on ffjavascript's own curve objects (the ones snarkjs proves with): every routed MSM equals
// ffjavascript's own multiExpAffine on the same buffers (G1 and G2, bn128 and bls12381), including BigBuffer
// scalars (one page, and pages cut inside a pair), inputs full of infinity with zero scalars (FFLONK's shape),
// all-zero scalars, n = 0 and 1, and scalars >= r (left to ffjavascript); then the options, restore() and a Node
// process that exits by itself. Proofs on real circuits: test/snarkjs-circuits.test.js.

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBn128, buildBls12381, BigBuffer } from 'ffjavascript';
import { accelerate, DEFAULT_MIN_POINTS } from 'wasmsm/snarkjs';
import { Curve } from '../src/curve.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const hex = (b) => Buffer.from(b).toString('hex');

/** n affine points of G in ffjavascript's LEM (Montgomery) form, k_i * g for pseudo-random k_i; `infinity(i)` picks zeros. */
function basesOf(G, n, seed, infinity = () => false) {
  const n8 = G.F.n8;
  const out = new Uint8Array(n * 2 * n8);
  let k = BigInt(seed) * 0x9e3779b97f4a7c15n + 1n;
  let P = G.timesScalar(G.g, k);
  for (let i = 0; i < n; i++) {
    // a new random multiple now and then, the next ones by adding g (fast and still all distinct)
    if (i % 64 === 0) P = G.timesScalar(G.g, (k = (k * 6364136223846793005n + 1442695040888963407n) % (1n << 250n)));
    else P = G.add(P, G.g);
    if (!infinity(i)) G.toRprLEM(out, i * 2 * n8, G.toAffine(P));
  }
  return out;
}

/** n 32-byte little-endian scalars below r (seeded); `zero(i)` picks zeros. */
function scalarsOf(r, n, seed, zero = () => false) {
  const out = new Uint8Array(32 * n);
  let x = BigInt(seed) + 12345n;
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
  const buffers = ends.map((end, i) => bytes.slice(i === 0 ? 0 : ends[i - 1], end));
  return { byteLength: bytes.length, buffers, slice: () => { throw new Error('the route reads the pages, never slice()'); } };
}

/** ffjavascript's result and ours as the same point: equal affine bytes; ours is x | y | 1 or ffjavascript's zero. */
function expectSame(G, ours, theirs, routed = true) {
  expect(ours).toBeInstanceOf(Uint8Array);
  expect(ours.length).toBe(3 * G.F.n8);
  expect(hex(G.toAffine(ours)), 'the same point').toBe(hex(G.toAffine(theirs)));
  // infinity: ours is ffjavascript's zero (Z = 0). ffjavascript itself answers (0, 0, 1) when every base is
  // infinity, which is not on the curve but has the same affine form (all zero), so the affine compare covers it.
  if (!routed) return;
  if (G.isZero(G.toJacobian(G.toAffine(theirs)))) expect(hex(ours)).toBe(hex(G.zero));
  else expect(hex(ours.subarray(2 * G.F.n8)), 'Z = 1 (Montgomery)').toBe(hex(G.F.one));
}

for (const [name, build] of [['bn128', buildBn128], ['bls12381', buildBls12381]]) {
  describe(`wasmsm/snarkjs on ffjavascript's ${name}`, () => {
    let ff;
    const own = {};
    beforeAll(async () => {
      ff = await build();
      own.G1 = ff.G1.multiExpAffine;
      own.G2 = ff.G2.multiExpAffine;
    });
    afterAll(async () => ff?.terminate());

    for (const group of ['G1', 'G2']) {
      it(`${group}: each routed MSM equals ffjavascript's on the same buffers`, { timeout: 120_000 }, async () => {
        const G = ff[group];
        const theirs = (b, s) => own[group].call(G, b, s);
        const n = 700;
        const bases = basesOf(G, n, 1, (i) => i % 97 === 5);
        const scalars = scalarsOf(ff.r, n, 2, (i) => i % 31 === 7);
        // FFLONK's shape: most bases infinity, scalars with a long zero tail
        const sparse = basesOf(G, n, 3, (i) => i % 50 !== 0);
        const tail = scalarsOf(ff.r, n, 4, (i) => i > 100);
        // half the scalars zero (a witness's shape: the route drops those pairs), arrays at odd byte offsets
        const odd = (a) => {
          const out = new Uint8Array(a.length + 1);
          out.set(a, 1);
          return out.subarray(1);
        };
        const halfZero = scalarsOf(ff.r, n, 5, (i) => i % 2 === 0 || i % 7 === 3);
        const cases = [
          ['half the scalars zero, arrays at odd byte offsets', odd(bases), odd(halfZero)],
          ['random, some infinity, some zero scalars', bases, scalars],
          ['mostly infinity, zero tail', sparse, tail],
          ['all infinity', new Uint8Array(bases.length), scalars],
          ['all-zero scalars', bases, new Uint8Array(scalars.length)],
          ['one point', bases.subarray(0, 2 * G.F.n8), scalars.subarray(0, 32)],
          ['no points', new Uint8Array(0), new Uint8Array(0)],
        ];
        const expected = [];
        for (const [, b, s] of cases) expected.push(await theirs(b, s));

        const handle = await accelerate(ff, { minPoints: 1, threads: 2 });
        try {
          expect(G.multiExpAffine).not.toBe(own[group]);
          for (const [i, [what, b, s]] of cases.entries()) {
            const got = await G.multiExpAffine(b, s);
            expectSame(G, got, expected[i]);
            if (what === 'no points') expect(G.isZero(got)).toBe(true);
          }
          // n = 0 stays with ffjavascript; the other six ran on wasmsm
          expect(handle.stats).toMatchObject({ routed: 6, fallback: 1 });

          // BigBuffer scalars: ffjavascript's own (one page), and pages cut inside a pair (as past 1 GiB)
          const big = new BigBuffer(scalars.length);
          big.set(scalars, 0);
          expectSame(G, await G.multiExpAffine(bases, big), expected[1]);
          const pb = paged(bases, [2 * G.F.n8 * 10 + 7, bases.length - 3]);
          const ps = paged(scalars, [32 * 333 + 5]);
          expectSame(G, await G.multiExpAffine(pb, ps), expected[1]);
          expect(handle.stats.routed).toBe(8);

          // calls made together queue, and each gets its own result
          const together = await Promise.all([G.multiExpAffine(bases, scalars), G.multiExpAffine(sparse, tail), G.multiExpAffine(bases, scalars)]);
          expectSame(G, together[0], expected[1]);
          expectSame(G, together[1], expected[2]);
          expectSame(G, together[2], expected[1]);

          // a scalar >= r: ffjavascript multiplies by the integer; that MSM stays with it
          const over = scalars.slice();
          over.fill(0xff, 32 * 3, 32 * 4);
          const before = handle.stats.fallback;
          expectSame(G, await G.multiExpAffine(bases, over), await theirs(bases, over), false);
          expect(handle.stats.fallback).toBe(before + 1);
          // below minPoints: ffjavascript
          await handle.restore();
          const small = await accelerate(ff, { minPoints: n + 1 });
          expectSame(G, await G.multiExpAffine(bases, scalars), expected[1], false);
          expect(small.stats).toMatchObject({ routed: 0, fallback: 1 });
          await small.restore();
        } finally {
          await handle.restore();
        }
        // restored: ffjavascript's own method object again
        expect(G.multiExpAffine).toBe(own[group]);
        expectSame(G, await G.multiExpAffine(bases, scalars), expected[1], false);
      });
    }

    it('points off the curve or coordinates >= p are errors, never a wrong point', { timeout: 60_000 }, async () => {
      const handle = await accelerate(ff, { minPoints: 1, threads: 1 });
      try {
        for (const group of ['G1', 'G2']) {
          const G = ff[group];
          const bases = basesOf(G, 4, 9);
          const scalars = scalarsOf(ff.r, 4, 9);
          const off = bases.slice();
          off[2 * 2 * G.F.n8 + 1] ^= 1; // x of points[2] changed: off the curve
          await expect(G.multiExpAffine(off, scalars)).rejects.toThrow(/points\[2\]/);
          const big = bases.slice();
          big.fill(0xff, 0, G.F.n8);
          await expect(G.multiExpAffine(big, scalars)).rejects.toThrow(/points\[0\]: x(\.c0)? coordinate is >= p/);
          // half the scalars zero (those pairs are left out of the MSM): the error still names the caller's index
          const halfZero = scalarsOf(ff.r, 4, 9, (i) => i % 2 === 0);
          // (and a bad base whose scalar is zero is not read, as in ffjavascript: points[2] here)
          expectSame(G, await G.multiExpAffine(off, halfZero), await own[group].call(G, off, halfZero));
          const off3 = bases.slice();
          off3[3 * 2 * G.F.n8 + 1] ^= 1;
          await expect(G.multiExpAffine(off3, halfZero)).rejects.toThrow(/points\[3\]/);
          // a bad base with a zero scalar before it (never read) is not the one named
          const off23 = off3.slice();
          off23[2 * 2 * G.F.n8 + 1] ^= 1;
          await expect(G.multiExpAffine(off23, halfZero)).rejects.toThrow(/^points\[3\]/);
          // the route goes on after an error
          expectSame(G, await G.multiExpAffine(bases, scalars), await own[group].call(G, bases, scalars));
        }
      } finally {
        await handle.restore();
      }
    });

    if (name === 'bls12381') {
      it('checkSubgroup: a base on the curve but outside the subgroup of order r is an error naming its index', { timeout: 60_000 }, async () => {
        const G = ff.G1;
        const bases = basesOf(G, 4, 9);
        // (0, 2): on y^2 = x^3 + 4, of order 3; LEM: x = 0, y = 2 in Montgomery form
        const point = new Uint8Array(2 * G.F.n8);
        point.set(G.F.e(2), G.F.n8); // ffjavascript's elements are their Montgomery form's bytes
        bases.set(point, 2 * 2 * G.F.n8);
        const scalars = scalarsOf(ff.r, 4, 9);
        const handle = await accelerate(ff, { minPoints: 1, threads: 1, groups: ['G1'], checkSubgroup: true });
        try {
          await expect(G.multiExpAffine(bases, scalars)).rejects.toThrow(/^points\[2\] is not in the subgroup of order r$/);
          // its scalar zero, among many zero scalars (pairs the route leaves out otherwise): still read and refused
          const zeros = scalars.slice();
          zeros.fill(0, 0, 3 * 32);
          await expect(G.multiExpAffine(bases, zeros)).rejects.toThrow(/^points\[2\] is not in the subgroup of order r$/);
          const good = basesOf(G, 4, 9);
          expectSame(G, await G.multiExpAffine(good, scalars), await own.G1.call(G, good, scalars));
        } finally {
          await handle.restore();
        }
      });
    }
  });
}

describe('accelerate: options, curves, restore', () => {
  it('curve.terminate() while accelerate() opens the GPU: the GPU it opened is closed, and no pool starts after', { timeout: 60_000 }, async () => {
    const ff = await buildBn128(true);
    const gpus = [];
    let terminating = null;
    const onGpu = vi.spyOn(Curve.prototype, 'gpu').mockImplementation(async () => {
      terminating = ff.terminate(); // the route's terminate (restore(), then ffjavascript's) while the GPU opens
      await new Promise((resolve) => setTimeout(resolve, 100)); // kernels compiling
      const gpu = { adapter: 'a stand-in', closed: 0, close: async () => void gpu.closed++ };
      gpus.push(gpu);
      return gpu;
    });
    const onThreads = vi.spyOn(Curve.prototype, 'threads');
    try {
      const handle = await accelerate(ff, { gpu: true, threads: 1 });
      await terminating;
      expect(gpus.map((g) => g.closed)).toEqual([1]);
      expect(onThreads).not.toHaveBeenCalled();
      expect(handle.gpu).toBe(null);
    } finally {
      onGpu.mockRestore();
      onThreads.mockRestore();
    }
  });

  it('rejects unknown options, bad values, other curves and a second route on the same curve', { timeout: 60_000 }, async () => {
    const ff = await buildBn128(true);
    try {
      await expect(accelerate(ff, { thread: 2 })).rejects.toThrow(TypeError);
      await expect(accelerate(ff, { thread: 2 })).rejects.toThrow(/thread/);
      await expect(accelerate(ff, { minPoints: -1 })).rejects.toThrow(RangeError);
      await expect(accelerate(ff, { threads: 0 })).rejects.toThrow(RangeError);
      await expect(accelerate(ff, { groups: ['G3'] })).rejects.toThrow(TypeError);
      await expect(accelerate(ff, { groups: ['G1', 'G1'] })).rejects.toThrow(/each once/);
      await expect(accelerate(ff, { maxMemory: -5 })).rejects.toThrow(/maxMemory must be a positive number of bytes/);
      await expect(accelerate(ff, { checkSubgroup: 'yes' })).rejects.toThrow(/checkSubgroup must be a boolean/);
      // options given as undefined (a wrapper forwarding its own) take their defaults
      const unrouted = { G1: ff.G1.multiExpAffine, G2: ff.G2.multiExpAffine };
      const forwarded = await accelerate(ff, { threads: 1, minPoints: undefined, groups: undefined, maxMemory: undefined });
      expect([ff.G1.multiExpAffine === unrouted.G1, ff.G2.multiExpAffine === unrouted.G2], 'both groups routed').toEqual([false, false]);
      await forwarded.restore();
      await expect(accelerate(ff, { releaseAfterMs: -5 })).rejects.toThrow(/releaseAfterMs must be milliseconds/);
      await expect(accelerate({ ...ff, G1: ff.G1, G2: ff.G2, name: 'secp256k1' })).rejects.toThrow(/curve 'secp256k1' is not one wasmsm routes \(known: bn128, bls12381\)/);
      await expect(accelerate({ name: 'bn128' })).rejects.toThrow(TypeError);
      await expect(accelerate(undefined)).rejects.toThrow(TypeError);
      const own = ff.G1.multiExpAffine;
      const ownG2 = ff.G2.multiExpAffine;
      const handle = await accelerate(ff, { groups: ['G1'], threads: 1 });
      expect(DEFAULT_MIN_POINTS).toBeGreaterThan(0);
      expect(ff.G1.multiExpAffine).not.toBe(own);
      expect(ff.G2.multiExpAffine, 'G2 left alone').toBe(ownG2);
      await expect(accelerate(ff)).rejects.toThrow(/already accelerated/);
      await handle.restore();
      // two at once: one route, the other refused
      const both = await Promise.allSettled([accelerate(ff, { threads: 1 }), accelerate(ff, { threads: 1 })]);
      expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(both.find((r) => r.status === 'rejected').reason.message).toMatch(/already accelerated/);
      await both.find((r) => r.status === 'fulfilled').value.restore();
      await handle.restore();
      await handle.restore(); // idempotent
      expect(ff.G1.multiExpAffine).toBe(own);
      const again = await accelerate(ff, { threads: 1 });
      await again.close();
      expect(ff.G1.multiExpAffine).toBe(own);
    } finally {
      await ff.terminate();
    }
  });

  it('handle.terminate() ends the curve once: not again after curve.terminate(), and through a newer route', { timeout: 60_000 }, async () => {
    const counted = async () => {
      const ff = await buildBn128(true);
      const own = ff.terminate;
      ff.ends = 0;
      ff.terminate = async function () { ff.ends++; return own.call(this); };
      return ff;
    };
    const ff = await counted();
    const handle = await accelerate(ff, { threads: 1 });
    await ff.terminate(); // snarkjs's way: the route restores, then the curve ends
    await handle.terminate(); // (a cleanup path): nothing more
    expect(ff.ends).toBe(1);
    // an old handle after a newer route: the newer one is restored as the curve ends, once
    const ff2 = await counted();
    const own = ff2.G1.multiExpAffine;
    const old = await accelerate(ff2, { threads: 1 });
    await old.restore();
    const newer = await accelerate(ff2, { threads: 1 });
    await old.terminate();
    expect(ff2.G1.multiExpAffine, 'the newer route restored').toBe(own);
    await newer.terminate();
    expect(ff2.ends).toBe(1);
  });

  // A child process: snarkjs's curve, accelerated, a Groth16-sized MSM on each group, then the given ending. It
  // must exit by itself (no process.exit) well within the timeout.
  for (const [ending, code] of [
    ['handle.terminate()', 'await handle.terminate();'],
    ['restore(), then the curve is used without us and terminated', 'await handle.restore(); if (curve.G1.multiExpAffine !== own) throw new Error("not restored"); await curve.G1.multiExpAffine(b1, s); await curve.terminate();'],
    ["the curve's own terminate() (snarkjs's way)", 'await curve.terminate(); if (curve.G1.multiExpAffine !== own) throw new Error("not restored");'],
  ]) {
    it(`a Node process exits by itself after ${ending}`, { timeout: 60_000 }, () => {
      const script = `
        import * as snarkjs from 'snarkjs';
        import { accelerate } from 'wasmsm/snarkjs';
        const curve = await snarkjs.curves.getCurveFromName('bn128');
        const own = curve.G1.multiExpAffine;
        const handle = await accelerate(curve, { threads: 2, minPoints: 1 });
        const n = 300;
        const b1 = new Uint8Array(n * 64), b2 = new Uint8Array(n * 128), s = new Uint8Array(n * 32);
        for (let i = 0; i < n; i++) {
          curve.G1.toRprLEM(b1, 64 * i, curve.G1.toAffine(curve.G1.timesScalar(curve.G1.g, i + 1)));
          curve.G2.toRprLEM(b2, 128 * i, curve.G2.toAffine(curve.G2.timesScalar(curve.G2.g, i + 1)));
          s[32 * i] = i + 1;
        }
        await curve.G1.multiExpAffine(b1, s);
        await curve.G2.multiExpAffine(b2, s);
        if (handle.stats.routed !== 2) throw new Error('not routed');
        ${code}
        console.log('done');
      `;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8', timeout: 50_000 });
      expect(r.error, 'timed out: something kept Node alive').toBeUndefined();
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('done');
      expect(r.status).toBe(0);
    });
  }
});
