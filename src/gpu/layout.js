// What the GPU MSM's generated WGSL (codegen/kernels/wgsl-msm.js) and its runner (src/gpu/msm.js) agree on: the
// uniform struct's fields, the workgroup sizes and the entry points. The generator imports this file, so the two
// cannot drift apart.

/** Invocations per workgroup of the point kernels; of the scan (one element each). */
export const WORKGROUP = 64;
export const SCAN_BLOCK = 256;

/** The uniform struct's fields, in order (u32 each). */
export const MSM_PARAM_FIELDS = Object.freeze([
  'count', 'c', 'windows', 'buckets', 'segment', 'groupSize', 'groups', 'runIn', 'runOut', 'run', 'first', 'base', 'mode', 'glv', 'points', 'images',
]);

/** Entry point names, in the order a chunk runs them; sumPoints runs in the modes of SUM_MODES. */
export const MSM_ENTRY_POINTS = Object.freeze([
  'convertPoints', 'countDigits', 'scanBlocks', 'addBlockOffsets', 'scatterDigits', 'accumulate', 'sumPoints',
]);
/** The entry point of a module with GLV (gpu.glv: codegen/kernels/wgsl-glv.js), run before countDigits. */
export const GLV_ENTRY_POINT = 'decomposeScalars';

/**
 * The u32 words of one point in the GPU buffers, each coordinate as the words of its canonical Montgomery residue
 * (coord_toWords: componentWords a component): affine (x, y), and the accumulator (G_COORDS coordinates).
 */
export const coordinateWords = (gpu) => gpu.degree * gpu.componentWords;
export const affineWords = (gpu) => 2 * coordinateWords(gpu);
export const pointWords = (gpu) => gpu.coords * coordinateWords(gpu);

/**
 * sumPoints' steps (prm.mode): the buckets joined from their segments' parts, the windows' groups reduced, their sums
 * added R at a time, the window sums added to the earlier chunks' (addWindows), or combined on the GPU (combine).
 */
export const SUM_MODES = Object.freeze({ joinSegments: 0, reduceGroups: 1, sumRuns: 2, combine: 3, addWindows: 4 });
