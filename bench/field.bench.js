#!/usr/bin/env node
// npm run bench:field [-- --quick] [-- --curve bn254] [-- --w 29] [-- --shape loop] [-- --time 500]
//
// Field arithmetic, dependent chains (each op consumes the previous result, so latency is measured, not
// throughput): x = x*y (mul), x = x^2 (sqr), x = 1/x (inv), for the BLS12-381 and BN254 base fields.
// Generated Wasm at every limb size w in 26..32 and every mul shape (pairs, unrolled, loop), called from JS
// through the pointer-level Field (field.mul(x, x, y) on Wasm memory) next to JS BigInt ((x*y) % p) and
// @noble/curves' Fp, and also as a chain inside Wasm (chainKernels: no JS call per product, which is how
// the MSM uses the kernels). Times are tinybench medians of a batch, divided by the batch size: ns per op.
// Env: BENCH_QUICK=1 is the same as --quick.

import os from 'node:os';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { instantiateField, deriveFieldParams } from '../codegen/index.js';
import { limbProductsPerMul, MUL_SHAPES } from '../codegen/kernels/field-mul.js';
import { pairsShapeFits } from '../codegen/kernels/field-mul-pairs.js';
import { modInv } from '../src/bigint/field.js';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    curve: { type: 'string', multiple: true },
    w: { type: 'string', multiple: true },
    shape: { type: 'string', multiple: true },
    time: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(`Usage: node bench/field.bench.js [--quick] [--curve bls12-381|bn254]... [--w 26..32]... [--shape pairs|unrolled|loop]... [--time ms]
  --quick   shorter time per task (about 10 s in all instead of about 60 s); also BENCH_QUICK=1`);
  process.exit(0);
}
const quick = opts.quick || process.env.BENCH_QUICK === '1';
const timeMs = opts.time ? Number(opts.time) : quick ? 80 : 500;
const warmupMs = Math.max(20, Math.round(timeMs / 4));
const curveNames = opts.curve ?? ['bls12-381', 'bn254'];
const limbSizes = (opts.w ?? ['26', '27', '28', '29', '30', '31', '32']).map(Number);
const shapes = opts.shape ?? [...MUL_SHAPES];

const noble = { 'bls12-381': bls12_381.fields.Fp, bn254: bn254.fields.Fp };
const badCurve = curveNames.find((name) => !Object.hasOwn(noble, name));
const badW = limbSizes.find((w) => !Number.isInteger(w) || w < 26 || w > 32);
const badShape = shapes.find((s) => !MUL_SHAPES.includes(s));
if (badCurve || badW !== undefined || badShape || !(timeMs > 0)) {
  console.error(`field.bench.js: bad option (${badCurve ? `curve ${badCurve}; choose from ${Object.keys(noble).join(', ')}` : badW !== undefined ? `w ${badW}; 26..32` : badShape ? `shape ${badShape}; ${MUL_SHAPES.join(', ')}` : `time ${opts.time}`})`);
  process.exit(2);
}
const titles = { 'bls12-381': 'BLS12-381 Fp', bn254: 'BN254 Fp' };
const readCurve = (name) => JSON.parse(readFileSync(new URL(`../codegen/curves/${name}.json`, import.meta.url), 'utf8'));

// Ops per timed call: enough that tinybench's per-call overhead vanishes, few enough for many samples.
const BATCH = { mul: 1000, sqr: 1000, inv: 20, mulInWasm: 1000, sqrInWasm: 1000 };
const OPS = ['mul', 'sqr', 'inv']; // compared with BigInt and noble
const WASM_OPS = [...OPS, 'mulInWasm', 'sqrInWasm'];

// Deterministic pseudo-random field elements (xorshift), so runs are comparable.
let seed = 0x2545f4914f6cdd1dn;
function randomBelow(p) {
  let x = 0n;
  for (let i = 0; i < 8; i++) {
    seed ^= (seed << 13n) & 0xffffffffffffffffn;
    seed ^= seed >> 7n;
    seed ^= (seed << 17n) & 0xffffffffffffffffn;
    x = (x << 64n) | seed;
  }
  return (x % (p - 1n)) + 1n;
}

let sink; // keeps the chains observable

function bigintTasks(p, x0, y0) {
  let x = x0;
  const y = y0;
  return {
    mul: () => {
      for (let i = 0; i < BATCH.mul; i++) x = (x * y) % p;
      sink = x;
    },
    sqr: () => {
      for (let i = 0; i < BATCH.sqr; i++) x = (x * x) % p;
      sink = x;
    },
    inv: () => {
      for (let i = 0; i < BATCH.inv; i++) x = modInv(x, p);
      sink = x;
    },
  };
}

function nobleTasks(Fp, x0, y0) {
  let x = x0;
  const y = y0;
  return {
    mul: () => {
      for (let i = 0; i < BATCH.mul; i++) x = Fp.mul(x, y);
      sink = x;
    },
    sqr: () => {
      for (let i = 0; i < BATCH.sqr; i++) x = Fp.sqr(x);
      sink = x;
    },
    inv: () => {
      for (let i = 0; i < BATCH.inv; i++) x = Fp.inv(x);
      sink = x;
    },
  };
}

async function wasmTasks(p, w, mulShape, x0, y0) {
  const F = await instantiateField({ p, w, mulShape, chainKernels: true });
  // Sanity before timing: the kernels agree with BigInt on these inputs.
  if (F.mul(x0, y0) !== (x0 * y0) % p || F.sqr(x0) !== (x0 * x0) % p || (F.inv(x0) * x0) % p !== 1n) {
    throw new Error(`wasm field (w=${w}, ${mulShape}) disagrees with BigInt`);
  }
  const { field } = F;
  const x = field.alloc();
  const y = field.alloc();
  field.write(x, x0);
  field.write(y, y0);
  const { mul, sqr, inv } = field;
  const { chains } = F;
  return {
    params: F.params,
    products: limbProductsPerMul(F.params, mulShape),
    tasks: {
      mulInWasm: () => chains.mul(x, y, BATCH.mulInWasm),
      sqrInWasm: () => chains.sqr(x, BATCH.sqrInWasm),
      mul: () => {
        for (let i = 0; i < BATCH.mul; i++) mul(x, x, y);
      },
      sqr: () => {
        for (let i = 0; i < BATCH.sqr; i++) sqr(x, x);
      },
      inv: () => {
        for (let i = 0; i < BATCH.inv; i++) inv(x, x);
      },
    },
  };
}

/** Run tasks [{ key, op, fn }] in one tinybench; returns Map key -> { mul, sqr, inv } in ns per op (medians). */
async function measure(rows) {
  const bench = new Bench({ time: timeMs, warmupTime: warmupMs, iterations: 16, warmupIterations: 4, throws: true });
  for (const { key, op, fn } of rows) bench.add(`${key}|${op}`, fn);
  await bench.run();
  const out = new Map();
  for (const task of bench.tasks) {
    const [key, op] = task.name.split('|');
    if (task.result?.state !== 'completed') throw new Error(`${task.name}: ${task.result?.state} ${task.result?.error ?? ''}`);
    const ns = (task.result.latency.p50 * 1e6) / BATCH[op];
    out.set(key, { ...out.get(key), [op]: ns });
  }
  return out;
}

const fmtNs = (ns) => (ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(1)} ns`);
const fmtX = (r) => `${r.toFixed(r >= 10 ? 1 : 2)}×`;
const ratios = (base, t) => OPS.map((op) => fmtX(base[op] / t[op])).join(' / ');

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? ':--' : '--:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

async function benchCurve(name) {
  const p = BigInt(readCurve(name).p);
  const Fp = noble[name];
  if (!Fp || Fp.ORDER !== p) throw new Error(`${name}: @noble/curves Fp does not match codegen/curves/${name}.json`);
  const x0 = randomBelow(p);
  const y0 = randomBelow(p);

  const rows = [];
  const addAll = (key, tasks, ops = OPS) => ops.forEach((op) => rows.push({ key, op, fn: tasks[op] }));
  addAll('bigint', bigintTasks(p, x0, y0));
  addAll('noble', nobleTasks(Fp, x0, y0));
  const params = new Map();
  const fits = (shape, w) => shape !== 'pairs' || pairsShapeFits(deriveFieldParams({ p, w }));
  for (const shape of shapes) {
    for (const w of limbSizes) {
      if (!fits(shape, w)) continue;
      const built = await wasmTasks(p, w, shape, x0, y0);
      params.set(`${shape}:${w}`, built);
      addAll(`${shape}:${w}`, built.tasks, WASM_OPS);
    }
  }
  const t = await measure(rows);
  const big = t.get('bigint');
  const nob = t.get('noble');

  const header = ['impl', 'w', 'n', 'i64.mul/mul', 'mul', 'sqr', 'inv', 'mul in Wasm', 'sqr in Wasm', 'ns/limb product', '× BigInt (mul/sqr/inv)', '× noble (mul/sqr/inv)'];
  const body = [
    ['BigInt (x*y) % p', '', '', '', fmtNs(big.mul), fmtNs(big.sqr), fmtNs(big.inv), '', '', '', ratios(big, big), ratios(nob, big)],
    ['noble Fp', '', '', '', fmtNs(nob.mul), fmtNs(nob.sqr), fmtNs(nob.inv), '', '', '', ratios(big, nob), ratios(nob, nob)],
  ];
  const notes = [];
  const keys = [];
  for (const shape of shapes) {
    const measured = limbSizes.filter((w) => params.has(`${shape}:${w}`));
    for (const w of measured) {
      const key = `${shape}:${w}`;
      const r = t.get(key);
      const { params: fp, products } = params.get(key);
      keys.push({ key, shape, w });
      body.push([`wasm ${shape}`, w, fp.n, products, fmtNs(r.mul), fmtNs(r.sqr), fmtNs(r.inv), fmtNs(r.mulInWasm), fmtNs(r.sqrInWasm), (r.mulInWasm / products).toFixed(3), ratios(big, r), ratios(nob, r)]);
    }
    if (!measured.length) continue;
    const best = measured.reduce((a, b) => (t.get(`${shape}:${b}`).mulInWasm < t.get(`${shape}:${a}`).mulInWasm ? b : a));
    const r = t.get(`${shape}:${best}`);
    notes.push(`best mul (${shape}): w=${best}, ${fmtNs(r.mulInWasm)} in Wasm, ${fmtNs(r.mul)} from JS; ${fmtX(big.mul / r.mul)} BigInt, ${fmtX(nob.mul / r.mul)} noble (from JS)`);
  }
  // The limb-size question of the foundation issue: the best build overall against the best build at w = 32.
  const fastest = (list) => list.reduce((a, b) => (t.get(b.key).mulInWasm < t.get(a.key).mulInWasm ? b : a));
  const at32 = keys.filter((k) => k.w === 32);
  if (keys.length && at32.length) {
    const best = fastest(keys);
    const best32 = fastest(at32);
    const [b, b32] = [t.get(best.key).mulInWasm, t.get(best32.key).mulInWasm];
    notes.push(`best w overall: ${best.shape} w=${best.w}, ${fmtNs(b)} in Wasm; ${fmtX(b32 / b)} faster than the best at w=32 (${best32.shape}, ${fmtNs(b32)})`);
  }
  console.log(`\n### ${titles[name]} (${params.values().next().value.params.bits} bits), median ns per op in a dependent chain\n`);
  console.log(table(header, body));
  console.log('');
  for (const n of notes) console.log(`- ${n}`);
}

const started = performance.now();
const cpus = os.cpus();
console.log(`# field.bench.js: ${cpus[0]?.model ?? 'unknown CPU'} (${cpus.length} logical CPUs), ${os.platform()} ${os.arch()}, Node ${process.version}`);
console.log(
  `# ${quick ? 'quick' : 'full'} run: tinybench ${timeMs} ms per task (+${warmupMs} ms warmup), batches of ${BATCH.mul} mul/sqr, ${BATCH.inv} inv; ` +
    `× columns are speedups (baseline time / this time, > 1 is faster)`,
);
for (const name of curveNames) await benchCurve(name);
console.log(`\n# done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
