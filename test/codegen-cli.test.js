// The codegen CLI end to end: `scripts/codegen.js curve` turns a params file into a folder whose index.js
// loads a working MSM. Curves generated here: a secp256k1 clone under another name (a = 0, GLV; default
// runtime specifier 'wasmsm', resolved through node_modules as in a user's project), NIST P-256 (a = -3, no
// GLV), two toys over 64-bit primes (supersingular a = 0 with p = 2 mod 3 and cofactor 6, so no GLV; and a
// prime-order a = 0 curve with GLV and a preferred limb size in the file), and the shipped bn254 params
// (the CLI and codegen/modules/shipped.js produce the same module). Bad params files each give exit
// status 1 and one clear line on stderr.
//
// Oracle: src/bigint/curve.js (makeCurve(...).msm, the literal sum of double-and-add products).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCurve } from '../src/bigint/curve.js';
import { relaxedFmaSupport } from '../src/runtime/features.js';
import { shippedModules } from '../codegen/modules/shipped.js';

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
  const jobs = {
    k256: run(['curve', '--params', join(examples, 'secp256k1-clone.json'), '--out', out.k256], { cwd: project }),
    p256: run(['curve', '--params', join(examples, 'p256.json'), '--out', out.p256, '--runtime', runtime, '--w', '29']),
    toy: run(['codegen', 'curve', '--params', join(examples, 'toy64.json'), '--out', out.toy, '--runtime', runtime]),
    toyGlv: run(['curve', '--params', join(tmp, 'toy64-glv.json'), '--out', out.toyGlv, '--runtime', runtime]),
    bn254: run(['curve', '--params', join(repo, 'codegen', 'curves', 'bn254.json'), '--out', out.bn254, '--runtime', runtime, '--w', '30', '--no-check']),
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

async function checkGenerated(key, json, { glv, n }) {
  const r = runs[key];
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(glv ? /GLV: lambda = 0x/ : /GLV: none/);
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
  const got = curve.msm(points, scalars);
  expect(got).toEqual(want);
  // Both builds: the integer one everywhere, the FMA one where this engine runs it (auto picked it above then).
  expect(curve.kernel).toBe(relaxedFmaSupport() === 'fused' ? 'fma' : 'int');
  for (const kernel of relaxedFmaSupport() === 'fused' ? ['int', 'fma'] : ['int']) {
    const built = await mod.load({ kernel });
    expect(built.kernel).toBe(kernel);
    expect(built.msm(points, scalars), kernel).toEqual(want);
  }
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
      expect(curve.decodePoint(bases.msmBytes(curve.encodeScalars(scalars.slice(0, k)))), `prepared ${JSON.stringify(precompute)}, k = ${k}`).toEqual(oracle.msm(points.slice(0, k), scalars.slice(0, k)));
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
        expect(await bases.msm(scalars.slice(0, n - 1))).toEqual(oracle.msm(points.slice(0, n - 1), scalars.slice(0, n - 1)));
        await bases.free();
      } finally {
        await pool.close();
      }
    }
  }
  return curve;
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
  }, 30_000);

  it('NIST P-256 (a = -3, no GLV) with --w 29 and --runtime <path>', async () => {
    const json = readJson(join(examples, 'p256.json'));
    expect(runs.p256.stdout).toMatch(/GLV: none \(a != 0\)/);
    expect(runs.p256.stdout).toMatch(/Limb size: w = 29 \(from --w/);
    const curve = await checkGenerated('p256', json, { glv: false, n: 100 });
    expect(curve.params.field.w).toBe(29);
    expect(readFileSync(join(out.p256, 'index.js'), 'utf8')).toMatch(/from '\.\.?\/.*index\.js'/);
  }, 30_000);

  it('a toy over a 64-bit prime: supersingular a = 0, p = 2 mod 3, cofactor 6 (no GLV), decimal numbers, `codegen curve` as with npx', async () => {
    const json = readJson(join(examples, 'toy64.json'));
    expect(runs.toy.stdout).toMatch(/GLV: none \(p != 1 mod 3\)/);
    await checkGenerated('toy', json, { glv: false, n: 200 });
  }, 30_000);

  it('a toy over a 64-bit prime with GLV and the limb size taken from the params file', async () => {
    expect(runs.toyGlv.stdout).toMatch(/Limb size: w = 27 \(from the params file/);
    const curve = await checkGenerated('toyGlv', TOY_GLV, { glv: true, n: 200 });
    expect(curve.params.field.w).toBe(27);
  }, 30_000);

  it('shipped params through the CLI give the shipped module (one code path): only the header line naming the generator differs', () => {
    expect(runs.bn254.code, runs.bn254.stderr).toBe(0);
    expect(runs.bn254.stdout).toMatch(/also the name of a shipped curve/);
    const shipped = shippedModules().find((m) => m.name === 'bn254');
    const diff = (a, b) => {
      const [x, y] = [a.split('\n'), b.split('\n')];
      expect(y.length).toBe(x.length);
      return x.map((line, i) => i).filter((i) => x[i] !== y[i]);
    };
    expect(diff(shipped.wat, readFileSync(join(out.bn254, 'bn254.wat'), 'utf8'))).toEqual([1]);
    expect(diff(shipped.paramsJs, readFileSync(join(out.bn254, 'params.js'), 'utf8'))).toEqual([0]);
  });
});

const g2Section = (changes = {}) => ({ nonResidue: '-1', b: ['0x1', '0x1'], h: '0x1', generator: { x: ['0x1', '0x0'], y: ['0x1', '0x0'] }, ...changes });

describe('codegen curve: bad params files', () => {
  const base = () => structuredClone(readJson(join(examples, 'secp256k1-clone.json')));
  const CASES = [
    ['composite p', (j) => (j.p = '0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2d'), /: p = 0x[0-9a-f]+ is not prime/],
    ['composite r', (j) => (j.r = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364143'), /: r = 0x[0-9a-f]+ is not prime/],
    ['generator off the curve', (j) => (j.generator.y = '0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b9'), /: generator is not on the curve/],
    // the next prime after secp256k1's r: prime, inside the Hasse interval, but not the generator's order
    ['wrong order', (j) => (j.r = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364159'), /: generator does not have order r/],
    ['wrong cofactor', (j) => (j.h = '0x2'), /: h \* r = 0x[0-9a-f]+ cannot be the number of points: it is outside the Hasse interval/],
    ['missing field', (j) => delete j.r, /: missing field "r"$/],
    ['missing fields', (j) => { delete j.a; delete j.b; }, /: missing fields "a", "b"$/],
    ['missing generator.y', (j) => delete j.generator.y, /: missing field "generator\.y"$/],
    ['malformed hex', (j) => (j.p = '0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffcZZ'), /: "p" is malformed hex: expected a 0x-hex or decimal string, got "0x[0-9a-fZ]+"$/],
    ['malformed decimal', (j) => (j.generator.x = '12_34'), /: "generator\.x" is not a number/],
    ['b = 0', (j) => (j.b = '0x0'), /: b must be nonzero$/],
    ['a JSON number too large to be exact', (j) => (j.b = 1e30), /: "b" is the JSON number 1e\+30, which JSON cannot hold exactly/],
    ['unknown field', (j) => (j.cofactor = '1'), /: unknown field "cofactor" \(allowed: .*the cofactor is "h"\)$/],
    ['bad name', (j) => (j.name = 'My Curve'), /: "name" must be lowercase letters, digits and dashes/],
    ['w out of range', (j) => (j.w = 40), /: "w" must be an integer in 26\.\.32, got 40$/],
    ['p too large', (j) => (j.p = '0x' + 'f'.repeat(200)), /: p has 800 bits; supported sizes are 8\.\.768 bits$/],
    // G2 sections (secp256k1's p = 3 mod 4, so -1 is a non-residue)
    ['g2 off the twist', (j) => (j.g2 = g2Section()), /: g2\.generator is not on y\^2 = x\^3 \+ b' over F_p2$/],
    ['g2 with a square as non-residue', (j) => (j.g2 = g2Section({ nonResidue: '4' })), /: g2\.nonResidue must be a quadratic non-residue mod p/],
    ['g2 unknown field', (j) => (j.g2 = g2Section({ twist: 'M' })), /: "g2" has unknown field "twist" \(allowed: nonResidue, b, h, generator\)$/],
    ['g2 b not a pair', (j) => (j.g2 = g2Section({ b: '0x3' })), /: "g2\.b" must be an array \[c0, c1\]/],
    ['g2 missing generator', (j) => (j.g2 = g2Section({ generator: undefined })), /: missing field "g2\.generator"$/],
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
    const [noParams, noOut, badW, unknown, none] = await Promise.all([
      run(['curve', '--out', join(tmp, 'x')]),
      run(['curve', '--params', join(examples, 'p256.json')]),
      run(['curve', '--params', join(examples, 'p256.json'), '--out', join(tmp, 'x'), '--w', '25']),
      run(['frobnicate']),
      run([]),
    ]);
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
