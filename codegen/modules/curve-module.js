// One curve as one Wasm module: its base field (prefix fp), curve kernels (prefix g) and, when the curve
// has the GLV endomorphism, scalar decomposition (prefix glv). Also the plain-data runtime parameters
// that src/ needs (src never imports codegen, so these are written next to the module as JS).

import { buildGpuModule } from './gpu-module.js';
import { buildFieldModule } from './field-module.js';
import { curveKernels, curveSizes } from '../kernels/curve.js';
import { glvKernels as defaultGlvKernels } from '../kernels/scalar-glv.js';
import { msmDigits, msmBucketSort } from '../kernels/msm.js';
import { modelKernels, degreeTwoEndomorphism } from '../kernels/model.js';
import { modelConstants } from '../params/models.js';
import { deriveCurveParams } from '../params/curve.js';
import { buildGlvParams, describeGlvParams } from '../params/glv.js';
import { deriveG2Params } from '../params/g2.js';
import { fp2Kernels } from '../kernels/field2.js';
import { deriveFieldParams } from '../params/field.js';
import { fmaCrandallFits } from '../kernels/field-mul-fma-crandall.js';
import { generateFrModule } from './fr-module.js';

const hex = (x) => (x < 0n ? '-0x' + (-x).toString(16) : '0x' + x.toString(16));

/**
 * @param curve from deriveCurveParams
 * @param options.glv from buildGlvParams (or null), options.glvKernels the kernel generator
 * @param options.kernel 'int' (curve.field's integer limbs) or 'fma': the same module over the FMA layout (u64 words
 *   of 51/52-bit limbs, relaxed-SIMD products; codegen/params/field.js), with G1's batch addition four products per call;
 *   or 'wide': over 64-bit limbs with the wide-arithmetic products, one product per call
 */
export function buildCurveModule(curve, { glv = null, g2 = null, glvKernels = defaultGlvKernels, mulShape = 'auto', generator = 'codegen/modules/curve-module.js', kernel = 'int' } = {}) {
  const fieldParams = kernel === 'int' ? curve.field : kernel === 'fma' ? fmaFieldParams(curve) : deriveFieldParams({ p: curve.p, kernel, checkPrime: false });
  const extraConstants = [
    { name: 'curveA', value: curve.a, note: 'curve coefficient a' },
    { name: 'curveB', value: curve.b, note: 'curve coefficient b' },
  ];
  const degreeTwo = glv?.endomorphism?.kind === 'degree-2';
  if (glv && !degreeTwo) extraConstants.push({ name: 'beta', value: glv.beta, note: 'beta, a cube root of unity: lambda * (x, y) = (beta x, y)' });
  if (degreeTwo) {
    const { x0, v, m2, m3 } = glv.endomorphism;
    extraConstants.push(
      { name: 'endoX0', value: x0, note: 'GLV map psi: x0 of the kernel point (x0, 0)' },
      { name: 'endoV', value: v, note: 'GLV map psi: v = 3 x0^2 + a' },
      { name: 'endoM2', value: m2, note: 'GLV map psi: m^2' },
      { name: 'endoM3', value: m3, note: 'GLV map psi: m^3' },
    );
  }
  const model = curve.model;
  if (model) {
    const notes = {
      mapInvB: '1/B of the Montgomery form (into the Weierstrass image)', mapShift: 'A/(3B) (into the Weierstrass image)',
      mapB: 'B of the Montgomery form (back from the Weierstrass image)', mapAThird: 'A/3 (back)',
      teA: 'twisted Edwards a', teD: 'twisted Edwards d', montA: 'Montgomery A', montB: 'Montgomery B',
    };
    for (const [name, value] of Object.entries(modelConstants(model, curve.p))) extraConstants.push({ name, value, note: notes[name] });
  }
  if (g2) {
    extraConstants.push({ name: 'g2B', value: [g2.b.c0, g2.b.c1], note: "G2: the twist's coefficient b' in F_p2" });
    if (g2.glvOmega !== null) extraConstants.push({ name: 'g2Omega', value: [g2.glvOmega, 0n], note: 'G2: omega in F_p2, lambda * (x, y) = (omega x, y) on G2' });
  }
  const headerLines = [
    ...(model ? [model.kind === 'twisted-edwards'
      ? `twisted Edwards curve ${curve.name}: a x^2 + y^2 = 1 + d x^2 y^2, a = ${hex(model.coefficients.a)}, d = ${hex(model.coefficients.d)}; the MSM runs on its image:`
      : `Montgomery curve ${curve.name}: B v^2 = u^3 + A u^2 + u, A = ${hex(model.A)}, B = ${hex(model.B)}; the MSM runs on its image:`] : []),
    `curve ${curve.name}: y^2 = x^3 + ${hex(curve.a)} x + ${hex(curve.b)}, r = ${hex(curve.r)} (${curve.rBits} bits), h = ${hex(curve.h)}`,
    ...(glv ? describeGlvParams(glv) : ['GLV: none (no cheap endomorphism on this curve): plain signed windows']),
    ...(g2 ? [
      `G2 (prefix g2, over F_p2 = F_p[u] / (u^2 - ${g2.nonResidue}), prefix fp2): y^2 = x^3 + (${hex(g2.b.c0)} + ${hex(g2.b.c1)} u), h = ${hex(g2.h)}`,
      g2.glvOmega !== null ? `G2 GLV: (x, y) -> (${hex(g2.glvOmega)} x, y) acts as lambda on G2: G1's scalar decomposition serves both` : 'G2 GLV: none',
    ] : []),
  ];
  const { module, layout, f } = buildFieldModule(fieldParams, {
    prefix: 'fp', mulShape, generator, title: `${curve.name} (base field, curve and scalar kernels)`, extraConstants, headerLines,
  });
  module.globals.push('(global $sink (mut i32) (i32.const 0))');
  const codec = !model;
  for (const fn of curveKernels(fieldParams, { fp: f, layout, aIsZero: curve.a === 0n, hasEndomorphism: !!glv && !degreeTwo, batchedProducts: kernel === 'fma', codec })) module.add(fn);
  if (model) for (const fn of modelKernels(fieldParams, { fp: f, layout, model: model.kind })) module.add(fn);
  if (degreeTwo) module.add(degreeTwoEndomorphism(fieldParams, { fp: f, layout }));
  if (glv && glvKernels) for (const fn of glvKernels(glv, { prefix: 'glv' })) module.add(fn);
  if (g2) {
    const f2 = (op) => `fp2_${op}`;
    for (const fn of fp2Kernels(fieldParams, { fp: f, prefix: 'fp2', nonResidue: g2.nonResidue, batched: kernel === 'fma' })) module.add(fn);
    const fp2Shape = { elementBytes: 2 * fieldParams.elementBytes, bytes: 2 * fieldParams.bytes };
    const g2Layout = { curveB: layout.g2B, beta: layout.g2Omega, r2: layout.r2 };
    // base: F_p under F_p2, whose products come four per call in the FMA build (mul4)
    const base = { fp: f, E: fieldParams.elementBytes, batched: kernel === 'fma' };
    for (const fn of curveKernels(fp2Shape, { fp: f2, layout: g2Layout, aIsZero: true, hasEndomorphism: g2.glvOmega !== null, prefix: 'g2', base })) module.add(fn);
  }
  module.add(msmDigits());
  module.add(msmBucketSort());
  return { module, layout, runtime: runtimeParams(curve, layout, glv, g2, fieldParams) };
}

/**
 * The FMA build's field: Crandall's reduction where the curve's integer build has it and the FMA product's bounds
 * hold for p (ed25519: 2^255 - 19 in five 52-bit limbs), else Montgomery's.
 */
function fmaFieldParams(curve) {
  if (curve.field.reduction === 'crandall') {
    const params = deriveFieldParams({ p: curve.p, kernel: 'fma', checkPrime: false, reduction: 'crandall' });
    if (fmaCrandallFits(params)) return params;
  }
  return deriveFieldParams({ p: curve.p, kernel: 'fma', checkPrime: false });
}

/** What src/ needs to drive the module: sizes, offsets, and the curve constants as BigInts. */
export function runtimeParams(curve, layout, glv, g2 = null, fp = curve.field) {
  const field = { p: fp.p, w: fp.w, n: fp.n, bits: fp.bits, bytes: fp.bytes, elementBytes: fp.elementBytes };
  const kernel = fp.kernel;
  const glvRuntime = glv ? { lambda: glv.lambda, halfBits: glv.halfBits, H: glv.H, recordBytes: glv.recordBytes } : null;
  const shared = { name: curve.name, p: curve.p, r: curve.r, rBits: curve.rBits, scalarBytes: curve.scalarBytes, minPages: layout.minPages };
  const model = curve.model;
  const coefficients = model ? { model: model.kind, ...model.coefficients } : { a: curve.a, b: curve.b };
  const runtime = {
    ...shared,
    group: 'G1',
    kernel,
    ...coefficients, h: curve.h,
    generator: model ? { x: model.generator.x, y: model.generator.y } : { x: curve.generator.x, y: curve.generator.y },
    ...(model ? { weierstrass: { a: curve.a, b: curve.b, generator: { x: curve.generator.x, y: curve.generator.y } } } : {}),
    field,
    ...curveSizes(fp),
    glv: glvRuntime,
  };
  if (g2) {
    // G2 runs the same MSM over the module's g2_* functions (src/runtime/loader.js maps them in); its
    // coordinates are F_p2 elements, c0 | c1, so a coordinate takes 2 * bytes.
    const fp2Shape = { elementBytes: 2 * fp.elementBytes, bytes: 2 * fp.bytes };
    runtime.g2 = {
      ...shared,
      group: 'G2',
      kernel,
      a: 0n, b: { c0: g2.b.c0, c1: g2.b.c1 }, h: g2.h,
      nonResidue: g2.nonResidue,
      generator: { x: { c0: g2.generator.x.c0, c1: g2.generator.x.c1 }, y: { c0: g2.generator.y.c0, c1: g2.generator.y.c1 } },
      field: { p: fp.p, degree: 2, bytes: fp2Shape.bytes, elementBytes: fp2Shape.elementBytes, base: field },
      ...curveSizes(fp2Shape),
      glv: g2.glvOmega !== null ? glvRuntime : null,
    };
  }
  return runtime;
}

/**
 * The runtime parameters as an ES module of plain data (BigInts written as literals). A large BigInt written more than
 * once (p above all: each build and G2 repeat it) is declared once as a const named after its first key, which keeps
 * the curve's browser bundle small (a minifier renames a const, never dedupes a literal).
 */
export function runtimeParamsJs(runtime, source) {
  const uses = new Map();
  const count = (v, key) => {
    if (typeof v === 'bigint' && v >= 1n << 64n) {
      const u = uses.get(v) ?? { key, times: 0 };
      u.times++;
      uses.set(v, u);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) count(x, k);
  };
  count(runtime, 'value');
  const names = new Map();
  const taken = new Set();
  for (const [v, { key, times }] of uses) {
    if (times < 2) continue;
    let name = /^[A-Za-z_]\w*$/.test(key) ? key : 'value';
    for (let i = 2; taken.has(name); i++) name = `${key}${i}`;
    taken.add(name);
    names.set(v, name);
  }
  const lit = (v, indent = '') => {
    if (typeof v === 'bigint') return names.get(v) ?? `${hex(v)}n`;
    if (v === null) return 'null';
    if (typeof v === 'object') {
      const inner = Object.entries(v).map(([k, x]) => `${indent}  ${k}: ${lit(x, indent + '  ')},`).join('\n');
      return `Object.freeze({\n${inner}\n${indent}})`;
    }
    return JSON.stringify(v);
  };
  const consts = [...names].map(([v, name]) => `const ${name} = ${hex(v)}n;\n`).join('');
  return `// Generated by ${source}; do not edit (regenerate with npm run gen).\n${consts}export default ${lit(runtime)};\n`;
}

/**
 * What the FMA (or wide) build's runtime parameters change in the integer build's: the field's limb shape, the sizes that
 * follow from it (E, affineBytes, ...), minPages and kernel, for G1 and G2. src/runtime/kernels.js applies it.
 */
export function kernelOverrides(intRuntime, otherRuntime) {
  const same = (a, b) => JSON.stringify(a, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) === JSON.stringify(b, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
  const diff = {};
  for (const [k, v] of Object.entries(otherRuntime)) {
    if (k === 'g2' && v) diff.g2 = kernelOverrides(intRuntime.g2, v);
    else if (!same(intRuntime[k], v)) diff[k] = v;
  }
  return diff;
}

/**
 * From a curve params JSON object to the module text and its runtime params: the one path for shipped
 * and user curves. options.w overrides the limb size; options.glv = false disables the endomorphism;
 * options.fma also builds the FMA module (fmaWat), whose runtime differences go in runtime.fma; options.wide the wide
 * module (wideWat), in runtime.wide.
 */
export function generateCurve(json, { w, glv: useGlv = true, generator = 'codegen/modules/curve-module.js', mulShape = 'auto', fma = false, wide = false, gpu = false, fr = false } = {}) {
  const curve = deriveCurveParams(json, { w });
  const glv = useGlv ? buildGlvParams(curve) : null;
  const g2 = json.g2 === undefined ? null : deriveG2Params(curve, json.g2, glv);
  const { module, runtime: intRuntime } = buildCurveModule(curve, { glv, g2, generator, mulShape });
  const runtime = { ...intRuntime };
  const other = { fma: null, wide: null };
  for (const kernel of ['fma', 'wide']) {
    if (!(kernel === 'fma' ? fma : wide)) continue;
    const built = buildCurveModule(curve, { glv, g2, generator, kernel });
    other[kernel] = built.module.render();
    runtime[kernel] = kernelOverrides(intRuntime, built.runtime);
  }
  // options.gpu also builds the WGSL module of G1 (wgsl), whose shape goes in runtime.gpu, and of G2 (wgslG2,
  // runtime.g2.gpu) where the curve has one; gpu 'optional' leaves them out of a curve that has no GPU kernels
  // (a Montgomery-form curve), with the reason in gpuError
  let wgsl = null;
  let wgslG2 = null;
  let gpuError = null;
  if (gpu) {
    try {
      const g1 = buildGpuModule(json, { scalarBytes: runtime.scalarBytes, glv, generator });
      const g2Module = runtime.g2 ? buildGpuModule(json, { scalarBytes: runtime.g2.scalarBytes, group: 'G2', glv, glvOmega: g2?.glvOmega ?? null, generator }) : null;
      ({ wgsl } = g1);
      runtime.gpu = g1.gpu;
      if (g2Module) {
        wgslG2 = g2Module.wgsl;
        runtime.g2 = { ...runtime.g2, gpu: g2Module.gpu };
      }
    } catch (e) {
      if (gpu !== 'optional') throw e;
      gpuError = e.message;
    }
  }
  // options.fr also builds the scalar field's module with its NTT (frWat, codegen/modules/fr-module.js), shape in runtime.fr
  // (fr 'optional' leaves it out of a curve whose r has no such module, a toy r of a few bits, with the reason in frError)
  // (with options.fma, also its FMA build: frFmaWat, shape differences in runtime.fr.fma)
  let frWat = null;
  let frFmaWat = null;
  let frError = null;
  if (fr) {
    try {
      const built = generateFrModule(json, { generator });
      // both builds or neither: a params.js with fr.fma always has its module
      const builtFma = fma ? generateFrModule(json, { generator, kernel: 'fma' }) : null;
      frWat = built.wat;
      runtime.fr = built.runtime;
      if (builtFma) {
        frFmaWat = builtFma.wat;
        const { kernel, w, n, elementBytes, minPages } = builtFma.runtime;
        runtime.fr = { ...runtime.fr, fma: { kernel, w, n, elementBytes, minPages } };
      }
    } catch (e) {
      if (fr !== 'optional') throw e;
      frError = e.message;
    }
  }
  return { curve, glv, g2, runtime, wat: module.render(), fmaWat: other.fma, wideWat: other.wide, wgsl, wgslG2, gpuError, frWat, frFmaWat, frError, paramsJs: runtimeParamsJs(runtime, generator) };
}
