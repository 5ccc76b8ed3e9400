// NTTs on a pool's threads in place, over the shared memory of an fr twin (fr.sharedTwin(), for a pool with shared
// memory): this thread plans each round as lists of kernel calls, the threads run them (worker op 'frCalls') on their
// own instances of the module over the same memory. Nothing is copied between threads (src/fr/thread-ops.js holds
// the message path, which sends each block to a thread and back).
//
// A transform of N = 2^logN elements splits into 2^k blocks of M = N / 2^k (src/fr/ntt.js has the layer notation):
//   spanning layers (DIF: the first k, DIT: the last k; len >= M in each): butterfly b touches elements whose index
//     is b mod M modulo M, so the columns c in [0, M) split them into independent parts: part [c0, c1) is, in each
//     layer, the butterflies b = g M + c, c0 <= c < c1, for every row g. One round, no barrier between layers;
//   block layers (the rest): block t is the same transform of M elements at its own place, one task per block.
// Groth16's step (evaluations on H -> on the coset gH) is three rounds: the inverse DIF's spanning layers; each block's
// inverse layers, its part of the scale (1/N) g^i and its forward DIT layers; the DIT's spanning layers.

import { instantiate } from '../runtime/loader.js';
import { modPow } from './index.js';
import { bitReverseBits, interleaveBlocks, nttPasses } from './ntt.js';

/** Bytes of scratch stack per task (the NTT kernels take an element or a few). */
const STACK_BYTES = 4096;

/** A thread's instances of shared twins' modules, by twin id (the last few kept). */
const attached = new Map();

/**
 * Worker operation 'frCalls' (src/threads/worker.js): kernel calls [exportName, ...args] in order, on this thread's
 * instance of a shared twin's module (over `field.memory`), with its scratch stack at stackTop. Returns the calls'
 * results. The memory's sync word orders this thread's plain loads and stores after the caller's and before its next.
 */
export async function frCalls({ field, stackTop, calls }) {
  let made = attached.get(field.id);
  if (!made) {
    made = instantiate(field.module, { memory: field.memory });
    attached.set(field.id, made);
    made.catch(() => attached.delete(field.id));
    if (attached.size > 4) attached.delete(attached.keys().next().value);
  }
  const { exports } = await made;
  const sync = new Int32Array(field.memory.buffer, field.syncWord, 1);
  Atomics.load(sync, 0);
  exports.fr_sp.value = stackTop;
  const results = calls.map(([name, ...args]) => {
    if (!name.startsWith('fr_') || typeof exports[name] !== 'function') throw new Error(`frCalls: no kernel ${name}`);
    return exports[name](...args);
  });
  Atomics.add(sync, 0, 1);
  return results;
}

/** One round: each list of calls a task (a stack of its own), run by runTasks; the results, task by task. */
async function round(fr, runTasks, callLists) {
  const mark = fr.heap.mark();
  try {
    const stacks = fr.heap.alloc(callLists.length * STACK_BYTES, 16);
    const sync = new Int32Array(fr.memory.buffer, fr.shared.syncWord, 1);
    Atomics.add(sync, 0, 1);
    const tasks = callLists.map((calls, i) => ({ args: { field: fr.shared, stackTop: stacks + (i + 1) * STACK_BYTES, calls } }));
    const results = await runTasks('frCalls', tasks);
    Atomics.load(sync, 0);
    return results;
  } finally {
    fr.heap.release(mark);
  }
}

/** Column parts of a split into 2^k blocks of M: at most 2^k, at least one column each. */
const partsOf = (k, M) => Math.min(2 ** k, M);

/** The spanning layers' calls of column part `part` of `parts` (kernel fr_nttDif: layers [0, k); fr_nttDit: [logN - k, logN)). */
function columnCalls(kernel, ptr, logN, k, table, part, parts) {
  const M = 2 ** (logN - k);
  const [c0, c1] = [(part * M) / parts, ((part + 1) * M) / parts];
  const [from, to] = kernel === 'fr_nttDif' ? [0, k] : [logN - k, logN];
  const calls = [];
  for (let layer = from; layer < to; layer++) {
    for (let row = 0; row < 2 ** (logN - 1); row += M) calls.push([kernel, ptr, logN, layer, layer + 1, row + c0, row + c1, table]);
  }
  return calls;
}

/** A block's own layers: the transform of its M = 2^logM elements at blockPtr (table: any size's table, >= M). */
const blockCalls = (kernel, blockPtr, logM, table) =>
  nttPasses(kernel === 'fr_nttDif' ? 'dif' : 'dit', logM).map(([, from, to, b0, b1]) => [kernel, blockPtr, logM, from, to, b0, b1, table]);

/** Pointers to first_t = c g^bitrev_k(t) for t < 2^k, and to g^(2^k): each block's start of a scale in bit-reversed order. */
function blockScales(fr, k, c, g) {
  const { r } = fr;
  const firsts = fr.alloc(2 ** k);
  const powers = [c];
  for (let i = 1; i < 2 ** k; i++) powers.push((powers[i - 1] * g) % r);
  for (let t = 0; t < 2 ** k; t++) fr.field.write(firsts + t * fr.elementBytes, powers[bitReverseBits(t, k)]);
  const step = fr.alloc();
  fr.field.write(step, modPow(g, 2n ** BigInt(k), r));
  return { first: (t) => firsts + t * fr.elementBytes, step };
}

/**
 * fr.evaluationsToCoset for each pointer of `ptrs` on a shared twin, its 2^k blocks and column parts run by
 * runTasks('frCalls', ...) (a pool's runTasks). cacheTables false: the inverse then the forward twiddles built in one
 * table's memory (the block round then splits in two, around the rebuild).
 */
export async function sharedEvaluationsToCoset(fr, runTasks, ptrs, logN, shift, k, { cacheTables = true } = {}) {
  const N = 2 ** logN;
  const M = N >> k;
  const logM = logN - k;
  const E = fr.elementBytes;
  const cached = cacheTables ? [fr.twiddles(logN, true), fr.twiddles(logN, false)] : null;
  const mark = fr.heap.mark();
  try {
    const scratch = cached ? null : fr.alloc(N);
    if (scratch !== null) fr.buildTwiddles(scratch, logN, true);
    const [inverseTable, forwardTable] = cached ?? [scratch, scratch];
    const { first, step } = blockScales(fr, k, modPow(BigInt(N), fr.r - 2n, fr.r), shift);
    const parts = partsOf(k, M);
    const perPart = (kernel, table) => ptrs.flatMap((ptr) => Array.from({ length: parts }, (_, part) => columnCalls(kernel, ptr, logN, k, table, part, parts)));
    const perBlock = (calls) => ptrs.flatMap((ptr) => Array.from({ length: 2 ** k }, (_, t) => calls(ptr + t * M * E, t)));
    if (k > 0) await round(fr, runTasks, perPart('fr_nttDif', inverseTable));
    const inverseBlock = (at, t) => [...blockCalls('fr_nttDif', at, logM, inverseTable), ['fr_mulPowersBitrev', at, logM, first(t), step]];
    if (cached) {
      await round(fr, runTasks, perBlock((at, t) => [...inverseBlock(at, t), ...blockCalls('fr_nttDit', at, logM, forwardTable)]));
    } else {
      await round(fr, runTasks, perBlock(inverseBlock));
      fr.buildTwiddles(scratch, logN, false);
      await round(fr, runTasks, perBlock((at) => blockCalls('fr_nttDit', at, logM, forwardTable)));
    }
    if (k > 0) await round(fr, runTasks, perPart('fr_nttDit', forwardTable));
  } finally {
    fr.heap.release(mark);
  }
}

/**
 * fr.nttOn on a shared twin: canonical bytes (natural order) in, the same out. Rounds: the bytes to plain limbs (and
 * a forward coset's g^i) per block; the DIF's spanning layers by columns; per block its layers, the inverse's
 * (1/N) g^-i, its own bit reversal and its bytes. Here the blocks' bytes are interleaved into natural order.
 */
export async function sharedNttOn(fr, runTasks, bytes, logN, { inverse = false, coset = null } = {}, k = 0) {
  const N = 2 ** logN;
  const M = N >> k;
  const logM = logN - k;
  const { r, bytes: B, elementBytes: E } = fr;
  const table = fr.twiddles(logN, inverse);
  const mark = fr.heap.mark();
  try {
    const ptr = fr.alloc(N);
    const io = fr.heap.alloc(N * B, 16);
    new Uint8Array(fr.memory.buffer, io, N * B).set(bytes);
    // the forward coset's g^i from block t's first index t M: first_t = g^(t M), step g
    let cosetPowers = null;
    if (!inverse && coset !== null) {
      const firsts = fr.alloc(2 ** k);
      const gM = modPow(coset, BigInt(M), r);
      for (let t = 0, x = 1n; t < 2 ** k; t++, x = (x * gM) % r) fr.field.write(firsts + t * E, x);
      const g = fr.alloc();
      fr.field.write(g, coset);
      cosetPowers = (t) => [['fr_mulPowers', ptr + t * M * E, M, firsts + t * E, g]];
    }
    const blocks = Array.from({ length: 2 ** k }, (_, t) => t);
    const counts = await round(fr, runTasks, blocks.map((t) => [['fr_fromBytesBatch', ptr + t * M * E, io + t * M * B, M, 0], ...(cosetPowers?.(t) ?? [])]));
    counts.forEach(([ok], t) => {
      if (ok !== M) throw new RangeError(`${fr.name} Fr: element ${t * M + ok} is not in [0, r)`);
    });
    const parts = partsOf(k, M);
    if (k > 0) await round(fr, runTasks, Array.from({ length: parts }, (_, part) => columnCalls('fr_nttDif', ptr, logN, k, table, part, parts)));
    const scale = inverse ? blockScales(fr, k, modPow(BigInt(N), r - 2n, r), coset === null ? 1n : modPow(coset, r - 2n, r)) : null;
    await round(fr, runTasks, blocks.map((t) => {
      const at = ptr + t * M * E;
      return [
        ...blockCalls('fr_nttDif', at, logM, table),
        ...(scale ? [['fr_mulPowersBitrev', at, logM, scale.first(t), scale.step]] : []),
        ...(logM > 0 ? [['fr_bitReverse', at, logM]] : []),
        ['fr_toBytesBatch', io + t * M * B, at, M, 0],
      ];
    }));
    const blockBytes = blocks.map((t) => new Uint8Array(fr.memory.buffer, io + t * M * B, M * B));
    return interleaveBlocks(blockBytes, k, M, B);
  } finally {
    fr.heap.release(mark);
  }
}
