// The browser half of bench/snarkjs-bench.js and test/snarkjs-browser.e2e.test.js (bench/snarkjs/browser.js): one case (?case=i: i.json,
// i.zkey, i.wasm next to the page) proved by snarkjs's browser build with and without wasmsm/snarkjs (bench/snarkjs/
// phases.js), and for Groth16 by groth16Prove too (?prover=0 leaves it out); every proof verified by snarkjs's
// verifier. Reports on window.snarkjsBench.

import * as snarkjs from 'snarkjs';
import { accelerate, Groth16Prover } from 'wasmsm/snarkjs';
import { compare } from './phases.js';

const q = new URLSearchParams(location.search);
const report = (window.snarkjsBench = { state: 'running', userAgent: navigator.userAgent, cores: navigator.hardwareConcurrency, crossOriginIsolated });
const out = document.getElementById('out');

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

try {
  const i = q.get('case');
  const c = await (await fetch(`${i}.json`)).json();
  const files = { zkey: { type: 'mem', data: await bytes(`${i}.zkey`) }, wasm: { type: 'mem', data: await bytes(`${i}.wasm`) }, input: c.input };
  const curve = await snarkjs.curves.getCurveFromName(c.curve);
  const threads = Number(q.get('threads') ?? navigator.hardwareConcurrency);
  // groth16Prove beside the two (?prover=0 leaves it out)
  const prover = c.protocol === 'groth16' && q.get('prover') !== '0' ? new Groth16Prover({ threads }) : undefined;
  let r;
  try {
    r = await compare(snarkjs, accelerate, curve, c.protocol, files, c.vkey, {
      runs: Number(q.get('runs') ?? 1),
      threads,
      prover,
      ...(q.has('minPoints') && { minPoints: Number(q.get('minPoints')) }),
    });
  } finally {
    await prover?.close();
  }
  Object.assign(report, r, { state: 'done' });
  out.textContent = JSON.stringify(r, null, 1);
} catch (e) {
  Object.assign(report, { state: 'error', error: `${e?.stack ?? e}` });
  out.textContent = report.error;
}
