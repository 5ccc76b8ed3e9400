// bench/ntt.js's comparison, the same in Node and in the page (bench/ntt/page.js): the NTT of 2^log scalar-field
// elements by wasmsm's fr module (one thread on a pointer and through bytes; a pool through bytes, shared memory and
// messages) against ffjavascript's Fr.fft / Fr.ifft (with its workers, and single-threaded) on the same input, rounds
// interleaved, every output checked against the others.

import { modPow } from '../../src/fr/index.js';
import { bigIntToBytesLE as toLE, bytesToBigIntLE as fromLE } from '../../src/msm/bytes.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * An idle pause before each timed call: the collections and the threads' clean-up that the call before set off
 * (large arrays dropped or transferred) run there, not inside the next variant's time.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

/**
 * The rows of one curve: for each log of `logs`, forward and inverse, the medians over `rounds` (after a warm-up) in
 * ms: { curve, kernel, logN, inverse, ptr, bytes, pool, poolMsg, ff, ff1 }. curve: wasmsm's (its name `name`);
 * pool, poolMsg: its thread pools with and without shared memory (poolMsg null: not timed); ff, ff1: ffjavascript's
 * curve with its workers and single-threaded.
 */
export async function nttRows({ name, curve, pool, poolMsg, ff, ff1, logs, rounds }) {
  const fr = await curve.fr();
  const { r, bytes: B } = fr;
  const montFF = (1n << BigInt(8 * ff.Fr.n8)) % r; // ffjavascript's Montgomery factor
  const montFFInv = modPow(montFF, r - 2n, r);
  const rows = [];
  for (const logN of logs) {
    const N = 2 ** logN;
    // seeded input (a linear congruential walk mod r)
    const canonical = new Uint8Array(N * B);
    const theirs = new Uint8Array(N * ff.Fr.n8);
    let x = 0x1234567n;
    for (let i = 0; i < N; i++) {
      x = (x * 0x5851f42d4c957f2dn + 0x14057b7ef767814fn + BigInt(i)) % r;
      toLE(x, canonical, i * B, B);
      toLE((x * montFF) % r, theirs, i * ff.Fr.n8, ff.Fr.n8);
    }
    for (const inverse of [false, true]) {
      fr.twiddles(logN, inverse);
      const ptr = fr.alloc(N);
      const bytesPtr = fr.heap.alloc(N * B);
      const load = () => {
        new Uint8Array(fr.memory.buffer, bytesPtr, N * B).set(canonical);
        fr.fromBytesPointer(ptr, bytesPtr, N);
      };
      const times = { ptr: [], bytes: [], pool: [], poolMsg: [], ff: [], ff1: [] };
      const timed = async (key, round, f) => {
        await settle();
        const t = performance.now();
        const out = await f();
        if (round >= 0) times[key].push(performance.now() - t);
        return out;
      };
      const same = (a, b, what) => {
        if (a.length !== b.length || a.some((v, i) => v !== b[i])) throw new Error(`${name} 2^${logN}: ${what}`);
      };
      let ffOut;
      let bytesOut;
      for (let round = -1; round < rounds; round++) {
        load();
        await timed('ptr', round, () => fr.nttPointer(ptr, logN, { inverse }));
        bytesOut = await timed('bytes', round, () => fr.ntt(canonical, { inverse }));
        same(await timed('pool', round, () => fr.nttOn(pool, canonical, { inverse })), bytesOut, 'fr.nttOn differs from fr.ntt');
        if (poolMsg) same(await timed('poolMsg', round, () => fr.nttOn(poolMsg, canonical, { inverse })), bytesOut, 'fr.nttOn (messages) differs from fr.ntt');
        ffOut = await timed('ff', round, () => (inverse ? ff.Fr.ifft(theirs) : ff.Fr.fft(theirs)));
        same(await timed('ff1', round, () => (inverse ? ff1.Fr.ifft(theirs) : ff1.Fr.fft(theirs))), ffOut, "ffjavascript's two runs differ");
      }
      // the same values out of all of them (same root of unity: both take the 2^log-th root from the least non-residue)
      fr.toBytesPointer(bytesPtr, ptr, N);
      const ptrOut = new Uint8Array(fr.memory.buffer, bytesPtr, N * B);
      for (const i of [0, 1, N >> 1, N - 1, 12345 % N]) {
        const ours = fromLE(bytesOut, i * B, B);
        const ffValue = (fromLE(ffOut, i * ff.Fr.n8, ff.Fr.n8) * montFFInv) % r;
        if (ours !== fromLE(ptrOut, i * B, B) || ours !== ffValue) throw new Error(`${name} 2^${logN} ${inverse ? 'inverse' : 'forward'}: outputs differ at ${i}`);
      }
      fr.heap.release(ptr);
      const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.length ? median(v) : null]));
      rows.push({ curve: name, kernel: fr.params.kernel, logN, inverse, ...m });
    }
  }
  return rows;
}

/** The table's header lines (markdown) and one row's line: ffjavascript's workers' time over each of ours. */
export const tableHeader = (threads) => [
  `| curve (Fr build) | N | direction | wasmsm pointer (1 thread) | wasmsm bytes (1 thread) | wasmsm bytes (pool of ${threads}, shared memory) | the same, messages | ffjavascript (workers) | ffjavascript (1 thread) | ffjs workers / wasmsm pointer | ffjs workers / wasmsm bytes | ffjs workers / wasmsm pool (shared) | ffjs workers / wasmsm pool (messages) | ffjs 1 thread / wasmsm bytes |`,
  '|:--|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
];
export function tableRow({ curve, kernel, logN, inverse, ptr, bytes, pool, poolMsg, ff, ff1 }) {
  const ms = (v) => (v === null ? '-' : v.toFixed(1));
  const x = (a, b) => (b === null ? '-' : `${(a / b).toFixed(2)}x`);
  return `| ${curve} (${kernel}) | 2^${logN} | ${inverse ? 'inverse' : 'forward'} | ${[ptr, bytes, pool, poolMsg, ff, ff1].map(ms).join(' | ')} | ${x(ff, ptr)} | ${x(ff, bytes)} | ${x(ff, pool)} | ${x(ff, poolMsg)} | ${x(ff1, bytes)} |`;
}
