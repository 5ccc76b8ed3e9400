// The TypeScript declarations (index.d.ts, types/curve-module.d.ts, types/codegen.d.ts): an example that uses
// the public API by package name (test/types/example.ts) must type-check with `tsc --noEmit` under
// moduleResolution nodenext and bundler, including the lines that must be errors (ts-expect-error); and the
// declared exports, curve names and params fields must match what the modules export at run time, so the
// hand-written declarations cannot drift from the code unnoticed.

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as index from '../index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path) => readFileSync(join(repo, path), 'utf8');
// typescript's "exports" do not list its bin, so find it from its package.json.
const tscBin = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** Names a .d.ts exports as values: `export declare const|function|class NAME`. */
const declaredValues = (dts) => new Set([...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]));

function tsc(config) {
  const r = spawnSync(process.execPath, [tscBin, '-p', join(repo, config)], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}${r.error ? r.error.message : ''}` };
}

describe('TypeScript declarations', () => {
  for (const config of ['test/types/tsconfig.nodenext.json', 'test/types/tsconfig.bundler.json']) {
    it(`the example type-checks (${config})`, { timeout: 120_000 }, () => {
      const { status, output } = tsc(config);
      expect(output.trim(), `tsc -p ${config}`).toBe('');
      expect(status).toBe(0);
    });
  }

  it('package.json points every export at existing declarations', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.types).toBe('./index.d.ts');
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (subpath === './package.json') continue;
      expect(target, subpath).toHaveProperty('types');
      expect(Object.keys(target)[0], `${subpath}: "types" must come first`).toBe('types');
      expect(existsSync(join(repo, target.types)), target.types).toBe(true);
      for (const path of [target.types.replace(/^\.\//, '').split('/')[0]]) expect(pkg.files.some((f) => f.replace(/\/$/, '') === path), `${path} in "files"`).toBe(true);
    }
  });

  it('index.d.ts declares exactly the runtime exports of index.js', () => {
    expect([...declaredValues(read('index.d.ts'))].sort()).toEqual(Object.keys(index).sort());
  });

  it('CurveName lists exactly curveNames', () => {
    const union = read('index.d.ts').match(/export type CurveName =([^;]+);/)[1];
    const declared = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(declared.sort()).toEqual([...index.curveNames].sort());
  });

  it('types/curve-module.d.ts declares exactly the exports of every curve subpath', async () => {
    const declared = [...declaredValues(read('types/curve-module.d.ts'))].sort();
    for (const name of index.curveNames) {
      const mod = await import(`../src/curves/${name}.js`);
      expect(Object.keys(mod).sort(), name).toEqual(declared);
    }
  });

  it('CurveParams declares every field of every shipped curve params', async () => {
    const dts = read('index.d.ts');
    // CurveParams and AffinePoint (its generator), which come one after the other in index.d.ts.
    const body = dts.slice(dts.indexOf('export interface AffinePoint'), dts.indexOf('export interface MsmTimings'));
    const fields = new Set([...body.matchAll(/^\s+(?:readonly )?(\w+)\??:/gm)].map((m) => m[1]));
    for (const name of index.curveNames) {
      const { params } = await import(`../src/curves/${name}.js`);
      const walk = (obj, path) => {
        for (const [k, v] of Object.entries(obj)) {
          expect(fields.has(k), `${name}: params${path}.${k} is not declared in CurveParams`).toBe(true);
          if (v && typeof v === 'object') walk(v, `${path}.${k}`);
        }
      };
      walk(params, '');
    }
  });

  it('types/snarkjs.d.ts declares exactly the exports of wasmsm/snarkjs', async () => {
    const adapter = await import('../src/adapters/snarkjs.js');
    expect([...declaredValues(read('types/snarkjs.d.ts'))].sort()).toEqual(Object.keys(adapter).sort());
  });

  it('types/codegen.d.ts declares exactly the exports of codegen/index.js', async () => {
    const codegen = await import('../codegen/index.js');
    expect([...declaredValues(read('types/codegen.d.ts'))].sort()).toEqual(Object.keys(codegen).sort());
  });
});
