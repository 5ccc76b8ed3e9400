#!/usr/bin/env node
// npm run gen: write the WAT (and WGSL) of every shipped module (codegen/modules/shipped.js) to wasm/<curve>/<curve>.wat.
// Output depends only on the code and codegen/curves/*.json. A .wat under wasm/ that no shipped module
// produces any more is removed (with its built .wasm and .wasm.js), so `npm run gen:check` passes afterwards.

import { rmSync, existsSync, readdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot, listGenerated, writeShippedModules, fail } from './lib.js';

try {
  const modules = await writeShippedModules(repoRoot);
  const shipped = new Set(modules.flatMap((m) => [m.path, m.paramsPath]));
  const stale = listGenerated(repoRoot).filter((path) => !shipped.has(path));
  for (const path of stale) {
    for (const file of path.endsWith('.wat') ? [path, path.replace(/\.wat$/, '.wasm'), path.replace(/\.wat$/, '.wasm.js')] : path.endsWith('.wgsl') ? [path, `${path}.js`] : [path]) {
      if (existsSync(join(repoRoot, file))) rmSync(join(repoRoot, file));
    }
    const dir = join(repoRoot, dirname(path));
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  }
  const removed = stale.length ? `; removed stale ${stale.join(', ')}` : '';
  console.log(`gen: wrote ${modules.length} modules (${modules.map((m) => m.path).join(', ')})${removed}`);
} catch (e) {
  fail('gen', e);
}
