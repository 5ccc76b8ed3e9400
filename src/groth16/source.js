// Input of the Groth16 prover read as a sequence of bytes, and the container format snarkjs writes its files in.
//
// A source is one of: bytes (Uint8Array, any ArrayBuffer view, ArrayBuffer), a ReadableStream of byte chunks, an
// async (or sync) iterable of byte chunks, a Blob (its stream()), or in Node a file path. Paths are read through
// node:fs/promises imported on first use by a variable name, so no browser bundle resolves or loads it; a file is
// read a section at a time at its offset, never whole. Bytes and files are seekable; streams are read once, in order.
//
// The container ("binfile", @iden3/binfileutils): magic (4 ASCII bytes, "zkey" / "wtns"), version u32, nSections
// u32, then nSections times (id u32, size u64, size bytes), all little-endian. Bytes after the last declared
// section are ignored, as snarkjs ignores them. Sections need not be in id order: snarkjs's newZKey writes a
// Groth16 zkey as 1 2 4 3 9 8 5 6 7 10, and a PLONK zkey puts 1 and 2 last.

/** A malformed or truncated file, or one of the wrong kind: one per file, its message says what and where. */
export class FileFormatError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FileFormatError';
  }
}

const PATH_MODULE = 'node:fs/promises'; // a variable, so no bundler resolves it for the browser

/** Bytes of an ArrayBuffer, an ArrayBuffer view or a chunk of a stream, as a Uint8Array view (no copy). */
function asBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && x instanceof SharedArrayBuffer)) return new Uint8Array(x);
  return null;
}

/**
 * Opens `input` as a ByteSource. `label` names the input in errors ("zkey", "wtns").
 * @returns {Promise<ByteSource>}
 */
export async function openSource(input, label = 'input') {
  const bytes = asBytes(input);
  if (bytes) return new BytesSource(bytes);
  if (typeof input === 'string') return FileSource.open(input, label);
  if (input && typeof input.getReader === 'function') return new ChunkSource(readerChunks(input), label);
  if (input && typeof input[Symbol.asyncIterator] === 'function') return new ChunkSource(input[Symbol.asyncIterator](), label);
  if (input && typeof input[Symbol.iterator] === 'function') return new ChunkSource(input[Symbol.iterator](), label);
  if (input && typeof input.stream === 'function') return new ChunkSource(readerChunks(input.stream()), label);
  throw new TypeError(`${label}: expected bytes (Uint8Array / ArrayBuffer), a ReadableStream or an async iterable of Uint8Array chunks, a Blob, or a file path in Node`);
}

/**
 * Lets go of an input a call was given but failed before reading: a ReadableStream is cancelled, a Node stream
 * destroyed (its file closed), an async iterable's iterator returned, as the source of an input read in part is on its
 * errors. Bytes, paths and Blobs hold nothing.
 */
export function letGo(input) {
  try {
    if (input && typeof input.getReader === 'function') {
      if (!input.locked) input.cancel().catch(() => {});
    } else if (input && typeof input.destroy === 'function' && 'readable' in input) {
      input.destroy(); // a Node stream: an iterator not yet started would not close it
    } else if (input && typeof input[Symbol.asyncIterator] === 'function') {
      input[Symbol.asyncIterator]().return?.()?.catch?.(() => {});
    }
  } catch {
    // an input that cannot be let go is the caller's to close
  }
}

/** The buffer a byte stream's BYOB reader fills, again and again (it comes back from each read). */
const BYOB_BYTES = 1 << 18;

/**
 * A ReadableStream's chunks as an iterator whose return() cancels the stream (so an early error lets it go). A byte
 * stream (fetch()'s body, a Blob's) is read into one buffer of ours (a BYOB reader), not into a new array per chunk: a
 * zkey's 132 MiB streamed at 2^18 otherwise left as many MiB of chunks for the collector, up to 20 MiB more at the
 * proof's peak in Chromium. ChunkSource asks for the next chunk only once it has copied out the last.
 */
function readerChunks(stream) {
  let reader;
  let buffer = null;
  try {
    reader = stream.getReader({ mode: 'byob' });
    buffer = new ArrayBuffer(BYOB_BYTES);
  } catch {
    reader = stream.getReader(); // not a byte stream
  }
  return {
    next: async () => {
      if (buffer === null) return reader.read();
      const result = await reader.read(new Uint8Array(buffer));
      if (result.value) buffer = result.value.buffer; // the same memory, handed back
      return result;
    },
    return: async () => {
      await reader.cancel().catch(() => {});
      return { done: true };
    },
  };
}

/**
 * The reader interface all sources share. `position` counts the bytes consumed; `size` is the total where known
 * (bytes, files), else undefined. read(n, into) gives up to n bytes, fewer only at the end; a result is the caller's
 * to keep: a view of the caller's own bytes for a byte input (no copy), else a new array, or a view of `into` (a
 * Uint8Array of at least n bytes the caller reuses) where one is given.
 */
class ByteSource {
  position = 0;
  size = undefined;
  seekable = false;
  /** Whether what read() returns is a view of the caller's bytes (else arrays of the reader's own). */
  viewsInput = false;

  /** Exactly n bytes, or a FileFormatError from `describe(got)` (a message) when the input ends first. */
  async readExactly(n, describe = (got) => `needs ${n} bytes, got ${got}`, into) {
    const out = await this.read(n, into);
    if (out.length < n) throw new FileFormatError(describe(out.length));
    return out;
  }

  async close() {}
}

class BytesSource extends ByteSource {
  seekable = true;
  viewsInput = true;
  #bytes;

  constructor(bytes) {
    super();
    this.#bytes = bytes;
    this.size = bytes.length;
  }

  async read(n) {
    const out = this.#bytes.subarray(this.position, Math.min(this.size, this.position + n));
    this.position += out.length;
    return out;
  }

  async skip(n) {
    const k = Math.max(0, Math.min(n, this.size - this.position));
    this.position += k;
    return k;
  }

  async seek(pos) {
    this.position = pos;
  }
}

class FileSource extends ByteSource {
  seekable = true;
  #handle;

  static async open(path, label) {
    let fs;
    try {
      fs = await import(/* @vite-ignore */ PATH_MODULE);
    } catch {
      throw new TypeError(`${label}: a file path can be read in Node only; pass bytes or a stream`);
    }
    const handle = await fs.open(path, 'r');
    const source = new FileSource();
    source.#handle = handle;
    try {
      source.size = (await handle.stat()).size;
    } catch (e) {
      await handle.close().catch(() => {}); // no source comes back to close it
      throw e;
    }
    return source;
  }

  async read(n, into) {
    const want = Math.max(0, Math.min(n, this.size - this.position));
    const out = into ? into.subarray(0, want) : new Uint8Array(want);
    // the file is read into the caller's array directly; read() may return less than asked, so loop
    for (let at = 0; at < want; ) {
      const { bytesRead } = await this.#handle.read(out, at, Math.min(want - at, 1 << 30), this.position + at);
      if (bytesRead === 0) return out.subarray(0, at); // the file shrank under us: report what came
      at += bytesRead;
    }
    this.position += want;
    return out;
  }

  async skip(n) {
    const k = Math.max(0, Math.min(n, this.size - this.position));
    this.position += k;
    return k;
  }

  async seek(pos) {
    this.position = pos;
  }

  async close() {
    const h = this.#handle;
    this.#handle = null;
    await h?.close();
  }
}

/** Chunks from an iterator. What is left of the current chunk is kept for the next read (a view, never reused by us). */
class ChunkSource extends ByteSource {
  #it;
  #label;
  #chunk = new Uint8Array(0);
  #at = 0; // into #chunk
  #done = false;
  #index = 0; // chunks taken, for errors

  constructor(iterator, label) {
    super();
    this.#it = iterator;
    this.#label = label;
  }

  /** Makes the current chunk non-empty; false at the end of the stream. */
  async #fill() {
    while (this.#at === this.#chunk.length) {
      if (this.#done) return false;
      const { value, done } = await this.#it.next();
      if (done) {
        this.#done = true;
        return false;
      }
      const bytes = asBytes(value);
      if (!bytes) {
        await this.close();
        throw new TypeError(`${this.#label}: chunk ${this.#index} of the stream is not bytes (a Uint8Array or ArrayBuffer)`);
      }
      this.#index++;
      this.#chunk = bytes;
      this.#at = 0;
    }
    return true;
  }

  async read(n, into) {
    // copied into an array of our own: a producer may reuse its chunk buffers once it is asked for the next one
    let out = into ? into.subarray(0, n) : new Uint8Array(n);
    let filled = 0;
    while (filled < n && (await this.#fill())) {
      const part = Math.min(n - filled, this.#chunk.length - this.#at);
      out.set(this.#chunk.subarray(this.#at, this.#at + part), filled);
      this.#at += part;
      filled += part;
    }
    this.position += filled;
    return filled < n ? out.subarray(0, filled) : out;
  }

  async skip(n) {
    let skipped = 0;
    while (skipped < n && (await this.#fill())) {
      const part = Math.min(n - skipped, this.#chunk.length - this.#at);
      this.#at += part;
      skipped += part;
    }
    this.position += skipped;
    return skipped;
  }

  async close() {
    if (this.#done) return;
    this.#done = true;
    await this.#it.return?.();
  }
}

// ---- byte helpers -------------------------------------------------------------------------------------------

/** The unsigned little-endian integer in bytes[offset, offset + n) as a BigInt. */
export function bigIntLE(bytes, offset = 0, n = bytes.length - offset) {
  let v = 0n;
  for (let i = offset + n - 1; i >= offset; i--) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

/** v as n little-endian bytes (v < 2^(8n)). */
export function bigIntToLE(v, n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/**
 * A checker of "the n-byte little-endian value at bytes[offset] is < m", comparing u32 words from the top down
 * (it stops at the first word that differs: one or two compares for almost every value). n is a multiple of 4.
 */
export function lessThan(m, n) {
  const words = new Uint32Array(n / 4);
  for (let i = 0; i < words.length; i++) words[i] = Number((m >> BigInt(32 * i)) & 0xffffffffn);
  return (view, offset) => {
    for (let i = words.length - 1; i >= 0; i--) {
      const w = view.getUint32(offset + 4 * i, true);
      if (w !== words[i]) return w < words[i];
    }
    return false; // equal
  };
}

// ---- the binfile container ----------------------------------------------------------------------------------

/**
 * Opens a binfile of the given kind ("zkey", "wtns"): checks magic and version, and for a seekable source reads the
 * table of sections at once (headers only: the bodies are skipped by offset), so a section can be read in any order
 * and a truncated file fails before any work. A stream learns its sections as it reaches them.
 */
export async function openBinFile(input, kind, { maxVersion }) {
  const source = await openSource(input, kind);
  try {
    const head = await source.read(12);
    if (head.length === 0) throw new FileFormatError(`${kind}: the input is empty (0 bytes)`);
    const magic = String.fromCharCode(...head.subarray(0, 4));
    if (head.length >= 4 && magic !== kind) throw new FileFormatError(`not a ${kind} file: it starts with ${JSON.stringify(magic)}, not "${kind}"`);
    if (head.length < 12) throw new FileFormatError(`${kind} truncated: the file header needs 12 bytes, got ${head.length}`);
    const view = new DataView(head.buffer, head.byteOffset, 12);
    const version = view.getUint32(4, true);
    if (version < 1 || version > maxVersion) throw new FileFormatError(`${kind} version ${version} is not supported (1 to ${maxVersion})`);
    const file = new BinFile(source, kind, version, view.getUint32(8, true));
    if (source.seekable) await file.scan();
    return file;
  } catch (e) {
    await source.close();
    throw e;
  }
}

/**
 * A binfile being read. Its sections are { id, size (bytes of the body; Infinity past 2^53), declared (the u64 as
 * written), start (offset of the body in the file), index (in file order) }.
 */
class BinFile {
  #source;
  #next = 0; // index of the next section header to read (streams) or to hand out (seekable)
  #current = null; // the section handed out last
  table = null; // seekable sources: every section, in file order

  constructor(source, kind, version, nSections) {
    this.#source = source;
    this.kind = kind;
    this.version = version;
    this.nSections = nSections;
    this.seekable = source.seekable;
    this.viewsInput = source.viewsInput;
  }

  async #header(index) {
    const h = await this.#source.readExactly(12, (got) => `${this.kind} truncated: section header ${index + 1} of ${this.nSections} needs 12 bytes, got ${got}`);
    const view = new DataView(h.buffer, h.byteOffset, 12);
    const size = view.getBigUint64(4, true);
    const id = view.getUint32(0, true);
    // beyond 2^53 no file can hold it: Infinity, reported as the truncation it is (with the declared size)
    return { id, size: size > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(size), declared: size, start: this.#source.position, index };
  }

  #truncated(section, got) {
    return new FileFormatError(`${this.kind} truncated: section ${section.id} needs ${section.declared} bytes, got ${got}`);
  }

  async scan() {
    this.table = [];
    for (let i = 0; i < this.nSections; i++) {
      const s = await this.#header(i);
      const got = await this.#source.skip(s.size);
      if (got < s.size) throw this.#truncated(s, got);
      this.table.push(s);
    }
  }

  /** The next section in file order (what is left of the previous one skipped), or null after the last. */
  async next() {
    if (this.table) return (this.#current = this.#next < this.nSections ? this.table[this.#next++] : null);
    const c = this.#current;
    const left = c ? c.start + c.size - this.#source.position : 0;
    if (left > 0) {
      // skipped, what is left of it unread, to its end (the last one too: a stream truncated in it is an error like any other)
      const got = await this.#source.skip(left);
      if (got < left) throw this.#truncated(c, this.#source.position - c.start);
    }
    if (this.#next >= this.nSections) return (this.#current = null);
    return (this.#current = await this.#header(this.#next++));
  }

  /**
   * The whole body of a section as one Uint8Array: the current section of a stream (once), any section of a
   * seekable source. A byte input gives a view of the caller's bytes; other inputs a new array of the section's size.
   */
  async bytes(section) {
    if (!this.table) {
      if (section !== this.#current || section.read) throw new Error(`${this.kind}: a stream is read once, in order: section ${section.id} has gone by`);
      section.read = true;
    } else await this.#source.seek(section.start);
    let out;
    try {
      out = await this.#source.read(section.size);
    } catch (e) {
      if (e instanceof RangeError) throw new FileFormatError(`${this.kind}: section ${section.id} is ${section.size} bytes, too large to read into memory`);
      throw e;
    }
    if (out.length < section.size) throw this.#truncated(section, out.length);
    return out;
  }

  /**
   * n bytes of a section's body from `offset`: anywhere in any section of a seekable source; on a stream, the bytes
   * that come next in the current section (read a part at a time, in order). A byte input gives a view of the
   * caller's bytes, others a view of `into` (a Uint8Array of at least n bytes) or a new array.
   */
  async part(section, offset, n, into) {
    if (!this.table) {
      if (section !== this.#current || section.read || this.#source.position !== section.start + offset) {
        throw new Error(`${this.kind}: a stream is read once, in order: section ${section.id} at ${offset} has gone by`);
      }
    } else await this.#source.seek(section.start + offset);
    const want = Math.max(0, Math.min(n, section.size - offset));
    const out = await this.#source.read(want, into);
    if (out.length < want) throw this.#truncated(section, offset + out.length);
    return out;
  }

  /** The position in the file (streams: bytes consumed so far). */
  get position() {
    return this.#source.position;
  }

  async close() {
    await this.#source.close();
  }
}
