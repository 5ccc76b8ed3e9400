// One Groth16 proof's phases (src/groth16/prove.js holds the API and the engine they run on).
// The algebra is snarkjs's (groth16_prove.js), so a proof verifies with snarkjs.groth16.verify and, for fixed r and
// s, is the one snarkjs would make. Phases, as the zkey's sections come (snarkjs writes 1 2 4 3 9 8 5 6 7 10):
//   read      the header and the .wtns (values checked < r)
//   qap       section 4's coefficients and the witness -> A and B on the domain H, C = A B there
//   ntt       each of A, B, C from H to the coset gH snarkjs uses (g a primitive 2n-th root): inverse NTT, times g^i,
//             NTT (these two and the join: src/groth16/qap.js)
//   msm       sections 8, 5, 6, 7 (C, A, B1, B2) against the witness's nonzero values, queued on the pools (or G1 on
//             the GPU) as each arrives (a prover's later proofs read section 7 first where the input allows, and run
//             B2's MSM on G2's pool beside the QAP: CurveEngine.b2Alongside); section 9 (H) waits for the NTTs, then
//   join      A B - C on gH -> the H MSM's scalars, and the H MSM
//   blind     pi_a = A + alpha1 + r delta1; pi_c = C + H + s pi_a + r (B1 + beta1 + s delta1) - r s delta1 while B2's
//             MSM (the last, where it is not first) runs, then pi_b = B2 + beta2 + s delta2 (small MSMs on this thread)
// One MSM, NTT or QAP step runs at a time on G1's pool (each takes every thread). Variable time in the witness (its
// MSMs skip zero scalars), as snarkjs's prover is; r and s come from crypto.getRandomValues.

import { bytesToBigIntLE } from '../msm/bytes.js';
import { FreeBuffers, letGoOf } from '../msm/buffers.js';
import { FileFormatError } from './source.js';
import { keptPairs } from './pairs.js';
import { cosetEvaluations, evaluateQap, joinQap, STAGING_BYTES } from './qap.js';
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
 * MSMs' points, those to the next MSM's (at 2^18: 18 MiB of the 54 MiB such arrays take). The NTT's blocks, too small
 * for the points that come after them (10 MiB at 2^18), are given back when those come, not kept through H's MSM.
 */
class Arrays {
  #free = new FreeBuffers();
  #own = new WeakSet(); // every buffer take() made

  /** A Uint8Array of `bytes` over a free buffer that holds them, or a new one (FreeBuffers.take). */
  take(bytes) {
    const array = this.#free.take(bytes);
    this.#own.add(array.buffer);
    return array;
  }

  /** An array of this proof's that take() did not make (one sent to a thread and sent back) is free for take(). */
  adopt(array) {
    this.#own.add(array.buffer);
    this.give(array);
  }

  /** array's buffer is free again (no one reads or writes it any more); an array take() did not make is left alone. */
  give(array) {
    if (this.#own.has(array?.buffer)) this.#free.put(array.buffer);
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
  const publicSignals = [];
  for (let i = 1; i <= header.nPublic; i++) publicSignals.push(bytesToBigIntLE(scalars, i * n8, n8).toString());
  // the witness's nonzero values, found when the first of its MSMs comes (the pool is busy with the QAP by then)
  let all = null;
  let priv = null;
  let qap = null;
  // the .wtns values go once the QAP and the MSMs' nonzero values are made of them, where they are this proof's
  // (read from a path or a stream) and the MSMs take copies: at 2^18, 8 MiB less through H's MSM
  const spendWitness = () => {
    if (witness.own && qap && all && ![all, priv].some((pairs) => pairs.scalars.buffer === scalars.buffer)) letGoOf(scalars);
  };
  const witnessPairs = (isPrivate) => {
    if (!all) {
      all = keptPairs(scalars, n8);
      priv = all.suffix(header.nPublic + 1);
      spendWitness();
    }
    return isPrivate ? priv : all;
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
  let cosets = null; // the NTTs under way on this thread while the pools run the MSMs
  let hPoints = null; // section 9, held until the NTTs are done
  let hStarted = null; // the join and the H MSM
  let firstMsm = null;
  let lastMsm = null;
  // the pools' work queued last (the NTTs, then each MSM, H's too, queued as the NTTs end) and the one before it: a
  // witness section's points are read once `prior` is done, one section ahead of the pools, not all of them (the
  // sections, a copy each from a path or a stream, and their kept points would otherwise all wait in memory for their
  // MSM's turn); A's then is read while H's MSM runs, after C's MSM has given its array back
  let ahead = null;
  let prior = null;
  const queuedLast = (work) => {
    prior = ahead;
    ahead = work;
  };
  const maxMemory = engine.maxMemory ?? proverMsmMemory(header, curve.params, engine.threads);
  const { arrays, into } = engine.scratch();
  // points: bytes, or a function that makes { points, scalars } at the MSM's turn (pairs then null); give: arrays of
  // this proof's (not the caller's zkey bytes) that are free once the MSM has settled (or a function that lists them then)
  const msm = (key, group, points, pairs, give = [], how = {}) => {
    firstMsm ??= performance.now();
    const run = engine.msm(group, points, pairs?.scalars ?? null, timings && ((ms) => (timings[`msm${key}`] = ms)), maxMemory, how);
    msms[key] = run.catch((e) => Promise.reject(zkeyPointError(e, key, pairs, header))).finally(() => {
      lastMsm = performance.now();
      for (const a of typeof give === 'function' ? give() : give) arrays.give(a);
    });
    msms[key].catch(() => {}); // awaited below: its error surfaces there
    queuedLast(msms[key]);
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
        const bytes = await joinQap(fr, qap, header.domainSize, n8, arrays, onThreads ? engine : null, { view: !engine.gpu });
        lap(timings, 'join', t);
        return bytes;
      });
      const pointArrays = Array.isArray(points) ? points : [points];
      let give = pointArrays;
      msm('H', 'G1', async () => {
        const scalarBytes = await joined;
        give = [scalarBytes, ...pointArrays];
        // H's scalars are the quotient's evaluations, as good as random: no zeros worth a scan (the reader checked
        // the section's size against domainSize)
        return { points, scalars: scalarBytes };
      }, null, () => give);
      // a prover for many proofs starts G2's pool as H's MSM ends (the largest moment is past), in time for B2's MSM,
      // which comes last; one proof starts it once G1's pool is closed (engine.g1Done, before B2's points are read)
      if (!engine.oneProof) msms.H.finally(() => engine.g2Pool().catch(() => {})).catch(() => {});
      return joined;
    });
    hStarted.catch(() => {});
    hPoints = null;
  };
  const met = new Set(); // the witness MSMs' sections queued so far
  const b2Alongside = engine.b2Alongside();
  try {
    // the sections in parts: the coefficients pass through one reused array (into), as do the points a thinned MSM skips
    let toCoset = null; // a stream's NTTs, started as the next section comes
    for await (const section of zkey.sections(undefined, { parts: true, first: b2Alongside ? [7] : [] })) {
      toCoset?.();
      toCoset = null;
      const { id } = section;
      if (id === 4) {
        // qap: A and B on the domain from the coefficients, C = A B; then to the coset, step by step
        const t = performance.now();
        qap = await evaluateQap(fr, header, scalars, section, into, fr.shared && engine.threads > 1 ? engine : null);
        lap(timings, 'qap', t);
        spendWitness();
        const begin = () => {
          const tNtt = performance.now();
          cosets = cosetEvaluations(engine, fr, qap, header.domainSize, arrays, cacheTables).then(() => lap(timings, 'ntt', tNtt));
          // awaited once section 9 or the next witness section comes, and at the end: a failure while this loop waits
          // for the zkey's next bytes must not go unhandled
          cosets.catch(() => {});
          queuedLast(cosets);
          startH();
        };
        // a stream's header is checked against section 9 (H) only as it comes, right after 4 and 3 in snarkjs's order:
        // NTTs of the header's domainSize wait for that (2^22 for a file of 2^8: 40 s of work before the error)
        if (zkey.streamed) toCoset = begin;
        else begin();
      } else if (id in WITNESS_MSMS) {
        const [key, group, isPrivate] = WITNESS_MSMS[id];
        const pairs = witnessPairs(isPrivate);
        // snarkjs writes B2 (7) last: once the G1 sections came and H's MSM is queued, no G1 MSM follows it
        if (group === 'G2' && [5, 6, 8].every((g1) => met.has(g1)) && hStarted !== null) {
          await hStarted;
          await engine.g1Done();
        }
        for (let waited = null; prior !== waited;) await (waited = prior).catch(() => {}); // H's may be queued meanwhile
        const points = await pairs.pointsFrom(section.part, group === 'G2' ? 2 * g1Bytes : g1Bytes, into, arrays);
        msm(key, group, points, pairs, [points], { alongside: b2Alongside && id === 7 && qap === null });
        met.add(id);
      } else if (id === 9) {
        hPoints = await readH(section, engine.g1PartsFor(header.domainSize), g1Bytes, arrays);
        startH();
      }
    }
    toCoset?.();
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

/**
 * Section 9 (H's points): in the parts G1's pool takes without a copy (shares: [first, end) point ranges, g1PartsFor)
 * where it is read into arrays of this proof's (a path, a stream), else whole (readWhole). At 2^18 on the message path,
 * 16 MiB less than a whole section the pool copies slices from.
 */
async function readH(section, shares, g1Bytes, arrays) {
  if (!shares || shares.length < 2 || shares[shares.length - 1][1] * g1Bytes !== section.size) return readWhole(section, arrays);
  const parts = [];
  for (const [first, end] of shares) {
    const into = arrays.take((end - first) * g1Bytes);
    const part = await section.part(first * g1Bytes, into.length, into);
    if (part.buffer !== into.buffer) {
      // a byte input (the first part tells): a view of the caller's bytes, which the pool copies slices of anyway
      arrays.give(into);
      return section.part(0, section.size);
    }
    parts.push(part);
  }
  return parts;
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

