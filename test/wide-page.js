// The wide build's suites as they run where the wide build runs: this process when its engine validates the
// wide opcodes, else a headless Chromium page, into which test/wide-engine.js bundles this file (esbuild) with the
// library and the test harness. Arguments and results are plain data (BigInts as hex strings, bytes as arrays).

import { makeRng } from './harness.js';
import { runFieldEquivalence } from './field-equivalence.js';
import { Field } from '../src/field.js';
import { Heap } from '../src/runtime/heap.js';
import { instantiate } from '../src/runtime/loader.js';
import { loadCurve } from '../index.js';

/**
 * Every field kernel of one module against BigInt (test/harness.js runFieldEquivalence). spec: { bytes, shape:
 * { p (hex), w, n, bits, bytes, elementBytes }, minPages, label, pairs }. Returns { failures, checks }.
 */
export async function wideFieldEquivalence({ bytes, shape, minPages, label, pairs }) {
  const params = { ...shape, p: BigInt(shape.p) };
  const { exports, memory } = await instantiate(await WebAssembly.compile(new Uint8Array(bytes)), { minPages: minPages + 1 });
  const field = new Field(exports, params, new Heap(memory, exports.heapBase.value));
  const { failures, checks } = runFieldEquivalence({ params, field }, { rng: makeRng(`wide build ${label}`), label, pairs });
  return { failures, checks };
}

/**
 * MSMs on one loaded build: spec { curve, kernel, runs: [{ group: 'G1' | 'G2', points, scalars, options? }], pool }
 * (bytes as arrays; options: msmBytes' formats); with pool ({ count, sharedMemory }) on a thread pool of that group. Returns { kernel, results: [bytes
 * as an array, or { error } when the MSM threw], poolShared (the pool's path) }.
 */
export async function wideMsm({ curve: name, kernel, runs, pool: poolOptions }) {
  const curve = await loadCurve(name, { kernel });
  const results = [];
  let poolShared;
  for (const { group, points, scalars, options } of runs) {
    const c = group === 'G2' ? curve.g2 : curve;
    const pool = poolOptions ? await c.threads(poolOptions) : null;
    try {
      poolShared ??= pool?.sharedMemory;
      const out = await (pool ?? c).msmBytes(Uint8Array.from(points), Uint8Array.from(scalars), options);
      results.push([...out]);
    } catch (e) {
      results.push({ error: `${e.name}: ${e.message}` });
    } finally {
      await pool?.close();
    }
  }
  return { kernel: curve.kernel, results, poolShared };
}

/** What loadCurve does with a kernel option here: { kernel } or { error }. */
export async function wideLoad({ curve, kernel }) {
  try {
    return { kernel: (await loadCurve(curve, kernel === undefined ? {} : { kernel })).kernel };
  } catch (e) {
    return { error: `${e.name}: ${e.message}` };
  }
}
