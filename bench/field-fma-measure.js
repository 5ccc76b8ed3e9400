// The measurement of bench/field-fma.bench.js, one copy for both places it runs: in Node, and in headless
// Chromium (bundled by `field-fma.bench.js --browser` with bench/field-fma-page.js as the entry). No Node
// built-in, no codegen: it takes kernels already compiled (bytes and limb shapes, plain data from
// `field-fma.bench.js`), checks each against BigInt and times it with tinybench (its default clock,
// performance.now: sub-microsecond in Node; in Chromium 5 µs with jitter on a cross-origin-isolated page, 100 µs
// otherwise, which is why a timed call runs STEPS products, 1 to 8 ms).
//
// A kernel set, `spec`, for one field:
//   { curve, p: '0x…',
//     int: { bytes, w, n, elementBytes, minPages },  // the field module with chainKernels: mulChain (one chain)
//                                                     // and mulChain4 (four chains); memory imported as env.memory
//     fma: { bytes, W, n, elementBytes },             // fmaModuleWat(p, { chainKernels: true }); the same import
//     wide: { bytes, n, elementBytes } }              // optional: wideModuleWat(p, { chainKernels: true }) (mulWideChain,
//                                                     // mulWideChain4, mulWide2Chain4, sqrWideChain), for
//                                                     // engines with wide arithmetic (Chromium with its flag)
// bytes: a Uint8Array or an array of byte values (what crosses into the page).

import { Bench } from 'tinybench';
import { toLimbs, fromLimbs } from '../codegen/params/field.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { modInv } from '../src/bigint/field.js';

/** Products per chain in one timed call (each figure is a tinybench median of these calls / the products in one). */
export const STEPS = 20000;
/** Steps of the check against BigInt (four chains at once, both kernels). */
const CHECK_STEPS = 50;
/** Where the FMA operands live in its memory (x: four elements, y: four elements). */
const FMA_X = 4096;
const FMA_Y = 8192;

/**
 * 'Node 24.21.0', or 'Chromium 156.0.0.0' from a page's user agent (Chromium reports only its major version
 * there: the driver passes the full one as measureKernels' `engine`).
 */
export function engineName() {
  if (globalThis.process?.versions?.node) return `Node ${globalThis.process.versions.node}`;
  const ua = globalThis.navigator?.userAgent ?? '';
  const chrome = ua.match(/(?:Headless)?Chrome\/([\d.]+)/);
  return chrome ? `Chromium ${chrome[1]}` : ua || 'unknown engine';
}

/** Instantiate one kernel set over fresh memories: the exports and element accessors of both kernels. */
async function instantiate(spec) {
  const p = BigInt(spec.p);
  const bytesOf = (b) => (b instanceof Uint8Array ? b : Uint8Array.from(b));
  // integer kernel: u32 words of w-bit limbs
  const intMemory = new WebAssembly.Memory({ initial: spec.int.minPages + 1 });
  const { instance: intInstance } = await WebAssembly.instantiate(bytesOf(spec.int.bytes), { env: { memory: intMemory } });
  const { w, n, elementBytes: E } = spec.int;
  const base = intInstance.exports.heapBase.value;
  const int = {
    exports: intInstance.exports,
    x: base, y: base + 4 * E, E, R: 1n << BigInt(n * w),
    write: (ptr, x) => new Uint32Array(intMemory.buffer, ptr, n).set(toLimbs(x, w, n).map(Number)),
    read: (ptr) => fromLimbs([...new Uint32Array(intMemory.buffer, ptr, n)], w),
  };
  // FMA kernel: u64 words of W-bit limbs
  const fmaMemory = new WebAssembly.Memory({ initial: 2 });
  const { instance: fmaInstance } = await WebAssembly.instantiate(bytesOf(spec.fma.bytes), { env: { memory: fmaMemory } });
  const { W, n: fn, elementBytes: F } = spec.fma;
  const words = (ptr) => new BigUint64Array(fmaMemory.buffer, ptr, fn);
  const fma = {
    exports: fmaInstance.exports,
    x: FMA_X, y: FMA_Y, E: F, R: 1n << BigInt(fn * W),
    write: (ptr, x) => words(ptr).set(toLimbs(x, W, fn)),
    read: (ptr) => fromLimbs([...words(ptr)], W),
  };
  if (!spec.wide) return { p, int, fma };
  // wide kernel: u64 words of 64-bit limbs
  const wideMemory = new WebAssembly.Memory({ initial: 2 });
  const { instance: wideInstance } = await WebAssembly.instantiate(bytesOf(spec.wide.bytes), { env: { memory: wideMemory } });
  const { n: wn, elementBytes: WE } = spec.wide;
  const wideWords = (ptr) => new BigUint64Array(wideMemory.buffer, ptr, wn);
  const wide = {
    exports: wideInstance.exports,
    x: FMA_X, y: FMA_Y, E: WE, R: 1n << BigInt(64 * wn),
    write: (ptr, x) => wideWords(ptr).set(toLimbs(x, 64, wn)),
    read: (ptr) => fromLimbs([...wideWords(ptr)], 64),
  };
  return { p, int, fma, wide };
}

/**
 * Both kernels against BigInt: four chains x_l = x_l * y_l / R, CHECK_STEPS steps, through the loops that are
 * timed (integer mulChain4, FMA mulFmaChain). Throws on the first wrong lane.
 */
function check(spec, { p, int, fma, wide }) {
  const xs = [3n, p - 2n, 12345678901234567890n % p, p / 3n];
  const ys = [p - 5n, 7n, p / 5n, 98765432109876543210n % p];
  const kernels = [['integer', int], ['fma', fma], ...(wide ? [['wide', wide]] : [])];
  for (const [, k] of kernels) {
    for (let l = 0; l < 4; l++) {
      k.write(k.x + l * k.E, xs[l]);
      k.write(k.y + l * k.E, ys[l]);
    }
  }
  int.exports.mulChain4(int.x, int.y, CHECK_STEPS);
  fma.exports.mulFmaChain(fma.x, fma.y, CHECK_STEPS);
  wide?.exports.mulWide2Chain4(wide.x, wide.y, CHECK_STEPS);
  if (wide) {
    // the squaring chain on a fifth element: x = x^2 / R
    const at = wide.x + 4 * wide.E;
    wide.write(at, xs[1]);
    wide.exports.sqrWideChain(at, CHECK_STEPS);
    const Rinv = modInv(wide.R % p, p);
    let x = xs[1];
    for (let i = 0; i < CHECK_STEPS; i++) x = (x * x * Rinv) % p;
    if ((wide.read(at) - x) % p !== 0n) throw new Error(`${spec.curve} wide: wrong square (${engineName()})`);
  }
  for (const [label, k] of kernels) {
    const Rinv = modInv(k.R % p, p);
    for (let l = 0; l < 4; l++) {
      let x = xs[l];
      for (let i = 0; i < CHECK_STEPS; i++) x = (x * ys[l] * Rinv) % p;
      if ((k.read(k.x + l * k.E) - x) % p !== 0n) throw new Error(`${spec.curve} ${label} lane ${l}: wrong product (${engineName()})`);
    }
  }
}

/**
 * Check, then time one kernel set on this engine. timeMs: tinybench time per task (warm-up a quarter of it, at
 * least 50 ms); engine: the row's label (default engineName()). Resolves to one table row: ns per Montgomery
 * product (medians), the FMA pair latency per call (two products).
 */
export async function measureKernels(spec, { timeMs = 500, steps = STEPS, engine = engineName() } = {}) {
  const support = relaxedFmaSupport();
  if (support !== 'fused') throw new Error(`${engineName()}: relaxed SIMD is '${support}'; the FMA kernels need 'fused'`);
  const k = await instantiate(spec);
  check(spec, k);
  const { int, fma, wide } = k;
  const bench = new Bench({ time: timeMs, warmupTime: Math.max(50, timeMs / 4), iterations: 16, warmupIterations: 4, throws: true });
  bench.add('integer latency', () => int.exports.mulChain(int.x, int.y, steps));
  bench.add('integer throughput', () => int.exports.mulChain4(int.x, int.y, steps));
  bench.add('fma latency (pair)', () => fma.exports.mulFma2Chain(fma.x, fma.y, steps));
  bench.add('fma throughput', () => fma.exports.mulFmaChain(fma.x, fma.y, steps));
  if (wide) {
    bench.add('wide latency', () => wide.exports.mulWideChain(wide.x, wide.y, steps));
    bench.add('wide throughput', () => wide.exports.mulWideChain4(wide.x, wide.y, steps));
    bench.add('wide paired throughput', () => wide.exports.mulWide2Chain4(wide.x, wide.y, steps));
    bench.add('wide square latency', () => wide.exports.sqrWideChain(wide.x + 4 * wide.E, steps));
  }
  await bench.run();
  const ns = (task, products) => (task.result.latency.p50 * 1e6) / (steps * products);
  const [il, it, fl, ft, wl, wt, w2, ws] = bench.tasks;
  return {
    engine, curve: spec.curve, int: `w=${spec.int.w}, n=${spec.int.n}`, fma: `W=${spec.fma.W}, n=${spec.fma.n}`,
    intLatency: ns(il, 1), intThroughput: ns(it, 4), fmaPairLatency: ns(fl, 1), fmaThroughput: ns(ft, 4),
    ...(wide ? { wide: `w=64, n=${spec.wide.n}`, wideLatency: ns(wl, 1), wideThroughput: ns(wt, 4), widePairedThroughput: ns(w2, 4), wideSquareLatency: ns(ws, 1) } : {}),
  };
}

/** The markdown table of rows from either engine (bench/README.md, "FMA kernel"), and of the wide kernel's rows. */
export function formatTable(rows) {
  const wideRows = rows.filter((r) => r.wide);
  const wideTable = wideRows.length === 0 ? [] : [
    '',
    '| engine | field | wide | wide latency (1 chain) | wide square latency (1 chain) | FMA pair latency (1 step of 2 chains) | FMA / wide latency | wide throughput (4 chains) | wide paired throughput (4 chains, 2 per call) | FMA throughput (4 chains) | FMA / best wide throughput |',
    '|:--|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...wideRows.map((r) => `| ${r.engine} | ${r.curve} | ${r.wide} | ${r.wideLatency.toFixed(1)} | ${r.wideSquareLatency.toFixed(1)} | ${r.fmaPairLatency.toFixed(1)} | ${(r.fmaPairLatency / r.wideLatency).toFixed(2)}x | ${r.wideThroughput.toFixed(1)} | ${r.widePairedThroughput.toFixed(1)} | ${r.fmaThroughput.toFixed(1)} | ${(r.fmaThroughput / Math.min(r.wideThroughput, r.widePairedThroughput)).toFixed(2)}x |`),
  ];
  return [
    '| engine | field | integer | integer latency | integer throughput (4 chains) | FMA | FMA pair latency (2 products) | FMA throughput (4 chains) | FMA / integer throughput |',
    '|:--|:--|:--|--:|--:|:--|--:|--:|--:|',
    ...rows.map((r) => `| ${r.engine} | ${r.curve} | ${r.int} | ${r.intLatency.toFixed(1)} | ${r.intThroughput.toFixed(1)} | ${r.fma} | ${r.fmaPairLatency.toFixed(1)} | ${r.fmaThroughput.toFixed(1)} | ${(r.intThroughput / r.fmaThroughput).toFixed(2)}x |`),
    ...wideTable,
  ].join('\n');
}
