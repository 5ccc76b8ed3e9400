// The page of stream.html: ?curve=bls12-381&maxMemory=64 (MiB)&threads=0&kernel=auto. Fetches data/points.bin and
// data/scalars.bin (native encodings, served by stream-bench.js or the end-to-end test) and runs msmStream over the
// two bodies as they arrive, on the main thread (threads=0) or on a pool. Reports on window.wasmsmStream.
import { loadCurve } from 'wasmsm';

const report = (window.wasmsmStream = { state: 'running' });
const query = new URLSearchParams(location.search);
const status = document.getElementById('status');
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

async function run() {
  const curve = await loadCurve(query.get('curve') ?? 'bls12-381', { kernel: query.get('kernel') ?? 'auto' });
  const maxMemory = Number(query.get('maxMemory') ?? 64) * 2 ** 20;
  const threads = Number(query.get('threads') ?? 0);
  const target = threads ? await curve.threads({ count: threads }) : curve;
  status.textContent = `streaming into ${threads ? `a pool of ${threads}` : 'the main thread'} within ${maxMemory / 2 ** 20} MiB…`;
  const timings = {};
  const t0 = performance.now();
  const [points, scalars] = await Promise.all([fetch('data/points.bin'), fetch('data/scalars.bin')]);
  if (!points.ok || !scalars.ok) throw new Error(`fetch failed: ${points.status} / ${scalars.status}`);
  const out = await target.msmStream({ points: points.body, scalars: scalars.body }, { maxMemory, timings });
  const ms = performance.now() - t0;
  Object.assign(report, {
    state: 'done', result: hex(out), ms, timings, kernel: curve.kernel, threads, userAgent: navigator.userAgent,
    memoryBytes: threads ? target.memoryBytes : timings.memoryBytes, sharedMemory: threads ? target.sharedMemory : null,
  });
  status.textContent = `done in ${ms.toFixed(0)} ms; Wasm memory ${(report.memoryBytes / 2 ** 20).toFixed(1)} MiB`;
  document.getElementById('result').textContent = report.result;
  await target.close?.();
}

run().catch((e) => {
  Object.assign(report, { state: 'error', error: String(e?.stack ?? e) });
  status.textContent = `error: ${e?.message ?? e}`;
}).finally(() => {
  document.body.dataset.state = report.state;
});
