// wasmsm/noble: an MSM with the shape of @noble/curves' pippenger(Point, points, scalars): the caller's noble Point
// objects in, a Point of the same class out, the sum computed by wasmsm.
//
//   const Q = await msm(bls12_381.G1.Point, points, scalars);   // the wasmsm curve of that Point class, loaded once
//   const fast = await load(bls12_381.G1.Point);                 // or keep it: fast.msm(...) is synchronous
//   const pool = await fast.threads();                           // all cores: await pool.msm(...); await pool.close()
//
// The inputs are checked as noble's pippenger checks them (every point an instance of the Point class, every scalar
// a bigint in [0, n), as many points as scalars; n = 0 gives Point.ZERO), and the errors are Errors whose messages
// start as noble's. This file imports nothing from @noble/curves (it is the user's dependency): it works through
// the Point class passed in (CURVE(), Fp, ZERO, fromAffine) and its points (is0, toAffine, Z).

import { curveNames, curveParams, loadCurve } from '../../index.js';
import { Curve } from '../curve.js';
import { checkOptionNames } from '../msm/bytes.js';

const LOAD_OPTIONS = ['curve', 'kernel'];
const MSM_OPTIONS = ['window', 'timings', 'checkSubgroup', 'maxMemory'];

const same = (u, v) => (typeof u === 'bigint' ? u === v : u?.c0 === v?.c0 && u?.c1 === v?.c1);

/**
 * Whether a noble Point class's CURVE() is the curve of `params` (G1 params or their g2): p, n, and a, b
 * (short Weierstrass) or a, d (twisted Edwards: noble's edwards() classes have d, its weierstrass() ones do not).
 */
function matches(C, params) {
  const p = params.field.degree === 2 ? params.p ** 2n : params.p;
  if (C.p !== p || C.n !== params.r) return false;
  if (params.model === 'twisted-edwards') return C.a === params.a && C.d === params.d;
  return C.d === undefined && same(C.a, params.field.degree === 2 ? { c0: params.a, c1: 0n } : params.a) && same(C.b, params.b);
}

function checkPointClass(Point) {
  if (typeof Point !== 'function' || typeof Point.fromAffine !== 'function' || !Point.ZERO || !Point.Fn) {
    throw new TypeError('expected a Point class of @noble/curves (with fromAffine, ZERO and Fn), e.g. bls12_381.G1.Point');
  }
}

/** The wasmsm Curve (or its g2) that computes MSMs for a noble Point class. */
async function curveFor(Point, { curve, kernel } = {}) {
  if (curve !== undefined) {
    if (!(curve instanceof Curve)) throw new TypeError('options.curve must be a wasmsm Curve (from loadCurve, curveLoader, or its .g2)');
    // the given curve is loaded already, in its own build: a kernel option cannot choose another one
    if (kernel !== undefined) throw new TypeError(`options.kernel does not apply with options.curve (a curve loaded in the ${curve.kernel} build); pass it to loadCurve instead`);
    if (curve.r !== Point.Fn.ORDER) throw new RangeError(`options.curve (${curve.params.name} ${curve.group}) has another group order than the Point class`);
    return curve;
  }
  const C = typeof Point.CURVE === 'function' ? Point.CURVE() : null;
  if (C) {
    for (const name of curveNames) {
      const params = await curveParams(name);
      for (const group of [params, params.g2]) {
        if (!group || !matches(C, group)) continue;
        const loaded = await loadCurve(name, kernel === undefined ? undefined : { kernel });
        return group === params ? loaded : loaded.g2;
      }
    }
  }
  throw new RangeError(`no wasmsm curve has this Point class's parameters (n = ${Point.Fn.ORDER}); make one with the codegen (docs/curves.md) and pass it as { curve }`);
}

/** Noble's input checks (validateMSMPoints, validateMSMScalars, then the lengths), in noble's order. */
function checkInputs(Point, points, scalars) {
  if (!Array.isArray(points)) throw new TypeError('expected array of points (points)');
  for (let i = 0; i < points.length; i++) {
    if (!(points[i] instanceof Point)) throw new TypeError(`invalid point at index ${i}: not an instance of the Point class given`);
  }
  if (!Array.isArray(scalars)) throw new TypeError('array of scalars expected');
  const n = Point.Fn.ORDER;
  for (let i = 0; i < scalars.length; i++) {
    const s = scalars[i];
    if (typeof s !== 'bigint') throw new TypeError(`invalid scalar at index ${i}: expected bigint, got ${typeof s}`);
    if (s < 0n || s >= n) throw new RangeError(`invalid scalar at index ${i}: not in [0, n)`);
  }
  if (points.length !== scalars.length) {
    throw new RangeError(`arrays of points and scalars must have equal length (${points.length} vs ${scalars.length})`);
  }
}

/**
 * Points to { x, y } or null: one field inversion for all of them (Fp.invertBatch over their Z) where the class
 * gives one, instead of one per toAffine().
 */
function affine(Point, points) {
  const live = [];
  for (let i = 0; i < points.length; i++) if (!points[i].is0()) live.push(i);
  const out = new Array(points.length).fill(null);
  const Fp = Point.Fp;
  const batch = typeof Fp?.invertBatch === 'function' && live.every((i) => points[i].Z !== undefined);
  const inverses = batch ? Fp.invertBatch(live.map((i) => points[i].Z)) : null;
  live.forEach((i, k) => { out[i] = inverses ? points[i].toAffine(inverses[k]) : points[i].toAffine(); });
  return out;
}

/** The MSM's options with the default subgroup check (on for a GLV curve with a cofactor: GLV needs points of order r). */
function msmOptions(curve, options, extra = []) {
  checkOptionNames(options, [...MSM_OPTIONS, ...extra], 'options of the noble msm');
  // Only GLV needs points of order r: without it every point on the curve is summed exactly, as noble sums it.
  // (an explicit checkSubgroup: undefined, as a wrapper forwards it, is the default too, not false)
  const { checkSubgroup = curve.params.h !== 1n && curve.params.glv != null, ...rest } = options ?? {};
  return { ...rest, checkSubgroup };
}

/** The MSM of one noble Point class on a loaded wasmsm curve: msm(points, scalars) is synchronous. */
export class NobleMsm {
  #Point;

  constructor(Point, curve) {
    checkPointClass(Point);
    if (!(curve instanceof Curve)) throw new TypeError('NobleMsm needs a wasmsm Curve; use load(Point)');
    this.#Point = Point;
    /** The wasmsm curve (G1, or a curve's g2) the MSMs run on. */
    this.curve = curve;
  }

  /** The inputs as msmBytes takes them (checked as noble checks them), or null for n = 0. */
  #encode(points, scalars) {
    checkInputs(this.#Point, points, scalars);
    if (points.length === 0) return null;
    return [this.curve.encodePoints(affine(this.#Point, points)), this.curve.encodeScalars(scalars)];
  }

  #point(bytes) {
    return this.curve.toPoint(bytes, this.#Point);
  }

  /**
   * sum scalars[i] * points[i] as a Point of the class. options: { window, timings, maxMemory, checkSubgroup }
   * (checkSubgroup defaults to true on a GLV curve with a cofactor: a point outside the subgroup of order n is a
   * RangeError, where a GLV MSM would be silently wrong; curves without GLV, such as ed25519, sum every point of the
   * curve exactly, as noble does). Variable time.
   */
  msm(points, scalars, options) {
    const opts = msmOptions(this.curve, options);
    const input = this.#encode(points, scalars);
    return input === null ? this.#Point.ZERO : this.#point(this.curve.msmBytes(...input, opts));
  }

  /**
   * A pool of worker threads for these MSMs (curve.threads(options): { count, sharedMemory }):
   * `await pool.msm(points, scalars, options)` (options as msm's, plus signal), `await pool.close()`.
   */
  async threads(options) {
    const pool = await this.curve.threads(options);
    return {
      pool,
      msm: async (points, scalars, opts) => {
        const o = msmOptions(this.curve, opts, ['signal']);
        const input = this.#encode(points, scalars);
        return input === null ? this.#Point.ZERO : this.#point(await pool.msmBytes(...input, o));
      },
      close: () => pool.close(),
    };
  }
}

/**
 * The wasmsm MSM for a noble Point class: the shipped curve with the class's p, n, a and b (G1 or G2), loaded
 * once; or options.curve, a wasmsm Curve of your own (e.g. from the codegen). options: { curve, kernel }.
 */
export async function load(Point, options) {
  checkPointClass(Point);
  checkOptionNames(options, LOAD_OPTIONS, 'load options');
  return new NobleMsm(Point, await curveFor(Point, options));
}

/** load(Point) of each Point class used with msm(), kept. */
const loaded = new WeakMap();

/**
 * noble's pippenger(Point, points, scalars), computed by wasmsm: resolves to a Point of the class. The first call
 * for a Point class loads its wasmsm curve; options are msm's of NobleMsm.
 */
export async function msm(Point, points, scalars, options) {
  checkPointClass(Point);
  let handle = loaded.get(Point);
  if (!handle) {
    handle = load(Point);
    loaded.set(Point, handle);
    handle.catch(() => loaded.delete(Point)); // a failed load is not kept
  }
  return (await handle).msm(points, scalars, options);
}
