// Where the wide-arithmetic suites run: in this process when its engine validates the wide opcodes
// (wideArithmeticSupport), else in headless Chromium with --js-flags=--wasm-wide-arithmetic (no Node has the
// feature yet). The work runs as self-contained functions (no closure, no import: page.evaluate sends their
// text), taking and returning plain data (BigInts as hex strings), so the same function runs in either place.

import { wideArithmeticSupport } from '../src/runtime/features.js';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium, launchChromium, serve, WIDE_ARITHMETIC_FLAGS } from '../examples/browser/harness.js';
import { CHROMIUM_SUITES_SKIPPED } from './chromium.js';

/**
 * { where, run(fn, arg), close() } or { where: null, why } when neither this process nor a Chromium can run the
 * wide build. run(fn, arg) resolves to fn(arg), evaluated where the wide build runs. With `suites`, also
 * suite(name, arg): the export `name` of test/wide-page.js called there (in Chromium: from a bundle of it, on a
 * page served from 127.0.0.1 cross-origin isolated, so the thread pool can take its shared-memory path).
 */
export async function wideEngine({ suites = false } = {}) {
  if (wideArithmeticSupport()) {
    const page = suites ? await import('./wide-page.js') : {};
    return { where: `Node ${process.version}`, run: async (fn, arg) => fn(arg), suite: async (name, arg) => page[name](arg), close: async () => {} };
  }
  if (CHROMIUM_SUITES_SKIPPED) return { where: null, why: 'WASMSM_CHROMIUM_SUITES=skip', deliberate: true };
  const path = findChromium();
  if (!path) return { where: null, why: `Node ${process.version} has no wide arithmetic and no chromium was found (apt-get install -y chromium, or set CHROMIUM_PATH)` };
  const browser = await launchChromium(path, { args: WIDE_ARITHMETIC_FLAGS });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let server = null;
  let dir = null;
  if (suites) {
    dir = mkdtempSync(join(tmpdir(), 'wasmsm-wide-page-'));
    writeFileSync(join(dir, 'wide-page.js'), await bundleWidePage());
    writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>wide build</title><script src="wide-page.js"></script>\n');
    server = await serve(dir, { isolated: true });
    await page.goto(server.url, { waitUntil: 'load' });
  }
  return {
    where: `Chromium ${browser.version()} (${WIDE_ARITHMETIC_FLAGS.join(' ')})`,
    async run(fn, arg) {
      const result = await page.evaluate(fn, arg);
      if (errors.length) throw new Error(`the page reported errors:\n${errors.join('\n')}`);
      return result;
    },
    suite(name, arg) {
      return this.run(([n, a]) => globalThis.wasmsmWidePage[n](a), [name, arg]);
    },
    async close() {
      await browser.close();
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * wideEngine({ suites: true }) for a test file's beforeAll: in CI (CI=true) a missing engine fails, unless the
 * Chromium suites are skipped on purpose (WASMSM_CHROMIUM_SUITES=skip); elsewhere the engine suites are skipped,
 * with a message naming `file`.
 */
export async function suiteEngine(file) {
  const engine = await wideEngine({ suites: true });
  if (!engine.where) {
    if (process.env.CI && !engine.deliberate) throw new Error(`${file}: ${engine.why}`);
    console.warn(`${file}: engine suite SKIPPED: ${engine.why}`);
  } else console.log(`${file}: the wide build runs in ${engine.where}`);
  return engine;
}

/**
 * test/wide-page.js with the library and the test harness as one script that sets globalThis.wasmsmWidePage. The
 * harness's file reads (node:fs, node:url, import.meta.url: the curve list from codegen/curves) are not used by the
 * suites: in the page they are stubs that read nothing.
 */
async function bundleWidePage() {
  const esbuild = await import('esbuild');
  const stubs = {
    'node:fs': "export const readFileSync = () => '{}'; export const readdirSync = () => [];",
    'node:url': 'export const fileURLToPath = (u) => String(u);',
  };
  const { outputFiles } = await esbuild.build({
    stdin: { contents: "import * as page from './wide-page.js'; globalThis.wasmsmWidePage = page;", resolveDir: new URL('.', import.meta.url).pathname },
    bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
    define: { 'process.env.WASMSM_LONG_TESTS': 'undefined', 'import.meta.url': '"file:///wasmsm/test/"' },
    plugins: [{
      name: 'node-stubs',
      setup(build) {
        build.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, namespace: 'stub' }));
        build.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({ contents: stubs[a.path] ?? 'export {}', loader: 'js' }));
      },
    }],
  });
  return outputFiles[0].text;
}

/**
 * Runs in the engine. spec: { bytes (array of byte values), n, values (hex), probe (array of byte values) }.
 * Instantiates a wide field module (wideModuleWat with chainKernels) over a fresh memory and returns hex strings:
 * products[i * V + j] = mulWide(values[i], values[j]), paired[i * V + j] = mulWide2's (x_i y_j, x_j x_(i+1)),
 * squares[i] = sqrWide(values[i]), squaresAlt[i] = sqrWideAlt's (the other squaring form), out of place and in place, aliased[i]: mulWide with out = x, out = y and out = x = y (against
 * values[i + 1]), sqrWide in place, and mulWide2 with each out aliasing the other product's input: (x_(i+1) x_i,
 * x_i x_(i+1)); chains and chains2: four chains of mulWideChain4 and of mulWide2Chain4 (50 steps, lanes
 * x = values[l], y = values[V - 1 - l]); probe: what the feature probe's hi(-1, -1) returns.
 */
export async function wideFieldRun({ bytes, n, values, probe }) {
  const mask = (1n << 64n) - 1n;
  const E = 8 * n;
  const V = values.length;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), { env: { memory } });
  const { mulWide, sqrWide, sqrWideAlt, mulWide2, mulWideChain4, mulWide2Chain4 } = instance.exports;
  const words = (ptr) => new BigUint64Array(memory.buffer, ptr, n);
  const write = (ptr, hex) => {
    let x = BigInt(hex);
    const w = words(ptr);
    for (let j = 0; j < n; j++, x >>= 64n) w[j] = x & mask;
  };
  const read = (ptr) => {
    const w = words(ptr);
    let x = 0n;
    for (let j = n - 1; j >= 0; j--) x = (x << 64n) | w[j];
    return `0x${x.toString(16)}`;
  };
  const at = (i) => 64 + i * E; // leave the first words untouched: a stray store below shows as a wrong value
  values.forEach((v, i) => write(at(i), v));
  const out = at(V);
  const tmp = at(V + 1);
  const out2 = at(V + 2);
  const products = [];
  const paired = [];
  const squares = [];
  const squaresAlt = [];
  const aliased = [];
  for (let i = 0; i < V; i++) {
    for (let j = 0; j < V; j++) {
      mulWide(out, at(i), at(j));
      products.push(read(out));
      // the paired kernel: (x_i y_j, x_j y_(i+1)) in one call
      mulWide2(out, at(i), at(j), out2, at(j), at((i + 1) % V));
      paired.push([read(out), read(out2)]);
    }
    sqrWide(out, at(i));
    squares.push(read(out));
    sqrWideAlt(out, at(i));
    write(tmp, values[i]);
    sqrWideAlt(tmp, tmp);
    squaresAlt.push([read(out), read(tmp)]);
    const y = at((i + 1) % V);
    write(tmp, values[i]);
    mulWide(tmp, tmp, y);
    const outIsX = read(tmp);
    write(tmp, values[(i + 1) % V]);
    mulWide(tmp, at(i), tmp);
    const outIsY = read(tmp);
    write(tmp, values[i]);
    mulWide(tmp, tmp, tmp);
    const all = read(tmp);
    write(tmp, values[i]);
    sqrWide(tmp, tmp);
    const sqrInPlace = read(tmp);
    // paired, every out aliasing an input of the other product: out0 = y1 = x_i's copy, out1 = x0 = y_(i+1)'s copy
    write(tmp, values[i]);
    write(out2, values[(i + 1) % V]);
    mulWide2(tmp, out2, at(i), out2, at((i + 1) % V), tmp);
    aliased.push([outIsX, outIsY, all, sqrInPlace, read(tmp), read(out2)]);
  }
  const chainX = at(V + 3);
  const chainY = chainX + 4 * E;
  for (let l = 0; l < 4; l++) {
    write(chainX + l * E, values[l % V]);
    write(chainY + l * E, values[(V - 1 - l + 4 * V) % V]);
  }
  mulWideChain4(chainX, chainY, 50);
  const chains = [0, 1, 2, 3].map((l) => read(chainX + l * E));
  for (let l = 0; l < 4; l++) write(chainX + l * E, values[l % V]);
  mulWide2Chain4(chainX, chainY, 50);
  const chains2 = [0, 1, 2, 3].map((l) => read(chainX + l * E));
  const { instance: probeInstance } = await WebAssembly.instantiate(new Uint8Array(probe));
  return { products, paired, squares, squaresAlt, aliased, chains, chains2, probe: String(probeInstance.exports.hi(-1n, -1n)) };
}
