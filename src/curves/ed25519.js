// ed25519: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/ed25519/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/ed25519/ed25519.wasm.js'),
  () => import('../../wasm/ed25519/ed25519.fma.wasm.js'),
  () => import('../../wasm/ed25519/ed25519.wide.wasm.js'),
  () => import('../../wasm/ed25519/ed25519.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/ed25519/ed25519.fr.fma.wasm.js') : import('../../wasm/ed25519/ed25519.fr.wasm.js')),
);
