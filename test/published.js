// Curve constants as the curves' own specifications and reference implementations publish them, written here from
// those sources (not read from codegen/curves/*.json, which test/curve-constants.test.js checks against them):
//   bls12-381  IETF draft-irtf-cfrg-pairing-friendly-curves (section 4.2.1), zkcrypto/bls12_381; seed z = -0xd201000000010000
//   bn254      EIP-196/197 (alt_bn128), arkworks ark-bn254; u = 0x44e992b44a6909f1
//   bls12-377  arkworks ark-bls12-377 (Zexe, ePrint 2018/962); z = 0x8508c00000000001
//   pallas, vesta  the Pasta curves (zcash/pasta_curves, arkworks ark-pallas / ark-vesta): p, q = 2^254 + ..., G = (-1, 2)
//   secp256k1  SEC 2 v2, section 2.4.1
//   grumpkin   Aztec barretenberg (the cycle partner of BN254): y^2 = x^3 - 17, G = (1, sqrt(-16))
// Twisted Edwards a x^2 + y^2 = 1 + d x^2 y^2 (model: 'twisted-edwards', d instead of b):
//   ed25519    RFC 8032 section 5.1 (d = -121665/121666, B = (..., 4/5))
//   jubjub     Zcash protocol spec 5.4.9.3 (a = -1, d = -10240/10241, r_J); the generator of zkcrypto/jubjub and
//              the SafeCurves-style list at neuromancer.sk std/other/JubJub
//   baby-jubjub  EIP-2494 (a = 168700, d = 168696, l; the base point B = Base8 of circomlib)
//   bandersnatch  Masson, Sanso, Zhang, ePrint 2021/1152 and arkworks ark-ed-on-bls12-381-bandersnatch (a = -5)
//   ed-on-bls12-377  arkworks ark-ed-on-bls12-377 (a = -1, d = 3021)
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
  ed25519: {
    model: 'twisted-edwards',
    p: 2n ** 255n - 19n,
    r: 2n ** 252n + 27742317777372353535851937790883648493n,
    a: -1n,
    d: { num: -121665n, den: 121666n },
    h: 8n,
    G: { x: 15112221349535400772501151409588531511454012693041857206046113283949847762202n, y: 46316835694926478169428394003475163141307993866256225615783033603165251855960n },
  },
  jubjub: {
    model: 'twisted-edwards',
    p: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n, // BLS12-381's r
    r: 6554484396890773809930967563523245729705921265872317281365359162392183254199n,
    a: -1n,
    d: { num: -10240n, den: 10241n },
    h: 8n,
    G: { x: 0x11dafe5d23e1218086a365b99fbf3d3be72f6afd7d1f72623e6b071492d1122bn, y: 0x1d523cf1ddab1a1793132e78c866c0c33e26ba5cc220fed7cc3f870e59d292aan },
  },
  'baby-jubjub': {
    model: 'twisted-edwards',
    p: 21888242871839275222246405745257275088548364400416034343698204186575808495617n, // BN254's r
    r: 2736030358979909402780800718157159386076813972158567259200215660948447373041n,
    a: 168700n,
    d: 168696n,
    h: 8n,
    G: { x: 5299619240641551281634865583518297030282874472190772894086521144482721001553n, y: 16950150798460657717958625567821834550301663161624707787222815936182638968203n },
  },
  bandersnatch: {
    model: 'twisted-edwards',
    p: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n, // BLS12-381's r
    r: 13108968793781547619861935127046491459309155893440570251786403306729687672801n,
    a: -5n,
    d: 45022363124591815672509500913686876175488063829319466900776701791074614335719n,
    h: 4n,
    G: { x: 18886178867200960497001835917649091219057080094937609519140440539760939937304n, y: 19188667384257783945677642223292697773471335439753913231509108946878080696678n },
  },
  'ed-on-bls12-377': {
    model: 'twisted-edwards',
    p: 0x12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001n, // BLS12-377's r
    r: 2111115437357092606062206234695386632838870926408408195193685246394721360383n,
    a: -1n,
    d: 3021n,
    h: 4n,
    G: { x: 4497879464030519973909970603271755437257548612157028181994697785683032656389n, y: 4357141146396347889246900916607623952598927460421559113092863576544024487809n },
  },
};

/** A published curve with a, b (or d) and the generator reduced mod p (negative values and fractions as above). */
export function published(name) {
  const c = PUBLISHED[name];
  const m = (v) => ((v % c.p) + c.p) % c.p;
  const pow = (b, e) => (e === 0n ? 1n : (pow(m(b * b), e >> 1n) * (e & 1n ? b : 1n)) % c.p);
  const value = (v) => (typeof v === 'bigint' ? m(v) : m(v.num * pow(m(v.den), c.p - 2n)));
  const coefficients = c.model === 'twisted-edwards' ? { a: m(c.a), d: value(c.d) } : { a: m(c.a), b: m(c.b) };
  return { ...c, ...coefficients, G: { x: m(c.G.x), y: m(c.G.y) } };
}
