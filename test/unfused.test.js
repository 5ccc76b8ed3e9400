// An engine that validates relaxed SIMD but whose f64x2.relaxed_madd rounds twice (a multiply, then an add): the
// FMA kernels are exact only with one rounding, so such an engine must get the integer build. Tested on a real such
// engine, not a stub: this Node started with V8's --no-enable-fma3 (no FMA3 instructions; relaxed_madd becomes
// mulpd + addpd), plus --experimental-wasm-relaxed-simd where relaxed SIMD is not on by default (Node 20). The child
// (test/fixtures/unfused-engine.js) reports what the probe says, which build auto picks and whether its MSMs equal
// @noble/curves, what kernel: 'fma' does, and what the FMA build gives when loaded anyway, bypassing the guard.
// The codegen CLI runs on that engine too: its self-check must skip the FMA build, and the module it writes must
// load its integer build.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { curveNames } from '../index.js';
import { relaxedFmaProbeBytes, relaxedFmaSupport, RELAXED_FMA_PROBE_WAT } from '../src/runtime/features.js';
import { compileWat } from '../codegen/compile.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
/** V8 without FMA3; relaxed SIMD turned on where this Node does not validate it by default. */
const FLAGS = ['--no-enable-fma3', ...(WebAssembly.validate(relaxedFmaProbeBytes()) ? [] : ['--experimental-wasm-relaxed-simd'])];

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...FLAGS, ...args], { cwd: repo, env: { ...process.env, DEBUG: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const ROUNDS_TWICE = /^kernel 'fma' needs a fused f64x2\.relaxed_madd, and this engine rounds twice: use 'int' or 'auto'$/;

// --no-enable-fma3 turns off V8's x64 FMA3 code generation; other architectures fuse relaxed_madd regardless.
describe.runIf(process.arch === 'x64')('an engine whose relaxed_madd rounds twice (this Node with --no-enable-fma3)', { timeout: 120_000 }, () => {
  let tmp;
  let cli;
  let report;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'wasmsm-unfused-'));
    const out = join(tmp, 'toy64');
    cli = await run(['scripts/codegen.js', 'curve', '--params', 'scripts/examples/toy64.json', '--out', out, '--w', '30', '--runtime', join(repo, 'index.js')]);
    const child = await run(['test/fixtures/unfused-engine.js', join(out, 'index.js')]);
    expect(child.stderr, child.stderr).toBe('');
    expect(child.code).toBe(0);
    report = JSON.parse(child.stdout);
  }, 120_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("the probe says 'unfused'", () => {
    expect(report.node).toBe(process.versions.node);
    expect(report.support).toBe('unfused');
  });

  it('auto loads the integer build of every shipped curve, and its MSMs equal @noble/curves (synchronous and on a pool)', () => {
    expect(Object.keys(report.curves)).toEqual([...curveNames]);
    for (const name of curveNames) expect(report.curves[name], name).toMatchObject({ kernel: 'int', correct: true });
    expect(report.pool.correct).toBe(true);
  });

  it("kernel: 'fma' rejects with a RangeError saying the engine rounds twice", () => {
    for (const name of curveNames) {
      expect(report.curves[name].fma?.type, name).toBe('RangeError');
      expect(report.curves[name].fma.message, name).toMatch(ROUNDS_TWICE);
    }
  });

  it('the codegen CLI checks the integer build only, and the module it writes loads that build', () => {
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/\nSelf-check: .* \(integer build; the FMA build is not checked: this engine does not run relaxed SIMD fused; the wide build is not checked: this engine has no wide arithmetic\)\n/);
    expect(report.generated.kernel).toBe('int');
    expect(report.generated.fma?.type).toBe('RangeError');
    expect(report.generated.fma.message).toMatch(ROUNDS_TWICE);
  });

  it('what the guard prevents: the FMA build loaded anyway on this engine does not give the MSM', () => {
    expect(report.forcedFma.kernel).toBe('fma');
    expect(report.forcedFma.correct).toBe(false);
  });
});

describe("the probe's arithmetic", () => {
  it("its constants tell one rounding (a * a + c = 1) from two (0): the probe module with mul + add returns 0; a fused engine's probe 1", async () => {
    // a, a and c as the probe's text has them
    const consts = [...RELAXED_FMA_PROBE_WAT.matchAll(/\(f64\.const (-?\d+)\)/g)].map((m) => BigInt(m[1]));
    expect(consts).toHaveLength(3);
    const [a, b, c] = consts;
    expect(consts.every((v) => BigInt(Number(v)) === v), 'each constant an exact f64').toBe(true);
    // exact: a b + c = 1, which an f64 holds, so one rounding gives 1
    expect(a * b + c).toBe(1n);
    // the probe module with its relaxed_madd written as a multiply and an add (plain SIMD, every engine): what a
    // double-rounding engine computes; it must give something else than 1, and relaxedFmaSupport reads that as 'unfused'
    const twice = RELAXED_FMA_PROBE_WAT.replace(/\(f64x2\.relaxed_madd (\(f64x2\.splat \(f64\.const [-\d]+\)\)) (\(f64x2\.splat \(f64\.const [-\d]+\)\)) (\(f64x2\.splat \(f64\.const [-\d]+\)\))\)/, '(f64x2.add (f64x2.mul $1 $2) $3)');
    expect(twice).not.toContain('relaxed_madd');
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(await compileWat(twice, 'probe-twice.wat')));
    expect(exports.fma()).not.toBe(1);
    if (relaxedFmaSupport() === 'fused') {
      const probe = new WebAssembly.Instance(new WebAssembly.Module(relaxedFmaProbeBytes()));
      expect(probe.exports.fma()).toBe(1);
    }
  });
});
