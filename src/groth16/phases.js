// One Groth16 proof's phases (src/groth16/prove.js holds the API and the engine they run on).
// The algebra is snarkjs's (groth16_prove.js), so a proof verifies with snarkjs.groth16.verify and, for fixed r and
// s, is the one snarkjs would make. Phases, as the zkey's sections come (snarkjs writes 1 2 4 3 9 8 5 6 7 10):
//   read      the header and the .wtns (values checked < r)
//   qap       section 4's coefficients and the witness -> A and B on the domain H, C = A B there (fr module kernels
//             qapWitness, qapEvaluate, qapProduct: codegen/kernels/groth16.js; on the pool's threads where fr is a
//             shared twin: sharedQap)
//   ntt       each of A, B, C from H to the coset gH snarkjs uses (g a primitive 2n-th root): inverse NTT, times g^i,
//             NTT; on the pool's threads, in place in the shared twin (src/fr/shared.js) or as blocks sent to the
//             threads (src/fr/thread-ops.js)
//   msm       sections 8, 5, 6, 7 (C, A, B1, B2) against the witness's nonzero values, queued on the pools (or G1 on
//             the GPU) as each arrives (a prover's later proofs read section 7 first where the input allows, and run
//             B2's MSM on G2's pool beside the QAP: CurveEngine.b2Alongside); section 9 (H) waits for the NTTs, then
//   join      A B - C on gH -> the H MSM's scalars (qapJoin; split over the pool's threads where fr is a shared
//             twin), and the H MSM
//   blind     pi_a = A + alpha1 + r delta1; pi_c = C + H + s pi_a + r (B1 + beta1 + s delta1) - r s delta1 while B2's
//             MSM (the last, where it is not first) runs, then pi_b = B2 + beta2 + s delta2 (small MSMs on this thread)
// One MSM, NTT or QAP step runs at a time on G1's pool (each takes every thread). Variable time in the witness (its
// MSMs skip zero scalars), as snarkjs's prover is; r and s come from crypto.getRandomValues.

import { bytesToBigIntLE } from '../msm/bytes.js';
import { checkCoefficients } from './zkey.js';
import { FileFormatError } from './source.js';
import { keptPairs } from './pairs.js';
import { evaluationsToCosetOnThreads } from '../fr/thread-ops.js';
import { allocStacks, runCalls, sharedEvaluationsToCoset } from '../fr/shared.js';
import { modPow } from '../fr/index.js';
import { planMsm } from '../msm/plan.js';

/** Milliseconds since t0, added to timings[key]. */
export const lap = (timings, key, t0) => {
  if (timings) timings[key] = (timings[key] ?? 0) + (performance.now() - t0);
};

/**
 * Bytes of Wasm memory each pool's MSM keeps to where the prover was given no maxMemory: ONE_CHUNK_BYTES where H's
 * MSM (domainSize points of curve P on a pool of `threads`) runs in one chunk within it, else the H section's size
 * (its domainSize G1 points) within 16 to 64 MiB: at 2^18 16 MiB, against the 132 MiB the G1 pool grew to unbounded.
 * Each chunk after the first adds one addition per window and bucket to the MSM (its sums added to the buckets'
 * sums so far): H's MSM at 2^16 took 1.10x as long in the 5 chunks of 16 MiB as in one (docs/snarkjs.md).
 */
export function proverMsmMemory({ domainSize, n8q }, P, threads) {
  const oneChunk = planMsm(P, domainSize, { maxMemory: ONE_CHUNK_BYTES, threads, pool: true }).chunkPoints >= domainSize;
  if (oneChunk) return ONE_CHUNK_BYTES;
  return Math.min(64 * 2 ** 20, Math.max(16 * 2 ** 20, domainSize * 2 * n8q));
}

/** The most a prover's MSM takes by default to run H's MSM in one chunk (BN254 at 2^16: 36 MiB, BLS12-381 at 2^15). */
const ONE_CHUNK_BYTES = 40 * 2 ** 20;

/**
 * Arrays one proof hands on once what used them is done: the NTTs' elements to the H MSM's scalars and the thinned
 * MSMs' points, those to the next MSM's. V8 frees a large array only at a collection, which may not come during a
 * proof, so each new one adds to the peak (at 2^18: 18 MiB of the 54 MiB such arrays take).
 */
class Arrays {
  #free = []; // ArrayBuffers
  #own = new WeakSet(); // every buffer take() made

  /** A Uint8Array of `bytes` over a free buffer that holds them (the smallest), or a new one. */
  take(bytes) {
    let best = -1;
    this.#free.forEach((b, i) => {
      if (b.byteLength >= bytes && (best < 0 || b.byteLength < this.#free[best].byteLength)) best = i;
    });
    let buffer;
    if (best >= 0) buffer = this.#free.splice(best, 1)[0];
    else this.#own.add((buffer = new ArrayBuffer(bytes)));
    return new Uint8Array(buffer, 0, bytes);
  }

  /** An array of this proof's that take() did not make (one sent to a thread and sent back) is free for take(). */
  adopt(array) {
    this.#own.add(array.buffer);
    this.give(array);
  }

  /** array's buffer is free again (no one reads or writes it any more); an array take() did not make is left alone. */
  give(array) {
    const buffer = array?.buffer;
    if (this.#own.has(buffer) && buffer.byteLength && !this.#free.includes(buffer)) this.#free.push(buffer);
  }
}

/**
 * A proof's scratch: its Arrays and the staging array the zkey's sections pass through. A prover for many proofs keeps
 * one from proof to proof (CurveEngine.scratch): a proof then allocates few large arrays, and V8, which counts them
 * towards its next collection, collects less often during proofs (at 2^16, 1 or 2 full collections in 12 proofs
 * against 7, and 6 ms less of this thread's time a proof).
 */
export const newScratch = () => ({ arrays: new Arrays(), into: new Uint8Array(STAGING_BYTES) });

/** The MSMs of sections 5 to 8: name, group, and whether the scalars are the private part of the witness. */
const WITNESS_MSMS = { 5: ['A', 'G1', false], 6: ['B1', 'G1', false], 7: ['B2', 'G2', false], 8: ['C', 'G1', true] };
/** The section of each MSM's points. */
const SECTION_OF = { A: 5, B1: 6, B2: 7, C: 8, H: 9 };

/**
 * A bad point in an MSM's input (the MSM's RangeError "points[j]: reason", j an index into the points it was given,
 * the thinned ones) as a FileFormatError that names the zkey's section and the point's index there (and its wire:
 * sections 5 to 7 hold one point per wire, section 8 the private wires'). Other errors as they are.
 */
function zkeyPointError(e, key, pairs, { nPublic }) {
  if (!(e instanceof RangeError) || e.argument !== 'points' || !Number.isInteger(e.index)) return e;
  const index = pairs ? pairs.pointIndex(e.index) : e.index;
  const wire = key === 'H' ? '' : ` (wire ${key === 'C' ? index + nPublic + 1 : index})`;
  return new FileFormatError(`zkey: section ${SECTION_OF[key]} (${key}): point ${index}${wire}${e.reason}`);
}

/**
 * One proof on a curve's engine: the phases above, over the zkey's sections in file order (each read once). Its
 * arrays are a stack on the fr module's heap, which two provers of one curve (and fr.nttOn) share: it takes its turn
 * there (fr.exclusive).
 */
export function proveWith(engine, zkey, witness, rBlind, sBlind, timings) {
  return engine.fr.exclusive(() => proveOn(engine, zkey, witness, rBlind, sBlind, timings));
}

async function proveOn(engine, zkey, witness, rBlind, sBlind, timings) {
  const { header } = zkey;
  const { curve, fr } = engine;
  checkKeyPoints(curve, header);
  const n8 = header.n8r;
  const g1Bytes = 2 * header.n8q;
  const scalars = witness.bytes; // nVars canonical n8-byte little-endian values
  // the witness's nonzero values, found when the first of its MSMs comes (the pool is busy with the QAP by then)
  let all = null;
  let priv = null;
  const witnessPairs = (isPrivate) => {
    all ??= keptPairs(scalars, n8);
    return isPrivate ? (priv ??= all.suffix(header.nPublic + 1)) : all;
  };
  const msms = {};
  // the twiddle tables first: below the mark, so they stay cached for the next proof of this size (one proof: none)
  const logN = Math.log2(header.domainSize);
  const cacheTables = !engine.oneProof;
  if (cacheTables) {
    fr.twiddles(logN, false);
    fr.twiddles(logN, true);
  }
  const mark = fr.heap.mark();
  let qap = null;
  let cosets = null; // the NTTs under way on this thread while the pools run the MSMs
  let hPoints = null; // section 9, held until the NTTs are done
  let hStarted = null; // the join and the H MSM
  let firstMsm = null;
  let lastMsm = null;
  const maxMemory = engine.maxMemory ?? proverMsmMemory(header, curve.params, engine.threads);
  const { arrays, into } = engine.scratch();
  // points: bytes, or a function that makes { points, scalars } at the MSM's turn (pairs then null); give: arrays of
  // this proof's (not the caller's zkey bytes) that are free once the MSM has settled (or a function that lists them then)
  const msm = (key, group, points, pairs, give = [], order = {}) => {
    firstMsm ??= performance.now();
    const run = engine.msm(group, points, pairs?.scalars ?? null, timings && ((ms) => (timings[`msm${key}`] = ms)), maxMemory, order);
    msms[key] = run.catch((e) => Promise.reject(zkeyPointError(e, key, pairs, header))).finally(() => {
      lastMsm = performance.now();
      for (const a of typeof give === 'function' ? give() : give) arrays.give(a);
    });
    msms[key].catch(() => {}); // awaited below: its error surfaces there
  };
  // join: A B - C on the coset, the H MSM's scalars, once both the NTTs and section 9 are there. snarkjs writes 9
  // right after 4 (1 2 4 3 9 8 5 6 7): its points wait for the NTTs while the later sections' MSMs run
  const startH = () => {
    if (hStarted || !cosets || !hPoints) return;
    const points = hPoints;
    hStarted = cosets.then(() => {
      // the join (on the threads where fr is a shared twin) and H's MSM take the queue's next two turns, before any
      // witness MSM queued meanwhile: H's scalars are the NTTs' result, and its MSM is half of the proof
      const onThreads = fr.shared && engine.threads > 1;
      const joined = (onThreads ? engine.queued.bind(engine) : (run) => run())(async () => {
        const t = performance.now();
        const bytes = await joinQap(fr, qap, header.domainSize, n8, arrays, onThreads ? engine : null, { view: !!fr.shared && !engine.gpu });
        lap(timings, 'join', t);
        return bytes;
      });
      let give = [points];
      msm('H', 'G1', async () => {
        const scalarBytes = await joined;
        give = [scalarBytes, points];
        // H's scalars are the quotient's evaluations, as good as random: no zeros worth a scan (the reader checked
        // the section's size against domainSize)
        return { points, scalars: scalarBytes };
      }, null, () => give);
      // a prover for many proofs starts G2's pool as H's MSM ends (the largest moment is past), in time for B2's MSM,
      // which comes last; one proof starts it after G1's pool is closed (B2's MSM, below, in snarkjs's section order)
      if (!engine.oneProof) msms.H.finally(() => engine.g2Pool().catch(() => {})).catch(() => {});
      return joined;
    });
    hStarted.catch(() => {});
    hPoints = null;
  };
  let ahead = null; // the witness MSM queued last: the next point section is read once the one before it is done
  const met = new Set(); // the witness MSMs' sections queued so far
  const b2Alongside = engine.b2Alongside();
  try {
    // the sections in parts: the coefficients pass through one reused array (into), as do the points a thinned MSM skips
    for await (const section of zkey.sections(undefined, { parts: true, first: b2Alongside ? [7] : [] })) {
      const { id } = section;
      if (id === 4) {
        // qap: A and B on the domain from the coefficients, C = A B; then to the coset, step by step
        const t = performance.now();
        qap = await evaluateQap(fr, header, scalars, section, into, fr.shared && engine.threads > 1 ? engine : null);
        lap(timings, 'qap', t);
        cosets = cosetEvaluations(engine, fr, qap, header.domainSize, timings, arrays, cacheTables);
        // awaited once section 9 or the next witness section comes, and at the end: a failure while this loop waits
        // for the zkey's next bytes must not go unhandled
        cosets.catch(() => {});
        ahead = cosets; // the pools' first work: the point sections wait for it, one read ahead
        startH();
      } else if (id in WITNESS_MSMS) {
        const [key, group, isPrivate] = WITNESS_MSMS[id];
        const pairs = witnessPairs(isPrivate);
        const points = await pairs.pointsFrom(section.part, group === 'G2' ? 2 * g1Bytes : g1Bytes, into, arrays);
        // snarkjs writes B2 (7) last: once the G1 sections came and H's MSM is queued, no G1 MSM follows it
        const lastOfG1 = group === 'G2' && [5, 6, 8].every((g1) => met.has(g1)) && hStarted !== null;
        if (lastOfG1) await hStarted;
        msm(key, group, points, pairs, [points], { lastOfG1, alongside: b2Alongside && id === 7 && qap === null });
        met.add(id);
        // one section read ahead of the pools, not all of them: the sections (a copy each from a path or a stream)
        // and their kept points would otherwise all wait in memory for their MSM's turn
        const before = ahead;
        ahead = msms[key];
        await before?.catch(() => {});
      } else if (id === 9) {
        hPoints = await readWhole(section, arrays);
        startH();
      }
    }
    await hStarted;
    // G1's part of the blinding while B2's MSM (G2, the last) runs, then G2's
    let t = performance.now();
    const sums = {};
    for (const [key, p] of Object.entries(msms)) if (key !== 'B2') sums[key] = await p;
    lap(timings, 'msmWait', t);
    t = performance.now();
    const g1 = blindG1(curve, header, sums, rBlind, sBlind);
    lap(timings, 'blind', t);
    t = performance.now();
    sums.B2 = await msms.B2;
    lap(timings, 'msmWait', t);
    if (timings) timings.msm = lastMsm - firstMsm;
    t = performance.now();
    const proof = blindG2(curve, header, sums.B2, g1, sBlind);
    lap(timings, 'blind', t);
    const publicSignals = [];
    for (let i = 1; i <= header.nPublic; i++) publicSignals.push(bytesToBigIntLE(scalars, i * n8, n8).toString());
    return { proof, publicSignals };
  } finally {
    await cosets?.catch(() => {});
    await hStarted?.catch(() => {});
    await Promise.all(Object.values(msms).map((p) => p.catch(() => {})));
    fr.heap.release(mark);
    engine.scratchIdle();
  }
}

/**
 * The header's points on their curves (the MSMs' loading checks the sections' points; these only the blinding would
 * reach, at the proof's end, with an error that names no zkey).
 */
function checkKeyPoints(curve, header) {
  for (const [name, group] of [['vk_alpha_1', curve], ['vk_beta_1', curve], ['vk_delta_1', curve], ['vk_beta_2', curve.g2], ['vk_gamma_2', curve.g2], ['vk_delta_2', curve.g2]]) {
    try {
      group.decodePoints(header.lem[name], 'snarkjs');
    } catch (e) {
      throw new FileFormatError(`zkey: section 2 (Groth16 header): ${name}${e.reason ?? `: ${e.message}`}`);
    }
  }
}

/** A section whole: a view of the caller's bytes for a byte input, else read into one of `arrays`. */
async function readWhole(section, arrays) {
  const into = arrays.take(section.size);
  const bytes = await section.part(0, section.size, into);
  if (bytes.buffer !== into.buffer) arrays.give(into); // not used (pages never written are not resident either)
  return bytes;
}

/** Bytes of the fr module's memory that the witness and the coefficients pass through, a piece at a time. */
const STAGING_BYTES = 1 << 20;

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
async function evaluateQap(fr, header, scalars, section, into, engine = null) {
  const { nVars, domainSize, n8r } = header;
  const ex = fr.exports;
  const E = fr.elementBytes;
  const heap = fr.heap;
  const a = heap.alloc(domainSize * E, 16);
  const b = heap.alloc(domainSize * E, 16);
  const c = heap.alloc(domainSize * E, 16);
  const scratch = heap.mark(); // the witness and the staging area, given back once C is made (the join reuses them)
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
  const qap = { a, b, c, witness, staging, stage, zeroAB };
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
    ex.fr_qapProduct(c, a, b, domainSize);
  }
  heap.release(scratch);
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
async function sharedQap(fr, header, scalars, section, into, { a, b, c, witness, staging, stage, zeroAB }, engine) {
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
    await runCalls(fr, runTasks, rangesOf(domainSize, T).map(([s, e]) => [['fr_qapProduct', c + s * E, a + s * E, b + s * E, e - s]]), stacks[0]);
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
export function snarkjsCosetShift(fr, logN) {
  if (logN < fr.s) return fr.rootOfUnity(logN + 1);
  let nqr = 2n;
  while (modPow(nqr, (fr.r - 1n) / 2n, fr.r) !== fr.r - 1n) nqr++;
  return (nqr * nqr) % fr.r;
}

/**
 * Each of A, B, C from evaluations on H to evaluations on the coset snarkjs uses, in place: each transform split into
 * 2^k blocks run on the pool's threads (src/fr/thread-ops.js), k the least with 3 2^k blocks for every thread.
 */
async function cosetEvaluations(engine, fr, { a, b, c }, domainSize, timings, arrays, cacheTables) {
  const t = performance.now();
  const logN = Math.log2(domainSize);
  let k = 0;
  while (3 * 2 ** k < engine.threads && k < logN) k++;
  if (k === 0 && logN > 0 && engine.threads > 1) k = 1; // 3 blocks on 2 threads leave one idle half the time
  const runTasks = (op, tasks) => engine.tasks(op, tasks);
  const shift = snarkjsCosetShift(fr, logN);
  if (fr.shared) await sharedEvaluationsToCoset(fr, runTasks, [a, b, c], logN, shift, k, { cacheTables });
  else await evaluationsToCosetOnThreads(fr, runTasks, [a, b, c], logN, shift, k, { cacheTables, arrays });
  lap(timings, 'ntt', t);
}

/**
 * A B - C on gH as canonical little-endian bytes (a copy out of the Fr module's memory, into one of `arrays`); with
 * `engine` (fr a shared twin, a pool of several threads; the caller holds the queue's turn) split by index over the
 * pool's threads. view: a view of the twin's memory instead of a copy (a pool copies the scalars into its own memory
 * as its MSM reads them; nothing writes the twin until the proof's end), 8 MiB less at 2^18.
 */
async function joinQap(fr, { a, b, c }, domainSize, n8, arrays, engine = null, { view = false } = {}) {
  const mark = fr.heap.mark();
  let keep = false;
  try {
    const out = fr.heap.alloc(domainSize * n8, 16);
    const E = fr.elementBytes;
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

/**
 * The proof's G1 points from the G1 sums (A, B1, C, H), the verification key's points and the blinding r, s:
 * pi_a = A + alpha1 + r delta1, pi_c = C + H + s pi_a + r (B1 + beta1 + s delta1) - r s delta1.
 */
function blindG1(curve, header, sums, r, s) {
  const order = curve.r;
  // curve.msm takes null (a sum that is infinity) as infinity
  const piA = curve.msm([sums.A, header.vk_alpha_1, header.vk_delta_1], [1n, 1n, r]);
  const piB1 = curve.msm([sums.B1, header.vk_beta_1, header.vk_delta_1], [1n, 1n, s]);
  const rs = (r * s) % order;
  const piC = curve.msm([sums.C, sums.H, piA, piB1, header.vk_delta_1], [1n, 1n, s, r, (order - rs) % order]);
  return { piA, piC };
}

/** The proof from blindG1's points and B2's sum: pi_b = B2 + beta2 + s delta2. */
function blindG2(curve, header, sumB2, { piA, piC }, s) {
  const piB = curve.g2.msm([sumB2, header.vk_beta_2, header.vk_delta_2], [1n, 1n, s]);
  return {
    pi_a: g1Json(piA),
    pi_b: g2Json(piB),
    pi_c: g1Json(piC),
    protocol: 'groth16',
    curve: header.curve,
  };
}

/** snarkjs's projective JSON of an affine point: [x, y, 1], infinity [0, 1, 0]. */
const g1Json = (P) => (P === null ? ['0', '1', '0'] : [P.x.toString(), P.y.toString(), '1']);
const g2Json = (P) =>
  P === null ? [['0', '0'], ['1', '0'], ['0', '0']] : [[String(P.x.c0), String(P.x.c1)], [String(P.y.c0), String(P.y.c1)], ['1', '0']];

