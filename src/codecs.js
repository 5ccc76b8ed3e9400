// Point and scalar encodings that users bring (ZCash, arkworks, gnark, EIP-2537, snarkjs; on twisted Edwards curves
// RFC 8032, Zcash's Jubjub, circomlib and arkworks: codecs-edwards.js), converted to and from
// the native msmBytes encoding: a point is x | y, each little-endian in coordinateBytes (B) bytes, all zero for
// infinity; a scalar is little-endian in scalarBytes (S) bytes, < r.
//
// Decoding works on a batch, CHUNK points at a time, in three steps per chunk:
//   1. parse (JS): flag bits, padding and lengths checked; each coordinate written as B little-endian bytes into
//      a staging area in the curve's Wasm memory (big-endian formats byte-reversed, flag bits cleared);
//   2. convert (Wasm, over pointers): compressed formats get y from x with the field kernels
//      (fp_fromBytes, fp_toMontgomery, fp_sqr, fp_mul, fp_add, fp_sqrt, fp_fromMontgomery, fp_toBytes, fp_neg),
//      the root chosen by the sign flag; snarkjs' Montgomery coordinates are divided by 2^(8B) with one fp_mul;
//   3. check (Wasm): g_fromBytes (coordinates < p, on the curve) and, when asked, the subgroup check.
// No BigInt per point. Every error is a RangeError naming the index ("points[i]: reason"), the lowest bad index
// first; the heap is released, so the curve stays usable.
//
// The sign of a compressed y: every format here flags the root y with y > (p - 1) / 2 (canonical integers),
// which is ZCash's "lexicographically largest", gnark's LexicographicallyLargest and arkworks' YIsNegative
// (SWFlags::from_y_coordinate: y <= -y is YIsPositive).

import {
  BAD_POINT_REASON, apartFrom, bigIntToBytesLE, bytesToBigIntLE, checkByteArray, checkPointBytes, checkScalarBytes, inputError,
} from './msm/bytes.js';
import { encodeEdwards, parseEdwards, recoverX } from './codecs-edwards.js';
import { checkSubgroupRange, subgroupScratchBytes } from './msm/subgroup.js';
import { Heap } from './runtime/heap.js';

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** Points per chunk of a batch (bounds the staging memory). */
const CHUNK = 4096;

/**
 * msmBytes inputs in the formats resolved by resolveFormatOptions to the native encoding (Curve.msmBytes and the
 * pool, on the calling thread). Points are checked as far as their format needs (flags, lengths, square roots);
 * the MSM does the rest (on the curve, and the subgroup when options.checkSubgroup).
 */
export function inputsToNative(curve, formats, pointBytes, scalarBytes, timings) {
  const t0 = now();
  scalarBytes = checkedScalars(curve.params, formats, pointBytes, scalarBytes).scalarBytes;
  if (formats.point) pointBytes = decodePointBatch(curve, formats.point, pointBytes, { check: false });
  if (timings) timings.decode = (timings.decode ?? 0) + (now() - t0);
  return [pointBytes, scalarBytes];
}

/**
 * The number of points (from the length of pointBytes in its format) and the scalars in the native encoding,
 * every scalar checked below r: done before any point is decoded, so a bad scalar array is not found only
 * after a long decompression (Curve.msmBytes and the pool alike).
 */
export function checkedScalars(params, formats, pointBytes, scalarBytes, { parts = false } = {}) {
  const count = (bytes) => (formats?.point ? checkBatchLength(bytes, formats.point.size, 'pointBytes', formats.point.name) : checkPointBytes(params, bytes));
  // parts: pointBytes is an array of Uint8Arrays that count as the points they hold together (MsmPool.msmParts)
  const n = parts ? pointBytes.reduce((sum, part) => sum + count(part), 0) : count(pointBytes);
  if (formats?.scalar) scalarBytes = decodeScalarBatch(params, formats.scalar, scalarBytes);
  checkScalarBytes(params, scalarBytes, n);
  return { n, scalarBytes };
}

/** The MSM's native result in the result format (unchanged when that is native). */
export function resultFromNative(curve, formats, nativeBytes, timings) {
  if (!formats?.result) return nativeBytes;
  const t0 = now();
  const out = encodePointBatch(curve, formats.result, nativeBytes);
  if (timings) timings.encode = (timings.encode ?? 0) + (now() - t0);
  return out;
}

// --- decoding -------------------------------------------------------------------------------------------------

/** BE bytes src[o .. o+B) to LE dst[d .. d+B), the first source byte ANDed with mask. */
function copyBE(src, o, dst, d, B, mask = 0xff) {
  dst[d + B - 1] = src[o] & mask;
  for (let k = 1; k < B; k++) dst[d + B - 1 - k] = src[o + k];
}

function isZero(bytes, from, to) {
  for (let k = from; k < to; k++) if (bytes[k] !== 0) return false;
  return true;
}

const hex = (b) => `0x${b.toString(16).padStart(2, '0')}`;

// Parse results: 0 = a finite point (y, or the smaller root when compressed), 1 = the larger root, 2 = infinity.
const SMALL = 0;
const LARGE = 1;
const INFINITY = 2;

/**
 * Point i of src (at offset o) into the staging area: x at dst[d], y at dst[d + B] (not for compressed formats).
 * Returns SMALL | LARGE | INFINITY, or a string: the reason it is malformed.
 */
function parsePoint(L, src, o, dst, d) {
  const { B, compressed } = L;
  switch (L.kind) {
    case 'native':
    case 'snarkjs':
      // (the bytes are already in place: decodePointBatch copies a whole chunk of these at once)
      return isZero(src, o, o + 2 * B) ? INFINITY : SMALL;
    case 'zcash': {
      const f = src[o] & 0xe0;
      if (compressed && !(f & 0x80)) return `bad flag bits ${hex(f)}: the compression flag (0x80) is not set`;
      if (!compressed && f & 0x80) return `bad flag bits ${hex(f)}: the compression flag (0x80) is set in an uncompressed encoding`;
      if (f & 0x40) {
        if (f & 0x20) return `bad flag bits ${hex(f)}: infinity (0x40) with the sign flag (0x20)`;
        if (src[o] & 0x1f || !isZero(src, o + 1, o + L.size)) return 'infinity (flag 0x40) with nonzero bits';
        return INFINITY;
      }
      if (f & 0x20 && !compressed) return `bad flag bits ${hex(f)}: the sign flag (0x20) is set in an uncompressed encoding`;
      copyBE(src, o, dst, d, B, 0x1f);
      if (compressed) return f & 0x20 ? LARGE : SMALL;
      copyBE(src, o + B, dst, d + B, B);
      return isZero(dst, d, d + 2 * B) ? 'the point (0, 0) is not on the curve (infinity needs the flag 0x40)' : SMALL;
    }
    case 'gnark2': {
      const f = src[o] & 0xc0;
      if (compressed) {
        if (f === 0x40) return src[o] & 0x3f || !isZero(src, o + 1, o + B) ? 'infinity (flag 0x40) with nonzero bits' : INFINITY;
        if (f === 0) return 'bad flag bits 0x00: the flags say uncompressed (0b00) in a compressed encoding';
        copyBE(src, o, dst, d, B, 0x3f);
        return f === 0xc0 ? LARGE : SMALL;
      }
      if (f !== 0) return `bad flag bits ${hex(f)}: an uncompressed encoding has the flags 0b00`;
      copyBE(src, o, dst, d, B);
      copyBE(src, o + B, dst, d + B, B);
      return isZero(dst, d, d + 2 * B) ? INFINITY : SMALL;
    }
    case 'ark': {
      const { F } = L;
      const last = o + L.size - 1; // the flag byte: last byte of the last coordinate
      const f = src[last] & 0xc0;
      if (f === 0xc0) return 'bad flag bits 0xc0: YIsNegative (0x80) and PointAtInfinity (0x40) together';
      // The last coordinate: B bytes, its top byte masked when the flags share it; a byte more when they do not.
      const yo = compressed ? o : o + B;
      if (F > B && src[last] & 0x3f) return `${compressed ? 'x' : 'y'} coordinate is >= p`;
      if (!compressed) for (let k = 0; k < B; k++) dst[d + k] = src[o + k];
      const c = compressed ? d : d + B;
      for (let k = 0; k < B; k++) dst[c + k] = src[yo + k];
      if (F === B) dst[c + B - 1] &= 0x3f;
      if (f === 0x40) {
        return isZero(dst, d, compressed ? d + B : d + 2 * B) ? INFINITY : 'infinity (flag 0x40) with nonzero bits';
      }
      if (compressed) return f === 0x80 ? LARGE : SMALL;
      // Uncompressed: arkworks writes the sign of y here too but does not read it back; neither do we.
      return isZero(dst, d, d + 2 * B) ? 'the point (0, 0) is not on the curve (infinity needs the flag 0x40)' : SMALL;
    }
    case 'edwards':
      return parseEdwards(L, src, o, dst, d);
    case 'eip2537': {
      const { pad } = L;
      if (!isZero(src, o, o + pad) || !isZero(src, o + 64, o + 64 + pad)) return `nonzero padding (the first ${pad} bytes of each 64-byte coordinate must be zero)`;
      copyBE(src, o + pad, dst, d, B);
      copyBE(src, o + 64 + pad, dst, d + B, B);
      return isZero(dst, d, d + 2 * B) ? INFINITY : SMALL;
    }
  }
  throw new Error(`unhandled point format ${L.name}`);
}

/** bytes is a Uint8Array of whole encodings of `size` bytes; returns their number. */
export function checkBatchLength(bytes, size, what, format) {
  checkByteArray(bytes, what);
  if (bytes.length % size !== 0) {
    throw new RangeError(`${what} length ${bytes.length} is not a multiple of ${size} (bytes per ${what === 'scalarBytes' ? 'scalar' : 'point'} in format '${format}')`);
  }
  return bytes.length / size;
}

/** The scratch decodePointBatch takes for up to C points at a time (in this order). */
function allocDecode(heap, P, L, C, checkSubgroup) {
  return {
    staging: heap.alloc(C * 2 * L.B),
    affine: heap.alloc(C * P.affineBytes, 64),
    jac: checkSubgroup ? heap.alloc(subgroupScratchBytes(P), 64) : 0,
    fe: heap.alloc(4 * P.E),
    consts: heap.alloc(3 * P.E),
  };
}

/** Bytes of heap decodePointBatch takes for batches of n points in format L (plus alignment). */
export function decodeScratchBytes(P, L, n, checkSubgroup = false) {
  const heap = Heap.sizer();
  allocDecode(heap, P, L, Math.min(CHUNK, n), checkSubgroup);
  return heap.top + 64;
}

/**
 * Points in format L (a layout) to the native encoding, checked: flags, lengths, coordinates < p, on the curve,
 * and in the subgroup when checkSubgroup. Returns a new Uint8Array (or `bytes` itself for native input when
 * `copyNative` is false). `check: false` skips step 3 for formats whose result msmBytes checks anyway.
 */
export function decodePointBatch(curve, L, bytes, { checkSubgroup = false, check = true, what = 'pointBytes' } = {}) {
  const n = checkBatchLength(bytes, L.size, what, L.name);
  const { heap, memory, params: P, exports: ex } = curve;
  const B = L.B;
  const E = P.E;
  const out = new Uint8Array(n * 2 * B);
  bytes = apartFrom(memory, bytes);
  const ctx = { ex, memory, params: P };
  const mark = heap.mark();
  try {
    const C = Math.min(CHUNK, n);
    const { staging, affine, jac, fe, consts } = allocDecode(heap, P, L, C, checkSubgroup);
    const [X, T, U, Y] = [fe, fe + E, fe + 2 * E, fe + 3 * E];
    const [K1, K2, K3] = [consts, consts + E, consts + 2 * E];
    // Constants: a and b in Montgomery form (decompression; a, d and 1 on an Edwards curve); for snarkjs the factor
    // that leaves Montgomery form.
    if (L.kind === 'edwards') {
      curve.fp.write(K1, P.a);
      curve.fp.write(K2, P.d);
      curve.fp.write(K3, 1n);
    } else if (L.compressed) {
      curve.fp.write(K1, P.a);
      curve.fp.write(K2, P.b);
    } else if (L.kind === 'snarkjs') {
      // fp_mul(v, K1) with K1 = Rb / 2^(8B) as raw limbs is v / 2^(8B): normal form.
      curve.fp.writeLimbs(K1, L.unscale);
    }
    const codes = new Uint8Array(C);
    for (let first = 0; first < n; first += C) {
      const count = Math.min(C, n - first);
      const mem = new Uint8Array(memory.buffer);
      // 1. parse (JS) up to the first malformed point; the formats that are x | y as they are: copied in one go
      let good = count;
      let pending = null;
      if (L.kind === 'native' || L.kind === 'snarkjs') mem.set(bytes.subarray(first * L.size, (first + count) * L.size), staging);
      for (let i = 0; i < count; i++) {
        const d = staging + i * 2 * B;
        const code = parsePoint(L, bytes, (first + i) * L.size, mem, d);
        if (typeof code === 'string') {
          good = i;
          pending = inputError('points', first + i, `: ${code}`);
          break;
        }
        codes[i] = code;
        if (code === INFINITY) mem.fill(0, d, d + 2 * B);
      }
      // 2. convert (Wasm) the well-formed prefix
      if (L.kind === 'edwards') {
        for (let i = 0; i < good; i++) {
          const reason = recoverX(ex, L, mem, staging + i * 2 * B, codes[i], [X, T, U, Y], [K1, K2, K3]);
          if (reason) {
            good = i;
            pending = inputError('points', first + i, `: ${reason}`);
            break;
          }
        }
      } else if (L.compressed) {
        const hasA = P.a !== 0n;
        const half = L.half;
        for (let i = 0; i < good; i++) {
          if (codes[i] === INFINITY) continue;
          const d = staging + i * 2 * B;
          let reason = null;
          if (!ex.fp_fromBytes(X, d)) reason = 'x coordinate is >= p';
          else {
            ex.fp_toMontgomery(X, X);
            ex.fp_sqr(T, X);
            ex.fp_mul(T, T, X);
            if (hasA) {
              ex.fp_mul(U, X, K1);
              ex.fp_add(T, T, U);
            }
            ex.fp_add(T, T, K2);
            if (!ex.fp_sqrt(Y, T)) reason = 'x is not the x-coordinate of a point on the curve (x^3 + a x + b has no square root)';
          }
          if (reason) {
            good = i;
            pending = inputError('points', first + i, `: ${reason}`);
            break;
          }
          ex.fp_fromMontgomery(Y, Y);
          ex.fp_toBytes(d + B, Y);
          // y > (p - 1) / 2 ? (compare little-endian bytes from the top)
          let k = B - 1;
          while (k >= 0 && mem[d + B + k] === half[k]) k--;
          const large = k >= 0 && mem[d + B + k] > half[k];
          if (large !== (codes[i] === LARGE)) {
            if (codes[i] === LARGE && isZero(mem, d + B, d + 2 * B)) {
              good = i;
              pending = inputError('points', first + i, ': the sign flag asks for the larger root but y = 0');
              break;
            }
            ex.fp_neg(Y, Y);
            ex.fp_reduce(Y, Y);
            ex.fp_toBytes(d + B, Y);
          }
        }
      } else if (L.kind === 'snarkjs') {
        // Each base-field part (x, y; on G2 x.c0, x.c1, y.c0, y.c1) of Bp bytes.
        const { Bp } = L;
        const parts = (2 * B) / Bp;
        const partName = parts === 2 ? ['x', 'y'] : ['x.c0', 'x.c1', 'y.c0', 'y.c1'];
        for (let i = 0; i < good; i++) {
          if (codes[i] === INFINITY) continue;
          const d = staging + i * 2 * B;
          let bad = -1;
          for (let c = 0; c < parts && bad < 0; c++) {
            if (!ex.fp_fromBytes(X, d + c * Bp)) bad = c;
            else {
              ex.fp_mul(X, X, K1);
              ex.fp_reduce(X, X);
              ex.fp_toBytes(d + c * Bp, X);
            }
          }
          if (bad >= 0) {
            good = i;
            pending = inputError('points', first + i, `: ${partName[bad]} coordinate is >= p (as a Montgomery value)`);
            break;
          }
        }
      }
      // 3. check (Wasm) the converted prefix: on the curve, coordinates < p, in the subgroup. Without `check`
      // (the MSM checks its input itself) only before a malformed point, so the error names the lowest index.
      if ((check || pending) && good > 0) {
        const r = ex.g_fromBytes(affine, staging, good);
        if (r !== -1) throw inputError('points', first + (r >> 2), `: ${BAD_POINT_REASON[r & 3]}`);
        if (checkSubgroup) checkSubgroupRange(ctx, jac, affine, good, first);
      }
      if (pending) {
        // Earlier chunks were not checked (without `check`): a bad point there has the lower index.
        if (!check && first > 0) validateNative(curve, out.subarray(0, first * 2 * B), first);
        throw pending;
      }
      out.set(new Uint8Array(memory.buffer, staging, count * 2 * B), first * 2 * B);
    }
    return out;
  } finally {
    heap.release(mark);
  }
}

/** Scalars in format L (scalarLayout) to the native little-endian encoding; `bytes` itself when nothing changes. */
export function decodeScalarBatch(params, L, bytes) {
  const n = checkBatchLength(bytes, L.width, 'scalarBytes', L.name);
  const S = params.scalarBytes;
  if (!L.bigEndian && L.width === S) return bytes;
  const out = new Uint8Array(n * S);
  const W = L.width;
  for (let i = 0; i < n; i++) {
    const o = i * W;
    const d = i * S;
    if (L.bigEndian) {
      // The integer must fit S bytes unless it is reduced below.
      for (let k = 0; k < Math.min(W, S); k++) out[d + k] = bytes[o + W - 1 - k];
      if (W > S && !isZero(bytes, o, o + W - S)) {
        if (!L.reduce) throw inputError('scalars', i, ' is not in [0, r)');
        let s = 0n;
        for (let k = 0; k < W; k++) s = (s << 8n) | BigInt(bytes[o + k]);
        bigIntToBytesLE(s % params.r, out, d, S);
        continue;
      }
    } else {
      out.set(bytes.subarray(o, o + Math.min(W, S)), d);
      if (W > S && !isZero(bytes, o + S, o + W)) throw inputError('scalars', i, ' is not in [0, r)');
    }
    if (L.reduce) {
      const s = bytesToBigIntLE(out, d, S);
      if (s >= params.r) bigIntToBytesLE(s % params.r, out, d, S);
    }
  }
  return out;
}

// --- encoding -------------------------------------------------------------------------------------------------

/** LE src[o .. o+B) to BE dst[d .. d+B). */
function copyToBE(src, o, dst, d, B) {
  for (let k = 0; k < B; k++) dst[d + k] = src[o + B - 1 - k];
}

/**
 * Native points (checked: coordinates < p, on the curve) to format L. Returns a new Uint8Array of
 * n * L.size bytes.
 */
export function encodePointBatch(curve, L, nativeBytes, { what = 'nativeBytes' } = {}) {
  const B = L.B;
  const n = checkBatchLength(nativeBytes, 2 * B, what, 'native');
  // (validated and read below: one copy for both where the bytes are a view of the curve's memory)
  nativeBytes = apartFrom(curve.memory, nativeBytes);
  validateNative(curve, nativeBytes, n);
  const out = new Uint8Array(n * L.size);
  const { half } = L;
  for (let i = 0; i < n; i++) {
    const s = i * 2 * B;
    const o = i * L.size;
    const inf = isZero(nativeBytes, s, s + 2 * B);
    let large = false;
    if (!inf) {
      let k = B - 1;
      while (k >= 0 && nativeBytes[s + B + k] === half[k]) k--;
      large = k >= 0 && nativeBytes[s + B + k] > half[k];
    }
    switch (L.kind) {
      case 'native':
        out.set(nativeBytes.subarray(s, s + 2 * B), o);
        break;
      case 'zcash':
      case 'gnark2': {
        // big-endian x (| y), flags in the first byte: [infinity compressed, infinity uncompressed, larger y]
        const [infC, infU, larger] = L.kind === 'zcash' ? [0xc0, 0x40, 0xa0] : [0x40, 0, 0xc0];
        if (inf) out[o] = L.compressed ? infC : infU;
        else {
          copyToBE(nativeBytes, s, out, o, B);
          if (L.compressed) out[o] |= large ? larger : 0x80;
          else copyToBE(nativeBytes, s + B, out, o + B, B);
        }
        break;
      }
      case 'ark':
        if (!inf) out.set(nativeBytes.subarray(s, s + (L.compressed ? B : 2 * B)), o);
        out[o + L.size - 1] |= inf ? 0x40 : large ? 0x80 : 0;
        break;
      case 'edwards':
        encodeEdwards(L, nativeBytes, s, out, o);
        break;
      case 'eip2537':
        if (!inf) {
          copyToBE(nativeBytes, s, out, o + L.pad, B);
          copyToBE(nativeBytes, s + B, out, o + 64 + L.pad, B);
        }
        break;
      case 'snarkjs':
        if (!inf) {
          for (let c = 0; c < 2 * B; c += L.Bp) bigIntToBytesLE((bytesToBigIntLE(nativeBytes, s + c, L.Bp) * L.R) % curve.p, out, o + c, L.Bp);
        }
        break;
      default:
        throw new Error(`unhandled point format ${L.name}`);
    }
  }
  return out;
}

/**
 * Native points: coordinates < p and on the curve (g_fromBytes), else a RangeError naming the index. `bytes` is no
 * view of the curve's memory: decodePointBatch passes its own output, encodePointBatch its apartFrom copy.
 */
function validateNative(curve, bytes, n) {
  const { heap, memory, params: P, exports: ex } = curve;
  const size = 2 * P.field.bytes;
  const mark = heap.mark();
  try {
    const C = Math.min(CHUNK, n);
    const staging = heap.alloc(C * size);
    const affine = heap.alloc(C * P.affineBytes, 64);
    for (let first = 0; first < n; first += C) {
      const count = Math.min(C, n - first);
      new Uint8Array(memory.buffer, staging, count * size).set(bytes.subarray(first * size, (first + count) * size));
      const r = ex.g_fromBytes(affine, staging, count);
      if (r !== -1) throw inputError('points', first + (r >> 2), `: ${BAD_POINT_REASON[r & 3]}`);
    }
  } finally {
    heap.release(mark);
  }
}
