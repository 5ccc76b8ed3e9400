// Inputs that come in pieces, and errors, for the suites of readers and provers (groth16-formats, groth16-prove).

/**
 * A ReadableStream of `bytes` in chunks of `size` (fresh copies, as a network stream gives them), each made when
 * asked for (pull): Node's stream queue is slow with 10^5 chunks waiting in it.
 */
export const streamOf = (bytes, size = bytes.length) => {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, (at += size)));
    },
  });
};
/**
 * A byte stream (type 'bytes', as fetch()'s body and a Blob's stream are) of `bytes`, at most `size` bytes a pull:
 * written into the reader's own buffer where the reader gave one (a BYOB reader's controller.byobRequest), else
 * enqueued as a fresh copy. `seen` counts the pulls of each kind ({ byob, enqueued }).
 */
export const byteStreamOf = (bytes, size = bytes.length, seen = { byob: 0, enqueued: 0 }) => {
  let at = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(c) {
      const request = c.byobRequest;
      if (at >= bytes.length) {
        c.close();
        request?.respond(0); // a pending BYOB read ends with the stream
        return;
      }
      if (request) {
        const { buffer, byteOffset, byteLength } = request.view;
        const n = Math.min(size, byteLength, bytes.length - at);
        new Uint8Array(buffer, byteOffset, n).set(bytes.subarray(at, at + n));
        at += n;
        seen.byob++;
        request.respond(n);
      } else {
        seen.enqueued++;
        c.enqueue(bytes.slice(at, (at += size)));
      }
    },
  });
};
/** An async iterable of `bytes` in chunks of `size` (copies). */
export async function* iterableOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function errorOf(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}
