// The browser half of bench/groth16-memory.js --browser: one groth16Prove in a fresh page, started by the bench
// (window.proveOnce) once it has read the renderer's resident set, so that the figure leaves out the page itself.
// The zkey and the witness come from fetch(): as the response's stream (read section by section, as a path is in
// Node) or, with mode 'bytes', as the caller's whole copy. Reports on window.memoryBench.

import { groth16Prove } from 'wasmsm/snarkjs';

const report = (window.memoryBench = { state: 'ready', crossOriginIsolated });

async function body(url, mode) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return mode === 'bytes' ? new Uint8Array(await r.arrayBuffer()) : r.body;
}

window.proveOnce = async ({ zkey, wtns, mode, threads }) => {
  report.state = 'running';
  try {
    const timings = {};
    const { proof, publicSignals } = await groth16Prove(await body(zkey, mode), await body(wtns, mode), { threads, timings });
    Object.assign(report, { state: 'done', ms: timings.total, proof, publicSignals });
  } catch (e) {
    Object.assign(report, { state: 'error', error: `${e?.stack ?? e}` });
  }
};
document.getElementById('out').textContent = 'ready';
