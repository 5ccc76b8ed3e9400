// The snarkjs file formats groth16Prove reads (src/groth16/source.js, zkey.js, wtns.js) and the BigInt reference
// prover it is compared with (test/groth16-reference.js), on the fixture circuits bits8 and merkle1, BN254 (bn128)
// and BLS12-381:
// - the reference's proof with fixed r and s verifies with snarkjs's verifier, its public signals are snarkjs's, and a
//   witness changed in one wire gives a proof that does not verify; its coset generator is ffjavascript's Fr.w;
//   the coefficients decode to the r1cs's A and B matrices;
// - the header decodes to snarkjs's verification key (alpha, beta, gamma, delta, and IC from section 3);
// - bytes, an ArrayBuffer, ReadableStreams in chunks of 1, 7 bytes and whole, byte streams (read into one buffer
//   through their BYOB requests), an async iterable, a Blob and a path read the same; the sections come in file
//   order; a zkey with its sections out of order reads from bytes and is refused as a stream with a clear error;
// - each malformed input is one clear error: truncated at several offsets, PLONK / FFLONK zkeys, a witness of the
//   other curve's field or of the wrong length, a value not below r, an empty stream, a wrong magic, sizes that do
//   not match the header, a bad coefficient record.
// Fixtures from scripts/snarkjs-fixtures.js (cached under .cache/snarkjs/).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as snarkjs from 'snarkjs';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { openZkey, readZkey, decodePoint, coefficients } from '../src/groth16/zkey.js';
import { readWtns } from '../src/groth16/wtns.js';
import { FileFormatError, bigIntLE, bigIntToLE } from '../src/groth16/source.js';
import { referenceProve, rootsOfUnity, quotientScalars } from './groth16-reference.js';
import { byteStreamOf, errorOf, iterableOf, streamOf } from './chunked-input.js';

const CASES = [
  ['bits8', 'bn128'],
  ['merkle1', 'bn128'],
  ['bits8', 'bls12381'],
  ['merkle1', 'bls12381'],
];
const R = 0x1234567890abcdefn; // fixed blinding
const S = 0xfedcba0987654321n;

const fx = {};
let dir;

beforeAll(async () => {
  for (const [circuit, curve] of CASES) fx[`${circuit} ${curve}`] = await fixture(snarkjs, circuit, curve, 'groth16');
  fx.plonk = await fixture(snarkjs, 'bits8', 'bn128', 'plonk');
  fx.fflonk = await fixture(snarkjs, 'bits8', 'bn128', 'fflonk');
  dir = mkdtempSync(join(tmpdir(), 'wasmsm-groth16-'));
}, 600_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await terminateCurves();
});

/** Section table of a binfile in bytes (test-only, an independent few lines): [{ id, start, size }]. */
function table(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let i = 0, at = 12; i < view.getUint32(8, true); i++) {
    const size = Number(view.getBigUint64(at + 4, true));
    out.push({ id: view.getUint32(at, true), start: at + 12, size });
    at += 12 + size;
  }
  return out;
}

/** A binfile rebuilt from `bytes` with its sections in `order` of ids, `edit(id, body)` applied to each body. */
function rebuild(bytes, order, edit = (id, b) => b) {
  const secs = table(bytes);
  const head = bytes.slice(0, 12);
  new DataView(head.buffer).setUint32(8, order.length, true);
  const parts = [head];
  for (const id of order) {
    const s = secs.find((x) => x.id === id);
    const body = edit(id, bytes.slice(s.start, s.start + s.size));
    const h = new Uint8Array(12);
    new DataView(h.buffer).setUint32(0, id, true);
    new DataView(h.buffer).setBigUint64(4, BigInt(body.length), true);
    parts.push(h, body);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const g1 = (p) => (p === null ? ['0', '1', '0'] : [String(p.x), String(p.y), '1']);
const g2 = (p) => [[String(p.x.c0), String(p.x.c1)], [String(p.y.c0), String(p.y.c1)], ['1', '0']];

describe('the reference prover', () => {
  for (const [circuit, curve] of CASES) {
    it(`${circuit} on ${curve}: its proof verifies with snarkjs, with snarkjs's public signals; one changed wire does not`, { timeout: 120_000 }, async () => {
      const f = fx[`${circuit} ${curve}`];
      const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
      const zkey = await readZkey(f.zkey);
      const wtns = await readWtns(f.wtns, zkey.header);
      const { proof, publicSignals } = referenceProve(zkey, wtns, { r: R, s: S });
      expect(proof.protocol).toBe('groth16');
      expect(proof.curve).toBe(curve);
      expect(Object.keys(proof)).toEqual(['pi_a', 'pi_b', 'pi_c', 'protocol', 'curve']);
      expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
      const theirs = await snarkjs.groth16.prove(f.zkey, f.wtns);
      expect(publicSignals).toEqual(theirs.publicSignals);
      // the same r and s give the same bytes
      expect(JSON.stringify(referenceProve(zkey, wtns, { r: R, s: S }))).toBe(JSON.stringify({ proof, publicSignals }));

      // the first private wire plus one: the constraints fail, the quotient is wrong, the proof does not verify
      const bytes = wtns.bytes.slice();
      const i = zkey.header.nPublic + 1;
      bytes.set(bigIntToLE((bigIntLE(bytes, i * wtns.n8, wtns.n8) + 1n) % zkey.header.r, wtns.n8), i * wtns.n8);
      const bad = referenceProve(zkey, { ...wtns, bytes }, { r: R, s: S });
      expect(bad.publicSignals).toEqual(publicSignals);
      expect(await snarkjs.groth16.verify(vkey, bad.publicSignals, bad.proof)).toBe(false);
    });
  }

  it("takes the coset generator and roots of unity as ffjavascript's Fr (w[power + 1], shift)", async () => {
    for (const curve of ['bn128', 'bls12381']) {
      const ff = await snarkjs.curves.getCurveFromName(curve);
      const roots = rootsOfUnity(ff.r);
      expect(roots.s).toBe(ff.Fr.s);
      for (const k of [1, 4, 5, 9, ff.Fr.s]) expect(roots.w[k]).toBe(ff.Fr.toObject(ff.Fr.w[k]));
      expect(roots.shift).toBe(ff.Fr.toObject(ff.Fr.shift));
    }
    // the coset generator of a zkey is a primitive 2n-th root: g^n = -1
    const zkey = await readZkey(fx['merkle1 bn128'].zkey);
    const { coset } = quotientScalars(zkey, await readWtns(fx['merkle1 bn128'].wtns));
    const { r, domainSize } = zkey.header;
    let x = coset;
    for (let i = 1; i < domainSize; i *= 2) x = (x * x) % r;
    expect(x).toBe(r - 1n);
  });

  it('decodes the coefficients as snarkjs stores them (c R^2 mod r): the r1cs A and B matrices, and 1 for the public inputs', async () => {
    const f = fx['bits8 bn128'];
    const zkey = await readZkey(f.zkey);
    const r1cs = await snarkjs.r1cs.exportJson(f.r1cs);
    const want = [];
    r1cs.constraints.forEach(([A, B], c) => {
      for (const [matrix, lc] of [[0, A], [1, B]]) for (const [signal, v] of Object.entries(lc)) want.push([matrix, c, Number(signal), BigInt(v)]);
    });
    for (let s = 0; s <= zkey.header.nPublic; s++) want.push([0, r1cs.nConstraints + s, s, 1n]);
    const got = [...coefficients(zkey.sections[4], zkey.header)].map(({ matrix, constraint, signal, value }) => [matrix, constraint, signal, value]);
    const key = (a) => a.slice(0, 3).join(' ');
    expect(got.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(want.sort((a, b) => key(a).localeCompare(key(b))));
  });
});

describe('zkey header', () => {
  for (const [circuit, curve] of CASES) {
    it(`${circuit} on ${curve}: decodes to snarkjs's verification key (IC from section 3)`, async () => {
      const f = fx[`${circuit} ${curve}`];
      const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
      const z = await openZkey(f.zkey);
      const h = z.header;
      expect(h.curve).toBe(curve);
      expect(h.nPublic).toBe(vkey.nPublic);
      expect(g1(h.vk_alpha_1)).toEqual(vkey.vk_alpha_1);
      expect(g2(h.vk_beta_2)).toEqual(vkey.vk_beta_2);
      expect(g2(h.vk_gamma_2)).toEqual(vkey.vk_gamma_2);
      expect(g2(h.vk_delta_2)).toEqual(vkey.vk_delta_2);
      const ids = [];
      let ic;
      for await (const s of z.sections([3, 4, 5, 6, 7, 8, 9])) {
        ids.push(s.id);
        if (s.id === 3) ic = s.bytes;
      }
      await z.close();
      expect(ids).toEqual([4, 3, 9, 8, 5, 6, 7]); // file order, as newZKey writes it
      const size = 2 * h.n8q;
      const points = [];
      for (let at = 0; at < ic.length; at += size) points.push(g1(decodePoint(ic.subarray(at, at + size), h)));
      expect(points).toEqual(vkey.IC);
    });
  }
});

describe('sources', () => {
  // own: whether the witness's values are an array of the reader's (which the prover may let go of), not a view of the input
  const readAll = async (zkeyInput, wtnsInput) => {
    const zkey = await readZkey(zkeyInput);
    const { own, ...wtns } = await readWtns(wtnsInput, zkey.header);
    return { zkey, wtns, own };
  };
  for (const [circuit, curve] of CASES) {
    it(`${circuit} on ${curve}: bytes, ArrayBuffer, streams of 1, 7 and all bytes, byte streams, async iterable, Blob and path read the same`, { timeout: 120_000 }, async () => {
      const f = fx[`${circuit} ${curve}`];
      const zb = new Uint8Array(readFileSync(f.zkey));
      const wb = new Uint8Array(readFileSync(f.wtns));
      const want = await readAll(zb, wb);
      const seen = { byob: 0, enqueued: 0 };
      expect(Object.keys(want.zkey.sections)).toEqual(['4', '5', '6', '7', '8', '9']);
      expect(want.wtns.nWitness).toBe(want.zkey.header.nVars);
      // a byte input is viewed, not copied
      expect(want.zkey.sections[9].buffer).toBe(zb.buffer);
      expect(want.own).toBe(false);
      const inputs = [
        ['ArrayBuffer', () => [zb.slice().buffer, wb.slice().buffer]],
        ['stream of 1 byte', () => [streamOf(zb, 1), streamOf(wb, 1)]],
        ['stream of 7 bytes', () => [streamOf(zb, 7), streamOf(wb, 7)]],
        ['stream, one chunk', () => [streamOf(zb), streamOf(wb)]],
        ['byte streams of 7 bytes and whole', () => [byteStreamOf(zb, 7, seen), byteStreamOf(wb, Infinity, seen)]],
        ['async iterable of 4096 bytes', () => [iterableOf(zb, 4096), iterableOf(wb, 13)]],
        ['Blob', () => [new Blob([zb]), new Blob([wb])]],
        ['path', () => [f.zkey, f.wtns]],
      ];
      for (const [what, make] of inputs) {
        const got = await readAll(...make());
        expect(got, what).toEqual({ ...want, own: what !== 'ArrayBuffer' });
      }
      // the byte streams filled the reader's one buffer (a fetch() body read this way leaves no chunk per read to collect)
      expect(seen.byob).toBeGreaterThan(zb.length / 7);
      expect(seen.enqueued).toBe(0);
    });
  }

  it('reads a zkey with its sections out of order from bytes and a path; a stream needs the header first', async () => {
    const f = fx['bits8 bn128'];
    const zb = new Uint8Array(readFileSync(f.zkey));
    const want = await readZkey(zb);
    const shuffled = rebuild(zb, [10, 9, 1, 7, 3, 2, 5, 6, 8, 4]);
    expect(await readZkey(shuffled)).toEqual(want);
    const path = join(dir, 'shuffled.zkey');
    writeFileSync(path, shuffled);
    expect(await readZkey(path)).toEqual(want);
    // a stream skips sections before the header; a proving section among them is an error, one not needed is not
    const e = await errorOf(readZkey(streamOf(shuffled, 100)));
    expect(e).toBeInstanceOf(FileFormatError);
    expect(e.message).toBe('zkey stream: section 9 comes before the header (sections 1 and 2), and a stream is read once; pass the zkey as bytes or a path');
    expect(await readZkey(streamOf(rebuild(zb, [10, 3, 1, 2, 9, 8, 7, 6, 5, 4]), 100))).toEqual(want);
    // one section out of order: bytes and paths only
    const z = await openZkey(path);
    expect(await z.section(4)).toEqual(want.sections[4]);
    expect(await z.section(9)).toEqual(want.sections[9]);
    await z.close();
    const zs = await openZkey(streamOf(zb, 100));
    await expect(zs.section(4)).rejects.toThrow('zkey: a stream is read once, in order: use sections()');
    await zs.close();
  });
});

describe('errors', () => {
  const zkeyBytes = (k = 'merkle1 bn128') => new Uint8Array(readFileSync(fx[k].zkey));
  const wtnsBytes = (k = 'merkle1 bn128') => new Uint8Array(readFileSync(fx[k].wtns));
  /** The same message for bytes, a stream in odd chunks and a byte stream (its BYOB reader) in odd chunks. */
  async function rejects(bytes, message, read = readZkey) {
    for (const input of [bytes, streamOf(bytes, 7), byteStreamOf(bytes, 7)]) {
      const e = await errorOf(read(input));
      expect(e).toBeInstanceOf(FileFormatError);
      if (message instanceof RegExp) expect(e.message).toMatch(message);
      else expect(e.message).toBe(message);
    }
  }

  it('a zkey truncated in the file header, a section header, section 2, section 7 and section 10', async () => {
    const zb = zkeyBytes();
    const t = table(zb); // 1 2 4 3 9 8 5 6 7 10
    const at = (id) => t.find((s) => s.id === id);
    await rejects(zb.slice(0, 3), 'zkey truncated: the file header needs 12 bytes, got 3');
    await rejects(zb.slice(0, 10), 'zkey truncated: the file header needs 12 bytes, got 10');
    await rejects(zb.slice(0, 12 + 5), 'zkey truncated: section header 1 of 10 needs 12 bytes, got 5');
    await rejects(zb.slice(0, at(2).start + 100), 'zkey truncated: section 2 needs 660 bytes, got 100');
    await rejects(zb.slice(0, at(7).start + 1000), `zkey truncated: section 7 needs ${at(7).size} bytes, got 1000`);
    await rejects(zb.slice(0, zb.length - 1), `zkey truncated: section 10 needs ${at(10).size} bytes, got ${at(10).size - 1}`);
    await rejects(zb.slice(0, at(10).start - 12), 'zkey truncated: section header 10 of 10 needs 12 bytes, got 0');
    // a declared size no file can have
    const huge = zb.slice();
    new DataView(huge.buffer).setBigUint64(at(10).start - 8, 1n << 60n, true);
    await rejects(huge, `zkey truncated: section 10 needs ${1n << 60n} bytes, got ${at(10).size}`);
  });

  it('a PLONK and an FFLONK zkey', async () => {
    await rejects(new Uint8Array(readFileSync(fx.plonk.zkey)), 'not a Groth16 zkey (protocol plonk)');
    await rejects(new Uint8Array(readFileSync(fx.fflonk.zkey)), 'not a Groth16 zkey (protocol fflonk)');
  });

  it('an empty input, a wrong magic, an unsupported version', async () => {
    await rejects(new Uint8Array(0), 'zkey: the input is empty (0 bytes)');
    for (const empty of [streamOf(new Uint8Array(0)), byteStreamOf(new Uint8Array(0))]) {
      const e = await errorOf(readZkey(empty));
      expect(e.message).toBe('zkey: the input is empty (0 bytes)');
    }
    await rejects(wtnsBytes(), 'not a zkey file: it starts with "wtns", not "zkey"');
    await rejects(zkeyBytes(), 'not a wtns file: it starts with "zkey", not "wtns"', readWtns);
    const v = zkeyBytes();
    v[4] = 3;
    await rejects(v, 'zkey version 3 is not supported (1 to 2)');
    await expect(readZkey(42)).rejects.toThrow(TypeError);
  });

  it('a witness of the other field, of another length, with a value not below r, truncated', async () => {
    const bn = await openZkey(fx['merkle1 bn128'].zkey);
    await bn.close();
    const bls = await openZkey(fx['merkle1 bls12381'].zkey);
    await bls.close();
    await rejects(wtnsBytes('merkle1 bls12381'), `wtns: a witness of another field (its prime ${bls.header.r} is not the zkey's scalar field ${bn.header.r})`, (x) => readWtns(x, bn.header));
    await rejects(wtnsBytes('bits8 bn128'), 'wtns: 9 values, the zkey has nVars = 246', (x) => readWtns(x, bn.header));
    const big = wtnsBytes();
    const t = table(big);
    big.set(bigIntToLE(bn.header.r, 32), t[1].start + 3 * 32);
    await rejects(big, 'wtns: value 3 is not below the field prime', readWtns);
    const wb = wtnsBytes();
    await rejects(wb.slice(0, wb.length - 40), `wtns truncated: section 2 needs ${t[1].size} bytes, got ${t[1].size - 40}`, readWtns);
  });

  it('sections whose sizes do not match the header, and bad coefficient records', async () => {
    const zb = zkeyBytes();
    const order = table(zb).map((s) => s.id);
    const header = (edit) => rebuild(zb, order, (id, b) => (id === 2 ? edit(b) : b));
    const setU32 = (b, at, v) => (new DataView(b.buffer, b.byteOffset).setUint32(at, v, true), b);
    const N = 4 + 32 + 4 + 32; // offset of nVars in section 2 (bn128: n8q = n8r = 32)
    await rejects(header((b) => setU32(b, N, 247)), 'zkey: section 8 (C) is 15616 bytes; the header (nVars 247, nPublic 1, domainSize 256) needs 15680');
    await rejects(header((b) => setU32(b, N + 4, 246)), 'zkey: section 2 (Groth16 header) has nPublic 246 and nVars 246: nPublic must be below nVars');
    await rejects(header((b) => setU32(b, N + 8, 255)), 'zkey: section 2 (Groth16 header) has domainSize 255, not a power of two');
    // bytes: every section's size is known with the header, so a domainSize section 9 does not have is refused there,
    // before a prover allocates and computes for it (2^28 elements asked more Wasm memory than there is)
    for (const domainSize of [2 ** 20, 2 ** 28]) {
      await expect(openZkey(header((b) => setU32(b, N + 8, domainSize))), `domainSize ${domainSize}: the header alone`).rejects.toThrow(`zkey: section 9 (H) is 16384 bytes; the header (nVars 246, nPublic 1, domainSize ${domainSize}) needs ${domainSize * 64}`);
    }
    await rejects(header((b) => b.slice(0, 600)), 'zkey: section 2 (Groth16 header) is 600 bytes; with n8q 32 it must be 660');
    await rejects(header((b) => (b[4] ^= 1, b)), /^zkey: unknown curve \(q = \d+\); snarkjs zkeys on bn128 and bls12381 are supported$/);
    const coef = (edit) => rebuild(zb, order, (id, b) => (id === 4 ? edit(b) : b));
    const rec = 12 + 32;
    await rejects(coef((b) => setU32(b, 4 + 5 * rec, 2)), 'zkey: coefficient 5 of section 4 has matrix 2 (0 or 1)');
    await rejects(coef((b) => setU32(b, 4 + 6 * rec + 4, 256)), 'zkey: coefficient 6 of section 4 has constraint 256 (domainSize 256)');
    await rejects(coef((b) => setU32(b, 4 + 7 * rec + 8, 246)), 'zkey: coefficient 7 of section 4 has signal 246 (nVars 246)');
    await rejects(coef((b) => (b.set(bigIntToLE((1n << 256n) - 1n, 32), 4 + 8 * rec + 12), b)), 'zkey: coefficient 8 of section 4 has a value not below r');
    await rejects(coef((b) => b.slice(0, b.length - 1)), 'zkey: section 4 (coefficients) is 42463 bytes; its count 965 needs 42464');
    await rejects(rebuild(zb, order.filter((id) => id !== 7)), 'zkey: no section 7 (B2)');
    await rejects(rebuild(zb, [...order, 5]), 'zkey: section 5 appears twice');
  });
});

describe('the witness pairs (src/groth16/pairs.js)', () => {
  it('keptPairs(scalars).suffix(first) is keptPairs(the scalars from first on): counts, scalars and points, thinned or not', async () => {
    const { keptPairs } = await import('../src/groth16/pairs.js');
    const n8 = 32;
    const n = 203;
    const PB = 64;
    const points = new Uint8Array(n * PB).map((_, i) => (i * 7 + 3) & 0xff);
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    // mostly zeros (thinned), few zeros (kept whole), and zeros only near the start (the suffix decides otherwise)
    for (const zeroAt of [(i) => next() % 3 !== 0, (i) => next() % 10 === 0, (i) => i < 60]) {
      const scalars = new Uint8Array(n * n8);
      for (let i = 0; i < n; i++) if (!zeroAt(i)) scalars.fill(1 + (i % 200), i * n8, i * n8 + 1 + (i % n8));
      const all = keptPairs(scalars, n8);
      for (const first of [0, 1, 4, 60, 61, 150, n - 1, n]) {
        const got = all.suffix(first);
        const want = keptPairs(scalars.subarray(first * n8), n8);
        expect(got.count, `first ${first}`).toBe(want.count);
        expect(Buffer.from(got.scalars).equals(Buffer.from(want.scalars)), `first ${first}`).toBe(true);
        // a thinned suffix of a thinned whole is a view of the whole's copy, not a copy of its own
        if (all.scalars.buffer !== scalars.buffer) expect([scalars.buffer, all.scalars.buffer]).toContain(got.scalars.buffer);
        const section = points.subarray(first * PB);
        expect(Buffer.from(got.points(section, PB)).equals(Buffer.from(want.points(section, PB))), `first ${first}`).toBe(true);
        // the kept count is the nonzero count, or all of them when fewer than a quarter are zero
        const nonzero = Array.from({ length: n - first }, (_, i) => scalars.subarray((first + i) * n8, (first + i + 1) * n8).some((b) => b)).filter(Boolean).length;
        expect(got.count).toBe(4 * (n - first - nonzero) < n - first ? n - first : nonzero);
      }
    }
  });
});
