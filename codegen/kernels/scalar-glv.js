// GLV scalar decomposition k -> (k0, k1) with k = k0 + k1 * lambda (mod r), as straight-line Wasm over
// i64 locals holding 32-bit limbs. The math and the proof of the bound are in codegen/params/glv.js.
//
// Memory (all little-endian, no alignment required):
//   scalar: scalarBytes = ceil(bits(r) / 8) bytes, an integer k in [0, r) (the caller guarantees k < r)
//   record: recordBytes = 4 * (2H + 2) bytes:
//     [0, 4H)        |k0| as H u32 words
//     [4H, 8H)       |k1| as H u32 words
//     [8H, 8H + 4)   neg0: u32, 1 if k0 < 0 else 0
//     [8H + 4, 8H+8) neg1: u32, 1 if k1 < 0 else 0
//   with |k0|, |k1| < 2^halfBits and H = ceil(halfBits / 32).
//
// Carry invariant of every column step below: acc, carry <= 2^32 - 1 and a u32 x u32 product is at most
// (2^32 - 1)^2, so acc + product + carry <= 2^64 - 1 never overflows the i64.

import { Func, i32, i64, local, loop, block, br, br_if, call, comment } from '../wat/index.js';
import { glvRecordLayout } from '../params/glv.js';

export { glvRecordLayout };

const MASK32 = i64.const('0xffffffff');
const hex = (x) => (x < 0n ? '-0x' + (-x).toString(16) : '0x' + x.toString(16));
const wordsOf = (x, n) => Array.from({ length: n }, (_, j) => (x >> BigInt(32 * j)) & 0xffffffffn);
const wordCount = (x) => Math.max(1, Math.ceil(x.toString(2).length / 32));

/**
 * An accumulator of L u32 words in i64 locals `${name}0..`, modulo 2^(32L). Tracks which words have been
 * written (an unwritten word is known to be zero) so the generated code skips adding known zeros.
 */
class Acc {
  constructor(fn, name, L) {
    this.fn = fn;
    this.name = name;
    this.L = L;
    this.live = new Array(L).fill(false);
  }
  word(j) {
    return this.live[j] ? local.get(`${this.name}${j}`) : i64.const(0);
  }
  set(j, value) {
    this.live[j] = true;
    return local.set(this.fn.local(`${this.name}${j}`), value);
  }
  /**
   * acc += x * Y (mod 2^(32L)), x given as u32-word expressions (locals), Y a constant given as BigInt
   * words. Row-wise schoolbook: row i adds x_i * Y at word i, carrying through the known-nonzero words;
   * products and carries past word L - 1 are dropped (that is the reduction mod 2^(32L)).
   */
  addProduct(xs, ys) {
    const out = [];
    const carry = this.fn.local('carry');
    const t = this.fn.local('t');
    for (let i = 0; i < xs.length && i < this.L; i++) {
      let carryLive = false;
      for (let c = i; c < this.L; c++) {
        const j = c - i;
        const terms = [];
        if (this.live[c]) terms.push(local.get(`${this.name}${c}`));
        if (j < ys.length && ys[j] !== 0n) terms.push(i64.mul(xs[i], i64.const(hex(ys[j]))));
        if (carryLive) terms.push(local.get(carry));
        const productColumn = j < ys.length;
        if (!productColumn && !carryLive) break; // row done, nothing left to carry
        const hasProduct = j < ys.length && ys[j] !== 0n;
        if (!hasProduct && !carryLive) continue; // zero limb of Y and no carry: the word stays as it is
        if (!hasProduct && !this.live[c]) {
          out.push(this.set(c, local.get(carry))); // carry <= 2^32 - 1 lands in a zero word
          carryLive = false;
          if (!productColumn) break;
          continue;
        }
        const sum = terms.reduce((acc, x) => i64.add(acc, x));
        if (c === this.L - 1) {
          // top word: keep 32 bits, the carry out is dropped (mod 2^(32L))
          out.push(this.set(c, i64.and(sum, MASK32)));
          carryLive = false;
        } else {
          out.push(local.set(t, sum));
          out.push(this.set(c, i64.and(local.get(t), MASK32)));
          out.push(local.set(carry, i64.shr_u(local.get(t), i64.const(32))));
          carryLive = true;
        }
      }
    }
    return out;
  }
}

/** Expression loading u32 word w of a scalarBytes-byte little-endian integer at `ptr` (no read past it). */
function loadScalarWord(ptr, w, scalarBytes) {
  if (4 * w + 4 <= scalarBytes) return i64.load32_u(local.get(ptr), 4 * w);
  let e = null;
  for (let byte = 4 * w; byte < scalarBytes; byte++) {
    let x = i64.load8_u(local.get(ptr), byte);
    if (byte % 4) x = i64.shl(x, i64.const(8 * (byte % 4)));
    e = e === null ? x : i64.or(e, x);
  }
  return e;
}

/**
 * The decompose kernels for one curve, as Funcs for a module with imported memory.
 * @param {object} glv frozen params from deriveGlvParams (not null)
 * @param {{ prefix?: string }} options exported names are `${prefix}_decompose`, `${prefix}_decomposeBatch`
 * @returns {Func[]}
 */
export function glvKernels(glv, { prefix = 'glv' } = {}) {
  if (!glv) throw new TypeError('glvKernels needs GLV params (deriveGlvParams returned null for this curve)');
  const { m, g1, g2, s1, s2, cMax1, cMax2, H, T, halfBits, scalarBits, scalarBytes, recordBytes } = glv;
  const { a1, b1, a2, b2 } = glv.basis;
  const nK = Math.ceil(scalarBytes / 4);
  const mw = m / 32;
  const mod2T = (x) => BigInt.asUintN(32 * T, x);
  const A1 = mod2T(-BigInt(s1) * a1);
  const A2 = mod2T(-BigInt(s2) * a2);
  const B1 = mod2T(-BigInt(s1) * b1);
  const B2 = mod2T(-BigInt(s2) * b2);

  const fn = new Func(`${prefix}_decompose`, {
    params: [['out', 'i32'], ['scalar', 'i32']],
    exportName: `${prefix}_decompose`,
    doc: [
      `${prefix}_decompose(out, scalar): k = k0 + k1 * lambda (mod r) for k < r (${scalarBytes} LE bytes at scalar)`,
      `lambda = ${hex(glv.lambda)}`,
      `writes |k0| (${H} u32), |k1| (${H} u32), neg0 (u32), neg1 (u32) = ${recordBytes} bytes at out;`,
      `|k0| <= ${hex(glv.bound0)}, |k1| <= ${hex(glv.bound1)} (< 2^${halfBits}). out and scalar may be unaligned.`,
    ].join('\n'),
  });

  // k as nK u32 words
  const body = [comment(`k = sum k_j * 2^(32j), ${scalarBits} bits, ${scalarBytes} bytes`)];
  for (let w = 0; w < nK; w++) body.push(local.set(fn.local(`k${w}`), loadScalarWord('scalar', w, scalarBytes)));
  const kWords = Array.from({ length: nK }, (_, w) => local.get(`k${w}`));

  // ĉ_i = floor(k * g_i / 2^m): k * g_i mod 2^(32 * (m/32 + nC)), then words m/32.. (ĉ_i <= cMax_i < 2^(32 nC))
  const cWords = [];
  const nearest = glv.roundingAddend !== 0n;
  for (const [i, g, cMax, s, e] of [[1, g1, cMax1, s1, 'b2'], [2, g2, cMax2, s2, 'b1']]) {
    if (cMax === 0n) {
      body.push(comment(`ĉ${i} = floor((k * g${i}${nearest ? ` + 2^${m - 1}` : ''}) / 2^${m}) = 0 for every k < r (g${i} = ${hex(g)}): c${i} drops out`));
      cWords.push(null);
      continue;
    }
    const nC = wordCount(cMax);
    const acc = new Acc(fn, `p${i}_`, mw + nC);
    const x = i === 1 ? 'k * b2 / r' : '-k * b1 / r';
    body.push(comment(
      `c${i} = ${s < 0 ? '-' : ''}ĉ${i} ~ ${x}: ĉ${i} = floor((k * g${i}${nearest ? ` + 2^${m - 1}` : ''}) / 2^${m}), g${i} = round(2^${m} * |${e}| / r) = ${hex(g)}\n` +
      `ĉ${i} <= ${hex(cMax)} (${nC} words): compute it mod 2^${32 * (mw + nC)} and keep words ${mw}..${mw + nC - 1}`,
    ));
    if (nearest) body.push(acc.set(mw - 1, i64.const('0x80000000')));
    body.push(acc.addProduct(kWords, wordsOf(g, wordCount(g))));
    cWords.push(Array.from({ length: nC }, (_, j) => acc.word(mw + j)));
  }

  // k0, k1 modulo 2^(32T), two's complement
  const halves = [
    {
      name: 'u',
      what: 'k0',
      note: `k0 = k - c1*a1 - c2*a2 = k + ĉ1 * A1 + ĉ2 * A2 (mod 2^${32 * T}), A1 = -s1*a1 = -(${s1})*${hex(a1)}, A2 = -s2*a2 = -(${s2})*${hex(a2)}`,
      init: true,
      consts: [A1, A2],
    },
    {
      name: 'v',
      what: 'k1',
      note: `k1 = -c1*b1 - c2*b2 = ĉ1 * B1 + ĉ2 * B2 (mod 2^${32 * T}), B1 = -s1*b1 = -(${s1})*${hex(b1)}, B2 = -s2*b2 = -(${s2})*${hex(b2)}`,
      init: false,
      consts: [B1, B2],
    },
  ];
  halves.forEach(({ name, what, note, init, consts }, h) => {
    const acc = new Acc(fn, `${name}`, T);
    body.push(comment(note + `\n|${what}| < 2^${halfBits} <= 2^${32 * T - 1}, so the ${T}-word two's complement is exact`));
    if (init) for (let w = 0; w < Math.min(nK, T); w++) body.push(acc.set(w, local.get(`k${w}`)));
    consts.forEach((C, i) => cWords[i] && body.push(acc.addProduct(cWords[i], wordsOf(C, T))));
    // sign and magnitude: neg = top bit; |x| = (x xor mask) + neg with mask = neg ? 2^32 - 1 : 0 per word
    const neg = fn.local(`neg${h}`);
    const mask = fn.local(`mask${h}`);
    body.push(comment(`neg${h} = ${what} < 0 (top bit of word ${T - 1}); |${what}| = (${what} xor -neg${h}) + neg${h}, low ${H} words`));
    body.push(local.set(neg, i64.shr_u(acc.word(T - 1), i64.const(31))));
    body.push(local.set(mask, i64.shr_u(i64.sub(i64.const(0), local.get(neg)), i64.const(32))));
    const carry = fn.local('carry');
    const t = fn.local('t');
    for (let w = 0; w < H; w++) {
      const x = i64.add(i64.xor(acc.word(w), local.get(mask)), local.get(w === 0 ? neg : carry));
      if (w === H - 1) {
        body.push(i64.store32(local.get('out'), x, 4 * (h * H + w))); // store32 keeps the low 32 bits
      } else {
        body.push(local.set(t, x));
        body.push(i64.store32(local.get('out'), local.get(t), 4 * (h * H + w)));
        body.push(local.set(carry, i64.shr_u(local.get(t), i64.const(32))));
      }
    }
    body.push(i64.store32(local.get('out'), local.get(neg), 4 * (2 * H + h)));
  });
  fn.push(body);

  const batch = new Func(`${prefix}_decomposeBatch`, {
    params: [['out', 'i32'], ['scalars', 'i32'], ['count', 'i32']],
    exportName: `${prefix}_decomposeBatch`,
    doc: `${prefix}_decomposeBatch(out, scalars, count): ${prefix}_decompose on count scalars (${scalarBytes} bytes each,\nback to back) into count records (${recordBytes} bytes each, back to back)`,
  });
  batch.push(
    block('done', [
      loop('next', [
        br_if('done', i32.eqz(local.get('count'))),
        call(`${prefix}_decompose`, local.get('out'), local.get('scalars')),
        local.set('out', i32.add(local.get('out'), i32.const(recordBytes))),
        local.set('scalars', i32.add(local.get('scalars'), i32.const(scalarBytes))),
        local.set('count', i32.sub(local.get('count'), i32.const(1))),
        br('next'),
      ]),
    ]),
  );
  return [fn, batch];
}
