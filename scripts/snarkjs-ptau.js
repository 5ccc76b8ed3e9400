// FIXTURE powers of tau for a KNOWN secret. TEST ONLY: NEVER A CEREMONY. Anyone can derive tau, alpha and beta
// from the public beacon below, so every key made from these files is forgeable. They exist so that the benchmarks
// and tests of the snarkjs route have circuits up to 2^18 constraints without hours of snarkjs's own pipeline.
//
// The file written is, byte for byte, what snarkjs 0.7.6 writes for
//   powersOfTau.newAccumulator(curve, power) -> powersOfTau.beacon(BEACON, BEACON_ITERATIONS_EXP) -> preparePhase2
// (test/snarkjs-ptau.test.js checks that on small powers, and powersOfTau.verify accepts it), made another way:
// - the secret (tau, alpha, beta) is the beacon's key, from snarkjs's own keyFromBeacon, and the contributions
//   section (7) with its hash chain is written by snarkjs's own writeContributions;
// - every point is (scalar computed in F_r)·G, the scalars in BigInt: tau^i, alpha·tau^i, beta·tau^i for the
//   sections 2..6, and for the phase-2 sections 12..15 the Lagrange basis at tau in closed form per level
//   (L_j(tau) = (tau^n - 1)/n · w^j/(tau - w^j)) where preparePhase2 runs an inverse FFT over the points
//   (n log n point operations a level: 50 minutes for 2^16 on the 2-core machine);
// - the scalar multiplications use ffjavascript's own Wasm curve, with a fixed-base table of G (at most 32 mixed
//   additions a point: scripts/snarkjs-ptau-worker.js), one process a core.
// It reads snarkjs internals (src/powersoftau_utils.js, src/misc.js) by path: snarkjs is pinned by package-lock.json.
//
//   node scripts/snarkjs-ptau.js bn128 10 [--snarkjs]   # time the fixture of 2^10 (in a temporary folder); with
//                                                       # --snarkjs snarkjs's own pipeline too, and compare the bytes

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { F1Field } from 'ffjavascript';
import { Field, FpInvertBatch } from '@noble/curves/abstract/modular.js';

const require = createRequire(import.meta.url);
const snarkjsDir = join(dirname(require.resolve('snarkjs')), '..'); // its build/main.cjs: package.json is not exported
const fromSnarkjs = (path) => import(pathToFileURL(join(snarkjsDir, path)).href);
const utils = await fromSnarkjs('src/powersoftau_utils.js');
const misc = await fromSnarkjs('src/misc.js');
// snarkjs's dependencies as it resolves them: its blake2b (its own copy of @noble/hashes, whose hasher state
// misc.toPartialHash reads) and its binary-file writer
const fromSnarkjsDeps = createRequire(join(snarkjsDir, 'package.json'));
const { blake2b } = fromSnarkjsDeps('@noble/hashes/blake2b');
const binFileUtils = fromSnarkjsDeps('@iden3/binfileutils');

/** The public beacon whose key is the fixtures' secret (hex, as `snarkjs powersoftau beacon` takes it). */
export const BEACON = Buffer.from('wasmsm fixture ptau: known secret, test only').toString('hex');
export const BEACON_ITERATIONS_EXP = 10; // snarkjs's minimum: 2^10 SHA-256 iterations
const NAME = 'wasmsm test fixture: KNOWN SECRET, NOT A CEREMONY';

/**
 * A pool of scripts/snarkjs-ptau-worker.js processes (one a core) for `curveName`: times(group, scalars) -> the points
 * scalars[i]·G (G the group's generator), affine, Montgomery form, little-endian: snarkjs's layout.
 */
function pool(curveName) {
  const workers = Array.from({ length: availableParallelism() }, () => fork(new URL('./snarkjs-ptau-worker.js', import.meta.url), { serialization: 'advanced' }));
  const pending = new Map();
  let nextId = 0;
  for (const w of workers) {
    w.on('message', ({ id, points, error }) => {
      const { ok, fail } = pending.get(id);
      pending.delete(id);
      if (error) fail(new Error(`fixture ptau worker: ${error}`));
      else ok(points);
    });
    w.on('exit', (code) => pending.forEach(({ fail }) => fail(new Error(`fixture ptau worker exited (${code})`))));
  }
  const run = (w, group, scalars) => new Promise((ok, fail) => {
    const id = nextId++;
    pending.set(id, { ok, fail });
    w.send({ id, curve: curveName, group, scalars });
  });
  return {
    /** scalars: elements of F (F_r, BigInts); split evenly over the workers. */
    async times(curve, F, group, scalars) {
      const n8r = curve.Fr.n8;
      const sG = curve[group].F.n8 * 2;
      const per = Math.ceil(scalars.length / workers.length);
      const parts = workers.map((w, k) => {
        const slice = scalars.slice(k * per, (k + 1) * per);
        const bytes = new Uint8Array(slice.length * n8r);
        slice.forEach((v, i) => F.toRprLE(bytes, i * n8r, v));
        return slice.length ? run(w, group, bytes) : new Uint8Array(0);
      });
      const out = new Uint8Array(scalars.length * sG);
      let pos = 0;
      for (const p of await Promise.all(parts)) {
        out.set(p, pos);
        pos += p.byteLength;
      }
      return out;
    },
    close: () => workers.forEach((w) => w.disconnect()), // each exits when its channel closes
  };
}

/** first·x^i in F for i < n. */
function geometric(F, first, x, n) {
  const out = new Array(n);
  for (let i = 0, v = first; i < n; i++, v = F.mul(v, x)) out[i] = v;
  return out;
}

/**
 * factor·L_j(tau) for j < n = 2^p, L_j the Lagrange basis of the n-th roots of unity w^j (w = Fr.w[p], ffjavascript's
 * root, the one its inverse FFT uses): what the inverse FFT of the points factor·tau^i·G gives. With `dropLast` the
 * last power (tau^(n-1)) is absent, as in the top level of the tauG1 section: its share w^j·tau^(n-1)/n comes off.
 */
function lagrange(curve, F, factor, tau, p, dropLast) {
  const n = 2 ** p;
  const roots = geometric(F, F.one, curve.Fr.toObject(curve.Fr.w[p]), n);
  if (roots.includes(tau)) throw new RangeError('fixture ptau: tau is a root of unity'); // never for a hashed secret
  const inv = FpInvertBatch(Field(F.p), roots.map((x) => F.sub(tau, x))); // one inversion (Montgomery's trick)
  const nInv = F.inv(F.e(n));
  const c = F.mul(F.mul(F.sub(F.exp(tau, n), F.one), nInv), factor);
  const last = dropLast ? F.mul(F.mul(F.exp(tau, n - 1), nInv), factor) : F.zero;
  return roots.map((x, j) => F.sub(F.mul(F.mul(c, x), inv[j]), F.mul(x, last)));
}

/**
 * Write the fixture ptau of 2^power (phase 2 prepared) to `file` for snarkjs's `curve` (getCurveFromName). See the
 * top of this file: TEST ONLY, the secret is public.
 */
export async function writeFixturePtau(curve, power, file, logger) {
  const workers = pool(curve.name);
  try {
    await write(curve, power, file, workers, logger);
  } finally {
    await workers.close();
  }
}

async function write(curve, power, file, workers, logger) {
  const { Fr } = curve;
  const F = new F1Field(Fr.p); // F_r in BigInt
  const challenge = utils.calculateFirstChallengeHash(curve, power);
  const beaconHash = misc.hex2ByteArray(BEACON);
  const key = await utils.keyFromBeacon(curve, challenge, beaconHash, BEACON_ITERATIONS_EXP);
  const [tau, alpha, beta] = [key.tau, key.alpha, key.beta].map((k) => Fr.toObject(k.prvKey));
  const n = 2 ** power;

  const fd = await binFileUtils.createBinFile(file, 'ptau', 1, 11);
  await utils.writePTauHeader(fd, curve, power);

  // Sections 2..6 as the beacon writes them, hashed as it does: compressed into the response hash, uncompressed
  // (after the response hash) into the next challenge.
  const responseHasher = blake2b.create({ dkLen: 64 });
  responseHasher.update(challenge);
  const uncompressed = [];
  const firstPoints = {};
  const tauSections = [
    [2, 'G1', 2 * n - 1, F.one],
    [3, 'G2', n, F.one],
    [4, 'G1', n, alpha],
    [5, 'G1', n, beta],
    [6, 'G2', 1, beta],
  ];
  for (const [id, group, count, first] of tauSections) {
    const t0 = Date.now();
    const points = await workers.times(curve, F, group, geometric(F, first, tau, count));
    await binFileUtils.startWriteSection(fd, id);
    await fd.write(points);
    await binFileUtils.endWriteSection(fd);
    const G = curve[group];
    responseHasher.update(await G.batchLEMtoC(points));
    uncompressed.push(await G.batchLEMtoU(points));
    const sG = G.F.n8 * 2;
    firstPoints[id] = [0, 1].filter((i) => i < count).map((i) => points.slice(i * sG, (i + 1) * sG));
    logger?.(`section ${id}: ${count} ${group} points, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const contribution = {
    name: NAME,
    type: 1, // beacon
    numIterationsExp: BEACON_ITERATIONS_EXP,
    beaconHash,
    key,
    tauG1: firstPoints[2][1],
    tauG2: firstPoints[3][1],
    alphaG1: firstPoints[4][0],
    betaG1: firstPoints[5][0],
    betaG2: firstPoints[6][0],
    partialHash: misc.toPartialHash(responseHasher),
  };
  const pubKey = new Uint8Array(curve.F1.n8 * 2 * 6 + curve.F2.n8 * 2 * 3);
  utils.toPtauPubKeyRpr(pubKey, 0, curve, key, false);
  responseHasher.update(pubKey);
  const nextHasher = blake2b.create({ dkLen: 64 });
  nextHasher.update(responseHasher.digest());
  for (const u of uncompressed) nextHasher.update(u);
  contribution.nextChallenge = nextHasher.digest();
  await utils.writeContributions(fd, curve, [contribution]);

  // Phase 2: per level p (0..power, and power+1 for tauG1 whose last power is missing) the Lagrange points.
  const lagrangeSections = [
    [12, 'G1', F.one, power + 1],
    [13, 'G2', F.one, power],
    [14, 'G1', alpha, power],
    [15, 'G1', beta, power],
  ];
  for (const [id, group, factor, top] of lagrangeSections) {
    const t0 = Date.now();
    await binFileUtils.startWriteSection(fd, id);
    for (let p = 0; p <= top; p++) await fd.write(await workers.times(curve, F, group, lagrange(curve, F, factor, tau, p, p === power + 1)));
    await binFileUtils.endWriteSection(fd);
    logger?.(`section ${id}: ${2 ** (top + 1) - 1} ${group} points, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  await fd.close();
}

/** The same file by snarkjs's own pipeline (the oracle of test/snarkjs-ptau.test.js): hours at 2^18. */
export async function writeBySnarkjs(snarkjs, curve, power, file) {
  const [a, b] = [`${file}.0`, `${file}.1`];
  await snarkjs.powersOfTau.newAccumulator(curve, power, a);
  await snarkjs.powersOfTau.beacon(a, b, NAME, BEACON, BEACON_ITERATIONS_EXP);
  await snarkjs.powersOfTau.preparePhase2(b, file);
  rmSync(a);
  rmSync(b);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [curveName = 'bn128', power = '10'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const snarkjs = await import('snarkjs');
  const curve = await snarkjs.curves.getCurveFromName(curveName);
  const dir = mkdtempSync(join(tmpdir(), 'wasmsm-ptau-'));
  try {
    const mine = join(dir, 'fixture.ptau');
    let t0 = performance.now();
    await writeFixturePtau(curve, Number(power), mine, (m) => console.log(`  ${m}`));
    const ms = performance.now() - t0;
    console.log(`${curveName} 2^${power}: fixture ptau ${(ms / 1000).toFixed(1)} s`);
    if (process.argv.includes('--snarkjs')) {
      const theirs = join(dir, 'snarkjs.ptau');
      t0 = performance.now();
      await writeBySnarkjs(snarkjs, curve, Number(power), theirs);
      const theirMs = performance.now() - t0;
      const same = readFileSync(mine).equals(readFileSync(theirs));
      console.log(`snarkjs newAccumulator -> beacon -> preparePhase2 ${(theirMs / 1000).toFixed(1)} s (${(theirMs / ms).toFixed(1)}x the fixture's); same bytes: ${same}`);
      if (!same) process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await curve.terminate();
  }
}
