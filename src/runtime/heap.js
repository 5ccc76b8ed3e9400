// Memory for field elements and points: a bump allocator above the module's heapBase; mark() and release()
// free scratch space in one step. Layout of one field element: n little-endian u32 limbs, each
// holding w bits (the rest zero), elementBytes = 4n.

import { PAGE } from './loader.js';

/** Wasm memory32 ends at 4 GiB. */
export const MEMORY_LIMIT = 2 ** 32;

/**
 * Tests only: bytes every heap of a module leaves unused at its start (globalThis.__wasmsmTestHeapOffset, a multiple
 * of 64 set in each thread by test/fixtures/heap-offset.js), so a test runs every call at addresses past 2^31 (up to 4 GiB) without
 * gigabytes of input. A global, not the environment: reading that asks Deno for a permission.
 */
const testHeapOffset = () => globalThis.__wasmsmTestHeapOffset ?? 0;

/** Memory could not grow (the engine refused, or past 4 GiB): `outOfMemory` lets a caller retry with less. */
export class WasmMemoryError extends RangeError {
  constructor(message) {
    super(message);
    this.outOfMemory = true;
  }
}

export class Heap {
  /** memory: the WebAssembly.Memory to allocate in, or null for a heap that only counts (Heap.sizer). */
  constructor(memory, heapBase) {
    this.memory = memory;
    this.base = heapBase;
    this.top = heapBase;
  }

  /**
   * A heap over no memory: the same alloc sequence on it gives the bytes that sequence takes (top - base),
   * which is how a plan knows what an MSM will allocate without writing the sizes twice.
   */
  static sizer(base = 0) {
    return new Heap(null, base);
  }

  /** Reserve `bytes` at an `align`-byte boundary (default 8), growing memory if needed; returns the address. */
  alloc(bytes, align = 8) {
    // a negative or NaN size would move the top down over live data
    if (!(bytes >= 0)) throw new RangeError(`Heap.alloc: bytes must be a non-negative number, got ${bytes}`);
    const at = Math.ceil(this.top / align) * align;
    const end = at + Math.ceil(bytes / 8) * 8;
    if (this.memory) {
      const have = this.memory.buffer.byteLength;
      if (end > MEMORY_LIMIT) throw new WasmMemoryError(`out of Wasm memory: need ${end} bytes, past the 4 GiB a Wasm memory addresses`);
      if (end > have) {
        try {
          this.memory.grow(Math.ceil((end - have) / PAGE));
        } catch (e) {
          throw new WasmMemoryError(`out of Wasm memory: need ${end} bytes (${e.message})`);
        }
      }
    }
    this.top = end;
    return at;
  }

  /**
   * The heap of an instantiated module: free memory from its heapBase on (past the test offset, if any); heapBase is
   * the module's exported global (fp_heapBase for a curve's module, fr_heapBase for a scalar field's).
   */
  static ofModule(memory, heapBase) {
    return new Heap(memory, heapBase + testHeapOffset());
  }

  mark() {
    return this.top;
  }

  release(mark) {
    this.top = mark;
  }
}
