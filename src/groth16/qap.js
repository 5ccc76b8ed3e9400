// The proof's scalar-field work, from the witness to H's scalars (src/groth16/phases.js runs it in its place):
//   qap   section 4's coefficients and the witness -> A and B on the domain H, C = A B there (evaluateQap; the fr
//         module's kernels qapWitness, qapEvaluate, qapProduct: codegen/kernels/groth16.js)
//   ntt   each of A, B, C from H to the coset gH snarkjs uses (cosetEvaluations)
//   join  A B - C on gH -> H's scalars (joinQap)
// Each on the pool's threads where the fr module is a shared twin (in place in its memory), else as blocks sent to the
// threads (the NTTs) or on this thread.

import { checkCoefficients } from './zkey.js';
import { evaluationsToCosetOnThreads } from '../fr/thread-ops.js';
import { allocStacks, runCalls, sharedEvaluationsToCoset } from '../fr/shared.js';
import { modPow } from '../fr/index.js';

/** Bytes of the fr module's memory that the witness and the coefficients pass through, a piece at a time. */
export const STAGING_BYTES = 1 << 20;

/**
 * The bytes of section 4 staged at a time: STAGING_BYTES, or in tests globalThis.__wasmsmTestQapPartBytes (small, so
 * that the fixtures' sections come in many parts).
 */
const qapPartBytes = () => Math.min(STAGING_BYTES, globalThis.__wasmsmTestQapPartBytes ?? STAGING_BYTES);

/**
 * The witness and the coefficients (section 4 in parts: u32 count, then records, each part checked as it is read
 * into `into`) into the Fr module, a piece at a time through one staging area (its memory never shrinks: the section
 * is not copied whole, nor read whole from a path or a stream); A and B evaluated on the domain, C = A B. Returns
 * { a, b, c } (pointers to domainSize Montgomery-form elements each). With `engine` (fr a shared twin, a pool of
 * several threads) the records and C = A B run on the pool's threads (sharedQap).
 */
export async function evaluateQap(fr, header, scalars, section, into, engine = null) {
  const { nVars, domainSize, n8r } = header;
  const ex = fr.exports;
  const E = fr.elementBytes;
  const heap = fr.heap;
  // a stream's header is believed until section 9 (H) shows domainSize points: say which number asked for this
  const array = () => {
    try {
      return heap.alloc(domainSize * E, 16);
    } catch (e) {
      if (e.outOfMemory) e.message = `the zkey's domainSize ${domainSize} needs 3 arrays of ${domainSize * E} bytes for A, B and C: ${e.message}`;
      throw e;
    }
  };
  const a = array();
  const b = array();
  const scratch = heap.mark(); // the witness and the staging area, given back before C takes their place
  const witness = heap.alloc(nVars * E, 16);
  const staging = heap.alloc(STAGING_BYTES, 16);
  const stage = (bytes, at = staging) => new Uint8Array(fr.memory.buffer, at, bytes.length).set(bytes);
  // each on its own: b starts at the next 16-byte boundary after a, not always right after it (36-byte elements);
  // in 8-byte words (a shared memory's typed arrays fill an element at a time: bytes took 20x as long), the odd
  // bytes of 36-byte elements and a domain of one after them
  const zeroAB = () => [a, b].forEach((at) => {
    const words = Math.floor((domainSize * E) / 8);
    new Float64Array(fr.memory.buffer, at, words).fill(0);
    new Uint8Array(fr.memory.buffer, at + 8 * words, domainSize * E - 8 * words).fill(0);
  });
  const qap = { a, b, witness, staging, stage, zeroAB };
  if (engine) await sharedQap(fr, header, scalars, section, into, qap, engine);
  else {
    for (let first = 0; first < nVars; first += witnessPerStaging(n8r)) {
      const count = Math.min(witnessPerStaging(n8r), nVars - first);
      stage(scalars.subarray(first * n8r, (first + count) * n8r));
      const bad = ex.fr_qapWitness(witness + first * E, staging, count);
      if (bad) throw witnessNotBelowR(first + bad - 1);
    }
    zeroAB();
    // the reader checked the section's size against its count; each part's records are checked here as they come
    // (src/groth16/zkey.js checkCoefficients), and the kernel checks them again
    const record = 12 + n8r;
    const perRecords = Math.floor(Math.min(qapPartBytes(), into.length) / record);
    for (let first = 0; first < section.count; first += perRecords) {
      const n = Math.min(perRecords, section.count - first);
      const part = await section.part(4 + first * record, n * record, into);
      checkCoefficients(part, header, first);
      stage(part);
      const bad = ex.fr_qapEvaluate(staging, n, witness, a, b, domainSize, nVars);
      if (bad) throw malformedCoefficient(first + bad - 1, header);
    }
  }
  // C where the witness was: the Fr module's memory, which never shrinks, holds three domain arrays, not four
  heap.release(scratch);
  const c = array();
  if (engine) {
    const mark = heap.mark();
    const calls = rangesOf(domainSize, engine.threads).map(([s, e]) => [['fr_qapProduct', c + s * E, a + s * E, b + s * E, e - s]]);
    await runCalls(fr, (op, tasks) => engine.tasks(op, tasks), calls, allocStacks(fr, calls.length));
    heap.release(mark);
  } else ex.fr_qapProduct(c, a, b, domainSize);
  return { a, b, c };
}

/** The .wtns values one staging area takes. */
const witnessPerStaging = (n8r) => Math.floor(STAGING_BYTES / n8r);

/** The witness values are checked as the .wtns is read (src/groth16/wtns.js); the kernel checks them again. */
const witnessNotBelowR = (i) => new RangeError(`witness value ${i} is not below r`);

/** [start, end) of `parts` near-equal ranges of count items (empty ones left out). */
const rangesOf = (count, parts) => {
  const per = Math.ceil(count / parts);
  return Array.from({ length: parts }, (_, t) => [t * per, Math.min(count, (t + 1) * per)]).filter(([s, e]) => e > s);
};

const malformedCoefficient = (i, { domainSize, nVars }) =>
  new RangeError(`zkey coefficient ${i} is malformed (matrix 0 or 1, constraint < ${domainSize}, signal < ${nVars}, value < r)`);

/**
 * evaluateQap on the pool's threads, over the shared twin: the witness values to Montgomery form (each staging area's
 * values split by index; this thread zeroes A and B meanwhile); then each part of section 4, cut where its constraint
 * changes into one slice per thread (records come in constraint order in snarkjs's zkeys: slices then add into
 * disjoint elements of A and B; a part out of that order runs as one slice), run while this thread reads and checks
 * the next part into the other staging area; then C = A B split by index.
 */
async function sharedQap(fr, header, scalars, section, into, { a, b, witness, staging, stage, zeroAB }, engine) {
  const { nVars, domainSize, n8r } = header;
  const E = fr.elementBytes;
  const T = engine.threads;
  const record = 12 + n8r;
  const runTasks = (op, tasks) => engine.tasks(op, tasks);
  const stagings = [staging, fr.heap.alloc(STAGING_BYTES, 16)];
  const stacks = [allocStacks(fr, T), allocStacks(fr, T)];
  const inFlight = [null, null];
  const perRecords = Math.floor(Math.min(qapPartBytes(), into.length) / record);
  let turn = 0;
  /**
   * `bytes` into the next staging area (the two alternate) once that area's last round is done, then a round of
   * callsAt(area) (a call list per task) over it, not awaited; a task's nonzero result is 1 + the index of its first
   * bad input there, which errorOf(task, index) names.
   */
  const stagedRound = async (bytes, callsAt, errorOf) => {
    const buf = turn++ % 2;
    await inFlight[buf];
    stage(bytes, stagings[buf]);
    inFlight[buf] = runCalls(fr, runTasks, callsAt(stagings[buf]), stacks[buf]).then((results) => {
      const bad = results.findIndex(([r]) => r !== 0);
      if (bad >= 0) throw errorOf(bad, results[bad][0] - 1);
    });
    inFlight[buf].catch(() => {}); // awaited below or at the next round on that area
  };
  try {
    let zeroed = false;
    for (let first = 0; first < nVars; first += witnessPerStaging(n8r)) {
      const count = Math.min(witnessPerStaging(n8r), nVars - first);
      const ranges = rangesOf(count, T);
      await stagedRound(
        scalars.subarray(first * n8r, (first + count) * n8r),
        (at) => ranges.map(([s, e]) => [['fr_qapWitness', witness + (first + s) * E, at + s * n8r, e - s]]),
        (task, i) => witnessNotBelowR(first + ranges[task][0] + i),
      );
      if (!zeroed) (zeroAB(), (zeroed = true)); // while the threads convert the first values
    }
    if (!zeroed) zeroAB();
    await Promise.all(inFlight);
    for (let first = 0; first < section.count; first += perRecords) {
      const n = Math.min(perRecords, section.count - first);
      const part = await section.part(4 + first * record, n * record, into);
      checkCoefficients(part, header, first);
      const cuts = constraintCuts(part, record, n, T);
      await stagedRound(
        part,
        (at) => cuts.slice(1).map((end, i) => [['fr_qapEvaluate', at + cuts[i] * record, end - cuts[i], witness, a, b, domainSize, nVars]]),
        (task, i) => malformedCoefficient(first + cuts[task] + i, header),
      );
    }
    await Promise.all(inFlight);
  } finally {
    await Promise.allSettled(inFlight); // no thread may still write into what the caller frees
  }
}

/**
 * Where to cut n records of `record` bytes into at most `parts` slices, each cut where the constraint changes: [0, ...,
 * n]. Records out of constraint order (a constraint smaller than the one before it) give one slice, [0, n].
 */
function constraintCuts(part, record, n, parts) {
  const view = new DataView(part.buffer, part.byteOffset, part.byteLength);
  const constraint = (i) => view.getUint32(i * record + 4, true);
  for (let i = 1; i < n; i++) if (constraint(i) < constraint(i - 1)) return [0, n];
  const cuts = [0];
  for (let t = 1; t < parts; t++) {
    let j = Math.max(cuts[cuts.length - 1] + 1, Math.floor((n * t) / parts));
    while (j < n && constraint(j) === constraint(j - 1)) j++;
    if (j < n) cuts.push(j);
  }
  cuts.push(n);
  return cuts;
}

/**
 * The coset snarkjs evaluates on for a domain of 2^logN (its zkey's H points are made for it): ffjavascript's
 * Fr.w[logN + 1], a primitive 2^(logN+1)-th root of unity, or Fr.shift = nqr^2 when logN is the two-adicity s
 * (nqr the least quadratic non-residue >= 2, from which ffjavascript and fr.rootOfUnity both derive their roots).
 */
function snarkjsCosetShift(fr, logN) {
  if (logN < fr.s) return fr.rootOfUnity(logN + 1);
  let nqr = 2n;
  while (modPow(nqr, (fr.r - 1n) / 2n, fr.r) !== fr.r - 1n) nqr++;
  return (nqr * nqr) % fr.r;
}

/**
 * Each of A, B, C from evaluations on H to evaluations on the coset snarkjs uses, in place: each transform split into
 * 2^k blocks run on the pool's threads (src/fr/thread-ops.js), k the least with 3 2^k blocks for every thread.
 */
export async function cosetEvaluations(engine, fr, { a, b, c }, domainSize, arrays, cacheTables) {
  const logN = Math.log2(domainSize);
  let k = 0;
  while (3 * 2 ** k < engine.threads && k < logN) k++;
  if (k === 0 && logN > 0 && engine.threads > 1) k = 1; // 3 blocks on 2 threads leave one idle half the time
  const runTasks = (op, tasks) => engine.tasks(op, tasks);
  const shift = snarkjsCosetShift(fr, logN);
  if (fr.shared) await sharedEvaluationsToCoset(fr, runTasks, [a, b, c], logN, shift, k, { cacheTables });
  else await evaluationsToCosetOnThreads(fr, runTasks, [a, b, c], logN, shift, k, { cacheTables, arrays });
}

/**
 * A B - C on gH as canonical little-endian bytes (a copy out of the Fr module's memory, into one of `arrays`); with
 * `engine` (fr a shared twin, a pool of several threads; the caller holds the queue's turn) split by index over the
 * pool's threads. view: a view of the Fr module's memory (the twin's, or its own on the message path) instead of a
 * copy (a pool copies the scalars into its own memory or its threads' slices as its MSM reads them; nothing writes
 * or grows that memory until the proof's end), 8 MiB less at 2^18.
 */
export async function joinQap(fr, { a, b, c }, domainSize, n8, arrays, engine = null, { view = false } = {}) {
  const mark = fr.heap.mark();
  let keep = false;
  try {
    const E = fr.elementBytes;
    // on this thread, over C itself (the kernel reads C's element i before it writes the scalar i, which ends below
    // element i + 1): no fourth array in a memory that never shrinks. Threads writing over C would race.
    const out = engine || n8 > E ? fr.heap.alloc(domainSize * n8, 16) : c;
    if (engine) {
      const ranges = rangesOf(domainSize, engine.threads);
      const calls = ranges.map(([s, e]) => [['fr_qapJoin', out + s * n8, a + s * E, b + s * E, c + s * E, e - s]]);
      await runCalls(fr, (op, tasks) => engine.tasksNow(op, tasks), calls, allocStacks(fr, ranges.length)); // its queue turn is the caller's
    } else fr.exports.fr_qapJoin(out, a, b, c, domainSize);
    const bytes = new Uint8Array(fr.memory.buffer, out, domainSize * n8);
    if (view) return ((keep = true), bytes); // left allocated: the proof's own mark frees it
    const scalars = arrays.take(domainSize * n8);
    scalars.set(bytes);
    return scalars;
  } finally {
    if (!keep) fr.heap.release(mark);
  }
}
