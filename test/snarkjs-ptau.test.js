// The fixture powers of tau of scripts/snarkjs-ptau.js (a KNOWN secret, test only), against snarkjs itself: the file
// must be byte for byte what snarkjs 0.7.6 writes by newAccumulator -> beacon (the same public beacon) ->
// preparePhase2, whose phase-2 sections are inverse FFTs over the points where the fixture computes the Lagrange
// scalars in closed form; snarkjs's powersOfTau.verify must accept it; and a zkey made from it must prove (Groth16
// and PLONK) with proofs that snarkjs's verifier accepts, and a changed public signal rejects.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as snarkjs from 'snarkjs';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixturePtau, writeBySnarkjs } from '../scripts/snarkjs-ptau.js';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';

let dir;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wasmsm-ptau-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await terminateCurves();
});

/** The fixture ptau of (curve, power) in the test's directory, written once. */
async function ptau(curveName, power) {
  const file = join(dir, `${curveName}-${power}.ptau`);
  if (!existsSync(file)) await writeFixturePtau(await snarkjs.curves.getCurveFromName(curveName), power, file);
  return file;
}

describe('fixture powers of tau (known secret)', () => {
  for (const [curveName, power] of [['bn128', 1], ['bn128', 6], ['bls12381', 3]]) {
    it(`${curveName} 2^${power}: byte for byte snarkjs's newAccumulator -> beacon -> preparePhase2; verify accepts it`, { timeout: 120_000 }, async () => {
      const mine = await ptau(curveName, power);
      const theirs = join(dir, `${curveName}-${power}.snarkjs.ptau`);
      await writeBySnarkjs(snarkjs, await snarkjs.curves.getCurveFromName(curveName), power, theirs);
      const [a, b] = [readFileSync(mine), readFileSync(theirs)];
      expect(a.length).toBe(b.length);
      expect(a.equals(b)).toBe(true);
      expect(await snarkjs.powersOfTau.verify(mine)).toBe(true);
    });
  }

  it('verify rejects the file with one Lagrange point changed (the check can fail)', { timeout: 60_000 }, async () => {
    const bytes = readFileSync(await ptau('bn128', 1));
    bytes[bytes.length - 1] ^= 1; // the last point of the file (section 15, betaTauG1's Lagrange points): its y
    const changed = join(dir, 'changed.ptau');
    writeFileSync(changed, bytes);
    expect(await snarkjs.powersOfTau.verify(changed)).toBe(false);
  });

  for (const protocol of ['groth16', 'plonk']) {
    it(`a ${protocol} zkey from it proves bits8 on bn128, snarkjs's verifier accepts and rejects a changed signal`, { timeout: 120_000 }, async () => {
      const f = await fixture(snarkjs, 'bits8', 'bn128', protocol); // its r1cs, wasm and input
      const t = await ptau('bn128', 8);
      const zkey = join(dir, `bits8-${protocol}.zkey`);
      if (protocol === 'groth16') await snarkjs.zKey.newZKey(f.r1cs, t, zkey);
      else await snarkjs.plonk.setup(f.r1cs, t, zkey);
      const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
      const { proof, publicSignals } = await snarkjs[protocol].fullProve(f.input, f.wasm, zkey);
      expect(await snarkjs[protocol].verify(vkey, publicSignals, proof)).toBe(true);
      const changed = publicSignals.map((s, i) => (i === 0 ? String(BigInt(s) + 1n) : s));
      expect(await snarkjs[protocol].verify(vkey, changed, proof)).toBe(false);
    });
  }
});
