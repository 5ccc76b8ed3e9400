// Types of each curve subpath, `wasmsm/curves/<curve>` (src/curves/<curve>.js): importing one curve's
// subpath bundles only that curve.
import type { Curve, CurveParams, LoadOptions } from '../index.js';

/** The curve's plain-data parameters (no Wasm is loaded to read them). */
export declare const params: CurveParams;
/**
 * Compile and instantiate the curve's Wasm on the first call (options.kernel picks the build, as loadCurve's);
 * later calls for the same build resolve to the same Curve.
 */
export declare function load(options?: LoadOptions): Promise<Curve>;
