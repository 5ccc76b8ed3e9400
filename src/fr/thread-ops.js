// Scalar-field work on a pool thread (src/threads/worker.js runs these for pool.frTasks): the thread keeps one
// instance of a curve's fr module, in a memory of its own, and works on elements sent to it and sent back.
// Elements travel as their bytes in Wasm memory: n u32 limbs each, Montgomery form (src/fr/index.js).

import { instantiate } from '../runtime/loader.js';
import { ScalarField } from './index.js';

/** The thread's fr instances, by compiled module. */
const fields = new WeakMap();

async function fieldOf(module, params) {
  if (!fields.has(module)) {
    const { exports, memory } = await instantiate(module, { minPages: params.minPages });
    fields.set(module, new ScalarField(params, exports, memory, '', module));
  }
  return fields.get(module);
}

/**
 * Groth16's step (ScalarField.evaluationsToCoset) on a thread: `elements` are 2^logN evaluations on the domain
 * (Montgomery-form limbs); returns their evaluations on the coset shift H, the same way, in the same array.
 * cacheTables (default true): keep both twiddle tables in the thread's instance for the next call; false: one
 * table's memory, given back after (a prover that proves once).
 */
export async function frToCoset({ module, params, elements, logN, shift, cacheTables = true }) {
  const fr = await fieldOf(module, params);
  if (cacheTables) {
    fr.twiddles(logN, false);
    fr.twiddles(logN, true);
  }
  const mark = fr.heap.mark();
  try {
    const ptr = fr.alloc(2 ** logN);
    new Uint8Array(fr.memory.buffer, ptr, elements.length).set(elements);
    // without the cache: one table's memory, built twice (a thread that proves once builds both anyway)
    fr.evaluationsToCoset(ptr, logN, shift, cacheTables ? {} : { table: fr.alloc(2 ** logN) });
    // back in the array that came (transferred both ways): no second array of the elements on either thread
    elements.set(new Uint8Array(fr.memory.buffer, ptr, elements.length));
    return elements;
  } finally {
    fr.heap.release(mark);
  }
}
