pragma circom 2.0.0;
// A Poseidon Merkle proof: the root of the tree in which `leaf` sits at the path given by pathIndices
// (0: the node is the left child) and its siblings pathElements. About 243 constraints per level.
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mux1.circom";

template MerkleProof(depth) {
    signal input leaf;
    signal input pathElements[depth];
    signal input pathIndices[depth];
    signal output root;

    component hashers[depth];
    component left[depth];
    component right[depth];
    signal levels[depth + 1];
    levels[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        pathIndices[i] * (1 - pathIndices[i]) === 0;
        left[i] = Mux1();
        left[i].c[0] <== levels[i];
        left[i].c[1] <== pathElements[i];
        left[i].s <== pathIndices[i];
        right[i] = Mux1();
        right[i].c[0] <== pathElements[i];
        right[i].c[1] <== levels[i];
        right[i].s <== pathIndices[i];
        hashers[i] = Poseidon(2);
        hashers[i].inputs[0] <== left[i].out;
        hashers[i].inputs[1] <== right[i].out;
        levels[i + 1] <== hashers[i].out;
    }
    root <== levels[depth];
}
