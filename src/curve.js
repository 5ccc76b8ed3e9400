// A curve in Wasm: load its module, move points and scalars in and out, run the MSM.
// Points in memory follow the layout in codegen/kernels/curve.js: affine x | y | infinity flag.

import { base64ToBytes, compileOnce, instantiate } from './runtime/loader.js';
import { Heap } from './runtime/heap.js';
import { Field } from './field.js';
import { msmPointers } from './msm/index.js';

const BAD_POINT_REASON = { 1: 'x coordinate is >= p', 2: 'y coordinate is >= p', 3: 'point is not on the curve' };

function bigIntToBytesLE(x, out, offset, length) {
  for (let i = 0; i < length; i++, x >>= 8n) out[offset + i] = Number(x & 0xffn);
}

function bytesToBigIntLE(bytes, offset, length) {
  let x = 0n;
  for (let i = length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[offset + i]);
  return x;
}

export class Curve {
  /**
   * @param runtime the curve's plain-data params (wasm/<curve>/params.js or a codegen output)
   * @param exports the instantiated module's exports
   */
  constructor(runtime, exports, memory) {
    this.params = runtime;
    this.name = runtime.name;
    this.p = runtime.p;
    this.r = runtime.r;
    this.a = runtime.a;
    this.b = runtime.b;
    this.generator = Object.freeze({ ...runtime.generator });
    this.exports = exports;
    this.memory = memory;
    this.heap = new Heap(memory, exports.fp_heapBase.value);
    this.fp = new Field(exports, runtime.field, this.heap, 'fp');
    this.coordinateBytes = runtime.field.bytes;
    this.pointBytes = 2 * runtime.field.bytes;
    this.scalarBytes = runtime.scalarBytes;
  }

  /** Compile (once per key) and instantiate a curve module given its base64 bytes. */
  static async load(runtime, getBase64) {
    const module = await compileOnce(runtime.name, () => base64ToBytes(getBase64()));
    const { exports, memory } = await instantiate(module, { minPages: runtime.minPages });
    return new Curve(runtime, exports, memory);
  }

  /** Encode points ({x, y} BigInts or null) in the msmBytes format, checking types and ranges. */
  encodePoints(points) {
    if (!Array.isArray(points)) throw new TypeError('points must be an array of { x, y } or null');
    const B = this.coordinateBytes;
    const out = new Uint8Array(points.length * 2 * B);
    for (let i = 0; i < points.length; i++) {
      const P = points[i];
      if (P === null) continue;
      if (typeof P !== 'object' || typeof P.x !== 'bigint' || typeof P.y !== 'bigint') {
        throw new TypeError(`points[${i}] must be { x: bigint, y: bigint } or null`);
      }
      for (const [c, v] of [['x', P.x], ['y', P.y]]) {
        if (v < 0n || v >= this.p) throw new RangeError(`points[${i}].${c} is not in [0, p)`);
      }
      if (P.x === 0n && P.y === 0n) throw new RangeError(`points[${i}] is (0, 0), which is not on the curve (use null for infinity)`);
      bigIntToBytesLE(P.x, out, 2 * B * i, B);
      bigIntToBytesLE(P.y, out, 2 * B * i + B, B);
    }
    return out;
  }

  /** Encode scalars (BigInts in [0, r)) in the msmBytes format. */
  encodeScalars(scalars) {
    if (!Array.isArray(scalars)) throw new TypeError('scalars must be an array of bigint');
    const S = this.scalarBytes;
    const out = new Uint8Array(scalars.length * S);
    for (let i = 0; i < scalars.length; i++) {
      const s = scalars[i];
      if (typeof s !== 'bigint') throw new TypeError(`scalars[${i}] must be a bigint, got ${typeof s}`);
      if (s < 0n || s >= this.r) throw new RangeError(`scalars[${i}] is not in [0, r)`);
      bigIntToBytesLE(s, out, S * i, S);
    }
    return out;
  }

  decodePoint(bytes) {
    const B = this.coordinateBytes;
    if (bytes.every((v) => v === 0)) return null;
    return { x: bytesToBigIntLE(bytes, 0, B), y: bytesToBigIntLE(bytes, B, B) };
  }

  /**
   * sum_i scalars[i] * points[i]. points: Array<{ x, y } | null>, scalars: Array<bigint> in [0, r).
   * Returns { x, y } or null (infinity). Variable time: not for secret scalars.
   */
  msm(points, scalars, options) {
    const pointBytes = this.encodePoints(points);
    const scalarBytes = this.encodeScalars(scalars);
    if (points.length !== scalars.length) {
      throw new RangeError(`points and scalars differ in length (${points.length} vs ${scalars.length})`);
    }
    return this.decodePoint(this.msmBytes(pointBytes, scalarBytes, options));
  }

  /**
   * The fast path. pointBytes: N affine points, x then y, little-endian, coordinateBytes each, all zero
   * for infinity. scalarBytes: N scalars, little-endian, scalarBytes each, each < r.
   * Returns the result point in the same encoding. Variable time.
   * options: { window: c, timings: object to fill with per-phase milliseconds, checkSubgroup: bool }
   */
  msmBytes(pointBytes, scalarBytes, options = {}) {
    if (!(pointBytes instanceof Uint8Array)) throw new TypeError('pointBytes must be a Uint8Array');
    if (!(scalarBytes instanceof Uint8Array)) throw new TypeError('scalarBytes must be a Uint8Array');
    if (pointBytes.length % this.pointBytes !== 0) {
      throw new RangeError(`pointBytes length ${pointBytes.length} is not a multiple of ${this.pointBytes} (bytes per point)`);
    }
    if (scalarBytes.length % this.scalarBytes !== 0) {
      throw new RangeError(`scalarBytes length ${scalarBytes.length} is not a multiple of ${this.scalarBytes} (bytes per scalar)`);
    }
    const n = pointBytes.length / this.pointBytes;
    if (scalarBytes.length / this.scalarBytes !== n) {
      throw new RangeError(`${n} points but ${scalarBytes.length / this.scalarBytes} scalars`);
    }
    this.#checkScalarsBelowR(scalarBytes, n);
    const mark = this.heap.mark();
    try {
      const A = this.params.affineBytes;
      // Room for 2N points: the second half holds the endomorphism images under GLV.
      const points = this.heap.alloc(2 * n * A + A);
      const staging = this.heap.alloc(pointBytes.length);
      new Uint8Array(this.memory.buffer, staging, pointBytes.length).set(pointBytes);
      const bad = this.exports.g_fromBytes(points, staging, n);
      if (bad !== -1) throw new RangeError(`points[${bad >> 2}]: ${BAD_POINT_REASON[bad & 3]}`);
      if (options.checkSubgroup) this.#checkSubgroup(points, n);
      const scalars = this.heap.alloc(scalarBytes.length + 8);
      new Uint8Array(this.memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
      const resultPtr = msmPointers(this, { points, scalars, n, options });
      const out = new Uint8Array(this.pointBytes);
      const outPtr = this.heap.alloc(this.pointBytes);
      this.exports.g_toBytes(outPtr, resultPtr);
      out.set(new Uint8Array(this.memory.buffer, outPtr, this.pointBytes));
      return out;
    } finally {
      this.heap.release(mark);
    }
  }

  #checkScalarsBelowR(scalarBytes, n) {
    const S = this.scalarBytes;
    const r = new Uint8Array(S);
    bigIntToBytesLE(this.r, r, 0, S);
    for (let i = 0; i < n; i++) {
      const base = i * S;
      let k = S - 1;
      while (k >= 0 && scalarBytes[base + k] === r[k]) k--;
      if (k < 0 || scalarBytes[base + k] > r[k]) throw new RangeError(`scalars[${i}] is not in [0, r)`);
    }
  }

  #checkSubgroup(points, n) {
    // r * P = infinity for every input point: slow (a full scalar multiplication each), hence optional.
    const A = this.params.affineBytes;
    const J = this.params.jacobianBytes;
    const mark = this.heap.mark();
    try {
      const acc = this.heap.alloc(J);
      const base = this.heap.alloc(J);
      const bits = this.r.toString(2);
      for (let i = 0; i < n; i++) {
        const pt = points + i * A;
        this.exports.g_jacFromAffine(base, pt);
        this.exports.g_jacCopy(acc, base);
        for (let k = 1; k < bits.length; k++) {
          this.exports.g_jacDouble(acc, acc);
          if (bits[k] === '1') this.exports.g_jacAdd(acc, acc, base);
        }
        if (!this.exports.fp_isZero(acc + 2 * this.params.E)) throw new RangeError(`points[${i}] is not in the subgroup of order r`);
      }
    } finally {
      this.heap.release(mark);
    }
  }
}
