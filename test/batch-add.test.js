// g_batchAdd, the kernel every MSM's accumulation and reduction runs, on its own: affine dst += src for a batch of
// pairs, against a BigInt oracle (src/bigint/curve.js). Coordinates go in as either representative of [0, 2p)
// (v or v + p, Montgomery form), so P + P and P + (-P) arrive with limbs that differ although the values agree:
// the kernel's zero test of x2 - x1 must see through that, including where the difference stays unreduced in
// (0, 4p) (codegen/kernels/field-add.js lazyOperandFits). Each result must be below 2p with every limb below 2^w.

import { describe, it, expect } from 'vitest';
import { loadCurve } from '../index.js';
import { makeCurve } from '../src/bigint/curve.js';
import { mod } from '../src/bigint/field.js';
import { KERNELS, makeRng } from './harness.js';
import { WEIERSTRASS_CURVES } from './msm-oracle.js';

/** 67 pairs: groups of four lanes and a remainder of three. */
const PAIRS = 67;

/** Kinds of pair, cycled over the batch: each lane of a group of four meets every kind. */
const KINDS = ['add', 'double', 'cancel', 'add', 'srcInfinity', 'dstInfinity', 'add', 'double', 'bothInfinity'];

for (const name of WEIERSTRASS_CURVES) {
  describe(`g_batchAdd on ${name}`, { timeout: 60_000 }, () => {
    for (const kernel of KERNELS) {
      it(`${kernel} build: add, double, cancel and infinity pairs with coordinates as either representative mod p`, async () => {
        const curve = await loadCurve(name, { kernel });
        const oracle = makeCurve({ p: curve.p, a: curve.a, b: curve.b });
        const { affineBytes: A, infOffset, E } = curve.params;
        const fp = curve.fp;
        const ex = curve.exports;
        const rng = makeRng(`batch-add ${name} ${kernel}`);
        const points = curve.randomPoints(2 * PAIRS, { seed: 11 });
        const mark = curve.heap.mark();
        try {
          const dsts = curve.heap.alloc(PAIRS * A, 64);
          const srcs = curve.heap.alloc(PAIRS * A, 64);
          const pairs = curve.heap.alloc(PAIRS * 8);
          const scratch = curve.heap.alloc(PAIRS * (2 * E + 4));
          const tmp = fp.alloc();
          const words = () => new Uint32Array(curve.memory.buffer);
          // the Montgomery form of v, as its representative in [0, p) or that + p (the kernels' lazy range)
          const montgomery = (v, upper) => {
            fp.write(tmp, v);
            const m = mod(fp.readLimbs(tmp), curve.p);
            return upper ? m + curve.p : m;
          };
          const writePoint = (ptr, P) => {
            new Uint8Array(curve.memory.buffer, ptr, A).fill(0);
            if (P === null) {
              words()[(ptr + infOffset) >>> 2] = 1;
              return;
            }
            fp.writeLimbs(ptr, montgomery(P.x, rng.int(2) === 1));
            fp.writeLimbs(ptr + E, montgomery(P.y, rng.int(2) === 1));
          };
          const readCoordinate = (ptr, label) => {
            const raw = fp.readLimbs(ptr);
            expect(raw < 2n * curve.p, `${label}: ${raw} not below 2p`).toBe(true);
            const limbWords = new (E === 8 * fp.n ? BigUint64Array : Uint32Array)(curve.memory.buffer, ptr, fp.n);
            for (const limb of limbWords) expect(BigInt(limb) < 1n << BigInt(fp.w), `${label}: a limb of ${fp.w}+ bits`).toBe(true);
            return fp.read(ptr);
          };
          const want = [];
          const pr = new Uint32Array(curve.memory.buffer, pairs, 2 * PAIRS);
          for (let i = 0; i < PAIRS; i++) {
            const P = { x: points[2 * i].x, y: points[2 * i].y };
            const Q = { x: points[2 * i + 1].x, y: points[2 * i + 1].y };
            const kind = KINDS[i % KINDS.length];
            const [dst, src] = {
              add: [P, Q],
              double: [P, P],
              cancel: [P, oracle.neg(P)],
              srcInfinity: [P, null],
              dstInfinity: [null, Q],
              bothInfinity: [null, null],
            }[kind];
            writePoint(dsts + i * A, dst);
            writePoint(srcs + i * A, src);
            pr[2 * i] = dsts + i * A;
            pr[2 * i + 1] = srcs + i * A;
            want.push({ kind, sum: dst === null ? src : src === null ? dst : oracle.add(dst, src) });
          }
          ex.g_batchAdd(pairs, PAIRS, scratch);
          for (let i = 0; i < PAIRS; i++) {
            const at = dsts + i * A;
            const { kind, sum } = want[i];
            const infinity = words()[(at + infOffset) >>> 2] === 1;
            const got = infinity ? null : { x: readCoordinate(at, `pair ${i} (${kind}) x`), y: readCoordinate(at + E, `pair ${i} (${kind}) y`) };
            expect(got, `pair ${i} (${kind})`).toEqual(sum === null ? null : { x: sum.x, y: sum.y });
          }
        } finally {
          curve.heap.release(mark);
        }
      });
    }
  });
}
