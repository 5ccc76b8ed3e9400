pragma circom 2.0.0;
// `count` EdDSA-Poseidon signature checks on Baby Jubjub (BN254's scalar field only).
include "circomlib/circuits/eddsaposeidon.circom";

template Signatures(count) {
    signal input enabled;
    signal input Ax;
    signal input Ay;
    signal input S;
    signal input R8x;
    signal input R8y;
    signal input M[count];
    component v[count];
    for (var i = 0; i < count; i++) {
        v[i] = EdDSAPoseidonVerifier();
        v[i].enabled <== enabled;
        v[i].Ax <== Ax;
        v[i].Ay <== Ay;
        v[i].S <== S;
        v[i].R8x <== R8x;
        v[i].R8y <== R8y;
        v[i].M <== M[i];
    }
}
