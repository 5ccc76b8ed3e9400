// The MSM's compute entry points in WGSL, over the field (fp_) and curve (g_) kernels of codegen/wgsl/README.md.
// One entry point per phase step; src/gpu/msm.js runs them in order over storage buffers:
//   convertPoints  input words -> affine Montgomery points, each checked (< p, on the curve); skip flags
//   countDigits    signed c-bit digits of every (point, window), a histogram of buckets
//   scanBlocks, addBlockOffsets   exclusive prefix sum of the histogram: where each bucket starts
//   scatterDigits  the counting sort: (point index, sign) entries in bucket order
//   accumulate     each thread sums a segment of S entries, a bucket at a time (mixed additions)
//   joinSegments   each bucket that crossed a segment boundary: the sum of its parts
//   reduceGroups   sum_l l B_l over groups of M buckets of a window, as running sums
//   sumRuns        the groups' sums of each window added R at a time (repeated until one per window)
//   combine        sum_k 2^(c k) W_k by doubling (Horner), added to the result of earlier chunks
// Every phase is variable time. Runtime parameters (c, K, L, S, ...) come in one uniform struct per dispatch.

import { MSM_PARAM_FIELDS, SCAN_BLOCK, WORKGROUP } from '../../src/gpu/layout.js';

/**
 * Bits of each word of a coordinate's byte encoding that lie at or above n w, the limbs' reach: a coordinate with any
 * of them set is >= 2^(n w) > p, which fp_fromWords would cut off, so convertPoints rejects it first.
 */
function excessMasks(words, limbBits) {
  return Array.from({ length: words }, (_, j) => {
    const lo = 32 * j;
    if (lo + 32 <= limbBits) return 0;
    if (lo >= limbBits) return 0xffffffff;
    return (0xffffffff << (limbBits - lo)) >>> 0;
  });
}

/**
 * @param {{ model?: string, scalarBytes: number }} curve
 * @param {{ n: number, w: number, bytes: number }} field the GPU field params (deriveFieldParams kernel 'gpu')
 */
export function msmWgsl(curve, field) {
  const edwards = (curve.model ?? 'short-weierstrass') === 'twisted-edwards';
  const words = Math.ceil(field.bytes / 4);
  const scalarWords = Math.ceil(curve.scalarBytes / 4);
  const excess = excessMasks(words, field.n * field.w);
  const u32s = (list) => list.map((v) => `${v >>> 0}u`).join(', ');
  return `
// ---------------------------------------------------------------------------------------------------------------
// MSM entry points (codegen/kernels/wgsl-msm.js)

struct MsmParams {
${MSM_PARAM_FIELDS.map((f) => `  ${f}: u32,`).join('\n')}
}
// count: points or threads of the pass; c: window bits; windows: K; buckets: L = 2^(c-1) per window; segment: S entries
// per accumulate thread; groupSize: M buckets per reduce thread, groups: G = ceil(L / M); runIn, runOut, run: sumRuns'
// entries per window before and after, R added per thread; first: 1 when combine starts the result; base: the
// first point's index in the whole input (for error codes)
@group(0) @binding(0) var<uniform> prm: MsmParams;

const WORKGROUP: u32 = ${WORKGROUP}u;
const SCAN_BLOCK: u32 = ${SCAN_BLOCK}u;
const SCALAR_WORDS: u32 = ${scalarWords}u;
const AFFINE_WORDS: u32 = 2u * FP_N;
const POINT_WORDS: u32 = G_COORDS * FP_N;
// bits of each coordinate word at or above n w = ${field.n * field.w} (set: the coordinate is >= p)
const FP_WORD_EXCESS = array<u32, FP_WORDS>(${u32s(excess)});

/** The invocation's index over a dispatch of (x, y) workgroups (y > 1 past 65535 workgroups). */
fn invocation(wg: vec3u, nwg: vec3u, lid: u32, size: u32) -> u32 {
  return (wg.y * nwg.x + wg.x) * size + lid;
}

// --- convertPoints: bindings 1 input words (x | y, FP_WORDS each), 2 affine points, 3 skip flags, 4 status -------
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
  var xw: array<u32, FP_WORDS>;
  var yw: array<u32, FP_WORDS>;
  var nonzero = 0u;
  var xOver = 0u;
  var yOver = 0u;
  for (var j = 0u; j < FP_WORDS; j++) {
    xw[j] = cv_input[(2u * i) * FP_WORDS + j];
    yw[j] = cv_input[(2u * i + 1u) * FP_WORDS + j];
    nonzero |= xw[j] | yw[j];
    xOver |= xw[j] & FP_WORD_EXCESS[j];
    yOver |= yw[j] & FP_WORD_EXCESS[j];
  }
${edwards ? '' : `  // all zero: the point at infinity, which adds nothing
  if (nonzero == 0u) { cv_skip[i] = 1u; return; }
`}  let x = fp_fromWords(xw);
  let y = fp_fromWords(yw);
  if (xOver != 0u || !fp_ltP(x)) { reject(i, 1u); return; }
  if (yOver != 0u || !fp_ltP(y)) { reject(i, 2u); return; }
  let Q = Affine(fp_toMontgomery(x), fp_toMontgomery(y));
  if (!g_isOnCurve(Q)) { reject(i, 3u); return; }
  for (var j = 0u; j < FP_N; j++) {
    cv_points[i * AFFINE_WORDS + j] = Q.x[j];
    cv_points[i * AFFINE_WORDS + FP_N + j] = Q.y[j];
  }
  // the neutral element of an Edwards curve adds nothing either
  cv_skip[i] = select(0u, 1u, g_isNeutralAffine(Q));
}

// --- signed digits: digit k of scalar i from its bits [k c, k c + c) plus the carry of digit k - 1 -----------------
@group(0) @binding(1) var<storage, read> dg_scalars: array<u32>;
@group(0) @binding(2) var<storage, read> dg_skip: array<u32>;
@group(0) @binding(3) var<storage, read_write> dg_counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> dg_offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> dg_entries: array<u32>;

/** bits [at, at + c) of scalar i (c <= 31; bits past the scalar's words read as zero) */
fn scalarBits(i: u32, at: u32) -> u32 {
  let word = at / 32u;
  let shift = at % 32u;
  var v = 0u;
  if (word < SCALAR_WORDS) { v = dg_scalars[i * SCALAR_WORDS + word] >> shift; }
  if (shift + prm.c > 32u && word + 1u < SCALAR_WORDS) { v |= dg_scalars[i * SCALAR_WORDS + word + 1u] << (32u - shift); }
  return v & ((1u << prm.c) - 1u);
}

// Digits in [-(L - 1), L] with L = 2^(c-1): a window value above L borrows 2^c from the next window. K c > the
// scalars' bits, so the top window never carries out. Digit d != 0 goes to bucket |d| - 1 of its window, negated
// when d < 0; a zero digit, a skipped point or infinity goes nowhere.

@compute @workgroup_size(WORKGROUP)
fn countDigits(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = invocation(wg, nwg, lid, WORKGROUP);
  if (i >= prm.count || dg_skip[i] != 0u) { return; }
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
  if (i >= prm.count || dg_skip[i] != 0u) { return; }
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
      dg_entries[at] = (i << 1u) | select(0u, 1u, negative);
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
@group(0) @binding(1) var<storage, read> ac_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> ac_entries: array<u32>;
@group(0) @binding(3) var<storage, read> ac_points: array<u32>;
@group(0) @binding(4) var<storage, read_write> ac_buckets: array<u32>;
@group(0) @binding(5) var<storage, read_write> ac_parts: array<u32>;

fn entryPoint(entry: u32) -> Affine {
  let at = (entry >> 1u) * AFFINE_WORDS;
  var Q: Affine;
  for (var j = 0u; j < FP_N; j++) {
    Q.x[j] = ac_points[at + j];
    Q.y[j] = ac_points[at + FP_N + j];
  }
  if ((entry & 1u) != 0u) { Q = g_negAffine(Q); }
  return Q;
}

fn storeBucket(b: u32, P: Point) {
  let c = g_coords(P);
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { ac_buckets[(b * G_COORDS + t) * FP_N + j] = c[t][j]; }
  }
}

fn storePart(slot: u32, P: Point) {
  let c = g_coords(P);
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { ac_parts[(slot * G_COORDS + t) * FP_N + j] = c[t][j]; }
  }
}

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
  var i = start;
  var firstBucket = true;
  loop {
    let bucketEnd = min(ac_offsets[b + 1u], end);
    var acc = g_fromAffine(entryPoint(ac_entries[i]));
    for (var j = i + 1u; j < bucketEnd; j++) { acc = g_addAffine(acc, entryPoint(ac_entries[j])); }
    if (firstBucket) {
      storePart(2u * s, acc);
    } else if (bucketEnd == end) {
      storePart(2u * s + 1u, acc);
    } else {
      storeBucket(b, acc);
    }
    firstBucket = false;
    i = bucketEnd;
    if (i >= end) { break; }
    b += 1u;
    while (ac_offsets[b + 1u] <= i) { b += 1u; } // past empty buckets
  }
}

// --- joinSegments: one thread per bucket; an empty bucket is written as zero -------------------------------------
@group(0) @binding(1) var<storage, read> js_offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> js_buckets: array<u32>;
@group(0) @binding(3) var<storage, read> js_parts: array<u32>;

fn loadPart(slot: u32) -> Point {
  var c: array<Fp, G_COORDS>;
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { c[t][j] = js_parts[(slot * G_COORDS + t) * FP_N + j]; }
  }
  return g_fromCoords(c);
}

@compute @workgroup_size(WORKGROUP)
fn joinSegments(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let b = invocation(wg, nwg, lid, WORKGROUP);
  let bucketCount = prm.windows * prm.buckets;
  if (b >= bucketCount) { return; }
  let begin = js_offsets[b];
  let end = js_offsets[b + 1u];
  let total = js_offsets[bucketCount];
  var P = g_zero();
  if (begin < end) {
    let size = prm.segment;
    let s0 = begin / size;
    let s1 = (end - 1u) / size;
    let startsSegment = begin == s0 * size;
    let endsSegment = end == min(s0 * size + size, total);
    // inside one segment, neither its first nor its last bucket: accumulate wrote it in place
    if (s0 == s1 && !startsSegment && !endsSegment) { return; }
    // its part in s0 is that segment's A when it starts there, else B (the segment's last bucket); in every later
    // segment it is the first bucket, so A
    P = loadPart(select(2u * s0 + 1u, 2u * s0, startsSegment));
    for (var s = s0 + 1u; s <= s1; s++) { P = g_add(P, loadPart(2u * s)); }
  }
  let c = g_coords(P);
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { js_buckets[(b * G_COORDS + t) * FP_N + j] = c[t][j]; }
  }
}

// --- reduceGroups: thread (k, g) over buckets l = g M + 1 .. min(g M + M, L) of window k (bucket l at index l - 1):
// running sums from the top give sum_l (l - g M) B_l and T = sum_l B_l; plus (g M) T by double-and-add ---------
@group(0) @binding(1) var<storage, read> rd_buckets: array<u32>;
@group(0) @binding(2) var<storage, read_write> rd_sums: array<u32>;

fn loadBucket(b: u32) -> Point {
  var c: array<Fp, G_COORDS>;
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { c[t][j] = rd_buckets[(b * G_COORDS + t) * FP_N + j]; }
  }
  return g_fromCoords(c);
}

@compute @workgroup_size(WORKGROUP)
fn reduceGroups(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = invocation(wg, nwg, lid, WORKGROUP);
  if (t >= prm.windows * prm.groups) { return; }
  let k = t / prm.groups;
  let g = t % prm.groups;
  let low = g * prm.groupSize; // l - low is the weight within the group
  let top = min(low + prm.groupSize, prm.buckets);
  var run = g_zero();
  var sum = g_zero();
  for (var l = top; l > low; l--) {
    run = g_add(run, loadBucket(k * prm.buckets + l - 1u));
    sum = g_add(sum, run);
  }
  // (g M) T, most significant bit first (g M < L = 2^(c-1))
  var scaled = g_zero();
  for (var bit = prm.c; bit > 0u; bit--) {
    scaled = g_double(scaled);
    if (((low >> (bit - 1u)) & 1u) != 0u) { scaled = g_add(scaled, run); }
  }
  let c = g_coords(g_add(sum, scaled));
  for (var q = 0u; q < G_COORDS; q++) {
    for (var j = 0u; j < FP_N; j++) { rd_sums[(t * G_COORDS + q) * FP_N + j] = c[q][j]; }
  }
}

// --- sumRuns: entry j of window k out = the sum of entries j R .. j R + R - 1 of window k in ---------------------
@group(0) @binding(1) var<storage, read> sr_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> sr_out: array<u32>;

fn loadRun(i: u32) -> Point {
  var c: array<Fp, G_COORDS>;
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { c[t][j] = sr_in[(i * G_COORDS + t) * FP_N + j]; }
  }
  return g_fromCoords(c);
}

@compute @workgroup_size(WORKGROUP)
fn sumRuns(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = invocation(wg, nwg, lid, WORKGROUP);
  if (t >= prm.windows * prm.runOut) { return; }
  let k = t / prm.runOut;
  let j = t % prm.runOut;
  var P = g_zero();
  for (var r = 0u; r < prm.run; r++) {
    let at = j * prm.run + r;
    if (at < prm.runIn) { P = g_add(P, loadRun(k * prm.runIn + at)); }
  }
  let c = g_coords(P);
  for (var q = 0u; q < G_COORDS; q++) {
    for (var i = 0u; i < FP_N; i++) { sr_out[(t * G_COORDS + q) * FP_N + i] = c[q][i]; }
  }
}

// --- combine: one thread; result (+)= sum_k 2^(c k) W_k ------------------------------------------------------------
@group(0) @binding(1) var<storage, read> cb_windows: array<u32>;
@group(0) @binding(2) var<storage, read_write> cb_result: array<u32>;

fn loadWindow(k: u32) -> Point {
  var c: array<Fp, G_COORDS>;
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { c[t][j] = cb_windows[(k * G_COORDS + t) * FP_N + j]; }
  }
  return g_fromCoords(c);
}

@compute @workgroup_size(1)
fn combine() {
  var acc = loadWindow(prm.windows - 1u);
  for (var k = prm.windows - 1u; k > 0u; k--) {
    for (var d = 0u; d < prm.c; d++) { acc = g_double(acc); }
    acc = g_add(acc, loadWindow(k - 1u));
  }
  if (prm.first == 0u) {
    var c: array<Fp, G_COORDS>;
    for (var t = 0u; t < G_COORDS; t++) {
      for (var j = 0u; j < FP_N; j++) { c[t][j] = cb_result[t * FP_N + j]; }
    }
    acc = g_add(acc, g_fromCoords(c));
  }
  let c = g_coords(acc);
  for (var t = 0u; t < G_COORDS; t++) {
    for (var j = 0u; j < FP_N; j++) { cb_result[t * FP_N + j] = c[t][j]; }
  }
}
`;
}
