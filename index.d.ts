// Type declarations for the public API of wasmsm (index.js, src/curve.js). Written by hand; test/types.test.js
// type-checks an example against them and compares the declared exports with the runtime ones.

/** The curves shipped with the package (`curveNames`). */
export type CurveName = 'bls12-381' | 'bn254' | 'bls12-377' | 'pallas' | 'vesta' | 'secp256k1' | 'grumpkin';

/** An affine point with coordinates in [0, p). Infinity is `null` wherever a point is taken or returned. */
export interface AffinePoint {
  x: bigint;
  y: bigint;
}

/** Plain-data parameters of a curve module (wasm/<curve>/params.js, or a codegen output). */
export interface CurveParams {
  readonly name: string;
  /** Base-field modulus. */
  readonly p: bigint;
  /** Order of the group the MSM works in (scalars are in [0, r)). */
  readonly r: bigint;
  /** y^2 = x^3 + a x + b */
  readonly a: bigint;
  readonly b: bigint;
  /** Cofactor. */
  readonly h: bigint;
  readonly generator: Readonly<AffinePoint>;
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
    /** Bytes per field element in Wasm memory (4n). */
    readonly elementBytes: number;
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
}

/**
 * Filled by an MSM with milliseconds per named phase (prepare, allocate, digits, sort, gather, accumulate,
 * reduce, combine), plus `window` (the window size c used) and `windows` (their number).
 */
export interface MsmTimings {
  [phase: string]: number | undefined;
  window?: number;
  windows?: number;
}

export interface MsmOptions {
  /** Force the window size c (an integer in 2..24); by default it is chosen from N. */
  window?: number;
  /** An object to fill with per-phase timings (see MsmTimings). */
  timings?: MsmTimings;
  /** Check that every point is in the subgroup of order r (slow: a scalar multiplication per point). */
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
}

export interface PoolMsmOptions extends MsmOptions {
  /** Cancels the MSM: the promise rejects with an AbortError promptly and the pool stays usable. */
  signal?: AbortSignal;
  /** Called on this thread with the fraction done, in [0, 1], non-decreasing; the last call is 1. */
  onProgress?: (fraction: number) => void;
}

/**
 * Worker threads running one curve's MSM (see Curve.threads). One MSM at a time: calls made together queue.
 * In Node an idle pool does not keep the process alive; close() ends its threads.
 */
export interface MsmPool {
  /** Number of threads. */
  readonly count: number;
  /** true: the threads share one memory (the work is split by window and pair); false: the inputs are split and sent. */
  readonly sharedMemory: boolean;
  /** Same inputs and result as Curve.msmBytes, on every thread. Rejects (TypeError/RangeError naming the input) on bad input. */
  msmBytes(pointBytes: Uint8Array, scalarBytes: Uint8Array, options?: PoolMsmOptions): Promise<Uint8Array>;
  /** Same inputs and result as Curve.msm, on every thread. */
  msm(points: ReadonlyArray<AffinePoint | null>, scalars: ReadonlyArray<bigint>, options?: PoolMsmOptions): Promise<AffinePoint | null>;
  /** Ends every thread; later calls reject. */
  close(): Promise<void>;
}

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
export declare class Curve {
  /** Low level: prefer loadCurve. */
  constructor(params: CurveParams, exports: WasmExports, memory: WasmMemory);
  /**
   * Compile and instantiate a curve module from its base64 bytes: a new instance with its own memory on every
   * call. Prefer loadCurve or curveLoader, which do this once per curve and share the result.
   */
  static load(params: CurveParams, getBase64: () => string): Promise<Curve>;

  readonly name: string;
  readonly params: CurveParams;
  readonly p: bigint;
  readonly r: bigint;
  readonly a: bigint;
  readonly b: bigint;
  readonly generator: Readonly<AffinePoint>;
  /** Bytes per coordinate in the msmBytes encoding (little-endian). */
  readonly coordinateBytes: number;
  /** Bytes per point in the msmBytes encoding: x then y (2 * coordinateBytes); all zero for infinity. */
  readonly pointBytes: number;
  /** Bytes per scalar in the msmBytes encoding (little-endian). */
  readonly scalarBytes: number;
  /** The instance's memory; it grows with N and is never shrunk (its byteLength is the footprint). */
  readonly memory: WasmMemory;
  /** Low level: the instance's exports. */
  readonly exports: WasmExports;

  /** sum_i scalars[i] * points[i]; null is infinity (in and out). Throws TypeError/RangeError on bad input. */
  msm(points: ReadonlyArray<AffinePoint | null>, scalars: ReadonlyArray<bigint>, options?: MsmOptions): AffinePoint | null;
  /**
   * The fast path: N points (pointBytes each) and N scalars (scalarBytes each), little-endian. Returns the
   * result in the point encoding.
   */
  msmBytes(pointBytes: Uint8Array, scalarBytes: Uint8Array, options?: MsmOptions): Uint8Array;
  /**
   * Start a pool of worker threads for this curve's MSM (Node: worker_threads; browsers: module Web Workers
   * from a blob: URL, so the page's CSP needs worker-src blob:). Create it once and reuse it.
   */
  threads(options?: ThreadsOptions): Promise<MsmPool>;

  /** Points (or null for infinity) to the msmBytes encoding, checking types and ranges. */
  encodePoints(points: ReadonlyArray<AffinePoint | null>): Uint8Array;
  /** Scalars in [0, r) to the msmBytes encoding. */
  encodeScalars(scalars: ReadonlyArray<bigint>): Uint8Array;
  /** One point in the msmBytes encoding to { x, y }, or null for infinity. */
  decodePoint(bytes: Uint8Array): AffinePoint | null;

  /** n points deterministic in seed (default 1), for tests and benchmarks (their discrete logs are not secret). */
  randomPoints(n: number, options?: SeedOptions): AffinePoint[];
  /** randomPoints in the msmBytes encoding (faster: no BigInts). */
  randomPointsBytes(n: number, options?: SeedOptions): Uint8Array;
  /** n scalars uniform in [0, r), deterministic in seed (default 2). */
  randomScalars(n: number, options?: SeedOptions): bigint[];
  /** randomScalars in the msmBytes encoding. */
  randomScalarsBytes(n: number, options?: SeedOptions): Uint8Array;
}

/** Names accepted by loadCurve, in a fixed order. */
export declare const curveNames: readonly CurveName[];

/**
 * Load a shipped curve: fetches (bundlers: a lazy chunk) and compiles its Wasm on the first call, later calls
 * resolve to the same Curve. Rejects with RangeError for an unknown name.
 */
export declare function loadCurve(name: CurveName): Promise<Curve>;

/**
 * Make a `load()` for a curve module (as src/curves/<curve>.js do, and as a codegen'd curve can): the first
 * call imports the base64 Wasm (`importWasm` resolves to a module whose default export is that string),
 * compiles and instantiates it; later calls resolve to the same Curve. A failed load is retried next call.
 */
export declare function curveLoader(params: CurveParams, importWasm: () => Promise<{ default: string }>): () => Promise<Curve>;
