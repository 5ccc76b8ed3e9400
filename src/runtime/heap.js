// Memory for field elements and points: a bump allocator above the module's heapBase; mark() and release()
// free scratch space in one step. Layout of one field element: n little-endian u32 limbs, each
// holding w bits (the rest zero), elementBytes = 4n.

import { PAGE } from './loader.js';

export class Heap {
  constructor(memory, heapBase) {
    this.memory = memory;
    this.base = heapBase;
    this.top = heapBase;
  }
  /** Reserve `bytes` at an `align`-byte boundary (default 8), growing memory if needed; returns the address. */
  alloc(bytes, align = 8) {
    const at = Math.ceil(this.top / align) * align;
    const end = at + Math.ceil(bytes / 8) * 8;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE);
      try {
        this.memory.grow(pages);
      } catch (e) {
        throw new RangeError(`out of Wasm memory: need ${end} bytes (${e.message})`);
      }
    }
    this.top = end;
    return at;
  }
  mark() {
    return this.top;
  }
  release(mark) {
    this.top = mark;
  }
}
