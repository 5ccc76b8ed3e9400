// Bytes -> compiled module -> an instance over its own memory. Nothing here runs at import time.

const PAGE = 65536;

/** Decode base64 without Node built-ins (browsers have atob; Node 20 has it too). */
export function base64ToBytes(b64) {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Instantiate a compiled module over a fresh memory of at least minPages pages (the module's import
 * declares its own minimum; extra pages are grown on demand by the heap).
 */
export async function instantiate(module, { minPages = 1 } = {}) {
  const need = WebAssembly.Module.imports(module).find((i) => i.kind === 'memory');
  const memory = new WebAssembly.Memory({ initial: minPages, maximum: 65536 });
  const instance = await WebAssembly.instantiate(module, need ? { env: { memory } } : {});
  return { exports: instance.exports, memory };
}

export { PAGE };
