#!/usr/bin/env node
// npm run codegen -- field --p <hex|dec> [--w 30] [--shape loop|unrolled] --out <dir>
// Generates the field module for any odd prime: <dir>/field.wat, field.wasm and field.wasm.js.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `Usage: node scripts/codegen.js <command> [options]   (or: npm run codegen -- <command> [options])

Commands:
  field    Montgomery field arithmetic mod an odd prime p, as WAT + Wasm

Options for field:
  --p <p>        the modulus: decimal or 0x-hex (required; must be an odd prime)
  --w <bits>     limb size in bits, 26..32 (default 30)
  --shape <s>    shape of the Montgomery product: loop (default) or unrolled
  --out <dir>    output folder, created if missing (required)
  -h, --help     show this help

Writes <dir>/field.wat (readable, with the derived params in its header), <dir>/field.wasm and
<dir>/field.wasm.js (an ES module whose default export is the Wasm bytes in base64). The module imports
its memory as env.memory and exports mul, sqr, add, sub, neg, inv, sqrt, ... over pointers to
Montgomery-form elements; src/field.js wraps those exports.

Example:
  node scripts/codegen.js field --p 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47 --w 29 --out out/bn254
`;

class UsageError extends Error {}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        p: { type: 'string' },
        w: { type: 'string' },
        shape: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  return parsed;
}

async function field(values) {
  if (values.p === undefined) throw new UsageError('missing --p <prime> (decimal or 0x-hex)');
  if (values.out === undefined) throw new UsageError('missing --out <dir>');
  const pText = values.p.trim();
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(pText)) throw new UsageError(`--p must be a decimal or 0x-hex integer, got ${JSON.stringify(values.p)}`);
  const wText = values.w ?? '30';
  if (!/^[0-9]+$/.test(wText)) throw new UsageError(`--w must be an integer in 26..32, got ${JSON.stringify(wText)}`);
  const shape = values.shape ?? 'loop';
  if (shape !== 'loop' && shape !== 'unrolled') throw new UsageError(`--shape must be loop or unrolled, got ${JSON.stringify(shape)}`);

  const { deriveFieldParams, describeFieldParams } = await import('../codegen/params/field.js');
  const { fieldModuleWat } = await import('../codegen/modules/field-module.js');
  const { compileWat, wasmJsModule } = await import('../codegen/compile.js');

  const params = deriveFieldParams({ p: BigInt(pText), w: Number(wText) }); // throws on even/composite p or bad w
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
  console.log(`  mul shape: ${shape}`);
  const shown = relative(process.cwd(), dir) || '.';
  console.log(`Wrote ${files.map(([name]) => join(shown, name)).join(', ')} (${bytes.length} bytes of Wasm).`);
}

const commands = { field };

async function main(argv) {
  const { values, positionals } = parse(argv);
  if (values.help || positionals.length === 0) {
    if (!values.help) {
      process.stderr.write(USAGE);
      return 1;
    }
    process.stdout.write(USAGE);
    return 0;
  }
  const [name, ...rest] = positionals;
  const command = Object.hasOwn(commands, name) ? commands[name] : null;
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)} (available: ${Object.keys(commands).join(', ')})`);
  if (rest.length) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  await command(values);
  return 0;
}

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
