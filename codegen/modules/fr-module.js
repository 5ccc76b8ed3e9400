// The scalar field r of a curve as its own Wasm module (prefix fr): every field kernel of field-module.js over r, plus
// the NTT kernels (codegen/kernels/ntt.js), batch byte conversions and the Groth16 prover's kernels
// (codegen/kernels/groth16.js). Written to wasm/<curve>/<curve>.fr.wat; its runtime shape goes in params.js's `fr`
// (src/fr/ loads it when curve.fr() is called).

import { buildFieldModule } from './field-module.js';
import { nttKernels } from '../kernels/ntt.js';
import { groth16Kernels, witnessScale } from '../kernels/groth16.js';
import { deriveFrParams } from '../params/fr.js';

const hex = (x) => '0x' + x.toString(16);

/**
 * @param json a curve params object (codegen/curves/*.json): its r
 * @returns { wat, fr (deriveFrParams), runtime: the plain data src/fr needs }
 */
export function generateFrModule(json, { generator = 'codegen/modules/fr-module.js' } = {}) {
  const fr = deriveFrParams(BigInt(json.r));
  const { field: params } = fr;
  const { module, layout } = buildFieldModule(params, {
    prefix: 'fr',
    generator,
    extraConstants: [{ name: 'qapScale', value: witnessScale(params), note: "(R / R_ff)^2, R_ff = 2^(8 bytes): a .wtns value times it, for the zkey's coefficients (codegen/kernels/groth16.js)" }],
    title: `scalar field r of ${json.name} (p below is r)`,
    headerLines: [
      `NTT: r - 1 = 2^${fr.s} q (two-adicity s = ${fr.s}); a primitive 2^s-th root of unity is z^q = ${hex(fr.rootOfUnity)},`,
      `z = ${fr.nonResidue} the least quadratic non-residue; default coset generator g = ${fr.cosetGenerator} (g^(2^s) != 1)`,
      `bytes: ${params.bytes} little-endian bytes per canonical element (n8, as snarkjs / ffjavascript)`,
      'NTT kernels: codegen/kernels/ntt.js (layer and butterfly ranges, twiddle tables, bit reversal, powers, batch bytes)',
      "Groth16 kernels: codegen/kernels/groth16.js (a snarkjs zkey's coefficients and witness to the QAP, and A B - C)",
    ],
  });
  for (const fn of nttKernels(params, { f: (op) => `fr_${op}` })) module.add(fn);
  for (const fn of groth16Kernels(params, { prefix: 'fr', scaleAddress: layout.qapScale })) module.add(fn);
  const runtime = {
    r: fr.r,
    w: params.w,
    n: params.n,
    bits: params.bits,
    bytes: params.bytes,
    elementBytes: params.elementBytes,
    minPages: layout.minPages,
    s: fr.s,
    rootOfUnity: fr.rootOfUnity,
    cosetGenerator: fr.cosetGenerator,
  };
  return { wat: module.render(), fr, runtime };
}
