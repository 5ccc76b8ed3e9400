// NTTs on a pool's threads, each transform split into 2^k blocks so that several threads share it: fr.nttOn (one
// transform, natural order in and out) and Groth16's ScalarField.evaluationsToCoset (evaluations on H -> evaluations
// on g H).
//
// A DIF's first k layers span the array; after them the 2^k blocks of M = N / 2^k elements are independent, and each
// block's remaining layers are the DIF of M elements (the twiddle table[len + j] = w_(2len)^j is the same for every
// size). Its result, the blocks side by side, is the whole transform in bit-reversed order.
//
// The transform is an inverse DIF (natural -> bit-reversed), a scale, a forward DIT (bit-reversed -> natural). After the
// first k DIF layers over the whole array, the 2^k blocks of M = N / 2^k elements are independent: each block's
// remaining DIF layers are the DIF of M elements (the twiddle table[len + j] = w_(2len)^j is the same for every size),
// and so are the DIT's first log M layers; only the DIT's last k layers span the array again. So this thread runs
// the first and the last k layers (k N / 2 butterflies each way), and a pool thread runs a block's 2 log M layers and
// its part of the scale: block b holds the bit-reversed positions b M + q, natural index i = bitrev_k(b) + 2^k m with
// m = bitrev_logM(q), so its factor (1/N) g^i is (1/N) g^bitrev_k(b) (g^(2^k))^m: fr_mulPowersBitrev over the block.
// Elements travel as their bytes in Wasm memory (n u32 limbs each, Montgomery form; src/fr/index.js).

import { instantiate } from '../runtime/loader.js';
import { ScalarField, modPow } from './index.js';
import { bitReverseBits as bitReverse, interleaveBlocks, runTransform } from './ntt.js';

/**
 * A pool thread's fr instances, by field (r and the limb layout): the twiddle tables stay cached between tasks. Not
 * by module: each message brings its module as a new object, so a cache keyed by it missed every time, and every
 * task instantiated the module and built its tables again (half of a 2^16 NTT's time on 2 threads).
 */
const fields = new Map();

async function fieldOf(module, params) {
  const key = `${params.r}:${params.w}:${params.n}`;
  if (!fields.has(key)) {
    const made = instantiate(module, { minPages: params.minPages }).then(({ exports, memory }) => new ScalarField(params, exports, memory, '', module));
    made.catch(() => fields.delete(key));
    fields.set(key, made);
  }
  return fields.get(key);
}

/**
 * Worker operation 'frDifBlock' (src/threads/worker.js): block `block` of 2^k of one fr.nttOn, after its first k DIF
 * layers (inverse: with w^-1): `elements` (M = 2^(logN - k) elements, plain limbs) through the block's remaining
 * layers, the block's own bit reversal, the inverse's scale (1/N) g^-i (coset: g, or null), and out as canonical
 * bytes: element m of the result is the transform's element bitrev_k(block) + 2^k m. Returned in the array that
 * came (its first M * bytes bytes).
 */
export async function frDifBlock({ module, params, elements, logN, k, block, inverse, coset = null }) {
  const fr = await fieldOf(module, params);
  const logM = logN - k;
  const M = 2 ** logM;
  const table = fr.twiddles(logM, inverse);
  const mark = fr.heap.mark();
  try {
    const ptr = fr.alloc(M);
    const io = fr.heap.alloc(M * fr.bytes);
    const ex = fr.exports;
    new Uint8Array(fr.memory.buffer, ptr, elements.length).set(elements);
    runTransform(ex, ptr, logM, table, 'natural');
    if (logM > 0) ex.fr_bitReverse(ptr, logM);
    if (inverse) {
      // element m is now the transform's bitrev_k(block) + 2^k m: it gets (1/N) g^-bitrev_k(block) (g^-(2^k))^m, in
      // memory order (see src/fr/shared.js); 1/N alone is one product per element
      const { r } = fr;
      const gInv = coset === null ? 1n : modPow(coset, r - 2n, r);
      const [first, step] = [fr.alloc(), fr.alloc()];
      fr.field.write(first, (modPow(2n ** BigInt(logN), r - 2n, r) * modPow(gInv, BigInt(bitReverse(block, k)), r)) % r);
      fr.field.write(step, modPow(gInv, 2n ** BigInt(k), r));
      if (coset === null) ex.fr_scale(ptr, M, first);
      else ex.fr_mulPowers(ptr, M, first, step);
    }
    ex.fr_toBytesBatch(io, ptr, M, 0);
    // back in the array that came (transferred both ways): no second array of the elements on either thread
    elements.set(new Uint8Array(fr.memory.buffer, io, M * fr.bytes));
    return elements;
  } finally {
    fr.heap.release(mark);
  }
}

/**
 * The elements of each pointer, in 2^k blocks of M, through `runTasks(op, tasks)` (a pool's runTasks) with `args`
 * and the block's index added to each task's; resolves to the results, pointer by pointer, block by block. A block's
 * copy is made when a thread takes its task, so only the blocks at work exist at once. arrays: { take(bytes) } to
 * reuse the caller's arrays for the blocks (default: new ones). onResult(at, result): each block's result as it
 * comes, at its block's address; it may hand the result's array on for a later block (the results resolved are then
 * not to be read).
 */
function runBlocks(fr, runTasks, op, ptrs, M, k, args, arrays = null, onResult = null) {
  const E = fr.elementBytes;
  const tasks = [];
  for (const ptr of ptrs) {
    for (let block = 0; block < 2 ** k; block++) {
      const at = ptr + block * M * E;
      tasks.push(() => {
        const elements = arrays ? arrays.take(M * E) : new Uint8Array(M * E);
        elements.set(new Uint8Array(fr.memory.buffer, at, M * E));
        const done = onResult && ((result) => onResult(at, result));
        return { args: { module: fr.module, params: fr.params, elements, k, block, ...args }, transfer: [elements.buffer], done };
      });
    }
  }
  return runTasks(op, tasks);
}

/**
 * The NTT of the 2^logN elements at ptr (plain limbs), natural order in, canonical bytes out in natural order, split
 * over a pool (fr.nttOn): the coset's powers (forward) and the first k DIF layers here; on the threads, each block's
 * layers, the inverse's 1/N and g^-i, the block's bit reversal and its bytes; here the blocks' elements interleaved
 * (element m of block b is the transform's bitrev_k(b) + 2^k m). coset: null or the generator g (a BigInt).
 */
export async function nttOnThreads(fr, runTasks, ptr, logN, { inverse = false, coset = null } = {}, k = 1) {
  const N = 2 ** logN;
  const ex = fr.exports;
  const table = fr.twiddles(logN, inverse);
  const mark = fr.heap.mark();
  try {
    if (!inverse && coset !== null) {
      const [first, step] = [fr.alloc(), fr.alloc()];
      fr.field.write(first, 1n);
      fr.field.write(step, coset);
      ex.fr_mulPowers(ptr, N, first, step);
    }
    if (k > 0) ex.fr_nttDif(ptr, logN, 0, k, 0, N / 2, table);
  } finally {
    fr.heap.release(mark);
  }
  const M = N >> k;
  const results = await runBlocks(fr, runTasks, 'frDifBlock', [ptr], M, k, { logN, inverse, coset });
  return interleaveBlocks(results, k, M, fr.bytes);
}

/**
 * Worker operation 'frCosetBlock' (src/threads/worker.js): block `block` of 2^k of one polynomial's evaluationsToCoset,
 * after its first k inverse layers: `elements` (M = 2^(logN - k) Montgomery-form elements) through the block's
 * inverse DIF layers, the scale and its forward DIT layers. Returns the block's elements the same way.
 */
export async function frCosetBlock({ module, params, elements, logN, k, block, shift, cacheTables = true }) {
  const fr = await fieldOf(module, params);
  const logM = logN - k;
  const M = 2 ** logM;
  // cacheTables false (a prover that proves once): one table's memory, the inverse then the forward twiddles built in it
  const inverseTable = cacheTables ? fr.twiddles(logM, true) : null;
  const forwardTable = cacheTables ? fr.twiddles(logM, false) : null;
  const mark = fr.heap.mark();
  try {
    const scratch = cacheTables ? null : fr.alloc(M);
    const ptr = fr.alloc(M);
    const [first, step] = [fr.alloc(), fr.alloc()];
    new Uint8Array(fr.memory.buffer, ptr, elements.length).set(elements);
    const { r } = fr;
    const ex = fr.exports;
    if (scratch !== null) fr.buildTwiddles(scratch, logM, true);
    runTransform(ex, ptr, logM, inverseTable ?? scratch, 'natural');
    fr.field.write(first, (modPow(2n ** BigInt(logN), r - 2n, r) * modPow(shift, BigInt(bitReverse(block, k)), r)) % r);
    fr.field.write(step, modPow(shift, 2n ** BigInt(k), r));
    ex.fr_mulPowersBitrev(ptr, logM, first, step);
    if (scratch !== null) fr.buildTwiddles(scratch, logM, false);
    runTransform(ex, ptr, logM, forwardTable ?? scratch, 'bit-reversed');
    // back in the array that came (transferred both ways): no second array of the elements on either thread
    elements.set(new Uint8Array(fr.memory.buffer, ptr, elements.length));
    return elements;
  } finally {
    fr.heap.release(mark);
  }
}

/**
 * fr.evaluationsToCoset(ptr, logN, shift) for each pointer of `ptrs`, its blocks run by `runTasks('frCosetBlock',
 * tasks)` (a pool's runTasks) and the first and last k layers here. k: 2^k blocks per polynomial (k <= logN).
 * options: cacheTables (default true: the twiddle tables stay cached here and on the threads for the next call;
 * false: one table's memory each, given back), arrays ({ take(bytes), adopt(array) }: the blocks' arrays taken
 * from it and handed back after).
 */
export async function evaluationsToCosetOnThreads(fr, runTasks, ptrs, logN, shift, k, { cacheTables = true, arrays = null } = {}) {
  const N = 2 ** logN;
  const ex = fr.exports;
  // cached tables before the mark (a release below a table drops it from the cache)
  const cached = cacheTables && k > 0 ? [fr.twiddles(logN, true), fr.twiddles(logN, false)] : null;
  const mark = fr.heap.mark();
  try {
    const scratch = cacheTables || k === 0 ? null : fr.alloc(N);
    if (scratch !== null) fr.buildTwiddles(scratch, logN, true);
    if (k > 0) for (const ptr of ptrs) ex.fr_nttDif(ptr, logN, 0, k, 0, N / 2, cached?.[0] ?? scratch);
    const M = N >> k;
    const E = fr.elementBytes;
    // each block back in place as it comes, its array then free for the next block: at most a block per thread is
    // ever out of the fr module's memory (all 3 2^k of them were: 30 MiB at 2^18, held by the proof to its end)
    await runBlocks(fr, runTasks, 'frCosetBlock', ptrs, M, k, { logN, shift, cacheTables }, arrays, (at, result) => {
      new Uint8Array(fr.memory.buffer, at, M * E).set(result);
      arrays?.adopt(result);
    });
    if (scratch !== null) fr.buildTwiddles(scratch, logN, false);
    if (k > 0) for (const ptr of ptrs) ex.fr_nttDit(ptr, logN, logN - k, logN, 0, N / 2, cached?.[1] ?? scratch);
  } finally {
    fr.heap.release(mark);
  }
}
