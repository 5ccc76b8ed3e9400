// The example page's GPU section (?gpu=1) end to end in headless Chromium: the page (esbuild bundle, served on
// 127.0.0.1 with the example's strict CSP) runs a BN254 MSM of 2^6 points through the public API, curve.gpu() with
// WebGPU from navigator.gpu, on SwiftShader (Chromium's CPU Vulkan driver; --enable-unsafe-webgpu gives headless
// Chromium an adapter there). The GPU result it shows must equal the oracle for the same seeded inputs: the library in
// Node, checked against @noble/curves (as test/browser.e2e.test.js). A page without ?gpu=1 fetches none of the GPU
// code or kernels. Without --enable-unsafe-webgpu, Chromium finds no adapter, and the page says that WebGPU is
// unavailable next to its CPU result (GpuUnavailableError), instead of failing.
//
// One curve at one size: SwiftShader compiles the kernels slowly (10-40 s a curve on a loaded machine), and proves
// results, never speed. Skipped like the other Chromium suites (test/chromium.js) in CI's second Node run.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { skipChromiumSuite } from './chromium.js';
import { buildExample, serve, findChromium, launchChromium, openExample, distDir, repoDir } from '../examples/browser/harness.js';

const CURVE = 'bn254';
const LOGN = 6;
const SEEDS = { pseed: 31, sseed: 47 };
const QUERY = { curve: CURVE, logn: LOGN, runs: 1, noble: 0, ...SEEDS };
/** What headless Chromium needs for navigator.gpu to find an adapter (SwiftShader); for tests, not for users. */
const WEBGPU_FLAGS = ['--enable-unsafe-webgpu'];
/** A page on SwiftShader: device, kernel compilation and two MSMs. */
const PAGE_TIMEOUT = 300_000;

const chromiumPath = findChromium();
const skip = skipChromiumSuite('browser-gpu.e2e.test.js');
const screenshotDir = join(distDir, 'screenshots');
const outdir = join(distDir, 'e2e-gpu', 'esbuild');

/** Strings found only in GPU code: the WGSL kernels, device acquisition, pipelines, the page's GPU section. */
const GPU_MARKERS = ['@compute', 'requestAdapter', 'createComputePipelineAsync', 'WebGPU is not available in this browser'];
const wgslFetched = (requests) => requests.filter((p) => /\.wgsl-[^/]*\.js$/.test(p));

/** The files a page fetched (paths on the server), read from the bundle. */
async function fetchedText(requests) {
  const texts = await Promise.all([...new Set(requests)].filter((p) => p.endsWith('.js')).map((p) => readFile(join(outdir, p), 'utf8')));
  return texts.join('\n');
}

/** The expected result: the library in Node, checked against @noble/curves. */
let expected;
async function oracle() {
  if (!expected) {
    const curve = await loadCurve(CURVE);
    const n = 2 ** LOGN;
    const points = curve.randomPointsBytes(n, { seed: SEEDS.pseed });
    const scalars = curve.randomScalarsBytes(n, { seed: SEEDS.sseed });
    const ours = curve.decodePoint(curve.msmBytes(points, scalars));
    const noble = await nobleMsm(curve.params, points, scalars);
    expect(ours, `${CURVE}: the library in Node vs @noble/curves`).toEqual(noble);
    expect(noble).not.toBeNull();
    expected = { x: `0x${noble.x.toString(16)}`, y: `0x${noble.y.toString(16)}` };
  }
  return expected;
}

describe.skipIf(skip)("the example page's GPU section in headless Chromium (WebGPU on SwiftShader)", () => {
  let server;
  let browser;

  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    await buildExample({ bundler: 'esbuild', outdir });
    server = await serve(outdir);
    browser = await launchChromium(chromiumPath, { args: WEBGPU_FLAGS });
    console.log(`chromium ${browser.version()} (${chromiumPath}) ${WEBGPU_FLAGS.join(' ')}`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it(`?gpu=1, ${CURVE} 2^${LOGN}: the GPU result shown equals the oracle; the GPU code is fetched only then`, { timeout: PAGE_TIMEOUT + 60_000 }, async () => {
    const t0 = performance.now();
    let before = server.requests.length;
    const { page, report, shown, logs, status } = await openExample(browser, server.url, { ...QUERY, gpu: 1 }, { timeout: PAGE_TIMEOUT });
    const withGpu = server.requests.slice(before);
    try {
      const path = join(screenshotDir, `e2e-gpu-esbuild-${CURVE}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`screenshot: ${relative(repoDir, path)}`);
      expect(report.state, `${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
      expect(logs, 'console errors or page errors').toEqual([]);
      const want = await oracle();
      expect(shown, 'the CPU result shown').toEqual(want);
      const gpuShown = await page.evaluate(() => ({ x: document.getElementById('gpu-result-x').textContent, y: document.getElementById('gpu-result-y').textContent }));
      expect(gpuShown, 'the GPU result shown on the page').toEqual(want);
      expect(report.gpu.available).toBe(true);
      expect(report.gpu.result).toEqual(gpuShown);
      expect(report.gpu.same, 'the page compared the GPU result with its CPU result').toBe(true);
      expect(await page.textContent('#gpu-verdict')).toMatch(/^same result as the CPU MSM/);
      expect(report.gpu.adapter, 'the adapter description (SwiftShader here)').toMatch(/swiftshader/);
      expect(await page.textContent('#gpu-adapter')).toBe(report.gpu.adapter);
      expect(await page.isVisible('#gpu-table')).toBe(true);
      for (const ms of [report.gpu.openMs, report.gpu.firstMs, report.gpu.msmMedianMs]) expect(ms).toBeGreaterThan(0);
      expect(Object.keys(report.gpu.phasesMs)).toEqual(expect.arrayContaining(['upload', 'accumulate', 'reduce', 'download']));
      expect(status).toMatch(/GPU median/);
      expect(wgslFetched(withGpu).map((p) => p.match(/([a-z0-9-]+)\.wgsl-/)[1]), 'kernels fetched: the curve\'s, only').toEqual([CURVE]);
      const text = await fetchedText(withGpu);
      for (const marker of GPU_MARKERS) expect(text, `the GPU page fetched code with ${JSON.stringify(marker)}`).toContain(marker);
      console.log(`${CURVE} 2^${LOGN} on ${report.gpu.adapter}: curve.gpu() ${report.gpu.openMs.toFixed(0)} ms, first MSM ${report.gpu.firstMs.toFixed(0)} ms, median ${report.gpu.msmMedianMs.toFixed(0)} ms (window ${report.gpu.window}); page ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await page.close();
    }

    // the same page without ?gpu=1: none of the markers above in anything it fetched
    before = server.requests.length;
    const plain = await openExample(browser, server.url, QUERY, { timeout: 60_000 });
    const withoutGpu = server.requests.slice(before);
    const gpuVerdict = await plain.page.textContent('#gpu-verdict');
    await plain.page.close();
    expect(plain.report.state, plain.status).toBe('done');
    expect(gpuVerdict).toMatch(/^not run/);
    expect(plain.report.gpu).toBeUndefined();
    expect(wgslFetched(withoutGpu)).toEqual([]);
    const text = await fetchedText(withoutGpu);
    for (const marker of GPU_MARKERS) expect(text, `a page without ?gpu=1 fetched code with ${JSON.stringify(marker)}`).not.toContain(marker);
  });

  it('without --enable-unsafe-webgpu: the page shows that WebGPU is unavailable, next to the CPU result', { timeout: 120_000 }, async () => {
    const plain = await launchChromium(chromiumPath);
    try {
      const { page, report, shown, logs, status } = await openExample(plain, server.url, { ...QUERY, gpu: 1 }, { timeout: 60_000 });
      try {
        expect(report.state, `${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
        // Chromium's own console warning when requestAdapter() finds none; nothing else
        expect(logs.filter((l) => l !== 'warning: No available adapters.'), 'console messages or page errors').toEqual([]);
        expect(shown, 'the CPU result shown').toEqual(await oracle());
        expect(report.gpu.available).toBe(false);
        expect(report.gpu.error).toMatch(/^GpuUnavailableError: .*(WebGPU|adapter)/);
        expect(await page.textContent('#gpu-verdict')).toMatch(/^WebGPU is not available in this browser, so the GPU MSM did not run \(GpuUnavailableError: /);
        expect(await page.isVisible('#gpu-table')).toBe(false);
        expect(status).toMatch(/GPU: WebGPU unavailable/);
        console.log(`without ${WEBGPU_FLAGS.join(' ')}: ${report.gpu.error}`);
      } finally {
        await page.close();
      }
    } finally {
      await plain.close();
    }
  });
});
