pragma circom 2.0.0;
// SHA-256 of a message of nBits bits (circomlib, about 29,000 constraints per 512-bit block after padding).
include "circomlib/circuits/sha256/sha256.circom";

template Sha(nBits) {
    signal input in[nBits];
    signal output out[256];
    component h = Sha256(nBits);
    for (var i = 0; i < nBits; i++) h.in[i] <== in[i];
    for (var i = 0; i < 256; i++) out[i] <== h.out[i];
}
