#!/usr/bin/env node
// npm run build: an esbuild bundle of the library for browsers (ESM, minified) in dist/, and its size per
// curve. Entries: dist/wasmsm.js (index.js: loadCurve, curveNames, Curve) and dist/curves/<curve>.js (one
// per shipped curve subpath, `wasmsm/curves/<curve>`). Code is split, so each curve's Wasm (base64, inlined
// in a .wasm.js module) is a chunk of its own that is fetched only when that curve is loaded, and the runtime
// is one chunk shared by all entries.
//
// The build fails on anything a browser cannot run: an import of a Node built-in (node:*, fs, ...) anywhere
// in the runtime path, or a top-level await. The size of a curve is what a page that imports only
// `wasmsm/curves/<curve>` loads: its entry and the chunks it imports statically (runtime + params: "JS"),
// and the chunk its load() imports (the Wasm). Raw bytes, and gzip at the default level (as most servers).
//
//   npm run build                  write dist/ and print the size table
//   npm run build -- --json        the sizes as JSON
//   npm run build -- --outdir d    write to d instead of dist/

import { builtinModules } from 'node:module';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** esbuild plugin: any import of a Node built-in is a build error naming the importer. */
export const noNodeBuiltins = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (!args.path.startsWith('node:') && !BUILTINS.has(args.path)) return undefined;
      return { errors: [{ text: `Node built-in "${args.path}" imported by ${relative(repoRoot, args.importer)}: the library must run in browsers` }] };
    });
  },
};

/** The library's entry points: dist name -> source file. */
export async function libraryEntries() {
  const { curveNames } = await import('../index.js');
  return {
    wasmsm: join(repoRoot, 'index.js'),
    ...Object.fromEntries(curveNames.map((name) => [`curves/${name}`, join(repoRoot, 'src/curves', `${name}.js`)])),
  };
}

/**
 * Bundle the library in memory. Resolves to { files: Map(relative path -> Uint8Array), metafile, entries,
 * sizes } where sizes = { curves: [{ curve, js, wasm, total }], index: {...} }, each size { raw, gzip }.
 */
export async function buildLibrary({ entries } = {}) {
  entries ??= await libraryEntries();
  const result = await esbuild.build({
    entryPoints: entries,
    absWorkingDir: repoRoot,
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    supported: { 'top-level-await': false },
    minify: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [noNodeBuiltins],
  });
  const files = new Map();
  for (const f of result.outputFiles) files.set(relative(join(repoRoot, 'dist'), f.path), f.contents);
  const outputs = result.metafile.outputs; // keys relative to repoRoot: dist/...
  const key = (distPath) => `dist/${distPath}`;
  const measure = (paths) => {
    let raw = 0;
    let gzip = 0;
    for (const p of paths) {
      const bytes = files.get(p.slice('dist/'.length));
      raw += bytes.length;
      gzip += gzipSync(bytes).length;
    }
    return { raw, gzip };
  };
  /** Output paths reached from `start` through imports of the given kind (static: import-statement). */
  const closure = (start, kinds) => {
    const seen = new Set();
    const stack = [start];
    while (stack.length) {
      const p = stack.pop();
      if (seen.has(p)) continue;
      seen.add(p);
      for (const imp of outputs[p].imports) if (kinds.includes(imp.kind) && !imp.external) stack.push(imp.path);
    }
    return seen;
  };
  const curves = [];
  for (const name of Object.keys(entries)) {
    if (!name.startsWith('curves/')) continue;
    const entry = key(`${name}.js`);
    const js = closure(entry, ['import-statement']);
    const all = closure(entry, ['import-statement', 'dynamic-import']);
    const lazy = [...all].filter((p) => !js.has(p));
    // The thread pool's code and its worker script are lazy chunks too, fetched when a page starts a pool.
    const isWasm = (p) => Object.keys(outputs[p].inputs).some((i) => i.endsWith('.wasm.js'));
    const isBuild = (suffix) => (p) => Object.keys(outputs[p].inputs).some((i) => i.endsWith(`.${suffix}.wasm.js`));
    const [isFrFma, isFr, isWide] = [isBuild('fr.fma'), isBuild('fr'), isBuild('wide')];
    const isFma = (p) => isBuild('fma')(p) && !isFrFma(p);
    // three Wasm chunks per curve, the integer, FMA and wide builds: a page fetches one (src/runtime/kernels.js);
    // two more, the scalar field with its NTT (integer and FMA builds: the one of the curve's build), only on curve.fr()
    curves.push({
      curve: name.slice('curves/'.length), js: measure(js), wasm: measure(lazy.filter((p) => isWasm(p) && !isFma(p) && !isWide(p) && !isFr(p) && !isFrFma(p))),
      wasmFma: measure(lazy.filter(isFma)), wasmWide: measure(lazy.filter(isWide)), wasmFr: measure(lazy.filter(isFr)), wasmFrFma: measure(lazy.filter(isFrFma)),
      threads: measure(lazy.filter((p) => !isWasm(p))), total: measure(all), files: [...all],
    });
  }
  const indexEntry = key('wasmsm.js');
  const index = entries.wasmsm
    ? { entry: measure(closure(indexEntry, ['import-statement'])), everything: measure(closure(indexEntry, ['import-statement', 'dynamic-import'])) }
    : null;
  return { files, metafile: result.metafile, entries, sizes: { curves, index } };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The size table as Markdown. */
export function formatSizes({ curves, index }) {
  const lines = [
    '| import | JS (runtime + params) raw / gzip | Wasm chunk (base64), integer build raw / gzip | Wasm chunk, FMA build raw / gzip | Wasm chunk, wide build raw / gzip | Wasm chunk, Fr and NTT (curve.fr()), integer build raw / gzip | the same, FMA build raw / gzip | threads (pool + worker script, lazy) raw / gzip | total (all builds) raw / gzip |',
    '|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const c of curves) {
    lines.push(
      `| \`wasmsm/curves/${c.curve}\` | ${kb(c.js.raw)} / ${kb(c.js.gzip)} | ${kb(c.wasm.raw)} / ${kb(c.wasm.gzip)} | ${kb(c.wasmFma.raw)} / ${kb(c.wasmFma.gzip)} | ${kb(c.wasmWide.raw)} / ${kb(c.wasmWide.gzip)} | ${kb(c.wasmFr.raw)} / ${kb(c.wasmFr.gzip)} | ${kb(c.wasmFrFma.raw)} / ${kb(c.wasmFrFma.gzip)} | ${kb(c.threads.raw)} / ${kb(c.threads.gzip)} | ${kb(c.total.raw)} / ${kb(c.total.gzip)} |`,
    );
  }
  if (index) {
    lines.push(`| \`wasmsm\` (loadCurve) | ${kb(index.entry.raw)} / ${kb(index.entry.gzip)} | every curve, one build fetched on its loadCurve | | | | | as above | ${kb(index.everything.raw)} / ${kb(index.everything.gzip)} |`);
  }
  return lines.join('\n');
}

async function main() {
  const { values: args } = parseArgs({
    options: { outdir: { type: 'string', default: 'dist' }, json: { type: 'boolean', default: false } },
  });
  const started = performance.now();
  let built;
  try {
    built = await buildLibrary();
  } catch (e) {
    const messages = e.errors?.map((m) => `${m.location ? `${m.location.file}:${m.location.line}: ` : ''}${m.text}`) ?? [e.message];
    console.error(`build: ${messages.join('\n')}`);
    process.exit(1);
  }
  const outdir = resolve(repoRoot, args.outdir);
  rmSync(outdir, { recursive: true, force: true });
  for (const [path, bytes] of built.files) {
    mkdirSync(dirname(join(outdir, path)), { recursive: true });
    writeFileSync(join(outdir, path), bytes);
  }
  if (args.json) {
    const { curves, index } = built.sizes;
    console.log(JSON.stringify({ outdir: relative(repoRoot, outdir), curves: curves.map(({ files, ...c }) => c), index }, null, 2));
    return;
  }
  const ms = (performance.now() - started).toFixed(0);
  console.log(`build: ${built.files.size} files in ${relative(repoRoot, outdir) || '.'}/ (ESM, minified, es2022, code-split) in ${ms} ms`);
  console.log(`sizes per curve (a page that imports only that curve's subpath; gzip at the default level):\n`);
  console.log(formatSizes(built.sizes));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
