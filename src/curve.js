// A curve in Wasm: load its module, move points and scalars in and out, run the MSM.
// Points in memory follow the layout in codegen/kernels/curve.js: affine x | y | infinity flag.

import { PAGE, base64ToBytes, groupExports, instantiate, instantiateSync } from './runtime/loader.js';
import { frKernelFor, frRuntimeForKernel, resolveKernel, runtimeForKernel } from './runtime/kernels.js';
import { Heap } from './runtime/heap.js';
import { Field } from './field.js';
import { PreparedBases } from './bases.js';
import { RELEASE_AFTER_MS, RESIDENT_BYTES } from './instance.js';
import { MsmAccumulator, msmStreamOn } from './stream.js';
import {
  apartFrom, bigIntToBytesLE, bytesToBigIntLE, checkMsmInputs, checkMsmOptions, checkOptionNames, convertPoints, isInfinityBytes, modelOf, neutralBytes,
} from './msm/bytes.js';
import { msmBytesOn } from './msm/chunked.js';
import { decodePointBatch, encodePointBatch, inputsToNative, resultFromNative } from './codecs.js';
import { noFormatOptions, pointFormatsOf, pointLayout, resolveFormatOptions, scalarFormatsOf } from './formats.js';
import { coordinateCodec, fromPointObject, toPointObject } from './point-objects.js';

/** A small seeded generator (xorshift128+ on 32-bit halves); not for secrets. */
function seededRandom(seed) {
  let a = (seed | 0) ^ 0x9e3779b9;
  let b = Math.imul(seed | 0, 0x85ebca6b) ^ 0xc2b2ae35;
  let c = 0x27d4eb2f;
  let d = 0x165667b1;
  return () => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d;
  };
}

/** Uniform in [0, bound) by rejection on `bits` random bits. */
function randomBelow(rng, bound, bits) {
  for (;;) {
    let x = 0n;
    for (let i = 0; i < bits; i += 32) x = (x << 32n) | BigInt(rng());
    x &= (1n << BigInt(bits)) - 1n;
    if (x < bound) return x;
  }
}

/** Each loaded curve's importer of its WGSL module (curveLoader's importWgsl). */
const gpuKernels = new WeakMap();
/** Each loaded curve's importer of its scalar-field module (curveLoader's importFrWasm). */
const frModules = new WeakMap();

export class Curve {
  /**
   * @param runtime the curve's plain-data params (wasm/<curve>/params.js or a codegen output); runtime.g2 for G2
   * @param exports the instantiated module's exports (for G2, as groupExports maps them)
   * @param shared { heap, fp } of the G1 curve when this is its G2 (one memory, one heap)
   */
  constructor(runtime, exports, memory, module = null, moduleBytes = null, shared = null) {
    this.params = runtime;
    this.name = runtime.name;
    /** 'G1', or 'G2' for curve.g2 */
    this.group = runtime.group ?? 'G1';
    /** 'int', 'fma' or 'wide': which build of the module runs (loadCurve's `kernel` option) */
    this.kernel = runtime.kernel ?? 'int';
    this.p = runtime.p;
    this.r = runtime.r;
    /** 'short-weierstrass', 'twisted-edwards' (a x^2 + y^2 = 1 + d x^2 y^2) or 'montgomery' (B v^2 = u^3 + A u^2 + u) */
    this.model = modelOf(runtime);
    // the model's coefficients, by the names of its params file: a, b; a, d; or A, B
    for (const k of ['a', 'b', 'd', 'A', 'B']) if (runtime[k] !== undefined) this[k] = runtime[k];
    this.generator = Object.freeze({ ...runtime.generator });
    this.module = module; // the compiled WebAssembly.Module, sent to thread pools
    this.moduleBytes = moduleBytes; // its bytes, from which a pool derives the shared-memory variant
    this.#owner = shared?.owner ?? this;
    const heap = shared?.heap ?? Heap.ofModule(memory, exports.fp_heapBase.value);
    this.#bind(exports, memory, heap, shared?.fp ?? new Field(exports, runtime.field.base ?? runtime.field, heap, 'fp'));
    this.#coordinate = coordinateCodec(runtime);
    this.coordinateBytes = runtime.field.bytes;
    this.pointBytes = 2 * runtime.field.bytes;
    this.scalarBytes = runtime.scalarBytes;
    /** Point formats this curve takes (src/formats.js), each with its bytes per point. */
    this.pointFormats = pointFormatsOf(runtime);
    /** Scalar formats this curve takes, each with its bytes per scalar. */
    this.scalarFormats = scalarFormatsOf(runtime);
  }

  #coordinate;
  #g2 = null;
  #owner; // the G1 curve, which owns the instance G1 and G2 share
  #releaseTimer = null;
  #calls = 0; // MSMs running on the instance (an onProgress callback runs inside one): trim() waits for none

  /** Point this curve at an instance: its exports (the G2 view for G2), memory, heap and base field. */
  #bind(exports, memory, heap, fp) {
    this.exports = exports;
    this.memory = memory;
    this.heap = heap;
    this.fp = fp;
  }

  /**
   * Give back the Wasm memory this curve (and its g2) grew to: both move to a fresh instance of the module at its
   * base size, and the old memory becomes garbage (the engine frees it at its next collection). Runs by itself
   * RELEASE_AFTER_MS after a call that left more than RESIDENT_BYTES. Prepared bases and pools have their own.
   */
  trim() {
    const owner = this.#owner;
    if (owner !== this) return owner.trim();
    // (an onProgress callback runs inside a call: a new instance under it would give that call a wrong sum)
    if (this.#calls > 0) throw new Error(`${this.name}: trim() during an MSM on this curve (from its onProgress): call it after the MSM returns`);
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = null;
    // nothing to give back: the memory has not grown past the pages its heap starts in
    if (!this.module || this.memory.buffer.byteLength <= Math.ceil(this.heap.base / PAGE) * PAGE) return;
    const made = instantiateSync(this.module, { minPages: this.params.minPages, group: this.group });
    const heap = Heap.ofModule(made.memory, made.exports.fp_heapBase.value);
    const fp = new Field(made.exports, this.params.field.base ?? this.params.field, heap, 'fp');
    this.#bind(made.exports, made.memory, heap, fp);
    this.#g2?.#bind(groupExports(made.exports, 'G2'), made.memory, heap, fp);
  }

  /** After a call: a memory left above RESIDENT_BYTES is given back once the curve has been idle a while. */
  #releaseLater() {
    const owner = this.#owner;
    if (owner !== this) return owner.#releaseLater();
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = null;
    if (this.memory.buffer.byteLength <= RESIDENT_BYTES) return;
    this.#releaseTimer = setTimeout(() => this.trim(), RELEASE_AFTER_MS);
    this.#releaseTimer.unref?.(); // Node: a pending release never keeps the process alive
  }

  /**
   * The curve's G2 (on the sextic twist over F_p2), when its module has one (BLS12-381, BN254, or a generated
   * curve that declares g2): the same methods as the curve (msm, msmBytes, prepareBases, threads,
   * randomPoints, ...) with points { x: { c0, c1 }, y: { c0, c1 } }. Shares this curve's memory and module.
   */
  get g2() {
    if (this.group !== 'G1' || !this.params.g2) return undefined;
    this.#g2 ??= new Curve(this.params.g2, groupExports(this.exports, 'G2'), this.memory, this.module, this.moduleBytes, { heap: this.heap, fp: this.fp, owner: this });
    return this.#g2;
  }

  /**
   * Compile and instantiate a curve module given its base64 bytes. Use curveLoader (or loadCurve), which
   * does this once per curve and shares the result.
   */
  static async load(runtime, getBase64) {
    const bytes = base64ToBytes(getBase64());
    const module = await WebAssembly.compile(bytes);
    const { exports, memory } = await instantiate(module, { minPages: runtime.minPages, group: runtime.group });
    return new Curve(runtime, exports, memory, module, bytes);
  }

  /**
   * Encode points ({x, y} BigInts, null, or point objects with toAffine() and is0() such as @noble/curves'
   * Points) in the msmBytes format, checking types and ranges.
   */
  encodePoints(points) {
    const C = this.#coordinate;
    if (!Array.isArray(points)) throw new TypeError(`points must be an array of { x, y } (each ${C.shape}) or null`);
    const B = this.coordinateBytes;
    const out = new Uint8Array(points.length * 2 * B);
    const neutral = this.model === 'twisted-edwards' ? neutralBytes(this.params) : null;
    for (let i = 0; i < points.length; i++) {
      const P = fromPointObject(points[i]);
      if (P === null) {
        if (neutral) out.set(neutral, 2 * B * i); // null is the neutral element (0, 1) of an Edwards curve
        continue;
      }
      if (typeof P !== 'object') throw new TypeError(`points[${i}] must be { x, y } (each ${C.shape}) or null`);
      C.check(P.x, `points[${i}].x`);
      C.check(P.y, `points[${i}].y`);
      if (C.isZero(P.x) && C.isZero(P.y)) {
        if (this.model === 'montgomery') throw new RangeError(`points[${i}] is (0, 0), the point of order 2, which the native encoding cannot write (all zero is infinity)`);
        if (this.model !== 'twisted-edwards') throw new RangeError(`points[${i}] is (0, 0), which is not on the curve (use null for infinity)`);
      }
      C.write(P.x, out, 2 * B * i, B);
      C.write(P.y, out, 2 * B * i + B, B);
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

  /**
   * One point in the msmBytes encoding to { x, y }, or null for infinity (not checked to be on the curve). On a
   * twisted Edwards curve the neutral element is the point (0, 1), never null.
   */
  decodePoint(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('decodePoint takes a Uint8Array');
    if (bytes.length !== this.pointBytes) throw new RangeError(`a point is ${this.pointBytes} bytes, got ${bytes.length}`);
    const B = this.coordinateBytes;
    if (isInfinityBytes(this.params, bytes)) return null;
    return { x: this.#coordinate.read(bytes, 0, B), y: this.#coordinate.read(bytes, B, B) };
  }

  /**
   * sum_i scalars[i] * points[i]. points: Array<{ x, y } | null>, scalars: Array<bigint> in [0, r).
   * Returns { x, y } or null (infinity; a twisted Edwards curve returns its neutral element { x: 0n, y: 1n } and
   * takes null for it too). Variable time: not for secret scalars.
   */
  msm(points, scalars, options) {
    if (Array.isArray(points) && Array.isArray(scalars) && points.length !== scalars.length) {
      throw new RangeError(`points and scalars differ in length (${points.length} vs ${scalars.length})`);
    }
    noFormatOptions(checkMsmOptions(options), 'msm');
    const pointBytes = this.encodePoints(points);
    const scalarBytes = this.encodeScalars(scalars);
    return this.decodePoint(this.msmBytes(pointBytes, scalarBytes, options));
  }

  /**
   * The fast path. pointBytes: N affine points, x then y, little-endian, coordinateBytes each, all zero
   * for infinity. scalarBytes: N scalars, little-endian, scalarBytes each, each < r.
   * Returns the result point in the same encoding. Variable time.
   * options: { window: c, timings: object to fill with per-phase milliseconds, checkSubgroup: bool,
   *   pointFormat, scalarFormat: the encodings of the inputs (names in curve.pointFormats / curve.scalarFormats,
   *   default 'native' / 'le'), resultFormat: the result's (default: pointFormat) } — see src/formats.js.
   */
  msmBytes(pointBytes, scalarBytes, options) {
    const owner = this.#owner;
    options = checkMsmOptions(options);
    // views of this curve's memory: copied before any decoding there grows it (which would detach them)
    pointBytes = apartFrom(this.memory, pointBytes);
    scalarBytes = apartFrom(this.memory, scalarBytes);
    const formats = resolveFormatOptions(this.params, options);
    if (formats) [pointBytes, scalarBytes] = inputsToNative(this, formats, pointBytes, scalarBytes, options.timings);
    const n = checkMsmInputs(this.params, pointBytes, scalarBytes);
    // a budget below what the curve holds from an earlier call: give that back first (not under a call still running:
    // this one made from its onProgress plans above it)
    if (options.maxMemory !== undefined && owner.#calls === 0 && this.memory.buffer.byteLength > options.maxMemory) this.trim();
    let out;
    owner.#calls++;
    try {
      out = msmBytesOn(this, pointBytes, scalarBytes, n, options);
    } finally {
      owner.#calls--;
      this.#releaseLater();
    }
    return resultFromNative(this, formats, out, options.timings);
  }

  /**
   * The MSM of input that comes in pieces: `source` is an async iterable, iterable or ReadableStream of
   * { points, scalars } byte chunks of any size (either may be absent from a chunk), or { points, scalars } of two
   * byte streams (a ReadableStream such as a fetch body or File.stream(), or an iterable of Uint8Array) read in
   * step. Same formats and result as msmBytes; runs in an instance of its own within options.maxMemory (default: a
   * working set of 256 MiB), so the caller never holds the whole input. options: { window, maxMemory,
   * checkSubgroup, pointFormat, scalarFormat, resultFormat, timings, signal }. Variable time.
   */
  msmStream(source, options) {
    return msmStreamOn(this, source, options);
  }

  /**
   * An MSM the caller feeds: acc.add(points, scalars) (byte pieces of any size, as msmStream's chunks), then
   * acc.result() (the result in the result format; the memory goes back), or acc.free() to drop it. Synchronous.
   * options: as msmStream's, without signal.
   */
  msmAccumulator(options) {
    return new MsmAccumulator(this, options);
  }

  /**
   * Points in `format` (a name in curve.pointFormats) to the native msmBytes encoding, checked: flag bits,
   * coordinates < p, on the curve (decompressed with a square root per point, in Wasm) and, with
   * { checkSubgroup: true }, in the subgroup of order r. Throws RangeError naming the first bad index.
   */
  decodePoints(bytes, format, options = {}) {
    checkOptionNames(options, ['checkSubgroup'], 'decodePoints options');
    const { checkSubgroup = false } = options;
    if (typeof checkSubgroup !== 'boolean') throw new TypeError('options.checkSubgroup must be a boolean');
    return decodePointBatch(this, pointLayout(this.params, format), bytes, { checkSubgroup, what: 'bytes' });
  }

  /** Points in the native msmBytes encoding (one, or several concatenated) to `format`. Checked on the curve. */
  encodePoint(nativeBytes, format) {
    return encodePointBatch(this, pointLayout(this.params, format), nativeBytes);
  }

  /**
   * A result ({ x, y } or null, or a point in the msmBytes encoding) as an instance of your library's Point class,
   * via PointClass.fromAffine({ x, y }); infinity is PointClass.ZERO. E.g. curve.toPoint(sum, bls12_381.G1.Point).
   */
  toPoint(result, PointClass) {
    return toPointObject(this, result, PointClass);
  }

  /**
   * Bases that serve many MSMs, converted once (see src/bases.js): `bases.msmBytes(scalarBytes)` sums any
   * prefix of them. options: { checkSubgroup, pointFormat, precompute: false | true | { window } }
   * (precompute: each base's multiples 2^(c t), so all windows share one set of buckets; more memory).
   */
  prepareBases(pointBytes, options) {
    return new PreparedBases(this, pointBytes, options);
  }

  /**
   * A pool of worker threads for this curve: `await pool.msmBytes(...)` and `await pool.msm(...)` take the same
   * inputs as the synchronous methods and give the same results, using every thread. See src/threads/pool.js.
   * options: { count: threads (default: all cores), sharedMemory: 'auto' | true | false, releaseAfterMs (idle
   *   time before memory calls grew is given back; default 1000, Infinity: only at trim()) }
   */
  /**
   * The MSM on a GPU (WebGPU): `await gpu.msmBytes(...)`, `gpu.msm(...)`, `gpu.prepareBases(...)` take the same inputs
   * and give the same results as the synchronous methods; `gpu.close()` when done. See src/gpu/index.js and
   * docs/gpu.md. WebGPU comes from options.device, navigator.gpu (browsers, Deno) or, in Node, the optional `webgpu`
   * package. options: { device, powerPreference, maxMemory (GPU bytes for an MSM's working buffers) }
   */
  async gpu(options) {
    // Loaded on first use: pages that never ask for the GPU fetch none of its code
    const { openGpu } = await import('./gpu/index.js');
    const importWgsl = gpuKernels.get(this.#owner);
    return openGpu(this, importWgsl && (() => importWgsl(this.group)), options);
  }

  /**
   * The scalar field r in Wasm with its NTT: `const fr = await curve.fr()`, then `fr.ntt(values, { inverse, coset })`,
   * `fr.intt(values)`, and pointer-level kernels (src/fr/index.js, docs/ntt.md). Its own module and memory, loaded on
   * first call and shared by every later one (G2's too); its build (integer or FMA) follows the curve's.
   */
  async fr() {
    const owner = this.#owner; // G2 shares G1's scalar field
    const importFr = frModules.get(owner);
    if (!importFr || !owner.params.fr) throw new Error(`curve ${this.name} has no scalar-field module (params.fr and its .fr.wasm.js)`);
    const { loadScalarField } = await import('./fr/index.js');
    // the build follows the curve's: FMA for an FMA (or, where fused, wide) curve, else the integer one
    const kernel = frKernelFor(owner.params.fr, owner.kernel);
    return loadScalarField(frRuntimeForKernel(owner.params.fr, kernel), () => importFr(kernel), this.name);
  }

  async threads(options) {
    // Loaded on first use: pages that never start a pool do not fetch its code.
    const { createPool } = await import('./threads/pool.js');
    return createPool(this, options);
  }

  /**
   * n points for tests and benchmarks, deterministic in `seed`, in the msmBytes encoding. Fast (batch-affine):
   * up to 256 base points s_i * G for seeded random s_i, then rows of P + G, one inversion per row; one row in
   * Wasm memory at a time. The points are not independent of each other (they differ by multiples of G): fine
   * for MSM tests and timings, not for anything that needs unknown discrete logs.
   */
  randomPointsBytes(n, options = {}) {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
    checkOptionNames(options, ['seed']);
    const { seed = 1 } = options;
    const A = this.params.affineBytes;
    const J = this.params.jacobianBytes;
    const PB = this.pointBytes;
    const ex = this.exports;
    const rng = seededRandom(seed);
    const out = new Uint8Array(n * PB);
    if (n === 0) return out;
    const mark = this.heap.mark();
    try {
      const width = Math.min(n, 256);
      const row = this.heap.alloc(width * A, 64);
      const g = this.heap.alloc(A);
      const acc = this.heap.alloc(J);
      const base = this.heap.alloc(J);
      const pairs = this.heap.alloc(width * 8);
      const scratch = this.heap.alloc(width * (2 * this.params.E + 4));
      const encoded = this.heap.alloc(width * PB);
      this.#writePoint(g, this.generator);
      ex.g_jacFromAffine(base, g);
      for (let i = 0; i < width; i++) {
        const k = randomBelow(rng, this.r, this.params.rBits);
        ex.g_jacFromAffine(acc, g);
        for (let bit = k.toString(2).length - 2; bit >= 0; bit--) {
          ex.g_jacDouble(acc, acc);
          if ((k >> BigInt(bit)) & 1n) ex.g_jacAdd(acc, acc, base);
        }
        ex.g_jacToAffine(row + i * A, acc);
      }
      const pr = new Uint32Array(this.memory.buffer, pairs, 2 * width);
      for (let i = 0; i < width; i++) {
        pr[2 * i] = row + i * A;
        pr[2 * i + 1] = g;
      }
      for (let first = 0; first < n; first += width) {
        if (first > 0) ex.g_batchAdd(pairs, width, scratch); // the next row: every point + G
        const count = Math.min(width, n - first);
        for (let i = 0; i < count; i++) ex.g_toBytes(encoded + i * PB, row + i * A);
        out.set(new Uint8Array(this.memory.buffer, encoded, count * PB), first * PB);
      }
      return out;
    } finally {
      this.heap.release(mark);
    }
  }

  /** n points as { x, y } BigInts (see randomPointsBytes). */
  randomPoints(n, options) {
    const bytes = this.randomPointsBytes(n, options);
    const P = this.pointBytes;
    return Array.from({ length: n }, (_, i) => this.decodePoint(bytes.subarray(i * P, (i + 1) * P)));
  }

  /** n scalars uniform in [0, r), deterministic in `seed`, in the msmBytes encoding. */
  randomScalarsBytes(n, options = {}) {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
    checkOptionNames(options, ['seed']);
    const { seed = 2 } = options;
    const rng = seededRandom(seed);
    const out = new Uint8Array(n * this.scalarBytes);
    for (let i = 0; i < n; i++) bigIntToBytesLE(randomBelow(rng, this.r, this.params.rBits), out, i * this.scalarBytes, this.scalarBytes);
    return out;
  }

  /** n scalars as BigInts (see randomScalarsBytes). */
  randomScalars(n, options) {
    const bytes = this.randomScalarsBytes(n, options);
    const S = this.scalarBytes;
    return Array.from({ length: n }, (_, i) => bytesToBigIntLE(bytes, i * S, S));
  }

  #writePoint(ptr, P) {
    const staging = this.heap.alloc(this.pointBytes);
    new Uint8Array(this.memory.buffer, staging, this.pointBytes).set(this.encodePoints([P]));
    convertPoints({ ex: this.exports, memory: this.memory, params: this.params }, ptr, staging, 1);
  }
}

/**
 * A `load({ kernel })` for one curve: compiles and instantiates a build on its first call, then returns the same
 * Curve for that build. importWasm (and importFmaWasm / importWideWasm, for a curve whose runtime has an `fma` /
 * `wide` build) resolves to a module whose default export is the base64 Wasm (a generated .wasm.js). kernel:
 * 'auto' (default), 'int', 'fma' or 'wide' (src/runtime/kernels.js). A build is imported and compiled only when
 * chosen, so an engine never compiles a module it cannot validate. importWgsl(group) resolves to a module whose default
 * export is the WGSL text of the group's GPU kernels (a generated .wgsl.js; 'G1' or 'G2'), imported by curve.gpu() only.
 * importFrWasm(kernel) resolves to the scalar field's module of that build ('int': a generated .fr.wasm.js, 'fma': its
 * .fr.fma.wasm.js), imported by curve.fr() only.
 */
export function curveLoader(runtime, importWasm, importFmaWasm = null, importWideWasm = null, importWgsl = null, importFrWasm = null) {
  const curves = new Map();
  const hasFmaBuild = !!(runtime.fma && importFmaWasm);
  const hasWideBuild = !!(runtime.wide && importWideWasm);
  const imports = { int: importWasm, fma: importFmaWasm, wide: importWideWasm };
  return function load(options = {}) {
    let chosen;
    try {
      checkOptionNames(options, ['kernel'], 'load options');
      chosen = resolveKernel(options.kernel ?? 'auto', { name: runtime.name, hasFmaBuild, hasWideBuild });
    } catch (e) {
      return Promise.reject(e);
    }
    if (!curves.has(chosen)) {
      const params = runtimeForKernel(runtime, chosen);
      curves.set(chosen, imports[chosen]()
        .then((wasmModule) => Curve.load(params, () => wasmModule.default))
        .then((curve) => {
          if (importWgsl) gpuKernels.set(curve, importWgsl);
          if (importFrWasm) frModules.set(curve, importFrWasm);
          return curve;
        })
        .catch((e) => {
          curves.delete(chosen);
          throw e;
        }));
    }
    return curves.get(chosen);
  };
}
