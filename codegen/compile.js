// WAT text -> validated Wasm binary (with debug names), by wabt; by binaryen for modules with wide arithmetic,
// which wabt cannot parse. Build time only.

import wabtInit from 'wabt';

let wabtPromise = null;
const getWabt = () => (wabtPromise ??= wabtInit());

/**
 * Assemble and validate WAT text; throws with wabt's message (file:line) on any error. `relaxedSimd` admits the
 * relaxed-SIMD opcodes (a module holding one fails validation on engines without them, Safari among them).
 */
export async function compileWat(watText, fileName = 'module.wat', { relaxedSimd = false } = {}) {
  const wabt = await getWabt();
  const module = wabt.parseWat(fileName, watText, { mutable_globals: true, relaxed_simd: relaxedSimd });
  try {
    module.resolveNames();
    module.validate();
    const { buffer } = module.toBinary({ write_debug_names: true });
    return new Uint8Array(buffer);
  } finally {
    module.destroy();
  }
}

/**
 * Assemble and validate WAT text that uses the wide-arithmetic opcodes (i64.mul_wide_u, i64.add128, ...), with
 * binaryen (a devDependency: building the wide modules needs a development install). Features: the MVP and
 * what the other builds use, plus multi-value and wide arithmetic; nothing else validates.
 */
export async function compileWideWat(watText, fileName = 'module.wat') {
  let binaryen;
  try {
    binaryen = (await import('binaryen')).default;
  } catch (e) {
    throw new Error(`${fileName}: assembling wide arithmetic needs binaryen (npm install binaryen): ${e.message}`);
  }
  const F = binaryen.Features;
  let module;
  try {
    module = binaryen.parseText(watText);
  } catch (e) {
    throw new Error(`${fileName}: binaryen could not parse it: ${e.message}`);
  }
  try {
    module.setFeatures(F.MutableGlobals | F.SignExt | F.BulkMemory | F.Multivalue | F.WideArithmetic);
    if (!module.validate()) throw new Error(`${fileName}: binaryen validation failed (see its report above)`);
    binaryen.setDebugInfo(true); // the name section, as wabt writes it
    return module.emitBinary();
  } finally {
    binaryen.setDebugInfo(false);
    module.dispose();
  }
}

/** An ES module that exports the Wasm bytes (base64-inlined) and nothing else: no fetch, no top-level await. */
export function wasmJsModule(bytes, { source = '' } = {}) {
  const b64 = Buffer.from(bytes).toString('base64');
  return [
    `// Generated from ${source} by codegen/compile.js; do not edit (built by npm install / npm run build:wasm).`,
    `const base64 = '${b64}';`,
    `export default base64;`,
    '',
  ].join('\n');
}

/** WGSL text (the GPU kernels) as an ES module whose default export is the text, as wasmJsModule does for bytes. */
export function wgslJsModule(text, { source = '' } = {}) {
  return `// Generated from ${source} by codegen/compile.js; do not edit (built by npm install / npm run build:wasm).\nexport default ${JSON.stringify(text)};\n`;
}
