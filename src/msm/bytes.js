// The MSM at the byte level: inputs checked, copied into Wasm memory and converted there, the result
// copied out. Used by Curve.msmBytes, and by the thread pool's workers (which have no Curve object).
// An instance here is { exports, memory, heap, params }; a ctx is { ex, memory, params }.

import { msmPointers } from './index.js';

/** What g_fromBytes' return code (index << 2 | reason) means. */
export const BAD_POINT_REASON = { 1: 'x coordinate is >= p', 2: 'y coordinate is >= p', 3: 'point is not on the curve' };

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

/**
 * The options of msm / msmBytes (and of the pool's, with `signal` and `onProgress`): undefined or an object
 * whose known fields have the right types; returns an object. The window's range is checked by msmShape.
 */
export function checkMsmOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  const { timings, checkSubgroup, onProgress, signal } = options;
  if (timings !== undefined && (timings === null || typeof timings !== 'object')) {
    throw new TypeError('options.timings must be an object (it is filled with milliseconds per phase)');
  }
  if (checkSubgroup !== undefined && typeof checkSubgroup !== 'boolean') throw new TypeError('options.checkSubgroup must be a boolean');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError('options.onProgress must be a function');
  // (a testing knob of the synchronous MSM: points summed at once in the work area)
  if (options.blockPoints !== undefined && !(Number.isInteger(options.blockPoints) && options.blockPoints >= 1)) {
    throw new RangeError(`options.blockPoints must be a positive integer, got ${options.blockPoints}`);
  }
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    throw new TypeError('options.signal must be an AbortSignal');
  }
  return options;
}

/** pointBytes is a Uint8Array of whole native points; returns their number. */
export function checkPointBytes(P, pointBytes) {
  const pointSize = 2 * P.field.bytes;
  if (!(pointBytes instanceof Uint8Array)) throw new TypeError('pointBytes must be a Uint8Array');
  if (pointBytes.length % pointSize !== 0) {
    throw new RangeError(`pointBytes length ${pointBytes.length} is not a multiple of ${pointSize} (bytes per point)`);
  }
  return pointBytes.length / pointSize;
}

/** scalarBytes is a Uint8Array of n native scalars, each below r (RangeError naming the first that is not). */
export function checkScalarBytes(P, scalarBytes, n) {
  const S = P.scalarBytes;
  if (!(scalarBytes instanceof Uint8Array)) throw new TypeError('scalarBytes must be a Uint8Array');
  if (scalarBytes.length % S !== 0) {
    throw new RangeError(`scalarBytes length ${scalarBytes.length} is not a multiple of ${S} (bytes per scalar)`);
  }
  if (scalarBytes.length / S !== n) throw new RangeError(`${n} points but ${scalarBytes.length / S} scalars`);
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
 * Types and lengths of the native msmBytes inputs, and every scalar below r; returns the number of points n.
 * Throws TypeError / RangeError naming the argument (and the index for a scalar >= r).
 */
export function checkMsmInputs(P, pointBytes, scalarBytes) {
  const n = checkPointBytes(P, pointBytes);
  checkScalarBytes(P, scalarBytes, n);
  return n;
}

/**
 * count points from their byte encoding at `staging` to affine points at `dst`, checked in Wasm (coordinates
 * < p, on the curve). `first` is the index of the first one in the caller's input, for the error.
 */
export function convertPoints(ctx, dst, staging, count, first = 0) {
  const bad = ctx.ex.g_fromBytes(dst, staging, count);
  if (bad !== -1) throw inputError('points', first + (bad >> 2), `: ${BAD_POINT_REASON[bad & 3]}`);
}

function isqrt(x) {
  if (x < 2n) return x;
  let y = 1n << BigInt((x.toString(2).length + 1) >> 1);
  for (;;) {
    const next = (y + x / y) >> 1n;
    if (next >= y) return y;
    y = next;
  }
}

function gcd(a, b) {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}

const subgroupTests = new WeakMap();

/**
 * How points of this curve are shown to lie in the subgroup of order r (once per params):
 * - 'all': h = 1, so #E(F_p) = r and every point on the curve is in it;
 * - 'bls12': a BLS12 curve (r = z^4 - z^2 + 1, p = (z - 1)^2 r / 3 + z) with the GLV endomorphism
 *   phi(x, y) = (beta x, y), which acts on G1 as lambda; mu = -z^2 or z^2 - 1 (as integers), whichever is
 *   lambda mod r. Test: phi(P) = [mu] P, two multiplications by the sparse 64-bit z instead of one by r (the
 *   test of M. Scott, IACR ePrint 2021/1130). Proof: E(F_p) = G1 x H with #H = h prime to r; write P = P1 + Q.
 *   phi(P1) = [mu] P1, so the test holds iff phi(Q) = [mu] Q, and then, as P + phi(P) + phi^2(P) = O for every
 *   P (the three points on the line y = const), (mu^2 + mu + 1) Q = O. Here mu^2 + mu + 1 = r exactly, and
 *   gcd(r, h) = 1 (checked below), so Q = O. test/subgroup.test.js checks it against r * P and on points of
 *   every prime-power order dividing h;
 * - 'order': r * P = infinity, a full scalar multiplication (any other curve).
 */
export function subgroupTestOf(P) {
  let test = subgroupTests.get(P);
  if (test) return test;
  test = { kind: 'order' };
  if (P.h === 1n) test = { kind: 'all' };
  else if (P.glv) {
    // z^2 = (1 + sqrt(4r - 3)) / 2 when r = z^4 - z^2 + 1
    const d = 4n * P.r - 3n;
    const root = isqrt(d);
    if (root * root === d && (1n + root) % 2n === 0n) {
      const z2 = (1n + root) / 2n;
      const zAbs = isqrt(z2);
      for (const z of zAbs * zAbs === z2 ? [zAbs, -zAbs] : []) {
        if (((z - 1n) ** 2n * P.r) % 3n !== 0n || ((z - 1n) ** 2n * P.r) / 3n + z !== P.p) continue;
        // phi acts on G1 as lambda, one of the two cube roots of unity -z^2 and z^2 - 1 mod r.
        const minusZ2 = (P.r - (z2 % P.r)) % P.r;
        const lambdaIsMinusZ2 = P.glv.lambda === minusZ2;
        const mu = lambdaIsMinusZ2 ? -z2 : z2 - 1n;
        if ((lambdaIsMinusZ2 || P.glv.lambda === (z2 - 1n) % P.r) && gcd(mu * mu + mu + 1n, P.h) === 1n) {
          test = { kind: 'bls12', zAbs, zBits: zAbs.toString(2), lambdaIsMinusZ2 };
        }
      }
    }
  }
  subgroupTests.set(P, test);
  return test;
}

/** Bytes of scratch checkSubgroupRange needs. */
export const subgroupScratchBytes = (P) => 3 * P.jacobianBytes + P.affineBytes;

/**
 * Each of count affine points at `points` is in the subgroup of order r (subgroupTestOf: nothing to do when
 * h = 1, the BLS12 endomorphism test, or r * P = infinity), else a RangeError naming the index. `scratch` is
 * subgroupScratchBytes(P) bytes; `first` as in convertPoints.
 */
export function checkSubgroupRange(ctx, scratch, points, count, first = 0) {
  const { ex, params: P } = ctx;
  const test = subgroupTestOf(P);
  if (test.kind === 'all') return;
  const A = P.affineBytes;
  const J = P.jacobianBytes;
  const [acc, base, tmp, phi] = [scratch, scratch + J, scratch + 2 * J, scratch + 3 * J];
  const isInfinity = (jac) => ex.g_jacIsInfinity(jac);
  /** acc = [bits] base, by double-and-add from the top bit (bits has a leading 1). */
  const multiply = (bits) => {
    ex.g_jacCopy(acc, base);
    for (let k = 1; k < bits.length; k++) {
      ex.g_jacDouble(acc, acc);
      if (bits[k] === '1') ex.g_jacAdd(acc, acc, base);
    }
  };
  for (let i = 0; i < count; i++) {
    const pt = points + i * A;
    let inSubgroup;
    if (test.kind === 'bls12') {
      // acc = [z^2] P: two multiplications by |z| (the signs cancel)
      ex.g_jacFromAffine(base, pt);
      multiply(test.zBits);
      ex.g_jacCopy(base, acc);
      multiply(test.zBits);
      // lambda = -z^2: phi(P) + [z^2] P = O.  lambda = z^2 - 1: phi(P) + P - [z^2] P = O.
      ex.g_endomorphism(phi, pt, 1);
      ex.g_jacFromAffine(tmp, phi);
      if (!test.lambdaIsMinusZ2) {
        ex.g_jacNeg(acc, acc);
        ex.g_jacFromAffine(base, pt);
        ex.g_jacAdd(tmp, tmp, base);
      }
      ex.g_jacAdd(acc, acc, tmp);
      inSubgroup = isInfinity(acc);
    } else {
      ex.g_jacFromAffine(base, pt);
      multiply(P.r.toString(2));
      inSubgroup = isInfinity(acc);
    }
    if (!inSubgroup) throw inputError('points', first + i, ' is not in the subgroup of order r');
  }
}

/**
 * The MSM of already checked byte inputs (checkMsmInputs) on one instance; returns the result's encoding.
 * options: { window, timings, checkSubgroup, onProgress }
 */
export function msmBytesOn(instance, pointBytes, scalarBytes, n, options = {}) {
  const { heap, memory, params: P } = instance;
  const ctx = { ex: instance.exports, memory, params: P };
  // Inputs that are views of this instance's own memory would be overwritten (or detached, when memory grows)
  // by the allocations below: copy them first.
  if (pointBytes.buffer === memory.buffer) pointBytes = pointBytes.slice();
  if (scalarBytes.buffer === memory.buffer) scalarBytes = scalarBytes.slice();
  const mark = heap.mark();
  try {
    const A = P.affineBytes;
    // Room for 2N points: the second half holds the endomorphism images under GLV.
    const points = heap.alloc(2 * n * A + A, 64);
    const staging = heap.alloc(pointBytes.length);
    const scalars = heap.alloc(scalarBytes.length + 8);
    new Uint8Array(memory.buffer, staging, pointBytes.length).set(pointBytes);
    new Uint8Array(memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
    convertPoints(ctx, points, staging, n);
    if (options.checkSubgroup) checkSubgroupRange(ctx, heap.alloc(subgroupScratchBytes(P), 64), points, n);
    const resultPtr = msmPointers(instance, { points, scalars, n, options });
    return pointToBytes(instance, resultPtr);
  } finally {
    heap.release(mark);
  }
}

/** The encoding (x | y little-endian, all zero for infinity) of the affine point at ptr, as a new array. */
export function pointToBytes(instance, ptr) {
  const size = 2 * instance.params.field.bytes;
  const mark = instance.heap.mark();
  try {
    const outPtr = instance.heap.alloc(size);
    instance.exports.g_toBytes(outPtr, ptr);
    return new Uint8Array(instance.memory.buffer, outPtr, size).slice();
  } finally {
    instance.heap.release(mark);
  }
}

/**
 * The sum of points given in their encoding (each checked like an MSM input), encoded. For joining the
 * partial results of the message-passing thread pool.
 */
export function sumPointBytes(instance, list) {
  const { heap, memory, params: P, exports: ex } = instance;
  const size = 2 * P.field.bytes;
  if (list.length === 0) return new Uint8Array(size);
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
    ex.g_jacFromAffine(acc, points);
    for (let i = 1; i < list.length; i++) {
      ex.g_jacFromAffine(tmp, points + i * P.affineBytes);
      ex.g_jacAdd(acc, acc, tmp);
    }
    ex.g_jacToAffine(result, acc);
    return pointToBytes(instance, result);
  } finally {
    heap.release(mark);
  }
}
