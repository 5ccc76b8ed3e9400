#!/usr/bin/env node
// Bundle the example page, and optionally serve it:
//   node examples/browser/build.js                     esbuild -> examples/browser/dist/esbuild/
//   node examples/browser/build.js --bundler vite      Vite    -> examples/browser/dist/vite/
//   node examples/browser/build.js --serve [--port 8080]   then serve it on 127.0.0.1 until Ctrl-C
// (npm run example:browser does the last.) Open the printed URL; the page takes ?curve=&logn=&runs=&noble=.

import { parseArgs } from 'node:util';
import { buildExample, distDir, serve, CSP } from './harness.js';
import { join } from 'node:path';

const { values: args } = parseArgs({
  options: {
    bundler: { type: 'string', default: 'esbuild' },
    serve: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
  },
});
const outdir = join(distDir, args.bundler);
const files = await buildExample({ bundler: args.bundler, outdir });
console.log(`${args.bundler}: ${files.length} files in ${outdir}`);
if (args.serve) {
  const server = await serve(outdir, { port: Number(args.port) });
  console.log(`serving ${outdir} with Content-Security-Policy: ${CSP}`);
  console.log(`open ${server.url}?curve=bls12-381&logn=10   (Ctrl-C to stop)`);
}
