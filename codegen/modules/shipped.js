// The modules we ship: one per curve in codegen/curves/*.json, written to wasm/<curve>/<curve>.wat with
// its runtime parameters in wasm/<curve>/params.js. New curves go through the same path (scripts/codegen.js).

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCurve } from './curve-module.js';

const curvesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'curves');

export function shippedCurveNames() {
  return readdirSync(curvesDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

export function readCurveParams(name) {
  return JSON.parse(readFileSync(join(curvesDir, `${name}.json`), 'utf8'));
}

/**
 * [{ name, path, wat, paramsPath, paramsJs }] for every shipped module (paths relative to the repo root): per curve
 * the integer build (<curve>.wat, with params.js), the FMA build (<curve>.fma.wat; its runtime differences are
 * params.js's `fma`), the wide build (<curve>.wide.wat; params.js's `wide`), the GPU kernels (<curve>.wgsl;
 * params.js's `gpu`) and the scalar field with its NTT (<curve>.fr.wat, and its FMA build <curve>.fr.fma.wat; params.js's
 * `fr` and `fr.fma`).
 */
export function shippedModules() {
  return shippedCurveNames().flatMap((name) => {
    const { wat, fmaWat, wideWat, wgsl, wgslG2, frWat, frFmaWat, paramsJs } = generateCurve(readCurveParams(name), { generator: 'codegen/modules/shipped.js', fma: true, wide: true, gpu: true, fr: true });
    const paramsPath = `wasm/${name}/params.js`;
    return [
      { name, path: `wasm/${name}/${name}.wat`, wat, paramsPath, paramsJs },
      { name, kernel: 'fma', path: `wasm/${name}/${name}.fma.wat`, wat: fmaWat, paramsPath, paramsJs },
      { name, kernel: 'wide', path: `wasm/${name}/${name}.wide.wat`, wat: wideWat, paramsPath, paramsJs },
      // the GPU kernels (WGSL text, src/gpu/): written and checked like the WAT
      { name, kernel: 'gpu', path: `wasm/${name}/${name}.wgsl`, wat: wgsl, paramsPath, paramsJs },
      // the scalar field r with its NTT (src/fr/; params.js's `fr`)
      { name, kernel: 'fr', path: `wasm/${name}/${name}.fr.wat`, wat: frWat, paramsPath, paramsJs },
      { name, kernel: 'fr-fma', path: `wasm/${name}/${name}.fr.fma.wat`, wat: frFmaWat, paramsPath, paramsJs },
      ...(wgslG2 ? [{ name, kernel: 'gpu', path: `wasm/${name}/${name}.g2.wgsl`, wat: wgslG2, paramsPath, paramsJs }] : []),
    ];
  });
}
