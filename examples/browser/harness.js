// Tools around the example page, shared by its CLIs (build.js, bench.js) and by test/browser.e2e.test.js:
// bundle it (esbuild or Vite), serve a folder on 127.0.0.1, drive Debian's Chromium through playwright-core. The
// bench pages (bench/snarkjs, bench/ntt, bench/groth16-memory) are bundled and served with them too.
// Node only; nothing here is part of the library.

import { createServer } from 'node:http';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const exampleDir = fileURLToPath(new URL('.', import.meta.url));
export const repoDir = resolve(exampleDir, '../..');
/** Git-ignored; each bundler writes to its own subfolder. */
export const distDir = join(exampleDir, 'dist');

/**
 * The policy the example is served with: no inline scripts or styles, no eval, no other origins. Wasm
 * compilation needs 'wasm-unsafe-eval' in script-src (or the much broader 'unsafe-eval'); the thread pool
 * (curve.threads) starts its workers from a blob: URL, which needs worker-src blob:.
 */
export const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob:; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'";
/** The same policy without 'wasm-unsafe-eval': the page must fail to compile the Wasm under it. */
export const CSP_WITHOUT_WASM = CSP.replace(" 'wasm-unsafe-eval'", '');
/** The same policy without worker-src blob:: curve.threads() must reject under it. */
export const CSP_WITHOUT_WORKERS = CSP.replace(' worker-src blob:;', '');
/** The same policy without connect-src: default-src 'none' then refuses every fetch, and the page must not need one. */
export const CSP_WITHOUT_CONNECT = CSP.replace(" connect-src 'self';", '');

/**
 * The headers that make a page cross-origin isolated (globalThis.crossOriginIsolated === true), which
 * SharedArrayBuffer and a shared WebAssembly.Memory need: the pool then takes its shared-memory path.
 * Every resource of the example is same-origin, so require-corp needs nothing more.
 */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Bundle examples/browser into outdir. esbuild: one ESM entry (main.js) with code splitting, so each curve's
 * Wasm (base64 in a .wasm.js module) is a chunk fetched only when that curve is loaded. Vite: its normal
 * production build of index.html. Both minify. Resolves to the list of files written (relative to outdir).
 */
export async function buildExample({ bundler = 'esbuild', outdir = join(distDir, bundler) } = {}) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  if (bundler === 'esbuild') {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      entryPoints: [join(exampleDir, 'main.js')],
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      supported: { 'top-level-await': false },
      minify: true,
      entryNames: '[name]',
      chunkNames: 'chunks/[name]-[hash]',
      metafile: true,
      absWorkingDir: repoDir,
      logLevel: 'silent',
    });
    const assets = ['index.html', 'style.css', 'favicon.svg'];
    for (const f of assets) await copyFile(join(exampleDir, f), join(outdir, f));
    return [...assets, ...Object.keys(result.metafile.outputs).map((f) => resolve(repoDir, f).slice(outdir.length + 1))];
  }
  if (bundler === 'vite') {
    const { build } = await import('vite');
    const out = await build({
      root: exampleDir,
      base: './',
      configFile: false,
      logLevel: 'silent',
      build: { outDir: outdir, emptyOutDir: true, minify: true, reportCompressedSize: false },
    });
    const outputs = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output ?? []);
    return outputs.map((o) => o.fileName);
  }
  throw new RangeError(`unknown bundler ${JSON.stringify(bundler)} (esbuild or vite)`);
}

/**
 * A bench page: `sourceDir`'s page.js bundled with esbuild into outdir/page.js (the library's browser build), its
 * index.html and the example's favicon beside it (bench/snarkjs, bench/ntt, bench/groth16-memory).
 */
export async function bundlePage(sourceDir, outdir) {
  await mkdir(outdir, { recursive: true });
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(sourceDir, 'page.js')], bundle: true, format: 'esm', platform: 'browser',
    outfile: join(outdir, 'page.js'), logLevel: 'warning', conditions: ['browser'],
  });
  await copyFile(join(sourceDir, 'index.html'), join(outdir, 'index.html'));
  await copyFile(join(exampleDir, 'favicon.svg'), join(outdir, 'favicon.svg'));
}

/**
 * Bundle the streamed-MSM page (stream.html, stream-page.js) with esbuild into outdir and write its data: points
 * and scalars in the native encodings as data/points.bin and data/scalars.bin. Resolves to the files written.
 */
export async function buildStreamPage({ outdir, pointBytes, scalarBytes }) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(join(outdir, 'data'), { recursive: true });
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(exampleDir, 'stream-page.js')], outdir, bundle: true, splitting: true, format: 'esm', platform: 'browser',
    target: 'es2022', supported: { 'top-level-await': false }, minify: true, entryNames: '[name]', chunkNames: 'chunks/[name]-[hash]',
    absWorkingDir: repoDir, logLevel: 'silent',
  });
  for (const f of ['stream.html', 'style.css', 'favicon.svg']) await copyFile(join(exampleDir, f), join(outdir, f));
  await writeFile(join(outdir, 'data', 'points.bin'), pointBytes);
  await writeFile(join(outdir, 'data', 'scalars.bin'), scalarBytes);
}

/** Open stream.html with `query` and wait until it reports done or error: resolves to { page, report, logs }. */
export async function openStreamPage(browser, url, query, { timeout = 30 * 60_000 } = {}) {
  const page = await browser.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  const target = new URL('stream.html', url);
  for (const [k, v] of Object.entries(query)) target.searchParams.set(k, String(v));
  await page.goto(target.href, { waitUntil: 'load' });
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout, polling: 200 });
  return { page, report: await page.evaluate(() => window.wasmsmStream), logs };
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

/**
 * Serve `root` read-only on 127.0.0.1 at a free port (or `port`), with the given Content-Security-Policy,
 * and with COOP/COEP (ISOLATION_HEADERS) when `isolated`. Resolves to { url, isolated, close, requests }
 * where requests lists the paths asked for.
 */
export async function serve(root, { csp = CSP, port = 0, isolated = false } = {}) {
  const base = resolve(root);
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    requests.push(path);
    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': csp,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        ...(isolated ? ISOLATION_HEADERS : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    isolated,
    requests,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

/**
 * The pages' pool threads run wasm/threads-worker.js, a bundle of src/ that scripts/build-wasm.js makes (the npm
 * scripts build it first; `node bench/...` or `npx vitest run` do not). One older than a file of src/ may not speak the
 * threads' protocol of the src/ the page bundles, and sums go wrong without an error (a proof that does not verify):
 * refuse it.
 */
export function checkWorkerScript() {
  const script = join(repoDir, 'wasm', 'threads-worker.js');
  if (!existsSync(script)) throw new Error('wasm/threads-worker.js is missing: run npm run build:wasm');
  const built = statSync(script).mtimeMs;
  const newer = (dir) => readdirSync(dir, { withFileTypes: true }).find((e) => (e.isDirectory() ? newer(join(dir, e.name)) : e.name.endsWith('.js') && statSync(join(dir, e.name)).mtimeMs > built));
  const stale = newer(join(repoDir, 'src'));
  if (stale) throw new Error('wasm/threads-worker.js is older than a file of src/: run npm run build:wasm');
}

/** Debian's chromium (apt-get install chromium), or $CHROMIUM_PATH; null when neither exists. */
export function findChromium() {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (p && existsSync(p)) return p;
  }
  return null;
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** V8's flag for the wide-arithmetic proposal (i64.mul_wide_u, i64.add128): what the wide build needs today. */
export const WIDE_ARITHMETIC_FLAGS = ['--js-flags=--wasm-wide-arithmetic'];

/** Launch headless Chromium through playwright-core (no browser download: it uses the system's). */
/** Launch headless Chromium; `args`: flags besides CHROMIUM_FLAGS (e.g. --js-flags=... for V8). */
export async function launchChromium(executablePath = findChromium(), { args = [] } = {}) {
  if (!executablePath) throw new Error('chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH');
  checkWorkerScript();
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS, ...args], timeout: 60_000 });
}

/**
 * Open the example at `url` with query `query` and wait until it reports done or error. Resolves to
 * { page, report, shown, logs } where report is window.wasmsmExample, shown the result as the page shows it
 * ({ x, y } hex strings or null for infinity), and logs the console messages and page errors. The caller
 * closes the page.
 */
export async function openExample(browser, url, query = {}, { timeout = 120_000, viewport = { width: 1000, height: 1200 } } = {}) {
  const page = await browser.newPage({ viewport });
  const logs = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  const target = new URL(url);
  for (const [k, v] of Object.entries(query)) target.searchParams.set(k, String(v));
  await page.goto(target.href, { waitUntil: 'load' });
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout, polling: 100 });
  const report = await page.evaluate(() => {
    const { addTimeRow, ...plain } = window.wasmsmExample;
    return plain;
  });
  const shown = await page.evaluate(() => {
    const x = document.getElementById('result-x').textContent;
    const y = document.getElementById('result-y').textContent;
    return x === 'infinity' ? null : { x, y };
  });
  return { page, report, shown, logs, status: await page.textContent('#status') };
}
