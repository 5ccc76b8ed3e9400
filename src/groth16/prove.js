// groth16Prove and Groth16Prover (wasmsm/snarkjs): a snarkjs Groth16 proof made entirely here, from a .zkey and a
// .wtns to snarkjs's proof JSON. This file holds the API and what a prover keeps between proofs (per curve: the curve,
// its fr module, G1's and G2's pools or the GPU, one queue); src/groth16/phases.js holds one proof's phases.

import { loadCurve } from '../../index.js';
import { bytesToBigIntLE, checkMsmOptions, checkOptionNames } from '../msm/bytes.js';
import { checkGpuOption, openGpuOption } from '../adapters/gpu-option.js';
import { openZkey } from './zkey.js';
import { letGo } from './source.js';
import { readWtns } from './wtns.js';
import { lap, newScratch, proveWith } from './phases.js';
import { PROVER_RELEASE_AFTER_MS } from '../instance.js';
import { equalShares } from '../msm/plan.js';

/** snarkjs's curve names -> wasmsm's. */
const GROTH16_CURVES = Object.freeze({ bn128: 'bn254', bls12381: 'bls12-381' });

const PROVER_OPTIONS = ['threads', 'sharedMemory', 'kernel', 'gpu', 'maxMemory', 'releaseAfterMs'];
const PROVE_OPTIONS = ['r', 's', 'timings', 'r1cs'];

/** A uniform element of [1, r) from 64 random bytes (bias below 2^-250). */
function randomFr(r) {
  const bytes = new Uint8Array(64);
  globalThis.crypto.getRandomValues(bytes);
  return (bytesToBigIntLE(bytes, 0, 64) % (r - 1n)) + 1n;
}

function checkBlinding(v, r, name) {
  if (v === undefined) return randomFr(r);
  if (typeof v !== 'bigint' || v < 0n || v >= r) throw new RangeError(`${name} must be a bigint in [0, r)`);
  return v;
}

/**
 * A prover option key that only groth16Prove sets: one proof, then close. Its NTTs keep no twiddle tables for a next
 * proof (each builds its tables in one table's memory: about 9 MiB less on the main thread and on each thread at
 * 2^18, for the same products, since a first proof builds every table anyway).
 */
const ONE_PROOF = Symbol('one proof');

/**
 * One curve's machinery, kept by a prover across proofs: the curve, its Fr module, a pool per group (or the GPU for
 * G1), and one queue so that the pools never run at once (each takes every core). G2's pool (its threads' heaps
 * about 28 MiB for 2 threads in Node) starts when the first G2 MSM is asked for, not with the others: a proof's
 * largest moment, the H MSM's start, comes before it.
 */
class CurveEngine {
  static async open(name, o) {
    const e = new CurveEngine();
    e.gpu = null;
    e.g1 = null;
    e.g2 = null; // a promise of G2's pool once asked for (g2Pool)
    e.queue = Promise.resolve();
    e.kept = null; // the scratch kept between proofs (scratch())
    e.dropTimer = null;
    e.oneProof = o[ONE_PROOF] === true;
    e.releaseAfterMs = o.releaseAfterMs ?? PROVER_RELEASE_AFTER_MS;
    e.maxMemory = o.maxMemory;
    e.poolOptions = {
      ...(o.threads === undefined ? {} : { count: o.threads }),
      ...(o.sharedMemory === undefined ? {} : { sharedMemory: o.sharedMemory }),
      releaseAfterMs: e.releaseAfterMs,
    };
    try {
      e.curve = await loadCurve(name, o.kernel === undefined ? undefined : { kernel: o.kernel });
      e.fr = await e.curve.fr();
      e.gpu = o.gpu ? (await openGpuOption(e.curve, o.gpu, 'groth16Prove', 'the thread pool')).gpu : null;
      e.g1 = e.gpu ? null : await e.curve.threads(e.poolOptions);
      if (e.gpu) await e.g2Pool(); // the NTT tasks run on it
      const taskPool = e.g1 ?? (await e.g2Pool()); // the NTTs' pool
      e.threads = taskPool.count;
      // on a pool with shared memory the NTTs run in place in the fr twin's memory, and the proof's fr arrays live
      // there (where the engine refuses the twin's memory, the message path: blocks sent to the threads)
      if (taskPool.sharedMemory) e.fr = await e.fr.sharedTwin().catch(() => e.fr);
    } catch (error) {
      await e.close().catch(() => {}); // what opened before the failure (the GPU, a pool): the next proof opens anew
      throw error;
    }
    return e;
  }

  /**
   * A proof's scratch (phases.js newScratch): one proof's own, or a prover's for many proofs, handed from proof to
   * proof and dropped once the prover has been idle as long as its pools wait before giving back their memory
   * (releaseAfterMs). Its proofs run one at a time (fr.exclusive), and each gives back all it took before it ends.
   */
  scratch() {
    if (this.oneProof) return newScratch();
    clearTimeout(this.dropTimer);
    return (this.kept ??= newScratch());
  }

  /** A proof is done with its scratch. */
  scratchIdle() {
    if (this.oneProof || this.kept === null || this.releaseAfterMs === Infinity) return;
    clearTimeout(this.dropTimer);
    this.dropTimer = setTimeout(() => (this.kept = null), this.releaseAfterMs);
    this.dropTimer.unref?.(); // Node: an idle prover keeps no process alive
  }

  /**
   * The MSM of snarkjs-format points (LEM affine) and 32-byte scalars, as a point object ({ x, y } or null), after
   * the MSMs queued before it; onTime(ms) gets its own duration; maxMemory: the pool's budget (default the prover's).
   * points may be a function that resolves to { points, scalars } when the MSM's turn comes (scalars then null), and
   * (G1) parts given up to the pool's threads (g1PartsFor).
   * alongside: at once on G2's pool, beside the queue's work on G1's (b2Alongside).
   */
  msm(group, points, scalars, onTime, maxMemory = this.maxMemory, { alongside = false } = {}) {
    const curve = group === 'G2' ? this.curve.g2 : this.curve;
    const options = { pointFormat: 'snarkjs', scalarFormat: 'le', resultFormat: 'native' };
    if (maxMemory !== undefined && !(group === 'G1' && this.gpu)) options.maxMemory = maxMemory;
    const run = async () => {
      if (typeof points === 'function') ({ points, scalars } = await points());
      if (scalars.length === 0) return null;
      const target = await (group === 'G2' ? this.g2Pool() : (this.gpu ?? this.g1));
      const t = performance.now();
      const sum = curve.decodePoint(await (Array.isArray(points) ? target.msmParts(points, scalars, options) : target.msmBytes(points, scalars, options)));
      onTime?.(performance.now() - t);
      return sum;
    };
    return alongside ? run() : this.queued(run);
  }

  /**
   * The [first, end) shares in which G1's pool takes n points as parts given up to its threads (msmParts: the message
   * path, where they are not copied), or null (shared memory or the GPU copy the points from one array).
   */
  g1PartsFor(n) {
    return this.gpu || !this.g1 || this.g1.sharedMemory ? null : equalShares(n, Math.min(this.g1.count, n));
  }

  /**
   * One proof, its last G1 MSM queued: once the queue's work is done, G1's pool closes (its threads, their memories and
   * its spare slices go) and G2's starts, before B2's points are read; they and G2's threads then do not come on top of
   * G1's (on the message path at 2^18, the proof's peak). A prover for many proofs keeps its pools.
   */
  async g1Done() {
    if (!this.oneProof || !this.g1) return;
    await this.queue;
    const g1 = this.g1;
    this.g1 = null;
    await g1.close();
    this.g2Pool().catch(() => {}); // its threads start while B2's points are read
  }

  /**
   * Whether a proof runs B2's MSM (G2) first, beside the QAP and the NTTs on G1's pool: where G2's pool already runs
   * (a prover's later proofs; one proof starts it only once G1's pool is closed) and no GPU takes G1's MSMs (G2's pool
   * then runs the NTTs). The QAP's rounds, each a message to the threads and back, leave G1's threads idle about half
   * of the time; B2's MSM, last otherwise, ran with one of its two threads mostly idle (its scalars, a witness's 0s
   * and 1s, fill one window).
   */
  b2Alongside() {
    return this.g2 !== null && this.gpu === null && !this.oneProof;
  }

  /** G2's pool, started on the first call (a failed start is tried again at the next). */
  g2Pool() {
    if (!this.g2) {
      const starting = this.curve.g2.threads(this.poolOptions);
      this.g2 = starting;
      starting.catch(() => this.g2 === starting && (this.g2 = null));
    }
    return this.g2;
  }

  /** pool.runTasks on a pool of this engine (G1's, or G2's where the GPU serves G1 or G1's is closed), queued with the MSMs. */
  tasks(op, tasks) {
    return this.queued(() => this.tasksNow(op, tasks));
  }

  /** pool.runTasks at once, for work that already holds the queue's turn (queued). */
  async tasksNow(op, tasks) {
    return (await (this.g1 ?? this.g2Pool())).runTasks(op, tasks);
  }

  /** run() after the pools' work queued before it (one pool call at a time: each takes every core). */
  queued(run) {
    const result = this.queue.then(run);
    this.queue = result.catch(() => {});
    return result;
  }

  async close() {
    await this.queue;
    clearTimeout(this.dropTimer);
    this.kept = null;
    const g2 = await this.g2?.catch(() => null);
    await Promise.all([this.g1?.close(), g2?.close(), this.gpu?.close()]);
  }
}

/**
 * A prover that keeps its curves, Fr modules and pools between proofs (groth16Prove starts and closes one per call).
 * options: { threads (default: every core), sharedMemory ('auto'), kernel, gpu (false | true | 'auto' | {...}: G1's
 * MSMs on curve.gpu()), maxMemory (bytes per MSM on the pool; default phases.js proverMsmMemory, from the zkey),
 * releaseAfterMs (how long its pools and scratch arrays keep, idle, what a proof grew; default 10 s, as the route's) }.
 */
export class Groth16Prover {
  #options;
  #engines = new Map(); // wasmsm curve name -> Promise<CurveEngine>
  #closed = false;
  #queue = Promise.resolve();

  constructor(options = {}) {
    checkOptionNames(options, PROVER_OPTIONS, 'groth16 prover options');
    if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1)) {
      throw new RangeError(`threads must be a positive integer, got ${options.threads}`);
    }
    // here, not at the first MSM's end (after the QAP and the NTTs)
    if (options.maxMemory !== undefined) checkMsmOptions({ maxMemory: options.maxMemory });
    this.#options = { ...options, gpu: checkGpuOption(options.gpu, 'groth16Prove') };
  }

  #engine(name) {
    if (!this.#engines.has(name)) {
      const opening = CurveEngine.open(name, this.#options);
      this.#engines.set(name, opening);
      opening.catch(() => this.#engines.get(name) === opening && this.#engines.delete(name)); // the next proof tries again
    }
    return this.#engines.get(name);
  }

  /**
   * { proof, publicSignals } as snarkjs.groth16.prove gives them. zkey and witness: bytes (Uint8Array or
   * ArrayBuffer), a ReadableStream or async iterable of Uint8Array chunks, or in Node a file path.
   * options: { r, s (bigints in [0, r): the blinding, for tests; default random), timings (an object filled with
   * the phases' milliseconds), r1cs (the circuit's .r1cs: check every constraint first and name the first that
   * fails) }.
   */
  async prove(zkeyInput, witnessInput, options = {}) {
    // the inputs a failed call never started to read are let go (streams cancelled), as those it read in part are
    const read = { zkey: false, witness: false, r1cs: false };
    try {
      if (this.#closed) throw new Error('this Groth16 prover is closed');
      checkOptionNames(options, PROVE_OPTIONS, 'groth16Prove options');
      const { timings } = options;
      if (timings !== undefined && (timings === null || typeof timings !== 'object' || !Object.isExtensible(timings))) {
        throw new TypeError('options.timings must be an object the proof can fill (with milliseconds per phase)');
      }
      // one proof at a time: a proof's scratch in the fr module is a stack (mark, then release)
      const run = this.#queue.then(() => this.#prove(zkeyInput, witnessInput, options, read));
      this.#queue = run.catch(() => {});
      return await run;
    } catch (e) {
      if (!read.zkey) letGo(zkeyInput);
      if (!read.witness) letGo(witnessInput);
      if (!read.r1cs) letGo(options?.r1cs);
      throw e;
    }
  }

  async #prove(zkeyInput, witnessInput, options, read) {
    if (this.#closed) throw new Error('this Groth16 prover is closed');
    const timings = options.timings ?? null;
    const t0 = performance.now();
    read.zkey = true;
    const zkey = await openZkey(zkeyInput);
    try {
      const { header } = zkey;
      const name = GROTH16_CURVES[header.curve];
      const rBlind = checkBlinding(options.r, header.r, 'r');
      const sBlind = checkBlinding(options.s, header.r, 's');
      read.witness = true;
      const [witness, engine] = await Promise.all([readWtns(witnessInput, { r: header.r, nVars: header.nVars, n8: header.n8r }), this.#engine(name)]);
      lap(timings, 'read', t0);
      if (options.r1cs !== undefined) {
        const { checkConstraints } = await import('./r1cs.js');
        read.r1cs = true;
        await checkConstraints(options.r1cs, witness, header);
      }
      return await proveWith(engine, zkey, witness, rBlind, sBlind, timings);
    } finally {
      await zkey.close();
      lap(timings, 'total', t0);
    }
  }

  /** Stop the pools and give back the GPU; proofs already asked for finish first. */
  async close() {
    await this.#queue;
    this.#closed = true;
    const engines = [...this.#engines.values()];
    this.#engines.clear();
    await Promise.all(engines.map(async (e) => (await e.catch(() => null))?.close()));
  }
}

/**
 * groth16Prove(zkey, witness, options): one proof, with a prover started for it and closed after. options: the
 * prover's (threads, sharedMemory, kernel, gpu, maxMemory) and prove()'s (r, s, timings, r1cs).
 */
export async function groth16Prove(zkey, witness, options = {}) {
  let prover;
  const proveOptions = {};
  try {
    checkOptionNames(options, [...PROVER_OPTIONS, ...PROVE_OPTIONS], 'groth16Prove options');
    const proverOptions = {};
    for (const [k, v] of Object.entries(options ?? {})) (PROVER_OPTIONS.includes(k) ? proverOptions : proveOptions)[k] = v;
    prover = new Groth16Prover({ ...proverOptions, [ONE_PROOF]: true });
  } catch (e) {
    for (const input of [zkey, witness, options?.r1cs]) letGo(input);
    throw e;
  }
  try {
    return await prover.prove(zkey, witness, proveOptions);
  } finally {
    await prover.close();
  }
}

