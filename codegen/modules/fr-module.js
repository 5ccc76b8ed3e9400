// The scalar field r of a curve as its own Wasm module (prefix fr): every field kernel of field-module.js over r, plus
// the NTT kernels (codegen/kernels/ntt.js, fr-arrays.js), batch byte conversions and the Groth16 prover's kernels
// (codegen/kernels/groth16.js). Two builds, as for the curve: the integer one (wasm/<curve>/<curve>.fr.wat, 30-bit
// limbs in u32 words) and the FMA one (<curve>.fr.fma.wat: 51/52-bit limbs in u64 words, products by relaxed-SIMD
// fused multiply-add, four per call in the NTT's butterflies and every other loop). Their runtime shapes go in
// params.js's `fr` and `fr.fma` (src/fr/ loads one when curve.fr() is called).

import { buildFieldModule } from './field-module.js';
import { nttKernels } from '../kernels/ntt.js';
import { groth16Kernels, witnessScale } from '../kernels/groth16.js';
import { deriveFrParams } from '../params/fr.js';
import { deriveFieldParams } from '../params/field.js';

const hex = (x) => '0x' + x.toString(16);

/**
 * @param json a curve params object (codegen/curves/*.json): its r
 * @param options.kernel 'int' (default) or 'fma': the FMA layout (deriveFieldParams kernel 'fma'), needing relaxed SIMD
 * @returns { wat, fr (deriveFrParams), runtime: the plain data src/fr needs }
 */
export function generateFrModule(json, { generator = 'codegen/modules/fr-module.js', kernel = 'int' } = {}) {
  if (kernel !== 'int' && kernel !== 'fma') throw new RangeError(`fr module: kernel must be 'int' or 'fma', got ${JSON.stringify(kernel)}`);
  const fr = deriveFrParams(BigInt(json.r));
  const params = kernel === 'int' ? fr.field : Object.freeze({ ...deriveFieldParams({ p: fr.r, kernel, checkPrime: false }), bytes: fr.n8 });
  const { module, layout } = buildFieldModule(params, {
    prefix: 'fr',
    generator,
    extraConstants: [{ name: 'qapScale', value: witnessScale(params), note: "(R / R_ff)^2, R_ff = 2^(8 bytes): a .wtns value times it, for the zkey's coefficients (codegen/kernels/groth16.js)" }],
    title: `scalar field r of ${json.name} (p below is r)${kernel === 'fma' ? ', FMA build' : ''}`,
    headerLines: [
      `NTT: r - 1 = 2^${fr.s} q (two-adicity s = ${fr.s}); a primitive 2^s-th root of unity is z^q = ${hex(fr.rootOfUnity)},`,
      `z = ${fr.nonResidue} the least quadratic non-residue; default coset generator g = ${fr.cosetGenerator} (g^(2^s) != 1)`,
      `bytes: ${params.bytes} little-endian bytes per canonical element (n8, as snarkjs / ffjavascript)`,
      'NTT kernels: codegen/kernels/ntt.js (layer and butterfly ranges, twiddle tables) and fr-arrays.js (bit reversal, powers, batch bytes)',
      "Groth16 kernels: codegen/kernels/groth16.js (a snarkjs zkey's coefficients and witness to the QAP, and A B - C)",
    ],
  });
  for (const fn of nttKernels(params, { f: (op) => `fr_${op}`, layout })) module.add(fn);
  for (const fn of groth16Kernels(params, { prefix: 'fr', scaleAddress: layout.qapScale, oneAddress: layout.oneNormal })) module.add(fn);
  const runtime = {
    kernel,
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
