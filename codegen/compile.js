// WAT text -> validated Wasm binary (with debug names), by wabt. Build time only.

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
