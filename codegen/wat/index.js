// A tiny WAT writer: functions that return folded S-expressions as strings, and a function builder that
// declares locals in first-use order. Output depends only on the calls made, so the same params always
// give the same bytes.

/** `(name arg ...)`; arguments are expressions (strings) or numbers. */
export function op(name, ...args) {
  return args.length ? `(${name} ${args.join(' ')})` : `(${name})`;
}

const memarg = (offset) => (offset ? ` offset=${offset}` : '');

function numericOps(type) {
  const t = (name) => (...args) => op(`${type}.${name}`, ...args);
  return {
    const: (value) => `(${type}.const ${value})`,
    add: t('add'), sub: t('sub'), mul: t('mul'), and: t('and'), or: t('or'), xor: t('xor'),
    shl: t('shl'), shr_u: t('shr_u'), shr_s: t('shr_s'), eq: t('eq'), ne: t('ne'), eqz: t('eqz'),
    lt_u: t('lt_u'), gt_u: t('gt_u'), le_u: t('le_u'), ge_u: t('ge_u'), lt_s: t('lt_s'), gt_s: t('gt_s'),
    le_s: t('le_s'), ge_s: t('ge_s'), ctz: t('ctz'), clz: t('clz'), div_u: t('div_u'), rem_u: t('rem_u'),
    load: (ptr, offset = 0) => `(${type}.load${memarg(offset)} ${ptr})`,
    store: (ptr, value, offset = 0) => `(${type}.store${memarg(offset)} ${ptr} ${value})`,
    load8_u: (ptr, offset = 0) => `(${type}.load8_u${memarg(offset)} ${ptr})`,
    store8: (ptr, value, offset = 0) => `(${type}.store8${memarg(offset)} ${ptr} ${value})`,
  };
}

export const i32 = numericOps('i32');
export const i64 = {
  ...numericOps('i64'),
  /** A 32-bit limb zero-extended into an i64 accumulator. */
  load32_u: (ptr, offset = 0) => `(i64.load32_u${memarg(offset)} ${ptr})`,
  store32: (ptr, value, offset = 0) => `(i64.store32${memarg(offset)} ${ptr} ${value})`,
  extend_i32_u: (x) => op('i64.extend_i32_u', x),
  // Wide arithmetic (the proposal's opcodes; binaryen assembles them, wabt cannot). Each leaves two i64 on the
  // stack, low word first: take them with local.pop (high word first) or pass them on as two operands.
  /** a * b as the 128-bit (low, high) */
  mul_wide_u: (a, b) => op('i64.mul_wide_u', a, b),
  /** (aLo, aHi) + (bLo, bHi) mod 2^128 as (low, high); a may be one two-value operand, as may b */
  add128: (...args) => op('i64.add128', ...args),
  /** (aLo, aHi) - (bLo, bHi) mod 2^128 as (low, high) */
  sub128: (...args) => op('i64.sub128', ...args),
};
i32.wrap_i64 = (x) => op('i32.wrap_i64', x);

/**
 * SIMD (v128) ops for the lane-parallel kernels. Lane indices and memargs are immediates, written before the
 * operands as the text format wants them.
 */
const lanes = (type, names) => Object.fromEntries(names.map((name) => [name, (...args) => op(`${type}.${name}`, ...args)]));
export const v128 = {
  ...lanes('v128', ['and', 'or', 'xor']),
  load: (ptr, offset = 0) => `(v128.load${memarg(offset)} ${ptr})`,
  store: (ptr, value, offset = 0) => `(v128.store${memarg(offset)} ${ptr} ${value})`,
  /** [mem64(ptr + offset), 0] */
  load64_zero: (ptr, offset = 0) => `(v128.load64_zero${memarg(offset)} ${ptr})`,
  /** vec with lane `lane` replaced by mem64(ptr + offset) */
  load64_lane: (lane, ptr, vec, offset = 0) => `(v128.load64_lane${memarg(offset)} ${lane} ${ptr} ${vec})`,
  /** mem64(ptr + offset) = lane `lane` of vec */
  store64_lane: (lane, ptr, vec, offset = 0) => `(v128.store64_lane${memarg(offset)} ${lane} ${ptr} ${vec})`,
};
export const i64x2 = {
  ...lanes('i64x2', ['add', 'sub', 'mul', 'shr_u', 'shr_s', 'shl', 'splat']),
  extract_lane: (lane, vec) => op(`i64x2.extract_lane ${lane}`, vec),
  replace_lane: (lane, vec, value) => op(`i64x2.replace_lane ${lane}`, vec, value),
};
export const f64x2 = {
  ...lanes('f64x2', ['add', 'sub', 'mul', 'splat']),
  /** a * b + c, fused or not as the engine chooses (relaxed SIMD): the loader checks it is fused */
  relaxed_madd: (a, b, c) => op('f64x2.relaxed_madd', a, b, c),
};
export const f64 = { const: (value) => `(f64.const ${value})` };

export const local = {
  get: (name) => `(local.get $${name})`,
  set: (name, value) => `(local.set $${name} ${value})`,
  tee: (name, value) => `(local.tee $${name} ${value})`,
  /** `(local.set $name)` with the value taken from the stack (after a two-value op; high word first) */
  pop: (name) => `(local.set $${name})`,
};

export const call = (name, ...args) => op(`call $${name}`, ...args);
export const drop = () => '(drop)';
export const select = (a, b, cond) => op('select', a, b, cond);
export const br = (label) => `(br $${label})`;
export const br_if = (label, cond) => `(br_if $${label} ${cond})`;
export const ret = (value) => (value === undefined ? '(return)' : `(return ${value})`);
export const comment = (text) => ({ comment: text });

/** `(if cond (then ...) (else ...))` with statement lists. */
export function if_(cond, thenBody, elseBody) {
  return { block: 'if', cond, thenBody, elseBody };
}
/** `(loop $label ...)`: a `br $label` inside jumps back to the top. */
export function loop(label, body) {
  return { block: 'loop', label, body };
}
/** `(block $label ...)`: a `br $label` inside jumps past the end. */
export function block(label, body) {
  return { block: 'block', label, body };
}

function renderStatements(statements, indent) {
  const pad = '  '.repeat(indent);
  const lines = [];
  for (const s of statements.flat(Infinity)) {
    if (s === null || s === undefined) continue;
    if (typeof s === 'string') lines.push(pad + s);
    else if (s.comment !== undefined) {
      for (const line of String(s.comment).split('\n')) lines.push(`${pad};; ${line}`);
    } else if (s.block === 'if') {
      lines.push(`${pad}(if ${s.cond}`);
      lines.push(`${pad}  (then`);
      lines.push(...renderStatements(s.thenBody, indent + 2));
      lines.push(`${pad}  )`);
      if (s.elseBody && s.elseBody.length) {
        lines.push(`${pad}  (else`);
        lines.push(...renderStatements(s.elseBody, indent + 2));
        lines.push(`${pad}  )`);
      }
      lines.push(`${pad})`);
    } else if (s.block === 'loop' || s.block === 'block') {
      lines.push(`${pad}(${s.block} $${s.label}`);
      lines.push(...renderStatements(s.body, indent + 1));
      lines.push(`${pad})`);
    } else throw new Error(`unknown statement ${JSON.stringify(s)}`);
  }
  return lines;
}

/**
 * A function under construction. `fn.local(name, type)` declares a local once (later calls with the same
 * name return the same name), so kernels can ask for locals where they use them.
 */
export class Func {
  constructor(name, { params = [], result = null, exportName = null, doc = '' } = {}) {
    this.name = name;
    this.params = params; // [[name, type]]
    this.result = result;
    this.exportName = exportName;
    this.doc = doc;
    this.locals = new Map();
    this.body = [];
  }
  local(name, type = 'i64') {
    if (this.params.some(([p]) => p === name)) return name;
    const known = this.locals.get(name);
    if (known && known !== type) throw new Error(`local $${name} redeclared as ${type} (was ${known})`);
    this.locals.set(name, type);
    return name;
  }
  push(...statements) {
    this.body.push(...statements);
    return this;
  }
  render() {
    const lines = [];
    if (this.doc) for (const line of this.doc.trim().split('\n')) lines.push(`  ;; ${line}`.trimEnd());
    const params = this.params.map(([n, t]) => ` (param $${n} ${t})`).join('');
    const result = this.result ? ` (result ${this.result})` : '';
    const exp = this.exportName ? ` (export "${this.exportName}")` : '';
    lines.push(`  (func $${this.name}${exp}${params}${result}`);
    for (const [n, t] of this.locals) lines.push(`    (local $${n} ${t})`);
    lines.push(...renderStatements(this.body, 2));
    lines.push('  )');
    return lines.join('\n');
  }
}

/**
 * A whole module. Memory is imported (so several modules or JS can share it) or defined here; data
 * segments hold precomputed constants.
 */
export class Module {
  constructor({ header = '', memory = { import: ['env', 'memory'], minPages: 1 } } = {}) {
    this.header = header;
    this.memory = memory;
    this.funcs = [];
    this.data = []; // [{ offset, bytes: Uint8Array, comment }]
    this.globals = []; // strings
  }
  add(func) {
    if (this.funcs.some((f) => f.name === func.name)) throw new Error(`duplicate function $${func.name}`);
    this.funcs.push(func);
    return func;
  }
  addData(offset, bytes, commentText = '') {
    this.data.push({ offset, bytes, comment: commentText });
  }
  render() {
    const lines = [];
    for (const line of this.header.trim().split('\n')) lines.push(`;; ${line}`.trimEnd());
    lines.push('(module');
    const m = this.memory;
    if (m.import) lines.push(`  (import "${m.import[0]}" "${m.import[1]}" (memory ${m.minPages}))`);
    else lines.push(`  (memory (export "memory") ${m.minPages})`);
    for (const g of this.globals) lines.push(`  ${g}`);
    for (const d of this.data) {
      if (d.comment) lines.push(`  ;; ${d.comment}`);
      lines.push(`  (data (i32.const ${d.offset}) "${escapeBytes(d.bytes)}")`);
    }
    for (const f of this.funcs) {
      lines.push('');
      lines.push(f.render());
    }
    lines.push(')');
    return lines.join('\n') + '\n';
  }
}

function escapeBytes(bytes) {
  let s = '';
  for (const b of bytes) s += '\\' + b.toString(16).padStart(2, '0');
  return s;
}
