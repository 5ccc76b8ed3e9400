// bn254: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/bn254/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/bn254/bn254.wasm.js'),
  () => import('../../wasm/bn254/bn254.fma.wasm.js'),
  () => import('../../wasm/bn254/bn254.wide.wasm.js'),
  (group) => (group === 'G2' ? import('../../wasm/bn254/bn254.g2.wgsl.js') : import('../../wasm/bn254/bn254.wgsl.js')),
  (kernel) => (kernel === 'fma' ? import('../../wasm/bn254/bn254.fr.fma.wasm.js') : import('../../wasm/bn254/bn254.fr.wasm.js')),
);
