// The page's GPU section (?gpu=1): the same seeded MSM through curve.gpu(), WebGPU from navigator.gpu, shown next to
// the CPU result. main.js imports this module only when asked, so a page without ?gpu=1 fetches none of it, and
// curve.gpu() fetches the library's GPU code and the curve's WGSL on its first call.

const $ = (id) => document.getElementById(id);
const hex = (x) => `0x${x.toString(16)}`;
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Timing entries of gpu.msmBytes that are not phase times. */
const NOT_PHASES = new Set(['window', 'chunks']);

function row(table, cells) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
  $(table).tBodies[0].append(tr);
}

/**
 * Run the MSM of (points, scalars) on the GPU and show it; cpuBytes is the CPU's result for the same inputs. Resolves
 * to what the page reports: { available: false, error } when this browser has no usable WebGPU (GpuUnavailableError:
 * no navigator.gpu, no adapter, limits too small), else { available: true, adapter, result, same, ... }. A GPU result
 * that differs from the CPU's, and any other error (a device lost mid-call among them), rejects.
 */
export async function runGpuSection(curve, points, scalars, cpuBytes, { runs, status, paint }) {
  const n = points.length / curve.pointBytes;
  status(`GPU: requesting a WebGPU device and compiling the ${curve.name} kernels…`);
  await paint();
  let t0 = performance.now();
  let gpu;
  try {
    gpu = await curve.gpu();
  } catch (e) {
    // compared by name: the package's entry point does not export the error classes
    if (e?.name !== 'GpuUnavailableError') throw e;
    const error = `${e.name}: ${e.message}`;
    const verdict = Object.assign(document.createElement('span'), { className: 'bad', textContent: 'WebGPU is not available in this browser' });
    $('gpu-verdict').replaceChildren(verdict, `, so the GPU MSM did not run (${error}). The CPU result above stands.`);
    return { available: false, error };
  }
  const openMs = performance.now() - t0;
  try {
    status(`GPU: MSM of ${n} points on ${gpu.adapter}: first run and ${runs} timed run(s)…`);
    await paint();
    t0 = performance.now();
    const bytes = await gpu.msmBytes(points, scalars);
    const firstMs = performance.now() - t0;
    const times = [];
    const phases = {};
    let windowBits;
    for (let r = 0; r < runs; r++) {
      const timings = {};
      t0 = performance.now();
      await gpu.msmBytes(points, scalars, { timings });
      times.push(performance.now() - t0);
      windowBits = timings.window;
      for (const [ph, ms] of Object.entries(timings)) if (!NOT_PHASES.has(ph) && typeof ms === 'number') (phases[ph] ??= []).push(ms);
    }
    const P = curve.decodePoint(bytes);
    const result = P === null ? null : { x: hex(P.x), y: hex(P.y) };
    const same = bytes.length === cpuBytes.length && bytes.every((b, i) => b === cpuBytes[i]);
    const msmMedianMs = median(times);
    const phasesMs = Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)]));

    $('gpu-adapter').textContent = gpu.adapter;
    $('gpu-result-x').textContent = result === null ? 'infinity' : result.x;
    $('gpu-result-y').textContent = result === null ? 'infinity' : result.y;
    row('gpu-times', ['curve.gpu(): device and kernels (compiled once per curve and device)', fmt(openMs), '']);
    row('gpu-times', ['MSM on the GPU, first run', fmt(firstMs), 'allocates the working buffers, kept for later calls']);
    row('gpu-times', [`MSM on the GPU, median of ${runs}`, fmt(msmMedianMs), `min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))}${windowBits ? `, window c = ${windowBits}` : ''}; timed phases run one at a time`]);
    for (const [ph, ms] of Object.entries(phasesMs)) row('gpu-times', [`phase: ${ph}`, fmt(ms), '']);
    $('gpu-table').hidden = false;
    const verdict = Object.assign(document.createElement('span'), { className: same ? 'ok' : 'bad', textContent: same ? 'same result' : 'DIFFERENT result' });
    $('gpu-verdict').replaceChildren(verdict, ' as the CPU MSM above on the same inputs.');
    if (!same) throw new Error('the GPU MSM and the CPU MSM disagree');
    return { available: true, adapter: gpu.adapter, result, same, openMs, firstMs, msmMs: times, msmMedianMs, phasesMs, window: windowBits };
  } finally {
    await gpu.close();
  }
}
