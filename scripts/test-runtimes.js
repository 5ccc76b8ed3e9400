#!/usr/bin/env node
// npm run test:runtimes [-- node bun deno]: the smoke suite (test/runtimes/smoke.js) on Node (this one), Bun and Deno,
// the last two from their npm packages (devDependencies bun and deno: the binaries come in the npm-hosted platform
// packages @oven/bun-<platform> and @deno/<platform>). Each run must print no FAIL, exit 0, and exit by itself
// within the time limit although the script leaves an idle pool open (the pool must not keep the runtime alive).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from './lib.js';
import { SWIFTSHADER_ICD } from '../test/gpu.js';

const LIMIT_MS = 90_000;
const bin = (name) => join(repoRoot, 'node_modules', '.bin', name);
const script = join(repoRoot, 'test', 'runtimes', 'smoke.js');
const snarkjs = existsSync(join(repoRoot, 'src', 'adapters', 'snarkjs.js')) ? ['--snarkjs'] : [];
// WebGPU: a driver the runtimes' Vulkan loader finds, or SwiftShader (chromium's, with libvulkan1: what CI has)
const env = { ...process.env, NO_COLOR: '1' };
if (!env.VK_ICD_FILENAMES && !env.VK_DRIVER_FILES && existsSync(SWIFTSHADER_ICD)) env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
const gpu = env.VK_ICD_FILENAMES || env.VK_DRIVER_FILES ? ['--gpu'] : [];

// groth16Prove's check reads a fixture circuit's zkey, witness and verification key (made here when missing: seconds)
// (the runtime prints the proof; snarkjs's verifier checks it here, under Node)
const groth16 = [];
const readable = [join(repoRoot, 'src')];
let verifyGroth16 = null;
if (snarkjs.length) {
  const snarkjsLib = await import('snarkjs');
  const { fixture, terminateCurves } = await import('./snarkjs-fixtures.js');
  const f = await fixture(snarkjsLib, 'bits8', 'bn128', 'groth16');
  groth16.push('--groth16', [f.zkey, f.wtns].join(','));
  readable.push(dirname(f.zkey));
  const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
  verifyGroth16 = async (stdout) => {
    const line = stdout.split('\n').find((l) => l.startsWith('groth16 proof: '));
    if (!line) return 'printed no groth16 proof';
    const { proof, publicSignals } = JSON.parse(line.slice('groth16 proof: '.length));
    try {
      return (await snarkjsLib.groth16.verify(vkey, publicSignals, proof)) ? null : "groth16Prove's proof does not verify";
    } finally {
      await terminateCurves();
    }
  };
}

const RUNTIMES = {
  node: [process.execPath, [script, ...snarkjs, ...groth16, ...gpu]],
  bun: [bin('bun'), [script, ...snarkjs, ...groth16, ...gpu]],
  // Deno: read access to the package's src/ (the pool's worker script, src/threads/worker-node.js) and the fixture only
  deno: [bin('deno'), ['run', `--allow-read=${readable.join(',')}`, script, ...snarkjs, ...groth16, ...gpu]],
};

const asked = process.argv.slice(2);
for (const name of asked) {
  if (!Object.hasOwn(RUNTIMES, name)) {
    console.error(`test:runtimes: unknown runtime ${name} (known: ${Object.keys(RUNTIMES).join(', ')})`);
    process.exit(2);
  }
}

let failed = false;
for (const name of asked.length ? asked : Object.keys(RUNTIMES)) {
  const [command, args] = RUNTIMES[name];
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: repoRoot, encoding: 'utf8', timeout: LIMIT_MS, env });
  const ms = performance.now() - t0;
  process.stdout.write(r.stdout ?? '');
  const why = r.error?.code === 'ETIMEDOUT' ? `did not exit within ${LIMIT_MS / 1000} s (an idle pool keeps it alive?)`
    : r.error ? r.error.message
      : r.status !== 0 ? `exited with ${r.status ?? r.signal}`
        : /^\s*FAIL /m.test(r.stdout) ? 'a check failed'
          : verifyGroth16 ? await verifyGroth16(r.stdout) : null;
  if (why) {
    failed = true;
    process.stderr.write(r.stderr ?? '');
    console.error(`test:runtimes: ${name}: ${why}`);
  } else console.log(`  ${name}: passed and exited by itself in ${(ms / 1000).toFixed(1)} s`);
}
process.exit(failed ? 1 : 0);
