// scripts/evaluate-msm.js (the README's quick start) refuses what it cannot do as asked, before any work: an empty
// --sizes item (it ran 2^0 and checked that instead), a --check-size that is no size (the check was skipped without a
// word), a --window out of range (a stack trace after the inputs were made), and options --gpu would ignore. Exit 2,
// one line naming the option. (Its runs and checks: `npm run evaluate-msm`.) And --threads: a row per thread count,
// the pools taking turns, each speedup the median of its rounds with their range.

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../scripts/evaluate-msm.js', import.meta.url));
const run = (args) => spawnSync(process.execPath, [script, '--curve', 'bn254', '--runs', '1', ...args], { encoding: 'utf8', timeout: 30_000 });

describe('evaluate-msm: usage errors', () => {
  const CASES = [
    [['--sizes', '8,'], /--sizes takes integers 0\.\.26, separated by commas/],
    [['--sizes', '0x8'], /--sizes takes integers/],
    [['--sizes', '8', '--check-size', '13'], /--check-size takes 0 \(no check\) or one of --sizes \(8\), got 13/],
    [['--sizes', '8', '--window', '40'], /--window takes an integer 2\.\.24/],
    [['--sizes', '8', '--gpu', '--kernel', 'int'], /--gpu does not take --kernel/],
    [['--sizes', '8', '--gpu', '--group', 'both', '--gpu-variants', '14'], /--gpu-variants builds G1 kernels only/],
    [['--sizes', '8', '--gpu', '--max-memory', '16'], /--gpu does not take --max-memory/],
    [['--sizes', '8', '--gpu-threads', '16:14'], /--gpu-variants, --gpu-threads, --gpu-windows, --gpu-no-glv and --gpu-wgsl need --gpu/],
    [['--sizes', '8', '--gpu-no-glv'], /--gpu-variants, --gpu-threads, --gpu-windows, --gpu-no-glv and --gpu-wgsl need --gpu/],
    [['--sizes', '8', '--gpu-wgsl', 'wasm'], /--gpu-variants, --gpu-threads, --gpu-windows, --gpu-no-glv and --gpu-wgsl need --gpu/],
    [['--sizes', '8', '--gpu-windows', '12'], /need --gpu/],
    [['--sizes', '8', '--gpu', '--gpu-windows', '12,x'], /--gpu-windows: x is not a window/],
    [['--sizes', '8', '--gpu', '--gpu-variants', '13:karatsuba:cube'], /--gpu-variants: 13:karatsuba:cube is not w:mul\[:sqr\]/],
    [['--sizes', '8', '--gpu', '--gpu-variants', '20:loop'], /--gpu-variants: 20:loop is not w:mul\[:sqr\]/],
    [['--sizes', '8', '--gpu', '--gpu-threads', '16:14:4:9'], /--gpu-threads: 16:14:4:9 is not a:r\[:run\]/],
    [['--sizes', '8', '--gpu', '--gpu-threads', '16:14:1'], /--gpu-threads: 16:14:1 is not a:r\[:run\]/],
    [['--sizes', '8', '--gpu', '--gpu-variants', ':loop'], /--gpu-variants: :loop is not w:mul\[:sqr\]/],
    [['--sizes', '8', '--gpu', '--gpu-variants', '14:karatsuba'], /do not fit a u32 for bn254 at w = 14/],
  ];
  for (const [args, message] of CASES) {
    it(`${args.join(' ')}: exit 2, named`, () => {
      const r = run(args);
      expect(r.status, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    });
  }
});

describe('evaluate-msm --threads: the pools take turns', () => {
  it('a row per thread count, each result checked; the speedup is the median of the rounds, inside its range, 1 for one thread', () => {
    const r = spawnSync(process.execPath, [script, '--curve', 'bn254', '--sizes', '8', '--threads', '2', '--runs', '3', '--no-sync', '--check-size', '0', '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const { results: rows } = JSON.parse(r.stdout);
    expect(rows.map((row) => [row.threads, row.path])).toEqual([[1, 'shared'], [2, 'shared']]);
    for (const row of rows) {
      expect(row.check).toMatch(/^equals msmBytes/);
      const [least, most] = row.speedupRange;
      expect(least).toBeLessThanOrEqual(row.speedupVsOneThread);
      expect(row.speedupVsOneThread).toBeLessThanOrEqual(most);
      expect(row.minMs).toBeLessThanOrEqual(row.medianMs);
    }
    expect(rows[0].speedupVsOneThread).toBe(1);
    expect(rows[0].speedupRange).toEqual([1, 1]);
  });
});
