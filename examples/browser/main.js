// The example page: load a curve, run an MSM on seeded inputs, show the result, the time per phase, and a
// pure-JS MSM (@noble/curves) on the same inputs. Everything is driven by the query string, so a link (or a
// test) reproduces a run: ?curve=bn254&logn=12&runs=5&noble=1. The inputs are those of
// `npm run evaluate-msm` for the same size (points seed 1000 + logn, scalars seed 2000 + logn), so its Node
// figures are for the same inputs.
//
// ?threads=T runs the MSM on a pool of T Web Workers (curve.threads) instead of the main thread: the pool
// shares one Wasm memory between its threads when the page is cross-origin isolated (served with COOP
// same-origin and COEP require-corp), and sends each thread a slice of the inputs otherwise. ?shared=1 or 0
// forces one path (1 fails on a page that is not cross-origin isolated). The page shows which path ran.
//
// ?kernel=int, fma or wide picks the build of the curve's Wasm (loadCurve's `kernel`; default auto: the wide build
// where the browser validates wide arithmetic, else the FMA build where its relaxed-SIMD multiply-add is fused).
// The page shows which build ran.
//
// ?gpu=1 also runs the same MSM on the GPU through curve.gpu() (WebGPU from navigator.gpu) and shows its result, the
// adapter and the time next to the CPU's; a browser without WebGPU gets a message there, not a failed page. The GPU
// part of the page (gpu-section.js) and the library's GPU code and kernels are fetched only with ?gpu=1.

import { loadCurve, curveNames } from 'wasmsm';
// @noble/curves (a devDependency of wasmsm) is bundled into this example only; the library has no dependencies.
import { pureJsMsm } from './pure-js.js';

const $ = (id) => document.getElementById(id);
const hex = (x) => `0x${x.toString(16)}`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Timing entries that are not phase times (ms): the window size, the number of windows, the thread count, the chunks. */
const NOT_PHASES = new Set(['window', 'windows', 'threads', 'chunks', 'chunkPoints', 'flat', 'memoryBytes', 'bits']);
/** Let the browser paint the status line before a long synchronous step. */
const paint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

function readOptions() {
  const q = new URLSearchParams(location.search);
  const int = (name, fallback, lo, hi) => {
    const v = q.get(name);
    if (v === null || v === '') return fallback;
    const k = Number(v);
    if (!Number.isInteger(k) || k < lo || k > hi) throw new RangeError(`?${name}= takes an integer in ${lo}..${hi}, got ${JSON.stringify(v)}`);
    return k;
  };
  const curve = q.get('curve') || 'bls12-381';
  if (!curveNames.includes(curve)) throw new RangeError(`unknown curve ${JSON.stringify(curve)}; known: ${curveNames.join(', ')}`);
  const logn = int('logn', 10, 0, 20);
  const nobleValues = q.getAll('noble');
  const noble = nobleValues.length ? nobleValues.at(-1) === '1' : logn <= 12;
  const shared = q.get('shared') || 'auto';
  if (!['auto', '1', '0'].includes(shared)) throw new RangeError(`?shared= takes auto, 1 or 0, got ${JSON.stringify(shared)}`);
  const kernel = q.get('kernel') || 'auto';
  return {
    kernel,
    gpu: q.getAll('gpu').at(-1) === '1',
    curve,
    logn,
    runs: int('runs', 3, 1, 50),
    noble,
    threads: int('threads', 0, 0, 64),
    shared: { auto: 'auto', 1: true, 0: false }[shared],
    pointSeed: int('pseed', 1000 + logn, 0, 2 ** 31 - 1),
    scalarSeed: int('sseed', 2000 + logn, 0, 2 ** 31 - 1),
  };
}

function fillForm(opts) {
  const select = $('curve');
  for (const name of curveNames) select.add(new Option(name, name, false, name === opts.curve));
  $('logn').value = opts.logn;
  $('runs').value = opts.runs;
  $('threads').value = opts.threads;
  $('shared').value = opts.shared === 'auto' ? 'auto' : opts.shared ? '1' : '0';
  // An unchecked box sends nothing; a hidden 0 comes first, so a checked box's 1 wins (getAll().at(-1)).
  $('noble').checked = opts.noble;
  $('noble').before(Object.assign(document.createElement('input'), { type: 'hidden', name: 'noble', value: '0' }));
  $('gpu').before(Object.assign(document.createElement('input'), { type: 'hidden', name: 'gpu', value: '0' }));
  $('gpu').checked = opts.gpu;
}

function status(text) {
  $('status').textContent = text;
}

function row(table, cells) {
  const tr = document.createElement('tr');
  for (const c of cells) {
    const td = document.createElement('td');
    if (c instanceof Node) td.append(c);
    else td.textContent = c;
    tr.append(td);
  }
  $(table).tBodies[0].append(tr);
  return tr;
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
/** What tests and the bench script read back; the page shows the same values. */
const report = (window.wasmsmExample = { state: 'running' });

/** Add a timing row from outside (the bench script shows Node's time for the same inputs here). */
report.addTimeRow = (what, ms, note = '') => row('times', [what, fmt(ms), note]);

async function run(opts) {
  const n = 2 ** opts.logn;
  const isolated = globalThis.crossOriginIsolated === true;
  Object.assign(report, { curve: opts.curve, logn: opts.logn, n, runs: opts.runs, threads: opts.threads, crossOriginIsolated: isolated, sharedMemory: null });

  status(`loading ${opts.curve}…`);
  let t0 = performance.now();
  const curve = await loadCurve(opts.curve, { kernel: opts.kernel });
  const loadMs = performance.now() - t0;
  report.kernel = curve.kernel;

  status(`generating ${n} points and scalars…`);
  await paint();
  t0 = performance.now();
  const points = curve.randomPointsBytes(n, { seed: opts.pointSeed });
  const scalars = curve.randomScalarsBytes(n, { seed: opts.scalarSeed });
  const inputsMs = performance.now() - t0;

  // The pool: T workers, started once; its msmBytes is asynchronous, so the page stays responsive.
  let pool = null;
  let poolMs;
  if (opts.threads) {
    status(`starting a pool of ${opts.threads} thread(s)…`);
    t0 = performance.now();
    pool = await curve.threads({ count: opts.threads, sharedMemory: opts.shared });
    poolMs = performance.now() - t0;
    report.sharedMemory = pool.sharedMemory;
  }
  const where = pool ? `${pool.count} thread(s), ${pool.sharedMemory ? 'shared memory' : 'messages'}` : 'the main thread';
  const msm = (what, options) => {
    if (!pool) return curve.msmBytes(points, scalars, options);
    return pool.msmBytes(points, scalars, { ...options, onProgress: (f) => status(`MSM of ${n} points on ${where}: ${what}, ${Math.round(100 * f)}%`) });
  };

  status(`MSM of ${n} points on ${where}: warm-up and ${opts.runs} timed run(s)…`);
  await paint();
  const times = [];
  const phases = {};
  let windowBits;
  let resultBytes;
  let warmupMs;
  try {
    t0 = performance.now();
    resultBytes = await msm('warm-up');
    warmupMs = performance.now() - t0;
    for (let r = 0; r < opts.runs; r++) {
      const timings = {};
      t0 = performance.now();
      await msm(`run ${r + 1} of ${opts.runs}`, { timings });
      times.push(performance.now() - t0);
      windowBits = timings.window;
      for (const [ph, ms] of Object.entries(timings)) if (!NOT_PHASES.has(ph)) (phases[ph] ??= []).push(ms);
    }
    // The same sum over prepared bases (converted once, with precompute), on the same thread(s).
    status(`prepared bases (precompute) of ${n} points on ${where}…`);
    await paint();
    t0 = performance.now();
    const bases = pool ? await pool.prepareBases(points, { precompute: true }) : curve.prepareBases(points, { precompute: true });
    report.preparedSetupMs = performance.now() - t0;
    t0 = performance.now();
    const preparedBytes = await bases.msmBytes(scalars);
    report.preparedMs = performance.now() - t0;
    report.preparedSame = preparedBytes.every((b, i) => b === resultBytes[i]);
    await bases.free();
    // G2 (bls12-381, bn254): the same MSM over F_p2, on the same kind of thread(s), checked against @noble/curves' G2.
    if (curve.g2) {
      const g2 = curve.g2;
      const k = Math.min(n, 64);
      const g2Points = g2.randomPointsBytes(k, { seed: opts.pointSeed });
      const g2Scalars = scalars.subarray(0, k * g2.scalarBytes);
      status(`G2 MSM of ${k} points on ${where}…`);
      await paint();
      const g2Pool = pool ? await g2.threads({ count: pool.count, sharedMemory: pool.sharedMemory }) : null;
      try {
        t0 = performance.now();
        const g2Bytes = g2Pool ? await g2Pool.msmBytes(g2Points, g2Scalars) : g2.msmBytes(g2Points, g2Scalars);
        report.g2Ms = performance.now() - t0;
        const show = (P) => (P === null ? 'infinity' : [P.x.c0, P.x.c1, P.y.c0, P.y.c1].map(hex).join());
        report.g2Match = show(g2.decodePoint(g2Bytes)) === show(await pureJsMsm(g2.params, g2Points, g2Scalars));
        row('times', [`G2 MSM of ${k} points on ${where}`, fmt(report.g2Ms), report.g2Match ? 'same result as @noble/curves G2' : 'DIFFERENT result']);
      } finally {
        await g2Pool?.close();
      }
      if (!report.g2Match) throw new Error('G2: the Wasm MSM and @noble/curves disagree');
    }
  } finally {
    await pool?.close();
  }
  const result = curve.decodePoint(resultBytes);
  const msmMedian = median(times);
  const phaseMedians = Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)]));

  $('out-curve').textContent = opts.curve;
  $('out-n').textContent = `2^${opts.logn} = ${n}`;
  $('out-path').textContent = pool
    ? `pool of ${pool.count} Web Worker(s), ${pool.sharedMemory ? 'shared-memory path (one shared Wasm memory)' : 'message path (a slice of the inputs per thread)'}: pool.sharedMemory = ${pool.sharedMemory}`
    : 'main thread (curve.msmBytes, synchronous)';
  $('out-isolated').textContent = isolated
    ? 'yes: crossOriginIsolated = true (COOP + COEP), SharedArrayBuffer available'
    : 'no: crossOriginIsolated = false, no SharedArrayBuffer (the pool sends messages)';
  $('out-inputs').textContent = `randomPointsBytes(${n}, { seed: ${opts.pointSeed} }), randomScalarsBytes(${n}, { seed: ${opts.scalarSeed} })`;
  $('result-x').textContent = result === null ? 'infinity' : hex(result.x);
  $('result-y').textContent = result === null ? 'infinity' : hex(result.y);
  row('times', [`load curve (decode + compile + instantiate Wasm), ${{ fma: 'FMA', wide: 'wide', int: 'integer' }[curve.kernel]} kernels`, fmt(loadMs), '']);
  row('times', ['generate inputs (seeded, in Wasm)', fmt(inputsMs), '']);
  if (pool) row('times', [`start the pool (${pool.count} workers)`, fmt(poolMs), 'curve.threads(), once per page']);
  row('times', [`MSM on ${where}, first run`, fmt(warmupMs), 'includes warm-up']);
  row('times', [`MSM on ${where}, median of ${opts.runs}`, fmt(msmMedian), `min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))}${windowBits ? `, window c = ${windowBits}` : ''}`]);
  row('times', ['prepareBases({ precompute: true }), once', fmt(report.preparedSetupMs), '']);
  row('times', [`MSM over the prepared bases on ${where}`, fmt(report.preparedMs), report.preparedSame ? 'same result' : 'DIFFERENT result']);
  if (!report.preparedSame) throw new Error('the prepared bases gave another result');
  const phaseTotal = Object.values(phaseMedians).reduce((a, b) => a + b, 0);
  for (const [ph, ms] of Object.entries(phaseMedians)) {
    const share = phaseTotal > 0 ? ms / phaseTotal : 0;
    const bar = Object.assign(document.createElement('span'), { className: 'bar' });
    bar.style.width = `${Math.round(share * 120)}px`;
    const cell = document.createElement('span');
    cell.append(bar, `${(100 * share).toFixed(0)}%`);
    row('phases', [ph, fmt(ms), cell]);
  }
  $('env').textContent = `${navigator.userAgent}; ${navigator.hardwareConcurrency} logical CPUs; Wasm memory after the MSM: ${(curve.memory.buffer.byteLength / 2 ** 20).toFixed(1)} MiB${pool ? ' (this thread\'s instance; the pool\'s memory is not counted)' : ''}`;
  Object.assign(report, {
    result: result === null ? null : { x: hex(result.x), y: hex(result.y) },
    loadMs, inputsMs, poolMs, warmupMs, msmMs: times, msmMedianMs: msmMedian, phasesMs: phaseMedians, window: windowBits,
    memoryBytes: curve.memory.buffer.byteLength, userAgent: navigator.userAgent,
  });
  $('out').hidden = false;

  if (opts.noble) {
    status(`pure-JS MSM (@noble/curves) of ${n} points…`);
    await paint();
    t0 = performance.now();
    const theirs = await pureJsMsm(curve.params, points, scalars);
    const nobleMs = performance.now() - t0;
    const same = theirs === null ? result === null : result !== null && theirs.x === result.x && theirs.y === result.y;
    row('times', ['pure JS: @noble/curves pippenger', fmt(nobleMs), `${(nobleMs / msmMedian).toFixed(1)}× the Wasm median`]);
    const verdict = Object.assign(document.createElement('span'), { className: same ? 'ok' : 'bad', textContent: same ? 'same result' : 'DIFFERENT result' });
    $('compare').replaceChildren(verdict, ` as @noble/curves (pure JS) on the same inputs, which took ${fmt(nobleMs)} ms.`);
    Object.assign(report, { nobleMs, nobleMatch: same });
    if (!same) throw new Error('the Wasm MSM and @noble/curves disagree');
  } else {
    $('compare').textContent = 'skipped (tick "compare with pure JS"; it is slow for large N).';
  }

  let gpuSummary = '';
  if (opts.gpu) {
    // Fetched only here: a page that never asks for the GPU loads none of its code or kernels.
    const { runGpuSection } = await import('./gpu-section.js');
    const gpu = await runGpuSection(curve, points, scalars, resultBytes, { runs: opts.runs, status, paint });
    report.gpu = gpu;
    gpuSummary = gpu.available ? `; GPU median ${fmt(gpu.msmMedianMs)} ms` : '; GPU: WebGPU unavailable';
  } else {
    $('gpu-verdict').textContent = 'not run (tick "GPU (WebGPU)", or add ?gpu=1 to the address).';
  }
  return `done: ${opts.curve}, N = 2^${opts.logn}, ${where}: MSM median ${fmt(msmMedian)} ms${gpuSummary}`;
}

async function main() {
  let opts;
  try {
    opts = readOptions();
    fillForm(opts);
    const summary = await run(opts);
    status(summary);
    report.state = 'done';
  } catch (e) {
    status(`error: ${e?.message ?? e}`);
    report.state = 'error';
    report.error = String(e?.stack ?? e);
    console.error(e);
  }
  document.body.dataset.state = report.state;
}

main();
