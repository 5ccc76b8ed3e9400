// The MSM's inputs and result at the byte level: checks of the byte inputs and options, points converted in
// Wasm, the result copied out. Used by Curve, the chunked MSM and the thread pool's workers (which have no Curve).
// An instance here is { exports, memory, heap, params }; a ctx is { ex, memory, params }.

import { checkWindow } from './window.js';

/** What g_fromBytes' return code (index << 2 | reason) means. */
export const BAD_POINT_REASON = { 1: 'x coordinate is >= p', 2: 'y coordinate is >= p', 3: 'point is not on the curve' };

/** The curve model of runtime params: 'short-weierstrass' (the default), 'twisted-edwards' or 'montgomery'. */
export const modelOf = (P) => P.model ?? 'short-weierstrass';

/**
 * The native encoding of the neutral element: all zero (the point at infinity of a short-Weierstrass or
 * Montgomery-form curve), or (0, 1) on a twisted Edwards curve, where the neutral element is an affine point.
 */
export function neutralBytes(P) {
  const B = P.field.bytes;
  const out = new Uint8Array(2 * B);
  if (modelOf(P) === 'twisted-edwards') out[B] = 1;
  return out;
}

/** Whether native point i of `bytes` encodes the point at infinity (all zero; never on a twisted Edwards curve). */
export function isInfinityBytes(P, bytes, offset = 0) {
  if (modelOf(P) === 'twisted-edwards') return false;
  for (let k = offset, end = offset + 2 * P.field.bytes; k < end; k++) if (bytes[k] !== 0) return false;
  return true;
}

/** a^-1 mod m (extended Euclid); a RangeError when a has no inverse mod m. */
export function modInverse(a, m) {
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new RangeError(`${a} has no inverse mod ${m}`);
  return ((s0 % m) + m) % m;
}

/**
 * The inverses of nonzero field elements with one inversion (Montgomery's trick): prefix products, then back. The field
 * is given by its product and inverse (BigInt mod m, or F_p2 as pairs), so any representation serves.
 */
export function batchInverse(values, mul, inv) {
  if (values.length === 0) return [];
  const prefix = [values[0]];
  for (let i = 1; i < values.length; i++) prefix.push(mul(prefix[i - 1], values[i]));
  let acc = inv(prefix.at(-1));
  const out = new Array(values.length);
  for (let i = values.length - 1; i > 0; i--) {
    out[i] = mul(acc, prefix[i - 1]);
    acc = mul(acc, values[i]);
  }
  out[0] = acc;
  return out;
}

/**
 * A copy of bytes[start, end) in a Uint8Array of its own. Not bytes.slice(): a Node Buffer's slice is a view of the
 * caller's memory, and a view transferred to a thread would take (detach) the caller's whole buffer.
 */
export const copyBytes = (bytes, start, end) => Uint8Array.prototype.slice.call(bytes, start, end);

/**
 * `bytes`, or a copy of it when it is a view of `memory`: the work there would overwrite it, and memory.grow()
 * would detach it.
 */
export const apartFrom = (memory, bytes) => (bytes instanceof Uint8Array && bytes.buffer === memory.buffer ? copyBytes(bytes, 0, bytes.length) : bytes);

/** x as `length` little-endian bytes at out[offset...]. */
export function bigIntToBytesLE(x, out, offset, length) {
  for (let i = 0; i < length; i++, x >>= 8n) out[offset + i] = Number(x & 0xffn);
}

/** The little-endian integer in bytes[offset .. offset + length). */
export function bytesToBigIntLE(bytes, offset, length) {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
}

/**
 * A RangeError about input `index` of an argument ("points[3]: reason" or "scalars[3] reason": `reason` starts
 * with its separator); `index` is kept so a caller that split the input can re-base it.
 */
export function inputError(argument, index, reason) {
  const e = new RangeError(`${argument}[${index}]${reason}`);
  e.argument = argument;
  e.index = index;
  e.reason = reason;
  return e;
}

/** options (undefined or an object) has no names but `known`: else a TypeError naming the stranger, so no misspelt option is ignored. */
export function checkOptionNames(options, known, what = 'options') {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${what} must be an object`);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`unknown option ${JSON.stringify(key)} in ${what} (known: ${known.join(', ')})`);
  }
}

/** Option names of msm and msmBytes; `signal` only on the asynchronous calls (a pool's, streams). */
const MSM_OPTIONS = ['window', 'timings', 'checkSubgroup', 'onProgress', 'maxMemory', 'pointFormat', 'scalarFormat', 'resultFormat', 'blockPoints'];

/**
 * The options of msm / msmBytes (and of the asynchronous calls, with `signal`): undefined or an object whose
 * fields are known and have the right types (an unknown name is a TypeError, so a misspelt option is not ignored);
 * returns an object. The window's range is checked by msmShape, maxMemory's sufficiency by planMsm.
 */
export function checkMsmOptions(options, { async = false } = {}) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  if (!async && 'signal' in options) throw new TypeError('options.signal is for asynchronous calls (a thread pool, msmStream); a synchronous msmBytes cannot be aborted');
  checkOptionNames(options, [...MSM_OPTIONS, ...(async ? ['signal'] : [])]);
  const { timings, checkSubgroup, onProgress, signal, maxMemory, window } = options;
  // here, not only in msmShape: the plan's search over windows never reaches msmShape for a NaN
  if (window != null) checkWindow(window);
  if (timings !== undefined && (timings === null || typeof timings !== 'object')) {
    throw new TypeError('options.timings must be an object (it is filled with milliseconds per phase)');
  }
  if (checkSubgroup !== undefined && typeof checkSubgroup !== 'boolean') throw new TypeError('options.checkSubgroup must be a boolean');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError('options.onProgress must be a function');
  if (maxMemory !== undefined && !(typeof maxMemory === 'number' && maxMemory > 0 && Number.isFinite(maxMemory))) {
    throw new TypeError(`options.maxMemory must be a positive number of bytes, got ${typeof maxMemory === 'number' ? maxMemory : typeof maxMemory}`);
  }
  // (a testing knob of the MSM: points summed at once in the work area)
  if (options.blockPoints !== undefined && !(Number.isInteger(options.blockPoints) && options.blockPoints >= 1)) {
    throw new RangeError(`options.blockPoints must be a positive integer, got ${options.blockPoints}`);
  }
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    throw new TypeError('options.signal must be an AbortSignal');
  }
  // window null is no window, as undefined: the plans test `window === undefined`
  return window === null ? { ...options, window: undefined } : options;
}

/**
 * The bit length of the largest of the n scalars in `bytes` (S bytes each, little-endian): 0 when all are zero.
 * Words (bytes where S or the view's offset is not a multiple of 4) above the largest top word found so far are the
 * only ones read, so full-size scalars cost one word each and a witness's bits S / 4 words each.
 * maxBits: no scalar is longer (r's bits, for scalars checked below r: before the result is used, at least), so the
 * scan stops at the first scalar that long, where random scalars would otherwise have every scalar's top word read.
 */
export function scalarBitLength(bytes, S, n = Math.floor(bytes.length / S), maxBits = 8 * S) {
  const B = S % 4 === 0 && bytes.byteOffset % 4 === 0 ? 4 : 1; // bytes per unit read
  const units = B === 4 ? new Uint32Array(bytes.buffer, bytes.byteOffset, (n * S) / 4) : bytes;
  const U = S / B; // units per scalar
  let top = -1; // the highest unit index nonzero in any scalar so far
  for (let i = 0, o = 0; i < n && top < U - 1; i++, o += U) {
    for (let k = U - 1; k > top; k--) {
      if (units[o + k] !== 0) {
        top = k;
        break;
      }
    }
  }
  if (top < 0) return 0;
  let high = 0; // the bits of unit `top` in any scalar
  const most = Math.min(8 * B, maxBits - 8 * B * top); // of unit top's bits, the most a scalar may have
  for (let i = 0, o = top; i < n && 32 - Math.clz32(high) < most; i++, o += U) high |= units[o];
  return 8 * B * top + (32 - Math.clz32(high));
}

/**
 * A view of a detached ArrayBuffer (transferred to a thread, or of a Wasm memory that grew) reads as empty: refused,
 * never summed as no input. Only empty views are probed (Node 20 has no ArrayBuffer.prototype.detached).
 */
export function checkAttached(bytes, what) {
  if (bytes.byteLength !== 0) return;
  const { buffer } = bytes;
  let detached = buffer.detached;
  if (typeof detached !== 'boolean') {
    try {
      new Uint8Array(buffer, 0, 0);
      detached = false;
    } catch {
      detached = true;
    }
  }
  if (detached) throw new TypeError(`${what} is a view of a detached ArrayBuffer (transferred, or of a memory that grew): pass bytes that are still there`);
}

/** `bytes` (named `what` in errors) is a Uint8Array over a buffer still there. */
export function checkByteArray(bytes, what) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  checkAttached(bytes, what);
}

/** pointBytes is a Uint8Array of whole native points; returns their number. */
export function checkPointBytes(P, pointBytes) {
  const pointSize = 2 * P.field.bytes;
  checkByteArray(pointBytes, 'pointBytes');
  if (pointBytes.length % pointSize !== 0) {
    throw new RangeError(`pointBytes length ${pointBytes.length} is not a multiple of ${pointSize} (bytes per point)`);
  }
  return pointBytes.length / pointSize;
}

/** scalarBytes is a Uint8Array of n native scalars, each below r (RangeError naming the first that is not). */
export function checkScalarBytes(P, scalarBytes, n, { range = true } = {}) {
  const S = P.scalarBytes;
  checkByteArray(scalarBytes, 'scalarBytes');
  if (scalarBytes.length % S !== 0) {
    throw new RangeError(`scalarBytes length ${scalarBytes.length} is not a multiple of ${S} (bytes per scalar)`);
  }
  if (scalarBytes.length / S !== n) throw new RangeError(`${n} points but ${scalarBytes.length / S} scalars`);
  if (range) checkScalarRange(P, scalarBytes, n);
}

/** Every scalar below r (RangeError naming the first that is not); the GPU MSM runs this while its passes run. */
export function checkScalarRange(P, scalarBytes, n) {
  const S = P.scalarBytes;
  const r = new Uint8Array(S);
  bigIntToBytesLE(P.r, r, 0, S);
  for (let i = 0; i < n; i++) {
    const base = i * S;
    let k = S - 1;
    while (k >= 0 && scalarBytes[base + k] === r[k]) k--;
    if (k < 0 || scalarBytes[base + k] > r[k]) throw inputError('scalars', i, ' is not in [0, r)');
  }
}

/**
 * Types and lengths of the native msmBytes inputs, and every scalar below r (unless range is false: the caller
 * checks them later with checkScalarRange); returns the number of points n.
 * Throws TypeError / RangeError naming the argument (and the index for a scalar >= r).
 */
export function checkMsmInputs(P, pointBytes, scalarBytes, { range = true } = {}) {
  const n = checkPointBytes(P, pointBytes);
  checkScalarBytes(P, scalarBytes, n, { range });
  return n;
}

/**
 * count points from their byte encoding at `staging` to affine points at `dst`, checked in Wasm (coordinates
 * < p, on the curve). `first` is the index of the first one in the caller's input, for the error. scale: 0 for
 * the native encoding, else the address of g_fromScaledBytes' K (snarkjs points as they are: SharedChunks).
 */
export function convertPoints(ctx, dst, staging, count, first = 0, scale = 0) {
  const bad = scale ? ctx.ex.g_fromScaledBytes(dst, staging, count, scale) : ctx.ex.g_fromBytes(dst, staging, count);
  if (bad !== -1) throw inputError('points', first + (bad >> 2), `: ${BAD_POINT_REASON[bad & 3]}${scale && (bad & 3) < 3 ? ' (as a Montgomery value)' : ''}`);
}

/**
 * The native encoding (x | y little-endian; the neutral element as neutralBytes) of the affine point at ptr, as a
 * new array. A point that has no affine form in the curve's model (a small-order point at infinity of an Edwards
 * curve, or (0, 0) of a Montgomery-form curve: only sums of points outside the subgroup of order r get there) is a
 * RangeError.
 */
export function pointToBytes(instance, ptr) {
  const size = 2 * instance.params.field.bytes;
  const mark = instance.heap.mark();
  try {
    const outPtr = instance.heap.alloc(size);
    if (instance.exports.g_toBytes(outPtr, ptr) === 0) {
      throw new RangeError(modelOf(instance.params) === 'montgomery'
        ? 'the result is (0, 0), the point of order 2, which the native encoding cannot write (all zero is infinity): some input point is outside the subgroup of order r (checkSubgroup finds it)'
        : 'the result is a point at infinity of the Edwards curve (of order 2 or 4), which has no affine coordinates: some input point is outside the subgroup of order r (checkSubgroup finds it)');
    }
    return new Uint8Array(instance.memory.buffer, outPtr, size).slice();
  } finally {
    instance.heap.release(mark);
  }
}

/**
 * A thread's result on the pool's message path: the Jacobian point at ptr as raw words (P.jacobianBytes of this
 * build's layout), for sumPartials in an instance of the same module. Unlike the native encoding it holds every
 * point: a thread's share of a sum may be a point without an affine form (see pointToBytes) where the sum is not.
 */
export const partialBytes = (instance, ptr) => new Uint8Array(instance.memory.buffer, ptr, instance.params.jacobianBytes).slice();

/** The native encoding of the sum of partialBytes' results (the neutral element for none). */
export function sumPartials(instance, list) {
  const { heap, memory, params: P, exports: ex } = instance;
  if (list.length === 0) return neutralBytes(P);
  const J = P.jacobianBytes;
  const mark = heap.mark();
  try {
    const acc = heap.alloc(J * list.length, 64);
    list.forEach((bytes, i) => new Uint8Array(memory.buffer, acc + i * J, J).set(bytes));
    for (let i = 1; i < list.length; i++) ex.g_jacAdd(acc, acc, acc + i * J);
    const result = heap.alloc(P.affineBytes);
    ex.g_jacToAffine(result, acc);
    return pointToBytes(instance, result);
  } finally {
    heap.release(mark);
  }
}

/**
 * sum_i 2^(shift i) list[i], of points given in their encoding (each checked like an MSM input), encoded: with shift 0
 * the plain sum, with shift c the windows' combination of the GPU MSM (Horner from the top: a doubling's chain of
 * dependent products is far faster here than on one GPU thread).
 */
export function sumPointBytes(instance, list, { shift = 0 } = {}) {
  const { heap, memory, params: P, exports: ex } = instance;
  const size = 2 * P.field.bytes;
  if (list.length === 0) return neutralBytes(P);
  const mark = heap.mark();
  try {
    const staging = heap.alloc(size * list.length);
    const points = heap.alloc(P.affineBytes * list.length, 64);
    const acc = heap.alloc(P.jacobianBytes);
    const tmp = heap.alloc(P.jacobianBytes);
    const result = heap.alloc(P.affineBytes);
    const view = new Uint8Array(memory.buffer, staging, size * list.length);
    list.forEach((bytes, i) => view.set(bytes, i * size));
    convertPoints({ ex, memory, params: P }, points, staging, list.length);
    const top = list.length - 1;
    ex.g_jacFromAffine(acc, points + top * P.affineBytes);
    for (let i = top - 1; i >= 0; i--) {
      for (let d = 0; d < shift; d++) ex.g_jacDouble(acc, acc);
      ex.g_jacFromAffine(tmp, points + i * P.affineBytes);
      ex.g_jacAdd(acc, acc, tmp);
    }
    ex.g_jacToAffine(result, acc);
    return pointToBytes(instance, result);
  } finally {
    heap.release(mark);
  }
}
