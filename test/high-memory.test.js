// Addresses past 2^31 (issue #37): every API that runs an MSM, on G1 and G2, on one thread and on both pool paths,
// in a child process whose heaps start past 2 GiB, or 128 MiB below the 4 GiB end of a Wasm memory
// (fixtures/heap-offset.js, src/runtime/heap.js), each result against @noble/curves (test/fixtures/high-memory.js);
// and g_gather over entries that end at the last byte of a 4 GiB memory. A signed 32-bit address anywhere
// (`at >> 2` indexing a typed array, an end pointer that wraps) gave the point at infinity here.

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/high-memory.js', import.meta.url));
const preload = fileURLToPath(new URL('./fixtures/heap-offset.js', import.meta.url));

function runAt(offset) {
  // the preload sets the offset in the child and in each of its worker threads
  const child = spawnSync(process.execPath, ['--import', preload, fixture], {
    encoding: 'utf8', timeout: 60_000, env: { ...process.env, WASMSM_TEST_HEAP_OFFSET: String(offset) },
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

describe('memory past 2 GiB', () => {
  for (const [label, offset] of [['from 2.25 GiB', 2 ** 31 + 2 ** 28], ['up to 4 GiB', 2 ** 32 - 2 ** 27]]) {
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
