pragma circom 2.0.0;

// out = a*b*c + a + 7: two constraints, circom writes the first one negated.
template Tiny() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal ab;

    ab <== a * b;
    out <== ab * c + a + 7;
}

component main {public [a]} = Tiny();
