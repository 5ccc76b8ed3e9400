#!/usr/bin/env node
// npm run build:wasm (also the `prepare` script, so `npm install` / `npm ci` in the repo runs it):
// compile every wasm/**/*.wat with wabt into <same>.wasm and <same>.wasm.js (base64 bytes as an ES module).
// Both outputs are git-ignored. Prints one summary line; on error, the file and wabt's message.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, listWat, fail } from './lib.js';

const started = performance.now();
let compileWat, wasmJsModule;
try {
  ({ compileWat, wasmJsModule } = await import('../codegen/compile.js'));
} catch (e) {
  fail('build:wasm', new Error(`cannot load codegen/compile.js (is the dev dependency wabt installed? run npm install in the repo): ${e.message}`));
}

const files = listWat(repoRoot);
let bytesTotal = 0;
for (const path of files) {
  let bytes;
  try {
    bytes = await compileWat(readFileSync(join(repoRoot, path), 'utf8'), path);
  } catch (e) {
    fail('build:wasm', new Error(`${path}: ${e.message}`));
  }
  const base = join(repoRoot, path.replace(/\.wat$/, ''));
  writeFileSync(`${base}.wasm`, bytes);
  writeFileSync(`${base}.wasm.js`, wasmJsModule(bytes, { source: path }));
  bytesTotal += bytes.length;
}

const ms = Math.round(performance.now() - started);
console.log(
  files.length
    ? `build:wasm: ${files.length} .wat -> .wasm + .wasm.js (${(bytesTotal / 1024).toFixed(1)} KiB of Wasm) in ${ms} ms`
    : 'build:wasm: no wasm/**/*.wat found, nothing to build (run npm run gen first)',
);
