#!/usr/bin/env node
// Real circuits for the snarkjs route (test/snarkjs-circuits.test.js, bench/snarkjs-bench.js): compiles circom 2 circuits
// (test/circuits/, circomlib templates) with circom2 (the compiler built to Wasm, from the npm registry), makes a
// powers-of-tau file per curve (scripts/snarkjs-ptau.js: prepared for phase 2, for a KNOWN secret: test fixtures,
// never a ceremony), the zkeys of each protocol, a witness and the verification keys.
// Everything is cached under .cache/snarkjs/ (git-ignored) and made again only when missing.
//
//   node scripts/snarkjs-fixtures.js [--circuits bits8,merkle1 (the default: what the tests use)] [--curves bn128,bls12381] [--protocols groth16,plonk,fflonk]
//
// Circuits (R1CS constraints after circom --O2; Groth16's domain):
//   bits8     circomlib Num2Bits(8) and a sum: 8 constraints (the CI circuit of every protocol: tiny powers of tau)
//   merkle1   Poseidon Merkle proof, depth 1: 243 constraints (2^8; Groth16 in CI)
//   merkle4   depth 4: 972 (2^10)
//   merkle16  depth 16: 3888 (2^12)
//   eddsa3    three EdDSA-Poseidon verifiers (Baby Jubjub: bn128 only): 12651 (2^14)
//   sha2      SHA-256 of 512 bits (two blocks with the padding): 59281 (2^16)
//   sha8      SHA-256 of 3968 bits (eight blocks): 241920 (2^18)
// Prints one JSON line per (circuit, curve, protocol) with its files. Exit status 1 on failure.

import { existsSync, mkdirSync, writeFileSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { join, dirname, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { writeFixturePtau } from './snarkjs-ptau.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = join(repo, '.cache', 'snarkjs');

const BASE8 = [
  '5299619240641551281634865583518297030282874472190772894086521144482721001553',
  '16950150798460657717958625567821834550301663161624707787222815936182638968203',
];

const bits = (n, seed) => Array.from({ length: n }, (_, i) => String(((i * 2654435761 + seed) >>> 7) & 1));

/** name -> { file, main, input, curves } */
export const CIRCUITS = {
  bits8: { file: 'bits.circom', main: 'Bits(8)', input: { in: '173' } },
  merkle1: merkle(1),
  merkle4: merkle(4),
  merkle16: merkle(16),
  eddsa3: {
    file: 'eddsa.circom', main: 'Signatures(3)', curves: ['bn128'],
    // enabled = 0: every constraint of the three verifiers is there, the final equality is not enforced
    input: { enabled: '0', Ax: BASE8[0], Ay: BASE8[1], S: '1', R8x: BASE8[0], R8y: BASE8[1], M: ['1', '2', '3'] },
  },
  sha2: { file: 'sha256.circom', main: 'Sha(512)', input: { in: bits(512, 1) } },
  sha8: { file: 'sha256.circom', main: 'Sha(3968)', input: { in: bits(3968, 2) } },
};

function merkle(depth) {
  return {
    file: 'merkle.circom', main: `MerkleProof(${depth})`,
    input: { leaf: '7', pathElements: Array.from({ length: depth }, (_, i) => String(1000 + i)), pathIndices: Array.from({ length: depth }, (_, i) => String(i & 1)) },
  };
}

export const PROTOCOLS = ['groth16', 'plonk', 'fflonk'];
export const CURVES = ['bn128', 'bls12381'];

const log2ceil = (n) => Math.ceil(Math.log2(Math.max(2, n)));

/** Paths of one circuit's files on one curve. */
export function paths(circuit, curve) {
  const dir = join(CACHE, `${circuit}-${curve}`);
  return {
    dir,
    r1cs: join(dir, `${circuit}.r1cs`),
    wasm: join(dir, `${circuit}_js`, `${circuit}.wasm`),
    wtns: join(dir, `${circuit}.wtns`),
    zkey: (protocol) => join(dir, `${circuit}-${protocol}.zkey`),
    vkey: (protocol) => join(dir, `${circuit}-${protocol}.vkey.json`),
  };
}

export const ptauPath = (curve, power) => join(CACHE, `${curve}-${power}.ptau`);

function compile(circuit, curve) {
  const c = CIRCUITS[circuit];
  const p = paths(circuit, curve);
  if (existsSync(p.r1cs) && existsSync(p.wasm)) return;
  mkdirSync(p.dir, { recursive: true });
  const src = join(p.dir, `${circuit}.circom`);
  writeFileSync(src, `pragma circom 2.0.0;\ninclude "../../../test/circuits/${c.file}";\ncomponent main = ${c.main};\n`);
  const circom2 = createRequire(import.meta.url).resolve('circom2/cli.js');
  // circom2 runs in a WASI sandbox that sees the working directory and its parents, and follows no symbolic link
  // out of it: run it from the deepest folder holding both the repo and the real node_modules (a git worktree's
  // node_modules may be a link to another checkout's), with paths relative to that folder.
  const modules = realpathSync(join(repo, 'node_modules'));
  const [a, b] = [repo, modules].map((d) => d.split(sep));
  const root = a.slice(0, a.findIndex((x, i) => x !== b[i]) >>> 0).join(sep) || sep; // -1 >>> 0: all of the repo
  const rel = (f) => relative(root, f);
  const r = spawnSync(process.execPath, [circom2, rel(src), '--r1cs', '--wasm', '--O2', '--prime', curve, '-o', rel(p.dir), '-l', rel(modules)], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`circom2 ${circuit} (${curve}) failed:\n${r.stdout}${r.stderr}`);
}

/**
 * A ptau of at least `power`, prepared for phase 2 (cached; a larger one serves too): a fixture for a KNOWN secret
 * (scripts/snarkjs-ptau.js: test only, never a ceremony), written directly, byte for byte what snarkjs's own
 * newAccumulator -> beacon -> preparePhase2 would write, in seconds where those take an hour at 2^16.
 */
async function ptau(snarkjs, curve, power) {
  for (let q = power; q <= 28; q++) if (existsSync(ptauPath(curve, q))) return ptauPath(curve, q);
  const out = ptauPath(curve, power);
  mkdirSync(CACHE, { recursive: true });
  const t0 = Date.now();
  // written to a .tmp, renamed when done: an interrupted run starts this file again, never uses half of it
  await writeFixturePtau(await snarkjs.curves.getCurveFromName(curve), power, `${out}.tmp`);
  renameSync(`${out}.tmp`, out);
  console.error(`ptau ${curve} 2^${power} (fixture, known secret): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

/** The ptau power a protocol needs for this circuit (from the r1cs). */
async function powerFor(snarkjs, protocol, r1csPath) {
  const { nConstraints, nPubInputs, nOutputs, nAdditions } = await r1csInfo(snarkjs, r1csPath);
  if (protocol === 'groth16') return log2ceil(nConstraints + nPubInputs + nOutputs + 1);
  // PLONK: one gate per constraint plus the linear-combination additions (an upper bound: nAdditions is estimated)
  const plonkRows = nConstraints + nPubInputs + nOutputs + nAdditions;
  if (protocol === 'plonk') return log2ceil(plonkRows) + 1;
  return Math.max(3, log2ceil(plonkRows + 2)) + 4; // FFLONK: 9 domainSize + 18 powers of tau in G1
}

async function r1csInfo(snarkjs, r1csPath) {
  const cache = `${r1csPath}.info.json`;
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8'));
  const r1cs = await snarkjs.r1cs.exportJson(r1csPath);
  // terms beyond the first in each linear combination: the additions PLONK turns into gates (about one each)
  let nAdditions = 0;
  for (const [a, b, c] of r1cs.constraints) nAdditions += [a, b, c].reduce((s, lc) => s + Math.max(0, Object.keys(lc).length - 1), 0);
  const info = { nConstraints: r1cs.nConstraints, nPubInputs: r1cs.nPubInputs, nOutputs: r1cs.nOutputs, nAdditions };
  writeFileSync(cache, JSON.stringify(info));
  return info;
}

/** Whether process `pid` is alive (signal 0 checks without sending). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Run `fn` holding the cache's lock (a directory: mkdir is atomic; the holder's pid inside), so test files that
 * vitest runs in parallel processes never write the same fixture at once. A lock whose holder is gone is taken over.
 */
async function locked(fn) {
  mkdirSync(CACHE, { recursive: true });
  const lock = join(CACHE, '.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder = NaN;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {} // just made, its pid not written yet
      if (holder && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else await new Promise((ok) => setTimeout(ok, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Make (or find) everything for (circuit, curve, protocol). Returns the paths. */
export function fixture(snarkjs, circuit, curve, protocol) {
  return locked(() => make(snarkjs, circuit, curve, protocol));
}

async function make(snarkjs, circuit, curve, protocol) {
  const c = CIRCUITS[circuit];
  if (!c) throw new RangeError(`unknown circuit ${circuit}`);
  if (c.curves && !c.curves.includes(curve)) throw new RangeError(`circuit ${circuit} is for ${c.curves.join(', ')} only`);
  compile(circuit, curve);
  const p = paths(circuit, curve);
  if (!existsSync(p.wtns)) await snarkjs.wtns.calculate(c.input, p.wasm, p.wtns);
  const zkey = p.zkey(protocol);
  if (!existsSync(zkey)) {
    const power = await powerFor(snarkjs, protocol, p.r1cs);
    const t = await ptau(snarkjs, curve, Math.max(power, 8));
    const t0 = Date.now();
    if (protocol === 'groth16') await snarkjs.zKey.newZKey(p.r1cs, t, `${zkey}.tmp`);
    else if (protocol === 'plonk') await snarkjs.plonk.setup(p.r1cs, t, `${zkey}.tmp`);
    else await snarkjs.fflonk.setup(p.r1cs, t, `${zkey}.tmp`);
    renameSync(`${zkey}.tmp`, zkey);
    console.error(`zkey ${circuit} ${curve} ${protocol}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (!existsSync(p.vkey(protocol))) writeFileSync(p.vkey(protocol), JSON.stringify(await snarkjs.zKey.exportVerificationKey(zkey)));
  return { circuit, curve, protocol, r1cs: p.r1cs, wasm: p.wasm, wtns: p.wtns, zkey, vkey: p.vkey(protocol), input: c.input };
}

/**
 * A Groth16 zkey and verification key for an R1CS given as bytes (a hand-written circuit, for shapes circom does not
 * make: one constraint and no public signal, a domain of 2), under CACHE/<name>-<curve>/, made again when the bytes
 * change. Returns { r1cs, zkey, vkey } (paths).
 */
export function r1csFixture(snarkjs, name, curve, r1csBytes) {
  return locked(async () => {
    const dir = join(CACHE, `${name}-${curve}`);
    mkdirSync(dir, { recursive: true });
    const p = { r1cs: join(dir, `${name}.r1cs`), zkey: join(dir, `${name}-groth16.zkey`), vkey: join(dir, `${name}-groth16.vkey.json`) };
    if (!existsSync(p.r1cs) || !Buffer.from(readFileSync(p.r1cs)).equals(Buffer.from(r1csBytes))) {
      rmSync(p.zkey, { force: true });
      writeFileSync(p.r1cs, r1csBytes);
    }
    if (!existsSync(p.zkey)) {
      const t = await ptau(snarkjs, curve, 8);
      await snarkjs.zKey.newZKey(p.r1cs, t, `${p.zkey}.tmp`);
      renameSync(`${p.zkey}.tmp`, p.zkey);
      writeFileSync(p.vkey, JSON.stringify(await snarkjs.zKey.exportVerificationKey(p.zkey)));
    }
    return p;
  });
}

/** Ends the curves snarkjs built (so the process can exit). */
export async function terminateCurves() {
  for (const key of ['curve_bn128', 'curve_bls12381']) await globalThis[key]?.terminate();
}

const list = (v, all) => (v ? v.split(',') : all);

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = Object.fromEntries(process.argv.slice(2).map((a, i, all) => (a.startsWith('--') ? [a.slice(2), all[i + 1]] : null)).filter(Boolean));
  const snarkjs = await import('snarkjs');
  try {
    for (const circuit of list(args.circuits, ['bits8', 'merkle1'])) {
      for (const curve of list(args.curves, CURVES)) {
        if (CIRCUITS[circuit].curves && !CIRCUITS[circuit].curves.includes(curve)) continue;
        for (const protocol of list(args.protocols, PROTOCOLS)) console.log(JSON.stringify(await fixture(snarkjs, circuit, curve, protocol), (k, v) => (k === 'input' ? undefined : v)));
      }
    }
  } catch (e) {
    console.error(e);
    process.exitCode = 1;
  } finally {
    await terminateCurves();
  }
}
