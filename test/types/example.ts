// Type-checked (never run) by test/types.test.js with `tsc --noEmit`, under moduleResolution nodenext and
// bundler: the package's declarations as a TypeScript user sees them, imported by package name. Every line
// marked ts-expect-error below must be a type error, or tsc fails: so the declarations are not `any`.

import { loadCurve, curveNames, curveLoader, Curve } from 'wasmsm';
import type { AffinePoint, CurveName, CurveParams, Fp2, MsmOptions, MsmPool, MsmTimings, PoolMsmOptions } from 'wasmsm';
import type { MsmBytesOptions, PointFormat, ScalarFormat, PointLike, PreparedBases, PoolPreparedBases } from 'wasmsm';
import type { MsmAccumulator, PoolMsmAccumulator, StreamChunk, StreamOptions } from 'wasmsm';
import type { ScalarField, NttPointerOptions } from 'wasmsm';
import { load as loadBls, params as blsParams } from 'wasmsm/curves/bls12-381';
import * as bn254 from 'wasmsm/curves/bn254';
import { deriveFieldParams, generateFieldWat, instantiateField } from 'wasmsm/codegen';
import type { FieldParams } from 'wasmsm/codegen';
import { load as loadNoble, msm as nobleMsm } from 'wasmsm/noble';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { loadKzg } from 'wasmsm/kzg';
import type { Kzg } from 'wasmsm/kzg';
import { accelerate, DEFAULT_MIN_POINTS, FileFormatError } from 'wasmsm/snarkjs';
import type { AccelerateHandle, FfCurve } from 'wasmsm/snarkjs';

export async function example(): Promise<string> {
  const names: readonly CurveName[] = curveNames;
  const curve: Curve = await loadCurve(names[0]);
  const same: Curve = await loadBls();
  const other: Curve = await bn254.load();
  const p: bigint = blsParams.p + bn254.params.r + curve.p + curve.r + other.params.field.p;
  const name: string = same.name;

  // The fast path: bytes in, bytes out, with per-phase timings.
  const points: Uint8Array = curve.randomPointsBytes(1024, { seed: 1 });
  const scalars: Uint8Array = curve.randomScalarsBytes(1024, { seed: 2 });
  const timings: MsmTimings = {};
  const options: MsmOptions = { timings, window: 8, checkSubgroup: false };
  const out: Uint8Array = curve.msmBytes(points, scalars, options);
  const result: AffinePoint | null = curve.decodePoint(out);
  const ms: number = (timings.accumulate ?? 0) + (timings.window ?? 0);
  // the synchronous MSM reports progress too; a stream cannot (its length is unknown)
  curve.msmBytes(points, scalars, { onProgress: (fraction: number) => void fraction });
  // @ts-expect-error a stream reports no progress
  const noProgress: StreamOptions = { onProgress: () => {} };

  // BigInt points and scalars.
  const P: AffinePoint[] = curve.randomPoints(4);
  const s: bigint[] = curve.randomScalars(4, { seed: 7 });
  const Q = curve.msm([...P, null], [...s, 0n]);
  const encoded: Uint8Array = curve.encodePoints([curve.generator, null]);
  const encodedScalars: Uint8Array = curve.encodeScalars(s);
  const sizes: number = curve.pointBytes + curve.scalarBytes + curve.coordinateBytes + encoded.length + encodedScalars.length;
  const memoryBytes: number = curve.memory.buffer.byteLength;
  const params: CurveParams = curve.params;
  const g: bigint = params.generator.x + (params.glv?.lambda ?? 0n);

  // Point and scalar formats: bytes in another library's encoding, the result in that encoding too.
  const format: PointFormat = 'zcash-compressed';
  const edwardsFormats: PointFormat[] = ['rfc8032', 'circomlib'];
  const scalarFormat: ScalarFormat = 'be';
  const zcash: Uint8Array = curve.encodePoint(points, format);
  const bytesPerPoint: number = curve.pointFormats[format] ?? 0;
  const fmtOptions: MsmBytesOptions = { pointFormat: format, scalarFormat, resultFormat: 'native', checkSubgroup: true };
  const inZcash: Uint8Array = curve.msmBytes(zcash, scalars, fmtOptions);
  const decoded: Uint8Array = curve.decodePoints(zcash, format, { checkSubgroup: false });
  // @ts-expect-error unknown point formats are a type error
  curve.msmBytes(zcash, scalars, { pointFormat: 'zcash' });
  // @ts-expect-error scalar formats are named
  curve.msmBytes(zcash, scalars, { scalarFormat: 'little-endian' });
  // Point objects of another library (@noble/curves-like) in, and back out through its Point class.
  const nobleLike: PointLike = { toAffine: () => ({ x: 1n, y: 2n }), is0: () => false };
  const viaObjects = curve.msm([nobleLike, null], [1n, 2n]);
  class MyPoint { static fromAffine(a: { x: bigint; y: bigint }): MyPoint { return a.x === 0n ? MyPoint.ZERO : new MyPoint(); } static ZERO = new MyPoint(); }
  const mine: MyPoint = curve.toPoint(viaObjects, MyPoint);
  const formatsUsed = [bytesPerPoint, inZcash.length, decoded.length, mine instanceof MyPoint].join();

  // The scalar field and its NTT: values, bytes, pointers
  const fr: ScalarField = await curve.fr();
  const evals: bigint[] = fr.ntt([1n, 2n], { coset: true });
  const evalBytes: Uint8Array = fr.intt(new Uint8Array(2 * fr.bytes), { coset: 5n });
  const frPtr = fr.alloc(2);
  const order: NttPointerOptions = { inverse: true, input: 'natural', output: 'bit-reversed' };
  fr.nttPointer(frPtr, 1, order);
  fr.evaluationsToCoset(frPtr, 1, fr.rootOfUnity(2));
  const twin: ScalarField = await fr.sharedTwin();
  const turn: number = await twin.exclusive(() => 1);
  const gpu = await curve.gpu();
  const onOneDevice = await curve.gpu({ device: gpu.device });
  // @ts-expect-error: an order is 'natural' or 'bit-reversed'
  fr.nttPointer(frPtr, 1, { input: 'reversed' });
  const frUsed = [evals.length, evalBytes.length, fr.s, fr.params.cosetGenerator].join();

  // Threads: a pool, an async MSM with cancellation and progress.
  const pool: MsmPool = await curve.threads({ count: 2, sharedMemory: 'auto' });
  const controller = new AbortController();
  const poolOptions: PoolMsmOptions = { signal: controller.signal, onProgress: (f: number) => void f, window: 8, pointFormat: 'native' };
  const threaded: Uint8Array = await pool.msmBytes(points, scalars, poolOptions);
  const threadedPoint: AffinePoint | null = await pool.msm(P, s);
  // Per-thread timings of a pool call.
  const poolTimings: MsmTimings = {};
  await pool.msmBytes(points, scalars, { timings: poolTimings });
  const lanesEnd: number = (poolTimings.perThread ?? []).reduce((end, t) => Math.max(end, t.phases.lanes?.end ?? 0, t.wait), poolTimings.lanes ?? 0);
  // memory: a budget, streams, accumulators, giving memory back
  const budgeted: Uint8Array = curve.msmBytes(points, scalars, { maxMemory: 64 * 2 ** 20, timings });
  const chunks: number | undefined = timings.chunks;
  const pieces: StreamChunk[] = [{ points }, { scalars }];
  const streamOptions: StreamOptions = { maxMemory: 32 * 2 ** 20, signal: controller.signal };
  const streamed: Uint8Array = await curve.msmStream(pieces, streamOptions);
  const fromBodies: Uint8Array = await curve.msmStream({ points: new ReadableStream<Uint8Array>(), scalars });
  const acc: MsmAccumulator = curve.msmAccumulator({ maxMemory: 16 * 2 ** 20 });
  acc.add(points, scalars);
  const accumulated: Uint8Array = acc.result();
  curve.trim();
  const poolStreamed: Uint8Array = await pool.msmStream(pieces, { maxMemory: 256 * 2 ** 20 });
  const poolAcc: PoolMsmAccumulator = pool.msmAccumulator();
  await poolAcc.add(points);
  const poolAccumulated: Uint8Array = await poolAcc.result();
  const held: number = pool.memoryBytes;
  await pool.trim();
  // @ts-expect-error maxMemory is bytes, a number
  curve.msmBytes(points, scalars, { maxMemory: '64MiB' });
  // @ts-expect-error an accumulator's add is synchronous: it returns nothing to await on
  const notAwaitable: Promise<void> = acc.add(points);
  const shared: boolean = pool.sharedMemory && pool.count > 1;
  const poolBases: PoolPreparedBases = await pool.prepareBases(points, { precompute: true });
  const poolPrepared: Uint8Array = await poolBases.msmBytes(scalars, { signal: controller.signal });
  await poolBases.free();
  await pool.close();
  // Prepared bases: converted once, any prefix summed.
  const bases: PreparedBases = curve.prepareBases(points, { checkSubgroup: false, precompute: { window: 12 }, pointFormat: 'native' });
  const prepared: Uint8Array = bases.msmBytes(scalars.subarray(0, 64 * curve.scalarBytes), { scalarFormat: 'le', timings });
  const preparedPoint: AffinePoint | null = bases.msm(s);
  const tableSize: number = bases.tableBytes + bases.length + bases.precomputeWindow + prepared.length + poolPrepared.length;
  bases.free();
  // @ts-expect-error precompute is a boolean or { window }
  curve.prepareBases(points, { precompute: 'yes' });
  // @ts-expect-error the single-thread prepared MSM is not a promise
  const notAPromise: Promise<Uint8Array> = bases.msmBytes(scalars);
  // @ts-expect-error sharedMemory is 'auto' or a boolean
  await curve.threads({ sharedMemory: 'always' });
  // @ts-expect-error the pool's MSM is a promise
  const notYet: Uint8Array = pool.msmBytes(points, scalars);

  // @ts-expect-error unknown curve names are a type error
  await loadCurve('ed448');
  // @ts-expect-error msmBytes takes bytes, not arrays of points
  curve.msmBytes(P, s);
  // @ts-expect-error scalars are bigints
  curve.msm(P, [1, 2, 3, 4]);
  // @ts-expect-error the result may be infinity (null)
  const x: bigint = curve.msm(P, s).x;
  // @ts-expect-error params are read-only
  curve.params.p = 5n;

  // A curve module of one's own: params plus a lazily imported base64 Wasm module.
  const loadMine: () => Promise<Curve> = curveLoader(blsParams, () => import('wasmsm/curves/bls12-381').then(() => ({ default: '' })));
  // @ts-expect-error importWasm must resolve to a module with a default string export
  curveLoader(blsParams, async () => ({ default: 42 }));

  // G2: the same methods, coordinates in F_p2.
  const g2: Curve<Fp2> | undefined = curve.g2;
  if (!g2) throw new Error('bls12-381 has a G2');
  const g2Points: AffinePoint<Fp2>[] = g2.randomPoints(2);
  const g2Sum: AffinePoint<Fp2> | null = g2.msm(g2Points, [1n, 2n]);
  const g2Bytes: Uint8Array = g2.msmBytes(g2.randomPointsBytes(8), g2.randomScalarsBytes(8), { checkSubgroup: true });
  const g2Pool: MsmPool<Fp2> = await g2.threads({ count: 2 });
  const g2Threaded: AffinePoint<Fp2> | null = await g2Pool.msm(g2Points, [3n, 4n]);
  const g2Bases: PreparedBases<Fp2> = g2.prepareBases(g2Bytes);
  const g2Coordinate: bigint = (g2Sum?.x.c1 ?? 0n) + (g2Threaded?.y.c0 ?? 0n) + (g2.params.nonResidue ?? 0n) + BigInt(g2Bases.length);
  // @ts-expect-error G2 coordinates are Fp2 elements, not bigints
  g2.msm([{ x: 1n, y: 2n }], [1n]);
  // @ts-expect-error a G2 result's coordinates are not bigints
  const g2x: bigint | undefined = g2Sum?.x;

  // wasmsm/noble: noble's Point objects in and out.
  const G1 = bls12_381.G1.Point;
  const nobleSum: InstanceType<typeof G1> = await nobleMsm(G1, [G1.BASE, G1.ZERO], [1n, 2n]);
  const nobleFast = await loadNoble(G1, { kernel: 'int' });
  const noblePool = await nobleFast.threads({ count: 2 });
  const noblePooled: boolean = (await noblePool.msm([G1.BASE], [3n])).equals(nobleFast.msm([G1.BASE], [3n]));
  await noblePool.close();
  // @ts-expect-error scalars are bigints
  await nobleMsm(G1, [G1.BASE], [1]);
  const nobleOk = noblePooled && !nobleSum.is0();

  // wasmsm/kzg: EIP-4844 commitments and proofs, hex as micro-eth-signer's.
  const kzg: Kzg = await loadKzg({ g1_lagrange: [] }, { threads: 2 });
  const commitment: string = await kzg.blobToKzgCommitment(new Array<bigint>(kzg.length).fill(0n));
  const [kzgProof, kzgY]: [string, string] = await kzg.computeProof(new Uint8Array(32 * kzg.length), 5n);
  const blobProof: string = await kzg.computeBlobProof('0x00', commitment);
  // @ts-expect-error the setup needs its g1_lagrange
  await loadKzg({});
  await kzg.close();

  const fp: FieldParams = deriveFieldParams({ p: 101n, w: 30 });
  const wat: string = generateFieldWat({ p: '0x65', mulShape: 'loop' });
  const field = await instantiateField({ p: 101n });
  const root: bigint | null = field.sqrt(field.mul(3n, 4n));

  // wasmsm/snarkjs: an ffjavascript curve (snarkjs.curves.getCurveFromName('bn128')) as the caller holds it.
  const ffCurve = {} as FfCurve;
  const handle: AccelerateHandle = await accelerate(ffCurve, { threads: 2, minPoints: DEFAULT_MIN_POINTS, groups: ['G1'], checkSubgroup: true });
  const badFile: boolean = new Error('x') instanceof FileFormatError;
  const routed: number = handle.stats.routed + handle.curve.coordinateBytes;
  await handle.restore();
  // @ts-expect-error the groups are G1 and G2 only
  await accelerate(ffCurve, { groups: ['G3'] });

  return [routed, name, p, result?.x, ms, Q?.y, sizes, memoryBytes, g, x, fp.n, wat.length, root, Curve.name, typeof loadMine, threaded.length, threadedPoint?.x, shared, notYet, formatsUsed, frUsed, tableSize, preparedPoint?.x, notAPromise, g2Coordinate, g2x, nobleOk, kzgProof, kzgY, blobProof, noProgress, edwardsFormats, turn, badFile, onOneDevice.adapter].join(' ');
}
