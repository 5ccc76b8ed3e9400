// pallas: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/pallas/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/pallas/pallas.wasm.js'),
  () => import('../../wasm/pallas/pallas.fma.wasm.js'),
  () => import('../../wasm/pallas/pallas.wide.wasm.js'),
  () => import('../../wasm/pallas/pallas.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/pallas/pallas.fr.fma.wasm.js') : import('../../wasm/pallas/pallas.fr.wasm.js')),
);
