// Type declarations of wasmsm/snarkjs (src/adapters/snarkjs.js). Written by hand; test/types.test.js type-checks
// an example against them and compares the declared exports with the runtime ones.

import type { Curve, GpuOptions, Kernel } from '../index.js';

/** A BigBuffer of ffjavascript: pages of bytes read as one array. */
export interface BigBufferLike {
  readonly byteLength: number;
  readonly buffers: Uint8Array[];
}

/** The part of an ffjavascript group (curve.G1, curve.G2) the route replaces and reads. */
export interface FfGroup {
  multiExpAffine(bases: Uint8Array | BigBufferLike, scalars: Uint8Array | BigBufferLike, logger?: unknown, logText?: string): Promise<Uint8Array>;
  readonly F: { readonly n8: number };
  readonly zero: Uint8Array;
}

/** An ffjavascript curve as snarkjs uses it (snarkjs.curves.getCurveFromName, buildBn128, buildBls12381). */
export interface FfCurve {
  readonly name: string;
  readonly q: bigint;
  readonly r: bigint;
  readonly G1: FfGroup;
  readonly G2: FfGroup;
  terminate?(): Promise<void>;
}

export interface AccelerateOptions {
  /** Threads of the pool (one per group used). Default: every core. */
  threads?: number;
  /** The pool's transport (see ThreadsOptions.sharedMemory). Default 'auto'. */
  sharedMemory?: 'auto' | boolean;
  /** MSMs of fewer points stay with ffjavascript. Default 256. */
  minPoints?: number;
  /** Bytes of Wasm memory one MSM may hold (larger inputs run in chunks). Default: the pool's working set. */
  maxMemory?: number;
  /** The build of wasmsm's Wasm. Default 'auto'. */
  kernel?: 'auto' | Kernel;
  /** The groups routed. Default ['G1', 'G2']. */
  groups?: ReadonlyArray<'G1' | 'G2'>;
  /** Check every routed MSM's points in the subgroup of order r (docs/snarkjs.md). Default false. */
  checkSubgroup?: boolean;
  /**
   * Milliseconds the pools wait, idle, before giving back the memory the MSMs grew (ThreadsOptions.releaseAfterMs).
   * Default 10000, so proofs one after another keep their threads and memory; Infinity: until restore().
   */
  releaseAfterMs?: number;
  /**
   * G1's MSMs on the GPU (curve.gpu(), WebGPU); G2 stays on its pool (the route does not take curve.g2.gpu() yet). Default false.
   * true: accelerate() rejects with GpuUnavailableError where no GPU opens. 'auto': the GPU where it opens, else G1's
   * pool (handle.gpuError says why). An object: curve.gpu()'s options, and `optional: true` for 'auto'.
   * A device lost during an MSM rejects that MSM (and the proof) with GpuDeviceLostError.
   */
  gpu?: boolean | 'auto' | AccelerateGpuOptions;
}

/** The object form of AccelerateOptions.gpu: the options of curve.gpu(), and whether the GPU may be missing. */
export interface AccelerateGpuOptions extends GpuOptions {
  /** true: where no GPU opens, G1 runs on its pool (as gpu: 'auto'); false (default): accelerate() rejects. */
  optional?: boolean;
}

export interface AccelerateStats {
  /** MSMs run by wasmsm. */
  routed: number;
  /** MSMs left to ffjavascript (fewer than minPoints, other scalar widths, scalars >= r, n = 0). */
  fallback: number;
  /** Points of the routed MSMs. */
  points: number;
  /** Routed MSMs run on the GPU. */
  gpu: number;
}

export interface AccelerateHandle {
  /** wasmsm's curve of the route (its g2 serves G2). */
  readonly curve: Curve;
  readonly stats: AccelerateStats;
  /** The GPU adapter's description where G1's MSMs run on the GPU, else null. */
  readonly gpu: string | null;
  /** With gpu 'auto' (or optional), the error that kept the GPU out; else null. */
  readonly gpuError: Error | null;
  /** Puts ffjavascript's own MSMs back (after the MSMs under way) and closes the pools and the GPU. Idempotent. */
  restore(): Promise<void>;
  /** The same as restore(). */
  close(): Promise<void>;
  /** restore(), then the curve's own terminate() (ffjavascript's workers end; snarkjs builds a new curve next time). */
  terminate(): Promise<void>;
}

/** Below this many points an MSM stays with ffjavascript unless minPoints says otherwise. */
export declare const DEFAULT_MIN_POINTS: number;
/** How long the route's pools keep, idle, the memory the MSMs grew unless releaseAfterMs says otherwise (10000 ms). */
export declare const DEFAULT_RELEASE_AFTER_MS: number;

/**
 * Routes the MSMs of an ffjavascript curve ('bn128' or 'bls12381') to a wasmsm thread pool: curve.G1.multiExpAffine
 * and curve.G2.multiExpAffine are replaced on the object, so snarkjs's Groth16, PLONK and FFLONK proving use them.
 * Unknown option names are a TypeError; another curve a RangeError; a curve already accelerated a TypeError;
 * gpu: true where no GPU opens a GpuUnavailableError.
 */
export declare function accelerate(curve: FfCurve, options?: AccelerateOptions): Promise<AccelerateHandle>;

/**
 * A snarkjs file given to groth16Prove: its bytes, a stream or async iterable of byte chunks, or (Node) a path. A call
 * that fails cancels the streams it was given (a Node stream is destroyed), read or not.
 */
export type SnarkjsFileInput = Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | string;

/** A Groth16 proof as snarkjs writes it (decimal strings; projective with Z = 1). */
export interface Groth16Proof {
  pi_a: [string, string, string];
  pi_b: [[string, string], [string, string], [string, string]];
  pi_c: [string, string, string];
  protocol: 'groth16';
  curve: 'bn128' | 'bls12381';
}

export interface Groth16ProverOptions {
  /** Threads of each pool (G1 and G2; they never run at once). Default: every core. */
  threads?: number;
  /** The pools' transport (see ThreadsOptions.sharedMemory). Default 'auto'. */
  sharedMemory?: 'auto' | boolean;
  /** The build of wasmsm's Wasm. Default 'auto'. */
  kernel?: 'auto' | Kernel;
  /** G1's MSMs on the GPU, as AccelerateOptions.gpu. Default false. */
  gpu?: boolean | 'auto' | AccelerateGpuOptions;
  /**
   * Bytes of Wasm memory one MSM may hold on the pool (larger MSMs run in chunks). Default: from the zkey, the size of
   * its H section (domainSize G1 points) within 16 to 64 MiB.
   */
  maxMemory?: number;
  /** Idle milliseconds before the pools give back the memory proofs grew (ThreadsOptions.releaseAfterMs). */
  releaseAfterMs?: number;
}

export interface Groth16ProveOptions {
  /** The blinding r and s, bigints in [0, r) (tests). Default: random (crypto.getRandomValues). */
  r?: bigint;
  s?: bigint;
  /** Filled with the phases' milliseconds: read, qap, ntt, join, each MSM alone (msmA, msmB1, msmB2, msmC, msmH), msm, msmWait, blind, total (an extensible object: a frozen one is a TypeError). */
  timings?: Record<string, number>;
  /** The circuit's .r1cs: every constraint is checked first, and the first the witness breaks is named in a RangeError. */
  r1cs?: SnarkjsFileInput;
}

/** Keeps curves, Fr modules and pools between proofs; close() when done. */
export declare class Groth16Prover {
  constructor(options?: Groth16ProverOptions);
  /** A snarkjs Groth16 proof of the .wtns for the .zkey (BN254 'bn128' or BLS12-381 'bls12381'), as snarkjs.groth16.prove gives it. */
  prove(zkey: SnarkjsFileInput, witness: SnarkjsFileInput, options?: Groth16ProveOptions): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
  close(): Promise<void>;
}

/**
 * A snarkjs Groth16 proof made in Wasm (no snarkjs or ffjavascript): a prover started for the call and closed after.
 * A malformed or truncated file, a zkey of another protocol, a witness of another field or length: a clear error.
 */
export declare function groth16Prove(
  zkey: SnarkjsFileInput,
  witness: SnarkjsFileInput,
  options?: Groth16ProverOptions & Groth16ProveOptions,
): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;

/** A .zkey, .wtns or .r1cs that is malformed, truncated, of another protocol or curve, or that does not match the header (name 'FileFormatError'). */
export declare class FileFormatError extends Error {
  constructor(message: string);
}
