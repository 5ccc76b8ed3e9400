// What the scalars hold, before an MSM is planned: the largest scalar's bit length (the plan's windows cover just
// that many bits: plan.js msmShape), and whether the pairs are better run as two MSMs, the small scalars (a short
// MSM of a window or two) and the others (a full one), their results added. A witness of mostly bits with some
// full-size values is the case: as one MSM every window of the full-size scalars is reduced (2L additions each)
// for a few points; split, the bits take one window of two buckets and the full-size ones a window for their count.

import { msmShape } from './plan.js';
import { pairsOf } from './layout.js';
import { scalarBitLength } from './bytes.js';

/** Scalars of at most this many bits are the small part of a split. */
export const SMALL_BITS = 32;
/** A split must save this share of the modelled additions: it copies the inputs and plans, reduces and adds twice. */
const MIN_SAVING = 0.25;
/** What a zero digit costs (sorted and skipped) next to a nonzero one (an addition), as in plan.js weightedCuts. */
const ZERO_DIGIT = 1 / 16;

/** Modelled additions of one MSM's shape: its nonzero digits (given) and zero ones, and 2L per window reduced. */
const additions = (shape, nonzero) => shape.K * (2 * shape.L + ZERO_DIGIT * shape.m) + nonzero;

/**
 * The scalars of n pairs (S bytes each, little-endian): { bits } (the largest one's bit length) and, when splitting
 * by size saves at least MIN_SAVING of the modelled additions, split: { small, large } with each part's pair
 * indices (Uint32Array, ascending) and bits. Zero scalars go with the small part.
 */
export function scalarParts(P, scalarBytes, n, threads = 1) {
  const S = P.scalarBytes;
  const bits = scalarBitLength(scalarBytes, S, n);
  if (bits <= SMALL_BITS || n < 2) return { bits };
  const isLarge = new Uint8Array(n);
  const top = Math.ceil(SMALL_BITS / 8); // a scalar with a nonzero byte from here on is large
  let large = 0;
  for (let i = 0, o = 0; i < n; i++, o += S) {
    for (let k = S - 1; k >= top; k--) {
      if (scalarBytes[o + k] !== 0) {
        isLarge[i] = 1;
        large++;
        break;
      }
    }
  }
  if (large === n) return { bits };
  const small = n - large;
  const smallIndices = new Uint32Array(small);
  const largeIndices = new Uint32Array(large);
  let smallBits = 0;
  for (let i = 0, a = 0, b = 0; i < n; i++) {
    if (isLarge[i]) largeIndices[b++] = i;
    else {
      smallIndices[a++] = i;
      for (let k = top - 1, o = i * S; k >= 0 && 8 * k + 8 > smallBits; k--) {
        const v = scalarBytes[o + k];
        if (v !== 0) {
          smallBits = Math.max(smallBits, 8 * k + 32 - Math.clz32(v));
          break;
        }
      }
    }
  }
  const one = msmShape(P, n, undefined, threads, { scalarBits: bits });
  const parts = [msmShape(P, small, undefined, threads, { scalarBits: smallBits }), msmShape(P, large, undefined, threads, { scalarBits: bits })];
  // a small scalar has digits in its first windows only (its GLV halves are itself and zero); a large one in every window
  const asOne = additions(one, small * Math.ceil((smallBits + 1) / one.c) + large * pairsOf(one) * one.K);
  const asTwo = additions(parts[0], small * parts[0].K) + additions(parts[1], large * pairsOf(parts[1]) * parts[1].K);
  if (asTwo > (1 - MIN_SAVING) * asOne) return { bits };
  return { bits, split: { small: { indices: smallIndices, bits: smallBits }, large: { indices: largeIndices, bits } } };
}

/** The bytes of the pairs at `indices` (points of PB bytes, scalars of S bytes), copied in that order. */
export function pickPairs(pointBytes, scalarBytes, indices, PB, S) {
  const points = new Uint8Array(indices.length * PB);
  const scalars = new Uint8Array(indices.length * S);
  for (let j = 0; j < indices.length; j++) {
    const i = indices[j];
    points.set(pointBytes.subarray(i * PB, (i + 1) * PB), j * PB);
    scalars.set(scalarBytes.subarray(i * S, (i + 1) * S), j * S);
  }
  return { points, scalars };
}
