// The browser half of bench/ntt.js --browser: bench/ntt/rows.js in a page, wasmsm's NTT against ffjavascript's FFT
// (snarkjs's browser build carries it) in the same tab. ?curves=bn254,bls12-381&log=16&rounds=9&threads=2. Reports
// on window.nttBench.

import * as snarkjs from 'snarkjs';
import { loadCurve } from 'wasmsm';
import { nttRows } from './rows.js';

const q = new URLSearchParams(location.search);
const report = (window.nttBench = { state: 'running', userAgent: navigator.userAgent, cores: navigator.hardwareConcurrency, crossOriginIsolated });
const FF_NAMES = { bn254: 'bn128', 'bls12-381': 'bls12381' };

try {
  const threads = Number(q.get('threads') ?? navigator.hardwareConcurrency);
  const logs = (q.get('log') ?? '16').split(',').map(Number);
  const rounds = Number(q.get('rounds') ?? 9);
  report.rows = [];
  for (const name of (q.get('curves') ?? 'bn254,bls12-381').split(',')) {
    const curve = await loadCurve(name);
    // a page without COOP/COEP has no shared memory: its pool takes the message path, timed once
    const pool = await curve.threads({ count: threads });
    const poolMsg = crossOriginIsolated ? await curve.threads({ count: threads, sharedMemory: false }) : null;
    const ff = await snarkjs.curves.getCurveFromName(FF_NAMES[name]);
    const ff1 = await snarkjs.curves.getCurveFromName(FF_NAMES[name], { singleThread: true });
    try {
      report.rows.push(...(await nttRows({ name, curve, pool, poolMsg, ff, ff1, logs, rounds })));
    } finally {
      await ff.terminate();
      await ff1.terminate();
      await pool.close();
      await poolMsg?.close();
    }
  }
  report.threads = threads;
  report.state = 'done';
} catch (e) {
  Object.assign(report, { state: 'error', error: `${e?.stack ?? e}` });
}
document.getElementById('out').textContent = JSON.stringify(report, null, 1);
