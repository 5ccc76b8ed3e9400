// An instantiated curve module as the MSM and the codecs use it: { exports, memory, params, heap, fp }. A Curve is
// one; prepared bases, large MSMs and streams get their own, dropped when done, so their memory goes back.

import { instantiateSync } from './runtime/loader.js';
import { Heap } from './runtime/heap.js';
import { Field } from './field.js';

/**
 * Wasm memory a curve (or a pool) keeps while idle. A call that leaves more gives it back RELEASE_AFTER_MS after
 * the last call, or at trim(): curve.trim() moves the curve to a fresh instance of its module, pool.trim() its
 * threads to fresh memories; the old memory is then garbage (a stopped worker frees its own at once).
 */
export const RESIDENT_BYTES = 16 * 2 ** 20;
export const RELEASE_AFTER_MS = 1000;

/**
 * How long a prover's pools (wasmsm/snarkjs: the route's and a Groth16Prover's) keep, idle, what a proof grew: proofs
 * one after another come more than RELEASE_AFTER_MS apart (a witness, the caller's own work), and each would move the
 * pools to new threads and grow their memory again (at 2^16 a Groth16Prover's proof after 1.5 s idle took 615 against
 * 584 ms with the memory kept, 14,000 more page faults; the route's MSMs 50 ms of 300 more).
 */
export const PROVER_RELEASE_AFTER_MS = 10_000;

/** exports and memory of an instantiated module (runtime/loader.js) with a heap above its heapBase and the base field. */
export function withHeap({ exports, memory }, params) {
  const heap = Heap.ofModule(memory, exports.fp_heapBase.value);
  return { exports, memory, params, heap, fp: new Field(exports, params.field.base ?? params.field, heap, 'fp') };
}

/** A new instance of a compiled curve module over a fresh memory of its own (module imports stay synchronous). */
export const ownInstance = (module, params) => withHeap(instantiateSync(module, { minPages: params.minPages, group: params.group }), params);
