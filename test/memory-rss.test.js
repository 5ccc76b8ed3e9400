// Memory handed back to the process (issue #23): in a child process (node --expose-gc), a large MSM on one thread
// and on a pool (both paths), then the documented release step (curve.trim() / await pool.trim(), and a garbage
// collection, which an engine runs by itself in time: --expose-gc only makes it happen now); the process's RSS must
// come back within 10% + 64 MiB of its level before the call. Each check first shows that the MSM did raise the RSS
// (by more than 64 MiB), so it can fail. N = 2^19 here; WASMSM_LONG_TESTS=1 runs N = 2^22.

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LONG_TESTS } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const LOG_N = LONG_TESTS ? 22 : 19;

const script = `
import { loadCurve } from './index.js';
const MiB = 2 ** 20;
const rss = () => process.memoryUsage().rss;
const settle = async () => { for (let i = 0; i < 3; i++) { gc(); await new Promise((r) => setTimeout(r, 50)); } };
const [mode, logN] = process.argv.slice(1);
const curve = await loadCurve('bn254');
const n = 2 ** Number(logN);
const points = curve.randomPointsBytes(n), scalars = curve.randomScalarsBytes(n);
const pool = mode === 'sync' ? null : await curve.threads({ count: 2, sharedMemory: mode === 'shared' });
if (pool) await pool.msmBytes(points.subarray(0, 64 * curve.pointBytes), scalars.subarray(0, 64 * curve.scalarBytes)); // threads warm
await settle();
const before = rss();
const out = pool ? await pool.msmBytes(points, scalars) : curve.msmBytes(points, scalars);
const peak = rss();
if (pool) await pool.trim(); else curve.trim();
await settle();
const after = rss();
console.log(JSON.stringify({ before: before / MiB, peak: peak / MiB, after: after / MiB, out: out.length }));
await pool?.close();
`;

describe(`RSS after a 2^${LOG_N} MSM and the release step`, { timeout: LONG_TESTS ? 1_200_000 : 240_000 }, () => {
  for (const mode of ['sync', 'shared', 'messages']) {
    it(`${mode === 'sync' ? 'one thread: curve.trim()' : `a pool of 2, ${mode === 'shared' ? 'shared memory' : 'messages'}: await pool.trim()`}, then gc: RSS within 10% + 64 MiB of before`, () => {
      const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, mode, String(LOG_N)], { cwd: root, encoding: 'utf8' });
      expect(child.status, child.stderr).toBe(0);
      const { before, peak, after } = JSON.parse(child.stdout.trim().split('\n').at(-1));
      console.log(`2^${LOG_N} ${mode}: RSS before ${before.toFixed(0)} MiB, after the MSM ${peak.toFixed(0)} MiB, after the release step ${after.toFixed(0)} MiB`);
      expect(peak - before, 'the MSM raised the RSS (else this test could not fail)').toBeGreaterThan(64);
      expect(after).toBeLessThanOrEqual(1.1 * before + 64);
    });
  }
});
