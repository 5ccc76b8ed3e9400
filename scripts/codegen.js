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

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { MAX_P_BITS, MAX_W, MIN_P_BITS, MIN_W, SHAPE_CHOICES, UsageError, outFolder, shown } from './codegen-params.js';
import { curveCommand } from './codegen-curve.js';

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

// ---- field --------------------------------------------------------------------------------------------

async function field(values) {
  if (values.p === undefined) throw new UsageError('missing --p <prime> (decimal or 0x-hex)');
  const dir = outFolder(values.out);
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
