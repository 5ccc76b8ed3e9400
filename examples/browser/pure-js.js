// The pure-JS side of the comparison: @noble/curves' pippenger on the same inputs, decoded from the library's
// byte encoding (affine x | y little-endian, all-zero for infinity; scalars little-endian). It loads noble on
// demand, so the page fetches it only when it compares; the same oracle the tests use.
export { nobleMsm as pureJsMsm } from '../../scripts/noble-msm.js';
