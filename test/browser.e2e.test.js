// End to end in a real browser: the example page (examples/browser) bundled with esbuild and with Vite, served
// on 127.0.0.1 with a strict Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval'), driven in headless
// Chromium (Debian's, /usr/bin/chromium, through playwright-core). For BLS12-381 and BN254 the MSM result the
// page shows must equal the oracle for the same seeded inputs, computed here in Node by the library and checked
// against @noble/curves (scripts/peers.js), so the oracle does not rest on the library alone. Also: the page's
// own pure-JS comparison agrees, only the chosen curve's Wasm chunk is fetched, no console error or page error
// occurs, and without 'wasm-unsafe-eval' the page reports that the Wasm was refused.
//
// Threads (?threads=2: curve.threads, Web Workers started from a blob: URL, CSP worker-src blob:), in both
// bundles, with no plugin or bundler config: served with COOP/COEP the page is cross-origin isolated and the
// pool takes its shared-memory path; served without, its message path; both show the oracle result. The
// worker script is fetched only by a page that starts a pool. Without worker-src blob: in the CSP,
// curve.threads() rejects (it must not hang), and sharedMemory: true rejects on a page that is not isolated.
//
// Served without connect-src (default-src 'none' then refuses every fetch) the page works, with and without threads:
// the Wasm arrives as script. In a Chromium whose V8 has FMA3 turned off (--js-flags=--no-enable-fma3: relaxed_madd
// rounds twice) the page loads the integer build and kernel=fma reports the RangeError.
//
// Screenshots (not committed): examples/browser/dist/screenshots/*.png; their paths are printed.
// Chromium: .ci/run installs it when missing. Outside CI the suite is skipped, with a message, when no
// chromium is found (apt-get install -y chromium, or set CHROMIUM_PATH); in CI (CI=true) a missing chromium fails.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { skipChromiumSuite } from './chromium.js';
import {
  buildExample, serve, findChromium, launchChromium, openExample, distDir, repoDir, CSP, CSP_WITHOUT_CONNECT, CSP_WITHOUT_WASM, CSP_WITHOUT_WORKERS,
} from '../examples/browser/harness.js';

const LOGN = 10;
const SEEDS = { pseed: 31, sseed: 47 };
const chromiumPath = findChromium();
const skip = skipChromiumSuite('browser.e2e.test.js');

const screenshotDir = join(distDir, 'screenshots');
const hex = (P) => (P === null ? null : { x: `0x${P.x.toString(16)}`, y: `0x${P.y.toString(16)}` });

/** The expected result for the page's inputs: the library in Node, checked against @noble/curves. */
const oracleCache = new Map();
async function oracle(curveName, logn) {
  const key = `${curveName}/${logn}`;
  if (!oracleCache.has(key)) {
    const curve = await loadCurve(curveName);
    const n = 2 ** logn;
    const points = curve.randomPointsBytes(n, { seed: SEEDS.pseed });
    const scalars = curve.randomScalarsBytes(n, { seed: SEEDS.sseed });
    const ours = curve.decodePoint(curve.msmBytes(points, scalars));
    const noble = await nobleMsm(curve.params, points, scalars);
    expect(ours, `${curveName}: the library in Node vs @noble/curves`).toEqual(noble);
    expect(noble).not.toBeNull();
    oracleCache.set(key, hex(noble));
  }
  return oracleCache.get(key);
}

/** Chunk files the page fetched that hold a curve's Wasm, as curve names (<curve>.fma for its FMA build). */
const wasmFetched = (requests) => [...new Set(requests.map((p) => p.match(/\/([a-z0-9-]+(?:\.fma)?)\.wasm-[^/]*\.js$/)?.[1]).filter(Boolean))];
/** Whether the page fetched the chunk of the pool's worker script (wasm/threads-worker.js). */
const workerScriptFetched = (requests) => requests.some((p) => /\/threads-worker-[^/]*\.js$/.test(p));

describe.skipIf(skip)('the example page in headless Chromium', () => {
  let browser;
  const servers = {};
  /** The same bundles served with COOP/COEP: the page is cross-origin isolated. */
  const isolatedServers = {};

  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    for (const bundler of ['esbuild', 'vite']) {
      const outdir = join(distDir, 'e2e', bundler);
      const files = await buildExample({ bundler, outdir });
      expect(files.some((f) => f.endsWith('.wasm')), `${bundler}: Wasm is inlined (base64), not a separate .wasm file`).toBe(false);
      servers[bundler] = await serve(outdir);
      isolatedServers[bundler] = await serve(outdir, { isolated: true });
    }
    browser = await launchChromium(chromiumPath);
    console.log(`chromium ${browser.version()} (${chromiumPath}), vite ${(await import('vite')).version}`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of [...Object.values(servers), ...Object.values(isolatedServers)]) await s.close();
  });

  /** Open the page for one curve and check everything it shows; resolves to the page's report. */
  async function check(bundler, curveName, { screenshot = false, kernel } = {}) {
    const server = servers[bundler];
    const before = server.requests.length;
    const query = { curve: curveName, logn: LOGN, runs: 1, noble: 1, ...SEEDS, ...(kernel && { kernel }) };
    const { page, report, shown, logs, status } = await openExample(browser, server.url, query);
    try {
      if (screenshot) {
        const path = join(screenshotDir, `e2e-${bundler}-${curveName}.png`);
        await page.screenshot({ path, fullPage: true });
        console.log(`screenshot: ${relative(repoDir, path)}`);
      }
      expect(report.state, `${bundler} ${curveName}: ${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
      expect(logs, 'console errors or page errors').toEqual([]);
      expect(shown, `${bundler} ${curveName}: the result shown on the page`).toEqual(await oracle(curveName, LOGN));
      expect(report.result).toEqual(shown);
      expect(report.nobleMatch, 'the page compared with @noble/curves').toBe(true);
      expect(report.preparedSame, 'prepared bases (precompute) on the main thread give the same result').toBe(true);
      expect(report.g2Match, 'G2 on the main thread equals @noble/curves G2').toBe(true);
      expect(Object.keys(report.phasesMs)).toEqual(expect.arrayContaining(['prepare', 'accumulate', 'reduce', 'combine']));
      // auto: Chromium's relaxed_madd is fused (x86-64 with FMA, as every machine this runs on), so the FMA build
      expect(report.kernel, 'the build that ran').toBe(kernel ?? 'fma');
      expect(wasmFetched(server.requests.slice(before)), 'Wasm chunks fetched: the build that ran, only').toEqual([report.kernel === 'fma' ? `${curveName}.fma` : curveName]);
      expect(workerScriptFetched(server.requests.slice(before)), 'the worker script is fetched only for a pool').toBe(false);
      console.log(`${bundler} ${curveName} 2^${LOGN}: MSM ${report.msmMedianMs.toFixed(1)} ms in ${report.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0]}, @noble/curves ${report.nobleMs.toFixed(0)} ms`);
      return report;
    } finally {
      await page.close();
    }
  }

  it('esbuild bundle, BLS12-381: shows the oracle result', { timeout: 120_000 }, async () => {
    await check('esbuild', 'bls12-381', { screenshot: true });
  });

  it('esbuild bundle, BN254: shows the oracle result, with the FMA build (auto) and the integer build (kernel=int)', { timeout: 120_000 }, async () => {
    await check('esbuild', 'bn254');
    await check('esbuild', 'bn254', { kernel: 'int' });
  });

  it('Vite bundle, BLS12-381 and BN254: shows the oracle result', { timeout: 120_000 }, async () => {
    await check('vite', 'bls12-381', { screenshot: true });
    await check('vite', 'bn254');
  });

  /** The page with ?threads=2 on the isolated or the plain server: the oracle result, on the expected path. */
  async function checkThreads(bundler, isolated, { screenshot = false } = {}) {
    const server = (isolated ? isolatedServers : servers)[bundler];
    const curveName = 'bls12-381';
    const what = `${bundler}, threads, ${isolated ? 'cross-origin isolated' : 'not isolated'}`;
    const before = server.requests.length;
    const { page, report, shown, logs, status } = await openExample(browser, server.url, { curve: curveName, logn: LOGN, runs: 1, noble: 0, threads: 2, ...SEEDS }, { timeout: 60_000 });
    try {
      if (screenshot) {
        const path = join(screenshotDir, `e2e-${bundler}-threads-${isolated ? 'isolated' : 'messages'}.png`);
        await page.screenshot({ path, fullPage: true });
        console.log(`screenshot: ${relative(repoDir, path)}`);
      }
      expect(report.state, `${what}: ${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
      expect(logs, 'console errors or page errors').toEqual([]);
      expect(report.crossOriginIsolated, `${what}: crossOriginIsolated`).toBe(isolated);
      expect(report.threads).toBe(2);
      expect(report.sharedMemory, `${what}: pool.sharedMemory (true: shared-memory path, false: message path)`).toBe(isolated);
      expect(await page.textContent('#out-path')).toContain(isolated ? 'shared-memory path' : 'message path');
      expect(shown, `${what}: the result shown on the page`).toEqual(await oracle(curveName, LOGN));
      expect(report.result).toEqual(shown);
      expect(report.preparedSame, `${what}: prepared bases on the pool give the same result`).toBe(true);
      expect(report.g2Match, `${what}: G2 on a pool equals @noble/curves G2`).toBe(true);
      if (isolated) expect(Object.keys(report.phasesMs)).toEqual(expect.arrayContaining(['prepare', 'lanes', 'combine']));
      const requests = server.requests.slice(before);
      expect(wasmFetched(requests), 'Wasm chunks fetched').toEqual([`${curveName}.fma`]);
      expect(workerScriptFetched(requests), 'the worker script chunk').toBe(true);
      console.log(`${what}: pool.sharedMemory = ${report.sharedMemory}, start ${report.poolMs.toFixed(0)} ms, MSM ${report.msmMedianMs.toFixed(1)} ms (2 threads, 2^${LOGN})`);
    } finally {
      await page.close();
    }
  }

  it('esbuild bundle, 2 threads: shared memory when cross-origin isolated, messages when not; oracle result', { timeout: 120_000 }, async () => {
    await checkThreads('esbuild', true, { screenshot: true });
    await checkThreads('esbuild', false);
  });

  it('Vite bundle, 2 threads: shared memory when cross-origin isolated, messages when not; oracle result', { timeout: 120_000 }, async () => {
    await checkThreads('vite', true, { screenshot: true });
    await checkThreads('vite', false);
  });

  it('threads: without worker-src blob: in the CSP the pool rejects (no hang); sharedMemory: true rejects when not isolated', { timeout: 60_000 }, async () => {
    const strict = await serve(join(distDir, 'e2e', 'esbuild'), { csp: CSP_WITHOUT_WORKERS });
    try {
      const open = (url, query) => openExample(browser, url, { curve: 'bn254', logn: 2, runs: 1, noble: 0, ...query }, { timeout: 15_000 }).catch((e) => {
        throw new Error(`the page did not settle in 15 s (did curve.threads() hang?): ${e.message}`);
      });
      const blocked = await open(strict.url, { threads: 2 });
      await blocked.page.close();
      expect(blocked.report.state, blocked.status).toBe('error');
      expect(blocked.status).toMatch(/worker-src blob:/);

      const notIsolated = await open(servers.esbuild.url, { threads: 2, shared: 1 });
      await notIsolated.page.close();
      expect(notIsolated.report.state, notIsolated.status).toBe('error');
      expect(notIsolated.status).toMatch(/sharedMemory: true needs SharedArrayBuffer.*cross-origin isolated/);
    } finally {
      await strict.close();
    }
  });

  it("without connect-src in the CSP (so default-src 'none' refuses every fetch) the page works, with and without threads", { timeout: 120_000 }, async () => {
    expect(CSP_WITHOUT_CONNECT).not.toMatch(/connect-src/);
    expect(CSP_WITHOUT_CONNECT).toMatch(/^default-src 'none'; /);
    expect(CSP_WITHOUT_CONNECT).not.toBe(CSP);
    const strict = await serve(join(distDir, 'e2e', 'esbuild'), { csp: CSP_WITHOUT_CONNECT });
    try {
      for (const threads of [0, 2]) {
        const query = { curve: 'bn254', logn: LOGN, runs: 1, noble: 1, ...SEEDS, ...(threads && { threads }) };
        const { page, report, shown, logs, status } = await openExample(browser, strict.url, query, { timeout: 60_000 });
        await page.close();
        const what = threads ? `${threads} threads` : 'main thread';
        expect(report.state, `${what}: ${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
        expect(logs, `${what}: console errors (a CSP violation is one) or page errors`).toEqual([]);
        expect(shown, what).toEqual(await oracle('bn254', LOGN));
        expect(strict.requests.some((p) => /\/bn254\.fma\.wasm-[^/]*\.js$/.test(p)), `${what}: the Wasm chunk was fetched as script`).toBe(true);
      }
    } finally {
      await strict.close();
    }
  });

  // (--no-enable-fma3 acts on V8's x64 code generation only)
  it.runIf(process.arch === 'x64')('a Chromium whose relaxed_madd rounds twice (--js-flags=--no-enable-fma3) runs the integer build; kernel=fma reports the RangeError', { timeout: 120_000 }, async () => {
    const unfused = await launchChromium(chromiumPath, { args: ['--js-flags=--no-enable-fma3'] });
    try {
      const server = servers.esbuild;
      const before = server.requests.length;
      const { page, report, shown, logs, status } = await openExample(unfused, server.url, { curve: 'bn254', logn: LOGN, runs: 1, noble: 1, ...SEEDS });
      await page.close();
      expect(report.state, `${status}\n${report.error ?? ''}\n${logs.join('\n')}`).toBe('done');
      expect(logs).toEqual([]);
      expect(report.kernel, 'auto on a double-rounding engine').toBe('int');
      expect(wasmFetched(server.requests.slice(before)), 'only the integer build is fetched').toEqual(['bn254']);
      expect(shown).toEqual(await oracle('bn254', LOGN));
      expect(report.nobleMatch).toBe(true);
      const forced = await openExample(unfused, server.url, { curve: 'bn254', logn: 2, runs: 1, kernel: 'fma' }, { timeout: 60_000 });
      await forced.page.close();
      expect(forced.report.state).toBe('error');
      expect(forced.status).toMatch(/^error: kernel 'fma' needs a fused f64x2\.relaxed_madd, and this engine rounds twice/);
      expect(forced.report.error).toMatch(/^RangeError: /);
    } finally {
      await unfused.close();
    }
  });

  it("without 'wasm-unsafe-eval' in the CSP the page reports the refused Wasm", { timeout: 60_000 }, async () => {
    const strict = await serve(join(distDir, 'e2e', 'esbuild'), { csp: CSP_WITHOUT_WASM });
    try {
      const { page, report, status } = await openExample(browser, strict.url, { curve: 'bn254', logn: 2, runs: 1 });
      await page.close();
      expect(report.state).toBe('error');
      expect(status).toMatch(/WebAssembly.*Content Security Policy/);
    } finally {
      await strict.close();
    }
  });
});
