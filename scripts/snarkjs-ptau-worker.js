// Worker process of scripts/snarkjs-ptau.js (a process, not a worker thread: ffjavascript's web-worker shim takes
// every worker thread for one of its own): scalars[i]·G for the generator G of G1 or G2, with ffjavascript's own
// Wasm curve (single-threaded) and a fixed-base table: 8-bit windows, table[k][d] = d·2^(8k)·G, so a point is at
// most 32 mixed additions (a full scalar multiplication is ~380 point operations). ffjavascript's addMixed is
// complete (zero, equal points), so no digit needs a special case.
// Messages: { id, curve: 'bn128' | 'bls12381', group: 'G1' | 'G2', scalars } (32-byte little-endian, normal form,
// each < r) -> { id, points } (affine, Montgomery form, little-endian: snarkjs's layout).

import { buildBn128, buildBls12381 } from 'ffjavascript';

const D = 255; // nonzero digits of a window
const CHUNK = 4096; // points accumulated at once (Jacobian) before one batch normalisation

const builders = { bn128: buildBn128, bls12381: buildBls12381 };
const curves = {};
const tables = {};

/** The group's table in the worker's Wasm memory (made once), and a scratch area after it. */
function setup(curve, name, group) {
  const key = `${name}/${group}`;
  if (tables[key]) return tables[key];
  const G = curve[group];
  const tm = curve.tm;
  const ex = tm.instance.exports;
  const prefix = group === 'G1' ? 'g1m' : 'g2m';
  const K = curve.Fr.n8; // windows of 8 bits
  const sGa = G.F.n8 * 2;
  const sGj = G.F.n8 * 3;
  // Own area at ffjavascript's free pointer (memory[0]), which then moves past it: the batch functions take their
  // temporaries from there (room for them: as much again as the scratch area).
  const align = (p) => (p + 63) & ~63;
  const pTable = align(tm.u32[0]);
  const pScratch = align(pTable + K * D * sGa);
  const scratch = Math.max(K * D, CHUNK) * sGj;
  const pBase = align(pScratch + scratch); // affine 2^(8k)·G
  const pNext = align(pBase + sGa); // Jacobian 2^(8(k+1))·G
  const end = align(pNext + sGj);
  const have = tm.memory.buffer.byteLength;
  if (end + scratch > have) tm.memory.grow(Math.ceil((end + scratch - have) / 65536));
  tm.u8 = new Uint8Array(tm.memory.buffer); // growing detached ffjavascript's views
  tm.u32 = new Uint32Array(tm.memory.buffer);
  tm.u32[0] = end;
  const u8 = () => new Uint8Array(tm.memory.buffer);
  u8().set(G.oneAffine, pBase);
  for (let k = 0; k < K; k++) {
    const row = pScratch + k * D * sGj;
    ex[`${prefix}_toJacobian`](pBase, row);
    for (let d = 1; d < D; d++) ex[`${prefix}_addMixed`](row + (d - 1) * sGj, pBase, row + d * sGj);
    ex[`${prefix}_addMixed`](row + (D - 1) * sGj, pBase, pNext); // 256·base = 255·base + base
    ex[`${prefix}_toAffine`](pNext, pBase);
  }
  ex[`${prefix}_batchToAffine`](pScratch, K * D, pTable);
  return (tables[key] = { ex, prefix, K, sGa, sGj, pTable, pScratch, u8 });
}

function timesGenerator(curve, name, group, scalars) {
  const { ex, prefix, K, sGa, sGj, pTable, pScratch, u8 } = setup(curve, name, group);
  const zero = ex[`${prefix}_zero`];
  const addMixed = ex[`${prefix}_addMixed`];
  const n = scalars.length / K;
  const points = new Uint8Array(n * sGa);
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    for (let i = 0; i < m; i++) {
      const acc = pScratch + i * sGj;
      const s = (start + i) * K;
      zero(acc);
      for (let k = 0; k < K; k++) {
        const d = scalars[s + k];
        if (d) addMixed(acc, pTable + (k * D + d - 1) * sGa, acc);
      }
    }
    ex[`${prefix}_batchToAffine`](pScratch, m, pScratch);
    points.set(u8().subarray(pScratch, pScratch + m * sGa), start * sGa);
  }
  return points;
}

process.on('message', async ({ id, curve: name, group, scalars }) => {
  try {
    curves[name] ??= await builders[name](true);
    process.send({ id, points: timesGenerator(curves[name], name, group, scalars) });
  } catch (e) {
    process.send({ id, error: String(e?.stack ?? e) });
  }
});
process.on('disconnect', () => process.exit());
