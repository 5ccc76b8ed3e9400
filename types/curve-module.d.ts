// Types of each curve subpath, `wasmsm/curves/<curve>` (src/curves/<curve>.js): importing one curve's
// subpath bundles only that curve.
import type { Curve, CurveParams } from '../index.js';

/** The curve's plain-data parameters (no Wasm is loaded to read them). */
export declare const params: CurveParams;
/** Compile and instantiate the curve's Wasm on the first call; later calls resolve to the same Curve. */
export declare function load(): Promise<Curve>;
