pragma circom 2.0.0;

// About 2^10 constraints: a 64-bit decomposition (64 boolean rows and one
// linear row with coefficients up to 2^63) followed by a chain of products
// of multi-term linear combinations.

template Num2Bits(n) {
    signal input in;
    signal output bits[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        bits[i] <-- (in >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        acc += bits[i] * e;
        e = e + e;
    }
    acc === in;
}

template Mid(n, m) {
    signal input x;
    signal input y;
    signal output out;
    signal p[m];

    component nb = Num2Bits(n);
    nb.in <== x;
    p[0] <== (x + 3 * y + 1) * (nb.bits[0] + 2 * nb.bits[1] + y);
    for (var i = 1; i < m; i++) {
        p[i] <== (p[i - 1] + 5 * nb.bits[i % n] - 7 * y + i) * (y - nb.bits[(7 * i) % n] + 3 * nb.bits[(3 * i) % n] + 1);
    }
    out <== p[m - 1];
}

component main {public [y]} = Mid(64, 935);
