// secp256k1: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/secp256k1/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/secp256k1/secp256k1.wasm.js'),
  () => import('../../wasm/secp256k1/secp256k1.fma.wasm.js'),
  () => import('../../wasm/secp256k1/secp256k1.wide.wasm.js'),
  () => import('../../wasm/secp256k1/secp256k1.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/secp256k1/secp256k1.fr.fma.wasm.js') : import('../../wasm/secp256k1/secp256k1.fr.wasm.js')),
);
