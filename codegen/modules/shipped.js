// The modules we ship: one per curve in codegen/curves/*.json, written to wasm/<curve>/<curve>.wat.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveFieldParams } from '../params/field.js';
import { fieldModuleWat } from './field-module.js';

const curvesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'curves');

/** Limb size per shipped curve, from bench/field.bench.js on the reference machine. */
export const DEFAULT_LIMB_BITS = 30;

export function shippedCurveNames() {
  return readdirSync(curvesDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

export function readCurveParams(name) {
  return JSON.parse(readFileSync(join(curvesDir, `${name}.json`), 'utf8'));
}

/** [{ path (relative to the repo root), wat }] for every shipped curve. */
export function shippedModules() {
  return shippedCurveNames().map((name) => {
    const curve = readCurveParams(name);
    const params = deriveFieldParams({ p: BigInt(curve.p), w: curve.w ?? DEFAULT_LIMB_BITS });
    const { wat } = fieldModuleWat(params, { prefix: 'fp', generator: 'codegen/modules/shipped.js', title: `${name} base field` });
    return { name, path: `wasm/${name}/${name}.wat`, wat };
  });
}
