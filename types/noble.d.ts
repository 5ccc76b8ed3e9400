// Types of `wasmsm/noble` (src/adapters/noble.js): noble's pippenger(Point, points, scalars), computed by wasmsm.
// Structural: @noble/curves is the user's dependency, so a Point class is described by what the adapter uses.
import type { Curve, MsmOptions, ThreadsOptions, Kernel } from '../index.js';

/** A Point of @noble/curves (what the adapter reads from one). */
export interface NoblePoint {
  is0(): boolean;
  toAffine(invertedZ?: unknown): { x: unknown; y: unknown };
  equals(other: any): boolean;
}

/** A Point class of @noble/curves, e.g. bls12_381.G1.Point (v2). */
export interface NoblePointClass<P extends NoblePoint> {
  new (...args: any[]): P;
  readonly ZERO: P;
  readonly Fn: { readonly ORDER: bigint };
  readonly Fp?: { invertBatch?(values: any[]): any[] };
  CURVE?(): { p: bigint; n: bigint; a: unknown; b: unknown };
  fromAffine(point: { x: any; y: any }): P;
}

/** Options of load(). */
export interface NobleLoadOptions {
  /** The wasmsm curve to run on (a Curve or its .g2), e.g. one made with the codegen; default: the shipped curve with the class's p, n, a, b. */
  curve?: Curve<any>;
  /** Which build of a shipped curve loads (as loadCurve's option). */
  kernel?: 'auto' | Kernel;
}

/** Options of an MSM: checkSubgroup defaults to true on a curve with a cofactor. */
export type NobleMsmOptions = MsmOptions;

/** A pool of threads for one Point class's MSMs. */
export interface NoblePool<P extends NoblePoint> {
  msm(points: P[], scalars: bigint[], options?: NobleMsmOptions & { signal?: AbortSignal }): Promise<P>;
  close(): Promise<void>;
}

/** The MSM of one Point class on a loaded wasmsm curve. */
export declare class NobleMsm<P extends NoblePoint> {
  constructor(Point: NoblePointClass<P>, curve: Curve<any>);
  readonly curve: Curve<any>;
  /** sum scalars[i] * points[i]; the inputs checked as noble's pippenger checks them. Variable time. */
  msm(points: P[], scalars: bigint[], options?: NobleMsmOptions): P;
  threads(options?: ThreadsOptions): Promise<NoblePool<P>>;
}

/** Load the wasmsm curve for a Point class (once per call: keep the result). */
export declare function load<P extends NoblePoint>(Point: NoblePointClass<P>, options?: NobleLoadOptions): Promise<NobleMsm<P>>;

/** noble's pippenger(Point, points, scalars) by wasmsm; the first call for a class loads its curve. */
export declare function msm<P extends NoblePoint>(Point: NoblePointClass<P>, points: P[], scalars: bigint[], options?: NobleMsmOptions): Promise<P>;
