// Peers used only for comparison and as oracles (devDependencies): @noble/curves and ffjavascript.
// Converts our msmBytes encoding to theirs. Never imported by src/.

import { decodePoints, noblePointClass, nobleMsm } from './noble-msm.js';

export { noblePointClass, nobleMsm };

const FFJS_BUILDERS = { 'bls12-381': 'buildBls12381', bn254: 'buildBn128' };

/**
 * ffjavascript's engine for a curve it supports, or null: single-threaded by default; `{ threads: true }` gives
 * its default multi-threaded engine (one worker per CPU, `ff.tm.concurrency` of them; see ffjavascriptThreads).
 * Always `await ff.terminate()` when done: the multi-threaded engine's workers keep the process alive.
 */
export async function ffjavascriptCurve(params, { threads = false } = {}) {
  const builder = FFJS_BUILDERS[params.name];
  if (!builder) return null;
  const ff = await import('ffjavascript');
  return threads ? ff[builder]() : ff[builder](true);
}

/** How many workers an ffjavascript engine runs its MSM on (1 for the single-threaded engine). */
export const ffjavascriptThreads = (ffCurve) => ffCurve.tm?.concurrency ?? 1;

/**
 * Our encodings to ffjavascript's: affine bases in Montgomery form (x * 2^(8 n8) mod p, each F_p part of a G2
 * coordinate in turn, c0 first), scalars 32-byte LE. G1 or G2 after params.group.
 */
export function toFfjavascriptInputs(ffCurve, params, pointBytes, scalarBytes) {
  const n8 = ffCurve.G1.F.n8;
  const p = params.p;
  const R = (1n << BigInt(8 * n8)) % p;
  const points = decodePoints(pointBytes, params.field.bytes, params.field.degree);
  const parts = (v) => (typeof v === 'bigint' ? [v] : [v.c0, v.c1]);
  const perPoint = params.group === 'G2' ? 4 : 2;
  const bases = new Uint8Array(points.length * perPoint * n8);
  points.forEach((P, i) => {
    if (P === null) throw new RangeError('ffjavascript inputs: infinity is not supported here');
    [...parts(P.x), ...parts(P.y)].forEach((v, k) => {
      let m = (v * R) % p;
      const o = (perPoint * i + k) * n8;
      for (let j = 0; j < n8; j++, m >>= 8n) bases[o + j] = Number(m & 0xffn);
    });
  });
  const S = params.scalarBytes;
  const scalars = new Uint8Array(points.length * 32);
  for (let i = 0; i < points.length; i++) scalars.set(scalarBytes.subarray(i * S, i * S + Math.min(S, 32)), i * 32);
  return { bases, scalars };
}

/** Run ffjavascript's multiExpAffine and return the affine result as BigInts (or null). */
export async function ffjavascriptMsm(ffCurve, bases, scalars, group = 'G1') {
  const G = ffCurve[group];
  const res = await G.multiExpAffine(bases, scalars);
  if (G.isZero(res)) return null;
  const [x, y] = G.toObject(G.toAffine(res));
  return group === 'G2' ? { x: { c0: x[0], c1: x[1] }, y: { c0: y[0], c1: y[1] } } : { x, y };
}
