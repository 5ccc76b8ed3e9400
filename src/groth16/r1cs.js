// groth16Prove's optional constraint check: a circom .r1cs read once, each constraint (A w) (B w) = (C w) mod r
// checked in BigInt, and the first that fails named. A zkey keeps A and B but not C, so a witness that breaks a
// constraint still gives a proof (one that does not verify): this pass, asked for with the `r1cs` option, says why.
//
// Format (circom's binfile "r1cs", version 1): section 1, the header: u32 n8, the prime (n8 bytes), u32 nWires,
// nPubOut, nPubIn, nPrvIn, u64 nLabels, u32 nConstraints; section 2, the constraints: for each, three linear
// combinations A, B, C, each u32 count then count x (u32 wire, n8-byte canonical little-endian coefficient).

import { bytesToBigIntLE } from '../msm/bytes.js';
import { FileFormatError, openBinFile } from './source.js';

/**
 * Check every constraint of the .r1cs `input` (bytes, stream or path, as groth16Prove's inputs) against `witness`
 * ({ bytes: canonical n8-byte little-endian values }) and the zkey `header` ({ r, n8r, nVars }). Throws a RangeError
 * naming the first constraint the witness breaks or what does not match, or a FileFormatError for a malformed file.
 */
export async function checkConstraints(input, witness, header) {
  const file = await openBinFile(input, 'r1cs', { maxVersion: 1 });
  try {
    // sections 1 (header) and 2 (constraints), in file order (circom writes 2 first): both are needed whole
    const wanted = {};
    for (let s = await file.next(); s && !(wanted[1] && wanted[2]); s = await file.next()) {
      if (s.id === 1 || s.id === 2) {
        if (wanted[s.id]) throw new FileFormatError(`r1cs: section ${s.id} appears twice`);
        wanted[s.id] = await file.bytes(s);
      }
    }
    if (!wanted[1] || !wanted[2]) throw new FileFormatError(`r1cs: no section ${wanted[1] ? 2 : 1}`);
    const head = wanted[1];
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const n8 = view.getUint32(0, true);
    if (head.byteLength !== 4 + n8 + 28) throw new FileFormatError(`r1cs header is ${head.byteLength} bytes, expected ${4 + n8 + 28}`);
    const prime = bytesToBigIntLE(head, 4, n8);
    if (prime !== header.r) throw new RangeError(`the r1cs is over another field (prime ${prime}) than the zkey's (r = ${header.r})`);
    const nWires = view.getUint32(4 + n8, true);
    const nConstraints = view.getUint32(4 + n8 + 24, true);
    if (nWires !== header.nVars) throw new RangeError(`the r1cs has ${nWires} wires and the zkey ${header.nVars} signals`);
    const r = header.r;
    const w = new Array(nWires);
    for (let i = 0; i < nWires; i++) w[i] = bytesToBigIntLE(witness.bytes, i * header.n8r, header.n8r);
    const body = wanted[2];
    const bv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    let o = 0;
    const need = (bytes, i) => {
      if (o + bytes > body.byteLength) throw new FileFormatError(`r1cs truncated: constraint ${i} runs past its section (${body.byteLength} bytes)`);
    };
    const combination = (i) => {
      need(4, i);
      const count = bv.getUint32(o, true);
      o += 4;
      let sum = 0n;
      for (let k = 0; k < count; k++) {
        need(4 + n8, i);
        const wire = bv.getUint32(o, true);
        if (wire >= nWires) throw new FileFormatError(`r1cs constraint ${i} names wire ${wire}, past the ${nWires} wires`);
        sum += bytesToBigIntLE(body, o + 4, n8) * w[wire];
        o += 4 + n8;
      }
      return sum % r;
    };
    for (let i = 0; i < nConstraints; i++) {
      const a = combination(i);
      const b = combination(i);
      const c = combination(i);
      if ((a * b - c) % r !== 0n) throw new RangeError(`the witness does not satisfy constraint ${i} of the r1cs: (A w) (B w) != (C w) mod r`);
    }
    if (o !== body.byteLength) throw new FileFormatError(`r1cs constraints section has ${body.byteLength - o} bytes past its ${nConstraints} constraints`);
  } finally {
    await file.close();
  }
}
