// Build-time API (Node): generate WAT for any prime, and a BigInt-in/BigInt-out field for exploring one.

import { deriveFieldParams, describeFieldParams } from './params/field.js';
import { fieldModuleWat } from './modules/field-module.js';
import { compileWat } from './compile.js';
import { instantiate } from '../src/runtime/loader.js';
import { Heap } from '../src/runtime/heap.js';
import { Field } from '../src/field.js';

export { deriveFieldParams, describeFieldParams, compileWat };

/**
 * WAT text of the field module for ({ p, w }); options: mulShape 'auto' | 'pairs' | 'unrolled' | 'loop', reduction
 * 'montgomery' | 'crandall' (p = 2^k - c with small c; codegen/params/field.js).
 */
export function generateFieldWat({ p, w = 30, mulShape = 'auto', reduction = 'montgomery' } = {}) {
  return fieldModuleWat(deriveFieldParams({ p, w, reduction }), { mulShape }).wat;
}

/**
 * Compile and instantiate the field for ({ p, w }). Resolves to { params, field, mul, sqr, add, sub,
 * neg, inv, sqrt, ... } where the named methods take and return canonical BigInts mod p, and `field`
 * is the pointer-level Field for code that works in Wasm memory. With `chainKernels: true` it also has
 * `chains.mul(x, y, k)` and `chains.sqr(x, k)`: k dependent products inside Wasm, for benchmarks.
 */
export async function instantiateField({ p, w = 30, mulShape = 'auto', chainKernels = false, kernel = 'int', reduction = 'montgomery' } = {}) {
  const params = deriveFieldParams({ p, w, kernel, reduction });
  const { wat, layout } = fieldModuleWat(params, { mulShape, chainKernels });
  const bytes = await compileWat(wat, `field-${params.bits}-w${params.w}${kernel === 'fma' ? '-fma' : ''}.wat`, { relaxedSimd: kernel === 'fma' });
  const { exports, memory } = await instantiate(await WebAssembly.compile(bytes), { minPages: layout.minPages + 1 });
  const heap = new Heap(memory, exports.heapBase.value);
  const field = new Field(exports, params, heap);
  const [a, b, out] = [field.alloc(), field.alloc(), field.alloc()];
  const check = (x, name) => {
    if (typeof x !== 'bigint') throw new TypeError(`${name} must be a BigInt, got ${typeof x}`);
  };
  const unary = (kernel) => (x) => {
    check(x, 'x');
    field.write(a, ((x % params.p) + params.p) % params.p);
    kernel(out, a);
    return field.read(out);
  };
  const binary = (kernel) => (x, y) => {
    check(x, 'x');
    check(y, 'y');
    field.write(a, ((x % params.p) + params.p) % params.p);
    field.write(b, ((y % params.p) + params.p) % params.p);
    kernel(out, a, b);
    return field.read(out);
  };
  return {
    params,
    layout,
    wat,
    field,
    ...(chainKernels ? { chains: { mul: exports.mulChain, sqr: exports.sqrChain } } : {}),
    mul: binary(field.mul),
    add: binary(field.add),
    sub: binary(field.sub),
    sqr: unary(field.sqr),
    neg: unary(field.neg),
    inv: unary(field.inv),
    /** A square root of x, or null when x is not a square mod p. */
    sqrt(x) {
      check(x, 'x');
      field.write(a, ((x % params.p) + params.p) % params.p);
      return field.sqrt(out, a) ? field.read(out) : null;
    },
  };
}
