// A witness (.wtns) as circom / snarkjs write it (snarkjs src/wtns_utils.js), version 2:
//   1  n8 u32, the field prime (n8 bytes; the scalar field r of the zkey's curve), nWitness u32
//   2  nWitness values, n8 bytes each, little-endian, in normal form (not Montgomery); value 0 is the constant 1
// The values are checked to be below the prime here (one pass of u32 compares), so the prover can take them as
// scalars as they are.

import { FileFormatError, openBinFile, bigIntLE, lessThan } from './source.js';

/**
 * Reads a witness. `expect` (optional): { r, nVars, n8 } from the zkey's header (n8: its n8r): a witness of another
 * field, of another length, or with values of another size, is refused with an error that says so.
 * @returns {Promise<{ n8: number, q: bigint, nWitness: number, bytes: Uint8Array, own: boolean }>} q is the witness's
 *   field prime; bytes the nWitness * n8 bytes of section 2 (a view of the input when it was bytes, else a new array:
 *   own, for the prover to let go of once it is done with them).
 */
export async function readWtns(input, expect = {}) {
  const file = await openBinFile(input, 'wtns', { maxVersion: 2 });
  try {
    let head = null;
    let values = null;
    let order = file.table ?? null;
    // sections in file order (circom writes 1 then 2); a stream must give 1 before 2, a seekable source need not
    if (order) order = [...order].sort((a, b) => a.id - b.id);
    for (let i = 0; ; i++) {
      const s = order ? order[i] ?? null : await file.next();
      if (!s) break;
      if (s.id !== 1 && s.id !== 2) continue;
      if ((s.id === 1 && head) || (s.id === 2 && values)) throw new FileFormatError(`wtns: section ${s.id} appears twice`);
      if (s.id === 1) {
        head = parseHead(await file.bytes(s), expect);
      } else {
        if (!head) throw new FileFormatError('wtns stream: section 2 (values) comes before section 1 (header); pass the witness as bytes or a path');
        const size = head.nWitness * head.n8;
        if (s.size !== size) throw new FileFormatError(`wtns: section 2 is ${s.size} bytes; ${head.nWitness} values of ${head.n8} bytes need ${size}`);
        values = await file.bytes(s);
        checkValues(values, head);
      }
    }
    if (!head) throw new FileFormatError('wtns: no section 1 (header)');
    if (!values) throw new FileFormatError('wtns: no section 2 (values)');
    return { ...head, bytes: values, own: !file.viewsInput };
  } finally {
    await file.close();
  }
}

function parseHead(b, { r, nVars, n8: n8r }) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const n8 = b.length >= 4 ? view.getUint32(0, true) : 0;
  if (b.length < 4 || n8 === 0 || n8 % 8 || b.length !== 8 + n8) throw new FileFormatError(`wtns: section 1 is ${b.length} bytes with n8 = ${n8}; it must be 8 + n8 bytes, n8 a multiple of 8`);
  const q = bigIntLE(b, 4, n8);
  const nWitness = view.getUint32(4 + n8, true);
  if (r !== undefined && q !== r) throw new FileFormatError(`wtns: a witness of another field (its prime ${q} is not the zkey's scalar field ${r})`);
  if (n8r !== undefined && n8 !== n8r) throw new FileFormatError(`wtns: values of ${n8} bytes; the zkey's scalars take ${n8r}`);
  if (nVars !== undefined && nWitness !== nVars) throw new FileFormatError(`wtns: ${nWitness} values, the zkey has nVars = ${nVars}`);
  return { n8, q, nWitness };
}

function checkValues(bytes, { n8, q, nWitness }) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const below = lessThan(q, n8);
  for (let i = 0; i < nWitness; i++) if (!below(view, i * n8)) throw new FileFormatError(`wtns: value ${i} is not below the field prime`);
}

/** The witness values as BigInts (tests, small circuits). */
export function witnessValues({ n8, nWitness, bytes }) {
  const out = new Array(nWitness);
  for (let i = 0; i < nWitness; i++) out[i] = bigIntLE(bytes, i * n8, n8);
  return out;
}
