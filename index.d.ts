// Type declarations for the public API of wasmsm (index.js, src/curve.js). Written by hand; test/types.test.js
// type-checks an example against them and compares the declared exports with the runtime ones.

/** The curves shipped with the package (`curveNames`). */
export type CurveName = 'bls12-381' | 'bn254' | 'bls12-377' | 'pallas' | 'vesta' | 'secp256k1' | 'grumpkin'
  | 'ed25519' | 'jubjub' | 'bandersnatch' | 'baby-jubjub' | 'ed-on-bls12-377';

/**
 * The curve's model (docs/twisted-edwards.md): points are given and returned in its coordinates. On a twisted
 * Edwards curve the neutral element is { x: 0n, y: 1n } (null is taken for it too).
 */
export type CurveModel = 'short-weierstrass' | 'twisted-edwards' | 'montgomery';

/**
 * An affine point with coordinates in [0, p) (G1: bigint; G2: Fp2). Infinity is `null` wherever a point is
 * taken or returned.
 */
export interface AffinePoint<C = bigint> {
  x: C;
  y: C;
}

/** An element c0 + c1 u of F_p2 = F_p[u] / (u^2 - nonResidue), each part in [0, p): a G2 coordinate. */
export interface Fp2 {
  c0: bigint;
  c1: bigint;
}

/** Plain-data parameters of a curve module (wasm/<curve>/params.js, or a codegen output). */
/**
 * The build of a curve's Wasm: integer limbs (every engine), relaxed-SIMD FMA products (engines with a fused
 * relaxed_madd) or 64-bit limbs with wide-arithmetic products (engines that validate the proposal's opcodes).
 */
export type Kernel = 'int' | 'fma' | 'wide';

export interface CurveParams<C = bigint> {
  readonly name: string;
  /** 'G1', or 'G2' for the params of curve.g2. */
  readonly group: 'G1' | 'G2';
  /** The build these params describe: a shipped params.js is the integer build's, with the FMA build's differences in `fma`. */
  readonly kernel: Kernel;
  /** Base-field modulus. */
  readonly p: bigint;
  /** Order of the group the MSM works in (scalars are in [0, r)). */
  readonly r: bigint;
  /** y^2 = x^3 + a x + b; twisted Edwards a x^2 + y^2 = 1 + d x^2 y^2 (no b); Montgomery: A and B only. */
  readonly a: bigint;
  readonly b: C;
  /** Absent on short-Weierstrass curves. */
  readonly model?: 'twisted-edwards' | 'montgomery';
  readonly d?: bigint;
  readonly A?: bigint;
  readonly B?: bigint;
  /** The short-Weierstrass image the MSM runs on (twisted Edwards and Montgomery-form curves). */
  readonly weierstrass?: { readonly a: bigint; readonly b: bigint; readonly generator: Readonly<AffinePoint> };
  /** Cofactor. */
  readonly h: bigint;
  readonly generator: Readonly<AffinePoint<C>>;
  /** G2: beta in F_p2 = F_p[u] / (u^2 - beta). */
  readonly nonResidue?: bigint;
  readonly rBits: number;
  /** Bytes per scalar in the msmBytes encoding. */
  readonly scalarBytes: number;
  readonly field: {
    readonly p: bigint;
    /** Bits per limb. */
    readonly w: number;
    /** Limbs per element. */
    readonly n: number;
    readonly bits: number;
    /** Bytes per coordinate in the msmBytes encoding. */
    readonly bytes: number;
    /** Bytes per field element in Wasm memory (4n: u32 limb words; 8n in the FMA build: u64 words). */
    readonly elementBytes: number;
    /** G2: 2 (coordinates in F_p2; bytes and elementBytes count both parts). */
    readonly degree?: number;
    /** G2: the base field F_p's shape. */
    readonly base?: { readonly p: bigint; readonly w: number; readonly n: number; readonly bits: number; readonly bytes: number; readonly elementBytes: number };
  };
  /** Bytes per field element in Wasm memory. */
  readonly E: number;
  readonly affineBytes: number;
  readonly jacobianBytes: number;
  readonly infOffset: number;
  readonly minPages: number;
  /** GLV endomorphism data, for curves that have one. */
  readonly glv?: {
    readonly lambda: bigint;
    readonly halfBits: number;
    readonly H: number;
    readonly recordBytes: number;
  } | null;
  /** The curve's G2, when its module has one (BLS12-381, BN254, a generated curve that declares g2). */
  readonly g2?: CurveParams<Fp2>;
  /** Shipped curves: what the FMA build changes (kernel, field shape, sizes, minPages; g2 likewise). */
  readonly fma?: Partial<Omit<CurveParams<C>, 'g2' | 'fma' | 'wide'>> & { readonly g2?: Partial<CurveParams<Fp2>> };
  /** Shipped curves: what the wide build changes, likewise. */
  readonly wide?: Partial<Omit<CurveParams<C>, 'g2' | 'fma' | 'wide'>> & { readonly g2?: Partial<CurveParams<Fp2>> };
  /**
   * The GPU kernels' limb shape (wasm/<curve>/<curve>.wgsl): w bits in each of n u32 limbs, coords field elements per
   * accumulator point; glv: the GLV split's halves (halfBits, H u32 words of a half, recordWords per record), or null
   * where the kernels have no split.
   */
  readonly gpu?: {
    readonly w: number;
    readonly n: number;
    readonly coords: number;
    readonly glv: {
      readonly halfBits: number;
      readonly H: number;
      readonly recordWords: number;
    } | null;
  };
  /**
   * Shipped curves: the scalar field's module (wasm/<curve>/<curve>.fr.wat, curve.fr()): r's limb shape, bytes per
   * canonical element (n8), two-adicity s (r - 1 = 2^s q, q odd), a primitive 2^s-th root of unity and the default
   * coset generator.
   */
  readonly fr?: {
    readonly r: bigint;
    readonly w: number;
    readonly n: number;
    readonly bits: number;
    readonly bytes: number;
    readonly elementBytes: number;
    readonly minPages: number;
    readonly s: number;
    readonly rootOfUnity: bigint;
    readonly cosetGenerator: bigint;
  };
}

/** loadCurve's and a curve loader's options. */
export interface LoadOptions {
  /**
   * 'auto' (default): the wide build where the engine validates wide arithmetic (Bun 1.4, and Chromium with
   * --js-flags=--wasm-wide-arithmetic), else the FMA build where it validates relaxed SIMD and its relaxed_madd is
   * fused (Node >= 22, Chrome, Firefox), else the integer build (Node 20, Safari). 'int', 'fma' or 'wide' forces one;
   * 'fma' and 'wide' reject with a RangeError where they cannot run. The builds give the same results.
   */
  readonly kernel?: 'auto' | Kernel;
}

/**
 * Filled by an MSM with milliseconds per named phase (convert, prepare, allocate, digits, sort, gather, accumulate,
 * reduce, combine), plus the plan: `window` (the window size c used), `windows` (their number), `bits` (the scalar
 * bits the windows cover: the largest scalar's, or a GLV half's), `chunks` and `chunkPoints` (the input ran in that
 * many chunks of at most that many points), and for a stream `memoryBytes` (the Wasm memory of its own instance at
 * the end: its peak).
 */
export interface MsmPhaseTimings {
  /**
   * Milliseconds, and the plan's figures. Two fields are not numbers, and are read untyped: prepared bases' `flat`
   * (a boolean: the MSM ran flat over a precompute table) and the GPU's `phaseClock` (a string: how its phases were
   * timed).
   */
  [phase: string]: number | undefined;
  window?: number;
  windows?: number;
  bits?: number;
  chunks?: number;
  chunkPoints?: number;
  memoryBytes?: number;
  /** A pool's calls: the threads that took part. */
  threads?: number;
}

/** Per-phase timings (ms) and the plan's figures; a pool's calls add perThread (filled by the library, read by you). */
export type MsmTimings = MsmPhaseTimings & {
  /** A pool's calls: one entry per thread of the pool, in thread order (docs/threads.md); not enumerable, so a loop over timings does not meet it. */
  perThread?: MsmThreadTimings[];
};

/** One thread's part in a pool call, in ms from the call's start (when its turn came). */
export interface MsmThreadTimings {
  thread: number;
  /** Per phase the thread ran (prepare, lanes, accumulate, reduce, decode, digits, slices, ...): the first start and last end, the sum of its runs' lengths, and how many runs (one per chunk). */
  phases: { [phase: string]: { start: number; end: number; busy: number; runs: number } };
  /** The sum of the phases' busy time. */
  busy: number;
  /** The call's length less busy: time spent waiting for the caller's serial work, messages and the other threads. */
  wait: number;
  /** The message path: the phase times (ms) of the MSM the thread ran on its slice. */
  steps?: { [phase: string]: number };
}

/**
 * Point encodings taken by msmBytes ({ pointFormat, resultFormat }), decodePoints and encodePoint (src/codecs.js).
 * Not every curve takes every format: `curve.pointFormats` lists a curve's, with bytes per point.
 * - 'native': x | y little-endian, coordinateBytes each, all zero = infinity (every curve).
 * - 'zcash-compressed' / 'zcash-uncompressed': big-endian, flags 0x80 compressed, 0x40 infinity, 0x20 larger y
 *   in the first byte (bls12-381, bls12-377).
 * - 'arkworks-compressed' / 'arkworks-uncompressed': ark-serialize CanonicalSerialize: little-endian, SWFlags in
 *   the last byte (0x80 y > -y, 0x40 infinity); on bls12-381 ark-bls12-381 writes the ZCash format (every curve).
 * - 'gnark-compressed' / 'gnark-uncompressed': gnark-crypto Bytes() / RawBytes(): big-endian; bn254: two flag bits
 *   (0x80 smaller y, 0xc0 larger y, 0x40 infinity; uncompressed infinity all zero); BLS12: the ZCash flags.
 * - 'eip2537': 128 bytes, each coordinate 16 zero bytes + 48 big-endian; infinity all zero (bls12-381).
 * - 'snarkjs': ffjavascript affine LEM, x * 2^(8 * coordinateBytes) mod p little-endian; infinity all zero (bn254, bls12-381;
 *   G1 and G2, where each coordinate is c0 | c1, each part so in the base field's bytes).
 */
export type PointFormat =
  | 'native'
  | 'zcash-compressed'
  | 'zcash-uncompressed'
  | 'arkworks-compressed'
  | 'arkworks-uncompressed'
  | 'gnark-compressed'
  | 'gnark-uncompressed'
  | 'eip2537'
  | 'snarkjs'
  /** ed25519: RFC 8032's 32-byte point encoding. */
  | 'rfc8032'
  /** baby-jubjub: circomlib's packed 32-byte point. */
  | 'circomlib';

/**
 * Scalar encodings taken by msmBytes ({ scalarFormat }): 'le' (native: little-endian, scalarBytes each, < r), 'be'
 * (big-endian, same width, < r), 'eip2537' (32-byte big-endian, any value, reduced mod r; bls12-381) and 'snarkjs'
 * (ffjavascript multiExpAffine: 32-byte little-endian, < r; bn254, bls12-381).
 */
export type ScalarFormat = 'le' | 'be' | 'eip2537' | 'snarkjs';

/** A point object of another library, e.g. an @noble/curves Point: anything with toAffine() (and is0()). */
export interface PointLike<C = bigint> {
  toAffine(): { x: C; y: C };
  is0?(): boolean;
}

/** A Point class with a static fromAffine (and ZERO), e.g. bls12_381.G1.Point (or G2.Point) of @noble/curves. */
export interface PointClass<P, C = bigint> {
  fromAffine(point: { x: C; y: C }): P;
  readonly ZERO?: P;
}

export interface MsmOptions {
  /** Force the window size c (an integer in 2..24); by default it is chosen from N. */
  window?: number;
  /** An object to fill with per-phase timings (see MsmTimings). */
  timings?: MsmTimings;
  /** Check that every point is in the subgroup of order r (slow: a scalar multiplication per point). */
  checkSubgroup?: boolean;
  /**
   * Bytes of Wasm memory the MSM may grow to (plus one 64 KiB page): it runs in chunks whose working set fits.
   * Too small to run at all: a RangeError naming the least that works. Default: a working set of 256 MiB on one
   * thread; on a pool, 64 MiB a thread (at least 256 MiB) within what the machine offers (docs/memory.md).
   */
  maxMemory?: number;
  /** Called with the fraction done, in [0, 1], non-decreasing, the last call 1. */
  onProgress?: (fraction: number) => void;
}

/** Options of msmBytes (and the pool's): MsmOptions plus the encodings of the inputs and of the result. */
export interface MsmBytesOptions extends MsmOptions {
  /** Encoding of pointBytes (default 'native'); converted on the calling thread, compressed ones with a square root per point. */
  pointFormat?: PointFormat;
  /** Encoding of scalarBytes (default 'le'). */
  scalarFormat?: ScalarFormat;
  /** Encoding of the result (default: pointFormat, else 'native'). */
  resultFormat?: PointFormat;
}

export interface DecodePointsOptions {
  /** Also check that every point is in the subgroup of order r (slow). */
  checkSubgroup?: boolean;
}

export interface ThreadsOptions {
  /** Number of worker threads, 1..256. Default: os.availableParallelism() in Node, navigator.hardwareConcurrency in browsers. */
  count?: number;
  /**
   * 'auto' (default): one shared Wasm memory where the page allows it (always in Node; in browsers when
   * crossOriginIsolated), else each thread has its own memory and the inputs are split and sent.
   * true: require shared memory (throws where SharedArrayBuffer is unavailable); false: always send.
   */
  sharedMemory?: 'auto' | boolean;
  /**
   * Milliseconds the pool waits, idle, before it gives back the memory calls grew (moving to new threads when the
   * memory is shared). Default 1000; Infinity: only at trim(). Calls that come back to back pay for that move.
   */
  releaseAfterMs?: number;
}

export interface PoolMsmOptions extends MsmBytesOptions {
  /** Cancels the MSM: the promise rejects with an AbortError promptly and the pool stays usable. */
  signal?: AbortSignal;
  /** Called on this thread with the fraction done, in [0, 1], non-decreasing; the last call is 1. */
  onProgress?: (fraction: number) => void;
}

/** Options of msmStream and msmAccumulator: msmBytes' (no onProgress: a stream's length is unknown), and signal for a stream. */
export interface StreamOptions extends Omit<MsmBytesOptions, 'onProgress'> {
  /** Stops the stream: it rejects with an AbortError at once, even while the source waits. */
  signal?: AbortSignal;
}

/** A chunk of a stream: bytes of points and of scalars in the stream's formats, either absent, pieces of any size. */
export interface StreamChunk {
  points?: Uint8Array;
  scalars?: Uint8Array;
}

/** A byte stream: a ReadableStream (a fetch body, File.stream()), an (async) iterable of Uint8Array, or one Uint8Array. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array;

/**
 * What msmStream reads: chunks of { points, scalars }, or two byte streams read in step. A chunk's bytes are read
 * (what waits for its other half, copied) before the stream asks for the next chunk: a source may reuse or transfer
 * its buffer from then on.
 */
export type StreamSource = AsyncIterable<StreamChunk> | Iterable<StreamChunk> | ReadableStream<StreamChunk> | { points: ByteSource; scalars: ByteSource };

/** Curve.msmAccumulator: add pieces, then result() (or free()). Synchronous. */
export interface MsmAccumulator {
  /**
   * Add points and scalars (Uint8Arrays in the formats; either may be absent; pieces need not hold whole pairs).
   * Once it returns, the caller may reuse or transfer the arrays: what waits for its other half is copied. A piece
   * that is not Uint8Arrays is a TypeError and ends the accumulator.
   */
  add(points?: Uint8Array, scalars?: Uint8Array): void;
  /** The sum of everything added, in the result format; the accumulator's memory is given back. */
  result(): Uint8Array;
  /** Drop it without a result; later calls throw. */
  free(): void;
  /** Whole pairs added so far. */
  readonly length: number;
  /** Points per chunk of its plan. */
  readonly chunkPoints: number;
  /** Bytes of its Wasm memory (it only grows: after result() its peak). */
  readonly memoryBytes: number;
}

/** MsmPool.msmAccumulator: as MsmAccumulator, asynchronous; the pool is the accumulator's until result() or free(). */
export interface PoolMsmAccumulator {
  /**
   * Copies the piece: the caller may reuse or transfer the arrays once add() returns. Resolves when the pool has
   * taken the piece (await it, so pieces do not queue far ahead of the pool). A piece that is not Uint8Arrays rejects
   * here with a TypeError and ends the accumulator (result() rejects with it too).
   */
  add(points?: Uint8Array, scalars?: Uint8Array): Promise<void>;
  result(): Promise<Uint8Array>;
  free(): Promise<void>;
}

/**
 * Worker threads running one curve's MSM (see Curve.threads). One MSM at a time: calls made together queue.
 * In Node an idle pool does not keep the process alive; close() ends its threads.
 */
export interface MsmPool<C = bigint> {
  /** Number of threads. */
  readonly count: number;
  /** true: the threads share one memory (the work is split by window and pair); false: the inputs are split and sent. */
  readonly sharedMemory: boolean;
  /**
   * Same inputs and result as Curve.msmBytes, on every thread. Rejects (TypeError/RangeError naming the input) on bad
   * input. The arrays are read when the call's turn comes: do not change or transfer them before the promise settles
   * (the same holds for prepareBases and the prepared bases' msmBytes).
   */
  msmBytes(pointBytes: Uint8Array, scalarBytes: Uint8Array, options?: PoolMsmOptions): Promise<Uint8Array>;
  /** Same inputs and result as Curve.msm, on every thread. */
  msm(points: ReadonlyArray<AffinePoint<C> | PointLike<C> | null>, scalars: ReadonlyArray<bigint>, options?: PoolMsmOptions): Promise<AffinePoint<C> | null>;
  /** Same source and result as Curve.msmStream, on every thread, within options.maxMemory. */
  msmStream(source: StreamSource, options?: StreamOptions): Promise<Uint8Array>;
  /** An asynchronous accumulator on the pool (see PoolMsmAccumulator). */
  msmAccumulator(options?: StreamOptions): PoolMsmAccumulator;
  /** Prepared bases on this pool (see Curve.prepareBases): built by all threads, shared by them (or a slice each). */
  prepareBases(pointBytes: Uint8Array, options?: PrepareBasesOptions): Promise<PoolPreparedBases<C>>;
  /** Bytes of Wasm memory the pool's MSMs hold now (shared memory: its prepared tables too; messages: the threads' own). */
  readonly memoryBytes: number;
  /** Give back what calls grew (queued after calls already made); the pool does it by itself when idle for a second. */
  trim(): Promise<void>;
  /** Ends every thread; later calls reject. */
  close(): Promise<void>;
}

/** Options of Curve.prepareBases and MsmPool.prepareBases. */
export interface PrepareBasesOptions {
  /** Reject points outside the subgroup of order r, once (default false). */
  checkSubgroup?: boolean;
  /** The points' encoding (default 'native'). */
  pointFormat?: PointFormat;
  /**
   * Store each base's multiples 2^(c t) (all windows share one set of buckets): faster MSMs, ceil(128 / c) times
   * the memory on BLS12-381 and BN254. true: c chosen for the number of bases; { window: c } forces it. Default false.
   */
  precompute?: boolean | { window?: number };
}

/** Options of a prepared MSM: timings and the encodings of the scalars and of the result; window without precompute. */
export interface PreparedMsmOptions {
  timings?: MsmTimings;
  window?: number;
  scalarFormat?: ScalarFormat;
  resultFormat?: PointFormat;
  onProgress?: (fraction: number) => void;
}

interface PreparedBasesInfo {
  /** Number of bases; an MSM takes at most this many scalars (a prefix of the bases). */
  readonly length: number;
  /** The precompute table's window c, or 0 without precompute. */
  readonly precomputeWindow: number;
  /** Bytes of Wasm memory the table takes. */
  readonly tableBytes: number;
}

/** Bases prepared on one thread (Curve.prepareBases). Variable time. */
export interface PreparedBases<C = bigint> extends PreparedBasesInfo {
  /** sum_{i < k} scalars[i] * bases[i] for k scalars (k <= length), in the msmBytes encoding (or resultFormat). */
  msmBytes(scalarBytes: Uint8Array, options?: PreparedMsmOptions): Uint8Array;
  /** The BigInt form. */
  msm(scalars: ReadonlyArray<bigint>, options?: { timings?: MsmTimings }): AffinePoint<C> | null;
  /** Gives the memory back; later calls throw. */
  free(): void;
}

/** Bases prepared on a pool (MsmPool.prepareBases): the same calls, asynchronous, queued with the pool's. */
export interface PoolPreparedBases<C = bigint> extends PreparedBasesInfo {
  msmBytes(scalarBytes: Uint8Array, options?: PreparedMsmOptions & { signal?: AbortSignal }): Promise<Uint8Array>;
  msm(scalars: ReadonlyArray<bigint>, options?: { timings?: MsmTimings; signal?: AbortSignal }): Promise<AffinePoint<C> | null>;
  free(): Promise<void>;
}

export interface GpuOptions {
  /** A device the app already has: the MSM shares it and never destroys it. */
  device?: GPUDeviceLike;
  /** The adapter asked for (default 'high-performance'). */
  powerPreference?: 'low-power' | 'high-performance';
  /** GPU bytes one MSM's working buffers may take (default 1 GiB); larger input runs in chunks. */
  maxMemory?: number;
}

/** A WebGPU GPUDevice (typed loosely so these types need no WebGPU lib). */
export type GPUDeviceLike = object;

/** msmBytes' options on the GPU (timings: prepare, upload, convert, digits, sort, accumulate, reduce, combine, scalarCheck, wait, download). */
export interface GpuMsmOptions extends PoolMsmOptions {}

/** curve.gpu(): the same calls as the curve's, asynchronous, run one at a time on the device. Variable time. */
export interface GpuMsm<C = bigint> {
  /** The adapter: vendor / architecture / device / description, as the runtime gives them. */
  readonly adapter: string;
  /** The GPUDevice it runs on: give it to another gpu() (curve.g2.gpu({ device })) and the two take turns on it. */
  readonly device: GPUDeviceLike;
  msmBytes(pointBytes: Uint8Array, scalarBytes: Uint8Array, options?: GpuMsmOptions): Promise<Uint8Array>;
  msm(points: ReadonlyArray<AffinePoint<C> | PointLike<C> | null>, scalars: ReadonlyArray<bigint>, options?: Omit<GpuMsmOptions, 'pointFormat' | 'scalarFormat' | 'resultFormat'>): Promise<AffinePoint<C> | null>;
  /** Points uploaded, converted and checked once; msmBytes(scalars) sums any prefix of them. */
  prepareBases(pointBytes: Uint8Array, options?: Omit<PrepareBasesOptions, 'precompute'> & { maxMemory?: number }): Promise<GpuPreparedBases>;
  /** Gives back the GPU buffers kept between calls. */
  trim(): Promise<void>;
  /** Frees everything; destroys the device gpu() made. */
  close(): Promise<void>;
}

export interface GpuPreparedBases {
  readonly length: number;
  msmBytes(scalarBytes: Uint8Array, options?: PreparedMsmOptions & { signal?: AbortSignal }): Promise<Uint8Array>;
  free(): void;
}

/** No usable WebGPU: none in this runtime, no adapter, limits too small, or no GPU kernels for the group. */
export declare class GpuUnavailableError extends Error {}
/** The device was lost during a call (no result is given); the next call gets a new device. */
export declare class GpuDeviceLostError extends Error {}

export interface SeedOptions {
  /** Any 32-bit integer; the same seed gives the same values. */
  seed?: number;
}

/**
 * The parts of a WebAssembly.Memory this API exposes. Declared here, not as WebAssembly.Memory, so the
 * declarations type-check in a project whose `lib` has no WebAssembly namespace (e.g. es2022 with Node types).
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** An instance's exports (functions and globals by name). */
export type WasmExports = Readonly<Record<string, unknown>>;

/**
 * A loaded curve: its Wasm instance and memory, and the MSM over it. Get one from `loadCurve(name)` or a
 * curve subpath's `load()`. Not safe for secret scalars (variable time). Methods are synchronous; a large
 * MSM blocks the thread it runs on (use a Worker in a page).
 */
export declare class Curve<C = bigint> {
  /** Low level: prefer loadCurve. */
  constructor(params: CurveParams<C>, exports: WasmExports, memory: WasmMemory);
  /**
   * Compile and instantiate a curve module from its base64 bytes: a new instance with its own memory on every
   * call. Prefer loadCurve or curveLoader, which do this once per curve and share the result.
   */
  static load(params: CurveParams, getBase64: () => string): Promise<Curve>;

  readonly name: string;
  /** 'G1', or 'G2' for curve.g2. */
  readonly group: 'G1' | 'G2';
  /** Which build of the Wasm runs: 'int', 'fma' or 'wide' (LoadOptions.kernel). */
  readonly kernel: Kernel;
  readonly params: CurveParams<C>;
  readonly p: bigint;
  readonly r: bigint;
  readonly model: CurveModel;
  /** The model's coefficients: a and b (short Weierstrass), a and d (twisted Edwards; b undefined), A and B (Montgomery). */
  readonly a: bigint;
  readonly b?: C;
  readonly d?: bigint;
  readonly A?: bigint;
  readonly B?: bigint;
  readonly generator: Readonly<AffinePoint<C>>;
  /**
   * The curve's G2 on its sextic twist over F_p2 (BLS12-381, BN254, and generated curves that declare g2), with
   * every method of a curve and points { x: Fp2, y: Fp2 }; native encoding x.c0 | x.c1 | y.c0 | y.c1, each
   * little-endian in the base field's bytes. Shares this curve's memory. Undefined on G2 itself and on curves without one.
   */
  readonly g2?: Curve<Fp2>;
  /** Bytes per coordinate in the msmBytes encoding (little-endian). */
  readonly coordinateBytes: number;
  /** Bytes per point in the msmBytes encoding: x then y (2 * coordinateBytes); all zero for infinity. */
  readonly pointBytes: number;
  /** Bytes per scalar in the msmBytes encoding (little-endian). */
  readonly scalarBytes: number;
  /** The instance's memory; trim() (or a second without calls, when it holds more than 16 MiB) swaps in a fresh one. */
  readonly memory: WasmMemory;
  /** Low level: the instance's exports. */
  readonly exports: WasmExports;

  /**
   * sum_i scalars[i] * points[i]; null is infinity (in and out); points may also be point objects of another
   * library (@noble/curves Points: toAffine(), is0()). Throws TypeError/RangeError on bad input.
   */
  msm(points: ReadonlyArray<AffinePoint<C> | PointLike<C> | null>, scalars: ReadonlyArray<bigint>, options?: MsmOptions): AffinePoint<C> | null;
  /**
   * The fast path: N points (pointBytes each) and N scalars (scalarBytes each), little-endian, or in the
   * encodings named by options.pointFormat / scalarFormat. Returns the result in options.resultFormat (default:
   * the point format).
   */
  msmBytes(pointBytes: Uint8Array, scalarBytes: Uint8Array, options?: MsmBytesOptions): Uint8Array;
  /**
   * The MSM of input that arrives in pieces (chunks of { points, scalars }, or two byte streams read in step), in
   * an instance of its own within options.maxMemory; the same result as one msmBytes call over it all.
   */
  msmStream(source: StreamSource, options?: StreamOptions): Promise<Uint8Array>;
  /** An MSM fed by the caller: add(points, scalars) any number of times, then result(). Options as msmStream's but signal. */
  msmAccumulator(options?: MsmBytesOptions): MsmAccumulator;
  /** Give back the Wasm memory calls grew: this curve and its g2 move to a fresh instance. */
  trim(): void;
  /** The point formats this curve takes, with bytes per point in each. */
  readonly pointFormats: Readonly<Partial<Record<PointFormat, number>>>;
  /** The scalar formats this curve takes, with bytes per scalar in each. */
  readonly scalarFormats: Readonly<Partial<Record<ScalarFormat, number>>>;
  /**
   * Points in `format` to the native encoding, checked (flag bits, lengths, coordinates < p, on the curve; the
   * subgroup with checkSubgroup). Throws RangeError naming the first bad index ("points[i]: reason").
   */
  decodePoints(bytes: Uint8Array, format: PointFormat, options?: DecodePointsOptions): Uint8Array;
  /** Points in the native encoding (one, or several concatenated; checked on the curve) to `format`. */
  encodePoint(nativeBytes: Uint8Array, format: PointFormat): Uint8Array;
  /** A result ({ x, y }, null or native bytes) as an instance of PointClass (fromAffine; ZERO for infinity). */
  toPoint<P>(result: AffinePoint<C> | null | Uint8Array, PointClass: PointClass<P, C>): P;
  /**
   * Start a pool of worker threads for this curve's MSM (Node: worker_threads; browsers: module Web Workers
   * from a blob: URL, so the page's CSP needs worker-src blob:). Create it once and reuse it.
   */
  threads(options?: ThreadsOptions): Promise<MsmPool<C>>;
  /**
   * The MSM on a WebGPU device (docs/gpu.md): WebGPU from options.device, navigator.gpu, or in Node the optional
   * `webgpu` package (curve.g2.gpu() for G2). Rejects with GpuUnavailableError where none is usable. Close it when done.
   */
  gpu(options?: GpuOptions): Promise<GpuMsm<C>>;
  /**
   * The scalar field r in Wasm with its NTT (docs/ntt.md): its own module and memory, fetched and compiled on the first
   * call, the same object after. Rejects where the curve has no Fr module (params.fr).
   */
  fr(): Promise<ScalarField>;
  /**
   * Points that serve many MSMs, checked and converted once (GLV images and, with precompute, multiples kept
   * in an instance of their own); its msmBytes(scalars) sums any prefix of them. Throws like msmBytes.
   */
  prepareBases(pointBytes: Uint8Array, options?: PrepareBasesOptions): PreparedBases<C>;

  /** Points (or null for infinity, or point objects with toAffine()) to the msmBytes encoding, checking types and ranges. */
  encodePoints(points: ReadonlyArray<AffinePoint<C> | PointLike<C> | null>): Uint8Array;
  /** Scalars in [0, r) to the msmBytes encoding. */
  encodeScalars(scalars: ReadonlyArray<bigint>): Uint8Array;
  /** One point in the msmBytes encoding to { x, y }, or null for infinity. */
  decodePoint(bytes: Uint8Array): AffinePoint<C> | null;

  /** n points deterministic in seed (default 1), for tests and benchmarks (their discrete logs are not secret). */
  randomPoints(n: number, options?: SeedOptions): AffinePoint<C>[];
  /** randomPoints in the msmBytes encoding (faster: no BigInts). */
  randomPointsBytes(n: number, options?: SeedOptions): Uint8Array;
  /** n scalars uniform in [0, r), deterministic in seed (default 2). */
  randomScalars(n: number, options?: SeedOptions): bigint[];
  /** randomScalars in the msmBytes encoding. */
  randomScalarsBytes(n: number, options?: SeedOptions): Uint8Array;
}

/** nttPointer's options: the direction, the coset (true: ScalarField.cosetGenerator, or a BigInt g), the orders. */
export interface NttPointerOptions {
  readonly inverse?: boolean;
  readonly coset?: boolean | bigint;
  readonly input?: 'natural' | 'bit-reversed';
  readonly output?: 'natural' | 'bit-reversed';
}

/**
 * curve.fr(): the scalar field in Wasm (docs/ntt.md). Elements in memory: n little-endian u32 limbs of w bits
 * (elementBytes bytes), Montgomery form, values in [0, 2r); arrays contiguous. Bytes: `bytes` (n8) little-endian bytes
 * per canonical element.
 */
export interface ScalarField {
  readonly name: string;
  readonly r: bigint;
  /** two-adicity: transforms of up to 2^s elements */
  readonly s: number;
  readonly bytes: number;
  readonly elementBytes: number;
  readonly cosetGenerator: bigint;
  readonly params: NonNullable<CurveParams['fr']>;
  readonly memory: WasmMemory;
  readonly heap: { alloc(bytes: number, align?: number): number; mark(): number; release(mark: number): void; readonly base: number; readonly top: number };
  /** The fr_ kernels (Wasm exports) by name, and a Field over them (mul, add, write, read, ...). */
  readonly exports: Record<string, unknown>;
  readonly field: {
    write(ptr: number, x: bigint): void;
    read(ptr: number): bigint;
    alloc(count?: number): number;
    [kernel: string]: unknown;
  };
  /** The NTT of values (BigInt in [0, r), or canonical bytes), length a power of two up to 2^s; the same kind back, natural order. */
  ntt<T extends ReadonlyArray<bigint> | Uint8Array>(values: T, options?: { inverse?: boolean; coset?: boolean | bigint }): T extends Uint8Array ? Uint8Array : bigint[];
  intt<T extends ReadonlyArray<bigint> | Uint8Array>(values: T, options?: { coset?: boolean | bigint }): T extends Uint8Array ? Uint8Array : bigint[];
  /** ntt on the threads of a curve's pool (curve.threads()): the same values back. One call at a time on this fr. */
  nttOn<T extends ReadonlyArray<bigint> | Uint8Array>(pool: MsmPool<any>, values: T, options?: { inverse?: boolean; coset?: boolean | bigint }): Promise<T extends Uint8Array ? Uint8Array : bigint[]>;
  /** A primitive 2^j-th root of unity, 0 <= j <= s. */
  rootOfUnity(j: number): bigint;
  alloc(count?: number): number;
  /** The cached twiddle table of a transform of 2^logN elements (pointer). */
  twiddles(logN: number, inverse?: boolean): number;
  nttPointer(ptr: number, logN: number, options?: NttPointerOptions): void;
  /** Evaluations on H (natural) -> evaluations on g H (natural), in place; g defaults to cosetGenerator. */
  evaluationsToCoset(ptr: number, logN: number, g?: bigint): void;
  fromBytesPointer(out: number, bytesPtr: number, count: number, options?: { montgomery?: boolean }): void;
  toBytesPointer(bytesPtr: number, ptr: number, count: number, options?: { montgomery?: boolean }): void;
  /** Gives back the memory transforms grew: a fresh instance (memory, heap, exports, field); old pointers are gone. */
  trim(): void;
  /** The same field over a shared WebAssembly.Memory, made on the first call (docs/ntt.md): a pool's threads work on its arrays in place. */
  sharedTwin(): Promise<ScalarField>;
  /** Run `work` when no other fr.nttOn or proof works on this field's heap (they take turns). */
  exclusive<T>(work: () => T | Promise<T>): Promise<T>;
}

/** Names accepted by loadCurve, in a fixed order. */
export declare const curveNames: readonly CurveName[];

/**
 * Load a shipped curve: fetches (bundlers: a lazy chunk) and compiles its Wasm on the first call, later calls
 * resolve to the same Curve. Rejects with RangeError for an unknown name.
 */
export declare function loadCurve(name: CurveName, options?: LoadOptions): Promise<Curve>;

/** A shipped curve's parameters, without loading its Wasm. Rejects with RangeError for an unknown name. */
export declare function curveParams(name: CurveName): Promise<CurveParams>;

/**
 * Make a `load(options)` for a curve module (as src/curves/<curve>.js do, and as a codegen'd curve can): the first
 * call for a build imports its base64 Wasm (`importWasm`, or `importFmaWasm` for the FMA build when params has
 * `fma`, resolves to a module whose default export is that string), compiles and instantiates it; later calls
 * resolve to the same Curve. A failed load is retried next call.
 */
export declare function curveLoader(
  params: CurveParams,
  importWasm: () => Promise<{ default: string }>,
  importFmaWasm?: () => Promise<{ default: string }> | null,
  importWideWasm?: () => Promise<{ default: string }> | null,
  /** The curve's WGSL module (default export: its text), imported by curve.gpu() only. */
  importWgsl?: () => Promise<{ default: string }> | null,
  /** The curve's scalar-field module (default export: its base64 Wasm), imported by curve.fr() only. */
  importFrWasm?: () => Promise<{ default: string }> | null,
): (options?: LoadOptions) => Promise<Curve>;
