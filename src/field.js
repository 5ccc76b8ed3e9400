// A prime field in Wasm memory: pointer-level access to the kernels plus BigInt conversion at the edges.
// Hot paths pass pointers from one kernel to the next and never read limbs in JS.

/**
 * @param {object} exports the field module's exports (mul, add, ...; prefixed names are mapped by `prefix`)
 * @param {object} shape plain data: { p, w, n, bytes, elementBytes }
 * @param {import('./runtime/heap.js').Heap} heap
 */
export class Field {
  constructor(exports, shape, heap, prefix = '') {
    const f = (name) => exports[prefix ? `${prefix}_${name}` : name];
    this.p = shape.p;
    this.w = shape.w;
    this.n = shape.n;
    this.bytes = shape.bytes;
    this.elementBytes = shape.elementBytes;
    this.heap = heap;
    this.memory = heap.memory;
    this.mask = (1n << BigInt(shape.w)) - 1n;
    for (const name of [
      'mul', 'sqr', 'add', 'addNoReduce', 'sub', 'subNoReduce', 'neg', 'reduce', 'isZero', 'eq', 'copy', 'setZero', 'setOne',
      'toMontgomery', 'fromMontgomery', 'fromBytes', 'toBytes', 'inv', 'batchInverse', 'pow', 'sqrt', 'mulUnrolled', 'mulLoop', 'mul2', 'mul4',
    ]) {
      if (f(name)) this[name] = f(name);
    }
  }

  /** Space for `count` contiguous elements. */
  alloc(count = 1) {
    return this.heap.alloc(count * this.elementBytes);
  }

  /** Write x in [0, p) at ptr in Montgomery form. */
  write(ptr, x) {
    if (typeof x !== 'bigint') throw new TypeError(`field element must be a BigInt, got ${typeof x}`);
    if (x < 0n || x >= this.p) throw new RangeError(`field element out of range [0, p): ${x}`);
    this.writeLimbs(ptr, x);
    this.toMontgomery(ptr, ptr);
  }

  /** Write x (any value below R) as raw limbs, no Montgomery conversion. */
  writeLimbs(ptr, x) {
    const w = BigInt(this.w);
    if (this.#wide) {
      const words = new BigUint64Array(this.memory.buffer, ptr, this.n);
      for (let j = 0; j < this.n; j++, x >>= w) words[j] = x & this.mask;
      return;
    }
    const words = new Uint32Array(this.memory.buffer, ptr, this.n);
    for (let j = 0; j < this.n; j++, x >>= w) words[j] = Number(x & this.mask);
  }

  /** Raw limbs at ptr as an integer (no conversion). */
  readLimbs(ptr) {
    const words = this.#wide ? new BigUint64Array(this.memory.buffer, ptr, this.n) : new Uint32Array(this.memory.buffer, ptr, this.n);
    let x = 0n;
    const w = BigInt(this.w);
    for (let j = this.n - 1; j >= 0; j--) x = (x << w) | BigInt(words[j]);
    return x;
  }

  /** Limbs in u64 words (the FMA kernels' layout) rather than u32 words. */
  get #wide() {
    return this.elementBytes === 8 * this.n;
  }

  /** The canonical value of the Montgomery-form element at ptr. */
  read(ptr) {
    const mark = this.heap.mark();
    try {
      const t = this.alloc();
      this.fromMontgomery(t, ptr);
      return this.readLimbs(t);
    } finally {
      this.heap.release(mark);
    }
  }
}
