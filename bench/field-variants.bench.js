#!/usr/bin/env node
// npm run bench:variants [-- --quick] [-- --curve bn254] [-- --w 29] [-- --time 500]
//
// The integer kernel's next steps (issue #13) against the shipped `pairs` product, one process, loops in Wasm:
//   pairs            the shipped product (codegen/kernels/field-mul-pairs.js, default q step)
//   pairs, q step    the other number of q limbs per reduction step (1 <-> 2)
//   block Karatsuba  x*y = L + 2^(wh) (C - L - H) + 2^(2wh) H over the pair identity (karatsuba: true)
//   Yuval            low digits folded by rho_i = 2^(-wi) mod p, one Montgomery step, proven final subtractions
//   Yuval, streamed  the same with each digit's fold products summed as soon as the digit is known
// Latency: one dependent chain x = x*y. Throughput: four chains interleaved. ns per product, tinybench medians.
// Each variant is checked against BigInt on edge values before it is timed.

import os from 'node:os';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { deriveFieldParams, compileWat } from '../codegen/index.js';
import { montgomeryPairs, defaultQStep, countLimbProducts } from '../codegen/kernels/field-mul-pairs.js';
import { Module, Func, i32, local, loop, br_if, call } from '../codegen/wat/index.js';
import { toLimbs, fromLimbs } from '../codegen/params/field.js';
import { modInv } from '../src/bigint/field.js';

const { values: opts } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, curve: { type: 'string', multiple: true }, w: { type: 'string', multiple: true }, time: { type: 'string' } },
});
const timeMs = opts.time ? Number(opts.time) : opts.quick ? 100 : 400;
const curves = opts.curve ?? ['bn254', 'bls12-381'];
const K = 4000; // steps per timed call
const STRIDE = 64; // bytes between the four chains' elements

const variantsFor = (params) => {
  const q = defaultQStep(params);
  return [
    ['pairs', {}],
    [`pairs, q step ${3 - q}`, { qStep: 3 - q }],
    ['block Karatsuba', { karatsuba: true }],
    ['Yuval', { reduction: 'yuval' }],
    ['Yuval, streamed', { reduction: 'yuval-streamed' }],
  ];
};

async function buildVariants(params) {
  const m = new Module({ header: 'pairs product variants', memory: { import: ['env', 'memory'], minPages: 1 } });
  const variants = variantsFor(params).map(([label, options], i) => {
    const fn = montgomeryPairs(params, { name: `v${i}`, ...options });
    m.add(fn);
    for (const lanes of [1, 4]) {
      const chain = new Func(`v${i}x${lanes}`, { params: [['x', 'i32'], ['y', 'i32'], ['k', 'i32']], exportName: `v${i}x${lanes}` });
      const at = (ptr, l) => (l ? i32.add(local.get(ptr), i32.const(l * STRIDE)) : local.get(ptr));
      const calls = Array.from({ length: lanes }, (_, l) => call(`v${i}`, at('x', l), at('x', l), at('y', l)));
      chain.push(loop('chain', [...calls, br_if('chain', local.tee('k', i32.sub(local.get('k'), i32.const(1))))]));
      m.add(chain);
    }
    return { label, name: `v${i}`, products: countLimbProducts(fn) };
  });
  const memory = new WebAssembly.Memory({ initial: 1 });
  const { instance } = await WebAssembly.instantiate(await compileWat(m.render(), 'variants.wat'), { env: { memory } });
  return { variants, exports: instance.exports, memory };
}

/** x*y/R mod p in [0, 2p) for every pair of edge values, through the one-step chain. */
function check(params, { exports, memory }, name) {
  const { n, w, p } = params;
  const W = BigInt(w);
  const words = new Uint32Array(memory.buffer);
  const rInv = modInv((1n << BigInt(n * w)) % p, p);
  const edges = [0n, 1n, p - 1n, p, 2n * p - 1n, (1n << W) - 1n, ((1n << (W * BigInt(n - 1))) - 1n), p / 3n, (2n * p) / 3n + 12345n];
  for (const x of edges) {
    for (const y of edges) {
      words.set(toLimbs(x, w, n).map(Number), 0);
      words.set(toLimbs(y, w, n).map(Number), 1024);
      exports[`${name}x1`](0, 4096, 1);
      const got = fromLimbs(Array.from(words.subarray(0, n)), w);
      if (got >= 2n * p || (got - x * y * rInv) % p !== 0n) throw new Error(`${name}: wrong product of ${x} and ${y}`);
    }
  }
}

const rows = [];
for (const curve of curves) {
  const json = JSON.parse(readFileSync(new URL(`../codegen/curves/${curve}.json`, import.meta.url), 'utf8'));
  for (const w of (opts.w ?? [String(json.w ?? 30)]).map(Number)) {
    const params = deriveFieldParams({ p: BigInt(json.p), w });
    const built = await buildVariants(params);
    const words = new Uint32Array(built.memory.buffer);
    const start = (p) => {
      for (let l = 0; l < 4; l++) {
        words.set(toLimbs((p * 3n) / 5n + BigInt(l), w, params.n).map(Number), (l * STRIDE) / 4);
        words.set(toLimbs((p * 7n) / 9n + BigInt(l), w, params.n).map(Number), (4096 + l * STRIDE) / 4);
      }
    };
    const bench = new Bench({ time: timeMs, warmupTime: Math.max(50, timeMs / 4), iterations: 16, warmupIterations: 4, throws: true });
    for (const v of built.variants) {
      check(params, built, v.name);
      for (const lanes of [1, 4]) {
        bench.add(`${v.name} ${lanes}`, () => built.exports[`${v.name}x${lanes}`](0, 4096, K), { beforeEach: () => start(params.p) });
      }
    }
    await bench.run();
    const ns = (name, lanes) => (bench.getTask(`${name} ${lanes}`).result.latency.p50 * 1e6) / (K * lanes);
    const base = ns('v0', 4);
    for (const v of built.variants) {
      rows.push({ curve, w, n: params.n, label: v.label, products: v.products, latency: ns(v.name, 1), throughput: ns(v.name, 4), vsPairs: base / ns(v.name, 4) });
    }
  }
}
console.log(`field-variants.bench.js: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, ${timeMs} ms per task; ns per Montgomery product (median)`);
console.log('| field | w | n | product | i64.mul | latency | throughput (4 chains) | speed vs pairs |');
console.log('|:--|--:|--:|:--|--:|--:|--:|--:|');
for (const r of rows) {
  console.log(`| ${r.curve} | ${r.w} | ${r.n} | ${r.label} | ${r.products} | ${r.latency.toFixed(1)} | ${r.throughput.toFixed(1)} | ${r.vsPairs.toFixed(2)}x |`);
}
