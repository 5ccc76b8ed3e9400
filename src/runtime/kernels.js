// Which build of a curve's module runs here: the integer kernels (every engine), the FMA kernels (relaxed SIMD
// with a fused f64x2.relaxed_madd: Node >= 22, Chrome, Firefox; not Safari) or the wide kernels (the Wasm
// wide-arithmetic proposal: Chromium behind --js-flags=--wasm-wide-arithmetic, no Node yet). Nothing runs at
// import time, and a build is compiled only where its probe validates.

import { relaxedFmaSupport, wideArithmeticSupport } from './features.js';

export const KERNELS = Object.freeze(['auto', 'int', 'fma', 'wide']);

/**
 * The kernel a load asked for, resolved on this engine: 'auto' (the default) takes 'wide' when the curve has a wide
 * build (`hasWideBuild`) and the engine validates wide arithmetic, else 'fma' when it has an FMA build
 * (`hasFmaBuild`) and the engine's relaxed_madd is fused, else 'int'. 'fma' and 'wide' are errors where they
 * cannot run (the FMA kernels are exact only with one rounding per multiply-add), 'int' always runs.
 */
export function resolveKernel(kernel, { name, hasFmaBuild, hasWideBuild = false }) {
  if (!KERNELS.includes(kernel)) throw new RangeError(`kernel must be one of ${KERNELS.map((k) => `'${k}'`).join(', ')}, got ${JSON.stringify(kernel)}`);
  if (kernel === 'int') return 'int';
  const wide = hasWideBuild && wideArithmeticSupport();
  if (kernel === 'wide') {
    if (!hasWideBuild) throw new RangeError(`curve ${name} has no wide build`);
    if (!wide) throw new RangeError("kernel 'wide' needs the Wasm wide-arithmetic proposal, which this engine does not validate (Chromium: --js-flags=--wasm-wide-arithmetic; no Node yet): use 'auto'");
    return 'wide';
  }
  if (kernel === 'auto' && wide) return 'wide';
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

/** The runtime parameters of one build: the integer build's as shipped, or with its `fma` or `wide` differences applied. */
export function runtimeForKernel(runtime, kernel) {
  const { fma, wide, ...base } = runtime;
  if (kernel === 'int') return Object.freeze(base);
  const { g2, ...top } = { fma, wide }[kernel];
  return Object.freeze({ ...base, ...top, ...(base.g2 ? { g2: Object.freeze({ ...base.g2, ...g2 }) } : {}) });
}

/**
 * The Fr module's build for a curve's build (params.js's `fr`, with its FMA differences in `fr.fma`): the FMA one where
 * the curve runs FMA, or runs wide and this engine's relaxed multiply-add is fused (the wide build has no Fr module of
 * its own); else the integer one.
 */
export function frKernelFor(frRuntime, curveKernel) {
  if (!frRuntime?.fma || curveKernel === 'int') return 'int';
  return curveKernel === 'fma' || relaxedFmaSupport() === 'fused' ? 'fma' : 'int';
}

const frRuntimes = new WeakMap(); // params.js's fr -> { int, fma }: one frozen object per build (src/fr caches by it)

/** The runtime parameters of one Fr build: params.js's `fr` without `fma`, or with its `fma` differences applied. */
export function frRuntimeForKernel(frRuntime, kernel) {
  if (!frRuntimes.has(frRuntime)) {
    const { fma, ...base } = frRuntime;
    frRuntimes.set(frRuntime, { int: Object.freeze({ kernel: 'int', ...base }), fma: fma ? Object.freeze({ ...base, ...fma }) : null });
  }
  const built = frRuntimes.get(frRuntime)[kernel];
  if (!built) throw new RangeError(`no ${kernel} build of this scalar field`);
  return built;
}
