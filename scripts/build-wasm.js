#!/usr/bin/env node
// npm run build:wasm (also `prepack` and the `pre` script of test, evaluate-msm, the benches, the example and build):
// compile every wasm/**/*.wat with wabt into <same>.wasm and <same>.wasm.js (base64 bytes as an ES module; *.fma.wat
// with relaxed SIMD; *.wide.wat with binaryen, which alone assembles the wide-arithmetic opcodes; *.fr.wat, the scalar
// field with its NTT, like the integer build),
// and bundle the browser's pool thread (src/threads/worker-browser.js and what it imports) with esbuild into
// one self-contained script, exported as a string by wasm/threads-worker.js (src/threads/host-browser.js
// starts it from a blob: URL). All outputs are git-ignored. Prints one summary line; on error, the file and
// the tool's message. Each wasm/<curve>/<curve>.wgsl (the GPU kernels) becomes <same>.wgsl.js, its text as an ES module.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, listWat, listWgsl, fail } from './lib.js';

const started = performance.now();
let compileWat, compileWideWat, wasmJsModule, wgslJsModule;
try {
  ({ compileWat, compileWideWat, wasmJsModule, wgslJsModule } = await import('../codegen/compile.js'));
} catch (e) {
  fail('build:wasm', new Error(`cannot load codegen/compile.js (is wabt installed? run npm install in the repo): ${e.message}`));
}

const files = listWat(repoRoot);
let bytesTotal = 0;
for (const path of files) {
  let bytes;
  try {
    // <curve>.fma.wat: the FMA build, relaxed SIMD; <curve>.wide.wat: the wide build (each loaded only where the
    // engine runs it, src/runtime/kernels.js)
    const text = readFileSync(join(repoRoot, path), 'utf8');
    bytes = path.endsWith('.wide.wat') ? await compileWideWat(text, path) : await compileWat(text, path, { relaxedSimd: path.endsWith('.fma.wat') });
  } catch (e) {
    fail('build:wasm', new Error(`${path}: ${e.message}`));
  }
  const base = join(repoRoot, path.replace(/\.wat$/, ''));
  writeFileSync(`${base}.wasm`, bytes);
  writeFileSync(`${base}.wasm.js`, wasmJsModule(bytes, { source: path }));
  bytesTotal += bytes.length;
}

// <curve>.wgsl, the GPU kernels: the text as an ES module (src/gpu/ compiles it on the device)
const wgslFiles = listWgsl(repoRoot);
for (const path of wgslFiles) {
  const text = readFileSync(join(repoRoot, path), 'utf8');
  writeFileSync(join(repoRoot, `${path}.js`), wgslJsModule(text, { source: path }));
}

let workerBytes = 0;
try {
  const esbuild = await import('esbuild');
  const { outputFiles } = await esbuild.build({
    entryPoints: [join(repoRoot, 'src/threads/worker-browser.js')],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent',
    supported: { 'top-level-await': false },
  });
  const script = outputFiles[0].text;
  workerBytes = script.length;
  writeFileSync(
    join(repoRoot, 'wasm/threads-worker.js'),
    `// Generated from src/threads/worker-browser.js by scripts/build-wasm.js (esbuild); do not edit.\n` +
      `// The pool's browser thread as one script, started from a blob: URL.\nexport default ${JSON.stringify(script)};\n`,
  );
} catch (e) {
  fail('build:wasm', new Error(`bundling src/threads/worker-browser.js: ${e.message}`));
}

const ms = Math.round(performance.now() - started);
console.log(
  files.length
    ? `build:wasm: ${files.length} .wat -> .wasm + .wasm.js (${(bytesTotal / 1024).toFixed(1)} KiB of Wasm), ${wgslFiles.length} .wgsl -> .wgsl.js, threads-worker.js (${(workerBytes / 1024).toFixed(1)} KiB) in ${ms} ms`
    : 'build:wasm: no wasm/**/*.wat found, nothing to build (run npm run gen first)',
);
