// grumpkin: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/grumpkin/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/grumpkin/grumpkin.wasm.js'),
  () => import('../../wasm/grumpkin/grumpkin.fma.wasm.js'),
  () => import('../../wasm/grumpkin/grumpkin.wide.wasm.js'),
  () => import('../../wasm/grumpkin/grumpkin.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/grumpkin/grumpkin.fr.fma.wasm.js') : import('../../wasm/grumpkin/grumpkin.fr.wasm.js')),
);
