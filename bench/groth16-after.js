#!/usr/bin/env node
// A kept Groth16Prover's proof (wasmsm/snarkjs) timed after what comes before it in a process, rounds interleaved:
//   none      right after its own previous proof
//   witness   after snarkjs.wtns.calculate (the circuit's witness, as every end-to-end proof has)
//   snarkjs   after snarkjs's own proof and a witness (as bench:snarkjs runs them)
//   gc        after one full collection of this thread's heap (needs node --expose-gc)
//   rewrite   after 64 MiB written over a kept buffer (every cache line of the last-level cache replaced)
// With the proof's median, where Linux has /proc/self/task: each thread's CPU time during the proof (ms, medians), by
// kind: the pools' threads (wasmsm's workers), this thread, V8's own (garbage collection, compilation), others.
//
//   node --expose-gc bench/groth16-after.js --case sha2 --runs 8
//
// Fixtures from scripts/snarkjs-fixtures.js (cached under .cache/snarkjs/, made on first use).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as snarkjs from 'snarkjs';
import { Groth16Prover } from 'wasmsm/snarkjs';
import { fixture, terminateCurves } from '../scripts/snarkjs-fixtures.js';
import { median } from './snarkjs/phases.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const circuit = opt('case', 'sha2');
const runs = Number(opt('runs', 8));
const threads = Number(opt('threads', 2));

const f = await fixture(snarkjs, circuit, 'bn128', 'groth16');
const zkey = readFileSync(f.zkey);
const witness = async () => {
  const w = { type: 'mem' };
  await snarkjs.wtns.calculate(f.input, f.wasm, w);
  return w.data;
};
const wtns = await witness();
const kept = new Uint8Array(64 << 20);
const before = {
  none: async () => {},
  witness: async () => void (await witness()),
  snarkjs: async () => {
    await snarkjs.groth16.prove(f.zkey, { type: 'mem', data: await witness() });
    await witness();
  },
  ...(typeof globalThis.gc === 'function' ? { gc: async () => globalThis.gc() } : {}),
  rewrite: async () => void kept.fill(kept[0] + 1),
};

/** CPU ms of each thread of this process so far, by kind (Linux: /proc/self/task/<tid>/stat), or null. */
function threadCpu() {
  if (!existsSync('/proc/self/task')) return null;
  const out = { pool: 0, main: 0, v8: 0, other: 0 };
  for (const tid of readdirSync('/proc/self/task')) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
    const kind = name === 'WorkerThread' ? 'pool' : Number(tid) === process.pid ? 'main' : name.startsWith('V8') ? 'v8' : 'other';
    out[kind] += ms;
  }
  return out;
}

const prover = new Groth16Prover({ threads });
const rows = Object.fromEntries(Object.keys(before).map((k) => [k, { ms: [], cpu: [] }]));
try {
  for (let i = 0; i < 3; i++) await prover.prove(zkey, wtns);
  for (let r = 0; r < runs; r++) {
    for (const [kind, run] of Object.entries(before)) {
      await run();
      const cpu0 = threadCpu();
      const t = performance.now();
      await prover.prove(zkey, wtns);
      rows[kind].ms.push(performance.now() - t);
      const cpu1 = threadCpu();
      if (cpu0) rows[kind].cpu.push(Object.fromEntries(Object.keys(cpu1).map((k) => [k, cpu1[k] - cpu0[k]])));
    }
  }
} finally {
  await prover.close();
  await terminateCurves();
}
console.log(`${circuit}: groth16Prove on a kept prover of ${threads} threads, Node ${process.version}, medians of ${runs}`);
console.log('before the proof  proof ms   CPU ms during it: pool threads / this thread / V8\'s / other');
for (const [kind, { ms, cpu }] of Object.entries(rows)) {
  const c = (k) => (cpu.length ? median(cpu.map((x) => x[k])).toFixed(0) : '-');
  console.log(`${kind.padEnd(16)}  ${median(ms).toFixed(1).padStart(8)}   ${c('pool')} / ${c('main')} / ${c('v8')} / ${c('other')}`);
}
if (typeof globalThis.gc !== 'function') console.log('(run with node --expose-gc for the gc row)');
