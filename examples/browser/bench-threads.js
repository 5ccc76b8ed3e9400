// bench.js --threads T1,T2,...: the thread pool's MSM time in headless Chromium next to Node's, on the same
// inputs, for each thread count and both of the pool's paths:
//   shared memory: the page served with COOP/COEP (cross-origin isolated); Node: sharedMemory: true
//   messages:      the page served without them;                          Node: sharedMemory: false
// plus the main thread (threads=0 in the page, the synchronous curve.msmBytes in Node) as the baseline.
// Pages run one at a time; Node runs while the page that was just measured is idle (its pool is closed).

import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { mkdirSync } from 'node:fs';
import { buildExample, serve, launchChromium, openExample, distDir, repoDir } from './harness.js';
import { loadCurve } from '../../index.js';

const log = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const NOT_PHASES = new Set(['window', 'windows', 'threads', 'chunks', 'chunkPoints', 'flat', 'memoryBytes', 'bits']);
const hexPoint = (P) => (P === null ? null : { x: `0x${P.x.toString(16)}`, y: `0x${P.y.toString(16)}` });

/** One warm-up and `runs` timed calls of msm(timings) (sync or async); medians. */
async function timeNode(msm, runs) {
  const first = await msm({});
  const times = [];
  const phases = {};
  for (let r = 0; r < runs; r++) {
    const timings = {};
    const t0 = performance.now();
    await msm(timings);
    times.push(performance.now() - t0);
    for (const [ph, ms] of Object.entries(timings)) if (!NOT_PHASES.has(ph)) (phases[ph] ??= []).push(ms);
  }
  return {
    first,
    msmMedianMs: median(times), msmMs: times,
    phasesMs: Object.fromEntries(Object.entries(phases).map(([ph, xs]) => [ph, median(xs)])),
  };
}

export async function benchThreads({ curve: curveName, logn, runs, noble, json, threadCounts }) {
  const n = 2 ** logn;
  const outdir = join(distDir, 'bench');
  await buildExample({ bundler: 'esbuild', outdir });
  const servers = { isolated: await serve(outdir, { isolated: true }), plain: await serve(outdir) };
  const browser = await launchChromium();
  const shotDir = join(distDir, 'screenshots');
  mkdirSync(shotDir, { recursive: true });

  const curve = await loadCurve(curveName);
  const points = curve.randomPointsBytes(n, { seed: 1000 + logn });
  const scalars = curve.randomScalarsBytes(n, { seed: 2000 + logn });

  // [threads, path]: path null = the main thread; 'shared' / 'messages' = the pool's path.
  const configs = [[0, null], ...threadCounts.flatMap((t) => [[t, 'shared'], [t, 'messages']])];
  const rows = [];
  let expected; // the main thread's result in Node: every other run must give it
  let chrome;
  let failed = false;
  try {
    for (const [threads, path] of configs) {
      const what = threads ? `${threads} thread(s), ${path === 'shared' ? 'shared memory' : 'messages'}` : 'main thread';
      const server = path === 'shared' ? servers.isolated : servers.plain;
      log(`${what}: chromium (${server.isolated ? 'COOP/COEP' : 'no COOP/COEP'}), ${curveName} 2^${logn}, warm-up + ${runs} runs...`);
      const query = { curve: curveName, logn, runs, noble: noble && !threads ? 1 : 0, threads };
      const { page, report, logs, status } = await openExample(browser, server.url, query, { timeout: 30 * 60_000 });
      try {
        if (report.state !== 'done') throw new Error(`the page failed (${what}): ${status}\n${report.error ?? ''}\n${logs.join('\n')}`);
        chrome ??= report.userAgent.match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? report.userAgent;
        if (threads && report.sharedMemory !== (path === 'shared')) {
          throw new Error(`${what}: the page ran pool.sharedMemory = ${report.sharedMemory} (crossOriginIsolated = ${report.crossOriginIsolated})`);
        }

        log(`${what}: node ${process.version}, the same inputs, warm-up + ${runs} runs...`);
        let node;
        if (!threads) {
          node = await timeNode((timings) => curve.msmBytes(points, scalars, { timings }), runs);
        } else {
          const pool = await curve.threads({ count: threads, sharedMemory: path === 'shared' });
          try {
            node = await timeNode((timings) => pool.msmBytes(points, scalars, { timings }), runs);
          } finally {
            await pool.close();
          }
        }
        const nodeResult = hexPoint(curve.decodePoint(node.first));
        expected ??= nodeResult;
        const same = JSON.stringify(report.result) === JSON.stringify(expected) && JSON.stringify(nodeResult) === JSON.stringify(expected);
        if (!same) failed = true;
        delete node.first;

        await page.evaluate(
          ({ what: w, ms, note }) => window.wasmsmExample.addTimeRow(w, ms, note),
          { what: `Node ${process.version}, same inputs, ${what}: MSM median of ${runs}`, ms: node.msmMedianMs, note: same ? 'same result as the page' : 'DIFFERENT result' },
        );
        const shot = join(shotDir, `bench-${curveName}-2^${logn}-${threads ? `t${threads}-${path}` : 'main'}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        rows.push({ threads, path, what, same, browser: report, node: { version: process.version, ...node }, screenshot: relative(repoDir, shot) });
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
    for (const s of Object.values(servers)) await s.close();
  }

  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} logical CPUs`;
  if (json) {
    console.log(JSON.stringify({ machine, curve: curveName, logn, runs, chrome, same: !failed, rows }, null, 2));
  } else {
    const fmt = (ms) => (ms === undefined ? '-' : ms.toFixed(1));
    const base = rows[0];
    console.log(`${curveName}, N = 2^${logn}, ${runs} timed runs after one warm-up (median ms), ${machine}`);
    console.log(`same inputs (points seed ${1000 + logn}, scalars seed ${2000 + logn}); results ${failed ? 'DIFFER' : 'all equal'}`);
    console.log('browser: shared memory = served with COOP/COEP (crossOriginIsolated), messages = served without; Node: sharedMemory true / false\n');
    const range = (xs) => `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`;
    console.log(`| threads | path | ${chrome} | min-max | Node ${process.version} | min-max | browser / Node | browser speed-up | Node speed-up | browser pool start |`);
    console.log('|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const r of rows) {
      const b = r.browser.msmMedianMs;
      const nd = r.node.msmMedianMs;
      console.log(
        `| ${r.threads || 'main thread'} | ${r.path === null ? 'msmBytes (sync)' : r.path === 'shared' ? 'shared memory' : 'messages'} | ${fmt(b)} | ${range(r.browser.msmMs)} | ${fmt(nd)} | ${range(r.node.msmMs)} | ` +
          `${(b / nd).toFixed(2)} | ${(base.browser.msmMedianMs / b).toFixed(2)}× | ${(base.node.msmMedianMs / nd).toFixed(2)}× | ${r.threads ? fmt(r.browser.poolMs) : ''} |`,
      );
    }
    console.log('\n(speed-up: the main thread\'s median / this median, on the same side; pool start: curve.threads() in the page, ms)');
    console.log(`\nscreenshots: ${relative(repoDir, shotDir)}/bench-${curveName}-2^${logn}-*.png`);
  }
  if (failed) process.exit(1);
}
