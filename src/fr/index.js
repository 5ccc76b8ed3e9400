// The scalar field r of a curve in Wasm (wasm/<curve>/<curve>.fr.wat): field kernels, the NTT and batch byte
// conversions, reached through `await curve.fr()`. Loaded only when asked for; one instance (and memory) per curve.
//
// Memory (the fr module's own WebAssembly.Memory, fr.memory; free space from fr.heap):
//   element: n little-endian u32 limbs of w bits, elementBytes = 4n bytes (36 for every shipped r: n = 9, w = 30),
//     in Montgomery form (x R mod r, R = 2^(n w)); the kernels take and give values in [0, 2r) (reduced on the way out)
//   an array of N elements: contiguous, element i at ptr + i elementBytes
//   bytes: canonical little-endian integers of n8 = fr.bytes = 8 ceil(bits / 64) bytes each (32 for every shipped r), as
//     snarkjs and ffjavascript write them
//   twiddle tables: N elements each, per log size and direction, cached on fr.heap (dropped when a release frees them)

import { instantiate, instantiateSync, base64ToBytes, sharedMemory, sharedMemoryModuleBytes } from '../runtime/loader.js';
import { Heap } from '../runtime/heap.js';
import { Field } from '../field.js';
import { ORDERS, runMulPowers, runTransform } from './ntt.js';

/** b^e mod m (BigInt). */
export const modPow = (b, e, m) => {
  let result = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) result = (result * b) % m;
  return result;
};

export class ScalarField {
  /** @param runtime params.js's `fr` (r, w, n, bits, bytes, elementBytes, minPages, s, rootOfUnity, cosetGenerator) */
  constructor(runtime, exports, memory, name = '', module = null, moduleBytes = null) {
    this.name = name;
    this.params = runtime;
    this.r = runtime.r;
    /** two-adicity: r - 1 = 2^s q, q odd; the largest NTT has 2^s elements */
    this.s = runtime.s;
    /** bytes per canonical element (n8) */
    this.bytes = runtime.bytes;
    /** bytes per element in Wasm memory */
    this.elementBytes = runtime.elementBytes;
    /** the coset generator `coset: true` uses: the least non-residue g with g^(2^s) != 1 */
    this.cosetGenerator = runtime.cosetGenerator;
    this.module = module;
    this.moduleBytes = moduleBytes;
    /** null, or for a twin over a shared memory (sharedTwin): { id, r, module, memory, syncWord } for the pool's threads */
    this.shared = null;
    this.#bind(exports, memory);
  }

  #twin = null; // Promise<ScalarField>: this field over a shared memory, made on the first sharedTwin()

  #turn = Promise.resolve(); // the last exclusive() call
  #waiting = 0; // exclusive() calls not yet settled (trim() refuses to move the heap under them)

  /**
   * run() once the asynchronous calls that took this field's heap before it are done: their arrays are a stack on the
   * heap (mark, then release), so fr.nttOn and groth16Prove's proofs take turns on it (a synchronous call such as
   * fr.ntt completes between their steps and leaves the heap as it found it).
   */
  exclusive(run) {
    this.#waiting++;
    const result = this.#turn.then(run).finally(() => this.#waiting--);
    this.#turn = result.catch(() => {});
    return result;
  }

  /**
   * This field over a shared WebAssembly.Memory (made once, kept until trim()): a pool with shared memory runs an NTT's
   * layers on its threads in place there, with no copies (src/fr/shared.js). The twin has its own heap and twiddle
   * tables; pointers of one are not the other's.
   */
  sharedTwin() {
    if (this.shared) return Promise.resolve(this);
    if (!this.#twin) {
      // a rejection, not a throw: callers fall back to the message path with .catch
      if (!this.moduleBytes) return Promise.reject(new Error(`${this.name} Fr: no module bytes to make a shared-memory instance from`));
      this.#twin = (async () => {
        const module = await WebAssembly.compile(sharedMemoryModuleBytes(this.moduleBytes));
        const { memory } = sharedMemory(this.params.minPages);
        const { exports } = await instantiate(module, { memory });
        const twin = new ScalarField(this.params, exports, memory, this.name);
        const syncWord = twin.heap.alloc(8, 8);
        // unique across copies of this library that may share a pool (a count alone is not)
        const id = `fr-${++sharedTwins}-${Math.random().toString(36).slice(2)}`;
        twin.shared = Object.freeze({ id, r: this.r, module, memory, syncWord });
        return twin;
      })();
      this.#twin.catch(() => (this.#twin = null));
    }
    return this.#twin;
  }

  /** Point this object at an instance: its exports, memory, a heap over it and a Field over its fr_ kernels. */
  #bind(exports, memory) {
    this.exports = exports;
    this.memory = memory;
    this.heap = Heap.ofModule(memory, exports.fr_heapBase.value);
    const release = this.heap.release.bind(this.heap);
    // a release that frees a cached twiddle table drops it from the cache
    this.heap.release = (mark) => {
      release(mark);
      for (const [key, t] of this.#tables) if (t + this.#tableBytes(key) > mark) this.#tables.delete(key);
    };
    /** a src/field.js Field over the fr_ kernels (mul, add, ..., write, read) on this memory */
    const r = this.params;
    this.field = new Field(exports, { p: r.r, w: r.w, n: r.n, bytes: r.bytes, elementBytes: r.elementBytes }, this.heap, 'fr');
  }

  /**
   * Give back the memory transforms grew: a fresh instance of the module at its base size (pointers, twiddle tables
   * and anything on fr.heap are gone; fr.memory, fr.heap, fr.exports and fr.field are the new ones).
   */
  trim() {
    if (!this.module) return; // a shared twin (no module of its own) is dropped by its field's trim() instead
    if (this.#waiting > 0) throw new Error(`${this.name} Fr: trim() while an fr.nttOn or a proof works on this field's heap (await it first)`);
    this.#twin = null;
    this.#tables.clear();
    const { exports, memory } = instantiateSync(this.module, { minPages: this.params.minPages });
    this.#bind(exports, memory);
  }

  #tables = new Map(); // `${logN}:${inverse}` -> pointer

  #tableBytes(key) {
    return 2 ** Number(key.split(':')[0]) * this.elementBytes;
  }

  /** A primitive 2^j-th root of unity (0 <= j <= s), as a BigInt: rootOfUnity^(2^(s - j)). */
  rootOfUnity(j) {
    if (!Number.isInteger(j) || j < 0 || j > this.s) throw new RangeError(`${this.name} Fr: no root of unity of order 2^${j}: j must be an integer in [0, s = ${this.s}]`);
    return modPow(this.params.rootOfUnity, 1n << BigInt(this.s - j), this.r);
  }

  /** Space for `count` elements on fr.heap (use fr.heap.mark() / release() to free scratch). */
  alloc(count = 1) {
    return this.field.alloc(count);
  }

  /**
   * The twiddle table of a transform of 2^logN elements (inverse: of w^-1), built on first use and cached: a pointer to
   * N elements, table[len + j] = w_(2len)^(+-j). Allocated at the heap's top: ask for it before a mark you will
   * release (a release below it drops it, and the next call builds it again).
   */
  twiddles(logN, inverse = false) {
    this.#checkLog(logN);
    const key = `${logN}:${inverse}`;
    let table = this.#tables.get(key);
    if (table === undefined) {
      table = this.alloc(2 ** logN);
      this.buildTwiddles(table, logN, inverse);
      this.#tables.set(key, table);
    }
    return table;
  }

  /** The twiddle table of twiddles(logN, inverse) built at `table` (2^logN elements the caller owns), not cached. */
  buildTwiddles(table, logN, inverse = false) {
    this.#checkLog(logN);
    const mark = this.heap.mark();
    try {
      const w = this.rootOfUnity(logN);
      const root = this.alloc();
      this.field.write(root, inverse ? modPow(w, this.r - 2n, this.r) : w);
      this.exports.fr_nttTwiddles(table, logN, root);
    } finally {
      this.heap.release(mark);
    }
  }

  #checkLog(logN) {
    if (!Number.isInteger(logN) || logN < 0) throw new RangeError(`${this.name} Fr: logN must be a non-negative integer, got ${logN}`);
    if (logN > this.s) throw new RangeError(`${this.name} Fr: an NTT of 2^${logN} elements needs a 2^${logN}-th root of unity, and r has two-adicity s = ${this.s} (at most 2^${this.s} elements)`);
  }

  #cosetOf(coset) {
    if (coset === false || coset === undefined || coset === null) return null;
    if (coset === true) return this.cosetGenerator;
    if (typeof coset !== 'bigint') throw new TypeError(`${this.name} Fr: coset must be a boolean or a BigInt generator, got ${typeof coset}`);
    if (coset <= 0n || coset >= this.r) throw new RangeError(`${this.name} Fr: coset generator must be in (0, r), got ${coset}`);
    return coset;
  }

  /**
   * The NTT of the N = 2^logN Montgomery-form elements at ptr, in place (values in [0, 2r) in and out).
   * forward: a[j] <- sum_i a[i] (g w^j)^i (g = 1 unless coset); inverse: a[i] <- (1/N) g^-i sum_j a[j] w^(-ij).
   * options: inverse (false), coset (false | true: fr.cosetGenerator | a BigInt g), input and output orders
   * ('natural' | 'bit-reversed'; natural-order input runs DIF, bit-reversed DIT, with no reordering pass when the
   * output is the other order). Twiddle tables are built (and cached) before any scratch is taken.
   */
  nttPointer(ptr, logN, options) {
    const { inverse = false, coset = false, input = 'natural', output = 'natural' } = this.#options(options, ['inverse', 'coset', 'input', 'output'], 'nttPointer');
    this.#checkLog(logN);
    for (const [k, v] of [['input', input], ['output', output]]) {
      if (!ORDERS.includes(v)) throw new RangeError(`${this.name} Fr: ${k} order must be 'natural' or 'bit-reversed', got ${JSON.stringify(v)}`);
    }
    const g = this.#cosetOf(coset);
    const table = this.twiddles(logN, inverse);
    const ex = this.exports;
    const mark = this.heap.mark();
    try {
      const [first, step] = [this.alloc(), this.alloc()];
      if (!inverse) {
        if (g !== null) {
          this.field.write(first, 1n);
          this.field.write(step, g);
          runMulPowers(ex, ptr, logN, input, first, step);
        }
        const order = runTransform(ex, ptr, logN, table, input);
        if (order !== output && logN > 0) ex.fr_bitReverse(ptr, logN);
      } else {
        const order = runTransform(ex, ptr, logN, table, input);
        if (order !== output && logN > 0) ex.fr_bitReverse(ptr, logN);
        // 1/N and, for a coset, g^-i in one pass
        this.field.write(first, modPow(BigInt(2 ** logN), this.r - 2n, this.r));
        if (g === null) ex.fr_scale(ptr, 2 ** logN, first);
        else {
          this.field.write(step, modPow(g, this.r - 2n, this.r));
          runMulPowers(ex, ptr, logN, output, first, step);
        }
      }
    } finally {
      this.heap.release(mark);
    }
  }

  /**
   * Groth16's step in place over the N = 2^logN elements at ptr: evaluations on H (natural order) -> evaluations on the
   * coset g H (natural order): inverse DIF (coefficients left bit-reversed), coefficient i times g^i / N in one pass,
   * forward DIT. No reordering pass. g: a BigInt (default fr.cosetGenerator; snarkjs's prover uses fr.rootOfUnity(logN + 1)).
   * table: a pointer to 2^logN elements of the caller's where the inverse, then the forward twiddles are built (one
   * table's memory, not the two cached ones; the same products as building both once); default: the cached tables.
   */
  evaluationsToCoset(ptr, logN, g = this.cosetGenerator, { table: scratch } = {}) {
    this.#checkLog(logN);
    const shift = this.#cosetOf(g);
    if (scratch !== undefined) this.buildTwiddles(scratch, logN, true);
    const inverseTable = scratch ?? this.twiddles(logN, true);
    const table = scratch ?? this.twiddles(logN, false);
    const ex = this.exports;
    const mark = this.heap.mark();
    try {
      const [first, step] = [this.alloc(), this.alloc()];
      this.field.write(first, modPow(BigInt(2 ** logN), this.r - 2n, this.r));
      this.field.write(step, shift);
      runTransform(ex, ptr, logN, inverseTable, 'natural');
      runMulPowers(ex, ptr, logN, 'bit-reversed', first, step);
      if (scratch !== undefined) this.buildTwiddles(scratch, logN, false);
      runTransform(ex, ptr, logN, table, 'bit-reversed');
    } finally {
      this.heap.release(mark);
    }
  }

  /**
   * count canonical n8-byte little-endian elements at bytesPtr -> elements at out (a RangeError names the first element
   * >= r). montgomery (default true): Montgomery form; false: plain limbs, which a linear map such as the NTT takes to
   * plain limbs (plain x is the Montgomery form of x / R), so a transform between fromBytesPointer(..., { montgomery:
   * false }) and toBytesPointer(..., { montgomery: false }) skips both conversion products.
   */
  fromBytesPointer(out, bytesPtr, count, { montgomery = true } = {}) {
    const ok = this.exports.fr_fromBytesBatch(out, bytesPtr, count, montgomery ? 1 : 0);
    if (ok !== count) throw new RangeError(`${this.name} Fr: element ${ok} is not in [0, r)`);
  }

  /** count elements at ptr (Montgomery form, or plain limbs with montgomery: false) -> canonical n8-byte little-endian at bytesPtr. */
  toBytesPointer(bytesPtr, ptr, count, { montgomery = true } = {}) {
    this.exports.fr_toBytesBatch(bytesPtr, ptr, count, montgomery ? 1 : 0);
  }

  /**
   * The NTT of `values` (an array of BigInt in [0, r), or a Uint8Array of canonical n8-byte little-endian elements), of
   * length N a power of two up to 2^s; returns the same kind. Natural order in and out. options as nttPointer's
   * inverse and coset.
   */
  ntt(values, options) {
    const { inverse = false, coset = false } = this.#options(options, ['inverse', 'coset'], 'ntt');
    const input = this.#valuesIn(values, inverse, coset);
    return this.#valuesOut(input, this.#withElements(input, (ptr) => this.nttPointer(ptr, input.logN, { inverse, coset })));
  }

  /**
   * fr.ntt on the threads of `pool` (a curve's pool, `curve.threads()`): the same values in and out. On a pool with
   * shared memory every layer runs on the threads, in place in this field's shared twin (src/fr/shared.js); otherwise
   * the layers that span the array run here and the 2^k blocks between them on the threads, each sent there and back
   * (src/fr/thread-ops.js). Calls made at once take turns on the field's heap (exclusive).
   */
  async nttOn(pool, values, options) {
    const { inverse = false, coset = false } = this.#options(options, ['inverse', 'coset'], 'nttOn');
    if (typeof pool?.runTasks !== 'function') throw new TypeError(`${this.name} Fr: nttOn takes a thread pool (curve.threads())`);
    const runTasks = (op, tasks) => pool.runTasks(op, tasks);
    const g = this.#cosetOf(coset);
    // a pool with shared memory, and a twin the engine grants (else the message path, which needs neither)
    const twin = pool.sharedMemory ? await this.sharedTwin().catch(() => null) : null;
    // the heap it uses (the twin's, or this field's with its twiddle tables) is its alone for the call
    return (twin ?? this).exclusive(async () => {
      const input = this.#valuesIn(values, inverse, coset, { tables: twin === null, twin });
      const k = blocksLogFor(pool.count, input.logN);
      if (twin) {
        const { sharedNttOn } = await import('./shared.js');
        return this.#valuesOut(input, await sharedNttOn(twin, runTasks, input.bytes, input.logN, { inverse, coset: g }, k));
      }
      const { nttOnThreads } = await import('./thread-ops.js');
      // the threads give the canonical bytes out (no conversion back here)
      const run = (ptr) => nttOnThreads(this, runTasks, ptr, input.logN, { inverse, coset: g }, k);
      return this.#valuesOut(input, await this.#withElements(input, run, { bytesOut: true }));
    });
  }

  /**
   * values checked: { bigints, bytes (canonical), N, logN }; the twiddle table built (below any mark) unless not `tables`.
   * Bytes that are a view of this field's memory (or of `twin`'s) are copied first: the call allocates there, which
   * may grow the memory (detaching the view) or write over them.
   */
  #valuesIn(values, inverse, coset, { tables = true, twin = null } = {}) {
    const bigints = Array.isArray(values);
    if (!bigints && !(values instanceof Uint8Array)) throw new TypeError(`${this.name} Fr: values must be an array of BigInt or a Uint8Array`);
    const B = this.bytes;
    if (!bigints && values.length % B !== 0) throw new RangeError(`${this.name} Fr: byte length ${values.length} is not a multiple of ${B} (bytes per element)`);
    const N = bigints ? values.length : values.length / B;
    const logN = Math.log2(N);
    if (!Number.isInteger(logN)) throw new RangeError(`${this.name} Fr: length ${N} is not a power of two`);
    this.#checkLog(logN);
    this.#cosetOf(coset);
    let bytes = values;
    if (!bigints && (values.buffer === this.memory.buffer || values.buffer === twin?.memory.buffer)) bytes = values.slice();
    if (bigints) {
      bytes = new Uint8Array(N * B);
      // by index, not forEach: a hole in the array is refused as undefined is, never read as zero
      for (let i = 0; i < N; i++) {
        let x = values[i];
        if (typeof x !== 'bigint') throw new TypeError(`${this.name} Fr: values[${i}] must be a BigInt, got ${typeof x}`);
        if (x < 0n || x >= this.r) throw new RangeError(`${this.name} Fr: values[${i}] is not in [0, r)`);
        for (let k = 0; k < B; k++, x >>= 8n) bytes[i * B + k] = Number(x & 0xffn);
      }
    }
    if (tables) this.twiddles(logN, inverse);
    return { bigints, bytes, N, logN };
  }

  /**
   * transform(ptr) (sync or async) over the elements as plain limbs (the NTT is linear: see fromBytesPointer, so no
   * Montgomery conversion is needed); returns the canonical bytes out, or with bytesOut what transform returned
   * (the canonical bytes it made).
   */
  #withElements({ bigints, bytes, N }, transform, { bytesOut = false } = {}) {
    const B = this.bytes;
    const mark = this.heap.mark();
    const ptr = this.alloc(N);
    const io = this.heap.alloc(N * B);
    const finish = (made) => {
      if (bytesOut) return made;
      this.exports.fr_toBytesBatch(io, ptr, N, 0);
      return new Uint8Array(this.memory.buffer, io, N * B).slice();
    };
    let result;
    try {
      new Uint8Array(this.memory.buffer, io, N * B).set(bytes);
      const ok = this.exports.fr_fromBytesBatch(ptr, io, N, 0);
      if (ok !== N) throw new RangeError(`${this.name} Fr: ${bigints ? `values[${ok}]` : `element ${ok}`} is not in [0, r)`);
      result = transform(ptr);
    } catch (e) {
      this.heap.release(mark);
      throw e;
    }
    if (!(result instanceof Promise)) {
      try {
        return finish(result);
      } finally {
        this.heap.release(mark);
      }
    }
    return result.then(finish).finally(() => this.heap.release(mark));
  }

  /** The output bytes as the input's kind. */
  #valuesOut({ bigints, N }, out) {
    if (!bigints) return out;
    const B = this.bytes;
    return Array.from({ length: N }, (_, i) => {
      let x = 0n;
      for (let k = B - 1; k >= 0; k--) x = (x << 8n) | BigInt(out[i * B + k]);
      return x;
    });
  }

  /** The inverse NTT (with the 1/N scaling): ntt(values, { inverse: true, coset }). */
  intt(values, options) {
    const { coset = false } = this.#options(options, ['coset'], 'intt');
    return this.ntt(values, { inverse: true, coset });
  }

  /** A transform's options: an object of `known` names only (a misspelt one is a TypeError, never ignored), inverse a boolean. */
  #options(options, known, what) {
    if (options === undefined) return {};
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${this.name} Fr: ${what} options must be an object`);
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) throw new TypeError(`${this.name} Fr: unknown option "${key}" in ${what} options (known: ${known.join(', ')})`);
    }
    if (options.inverse !== undefined && typeof options.inverse !== 'boolean') throw new TypeError(`${this.name} Fr: ${what} options.inverse must be a boolean`);
    return options;
  }
}

/** k for a transform of 2^logN split over `threads`: 2^k blocks, at least one per thread (0 for one thread). */
export function blocksLogFor(threads, logN) {
  let k = 0;
  while (2 ** k < threads && k < logN) k++;
  return k;
}

let sharedTwins = 0; // ids of shared twins: the threads keep an instance per id

const loaded = new WeakMap(); // params.js's fr object -> Promise<ScalarField>

/** The ScalarField of a curve: importFr() resolves to a module whose default export is the fr module's base64 bytes. */
export function loadScalarField(runtime, importFr, name = '') {
  if (!loaded.has(runtime)) {
    loaded.set(runtime, importFr()
      .then(async (wasmModule) => {
        const bytes = base64ToBytes(wasmModule.default);
        const module = await WebAssembly.compile(bytes);
        const { exports, memory } = await instantiate(module, { minPages: runtime.minPages });
        return new ScalarField(runtime, exports, memory, name, module, bytes);
      })
      .catch((e) => {
        loaded.delete(runtime);
        throw e;
      }));
  }
  return loaded.get(runtime);
}
