// The Groth16 kernels of every shipped curve's fr module (codegen/kernels/groth16.js) against BigInt: qapWitness
// (a .wtns value to w (R'/R_ff)^2 in Montgomery form), qapEvaluate (a zkey's coefficient records, values c R_ff^2 mod
// r, summed into A and B), qapProduct and qapJoin (A B - C as canonical bytes); values biased to 0, 1, r - 1 and
// random; every malformed record and every witness value >= r is reported at its index, the records before it added.
// Once per build this engine runs (the FMA build's kernels take four values or records per step, then one at a time).

import { describe, it, expect } from 'vitest';
import { loadCurve, curveNames } from 'wasmsm';
import { KERNELS } from './harness.js';

/** A small seeded generator of BigInts below a bound, biased to the edges. */
function values(r, seed) {
  let x = BigInt(seed) * 0x9e3779b97f4a7c15n + 1n;
  return () => {
    x = (x * 0x5851f42d4c957f2dn + 0x14057b7ef767814fn) % (1n << 256n);
    const pick = Number(x % 8n);
    if (pick === 0) return 0n;
    if (pick === 1) return 1n;
    if (pick === 2) return r - 1n;
    return (x * 0x2545f4914f6cdd1dn) % r;
  };
}

const le = (x, n) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
};
const fromLe = (b) => b.reduceRight((acc, v) => (acc << 8n) | BigInt(v), 0n);
const modPow = (a, e, m) => {
  let out = 1n;
  for (a %= m; e > 0n; e >>= 1n, a = (a * a) % m) if (e & 1n) out = (out * a) % m;
  return out;
};

describe.each(KERNELS)('the Groth16 kernels of every fr module, %s build', (kernel) => {
  for (const name of curveNames) {
    it(`${name}: qapWitness, qapEvaluate, qapProduct, qapJoin equal BigInt; bad values and records are named`, async () => {
      const fr = await (await loadCurve(name, { kernel })).fr();
      expect(fr.params.kernel).toBe(kernel);
      const { r, bytes: n8, elementBytes: E } = fr;
      const ex = fr.exports;
      const next = values(r, name.length);
      const Rff2 = modPow(2n, BigInt(16 * n8), r); // R_ff^2, R_ff = 2^(8 n8)
      const nVars = 37;
      const domainSize = 16;
      const w = Array.from({ length: nVars }, next);
      // 203 records (50 steps of four and a tail); records 100..119 come in runs of the same constraint, so a step of
      // four adds into one element of A or B more than once
      const records = Array.from({ length: 203 }, (_, i) => [i % 3 === 0 ? 1 : 0, i >= 100 && i < 120 ? (i >> 3) % domainSize : (i * 7) % domainSize, (i * 11) % nVars, next()]);
      const sums = (list) => {
        const A = new Array(domainSize).fill(0n);
        const B = new Array(domainSize).fill(0n);
        for (const [m, c, s, v] of list) (m ? B : A)[c] = ((m ? B : A)[c] + v * w[s]) % r;
        return [A, B];
      };
      const [A, B] = sums(records);
      const recordBytes = 12 + n8;
      const mark = fr.heap.mark();
      try {
        const heap = fr.heap;
        const wBytes = heap.alloc(nVars * n8);
        const X = heap.alloc(nVars * E);
        const coefs = heap.alloc(records.length * recordBytes);
        const a = heap.alloc(domainSize * E);
        const b = heap.alloc(domainSize * E);
        const c = heap.alloc(domainSize * E);
        const out = heap.alloc(domainSize * n8);
        const mem = () => new Uint8Array(fr.memory.buffer);
        w.forEach((v, i) => mem().set(le(v, n8), wBytes + i * n8));
        const writeRecords = (list) =>
          list.forEach(([m, cc, s, v], i) => {
            const view = new DataView(fr.memory.buffer, coefs + i * recordBytes, 12);
            view.setUint32(0, m, true);
            view.setUint32(4, cc, true);
            view.setUint32(8, s, true);
            mem().set(le(typeof v === 'bigint' && v < r ? (v * Rff2) % r : v, n8), coefs + i * recordBytes + 12);
          });
        writeRecords(records);
        expect(ex.fr_qapWitness(X, wBytes, nVars)).toBe(0);
        mem().fill(0, a, a + 2 * domainSize * E);
        expect(ex.fr_qapEvaluate(coefs, records.length, X, a, b, domainSize, nVars)).toBe(0);
        const read = (ptr, i) => fr.field.read(ptr + i * E);
        for (let i = 0; i < domainSize; i++) {
          expect(read(a, i), `A[${i}]`).toBe(A[i]);
          expect(read(b, i), `B[${i}]`).toBe(B[i]);
        }
        ex.fr_qapProduct(c, a, b, domainSize);
        for (let i = 0; i < domainSize; i++) expect(read(c, i), `C[${i}]`).toBe((A[i] * B[i]) % r);
        // counts that are not a multiple of four: the tail one at a time (C past the count untouched)
        for (const count of [1, 3, 7]) {
          mem().fill(0, c, c + domainSize * E);
          ex.fr_qapProduct(c, a, b, count);
          for (let i = 0; i < domainSize; i++) expect(read(c, i), `C[${i}] of ${count}`).toBe(i < count ? (A[i] * B[i]) % r : 0n);
        }
        ex.fr_qapProduct(c, a, b, domainSize);
        // join: a B - C with C set to other values, so the difference is not zero
        const C2 = Array.from({ length: domainSize }, next);
        for (const count of [domainSize, 13]) {
          const aCopy = mem().slice(a, a + domainSize * E); // the join overwrites a
          C2.forEach((v, i) => fr.field.write(c + i * E, v));
          mem().fill(0, out, out + domainSize * n8);
          ex.fr_qapJoin(out, a, b, c, count);
          for (let i = 0; i < count; i++) {
            expect(fromLe(mem().slice(out + i * n8, out + (i + 1) * n8)), `join[${i}] of ${count}`).toBe((((A[i] * B[i] - C2[i]) % r) + r) % r);
          }
          for (let i = count; i < domainSize; i++) expect(fromLe(mem().slice(out + i * n8, out + (i + 1) * n8))).toBe(0n);
          mem().set(aCopy, a);
        }
        // out over C itself (joinQap on one thread: no fourth array), where the scalars are no larger than C's elements
        if (n8 <= E) {
          const aCopy = mem().slice(a, a + domainSize * E);
          C2.forEach((v, i) => fr.field.write(c + i * E, v));
          ex.fr_qapJoin(c, a, b, c, domainSize);
          for (let i = 0; i < domainSize; i++) {
            expect(fromLe(mem().slice(c + i * n8, c + (i + 1) * n8)), `join over C [${i}]`).toBe((((A[i] * B[i] - C2[i]) % r) + r) % r);
          }
          mem().set(aCopy, a);
        }
        // a witness value >= r, named by index (1-based in the return), in a step of four, with another after it, and
        // in the tail
        for (const at of [0, 5, 36]) {
          w.forEach((v, i) => mem().set(le(v, n8), wBytes + i * n8));
          mem().set(le(r, n8), wBytes + at * n8);
          if (at + 1 < nVars) mem().set(le(r + 1n, n8), wBytes + (at + 1) * n8);
          expect(ex.fr_qapWitness(X, wBytes, nVars), `witness ${at}`).toBe(at + 1);
        }
        w.forEach((v, i) => mem().set(le(v, n8), wBytes + i * n8));
        expect(ex.fr_qapWitness(X, wBytes, nVars)).toBe(0);
        // malformed records: matrix 2, constraint = domainSize, signal = nVars, value = r (stored raw); in a step of
        // four (another bad one after it there), and in the tail; the records before it are added, none after
        for (const [bad, at] of [[[2, 0, 0, 1n], 3], [[0, domainSize, 0, 1n], 10], [[1, 0, nVars, 1n], 0], [[0, 0, 0, r], 199], [[0, 0, 0, r], 201], [[2, 0, 0, 1n], 105]]) {
          const list = records.slice();
          list[at] = bad;
          if (at % 4 !== 3 && at + 1 < list.length) list[at + 1] = [0, 0, 0, r + 1n];
          writeRecords(list);
          mem().fill(0, a, a + 2 * domainSize * E);
          const what = JSON.stringify([bad, at], (k, v) => (typeof v === 'bigint' ? String(v) : v));
          expect(ex.fr_qapEvaluate(coefs, list.length, X, a, b, domainSize, nVars), what).toBe(at + 1);
          const [Aw, Bw] = sums(records.slice(0, at));
          for (let i = 0; i < domainSize; i++) expect([read(a, i), read(b, i)], `${what}: A and B at ${i}`).toEqual([Aw[i], Bw[i]]);
        }
      } finally {
        fr.heap.release(mark);
      }
    });
  }
});
