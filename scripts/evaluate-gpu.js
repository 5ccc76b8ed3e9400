// evaluate-msm --gpu: the GPU MSM (curve.gpu()) next to the CPU thread pool on the same seeded inputs, with the
// adapter's description. Per curve and size: the pool's median (T threads, default every core), then the GPU's
// msmBytes from the input bytes on the host to the result on the host (median after a warm-up), the same over
// prepared bases (points uploaded once), and one run with timings for the split between transfers and phases (GPU
// timestamps around each pass where the adapter has them; else each phase runs alone, its total above the median). Every GPU result is checked against the
// pool's, and the pool's against @noble/curves at --check-size. --gpu-variants w:shape,... also times kernels of other
// limb sizes and product shapes (built here from codegen/, as bench/gpu-field.js does) on the same inputs, and
// --gpu-threads a:r,... the shipped kernels with 2^a accumulate and 2^r reduce threads (src/gpu/msm.js GPU_THREADS),
// and --gpu-no-glv the shipped kernels without the GLV split (src/gpu/msm.js GPU_GLV) where the curve has it.

import { cpus } from 'node:os';
import { loadCurve } from '../index.js';
import { nobleMsm } from './peers.js';
import { median, printTable, runtimeName, sameBytes } from './lib.js';
import { GPU_GLV, GPU_THREADS } from '../src/gpu/msm.js';

const PHASES = ['prepare', 'upload', 'convert', 'digits', 'sort', 'accumulate', 'reduce', 'combine', 'scalarCheck', 'wait', 'download', 'total'];

/** A view of `curve` whose GPU kernels are another build of its WGSL (w, shape): what GpuCurve reads of a curve. */
async function variantOf(curve, name, w, mul) {
  const { buildGpuModule } = await import('../codegen/modules/gpu-module.js');
  const { readCurveParams } = await import('../codegen/modules/shipped.js');
  const { deriveCurveParams } = await import('../codegen/params/curve.js');
  const { deriveGlvParams } = await import('../codegen/params/glv.js');
  const json = readCurveParams(name);
  // with the GLV split where the shipped kernels have it, as codegen/modules/curve-module.js builds them
  const glv = curve.params.gpu.glv ? deriveGlvParams(deriveCurveParams(json), { rounding: 'nearest', degreeTwo: true }) : null;
  const { wgsl, gpu } = buildGpuModule(json, { scalarBytes: curve.params.scalarBytes, glv, w, mul });
  // (the rest from the curve itself: the host's combination of the window sums runs in its Wasm)
  const view = Object.create(curve, { params: { value: { ...curve.params, gpu } } });
  const { openGpu } = await import('../src/gpu/index.js');
  return (options) => openGpu(view, async () => ({ default: wgsl }), options);
}

async function timeGpu(open, points, scalars, runs, expected, label) {
  const t0 = performance.now();
  const gpu = await open();
  const openMs = performance.now() - t0;
  try {
    const times = [];
    for (let r = -1; r < runs; r++) {
      const t = performance.now();
      const got = await gpu.msmBytes(points, scalars);
      if (r >= 0) times.push(performance.now() - t);
      if (!sameBytes(got, expected)) throw new Error(`${label}: the GPU result differs from the pool's`);
    }
    const timings = {};
    const t = performance.now();
    await gpu.msmBytes(points, scalars, { timings });
    timings.total = performance.now() - t;
    const bases = await gpu.prepareBases(points);
    const preparedTimes = [];
    for (let r = -1; r < runs; r++) {
      const t = performance.now();
      const got = await bases.msmBytes(scalars);
      if (r >= 0) preparedTimes.push(performance.now() - t);
      if (!sameBytes(got, expected)) throw new Error(`${label}: the GPU result over prepared bases differs from the pool's`);
    }
    bases.free();
    return { adapter: gpu.adapter, openMs, times, preparedTimes, timings };
  } finally {
    await gpu.close();
  }
}

/** Run the GPU rows; returns { machine, results } (printed unless json). */
export async function evaluateGpu({ curves, sizes, runs, threads, checkSize, variants = [], shapes = [], noGlv = false, json = false, progress = () => {} }) {
  const results = [];
  for (const name of curves) {
    const curve = await loadCurve(name);
    for (const k of sizes) {
      const n = 2 ** k;
      progress(`${name} 2^${k}: generating ${n} points and scalars (seeded)...`);
      const points = curve.randomPointsBytes(n, { seed: 1000 + k });
      const scalars = curve.randomScalarsBytes(n, { seed: 2000 + k });
      progress(`${name} 2^${k}: the pool of ${threads} threads...`);
      const pool = await curve.threads({ count: threads });
      const poolTimes = [];
      let expected;
      try {
        for (let r = -1; r < runs; r++) {
          const t = performance.now();
          const got = await pool.msmBytes(points, scalars);
          if (r >= 0) poolTimes.push(performance.now() - t);
          expected ??= got;
        }
      } finally {
        await pool.close();
      }
      let check = 'not checked';
      if (k === checkSize) {
        progress(`${name} 2^${k}: checking against @noble/curves...`);
        const want = await nobleMsm(curve.params, points, scalars);
        const got = curve.decodePoint(expected);
        if (!(want === null ? got === null : got !== null && want.x === got.x && want.y === got.y)) throw new Error(`${name} 2^${k}: the pool differs from @noble/curves`);
        check = 'pool matches @noble/curves';
      }
      const poolMs = median(poolTimes);
      const glv = curve.params.gpu.glv ? ', GLV' : '';
      const kinds = [{ label: `w = ${curve.params.gpu.w}${glv} (shipped)`, open: () => curve.gpu() }];
      if (noGlv && glv) kinds.push({ label: `w = ${curve.params.gpu.w}, no GLV`, open: () => curve.gpu(), glv: false });
      for (const { w, mul } of variants) kinds.push({ label: `w = ${w}, ${mul}`, open: await variantOf(curve, name, w, mul) });
      for (const { accumulate, reduce } of shapes) {
        kinds.push({ label: `threads 2^${Math.log2(accumulate)}/2^${Math.log2(reduce)}`, open: () => curve.gpu(), threads: { accumulate, reduce } });
      }
      const shipped = { ...GPU_THREADS };
      for (const kind of kinds) {
        progress(`${name} 2^${k}: GPU ${kind.label}...`);
        Object.assign(GPU_THREADS, kind.threads ?? shipped);
        GPU_GLV.enabled = kind.glv ?? true;
        const g = await timeGpu(kind.open, points, scalars, runs, expected, `${name} 2^${k} ${kind.label}`).finally(() => {
          Object.assign(GPU_THREADS, shipped);
          GPU_GLV.enabled = true;
        });
        results.push({
          curve: name, logN: k, n, kernels: kind.label, adapter: g.adapter, openMs: g.openMs, threads, poolMs,
          medianMs: median(g.times), minMs: Math.min(...g.times), maxMs: Math.max(...g.times), preparedMs: median(g.preparedTimes),
          vsPool: poolMs / median(g.times), window: g.timings.window, chunks: g.timings.chunks, phaseClock: g.timings.phaseClock,
          phasesMs: Object.fromEntries(PHASES.map((p) => [p, g.timings[p] ?? 0])), check,
        });
      }
    }
  }
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${runtimeName()}`;
  if (json) {
    console.log(JSON.stringify({ machine, runs, results }, null, 2));
  } else {
    console.log(`wasmsm evaluate-msm --gpu: ${machine}; GPU: ${results[0]?.adapter ?? '-'}; ${runs} runs (median, min-max), host bytes in to result out`);
    printTable(
      ['curve', 'N', 'kernels', 'c', 'chunks', 'GPU ms', 'min-max', 'prepared ms', `pool ms (T=${threads})`, 'GPU vs pool', 'open ms', ...PHASES.map((p) => `${p}*`)],
      results.map((r) => [
        r.curve, `2^${r.logN}`, r.kernels, r.window, r.chunks, r.medianMs.toFixed(2), `${r.minMs.toFixed(1)}-${r.maxMs.toFixed(1)}`, r.preparedMs.toFixed(2),
        r.poolMs.toFixed(1), `${r.vsPool.toFixed(2)}x`, r.openMs.toFixed(0), ...PHASES.map((p) => r.phasesMs[p].toFixed(2)),
      ]),
    );
    console.log(`* one run with timings (ms): the phases by ${results[0]?.phaseClock ?? '-'}; upload, wait (the host until the GPU's work is done) and download by the host's clock`);
    console.log('check: every GPU result (msmBytes and prepared bases) equals the pool\'s');
    for (const r of results) if (r.check !== 'not checked') console.log(`check: ${r.curve} 2^${r.logN}: ${r.check}`);
  }
  return { machine, results };
}
