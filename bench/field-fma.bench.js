#!/usr/bin/env node
// npm run bench:fma [-- --quick] [-- --curve bn254] [-- --time 500] [-- --browser] [-- --wide]
//
// The relaxed-SIMD FMA Montgomery product (codegen/kernels/field-mul-fma.js) next to the integer product the
// shipped modules use, for the BLS12-381 and BN254 base fields, in one process. Everything runs as loops
// inside Wasm (no JS call per product):
//   latency     one dependent chain: integer x = x*y; FMA mulFma2 on two chains (both lanes of one vector)
//   throughput  four dependent chains interleaved: integer, four calls per step; FMA, one mulFma call
// Figures are tinybench medians of a batch divided by the products in it: ns per product (the FMA latency row
// is per call: two products). Needs relaxed SIMD with a fused multiply-add (Node >= 22, or Node 20 with
// --experimental-wasm-relaxed-simd); each kernel is checked against BigInt before it is timed.
//
// This script builds the kernels (codegen + wabt, Node only) into plain data: bytes and limb shapes. The check
// and the timed loops are bench/field-fma-measure.js, which runs unchanged in Node and in the browser.
//
// --browser: first in headless Chromium (Debian's /usr/bin/chromium through playwright-core, the flags of
// examples/browser/harness.js): bench/field-fma-page.js bundled with esbuild, served on 127.0.0.1 with COOP/COEP
// (cross-origin isolated: performance.now() at 5 µs instead of 100 µs), handed the same kernel bytes; then, the
// browser closed, in this Node process (skipped when this Node cannot run the FMA kernels). One table, one row
// per (engine, field).
//
// --wide (implies --browser): Chromium runs with --js-flags=--wasm-wide-arithmetic and the page also checks and
// times the wide-arithmetic product (codegen/kernels/field-mul-wide.js, 64-bit limbs): its latency (one chain)
// and throughput (four chains, one call each per step) and its squaring's latency (one chain), in a second
// table beside the FMA figures of the same page. Node rows carry no wide figures (no Node validates the opcodes yet).

import os from 'node:os';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deriveFieldParams, compileWat } from '../codegen/index.js';
import { fieldModuleWat } from '../codegen/modules/field-module.js';
import { fmaModuleWat } from '../codegen/modules/fma-module.js';
import { wideModuleBytes } from '../codegen/modules/wide-module.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { measureKernels, formatTable, STEPS } from './field-fma-measure.js';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    curve: { type: 'string', multiple: true },
    time: { type: 'string' },
    browser: { type: 'boolean', default: false },
    wide: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log('Usage: node bench/field-fma.bench.js [--quick] [--curve bls12-381|bn254]... [--time ms per task] [--browser] [--wide]');
  process.exit(0);
}
if (opts.wide) opts.browser = true;
const timeMs = opts.time ? Number(opts.time) : opts.quick || process.env.BENCH_QUICK === '1' ? 100 : 500;
const curves = opts.curve ?? ['bn254', 'bls12-381'];
const support = relaxedFmaSupport();
const nodeRuns = support === 'fused';
const whyNotNode = `this engine's relaxed SIMD is '${support}' (Node ${process.version}); the FMA kernels need 'fused' (Node >= 22, or Node 20 with --experimental-wasm-relaxed-simd)`;
if (!nodeRuns && !opts.browser) {
  console.error(`field-fma.bench.js: ${whyNotNode}`);
  process.exit(2);
}
const log = (s) => process.stderr.write(`${s}\n`);

/** The shipped integer product (w as in the curve JSON) with its one-chain and four-chain loops, compiled. */
async function integerKernel(p, w) {
  const params = deriveFieldParams({ p, w });
  const { wat, layout } = fieldModuleWat(params, { chainKernels: true });
  const bytes = await compileWat(wat, 'int.wat');
  return { bytes, w, n: params.n, elementBytes: params.elementBytes, minPages: layout.minPages };
}

/** The wide product with its chain loops, compiled (binaryen). */
async function wideKernel(p) {
  const { bytes, fp } = await wideModuleBytes(p, { chainKernels: true });
  return { bytes, n: fp.n, elementBytes: fp.elementBytes };
}

/** Both kernels of one field as plain data (bench/field-fma-measure.js, "spec"). */
async function buildKernels(name) {
  const json = JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));
  const p = BigInt(json.p);
  const { wat, fp } = fmaModuleWat(p, { chainKernels: true });
  const fmaBytes = await compileWat(wat, `fma-${fp.bits}.wat`, { relaxedSimd: true });
  return {
    curve: name,
    p: `0x${p.toString(16)}`,
    int: await integerKernel(p, json.w ?? 30),
    fma: { bytes: fmaBytes, W: fp.W, n: fp.n, elementBytes: fp.elementBytes },
    ...(opts.wide ? { wide: await wideKernel(p) } : {}),
  };
}

/** Each spec in headless Chromium, one after another in one page; resolves to the rows and the page's setting. */
async function measureInChromium(specs) {
  const { serve, launchChromium, distDir, repoDir, exampleDir, WIDE_ARITHMETIC_FLAGS } = await import('../examples/browser/harness.js');
  const esbuild = await import('esbuild');
  const outdir = join(distDir, 'field-fma');
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [join(repoDir, 'bench/field-fma-page.js')],
    outdir, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', entryNames: '[name]',
    absWorkingDir: repoDir, logLevel: 'silent',
  });
  await copyFile(join(exampleDir, 'favicon.svg'), join(outdir, 'favicon.svg'));
  await writeFile(join(outdir, 'index.html'), '<!doctype html>\n<html><head><meta charset="utf-8"><title>field-fma bench</title><link rel="icon" href="favicon.svg"></head>\n<body><script type="module" src="field-fma-page.js"></script></body></html>\n');
  const server = await serve(outdir, { isolated: true });
  const browser = await launchChromium(undefined, { args: opts.wide ? WIDE_ARITHMETIC_FLAGS : [] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(server.url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30_000 });
    const environment = await page.evaluate(() => window.fieldFmaBench.environment());
    log(`chromium ${browser.version()}: ${specs.length} field(s), ${timeMs} ms per task, cross-origin isolated: ${environment.crossOriginIsolated}`);
    const rows = [];
    for (const spec of specs) {
      log(`  ${spec.curve}: check against BigInt, then time (in the page)...`);
      const plain = { ...spec, int: { ...spec.int, bytes: [...spec.int.bytes] }, fma: { ...spec.fma, bytes: [...spec.fma.bytes] } };
      if (spec.wide) plain.wide = { ...spec.wide, bytes: [...spec.wide.bytes] };
      rows.push(await page.evaluate(([s, t, e]) => window.fieldFmaBench.measure(s, { timeMs: t, engine: e }), [plain, timeMs, `Chromium ${browser.version()}`]));
    }
    if (errors.length) throw new Error(`the page reported errors:\n${errors.join('\n')}`);
    return { rows, environment };
  } finally {
    await browser.close();
    await server.close();
  }
}

const specs = [];
for (const name of curves) specs.push(await buildKernels(name));
const rows = [];
let pageEnvironment;
if (opts.browser) {
  const { rows: pageRows, environment } = await measureInChromium(specs);
  rows.push(...pageRows);
  pageEnvironment = environment;
}
if (nodeRuns) {
  if (opts.browser) log(`node ${process.version}: the same kernels...`);
  for (const { wide, ...spec } of specs) rows.push(await measureKernels(spec, { timeMs }));
} else {
  log(`field-fma.bench.js: Node rows skipped: ${whyNotNode}`);
}
const WIDE_FLAG_TEXT = '--js-flags=--wasm-wide-arithmetic';
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const where = opts.browser
  ? `Chromium (headless${opts.wide ? `, ${WIDE_FLAG_TEXT}` : ''}, cross-origin isolated: ${pageEnvironment.crossOriginIsolated})${nodeRuns ? ` then Node ${process.version}` : ''}`
  : `Node ${process.version}`;
console.log(`field-fma.bench.js: ${cpu}, ${os.cpus().length} cores, ${where}; ${timeMs} ms per task, ${STEPS} products per chain per timed call; ns per Montgomery product (median)`);
console.log(formatTable(rows));
