// One snarkjs proof timed by phase, the same way in Node (bench/snarkjs-bench.js) and in the page
// (bench/snarkjs/page.js): witness (snarkjs.wtns.calculate, into memory), then the prover, inside which
//   MSM  wall time while any curve.G1 / G2.multiExpAffine call is under way (the methods installed at the time:
//        ffjavascript's own, or wasmsm's route), wrapped for this proof only; msmG2 the part in G2 (Groth16's B2);
//   FFT  wall time inside curve.Fr.fft / ifft (ffjavascript's, on its workers; never routed);
//   ABC  Groth16: from snarkjs's "Building ABC" log line to the first FFT, and from "Join ABC" to the first MSM
//        (the QAP evaluation and the join, in JS and ffjavascript);
//   other  the rest: reading the zkey and witness, PLONK/FFLONK polynomial work outside FFT, the proof's encoding.

/** Wall time of the calls of `obj[name]` while this is installed (overlapping calls count once). */
function wrap(obj, name, total) {
  const original = obj[name];
  let inFlight = 0;
  let since = 0;
  obj[name] = async function timed(...args) {
    if (inFlight++ === 0) since = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      if (--inFlight === 0) total.ms += performance.now() - since;
    }
  };
  return () => {
    obj[name] = original;
  };
}

/**
 * Times prove(zkey, witness, logger) on `curve` (snarkjs's curve object, the one the prover gets from
 * getCurveFromName / its globalThis cache). Returns { result, ms: { witness, prove, total, msm, msmG2, fft, abc, other } }.
 */
export async function timeProof(snarkjs, curve, protocol, { zkey, wasm, input }) {
  const t0 = performance.now();
  const wtns = { type: 'mem' };
  await snarkjs.wtns.calculate(input, wasm, wtns);
  const t1 = performance.now();

  const msm = { ms: 0 };
  const g2 = { ms: 0 };
  const fft = { ms: 0 };
  const marks = [];
  let firstFft = null;
  let firstMsm = null;
  const undo = [
    wrap(curve.G1, 'multiExpAffine', msm),
    wrap(curve.G2, 'multiExpAffine', g2),
    wrap(curve.G2, 'multiExpAffine', msm),
    wrap(curve.Fr, 'fft', fft),
    wrap(curve.Fr, 'ifft', fft),
  ];
  // the first calls after the marks, for ABC
  const fftOf = curve.Fr.fft;
  const ifftOf = curve.Fr.ifft;
  const msm1 = curve.G1.multiExpAffine;
  curve.Fr.fft = function (...a) { firstFft ??= performance.now(); return fftOf.apply(this, a); };
  curve.Fr.ifft = function (...a) { firstFft ??= performance.now(); return ifftOf.apply(this, a); };
  curve.G1.multiExpAffine = function (...a) { firstMsm ??= performance.now(); return msm1.apply(this, a); };
  const note = (m) => marks.push([performance.now(), m]);
  const logger = { debug: note, info: note, warn: note, error: note };
  let result;
  try {
    result = await snarkjs[protocol].prove(zkey, wtns, logger);
  } finally {
    curve.Fr.fft = fftOf;
    curve.Fr.ifft = ifftOf;
    curve.G1.multiExpAffine = msm1;
    for (const u of undo.reverse()) u();
  }
  const t2 = performance.now();
  const at = (text) => marks.find(([, m]) => m === text)?.[0];
  let abc = 0;
  if (protocol === 'groth16') {
    const build = at('Building ABC');
    const join = at('Join ABC');
    if (build !== undefined && firstFft !== null) abc += firstFft - build;
    if (join !== undefined && firstMsm !== null) abc += Math.max(0, firstMsm - join);
  }
  const prove = t2 - t1;
  return {
    result,
    ms: { witness: t1 - t0, prove, total: t2 - t0, msm: msm.ms, msmG2: g2.ms, fft: fft.ms, abc, other: Math.max(0, prove - msm.ms - fft.ms - abc) },
  };
}

/**
 * Times one proof by wasmsm/snarkjs's groth16Prove on `prover` (a Groth16Prover kept for the case, as a user keeps
 * it): the witness as in timeProof, then prover.prove(zkey, witness) with its own phases (read, qap, ntt, join, msm
 * wait, blind). Returns { result, ms } with timeProof's keys where they mean the same (msm: the MSMs' wall time, which
 * overlaps the NTTs (fft); other: reading the files and the blinding).
 */
export async function timeGroth16Prove(snarkjs, prover, { zkey, wasm, input }) {
  const t0 = performance.now();
  const wtns = { type: 'mem' };
  await snarkjs.wtns.calculate(input, wasm, wtns);
  const t1 = performance.now();
  const timings = {};
  const result = await prover.prove(zkey.data ?? zkey, wtns.data, { timings });
  const t2 = performance.now();
  const prove = t2 - t1;
  const ms = {
    witness: t1 - t0, prove, total: t2 - t0, msm: timings.msm ?? 0, msmG2: 0, fft: timings.ntt ?? 0, abc: (timings.qap ?? 0) + (timings.join ?? 0),
  };
  // its MSMs overlap its NTTs (the rows do not sum to prove): other is what is neither, reading and the blinding
  ms.other = (timings.read ?? 0) + (timings.blind ?? 0);
  return { result, ms, timings };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Medians per phase of a list of { ms } timings (null for none: runs = 0, the warm-up only). */
export const medians = (runs) => runs.length === 0 ? null : Object.fromEntries(Object.keys(runs[0].ms).map((k) => [k, median(runs.map((r) => r.ms[k]))]));

/**
 * snarkjs alone's time over another kind's, round by round (the two proofs of a round run seconds apart, so a change in
 * the machine's speed over the run falls on both): { total, prove }, each { median, min, max } over the rounds (null
 * for none).
 */
function roundRatios(plain, other) {
  if (plain.length === 0) return null;
  const of = (key) => {
    const ratios = plain.map((p, i) => p.ms[key] / other[i].ms[key]);
    return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
  };
  return { total: of('total'), prove: of('prove') };
}

/** Medians of groth16Prove's own timings, key by key. */
const medianTimings = (runs) => (runs.length === 0 ? null : Object.fromEntries(Object.keys(runs[0].timings).map((k) => [k, median(runs.map((r) => r.timings[k] ?? 0))])));

/**
 * The bench's loop over one case, as a user runs it: one route for all the proofs (accelerate before, restore after,
 * outside the timing), and `runs` proofs without it then with it, alternating: for a proof without the route
 * ffjavascript's own multiExpAffine methods are put back on the curve for that proof only. One warm-up of each
 * first. Every proof, with the route and without, is verified by snarkjs's verifier after restore(). sharedMemory: the
 * route's pool transport (accelerate's option; default 'auto'). prover: a Groth16Prover (wasmsm/snarkjs): each round
 * also proves with it (timeGroth16Prove). The kinds take turns in two orders, round by round (see the loop). Returns
 * { plain, routed, stats, proved } (medians in ms; the route's stats of one proof, and its last proof), and with a
 * prover { wasm, wasmTimings, provedWasm }; roundsRouted (and roundsWasm) the ratios round by round (roundRatios).
 */
export async function compare(snarkjs, accelerate, curve, protocol, files, vkey, { runs = 3, threads, minPoints, sharedMemory, prover } = {}) {
  const own = { G1: curve.G1.multiExpAffine, G2: curve.G2.multiExpAffine };
  const handle = await accelerate(curve, { ...(threads && { threads }), ...(minPoints !== undefined && { minPoints }), ...(sharedMemory !== undefined && { sharedMemory }) });
  const route = { G1: curve.G1.multiExpAffine, G2: curve.G2.multiExpAffine };
  const use = (m) => {
    curve.G1.multiExpAffine = m.G1;
    curve.G2.multiExpAffine = m.G2;
  };
  const plain = [];
  const routed = [];
  const wasm = [];
  const proofs = { plain: [], routed: [], wasm: [] };
  let stats;
  try {
    const kinds = {
      plain: async () => {
        use(own);
        const p = await timeProof(snarkjs, curve, protocol, files);
        use(route);
        return p;
      },
      routed: async () => {
        const before = { ...handle.stats };
        const r = await timeProof(snarkjs, curve, protocol, files);
        stats = Object.fromEntries(Object.entries(handle.stats).map(([k, v]) => [k, v - before[k]]));
        return r;
      },
      ...(prover && { wasm: () => timeGroth16Prove(snarkjs, prover, files) }),
    };
    const timed = { plain, routed, wasm };
    for (let i = -1; i < runs; i++) {
      // a proof runs slower after one that left much garbage (a snarkjs proof's): plain, routed, wasm and then plain,
      // wasm, routed, so that over two rounds each kind comes once after each of the other two
      const order = Object.keys(kinds);
      if ((i + 2) % 2 === 1) order.push(...order.splice(1).reverse()); // the warm-up round too
      for (const kind of order) {
        const t = await kinds[kind]();
        proofs[kind].push(t.result);
        if (i >= 0) timed[kind].push(t);
      }
    }
  } finally {
    use(route);
    await handle.restore();
  }
  for (const [kind, list] of Object.entries(proofs)) {
    for (const { proof, publicSignals } of list) {
      if (!(await snarkjs[protocol].verify(vkey, publicSignals, proof))) {
        throw new Error(`${protocol}: a proof made ${{ plain: 'without the route', routed: 'through the route', wasm: 'by groth16Prove' }[kind]} does not verify`);
      }
    }
  }
  const ours = prover ? { wasm: medians(wasm), wasmTimings: medianTimings(wasm), provedWasm: proofs.wasm.at(-1), roundsWasm: roundRatios(plain, wasm) } : {};
  return { plain: medians(plain), routed: medians(routed), stats, proved: proofs.routed.at(-1), roundsRouted: roundRatios(plain, routed), ...ours };
}
