#!/usr/bin/env node
// The thread pool's scaling table next to gnark-crypto (issue #38): for each curve and size, the pool at 1, 2, 4, 8
// and 16 threads (shared path) and the gnark-crypto peer with -tasks T on the same input bytes, rounds interleaved
// (wasmsm, gnark, wasmsm, ...), medians; every result checked equal to the pool's at 1 thread and to gnark's. The
// large size runs at the largest thread count only, without maxMemory and with each --budgets, also interleaved
// ("no maxMemory within 1.05x of the best budget"), and every size at the largest thread count with each of
// --windows forced (smaller buckets per thread: does cache contention cost what the time model says?). Each row also gives timings.perThread's summary: the lanes'
// imbalance and the threads' waiting time.
//
// Self-contained (Node builtins, the library and scripts/lib.js, whose imports are builtins), so it runs on a machine
// that has the library unpacked and no node_modules: on the 16-core GPU machine, from the repository root with .device/ (bash ../shared/device/prepare.sh):
//   bash .device/setup.sh && /tmp/dev/node bench/threads-scaling.js --lib /tmp/dev/wasmsm --gnark .device/gnark-peer
// Here: node bench/threads-scaling.js --gnark /tmp/gnark-peer (cd ../shared/peers/gnark && go build -o /tmp/gnark-peer .)

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem, freemem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, parseCli, printTable, sameBytes } from '../scripts/lib.js';

const HELP = `usage: node bench/threads-scaling.js [options]
  --curves a,b       curves (default bn254,bls12-381; gnark has these two)
  --sizes 16,18      log2 sizes run at every thread count (default 16,18)
  --threads 1,2,..   thread counts (default 1,2,4,8,16; 1 is always run: the baseline)
  --large 20         log2 sizes run at the largest thread count only, with and without each budget (default 20; '' for none)
  --budgets 1024     maxMemory (MiB) of the large sizes' budgeted runs (default 1024,2048)
  --windows 14,15    also force these windows at the largest thread count, every size (default 15: smaller
                     buckets per thread, the time model's lead at 16 threads; '' for none)
  --rounds 3         timed rounds after one warm-up (default 3)
  --gnark <path>     the gnark-crypto peer (../shared/peers/gnark; PEERS.md); without it, wasmsm alone
  --lib <dir>        the wasmsm to load (default: this checkout), e.g. /tmp/dev/wasmsm on the GPU machine
  --kernel k         auto (default), int, fma or wide
  --json             print the rows as JSON`;

const args = parseCli('threads-scaling', HELP, {
  curves: { type: 'string', default: 'bn254,bls12-381' },
  sizes: { type: 'string', default: '16,18' },
  threads: { type: 'string', default: '1,2,4,8,16' },
  large: { type: 'string', default: '20' },
  budgets: { type: 'string', default: '1024,2048' },
  windows: { type: 'string', default: '15' },
  rounds: { type: 'string', default: '3' },
  gnark: { type: 'string' },
  lib: { type: 'string' },
  kernel: { type: 'string', default: 'auto' },
  json: { type: 'boolean', default: false },
});
const list = (s) => (s.trim() === '' ? [] : s.split(',').map((x) => Number(x.trim())));
const curves = args.curves.split(',').map((s) => s.trim());
const sizes = list(args.sizes);
const threadCounts = [...new Set([1, ...list(args.threads)])].sort((a, b) => a - b);
const large = list(args.large);
const budgetsMiB = list(args.budgets);
const windows = list(args.windows);
const rounds = Number(args.rounds);
const fail = (message) => {
  console.error(`threads-scaling: ${message}`);
  process.exit(2);
};
if ([...sizes, ...large].some((k) => !Number.isInteger(k) || k < 1 || k > 24)) fail('--sizes and --large take integers 1..24');
if (threadCounts.some((t) => !Number.isInteger(t) || t < 1 || t > 256)) fail('--threads takes integers 1..256');
if (budgetsMiB.some((b) => !(b > 0))) fail('--budgets takes MiB > 0');
if (windows.some((c) => !Number.isInteger(c) || c < 2 || c > 24)) fail('--windows takes integers 2..24');
if (!Number.isInteger(rounds) || rounds < 1) fail('--rounds takes an integer >= 1');
const lib = resolve(args.lib ?? new URL('..', import.meta.url).pathname);
const { loadCurve } = await import(pathToFileURL(join(lib, 'index.js')).href);
const { summarizePerThread } = await import(pathToFileURL(join(lib, 'src/threads/timeline.js')).href);
const MiB = 2 ** 20;
const progress = (text) => {
  if (!args.json && process.stderr.isTTY) process.stderr.write(`\r${text.padEnd(78)}`);
};

/** The gnark-crypto peer with -tasks T: its line protocol (PEERS.md), one command at a time. */
class Gnark {
  constructor(path, tasks) {
    this.child = spawn(path, [`-tasks=${tasks}`], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = [];
    this.waiting = null;
    let buffer = '';
    this.child.stdout.on('data', (data) => {
      buffer += data;
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        this.lines.push(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
      }
      this.#wake();
    });
    this.exited = new Promise((res) => this.child.on('exit', (code) => {
      this.lines.push(`exited ${code}`);
      this.#wake();
      res();
    }));
  }

  #wake() {
    if (this.waiting && this.lines.length) {
      const w = this.waiting;
      this.waiting = null;
      w(this.lines.shift());
    }
  }

  ask(line) {
    this.child.stdin.write(`${line}\n`);
    return new Promise((res) => {
      this.waiting = res;
      this.#wake();
    });
  }

  async quit() {
    this.child.stdin.end('quit\n');
    await this.exited;
  }
}

/** Our result (x | y little-endian, all zero = infinity) as gnark prints it: big-endian hex of x and y. */
function hexOf(bytes) {
  const half = bytes.length / 2;
  const be = (b) => BigInt(`0x${Buffer.from(b).reverse().toString('hex') || '0'}`).toString(16);
  return `${be(bytes.subarray(0, half))} ${be(bytes.subarray(half))}`;
}

const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'wasmsm-scaling-'));
try {
  for (const name of curves) {
    const curve = await loadCurve(name, { kernel: args.kernel });
    const work = [...sizes.map((k) => ({ k, counts: threadCounts })), ...large.map((k) => ({ k, counts: [threadCounts.at(-1)], budgets: true }))];
    for (const { k, counts, budgets } of work) {
      const n = 2 ** k;
      progress(`${name} 2^${k}: inputs (seeded as evaluate-msm)...`);
      const points = curve.randomPointsBytes(n, { seed: 1000 + k });
      const scalars = curve.randomScalarsBytes(n, { seed: 2000 + k });
      const pointsFile = join(dir, `${name}-${k}.points`);
      const scalarsFile = join(dir, `${name}-${k}.scalars`);
      if (args.gnark) {
        writeFileSync(pointsFile, points);
        writeFileSync(scalarsFile, scalars);
      }
      let reference = null; // the first pool's result; every other one (and gnark's) must equal it
      let oneThread = null;
      for (const T of counts) {
        // the plain call; at the largest thread count the budgets (large sizes) and the forced windows
        const variants = [{ mib: null, window: undefined }];
        if (budgets) variants.push(...budgetsMiB.map((mib) => ({ mib, window: undefined })));
        if (T === threadCounts.at(-1)) variants.push(...windows.map((window) => ({ mib: null, window })));
        const pool = await curve.threads({ count: T, sharedMemory: true });
        const gnark = args.gnark ? new Gnark(args.gnark, T) : null;
        try {
          if (gnark) {
            const ok = await gnark.ask(`load ${name} ${n} ${pointsFile} ${scalarsFile}`);
            if (!ok.startsWith('ok')) throw new Error(`gnark load: ${ok}`);
          }
          const ours = variants.map(({ mib, window }) => ({ mib, window, times: [], summaries: [], timings: null }));
          const theirs = [];
          for (let r = -1; r < rounds; r++) {
            progress(`${name} 2^${k} T=${T}: round ${r + 2} of ${rounds + 1}...`);
            for (const v of ours) {
              // the large sizes: every call from a trimmed pool (as evaluate-msm --max-memory), so a budget below what
              // the call before grew does not time the move to a smaller memory (new threads) inside its call
              if (budgets) await pool.trim();
              const timings = {};
              const t0 = performance.now();
              const out = await pool.msmBytes(points, scalars, { timings, window: v.window, ...(v.mib && { maxMemory: v.mib * MiB }) });
              const ms = performance.now() - t0;
              reference ??= out;
              if (!sameBytes(out, reference)) throw new Error(`${name} 2^${k}: the pool at ${T} threads${v.mib ? ` (maxMemory ${v.mib} MiB)` : ''}${v.window ? ` (window ${v.window})` : ''} differs`);
              if (r < 0) continue;
              v.times.push(ms);
              v.summaries.push(summarizePerThread(timings.perThread));
              v.timings = timings;
            }
            if (gnark) {
              const line = await gnark.ask(`msm ${name} ${n}`);
              const [ms, x, y] = line.split(' ');
              if (!(Number(ms) >= 0)) throw new Error(`gnark msm: ${line}`);
              if (`${BigInt(`0x${x}`).toString(16)} ${BigInt(`0x${y}`).toString(16)}` !== hexOf(reference)) throw new Error(`${name} 2^${k}: gnark's result differs from ours`);
              if (r >= 0) theirs.push(Number(ms));
            }
          }
          for (const v of ours) {
            const last = v.summaries.at(-1);
            const row = {
              curve: name, kernel: curve.kernel, logN: k, threads: T, maxMemoryMiB: v.mib, forcedWindow: v.window ?? null, window: v.timings.window, chunks: v.timings.chunks,
              medianMs: median(v.times), minMs: Math.min(...v.times), maxMs: Math.max(...v.times),
              prepareMs: v.timings.prepare, lanesMs: (v.timings.lanes ?? 0) + (v.timings.accumulate ?? 0),
              lanesImbalance: median(v.summaries.map((s) => (s.phases.lanes ?? s.phases.accumulate)?.imbalance ?? 1)),
              waitMs: median(v.summaries.map((s) => s.totalWait)), perThread: last,
              // the threads' steps summed (thread-ms): constant in T where a step scales
              steps: Object.fromEntries(['convert', 'digits', 'sort', 'gather', 'accumulate', 'reduce'].map((step) => [step, median(v.summaries.map((s) => s.steps[step] ?? 0))])),
              gnarkMs: theirs.length ? median(theirs) : null,
            };
            if (v.mib === null && v.window === undefined && T === 1) oneThread = row;
            row.speedup = oneThread && !budgets ? oneThread.medianMs / row.medianMs : null;
            row.vsGnark = row.gnarkMs ? row.medianMs / row.gnarkMs : null;
            rows.push(row);
          }
        } finally {
          await pool.close();
          await gnark?.quit();
        }
      }
      // gnark's speedup over its own 1 task, per size
      const g1 = rows.find((r) => r.curve === name && r.logN === k && r.threads === 1 && r.maxMemoryMiB === null)?.gnarkMs;
      for (const r of rows) if (r.curve === name && r.logN === k && g1 && r.gnarkMs) r.gnarkSpeedup = g1 / r.gnarkMs;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
progress('');
if (!args.json && process.stderr.isTTY) process.stderr.write('\r');

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} free), Node ${process.version}`;
// issue #38's checks, where the rows are there
const checks = [];
const find = (curve, logN, T, mib = null) => rows.find((r) => r.curve === curve && r.logN === logN && r.threads === T && r.maxMemoryMiB === mib && r.forcedWindow === null);
const top = threadCounts.at(-1);
for (const curve of curves) {
  const at18 = find(curve, 18, 16);
  if (at18?.speedup) checks.push(`${curve} 2^18: 16 threads ${at18.speedup.toFixed(2)}x the one-thread pool (target >= 13x): ${at18.speedup >= 13 ? 'met' : 'missed'}`);
  for (const k of [18, 20]) {
    const r = find(curve, k, 16);
    if (r?.vsGnark) checks.push(`${curve} 2^${k}: 16 threads ${r.vsGnark.toFixed(2)}x gnark on 16 tasks (target <= 1.25x): ${r.vsGnark <= 1.25 ? 'met' : 'missed'}`);
  }
  for (const k of large) {
    const plain = find(curve, k, top);
    const budgeted = rows.filter((r) => r.curve === curve && r.logN === k && r.threads === top && r.maxMemoryMiB !== null && r.forcedWindow === null);
    if (!plain || !budgeted.length) continue;
    const best = budgeted.reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
    const ratio = plain.medianMs / best.medianMs;
    checks.push(`${curve} 2^${k}, ${top} threads: no maxMemory ${ratio.toFixed(3)}x the best budget (${best.maxMemoryMiB} MiB; target <= 1.05x): ${ratio <= 1.05 ? 'met' : 'missed'}`);
  }
}
if (args.json) {
  console.log(JSON.stringify({ machine, rounds, rows, checks }, null, 2));
} else {
  console.log(`wasmsm threads-scaling: ${machine}; shared path; medians of ${rounds} rounds (after a warm-up), wasmsm and gnark-crypto interleaved`);
  console.log('sort, gather, accumulate, reduce: the threads\' own steps in ms summed over the threads (constant in T where a step scales)');
  const header = ['curve', 'N', 'T', 'maxMemory', 'c', 'chunks', 'wasmsm ms', 'min-max', 'speedup', 'gnark ms', 'gnark speedup', 'wasmsm / gnark', 'prepare', 'lanes', 'lanes imbalance', 'wait ms',
    'sort', 'gather', 'accumulate', 'reduce'];
  const cells = rows.map((r) => [
    r.curve, `2^${r.logN}`, r.threads, r.maxMemoryMiB ? `${r.maxMemoryMiB} MiB` : '-', r.forcedWindow === null ? r.window : `${r.window} (forced)`, r.chunks, r.medianMs.toFixed(1), `${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}`,
    r.speedup ? `${r.speedup.toFixed(2)}x` : '-', r.gnarkMs?.toFixed(1) ?? '-', r.gnarkSpeedup ? `${r.gnarkSpeedup.toFixed(2)}x` : '-', r.vsGnark ? `${r.vsGnark.toFixed(2)}x` : '-',
    r.prepareMs?.toFixed(1) ?? '-', r.lanesMs.toFixed(1), `${r.lanesImbalance.toFixed(2)}x`, r.waitMs.toFixed(1),
    ...['sort', 'gather', 'accumulate', 'reduce'].map((step) => r.steps[step].toFixed(0)),
  ]);
  printTable(header, cells);
  for (const c of checks) console.log(`check: ${c}`);
  console.log('every result equals the one-thread pool\'s' + (args.gnark ? ' and gnark-crypto\'s' : ''));
}
