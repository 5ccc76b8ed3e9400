// wasmsm/snarkjs in headless Chromium: snarkjs's browser build and the route bundled with esbuild
// (bench/snarkjs/page.js through bench/snarkjs/browser.js, served cross-origin isolated: the pool's shared-memory
// path), a Groth16 proof of a Poseidon Merkle circuit on BN254 and a PLONK proof on BLS12-381 made with every MSM
// routed (minPoints: 1), and the Groth16 proof made by groth16Prove (the whole proof in Wasm) too, in that page and
// in one served without COOP/COEP (no SharedArrayBuffer: the pools' message path). Each proof is verified by
// snarkjs's verifier in the page and again here in Node.
// Skipped outside CI when no chromium is found, as test/browser.e2e.test.js is.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as snarkjs from 'snarkjs';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { skipChromiumSuite } from './chromium.js';

const skip = skipChromiumSuite('snarkjs-browser.e2e.test.js');

const CASES = [['merkle1', 'bn128', 'groth16'], ['bits8', 'bls12381', 'plonk']];

describe.skipIf(skip)('wasmsm/snarkjs in headless Chromium', () => {
  let page;
  const fixtures = [];
  beforeAll(async () => {
    for (const [circuit, curve, protocol] of CASES) {
      const f = await fixture(snarkjs, circuit, curve, protocol);
      fixtures.push({ ...f, vkeyJson: JSON.parse(readFileSync(f.vkey, 'utf8')) });
    }
    const { snarkjsPage } = await import('../bench/snarkjs/browser.js');
    page = await snarkjsPage(fixtures);
  }, 600_000);
  afterAll(async () => {
    await page?.close();
    await terminateCurves();
  });

  for (const [i, [circuit, curve, protocol]] of CASES.entries()) {
    it(`${protocol} on ${curve} (${circuit}): the proof made through the route verifies`, { timeout: 300_000 }, async () => {
      const report = await page.run(i, { runs: 0, threads: 2, minPoints: 1 });
      expect(report.logs, 'console errors or page errors').toEqual([]);
      expect(report.crossOriginIsolated).toBe(true);
      expect(report.stats.routed).toBeGreaterThanOrEqual(protocol === 'groth16' ? 5 : 4);
      expect(report.stats.fallback).toBe(0);
      const { proof, publicSignals } = report.proved;
      expect(await snarkjs[protocol].verify(fixtures[i].vkeyJson, publicSignals, proof)).toBe(true);
      const changed = publicSignals.map((s, k) => (k === 0 ? String(BigInt(s) + 1n) : s));
      expect(await snarkjs[protocol].verify(fixtures[i].vkeyJson, changed, proof)).toBe(false);
      if (protocol === 'groth16') {
        const ours = report.provedWasm;
        expect(ours.publicSignals).toEqual(publicSignals);
        expect(await snarkjs.groth16.verify(fixtures[i].vkeyJson, ours.publicSignals, ours.proof)).toBe(true);
      } else expect(report.provedWasm).toBeUndefined();
    });
  }
});

describe.skipIf(skip)('groth16Prove in headless Chromium without cross-origin isolation (the message path)', () => {
  let page;
  let f;
  beforeAll(async () => {
    f = await fixture(snarkjs, 'merkle1', 'bn128', 'groth16');
    f = { ...f, vkeyJson: JSON.parse(readFileSync(f.vkey, 'utf8')) };
    const { snarkjsPage } = await import('../bench/snarkjs/browser.js');
    const { distDir } = await import('../examples/browser/harness.js');
    page = await snarkjsPage([f], { isolated: false, dir: join(distDir, 'snarkjs-not-isolated') });
  }, 600_000);
  afterAll(async () => {
    await page?.close();
  });

  it('groth16 on bn128 (merkle1): groth16Prove\'s proof verifies', { timeout: 300_000 }, async () => {
    const report = await page.run(0, { runs: 0, threads: 2 });
    expect(report.logs, 'console errors or page errors').toEqual([]);
    expect(report.crossOriginIsolated).toBe(false);
    const { proof, publicSignals } = report.provedWasm;
    expect(await snarkjs.groth16.verify(f.vkeyJson, publicSignals, proof)).toBe(true);
  });
});
