// baby-jubjub: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/baby-jubjub/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/baby-jubjub/baby-jubjub.wasm.js'),
  () => import('../../wasm/baby-jubjub/baby-jubjub.fma.wasm.js'),
  () => import('../../wasm/baby-jubjub/baby-jubjub.wide.wasm.js'),
  () => import('../../wasm/baby-jubjub/baby-jubjub.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/baby-jubjub/baby-jubjub.fr.fma.wasm.js') : import('../../wasm/baby-jubjub/baby-jubjub.fr.wasm.js')),
);
