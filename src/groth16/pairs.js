// The pairs of an MSM whose scalar is not zero. Circom witnesses are mostly bits, so a third to a half of the
// Groth16 A, B1, B2 and C MSMs' scalars are zero: found once per witness, the same indices thin every section
// (groth16Prove); the snarkjs route thins each routed MSM the same way.

import { copyBytes } from '../msm/bytes.js';

/** The bytes of a as 32-bit words (a copy where a is not word-aligned); a.length is a multiple of 4. */
const wordsOf = (a) => (a.byteOffset % 4 ? new Uint32Array(copyBytes(a).buffer) : new Uint32Array(a.buffer, a.byteOffset, a.length / 4));

/**
 * scalars: n canonical n8-byte little-endian values. Returns { count, scalars, pointIndex(j), points(section,
 * pointBytes), pointsFrom, suffix(first) }: the nonzero scalars (a copy, a suffix's a view of its parent's copy; or the
 * input itself when fewer than a quarter are zero: a copy would cost more than the MSM saves), the index among the n of
 * kept pair j, a function that takes the section of n points (pointBytes each) to the matching points, and the same
 * for the scalars from index `first` on (no second pass over them).
 */
export function keptPairs(scalars, n8) {
  const n = scalars.length / n8;
  const W = n8 / 4;
  const S = wordsOf(scalars);
  const kept = new Int32Array(n);
  let count = 0;
  for (let i = 0, o = 0; i < n; i++, o += W) {
    let any = 0;
    for (let k = 0; k < W; k++) any |= S[o + k];
    if (any) kept[count++] = i;
  }
  return pairsOf(scalars, n8, S, kept, count);
}

/**
 * keptPairs' result from the indices of the nonzero scalars (kept[0 .. count), ascending); S: the scalars' words;
 * compacted: the nonzero scalars where a caller has them already (a suffix's are the end of its parent's).
 */
function pairsOf(scalars, n8, S, kept, count, compacted = null) {
  const n = scalars.length / n8;
  const W = n8 / 4;
  const all = 4 * (n - count) < n;
  let keptScalars = scalars;
  if (!all && compacted) keptScalars = compacted;
  else if (!all) {
    const out = new Uint32Array(count * W);
    for (let j = 0; j < count; j++) for (let k = 0; k < W; k++) out[W * j + k] = S[W * kept[j] + k];
    keptScalars = new Uint8Array(out.buffer);
  }
  return {
    count: all ? n : count,
    scalars: keptScalars,
    pointIndex: (j) => (all ? j : kept[j]),
    /** The pairs of scalars[first ..] (a Groth16 witness's private part), from these indices. */
    suffix(first) {
      let j0 = 0;
      for (let hi = count; j0 < hi;) {
        const mid = (j0 + hi) >> 1;
        if (kept[mid] < first) j0 = mid + 1;
        else hi = mid;
      }
      const rest = new Int32Array(count - j0);
      for (let j = j0; j < count; j++) rest[j - j0] = kept[j] - first;
      return pairsOf(scalars.subarray(first * n8), n8, S.subarray(first * W), rest, count - j0, all ? null : keptScalars.subarray(j0 * n8));
    },
    points(section, pointBytes) {
      if (section.length !== n * pointBytes) throw new RangeError(`a section of ${section.length} bytes for ${n} points of ${pointBytes} bytes`);
      if (all) return section;
      const P = wordsOf(section);
      const PW = pointBytes / 4;
      const out = new Uint32Array(count * PW);
      for (let j = 0; j < count; j++) {
        const from = PW * kept[j];
        for (let k = 0; k < PW; k++) out[PW * j + k] = P[from + k];
      }
      return new Uint8Array(out.buffer);
    },
    /**
     * The same points from a section read in parts (part(offset, n, into): ZkeyReader.sections({ parts: true })):
     * all of them in one read, or the kept ones copied out of parts of at most into.length bytes read into `into`, so
     * that the section is never whole in memory besides what the MSM takes; the copy in arrays.take(bytes) where
     * `arrays` is given.
     */
    async pointsFrom(part, pointBytes, into, arrays) {
      if (all) {
        const whole = arrays?.take(n * pointBytes);
        const bytes = await part(0, n * pointBytes, whole);
        if (whole && bytes.buffer !== whole.buffer) arrays.give(whole); // a view of the caller's bytes came
        return bytes;
      }
      const PW = pointBytes / 4;
      const bytes = arrays ? arrays.take(count * pointBytes) : new Uint8Array(count * pointBytes);
      const out = new Uint32Array(bytes.buffer, 0, count * PW);
      const per = Math.max(1, Math.floor(into.length / pointBytes));
      for (let first = 0, j = 0; first < n && j < count; first += per) {
        const m = Math.min(per, n - first);
        const P = wordsOf(await part(first * pointBytes, m * pointBytes, into));
        for (; j < count && kept[j] < first + m; j++) {
          const from = PW * (kept[j] - first);
          for (let k = 0; k < PW; k++) out[PW * j + k] = P[from + k];
        }
      }
      return bytes;
    },
  };
}
