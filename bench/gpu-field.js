#!/usr/bin/env node
// The WGSL field product on the GPU it is given (a benchmark, not a test): for BN254's and BLS12-381's p and every
// limb size w = 12..16, `chains` independent chains of `steps` dependent fp_mul (x = x y) and fp_sqr (x = x^2),
// one chain per invocation; prints G products/s, ps per product and the compile time of each pipeline, with the
// adapter's description. Each result is checked against BigInt on a few chains before it is timed.
//
//   node bench/gpu-field.js                           # Dawn's default adapter (a real GPU where there is one)
//   node bench/gpu-field.js --swiftshader --chains 1024 --steps 8    # here, on SwiftShader: runs, proves nothing
//   /tmp/dev/node-gpu bench/gpu-field.js              # the GPU machine (../shared/device/README.md)
// Options: --chains N (2^20), --steps N (256), --w 12,13,... , --curves bn254,bls12-381, --ops mul,sqr,
//   --variants unrolled,loop,product,karatsuba,sqr-scanning,inline (fp_mul's shape, karatsuba at w <= 13; fp_sqr's own
//   product scanning with op sqr; inline: a diagnostic, see below), --runs N (5 timed dispatches
//   per pass, median), --warm-ms N (300: dispatches before timing), --workgroup N (64), --wall-clock (no GPU
//   timestamps), --json (one JSON line per row as well).
// Every configuration is compiled and checked first, then timed in two passes (in order, then reversed); the table
// gives both medians and G products/s and ps/product from the better one.
//
// Measured on the GPU machine (NVIDIA H100 80GB HBM3, Vulkan driver 580.159.04, Dawn 0.6.2 in Node 24.21.0,
// 2026-11-27; 2^20 chains x 256 steps, workgroup 64, fp_mul): the two passes of one run differ by up to 1.6x, so
// read the figures as ranges. BN254: 85-130 ps per product (7.6-11.8 G/s) for w = 13, 14, 16 in both shapes (in
// one earlier run 51-60 ps for w = 12 and, at workgroup 256, w = 13); BLS12-381: 110-177 ps (w = 13, 14 best; w = 16 167-214 ps). The loop shape of fp_mul
// is as fast as the unrolled one there (BLS12-381 w = 14: 110 against 144 ps) and compiles 2-6x faster.
//
// Timing: GPU timestamps around the compute pass where the adapter has 'timestamp-query' (Dawn quantizes them to
// 65.5 us), else the wall clock from submit to queue.onSubmittedWorkDone(). Limbs are stored limb-major (limb j of chain i at j * chains + i), so a
// warp's loads and stores are coalesced.

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { deriveFieldParams } from '../codegen/params/field.js';
import { fieldWgsl, karatsubaFits } from '../codegen/kernels/wgsl-field.js';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const CURVES = {
  bn254: 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n,
  'bls12-381': 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
};

const { values: opt } = parseArgs({
  options: {
    chains: { type: 'string', default: String(1 << 20) },
    steps: { type: 'string', default: '256' },
    w: { type: 'string', default: '12,13,14,15,16' },
    curves: { type: 'string', default: 'bn254,bls12-381' },
    ops: { type: 'string', default: 'mul,sqr' },
    variants: { type: 'string', default: 'unrolled,loop,product' },
    runs: { type: 'string', default: '5' },
    'warm-ms': { type: 'string', default: '300' },
    workgroup: { type: 'string', default: '64' },
    swiftshader: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'wall-clock': { type: 'boolean', default: false },
  },
});
const chains = Number(opt.chains);
const steps = Number(opt.steps);
const runs = Number(opt.runs);
const workgroup = Number(opt.workgroup);
const limbSizes = opt.w.split(',').map(Number);
const ops = opt.ops.split(',');
for (const op of ops) if (op !== 'mul' && op !== 'sqr') throw new Error(`unknown op ${op} (mul, sqr)`);
// unrolled, loop, product, karatsuba: the chain calls fp_mul / fp_sqr on Fp arrays (how kernels use them), with
// fp_mul of that shape (fieldWgsl's mul option: CIOS unrolled, CIOS with the outer step in a loop, product scanning,
// one level of Karatsuba and the reduction by product scanning), fp_sqr = fp_mul(x, x); sqr-scanning (op sqr only):
// fp_sqr's own product scanning (fieldWgsl's sqr option); inline: the unrolled fp_mul's body pasted into the chain's
// loop over scalar limbs (a diagnostic: what passing arrays by value costs)
const VARIANTS = ['unrolled', 'loop', 'product', 'karatsuba', 'sqr-scanning', 'inline'];
const variants = opt.variants.split(',');
for (const v of variants) if (!VARIANTS.includes(v)) throw new Error(`unknown variant ${v} (${VARIANTS.join(', ')})`);

// SwiftShader only when asked for and no Vulkan driver is chosen already (the GPU machine's wrapper chooses one)
if (opt.swiftshader && !process.env.VK_ICD_FILENAMES && !process.env.VK_DRIVER_FILES && existsSync(SWIFTSHADER_ICD)) {
  process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
}
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
// Dawn lives as long as the object create() returns is referenced: held here, released at the end
globalThis.benchGpu = create([]);
const adapter = await globalThis.benchGpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('no WebGPU adapter');
const timestamps = adapter.features.has('timestamp-query') && !opt['wall-clock'];
const device = await adapter.requestDevice({
  requiredFeatures: timestamps ? ['timestamp-query'] : [],
  requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  },
});
device.onuncapturederror = (e) => console.error('WebGPU error:', e.error?.message);
const info = adapter.info ?? {};
console.log(`adapter: ${[info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' | ')}`);
console.log(`node ${process.version}; ${chains} chains x ${steps} steps, workgroup ${workgroup}, ${runs} runs (median), timing: ${timestamps ? 'GPU timestamps' : 'wall clock to onSubmittedWorkDone'}`);

/** The benchmark's entry point over the field: x (limb-major) becomes x y^steps / R^steps (mul) or x^(2^steps) / ... (sqr). */
function benchWgsl(P, op, variant) {
  const load = (buf) => `Fp(${Array.from({ length: P.n }, (_, j) => `${buf}[${j}u * C + i]`).join(', ')})`;
  let step = op === 'mul' ? 'x = fp_mul(x, y);' : 'x = fp_sqr(x);';
  const mul = { inline: 'unrolled', 'sqr-scanning': 'loop' }[variant] ?? variant;
  const field = fieldWgsl(P, { mul, sqr: variant === 'sqr-scanning' ? 'scanning' : 'mul' });
  if (variant === 'inline') step = inlineMulStep(field, P.n, op);
  return `${field}
@group(0) @binding(0) var<storage, read_write> xs: array<u32>;
@group(0) @binding(1) var<storage, read> ys: array<u32>;
@group(0) @binding(2) var<uniform> cfg: vec4<u32>; // chains, steps

@compute @workgroup_size(${workgroup})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let C = cfg.x;
  let i = id.x + id.y * ${workgroup}u * 65535u; // dispatches wider than 65535 workgroups go to y
  if (i >= C) { return; }
  let y = ${load('ys')};
${variant === 'inline'
    ? `${Array.from({ length: P.n }, (_, j) => `  var X${j} = xs[${j}u * C + i];`).join('\n')}
  for (var s = 0u; s < cfg.y; s++) ${step}
${Array.from({ length: P.n }, (_, j) => `  xs[${j}u * C + i] = X${j};`).join('\n')}`
    : `  var x = ${load('xs')};
  for (var s = 0u; s < cfg.y; s++) { ${step} }
${Array.from({ length: P.n }, (_, j) => `  xs[${j}u * C + i] = x[${j}];`).join('\n')}`}
}
`;
}

/**
 * fp_mul's body in the loop, on scalar vars X_j (x) and lets Y_j (y, or X_j for sqr): the statements between
 * its braces, with the loads of x and y and the return replaced.
 */
function inlineMulStep(field, n, op) {
  const start = field.indexOf('fn fp_mul(');
  const body = field.slice(field.indexOf('{', start) + 1, field.indexOf('\n}\n', start));
  const lines = body.split('\n').filter((l) => !/^\s*let x0 = x\[0\]/.test(l) && !/^\s*let x\d+ = x\[\d+\]; let y\d+ = y\[\d+\];/.test(l));
  const text = lines.join('\n').replace(/return Fp\(([\s\S]*?)\);/, (_, rs) => rs.split(',').map((r, j) => `X${j} = ${r.trim()};`).join(' '));
  const names = Array.from({ length: n }, (_, j) => j);
  const pre = names.map((j) => `let x${j} = X${j}; let y${j} = ${op === 'mul' ? `y[${j}]` : `X${j}`};`).join('\n');
  return `{\n${pre}\n${text}\n}`;
}

/** Deterministic x, y in [0, 2p) per chain, limb-major words. */
function inputs(P, seed) {
  const { n, w, p } = P;
  const xs = new Uint32Array(n * chains);
  const ys = new Uint32Array(n * chains);
  // random w-bit limbs (xorshift32), the top limb below p's: every value < p
  let s = (seed * 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const pTop = Number(p >> BigInt((n - 1) * w));
  for (const a of [xs, ys]) {
    for (let j = 0; j < n; j++) {
      const bound = j === n - 1 ? pTop : 2 ** w;
      for (let i = 0; i < chains; i++) a[j * chains + i] = next() % bound;
    }
  }
  const value = (a, i) => {
    let v = 0n;
    for (let j = n - 1; j >= 0; j--) v = (v << BigInt(w)) + BigInt(a[j * chains + i]);
    return v;
  };
  const values = {};
  for (const i of [0, 1, 2, 3, chains - 1]) values[i] = { x: value(xs, i), y: value(ys, i) };
  return { xs, ys, values };
}

const median = (a) => {
  const s = [...a].sort((u, v) => u - v);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function readBuffer(src, size) {
  const read = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(src, 0, read, 0, size);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const copy = read.getMappedRange().slice(0);
  read.unmap();
  read.destroy();
  return copy;
}

/** Compile one configuration and set up its buffers; returns { compileMs, runOnce, check, destroy }. */
async function prepare(name, p, w, op, variant) {
  const P = deriveFieldParams({ p, w, kernel: 'gpu' });
  const code = benchWgsl(P, op, variant);
  const t0 = performance.now();
  const module = device.createShaderModule({ code });
  const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === 'error');
  if (errors.length) throw new Error(errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('\n'));
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const compileMs = performance.now() - t0;

  const { xs, ys, values } = inputs(P, w * 1000 + name.length);
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const xBuf = device.createBuffer({ size: xs.byteLength, usage });
  const yBuf = device.createBuffer({ size: ys.byteLength, usage });
  const cfg = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(yBuf, 0, ys);
  device.queue.writeBuffer(cfg, 0, new Uint32Array([chains, steps, 0, 0]));
  const bind = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [xBuf, yBuf, cfg].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const groups = Math.ceil(chains / workgroup);
  const gx = Math.min(groups, 65535);
  const gy = Math.ceil(groups / 65535);
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : null;
  const resolve = timestamps ? device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : null;

  /** One dispatch from fresh x; its time in ms (the upload is not timed). */
  const runOnce = async () => {
    device.queue.writeBuffer(xBuf, 0, xs);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass(timestamps ? { timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(gx, gy);
    pass.end();
    if (timestamps) enc.resolveQuerySet(querySet, 0, 2, resolve, 0);
    await device.queue.onSubmittedWorkDone();
    const t = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    const wall = performance.now() - t;
    if (!timestamps) return wall;
    const [begin, end] = new BigUint64Array(await readBuffer(resolve, 16));
    return Number(end - begin) / 1e6;
  };

  /** A few chains against BigInt (x <- x y / R, or x^2 / R, steps times): congruence and x < 2p. */
  const check = async () => {
    await runOnce();
    const out = new Uint32Array(await readBuffer(xBuf, xs.byteLength));
    const Rinv = modInverse(P.R % p, p);
    for (const [i, { x, y }] of Object.entries(values)) {
      let want = x;
      for (let s = 0; s < steps; s++) want = ((op === 'mul' ? want * y : want * want) * Rinv) % p;
      let got = 0n;
      for (let j = P.n - 1; j >= 0; j--) got = (got << BigInt(w)) + BigInt(out[j * chains + Number(i)]);
      if (got % p !== want || got >= 2n * p) throw new Error(`${name} w=${w} ${op} ${variant}: chain ${i} is wrong (${got.toString(16)})`);
    }
  };
  const destroy = () => {
    [xBuf, yBuf, cfg, resolve].forEach((b) => b?.destroy());
    querySet?.destroy();
  };
  const plan = ['product', 'karatsuba', 'sqr-scanning'].includes(variant) ? `w=${w}, n=${P.n}: ${code.match(/; (\d+) splits of a column sum/)[1]} column splits per product` : P.carryPlan.summary;
  return { name, w, n: P.n, op, variant, plan, compileMs, runOnce, check, destroy };
}

/** Warm up (at least `warmMs` of dispatches, at most 50), then the median of `runs` timed dispatches. */
async function timeConfig(c, warmMs) {
  let spent = 0;
  for (let k = 0; k < 50 && spent < warmMs; k++) spent += await c.runOnce();
  const times = [];
  for (let r = 0; r < runs; r++) times.push(await c.runOnce());
  return median(times);
}

function modInverse(a, m) {
  let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
  while (r1) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

// Compile every configuration, check each against BigInt, then time them in two passes, in order and reversed
// (a figure that depends on its place in the run, clocks or caches, shows as a difference between the passes).
const configs = [];
for (const name of opt.curves.split(',')) {
  const p = CURVES[name];
  if (!p) throw new Error(`unknown curve ${name} (${Object.keys(CURVES).join(', ')})`);
  for (const w of limbSizes) for (const op of ops) for (const variant of variants) {
    if (variant === 'sqr-scanning' && op !== 'sqr') continue;
    if (variant === 'karatsuba' && !karatsubaFits(deriveFieldParams({ p, w, kernel: 'gpu' }))) {
      console.log(`${name} w = ${w} karatsuba: skipped (a column of the Karatsuba product can pass 2^32 - 1 at this w)`);
      continue;
    }
    configs.push(await prepare(name, p, w, op, variant));
  }
}
for (const c of configs) await c.check();
const passes = [configs, [...configs].reverse()];
const times = new Map(configs.map((c) => [c, []]));
for (const pass of passes) for (const c of pass) times.get(c).push(await timeConfig(c, Number(opt['warm-ms'])));

const cell = (s, width) => String(s).padStart(width);
console.log(`${'curve'.padEnd(10)} ${cell('w', 2)} ${cell('n', 2)} ${'op'.padEnd(3)} ${'variant'.padEnd(12)} ${cell('compile ms', 10)} ${cell('ms pass 1', 10)} ${cell('ms pass 2', 10)} ${cell('G prod/s', 9)} ${cell('ps/prod', 9)}  carries`);
for (const c of configs) {
  const [t1, t2] = times.get(c);
  const ms = Math.min(t1, t2); // the better pass: the other is listed beside it
  const products = chains * steps;
  const r = { curve: c.name, w: c.w, n: c.n, op: c.op, variant: c.variant, compileMs: c.compileMs, msPass1: t1, msPass2: t2, gps: products / (ms * 1e6), ps: (ms * 1e9) / products, plan: c.plan };
  const carries = c.plan.replace(/^w=\d+, n=\d+: /, '').replace(/;.*$/, '');
  console.log(`${c.name.padEnd(10)} ${cell(c.w, 2)} ${cell(c.n, 2)} ${c.op.padEnd(3)} ${c.variant.padEnd(12)} ${cell(c.compileMs.toFixed(0), 10)} ${cell(t1.toFixed(3), 10)} ${cell(t2.toFixed(3), 10)} ${cell(r.gps.toFixed(3), 9)} ${cell(r.ps.toFixed(1), 9)}  ${carries}`);
  if (opt.json) console.log(JSON.stringify({ ...r, adapter: info, chains, steps, workgroup }));
  c.destroy();
}
device.destroy();
delete globalThis.benchGpu;
