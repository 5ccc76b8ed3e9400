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
