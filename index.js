// wasmsm: multi-scalar multiplication in WebAssembly. Each curve's Wasm loads only when that curve is
// asked for; nothing is instantiated at import time.

const loaders = {
  'bls12-381': () => import('./src/curves/bls12-381.js'),
  bn254: () => import('./src/curves/bn254.js'),
  'bls12-377': () => import('./src/curves/bls12-377.js'),
  pallas: () => import('./src/curves/pallas.js'),
  vesta: () => import('./src/curves/vesta.js'),
  secp256k1: () => import('./src/curves/secp256k1.js'),
  grumpkin: () => import('./src/curves/grumpkin.js'),
  ed25519: () => import('./src/curves/ed25519.js'),
  jubjub: () => import('./src/curves/jubjub.js'),
  bandersnatch: () => import('./src/curves/bandersnatch.js'),
  'baby-jubjub': () => import('./src/curves/baby-jubjub.js'),
  'ed-on-bls12-377': () => import('./src/curves/ed-on-bls12-377.js'),
};

/** Names accepted by loadCurve. */
export const curveNames = Object.freeze(Object.keys(loaders));

/**
 * Load a shipped curve: compiles its Wasm once, later calls return the same curve object.
 * @param {string} name one of curveNames
 * @param {{ kernel?: 'auto' | 'int' | 'fma' | 'wide' }} [options] which build: 'auto' (default) runs the wide build
 *   where the engine validates wide arithmetic, else the FMA build where it has a fused relaxed-SIMD multiply-add,
 *   else the integer build; curve.kernel says which runs
 * @returns {Promise<import('./src/curve.js').Curve>}
 */
export async function loadCurve(name, options) {
  if (typeof name !== 'string' || !Object.hasOwn(loaders, name)) {
    throw new RangeError(`unknown curve ${JSON.stringify(name)}; known curves: ${curveNames.join(', ')}`);
  }
  const { load } = await loaders[name]();
  return load(options);
}

/**
 * A shipped curve's parameters (p, r, a, b, h, generator, g2, ...), without loading its Wasm: what the adapters
 * (wasmsm/noble) match another library's curve against.
 * @param {string} name one of curveNames
 */
export async function curveParams(name) {
  if (typeof name !== 'string' || !Object.hasOwn(loaders, name)) {
    throw new RangeError(`unknown curve ${JSON.stringify(name)}; known curves: ${curveNames.join(', ')}`);
  }
  return (await loaders[name]()).params;
}

export { Curve } from './src/curve.js';
export { GpuUnavailableError, GpuDeviceLostError } from './src/gpu/errors.js';
export { curveLoader } from './src/curve.js';
