// Types of `wasmsm/codegen` (codegen/index.js): the build-time API, for Node (it needs the wabt package).

export type MulShape = 'auto' | 'pairs' | 'unrolled' | 'loop';

/** Derived, frozen parameters of the field for one prime and limb size (codegen/params/field.js). */
export interface FieldParams {
  readonly p: bigint;
  /** Bits per limb (26..32). */
  readonly w: number;
  /** Limbs per element: the least n with 4p < R. */
  readonly n: number;
  readonly bits: number;
  readonly bytes: number;
  readonly elementBytes: number;
  /** 2^(n w) */
  readonly R: bigint;
  readonly R2: bigint;
  /** 1 in Montgomery form (R mod p). */
  readonly one: bigint;
  /** -p^-1 mod 2^w */
  readonly mu: number;
  readonly pLimbs: readonly bigint[];
  readonly twoPLimbs: readonly bigint[];
  readonly limbMax: bigint;
  readonly lazy: { readonly bound: string; readonly condition: string; readonly holds: boolean };
  readonly carryPlan: { readonly summary: string; readonly [key: string]: unknown };
}

export interface FieldOptions {
  /** An odd prime: a BigInt, or a decimal or 0x-hex string. */
  p: bigint | string;
  /** Bits per limb, 26..32 (default 30). */
  w?: number;
  /** Shape of the Montgomery product (default 'auto': pairs where w <= 31). */
  mulShape?: MulShape;
  /** instantiateField only: add `chains` (dependent chains inside Wasm, for benchmarks). */
  chainKernels?: boolean;
}

/** A field compiled and instantiated for exploring: methods take and return canonical BigInts mod p. */
export interface FieldInstance {
  readonly params: FieldParams;
  /** Addresses of the module's constants and stack (bytes). */
  readonly layout: { readonly heapBase: number; readonly minPages: number; readonly [key: string]: unknown };
  readonly wat: string;
  /** The pointer-level field over Wasm memory (src/field.js). */
  readonly field: unknown;
  mul(x: bigint, y: bigint): bigint;
  add(x: bigint, y: bigint): bigint;
  sub(x: bigint, y: bigint): bigint;
  sqr(x: bigint): bigint;
  neg(x: bigint): bigint;
  inv(x: bigint): bigint;
  /** A square root of x, or null when x is not a square mod p. */
  sqrt(x: bigint): bigint | null;
  /** With chainKernels: x = x * y (or x^2) k >= 1 times inside Wasm; x and y are element addresses. */
  readonly chains?: { mul(x: number, y: number, k: number): void; sqr(x: number, k: number): void };
}

export declare function deriveFieldParams(options: { p: bigint | string; w?: number; checkPrime?: boolean }): FieldParams;
/** The parameters as printable lines (module headers, the CLI). */
export declare function describeFieldParams(params: FieldParams): string[];
/** Assemble and validate WAT text with wabt; rejects with wabt's message (file:line). */
export declare function compileWat(watText: string, fileName?: string): Promise<Uint8Array>;
/** WAT text of the field module for { p, w }. */
export declare function generateFieldWat(options: FieldOptions): string;
export declare function instantiateField(options: FieldOptions): Promise<FieldInstance>;
