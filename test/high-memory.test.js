// Addresses past 2^31 (issue #37): every API that runs an MSM, on G1 and G2, on one thread and on both pool paths,
// in a child process whose heaps start past 2 GiB, or 128 MiB below the 4 GiB end of a Wasm memory
// (fixtures/heap-offset.js, src/runtime/heap.js), each result against @noble/curves (test/fixtures/high-memory.js);
// and g_gather over entries that end at the last byte of a 4 GiB memory. A signed 32-bit address anywhere
// (`at >> 2` indexing a typed array, an end pointer that wraps) gave the point at infinity here. The scalar field's
// heaps too: NTTs and Groth16 proofs with fixed r and s (test/fixtures/high-memory-fr.js), each against the same call
// in this process, whose heaps start low.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as snarkjs from 'snarkjs';
import { fixture as snarkjsFixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { frCases } from './fixtures/high-memory-fr.js';

const fixture = fileURLToPath(new URL('./fixtures/high-memory.js', import.meta.url));
const frFixture = fileURLToPath(new URL('./fixtures/high-memory-fr.js', import.meta.url));
const preload = fileURLToPath(new URL('./fixtures/heap-offset.js', import.meta.url));

function runAt(offset, script = fixture, args = []) {
  // the preload sets the offset in the child and in each of its worker threads
  const child = spawnSync(process.execPath, ['--import', preload, script, ...args], {
    encoding: 'utf8', timeout: 60_000, env: { ...process.env, WASMSM_TEST_HEAP_OFFSET: String(offset) },
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

let groth16; // the bits8 BN254 fixture's paths
let low; // frCases here, with no heap offset
beforeAll(async () => {
  groth16 = await snarkjsFixture(snarkjs, 'bits8', 'bn128', 'groth16');
  low = await frCases(groth16);
}, 600_000);
afterAll(terminateCurves);

describe('memory past 2 GiB', () => {
  for (const [label, offset] of [['from 2.25 GiB', 2 ** 31 + 2 ** 28], ['up to 4 GiB', 2 ** 32 - 2 ** 27]]) {
    it(`the scalar field's NTTs and Groth16 proofs are right with its heaps ${label}`, () => {
      const { results, memory } = runAt(offset, frFixture, [groth16.zkey, groth16.wtns]);
      expect(Object.keys(results).length).toBe(17);
      expect(results).toEqual(low.results);
      expect(JSON.parse(results['groth16Prove one thread']).pi_a).toHaveLength(3);
      // fr and its shared twin really ran up there
      expect(memory.fr).toBeGreaterThan(offset);
      expect(memory['fr shared']).toBeGreaterThan(offset);
    }, 60_000);

    it(`every MSM call is right with its heap ${label}`, () => {
      const { results, memory } = runAt(offset);
      const wrong = Object.entries(results).filter(([, v]) => v !== 'right');
      expect(wrong).toEqual([]);
      expect(Object.keys(results).length).toBeGreaterThan(25);
      // the pools really ran up there: their memories hold the offset
      expect(memory['pool shared']).toBeGreaterThan(offset);
      expect(memory['pool message']).toBeGreaterThan(2 * offset);
    }, 60_000);
  }
});
