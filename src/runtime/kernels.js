// Which build of a curve's module runs here: the integer kernels (every engine) or the FMA kernels (relaxed SIMD
// with a fused f64x2.relaxed_madd: Node >= 22, Chrome, Firefox; not Safari). Nothing runs at import time.

import { relaxedFmaSupport } from './features.js';

export const KERNELS = Object.freeze(['auto', 'int', 'fma']);

/**
 * The kernel a load asked for, resolved on this engine: 'auto' (the default) takes 'fma' when the curve has an FMA
 * build (`hasFmaBuild`) and the engine's relaxed_madd is fused, else 'int'; 'fma' is an error where it cannot run
 * (the kernels are exact only with one rounding per multiply-add), 'int' always runs.
 */
export function resolveKernel(kernel, { name, hasFmaBuild }) {
  if (!KERNELS.includes(kernel)) throw new RangeError(`kernel must be one of ${KERNELS.map((k) => `'${k}'`).join(', ')}, got ${JSON.stringify(kernel)}`);
  if (kernel === 'int') return 'int';
  const support = hasFmaBuild ? relaxedFmaSupport() : 'no FMA build';
  if (kernel === 'auto') return support === 'fused' ? 'fma' : 'int';
  if (!hasFmaBuild) throw new RangeError(`curve ${name} has no FMA build (its params have no fma section, or its loader no FMA Wasm)`);
  if (support !== 'fused') {
    throw new RangeError(support === 'unsupported'
      ? "kernel 'fma' needs relaxed SIMD, which this engine does not validate (Node 20 needs --experimental-wasm-relaxed-simd; Safari lacks it): use 'int' or 'auto'"
      : "kernel 'fma' needs a fused f64x2.relaxed_madd, and this engine rounds twice: use 'int' or 'auto'");
  }
  return 'fma';
}

/** The runtime parameters of one build: the integer build's as shipped, or with its `fma` differences applied. */
export function runtimeForKernel(runtime, kernel) {
  const { fma, ...base } = runtime;
  if (kernel === 'int') return Object.freeze(base);
  const { g2, ...top } = fma;
  return Object.freeze({ ...base, ...top, ...(base.g2 ? { g2: Object.freeze({ ...base.g2, ...g2 }) } : {}) });
}
