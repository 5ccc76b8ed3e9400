// vesta: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/vesta/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/vesta/vesta.wasm.js'),
  () => import('../../wasm/vesta/vesta.fma.wasm.js'),
  () => import('../../wasm/vesta/vesta.wide.wasm.js'),
  () => import('../../wasm/vesta/vesta.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/vesta/vesta.fr.fma.wasm.js') : import('../../wasm/vesta/vesta.fr.wasm.js')),
);
