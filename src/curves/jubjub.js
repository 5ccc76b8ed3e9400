// jubjub: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/jubjub/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/jubjub/jubjub.wasm.js'),
  () => import('../../wasm/jubjub/jubjub.fma.wasm.js'),
  () => import('../../wasm/jubjub/jubjub.wide.wasm.js'),
  () => import('../../wasm/jubjub/jubjub.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/jubjub/jubjub.fr.fma.wasm.js') : import('../../wasm/jubjub/jubjub.fr.wasm.js')),
);
