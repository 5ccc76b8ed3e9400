// The runtime smoke suite: one script that Node, Bun and Deno each run (scripts/test-runtimes.js starts it, `npm run
// test:runtimes`). Plain asserts, no test framework, so it runs the same on each. It checks, on this runtime:
//   1. the synchronous MSM (BN254 and BLS12-381 G1, BLS12-381 G2) equals @noble/curves' pippenger, and
//      wasmsm/noble's msm (noble Points in and out) equals it too;
//   2. a pool on each of its paths (one shared memory, a memory per thread) gives the same result, and its threads;
//   3. the snarkjs route (wasmsm/snarkjs, when src/adapters/snarkjs.js exists): ffjavascript's own multiExpAffine
//      equals the routed one, and restore() gives ffjavascript its own back; and groth16Prove proves a fixture
//      circuit (files the runner names with --groth16; the runner verifies the printed proof with snarkjs);
//   4. the GPU MSM (curve.gpu(): navigator.gpu in Deno, the webgpu package's Dawn in Node and Bun), when the runner
//      passes --gpu (a Vulkan driver is at hand: SwiftShader here), equals the synchronous MSM, and close() lets the
//      runtime exit;
//   5. an idle pool that is never closed does not keep the runtime alive (the runner checks the exit: this script
//      ends with such a pool and sets no exit code on success).
// A failure prints what differs and sets a nonzero exit code.

import assert from 'node:assert/strict';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { loadCurve } from '../../index.js';
import { msm as nobleMsm } from '../../src/adapters/noble.js';
import { noblePointClass, decodePoints } from '../../scripts/noble-msm.js';

const runtime = globalThis.Bun ? `Bun ${globalThis.Bun.version}` : globalThis.Deno ? `Deno ${globalThis.Deno.version.deno}` : `Node ${process.versions.node}`;
const results = [];

async function check(name, f) {
  const t0 = performance.now();
  try {
    await f();
    results.push(`ok   ${name} (${(performance.now() - t0).toFixed(0)} ms)`);
  } catch (e) {
    results.push(`FAIL ${name}: ${e?.stack ?? e}`);
    process.exitCode = 1;
  }
}

/** noble's pippenger of our byte inputs, and the noble Points and scalars themselves. */
async function nobleInputs(curve, n, seed) {
  const Point = await noblePointClass(curve.params);
  const pointBytes = curve.randomPointsBytes(n, { seed });
  const scalarBytes = curve.randomScalarsBytes(n, { seed: seed + 1 });
  const points = decodePoints(pointBytes, curve.coordinateBytes, curve.params.field.degree).map((P) => (P ? Point.fromAffine(P) : Point.ZERO));
  points[1] = Point.ZERO;
  points[2] = points[0].negate();
  const scalars = bytesToScalars(scalarBytes, curve.scalarBytes);
  scalars[3] = 0n;
  return { Point, points, scalars, expected: pippenger(Point, points, scalars) };
}

function bytesToScalars(bytes, S) {
  return Array.from({ length: bytes.length / S }, (_, i) => {
    let x = 0n;
    for (let k = S - 1; k >= 0; k--) x = (x << 8n) | BigInt(bytes[i * S + k]);
    return x;
  });
}

const bn254 = await loadCurve('bn254');
const bls = await loadCurve('bls12-381');

await check(`synchronous MSM, ${bn254.kernel} build: BN254 G1, BLS12-381 G1 and G2 equal noble's pippenger`, async () => {
  for (const [curve, n] of [[bn254, 300], [bls, 200], [bls.g2, 64]]) {
    const { Point, points, scalars, expected } = await nobleInputs(curve, n, 7);
    const sum = curve.msm(points, scalars);
    assert.ok(curve.toPoint(sum, Point).equals(expected), `${curve.params.name} ${curve.group}: msm differs from noble`);
    assert.ok((await nobleMsm(Point, points, scalars)).equals(expected), `${curve.params.name} ${curve.group}: wasmsm/noble differs`);
  }
});

for (const sharedMemory of [true, false]) {
  await check(`pool of 2, sharedMemory ${sharedMemory}: BN254 and BLS12-381 G2 equal noble's pippenger`, async () => {
    for (const [curve, n] of [[bn254, 3000], [bls.g2, 100]]) {
      const { Point, points, scalars, expected } = await nobleInputs(curve, n, 11);
      const pool = await curve.threads({ count: 2, sharedMemory });
      try {
        assert.equal(pool.count, 2);
        assert.equal(pool.sharedMemory, sharedMemory);
        assert.ok(curve.toPoint(await pool.msm(points, scalars), Point).equals(expected), `${curve.params.name} ${curve.group}: pool differs from noble`);
      } finally {
        await pool.close();
      }
    }
  });
}

// The runner passes --snarkjs when src/adapters/snarkjs.js exists (so this script reads no file itself: Deno runs it
// without permissions).
if (process.argv.includes('--snarkjs')) {
  await check('snarkjs route: routed multiExpAffine (G1, G2) equals ffjavascript\'s own, restore() gives it back', async () => {
    const { accelerate } = await import('../../src/adapters/snarkjs.js');
    const { buildBn128 } = await import('ffjavascript');
    const ff = await buildBn128(true); // single-threaded: ffjavascript's own workers are not under test
    try {
      const own = { G1: ff.G1.multiExpAffine, G2: ff.G2.multiExpAffine };
      for (const [group, n] of [['G1', 600], ['G2', 300]]) {
        const G = ff[group];
        const bases = new Uint8Array(G.F.n8 * 2 * n);
        let P = G.g;
        for (let i = 0; i < n; i++, P = G.add(P, G.g)) G.toRprLEM(bases, G.F.n8 * 2 * i, G.toAffine(P));
        const scalars = new Uint8Array(32 * n);
        for (let i = 0; i < scalars.length; i++) scalars[i] = (i * 37 + 11) & 0xff;
        for (let i = 31; i < scalars.length; i += 32) scalars[i] &= 0x1f; // < r
        const expected = await G.multiExpAffine(bases, scalars);
        const handle = await accelerate(ff, { threads: 2, minPoints: 1 });
        try {
          assert.notEqual(G.multiExpAffine, own[group], `${group}: accelerate did not route multiExpAffine`);
          assert.ok(G.eq(await G.multiExpAffine(bases, scalars), expected), `${group}: routed multiExpAffine differs from ffjavascript's`);
        } finally {
          await handle.restore();
        }
        assert.equal(G.multiExpAffine, own[group], `${group}: restore() did not give multiExpAffine back`);
      }
    } finally {
      await ff.terminate();
    }
  });
} else results.push('skip snarkjs route: src/adapters/snarkjs.js is not in this checkout (the runner did not pass --snarkjs)');

const groth16At = process.argv.indexOf('--groth16');
if (groth16At > 0) {
  // the runner verifies the proof with snarkjs under Node (its verifier asks Deno for permissions wasmsm does not need)
  await check('groth16Prove: a Groth16 proof made in Wasm (bits8, BN254), printed for the runner to verify', async () => {
    const [zkeyPath, wtnsPath] = process.argv[groth16At + 1].split(',');
    const { readFileSync } = await import('node:fs');
    const { groth16Prove } = await import('../../src/adapters/snarkjs.js');
    // the zkey as a Blob's stream: a byte stream, read through a BYOB reader, where the runtime makes it one (Node, Deno)
    const proved = await groth16Prove(new Blob([readFileSync(zkeyPath)]).stream(), readFileSync(wtnsPath), { threads: 2 });
    assert.equal(proved.proof.protocol, 'groth16');
    console.log(`groth16 proof: ${JSON.stringify(proved)}`);
  });
}

if (process.argv.includes('--gpu')) {
  // two curves: the runtime's WebGPU (its own WGSL compiler in Deno) is under test here (test/gpu-msm.test.js covers
  // the curves), an Edwards one and BN254's, which splits its scalars (GLV); SwiftShader compiles each curve's kernels
  // for seconds
  await check('GPU MSM (curve.gpu()): Ed-on-BLS12-377 and BN254 (GLV) equal the synchronous msmBytes', async () => {
    for (const [name, n] of [['ed-on-bls12-377', 40], ['bn254', 40]]) {
      const curve = await loadCurve(name);
      const gpu = await curve.gpu();
      try {
        const points = curve.randomPointsBytes(n, { seed: 5 });
        const scalars = curve.randomScalarsBytes(n, { seed: 6 });
        assert.deepEqual(await gpu.msmBytes(points, scalars), curve.msmBytes(points, scalars), `${name}: the GPU (${gpu.adapter}) differs`);
      } finally {
        await gpu.close();
      }
    }
  });
} else results.push('skip GPU MSM: no Vulkan driver here (the runner did not pass --gpu)');

// 5. left running on purpose: the runner checks that the runtime still exits by itself
await check('an idle pool left open (the runtime must still exit)', async () => {
  const pool = await bn254.threads({ count: 2 });
  const { points, scalars } = { points: bn254.randomPointsBytes(64, { seed: 3 }), scalars: bn254.randomScalarsBytes(64, { seed: 4 }) };
  assert.deepEqual(await pool.msmBytes(points, scalars), bn254.msmBytes(points, scalars));
});

console.log(`${runtime}:\n  ${results.join('\n  ')}`);
