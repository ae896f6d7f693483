pragma circom 2.0.0;
template Tiny() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal ab;
    ab <== a * b;
    out <== ab * c + a + 7;
}
component main {public [c]} = Tiny();
