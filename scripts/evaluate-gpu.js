// evaluate-msm --gpu: the GPU MSM (curve.gpu()) next to the CPU thread pool on the same seeded inputs, with the
// adapter's description. Per curve and size: the pool's median (T threads, default every core), then the GPU's
// msmBytes from the input bytes on the host to the result on the host (median after a warm-up), the same over
// prepared bases (points uploaded once), and one run with timings for the split between transfers and phases (GPU
// timestamps around each pass where the adapter has them; else each phase runs alone, its total above the median).
// Every GPU result is checked against the pool's, and the pool's against @noble/curves at --check-size. Other kinds
// beside the shipped kernels: --gpu-variants w:mul[:sqr],... kernels of other limb sizes and product shapes (built
// here from codegen/, as bench/gpu-field.js does), --gpu-threads a:r[:run],... the shipped kernels with 2^a
// accumulate and 2^r reduce threads and sumRuns' run (src/gpu/plan.js GPU_THREADS), --gpu-windows c,... with window
// c, --gpu-no-glv without the GLV split (src/gpu/plan.js GPU_GLV) where the curve has it, and --gpu-wgsl dir the
// kernels of dir/<curve>/<curve>[.g2].wgsl (another checkout's wasm/: a kernel change timed against the shipped
// kernels in one process; the host side is this checkout's, so the file must keep its entry points). The kinds' runs are
// interleaved (run r of each, then run r + 1), so that the GPU's clocks fall alike on every row.

import { cpus } from 'node:os';
import { median, printTable, runtimeName, sameBytes } from './lib.js';
import { GPU_GLV, GPU_THREADS } from '../src/gpu/plan.js';

const PHASES = ['prepare', 'upload', 'encode', 'convert', 'digits', 'sort', 'accumulate', 'reduce', 'combine', 'scalarCheck', 'wait', 'download', 'finish', 'total'];

/** A view of `curve` whose GPU kernels are another build of its WGSL (w, fp_mul's and fp_sqr's shapes): what GpuCurve reads of a curve. */
async function variantOf(curve, name, w, mul, sqr) {
  const { buildGpuModule } = await import('../codegen/modules/gpu-module.js');
  const { readCurveParams } = await import('../codegen/modules/shipped.js');
  const { deriveCurveParams } = await import('../codegen/params/curve.js');
  const { buildGlvParams } = await import('../codegen/params/glv.js');
  const json = readCurveParams(name);
  // with the GLV split where the shipped kernels have it, as codegen/modules/curve-module.js builds them
  const glv = curve.params.gpu.glv ? buildGlvParams(deriveCurveParams(json)) : null;
  const { wgsl, gpu } = buildGpuModule(json, { scalarBytes: curve.params.scalarBytes, glv, w, mul, sqr });
  // (the rest from the curve itself: the host's combination of the window sums runs in its Wasm)
  const view = Object.create(curve, { params: { value: { ...curve.params, gpu } } });
  const { openGpu } = await import('../src/gpu/index.js');
  return (options) => openGpu(view, async () => ({ default: wgsl }), options);
}

/** A view of `curve` whose GPU kernels are the WGSL text of `file` (--gpu-wgsl). */
async function kernelsFrom(curve, file) {
  const { readFile } = await import('node:fs/promises');
  const wgsl = await readFile(file, 'utf8');
  const { openGpu } = await import('../src/gpu/index.js');
  return (options) => openGpu(curve, async () => ({ default: wgsl }), options);
}

/** Runs fn with the kind's module-wide switches (GPU_THREADS, GPU_GLV) set, then the shipped ones again. */
async function withKind(kind, fn) {
  const shipped = { ...GPU_THREADS };
  Object.assign(GPU_THREADS, kind.threads ?? shipped);
  GPU_GLV.enabled = kind.glv ?? true;
  try {
    return await fn();
  } finally {
    Object.assign(GPU_THREADS, shipped);
    GPU_GLV.enabled = true;
  }
}

/**
 * Times every kind on the same inputs, its runs interleaved with the other kinds' (run r of each kind, then run r + 1),
 * so that a GPU's clocks and the host's state fall alike on every row; each result checked against `expected`. Every
 * kind is open at once, each with its device, buffers and prepared bases: GPU memory for all of them.
 */
async function timeKinds(kinds, points, scalars, runs, expected, label, progress) {
  const opened = [];
  let running = true; // an error of the runs, not one of closing, is what the caller sees
  try {
    for (const kind of kinds) {
      progress(`${label}: opening GPU ${kind.label}...`);
      const t0 = performance.now();
      const gpu = await withKind(kind, () => kind.open());
      opened.push({ kind, gpu, openMs: performance.now() - t0, times: [], preparedTimes: [] });
    }
    const check = (got, o, what) => {
      if (!sameBytes(got, expected)) throw new Error(`${label} ${o.kind.label}: the GPU result${what} differs from the pool's`);
    };
    progress(`${label}: ${runs} interleaved runs of ${kinds.length} GPU kinds...`);
    for (let r = -1; r < runs; r++) {
      for (const o of opened) {
        const t = performance.now();
        const got = await withKind(o.kind, () => o.gpu.msmBytes(points, scalars, o.kind.options));
        if (r >= 0) o.times.push(performance.now() - t);
        check(got, o, '');
      }
    }
    for (const o of opened) {
      o.timings = {};
      const t = performance.now();
      await withKind(o.kind, () => o.gpu.msmBytes(points, scalars, { ...o.kind.options, timings: o.timings }));
      o.timings.total = performance.now() - t;
    }
    for (const o of opened) o.bases = await withKind(o.kind, () => o.gpu.prepareBases(points));
    for (let r = -1; r < runs; r++) {
      for (const o of opened) {
        const t = performance.now();
        const got = await withKind(o.kind, () => o.bases.msmBytes(scalars, o.kind.options));
        if (r >= 0) o.preparedTimes.push(performance.now() - t);
        check(got, o, ' over prepared bases');
      }
    }
    running = false;
    return opened.map(({ kind, gpu, openMs, times, preparedTimes, timings }) => ({ kind, adapter: gpu.adapter, openMs, times, preparedTimes, timings }));
  } finally {
    // every kind's buffers given back, even where one fails to
    const closing = await Promise.allSettled(opened.map(async (o) => {
      await o.bases?.free();
      await o.gpu.close();
    }));
    const failed = closing.find((r) => r.status === 'rejected');
    if (failed && !running) throw failed.reason;
  }
}

/**
 * Run the GPU rows; returns { machine, results } (printed unless json). targets: [{ name, label, curve }] as
 * evaluate-msm's (curve: the group object, the curve itself for G1 or curve.g2); nobleCheck(curve, label, k, points,
 * scalars, result): evaluate-msm's check against @noble/curves at its check size.
 */
export async function evaluateGpu({ targets, sizes, runs, threads, nobleCheck, variants = [], shapes = [], windows = [], noGlv = false, wgslDir = null, json = false, progress = () => {} }) {
  const results = [];
  for (const { name, group, label: curveLabel, curve } of targets) {
    for (const k of sizes) {
      const n = 2 ** k;
      progress(`${curveLabel} 2^${k}: generating ${n} points and scalars (seeded)...`);
      const points = curve.randomPointsBytes(n, { seed: 1000 + k });
      const scalars = curve.randomScalarsBytes(n, { seed: 2000 + k });
      progress(`${curveLabel} 2^${k}: the pool of ${threads} threads...`);
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
      const check = await nobleCheck(curve, curveLabel, k, points, scalars, expected);
      const poolMs = median(poolTimes);
      const glv = curve.params.gpu.glv ? ', GLV' : '';
      const kinds = [{ label: `w = ${curve.params.gpu.w}${glv} (shipped)`, open: () => curve.gpu() }];
      if (noGlv && glv) kinds.push({ label: `w = ${curve.params.gpu.w}, no GLV`, open: () => curve.gpu(), glv: false });
      for (const { w, mul, sqr } of variants) kinds.push({ label: `w = ${w}, ${mul}${sqr === 'mul' ? '' : `, sqr ${sqr}`}`, open: await variantOf(curve, name, w, mul, sqr) });
      if (wgslDir !== null) {
        const file = `${wgslDir}/${name}/${name}${group === 'G2' ? '.g2' : ''}.wgsl`;
        kinds.push({ label: `kernels of ${file}`, open: await kernelsFrom(curve, file) });
      }
      for (const window of windows) kinds.push({ label: `c = ${window}`, open: () => curve.gpu(), options: { window } });
      for (const { accumulate, reduce, run } of shapes) {
        const label = `threads 2^${Math.log2(accumulate)}/2^${Math.log2(reduce)}${run === GPU_THREADS.run ? '' : `, runs of ${run}`}`;
        kinds.push({ label, open: () => curve.gpu(), threads: { accumulate, reduce, run } });
      }
      for (const g of await timeKinds(kinds, points, scalars, runs, expected, `${curveLabel} 2^${k}`, progress)) {
        results.push({
          curve: curveLabel, logN: k, n, kernels: g.kind.label, adapter: g.adapter, openMs: g.openMs, threads, poolMs,
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
    const checks = new Set(results.filter((r) => r.check !== 'not checked').map((r) => `check: ${r.curve} 2^${r.logN}: the pool ${r.check}`));
    for (const line of checks) console.log(line);
  }
  return { machine, results };
}
