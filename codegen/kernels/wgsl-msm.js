// The MSM's compute entry points in WGSL, over the field (fp_) and curve (g_) kernels of codegen/wgsl/README.md.
// One entry point per phase step; src/gpu/msm.js runs them in order over storage buffers:
//   convertPoints  input words -> affine Montgomery points (as words: coord_toWords), each checked (< p, on the curve);
//                  skip flags
//   decomposeScalars  (curves with GLV, codegen/kernels/wgsl-glv.js) each scalar's two halves, where prm.glv is set
//   countDigits    signed c-bit digits of every (point, window), a histogram of buckets (of every half and its
//                  image phi(P) where prm.glv is set)
//   scanBlocks, addBlockOffsets   exclusive prefix sum of the histogram: where each bucket starts
//   scatterDigits  the counting sort: (point index, sign) entries in bucket order
//   accumulate     each thread sums a segment of S entries, a bucket at a time (mixed additions)
//   sumPoints      every sum after that, in four modes (one g_add call site for all):
//     joinSegments   each bucket that crossed a segment boundary: the sum of its parts
//     reduceGroups   sum_l l B_l over groups of M buckets of a window, as running sums
//     sumRuns        the groups' sums of each window added R at a time (repeated until one per window)
//     addWindows     each window's sum added to the earlier chunks' (one thread a window); the host then takes
//                    sum_k 2^(c k) W_k on the CPU, where a doubling's chain of dependent products runs far faster
//     combine        sum_k 2^(c k) W_k by doubling (Horner) on one thread: only for window sums that have no
//                    affine form to send to the CPU (a point at infinity of an incomplete Edwards curve)
// Every phase is variable time. Runtime parameters (c, K, L, S, ...) come in one uniform struct per dispatch.

import { MSM_PARAM_FIELDS, SCAN_BLOCK, WORKGROUP } from '../../src/gpu/layout.js';

/**
 * A WGSL function storing a Point at index `index` of storage array `buffer`: its coordinates in turn, each as the
 * words of its canonical residue (coord_toWords: less memory to hold and move than limbs).
 */
const storePoint = (name, buffer, index) => `fn ${name}(${index}: u32, P: Point) {
  let c = g_coords(P);
  for (var t = 0u; t < G_COORDS; t++) {
    let v = coord_toWords(c[t]);
    for (var j = 0u; j < COORD_WORDS; j++) { ${buffer}[(${index} * G_COORDS + t) * COORD_WORDS + j] = v[j]; }
  }
}`;

/** A WGSL function loading the Point at index i of storage array `buffer` (WGSL passes no storage pointers). */
const loadPoint = (name, buffer) => `fn ${name}(i: u32) -> Point {
  var c: array<Coord, G_COORDS>;
  for (var t = 0u; t < G_COORDS; t++) {
    var v: array<u32, COORD_WORDS>;
    for (var j = 0u; j < COORD_WORDS; j++) { v[j] = ${buffer}[(i * G_COORDS + t) * COORD_WORDS + j]; }
    c[t] = coord_fromWords(v);
  }
  return g_fromCoords(c);
}`;

/**
 * The MSM's entry points over the coordinates of the `coord_` layer (F_p for G1, F_p2 for G2: codegen/wgsl/README.md)
 * and the group's `g_` kernels, for points of `curve.model` and scalars of `curve.scalarBytes`.
 * @param {{ model?: string, scalarBytes: number, glv?: boolean }} curve glv: the module has codegen/kernels/wgsl-glv.js's
 *   GLV_BETA, GLV_H, GLV_RECORD and decomposeScalars, and these entry points take its halves where prm.glv is set
 */
export function msmWgsl(curve) {
  const edwards = (curve.model ?? 'short-weierstrass') === 'twisted-edwards';
  const glv = !!curve.glv;
  const scalarWords = Math.ceil(curve.scalarBytes / 4);
  return `
// ---------------------------------------------------------------------------------------------------------------
// MSM entry points (codegen/kernels/wgsl-msm.js)

struct MsmParams {
${MSM_PARAM_FIELDS.map((f) => `  ${f}: u32,`).join('\n')}
}
// mode: sumPoints' step (src/gpu/layout.js SUM_MODES); count: points or threads of the pass; c: window bits; windows: K; buckets: L = 2^(c-1) per window; segment: S entries
// per accumulate thread; groupSize: M buckets per reduce thread, groups: G = ceil(L / M); runIn, runOut, run: sumRuns'
// entries per window before and after, R added per thread; first: 1 when combine starts the result; base: the
// first point's index in the whole input (for error codes); glv: 1 when the digits are GLV halves (decomposeScalars';
// count is then 2 points, the halves of prm.points scalars) and convertPoints writes each phi(P) too; images: where
// phi(P_0) is in the points' buffer (the points converted into it: prepared bases hold more than a call may sum)
@group(0) @binding(0) var<uniform> prm: MsmParams;

const WORKGROUP: u32 = ${WORKGROUP}u;
const SCAN_BLOCK: u32 = ${SCAN_BLOCK}u;
const SCALAR_WORDS: u32 = ${scalarWords}u;
const AFFINE_WORDS: u32 = 2u * COORD_WORDS; // an affine point in GPU memory: x's and y's words (coord_toWords)

/** The invocation's index over a dispatch of (x, y) workgroups (y > 1 past 65535 workgroups). */
fn invocation(wg: vec3u, nwg: vec3u, lid: u32, size: u32) -> u32 {
  return (wg.y * nwg.x + wg.x) * size + lid;
}

// --- convertPoints: bindings 1 input words (x | y, COORD_WORDS each), 2 affine points, 3 skip flags, 4 status -----
@group(0) @binding(1) var<storage, read> cv_input: array<u32>;
@group(0) @binding(2) var<storage, read_write> cv_points: array<u32>;
@group(0) @binding(3) var<storage, read_write> cv_skip: array<u32>;
@group(0) @binding(4) var<storage, read_write> cv_status: array<atomic<u32>>;

/** status[0] = min over bad points of (index << 2 | reason): 1 x >= p, 2 y >= p, 3 not on the curve (as g_fromBytes) */
fn reject(i: u32, reason: u32) {
  atomicMin(&cv_status[0], ((prm.base + i) << 2u) | reason);
  cv_skip[i] = 1u;
}

@compute @workgroup_size(WORKGROUP)
fn convertPoints(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, WORKGROUP);
  if (i >= prm.count) { return; }
  var xw: array<u32, COORD_WORDS>;
  var yw: array<u32, COORD_WORDS>;
  var nonzero = 0u;
  for (var j = 0u; j < COORD_WORDS; j++) {
    xw[j] = cv_input[(2u * i) * COORD_WORDS + j];
    yw[j] = cv_input[(2u * i + 1u) * COORD_WORDS + j];
    nonzero |= xw[j] | yw[j];
  }
${edwards ? '' : `  // all zero: the point at infinity, which adds nothing
  if (nonzero == 0u) { cv_skip[i] = 1u; return; }
`}  // coord_fromWords marks a value past the limbs' reach so that coord_ltP rejects it
  let x = coord_fromWords(xw);
  let y = coord_fromWords(yw);
  if (!coord_ltP(x)) { reject(i, 1u); return; }
  if (!coord_ltP(y)) { reject(i, 2u); return; }
  let Q = Affine(coord_toMontgomery(x), coord_toMontgomery(y));
  if (!g_isOnCurve(Q)) { reject(i, 3u); return; }
  // kept as the words of the canonical residues (2.5 times smaller than limbs of 13 bits: less to gather)
  let xw2 = coord_toWords(Q.x);
  let yw2 = coord_toWords(Q.y);
  for (var j = 0u; j < COORD_WORDS; j++) {
    cv_points[i * AFFINE_WORDS + j] = xw2[j];
    cv_points[i * AFFINE_WORDS + COORD_WORDS + j] = yw2[j];
  }
${glv ? `  // with GLV, phi(P) = (beta x, y) at index images + i (images = count), for the second half of the scalar
  if (prm.glv != 0u) {
    let bx = coord_toWords(glv_imageX(Q.x));
    for (var j = 0u; j < COORD_WORDS; j++) {
      cv_points[(prm.images + i) * AFFINE_WORDS + j] = bx[j];
      cv_points[(prm.images + i) * AFFINE_WORDS + COORD_WORDS + j] = yw2[j];
    }
  }
` : ''}  // the neutral element of an Edwards curve adds nothing either
  cv_skip[i] = select(0u, 1u, g_isNeutralAffine(Q));
}

// --- signed digits: digit k of scalar i from its bits [k c, k c + c) plus the carry of digit k - 1 -----------------
@group(0) @binding(1) var<storage, read> dg_scalars: array<u32>;
@group(0) @binding(2) var<storage, read> dg_skip: array<u32>;
@group(0) @binding(3) var<storage, read_write> dg_counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> dg_offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> dg_entries: array<u32>;

${glv ? `/** bits [at, at + c) of scalar i, or with prm.glv of half i's |k| (c <= 31; bits past its words read as zero) */
fn scalarBits(i: u32, at: u32) -> u32 {
  var stride = SCALAR_WORDS;
  var words = SCALAR_WORDS;
  if (prm.glv != 0u) {
    stride = GLV_RECORD;
    words = GLV_H;
  }` : `/** bits [at, at + c) of scalar i (c <= 31; bits past the scalar's words read as zero) */
fn scalarBits(i: u32, at: u32) -> u32 {
  let stride = SCALAR_WORDS;
  let words = SCALAR_WORDS;`}
  let word = at / 32u;
  let shift = at % 32u;
  var v = 0u;
  if (word < words) { v = dg_scalars[i * stride + word] >> shift; }
  if (shift + prm.c > 32u && word + 1u < words) { v |= dg_scalars[i * stride + word + 1u] << (32u - shift); }
  return v & ((1u << prm.c) - 1u);
}

${glv ? `/** With prm.glv, digit source i of [0, 2 points) is half i / points of scalar i % points: its point's skip flag,
 * its point (P, or phi(P) at images + i % points), and a negative half negates that point in every bucket. */
fn isSkipped(i: u32) -> bool {
  return dg_skip[select(i, i - prm.points, prm.glv != 0u && i >= prm.points)] != 0u;
}
fn pointIndex(i: u32) -> u32 {
  return select(i, prm.images + i - prm.points, prm.glv != 0u && i >= prm.points);
}
fn halfSign(i: u32) -> u32 {
  return select(0u, dg_scalars[i * GLV_RECORD + GLV_H], prm.glv != 0u);
}` : `fn isSkipped(i: u32) -> bool { return dg_skip[i] != 0u; }
fn pointIndex(i: u32) -> u32 { return i; }
fn halfSign(i: u32) -> u32 { return 0u; }`}

// Digits in [-(L - 1), L] with L = 2^(c-1): a window value above L borrows 2^c from the next window. K c > the
// scalars' bits, so the top window never carries out. Digit d != 0 goes to bucket |d| - 1 of its window, negated
// when d < 0; a zero digit, a skipped point or infinity goes nowhere.

@compute @workgroup_size(WORKGROUP)
fn countDigits(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, WORKGROUP);
  if (i >= prm.count || isSkipped(i)) { return; }
  var carry = 0u;
  for (var k = 0u; k < prm.windows; k++) {
    let raw = scalarBits(i, k * prm.c) + carry;
    carry = select(0u, 1u, raw > prm.buckets);
    let magnitude = select(raw, (1u << prm.c) - raw, raw > prm.buckets);
    if (magnitude != 0u) { atomicAdd(&dg_counts[k * prm.buckets + magnitude - 1u], 1u); }
  }
}

@compute @workgroup_size(WORKGROUP)
fn scatterDigits(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, WORKGROUP);
  if (i >= prm.count || isSkipped(i)) { return; }
  let sign = halfSign(i);
  var carry = 0u;
  for (var k = 0u; k < prm.windows; k++) {
    let raw = scalarBits(i, k * prm.c) + carry;
    let negative = raw > prm.buckets;
    carry = select(0u, 1u, negative);
    let magnitude = select(raw, (1u << prm.c) - raw, negative);
    if (magnitude != 0u) {
      let bucket = k * prm.buckets + magnitude - 1u;
      // dg_counts, cleared after the scan, is each bucket's cursor here
      let at = dg_offsets[bucket] + atomicAdd(&dg_counts[bucket], 1u);
      dg_entries[at] = (pointIndex(i) << 1u) | (select(0u, 1u, negative) ^ sign);
    }
  }
}

// --- exclusive prefix sum: blocks of SCAN_BLOCK in a workgroup each, then the blocks' offsets added --------------
@group(0) @binding(1) var<storage, read_write> sc_data: array<u32>;
@group(0) @binding(2) var<storage, read_write> sc_sums: array<u32>;
var<workgroup> sc_tile: array<u32, SCAN_BLOCK>;

@compute @workgroup_size(SCAN_BLOCK)
fn scanBlocks(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let block = wg.y * nwg.x + wg.x;
  let i = block * SCAN_BLOCK + lid;
  var v = 0u;
  if (i < prm.count) { v = sc_data[i]; }
  sc_tile[lid] = v;
  workgroupBarrier();
  // Hillis-Steele: after the step of distance d, tile[j] sums the 2d values ending at j
  for (var d = 1u; d < SCAN_BLOCK; d <<= 1u) {
    var t = 0u;
    if (lid >= d) { t = sc_tile[lid - d]; }
    workgroupBarrier();
    sc_tile[lid] += t;
    workgroupBarrier();
  }
  if (i < prm.count) { sc_data[i] = sc_tile[lid] - v; }
  // (a block past the data, where the dispatch rounds up, writes nothing)
  if (lid == SCAN_BLOCK - 1u && block * SCAN_BLOCK < prm.count) { sc_sums[block] = sc_tile[lid]; }
}

@compute @workgroup_size(SCAN_BLOCK)
fn addBlockOffsets(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, SCAN_BLOCK);
  if (i < prm.count) { sc_data[i] += sc_sums[i / SCAN_BLOCK]; }
}

// --- accumulate: thread s sums entries [s S, s S + S) a bucket at a time -------------------------------------------
// A bucket that lies inside the segment is written to its place; the segment's first bucket goes to part A of
// the segment and its last (when another) to part B, for joinSegments, which adds the parts of a bucket that
// crossed a boundary. So the work per thread is S additions, however the digits fall.
// One loop over the entries, one addition each (a bucket starts from the neutral element): the 32 threads of a warp
// then add in step. A loop per bucket made a warp wait on its longest bucket at every turn, about 1.5 times the
// additions at BN254 2^20 (bench/accumulate-divergence.js counts it).
@group(0) @binding(1) var<storage, read> ac_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> ac_entries: array<u32>;
@group(0) @binding(3) var<storage, read> ac_points: array<u32>;
@group(0) @binding(4) var<storage, read_write> ac_buckets: array<u32>;
@group(0) @binding(5) var<storage, read_write> ac_parts: array<u32>;

fn entryPoint(entry: u32) -> Affine {
  let at = (entry >> 1u) * AFFINE_WORDS;
  var xw: array<u32, COORD_WORDS>;
  var yw: array<u32, COORD_WORDS>;
  for (var j = 0u; j < COORD_WORDS; j++) {
    xw[j] = ac_points[at + j];
    yw[j] = ac_points[at + COORD_WORDS + j];
  }
  var Q = Affine(coord_fromWords(xw), coord_fromWords(yw));
  if ((entry & 1u) != 0u) { Q = g_negAffine(Q); }
  return Q;
}

${storePoint('storeBucket', 'ac_buckets', 'b')}

${storePoint('storePart', 'ac_parts', 'slot')}

@compute @workgroup_size(WORKGROUP)
fn accumulate(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let s = invocation(wg, nwg, lid, WORKGROUP);
  let bucketCount = prm.windows * prm.buckets;
  let total = ac_offsets[bucketCount];
  let start = s * prm.segment;
  if (start >= total) { return; }
  let end = min(start + prm.segment, total);
  // the bucket holding entry \`start\`: the last b with offsets[b] <= start (offsets[bucketCount] = total > start)
  var lo = 0u;
  var hi = bucketCount;
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (ac_offsets[mid] <= start) { lo = mid; } else { hi = mid; }
  }
  var b = lo;
  var bucketEnd = min(ac_offsets[b + 1u], end);
  var firstBucket = true;
  var acc = g_zero();
  for (var i = start; i < end; i++) {
    if (i == bucketEnd) {
      if (firstBucket) { storePart(2u * s, acc); } else { storeBucket(b, acc); }
      firstBucket = false;
      b += 1u;
      while (ac_offsets[b + 1u] <= i) { b += 1u; } // past empty buckets
      bucketEnd = min(ac_offsets[b + 1u], end);
      acc = g_zero();
    }
    acc = g_addAffine(acc, entryPoint(ac_entries[i]));
  }
  // the segment's last bucket: part B, or part A when the segment lies inside one bucket
  if (firstBucket) { storePart(2u * s, acc); } else { storePart(2u * s + 1u, acc); }
}

// --- sumPoints: every sum of accumulator points after the accumulation, as one entry point with one g_add call
// site (a doubling is g_add(P, P), which g_add handles): each inlined copy of the addition costs the shader
// compilers seconds and the GPU instruction cache room. prm.mode picks the step:
//   0 joinSegments  thread b: bucket b from its parts in the segments it crossed (src = parts, dst = buckets);
//                   an empty bucket is written as zero, one that accumulate wrote in place is left alone
//   1 reduceGroups  thread (k, g) over buckets l = g M + 1 .. min(g M + M, L) of window k (bucket l at index l - 1):
//                   running sums from the top give sum_l (l - g M) B_l and T = sum_l B_l, plus (g M) T by
//                   double-and-add (src = buckets, dst = the groups' sums)
//   2 sumRuns       entry j of window k out = the sum of entries j R .. j R + R - 1 of window k in (src -> dst)
//   3 combine       one thread: dst[0] (+)= sum_k 2^(c k) W_k by Horner from the top window (src = window sums),
//                   added to the earlier chunks' result in dst[0] unless prm.first
//   4 addWindows    thread k: dst[k] (+)= src[k], window k's sum added to the earlier chunks' unless prm.first
@group(0) @binding(1) var<storage, read> sp_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> sp_src: array<u32>;
@group(0) @binding(3) var<storage, read_write> sp_dst: array<u32>;

${loadPoint('loadSrc', 'sp_src')}

${loadPoint('loadDst', 'sp_dst')}

${storePoint('storeDst', 'sp_dst', 'i')}

@compute @workgroup_size(WORKGROUP)
fn sumPoints(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = invocation(wg, nwg, lid, WORKGROUP);
  let mode = prm.mode;
  var acc0 = g_zero(); // join: the bucket; reduce: the running sum; sumRuns, combine: the sum
  var acc1 = g_zero(); // reduce: the sum of running sums
  var acc2 = g_zero(); // reduce: (g M) T
  var steps = 0u;
  var out = t; // where acc (acc1 for reduce) goes
  // join
  var s0 = 0u;
  var startsSegment = false;
  // reduce
  var k = 0u;
  var low = 0u;
  var top = 0u;
  var runSteps = 0u;
  // sumRuns
  var j = 0u;
  // combine
  var d = 0u;
  var earlier = false;
  switch mode {
    case 0u: {
      let bucketCount = prm.windows * prm.buckets;
      if (t >= bucketCount) { return; }
      let begin = sp_offsets[t];
      let end = sp_offsets[t + 1u];
      if (begin < end) {
        let size = prm.segment;
        s0 = begin / size;
        let s1 = (end - 1u) / size;
        startsSegment = begin == s0 * size;
        let endsSegment = end == min(s0 * size + size, sp_offsets[bucketCount]);
        // inside one segment, neither its first nor its last bucket: accumulate wrote it in place
        if (s0 == s1 && !startsSegment && !endsSegment) { return; }
        steps = s1 - s0 + 1u;
      }
    }
    case 1u: {
      if (t >= prm.windows * prm.groups) { return; }
      k = t / prm.groups;
      low = (t % prm.groups) * prm.groupSize; // l - low is the weight within the group
      top = min(low + prm.groupSize, prm.buckets);
      runSteps = 2u * (top - low); // run += B_l, then sum += run
      steps = runSteps + 2u * prm.c + 1u; // then (g M) T bit by bit (g M < 2^c): double, add; then sum + that
    }
    case 2u: {
      if (t >= prm.windows * prm.runOut) { return; }
      k = t / prm.runOut;
      j = t % prm.runOut;
      steps = prm.run;
    }
    case 4u: {
      if (t >= prm.windows) { return; }
      acc0 = loadSrc(t);
      earlier = prm.first == 0u;
      steps = select(0u, 1u, earlier);
    }
    default: {
      if (t > 0u) { return; }
      acc0 = loadSrc(prm.windows - 1u);
      k = prm.windows - 1u;
      earlier = prm.first == 0u;
      steps = 0xffffffffu; // until the loop breaks
      out = 0u;
    }
  }
  for (var step = 0u; step < steps; step++) {
    var a = acc0;
    var b: Point;
    var which = 0u; // the result goes to acc0, acc1 or acc2
    var skip = false; // (a WGSL break or continue inside a switch would leave the switch only)
    var done = false;
    switch mode {
      case 0u: {
        // the bucket's part in s0 is that segment's A when it starts there, else its B (the segment's last
        // bucket); in every later segment it is the first bucket, so A
        b = loadSrc(select(2u * (s0 + step), 2u * s0 + 1u, step == 0u && !startsSegment));
      }
      case 1u: {
        if (step < runSteps) {
          if ((step & 1u) == 0u) {
            b = loadSrc(k * prm.buckets + top - 1u - step / 2u);
          } else {
            a = acc1;
            b = acc0;
            which = 1u;
          }
        } else if (step + 1u < steps) {
          let bit = prm.c - 1u - (step - runSteps) / 2u;
          a = acc2;
          which = 2u;
          if (((step - runSteps) & 1u) == 0u) {
            b = acc2;
          } else {
            skip = ((low >> bit) & 1u) == 0u;
            b = acc0;
          }
        } else {
          a = acc1;
          b = acc2;
          which = 1u;
        }
      }
      case 2u: {
        let at = j * prm.run + step;
        done = at >= prm.runIn;
        if (!done) { b = loadSrc(k * prm.runIn + at); }
      }
      case 4u: {
        b = loadDst(t);
      }
      default: {
        b = acc0;
        if (k == 0u) {
          done = !earlier;
          earlier = false;
          if (!done) { b = loadDst(0u); }
        } else if (d == prm.c) {
          k -= 1u;
          d = 0u;
          b = loadSrc(k);
        } else {
          d += 1u;
        }
      }
    }
    if (done) { break; }
    if (skip) { continue; }
    let r = g_add(a, b);
    if (which == 0u) { acc0 = r; } else if (which == 1u) { acc1 = r; } else { acc2 = r; }
  }
  if (mode == 1u) { acc0 = acc1; }
  storeDst(out, acc0);
}
`;
}
