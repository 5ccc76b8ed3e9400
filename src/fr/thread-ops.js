// groth16's NTTs on a pool's threads: ScalarField.evaluationsToCoset (evaluations on H -> evaluations on g H) of one
// polynomial split into 2^k blocks, so several threads share each transform.
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
import { ScalarField } from './index.js';
import { runTransform } from './ntt.js';

const modPow = (b, e, m) => {
  let out = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) out = (out * b) % m;
  return out;
};

/** k bits of b, reversed. */
const bitReverse = (b, k) => {
  let out = 0;
  for (let i = 0; i < k; i++, b >>= 1) out = (out << 1) | (b & 1);
  return out;
};

/** A pool thread's fr instances, by compiled module: the twiddle tables stay cached between tasks. */
const fields = new WeakMap();

async function fieldOf(module, params) {
  if (!fields.has(module)) {
    const { exports, memory } = await instantiate(module, { minPages: params.minPages });
    fields.set(module, new ScalarField(params, exports, memory, '', module));
  }
  return fields.get(module);
}

/**
 * Worker operation 'frCosetBlock' (src/threads/worker.js): block `block` of 2^k of one polynomial's evaluationsToCoset,
 * after its first k inverse layers: `elements` (M = 2^(logN - k) Montgomery-form elements) through the block's
 * inverse DIF layers, the scale and its forward DIT layers. Returns the block's elements the same way.
 */
export async function frCosetBlock({ module, params, elements, logN, k, block, shift }) {
  const fr = await fieldOf(module, params);
  const logM = logN - k;
  const M = 2 ** logM;
  const inverseTable = fr.twiddles(logM, true);
  const table = fr.twiddles(logM, false);
  const mark = fr.heap.mark();
  try {
    const ptr = fr.alloc(M);
    const [first, step] = [fr.alloc(), fr.alloc()];
    new Uint8Array(fr.memory.buffer, ptr, elements.length).set(elements);
    const { r } = fr;
    const ex = fr.exports;
    runTransform(ex, ptr, logM, inverseTable, 'natural');
    fr.field.write(first, (modPow(2n ** BigInt(logN), r - 2n, r) * modPow(shift, BigInt(bitReverse(block, k)), r)) % r);
    fr.field.write(step, modPow(shift, 2n ** BigInt(k), r));
    ex.fr_mulPowersBitrev(ptr, logM, first, step);
    runTransform(ex, ptr, logM, table, 'bit-reversed');
    return new Uint8Array(fr.memory.buffer, ptr, elements.length).slice();
  } finally {
    fr.heap.release(mark);
  }
}

/**
 * fr.evaluationsToCoset(ptr, logN, shift) for each pointer of `ptrs`, its blocks run by `runTasks('frCosetBlock',
 * tasks)` (a pool's runTasks) and the first and last k layers here. k: 2^k blocks per polynomial (k <= logN).
 */
export async function evaluationsToCosetOnThreads(fr, runTasks, ptrs, logN, shift, k) {
  const N = 2 ** logN;
  const M = N >> k;
  const E = fr.elementBytes;
  const ex = fr.exports;
  const inverseTable = fr.twiddles(logN, true);
  const table = fr.twiddles(logN, false);
  const tasks = [];
  for (const ptr of ptrs) {
    if (k > 0) ex.fr_nttDif(ptr, logN, 0, k, 0, N / 2, inverseTable);
    for (let block = 0; block < 2 ** k; block++) {
      const elements = new Uint8Array(fr.memory.buffer, ptr + block * M * E, M * E).slice();
      tasks.push({ args: { module: fr.module, params: fr.params, elements, logN, k, block, shift }, transfer: [elements.buffer] });
    }
  }
  const results = await runTasks('frCosetBlock', tasks);
  ptrs.forEach((ptr, p) => {
    for (let block = 0; block < 2 ** k; block++) new Uint8Array(fr.memory.buffer, ptr + block * M * E, M * E).set(results[p * 2 ** k + block]);
    if (k > 0) ex.fr_nttDit(ptr, logN, logN - k, logN, 0, N / 2, table);
  });
}
