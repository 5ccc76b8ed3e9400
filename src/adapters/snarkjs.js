// wasmsm/snarkjs: the MSMs of snarkjs proving (Groth16, PLONK, FFLONK) on a wasmsm thread pool.
//
//   const curve = await snarkjs.curves.getCurveFromName('bn128');   // ffjavascript's curve, cached on globalThis
//   const handle = await accelerate(curve);                           // from now on its MSMs run on wasmsm
//   /* prove as usual */
//   await handle.restore();                                           // ffjavascript's own MSMs again
//
// snarkjs gets its curve from ffjavascript's buildBn128 / buildBls12381, cached on globalThis unless it runs
// single-threaded, and every proving MSM is `curve.G1.multiExpAffine(bases, scalars, logger, name)` or
// `curve.G2.multiExpAffine(...)`: bases affine, each coordinate little-endian in Montgomery form (x * 2^(8 n8) mod p;
// G2: c0 | c1), all zero = infinity; scalars 32-byte little-endian normal form; either may be a BigBuffer (pages of
// at most 1 GiB in `.buffers`). The result is a promise of a Jacobian point in Montgomery form (3 n8 bytes).
// accelerate replaces those two methods on the curve object (so every holder of it, snarkjs included, gets them),
// and returns what ffjavascript would: the same point, as x | y | 1 (Z = 1 in Montgomery form), or ffjavascript's
// own zero for infinity.
//
// With `gpu`, G1's MSMs run on curve.gpu() (WebGPU) instead of G1's pool, from the same bytes; G2 stays on its pool
// (the route does not take curve.g2.gpu() yet).
//
// This file speaks ffjavascript's formats through the objects the caller passes; it imports nothing from
// snarkjs or ffjavascript (they are the user's dependencies) and only the public API of wasmsm.

import { loadCurve } from '../../index.js';
import { bigIntToBytesLE, checkMsmOptions, checkOptionNames, inputError } from '../msm/bytes.js';
import { checkGpuOption, openGpuOption } from './gpu-option.js';
import { keptPairs } from '../groth16/pairs.js';
import { PROVER_RELEASE_AFTER_MS } from '../instance.js';

/** ffjavascript's curve names -> wasmsm's. */
const CURVES = { bn128: 'bn254', bls12381: 'bls12-381' };

/** Below this many points an MSM stays with ffjavascript: the round trip to the pool costs about what it saves. */
export const DEFAULT_MIN_POINTS = 256;

/** How long the route's pools keep, idle, the memory a proof's MSMs grew (a pool's own default is a second). */
export const DEFAULT_RELEASE_AFTER_MS = PROVER_RELEASE_AFTER_MS;

const OPTIONS = ['threads', 'sharedMemory', 'minPoints', 'maxMemory', 'kernel', 'groups', 'releaseAfterMs', 'gpu', 'checkSubgroup'];

/** The route of each ffjavascript curve object accelerated now (one per curve object). */
const routes = new WeakMap();

const isBigBuffer = (b) => b !== null && typeof b === 'object' && !(b instanceof Uint8Array) && Array.isArray(b.buffers) && typeof b.byteLength === 'number';

/** A BigBuffer (or Uint8Array) as its list of Uint8Array pages. */
const pagesOf = (b) => (b instanceof Uint8Array ? [b] : b.buffers);

/** The pages of a BigBuffer joined into one Uint8Array (a copy). */
function joined(b) {
  const out = new Uint8Array(b.byteLength);
  let o = 0;
  for (const page of b.buffers) {
    out.set(page.subarray(0, Math.min(page.length, b.byteLength - o)), o);
    o += page.length;
    if (o >= b.byteLength) break;
  }
  return out;
}

/** One Uint8Array for b when it has a single page covering it (no copy), else null. */
function single(b) {
  if (b instanceof Uint8Array) return b;
  return b.buffers.length === 1 && b.buffers[0].byteLength === b.byteLength ? b.buffers[0] : null;
}

/** true when the W-byte little-endian value at bytes[o] is below r (rBytes: r little-endian, W bytes). */
function below(bytes, o, rBytes) {
  for (let k = rBytes.length - 1; k >= 0; k--) {
    if (bytes[o + k] !== rBytes[k]) return bytes[o + k] < rBytes[k];
  }
  return false;
}

/** true when every 32-byte little-endian scalar of `pages` is below r; pages may cut a scalar (its bytes are joined). */
function allBelow(pages, rBytes) {
  const W = rBytes.length;
  let cut = new Uint8Array(0); // the first bytes of a scalar the last page ended inside
  for (const page of pages) {
    let o = 0;
    if (cut.length) {
      const joined = new Uint8Array(Math.min(W, cut.length + page.length));
      joined.set(cut);
      joined.set(page.subarray(0, joined.length - cut.length), cut.length);
      o = joined.length - cut.length;
      if (joined.length < W) {
        cut = joined;
        continue;
      }
      if (!below(joined, 0, rBytes)) return false;
    }
    for (; o + W <= page.length; o += W) if (!below(page, o, rBytes)) return false;
    cut = page.slice(o);
  }
  return true;
}

/**
 * The pairs whose scalar is not zero, copied, when zeros are at least a quarter of them (else the arrays as they
 * are). Circom witnesses are mostly bits and FFLONK's scalars end in long zero runs: a shorter MSM, the same sum.
 * The same thinning as groth16Prove's (src/groth16/pairs.js keptPairs).
 */
function withoutZeroScalars(points, scalars, pointBytes) {
  const kept = keptPairs(scalars, 32);
  return { points: kept.points(points, pointBytes), scalars: kept.scalars, pointIndex: kept.pointIndex };
}

function checkFfCurve(ffCurve) {
  const ok = ffCurve && typeof ffCurve === 'object' && typeof ffCurve.name === 'string' &&
    ['G1', 'G2'].every((g) => ffCurve[g] && typeof ffCurve[g].multiExpAffine === 'function' && ffCurve[g].F && Number.isInteger(ffCurve[g].F.n8));
  if (!ok) throw new TypeError('accelerate takes the curve object of ffjavascript (snarkjs.curves.getCurveFromName(...), buildBn128(), buildBls12381())');
  if (!Object.hasOwn(CURVES, ffCurve.name)) {
    throw new RangeError(`accelerate: curve '${ffCurve.name}' is not one wasmsm routes (known: ${Object.keys(CURVES).join(', ')})`);
  }
}

function checkOptions(options) {
  checkOptionNames(options, OPTIONS, 'accelerate options');
  // an option given as undefined (a wrapper forwarding its own) takes the default
  const given = Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined));
  const o = { minPoints: DEFAULT_MIN_POINTS, groups: ['G1', 'G2'], sharedMemory: 'auto', ...given };
  o.releaseAfterMs ??= DEFAULT_RELEASE_AFTER_MS;
  if (!Number.isInteger(o.minPoints) || o.minPoints < 0) throw new RangeError(`minPoints must be an integer >= 0, got ${o.minPoints}`);
  if (!Array.isArray(o.groups) || o.groups.length === 0 || o.groups.some((g) => g !== 'G1' && g !== 'G2') || new Set(o.groups).size !== o.groups.length) {
    throw new TypeError(`groups must be a non-empty array of 'G1' and 'G2', each once, got ${JSON.stringify(o.groups)}`);
  }
  // here, not at the first routed MSM (partway through a proof)
  if (o.maxMemory !== undefined) checkMsmOptions({ maxMemory: o.maxMemory });
  if (o.checkSubgroup !== undefined && typeof o.checkSubgroup !== 'boolean') throw new TypeError('checkSubgroup must be a boolean');
  if (o.threads !== undefined && (!Number.isInteger(o.threads) || o.threads < 1)) throw new RangeError(`threads must be a positive integer, got ${o.threads}`);
  o.gpu = checkGpuOption(o.gpu, 'accelerate');
  return o;
}


/**
 * Route the MSMs of an ffjavascript curve (bn128 or bls12381, as snarkjs uses it) to a wasmsm thread pool.
 * options: { threads (default: every core), sharedMemory ('auto'), minPoints (default 256: smaller MSMs stay with
 *   ffjavascript), maxMemory (bytes per MSM), kernel ('auto' | 'int' | 'fma' | 'wide'), groups (default ['G1', 'G2']),
 *   releaseAfterMs (idle time before the pools give back the memory MSMs grew; default 10 s, see threads()),
 *   gpu (false; true: G1 on curve.gpu(), GpuUnavailableError here where it cannot open; 'auto': the GPU where it
 *   opens, else the pool; an object: curve.gpu()'s options { device, powerPreference, maxMemory } and optional
 *   (true: as 'auto')), checkSubgroup (false; true: a base outside the subgroup of order r is a RangeError with its
 *   index: the MSMs use GLV, exact for the subgroup's points, which every proof's are; snarkjs's `zkey verify` reads
 *   a zkey's points as they come) }.
 * Returns a handle: { restore(), close(), terminate(), stats, curve, gpu, gpuError }. A curve already accelerated is
 * a TypeError.
 */
export async function accelerate(ffCurve, options) {
  checkFfCurve(ffCurve);
  const o = checkOptions(options);
  if (routes.has(ffCurve)) throw new TypeError('this curve is already accelerated: call restore() on its handle first');
  routes.set(ffCurve, null); // taken now, so a second accelerate() during the awaits below is refused too
  let curve;
  try {
    curve = await loadCurve(CURVES[ffCurve.name], o.kernel === undefined ? undefined : { kernel: o.kernel });
    if (BigInt(ffCurve.q) !== curve.p || BigInt(ffCurve.r) !== curve.r || ffCurve.G1.F.n8 !== curve.coordinateBytes) {
      throw new RangeError(`accelerate: the ffjavascript curve '${ffCurve.name}' does not have the parameters of wasmsm's ${curve.name}`);
    }
  } catch (e) {
    routes.delete(ffCurve);
    throw e;
  }
  const route = new Route(ffCurve, curve, o);
  routes.set(ffCurve, route);
  try {
    await route.start();
  } catch (e) {
    await route.restore();
    throw e;
  }
  return route.handle;
}

class Route {
  constructor(ffCurve, curve, o) {
    this.ff = ffCurve;
    this.curve = curve;
    this.o = o;
    this.pools = {}; // group -> Promise<MsmPool>
    this.gpu = null; // G1's GpuMsm where the GPU serves G1
    this.gpuError = null; // why the GPU was not taken ('auto')
    this.queue = Promise.resolve(); // one MSM at a time across G1 and G2
    this.originals = { terminate: ffCurve.terminate };
    this.terminated = false; // the curve's terminate() ran through this route or its handle
    this.patched = {};
    this.active = true;
    this.stats = { routed: 0, fallback: 0, points: 0, gpu: 0 };
    this.rBytes = new Uint8Array(32);
    bigIntToBytesLE(curve.r, this.rBytes, 0, 32);
    const route = this;
    this.handle = Object.freeze({
      /** wasmsm's curve (G1; its g2 for G2). */
      curve,
      /** MSMs routed to wasmsm and left to ffjavascript so far, the points routed, and the MSMs run on the GPU. */
      stats: this.stats,
      /** The GPU adapter's description where G1 runs on the GPU, else null. */
      get gpu() {
        return route.gpu ? route.gpu.adapter : null;
      },
      /** With gpu: 'auto', the error that kept the GPU out (G1 then runs on its pool); else null. */
      get gpuError() {
        return route.gpuError;
      },
      /** Put ffjavascript's own MSMs back and close the pools (after the MSMs under way). */
      restore: () => route.restore(),
      /** The same as restore(). */
      close: () => route.restore(),
      /**
       * restore(), then the curve's terminate() (its workers end; snarkjs builds a new curve next time), once: not
       * again after curve.terminate() ended this route. The curve's own method now, so a newer route restores too.
       */
      terminate: async () => {
        await route.restore();
        if (route.terminated) return;
        route.terminated = true;
        await ffCurve.terminate?.();
      },
    });
  }

  async start() {
    for (const group of this.o.groups) {
      const G = this.ff[group];
      const original = G.multiExpAffine;
      this.originals[group] = original;
      const route = this;
      this.patched[group] = async function multiExpAffine(bases, scalars, logger, logText) {
        if (!route.active) return original.call(this, bases, scalars, logger, logText);
        return route.multiExpAffine(group, original, this, bases, scalars, logger, logText);
      };
      G.multiExpAffine = this.patched[group];
    }
    const { terminate } = this.originals;
    if (typeof terminate === 'function') {
      const route = this;
      // curve.terminate() drops snarkjs's cached curve: the route ends with it.
      this.ff.terminate = async function () {
        route.terminated = true;
        await route.restore();
        return terminate.call(this);
      };
      this.patched.terminate = this.ff.terminate;
    }
    if (this.o.gpu && this.o.groups.includes('G1')) await this.openGpu();
    // Every pool now, not at its first MSM: a proof's first G2 MSM should not pay for starting threads. G1 has
    // none where the GPU serves it.
    if (this.active) await Promise.all(this.o.groups.filter((group) => !(group === 'G1' && this.gpu)).map((group) => this.pool(group)));
    // restored meanwhile (curve.terminate() while the GPU's kernels compiled): what opened since goes too
    if (!this.active) await this.closeOpened();
  }

  /** G1's GPU (its kernels compile now, not in the first MSM); where it cannot open: an error, or the pool ('auto'). */
  async openGpu() {
    ({ gpu: this.gpu, gpuError: this.gpuError } = await openGpuOption(this.curve, this.o.gpu, 'accelerate', 'the thread pool'));
  }

  pool(group) {
    this.pools[group] ??= (group === 'G1' ? this.curve : this.curve.g2).threads({
      ...(this.o.threads === undefined ? {} : { count: this.o.threads }),
      sharedMemory: this.o.sharedMemory,
      releaseAfterMs: this.o.releaseAfterMs,
    });
    return this.pools[group];
  }

  async multiExpAffine(group, original, G, bases, scalars, logger, logText) {
    const fallback = () => {
      this.stats.fallback++;
      return original.call(G, bases, scalars, logger, logText);
    };
    const n8 = G.F.n8;
    const inputs = (b) => b instanceof Uint8Array || isBigBuffer(b);
    if (!inputs(bases) || !inputs(scalars)) return fallback(); // ffjavascript's own errors
    const n = Math.floor(bases.byteLength / (2 * n8));
    // Anything ffjavascript reads otherwise than wasmsm would stays with it: small MSMs, trailing bytes, scalar
    // widths other than 32 bytes, scalars >= r (ffjavascript multiplies by them as integers).
    if (n < this.o.minPoints || n === 0 || bases.byteLength !== n * 2 * n8 || scalars.byteLength !== 32 * n) return fallback();
    if (!allBelow(pagesOf(scalars), this.rBytes)) return fallback();
    this.stats.routed++;
    this.stats.points += n;
    if (logger) logger.debug(`${logText}: wasmsm ${group} MSM of ${n} points`);
    const gpu = group === 'G1' ? this.gpu : null;
    const run = async () => {
      const formats = { pointFormat: 'snarkjs', scalarFormat: 'snarkjs', resultFormat: 'snarkjs', ...(this.o.checkSubgroup && { checkSubgroup: true }) };
      if (gpu) {
        this.stats.gpu++;
        // The GPU takes one array per call: the pages of a BigBuffer (past 1 GiB) are joined, a copy (the pool
        // streams them). A lost device rejects (GpuDeviceLostError): never a result.
        return this.sumPairs(G, gpu, single(bases) ?? joined(bases), single(scalars) ?? joined(scalars), formats);
      }
      const pool = await this.pool(group);
      if (this.o.maxMemory !== undefined) formats.maxMemory = this.o.maxMemory;
      const b = single(bases);
      const s = single(scalars);
      // Pages of a BigBuffer are streamed as they are (the two read in step), never joined into one array.
      if (!(b && s)) return this.toJacobian(G, await pool.msmStream({ points: pagesOf(bases), scalars: pagesOf(scalars) }, formats));
      return this.sumPairs(G, pool, b, s, formats);
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => {});
    return result;
  }

  /**
   * msmBytes on `target` (a pool or the GPU) of the pairs with a non-zero scalar, as ffjavascript's Jacobian. With
   * checkSubgroup every pair: each base is to be checked, whatever its scalar (as a BigBuffer's pages are).
   */
  async sumPairs(G, target, b, s, formats) {
    const kept = formats.checkSubgroup ? { points: b, scalars: s } : withoutZeroScalars(b, s, 2 * G.F.n8);
    if (kept.scalars.length === 0) return G.zero.slice();
    try {
      return this.toJacobian(G, await target.msmBytes(kept.points, kept.scalars, formats));
    } catch (e) {
      // an input error names an index among the kept pairs: the same error at that pair's index in the caller's
      // arrays (not a run over every pair, which would read the bases of zero scalars, as ffjavascript does not)
      if (kept.points !== b && (e?.argument === 'points' || e?.argument === 'scalars') && Number.isInteger(e.index)) {
        throw inputError(e.argument, kept.pointIndex(e.index), e.reason);
      }
      throw e;
    }
  }

  /** Affine LEM (all zero = infinity) to ffjavascript's Jacobian: x | y | 1 in Montgomery form, or G.zero. */
  toJacobian(G, affine) {
    const n8 = G.F.n8;
    if (affine.every((v) => v === 0)) return G.zero.slice();
    const Bp = this.curve.coordinateBytes;
    const out = new Uint8Array(3 * n8);
    out.set(affine, 0);
    bigIntToBytesLE((1n << BigInt(8 * Bp)) % this.curve.p, out, 2 * n8, Bp); // one in Montgomery form; G2: c1 = 0
    return out;
  }

  async restore() {
    if (!this.active) return;
    this.active = false;
    for (const group of ['G1', 'G2']) {
      if (this.patched[group] && this.ff[group].multiExpAffine === this.patched[group]) this.ff[group].multiExpAffine = this.originals[group];
    }
    if (this.patched.terminate && this.ff.terminate === this.patched.terminate) this.ff.terminate = this.originals.terminate;
    routes.delete(this.ff);
    await this.queue;
    await this.closeOpened();
  }

  /** Close the pools and the GPU this route holds. */
  async closeOpened() {
    const pools = Object.values(this.pools);
    this.pools = {};
    const gpu = this.gpu;
    this.gpu = null;
    await Promise.all([...pools.map(async (p) => (await p.catch(() => null))?.close()), gpu?.close()]);
  }
}

// The whole Groth16 proof in Wasm (no snarkjs, no ffjavascript): src/groth16/.
export { groth16Prove, Groth16Prover } from '../groth16/prove.js';
export { FileFormatError } from '../groth16/source.js';
