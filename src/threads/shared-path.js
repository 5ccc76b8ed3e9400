// The pool's shared-memory path: one shared WebAssembly.Memory, an instance of the curve's module on every
// thread and one on the pool's. The inputs are written once; per chunk the threads check and convert the points
// and compute the digits (prepare, 1/T of the points each), then each runs a share of the (window, pair) items
// with the same number of nonzero digits into buckets that outlive the chunks (src/msm/plan.js); after the last
// chunk each thread reduces its buckets and the pool adds the partial sums. Input in one chunk (most calls) has
// no buckets to carry: a thread that finishes its share takes the pieces of others that no thread has started
// (claimLane), so one slowed by other work on its core does not hold up the call.
// Prepared bases keep one table in the pool's memory, built and read by all threads.
// The memory never shrinks by itself: release() moves the pool to a new memory (the kept tables copied over)
// with new threads, so the old memory is freed with them.

import { instantiate, sharedMemory, sharedMemoryModuleBytes } from '../runtime/loader.js';
import { equalShares, planMsm, splitPieces, windowWithin } from '../msm/plan.js';
import { scalePieces, weightedCuts } from './split.js';
import { allocClaimLanes, allocInputs, allocWork, chunkIO, FIRST_CHUNK_POINTS, growInputs, lanePieces } from '../msm/layout.js';
import { combineWindows, lanePartials, phaseTimer, setInfinity } from '../msm/index.js';
import { convertPoints, copyBytes, neutralBytes, pointToBytes, scalarBitLength } from '../msm/bytes.js';
import { pointScaleBytes } from '../msm/chunked.js';
import { RESIDENT_BYTES, withHeap } from '../instance.js';
import { engineMemory } from '#threads-host';
import { defaultWorkingSet } from './working-set.js';
import { allocPreparedInputs, buildScratchBytes, checkTableFits, preparedDigitsZero, preparedShape, tableLayout } from '../msm/prepared.js';

/** Each thread's scratch stack in the shared memory (the module's own stack is 16 KiB). */
const STACK_BYTES = 1 << 16;

export class SharedPath {
  #curve;
  #workers = null;
  #shared = null; // { module, memory, instance, stacks, syncWord }
  #kept = []; // prepared bases' tables, [{ start, end, live }] in the order allocated
  #keptTop = 0; // the heap's top between calls (the end of the last live table)
  #maximumBytes = 0; // what the shared memory may grow to (the engine may grant less than 4 GiB)

  constructor(curve, count) {
    this.#curve = curve;
    this.count = count;
  }

  /** The shared memory and this thread's instance: stacks and the sync word below every call's mark. */
  async start() {
    const curve = this.#curve;
    const module = await WebAssembly.compile(sharedMemoryModuleBytes(curve.moduleBytes));
    const { memory, maximumBytes } = sharedMemory(curve.params.minPages);
    this.#maximumBytes = maximumBytes;
    const instance = withHeap(await instantiate(module, { memory, group: curve.params.group }), curve.params);
    const { heap } = instance;
    const stacks = Array.from({ length: this.count }, () => heap.alloc(STACK_BYTES, 16) + STACK_BYTES);
    const syncWord = heap.alloc(8);
    this.#keptTop = heap.mark();
    this.#shared = { module, memory, instance, stacks, syncWord };
  }

  /** The pool's threads (set once they exist). */
  attach(workers) {
    this.#workers = workers;
  }

  /** Thread t's init message: the shared module and memory, its stack, the sync word, and the module for work of its own. */
  initFor(t) {
    const { module, memory, stacks, syncWord } = this.#shared;
    return { type: 'init', module, params: this.#curve.params, memory, stackTop: stacks[t], syncWord, ownModule: this.#curve.module };
  }

  /** Where every call's allocations start (the end of the kept tables). */
  mark() {
    return this.#keptTop;
  }

  /** The pool is closed and no call's steps run: its memory and instance go (the threads are stopped). */
  drop() {
    this.#shared = null;
  }

  /** A call is over: its memory is free again (the tables it prepared stay). */
  endCall() {
    this.#shared.instance.heap.release(this.#keptTop);
  }

  /** The shared memory and the memories the threads decode points in (decodePoints: their own, outside any plan). */
  memoryBytes() {
    return this.budgetBytes() + this.#decodingBytes();
  }

  /** What a call's maxMemory bounds: the shared memory (none once dropped). */
  budgetBytes() {
    return this.#shared ? this.#shared.memory.buffer.byteLength : 0;
  }

  #decodingBytes() {
    return this.#workers ? this.#workers.memoryBytes() : 0;
  }

  /**
   * Bytes release() would give back: what the shared memory holds past the kept tables, and the threads' decoding
   * memories, less RESIDENT_BYTES unless `all`.
   */
  releasable({ all = false } = {}) {
    return this.budgetBytes() - Math.ceil(this.#keptTop / 65536) * 65536 + this.#decodingBytes() - (all ? 0 : RESIDENT_BYTES);
  }

  /**
   * Give back what the memory grew to beyond the kept tables: a new shared memory with the bytes below
   * the kept top copied (constants, stacks, tables keep their addresses), a new instance here and new threads
   * (stopped threads free the old memory and their decoding memories at once; this thread's copy goes at its next
   * collection).
   */
  async release() {
    const { module, memory: old, stacks, syncWord } = this.#shared;
    const P = this.#curve.params;
    const { memory, maximumBytes } = sharedMemory(Math.max(P.minPages, Math.ceil(this.#keptTop / 65536)));
    this.#maximumBytes = maximumBytes;
    new Uint8Array(memory.buffer).set(new Uint8Array(old.buffer, 0, this.#keptTop));
    const instance = withHeap(await instantiate(module, { memory, group: P.group }), P);
    instance.heap.top = this.#keptTop;
    this.#shared = { module, memory, instance, stacks, syncWord };
    await this.#workers.stop();
    await this.#workers.ready();
  }

  /** Order this thread's reads after the threads' writes, and its writes before theirs (Atomics on one word). */
  #acquire() {
    const { memory, syncWord } = this.#shared;
    Atomics.load(new Int32Array(memory.buffer, syncWord, 1), 0);
  }

  #publish() {
    const { memory, syncWord } = this.#shared;
    Atomics.add(new Int32Array(memory.buffer, syncWord, 1), 0, 1);
  }

  /**
   * Points in `format` to the native encoding, a slice per thread (each copied once and transferred); `first`: the
   * index of bytes' first point, for errors. check = false for the MSM's input, which its prepare checks on the curve
   * anyway: the threads only convert, and a malformed point has them decode again with the check, so the error names
   * the lowest bad point of any kind.
   */
  async decodePoints(bytes, format, n, timings, first = 0, check = true) {
    const phase = phaseTimer(timings);
    const T = Math.min(this.count, n);
    const size = format.size;
    const native = 2 * this.#curve.params.field.bytes;
    const ranges = equalShares(n, T);
    let slices;
    try {
      slices = await this.#workers.runAll(
        'decode',
        (t) => {
          if (t >= T) return null;
          const slice = copyBytes(bytes, ranges[t][0] * size, ranges[t][1] * size);
          return { args: { bytes: slice, format: format.name, check }, transfer: [slice.buffer] };
        },
        { offsetOf: (t) => first + (ranges[t]?.[0] ?? 0) },
      );
    } catch (e) {
      if (check || typeof e?.index !== 'number') throw e;
      return this.decodePoints(bytes, format, n, timings, first, true);
    }
    const out = new Uint8Array(n * native);
    for (let t = 0; t < T; t++) out.set(slices[t], ranges[t][0] * native);
    phase('decode');
    return out;
  }

  /**
   * An MSM over chunks added one after another (msmBytes adds its whole input; a stream adds what comes), in the
   * pool's memory. n: the points to come, or Infinity. options: { window, maxMemory, checkSubgroup, timings }.
   * pointFormat: the snarkjs layout (its points are converted by the threads as they check them), else native
   * points. scalarBits: the largest scalar's bit length when all are known (plan.js msmShape).
   */
  chunks(n, options, progress, pointFormat, scalarBits) {
    // a memory that cannot grow past maximumBytes: no plan may count on more; without maxMemory, the working set
    // grows with the threads within what the machine offers (working-set.js)
    const plan = planMsm(this.#curve.params, n, {
      window: options.window, maxMemory: options.maxMemory === undefined ? undefined : Math.min(options.maxMemory, this.#maximumBytes),
      workingSet: defaultWorkingSet(this.count, engineMemory(), this.#maximumBytes - this.#keptTop), base: this.#keptTop, threads: this.count, pool: true,
      checkSubgroup: !!options.checkSubgroup, scalarBits,
      reserve: pointFormat?.kind === 'snarkjs' ? pointScaleBytes(this.#curve.params) : 0, // SharedChunks' K
    });
    return new SharedChunks(this, plan, n, options, progress, pointFormat);
  }

  /** The MSM of native (or snarkjs, see chunks) inputs in the pool's memory, planned for the largest scalar's bits. */
  async msmBytes(pointBytes, scalarBytes, n, options, progress, pointFormat) {
    const P = this.#curve.params;
    const sink = this.chunks(n, options, progress, pointFormat, scalarBitLength(scalarBytes, P.scalarBytes, n));
    const PB = 2 * P.field.bytes;
    const S = P.scalarBytes;
    for (let first = 0; first < n; ) {
      const count = Math.min(sink.room, n - first);
      await sink.append(pointBytes.subarray(first * PB, (first + count) * PB), scalarBytes.subarray(first * S, (first + count) * S), count, first);
      first += count;
    }
    return sink.finish();
  }

  /** What SharedChunks needs of the path: memory, instance, threads and the sync word. */
  get internals() {
    return { shared: this.#shared, workers: this.#workers, acquire: () => this.#acquire(), publish: () => this.#publish() };
  }

  /**
   * Shared memory, after the digits: cut the items into equal shares of the nonzero digits (small or zero
   * scalars leave windows nearly empty), run a lane per thread, add the partial sums here. Returns the result's
   * encoding. (Prepared bases: their table is one chunk.)
   */
  async #lanes(io, shape, segments, progress, prepareShare, phase, timed) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const ctx = { ex: instance.exports, memory, params: P };
    const claim = allocClaimLanes(heap, P, shape, splitPieces(shape, T, weightedCuts(shape, T, segments)));
    phase('allocate');
    const total = shape.K * shape.m || 1;
    const laneDone = new Array(T).fill(0);
    await this.runClaimLanes(io, claim, !!timed, (t, items) => {
      laneDone[t] = items;
      progress(prepareShare + ((1 - prepareShare) * laneDone.reduce((a, b) => a + b, 0)) / total);
    });
    phase('lanes');
    const partials = claim.lanes.flatMap((lane) => (lane ? lanePartials(P, lane) : []));
    const out = pointToBytes(instance, combineWindows(ctx, heap, io, partials));
    phase('combine');
    return out;
  }

  /**
   * Lanes of allocClaimLanes on the threads, over one chunk: each claims its pieces, then those no thread has
   * started, until none is left (with `carry`, adding to the buckets' sums of earlier chunks), then with `reduce`
   * reduces what it claimed; afterwards each lane lists the pieces it claimed (lanePartials, or the 'reduce'
   * operation, reads them). `queue`: the chunk's pieces (default the claim's). onItems(t, items): the items
   * thread t has added so far.
   */
  async runClaimLanes(io, claim, timed, onItems, { queue = claim.queue, carry = false, reduce = true } = {}) {
    const { ranges, counters, lanes } = claim;
    const total = queue.reduce((sum, piece) => sum + piece.count, 0);
    new Int32Array(this.#shared.memory.buffer, counters, lanes.length).fill(0);
    this.#publish();
    const claimed = await this.#workers.runAll('lane', (t) => lanes[t] && { args: { io, lane: lanes[t], claim: { queue, ranges, counters, t, carry, reduce }, timed } }, {
      onProgress: (t, fraction) => onItems(t, fraction * total),
    });
    this.#acquire();
    claimed.forEach((c, t) => lanes[t] && Object.assign(lanes[t], { pieces: c.pieces, slots: c.slots }));
  }

  /** Prepared bases: the table above every earlier one, the threads building a share of the bases each. */
  async keepBases(state, pointBytes) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const layout = tableLayout(P, state.N, state.precompute);
    const ranges = equalShares(state.N, T);
    // the largest share (equalShares gives the first threads the smaller ones): each thread's scratch holds its batch
    const scratchBytes = buildScratchBytes(P, layout, Math.max(...ranges.map(([first, last]) => last - first)));
    // before any point is decoded: the N native points are staged above the table
    checkTableFits(layout, heap.mark() + state.N * 2 * P.field.bytes + T * scratchBytes, P);
    const native = state.formats?.point ? await this.decodePoints(pointBytes, state.formats.point, state.N) : pointBytes;
    const start = heap.mark();
    const table = heap.alloc(Math.max(1, layout.bytes), 64);
    const end = heap.mark();
    const staging = heap.alloc(native.length);
    const scratch = ranges.map(() => heap.alloc(scratchBytes, 64));
    new Uint8Array(memory.buffer, staging, native.length).set(native);
    this.#publish();
    const PB = 2 * P.field.bytes;
    await this.#workers.runAll('buildTable', (t) => {
      const [first, last] = ranges[t];
      if (last === first) return null;
      return { args: { layout, table, staging: staging + first * PB, first, count: last - first, checkSubgroup: state.checkSubgroup, scratch: scratch[t] } };
    });
    this.#acquire();
    state.layout = layout;
    state.shared = { table, region: { start, end, live: true } };
    this.#kept.push(state.shared.region);
    this.#keptTop = end;
  }

  /** Prepared bases: the threads split the scalars for the digits, then the table's items by nonzero digits. */
  async preparedMsm(state, scalarBytes, k, options, progress) {
    const { instance, memory } = this.#shared;
    const { heap, params: P } = instance;
    const T = this.count;
    const { layout } = state;
    const { table } = state.shared;
    const phase = phaseTimer(options.timings);
    const shape = preparedShape(P, layout, k, options.window);
    const scalars = heap.alloc(scalarBytes.length + 8);
    const io = allocPreparedInputs(heap, P, shape, { table, scalars });
    new Uint8Array(memory.buffer, scalars, scalarBytes.length).set(scalarBytes);
    const ctx = { ex: instance.exports, memory, params: P };
    setInfinity(memory, P, io.infinity);
    preparedDigitsZero(ctx, io);
    this.#publish();
    phase('allocate');
    const ranges = equalShares(k, T);
    const segments = await this.#workers.runAll('preparedDigits', (t) => {
      const [first, last] = ranges[t];
      return last === first ? null : { args: { io, layout, first, count: last - first } };
    });
    this.#acquire();
    phase('digits');
    const prepareShare = 0.05;
    progress(prepareShare);
    const out = await this.#lanes(io, shape, segments.flatMap((s) => s ?? []), progress, prepareShare, phase, !!options.timings);
    if (options.timings) Object.assign(options.timings, { window: shape.c, windows: shape.K, flat: shape.flat, threads: T });
    return out;
  }

  /** Free a table: its memory is reused once the tables made after it are freed too. */
  freeBases(state) {
    state.shared.region.live = false;
    while (this.#kept.length && !this.#kept.at(-1).live) this.#keptTop = this.#kept.pop().start;
    this.#shared.instance.heap.release(this.#keptTop);
  }
}

/**
 * One MSM in the pool's shared memory over points added a chunk at a time (the shared path's ChunkedMsm, see
 * src/msm/chunked.js): the input area of one chunk, then from the first full chunk the digits and the claim
 * lanes (allocClaimLanes): the pieces cut from the first chunk's digits, at the same places in every chunk, each
 * piece's buckets carrying its sums across chunks whichever thread claims it. The last chunk's lanes reduce
 * what they claimed; finish() combines here.
 */
class SharedChunks {
  #path;
  #plan;
  #n;
  #options;
  #progress;
  #phase;
  #inputs;
  #work = null;
  #claim = null; // allocClaimLanes' { queue, ranges, counters, lanes }, the queue cut for a chunk of #claimPairs
  #claimPairs = 0;
  #filled = 0;
  #done = 0;
  #chunkFirst = 0; // index in the whole input of the chunk's first point
  #reduced = false;
  #scale = 0; // address of g_fromScaledBytes' K for snarkjs points, 0 for native

  constructor(path, plan, n, options, progress, pointFormat) {
    this.#path = path;
    this.#plan = plan;
    this.#n = n;
    this.#options = options;
    this.#progress = progress;
    this.#phase = phaseTimer(options.timings);
    const { shared } = path.internals;
    if (pointFormat?.kind === 'snarkjs') {
      // snarkjs' Montgomery form to this build's in the product the check makes anyway (formats.js: scale)
      const { fp } = shared.instance;
      this.#scale = fp.alloc();
      fp.writeLimbs(this.#scale, pointFormat.scale);
    }
    // a known length fills whole chunks; a stream's first chunk grows with what comes (growInputs)
    const C = Number.isFinite(n) ? plan.chunkPoints : Math.min(plan.chunkPoints, FIRST_CHUNK_POINTS);
    this.#inputs = allocInputs(shared.instance.heap, shared.instance.params, C, this.#inputOptions(C));
  }

  /** The threads convert the points of the whole chunk from its staged bytes: staging for all of them. */
  #inputOptions = (capacity) => ({ stagingPoints: capacity, subgroupScratch: this.#options.checkSubgroup ? this.#path.count : 0 });

  get room() {
    return this.#plan.chunkPoints - this.#filled;
  }

  /** Take count <= room native points (converted and checked by the threads) and checked native scalars. */
  async append(pointBytes, scalarBytes, count, first) {
    const { shared } = this.#path.internals;
    const P = shared.instance.params;
    const PB = 2 * P.field.bytes;
    const S = P.scalarBytes;
    const { memory } = shared;
    this.#inputs = growInputs(shared.instance.heap, memory, P, this.#inputs, this.#filled + count, this.#plan.chunkPoints, this.#filled, this.#inputOptions, this.#filled * PB);
    new Uint8Array(memory.buffer, this.#inputs.staging + this.#filled * PB, count * PB).set(pointBytes.subarray(0, count * PB));
    new Uint8Array(memory.buffer, this.#inputs.scalars + this.#filled * S, count * S).set(scalarBytes.subarray(0, count * S));
    if (this.#filled === 0) this.#chunkFirst = first;
    this.#filled += count;
    // a full chunk is summed now unless it is the last (finish sums it and reduces in the same round)
    if (this.#filled === this.#plan.chunkPoints && this.#done + this.#filled < this.#n) await this.#sumChunk(false);
  }

  /** The claim lanes, their pieces cut from the first chunk's digits (the first is full, or the only one). */
  #allocClaim(io, segments) {
    const { shared } = this.#path.internals;
    const { heap, params: P } = shared.instance;
    const T = this.#path.count;
    const shape = io.shape;
    let split = splitPieces(shape, T, weightedCuts(shape, T, segments));
    // the plan counted at most ceil(K / T) + 1 pieces a thread: an equal split of the items keeps to that
    if (T > 1 && split.some((pieces) => pieces.length > lanePieces(shape.K, T))) split = splitPieces(shape, T);
    this.#claim = allocClaimLanes(heap, P, shape, split, { maxPairs: shape.m });
    this.#claimPairs = shape.m;
  }

  async #sumChunk(last) {
    const count = this.#filled;
    if (count === 0) return;
    const { shared, workers, acquire, publish } = this.#path.internals;
    const { instance, memory } = shared;
    const P = instance.params;
    const T = this.#path.count;
    const phase = this.#phase;
    if (!this.#work) {
      // a stream that ends inside its first chunk: the window for what came
      const only = last && !Number.isFinite(this.#n);
      const shape = only ? windowWithin(P, count, this.#plan) : this.#plan.shape;
      this.#work = allocWork(instance.heap, P, shape, only ? count : this.#plan.chunkPoints);
      setInfinity(memory, P, this.#work.infinity);
    }
    const io = chunkIO(P, this.#inputs, this.#work, count);
    publish();
    phase('allocate');
    // prepare: points [first, first + count) of the chunk per thread; with checkSubgroup it is most of the work
    const before = this.#done / (Number.isFinite(this.#n) ? this.#n : Infinity);
    const share = Number.isFinite(this.#n) ? count / this.#n : 0;
    const prepareShare = this.#options.checkSubgroup ? 0.8 : 0.1;
    const ranges = equalShares(count, T);
    const { checkSubgroup = false } = this.#options;
    // with timings the threads time their own steps too (timings.perThread[t].steps: convert, sort, gather, ...)
    const timed = !!this.#options.timings;
    const segments = await workers.runAll(
      'prepare',
      (t) => {
        const [first, end] = ranges[t];
        if (end === first) return null;
        return { args: { io, staging: this.#inputs.staging, scale: this.#scale, first, count: end - first, checkSubgroup, jac: this.#inputs.subgroup[t], timed } };
      },
      { offsetOf: () => this.#chunkFirst },
    );
    acquire();
    phase('prepare');
    this.#progress(before + share * prepareShare);
    if (!this.#claim) this.#allocClaim(io, segments.flatMap((s) => s ?? []));
    // a later chunk (the last may be smaller) takes the same pieces, scaled to its pairs
    const { queue } = this.#claim;
    const chunkQueue = io.shape.m === this.#claimPairs ? queue : scalePieces([queue], this.#claimPairs, io.shape.m)[0];
    const laneDone = new Array(T).fill(0);
    const totalItems = io.shape.K * io.shape.m || 1;
    const onItems = (t, items) => {
      laneDone[t] = items;
      this.#progress(before + share * (prepareShare + ((1 - prepareShare) * laneDone.reduce((a, b) => a + b, 0)) / totalItems));
    };
    await this.#path.runClaimLanes(io, this.#claim, timed, onItems, { queue: chunkQueue, carry: this.#done > 0, reduce: last });
    phase(last ? 'lanes' : 'accumulate');
    this.#done += count;
    this.#filled = 0;
    this.#reduced = last;
  }

  /**
   * The error of the first bad point among those of the chunk being filled (the threads check a chunk's points when
   * it is summed), or null: a stream that fails for a later reason names it first, as the curve's stream does (it
   * checks points as they come).
   */
  pendingPointError() {
    if (this.#filled === 0) return null;
    const { shared } = this.#path.internals;
    const { instance, memory } = shared;
    try {
      convertPoints({ ex: instance.exports, memory, params: instance.params }, this.#inputs.points, this.#inputs.staging, this.#filled, this.#chunkFirst, this.#scale);
      return null;
    } catch (e) {
      return e;
    }
  }

  /** Sum the last chunk, reduce each lane on its thread, add the partial sums here: the result's encoding. */
  async finish() {
    await this.#sumChunk(true);
    const { shared, workers, acquire, publish } = this.#path.internals;
    const { instance, memory } = shared;
    const P = instance.params;
    if (!this.#claim) return neutralBytes(P);
    const { lanes } = this.#claim;
    if (!this.#reduced) {
      // a stream whose last chunk came full: each thread reduces the pieces it claimed in it
      publish();
      await workers.runAll('reduce', (t) => lanes[t] && { args: { io: { shape: this.#work.shape, infinity: this.#work.infinity }, lane: lanes[t], timed: !!this.#options.timings } });
      acquire();
    }
    const io = { shape: this.#work.shape, infinity: this.#work.infinity };
    const ctx = { ex: instance.exports, memory, params: P };
    const partials = lanes.flatMap((lane) => (lane ? lanePartials(P, lane) : []));
    const out = pointToBytes(instance, combineWindows(ctx, instance.heap, io, partials));
    this.#phase('combine');
    const { timings } = this.#options;
    if (timings) {
      Object.assign(timings, {
        window: io.shape.c, windows: io.shape.K, bits: io.shape.bits, threads: this.#path.count, chunks: Math.ceil(this.#done / this.#plan.chunkPoints), chunkPoints: this.#plan.chunkPoints,
      });
    }
    return out;
  }
}
