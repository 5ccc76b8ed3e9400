// The package as a user gets it: `npm pack` (prepack builds the Wasm), the tarball installed into a fresh
// project offline (`npm ci --offline` on a lockfile: dependencies from the local npm cache, which the repo's
// `npm ci` filled), then:
// - the install runs no script of ours and npm names none of our scripts in a warning;
// - `npx wasmsm codegen curve ...` writes a curve that loads and gives the BigInt oracle's MSM, and
//   `import ... from 'wasmsm/codegen'` works (wabt is a dependency, not a devDependency);
// - an MSM through the package name, synchronous and on a thread pool (the process exits by itself);
// - a Node-only TypeScript project (lib es2022, types node, skipLibCheck off) type-checks against the
//   package's declarations.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

function run(command, args, cwd, { timeout = 120_000 } = {}) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' } });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

describe('the packed package in a fresh project', { timeout: 240_000 }, () => {
  let dir;
  let project;
  let install;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wasmsm-consumer-'));
    const pack = run('npm', ['pack', '--pack-destination', dir, '--silent'], repo);
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeTruthy();
    project = join(dir, 'app');
    mkdirSync(project);
    // A lockfile names each dependency's version and integrity, so `npm ci --offline` takes them from the
    // cache by integrity (an install by name would need the registry's metadata, which npm ci does not cache).
    const ours = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const locked = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')).packages;
    // Where npm's registry keeps a tarball (the registry this npm is configured with): the cache key of the tarball.
    const registry = run('npm', ['config', 'get', 'registry'], repo).stdout.trim().replace(/\/?$/, '/');
    const pick = (name) => {
      const { dev, ...entry } = locked[`node_modules/${name}`];
      return { resolved: `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`, ...entry };
    };
    const dependencies = { wasmsm: `file:../${tarball}`, '@types/node': pick('@types/node').version };
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies }, null, 2));
    const packages = {
      '': { name: 'app', dependencies },
      'node_modules/wasmsm': { version: ours.version, resolved: `file:../${tarball}`, license: ours.license, dependencies: ours.dependencies, bin: ours.bin, engines: ours.engines },
      ...Object.fromEntries(['@types/node', 'undici-types', ...Object.keys(ours.dependencies)].map((name) => [`node_modules/${name}`, pick(name)])),
    };
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }, null, 2));
    install = run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
  }, 240_000); // npm pack and npm ci: over vitest's 10 s default for hooks on a loaded 2-core machine

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs offline with its dependencies, and npm warns about no script of ours', () => {
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);
    expect(existsSync(join(project, 'node_modules', 'wasmsm', 'wasm', 'bn254', 'bn254.wasm.js')), 'the Wasm ships prebuilt').toBe(true);
    expect(existsSync(join(project, 'node_modules', 'wasmsm', 'wasm', 'threads-worker.js')), 'the browser thread script ships prebuilt').toBe(true);
    expect(existsSync(join(project, 'node_modules', 'wabt')), 'wabt comes as a dependency').toBe(true);
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(/wasmsm@[^\n]*(install|prepare)|install-scripts[^\n]*wasmsm/);
  });

  it('runs an MSM through the package name, synchronously and on a thread pool, and exits by itself', () => {
    const script = `
      import { loadCurve } from 'wasmsm';
      import { load } from 'wasmsm/curves/bn254';
      const curve = await loadCurve('bls12-381');
      const points = curve.randomPointsBytes(500), scalars = curve.randomScalarsBytes(500);
      const sync = curve.msmBytes(points, scalars);
      const pool = await curve.threads({ count: 2 });
      const threaded = await pool.msmBytes(points, scalars);
      const bn = await load();
      console.log(JSON.stringify({ same: sync.join() === threaded.join(), shared: pool.sharedMemory, bn: bn.name }));`;
    writeFileSync(join(project, 'msm.mjs'), script);
    const r = run(process.execPath, ['msm.mjs'], project, { timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ same: true, shared: true, bn: 'bn254' });
  });

  it('npx wasmsm codegen curve writes a curve that loads and matches the BigInt oracle; wasmsm/codegen imports', () => {
    copyFileSync(join(repo, 'scripts', 'examples', 'p256.json'), join(project, 'p256.json'));
    const gen = run('npx', ['--offline', 'wasmsm', 'codegen', 'curve', '--params', 'p256.json', '--out', 'curves/p256', '--w', '29'], project);
    expect(gen.code, `${gen.stdout}\n${gen.stderr}`).toBe(0);
    const script = `
      import { load } from './curves/p256/index.js';
      import { instantiateField } from 'wasmsm/codegen';
      const p256 = await load();
      const G = p256.generator;
      const sum = p256.msm([G, G, null], [2n, 3n, 7n]);
      const five = p256.msm([G], [5n]);
      const F = await instantiateField({ p: 101n });
      console.log(JSON.stringify({ equal: sum.x === five.x && sum.y === five.y, mul: F.mul(7n, 9n).toString() }));`;
    writeFileSync(join(project, 'gen.mjs'), script);
    const r = run(process.execPath, ['gen.mjs'], project, { timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ equal: true, mul: String((7n * 9n) % 101n) });
  });

  it('a Node-only TypeScript project (lib es2022, types node, skipLibCheck off) type-checks against the declarations', () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2022', lib: ['es2022'], types: ['node'], module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: false, noEmit: true },
        files: ['check.ts'],
      }),
    );
    writeFileSync(
      join(project, 'check.ts'),
      `import { loadCurve, type MsmPool, type WasmMemory } from 'wasmsm';
import { deriveFieldParams } from 'wasmsm/codegen';
export async function main(): Promise<number> {
  const curve = await loadCurve('bn254');
  const memory: WasmMemory = curve.memory;
  const pool: MsmPool = await curve.threads({ count: 2 });
  const out: Uint8Array = await pool.msmBytes(curve.randomPointsBytes(4), curve.randomScalarsBytes(4));
  await pool.close();
  return out.length + memory.buffer.byteLength + deriveFieldParams({ p: 101n, w: 30 }).n;
}
`,
    );
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.code).toBe(0);
  });
});
