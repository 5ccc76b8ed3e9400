#!/usr/bin/env node
// Code generation for curves and fields we do not ship. Entry points (all the same script):
//   node scripts/codegen.js <command> ...      npm run codegen -- <command> ...      npx wasmsm codegen <command> ...
//
//   curve  a params file (JSON) -> a folder with index.js (export async function load()), params.js and the
//          module as <name>.wat / .wasm / .wasm.js (and its other builds, GPU kernels and scalar field <name>.fr.*);
//          through generateCurve, the same path as the shipped curves
//   field  Montgomery field arithmetic for one odd prime -> field.wat / .wasm / .wasm.js
//
// Exit status: 0 on success, 1 when the input is rejected (the message says which field is wrong and why),
// 2 for usage errors. Set DEBUG=1 for stack traces.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { InputError, MAX_P_BITS, MAX_W, MIN_P_BITS, MIN_W, checkParamsMath, checkParamsShape, hex } from './codegen-params.js';

const USAGE = `Usage: node scripts/codegen.js <command> [options]
       npm run codegen -- <command> [options]
       npx wasmsm codegen <command> [options]

Commands:
  curve    a fast MSM for any short-Weierstrass curve y^2 = x^3 + a x + b, from a params file (JSON)
  field    Montgomery field arithmetic mod an odd prime p, as WAT + Wasm

Options for curve:
  --params <file>      the curve's params file (JSON, format below; required)
  --out <dir>          output folder, created if missing (required)
  --w <bits>           limb size in bits, ${MIN_W}..${MAX_W}; default: the params file's "w", else the fastest
                       of a quick measurement (a few thousand chained field multiplications per size)
  --runtime <spec>     where the generated index.js imports wasmsm from (default: wasmsm). A bare package
                       name is used as given; a path (./..., /...) is rewritten relative to the output folder
  --no-glv             do not use the GLV endomorphism even when the curve has one
  --shape <s>          shape of the Montgomery product: auto (default: pairs where w <= 31), pairs, unrolled
                       or loop
  --no-check           skip the self-check (a small MSM compared with a BigInt double-and-add)

  Writes <dir>/index.js (exports async function load({ kernel }), resolving to the same kind of curve object
  as loadCurve: msm, msmBytes, p, r, randomPoints, ...), <dir>/params.js (the runtime parameters),
  <dir>/<name>.wat (readable, derived parameters in its header), <dir>/<name>.wasm and <dir>/<name>.wasm.js
  (the bytes as an ES module), the FMA build likewise as <dir>/<name>.fma.wat / .wasm / .wasm.js (relaxed
  SIMD) and the wide build as <dir>/<name>.wide.wat / .wasm / .wasm.js (wide arithmetic, assembled by
  binaryen, a development dependency: without it the wide build is left out); load() picks the build the
  engine runs, as loadCurve does; plus <dir>/package.json ({"type": "module"}) when the folder is not already
  inside an ES-module package. Short Weierstrass and twisted Edwards curves also get <dir>/<name>.wgsl (the GPU
  kernels, readable) and <dir>/<name>.wgsl.js: the curve's gpu() runs the MSM on WebGPU (docs/gpu.md).

Params file (JSON; numbers as "0x"-hex or decimal strings; the coefficients may be negative, e.g. "-3"):
  {
    "name": "my-curve",         lowercase letters, digits, dashes; names the files (required)
    "p": "0x...",               base-field prime, ${MIN_P_BITS}..${MAX_P_BITS} bits (required)
    "r": "0x...",               prime order of the generator (required)
    "model": "short-weierstrass",  the curve's model (optional, the default): y^2 = x^3 + a x + b, or
                                "twisted-edwards": a x^2 + y^2 = 1 + d x^2 y^2 (takes "a" and "d"), or
                                "montgomery": B v^2 = u^3 + A u^2 + u (takes "A" and "B"); the generator
                                and the points msm takes are in the model's own coordinates
    "a": "0x0",                 curve coefficient a (required)
    "b": "0x7",                 curve coefficient b, nonzero (required; short Weierstrass)
    "h": "0x1",                 cofactor: #E(F_p) = h * r (default 1)
    "generator": { "x": "0x...", "y": "0x..." },   a point of order r, affine (required)
    "w": 29,                    preferred limb size in bits, ${MIN_W}..${MAX_W} (optional; --w overrides it)
    "reduction": "crandall",    for p = 2^k - c with small c: Crandall's product instead of Montgomery's in the
                                integer build (optional; needs w <= 31; the FMA build stays Montgomery)
    "description": "..."        free text (optional)
    "g2": {                     optional: the curve's G2 on a sextic twist y^2 = x^3 + b' over
                                F_p2 = F_p[u] / (u^2 - nonResidue) (a = 0 curves), giving curve.g2
      "nonResidue": "-1",       a small non-residue mod p, |nonResidue| <= 16
      "b": ["0x..", "0x.."],    b' = c0 + c1 u
      "h": "0x...",             G2's cofactor: #E'(F_p2) = h * r
      "generator": { "x": ["0x..", "0x.."], "y": ["0x..", "0x.."] }   a point of order r on the twist
    }
  }
  Checked: every field present and well-formed, no unknown fields; p and r prime (Miller-Rabin, 32 bases);
  twisted Edwards: a, d nonzero, a != d, d a non-square mod p; Montgomery: B != 0, A^2 != 4 (the curve is
  then mapped to a short-Weierstrass image, on which the checks below run and the MSM works);
  b != 0 and the curve non-singular; the generator on the curve, inside [0, p) and of order r (r * G = O);
  h * r inside the Hasse interval and (h * r) * P = O for sample points P. GLV is derived when a = 0 and
  p = r = 1 (mod 3) (beta, lambda, a reduced lattice basis, all self-checked); otherwise the MSM uses plain
  signed windows. With "g2": nonResidue a non-residue, the generator on the twist and of order r, h * r
  inside the Hasse interval over F_p2, and (under GLV) the cube root of unity that acts as lambda on G2.

Options for field:
  --p <p>        the modulus: decimal or 0x-hex (required; must be an odd prime)
  --w <bits>     limb size in bits, ${MIN_W}..${MAX_W} (default 30)
  --shape <s>    shape of the Montgomery product: auto (default: pairs where w <= 31), pairs, unrolled or loop
  --out <dir>    output folder, created if missing (required)

  Writes <dir>/field.wat (readable, with the derived params in its header), <dir>/field.wasm and
  <dir>/field.wasm.js (an ES module whose default export is the Wasm bytes in base64). The module imports
  its memory as env.memory and exports mul, sqr, add, sub, neg, inv, sqrt, ... over pointers to
  Montgomery-form elements; src/field.js wraps those exports.

  -h, --help     show this help

Exit status: 0 success, 1 input rejected (the message names the field and the reason), 2 usage error.

Examples:
  node scripts/codegen.js curve --params scripts/examples/p256.json --out out/p256
  npx wasmsm codegen curve --params my-curve.json --out src/my-curve --w 30
  node scripts/codegen.js field --p 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47 --w 29 --out out/bn254
`;

class UsageError extends Error {}

function parse(argv) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        p: { type: 'string' },
        w: { type: 'string' },
        shape: { type: 'string' },
        out: { type: 'string' },
        params: { type: 'string' },
        runtime: { type: 'string' },
        'no-glv': { type: 'boolean' },
        'no-check': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
}

const bitLength = (x) => (x === 0n ? 0 : x.toString(2).length);
const shown = (path) => {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
};

function parseLimbBits(text, what) {
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${what} must be an integer in ${MIN_W}..${MAX_W}, got ${JSON.stringify(text)}`);
  const w = Number(text);
  if (w < MIN_W || w > MAX_W) throw new UsageError(`${what} must be an integer in ${MIN_W}..${MAX_W}, got ${w}`);
  return w;
}

const SHAPE_CHOICES = ['auto', 'pairs', 'unrolled', 'loop'];

// ---- field --------------------------------------------------------------------------------------------

async function field(values) {
  if (values.p === undefined) throw new UsageError('missing --p <prime> (decimal or 0x-hex)');
  if (values.out === undefined) throw new UsageError('missing --out <dir>');
  const pText = values.p.trim();
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(pText)) throw new UsageError(`--p must be a decimal or 0x-hex integer, got ${JSON.stringify(values.p)}`);
  const wText = values.w ?? '30';
  if (!/^[0-9]+$/.test(wText)) throw new UsageError(`--w must be an integer in 26..32, got ${JSON.stringify(wText)}`);
  const shape = values.shape ?? 'auto';
  if (!SHAPE_CHOICES.includes(shape)) throw new UsageError(`--shape must be ${SHAPE_CHOICES.join(', ')}, got ${JSON.stringify(shape)}`);

  const { deriveFieldParams, describeFieldParams } = await import('../codegen/params/field.js');
  const { fieldModuleWat } = await import('../codegen/modules/field-module.js');
  const { compileWat, wasmJsModule } = await import('../codegen/compile.js');

  const params = deriveFieldParams({ p: BigInt(pText), w: Number(wText) }); // throws on even/composite p or bad w
  if (shape === 'pairs' && params.w > 31) throw new UsageError('--shape pairs needs --w 31 or less (a pair product must fit a signed 64-bit integer)');
  const { wat } = fieldModuleWat(params, { mulShape: shape, generator: 'scripts/codegen.js field', title: `prime field (${params.bits} bits)` });
  const bytes = await compileWat(wat, 'field.wat');

  const dir = resolve(values.out);
  mkdirSync(dir, { recursive: true });
  const files = [
    ['field.wat', wat],
    ['field.wasm', bytes],
    ['field.wasm.js', wasmJsModule(bytes, { source: 'field.wat' })],
  ];
  for (const [name, content] of files) writeFileSync(join(dir, name), content);

  console.log('Derived field params:');
  for (const line of describeFieldParams(params)) console.log(`  ${line}`);
  console.log(`  ${wat.match(/^;; (mul shape: .*)$/m)[1]}`);
  console.log(`Wrote ${files.map(([name]) => join(shown(dir), name)).join(', ')} (${bytes.length} bytes of Wasm).`);
}

// ---- curve: limb size ---------------------------------------------------------------------------------

/**
 * Time chained Montgomery products (mul(x, x, y), pointer level, so the loop measures the kernel and the
 * call, not BigInt conversions) for a few limb sizes; rounds interleave the sizes and keep each one's best.
 */
async function measureLimbSizes(p, mulShape) {
  const { instantiateField } = await import('../codegen/index.js');
  const bits = bitLength(p);
  const limbs = (w) => Math.ceil((bits + 2) / w);
  const sizes = [];
  for (let w = MIN_W; w <= MAX_W; w++) sizes.push(w);
  const fewest = Math.min(...sizes.map(limbs));
  const candidates = [...new Set([28, 29, 30, 31, sizes.find((w) => limbs(w) === fewest)])]
    .filter((w) => mulShape !== 'pairs' || w <= 31) // a pair product must fit a signed i64
    .sort((u, v) => u - v);
  const fields = [];
  for (const w of candidates) {
    const F = await instantiateField({ p, w, mulShape });
    const f = F.field;
    const [x, y] = [f.alloc(), f.alloc()];
    f.write(x, (p - 1n) / 3n);
    f.write(y, p - 2n);
    // One loop function per size (a fresh Function, so its own call-site feedback): a loop shared by every
    // size would see several Wasm callees and time them unevenly.
    // eslint-disable-next-line no-new-func
    const chain = new Function('mul', 'x', 'y', 'count', 'for (let i = 0; i < count; i++) mul(x, x, y);');
    fields.push({ w, n: F.params.n, chain, mul: f.mul, x, y, best: Infinity });
  }
  const iterations = Math.max(500, Math.min(20000, Math.round(4e6 / (fewest * fewest))));
  for (let round = 0; round < 5; round++) {
    for (const F of fields) {
      const { chain, mul, x, y } = F;
      const t0 = performance.now();
      chain(mul, x, y, iterations);
      const ns = ((performance.now() - t0) * 1e6) / iterations;
      if (round > 0 && ns < F.best) F.best = ns; // round 0 warms up
    }
  }
  // Within 2% of the fastest counts as a tie (timer noise): then fewer limbs, then the closest to 30 (the
  // shipped default), so the pick does not flip between runs on a near tie.
  const fastest = Math.min(...fields.map((F) => F.best));
  const [best] = fields.filter((F) => F.best <= fastest * 1.02).sort((u, v) => u.n - v.n || Math.abs(u.w - 30) - Math.abs(v.w - 30));
  return { w: best.w, timings: fields.map(({ w, n, best: ns }) => ({ w, n, ns })), iterations };
}

// ---- curve: output ------------------------------------------------------------------------------------

/** The import specifier for the runtime, as written in <out>/index.js. */
function runtimeSpecifier(runtime, outDir) {
  if (runtime === undefined) return 'wasmsm';
  const isPath = runtime.startsWith('.') || isAbsolute(runtime) || /^[A-Za-z]:[\\/]/.test(runtime);
  if (!isPath) return runtime;
  const target = resolve(runtime);
  if (!existsSync(target)) throw new UsageError(`--runtime ${runtime}: no such file`);
  let rel = relative(outDir, target).split(sep).join('/');
  if (!rel.startsWith('.')) rel = './' + rel;
  return rel;
}

/** Whether `dir` lies inside a package whose nearest package.json says "type": "module". */
function insideEsmPackage(dir) {
  for (let d = dir; ; d = dirname(d)) {
    const pj = join(d, 'package.json');
    if (existsSync(pj)) {
      try {
        return JSON.parse(readFileSync(pj, 'utf8')).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(d) === d) return false;
  }
}

function indexJs({ name, specifier, glv, regenerate, wide, gpu, fr }) {
  return `// ${name}: generated by wasmsm (scripts/codegen.js curve); do not edit. Regenerate with:
//   ${regenerate}
// ${glv ? 'MSM with the GLV endomorphism and signed windows.' : 'MSM with signed windows (no GLV endomorphism on this curve).'}
// Nothing is compiled at import time: the Wasm is compiled and instantiated by the first load().

import { curveLoader } from '${specifier}';
import params from './params.js';

export { params };

const loadOnce = curveLoader(params, () => import('./${name}.wasm.js'), () => import('./${name}.fma.wasm.js')${wide ? `, () => import('./${name}.wide.wasm.js')` : gpu || fr ? ', null' : ''}${gpu ? `, () => import('./${name}.wgsl.js')` : fr ? ', null' : ''}${fr ? `, (kernel) => (kernel === 'fma' ? import('./${name}.fr.fma.wasm.js') : import('./${name}.fr.wasm.js'))` : ''});

/**
 * Compile (once) and instantiate the ${name} module. Resolves to the same kind of object as loadCurve:
 * msm(points, scalars), msmBytes(pointBytes, scalarBytes), p, r, a, b, generator, randomPoints, ...
 * Later calls return the same object. options.kernel: 'auto' (default), 'int', 'fma'${wide ? " or 'wide'" : ''}, as loadCurve's.${gpu ? `
 * The curve's gpu() runs its MSM on WebGPU (the kernels in ./${name}.wgsl).` : ''}${fr ? `
 * The curve's fr() is its scalar field with the NTT (./${name}.fr.wat).` : ''}
 */
export async function load(options) {
  return loadOnce(options);
}
`;
}

/** Types for the generated index.js; TypeScript maps a '.js' specifier to the '.d.ts' beside it. */
function indexDts(specifier) {
  return `// Types of the generated index.js (wasmsm codegen curve); do not edit.
import type { Curve, CurveParams, LoadOptions } from '${specifier}';

/** The curve's plain-data parameters (no Wasm is loaded to read them). */
export declare const params: CurveParams;
/** Compile and instantiate the curve's Wasm (options.kernel picks the build) on the first call; later calls resolve to the same Curve. */
export declare function load(options?: LoadOptions): Promise<Curve>;
`;
}

/**
 * Self-check: a small MSM in the generated module (points from the module's own generator multiples, incl.
 * infinity, a repeated point, P and -P, scalars 0, 1 and r - 1) against a BigInt double-and-add.
 */
async function selfCheck(runtime, bytes, curve) {
  const { Curve } = await import('../src/curve.js');
  const { affineOps } = await import('../codegen/params/curve.js');
  const { relaxedFmaSupport, wideArithmeticSupport } = await import('../src/runtime/features.js');
  if (runtime.kernel === 'fma' && relaxedFmaSupport() !== 'fused') return false;
  if (runtime.kernel === 'wide' && !wideArithmeticSupport()) return false;
  const b64 = Buffer.from(bytes).toString('base64');
  const c = await Curve.load({ ...runtime, name: `codegen-self-check:${runtime.name}` }, () => b64);
  const ops = affineOps(curve.p, curve.a);
  const n = 12;
  const points = c.randomPoints(n, { seed: 7 });
  const scalars = c.randomScalars(n, { seed: 8 });
  points[1] = points[0];
  scalars[3] = scalars[2];
  points[4] = null;
  scalars[5] = 0n;
  scalars[6] = 1n;
  scalars[7] = curve.r - 1n;
  // The reference works on the short-Weierstrass image; a curve of another model maps its points there and back.
  const model = curve.model;
  const neg = (P) => (P === null ? null : model?.kind === 'twisted-edwards' ? { x: (curve.p - P.x) % curve.p, y: P.y } : { x: P.x, y: (curve.p - P.y) % curve.p });
  points[3] = neg(points[2]);
  const got = c.msm(points, scalars);
  let want = null;
  for (let i = 0; i < n; i++) want = ops.add(want, points[i] && ops.mul(model ? model.toWeierstrass(points[i]) : points[i], scalars[i]));
  if (model) want = model.fromWeierstrass(want);
  const same = got === null || want === null ? got === want : got.x === want.x && got.y === want.y;
  if (!same) throw new Error(`self-check failed: the ${{ fma: 'FMA', wide: 'wide', int: 'integer' }[c.kernel]} build's MSM disagrees with the BigInt reference (please report this with the params file; --no-check skips the check)`);
  return true;
}

async function curveCommand(values) {
  if (values.params === undefined) throw new UsageError('missing --params <file> (the curve params, JSON; see --help for the format)');
  if (values.out === undefined) throw new UsageError('missing --out <dir>');
  if (values.p !== undefined) throw new UsageError('--p is an option of the field command; curve reads p from the --params file');
  const mulShape = values.shape ?? 'auto';
  if (!SHAPE_CHOICES.includes(mulShape)) throw new UsageError(`--shape must be ${SHAPE_CHOICES.join(', ')}, got ${JSON.stringify(mulShape)}`);
  const wOption = values.w === undefined ? undefined : parseLimbBits(values.w, '--w');
  const paramsPath = resolve(values.params);
  const outDir = resolve(values.out);
  const specifier = runtimeSpecifier(values.runtime, outDir);
  const fileLabel = values.params;

  let text;
  try {
    text = readFileSync(paramsPath, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read params file ${fileLabel}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  let params;
  let curve;
  try {
    let json;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new InputError(`not valid JSON: ${e.message}`);
    }
    params = checkParamsShape(json);
    curve = await checkParamsMath(params);
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${fileLabel}: ${e.message}`);
    throw e;
  }

  const { shippedCurveNames } = await import('../codegen/modules/shipped.js');
  const { generateCurve } = await import('../codegen/modules/curve-module.js');
  const { describeFieldParams } = await import('../codegen/params/field.js');
  const { compileWat, compileWideWat, wasmJsModule, wgslJsModule } = await import('../codegen/compile.js');

  const { name } = params;
  // a = p - 3 reads better as "- 0x3 x"
  const term = (v, suffix) => (v === 0n ? '' : v > curve.p / 2n ? ` - ${hex(curve.p - v)}${suffix}` : ` + ${hex(v)}${suffix}`);
  const image = `y^2 = x^3${term(curve.a, ' x')}${term(curve.b, '')}`;
  const shape = !curve.model ? image
    : curve.model.kind === 'twisted-edwards' ? `a x^2 + y^2 = 1 + d x^2 y^2 (a = ${hex(curve.model.coefficients.a)}, d = ${hex(curve.model.coefficients.d)}; the MSM runs on its image ${image})`
      : `B v^2 = u^3 + A u^2 + u (A = ${hex(curve.model.A)}, B = ${hex(curve.model.B)}; the MSM runs on its image ${image})`;
  console.log(`Curve ${name}: ${shape} over a ${curve.field.bits}-bit p; r has ${curve.rBits} bits, h = ${hex(curve.h)}`);
  console.log('  checked: p and r prime, b != 0, non-singular, generator on the curve and of order r, h * r the group order');
  if (shippedCurveNames().includes(name)) {
    console.log(`  note: "${name}" is also the name of a shipped curve; use another name if one program loads both.`);
  }

  // Limb size: --w, else the params file's w, else the quickest of a short measurement.
  let w = wOption ?? params.w;
  if (w !== undefined && w > 31 && mulShape === 'pairs') {
    throw new UsageError(`--shape pairs needs a limb size of 31 or less; w = ${w} comes from ${wOption !== undefined ? '--w' : 'the params file'}`);
  }
  if (w !== undefined) {
    console.log(`Limb size: w = ${w} (from ${wOption !== undefined ? '--w' : 'the params file'}; no measurement)`);
  } else {
    const started = performance.now();
    const m = await measureLimbSizes(curve.p, mulShape);
    w = m.w;
    const list = m.timings.map((t) => `w=${t.w} (n=${t.n}) ${t.ns.toFixed(1)} ns`).join(', ');
    console.log(`Limb size: w = ${w}, the fastest field mul (ties within 2%: fewer limbs, then nearer 30) of ${list} (${m.iterations} chained muls x 4 rounds, ${Math.round(performance.now() - started)} ms; --w skips this)`);
  }

  const outShown = shown(outDir);
  const regenerate = `npx wasmsm codegen curve --params ${shown(paramsPath)} --out ${outShown} --w ${w}${values['no-glv'] ? ' --no-glv' : ''}${values.shape ? ` --shape ${mulShape}` : ''}${values.runtime ? ` --runtime ${values.runtime}` : ''}`;
  // the wide build needs binaryen (compileWideWat), a development dependency: without it, no wide build
  const wide = await import('binaryen').then(() => true, () => false);
  let generated;
  try {
    // a model without GPU kernels (Montgomery form) gets the Wasm builds alone
    generated = generateCurve(params, { w, glv: !values['no-glv'], mulShape, generator: 'scripts/codegen.js curve', fma: true, wide, gpu: 'optional', fr: 'optional' });
  } catch (e) {
    if (!values['no-glv'] && /GLV|lambda|beta/i.test(e.message)) throw new Error(`GLV derivation failed: ${e.message} (rerun with --no-glv to generate without the endomorphism)`);
    throw e;
  }
  if (generated.gpuError) console.log(`GPU kernels: not written (${generated.gpuError})`);
  if (generated.frError) console.log(`Scalar field module: not written (${generated.frError})`);
  const { glv, runtime } = generated;
  const note = '(regenerate with npm run gen)';
  const wat = generated.wat.replace(note, `(regenerate: ${regenerate})`);
  const fmaWat = generated.fmaWat.replace(note, `(regenerate: ${regenerate})`);
  const wideWat = wide ? generated.wideWat.replace(note, `(regenerate: ${regenerate})`) : null;
  const paramsJs = generated.paramsJs.replace(note, `(regenerate: ${regenerate})`);
  const wgsl = generated.wgsl?.replace(note, `(regenerate: ${regenerate})`) ?? null;
  const frWat = generated.frWat?.replace(note, `(regenerate: ${regenerate})`) ?? null;
  const frFmaWat = generated.frFmaWat?.replace(note, `(regenerate: ${regenerate})`) ?? null;
  for (const line of describeFieldParams(generated.curve.field)) console.log(`  ${line}`);
  if (glv) {
    const map = glv.beta !== null ? `beta = ${hex(glv.beta)}` : `the degree-2 endomorphism with kernel (${hex(glv.endomorphism.x0)}, 0)`;
    console.log(`GLV: lambda = ${hex(glv.lambda)}, ${map}; scalars split into halves < 2^${glv.halfBits}`);
  } else {
    const why = values['no-glv'] ? '--no-glv'
      : curve.a !== 0n ? 'a != 0 and no degree-2 endomorphism'
      : curve.p % 3n !== 1n ? 'p != 1 mod 3'
      : 'r != 1 mod 3';
    console.log(`GLV: none (${why}); the MSM uses plain signed windows over ${curve.rBits}-bit scalars`);
  }

  const bytes = await compileWat(wat, `${name}.wat`);
  const fmaBytes = await compileWat(fmaWat, `${name}.fma.wat`, { relaxedSimd: true });
  const wideBytes = wide ? await compileWideWat(wideWat, `${name}.wide.wat`) : null;
  const frBytes = frWat ? await compileWat(frWat, `${name}.fr.wat`) : null;
  const frFmaBytes = frFmaWat ? await compileWat(frFmaWat, `${name}.fr.fma.wat`, { relaxedSimd: true }) : null;
  if (!wide) console.log('Wide build: not written (it is assembled by binaryen, which is not installed: npm install binaryen)');
  if (!values['no-check']) {
    const { runtimeForKernel } = await import('../src/runtime/kernels.js');
    await selfCheck(runtimeForKernel(runtime, 'int'), bytes, generated.curve);
    const fmaChecked = await selfCheck(runtimeForKernel(runtime, 'fma'), fmaBytes, generated.curve);
    const wideChecked = wide && (await selfCheck(runtimeForKernel(runtime, 'wide'), wideBytes, generated.curve));
    console.log(`Self-check: a 12-point MSM (with infinity, a repeated point, P and -P, scalars 0, 1, r - 1) matches a BigInt reference (integer build${fmaChecked ? ' and FMA build' : '; the FMA build is not checked: this engine does not run relaxed SIMD fused'}${wide ? (wideChecked ? '; wide build' : '; the wide build is not checked: this engine has no wide arithmetic') : ''})`);
  }

  const writePackageJson = !insideEsmPackage(outDir);
  mkdirSync(outDir, { recursive: true });
  const files = [
    ['index.js', indexJs({ name, specifier, glv: !!glv, regenerate, wide, gpu: !!wgsl, fr: !!frWat })],
    ['params.js', paramsJs],
    [`${name}.wat`, wat],
    [`${name}.wasm`, bytes],
    [`${name}.wasm.js`, wasmJsModule(bytes, { source: `${name}.wat` })],
    [`${name}.fma.wat`, fmaWat],
    [`${name}.fma.wasm`, fmaBytes],
    [`${name}.fma.wasm.js`, wasmJsModule(fmaBytes, { source: `${name}.fma.wat` })],
    ...(wide ? [
      [`${name}.wide.wat`, wideWat],
      [`${name}.wide.wasm`, wideBytes],
      [`${name}.wide.wasm.js`, wasmJsModule(wideBytes, { source: `${name}.wide.wat` })],
    ] : []),
    ...(wgsl ? [
      [`${name}.wgsl`, wgsl],
      [`${name}.wgsl.js`, wgslJsModule(wgsl, { source: `${name}.wgsl` })],
    ] : []),
    ...(frWat ? [
      [`${name}.fr.wat`, frWat],
      [`${name}.fr.wasm`, frBytes],
      [`${name}.fr.wasm.js`, wasmJsModule(frBytes, { source: `${name}.fr.wat` })],
    ] : []),
    ...(frFmaWat ? [
      [`${name}.fr.fma.wat`, frFmaWat],
      [`${name}.fr.fma.wasm`, frFmaBytes],
      [`${name}.fr.fma.wasm.js`, wasmJsModule(frFmaBytes, { source: `${name}.fr.fma.wat` })],
    ] : []),
  ];
  files.push(['index.d.ts', indexDts(specifier)]);
  if (writePackageJson) files.push(['package.json', JSON.stringify({ type: 'module', private: true }, null, 2) + '\n']);
  for (const [file, content] of files) writeFileSync(join(outDir, file), content);
  console.log(`Wrote ${outShown}${sep}: ${files.map(([file]) => file).join(', ')} (${bytes.length} bytes of Wasm, ${fmaBytes.length} in the FMA build${wide ? `, ${wideBytes.length} in the wide build` : ''})`);

  if (specifier === 'wasmsm') {
    try {
      createRequire(join(outDir, 'index.js')).resolve('wasmsm');
    } catch {
      console.log(`  note: ${join(outShown, 'index.js')} imports 'wasmsm', which does not resolve from there yet: install it (npm install wasmsm) in the project that uses the curve, or regenerate with --runtime <path to wasmsm's index.js>`);
    }
  }
  const indexPath = join(outDir, 'index.js');
  let importPath = relative(process.cwd(), indexPath).split(sep).join('/');
  if (importPath.startsWith('../') || isAbsolute(importPath)) importPath = pathToFileURL(indexPath).href;
  else importPath = './' + importPath;
  console.log(`
Use it (from a module in ${process.cwd()}; adjust the path to where you import from):
  import { load } from '${importPath}';
  const curve = await load();                      // compiles the Wasm once
  const sum = curve.msm(points, scalars);          // points: [{ x, y } BigInts | null], scalars: BigInts in [0, r)
  const bytes = curve.msmBytes(pointBytes, scalarBytes);   // the fast path: little-endian bytes in and out`);
}

// ---- main ---------------------------------------------------------------------------------------------

const commands = { curve: curveCommand, field };

async function main(argv) {
  const { values, positionals } = parse(argv);
  // `npx wasmsm codegen <command>`: the bin is this script, so drop the leading word.
  const words = positionals[0] === 'codegen' ? positionals.slice(1) : positionals;
  if (values.help || words.length === 0) {
    if (!values.help) {
      process.stderr.write(USAGE);
      return 2;
    }
    process.stdout.write(USAGE);
    return 0;
  }
  const [name, ...rest] = words;
  const command = Object.hasOwn(commands, name) ? commands[name] : null;
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)} (available: ${Object.keys(commands).join(', ')})`);
  if (rest.length) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  await command(values);
  return 0;
}

// `... | head` closes stdout early: stop quietly instead of throwing EPIPE.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    console.error(`codegen: ${e.message}\nRun with --help for usage.`);
    process.exitCode = 2;
  } else {
    console.error(`codegen: ${e.message}`);
    if (process.env.DEBUG) console.error(e.stack);
    process.exitCode = 1;
  }
}
