// bandersnatch: runtime parameters, and its Wasm (the integer, FMA or wide build), GPU kernels (WGSL) and scalar field (Fr, NTT) loaded only when asked for.
import params from '../../wasm/bandersnatch/params.js';
import { curveLoader } from '../curve.js';

export { params };
export const load = curveLoader(
  params,
  () => import('../../wasm/bandersnatch/bandersnatch.wasm.js'),
  () => import('../../wasm/bandersnatch/bandersnatch.fma.wasm.js'),
  () => import('../../wasm/bandersnatch/bandersnatch.wide.wasm.js'),
  () => import('../../wasm/bandersnatch/bandersnatch.wgsl.js'),
  (kernel) => (kernel === 'fma' ? import('../../wasm/bandersnatch/bandersnatch.fr.fma.wasm.js') : import('../../wasm/bandersnatch/bandersnatch.fr.wasm.js')),
);
