#!/usr/bin/env node
// snarkjs with and without wasmsm/snarkjs: the same proof (same zkey, same input) timed both ways in the same run,
// in Node (the route's pool of --threads, default 2, against ffjavascript's default workers: one per core) and, with
// --browser, in headless Chromium (bench/snarkjs/page.js, served cross-origin isolated so the pool shares memory).
// Each figure is the median of --runs proofs (default 3) after one warm-up, plain and routed taking turns on one
// route kept for the case (as a user keeps it); for Groth16 also groth16Prove (the whole proof in Wasm) on a
// Groth16Prover kept for the case (--no-prover leaves it out). A proof runs slower after one that left much garbage:
// the rounds alternate two orders (plain, routed, groth16Prove; plain, groth16Prove, routed), so that over an even
// --runs each kind comes as often after each of the other two. Under each table, the speedups again round by round
// (snarkjs alone's proof over the other's of the same round: median and range), which a machine whose speed drifts
// during the run moves less than the ratio of medians. Every proof is verified by snarkjs's verifier. Phases
// (bench/snarkjs/phases.js): witness, then the prover's MSM, FFT, ABC (Groth16) and the rest; groth16Prove's own
// phases are printed under each table.
//
//   npm run bench:snarkjs        # Groth16 at 2^12, 2^14, 2^16; PLONK at 2^12, 2^14; FFLONK (missing fixtures first: minutes)
//   npm run bench:snarkjs -- --cases merkle16:groth16,merkle4:plonk --runs 5 --browser
//   npm run bench:snarkjs -- --cases sha8:groth16 --runs 3   # 2^18 (its fixtures: about 10 minutes the first time)
//   npm run bench:snarkjs -- --cases sha2:groth16 --shared-memory false --browser --not-isolated   # the message path
//
// --shared-memory true|false|auto: the pools' transport in Node (the route's and groth16Prove's) (default auto: shared); --not-isolated: the
// page is served without COOP/COEP, as most sites are, so the page's pool has no SharedArrayBuffer (message path).
//
// Cases are circuit:protocol[:curve] (curve bn128 unless given) from scripts/snarkjs-fixtures.js.

import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import * as snarkjs from 'snarkjs';
import { accelerate, Groth16Prover } from 'wasmsm/snarkjs';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { compare } from './snarkjs/phases.js';

const DEFAULT_CASES = 'merkle16:groth16,eddsa3:groth16,sha2:groth16,merkle1:plonk,merkle4:plonk,merkle1:fflonk';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const runs = Number(opt('runs', 3));
const threads = Number(opt('threads', 2));
const sharedMemory = { true: true, false: false, auto: 'auto' }[opt('shared-memory', 'auto')];
if (sharedMemory === undefined) throw new RangeError('--shared-memory takes true, false or auto');
const cases = opt('cases', DEFAULT_CASES).split(',').map((c) => {
  const [circuit, protocol, curve = 'bn128'] = c.split(':');
  return { circuit, protocol, curve };
});

const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const x = (a, b) => `${(a / b).toFixed(2)}x`;

function table(env, c, f, { plain, routed, stats, wasm, wasmTimings, roundsRouted, roundsWasm }) {
  const rows = ['witness', 'msm', 'msmG2', 'fft', 'abc', 'other', 'prove', 'total'];
  const name = { witness: 'witness', msm: 'MSM', msmG2: '  of which G2', fft: 'FFT', abc: 'ABC', other: 'other', prove: 'prove (all but witness)', total: 'end to end (witness + prove)' };
  console.log(`\n${env}: ${c.protocol} ${c.circuit} on ${c.curve} (${f.info.nConstraints} constraints, domain 2^${f.power}), median of ${runs}; route: ${stats.routed} MSMs of ${stats.points} points in all per proof`);
  const ours = wasm ? `${'groth16Prove'.padStart(14)}${'vs snarkjs'.padStart(11)}` : '';
  console.log(`  ${'phase'.padEnd(30)}${'snarkjs'.padStart(10)}${'+ wasmsm'.padStart(10)}${'speedup'.padStart(9)}${ours}`);
  for (const k of rows) {
    if ((k === 'abc' || k === 'msmG2') && c.protocol !== 'groth16') continue;
    const mine = wasm ? `${(k === 'msmG2' ? '-' : fmt(wasm[k])).padStart(14)}${(k !== 'msmG2' && wasm[k] > 0.5 ? x(plain[k], wasm[k]) : '-').padStart(11)}` : '';
    console.log(`  ${name[k].padEnd(30)}${fmt(plain[k]).padStart(10)}${fmt(routed[k]).padStart(10)}${(routed[k] > 0.5 ? x(plain[k], routed[k]) : '-').padStart(9)}${mine}`);
  }
  // the same ratios round by round: a machine whose speed drifts over the run moves the medians above apart
  const spread = ({ median: m, min, max }) => `${m.toFixed(2)}x (${min.toFixed(2)}-${max.toFixed(2)}x)`;
  for (const [who, r] of [['+ wasmsm', roundsRouted], ['groth16Prove', roundsWasm]]) {
    if (r) console.log(`  ${who} vs snarkjs alone, round by round (median, range over ${runs}): end to end ${spread(r.total)}, prove ${spread(r.prove)}`);
  }
  if (wasmTimings) {
    const phases = Object.entries(wasmTimings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
    console.log(`  groth16Prove's phases (ms, medians; msm* each MSM alone, msm the MSMs' wall time, which the NTTs overlap): ${phases}`);
  }
}

/** The fixture of a case, with the circuit's r1cs info and Groth16/PLONK domain power for the table. */
async function prepare(c) {
  const f = await fixture(snarkjs, c.circuit, c.curve, c.protocol);
  f.info = JSON.parse(readFileSync(`${f.r1cs}.info.json`, 'utf8'));
  f.vkeyJson = JSON.parse(readFileSync(f.vkey, 'utf8'));
  f.power = f.vkeyJson.power ?? Math.ceil(Math.log2(f.info.nConstraints + f.info.nPubInputs + f.info.nOutputs + 1));
  return f;
}

async function node(list) {
  console.log(`Node ${process.version}, ${cpus()[0].model}, ${availableParallelism()} cores; wasmsm pool of ${threads} threads (sharedMemory ${sharedMemory}) vs ffjavascript's ${availableParallelism()} workers`);
  const out = [];
  for (const { c, f } of list) {
    const curve = await snarkjs.curves.getCurveFromName(c.curve);
    // groth16Prove beside the two, on a prover kept for the case (as the route is)
    const prover = c.protocol === 'groth16' && !args.includes('--no-prover') ? new Groth16Prover({ threads, sharedMemory }) : undefined;
    let r;
    try {
      r = await compare(snarkjs, accelerate, curve, c.protocol, { zkey: f.zkey, wasm: f.wasm, input: f.input }, f.vkeyJson, { runs, threads, sharedMemory, prover });
    } finally {
      await prover?.close();
    }
    table('Node', c, f, r);
    out.push({ env: 'node', ...c, constraints: f.info.nConstraints, power: f.power, ...r });
  }
  return out;
}

async function browser(list) {
  const { snarkjsPage } = await import('./snarkjs/browser.js');
  const page = await snarkjsPage(list.map(({ f }) => f), { isolated: !args.includes('--not-isolated') });
  const out = [];
  try {
    for (const [i, { c, f }] of list.entries()) {
      const report = await page.run(i, { runs, threads });
      if (i === 0) console.log(`\n${report.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0]}, ${report.cores} cores, crossOriginIsolated ${report.crossOriginIsolated}`);
      table('Chromium', c, f, report);
      const { plain, routed, stats, wasm, wasmTimings, roundsRouted, roundsWasm } = report;
      out.push({ env: 'chromium', ...c, constraints: f.info.nConstraints, power: f.power, plain, routed, stats, wasm, wasmTimings, roundsRouted, roundsWasm });
    }
  } finally {
    await page.close();
  }
  return out;
}

const list = [];
for (const c of cases) list.push({ c, f: await prepare(c) });
const results = await node(list);
if (args.includes('--browser')) results.push(...(await browser(list)));
await terminateCurves();
const json = opt('json');
if (json) writeFileSync(json, JSON.stringify(results, null, 1));
