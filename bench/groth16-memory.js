#!/usr/bin/env node
// groth16Prove's peak memory next to the zkey's size: one proof in a fresh Node process per case (groth16Prove, or with
// --api Groth16Prover a prover closed after its proof: it keeps twiddle tables for a next proof), the zkey given as a
// path (read section by section) and as bytes (held whole by the caller), with the process's peak resident set
// (process.resourceUsage().maxRSS: the main thread, the pools' threads and every Wasm memory) and the same process's
// resident set before it loaded wasmsm. The fixtures come from scripts/snarkjs-fixtures.js (sha8 at 2^18: about ten
// minutes the first time).
// --browser: the same in headless Chromium, one groth16Prove per fresh browser (bench/groth16-memory/page.js), the zkey
// and the witness given as fetch()'s streams or as bytes; the figure is the page's renderer process (its pool's
// threads are in it) at its peak (/proc's VmHWM, reset once the page has loaded) less its resident set then.
// --not-isolated: a page without COOP/COEP; in Node, --shared-memory false: the pools' message path either way.
//
//   node bench/groth16-memory.js [--cases sha2,sha8] [--threads 2] [--max-memory MiB] [--api groth16Prove|Groth16Prover] [--shared-memory false]
//   node bench/groth16-memory.js --browser [--not-isolated] [--cases sha2,sha8] [--threads 2]

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};

const MiB = 2 ** 20;

if (args[0] === '--child') {
  // one proof, then the figures as one JSON line
  const [, zkeyPath, wtnsPath, mode, threads, maxMemory, api, sharedMemory] = args;
  const before = process.memoryUsage().rss;
  const { readFileSync } = await import('node:fs');
  const { Groth16Prover, groth16Prove } = await import('wasmsm/snarkjs');
  const options = { threads: Number(threads), sharedMemory: { true: true, false: false }[sharedMemory] ?? 'auto', ...(maxMemory !== '-' && { maxMemory: Number(maxMemory) * MiB }) };
  const zkey = mode === 'path' ? zkeyPath : readFileSync(zkeyPath);
  const timings = {};
  let peak;
  if (api === 'Groth16Prover') {
    const prover = new Groth16Prover(options);
    await prover.prove(zkey, wtnsPath, { timings });
    peak = process.resourceUsage().maxRSS * 1024;
    await prover.close();
  } else {
    await groth16Prove(zkey, wtnsPath, { ...options, timings });
    peak = process.resourceUsage().maxRSS * 1024;
  }
  console.log(JSON.stringify({ before, peak, ms: timings.total }));
} else if (args.includes('--browser')) {
  const { inChromium } = await import('./groth16-memory/chromium.js');
  await inChromium({ cases: opt('cases', 'sha2,sha8').split(','), threads: Number(opt('threads', '2')), isolated: !args.includes('--not-isolated') });
} else {
  const snarkjs = await import('snarkjs');
  const { fixture, terminateCurves } = await import('../scripts/snarkjs-fixtures.js');
  const threads = opt('threads', '2');
  const maxMemory = opt('max-memory', '-');
  const api = opt('api', 'groth16Prove');
  const sharedMemory = opt('shared-memory', 'auto');
  console.log(`Node ${process.version}; ${api} on ${threads} threads (sharedMemory ${sharedMemory})${maxMemory === '-' ? '' : `, maxMemory ${maxMemory} MiB`}; one proof per fresh process`);
  console.log('| case | zkey | zkey given as | peak RSS | before wasmsm | peak - before | (peak - before) / zkey | proof |');
  console.log('|:--|--:|:--|--:|--:|--:|--:|--:|');
  for (const circuit of opt('cases', 'sha2,sha8').split(',')) {
    const f = await fixture(snarkjs, circuit, 'bn128', 'groth16');
    const size = statSync(f.zkey).size;
    for (const mode of ['path', 'bytes']) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', f.zkey, f.wtns, mode, threads, maxMemory, api, sharedMemory], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${circuit} ${mode}: ${r.stderr}`);
      const { before, peak, ms } = JSON.parse(r.stdout.trim().split('\n').at(-1));
      const mib = (x) => `${(x / MiB).toFixed(0)} MiB`;
      console.log(`| ${circuit} | ${mib(size)} | ${mode} | ${mib(peak)} | ${mib(before)} | ${mib(peak - before)} | ${((peak - before) / size).toFixed(2)}x | ${ms.toFixed(0)} ms |`);
    }
  }
  await terminateCurves();
}
