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

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as snarkjs from 'snarkjs';
import { buildBn128 } from 'ffjavascript';
import { median, parseCli } from '../scripts/lib.js';
import { accelerate } from '../src/adapters/snarkjs.js';
import { fixture } from '../scripts/snarkjs-fixtures.js';

const HELP = 'usage: node bench/compare-routes.js --baseline <dir> [--case circuit:protocol] [--runs 12] [--threads 2]';
const args = parseCli('compare-routes', HELP, {
  baseline: { type: 'string' },
  case: { type: 'string', default: 'sha2:groth16' },
  runs: { type: 'string', default: '12' },
  threads: { type: 'string', default: '2' },
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
