// A snarkjs Groth16 proving key (.zkey), read once, section by section, with every size checked against the header.
//
// Sections (snarkjs src/zkey_utils.js, src/zkey_new.js; little-endian throughout):
//   1  protocol id u32: 1 Groth16 (2 PLONK, 10 FFLONK are refused here)
//   2  n8q u32, q (n8q bytes), n8r u32, r (n8r bytes), nVars u32, nPublic u32, domainSize u32,
//      vk_alpha_1 G1, vk_beta_1 G1, vk_beta_2 G2, vk_gamma_2 G2, vk_delta_1 G1, vk_delta_2 G2
//   3  IC: nPublic + 1 G1 (the verifier's; not needed to prove)
//   4  coefficients of A and B: count u32, then count records of (matrix u32 (0 A, 1 B), constraint u32, signal u32,
//      value n8r bytes). The value of a coefficient c is stored as c * R^2 mod r, R = 2^(8 n8r), little-endian:
//      newZKey multiplies the Montgomery form c R by R^2 in Montgomery (c R^3, the Montgomery form of c R^2) and
//      writes it out of Montgomery. The prover Montgomery-multiplies it by a plain witness value w, which gives
//      c w R: the evaluations A_T, B_T come out in Montgomery form, as ffjavascript's FFT takes them.
//   5  A: nVars G1     6  B1: nVars G1     7  B2: nVars G2     8  C: nVars - nPublic - 1 G1 (the private signals)
//   9  H: domainSize G1 (odd powers of the 2n-domain's Lagrange basis: the coset w_2n H)
//   10 contributions (not needed to prove)
// A point is ffjavascript's "LEM" form: x | y, each coordinate little-endian in Montgomery form (R = 2^(8 n8q)),
// an F_p2 coordinate c0 | c1; the all-zero encoding is the point at infinity.

import { FileFormatError, openBinFile, bigIntLE, lessThan } from './source.js';

/** The curves snarkjs proves on, by their base field prime q (snarkjs names them as ffjavascript does). */
export const CURVES = Object.freeze({
  bn128: {
    q: 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n,
    r: 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n,
    n8q: 32, // bytes of a base-field coordinate and of a scalar in its files (ffjavascript's sizes)
    n8r: 32,
    twoAdicity: 28,
  },
  bls12381: {
    q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
    r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    n8q: 48,
    n8r: 32,
    twoAdicity: 32,
  },
});

const PROTOCOLS = { 1: 'groth16', 2: 'plonk', 10: 'fflonk' };
const SECTION_NAMES = { 1: 'protocol', 2: 'Groth16 header', 3: 'IC', 4: 'coefficients', 5: 'A', 6: 'B1', 7: 'B2', 8: 'C', 9: 'H', 10: 'contributions' };
const noSection = (id) => new FileFormatError(`zkey: no section ${id} (${SECTION_NAMES[id] ?? 'unknown'})`);
/** What the prover reads, and the default of sections(). */
export const PROVING_SECTIONS = Object.freeze([4, 5, 6, 7, 8, 9]);
/** The coefficient record's size besides its value: matrix, constraint, signal. */
const RECORD_HEAD = 12;

/** A field element in Montgomery form (R = 2^(8 n8)) out of Montgomery: x R^-1 mod q (R^-1 kept per prime). */
const R_INVERSES = new Map();
function fromMontgomery(x, q, n8) {
  let rInv = R_INVERSES.get(q);
  if (rInv === undefined) R_INVERSES.set(q, (rInv = inverse((1n << BigInt(8 * n8)) % q, q)));
  return (x * rInv) % q;
}

function inverse(a, m) {
  let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
  while (r1) {
    const t = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - t * r1, s1, s0 - t * s1];
  }
  return ((s0 % m) + m) % m;
}

/**
 * A G1 (coords 1) or G2 (coords 2) point of LEM bytes as canonical affine BigInts: { x, y } (G2: { x: { c0, c1 },
 * y: { c0, c1 } }), null for infinity. Coordinates are checked to be < q; being on the curve is not checked here
 * (the prover's point loading checks it). label: how the error names the point.
 */
export function decodePoint(bytes, { q, n8q }, coords = 1, label = 'zkey: a point') {
  if (bytes.every((b) => b === 0)) return null;
  const c = [];
  for (let i = 0; i < 2 * coords; i++) {
    const v = bigIntLE(bytes, i * n8q, n8q);
    if (v >= q) throw new FileFormatError(`${label}: a coordinate is not below q`);
    c.push(fromMontgomery(v, q, n8q));
  }
  return coords === 1 ? { x: c[0], y: c[1] } : { x: { c0: c[0], c1: c[1] }, y: { c0: c[2], c1: c[3] } };
}

/** The curve whose base field q is, or a FileFormatError. */
function curveOf(q, r) {
  const name = Object.keys(CURVES).find((k) => CURVES[k].q === q);
  if (!name) throw new FileFormatError(`zkey: unknown curve (q = ${q}); snarkjs zkeys on bn128 and bls12381 are supported`);
  if (CURVES[name].r !== r) throw new FileFormatError(`zkey: r = ${r} is not the scalar field of ${name}`);
  return name;
}

/**
 * Opens a Groth16 zkey: reads sections 1 and 2 (a stream must give them before the proving sections, as snarkjs
 * writes them; sections before them are skipped, so a PLONK stream is named as such without buffering it) and checks
 * the header. Returns a ZkeyReader whose `header` is:
 *   { protocol: 'groth16', curve: 'bn128' | 'bls12381', n8q, q, n8r, r, nVars, nPublic, domainSize, power,
 *     vk_alpha_1, vk_beta_1, vk_delta_1: { x, y } | null, vk_beta_2, vk_gamma_2, vk_delta_2: { x: { c0, c1 },
 *     y: { c0, c1 } } | null (canonical affine BigInts, null = infinity), lem: the same six points' LEM bytes }
 * and whose sections() reads the rest.
 */
export async function openZkey(input) {
  const file = await openBinFile(input, 'zkey', { maxVersion: 2 });
  try {
    const reader = new ZkeyReader(file);
    await reader.readHeader();
    return reader;
  } catch (e) {
    await file.close();
    throw e;
  }
}

class ZkeyReader {
  #file;
  #seen = new Set(); // section ids met so far (duplicates are refused, as snarkjs refuses them)
  #skipped = []; // sections a stream went past before the header
  header = null;

  constructor(file) {
    this.#file = file;
  }

  /** Read once, in order (a stream): the sizes of the sections to come are known only as each comes. */
  get streamed() {
    return !this.#file.table;
  }

  #once(s) {
    if (this.#seen.has(s.id)) throw new FileFormatError(`zkey: section ${s.id} appears twice`);
    this.#seen.add(s.id);
  }

  async readHeader() {
    const file = this.#file;
    let protocol = null;
    let found = file.table ? null : [];
    const find = async (id) => {
      if (file.table) return file.table.find((s) => s.id === id) ?? null;
      return found.find((s) => s.id === id) ?? null;
    };
    if (!file.table) {
      // a stream: walk to sections 1 and 2, skipping what comes before them
      while (found.length < 2) {
        const s = await file.next();
        if (!s) break;
        this.#once(s);
        if (s.id === 1 || s.id === 2) {
          s.body = await file.bytes(s);
          found.push(s);
          if (s.id === 1) protocol = protocolOf(s.body);
          if (protocol && protocol !== 'groth16') break;
        } else this.#skipped.push(s.id);
      }
    } else {
      for (const s of file.table) if (s.id === 1 || s.id === 2) this.#once(s);
    }
    const s1 = await find(1);
    if (!s1) throw noSection(1);
    if (!protocol) protocol = protocolOf(s1.body ?? (await file.bytes(s1)));
    if (protocol !== 'groth16') throw new FileFormatError(`not a Groth16 zkey (protocol ${protocol})`);
    const s2 = await find(2);
    if (!s2) throw noSection(2);
    this.header = parseHeader(s2.body ?? (await file.bytes(s2)));
    // bytes or a path: every section's size is known now, so a header that does not match them (a domainSize or nVars
    // the point sections do not have) is refused before a proof allocates and computes for it
    if (file.table) {
      for (const s of file.table) this.#checkSize(s);
      const missing = PROVING_SECTIONS.find((id) => !file.table.some((s) => s.id === id));
      if (missing !== undefined) throw noSection(missing);
    }
    const early = this.#skipped.filter((id) => PROVING_SECTIONS.includes(id));
    if (early.length) throw new FileFormatError(`zkey stream: section ${early[0]} comes before the header (sections 1 and 2), and a stream is read once; pass the zkey as bytes or a path`);
  }

  /** The size section `id` must have, from the header (undefined: any). Section 4's depends on its count. */
  expectedSize(id, count) {
    const { n8q, n8r, nVars, nPublic, domainSize } = this.header;
    const g1 = 2 * n8q;
    return { 3: (nPublic + 1) * g1, 4: count === undefined ? undefined : 4 + count * (RECORD_HEAD + n8r), 5: nVars * g1, 6: nVars * g1, 7: nVars * 2 * g1, 8: (nVars - nPublic - 1) * g1, 9: domainSize * g1 }[id];
  }

  /**
   * The sections `ids` (default: the proving sections 4 to 9) in file order, each { id, name, bytes } with its size
   * checked (section 4's records too: see checkCoefficients) before it is handed out; others are skipped unread.
   * Once the file ends, a missing one is an error. A section is read when the iterator reaches it: hold it only as
   * long as it is needed. Bytes given as bytes are viewed, not copied.
   * snarkjs's newZKey writes 4 3 9 8 5 6 7 10: the coefficients come before every point section, so a prover that has
   * the witness can have each MSM's scalars ready when its points arrive, and never holds two point sections at once.
   * With `parts: true` a section is handed out unread, its size checked, as { id, name, size, part(offset, n, into) }
   * (BinFile.part: a stream's in order, before the iterator moves on); section 4's records are then the reader's to
   * check (checkCoefficients with its `first`), and its size is checked against the count it starts with.
   * `first`: ids handed out before the others where the input is bytes or a path (a stream's come in file order).
   */
  async *sections(ids = PROVING_SECTIONS, { parts = false, first = [] } = {}) {
    const want = new Set(ids);
    const file = this.#file;
    let order = file.table ? file.table.filter((s) => s.id !== 1 && s.id !== 2) : null;
    if (order) order = [...order.filter((s) => first.includes(s.id)), ...order.filter((s) => !first.includes(s.id))];
    for (let i = 0; ; i++) {
      let s;
      if (order) s = order[i] ?? null;
      else s = await file.next(); // a stream is past sections 1 and 2 already
      if (!s) break;
      this.#once(s);
      if (!want.has(s.id)) {
        this.#checkSize(s); // unread, but refused as it would be from bytes or a path
        continue;
      }
      if (parts) yield { id: s.id, name: SECTION_NAMES[s.id], ...(await this.#parts(s)) };
      else yield { id: s.id, name: SECTION_NAMES[s.id], bytes: await this.#read(s) };
    }
    const missing = [...want].filter((id) => !this.#seen.has(id));
    if (missing.length) throw noSection(missing[0]);
  }

  /** One section's checked bytes, out of order (bytes or a path only). */
  async section(id) {
    if (!this.#file.table) throw new Error('zkey: a stream is read once, in order: use sections()');
    const all = this.#file.table.filter((s) => s.id === id);
    if (all.length > 1) throw new FileFormatError(`zkey: section ${id} appears twice`);
    if (!all.length) throw noSection(id);
    return this.#read(all[0]);
  }

  /** A section unread: its size checked (section 4's from its count, read here), and a reader of its parts. */
  async #parts(s) {
    const file = this.#file;
    const part = (offset, n, into) => file.part(s, offset, n, into);
    this.#checkSize(s);
    if (s.id === 4) {
      const head = await part(0, 4);
      const count = new DataView(head.buffer, head.byteOffset, 4).getUint32(0, true);
      const rec = RECORD_HEAD + this.header.n8r;
      if (s.size !== 4 + count * rec) throw new FileFormatError(`zkey: section 4 (coefficients) is ${s.declared ?? s.size} bytes; its count ${count} needs ${4 + count * rec}`);
      return { size: s.size, count, part };
    }
    return { size: s.size, part };
  }

  #checkSize(s) {
    const expected = this.expectedSize(s.id);
    if (s.id === 4) {
      // its size follows from the count it starts with: checkCoefficients checks it once read
      if (s.size < 4) throw new FileFormatError(`zkey: section 4 (coefficients) is ${s.declared ?? s.size} bytes, less than its count`);
    } else if (expected !== undefined && s.size !== expected) {
      throw new FileFormatError(`zkey: section ${s.id} (${SECTION_NAMES[s.id]}) is ${s.declared ?? s.size} bytes; the header (nVars ${this.header.nVars}, nPublic ${this.header.nPublic}, domainSize ${this.header.domainSize}) needs ${expected}`);
    }
  }

  async #read(s) {
    this.#checkSize(s);
    const bytes = await this.#file.bytes(s);
    if (s.id === 4) checkCoefficients(bytes, this.header);
    return bytes;
  }

  async close() {
    await this.#file.close();
  }
}

function protocolOf(body) {
  if (body.length !== 4) throw new FileFormatError(`zkey: section 1 (protocol) is ${body.length} bytes, not 4`);
  const id = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
  return PROTOCOLS[id] ?? `id ${id}`;
}

/** Section 2 of a Groth16 zkey, checked. */
function parseHeader(b) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const fail = (what) => new FileFormatError(`zkey: section 2 (Groth16 header) ${what}`);
  let at = 0;
  const u32 = () => {
    if (at + 4 > b.length) throw fail(`is ${b.length} bytes, too short`);
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const big = (n) => {
    if (at + n > b.length) throw fail(`is ${b.length} bytes, too short`);
    const v = bigIntLE(b, at, n);
    at += n;
    return v;
  };
  const n8q = u32();
  if (n8q === 0 || n8q % 8 || n8q > 1024) throw fail(`has n8q = ${n8q}, not a multiple of 8`);
  const q = big(n8q);
  const n8r = u32();
  if (n8r === 0 || n8r % 8 || n8r > 1024) throw fail(`has n8r = ${n8r}, not a multiple of 8`);
  const r = big(n8r);
  const curve = curveOf(q, r);
  // the kernels and the MSMs read elements of the curve's own sizes: a padded encoding would be read wrong, not refused
  if (n8q !== CURVES[curve].n8q || n8r !== CURVES[curve].n8r) {
    throw fail(`has n8q = ${n8q} and n8r = ${n8r}; ${curve} takes ${CURVES[curve].n8q} and ${CURVES[curve].n8r}`);
  }
  const nVars = u32();
  const nPublic = u32();
  const domainSize = u32();
  const expected = at + 3 * 2 * n8q + 3 * 4 * n8q; // 3 G1 (2 n8q bytes each) and 3 G2 (4 n8q) follow
  if (b.length !== expected) throw fail(`is ${b.length} bytes; with n8q ${n8q} it must be ${expected}`);
  if (nVars < 1 || nPublic >= nVars) throw fail(`has nPublic ${nPublic} and nVars ${nVars}: nPublic must be below nVars`);
  if (domainSize < 1 || (domainSize & (domainSize - 1)) !== 0) throw fail(`has domainSize ${domainSize}, not a power of two`);
  const power = 31 - Math.clz32(domainSize);
  if (power > CURVES[curve].twoAdicity) throw fail(`has domainSize 2^${power}, beyond ${curve}'s 2^${CURVES[curve].twoAdicity}`);
  const header = { protocol: 'groth16', curve, n8q, q, n8r, r, nVars, nPublic, domainSize, power, lem: {} };
  for (const [name, coords] of [['vk_alpha_1', 1], ['vk_beta_1', 1], ['vk_beta_2', 2], ['vk_gamma_2', 2], ['vk_delta_1', 1], ['vk_delta_2', 2]]) {
    const lem = b.subarray(at, at + 2 * coords * n8q);
    at += lem.length;
    header.lem[name] = lem;
    header[name] = decodePoint(lem, header, coords, `zkey: section 2 (Groth16 header): ${name}`);
  }
  return header;
}

/**
 * Checks section 4: its size is 4 + count * (12 + n8r) for the count it starts with, and every record has matrix 0
 * or 1, constraint < domainSize, signal < nVars, value < r. One pass of u32 reads (the value compare stops at its
 * first differing word). Returns the count. With `first` (a number), bytes are whole records only, the first of them
 * record `first` of the section (a part of it, read as sections({ parts: true }) gives them); returns their count.
 */
export function checkCoefficients(bytes, { n8r, r, nVars, domainSize }, first) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rec = RECORD_HEAD + n8r;
  const whole = first === undefined;
  const count = whole ? view.getUint32(0, true) : bytes.length / rec;
  if (whole && bytes.length !== 4 + count * rec) throw new FileFormatError(`zkey: section 4 (coefficients) is ${bytes.length} bytes; its count ${count} needs ${4 + count * rec}`);
  if (!Number.isInteger(count)) throw new RangeError(`a part of section 4 of ${bytes.length} bytes is not whole records of ${rec}`);
  const below = lessThan(r, n8r);
  for (let i = whole ? 0 : first, at = whole ? 4 : 0, end = i + count; i < end; i++, at += rec) {
    const matrix = view.getUint32(at, true);
    const constraint = view.getUint32(at + 4, true);
    const signal = view.getUint32(at + 8, true);
    if (matrix > 1 || constraint >= domainSize || signal >= nVars || !below(view, at + RECORD_HEAD)) {
      const what = matrix > 1 ? `matrix ${matrix} (0 or 1)` : constraint >= domainSize ? `constraint ${constraint} (domainSize ${domainSize})` : signal >= nVars ? `signal ${signal} (nVars ${nVars})` : 'a value not below r';
      throw new FileFormatError(`zkey: coefficient ${i} of section 4 has ${what}`);
    }
  }
  return count;
}

/**
 * The coefficients of section 4 as { matrix, constraint, signal, value } with value the coefficient c itself
 * (stored c R^2 times R^-2 mod r). BigInt: for tests and small circuits.
 */
export function* coefficients(bytes, { n8r, r }) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  const rec = RECORD_HEAD + n8r;
  const rInv2 = inverse(((1n << BigInt(8 * n8r)) % r) ** 2n % r, r);
  for (let i = 0, at = 4; i < count; i++, at += rec) {
    const stored = bigIntLE(bytes, at + RECORD_HEAD, n8r);
    yield { matrix: view.getUint32(at, true), constraint: view.getUint32(at + 4, true), signal: view.getUint32(at + 8, true), value: (stored * rInv2) % r };
  }
}

/**
 * The whole zkey in memory: { header, sections: { 4: bytes, 5: ..., 9: bytes } } (tests, small circuits; the prover
 * streams sections() instead).
 */
export async function readZkey(input, ids = PROVING_SECTIONS) {
  const zkey = await openZkey(input);
  try {
    const sections = {};
    for await (const s of zkey.sections(ids)) sections[s.id] = s.bytes;
    return { header: zkey.header, sections };
  } finally {
    await zkey.close();
  }
}
