#!/usr/bin/env node
// npm run bench:ntt [-- --log 16,18] [-- --rounds 15] [-- --curves bn254,bls12-381] [-- --kernel auto|int|fma]
//
// The NTT of 2^log scalar-field elements: wasmsm's fr module (one thread) against ffjavascript's Fr.fft / Fr.ifft
// (its Wasm, with its worker threads: one per core) on the same input, forward and inverse, rounds interleaved.
// Ours is timed three ways: on a pointer (fr.nttPointer over Montgomery-form elements already in Wasm memory, the
// prover's path), through bytes (fr.ntt(Uint8Array): canonical bytes in, conversion, NTT, bytes out), and through
// bytes on a pool of as many threads as ffjavascript has workers (fr.nttOn(pool, Uint8Array)), on both of the pool's
// transports: shared memory (every layer on the threads, in place) and messages (blocks sent and back). ffjavascript
// is timed as its API runs: a Uint8Array of its Montgomery-form elements in, a new one out; twice too: with its worker
// threads (one per core, its default) and built single-threaded (buildBn128(true)), the per-core comparison.
// Results are checked equal (same root of unity: both take the 2^log-th root from the least non-residue).
// --kernel: the curve's build (loadCurve's option; default auto, the one this engine gets), whose Fr build runs.

import { cpus, availableParallelism } from 'node:os';
import { parseCli } from '../scripts/lib.js';

const help = `Usage: node bench/ntt.js [--log 16[,18]] [--rounds n] [--curves bn254,bls12-381] [--kernel auto|int|fma]`;
const args = parseCli('bench/ntt.js', help, {
  log: { type: 'string', default: '16' },
  rounds: { type: 'string', default: '15' },
  curves: { type: 'string', default: 'bn254,bls12-381' },
  kernel: { type: 'string', default: 'auto' },
});
const logs = args.log.split(',').map(Number);
const rounds = Number(args.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
/**
 * An idle pause before each timed call: the collections and the threads' clean-up that the call before set off
 * (large arrays dropped or transferred) run there, not inside the next variant's time.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

const { buildBn128, buildBls12381 } = await import('ffjavascript');
const builders = { bn254: buildBn128, 'bls12-381': buildBls12381 };

const modPow = (b, e, m) => {
  let o = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) o = (o * b) % m;
  return o;
};
const toLE = (x, out, at, n) => {
  for (let k = 0; k < n; k++, x >>= 8n) out[at + k] = Number(x & 0xffn);
};
const fromLE = (b, at, n) => {
  let x = 0n;
  for (let k = n - 1; k >= 0; k--) x = (x << 8n) | BigInt(b[at + k]);
  return x;
};

console.log(`Node ${process.version}, ${cpus()[0].model.trim()}, ${availableParallelism()} cores; ${rounds} interleaved rounds after a warm-up; ms (median)`);
const threads = availableParallelism();
console.log(`| curve (Fr build) | N | direction | wasmsm pointer (1 thread) | wasmsm bytes (1 thread) | wasmsm bytes (pool of ${threads}, shared memory) | the same, messages | ffjavascript (workers) | ffjavascript (1 thread) | ffjs workers / wasmsm pointer | ffjs workers / wasmsm bytes | ffjs workers / wasmsm pool (shared) | ffjs workers / wasmsm pool (messages) | ffjs 1 thread / wasmsm bytes |`);
console.log('|:--|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const name of args.curves.split(',')) {
  const { load } = await import(`../src/curves/${name}.js`);
  const curve = await load({ kernel: args.kernel });
  const fr = await curve.fr();
  const pool = await curve.threads({ count: threads, sharedMemory: true });
  const poolMsg = await curve.threads({ count: threads, sharedMemory: false });
  const ff = await builders[name]();
  const ff1 = await builders[name](true); // single-threaded
  const { r, bytes: B, elementBytes: E } = fr;
  const montFF = (1n << BigInt(8 * ff.Fr.n8)) % r; // ffjavascript's Montgomery factor
  const montFFInv = modPow(montFF, r - 2n, r);
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
      let ffOut;
      let bytesOut;
      for (let round = -1; round < rounds; round++) {
        load();
        await settle();
        let t = performance.now();
        fr.nttPointer(ptr, logN, { inverse });
        const tPtr = performance.now() - t;
        await settle();
        t = performance.now();
        bytesOut = fr.ntt(canonical, { inverse });
        const tBytes = performance.now() - t;
        await settle();
        t = performance.now();
        const poolOut = await fr.nttOn(pool, canonical, { inverse });
        const tPool = performance.now() - t;
        if (poolOut.some((v, i) => v !== bytesOut[i])) throw new Error(`${name}: fr.nttOn differs from fr.ntt`);
        await settle();
        t = performance.now();
        const msgOut = await fr.nttOn(poolMsg, canonical, { inverse });
        const tMsg = performance.now() - t;
        if (msgOut.some((v, i) => v !== bytesOut[i])) throw new Error(`${name}: fr.nttOn (messages) differs from fr.ntt`);
        await settle();
        t = performance.now();
        ffOut = inverse ? await ff.Fr.ifft(theirs) : await ff.Fr.fft(theirs);
        const tFF = performance.now() - t;
        await settle();
        t = performance.now();
        const ff1Out = inverse ? await ff1.Fr.ifft(theirs) : await ff1.Fr.fft(theirs);
        const tFF1 = performance.now() - t;
        if (ff1Out.length !== ffOut.length || ff1Out.some((v, i) => v !== ffOut[i])) throw new Error(`${name}: ffjavascript's two runs differ`);
        if (round >= 0) {
          times.ptr.push(tPtr);
          times.bytes.push(tBytes);
          times.pool.push(tPool);
          times.poolMsg.push(tMsg);
          times.ff.push(tFF);
          times.ff1.push(tFF1);
        }
      }
      // the same values out of all three
      fr.toBytesPointer(bytesPtr, ptr, N);
      const ptrOut = new Uint8Array(fr.memory.buffer, bytesPtr, N * B);
      for (const i of [0, 1, N >> 1, N - 1, 12345 % N]) {
        const ours = fromLE(bytesOut, i * B, B);
        const ffValue = (fromLE(ffOut, i * ff.Fr.n8, ff.Fr.n8) * montFFInv) % r;
        if (ours !== fromLE(ptrOut, i * B, B) || ours !== ffValue) throw new Error(`${name} 2^${logN} ${inverse ? 'inverse' : 'forward'}: outputs differ at ${i}`);
      }
      fr.heap.release(ptr);
      const [p, b, t, m, f, f1] = [median(times.ptr), median(times.bytes), median(times.pool), median(times.poolMsg), median(times.ff), median(times.ff1)];
      console.log(`| ${name} (${fr.params.kernel}) | 2^${logN} | ${inverse ? 'inverse' : 'forward'} | ${p.toFixed(1)} | ${b.toFixed(1)} | ${t.toFixed(1)} | ${m.toFixed(1)} | ${f.toFixed(1)} | ${f1.toFixed(1)} | ${(f / p).toFixed(2)}x | ${(f / b).toFixed(2)}x | ${(f / t).toFixed(2)}x | ${(f / m).toFixed(2)}x | ${(f1 / b).toFixed(2)}x |`);
    }
  }
  await ff.terminate();
  await ff1.terminate();
  await pool.close();
  await poolMsg.close();
}
