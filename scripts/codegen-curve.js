// The codegen CLI's curve command (scripts/codegen.js curve): a params file, checked (codegen-params.js), to a folder
// with index.js, index.d.ts, params.js and the curve's modules, generated through generateCurve as the shipped curves
// are; the limb size measured where --w is not given; a self-check of each build's MSM against BigInt.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

import {
  InputError, MAX_W, MIN_W, SHAPE_CHOICES, UsageError, checkParamsMath, checkParamsShape, hex, outFolder, parseLimbBits, shown,
} from './codegen-params.js';

const bitLength = (x) => (x === 0n ? 0 : x.toString(2).length);
/** A JS string literal in single quotes (a path may hold a quote, a backslash or a line break). */
const quoted = (text) => `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;

// ---- curve: limb size ---------------------------------------------------------------------------------

/**
 * Time chained field products (mul(x, x, y), pointer level, so the loop measures the kernel and the call, not BigInt
 * conversions; Montgomery's, or Crandall's where the params ask for it) for a few limb sizes; rounds interleave the
 * sizes and keep each one's best.
 */
async function measureLimbSizes(p, mulShape, reduction) {
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
    let F;
    try {
      F = await instantiateField({ p, w, mulShape, reduction }); // the product the build will have
    } catch (e) {
      if (e instanceof RangeError) continue; // a size this reduction or shape does not take (Crandall: n <= 16)
      throw e;
    }
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
  if (!fields.length) throw new InputError(`no limb size in ${candidates.join(', ')} takes this p with reduction '${reduction}' and shape '${mulShape}'`);
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

import { curveLoader } from ${quoted(specifier)};
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
import type { Curve, CurveParams, LoadOptions } from ${quoted(specifier)};

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

export async function curveCommand(values) {
  if (values.params === undefined) throw new UsageError('missing --params <file> (the curve params, JSON; see --help for the format)');
  if (values.p !== undefined) throw new UsageError('--p is an option of the field command; curve reads p from the --params file');
  const mulShape = values.shape ?? 'auto';
  if (!SHAPE_CHOICES.includes(mulShape)) throw new UsageError(`--shape must be ${SHAPE_CHOICES.join(', ')}, got ${JSON.stringify(mulShape)}`);
  const wOption = values.w === undefined ? undefined : parseLimbBits(values.w, '--w');
  const paramsPath = resolve(values.params);
  const outDir = outFolder(values.out);
  const specifier = runtimeSpecifier(values.runtime, outDir);
  // the folder's modules are ES modules: a package.json there that says otherwise is the user's, never overwritten
  const writePackageJson = !insideEsmPackage(outDir);
  if (writePackageJson && existsSync(join(outDir, 'package.json'))) {
    throw new UsageError(`--out ${values.out} holds a package.json without "type": "module", which the generated ES modules need: add that to it, or write to another folder`);
  }
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
    const m = await measureLimbSizes(curve.p, mulShape, params.reduction ?? 'montgomery');
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
