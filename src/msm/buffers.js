// Large ArrayBuffers given back at once (letGoOf) or kept for the next array of their size (FreeBuffers), where V8
// would free them only at a collection: the pool's message path (its slices), its threads (what a message brought)
// and groth16Prove's arrays. Apart from bytes.js so that a curve's page loads it with the pool, not before.

/**
 * Give back now the bytes of arrays no one will read again: ArrayBuffer.prototype.transfer(0) detaches a buffer and
 * frees its bytes (ES2024: Chromium, Firefox, Safari 18, Node 22+, Deno, Bun), where the collector may not run before
 * the next large array is made (a pool thread's slices of one MSM before the next's came: Groth16 at 2^18 on the message
 * path in Node 24, 25 MiB of the peak; Chromium's renderer keeps freed bytes resident for its next arrays). Without it
 * (Node 20), or for a shared buffer, they wait for the collector. Each argument: an ArrayBuffer or a view of one.
 */
export function letGoOf(...arrays) {
  for (const a of arrays) {
    const buffer = a instanceof ArrayBuffer ? a : a?.buffer;
    if (typeof buffer?.transfer === 'function' && !buffer.detached) buffer.transfer(0);
  }
}

/**
 * ArrayBuffers no one reads or writes any more, handed to the next array that needs as many bytes: a large array
 * made anew is freed only at a collection (or stays resident in Chromium's renderer for later arrays), so each new
 * one adds to a peak. At most `limit` are kept.
 */
export class FreeBuffers {
  #free = [];
  #limit;

  constructor(limit = Infinity) {
    this.#limit = limit;
  }

  /**
   * A Uint8Array of `bytes` over the smallest free buffer that holds them in at most twice as many, or else over a new
   * one, the free buffers given back first: each is too small for it or would hold it with more than as many
   * again to spare (a large array kept for small ones is the waste this avoids).
   */
  take(bytes) {
    let best = -1;
    this.#free.forEach((b, i) => {
      if (b.byteLength >= bytes && b.byteLength <= 2 * bytes && (best < 0 || b.byteLength < this.#free[best].byteLength)) best = i;
    });
    if (best >= 0) return new Uint8Array(this.#free.splice(best, 1)[0], 0, bytes);
    this.clear();
    return new Uint8Array(bytes);
  }

  /** `buffer` is free (a detached or shared one is left alone); past the limit, the one put first goes. */
  put(buffer) {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0 || this.#free.includes(buffer)) return;
    if (this.#free.push(buffer) > this.#limit) letGoOf(this.#free.shift());
  }

  /** Bytes the free buffers hold. */
  get bytes() {
    return this.#free.reduce((sum, b) => sum + b.byteLength, 0);
  }

  /** Give every free buffer back now. */
  clear() {
    letGoOf(...this.#free);
    this.#free = [];
  }
}
