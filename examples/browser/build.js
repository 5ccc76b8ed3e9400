#!/usr/bin/env node
// Bundle the example page, and optionally serve it:
//   node examples/browser/build.js                     esbuild -> examples/browser/dist/esbuild/
//   node examples/browser/build.js --bundler vite      Vite    -> examples/browser/dist/vite/
//   node examples/browser/build.js --serve [--port 8080] [--isolation both|on|off]
//       then serve it on 127.0.0.1 until Ctrl-C (npm run example:browser does this with esbuild)
// --isolation: `on` serves with COOP same-origin + COEP require-corp (the page is cross-origin isolated, so
// ?threads=T takes the pool's shared-memory path), `off` without them (the pool's message path), `both` (the
// default) on two ports: --port (or a free one) with isolation, the next port (or a free one) without.
// Open a printed URL; the page takes ?curve=&logn=&runs=&noble=&threads=&shared=.

import { parseArgs } from 'node:util';
import { buildExample, distDir, serve, CSP, ISOLATION_HEADERS } from './harness.js';
import { join } from 'node:path';

const { values: args } = parseArgs({
  options: {
    bundler: { type: 'string', default: 'esbuild' },
    serve: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    isolation: { type: 'string', default: 'both' },
  },
});
if (!['both', 'on', 'off'].includes(args.isolation)) throw new RangeError(`--isolation takes both, on or off, got ${JSON.stringify(args.isolation)}`);
const outdir = join(distDir, args.bundler);
const files = await buildExample({ bundler: args.bundler, outdir });
console.log(`${args.bundler}: ${files.length} files in ${outdir}`);
if (args.serve) {
  const port = Number(args.port);
  console.log(`serving ${outdir} with Content-Security-Policy: ${CSP}`);
  if (args.isolation !== 'off') {
    const server = await serve(outdir, { port, isolated: true });
    const headers = Object.entries(ISOLATION_HEADERS).map(([k, v]) => `${k}: ${v}`).join(', ');
    console.log(`cross-origin isolated (${headers}): shared-memory threads`);
    console.log(`  open ${server.url}?curve=bls12-381&logn=14&threads=2`);
  }
  if (args.isolation !== 'on') {
    const server = await serve(outdir, { port: args.isolation === 'both' && port ? port + 1 : port });
    console.log('not cross-origin isolated (no COOP/COEP): threads exchange messages');
    console.log(`  open ${server.url}?curve=bls12-381&logn=14&threads=2`);
  }
  console.log('(threads=0 runs on the main thread; Ctrl-C to stop)');
}
