// The NTT over pointers: which kernels of the fr module run, in which order, over which ranges.
//
// Kernels (codegen/kernels/ntt.js): fr_nttDif (natural -> bit-reversed), fr_nttDit (bit-reversed -> natural), each over
// layers [layerFrom, layerTo) and butterflies [bStart, bEnd) of each layer; fr_bitReverse; fr_mulPowers (a[i] *= first g^i)
// and fr_mulPowersBitrev (a[bitrev(i)] *= first g^i). Twiddle tables: N elements, table[len + j] = w_(2len)^j.
//
// Cache blocking: the layers that act inside blocks of 2^BLOCK_LOG elements (DIF: the last BLOCK_LOG layers; DIT: the first)
// run one block at a time, so a block stays in cache across its layers; the other layers run over the whole array, one
// layer at a time. The same split serves threads: blocks are independent, and a whole-array layer splits into ranges of
// butterflies.

export const BLOCK_LOG = 10;

export const ORDERS = Object.freeze(['natural', 'bit-reversed']);

/**
 * The butterfly passes of one transform of 2^logN elements, as [kernel, layerFrom, layerTo, bStart, bEnd] calls:
 * 'dif' from natural order, 'dit' from bit-reversed order. A thread pool may run the calls of one block group in
 * parallel (they are independent) and each whole-array layer split into butterfly ranges.
 */
export function nttPasses(kernel, logN, blockLog = BLOCK_LOG) {
  const half = logN ? 2 ** (logN - 1) : 0;
  if (logN === 0) return [];
  if (logN <= blockLog) return [[kernel, 0, logN, 0, half]];
  const blockHalf = 2 ** (blockLog - 1);
  const blocks = (from, to) => Array.from({ length: half / blockHalf }, (_, t) => [kernel, from, to, t * blockHalf, (t + 1) * blockHalf]);
  // DIF: the first logN - blockLog layers span the array; the last blockLog layers stay inside blocks. DIT: the reverse.
  return kernel === 'dif'
    ? [[kernel, 0, logN - blockLog, 0, half], ...blocks(logN - blockLog, logN)]
    : [...blocks(0, blockLog), [kernel, blockLog, logN, 0, half]];
}

/**
 * Run the butterflies of one transform over the elements at ptr: from `input` order, DIF or DIT; returns the order the
 * result is in (the other one).
 */
export function runTransform(ex, ptr, logN, table, input) {
  const kernel = input === 'natural' ? 'dif' : 'dit';
  const run = kernel === 'dif' ? ex.fr_nttDif : ex.fr_nttDit;
  for (const [, from, to, b0, b1] of nttPasses(kernel, logN)) run(ptr, logN, from, to, b0, b1, table);
  return input === 'natural' ? 'bit-reversed' : 'natural';
}

/** a[i] *= first g^i over the N = 2^logN elements at ptr, i counted in `order` (pointers to Montgomery-form first, g). */
export function runMulPowers(ex, ptr, logN, order, first, g) {
  if (order === 'natural') ex.fr_mulPowers(ptr, 2 ** logN, first, g);
  else ex.fr_mulPowersBitrev(ptr, logN, first, g);
}

/** The k low bits of b, reversed. */
export const bitReverseBits = (b, k) => {
  let out = 0;
  for (let i = 0; i < k; i++, b >>= 1) out = (out << 1) | (b & 1);
  return out;
};

/**
 * The canonical bytes of a DIF split into 2^k blocks, each block's own bit reversal done, in natural order: element m of
 * block t is the transform's element bitrev_k(t) + 2^k m. blocks: 2^k Uint8Arrays of M elements of B bytes each (B a
 * multiple of 4); returns a new Uint8Array of 2^k M elements.
 */
export function interleaveBlocks(blocks, k, M, B) {
  const W = B / 4;
  const out = new Uint32Array((M << k) * W);
  const stride = 2 ** k * W;
  blocks.forEach((bytes, t) => {
    const from = new Uint32Array(bytes.buffer, bytes.byteOffset, M * W);
    for (let m = 0, o = bitReverseBits(t, k) * W; m < M; m++, o += stride) {
      for (let j = 0; j < W; j++) out[o + j] = from[m * W + j];
    }
  });
  return new Uint8Array(out.buffer);
}
