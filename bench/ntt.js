#!/usr/bin/env node
// npm run bench:ntt [-- --log 16,18] [-- --rounds 15] [-- --curves bn254,bls12-381] [-- --kernel auto|int|fma] [-- --browser]
//
// The NTT of 2^log scalar-field elements: wasmsm's fr module (one thread) against ffjavascript's Fr.fft / Fr.ifft
// (its Wasm, with its worker threads: one per core) on the same input, forward and inverse, rounds interleaved.
// Ours is timed three ways: on a pointer (fr.nttPointer over Montgomery-form elements already in Wasm memory, the
// prover's path), through bytes (fr.ntt(Uint8Array): canonical bytes in, conversion, NTT, bytes out), and through
// bytes on a pool of as many threads as ffjavascript has workers (fr.nttOn(pool, Uint8Array)), on both of the pool's
// transports: shared memory (every layer on the threads, in place) and messages (blocks sent and back). ffjavascript
// is timed as its API runs: a Uint8Array of its Montgomery-form elements in, a new one out; twice too: with its worker
// threads (one per core, its default) and built single-threaded (buildBn128(true)), the per-core comparison.
// Results are checked equal (same root of unity: both take the 2^log-th root from the least non-residue).
// --kernel: the curve's build (loadCurve's option; default auto, the one this engine gets), whose Fr build runs.
// --browser: the same comparison in headless Chromium (bench/ntt/page.js: wasmsm's default build, and ffjavascript as
// snarkjs's browser build carries it, its workers one per core), in a cross-origin-isolated page; --not-isolated: a
// page without COOP/COEP, whose pool takes the message path (the shared-memory column then shows it).
// The comparison itself: bench/ntt/rows.js.

import { cpus, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli } from '../scripts/lib.js';
import { nttRows, tableHeader, tableRow } from './ntt/rows.js';

const help = `Usage: node bench/ntt.js [--log 16[,18]] [--rounds n] [--curves bn254,bls12-381] [--kernel auto|int|fma] [--browser [--not-isolated]]`;
const args = parseCli('bench/ntt.js', help, {
  log: { type: 'string', default: '16' },
  rounds: { type: 'string', default: '15' },
  curves: { type: 'string', default: 'bn254,bls12-381' },
  kernel: { type: 'string', default: 'auto' },
  browser: { type: 'boolean', default: false },
  'not-isolated': { type: 'boolean', default: false },
});
const logs = args.log.split(',').map(Number);
const rounds = Number(args.rounds);
const threads = availableParallelism();

if (args.browser) await inChromium();
else await inNode();

async function inNode() {
  const { buildBn128, buildBls12381 } = await import('ffjavascript');
  const builders = { bn254: buildBn128, 'bls12-381': buildBls12381 };
  console.log(`Node ${process.version}, ${cpus()[0].model.trim()}, ${threads} cores; ${rounds} interleaved rounds after a warm-up; ms (median)`);
  console.log(tableHeader(threads).join('\n'));
  for (const name of args.curves.split(',')) {
    const { load } = await import(`../src/curves/${name}.js`);
    const curve = await load({ kernel: args.kernel });
    const pool = await curve.threads({ count: threads, sharedMemory: true });
    const poolMsg = await curve.threads({ count: threads, sharedMemory: false });
    const ff = await builders[name]();
    const ff1 = await builders[name](true); // single-threaded
    try {
      for (const row of await nttRows({ name, curve, pool, poolMsg, ff, ff1, logs, rounds })) console.log(tableRow(row));
    } finally {
      await ff.terminate();
      await ff1.terminate();
      await pool.close();
      await poolMsg.close();
    }
  }
}

async function inChromium() {
  if (args.kernel !== 'auto') throw new RangeError('--kernel: the page runs the build its engine gets (auto)');
  const { bundlePage, serve, launchChromium, findChromium, distDir } = await import('../examples/browser/harness.js');
  const { SNARKJS_CSP } = await import('./snarkjs/browser.js');
  const dir = join(distDir, 'ntt');
  await bundlePage(fileURLToPath(new URL('./ntt/', import.meta.url)), dir);
  const server = await serve(dir, { isolated: !args['not-isolated'], csp: SNARKJS_CSP });
  const chromium = await launchChromium(findChromium());
  try {
    const page = await chromium.newPage();
    const query = new URLSearchParams({ curves: args.curves, log: args.log, rounds, threads });
    await page.goto(`${server.url}?${query}`);
    await page.waitForFunction(() => window.nttBench?.state !== 'running', null, { timeout: 60 * 60_000, polling: 500 });
    const report = await page.evaluate(() => window.nttBench);
    if (report.state !== 'done') throw new Error(`page: ${report.error}`);
    const engine = report.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0];
    console.log(`${engine}, ${report.cores} cores, crossOriginIsolated ${report.crossOriginIsolated}; ${rounds} interleaved rounds after a warm-up; ms (median)`);
    console.log(tableHeader(report.threads).join('\n'));
    for (const row of report.rows) console.log(tableRow(row));
  } finally {
    await chromium.close();
    await server.close();
  }
}
