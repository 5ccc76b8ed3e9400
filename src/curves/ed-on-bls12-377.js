// ed-on-bls12-377: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/ed-on-bls12-377/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.wasm.js'),
  () => import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.fma.wasm.js'),
  () => import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.wide.wasm.js'),
  () => import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.fr.fma.wasm.js') : import('../../wasm/ed-on-bls12-377/ed-on-bls12-377.fr.wasm.js')),
);
