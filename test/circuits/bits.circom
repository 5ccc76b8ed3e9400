pragma circom 2.0.0;
// `in` as n bits and their count of ones: circomlib's Num2Bits and a sum, about n + 1 constraints (the
// smallest real circuit, for FFLONK, whose powers of tau are 9 times the domain).
include "circomlib/circuits/bitify.circom";

template Bits(n) {
    signal input in;
    signal output ones;
    component b = Num2Bits(n);
    b.in <== in;
    var sum = 0;
    for (var i = 0; i < n; i++) sum += b.out[i];
    ones <== sum;
}
