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
import { bitReverseBits, nttPasses } from './ntt.js';

/** Bytes of scratch stack per task (the NTT kernels take an element or a few). */
const STACK_BYTES = 4096;

/**
 * A thread's instance of each field's shared twin, by field (r): { id, made }. A field has one twin at a time, so a new
 * id (after fr.trim()) replaces the old instance at this thread's first call on the new twin, and with it this
 * thread's reference to the old memory (a thread that gets no such call keeps it until the pool closes).
 */
const attached = new Map();

/**
 * Worker operation 'frCalls' (src/threads/worker.js): kernel calls [exportName, ...args] in order, on this thread's
 * instance of a shared twin's module (over `field.memory`), with its scratch stack at stackTop. Returns the calls'
 * results. The memory's sync word orders this thread's plain loads and stores after the caller's and before its next.
 */
export async function frCalls({ field, stackTop, calls }) {
  let entry = attached.get(field.r);
  if (entry?.id !== field.id) {
    entry = { id: field.id, made: instantiate(field.module, { memory: field.memory }) };
    attached.set(field.r, entry);
    entry.made.catch(() => attached.get(field.r) === entry && attached.delete(field.r));
  }
  const { exports } = await entry.made;
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
    return await runCalls(fr, runTasks, callLists, allocStacks(fr, callLists.length));
  } finally {
    fr.heap.release(mark);
  }
}

/** Scratch stacks for `count` tasks on fr's heap: their tops (each stack grows down from its top). */
export function allocStacks(fr, count) {
  const base = fr.heap.alloc(count * STACK_BYTES, 16);
  return Array.from({ length: count }, (_, i) => base + (i + 1) * STACK_BYTES);
}

/**
 * Each list of calls a task with the stack stackTops[i] (allocStacks: the caller's, so rounds that overlap on the
 * heap's stack need none of their own), run by runTasks('frCalls', ...); resolves to the results, task by task.
 */
export async function runCalls(fr, runTasks, callLists, stackTops) {
  const sync = new Int32Array(fr.memory.buffer, fr.shared.syncWord, 1);
  Atomics.add(sync, 0, 1);
  const tasks = callLists.map((calls, i) => ({ args: { field: fr.shared, stackTop: stackTops[i], calls } }));
  const results = await runTasks('frCalls', tasks);
  Atomics.load(sync, 0);
  return results;
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
 * fr.nttOn on a shared twin: canonical bytes (natural order) in, the same out. Two rounds: per column part, its
 * elements from bytes to plain limbs (a forward coset's g^i too) and the DIF's spanning layers; per block, its own
 * layers, the inverse's (1/N) g^-i, its bit reversal and its bytes, written between the other blocks' (element m of
 * block t is the transform's bitrev_k(t) + 2^k m). One round when k = 0.
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
    const parts = partsOf(k, M);
    // segment (t, part): elements t M + c0 .. t M + c1 of column part `part`, the whole array when k = 0
    const segments = (part) => Array.from({ length: 2 ** k }, (_, t) => [t, t * M + (part * M) / parts, M / parts]);
    // the forward coset's g^i, from each segment's first index
    let cosetCalls = () => [];
    if (!inverse && coset !== null) {
      const firsts = fr.alloc(2 ** k * parts);
      const [gM, gC] = [modPow(coset, BigInt(M), r), modPow(coset, BigInt(M / parts), r)];
      for (let part = 0, x = 1n; part < parts; part++, x = (x * gC) % r) {
        for (let t = 0, y = x; t < 2 ** k; t++, y = (y * gM) % r) fr.field.write(firsts + (part * 2 ** k + t) * E, y);
      }
      const g = fr.alloc();
      fr.field.write(g, coset);
      cosetCalls = (part) => segments(part).map(([t, first, count]) => ['fr_mulPowers', ptr + first * E, count, firsts + (part * 2 ** k + t) * E, g]);
    }
    const fromBytes = (part) => segments(part).map(([, first, count]) => ['fr_fromBytesBatch', ptr + first * E, io + first * B, count, 0]);
    const scale = inverse ? blockScales(fr, k, modPow(BigInt(N), r - 2n, r), coset === null ? 1n : modPow(coset, r - 2n, r)) : null;
    const blockTail = (t) => {
      const at = ptr + t * M * E;
      // after the block's own bit reversal its element m is the transform's bitrev_k(t) + 2^k m: the inverse's factor
      // is first_t step^m, in memory order (fr_mulPowersBitrev's scattered order costs a cache miss per element); 1/N
      // alone (no coset) is one product per element (fr_scale), not two
      return [
        ...blockCalls('fr_nttDif', at, logM, table),
        ...(logM > 0 ? [['fr_bitReverse', at, logM]] : []),
        ...(scale ? [coset === null ? ['fr_scale', at, M, scale.first(t)] : ['fr_mulPowers', at, M, scale.first(t), scale.step]] : []),
        ['fr_toBytesStrided', io + bitReverseBits(t, k) * B, at, M, 0, 2 ** k],
      ];
    };
    const head = (part) => [...fromBytes(part), ...cosetCalls(part), ...(k > 0 ? columnCalls('fr_nttDif', ptr, logN, k, table, part, parts) : [])];
    // each part's conversions are checked before its layers' results matter: the lowest index >= r is named
    const checkConverted = (results, part) => {
      const counts = results.slice(0, 2 ** k);
      counts.forEach((ok, i) => {
        const [, first, count] = segments(part)[i];
        if (ok !== count) bad = Math.min(bad, first + ok);
      });
    };
    let bad = Infinity;
    if (k === 0) {
      const [results] = await round(fr, runTasks, [[...head(0), ...blockTail(0)]]);
      checkConverted(results, 0);
    } else {
      (await round(fr, runTasks, Array.from({ length: parts }, (_, part) => head(part)))).forEach(checkConverted);
    }
    if (bad !== Infinity) throw new RangeError(`${fr.name} Fr: element ${bad} is not in [0, r)`);
    if (k > 0) await round(fr, runTasks, Array.from({ length: 2 ** k }, (_, t) => blockTail(t)));
    return new Uint8Array(fr.memory.buffer, io, N * B).slice();
  } finally {
    fr.heap.release(mark);
  }
}
