// The curve kernels in WGSL (prefix g_, codegen/wgsl/README.md): point types and the group law over the field's fp_
// kernels, generated per curve model.
//   short Weierstrass y^2 = x^3 + a x + b: XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity when ZZ = 0),
//     the EFD's "xyzz" formulas: add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1; a = 0 dropped at generation.
//   twisted Edwards a x^2 + y^2 = 1 + d x^2 y^2: extended coordinates (x = X/Z, y = Y/Z, T = XY/Z; Hisil, Wong,
//     Carter, Dawson 2008): add-2008-hwcd (a = -1: add-2008-hwcd-3), dbl-2008-hwcd.
// Each formula is written below as one line of math per step; `compile` turns a line into nested fp_ calls and the
// line itself becomes the comment above its `let`, so the text and the code cannot disagree. Small integer factors
// (2 Y, 3 XX) become additions; the curve's constants are module constants in Montgomery form (wgsl/constants.js).
// The same short Weierstrass formulas over F_p2 (G2 of a pairing-friendly curve, on its twist y^2 = x^3 + b'): the
// option { field: 'fp2' } writes them with fp2_ calls (kernels/wgsl-field2.js) on Coord coordinates.

import { fn as wgslFn } from '../wgsl/index.js';
import { wgslFp, wgslFp2 } from '../wgsl/constants.js';
import { modPow } from '../params/number-theory.js';

const mod = (x, p) => ((x % p) + p) % p;
const big = (v) => (typeof v === 'bigint' ? v : BigInt(v));
const isSquare = (x, p) => x === 0n || modPow(x, (p - 1n) / 2n, p) === 1n;

/**
 * The coordinate field as the emitted text names it: its type, its functions' prefix and its constants 0 and 1.
 * G1 names Fp and fp_ (the text as it always was); G2 names Coord (= Fp2) and fp2_.
 */
const FIELD_FP = Object.freeze({ type: 'Fp', fn: (name) => `fp_${name}`, zero: 'FP_ZERO', one: 'FP_ONE' });
const FIELD_FP2 = Object.freeze({ type: 'Coord', fn: (name) => `fp2_${name}`, zero: 'FP2_ZERO', one: 'FP2_ONE' });

// ---- the math language: + - * ^2, unary -, parentheses, names, small integers ----

function tokenize(src) {
  const tokens = [];
  const re = /\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(\d+)|(\^2)|([-+*()]))/y;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(src);
    if (!m) throw new SyntaxError(`wgsl-curve: cannot read ${JSON.stringify(src.slice(at))} in ${JSON.stringify(src)}`);
    at = re.lastIndex;
    if (m[1]) tokens.push({ t: 'name', v: m[1] });
    else if (m[2]) tokens.push({ t: 'int', v: Number(m[2]) });
    else if (m[3]) tokens.push({ t: '^2' });
    else tokens.push({ t: m[4] });
  }
  return tokens;
}

function parse(src) {
  const tokens = tokenize(src);
  let i = 0;
  const peek = () => tokens[i]?.t;
  const expect = (t) => {
    if (peek() !== t) throw new SyntaxError(`wgsl-curve: expected ${t} in ${JSON.stringify(src)}`);
    i++;
  };
  const primary = () => {
    const tok = tokens[i++];
    if (!tok) throw new SyntaxError(`wgsl-curve: unexpected end of ${JSON.stringify(src)}`);
    if (tok.t === 'name' || tok.t === 'int') return tok;
    if (tok.t === '(') {
      const e = sum();
      expect(')');
      return e;
    }
    throw new SyntaxError(`wgsl-curve: unexpected ${tok.t} in ${JSON.stringify(src)}`);
  };
  const factor = () => {
    if (peek() === '-') {
      i++;
      return { t: 'neg', a: factor() };
    }
    const e = primary();
    if (peek() === '^2') {
      i++;
      return { t: 'sqr', a: e };
    }
    return e;
  };
  const product = () => {
    let e = factor();
    while (peek() === '*') {
      i++;
      e = { t: 'mul', a: e, b: factor() };
    }
    return e;
  };
  const sum = () => {
    let e = product();
    while (peek() === '+' || peek() === '-') {
      const t = tokens[i++].t === '+' ? 'add' : 'sub';
      e = { t, a: e, b: product() };
    }
    return e;
  };
  const e = sum();
  if (i !== tokens.length) throw new SyntaxError(`wgsl-curve: trailing tokens in ${JSON.stringify(src)}`);
  return e;
}

/** c x by additions (doublings along c's bits); x is evaluated once only when c is a power of two or x an atom. */
function smallMultiple(c, x, atom, K) {
  if (!Number.isInteger(c) || c < 1 || c > 16) throw new RangeError(`wgsl-curve: factor ${c} is not a small integer`);
  if (c & (c - 1) && !atom) throw new RangeError(`wgsl-curve: ${c} times an expression: name it first (it would be computed twice)`);
  let acc = null;
  for (let bit = 31 - Math.clz32(c); bit >= 0; bit--) {
    acc = acc === null ? x : `${K.fn('double')}(${acc})`;
    if (bit !== 31 - Math.clz32(c) && (c >> bit) & 1) acc = `${K.fn('add')}(${acc}, ${x})`;
  }
  return acc;
}

/** WGSL for an expression tree; env maps each name of the math to a WGSL expression (a local, a field, a const). */
function emit(e, env, K) {
  const atom = (x) => x.t === 'name';
  switch (e.t) {
    case 'name':
      if (!(e.v in env)) throw new ReferenceError(`wgsl-curve: unknown name ${e.v}`);
      return env[e.v];
    case 'int':
      if (e.v === 0) return K.zero;
      return smallMultiple(e.v, K.one, true, K);
    case 'neg':
      return `${K.fn('neg')}(${emit(e.a, env, K)})`;
    case 'sqr':
      return `${K.fn('sqr')}(${emit(e.a, env, K)})`;
    case 'add':
      return `${K.fn('add')}(${emit(e.a, env, K)}, ${emit(e.b, env, K)})`;
    case 'sub':
      return `${K.fn('sub')}(${emit(e.a, env, K)}, ${emit(e.b, env, K)})`;
    case 'mul':
      if (e.a.t === 'int') return smallMultiple(e.a.v, emit(e.b, env, K), atom(e.b), K);
      if (e.b.t === 'int') return smallMultiple(e.b.v, emit(e.a, env, K), atom(e.a), K);
      return `${K.fn('mul')}(${emit(e.a, env, K)}, ${emit(e.b, env, K)})`;
    default:
      throw new Error(`wgsl-curve: node ${e.t}`);
  }
}

/**
 * The statements of a function body: each step 'NAME = math' becomes `// NAME = math` and `let NAME = <fp_ calls>;`,
 * the name then usable by later steps; any other string is WGSL copied as it is (branches, returns).
 */
function steps(env, lines, K = FIELD_FP) {
  const scope = { ...env };
  const out = [];
  for (const line of lines) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*) = ([^;{]+)$/.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    const [, name, math] = m;
    out.push(`// ${line}`, `let ${name} = ${emit(parse(math), scope, K)};`);
    scope[name] = name;
  }
  return out;
}

/** g_coords / g_fromCoords: a Point as G_COORDS field elements, in its struct's order (storage buffers hold these). */
const storage = (fields, T = 'Fp') => `${fn(`g_coords(P: Point) -> array<${T}, G_COORDS>`, `(${fields.join(', ')}), for storage`, `return array<${T}, G_COORDS>(${fields.map((f) => `P.${f}`).join(', ')});`)}

${fn(`g_fromCoords(c: array<${T}, G_COORDS>) -> Point`, 'the inverse of g_coords', `return Point(${fields.map((_, i) => `c[${i}]`).join(', ')});`)}`;

/** One function through the WGSL writer; body: a statement or a list of them. */
const fn = (signature, doc, body) => wgslFn({ doc, signature, body: Array.isArray(body) ? body : [body] });

/** The operands of a two-point formula: X1 -> p1.x, ZZ2 -> p2.zz, ... */
const pointNames = (coords, p, k) => Object.fromEntries(coords.map(([math, field]) => [`${math}${k}`, `${p}.${field}`]));

// ---- short Weierstrass, XYZZ ----

/**
 * @param F the base field's params
 * @param a, b the coefficients (BigInt mod p; over F_p2 a is 0 and b is { c0, c1 })
 * @param K the coordinate field's names (FIELD_FP or FIELD_FP2)
 */
function weierstrass(F, { a, b }, K = FIELD_FP) {
  const f = K.fn;
  const T = K.type;
  const over2 = K === FIELD_FP2;
  const aZero = over2 || a === 0n;
  const coords = [['X', 'x'], ['Y', 'y'], ['ZZ', 'zz'], ['ZZZ', 'zzz']];
  const consts = { b: 'G_B', ...(aZero ? {} : { a: 'G_A' }) };
  const two = { ...consts, ...pointNames(coords, 'p1', 1), ...pointNames(coords, 'p2', 2) };
  const mixed = { ...consts, ...pointNames(coords, 'p1', 1), X2: 'q.x', Y2: 'q.y' };
  const affine = { ...consts, X1: 'q.x', Y1: 'q.y', x: 'q.x', y: 'q.y' };
  const run = (env, lines) => steps(env, lines, K);
  const doubling = (m) => [
    'U = 2 * Y1',
    'V = U^2',
    'W = U * V',
    'S = X1 * V',
    ...(m ? ['XX = X1^2', m] : []),
    'X3 = M^2 - 2 * S',
    'Y3 = M * (S - X3) - W * Y1',
  ];
  const hex = (x) => `0x${x.toString(16)}`;
  const equation = over2
    ? `// the twist y^2 = x^3 + b' over F_p2 (G2; a = 0, its terms dropped), b' = c0 + c1 u with
// c0 = ${hex(b.c0)}, c1 = ${hex(b.c1)}`
    : `// short Weierstrass y^2 = x^3 + a x + b, a = ${a === 0n ? '0 (its terms dropped)' : hex(a)}, b = ${hex(b)}`;
  const constB = over2
    ? `const G_B: Coord = ${wgslFp2(F, b)}; // b' (Montgomery form, c0 + c1 u)`
    : `const G_B: Fp = ${wgslFp(F, b)}; // b (Montgomery form)`;
  return `${equation}
// XYZZ coordinates: (X, Y, ZZ, ZZZ) is the affine (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity.
// Formulas of the EFD (g1p/auto/shortw/xyzz): add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1. Exceptional
// cases: an operand at infinity returns the other; equal x with equal y (P1 = P2) doubles, with opposite y (P1 = -P2)
// gives infinity. The doublings need no case: Y = 0 (order 2) or ZZ = 0 gives ZZ3 = 0.
${over2 ? `// Over F_p2 the formulas are the same field-generically: every coordinate a Coord (= Fp2), every operation fp2_.
` : ''}${aZero ? '' : `const G_A: Fp = ${wgslFp(F, a)}; // a (Montgomery form)\n`}${constB}

struct Affine { x: ${T}, y: ${T} }
struct Point { x: ${T}, y: ${T}, zz: ${T}, zzz: ${T} }
const G_COORDS: u32 = 4u;

${storage(['x', 'y', 'zz', 'zzz'], T)}

${fn('g_zero() -> Point', 'the point at infinity (ZZ = ZZZ = 0)', `return Point(${K.one}, ${K.one}, ${K.zero}, ${K.zero});`)}

${fn('g_isZero(P: Point) -> bool', 'P = infinity', `return ${f('isZero')}(P.zz);`)}

${fn('g_fromAffine(q: Affine) -> Point', '(x, y) -> (x, y, 1, 1)', `return Point(q.x, q.y, ${K.one}, ${K.one});`)}

${fn('g_negAffine(q: Affine) -> Affine', '-(x, y) = (x, -y)', `return Affine(q.x, ${f('neg')}(q.y));`)}

${fn('g_isNeutralAffine(q: Affine) -> bool', 'an affine point is never the neutral element (infinity) of a short Weierstrass curve', 'return false;')}

${fn('g_isOnCurve(q: Affine) -> bool', `y^2 = x^3 + ${over2 ? 'b\'' : 'a x + b'} (Montgomery form on both sides)`, run(affine, [
    'YY = y^2',
    aZero ? 'RHS = x^2 * x + b' : 'RHS = (x^2 + a) * x + b',
    `return ${f('eq')}(YY, RHS);`,
  ]))}

${fn('g_double(p1: Point) -> Point', `2 P1, dbl-2008-s-1 (P1 = infinity or of order 2: ZZ3 = 0)`, run(two, [
    ...doubling(aZero ? 'M = 3 * XX' : 'M = 3 * XX + a * ZZ1^2'),
    'ZZ3 = V * ZZ1',
    'ZZZ3 = W * ZZZ1',
    'return Point(X3, Y3, ZZ3, ZZZ3);',
  ]))}

${fn('g_doubleAffine(q: Affine) -> Point', `2 Q for affine Q, mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1; y = 0: ZZ3 = 0)`, run(affine, [
    ...doubling(aZero ? 'M = 3 * XX' : 'M = 3 * XX + a'),
    'return Point(X3, Y3, V, W);',
  ]))}

${fn('g_add(p1: Point, p2: Point) -> Point', 'P1 + P2, add-2008-s; complete (every case below)', run(two, [
    `if (${f('isZero')}(p1.zz)) { return p2; }`,
    `if (${f('isZero')}(p2.zz)) { return p1; }`,
    'U1 = X1 * ZZ2',
    'U2 = X2 * ZZ1',
    'S1 = Y1 * ZZZ2',
    'S2 = Y2 * ZZZ1',
    'P = U2 - U1',
    'R = S2 - S1',
    `if (${f('isZero')}(P)) {\n  // the same x: P1 = P2 doubles, P1 = -P2 gives infinity\n  if (${f('isZero')}(R)) { return g_double(p1); }\n  return g_zero();\n}`,
    'PP = P^2',
    'PPP = P * PP',
    'Q = U1 * PP',
    'X3 = R^2 - PPP - 2 * Q',
    'Y3 = R * (Q - X3) - S1 * PPP',
    'ZZ3 = ZZ1 * ZZ2 * PP',
    'ZZZ3 = ZZZ1 * ZZZ2 * PPP',
    'return Point(X3, Y3, ZZ3, ZZZ3);',
  ]))}

${fn('g_addAffine(p1: Point, q: Affine) -> Point', 'P1 + Q for affine Q = (X2, Y2), madd-2008-s; complete (every case below)', run(mixed, [
    `if (${f('isZero')}(p1.zz)) { return g_fromAffine(q); }`,
    'U2 = X2 * ZZ1',
    'S2 = Y2 * ZZZ1',
    'P = U2 - X1',
    'R = S2 - Y1',
    `if (${f('isZero')}(P)) {\n  // the same x: P1 = Q doubles, P1 = -Q gives infinity\n  if (${f('isZero')}(R)) { return g_doubleAffine(q); }\n  return g_zero();\n}`,
    'PP = P^2',
    'PPP = P * PP',
    'Q = X1 * PP',
    'X3 = R^2 - PPP - 2 * Q',
    'Y3 = R * (Q - X3) - Y1 * PPP',
    'ZZ3 = ZZ1 * PP',
    'ZZZ3 = ZZZ1 * PPP',
    'return Point(X3, Y3, ZZ3, ZZZ3);',
  ]))}`;
}

// ---- twisted Edwards, extended coordinates ----

function edwards(F, { a, d }, p) {
  const minusOne = a === p - 1n;
  const complete = isSquare(a, p); // d is a non-square (checked by the caller)
  const coords = [['X', 'x'], ['Y', 'y'], ['Z', 'z'], ['T', 't']];
  const consts = { d: 'G_D', ...(minusOne ? { k: 'G_K' } : { a: 'G_A' }) };
  const two = { ...consts, ...pointNames(coords, 'p1', 1), ...pointNames(coords, 'p2', 2) };
  const mixed = { ...consts, ...pointNames(coords, 'p1', 1), X2: 'q.x', Y2: 'q.y' };
  const affine = { ...consts, X1: 'q.x', Y1: 'q.y', x: 'q.x', y: 'q.y' };
  const finish = ['X3 = E * F', 'Y3 = G * H', 'T3 = E * H', 'Z3 = F * G'];
  // the unified addition; Z2 = 1 for the mixed one (T2 = X2 Y2 computed first)
  const unified = (mixedAdd) => minusOne
    ? [
      'A = (Y1 - X1) * (Y2 - X2)',
      'B = (Y1 + X1) * (Y2 + X2)',
      'C = T1 * k * T2',
      mixedAdd ? 'D = 2 * Z1' : 'D = 2 * Z1 * Z2',
      'E = B - A',
      'F = D - C',
      'G = D + C',
      'H = B + A',
      ...finish,
    ]
    : [
      'A = X1 * X2',
      'B = Y1 * Y2',
      'C = T1 * d * T2',
      mixedAdd ? 'D = Z1' : 'D = Z1 * Z2',
      'E = (X1 + Y1) * (X2 + Y2) - A - B',
      'F = D - C',
      'G = D + C',
      'H = B - a * A',
      ...finish,
    ];
  // Z3 = 0 from P1 = P2, the one case the dedicated formula gets wrong: an affine point whose double is at infinity
  // (d x^2 y^2 = -1), which exists where -d is a square mod p (with d a non-square: p = 3 mod 4). There the doubling
  // takes it; elsewhere (every shipped curve) the branch is left out: SwiftShader's compiler crashes on bandersnatch's
  // larger functions. (Two points at infinity (X : 0 : 0 : T) give Z3 = -C^2, not 0: the unified formula sums them.)
  const doubleAtInfinity = !complete && isSquare(mod(-d, p), p);
  const fallback = (args, same, double) => {
    if (complete) return [];
    const body = ['// F G = 0: P1 - P2 or P1 + P2 is a point at infinity of the Edwards curve; the dedicated formula is right there'];
    if (doubleAtInfinity) body.push('// but for P1 = P2 (2 P1 at infinity, -d being a square mod p): the doubling', `if (${same}) { return ${double}; }`);
    body.push(`return g_addDedicated(${args});`);
    return [`if (fp_isZero(Z3)) {\n${body.map((line) => `  ${line}`).join('\n')}\n}`];
  };
  const doubling = (fromAffine) => [
    'A = X1^2',
    'B = Y1^2',
    ...(fromAffine ? [] : ['C = 2 * Z1^2']),
    minusOne ? 'D = -A' : 'D = a * A',
    'E = (X1 + Y1)^2 - A - B',
    'G = D + B',
    fromAffine ? 'F = G - 2' : 'F = G - C',
    'H = D - B',
    ...finish,
    'return Point(X3, Y3, Z3, T3);',
  ];
  const note = complete
    ? `a is a square and d a non-square mod p: the unified addition is complete (Bernstein-Lange 2007, thm 3.3;
// Hisil et al. 2008, sec. 3.1): it is right for every pair of points of E(F_p), the small-order ones included, and
// the curve has no points at infinity over F_p. No exceptional case.`
    : `a and d are both non-squares mod p (d/a a square): the unified addition is not complete. E(F_p) has two points
// at infinity of the Edwards curve (order 2; in extended coordinates (X : 0 : 0 : T) with (X/T)^2 = d/a), and the
// unified formula gives Z3 = F G = 0 exactly when P1 - P2 or P1 + P2 is one of them (all four coordinates 0 for
// P1 - P2, a wrong result). That never happens for points of the subgroup of odd order r (their sums and differences
// stay in it), but it can for inputs with a component of order 2; the dedicated addition (add-2008-hwcd-2) is right
// in both cases but P1 = P2, so g_add and g_addAffine take it when Z3 = 0 (checked against the Weierstrass image on
// every pair of small multiples of G plus a point of order 2). ${doubleAtInfinity ? `Here -d is a square mod p (p = 3 mod 4): affine
// points with d x^2 y^2 = -1 double to a point at infinity, where the unified addition of P and P gives Z3 = 0 too,
// so g_add and g_addAffine take the doubling when P1 = P2 (checked on such a curve).` : `Here -d is a non-square mod p,
// so no affine P + P gives Z3 = 0 (that needs d x^2 y^2 = -1).`}
// The doublings are exact for every point of E(F_p): where F G vanishes (d x^2 y^2 = -1) the result (X3 : 0 : 0 : T3)
// is the point at infinity 2 P, and a point at infinity doubles to (0 : 1 : 1 : 0).`;
  return `// twisted Edwards a x^2 + y^2 = 1 + d x^2 y^2, a = ${minusOne ? '-1' : `0x${a.toString(16)}`}, d = 0x${d.toString(16)}
// extended coordinates (Hisil, Wong, Carter, Dawson 2008): (X, Y, Z, T) is the affine (X/Z, Y/Z) with T = XY/Z;
// the neutral element is (0 : 1 : 1 : 0). Formulas of the EFD (g1p/auto/twisted/extended${minusOne ? '-1' : ''}):
// ${minusOne ? 'add-2008-hwcd-3 and madd-2008-hwcd-3 (a = -1, k = 2d)' : 'add-2008-hwcd and madd-2008-hwcd'}, dbl-2008-hwcd and mdbl-2008-hwcd.
// ${note}
${minusOne ? `const G_K: Fp = ${wgslFp(F, 2n * d)}; // k = 2 d (Montgomery form)` : `const G_A: Fp = ${wgslFp(F, a)}; // a (Montgomery form)`}
const G_D: Fp = ${wgslFp(F, d)}; // d (Montgomery form)

struct Affine { x: Fp, y: Fp }
struct Point { x: Fp, y: Fp, z: Fp, t: Fp }
const G_COORDS: u32 = 4u;

${storage(['x', 'y', 'z', 't'])}

${fn('g_zero() -> Point', 'the neutral element (0 : 1 : 1 : 0)', 'return Point(FP_ZERO, FP_ONE, FP_ONE, FP_ZERO);')}

${fn('g_isZero(P: Point) -> bool', 'P = (0 : 1 : 1 : 0): X = 0 and Y = Z (T = XY/Z = 0 follows; Y = -Z is the point (0, -1))', 'return fp_isZero(P.x) && fp_eq(P.y, P.z);')}

${fn('g_fromAffine(q: Affine) -> Point', '(x, y) -> (x, y, 1, x y)', 'return Point(q.x, q.y, FP_ONE, fp_mul(q.x, q.y));')}

${fn('g_negAffine(q: Affine) -> Affine', '-(x, y) = (-x, y)', 'return Affine(fp_neg(q.x), q.y);')}

${fn('g_isNeutralAffine(q: Affine) -> bool', 'q = (0, 1), the neutral element', 'return fp_isZero(q.x) && fp_eq(q.y, FP_ONE);')}

${fn('g_isOnCurve(q: Affine) -> bool', 'a x^2 + y^2 = 1 + d x^2 y^2 (Montgomery form on both sides)', steps(affine, [
    'XX = x^2',
    'YY = y^2',
    minusOne ? 'LHS = YY - XX' : 'LHS = a * XX + YY',
    'RHS = 1 + d * XX * YY',
    'return fp_eq(LHS, RHS);',
  ]))}

${fn('g_double(p1: Point) -> Point', '2 P1, dbl-2008-hwcd (T1 unused)', steps(two, doubling(false)))}

${fn('g_doubleAffine(q: Affine) -> Point', '2 Q for affine Q, mdbl-2008-hwcd (Z1 = 1)', steps(affine, doubling(true)))}

${fn('g_add(p1: Point, p2: Point) -> Point', `P1 + P2, ${minusOne ? 'add-2008-hwcd-3' : 'add-2008-hwcd'} (unified)${complete ? '; complete' : ', with the dedicated formula where it fails'}`, steps(two, [
    ...unified(false),
    ...fallback('p1, p2', 'fp_eq(fp_mul(p1.x, p2.z), fp_mul(p2.x, p1.z)) && fp_eq(fp_mul(p1.y, p2.z), fp_mul(p2.y, p1.z))', 'g_double(p1)'),
    'return Point(X3, Y3, Z3, T3);',
  ]))}

${fn('g_addAffine(p1: Point, q: Affine) -> Point', `P1 + Q for affine Q = (X2, Y2), ${minusOne ? 'madd-2008-hwcd-3' : 'madd-2008-hwcd'} (Z2 = 1)${complete ? '; complete' : ', with the dedicated formula where it fails'}`, steps(mixed, [
    'T2 = X2 * Y2',
    ...unified(true),
    ...fallback('p1, g_fromAffine(q)', 'fp_eq(p1.x, fp_mul(q.x, p1.z)) && fp_eq(p1.y, fp_mul(q.y, p1.z))', 'g_doubleAffine(q)'),
    'return Point(X3, Y3, Z3, T3);',
  ]))}${complete ? '' : `

${fn('g_addDedicated(p1: Point, p2: Point) -> Point', `P1 + P2, add-2008-hwcd-2 (dedicated): right wherever the unified formula gives Z3 = 0 (not for P1 = P2)`, steps(two, [
    'A = X1 * X2',
    'B = Y1 * Y2',
    'C = Z1 * T2',
    'D = T1 * Z2',
    'E = D + C',
    'F = (X1 - Y1) * (X2 + Y2) + B - A',
    'G = B + a * A',
    'H = D - C',
    ...finish,
    'return Point(X3, Y3, Z3, T3);',
  ]))}`}`;
}

/** The twist's b' as { c0, c1 } BigInts mod p, from deriveG2Params ({ c0, c1 }) or a curve JSON's g2 ([c0, c1]). */
function twistB(g2, p) {
  const b = g2?.b;
  const pair = Array.isArray(b) ? b : [b?.c0, b?.c1];
  if (pair.length !== 2 || pair.some((v) => v === undefined || v === null)) throw new TypeError('curveWgsl: g2.b must be [c0, c1] or { c0, c1 }');
  const [c0, c1] = pair.map((v) => mod(big(v), p));
  if (c0 === 0n && c1 === 0n) throw new RangeError('curveWgsl: the twist\'s b\' must be nonzero');
  return { c0, c1 };
}

/**
 * WGSL text of the g_ kernels for a curve, over the fp_ kernels of codegen/kernels/wgsl-field.js (prepend those).
 * @param curve { name?, model?: 'short-weierstrass' (default) | 'twisted-edwards', a, b | a, d } with BigInts or
 *   0x-hex / decimal strings (a codegen/curves/*.json object as parsed), or the result of deriveCurveParams (its
 *   model object's kind and coefficients are used for a twisted Edwards curve, not the Weierstrass image)
 * @param fieldParams deriveFieldParams({ p, w, kernel: 'gpu' }) of the curve's base field
 * @param options.field 'fp' (G1, the default) or 'fp2': G2 on the twist y^2 = x^3 + b' over F_p2, coordinates
 *   typed Coord (= Fp2) and every operation fp2_ (prepend fieldWgsl's and field2Wgsl's text); needs a = 0
 * @param options.g2 with field 'fp2': deriveG2Params' result or the curve JSON's g2 section (its b'); defaults to
 *   curve.g2
 */
export function curveWgsl(curve, fieldParams, { field = 'fp', g2 = curve.g2 } = {}) {
  const p = fieldParams.p;
  if (curve.p !== undefined && big(curve.p) !== p) throw new RangeError('curveWgsl: the curve\'s p is not the field\'s');
  if (field !== 'fp' && field !== 'fp2') throw new RangeError(`curveWgsl: options.field must be 'fp' or 'fp2', got ${JSON.stringify(field)}`);
  const modelObject = curve.model !== null && typeof curve.model === 'object' ? curve.model : null;
  const kind = modelObject ? modelObject.kind : curve.model ?? 'short-weierstrass';
  const coefficient = (k) => {
    const v = modelObject ? modelObject.coefficients[k] : curve[k];
    if (v === undefined) throw new TypeError(`curveWgsl: missing coefficient ${k}`);
    return mod(big(v), p);
  };
  if (field === 'fp2') {
    if (kind !== 'short-weierstrass' || coefficient('a') !== 0n) throw new RangeError('curveWgsl: G2 (field \'fp2\') is for short Weierstrass curves with a = 0 (sextic twists y^2 = x^3 + b\')');
    if (!g2) throw new TypeError('curveWgsl: field \'fp2\' needs options.g2 (deriveG2Params or the curve JSON\'s g2) for b\'');
    return `// ---------------------------------------------------------------------------------------------------------------
// curve kernels of ${curve.name ? `${curve.name} ` : ''}G2 (codegen/kernels/wgsl-curve.js): points in Montgomery form, every coordinate
// an Fp2 with both components in [0, 2p)
${weierstrass(fieldParams, { a: 0n, b: twistB(g2, p) }, FIELD_FP2)}\n`;
  }
  const title = `// ---------------------------------------------------------------------------------------------------------------
// curve kernels${curve.name ? ` of ${curve.name}` : ''} (codegen/kernels/wgsl-curve.js): points in Montgomery form, every coordinate in [0, 2p)
`;
  if (kind === 'short-weierstrass') {
    const a = coefficient('a');
    const b = coefficient('b');
    if (mod(4n * a * a * a + 27n * b * b, p) === 0n) throw new RangeError('curveWgsl: singular curve (4a^3 + 27b^2 = 0)');
    return `${title}${weierstrass(fieldParams, { a, b })}\n`;
  }
  if (kind === 'twisted-edwards') {
    const a = coefficient('a');
    const d = coefficient('d');
    if (a === 0n || d === 0n || a === d) throw new RangeError('curveWgsl: a twisted Edwards curve needs a, d nonzero and a != d');
    if (isSquare(d, p)) throw new RangeError('curveWgsl: d must be a non-square mod p (as params/models.js requires)');
    return `${title}${edwards(fieldParams, { a, d }, p)}\n`;
  }
  throw new RangeError(`curveWgsl: no WGSL kernels for the model ${JSON.stringify(kind)}`);
}
