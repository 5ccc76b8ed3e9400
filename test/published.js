// Curve constants as the curves' own specifications and reference implementations publish them, written here from
// those sources (not read from codegen/curves/*.json, which test/curve-constants.test.js checks against them):
//   bls12-381  IETF draft-irtf-cfrg-pairing-friendly-curves (section 4.2.1), zkcrypto/bls12_381; seed z = -0xd201000000010000
//   bn254      EIP-196/197 (alt_bn128), arkworks ark-bn254; u = 0x44e992b44a6909f1
//   bls12-377  arkworks ark-bls12-377 (Zexe, ePrint 2018/962); z = 0x8508c00000000001
//   pallas, vesta  the Pasta curves (zcash/pasta_curves, arkworks ark-pallas / ark-vesta): p, q = 2^254 + ..., G = (-1, 2)
//   secp256k1  SEC 2 v2, section 2.4.1
//   grumpkin   Aztec barretenberg (the cycle partner of BN254): y^2 = x^3 - 17, G = (1, sqrt(-16))
// Numbers as bigint; each curve's derivation from its seed (where it has one) is checked in the test, so a typo here
// fails there instead of passing unnoticed.

export const PUBLISHED = {
  'bls12-381': {
    p: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
    r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    a: 0n,
    b: 4n,
    h: 0x396c8c005555e1568c00aaab0000aaabn,
    G: {
      x: 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bbn,
      y: 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1n,
    },
    seed: { kind: 'bls12', z: -0xd201000000010000n },
  },
  bn254: {
    p: 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n,
    r: 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n,
    a: 0n,
    b: 3n,
    h: 1n,
    G: { x: 1n, y: 2n },
    seed: { kind: 'bn', u: 0x44e992b44a6909f1n },
  },
  'bls12-377': {
    p: 0x01ae3a4617c510eac63b05c06ca1493b1a22d9f300f5138f1ef3622fba094800170b5d44300000008508c00000000001n,
    r: 0x12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001n,
    a: 0n,
    b: 1n,
    h: 0x170b5d44300000000000000000000000n,
    G: {
      x: 0x008848defe740a67c8fc6225bf87ff5485951e2caa9d41bb188282c8bd37cb5cd5481512ffcd394eeab9b16eb21be9efn,
      y: 0x01914a69c5102eff1f674f5d30afeec4bd7fb348ca3e52d96d182ad44fb82305c2fe3d3634a9591afd82de55559c8ea6n,
    },
    seed: { kind: 'bls12', z: 0x8508c00000000001n },
  },
  pallas: {
    p: (1n << 254n) + 0x224698fc094cf91b992d30ed00000001n,
    r: (1n << 254n) + 0x224698fc0994a8dd8c46eb2100000001n,
    a: 0n,
    b: 5n,
    h: 1n,
    G: { x: -1n, y: 2n }, // x = p - 1
  },
  vesta: {
    p: (1n << 254n) + 0x224698fc0994a8dd8c46eb2100000001n,
    r: (1n << 254n) + 0x224698fc094cf91b992d30ed00000001n,
    a: 0n,
    b: 5n,
    h: 1n,
    G: { x: -1n, y: 2n },
  },
  secp256k1: {
    p: (1n << 256n) - (1n << 32n) - 977n,
    r: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
    a: 0n,
    b: 7n,
    h: 1n,
    G: {
      x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
      y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
    },
  },
  grumpkin: {
    p: 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n, // BN254's r
    r: 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n, // BN254's p
    a: 0n,
    b: -17n,
    h: 1n,
    G: { x: 1n, y: 0x0000000000000002cf135e7506a45d632d270d45f1181294833fc48d823f272cn },
  },
};

/** A published curve with a, b and the generator reduced mod p (negative values as written above). */
export function published(name) {
  const c = PUBLISHED[name];
  const m = (v) => ((v % c.p) + c.p) % c.p;
  return { ...c, a: m(c.a), b: m(c.b), G: { x: m(c.G.x), y: m(c.G.y) } };
}
