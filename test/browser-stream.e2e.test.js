// The streamed MSM in headless Chromium (issue #23): examples/browser/stream.html fetches points and scalars as two
// response bodies and runs curve.msmStream over them within maxMemory, on the main thread and on a pool (both paths).
// The result must equal the library's msmBytes in Node on the same bytes, itself checked against @noble/curves, and
// the page's Wasm memory must stay within the budget. The figures at 2^20 with 64 MiB: npm run bench:stream.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { loadCurve } from '../index.js';
import { nobleMsm } from '../scripts/peers.js';
import { skipChromiumSuite } from './chromium.js';
import { buildStreamPage, serve, findChromium, launchChromium, openStreamPage, distDir } from '../examples/browser/harness.js';

const chromiumPath = findChromium();
const skip = skipChromiumSuite('browser-stream.e2e.test.js');
const LOGN = 13;
const BUDGET_MIB = 4;

describe.skipIf(skip)('a streamed MSM in headless Chromium within maxMemory', { timeout: 240_000 }, () => {
  let browser;
  let servers;
  let expected;

  beforeAll(async () => {
    const curve = await loadCurve('bls12-381');
    const n = 2 ** LOGN;
    const pointBytes = curve.randomPointsBytes(n, { seed: 77 });
    const scalarBytes = curve.randomScalarsBytes(n, { seed: 78 });
    const out = curve.msmBytes(pointBytes, scalarBytes);
    expect(curve.decodePoint(out), 'the library in Node vs @noble/curves').toEqual(await nobleMsm(curve.params, pointBytes, scalarBytes));
    expected = Buffer.from(out).toString('hex');
    const outdir = join(distDir, 'stream-e2e');
    await buildStreamPage({ outdir, pointBytes, scalarBytes });
    servers = { isolated: await serve(outdir, { isolated: true }), plain: await serve(outdir) };
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await servers?.isolated.close();
    await servers?.plain.close();
  });

  for (const [label, server, threads, sharedMemory] of [
    ['the main thread', 'isolated', 0, null],
    ['a pool of 2, shared memory', 'isolated', 2, true],
    ['a pool of 2, messages', 'plain', 2, false],
  ]) {
    it(`${label}: the result equals the oracle, in chunks, within ${BUDGET_MIB} MiB`, async () => {
      const { page, report, logs } = await openStreamPage(browser, servers[server].url, { curve: 'bls12-381', maxMemory: BUDGET_MIB, threads }, { timeout: 200_000 });
      await page.close();
      expect(report.state, `${report.error}\n${logs.join('\n')}`).toBe('done');
      expect(report.result).toBe(expected);
      if (threads) expect(report.sharedMemory).toBe(sharedMemory);
      else {
        expect(report.timings.chunks, 'the budget made it run in chunks').toBeGreaterThan(1);
        expect(report.memoryBytes).toBeLessThanOrEqual(BUDGET_MIB * 2 ** 20 + 65536);
      }
      // the pool's memories: the shared one (its stacks counted in the budget), or one per thread with 1/T of it each
      if (threads) expect(report.memoryBytes).toBeLessThanOrEqual(BUDGET_MIB * 2 ** 20 + threads * 65536);
    });
  }
});
