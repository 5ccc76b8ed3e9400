// What the kernels over arrays of elements share: the module's scratch stack ($sp, growing down from the top of its
// stack area) and their loops' addressing, and whether products come four per call (codegen/kernels/ntt.js,
// fr-arrays.js, groth16.js, field2.js, field-sqrt.js, curve.js, model.js).

import { i32, local, loop, block, br, br_if } from '../wat/index.js';

/** Take `bytes` of the scratch stack; stackTop is then their address (releaseStack gives them back). */
export const reserveStack = (bytes) => `(global.set $sp (i32.sub (global.get $sp) (i32.const ${bytes})))`;
export const releaseStack = (bytes) => `(global.set $sp (i32.add (global.get $sp) (i32.const ${bytes})))`;
export const stackTop = '(global.get $sp)';

/** Scratch in whole elements of E bytes: reserve(k) and release(k) take and give back k of them, slot(i) addresses the i-th. */
export const elementSlots = (E) => ({
  reserve: (k) => reserveStack(k * E),
  release: (k) => releaseStack(k * E),
  slot: (i) => i32.add(stackTop, i32.const(i * E)),
});

/** The address of element `index` (an i32 expression) of `size` bytes each, of the array at local `base`. */
export const elementAt = (size, base, index) => i32.add(local.get(base), i32.mul(index, i32.const(size)));

/** Whether the module's products come four per call (the FMA build's mul4): loops then go four elements at a time. */
export const fourPerCall = (params) => params.kernel === 'fma';

/**
 * Statements that run `body` for i, i + 4, ... while i + 4 <= count (locals i and count), leaving i at the first element
 * not done for the one-at-a-time loop after them; the body may br to `${label}Done` to leave the rest to that loop.
 */
export const stepsOfFour = (label, body) => [
  block(`${label}Done`, [
    loop(label, [br_if(`${label}Done`, i32.gt_u(i32.add(local.get('i'), i32.const(4)), local.get('count'))), ...body, local.set('i', i32.add(local.get('i'), i32.const(4))), br(label)]),
  ]),
];
