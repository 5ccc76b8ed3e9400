// Per-thread timings of one pool call (timings.perThread): each thread stamps when it started and ended every
// operation it ran (worker.js, performance.timeOrigin + performance.now(): one clock for every thread of a process
// or page), and this file turns the stamps into phases relative to the call's start, busy time and waiting time.
// Pool-only (test/bundle.test.js keeps a curve's static bundle small).

/** The clock every thread shares: milliseconds since the epoch, high resolution. */
export const clock = () => performance.timeOrigin + performance.now();

/** The phase an operation of the threads counts in: the names the pool's own phases have (timings.lanes, ...). */
const PHASE_OF_OP = { lane: 'lanes', msm: 'slices', preparedMsm: 'slices', preparedDigits: 'digits', streamAdd: 'stream', streamFinish: 'finish' };
/** Entries of a thread's own timings that are not phase times. */
const NOT_STEPS = new Set(['window', 'windows', 'bits', 'chunks', 'chunkPoints', 'flat', 'threads']);

/**
 * The stamps of one call on `count` threads. record() takes what a thread reported for one operation; finish()
 * writes timings.perThread: one entry per thread (threads that took no part too), in thread order:
 *   { thread, phases: { [phase]: { start, end, busy, runs } }, busy, wait, steps? }
 * start and end: ms from the call's start to the first start and the last end of the phase's operations on that
 * thread (an operation may run once per chunk); busy: the sum of their lengths; wait: the call's length less the
 * thread's busy time (waiting for the caller's serial work, for messages, and for the other threads); steps: the
 * thread's own step times inside its operations (ms; shared path: convert, prepare, digits, count, sort, gather,
 * accumulate, reduce; message path: the phases of the MSM of its slice).
 */
export class Timeline {
  constructor(count) {
    this.start = clock();
    this.entries = Array.from({ length: count }, (_, thread) => ({ thread, phases: {}, busy: 0, wait: 0 }));
  }

  /** Thread t ran `op` from `started` to `ended` (clock()); steps: its own phase times inside it (ms), or undefined. */
  record(t, op, started, ended, steps) {
    const entry = this.entries[t];
    if (!entry || !(ended >= started)) return;
    const name = PHASE_OF_OP[op] ?? op;
    const start = started - this.start;
    const end = ended - this.start;
    const phase = (entry.phases[name] ??= { start, end, busy: 0, runs: 0 });
    phase.start = Math.min(phase.start, start);
    phase.end = Math.max(phase.end, end);
    phase.busy += end - start;
    phase.runs++;
    entry.busy += end - start;
    if (steps) {
      entry.steps ??= {};
      for (const [key, ms] of Object.entries(steps)) if (typeof ms === 'number' && !NOT_STEPS.has(key)) entry.steps[key] = (entry.steps[key] ?? 0) + ms;
    }
  }

  /** The call is over: its length, and every thread's wait, written to timings.perThread (not enumerable). Returns the entries. */
  finish(timings) {
    const length = clock() - this.start;
    for (const entry of this.entries) entry.wait = Math.max(0, length - entry.busy);
    // not enumerable: code that sums or prints the phase times by iterating `timings` (every value a number) keeps
    // working; timings.perThread reads it
    if (timings) Object.defineProperty(timings, 'perThread', { value: this.entries, enumerable: false, writable: true, configurable: true });
    return this.entries;
  }
}

/**
 * A summary of perThread entries for a report: per phase, the least, median and largest busy time over the threads
 * that ran it and the imbalance (largest over mean); the threads' steps summed over the threads; the threads'
 * waiting time summed and its largest.
 */
export function summarizePerThread(perThread) {
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const names = [...new Set(perThread.flatMap((e) => Object.keys(e.phases)))];
  const phases = {};
  for (const name of names) {
    const busy = perThread.filter((e) => e.phases[name]).map((e) => e.phases[name].busy);
    const mean = busy.reduce((a, b) => a + b, 0) / busy.length;
    phases[name] = {
      threads: busy.length, min: Math.min(...busy), median: median(busy), max: Math.max(...busy), imbalance: mean > 0 ? Math.max(...busy) / mean : 1,
      start: Math.min(...perThread.filter((e) => e.phases[name]).map((e) => e.phases[name].start)),
      end: Math.max(...perThread.filter((e) => e.phases[name]).map((e) => e.phases[name].end)),
    };
  }
  const waits = perThread.map((e) => e.wait);
  // the threads' own steps, summed over the threads (thread-ms: constant in T where a step scales, growing where
  // the threads slow each other down)
  const steps = {};
  for (const e of perThread) for (const [name, ms] of Object.entries(e.steps ?? {})) steps[name] = (steps[name] ?? 0) + ms;
  return { phases, steps, totalWait: waits.reduce((a, b) => a + b, 0), maxWait: Math.max(0, ...waits), threads: perThread.length };
}
