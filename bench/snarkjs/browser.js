// The snarkjs page (bench/snarkjs/page.js) bundled with esbuild, served cross-origin isolated on 127.0.0.1 with
// the cases' files next to it, in headless Chromium: for bench/snarkjs-bench.js --browser and
// test/snarkjs-browser.e2e.test.js.

import { writeFileSync, copyFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage, serve, launchChromium, findChromium, distDir } from '../../examples/browser/harness.js';

const here = dirname(fileURLToPath(import.meta.url));

// snarkjs's browser build starts ffjavascript's workers from code it writes at run time (blob: URLs, eval).
export const SNARKJS_CSP = "default-src 'self' blob:; script-src 'self' blob: 'unsafe-eval' 'wasm-unsafe-eval'; worker-src 'self' blob:";

/**
 * Bundle the page, copy each fixture (scripts/snarkjs-fixtures.js fixture() plus its vkey as JSON) next to it,
 * serve (cross-origin isolated unless `isolated: false`: then the route's pool takes the message path), launch
 * Chromium. Returns { run(i, { runs, threads, minPoints }) -> the page's report, close() }.
 */
export async function snarkjsPage(fixtures, { dir = join(distDir, 'snarkjs'), isolated = true } = {}) {
  await bundlePage(here, dir);
  for (const [i, f] of fixtures.entries()) {
    copyFileSync(f.zkey, join(dir, `${i}.zkey`));
    copyFileSync(f.wasm, join(dir, `${i}.wasm`));
    writeFileSync(join(dir, `${i}.json`), JSON.stringify({ curve: f.curve, protocol: f.protocol, input: f.input, vkey: f.vkeyJson }));
  }
  const server = await serve(dir, { isolated, csp: SNARKJS_CSP });
  const chromium = await launchChromium(findChromium());
  return {
    async run(i, { runs = 1, threads = 2, minPoints } = {}) {
      const page = await chromium.newPage();
      const logs = [];
      page.on('console', (m) => m.type() === 'error' && logs.push(m.text()));
      page.on('pageerror', (e) => logs.push(String(e)));
      try {
        const query = new URLSearchParams({ case: i, runs, threads, ...(minPoints !== undefined && { minPoints }) });
        await page.goto(`${server.url}?${query}`);
        await page.waitForFunction(() => window.snarkjsBench?.state !== 'running', null, { timeout: 60 * 60_000, polling: 500 });
        const report = await page.evaluate(() => window.snarkjsBench);
        if (report.state !== 'done') throw new Error(`page: ${report.error}\n${logs.join('\n')}`);
        return { ...report, logs };
      } finally {
        await page.close();
      }
    },
    async close() {
      await chromium.close();
      await server.close();
    },
  };
}
