// bench/groth16-memory.js --browser: groth16Prove's peak memory in headless Chromium, one proof per fresh browser.
// The page (page.js) loads and waits; the bench then reads the resident set of each renderer process the browser
// started and resets its peak (writing 5 to /proc/PID/clear_refs), starts the proof, and reads the peak (VmHWM) after
// it. The page's renderer holds its pool's threads and every Wasm memory (dedicated workers run in it); the figure
// is the largest rise among the renderers. Linux only (/proc); the proofs are verified by snarkjs here.

import { readdirSync, readFileSync, statSync, symlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as snarkjs from 'snarkjs';
import { bundlePage, serve, launchChromium, findChromium, distDir } from '../../examples/browser/harness.js';
import { fixture, terminateCurves } from '../../scripts/snarkjs-fixtures.js';

const MiB = 2 ** 20;
const here = fileURLToPath(new URL('./', import.meta.url));

/** The pids of Chromium's renderer processes now running. */
function renderers() {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('--type=renderer')) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A field of /proc/PID/status in bytes (VmRSS, VmHWM). */
const statusBytes = (pid, field) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))[1]) * 1024;

export async function inChromium({ cases, threads, isolated }) {
  const dir = join(distDir, 'groth16-memory');
  rmSync(dir, { recursive: true, force: true });
  await bundlePage(here, dir);
  const server = await serve(dir, { isolated });
  console.log(`Chromium (headless), ${isolated ? 'cross-origin isolated' : 'without COOP/COEP (message path)'}; groth16Prove on ${threads} threads; one proof per fresh browser`);
  console.log('| case | zkey | zkey and witness given as | renderer before | peak | peak - before | (peak - before) / zkey | proof |');
  console.log('|:--|--:|:--|--:|--:|--:|--:|--:|');
  try {
    for (const circuit of cases) {
      const f = await fixture(snarkjs, circuit, 'bn128', 'groth16');
      const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
      for (const [src, name] of [[f.zkey, `${circuit}.zkey`], [f.wtns, `${circuit}.wtns`]]) {
        rmSync(join(dir, name), { force: true });
        symlinkSync(src, join(dir, name));
      }
      const size = statSync(f.zkey).size;
      for (const mode of ['stream', 'bytes']) {
        const earlier = new Set(renderers());
        const chromium = await launchChromium(findChromium());
        try {
          const page = await chromium.newPage();
          await page.goto(server.url);
          await page.waitForFunction(() => window.memoryBench?.state === 'ready', null, { timeout: 60_000 });
          const ours = renderers().filter((pid) => !earlier.has(pid));
          const before = new Map(ours.map((pid) => {
            writeFileSync(`/proc/${pid}/clear_refs`, '5'); // the peak starts again from the resident set now
            return [pid, statusBytes(pid, 'VmRSS')];
          }));
          await page.evaluate((o) => window.proveOnce(o), { zkey: `${circuit}.zkey`, wtns: `${circuit}.wtns`, mode, threads });
          const report = await page.evaluate(() => window.memoryBench);
          if (report.state !== 'done') throw new Error(`${circuit} ${mode}: ${report.error}`);
          const [pid] = ours.sort((a, b) => statusBytes(b, 'VmHWM') - before.get(b) - (statusBytes(a, 'VmHWM') - before.get(a)));
          const peak = statusBytes(pid, 'VmHWM');
          if (!(await snarkjs.groth16.verify(vkey, report.publicSignals, report.proof))) throw new Error(`${circuit} ${mode}: the proof does not verify`);
          const mib = (x) => `${(x / MiB).toFixed(0)} MiB`;
          const rise = peak - before.get(pid);
          console.log(`| ${circuit} | ${mib(size)} | ${mode} | ${mib(before.get(pid))} | ${mib(peak)} | ${mib(rise)} | ${(rise / size).toFixed(2)}x | ${report.ms.toFixed(0)} ms |`);
        } finally {
          await chromium.close();
        }
      }
    }
  } finally {
    await server.close();
    await terminateCurves();
  }
}
