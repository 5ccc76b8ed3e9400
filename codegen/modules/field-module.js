// One prime field as a Wasm module: constants in a data segment, a small scratch stack, and every field
// kernel. Memory is imported (env.memory) so the JS runtime owns it; `heapBase` says where free memory starts.

import { Module, Func, call, i32, local, loop, br_if } from '../wat/index.js';
import { describeFieldParams, toLimbs } from '../params/field.js';
import { modInverse, modPow } from '../params/number-theory.js';
import { montgomeryMul, montgomerySqr, resolveMulShape, limbProductsPerMul } from '../kernels/field-mul.js';
import { fmaMontgomeryMul } from '../kernels/field-mul-fma.js';
import { wideMontgomeryMul } from '../kernels/field-mul-wide.js';
import { crandallMul } from '../kernels/field-mul-crandall.js';
import {
  fieldAdd, fieldAddNoReduce, fieldSub, fieldSubNoReduce, fieldNeg, fieldReduce, fieldIsZero, fieldEq, fieldCopy, fieldSetConst,
} from '../kernels/field-add.js';
import { fieldInv, fieldBatchInverse } from '../kernels/field-inv.js';
import { fieldToMontgomery, fieldFromMontgomery, fieldFromBytes, fieldToBytes } from '../kernels/field-convert.js';
import { fieldPow, fieldSqrt } from '../kernels/field-sqrt.js';

export const STACK_BYTES = 1 << 14;
const PAGE = 1 << 16;

/** x as an element in memory: n little-endian words (params.limbBytes each) of w-bit limbs. */
const elementBytesOf = (params, x) => {
  const out = new Uint8Array(params.elementBytes);
  const view = new DataView(out.buffer);
  toLimbs(x, params.w, params.n).forEach((l, j) => (params.limbBytes === 8 ? view.setBigUint64(8 * j, l, true) : view.setUint32(4 * j, Number(l), true)));
  return out;
};

const bigIntBytes = (x) => {
  const out = [];
  for (let v = x; v > 0n; v >>= 8n) out.push(Number(v & 0xffn));
  return Uint8Array.from(out.length ? out : [0]);
};

/**
 * Addresses of the constants, the stack and the heap for one field, starting at `base`.
 * `extraConstants` ([{ name, value, note }], values mod p, or [c0, c1] for F_p2) are stored in Montgomery form after the field's own.
 */
export function fieldLayout(params, { base = 16, extraConstants = [] } = {}) {
  const { p, R, elementBytes: E, bits } = params;
  const data = [];
  let at = base;
  const put = (name, bytes, note) => {
    const address = at;
    data.push({ name, address, bytes, note });
    at += Math.ceil(bytes.length / 8) * 8;
    return address;
  };
  const layout = {};
  layout.r2 = put('r2', elementBytesOf(params, (R * R) % p), 'R^2 mod p (normal limbs): toMontgomery multiplies by it');
  layout.oneMont = put('oneMont', elementBytesOf(params, R % p), 'R mod p: one in Montgomery form');
  layout.oneNormal = put('oneNormal', elementBytesOf(params, 1n), 'the integer 1: fromMontgomery multiplies by it');
  let sqrtExponent;
  if (p % 4n === 3n) {
    sqrtExponent = (p + 1n) / 4n;
  } else {
    let q = p - 1n;
    let s = 0;
    while ((q & 1n) === 0n) {
      q >>= 1n;
      s++;
    }
    let z = 2n;
    while (modPow(z, (p - 1n) / 2n, p) !== p - 1n) z++;
    layout.twoAdicity = s;
    layout.nonResidue = z;
    sqrtExponent = (q - 1n) / 2n;
    layout.sqrtC0 = put('sqrtC0', elementBytesOf(params, (modPow(z, q, p) * R) % p), `z^Q in Montgomery form, z = ${z} the least non-residue`);
  }
  layout.sqrtExponentBits = sqrtExponent.toString(2).length;
  layout.sqrtExponent = put('sqrtExponent', bigIntBytes(sqrtExponent), p % 4n === 3n ? '(p+1)/4, little-endian' : '(Q-1)/2, little-endian');
  const tableEntries = 2 * bits + 1;
  const table = new Uint8Array(tableEntries * E);
  const R3 = (R * R * R) % p;
  const halfInv = modInverse(2n, p);
  let c = R3;
  for (let k = 0; k < tableEntries; k++) {
    table.set(elementBytesOf(params, c), k * E);
    c = (c * halfInv) % p;
  }
  layout.invTable = put('invTable', table, `R^3 * 2^-k mod p for k = 0..${tableEntries - 1}: inverse correction`);
  const montgomery = (value) => elementBytesOf(params, (((value % p) + p) % p * R) % p);
  for (const { name, value, note } of extraConstants) {
    // An F_p2 constant [c0, c1] is stored as two consecutive elements, as the F_p2 kernels read it.
    const bytes = Array.isArray(value) ? Uint8Array.from([...montgomery(value[0]), ...montgomery(value[1])]) : montgomery(value);
    layout[name] = put(name, bytes, `${note} (Montgomery form)`);
  }
  layout.stackBottom = at;
  layout.stackTop = at + STACK_BYTES;
  layout.heapBase = layout.stackTop;
  layout.minPages = Math.ceil(layout.heapBase / PAGE);
  layout.data = data;
  return layout;
}

/** Each module also exports one other shape of the product, to cross-check and to compare: the loop, or for a loop build the unrolled one. */
const altShape = (shape) => (shape === 'loop' ? 'unrolled' : 'loop');
const altName = (shape) => (shape === 'loop' ? 'mulUnrolled' : 'mulLoop');

/**
 * The field module, not yet rendered, so a curve module can add its own functions.
 * @param params from deriveFieldParams; kernel 'fma' gives the FMA build: the products are the relaxed-SIMD kernel
 *   (mul and sqr one at a time, mul2 and mul4 two and four per call) and every other kernel works on its layout;
 *   kernel 'wide' the wide build: the products are the wide-arithmetic kernel (mul, sqr, and mul2 two per call)
 * @param options.mulShape 'auto' (default), 'pairs', 'unrolled' or 'loop' (codegen/kernels/field-mul.js)
 * @param options.prefix name prefix for functions and exports ('' gives mul, add, ...)
 * @param options.extraConstants more constants for the data segment (see fieldLayout)
 * @param options.headerLines more lines for the module header
 * @param options.chainKernels add mulChain / sqrChain (benchmarks only: a dependent chain inside Wasm)
 */
export function buildFieldModule(
  params,
  {
    mulShape = 'auto', prefix = '', generator = 'codegen/modules/field-module.js', title = 'prime field', extraConstants = [], headerLines = [],
    chainKernels = false,
  } = {},
) {
  const layout = fieldLayout(params, { extraConstants });
  const f = (op) => (prefix ? `${prefix}_${op}` : op);
  const fma = params.kernel === 'fma';
  const wide = params.kernel === 'wide';
  const crandall = params.reduction === 'crandall';
  if (!fma && !wide && !crandall) mulShape = resolveMulShape(params, mulShape);
  const productLine = wide
    ? `products: ${f('mul')}, ${f('sqr')} one per call, ${f('mul2')} two per call (wide arithmetic: load only where the engine validates it)`
    : fma
      ? `products: ${f('mul')}, ${f('sqr')} one per call, ${f('mul2')} and ${f('mul4')} two and four per call (relaxed SIMD: load only where the engine's relaxed_madd is fused)`
      : crandall
        ? `products: ${f('mul')} and ${f('sqr')}, product scanning with pair products, then Crandall's reduction (codegen/kernels/field-mul-crandall.js)`
        : `mul shape: ${mulShape}, ${limbProductsPerMul(params, mulShape)} i64.mul per Montgomery product; ${altShape(mulShape)} exported as ${f(altName(mulShape))}`;
  const header = [
    `${title}: ${crandall ? 'pseudo-Mersenne' : 'Montgomery'} arithmetic mod p with ${params.n} limbs of ${params.w} bits.`,
    `Generated by ${generator}; do not edit (regenerate with npm run gen).`,
    ...describeFieldParams(params),
    productLine,
    `memory: element = ${params.n} little-endian ${params.limbBytes === 8 ? 'u64' : 'u32'} limbs (${params.elementBytes} bytes); constants at ${layout.data[0].address}..${layout.stackBottom},`,
    `scratch stack ${layout.stackBottom}..${layout.stackTop} (global sp, grows down), free memory from heapBase = ${layout.heapBase}`,
    ...headerLines,
  ].join('\n');
  const m = new Module({ header, memory: { import: ['env', 'memory'], minPages: layout.minPages } });
  m.globals.push(`(global $sp (export "${f('sp')}") (mut i32) (i32.const ${layout.stackTop}))`);
  m.globals.push(`(global $heapBase (export "${f('heapBase')}") i32 (i32.const ${layout.heapBase}))`);
  for (const d of layout.data) m.addData(d.address, d.bytes, `${d.name} @ ${d.address}: ${d.note}`);
  if (fma) {
    m.add(fmaMontgomeryMul(params, { name: f('mul'), lanes: 1 }));
    m.add(fmaMontgomeryMul(params, { name: f('mul2'), lanes: 2 }));
    m.add(fmaMontgomeryMul(params, { name: f('mul4'), lanes: 4 }));
    m.add(fmaMontgomeryMul(params, { name: f('sqr'), lanes: 1, square: true }));
  } else if (wide) {
    m.add(wideMontgomeryMul(params, { name: f('mul') }));
    m.add(wideMontgomeryMul(params, { name: f('mul2'), lanes: 2 }));
    m.add(wideMontgomeryMul(params, { name: f('sqr'), square: true }));
  } else if (crandall) {
    m.add(crandallMul(params, { name: f('mul') }));
    m.add(crandallMul(params, { name: f('sqr'), square: true }));
  } else {
    m.add(montgomeryMul(params, { name: f('mul'), shape: mulShape }));
    m.add(montgomeryMul(params, { name: f(altName(mulShape)), shape: altShape(mulShape) }));
    m.add(montgomerySqr(params, { name: f('sqr'), mulName: f('mul') }));
  }
  m.add(fieldAdd(params, { name: f('add') }));
  m.add(fieldAddNoReduce(params, { name: f('addNoReduce') }));
  m.add(fieldSub(params, { name: f('sub') }));
  m.add(fieldSubNoReduce(params, { name: f('subNoReduce') }));
  m.add(fieldNeg(params, { name: f('neg') }));
  m.add(fieldReduce(params, { name: f('reduce') }));
  m.add(fieldIsZero(params, { name: f('isZero') }));
  m.add(fieldEq(params, { name: f('eq') }));
  m.add(fieldCopy(params, { name: f('copy') }));
  m.add(fieldSetConst(params, { name: f('setZero'), limbs: new Array(params.n).fill(0n), doc: `${f('setZero')}(out): out = 0.` }));
  m.add(fieldSetConst(params, { name: f('setOne'), limbs: toLimbs(params.one, params.w, params.n), doc: `${f('setOne')}(out): out = 1 in Montgomery form (R mod p).` }));
  m.add(fieldToMontgomery(params, { name: f('toMontgomery'), mulName: f('mul'), r2Address: layout.r2 }));
  m.add(fieldFromMontgomery(params, { name: f('fromMontgomery'), mulName: f('mul'), reduceName: f('reduce'), oneAddress: layout.oneNormal }));
  m.add(fieldFromBytes(params, { name: f('fromBytes') }));
  m.add(fieldToBytes(params, { name: f('toBytes') }));
  m.add(fieldInv(params, { name: f('inv'), mulName: f('mul'), reduceName: f('reduce'), tableAddress: layout.invTable }));
  m.add(fieldBatchInverse(params, { name: f('batchInverse'), prefix }));
  m.add(fieldPow(params, { name: f('pow'), f }));
  m.add(fieldSqrt(params, { name: f('sqrt'), f, layout }));
  if (chainKernels) {
    m.add(chainKernel(f('mulChain'), f('mul'), true));
    m.add(chainKernel(f('mulChain4'), f('mul'), true, { lanes: 4, elementBytes: params.elementBytes }));
    m.add(chainKernel(f('sqrChain'), f('sqr'), false));
  }
  return { module: m, layout, f };
}

/**
 * name(x, [y,] k): x = x * y (or x^2) k >= 1 times, in a Wasm loop, so a benchmark sees no JS call per product.
 * With `lanes` > 1, that many independent chains interleaved, chain l on the elements at x + l E and y + l E
 * (E = elementBytes): a throughput figure where one chain gives latency.
 */
function chainKernel(name, callee, binary, { lanes = 1, elementBytes = 0 } = {}) {
  const at = (ptr, l) => (l ? i32.add(local.get(ptr), i32.const(l * elementBytes)) : local.get(ptr));
  const fn = new Func(name, {
    params: binary ? [['x', 'i32'], ['y', 'i32'], ['k', 'i32']] : [['x', 'i32'], ['k', 'i32']],
    exportName: name,
    doc: `${name}(x, ${binary ? 'y, ' : ''}k): x = ${binary ? 'x * y' : 'x^2'} / R, k >= 1 times (a dependent chain, for benchmarks)` +
      (lanes > 1 ? `; ${lanes} chains interleaved, chain l on the elements at x + ${elementBytes} l${binary ? ` and y + ${elementBytes} l` : ''}.` : '.'),
  });
  const step = Array.from({ length: lanes }, (_, l) => (binary ? call(callee, at('x', l), at('x', l), at('y', l)) : call(callee, at('x', l), at('x', l))));
  fn.push(loop('chain', [...step, br_if('chain', local.tee('k', i32.sub(local.get('k'), i32.const(1))))]));
  return fn;
}

/** The WAT text of a field module (options as for buildFieldModule). */
export function fieldModuleWat(params, options = {}) {
  const { module, layout } = buildFieldModule(params, options);
  return { wat: module.render(), layout };
}
