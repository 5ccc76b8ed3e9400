// Prepared bases on one thread: curve.prepareBases(points) converts the points once into a table in an
// instance of its own (src/msm/prepared.js), so free() gives its memory back; msmBytes(scalars) then sums
// any prefix of the bases. The pool's variant is in src/threads/pool.js.

import { ownInstance } from './instance.js';
import { checkMsmOptions, checkOptionNames, checkPointBytes, checkScalarBytes, partialBytes, pointToBytes } from './msm/bytes.js';
import { buildTable, checkTableFits, preparedMsmPointers, tableLayout } from './msm/prepared.js';
import { checkBatchLength, decodePointBatch, decodeScalarBatch, resultFromNative } from './codecs.js';
import { noFormatOptions, resolveFormatOptions } from './formats.js';

/**
 * Check prepareBases' options: { checkSubgroup, pointFormat, precompute: boolean | { window } }.
 * Returns { checkSubgroup, precompute: false | { window }, formats }.
 */
export function checkBasesOptions(P, options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError('prepareBases options must be an object');
  for (const key of ['scalarFormat', 'resultFormat']) {
    if (options[key] !== undefined) throw new TypeError(`options.${key} belongs to the prepared bases' msmBytes, not to prepareBases`);
  }
  checkOptionNames(options, ['checkSubgroup', 'precompute', 'pointFormat'], 'prepareBases options');
  const { checkSubgroup = false, precompute = false, pointFormat } = options;
  if (typeof checkSubgroup !== 'boolean') throw new TypeError('options.checkSubgroup must be a boolean');
  let pre = false;
  if (precompute === true) pre = {};
  else if (precompute && typeof precompute === 'object') {
    checkOptionNames(precompute, ['window'], 'options.precompute');
    if (precompute.window !== undefined && !Number.isInteger(precompute.window)) throw new TypeError('options.precompute.window must be an integer');
    pre = { window: precompute.window };
  } else if (precompute !== false) throw new TypeError('options.precompute must be a boolean or { window }');
  const formats = pointFormat === undefined ? null : resolveFormatOptions(P, { pointFormat });
  return { checkSubgroup, precompute: pre, formats };
}

/** The number of bases in pointBytes (in its format), checked. */
export function countBases(P, formats, pointBytes) {
  return formats?.point ? checkBatchLength(pointBytes, formats.point.size, 'pointBytes', formats.point.name) : checkPointBytes(P, pointBytes);
}

/**
 * msmBytes' scalars for the prepared bases of `layout`: decoded from options.scalarFormat, each below r (unless range
 * is false: the GPU checks them while its passes run), at most N. Returns { k, scalarBytes (native), formats }.
 */
export function checkPreparedScalars(P, layout, scalarBytes, options, { range = true } = {}) {
  const N = layout.N;
  if (options.window !== undefined && layout.Kt > 1) throw new TypeError('options.window does not apply to bases prepared with precompute');
  if (options.maxMemory !== undefined) throw new TypeError('options.maxMemory does not apply to prepared bases: their table is their memory (see tableBytes)');
  for (const key of ['pointFormat', 'checkSubgroup']) {
    if (options[key] !== undefined) throw new TypeError(`options.${key} belongs to prepareBases (the bases are checked once, there)`);
  }
  const formats = resolveFormatOptions(P, { scalarFormat: options.scalarFormat, resultFormat: options.resultFormat });
  if (!(scalarBytes instanceof Uint8Array)) throw new TypeError('scalarBytes must be a Uint8Array');
  if (formats?.scalar) scalarBytes = decodeScalarBatch(P, formats.scalar, scalarBytes);
  if (scalarBytes.length % P.scalarBytes !== 0) {
    throw new RangeError(`scalarBytes length ${scalarBytes.length} is not a multiple of ${P.scalarBytes} (bytes per scalar)`);
  }
  const k = scalarBytes.length / P.scalarBytes;
  if (k > N) throw new RangeError(`${k} scalars but only ${N} prepared bases (a call may use a prefix of the bases, not more)`);
  checkScalarBytes(P, scalarBytes, k, { range });
  return { k, scalarBytes, formats };
}

/** Write pointBytes into the instance and build the table of all its bases there; returns { layout, table }. */
export function prepareOn(instance, pointBytes, N, { checkSubgroup, precompute, formats }) {
  const { heap, memory, params: P } = instance;
  // the table's size follows from N: check it before decoding anything (the N native points are staged above it)
  const layout = tableLayout(P, N, precompute);
  checkTableFits(layout, heap.mark() + N * 2 * P.field.bytes, P);
  if (formats?.point) pointBytes = decodePointBatch(instance, formats.point, pointBytes, { check: false });
  const table = heap.alloc(Math.max(1, layout.bytes), 64);
  const mark = heap.mark();
  try {
    const staging = heap.alloc(pointBytes.length);
    new Uint8Array(memory.buffer, staging, pointBytes.length).set(pointBytes);
    buildTable({ ex: instance.exports, memory, params: P }, heap, layout, table, staging, 0, N, { checkSubgroup });
  } finally {
    heap.release(mark);
  }
  return { layout, table };
}

/** One MSM over the first k bases of a table on `instance`; returns the result in the msmBytes encoding (options.partial: partialBytes'). */
export function preparedMsmOn(instance, layout, table, scalarBytes, k, options = {}) {
  const { heap, memory } = instance;
  const mark = heap.mark();
  try {
    const scalars = heap.alloc(scalarBytes.length + 8);
    new Uint8Array(memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
    const result = preparedMsmPointers(instance, layout, table, { scalars, k, options });
    return options.partial ? partialBytes(instance, result) : pointToBytes(instance, result);
  } finally {
    heap.release(mark);
  }
}

export class PreparedBases {
  #curve;
  #instance;
  #layout;
  #table;

  /** Use curve.prepareBases(pointBytes, options). */
  constructor(curve, pointBytes, options) {
    const P = curve.params;
    const checked = checkBasesOptions(P, options);
    const N = countBases(P, checked.formats, pointBytes);
    if (!curve.module) throw new TypeError('prepareBases needs a curve loaded by loadCurve, a curve subpath or curveLoader (it instantiates their compiled module)');
    this.#curve = curve;
    // a table that cannot fit is an error before any instance or memory is made (prepareOn checks again, exactly)
    checkTableFits(tableLayout(P, N, checked.precompute), N * 2 * P.field.bytes, P);
    this.#instance = ownInstance(curve.module, P);
    ({ layout: this.#layout, table: this.#table } = prepareOn(this.#instance, pointBytes, N, checked));
    /** Number of bases. */
    this.length = N;
    /** The precompute table's window c, or 0 without precompute. */
    this.precomputeWindow = this.#layout.c;
    /** Wasm memory the table takes, in bytes (the handle's instance holds a little more for each MSM's scratch). */
    this.tableBytes = this.#layout.bytes;
  }

  #live() {
    if (!this.#instance) throw new Error('these prepared bases were freed');
    return this.#instance;
  }

  /**
   * sum_{i < k} scalars[i] * bases[i], k = the number of scalars (at most this.length: a prefix of the bases).
   * options: { scalarFormat, resultFormat, timings, onProgress, window (without precompute) }. Variable time.
   */
  msmBytes(scalarBytes, options = {}) {
    const instance = this.#live();
    options = checkMsmOptions(options);
    const { k, scalarBytes: native, formats } = checkPreparedScalars(instance.params, this.#layout, scalarBytes, options);
    const out = preparedMsmOn(instance, this.#layout, this.#table, native, k, options);
    return resultFromNative(this.#curve, formats, out, options.timings);
  }

  /** The BigInt form: scalars as bigint in [0, r) (at most this.length); returns { x, y } or null. */
  msm(scalars, options) {
    this.#live();
    if (options !== undefined) noFormatOptions(checkMsmOptions(options), 'msm');
    return this.#curve.decodePoint(this.msmBytes(this.#curve.encodeScalars(scalars), options));
  }

  /** Give the table's memory back; later calls throw. */
  free() {
    this.#instance = null;
  }
}
