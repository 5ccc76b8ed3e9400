// Bytes -> compiled module -> an instance over its own memory. Nothing here runs at import time.

const PAGE = 65536;

/** Decode base64 without Node built-ins (browsers have atob; Node 20 has it too). */
export function base64ToBytes(b64) {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The imports of one of our modules: its memory, when it imports one. */
const importsFor = (module, memory) => (WebAssembly.Module.imports(module).some((i) => i.kind === 'memory') ? { env: { memory } } : {});
const freshMemory = (minPages) => new WebAssembly.Memory({ initial: minPages, maximum: 65536 });

/**
 * The exports as the MSM of one group sees them. The MSM calls the curve kernels by their G1 names (g_*);
 * for G2 those names are bound to the module's g2_* kernels (the same code generated over F_p2), so one MSM
 * serves both groups. fp_* stays the base field.
 */
export function groupExports(exports, group = 'G1') {
  if (group === 'G1') return exports;
  if (group !== 'G2') throw new RangeError(`unknown group '${group}'`);
  const view = { ...exports };
  for (const name of Object.keys(exports)) if (name.startsWith('g2_')) view[`g_${name.slice(3)}`] = exports[name];
  return Object.freeze(view);
}

/**
 * Instantiate a compiled module over `memory`, or a fresh memory of at least minPages pages (the module's
 * import declares its own minimum; extra pages are grown on demand by the heap). `group`: see groupExports.
 */
export async function instantiate(module, { minPages = 1, memory = freshMemory(minPages), group } = {}) {
  const instance = await WebAssembly.instantiate(module, importsFor(module, memory));
  return { exports: groupExports(instance.exports, group), memory };
}

/** instantiate, synchronously (a compiled module of ours: small enough for every engine's main thread). */
export function instantiateSync(module, { minPages = 1, memory = freshMemory(minPages), group } = {}) {
  const instance = new WebAssembly.Instance(module, importsFor(module, memory));
  return { exports: groupExports(instance.exports, group), memory };
}

export { PAGE };

/** Pages a shared memory may grow to (4 GiB). A shared memory must declare a maximum; imports accept any smaller one. */
export const SHARED_MAX_PAGES = 65536;

function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

function leb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return out;
}

/**
 * The same module with its memory import made shared (limits: min, max SHARED_MAX_PAGES, shared), so one
 * WebAssembly.Memory can serve instances on several threads. Our modules import exactly one memory and
 * are otherwise unchanged (text: `(import "env" "memory" (memory min max shared))`). Rewrites the import
 * section only; every other byte is copied.
 */
export function sharedMemoryModuleBytes(bytes) {
  const out = [...bytes.subarray(0, 8)];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = readLeb(bytes, at + 1);
    const end = body + size;
    if (id !== 2) {
      for (let i = at; i < end; i++) out.push(bytes[i]);
      at = end;
      continue;
    }
    const [count, first] = readLeb(bytes, body);
    const section = leb(count);
    let p = first;
    for (let i = 0; i < count; i++) {
      const start = p;
      for (let name = 0; name < 2; name++) {
        const [len, next] = readLeb(bytes, p);
        p = next + len;
      }
      const kind = bytes[p++];
      for (let j = start; j < p; j++) section.push(bytes[j]);
      if (kind === 2) {
        const flags = bytes[p++];
        if (flags & 2) throw new Error('the module already imports a shared memory');
        const [min, next] = readLeb(bytes, p);
        p = next;
        if (flags & 1) p = readLeb(bytes, p)[1];
        section.push(3, ...leb(min), ...leb(SHARED_MAX_PAGES));
        continue;
      }
      const entryStart = p;
      if (kind === 0) p = readLeb(bytes, p)[1]; // function: type index
      else if (kind === 3) p += 2; // global: value type, mutability
      else throw new Error(`import kind ${kind} is not supported here`);
      for (let j = entryStart; j < p; j++) section.push(bytes[j]);
    }
    if (p !== end) throw new Error('malformed import section');
    out.push(2, ...leb(section.length), ...section);
    at = end;
  }
  return Uint8Array.from(out);
}

/**
 * A shared memory of at least minPages pages: the largest maximum this engine grants, from 4 GiB down
 * (an engine may refuse to reserve 4 GiB up front, as a shared memory cannot move when it grows).
 * Returns { memory, maximumBytes }.
 */
export function sharedMemory(minPages) {
  let lastError;
  for (const maximum of [SHARED_MAX_PAGES, 32768, 16384]) {
    try {
      return { memory: new WebAssembly.Memory({ initial: minPages, maximum, shared: true }), maximumBytes: maximum * PAGE };
    } catch (e) {
      lastError = e;
    }
  }
  throw new RangeError(`cannot create a shared WebAssembly.Memory: ${lastError.message}`);
}
