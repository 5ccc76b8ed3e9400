// The codegen CLI end to end: `scripts/codegen.js curve` turns a params file into a folder whose index.js
// loads a working MSM. Curves generated here: a secp256k1 clone under another name (a = 0, GLV; default
// runtime specifier 'wasmsm', resolved through node_modules as in a user's project), NIST P-256 (a = -3, no
// GLV), two toys over 64-bit primes (supersingular a = 0 with p = 2 mod 3 and cofactor 6, so no GLV; and a
// prime-order a = 0 curve with GLV and a preferred limb size in the file), and the shipped bn254 params
// (the CLI and codegen/modules/shipped.js produce the same module). Bad params files each give exit
// status 1 and one clear line on stderr. Every generated curve runs in each build this engine runs (the FMA one
// under Node 22/24: CI runs this file under Node 24 too), and the CLI's self-check of the FMA build with it.
// Also: checkSubgroup on a generated curve with a cofactor (toy64, h = 6: the r * P test), --no-glv, --no-check.
//
// Oracle: src/bigint/curve.js (makeCurve(...).msm, the literal sum of double-and-add products).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCurve } from '../src/bigint/curve.js';
import { relaxedFmaSupport, wideArithmeticSupport } from '../src/runtime/features.js';
import { subgroupTestOf } from '../src/msm/subgroup.js';
import { fmaLimbShape } from '../codegen/params/field.js';
import { shippedModules } from '../codegen/modules/shipped.js';
import { KERNELS } from './harness.js';
import { edwardsOps } from './msm-oracle.js';
import { testGpu } from './gpu.js';
import { loadCurve } from '../index.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { modInv, modSqrt } from '../src/bigint/field.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'scripts', 'codegen.js');
const examples = join(repo, 'scripts', 'examples');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** Run the CLI; resolves to { code, stdout, stderr }. */
function run(args, { cwd = repo } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

// y^2 = x^3 + 2 over p = 2^64 - 453 (p = 1 mod 3): prime order r = 1 mod 3, so GLV applies. Found by a
// deterministic search (4p = t^2 + 3v^2 gives the six candidate orders of the twists; keep b whose order is
// prime). The numbers are decimal on purpose; "w" is the preferred limb size.
const TOY_GLV = {
  name: 'toy64-glv',
  p: '18446744073709551163',
  r: '18446744066322874501',
  a: '0',
  b: '2',
  h: '1',
  generator: { x: '2', y: '16929852090725970766' },
  w: 27,
};

let tmp;
const out = {};
const runs = {};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'wasmsm-codegen-'));
  // A user's project: wasmsm installed in node_modules (here a link to this repo), no "type": "module".
  const project = join(tmp, 'project');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(repo, join(project, 'node_modules', 'wasmsm'), process.platform === 'win32' ? 'junction' : 'dir');
  writeFileSync(join(tmp, 'toy64-glv.json'), JSON.stringify(TOY_GLV, null, 2));
  const runtime = join(repo, 'index.js');
  out.k256 = join(project, 'curves', 'k256');
  out.p256 = join(tmp, 'p256');
  out.toy = join(tmp, 'toy64');
  out.toyGlv = join(tmp, 'toy64-glv');
  out.bn254 = join(tmp, 'bn254');
  out.ed25519 = join(tmp, 'ed25519');
  out.toyNoGlv = join(tmp, 'toy64-no-glv');
  writeFileSync(join(tmp, 'toy64-no-glv.json'), JSON.stringify({ ...TOY_GLV, name: 'toy64-no-glv' }, null, 2));
  writeFileSync(join(tmp, 'bandersnatch-copy.json'), JSON.stringify({ ...readJson(join(repo, 'codegen', 'curves', 'bandersnatch.json')), name: 'bandersnatch-copy' }, null, 2));
  out.curve25519 = join(tmp, 'curve25519');
  out.bandersnatch = join(tmp, 'bandersnatch-copy');
  const jobs = {
    k256: run(['curve', '--params', join(examples, 'secp256k1-clone.json'), '--out', out.k256], { cwd: project }),
    p256: run(['curve', '--params', join(examples, 'p256.json'), '--out', out.p256, '--runtime', runtime, '--w', '29']),
    toy: run(['codegen', 'curve', '--params', join(examples, 'toy64.json'), '--out', out.toy, '--runtime', runtime]),
    toyGlv: run(['curve', '--params', join(tmp, 'toy64-glv.json'), '--out', out.toyGlv, '--runtime', runtime]),
    bn254: run(['curve', '--params', join(repo, 'codegen', 'curves', 'bn254.json'), '--out', out.bn254, '--runtime', runtime, '--w', '30', '--no-check']),
    // its params ask for Crandall's product ("reduction"), as the shipped module has it
    ed25519: run(['curve', '--params', join(repo, 'codegen', 'curves', 'ed25519.json'), '--out', out.ed25519, '--runtime', runtime, '--w', '30', '--no-check']),
    toyNoGlv: run(['curve', '--params', join(tmp, 'toy64-no-glv.json'), '--out', out.toyNoGlv, '--runtime', runtime, '--no-glv']),
    curve25519: run(['curve', '--params', join(examples, 'curve25519.json'), '--out', out.curve25519, '--runtime', runtime, '--w', '30']),
    bandersnatch: run(['curve', '--params', join(tmp, 'bandersnatch-copy.json'), '--out', out.bandersnatch, '--runtime', runtime, '--w', '29']),
  };
  for (const [k, job] of Object.entries(jobs)) runs[k] = await job;
}, 60_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Points for the MSM: the module's own random points, oracle-made subgroup points, and the degenerate cases. */
function msmInputs(curve, oracle, n) {
  const points = curve.randomPoints(n - 8, { seed: 11 });
  const scalars = curve.randomScalars(n - 8, { seed: 12 });
  // Points computed only by the oracle: h * (a lifted x), which lies in the subgroup of order r.
  for (let x = 5n, k = 0; k < 4; x++) {
    const P = oracle.liftX(x);
    const Q = P && oracle.mul(P, oracle.h ?? 1n);
    if (Q === null) continue;
    points.push(Q);
    scalars.push(oracle.r - 1n - BigInt(k));
    k++;
  }
  points.push(null, points[0], oracle.neg(points[1]), oracle.G);
  scalars.push(5n, 0n, scalars[1], 1n);
  points[2] = points[3]; // a repeated point
  scalars[4] = 0n; // zero scalars
  scalars[5] = 0n;
  return { points, scalars };
}

/**
 * The CLI's self-check line: the FMA build too where this engine runs it fused, the wide build where it has wide
 * arithmetic (the CLI runs on this node).
 */
const SELF_CHECKED = new RegExp('\nSelf-check: a 12-point MSM .* matches a BigInt reference \\(integer build' +
  (relaxedFmaSupport() === 'fused' ? ' and FMA build' : '; the FMA build is not checked: this engine does not run relaxed SIMD fused') +
  (wideArithmeticSupport() ? '; wide build' : '; the wide build is not checked: this engine has no wide arithmetic') + '\\)\n');

/** Returns { curve: the build load() picks, builds: { int, fma? } }. */
async function checkGenerated(key, json, { glv, n }) {
  const r = runs[key];
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(glv ? /GLV: lambda = 0x/ : /GLV: none/);
  expect(r.stdout).toMatch(SELF_CHECKED);
  expect(r.stdout).toMatch(/import \{ load \} from '/);
  for (const f of ['index.js', 'index.d.ts', 'params.js', ...['', '.fma'].flatMap((k) => [`${json.name}${k}.wat`, `${json.name}${k}.wasm`, `${json.name}${k}.wasm.js`])]) {
    expect(existsSync(join(out[key], f)), f).toBe(true);
  }
  const mod = await import(pathToFileURL(join(out[key], 'index.js')).href);
  expect(typeof mod.load).toBe('function');
  const curve = await mod.load();
  expect(await mod.load()).toBe(curve);
  const oracle = makeCurve(json);
  expect(curve.name).toBe(json.name);
  expect(curve.p).toBe(oracle.p);
  expect(curve.r).toBe(oracle.r);
  expect(curve.a).toBe(oracle.a);
  expect(curve.b).toBe(oracle.b);
  expect(curve.generator).toEqual(oracle.G);
  expect(typeof curve.msm).toBe('function');
  expect(typeof curve.msmBytes).toBe('function');
  expect(mod.params.glv === null).toBe(!glv);

  const { points, scalars } = msmInputs(curve, oracle, n);
  expect(points.every((P) => oracle.isOnCurve(P))).toBe(true);
  const want = oracle.msm(points, scalars);
  // The oracle's sums of prefixes, each computed once: its affine double-and-add (an inversion a step) is most of
  // this check's time on a 256-bit curve.
  const prefixSums = new Map([[n, want]]);
  const prefixSum = (k) => {
    if (!prefixSums.has(k)) prefixSums.set(k, oracle.msm(points.slice(0, k), scalars.slice(0, k)));
    return prefixSums.get(k);
  };
  const got = curve.msm(points, scalars);
  expect(got).toEqual(want);
  // Both builds: the integer one everywhere, the FMA one where this engine runs it (auto picked it above then).
  expect(curve.kernel).toBe(relaxedFmaSupport() === 'fused' ? 'fma' : 'int');
  const builds = {};
  for (const kernel of KERNELS) {
    const built = await mod.load({ kernel });
    builds[kernel] = built;
    expect(built.kernel).toBe(kernel);
    // the FMA build has its own limb shape (51- or 52-bit limbs in u64 words), the integer build the chosen w
    expect(built.params.kernel).toBe(kernel);
    const { field } = built.params;
    if (kernel === 'fma') expect(field).toMatchObject({ ...fmaLimbShape(field.bits), elementBytes: 8 * field.n });
    else expect(field).toMatchObject({ w: mod.params.field.w, elementBytes: 4 * field.n });
    expect(built.msm(points, scalars), kernel).toEqual(want);
    expect(built.decodePoint(built.msmBytes(built.encodePoints(points), built.encodeScalars(scalars))), `${kernel} msmBytes`).toEqual(want);
  }
  if (relaxedFmaSupport() !== 'fused') await expect(mod.load({ kernel: 'fma' })).rejects.toThrow(RangeError);
  // The bytes path agrees with the BigInt path.
  const bytes = curve.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars));
  expect(curve.decodePoint(bytes)).toEqual(want);
  // Degenerate sums: everything cancels, all scalars zero, a single point.
  expect(curve.msm([points[0], oracle.neg(points[0])], [7n, 7n])).toBe(null);
  expect(curve.msm(points.slice(0, 10), scalars.slice(0, 10).map(() => 0n))).toBe(null);
  expect(curve.msm([oracle.G], [oracle.r - 1n])).toEqual(oracle.neg(oracle.G));
  // Prepared bases (with and without precompute; a curve without GLV takes the one-half path) on prefixes.
  const pointBytes = curve.encodePoints(points);
  for (const precompute of [false, true, { window: 3 }]) {
    const bases = curve.prepareBases(pointBytes, { precompute });
    for (const k of [0, 1, 7, n - 1, n]) {
      expect(curve.decodePoint(bases.msmBytes(curve.encodeScalars(scalars.slice(0, k)))), `prepared ${JSON.stringify(precompute)}, k = ${k}`).toEqual(prefixSum(k));
    }
    bases.free();
  }
  // The same MSM on a thread pool, both paths, with the degenerate inputs above.
  for (const sharedMemory of [true, false]) {
    for (const count of [1, 3, 8]) {
      const pool = await curve.threads({ count, sharedMemory });
      try {
        expect(await pool.msm(points, scalars), `${count} threads, shared ${sharedMemory}`).toEqual(want);
        expect(await pool.msm([points[0], oracle.neg(points[0])], [7n, 7n])).toBe(null);
        expect(await pool.msm([], [])).toBe(null);
        expect(await pool.msm([oracle.G], [oracle.r - 1n])).toEqual(oracle.neg(oracle.G));
        const bases = await pool.prepareBases(pointBytes, { precompute: count === 3 });
        expect(await bases.msm(scalars.slice(0, n - 1))).toEqual(prefixSum(n - 1));
        await bases.free();
      } finally {
        await pool.close();
      }
    }
  }
  return { curve, builds };
}

describe('codegen curve: generated modules against the BigInt oracle', () => {
  it('a secp256k1 clone under another name (a = 0, GLV), importing the default runtime specifier wasmsm', async () => {
    const json = readJson(join(examples, 'secp256k1-clone.json'));
    expect(json.name).not.toBe('secp256k1');
    expect(readFileSync(join(out.k256, 'index.js'), 'utf8')).toMatch(/from 'wasmsm'/);
    // Not inside an ES-module package, so the CLI marks the folder as one.
    expect(readJson(join(out.k256, 'package.json')).type).toBe('module');
    // No --w: the limb size comes from the measurement, whose timings are printed.
    expect(runs.k256.stdout).toMatch(/Limb size: w = \d+, the fastest field mul .* of w=28 \(n=\d+\) [\d.]+ ns, w=29/);
    await checkGenerated('k256', json, { glv: true, n: 100 });
  }, 60_000); // 19-25 s on the 2-vCPU VM, 32 s with other tests running beside it: its builds are measured by timing

  it('NIST P-256 (a = -3, no GLV) with --w 29 and --runtime <path>', async () => {
    const json = readJson(join(examples, 'p256.json'));
    expect(runs.p256.stdout).toMatch(/GLV: none \(a != 0 and no degree-2 endomorphism\)/);
    expect(runs.p256.stdout).toMatch(/Limb size: w = 29 \(from --w/);
    const { builds } = await checkGenerated('p256', json, { glv: false, n: 100 });
    expect(builds.int.params.field.w).toBe(29);
    expect(readFileSync(join(out.p256, 'index.js'), 'utf8')).toMatch(/from '\.\.?\/.*index\.js'/);
  }, 30_000);

  it('a toy over a 64-bit prime: supersingular a = 0, p = 2 mod 3, cofactor 6 (no GLV), decimal numbers, `codegen curve` as with npx', async () => {
    const json = readJson(join(examples, 'toy64.json'));
    expect(runs.toy.stdout).toMatch(/GLV: none \(p != 1 mod 3\)/);
    await checkGenerated('toy', json, { glv: false, n: 200 });
  }, 30_000);

  it('a generated curve has its scalar field too (toy64.fr.wat, toy64.fr.fma.wat): curve.fr() and its NTT in each build', async () => {
    const json = readJson(join(examples, 'toy64.json'));
    expect(existsSync(join(out.toy, 'toy64.fr.wat'))).toBe(true);
    expect(existsSync(join(out.toy, 'toy64.fr.fma.wat'))).toBe(true);
    for (const kernel of relaxedFmaSupport() === 'fused' ? ['int', 'fma'] : ['int']) {
      const curve = await (await import(pathToFileURL(join(out.toy, 'index.js')).href)).load({ kernel });
      const fr = await curve.fr();
      expect(fr.params.kernel).toBe(kernel);
      expect(fr.r).toBe(BigInt(json.r));
      const N = 2 ** Math.min(fr.s, 3);
      const x = Array.from({ length: N }, (_, i) => (BigInt(i) * 0x1234567n + 5n) % fr.r);
      expect(fr.intt(fr.ntt(x))).toEqual(x);
      expect(fr.ntt([1n, ...new Array(N - 1).fill(0n)])).toEqual(new Array(N).fill(1n));
    }
  }, 30_000);

  it('toy64 (h = 6): checkSubgroup rejects what lies outside the order-r subgroup (the r * P test), in each build, synchronously, on a pool and in prepareBases', async () => {
    const json = readJson(join(examples, 'toy64.json'));
    const oracle = makeCurve(json);
    expect(oracle.h).toBe(6n);
    const mod = await import(pathToFileURL(join(out.toy, 'index.js')).href);
    // Points of the curve from x = 100, 101, ...: 5 in 6 lie outside the subgroup. r * P lies in the 6-torsion;
    // its points of order 2, 3 and 6 are all found among them (checked).
    const random = [];
    for (let x = 100n; random.length < 30; x++) {
      const P = oracle.liftX(x);
      if (P) random.push(P);
    }
    const torsion = new Map();
    for (const P of random) {
      const T = oracle.mul(P, oracle.r);
      if (T === null) continue;
      const order = [2n, 3n, 6n].find((d) => oracle.mul(T, d) === null);
      if (!torsion.has(order)) torsion.set(order, T);
    }
    expect([...torsion.keys()].sort()).toEqual([2n, 3n, 6n]);
    const inSubgroup = (P) => P === null || oracle.mul(P, oracle.r) === null;
    const subgroup = random.slice(0, 6).map((P) => oracle.mul(P, 6n));
    expect(subgroup.every((S) => S !== null && inSubgroup(S))).toBe(true);
    const outside = [...torsion.values(), ...[...torsion.values()].map((T, i) => oracle.add(T, subgroup[i]))];
    expect(outside.every((P) => oracle.isOnCurve(P) && !inSubgroup(P))).toBe(true);
    for (const kernel of KERNELS) {
      const curve = await mod.load({ kernel });
      expect(subgroupTestOf(curve.params).kind, 'no BLS12 shortcut: r * P = O').toBe('order');
      const msmOne = (P) => curve.msm([P], [1n], { checkSubgroup: true });
      const accepted = (P) => {
        try {
          msmOne(P);
          return true;
        } catch (e) {
          expect(e, kernel).toBeInstanceOf(RangeError);
          expect(e.message).toBe('points[0] is not in the subgroup of order r');
          return false;
        }
      };
      // the verdict agrees with r * P = O on every random point (most of them outside)
      expect(random.map(accepted), `${kernel}: accepted or not, random points`).toEqual(random.map(inSubgroup));
      expect(random.filter((P) => !inSubgroup(P)).length).toBeGreaterThan(15);
      for (const P of outside) expect(accepted(P), `${kernel}: order-${[2n, 3n, 6n].find((d) => oracle.mul(P, d * oracle.r) === null)}r point`).toBe(false);
      for (const P of [...subgroup, null, oracle.G]) expect(accepted(P), `${kernel}: a subgroup point`).toBe(true);
      // in a larger input: the index of the first outside point; subgroup points give the oracle's sum
      const points = [...subgroup, outside[1], subgroup[0], outside[0]];
      const scalars = points.map((_, i) => BigInt(1000 + i));
      expect(() => curve.msm(points, scalars, { checkSubgroup: true })).toThrow(/^points\[6\] is not in the subgroup of order r$/);
      expect(() => curve.msm(points, scalars)).not.toThrow(); // not asked: not checked
      expect(curve.msm(subgroup, scalars.slice(0, 6), { checkSubgroup: true })).toEqual(oracle.msm(subgroup, scalars.slice(0, 6)));
      const pb = curve.encodePoints(points);
      const sb = curve.encodeScalars(scalars);
      expect(() => curve.msmBytes(pb, sb, { checkSubgroup: true })).toThrow(/^points\[6\] is not in the subgroup/);
      expect(() => curve.prepareBases(pb, { checkSubgroup: true })).toThrow(/^points\[6\] is not in the subgroup/);
      for (const sharedMemory of [true, false]) {
        const pool = await curve.threads({ count: 2, sharedMemory });
        try {
          await expect(pool.msmBytes(pb, sb, { checkSubgroup: true }), `${kernel} pool, shared ${sharedMemory}`).rejects.toThrow(/^points\[6\] is not in the subgroup/);
          await expect(pool.prepareBases(pb, { checkSubgroup: true })).rejects.toThrow(/^points\[6\] is not in the subgroup/);
          expect(await pool.msm(subgroup, scalars.slice(0, 6), { checkSubgroup: true })).toEqual(oracle.msm(subgroup, scalars.slice(0, 6)));
        } finally {
          await pool.close();
        }
      }
    }
  }, 60_000);

  it('--no-glv: a curve with an endomorphism (toy64-glv) generated without it, plain signed windows, same results', async () => {
    expect(runs.toyNoGlv.stdout).toMatch(/\nGLV: none \(--no-glv\); the MSM uses plain signed windows over 64-bit scalars\n/);
    const index = readFileSync(join(out.toyNoGlv, 'index.js'), 'utf8');
    expect(index).toMatch(/MSM with signed windows \(no GLV endomorphism on this curve\)/);
    expect(index).toMatch(/--no-glv/); // the command that regenerates it
    const { builds } = await checkGenerated('toyNoGlv', { ...TOY_GLV, name: 'toy64-no-glv' }, { glv: false, n: 120 });
    for (const [kernel, curve] of Object.entries(builds)) {
      expect(curve.params.glv, kernel).toBeNull();
      expect(curve.exports.glv_decomposeBatch, kernel).toBeUndefined();
      expect(curve.exports.g_endomorphism, kernel).toBeUndefined();
    }
    // the same params with GLV (the toy64-glv run) do have it
    const withGlv = await (await import(pathToFileURL(join(out.toyGlv, 'index.js')).href)).load({ kernel: 'int' });
    expect(typeof withGlv.exports.glv_decomposeBatch).toBe('function');
  }, 30_000);

  it('a toy over a 64-bit prime with GLV and the limb size taken from the params file', async () => {
    expect(runs.toyGlv.stdout).toMatch(/Limb size: w = 27 \(from the params file/);
    const { builds } = await checkGenerated('toyGlv', TOY_GLV, { glv: true, n: 200 });
    expect(builds.int.params.field.w).toBe(27);
  }, 30_000);

  it('a Montgomery-form curve (Curve25519, RFC 7748): points (u, v) in, the sum out, against noble ed25519 through the birational map written here', async () => {
    const r = runs.curve25519;
    expect(r.stderr, r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Curve curve25519: B v\^2 = u\^3 \+ A u\^2 \+ u \(A = 0x76d06, B = 0x1; the MSM runs on its image y\^2 = x\^3 /m);
    expect(r.stdout).toMatch(/GLV: none/);
    expect(r.stdout).toMatch(SELF_CHECKED);
    const mod = await import(pathToFileURL(join(out.curve25519, 'index.js')).href);
    const p = ed25519.Point.CURVE().p;
    const F = (v) => ((v % p) + p) % p;
    const inv = (v) => modInv(F(v), p);
    // RFC 7748 section 4.1: (u, v) = ((1 + y) / (1 - y), sqrt(-486664) u / x), the root giving G -> (9, v_G)
    let c = modSqrt(F(-486664n), p);
    const toMontgomery = (P) => (P.x === 0n && P.y === 1n ? null : { x: F((1n + P.y) * inv(1n - P.y)), y: F(c * F((1n + P.y) * inv(1n - P.y)) * inv(P.x)) });
    if (toMontgomery(ed25519.Point.BASE.toAffine()).y !== BigInt(readJson(join(examples, 'curve25519.json')).generator.y)) c = F(-c);
    const fromMontgomery = (M) => (M === null ? { x: 0n, y: 1n } : { x: F(c * M.x * inv(M.y)), y: F((M.x - 1n) * inv(M.x + 1n)) });
    for (const kernel of KERNELS) {
      const curve = await mod.load({ kernel });
      expect(curve.model).toBe('montgomery');
      expect(curve.generator).toEqual(toMontgomery(ed25519.Point.BASE.toAffine()));
      const E = Array.from({ length: 40 }, (_, i) => ed25519.Point.BASE.multiply(BigInt(i) * 0x1234567890abcdefn + 11n));
      const scalars = E.map((_, i) => (BigInt(i) * 0xfedcba987654321n + 3n) % curve.r);
      scalars[5] = 0n;
      E[7] = E[6];
      E[9] = E[8].negate();
      scalars[9] = scalars[8];
      E[10] = ed25519.Point.ZERO;
      const want = pippenger(ed25519.Point, E, scalars).toAffine();
      const points = E.map((P) => toMontgomery(P.toAffine()));
      expect(points[10]).toBe(null);
      expect(fromMontgomery(curve.msm(points, scalars)), kernel).toEqual({ x: want.x, y: want.y });
      expect(fromMontgomery(curve.decodePoint(curve.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars))))).toEqual({ x: want.x, y: want.y });
      expect(curve.msm([points[0], { x: points[0].x, y: F(-points[0].y) }], [3n, 3n])).toBe(null);
      expect(curve.msm([], [])).toBe(null);
      // (0, 0), of order 2, has no native encoding (all zero is infinity): a clear error, not a wrong sum
      expect(() => curve.msm([{ x: 0n, y: 0n }], [1n])).toThrow(/points\[0\] is \(0, 0\), the point of order 2/);
      const T4 = toMontgomery(ed25519.Point.fromAffine({ x: modSqrt(F(-1n), p), y: 0n }).toAffine()); // order 4
      expect(() => curve.msm([points[0], T4], [1n, 1n], { checkSubgroup: true })).toThrow(/^points\[1\] is not in the subgroup of order r$/);
      expect(() => curve.msm([T4], [2n])).toThrow(/the result is \(0, 0\), the point of order 2/);
      // a share of the sum may be (0, 0) where the sum is not: the pool's message path adds its threads' partial sums
      // in Jacobian form (the first thread's two points sum to (0, 0), the second's to E[0] + E[1])
      const T4e = ed25519.Point.fromAffine({ x: modSqrt(F(-1n), p), y: 0n });
      const shares = [T4, T4, points[0], points[1]];
      const total = T4e.add(T4e).add(E[0]).add(E[1]).toAffine();
      for (const sharedMemory of [false, true]) {
        const pool = await curve.threads({ count: 2, sharedMemory });
        try {
          expect(fromMontgomery(await pool.msm(shares, [1n, 1n, 1n, 1n])), `shared ${sharedMemory}`).toEqual({ x: total.x, y: total.y });
          const bytes = curve.encodePoints(shares);
          expect(fromMontgomery(curve.decodePoint(await pool.msmStream({ points: [bytes], scalars: [curve.encodeScalars([1n, 1n, 1n, 1n])] })))).toEqual({ x: total.x, y: total.y });
          const bases = await pool.prepareBases(bytes);
          expect(fromMontgomery(await bases.msm([1n, 1n, 1n, 1n]))).toEqual({ x: total.x, y: total.y });
          await bases.free();
          // the whole sum (0, 0) is still the clear error
          await expect(pool.msm([T4, T4], [1n, 1n])).rejects.toThrow(/the result is \(0, 0\), the point of order 2/);
        } finally {
          await pool.close();
        }
      }
    }
  }, 60_000);

  it('a twisted Edwards curve with a degree-2 GLV endomorphism (a copy of the shipped bandersnatch): same results as the shipped curve', async () => {
    const r = runs.bandersnatch;
    expect(r.stderr, r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Curve bandersnatch-copy: a x\^2 \+ y\^2 = 1 \+ d x\^2 y\^2 \(a = 0x73eda/m);
    expect(r.stdout).toMatch(/GLV: lambda = 0x[0-9a-f]+, the degree-2 endomorphism with kernel \(0x[0-9a-f]+, 0\)/);
    expect(r.stdout).toMatch(SELF_CHECKED);
    const mod = await import(pathToFileURL(join(out.bandersnatch, 'index.js')).href);
    const shipped = await loadCurve('bandersnatch', { kernel: 'int' });
    const points = shipped.randomPoints(300, { seed: 3 });
    const scalars = shipped.randomScalars(300, { seed: 4 });
    const want = shipped.msm(points, scalars);
    for (const kernel of KERNELS) {
      const curve = await mod.load({ kernel });
      expect(curve.params.glv).not.toBe(null);
      expect(curve.msm(points, scalars), kernel).toEqual(want);
    }
  }, 30_000);

  it('shipped params through the CLI give the shipped module (one code path): only the header line naming the generator differs; --no-check skips the self-check', () => {
    expect(runs.bn254.code, runs.bn254.stderr).toBe(0);
    expect(runs.bn254.stdout).not.toMatch(/Self-check/);
    expect(runs.toy.stdout, 'without --no-check').toMatch(SELF_CHECKED);
    expect(runs.bn254.stdout).toMatch(/also the name of a shipped curve/);
    const shipped = shippedModules().find((m) => m.name === 'bn254');
    const diff = (a, b) => {
      const [x, y] = [a.split('\n'), b.split('\n')];
      expect(y.length).toBe(x.length);
      return x.map((line, i) => i).filter((i) => x[i] !== y[i]);
    };
    expect(diff(shipped.wat, readFileSync(join(out.bn254, 'bn254.wat'), 'utf8'))).toEqual([1]);
    expect(runs.ed25519.code, runs.ed25519.stderr).toBe(0);
    const ed = shippedModules().find((m) => m.name === 'ed25519' && m.kernel === undefined);
    expect(diff(ed.wat, readFileSync(join(out.ed25519, 'ed25519.wat'), 'utf8'))).toEqual([1]);
    expect(diff(shipped.paramsJs, readFileSync(join(out.bn254, 'params.js'), 'utf8'))).toEqual([0]);
    const shippedWgsl = shippedModules().find((m) => m.name === 'bn254' && m.kernel === 'gpu');
    expect(diff(shippedWgsl.wat, readFileSync(join(out.bn254, 'bn254.wgsl'), 'utf8')).length).toBe(1);
  });

  it('a twisted Edwards curve whose p fills its bytes (16 bits: no spare bit for a compressed y\'s sign) is generated and loads: those formats are left out, its MSM equals a double-and-add', async () => {
    const json = { name: 'te16', model: 'twisted-edwards', p: '65521', r: '8221', a: '1', d: '29', h: '8', generator: { x: '23306', y: '59405' } };
    const file = join(tmp, 'te16.json');
    writeFileSync(file, JSON.stringify(json));
    const dir = join(tmp, 'te16');
    const r = await run(['curve', '--params', file, '--out', dir, '--runtime', join(repo, 'index.js')]);
    expect(r.code, r.stderr).toBe(0);
    const { load } = await import(pathToFileURL(join(dir, 'index.js')).href);
    const { add, mul: times, ZERO } = edwardsOps({ p: 65521n, a: 1n, d: 29n });
    const G = { x: 23306n, y: 59405n };
    const points = [1n, 2n, 5n, 5n, 8220n, 77n].map((k) => times(G, k));
    const scalars = [3n, 8220n, 1n, 4n, 17n, 0n];
    const want = points.reduce((acc, P, i) => add(acc, times(P, scalars[i])), ZERO);
    for (const kernel of KERNELS) {
      const curve = await load({ kernel });
      expect(Object.keys(curve.pointFormats)).toContain('native');
      expect(Object.keys(curve.pointFormats)).not.toContain('arkworks-compressed');
      expect(curve.msm(points, scalars), kernel).toEqual(want);
      expect(() => curve.msmBytes(curve.encodePoints(points), curve.encodeScalars(scalars), { pointFormat: 'arkworks-compressed' })).toThrow(/needs a spare bit in the top byte of y/);
    }
  }, 60_000);

  it('the GPU kernels of a generated curve (toy64.wgsl): its gpu() on SwiftShader equals its msmBytes; a Montgomery-form curve gets none', async () => {
    expect(existsSync(join(out.curve25519, 'curve25519.wgsl'))).toBe(false);
    expect(runs.curve25519.stdout).toMatch(/GPU kernels: not written/);
    await testGpu();
    const { load } = await import(pathToFileURL(join(out.toy, 'index.js')).href);
    const curve = await load();
    const gpu = await curve.gpu();
    try {
      for (const n of [1, 33, 200]) {
        const points = curve.randomPointsBytes(n, { seed: n });
        const scalars = curve.randomScalarsBytes(n, { seed: n + 1 });
        expect(Buffer.from(await gpu.msmBytes(points, scalars)).toString('hex'), `n = ${n}`).toBe(Buffer.from(curve.msmBytes(points, scalars)).toString('hex'));
      }
    } finally {
      await gpu.close();
    }
  }, 120_000);
});

/** Replace the params with a model's (keys set to undefined are deleted). */
function withParams(j, json, changes) {
  for (const k of Object.keys(j)) delete j[k];
  Object.assign(j, json, changes);
  for (const [k, v] of Object.entries(j)) if (v === undefined) delete j[k];
}
const edwardsParams = (j, changes) => withParams(j, readJson(join(repo, 'codegen', 'curves', 'ed-on-bls12-377.json')), changes);
const montgomeryParams = (j, changes) => withParams(j, readJson(join(examples, 'curve25519.json')), changes);
/** A point of ed-on-bls12-377 with a component of order 2 or 4 (h = 4). */
function edwardsOutsideSubgroup() {
  const json = readJson(join(repo, 'codegen', 'curves', 'ed-on-bls12-377.json'));
  const ed = edwardsOps({ p: BigInt(json.p), a: BigInt(json.a), d: BigInt(json.d) });
  for (let y = 2n; ; y++) {
    const P = ed.liftY(y);
    if (P && P.x !== 0n && ed.mul(P, BigInt(json.r)).x !== 0n) return { x: '0x' + P.x.toString(16), y: '0x' + P.y.toString(16) };
  }
}

const g2Section = (changes = {}) => ({ nonResidue: '-1', b: ['0x1', '0x1'], h: '0x1', generator: { x: ['0x1', '0x0'], y: ['0x1', '0x0'] }, ...changes });

describe('codegen curve: bad params files', () => {
  const base = () => structuredClone(readJson(join(examples, 'secp256k1-clone.json')));
  const CASES = [
    ['composite p', (j) => (j.p = '0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2d'), /: p = 0x[0-9a-f]+ is not prime/],
    ['composite r', (j) => (j.r = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364143'), /: r = 0x[0-9a-f]+ is not prime/],
    ['generator off the curve', (j) => (j.generator.y = '0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b9'), /: generator is not on the curve/],
    // the next prime after secp256k1's r: prime, inside the Hasse interval, but not the generator's order
    ['wrong order', (j) => (j.r = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364159'), /: generator does not have order r/],
    // y^2 = x^3 + 10 over p = 337: #E = 343 = 7^3, r = 7, h = 49 (several subgroups of order 7)
    ['h a multiple of r', (j) => withParams(j, { name: 'ft337', p: '337', r: '7', a: '0', b: '10', h: '49', generator: { x: '21', y: '138' } }), /: h = 0x31 is a multiple of r = 0x7: /],
    // y^2 = x^3 + 4 over p = 547: #E = 507 = 3 * 13^2 with all of E[13] rational (13 divides p - 1); the wrong h = 42
    // lies in the Hasse interval and (h r) P = O for the sample points, but h P is not in G's subgroup (review's case)
    ['full r-torsion and a wrong h', (j) => withParams(j, { name: 'ft547', p: '547', r: '13', a: '0', b: '4', h: '42', generator: { x: '39', y: '263' } }), /: the points of order r are not all multiples of the generator: h P, P = \(0x[0-9a-f]+, 0x[0-9a-f]+\), is not in its subgroup/],
    ['reduction not a known one', (j) => (j.reduction = 'bogus'), /: "reduction" must be "montgomery" or "crandall", got "bogus"$/],
    ['wrong cofactor', (j) => (j.h = '0x2'), /: h \* r = 0x[0-9a-f]+ cannot be the number of points: it is outside the Hasse interval/],
    ['missing field', (j) => delete j.r, /: missing field "r"$/],
    ['missing fields', (j) => { delete j.a; delete j.b; }, /: missing fields "a", "b"$/],
    ['missing generator.y', (j) => delete j.generator.y, /: missing field "generator\.y"$/],
    ['malformed hex', (j) => (j.p = '0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffcZZ'), /: "p" is malformed hex: expected a 0x-hex or decimal string, got "0x[0-9a-fZ]+"$/],
    ['malformed decimal', (j) => (j.generator.x = '12_34'), /: "generator\.x" is not a number/],
    ['b = 0', (j) => (j.b = '0x0'), /: b must be nonzero$/],
    // y^2 = x^3 - 3x + 2 = (x - 1)^2 (x + 2): 4a^3 + 27b^2 = -108 + 108 = 0 over every p (a != 0, b != 0)
    ['singular with a != 0', (j) => Object.assign(j, { a: '-3', b: '2' }), /: singular curve \(4a\^3 \+ 27b\^2 = 0 mod p\)$/],
    // x + p and y + p satisfy the curve equation mod p and give an order-r point mod p: only the range check rejects them
    ['generator x >= p', (j) => (j.generator.x = '0x' + (BigInt(j.generator.x) + BigInt(j.p)).toString(16)), /: generator coordinates must be in \[0, p\)$/],
    ['generator y = p + y', (j) => (j.generator.y = '0x' + (BigInt(j.generator.y) + BigInt(j.p)).toString(16)), /: generator coordinates must be in \[0, p\)$/],
    // toy64's p (= 2 mod 3, so #E = p + 1 for every b): G = (0, 2) on y^2 = x^3 + 4 has order r = 3; h = (p + 1) / 3
    // would be right, h + 1 is not, yet h * r = p + 4 lies inside the Hasse interval: only (h * r) * P = O catches it
    ['wrong cofactor inside the Hasse interval', (j) => Object.assign(j, {
      p: '18446744073709549733', r: '3', a: '0', b: '4', h: String((18446744073709549733n + 1n) / 3n + 1n), generator: { x: '0', y: '2' },
    }), /: h \* r = 0x[0-9a-f]+ is not the group order: \(h \* r\) \* P != O for the curve point P = \(0x[0-9a-f]+, 0x[0-9a-f]+\); check the cofactor "h"/],
    ['a JSON number too large to be exact', (j) => (j.b = 1e30), /: "b" is the JSON number 1e\+30, which JSON cannot hold exactly/],
    ['unknown field', (j) => (j.cofactor = '1'), /: unknown field "cofactor" \(allowed: .*the cofactor is "h"\)$/],
    ['bad name', (j) => (j.name = 'My Curve'), /: "name" must be 1 to 64 lowercase letters, digits and dashes/],
    // it names the files: past 240 characters writing them failed after the whole generation, a folder half written
    ['name too long', (j) => (j.name = 'a'.repeat(300)), /: "name" must be 1 to 64 lowercase letters, digits and dashes \(it names the files\), got "a{64}"\.\.\. \(300 characters\)$/],
    // the Hasse interval before r's primality test, whose cost grows with r (a 19937-bit r ran for minutes)
    ['r of 19937 bits', (j) => (j.r = '0x' + (2n ** 19937n - 1n).toString(16)), /: h \* r = a 19937-bit number cannot be the number of points: it is outside the Hasse interval/],
    // y^2 = x^3 + x + 301 over p = 397: #E = 380 = 76 * 5 (5 does not divide p - 1); h = 74 puts h r in the Hasse
    // interval, and the first two sample points (orders 10 and 5) passed it: every sample is tried now
    ['a wrong cofactor two sample points missed', (j) => withParams(j, { name: 'wh397', p: '397', r: '5', a: '1', b: '301', h: '74', generator: { x: '6', y: '64' } }),
      /: h \* r = 0x172 is not the group order: \(h \* r\) \* P != O for the curve point P = \(0x[0-9a-f]+, 0x[0-9a-f]+\); check the cofactor "h"/],
    ['w out of range', (j) => (j.w = 40), /: "w" must be an integer in 26\.\.32, got 40$/],
    ['p too large', (j) => (j.p = '0x' + 'f'.repeat(200)), /: p has 800 bits; supported sizes are 8\.\.768 bits$/],
    // G2 sections (secp256k1's p = 3 mod 4, so -1 is a non-residue)
    ['g2 off the twist', (j) => (j.g2 = g2Section()), /: g2\.generator is not on y\^2 = x\^3 \+ b' over F_p2$/],
    ['g2 with a square as non-residue', (j) => (j.g2 = g2Section({ nonResidue: '4' })), /: g2\.nonResidue must be a quadratic non-residue mod p/],
    ['g2 unknown field', (j) => (j.g2 = g2Section({ twist: 'M' })), /: "g2" has unknown field "twist" \(allowed: nonResidue, b, h, generator\)$/],
    ['g2 b not a pair', (j) => (j.g2 = g2Section({ b: '0x3' })), /: "g2\.b" must be an array \[c0, c1\]/],
    ['g2 missing generator', (j) => (j.g2 = g2Section({ generator: undefined })), /: missing field "g2\.generator"$/],
    // the curve models (twisted Edwards: ed-on-bls12-377's params; Montgomery: Curve25519's)
    ['unknown model', (j) => edwardsParams(j, { model: 'weierstrass' }), /: "model" must be "short-weierstrass", "twisted-edwards", "montgomery", got "weierstrass"$/],
    ['Edwards without d', (j) => edwardsParams(j, { d: undefined }), /: missing field "d"$/],
    ['Edwards with b', (j) => edwardsParams(j, { b: '0x7' }), /: field "b" is not a coefficient of the twisted-edwards model \(it takes "a", "d"\)$/],
    ['Edwards a = 0', (j) => edwardsParams(j, { a: '0' }), /: a must be nonzero/],
    ['Edwards d = 0', (j) => edwardsParams(j, { d: '0' }), /: d must be nonzero/],
    ['Edwards a = d', (j) => edwardsParams(j, { d: '-1' }), /: a and d must differ/],
    ['Edwards d a square', (j) => edwardsParams(j, { d: '4' }), /: d must be a non-square mod p/],
    ['Edwards generator off the curve', (j) => edwardsParams(j, { generator: { x: '0x2', y: '0x3' } }), /: generator is not on the curve \(a x\^2 \+ y\^2 = 1 \+ d x\^2 y\^2\)$/],
    ['Edwards generator the neutral (0, 1)', (j) => edwardsParams(j, { generator: { x: '0', y: '1' } }), /: the generator has x = 0 \(the neutral element or the point of order 2\)$/],
    ['Edwards generator outside the subgroup', (j) => edwardsParams(j, { generator: edwardsOutsideSubgroup() }), /: generator does not have order r/],
    ['Edwards wrong cofactor', (j) => edwardsParams(j, { h: '8' }), /: h \* r = 0x[0-9a-f]+ cannot be the number of points/],
    ['Montgomery B = 0', (j) => montgomeryParams(j, { B: '0' }), /: B must be nonzero/],
    ['Montgomery A = 2 (singular)', (j) => montgomeryParams(j, { A: '2' }), /: A\^2 = 4 makes the Montgomery curve singular/],
    ['Montgomery without A', (j) => montgomeryParams(j, { A: undefined }), /: missing field "A"$/],
    ['Montgomery generator off the curve', (j) => montgomeryParams(j, { generator: { x: '9', y: '10' } }), /: generator is not on the curve \(B v\^2 = u\^3 \+ A u\^2 \+ u\)$/],
  ];
  const results = {};
  let badDir;

  beforeAll(async () => {
    badDir = join(tmp, 'bad');
    mkdirSync(badDir, { recursive: true });
    const jobs = CASES.map(([label, edit], i) => {
      const j = base();
      edit(j);
      const file = join(badDir, `case${i}.json`);
      writeFileSync(file, JSON.stringify(j, null, 2));
      return run(['curve', '--params', file, '--out', join(badDir, `out${i}`), '--w', '30']).then((r) => (results[label] = { ...r, file, outDir: join(badDir, `out${i}`) }));
    });
    writeFileSync(join(badDir, 'not-json.json'), '{ "name": "x", ');
    jobs.push(run(['curve', '--params', join(badDir, 'not-json.json'), '--out', join(badDir, 'o1')]).then((r) => (results['not JSON'] = r)));
    jobs.push(run(['curve', '--params', join(badDir, 'absent.json'), '--out', join(badDir, 'o2')]).then((r) => (results['missing file'] = r)));
    await Promise.all(jobs);
  }, 60_000);

  for (const [label, , message] of CASES) {
    it(`${label}: exit status 1, one line naming the problem, nothing written`, () => {
      const r = results[label];
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`codegen: ${r.file}: `), lines[0]).toBe(true);
      expect(lines[0]).toMatch(message);
      expect(existsSync(r.outDir)).toBe(false);
    });
  }

  it('a file that is not JSON, and a file that does not exist', () => {
    expect(results['not JSON'].code).toBe(1);
    expect(results['not JSON'].stderr).toMatch(/^codegen: .*not-json\.json: not valid JSON: .+\n$/);
    expect(results['missing file'].code).toBe(1);
    expect(results['missing file'].stderr).toMatch(/^codegen: cannot read params file .*absent\.json: no such file\n$/);
  });
});

describe('codegen CLI: usage, help, bin and the field command', () => {
  it('--help documents the params file format and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const s of ['"name"', '"p"', '"r"', '"a"', '"b"', '"h"', '"generator": { "x"', '"w"', '0x', 'decimal', '--params', '--out', '--w', '--runtime', '--no-glv']) {
      expect(r.stdout).toContain(s);
    }
    expect((await run(['codegen', '--help'])).stdout).toBe(r.stdout);
  });

  it('usage errors exit 2', async () => {
    // a folder with a package.json of the user's that is not "type": "module": refused, the file untouched
    const mine = join(tmp, 'mine');
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'package.json'), '{ "name": "mine", "dependencies": { "left-pad": "1.3.0" } }\n');
    const [noParams, noOut, badW, unknown, none, emptyOut, fileOut, fieldFileOut, userPackage] = await Promise.all([
      run(['curve', '--out', join(tmp, 'x')]),
      run(['curve', '--params', join(examples, 'p256.json')]),
      run(['curve', '--params', join(examples, 'p256.json'), '--out', join(tmp, 'x'), '--w', '25']),
      run(['frobnicate']),
      run([]),
      run(['curve', '--params', join(examples, 'p256.json'), '--out', '', '--w', '30'], { cwd: tmp }),
      run(['curve', '--params', join(examples, 'p256.json'), '--out', join(cli, 'sub'), '--w', '30']),
      run(['field', '--p', '101', '--out', cli]),
      run(['curve', '--params', join(examples, 'p256.json'), '--out', mine, '--w', '30']),
    ]);
    // before any work: an empty --out wrote into the working directory, a file as --out failed after the generation
    expect([emptyOut.code, fileOut.code, fieldFileOut.code, userPackage.code]).toEqual([2, 2, 2, 2]);
    expect(emptyOut.stderr).toMatch(/^codegen: --out is empty/);
    expect(fileOut.stderr).toMatch(/^codegen: --out .*: .*codegen\.js is a file, not a folder/);
    expect(fieldFileOut.stderr).toMatch(/^codegen: --out .*: it is a file, not a folder/);
    expect(userPackage.stderr).toMatch(/^codegen: --out .* holds a package\.json without "type": "module"/);
    expect(readFileSync(join(mine, 'package.json'), 'utf8')).toMatch(/left-pad/);
    expect(readdirSync(mine)).toEqual(['package.json']);
    expect(noParams.code).toBe(2);
    expect(noParams.stderr).toMatch(/missing --params/);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/missing --out/);
    expect(badW.code).toBe(2);
    expect(badW.stderr).toMatch(/--w must be an integer in 26\.\.32, got 25/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    expect(none.code).toBe(2);
    expect(existsSync(join(tmp, 'x'))).toBe(false);
  });

  it('package.json has the bin entry and the script is executable by node', () => {
    const pkg = readJson(join(repo, 'package.json'));
    expect(pkg.bin).toEqual({ wasmsm: 'scripts/codegen.js' });
    expect(pkg.scripts.codegen).toBe('node scripts/codegen.js');
    expect(readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('index.js exports curveLoader for generated modules', async () => {
    const index = await import('../index.js');
    expect(typeof index.curveLoader).toBe('function');
  });

  it('the field command still works', async () => {
    const dir = join(tmp, 'field');
    const r = await run(['field', '--p', '0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47', '--w', '29', '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ['field.wat', 'field.wasm', 'field.wasm.js']) expect(existsSync(join(dir, f))).toBe(true);
  });
});
