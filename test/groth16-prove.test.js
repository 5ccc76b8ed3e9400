// groth16Prove (wasmsm/snarkjs, src/groth16/prove.js): the whole Groth16 proof in Wasm, on the fixture circuits bits8
// and merkle1, BN254 (bn128) and BLS12-381:
// - with fixed r and s the proof is byte for byte the independent BigInt reference's (test/groth16-reference.js,
//   noble's G1/G2), it verifies with snarkjs's verifier, and its public signals are snarkjs's;
// - with random r and s it verifies, and differs from proof to proof;
// - one Groth16Prover proves again and again, on both pool transports and on one thread; the inputs as bytes, a
//   ReadableStream, an async iterable and paths give the same proof;
// - a witness changed in one wire gives a proof that does not verify, and the r1cs option names the first broken
//   constraint; a truncated zkey, a PLONK zkey, a witness of another field or length and an empty stream are each one
//   clear error.
// Fixtures from scripts/snarkjs-fixtures.js (cached under .cache/snarkjs/).

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import * as snarkjs from 'snarkjs';
import { createReadStream, readFileSync } from 'node:fs';
import { fixture, r1csFixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { groth16Prove, Groth16Prover } from 'wasmsm/snarkjs';
import { readZkey } from '../src/groth16/zkey.js';
import { readWtns } from '../src/groth16/wtns.js';
import { FileFormatError } from '../src/groth16/source.js';
import { Curve } from '../src/curve.js';
import { MsmPool } from '../src/threads/pool.js';
import { referenceProve } from './groth16-reference.js';
import { errorOf, iterableOf, streamOf } from './chunked-input.js';

const CASES = [
  ['bits8', 'bn128'],
  ['merkle1', 'bn128'],
  ['bits8', 'bls12381'],
  ['merkle1', 'bls12381'],
];
const R = 0x1234567890abcdefn;
const S = 0xfedcba0987654321n;

const fx = {};
const provers = [];
const prover = (options) => {
  const p = new Groth16Prover(options);
  provers.push(p);
  return p;
};

beforeAll(async () => {
  for (const [circuit, curve] of CASES) {
    const f = await fixture(snarkjs, circuit, curve, 'groth16');
    fx[`${circuit} ${curve}`] = {
      ...f,
      zkeyBytes: new Uint8Array(readFileSync(f.zkey)),
      wtnsBytes: new Uint8Array(readFileSync(f.wtns)),
      vkeyJson: JSON.parse(readFileSync(f.vkey, 'utf8')),
    };
  }
  fx.plonk = await fixture(snarkjs, 'bits8', 'bn128', 'plonk');
}, 600_000);

afterAll(async () => {
  await Promise.all(provers.map((p) => p.close()));
  await terminateCurves();
});

/** The witness with wire `i` plus one (a .wtns: 12-byte file header; section 1: u32 n8, q, u32 nWitness; section 2 last). */
function alteredWitness(f, i) {
  const w = f.wtnsBytes.slice();
  const view = new DataView(w.buffer);
  const n8 = view.getUint32(24, true);
  const nWitness = view.getUint32(28 + n8, true);
  const at = w.length - nWitness * n8 + i * n8;
  w[at] ^= 1; // a value's lowest bit: still below r
  return w;
}

/** A snarkjs binary file (magic, u32 version, u32 count, then u32 id, u64 size, bytes) as [id, bytes] sections, and back. */
function sectionsOf(file) {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const out = [];
  for (let i = 0, at = 12; i < view.getUint32(8, true); i++) {
    const size = Number(view.getBigUint64(at + 4, true));
    out.push([view.getUint32(at, true), file.subarray(at + 12, at + 12 + size)]);
    at += 12 + size;
  }
  return out;
}
/** A binfile of `head`'s magic and version with these sections ([id, bytes] each; the count in its header theirs). */
function fileOf(head, sections) {
  const start = head.slice(0, 12);
  new DataView(start.buffer).setUint32(8, sections.length, true);
  const parts = [start];
  for (const [id, bytes] of sections) {
    const h = new DataView(new ArrayBuffer(12));
    h.setUint32(0, id, true);
    h.setBigUint64(4, BigInt(bytes.length), true);
    parts.push(new Uint8Array(h.buffer), bytes);
  }
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  parts.reduce((at, b) => (out.set(b, at), at + b.length), 0);
  return out;
}
/** A field's n8-byte number (u32 n8, then the number) widened to `to` bytes, zeros on top, and the rest as it was. */
function widened(bytes, to) {
  const n8 = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const out = new Uint8Array(bytes.length + to - n8);
  new DataView(out.buffer).setUint32(0, to, true);
  out.set(bytes.subarray(4, 4 + n8), 4);
  out.set(bytes.subarray(4 + n8), 4 + to);
  return out;
}

/** The zkey with point `index` of section `id` moved off its curve (a bit of its y flipped; pointBytes: 64 G1, 128 G2 on bn128). */
function withPointOffCurve(zkey, id, index, pointBytes = 64) {
  return fileOf(zkey, sectionsOf(zkey).map(([k, b]) => {
    if (k !== id) return [k, b];
    const out = b.slice();
    out[index * pointBytes + pointBytes / 2] ^= 1;
    return [k, out];
  }));
}

/** The witness with wires [from, to) zero (section 2: the values, 32 bytes each on bn128). */
function zeroWires(wtns, from, to) {
  return fileOf(wtns, sectionsOf(wtns).map(([id, b]) => [id, id === 2 ? b.slice().fill(0, from * 32, to * 32) : b]));
}

describe('groth16Prove', () => {
  for (const [circuit, curve] of CASES) {
    it(`${circuit} on ${curve}: with fixed r and s the reference's proof byte for byte, and it verifies`, { timeout: 120_000 }, async () => {
      const f = fx[`${circuit} ${curve}`];
      const timings = {};
      const got = await prover({ threads: 2 }).prove(f.zkeyBytes, f.wtnsBytes, { r: R, s: S, timings });
      const want = referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S });
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      expect(await snarkjs.groth16.verify(f.vkeyJson, got.publicSignals, got.proof)).toBe(true);
      const plain = await snarkjs.groth16.prove(f.zkey, f.wtns);
      expect(got.publicSignals).toEqual(plain.publicSignals);
      for (const k of ['read', 'qap', 'ntt', 'join', 'msm', 'blind', 'total']) expect(timings[k], k).toBeGreaterThanOrEqual(0);
    });
  }

  it('a domain of 2 (one constraint, no public signal): proof after proof in one process, each build, the reference\'s and verifying', { timeout: 120_000 }, async () => {
    // a b = c over wires (1, a, b, c): the arrays A and B of the QAP are 2 elements each, which (36-byte elements in
    // the integer build) do not end on the heap's 16-byte alignment
    const r = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
    const le = (v, n) => Uint8Array.from({ length: n }, (_, i) => Number((BigInt(v) >> BigInt(8 * i)) & 255n));
    const join = (parts) => Uint8Array.from(parts.flatMap((x) => [...x]));
    const file = (magic, version, sections) => join([new TextEncoder().encode(magic), le(version, 4), le(sections.length, 4), ...sections.flatMap(([id, body]) => [le(id, 4), le(body.length, 8), body])]);
    const term = (wire) => join([le(1, 4), le(wire, 4), le(1, 32)]); // a linear combination: 1 * wire
    const wires = [1n, 3n, 5n, 15n];
    const r1cs = file('r1cs', 1, [
      [1, join([le(32, 4), le(r, 32), le(4, 4), le(0, 4), le(0, 4), le(3, 4), le(4, 8), le(1, 4)])], // no public signal
      [2, join([term(1), term(2), term(3)])],
      [3, join(wires.map((_, i) => le(i, 8)))],
    ]);
    const wtns = file('wtns', 2, [[1, join([le(32, 4), le(r, 32), le(4, 4)])], [2, join(wires.map((w) => le(w, 32)))]]);
    const f = await r1csFixture(snarkjs, 'ab-c', 'bn128', r1cs);
    const zkey = new Uint8Array(readFileSync(f.zkey));
    expect((await readZkey(zkey)).header.domainSize).toBe(2);
    const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
    const want = JSON.stringify(referenceProve(await readZkey(zkey), await readWtns(wtns), { r: R, s: S }));
    for (const kernel of ['int', 'auto']) {
      for (let i = 0; i < 3; i++) expect(JSON.stringify(await groth16Prove(zkey, wtns, { r: R, s: S, kernel })), `${kernel}: groth16Prove ${i}`).toBe(want);
      const p = prover({ kernel, threads: 1, sharedMemory: false });
      for (let i = 0; i < 2; i++) {
        const { proof, publicSignals } = await p.prove(zkey, wtns);
        expect(await snarkjs.groth16.verify(vkey, publicSignals, proof), `${kernel}: prover ${i}`).toBe(true);
      }
    }
  });

  it('random r and s: proofs verify and differ; one prover, both transports, one thread, any input form', { timeout: 300_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const seen = new Set();
    const reference = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    for (const options of [{ threads: 2, sharedMemory: true }, { threads: 2, sharedMemory: false }, { threads: 1 }, { threads: 7 }]) {
      const p = prover(options);
      const a = await p.prove(f.zkeyBytes, f.wtnsBytes);
      const b = await p.prove(f.zkey, f.wtns); // paths
      for (const { proof, publicSignals } of [a, b]) {
        expect(await snarkjs.groth16.verify(f.vkeyJson, publicSignals, proof)).toBe(true);
        seen.add(JSON.stringify(proof));
      }
      const fixed = [
        await p.prove(streamOf(f.zkeyBytes, 4093), streamOf(f.wtnsBytes, 7), { r: R, s: S }),
        await p.prove(iterableOf(f.zkeyBytes, 65536), f.wtnsBytes.buffer.slice(f.wtnsBytes.byteOffset), { r: R, s: S }),
        // Node Buffers (readFileSync's): their slice is a view, which must never reach a thread as a transfer
        await p.prove(readFileSync(f.zkey), readFileSync(f.wtns), { r: R, s: S }),
      ];
      for (const x of fixed) expect(JSON.stringify(x)).toBe(reference);
      // proofs asked for at once run one after the other on the prover
      const both = await Promise.all([p.prove(f.zkeyBytes, f.wtnsBytes, { r: R, s: S }), p.prove(f.zkey, f.wtns, { r: R, s: S })]);
      for (const x of both) expect(JSON.stringify(x)).toBe(reference);
    }
    expect(seen.size).toBe(8);
  });

  it('one prover for zkeys of two sizes, alternating (its scratch arrays go from proof to proof, or not with releaseAfterMs 0): each the reference\'s proof', { timeout: 120_000 }, async () => {
    const wants = {};
    for (const name of ['bits8 bn128', 'merkle1 bn128']) {
      const f = fx[name];
      wants[name] = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    }
    expect(wants['bits8 bn128']).not.toBe(wants['merkle1 bn128']);
    for (const options of [{ threads: 2, sharedMemory: true }, { threads: 2, sharedMemory: false }, { threads: 2, releaseAfterMs: 0 }]) {
      const p = prover(options);
      for (const name of ['merkle1 bn128', 'bits8 bn128', 'merkle1 bn128', 'bits8 bn128']) {
        const f = fx[name];
        // paths: the sections are read into the scratch arrays (bytes are read in place)
        const got = JSON.stringify(await p.prove(f.zkey, f.wtns, { r: R, s: S }));
        expect(got, `${name} ${JSON.stringify(options)}`).toBe(wants[name]);
        if (options.releaseAfterMs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  });

  it('a prover whose start fails midway closes what it opened (the GPU it took), and the next proof starts anew', { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const gpus = [];
    const onGpu = vi.spyOn(Curve.prototype, 'gpu').mockImplementation(async () => {
      const gpu = { closed: 0, close: async () => void gpu.closed++ };
      gpus.push(gpu);
      return gpu;
    });
    const onThreads = vi.spyOn(Curve.prototype, 'threads').mockImplementation(async () => {
      throw new Error('no threads today');
    });
    try {
      const p = prover({ gpu: true, threads: 2 });
      for (let i = 0; i < 2; i++) await expect(p.prove(f.zkeyBytes, f.wtnsBytes)).rejects.toThrow(/no threads today/);
      expect(gpus.map((g) => g.closed)).toEqual([1, 1]);
    } finally {
      onGpu.mockRestore();
      onThreads.mockRestore();
    }
  });

  it('two provers of one curve prove at once: the proofs take turns on the curve\'s Fr module (its heap is a stack), each the reference\'s', { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const want = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    for (const sharedMemory of [true, false]) {
      const [a, b] = [prover({ threads: 2, sharedMemory }), prover({ threads: 2, sharedMemory })];
      const proofs = await Promise.all([a, b, a, b, b, a].map((p) => p.prove(f.zkeyBytes, f.wtnsBytes, { r: R, s: S })));
      for (const x of proofs) expect(JSON.stringify(x), `sharedMemory ${sharedMemory}`).toBe(want);
    }
    // with groth16Prove's one-shot provers too, and another curve's between them
    const g = fx['bits8 bls12381'];
    const wantG = JSON.stringify(referenceProve(await readZkey(g.zkeyBytes), await readWtns(g.wtnsBytes), { r: R, s: S }));
    const mixed = await Promise.all([
      groth16Prove(f.zkeyBytes, f.wtnsBytes, { threads: 2, r: R, s: S }),
      prover({ threads: 2 }).prove(g.zkeyBytes, g.wtnsBytes, { r: R, s: S }),
      groth16Prove(f.zkey, f.wtns, { threads: 2, r: R, s: S }),
    ]);
    expect(mixed.map((x) => JSON.stringify(x))).toEqual([want, wantG, want]);
  });

  it('the one-shot groth16Prove proves and closes its pools (G1\'s before G2\'s starts): the reference\'s proof, both transports', { timeout: 120_000 }, async () => {
    const f = fx['bits8 bls12381'];
    const { proof, publicSignals } = await groth16Prove(f.zkey, f.wtns, { threads: 2 });
    expect(await snarkjs.groth16.verify(f.vkeyJson, publicSignals, proof)).toBe(true);
    // the pools' starts and closes, in order: a one-shot proof closes G1's before G2's starts; a prover keeps both
    const events = [];
    const groups = new WeakMap();
    const threads = Curve.prototype.threads;
    const close = MsmPool.prototype.close;
    const onThreads = vi.spyOn(Curve.prototype, 'threads').mockImplementation(async function (o) {
      const pool = await threads.call(this, o);
      groups.set(pool, this.group);
      events.push(`start ${this.group}`);
      return pool;
    });
    const onClose = vi.spyOn(MsmPool.prototype, 'close').mockImplementation(function () {
      events.push(`close ${groups.get(this)}`);
      return close.call(this);
    });
    try {
      for (const [circuit, curve] of [['bits8', 'bls12381'], ['merkle1', 'bn128']]) {
        const g = fx[`${circuit} ${curve}`];
        const want = JSON.stringify(referenceProve(await readZkey(g.zkeyBytes), await readWtns(g.wtnsBytes), { r: R, s: S }));
        const wtnsCopy = g.wtnsBytes.slice();
        for (const options of [{ threads: 2 }, { threads: 2, sharedMemory: false }, { threads: 3 }]) {
          // the witness as a path too: its values, the proof's own array then, are let go of once the MSMs have theirs
          for (const wtns of [g.wtnsBytes, g.wtns]) {
            events.length = 0;
            const got = await groth16Prove(g.zkey, wtns, { ...options, r: R, s: S });
            expect(JSON.stringify(got), `${circuit} ${curve} ${JSON.stringify(options)}`).toBe(want);
            expect(events, `${circuit} ${JSON.stringify(options)}`).toEqual(['start G1', 'close G1', 'start G2', 'close G2']);
          }
        }
        expect(Buffer.from(g.wtnsBytes).equals(Buffer.from(wtnsCopy))).toBe(true); // the caller's bytes: never let go of
      }
      // an engine that refuses the fr twin's shared memory: the NTTs and the QAP on the message path, the same proof
      const { ScalarField } = await import('../src/fr/index.js');
      const refused = vi.spyOn(ScalarField.prototype, 'sharedTwin').mockImplementation(() => Promise.reject(new RangeError('cannot create a shared WebAssembly.Memory')));
      try {
        const g = fx['merkle1 bn128'];
        const want = JSON.stringify(referenceProve(await readZkey(g.zkeyBytes), await readWtns(g.wtnsBytes), { r: R, s: S }));
        expect(JSON.stringify(await groth16Prove(g.zkeyBytes, g.wtnsBytes, { threads: 2, r: R, s: S }))).toBe(want);
        expect(refused).toHaveBeenCalled();
      } finally {
        refused.mockRestore();
      }
      events.length = 0;
      const p = new Groth16Prover({ threads: 2 });
      await p.prove(fx['bits8 bls12381'].zkey, fx['bits8 bls12381'].wtnsBytes, { r: R, s: S });
      await p.close();
      expect(events.slice(0, 2)).toEqual(['start G1', 'start G2']);
    } finally {
      onThreads.mockRestore();
      onClose.mockRestore();
    }
  });

  it("a prover's later proofs run B2's MSM (G2) first, beside the QAP, where the zkey is bytes or a path (a stream in file order): the reference's proof; a bad B2 point named", { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const want = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    // the pools' calls in order: 'G2' for an MSM of snarkjs G2 points (128 bytes a point on bn128), 'G1', or the task op
    const calls = [];
    const msmBytes = MsmPool.prototype.msmBytes;
    const runTasks = MsmPool.prototype.runTasks;
    const onMsm = vi.spyOn(MsmPool.prototype, 'msmBytes').mockImplementation(function (points, scalars, ...rest) {
      calls.push(points.length === 4 * scalars.length ? 'G2' : 'G1');
      return msmBytes.call(this, points, scalars, ...rest);
    });
    const onTasks = vi.spyOn(MsmPool.prototype, 'runTasks').mockImplementation(function (op, ...rest) {
      calls.push(op);
      return runTasks.call(this, op, ...rest);
    });
    try {
      for (const sharedMemory of [true, false]) {
        const p = prover({ threads: 2, sharedMemory });
        const first = async (zkey) => {
          calls.length = 0;
          expect(JSON.stringify(await p.prove(zkey, f.wtnsBytes, { r: R, s: S })), `sharedMemory ${sharedMemory}`).toBe(want);
          expect(calls.filter((c) => c === 'G2'), 'one G2 MSM').toHaveLength(1);
          return calls[0];
        };
        expect(await first(f.zkeyBytes), 'the first proof (G2\'s pool starts at its end)').not.toBe('G2');
        expect(await first(f.zkeyBytes), 'bytes').toBe('G2');
        expect(await first(f.zkey), 'a path').toBe('G2');
        expect(await first(streamOf(f.zkeyBytes, 65536)), 'a stream').not.toBe('G2');
        expect(calls.at(-1), 'a stream: B2 last').toBe('G2');
        // a point off G2 in section 7 at wire 200 (wires 2 .. 130 zero: the MSM takes the thinned points)
        const bad = withPointOffCurve(f.zkeyBytes, 7, 200, 128);
        await expect(p.prove(bad, zeroWires(f.wtnsBytes, 2, 131))).rejects.toThrow(/^zkey: section 7 \(B2\): point 200 \(wire 200\): point is not on the curve$/);
        expect(await first(f.zkeyBytes), 'after the error').toBe('G2');
      }
    } finally {
      onMsm.mockRestore();
      onTasks.mockRestore();
    }
  });

  it("a prover's pools keep what a proof grew 10 s idle by default, as the route's (releaseAfterMs; a pool's own default is 1 s)", { timeout: 120_000 }, async () => {
    const f = fx['bits8 bn128'];
    const seen = [];
    const threads = Curve.prototype.threads;
    const onThreads = vi.spyOn(Curve.prototype, 'threads').mockImplementation(function (o) {
      seen.push(o.releaseAfterMs);
      return threads.call(this, o);
    });
    try {
      for (const options of [{}, { releaseAfterMs: 250 }]) {
        seen.length = 0;
        const p = prover({ threads: 2, ...options });
        await p.prove(f.zkeyBytes, f.wtnsBytes);
        await p.prove(f.zkeyBytes, f.wtnsBytes);
        expect(seen, JSON.stringify(options)).toEqual([options.releaseAfterMs ?? 10_000, options.releaseAfterMs ?? 10_000]);
      }
    } finally {
      onThreads.mockRestore();
    }
  });

  it("the MSMs' default budget: H's MSM in one chunk where that fits 40 MiB, else H's section size within 16 to 64 MiB", async () => {
    const { proverMsmMemory } = await import('../src/groth16/phases.js');
    const { planMsm } = await import('../src/msm/plan.js');
    const MiB = 2 ** 20;
    const { loadCurve } = await import('wasmsm');
    const bn = (await loadCurve('bn254')).params;
    const bls = (await loadCurve('bls12-381')).params;
    const budget = (log, P, n8q, threads = 2) => proverMsmMemory({ domainSize: 2 ** log, n8q }, P, threads);
    expect(budget(16, bn, 32)).toBe(40 * MiB);
    expect(planMsm(bn, 2 ** 16, { maxMemory: 40 * MiB, threads: 2, pool: true }).chunkPoints).toBe(2 ** 16);
    expect(planMsm(bn, 2 ** 17, { maxMemory: 40 * MiB, threads: 2, pool: true }).chunkPoints).toBeLessThan(2 ** 17);
    expect([17, 18, 19, 20, 21].map((log) => budget(log, bn, 32) / MiB)).toEqual([16, 16, 32, 64, 64]);
    expect([15, 16, 18].map((log) => budget(log, bls, 48) / MiB)).toEqual([40, 16, 24]);
  });

  it("the QAP on the pool's threads in many parts, both transports, and with the coefficients out of constraint order: the reference's proof", { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const want = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    // section 4's records reversed: the same A and B (sums in another order), but no part can be cut by constraint
    const reversed = f.zkeyBytes.slice();
    const view = new DataView(reversed.buffer);
    for (let at = 12, k = 0; k < view.getUint32(8, true); k++) {
      const [id, size] = [view.getUint32(at, true), Number(view.getBigUint64(at + 4, true))];
      if (id === 4) {
        const count = view.getUint32(at + 12, true);
        const record = (size - 4) / count;
        const records = f.zkeyBytes.subarray(at + 16, at + 12 + size);
        for (let i = 0; i < count; i++) reversed.set(records.subarray((count - 1 - i) * record, (count - i) * record), at + 16 + i * record);
      }
      at += 12 + size;
    }
    expect(reversed).not.toEqual(f.zkeyBytes);
    globalThis.__wasmsmTestQapPartBytes = 44 * 37; // 37 records a part: many parts, several constraints in each
    try {
      for (const options of [{ threads: 2 }, { threads: 3 }, { threads: 2, sharedMemory: false }]) {
        const p = prover(options);
        for (const [name, zkey] of [['in order', f.zkeyBytes], ['reversed', reversed]]) {
          expect(JSON.stringify(await p.prove(zkey, f.wtnsBytes, { r: R, s: S })), `${name} ${JSON.stringify(options)}`).toBe(want);
        }
      }
    } finally {
      delete globalThis.__wasmsmTestQapPartBytes;
    }
  });

  it('a witness changed in one wire: the proof does not verify; the r1cs option names the broken constraint', { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const bad = alteredWitness(f, 5);
    const p = prover({ threads: 2 });
    const { proof, publicSignals } = await p.prove(f.zkeyBytes, bad);
    expect(await snarkjs.groth16.verify(f.vkeyJson, publicSignals, proof)).toBe(false);
    const e = await errorOf(p.prove(f.zkeyBytes, bad, { r1cs: f.r1cs }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/the witness does not satisfy constraint \d+ of the r1cs/);
    // the good witness passes the check and verifies
    const ok = await p.prove(f.zkeyBytes, f.wtnsBytes, { r1cs: readFileSync(f.r1cs) });
    expect(await snarkjs.groth16.verify(f.vkeyJson, ok.publicSignals, ok.proof)).toBe(true);
  });

  it('an NTT round that fails while the zkey stream waits after its coefficients: prove() rejects with it (never unhandled), and the prover proves again', { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const want = JSON.stringify(referenceProve(await readZkey(f.zkeyBytes), await readWtns(f.wtnsBytes), { r: R, s: S }));
    // the end of section 4 in the file (snarkjs writes 1 2 4 3 9 ...): the stream pauses there, as a network's may
    let end = 12;
    for (const [id, b] of sectionsOf(f.zkeyBytes)) {
      end += 12 + b.length;
      if (id === 4) break;
    }
    async function* paused() {
      yield f.zkeyBytes.slice(0, end);
      await new Promise((resolve) => setTimeout(resolve, 300));
      yield f.zkeyBytes.slice(end);
    }
    for (const sharedMemory of [true, false]) {
      const p = prover({ threads: 2, sharedMemory });
      const runTasks = MsmPool.prototype.runTasks;
      let failed = false;
      // the first NTT round fails as one whose thread died or whose memory was refused would
      const spy = vi.spyOn(MsmPool.prototype, 'runTasks').mockImplementation(function (op, tasks) {
        const ntt = op === 'frCosetBlock' || op === 'frDifBlock' || tasks.some((t) => t.args.calls?.some(([name]) => name === 'fr_nttDif'));
        if (!failed && ntt) {
          failed = true;
          return Promise.reject(new Error('an NTT round failed'));
        }
        return runTasks.call(this, op, tasks);
      });
      try {
        expect((await errorOf(p.prove(paused(), f.wtnsBytes, { r: R, s: S }))).message).toBe('an NTT round failed');
      } finally {
        spy.mockRestore();
      }
      expect(failed).toBe(true);
      expect(JSON.stringify(await p.prove(paused(), f.wtnsBytes, { r: R, s: S }))).toBe(want);
    }
  });

  it('bad input: one clear error each', { timeout: 120_000 }, async () => {
    const f = fx['merkle1 bn128'];
    const other = fx['merkle1 bls12381'];
    const p = prover({ threads: 2 });
    const noQap = {}; // the timings of a call that must stop before the QAP
    const noNtt = {}; // and of one that must stop before the NTTs
    /** Section 2 with its domainSize (after n8q q n8r r nVars nPublic) set to `size`. */
    const withDomainSize = (header, size) => {
      const out = header.slice();
      const view = new DataView(out.buffer);
      const n8q = view.getUint32(0, true);
      view.setUint32(4 + n8q + 4 + view.getUint32(4 + n8q, true) + 8, size, true);
      return out;
    };
    const cases = [
      [() => p.prove(f.zkeyBytes.subarray(0, 100), f.wtnsBytes), FileFormatError, /zkey truncated/],
      [() => p.prove(f.zkeyBytes.subarray(0, f.zkeyBytes.length - 1000), f.wtnsBytes), FileFormatError, /zkey truncated/],
      [() => p.prove(streamOf(f.zkeyBytes.subarray(0, f.zkeyBytes.length - 1000), 5000), f.wtnsBytes), FileFormatError, /zkey truncated/],
      [() => p.prove(readFileSync(fx.plonk.zkey), f.wtnsBytes), FileFormatError, /not a Groth16 zkey \(protocol plonk\)/],
      [() => p.prove(f.zkeyBytes, other.wtnsBytes), FileFormatError, /a witness of another field/],
      [() => p.prove(f.zkeyBytes, fx['bits8 bn128'].wtnsBytes), FileFormatError, /wtns: 9 values, the zkey has nVars = \d+/],
      [() => p.prove(streamOf(new Uint8Array(0)), f.wtnsBytes), FileFormatError, /empty/],
      // a witness of the right field and count whose values take 40 bytes (once read 32 bytes at a time: a wrong proof)
      [() => p.prove(f.zkeyBytes, widenedWitness(f.wtnsBytes, 40)), FileFormatError, /wtns: values of 40 bytes; the zkey's scalars take 32/],
      // a zkey header whose q takes 40 bytes
      [() => p.prove(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).map(([id, b]) => [id, id === 2 ? widened(b, 40) : b])), f.wtnsBytes),
        FileFormatError, /zkey: section 2 \(Groth16 header\) has n8q = 40 and n8r = 32; bn128 takes 32 and 32/],
      [async () => new Groth16Prover({ maxMemory: -5 }), TypeError, /maxMemory must be a positive number of bytes/],
      // vk_delta_1 (the header's 6th point, after alpha1, beta1, beta2, gamma2) off the curve: named before any work
      [() => p.prove(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).map(([id, b]) => [id, id === 2 ? offCurve(b, 'vk_delta_1') : b])), f.wtnsBytes),
        FileFormatError, /zkey: section 2 \(Groth16 header\): vk_delta_1: point is not on the curve/],
      // a header coordinate not below q: the point is named
      [() => p.prove(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).map(([id, b]) => [id, id === 2 ? headerPoint(b, 'vk_delta_1', (at, out) => out.fill(0xff, at, at + 32)) : b])), f.wtnsBytes),
        FileFormatError, /zkey: section 2 \(Groth16 header\): vk_delta_1: a coordinate is not below q/],
      // a point off the curve in section 6 (B1) and in section 8 (C, the private wires') at wire 200, with the wires
      // 2 .. 130 zero, so that the MSMs take the thinned points: named by its index in the section, not among those
      [() => p.prove(withPointOffCurve(f.zkeyBytes, 6, 200), zeroWires(f.wtnsBytes, 2, 131)), FileFormatError, /^zkey: section 6 \(B1\): point 200 \(wire 200\): point is not on the curve$/],
      [() => p.prove(withPointOffCurve(f.zkeyBytes, 8, 198), zeroWires(f.wtnsBytes, 2, 131)), FileFormatError, /^zkey: section 8 \(C\): point 198 \(wire 200\): point is not on the curve$/],
      [() => p.prove(withPointOffCurve(f.zkeyBytes, 9, 37), f.wtnsBytes), FileFormatError, /^zkey: section 9 \(H\): point 37: point is not on the curve$/],
      [() => p.prove(f.zkeyBytes, f.wtnsBytes, { r: -1n }), RangeError, /r must be a bigint in \[0, r\)/],
      [() => p.prove(f.zkeyBytes, f.wtnsBytes, { nope: 1 }), TypeError, /nope/],
      [() => p.prove(f.zkeyBytes, f.wtnsBytes, 5), TypeError, /groth16Prove options must be an object/],
      [() => groth16Prove(f.zkeyBytes, f.wtnsBytes, true), TypeError, /groth16Prove options must be an object/],
      // a frozen timings would make the proof's last lap throw over the error it ends with
      [() => p.prove(f.zkeyBytes.subarray(0, 100), f.wtnsBytes, { timings: Object.freeze({}) }), TypeError, /options.timings must be an object the proof can fill/],
      // a section missing, from bytes: named when the zkey is opened, before the QAP allocates for the header's domain
      [() => p.prove(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).filter(([id]) => id !== 9)), f.wtnsBytes, { timings: noQap }), FileFormatError, /^zkey: no section 9 \(H\)$/],
      // a stream's header whose domainSize the file does not have: refused as section 9 (H) comes, before the NTTs
      [() => p.prove(streamOf(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).map(([id, b]) => [id, id === 2 ? withDomainSize(b, 2 ** 16) : b])), 4096), f.wtnsBytes, { timings: noNtt }),
        FileFormatError, /^zkey: section 9 \(H\) is \d+ bytes; the header .*domainSize 65536\) needs 4194304$/],
      // a section the proof does not read (3, IC) of a size the header does not give: refused from a stream as from bytes
      ...[(z) => z, (z) => streamOf(z, 4096)].map((form) => [
        () => p.prove(form(fileOf(f.zkeyBytes, sectionsOf(f.zkeyBytes).map(([id, b]) => [id, id === 3 ? b.subarray(0, 64) : b]))), f.wtnsBytes),
        FileFormatError, /^zkey: section 3 \(IC\) is 64 bytes; the header .* needs 128$/,
      ]),
    ];
    /** Section 2 (the Groth16 header) with the point `name` changed by edit(at, out) (LEM: 6 points, x | y each). */
    function headerPoint(header, name, edit) {
      const view = new DataView(header.buffer, header.byteOffset);
      const n8q = view.getUint32(0, true);
      const n8r = view.getUint32(4 + n8q, true);
      const points = 4 + n8q + 4 + n8r + 12; // n8q q n8r r nVars nPublic domainSize
      const sizes = { vk_alpha_1: 2, vk_beta_1: 2, vk_beta_2: 4, vk_gamma_2: 4, vk_delta_1: 2, vk_delta_2: 4 }; // coordinates
      let at = points;
      for (const [k, coords] of Object.entries(sizes)) {
        if (k === name) break;
        at += coords * n8q;
      }
      const out = header.slice();
      edit(at, out, n8q);
      return out;
    }
    /** y's lowest byte changed: still below q (Montgomery form), no longer on the curve. */
    const offCurve = (header, name) => headerPoint(header, name, (at, out, n8q) => (out[at + n8q] ^= 1));
    /** The witness with its values (and its prime) in `n8` bytes each. */
    function widenedWitness(wtns, n8) {
      const sections = sectionsOf(wtns);
      const from = new DataView(sections.find(([id]) => id === 1)[1].buffer, sections.find(([id]) => id === 1)[1].byteOffset).getUint32(0, true);
      return fileOf(wtns, sections.map(([id, b]) => {
        if (id === 1) return [id, widened(b, n8)];
        if (id !== 2) return [id, b];
        const values = new Uint8Array((b.length / from) * n8);
        for (let i = 0; i < b.length / from; i++) values.set(b.subarray(i * from, (i + 1) * from), i * n8);
        return [id, values];
      }));
    }
    for (const [call, type, message] of cases) {
      const e = await errorOf(call());
      expect(e).toBeInstanceOf(type);
      expect(e.message).toMatch(message);
    }
    expect(noQap).toEqual({}); // refused as the zkey opened: no phase ran (the QAP did, and took the header's domain)
    expect(noNtt.qap).toBeGreaterThan(0);
    expect(noNtt.ntt).toBeUndefined();
    // a call that fails before it reads its witness or r1cs lets go of them too: a stream cancelled, a Node stream's
    // file closed (the zkey's source already was)
    const cancelled = [];
    const watched = (label) => new ReadableStream({ pull() {}, cancel: () => void cancelled.push(label) });
    const file = createReadStream(f.wtns);
    const closed = new Promise((resolve) => file.on('close', resolve));
    await errorOf(p.prove(f.zkeyBytes.subarray(0, 100), watched('witness'), { r1cs: watched('r1cs') }));
    await errorOf(p.prove(f.zkeyBytes, file, { r: -1n }));
    await errorOf(groth16Prove(watched('zkey'), watched('one-shot witness'), { threads: 0 }));
    await closed;
    expect(cancelled.sort()).toEqual(['one-shot witness', 'r1cs', 'witness', 'zkey']);
    // the prover still proves after those
    const ok = await p.prove(f.zkeyBytes, f.wtnsBytes);
    expect(await snarkjs.groth16.verify(f.vkeyJson, ok.publicSignals, ok.proof)).toBe(true);
    await p.close();
    expect((await errorOf(p.prove(f.zkeyBytes, f.wtnsBytes))).message).toMatch(/closed/);
  });
});
