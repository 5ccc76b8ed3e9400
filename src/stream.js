// MSMs over input that comes in pieces. curve.msmStream and pool.msmStream read a source of { points, scalars }
// byte chunks of any size; curve.msmAccumulator and pool.msmAccumulator take them from the caller (add, add, ...,
// result). The bytes are cut into whole (point, scalar) pairs here, the scalars converted and checked, and the pairs
// handed on in batches to a ChunkedMsm (one thread, src/msm/chunked.js) or a pool's path, whose plan keeps the
// memory bounded whatever the stream's length. Errors name the index in the whole stream.

import { checkAttached, checkMsmOptions, checkScalarBytes, copyBytes, inputError } from './msm/bytes.js';
import { ChunkedMsm } from './msm/chunked.js';
import { planWithBatch } from './msm/plan.js';
import { STAGING_POINTS } from './msm/layout.js';
import { decodePointBatch, decodeScalarBatch, decodeScratchBytes, resultFromNative } from './codecs.js';
import { resolveFormatOptions } from './formats.js';
import { ownInstance } from './instance.js';

/** Pairs handed on at once: bounds the copies made when bytes are cut into pairs and converted. */
const BATCH_PAIRS = 1 << 16;

/** A FIFO of byte pieces from which runs of bytes are taken whole. */
class ByteQueue {
  #pieces = [];
  #offset = 0; // into the first piece
  #kept = 0; // the first pieces, which are copies of our own (keep)
  length = 0;

  push(bytes) {
    if (bytes.length === 0) return;
    this.#pieces.push(bytes);
    this.length += bytes.length;
  }

  /** The next n bytes: a view when one piece holds them all, else a copy. */
  take(n) {
    this.length -= n;
    const first = this.#pieces[0];
    if (first && first.length - this.#offset >= n) {
      const out = first.subarray(this.#offset, this.#offset + n);
      this.#offset += n;
      if (this.#offset === first.length) this.#drop();
      return out;
    }
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const piece = this.#pieces[0];
      const part = Math.min(n - at, piece.length - this.#offset);
      out.set(piece.subarray(this.#offset, this.#offset + part), at);
      at += part;
      this.#offset += part;
      if (this.#offset === piece.length) this.#drop();
    }
    return out;
  }

  /** Copy what is left of the caller's pieces: once add() returns, the caller may reuse or transfer its buffers. */
  keep() {
    for (let i = this.#kept; i < this.#pieces.length; i++) {
      this.#pieces[i] = copyBytes(this.#pieces[i], i === 0 ? this.#offset : 0);
      if (i === 0) this.#offset = 0;
    }
    this.#kept = this.#pieces.length;
  }

  #drop() {
    this.#pieces.shift();
    this.#offset = 0;
    this.#kept = Math.max(0, this.#kept - 1);
  }
}

/** Points and scalars of a stream, in their formats, cut into whole pairs. */
class PairBuffer {
  #points = new ByteQueue();
  #scalars = new ByteQueue();

  constructor(pointSize, scalarSize) {
    this.pointSize = pointSize;
    this.scalarSize = scalarSize;
    this.taken = 0; // pairs handed on so far
  }

  /** points and scalars: Uint8Array or undefined; `what` names the piece in errors. */
  push(points, scalars, what) {
    checkPiece(points, scalars, what);
    if (points) this.#points.push(points);
    if (scalars) this.#scalars.push(scalars);
  }

  /** Copy the bytes still waiting that are views of the caller's buffers (ByteQueue.keep). */
  keep() {
    this.#points.keep();
    this.#scalars.keep();
  }

  /** Whole pairs ready. */
  get pairs() {
    return Math.min(Math.floor(this.#points.length / this.pointSize), Math.floor(this.#scalars.length / this.scalarSize));
  }

  /** The next count pairs: [points, scalars] bytes, in their formats. */
  take(count) {
    this.taken += count;
    return [this.#points.take(count * this.pointSize), this.#scalars.take(count * this.scalarSize)];
  }

  /** At the end of the input: a RangeError for bytes that make no whole pair. */
  checkEnd() {
    const points = this.taken + Math.floor(this.#points.length / this.pointSize);
    const scalars = this.taken + Math.floor(this.#scalars.length / this.scalarSize);
    const partial = (queue, size, kind) => {
      const rest = queue.length % size;
      if (rest) throw new RangeError(`the input ended inside ${kind} ${this.taken + Math.floor(queue.length / size)}: ${rest} of its ${size} bytes came`);
    };
    partial(this.#points, this.pointSize, 'point');
    partial(this.#scalars, this.scalarSize, 'scalar');
    if (points !== scalars) throw new RangeError(`${points} points but ${scalars} scalars in the whole input`);
  }
}

/** A TypeError unless points and scalars are each a Uint8Array or absent; `what` names the piece. */
export function checkPiece(points, scalars, what) {
  for (const [name, bytes] of [['points', points], ['scalars', scalars]]) {
    if (bytes === undefined || bytes === null) continue;
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what}.${name} must be a Uint8Array (or absent)`);
    checkAttached(bytes, `${what}.${name}`);
  }
}

/** Native scalars of `count` pairs in format L (or native): converted and checked below r, errors at their index in the input. */
function nativeScalars(P, L, bytes, count, first) {
  try {
    const native = L ? decodeScalarBatch(P, L, bytes) : bytes;
    checkScalarBytes(P, native, count);
    return native;
  } catch (e) {
    throw e?.argument ? inputError(e.argument, e.index + first, e.reason) : e;
  }
}

/** Native points of a batch in format L, decoded in `instance` (the MSM checks them further), errors re-indexed. */
function nativePoints(instance, L, bytes, first) {
  try {
    return decodePointBatch(instance, L, bytes, { check: false });
  } catch (e) {
    throw e?.argument ? inputError(e.argument, e.index + first, e.reason) : e;
  }
}

/** The options a stream takes (msmBytes' without onProgress: a stream of unknown length has no fraction done). */
export function checkStreamOptions(P, options) {
  options = checkMsmOptions(options, { async: true });
  if (options.onProgress !== undefined) throw new TypeError('options.onProgress needs a known length: a stream reports no progress');
  const formats = resolveFormatOptions(P, options);
  return {
    options,
    formats,
    pointSize: formats?.point ? formats.point.size : 2 * P.field.bytes,
    scalarSize: formats?.scalar ? formats.scalar.width : P.scalarBytes,
  };
}

/**
 * The sum of scalars[i] * points[i] over pairs added a piece at a time, on one thread, in an instance of its own
 * (dropped at result() or free(), so its memory goes back). add(points, scalars): Uint8Arrays of any length in
 * the stream's formats (either may be absent), the caller's again once add() returns (what waits for its other half
 * is copied); result(): the sum, in the result format. Variable time.
 */
export class MsmAccumulator {
  #curve;
  #formats;
  #instance;
  #msm;
  #buffer;
  #timings;
  #memory;
  #decodeBatch; // points decoded at a time (a format to decode), as the budget leaves room for
  #failed = null; // the error of an add() that ended the accumulator

  /** Use curve.msmAccumulator(options): { window, maxMemory, checkSubgroup, pointFormat, scalarFormat, resultFormat, timings }. */
  constructor(curve, options) {
    const P = curve.params;
    const checked = checkStreamOptions(P, options);
    if (checked.options.signal !== undefined) throw new TypeError('options.signal is for msmStream; an accumulator stops with free()');
    if (!curve.module) throw new TypeError('msmAccumulator needs a curve loaded by loadCurve, a curve subpath or curveLoader (it instantiates their compiled module)');
    const { window, maxMemory, checkSubgroup = false, timings } = checked.options;
    this.#curve = curve;
    this.#formats = checked.formats;
    this.#timings = timings;
    this.#buffer = new PairBuffer(checked.pointSize, checked.scalarSize);
    const instance = ownInstance(curve.module, P);
    // points in a format to decode: in batches whose scratch fits beside the MSM within the budget
    const point = this.#formats?.point;
    const { plan, batch } = planWithBatch(P, Infinity, { window, maxMemory, checkSubgroup, base: instance.heap.mark() }, (b) => (point ? decodeScratchBytes(P, point, b, false) : 0), point ? STAGING_POINTS : 1);
    this.#decodeBatch = batch;
    this.#msm = new ChunkedMsm(instance, plan, { checkSubgroup, timings });
    this.#instance = instance;
    this.#memory = instance.memory;
    /** Points per chunk: what the plan fits in maxMemory (or the default working set). */
    this.chunkPoints = plan.chunkPoints;
  }

  #live() {
    if (this.#failed) throw this.#failed;
    if (!this.#instance) throw new Error('this accumulator is finished (result() or free() was called)');
  }

  /** Add points and scalars (Uint8Arrays in the formats; either may be absent, pieces need not hold whole pairs). */
  add(points, scalars) {
    this.#live();
    try {
      this.#buffer.push(points, scalars, 'add()');
      this.#feed();
      this.#buffer.keep();
    } catch (e) {
      this.free();
      this.#failed = e; // what every later call throws, as the pool's accumulator does
      throw e;
    }
  }

  /** Hand every whole pair on to the chunked MSM, a batch that fits its chunk at a time. */
  #feed() {
    const P = this.#curve.params;
    const buffer = this.#buffer;
    const { point, scalar } = this.#formats ?? {};
    while (buffer.pairs > 0) {
      const count = Math.min(buffer.pairs, this.#msm.room, point ? this.#decodeBatch : BATCH_PAIRS);
      const first = buffer.taken;
      let [points, scalars] = buffer.take(count);
      scalars = nativeScalars(P, scalar, scalars, count, first);
      if (point) points = nativePoints(this.#instance, point, points, first);
      this.#msm.append(points, scalars, count, first);
    }
  }

  /** The number of pairs added so far (whole pairs only). */
  get length() {
    return this.#buffer.taken;
  }

  /** Bytes of the accumulator's Wasm memory (it only grows, so after result() this is its peak). */
  get memoryBytes() {
    return this.#memory.buffer.byteLength;
  }

  /** The sum of everything added, in the result format; the accumulator's memory is given back. */
  result() {
    this.#live();
    try {
      this.#buffer.checkEnd();
      const out = this.#msm.finish();
      if (this.#timings) this.#timings.memoryBytes = this.memoryBytes;
      return resultFromNative(this.#curve, this.#formats, out, this.#timings);
    } finally {
      this.free();
    }
  }

  /** Give the memory back without a result; later calls throw. */
  free() {
    if (!this.#instance) return;
    this.#msm.free();
    this.#instance = null;
  }
}

/**
 * An async iterator over a ReadableStream or an async or sync iterable (not a typed array), or null for anything
 * else. A locked stream throws its own error.
 */
function iteratorOf(source) {
  if (source === null || typeof source !== 'object') return null;
  if (typeof source.getReader === 'function' && typeof source[Symbol.asyncIterator] !== 'function') {
    const reader = source.getReader();
    return {
      next: () => reader.read(),
      return: async () => {
        await reader.cancel().catch(() => {});
        return { done: true };
      },
    };
  }
  if (typeof source[Symbol.asyncIterator] === 'function') return source[Symbol.asyncIterator]();
  if (typeof source[Symbol.iterator] === 'function' && !ArrayBuffer.isView(source)) {
    const it = source[Symbol.iterator]();
    return { next: async () => it.next(), return: async () => it.return?.() ?? { done: true } };
  }
  return null;
}

/** A source's chunks as an async iterator: an async or sync iterable, or a ReadableStream, of { points, scalars }. */
function chunkIterator(source) {
  const it = iteratorOf(source);
  if (it) return it;
  if (source !== null && typeof source === 'object' && ('points' in source || 'scalars' in source)) return zipByteStreams(source);
  throw new TypeError('the source must be an async iterable, an iterable or a ReadableStream of { points, scalars } chunks, or { points, scalars } of byte streams');
}

/** A byte stream (ReadableStream, async or sync iterable of Uint8Array, or one Uint8Array) as an async iterator. */
function byteIterator(bytes, name) {
  if (bytes instanceof Uint8Array) {
    let done = false;
    return { next: async () => (done ? { done: true } : ((done = true), { done: false, value: bytes })), return: async () => ({ done: true }) };
  }
  const it = iteratorOf(bytes); // a locked stream's own error, as for a whole source
  if (!it) throw new TypeError(`source.${name} must be a ReadableStream or an iterable of Uint8Array chunks, or a Uint8Array`);
  return it;
}

/**
 * { points, scalars } of two byte streams (a file's points, a fetch body of scalars) as chunks, read in step:
 * the side with fewer whole records is read next, so neither runs far ahead of the other.
 */
function zipByteStreams({ points, scalars }) {
  const sides = [
    { name: 'points', it: byteIterator(points, 'points'), bytes: 0, done: false },
    { name: 'scalars', it: byteIterator(scalars, 'scalars'), bytes: 0, done: false },
  ];
  let sizes = [1, 1]; // bytes per record, set by setSizes before the first read
  return {
    setSizes(pointSize, scalarSize) {
      sizes = [pointSize, scalarSize];
    },
    async next() {
      for (;;) {
        const open = sides.filter((s) => !s.done);
        if (open.length === 0) return { done: true };
        const side = open.length === 1 ? open[0] : sides[0].bytes / sizes[0] <= sides[1].bytes / sizes[1] ? sides[0] : sides[1];
        const { done, value } = await side.it.next();
        if (done) {
          side.done = true;
          continue;
        }
        if (!(value instanceof Uint8Array)) throw new TypeError(`source.${side.name} gave a chunk that is not a Uint8Array`);
        side.bytes += value.length;
        return { done: false, value: { [side.name]: value } };
      }
    },
    async return() {
      await Promise.all(sides.map((s) => s.it.return?.()));
      return { done: true };
    },
  };
}

/** The AbortError of a signal (its reason when that is one). */
export function abortError(signal) {
  const reason = signal.reason;
  if (reason?.name === 'AbortError') return reason;
  const e = new DOMException('the MSM was aborted', 'AbortError');
  if (reason !== undefined) Object.defineProperty(e, 'cause', { value: reason });
  return e;
}

/**
 * Read a source to its end into a PairBuffer, handing every batch of whole pairs to add(points, scalars, count,
 * first) (which may be async; points in their format, scalars native and checked). Stops with an AbortError
 * when `signal` aborts, even while the source waits; a source that throws rejects with its error. A chunk's bytes
 * are read (what waits for its other half, copied) before the next chunk is asked for, so a source may reuse its
 * buffer between chunks. Returns the number of pairs.
 */
export async function readStream(P, source, { signal, pointSize, scalarSize, scalarLayout, room = () => Infinity, batch = BATCH_PAIRS }, add) {
  const it = chunkIterator(source);
  it.setSizes?.(pointSize, scalarSize);
  const buffer = new PairBuffer(pointSize, scalarSize);
  let onAbort;
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    for (let index = 0; ; index++) {
      if (signal?.aborted) throw abortError(signal);
      const { done, value } = await Promise.race([it.next(), aborted]);
      if (done) break;
      // bytes themselves, or an object with neither key (a misspelt one), would add nothing: a sum of nothing, no error
      if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (value.points === undefined && value.scalars === undefined)) {
        throw new TypeError(`chunk ${index} of the source must be { points, scalars } (either may come in a later chunk), got ${describeChunk(value)}`);
      }
      buffer.push(value.points, value.scalars, `chunk ${index}`);
      while (buffer.pairs > 0) {
        if (signal?.aborted) throw abortError(signal);
        const count = Math.min(buffer.pairs, room(), batch);
        const first = buffer.taken;
        const [points, scalars] = buffer.take(count);
        await Promise.race([add(points, nativeScalars(P, scalarLayout, scalars, count, first), count, first), aborted]);
      }
      // a source may reuse its buffer once asked for the next chunk
      buffer.keep();
    }
    buffer.checkEnd();
    return buffer.taken;
  } catch (e) {
    // not awaited: a source stalled inside next() finishes return() only when next() does
    it.return?.()?.catch?.(() => {});
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** What a chunk that is not { points, scalars } is, for its error. */
function describeChunk(value) {
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `${value.constructor.name} of ${value.byteLength} bytes (a byte stream of points and one of scalars: pass { points, scalars } of two streams)`;
  return `an object with keys ${JSON.stringify(Object.keys(value))}`;
}

/** curve.msmStream: a MsmAccumulator fed from the source. */
export async function msmStreamOn(curve, source, options) {
  const P = curve.params;
  const checked = checkStreamOptions(P, options);
  const { signal, scalarFormat, ...rest } = checked.options;
  if (signal?.aborted) throw abortError(signal);
  // scalars reach the accumulator native (readStream converts them); points in their format
  const acc = new MsmAccumulator(curve, rest);
  try {
    await readStream(P, source, { ...checked, signal, scalarLayout: checked.formats?.scalar }, (points, scalars) => acc.add(points, scalars));
    return acc.result();
  } finally {
    acc.free();
  }
}
