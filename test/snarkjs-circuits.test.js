// Real circom circuits proved by snarkjs through wasmsm/snarkjs: Groth16, PLONK and FFLONK on BN254 (bn128) and
// BLS12-381, each proof checked by snarkjs's own verifier after restore() (so no wasmsm code takes part in the
// check), and a proof with a changed public signal rejected (so the check can fail). minPoints: 1 routes every
// MSM of these small circuits, and the test asserts that the prover's MSMs went through wasmsm.
// Fixtures (circom2 + circomlib, powers of tau with a contribution, zkeys, witnesses) come from
// scripts/snarkjs-fixtures.js, cached under .cache/snarkjs/ (git-ignored): about a minute the first time.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as snarkjs from 'snarkjs';
import { readFileSync } from 'node:fs';
import { accelerate } from 'wasmsm/snarkjs';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';

/** (circuit, curve, protocol) proved here: Poseidon Merkle proofs for Groth16, the tiny bits8 for PLONK and FFLONK. */
const CASES = [
  ['merkle1', 'bn128', 'groth16'],
  ['bits8', 'bn128', 'plonk'],
  ['bits8', 'bn128', 'fflonk'],
  ['merkle1', 'bls12381', 'groth16'],
  ['bits8', 'bls12381', 'plonk'],
];
// snarkjs 0.7.6's FFLONK prover fails on BLS12-381 by itself ("Polynomial is not divisible", without wasmsm too):
// the route must give the same error, nothing else.
const SNARKJS_FAILS = [['bits8', 'bls12381', 'fflonk', /Polynomial is not divisible/]];

const fixtures = {};

beforeAll(async () => {
  for (const [circuit, curve, protocol] of [...CASES, ...SNARKJS_FAILS]) fixtures[`${circuit} ${curve} ${protocol}`] = await fixture(snarkjs, circuit, curve, protocol);
}, 600_000);

afterAll(terminateCurves);

/** A public signal changed by one. */
const tampered = (signals) => signals.map((s, i) => (i === 0 ? String(BigInt(s) + 1n) : s));

describe('snarkjs proofs through wasmsm/snarkjs', () => {
  for (const [circuit, curveName, protocol] of CASES) {
    it(`${protocol} on ${curveName} (${circuit}) verifies with snarkjs's verifier`, { timeout: 300_000 }, async () => {
      const f = fixtures[`${circuit} ${curveName} ${protocol}`];
      const vkey = JSON.parse(readFileSync(f.vkey, 'utf8'));
      const curve = await snarkjs.curves.getCurveFromName(curveName);
      const own = { G1: curve.G1.multiExpAffine, G2: curve.G2.multiExpAffine };
      const handle = await accelerate(curve, { minPoints: 1, threads: 2 });
      let proved;
      try {
        proved = await snarkjs[protocol].prove(f.zkey, f.wtns);
      } finally {
        await handle.restore();
      }
      // Groth16: A, B1, C, H on G1 and B2 on G2; PLONK: its commitments; FFLONK: C1, C2, W1, W2
      expect(handle.stats.routed).toBeGreaterThanOrEqual(protocol === 'groth16' ? 5 : 4);
      expect(handle.stats.fallback).toBe(0);
      expect(curve.G1.multiExpAffine).toBe(own.G1);
      expect(curve.G2.multiExpAffine).toBe(own.G2);

      const { proof, publicSignals } = proved;
      expect(publicSignals.length).toBeGreaterThan(0);
      expect(await snarkjs[protocol].verify(vkey, publicSignals, proof)).toBe(true);
      expect(await snarkjs[protocol].verify(vkey, tampered(publicSignals), proof)).toBe(false);

      // and snarkjs without the route, after restore(): a proof that verifies too
      const plain = await snarkjs[protocol].prove(f.zkey, f.wtns);
      expect(plain.publicSignals).toEqual(publicSignals);
      expect(await snarkjs[protocol].verify(vkey, plain.publicSignals, plain.proof)).toBe(true);
    });
  }

  for (const [circuit, curveName, protocol, error] of SNARKJS_FAILS) {
    it(`${protocol} on ${curveName} (${circuit}) fails in snarkjs alone, and the same way through the route`, { timeout: 300_000 }, async () => {
      const f = fixtures[`${circuit} ${curveName} ${protocol}`];
      await expect(snarkjs[protocol].prove(f.zkey, f.wtns)).rejects.toThrow(error);
      const curve = await snarkjs.curves.getCurveFromName(curveName);
      const handle = await accelerate(curve, { minPoints: 1, threads: 2 });
      try {
        await expect(snarkjs[protocol].prove(f.zkey, f.wtns)).rejects.toThrow(error);
      } finally {
        await handle.restore();
      }
    });
  }
});
