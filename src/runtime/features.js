// Engine features beyond the Wasm our integer kernels need, found by validating and running tiny modules.
// Nothing runs at import time; each probe runs once, on first ask.

/**
 * (module (func (export "fma") (result f64)
 *   (f64x2.extract_lane 0 (f64x2.relaxed_madd (f64x2.splat (f64.const 134217729))       ;; a = 2^27 + 1
 *     (f64x2.splat (f64.const 134217729)) (f64x2.splat (f64.const -18014398777917440)))))) ;; c = -(2^54 + 2^28)
 * a * a + c = 1 when the multiply-add is fused; a separate multiply rounds a^2 = 2^54 + 2^28 + 1 to a multiple
 * of 4 and gives 0. As wabt assembles it (test/field-fma.test.js checks the bytes against the text).
 */
export const RELAXED_FMA_PROBE_WAT = `(module (func (export "fma") (result f64)
  (f64x2.extract_lane 0 (f64x2.relaxed_madd (f64x2.splat (f64.const 134217729)) (f64x2.splat (f64.const 134217729)) (f64x2.splat (f64.const -18014398777917440))))))`;
const RELAXED_FMA_PROBE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 124, 3, 2, 1, 0, 7, 7, 1, 3, 102, 109, 97, 0, 0, 10, 43, 1, 41, 0, 68, 0, 0, 0,
  2, 0, 0, 160, 65, 253, 20, 68, 0, 0, 0, 2, 0, 0, 160, 65, 253, 20, 68, 0, 0, 0, 4, 0, 0, 80, 195, 253, 20, 253, 135, 2, 253,
  33, 0, 11, 0, 10, 4, 110, 97, 109, 101, 2, 3, 1, 0, 0,
];
export const relaxedFmaProbeBytes = () => new Uint8Array(RELAXED_FMA_PROBE);

let relaxedFma;
/**
 * 'fused' when this engine validates relaxed SIMD and its f64x2.relaxed_madd is one rounding (the FMA kernels
 * are exact only then), 'unfused' when it validates but rounds twice, 'unsupported' when a module holding a
 * relaxed-SIMD opcode does not validate (Node 20 without --experimental-wasm-relaxed-simd, Safari).
 */
export function relaxedFmaSupport() {
  if (relaxedFma !== undefined) return relaxedFma;
  const bytes = relaxedFmaProbeBytes();
  if (!WebAssembly.validate(bytes)) return (relaxedFma = 'unsupported');
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  return (relaxedFma = exports.fma() === 1 ? 'fused' : 'unfused');
}

/**
 * (module (func (export "hi") (param i64 i64) (result i64)
 *   (i64.mul_wide_u (local.get 0) (local.get 1)) (local.set 0) (drop) (local.get 0)))
 * The high word of a 64 x 64-bit product: an opcode of the wide-arithmetic proposal (V8 has it behind
 * --wasm-wide-arithmetic; Node 20 and 24 do not validate it). Written by hand: wabt cannot assemble it
 * (test/field-wide.test.js checks the bytes against binaryen's reading of the text).
 */
export const WIDE_ARITHMETIC_PROBE_WAT = `(module (func (export "hi") (param i64 i64) (result i64)
  (i64.mul_wide_u (local.get 0) (local.get 1)) (local.set 0) (drop) (local.get 0)))`;
const WIDE_ARITHMETIC_PROBE = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7e, 0x7e, 0x01, 0x7e, // type: (i64, i64) -> i64
  0x03, 0x02, 0x01, 0x00, // function 0 of type 0
  0x07, 0x06, 0x01, 0x02, 0x68, 0x69, 0x00, 0x00, // export "hi"
  0x0a, 0x0f, 0x01, 0x0d, 0x00, 0x20, 0x00, 0x20, 0x01, 0xfc, 0x16, 0x21, 0x00, 0x1a, 0x20, 0x00, 0x0b, // code
];
export const wideArithmeticProbeBytes = () => new Uint8Array(WIDE_ARITHMETIC_PROBE);

let wideArithmetic;
/**
 * Whether this engine runs the wide-arithmetic kernels (codegen/kernels/field-mul-wide.js; no curve module uses them
 * yet): a module holding i64.mul_wide_u validates, and its high word of (2^64 - 1)^2 is 2^64 - 2. Only then may a
 * wide module be compiled (elsewhere it would fail validation).
 */
export function wideArithmeticSupport() {
  if (wideArithmetic !== undefined) return wideArithmetic;
  const bytes = wideArithmeticProbeBytes();
  if (!WebAssembly.validate(bytes)) return (wideArithmetic = false);
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  return (wideArithmetic = exports.hi(-1n, -1n) === -2n);
}
