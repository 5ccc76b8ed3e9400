// bls12-381: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/bls12-381/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/bls12-381/bls12-381.wasm.js'),
  () => import('../../wasm/bls12-381/bls12-381.fma.wasm.js'),
  () => import('../../wasm/bls12-381/bls12-381.wide.wasm.js'),
  (group) => (group === 'G2' ? import('../../wasm/bls12-381/bls12-381.g2.wgsl.js') : import('../../wasm/bls12-381/bls12-381.wgsl.js')),
  (kernel) => (kernel === 'fma' ? import('../../wasm/bls12-381/bls12-381.fr.fma.wasm.js') : import('../../wasm/bls12-381/bls12-381.fr.wasm.js')),
);
