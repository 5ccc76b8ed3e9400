// The working set a pool's MSM keeps to when the caller sets no maxMemory (docs/memory.md, "The default working
// set"): it grows with the threads, so that more threads are not starved into more chunks (each chunk is one more
// round of prepare and lanes for all of them), and shrinks to what the machine offers. A maxMemory the caller sets
// always holds instead. Pure: the pool passes what the engine reports (host-node.js / host-browser.js engineMemory).

import { DEFAULT_WORKING_SET } from '../msm/plan.js';
import { MEMORY_LIMIT } from '../runtime/heap.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
/** Working set per thread: 16 threads get 1 GiB, which holds a BN254 or BLS12-381 MSM of 2^20 points in one chunk. */
export const WORKING_SET_PER_THREAD = 64 * MiB;
/** Never less (a budget this small still runs the MSM at close to full speed, docs/memory.md). */
export const MIN_WORKING_SET = 32 * MiB;

/**
 * The default working set (bytes) of an MSM on T threads.
 * memory (what the engine offers; any field may be missing):
 *   totalBytes, freeBytes: Node (os.totalmem, os.freemem): at most a quarter of the total and half of what is free;
 *   deviceGiB: browsers (navigator.deviceMemory, a rough GiB figure): at most an eighth of it;
 *   none of them: at most DEFAULT_WORKING_SET (256 MiB), the fixed default of the single-thread MSM.
 * limitBytes: what the memories can hold for it (the shared memory's maximum less what it keeps; per memory 4 GiB).
 * Result: max(MIN_WORKING_SET, min(max(DEFAULT_WORKING_SET, T * WORKING_SET_PER_THREAD), machine, limit)), whole
 * MiB; below MIN_WORKING_SET only when the limit is.
 */
export function defaultWorkingSet(threads, memory = {}, limitBytes = MEMORY_LIMIT) {
  const T = Math.max(1, Math.floor(threads) || 1);
  const wanted = Math.max(DEFAULT_WORKING_SET, T * WORKING_SET_PER_THREAD);
  const { totalBytes, freeBytes, deviceGiB } = memory;
  let machine = Infinity;
  if (totalBytes > 0) machine = Math.min(machine, totalBytes / 4);
  if (freeBytes > 0) machine = Math.min(machine, freeBytes / 2);
  if (deviceGiB > 0) machine = Math.min(machine, (deviceGiB * GiB) / 8);
  if (machine === Infinity) machine = DEFAULT_WORKING_SET;
  const bytes = Math.max(MIN_WORKING_SET, Math.min(wanted, machine));
  return Math.max(0, Math.floor(Math.min(bytes, limitBytes) / MiB) * MiB);
}
