#!/usr/bin/env node
// The snarkjs route (wasmsm/snarkjs) of this checkout against another checkout's, inside real proofs, in one
// process: two ffjavascript curves, each accelerated by one checkout, swapped into the cache snarkjs reads its curve
// from (ffjavascript's globalThis.curve_bn128) before each proof; proofs alternate, every one verified. Prints the
// medians of the routed MSMs' time per proof (what the route changes) and of the prover's (the witness is the
// fixture's, computed once).
// For claims like "the route is no slower than before" where the VMs' noise moves snarkjs-bench's ratios more.
// The other checkout needs its Wasm built (npm ci && npm run build:wasm there), e.g.
//   git worktree add ../wasmsm-before <commit> && (cd ../wasmsm-before && npm ci && npm run build:wasm)
//   node bench/compare-routes.js --baseline ../wasmsm-before --case sha2:groth16 --runs 12
// --prover: each checkout's Groth16Prover (groth16Prove kept for the case) instead of the route, proofs
// alternating, each verified; prints the medians of its timings (total, the H MSM, ntt, qap). The first proof of
// each, with r and s fixed, must be byte-equal.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as snarkjs from 'snarkjs';
import { buildBn128 } from 'ffjavascript';
import { median, parseCli } from '../scripts/lib.js';
import { accelerate, Groth16Prover } from '../src/adapters/snarkjs.js';
import { fixture } from '../scripts/snarkjs-fixtures.js';

const HELP = 'usage: node bench/compare-routes.js --baseline <dir> [--case circuit:protocol] [--runs 12] [--threads 2] [--prover]';
const args = parseCli('compare-routes', HELP, {
  baseline: { type: 'string' },
  case: { type: 'string', default: 'sha2:groth16' },
  runs: { type: 'string', default: '12' },
  threads: { type: 'string', default: '2' },
  prover: { type: 'boolean', default: false },
});
const [circuit, protocol] = args.case.split(':');
if (!args.baseline || !protocol) {
  console.error(`compare-routes: --baseline <dir> is required, --case is circuit:protocol (a BN254 case of scripts/snarkjs-fixtures.js)\n${HELP}`);
  process.exit(2);
}
const runs = Number(args.runs);
const threads = Number(args.threads);
const before = await import(pathToFileURL(resolve(args.baseline, 'src/adapters/snarkjs.js')).href);
const f = await fixture(snarkjs, circuit, 'bn128', protocol);
const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));

if (args.prover) {
  if (protocol !== 'groth16') {
    console.error(`compare-routes: --prover takes a groth16 case\n${HELP}`);
    process.exit(2);
  }
  await compareProvers();
  process.exit(0);
}

/** Each checkout's kept Groth16Prover on the fixture's zkey and witness, proofs alternating. */
async function compareProvers() {
  const zkey = readFileSync(f.zkey);
  const wtns = readFileSync(f.wtns);
  const provers = [['baseline', before.Groth16Prover], ['this', Groth16Prover]].map(([label, Prover]) => ({ label, prover: new Prover({ threads }), timings: [] }));
  const fixed = await Promise.all(provers.map(async ({ prover }) => JSON.stringify(await prover.prove(zkey, wtns, { r: 5n, s: 7n }))));
  if (fixed[0] !== fixed[1]) throw new Error('compare-routes: the two checkouts give different proofs for the same r and s');
  for (let r = 0; r < runs; r++) {
    for (const p of r % 2 ? provers : [...provers].reverse()) {
      const timings = {};
      const { proof, publicSignals } = await p.prover.prove(zkey, wtns, { timings });
      if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`compare-routes: a proof of the ${p.label} prover does not verify`);
      p.timings.push(timings);
    }
  }
  const keys = ['total', 'msmH', 'ntt', 'qap'];
  const med = (p, key) => median(p.timings.map((t) => t[key]));
  console.log(`compare-routes --prover: ${resolve(args.baseline)} (baseline) against this checkout; groth16 ${circuit}; Node ${process.version}; pools of ${threads} threads; medians of ${runs} proofs each, alternating`);
  for (const p of provers) console.log(`  ${p.label.padEnd(8)} ${keys.map((k) => `${k} ${med(p, k).toFixed(1)} ms`).join('   ')}`);
  const [b, t] = provers;
  console.log(`  this / baseline: ${keys.map((k) => `${k} ${(med(t, k) / med(b, k)).toFixed(3)}`).join(', ')}`);
  for (const p of provers) await p.prover.close();
}

const routes = [['baseline', before.accelerate], ['this', accelerate]].map(([label, accelerateWith]) => ({ label, accelerateWith, msm: [], proof: [] }));
for (const route of routes) {
  globalThis.curve_bn128 = null; // a curve of its own (ffjavascript returns the cached one otherwise)
  route.curve = await buildBn128();
  route.handle = await route.accelerateWith(route.curve, { threads });
  for (const group of ['G1', 'G2']) {
    const routed = route.curve[group].multiExpAffine;
    route.curve[group].multiExpAffine = async function (...a) {
      const t0 = performance.now();
      try {
        return await routed.apply(this, a);
      } finally {
        route.spent += performance.now() - t0;
      }
    };
  }
}
for (let r = -1; r < runs; r++) {
  for (const route of r % 2 ? routes : [...routes].reverse()) {
    globalThis.curve_bn128 = route.curve;
    route.spent = 0;
    const t0 = performance.now();
    const { proof, publicSignals } = await snarkjs[protocol].prove(f.zkey, f.wtns);
    const took = performance.now() - t0;
    if (!(await snarkjs[protocol].verify(vkey, publicSignals, proof))) throw new Error(`compare-routes: a proof of the ${route.label} route does not verify`);
    if (r >= 0) {
      route.msm.push(route.spent);
      route.proof.push(took);
    }
  }
}
console.log(`compare-routes: ${resolve(args.baseline)} (baseline) against this checkout; ${protocol} ${circuit}; Node ${process.version}; pools of ${threads} threads; medians of ${runs} proofs each, alternating`);
for (const route of routes) {
  console.log(`  ${route.label.padEnd(8)} MSMs ${median(route.msm).toFixed(0).padStart(6)} ms   prover ${median(route.proof).toFixed(0).padStart(6)} ms`);
}
const [b, t] = routes;
console.log(`  this / baseline: MSMs ${(median(t.msm) / median(b.msm)).toFixed(3)}, prover ${(median(t.proof) / median(b.proof)).toFixed(3)}`);
for (const route of routes) await route.handle.terminate();
