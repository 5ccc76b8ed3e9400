#!/usr/bin/env node
// npm run bench:fma [-- --quick] [-- --curve bn254] [-- --time 500]
//
// The relaxed-SIMD FMA Montgomery product (codegen/kernels/field-mul-fma.js) next to the integer product the
// shipped modules use, for the BLS12-381 and BN254 base fields, in one process. Everything runs as loops
// inside Wasm (no JS call per product):
//   latency     one dependent chain: integer x = x*y; FMA mulFma2 on two chains (both lanes of one vector)
//   throughput  four dependent chains interleaved: integer, four calls per step; FMA, one mulFma call
// Figures are tinybench medians of a batch divided by the products in it: ns per product (the FMA latency row
// is per call: two products). Needs relaxed SIMD with a fused multiply-add (Node >= 22, or Node 20 with
// --experimental-wasm-relaxed-simd); each kernel is checked against BigInt before it is timed.

import os from 'node:os';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { deriveFieldParams, compileWat } from '../codegen/index.js';
import { buildFieldModule } from '../codegen/modules/field-module.js';
import { instantiateFma, fmaElements } from '../codegen/modules/fma-module.js';
import { toLimbs, fromLimbs } from '../codegen/params/field.js';
import { Func, i32, local, loop, br_if, call } from '../codegen/wat/index.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { modInv } from '../src/bigint/field.js';

const { values: opts } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, curve: { type: 'string', multiple: true }, time: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
if (opts.help) {
  console.log('Usage: node bench/field-fma.bench.js [--quick] [--curve bls12-381|bn254]... [--time ms per task]');
  process.exit(0);
}
const timeMs = opts.time ? Number(opts.time) : opts.quick || process.env.BENCH_QUICK === '1' ? 100 : 500;
const curves = opts.curve ?? ['bn254', 'bls12-381'];
const support = relaxedFmaSupport();
if (support !== 'fused') {
  console.error(`field-fma.bench.js: this engine's relaxed SIMD is '${support}' (${process.version}); the FMA kernels need 'fused' (Node >= 22, or Node 20 with --experimental-wasm-relaxed-simd)`);
  process.exit(2);
}
const K = 2000; // steps per timed call

/** The shipped integer product (w as in the curve JSON) with a one-chain and a four-chain loop. */
async function integerKernel(p, w) {
  const params = deriveFieldParams({ p, w });
  const { module: m, layout } = buildFieldModule(params);
  const E = params.elementBytes;
  const at = (ptr, l) => (l ? i32.add(local.get(ptr), i32.const(l * E)) : local.get(ptr));
  for (const lanes of [1, 4]) {
    const fn = new Func(`chain${lanes}`, { params: [['x', 'i32'], ['y', 'i32'], ['k', 'i32']], exportName: `chain${lanes}` });
    const calls = Array.from({ length: lanes }, (_, l) => call('mul', at('x', l), at('x', l), at('y', l)));
    fn.push(loop('chain', [...calls, br_if('chain', local.tee('k', i32.sub(local.get('k'), i32.const(1))))]));
    m.add(fn);
  }
  const bytes = await compileWat(m.render(), 'int.wat');
  const memory = new WebAssembly.Memory({ initial: layout.minPages + 1 });
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  const base = instance.exports.heapBase.value;
  const write = (ptr, x) => new Uint32Array(memory.buffer, ptr, params.n).set(toLimbs(x, w, params.n).map(Number));
  const read = (ptr) => fromLimbs([...new Uint32Array(memory.buffer, ptr, params.n)], w);
  return { exports: instance.exports, x: base, y: base + 4 * E, write, read, E, R: params.R };
}

const rows = [];
for (const name of curves) {
  const json = JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));
  const p = BigInt(json.p);
  const int = await integerKernel(p, json.w ?? 30);
  const fma = await instantiateFma(p, { chainKernels: true });
  const fm = fmaElements(fma.memory, fma.fp);
  const xs = [3n, p - 2n, 12345678901234567890n % p, p / 3n];
  const ys = [p - 5n, 7n, p / 5n, 98765432109876543210n % p];
  // check both against BigInt on one 4-chain step of 50
  const steps = 50;
  for (let l = 0; l < 4; l++) {
    int.write(int.x + l * int.E, xs[l]);
    int.write(int.y + l * int.E, ys[l]);
    fm.write(4096 + l * fma.fp.elementBytes, xs[l]);
    fm.write(8192 + l * fma.fp.elementBytes, ys[l]);
  }
  int.exports.chain4(int.x, int.y, steps);
  fma.exports.mulFmaChain(4096, 8192, steps);
  for (let l = 0; l < 4; l++) {
    for (const [label, got, R] of [['integer', int.read(int.x + l * int.E), int.R], ['fma', fm.read(4096 + l * fma.fp.elementBytes).x, fma.fp.R]]) {
      let x = xs[l];
      const Rinv = modInv(R % p, p);
      for (let i = 0; i < steps; i++) x = (x * ys[l] * Rinv) % p;
      if ((got - x) % p !== 0n) throw new Error(`${name} ${label} lane ${l}: wrong product`);
    }
  }
  const bench = new Bench({ time: timeMs, warmupTime: Math.max(50, timeMs / 4), iterations: 16, warmupIterations: 4, throws: true });
  bench.add('integer latency', () => int.exports.chain1(int.x, int.y, K));
  bench.add('integer throughput', () => int.exports.chain4(int.x, int.y, K));
  bench.add('fma latency (pair)', () => fma.exports.mulFma2Chain(4096, 8192, K));
  bench.add('fma throughput', () => fma.exports.mulFmaChain(4096, 8192, K));
  await bench.run();
  const ns = (task, products) => (task.result.latency.p50 * 1e6) / (K * products);
  const [il, it, fl, ft] = bench.tasks;
  rows.push({
    curve: name, int: `w=${json.w ?? 30}`, fma: `W=${fma.fp.W}, n=${fma.fp.n}`,
    intLatency: ns(il, 1), intThroughput: ns(it, 4), fmaPairLatency: ns(fl, 1), fmaThroughput: ns(ft, 4),
  });
}
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`field-fma.bench.js: ${cpu}, ${os.cpus().length} cores, Node ${process.version}, ${timeMs} ms per task; ns per Montgomery product (median)`);
console.log('| field | integer | FMA | integer latency | integer throughput (4 chains) | FMA pair latency (2 products) | FMA throughput (4 chains) | FMA / integer throughput |');
console.log('|:--|:--|:--|--:|--:|--:|--:|--:|');
for (const r of rows) {
  console.log(`| ${r.curve} | ${r.int} | ${r.fma} | ${r.intLatency.toFixed(1)} | ${r.intThroughput.toFixed(1)} | ${r.fmaPairLatency.toFixed(1)} | ${r.fmaThroughput.toFixed(1)} | ${(r.intThroughput / r.fmaThroughput).toFixed(2)}x |`);
}
