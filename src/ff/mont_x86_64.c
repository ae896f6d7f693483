/*
 * Montgomery multiplication for Fp (6 limbs) and Fr (4 limbs) with the x86-64
 * BMI2/ADX instructions, as GCC extended inline assembly.
 *
 * MULX multiplies by RDX without touching the flags, ADCX adds with carry
 * through CF only and ADOX through OF only, so two independent carry chains
 * can run interleaved (Ozturk, Guilford, Gopal, Feghali, "New Instructions
 * Supporting Large Integer Arithmetic on Intel Architecture Processors",
 * Intel white paper 327831, 2012). A row adds the low halves of its products
 * on one chain and the high halves on the other.
 *
 * Multiplication is CIOS (Koc, Acar, Kaliski, "Analyzing and comparing
 * Montgomery multiplication algorithms", IEEE Micro 1996): for each limb b[i],
 * t += a*b[i], then m = t[0]*(-q^-1) mod 2^64 and t = (t + m*q) / 2^64. Both
 * moduli leave spare bits in the top limb, so t < 2q after every round and
 * the carry word of t + a*b[i] folds into the top limb during the shift
 * instead of being carried as an extra limb (the "no-carry" condition
 * q[N-1] < 2^63 - 1; Botrel and El Housni, "Faster Montgomery multiplication
 * and multi-scalar-multiplication for SNARKs", TCHES 2023(3), section 2).
 * Cost: 2N^2 MULX, N IMUL and one conditional subtraction.
 *
 * The critical path of CIOS runs t[0] -> m (IMUL) -> m*q[0] (MULX) -> new
 * t[0], once per limb; everything else can overlap with it. Two things keep
 * that path short in the Fp kernel:
 *  - the next row a*b[i+1] does not depend on m, so it is added one limb up
 *    (positions 1..7) before the reduction shifts t down: (t + m*q)/2^64 +
 *    a*b[i+1] = (t + a*b[i+1]*2^64 + m*q)/2^64. The new t[0] is then ready
 *    two additions after hi(m*q[0]) instead of three;
 *  - the carry out of position 0, where t[0] + lo(m*q[0]) = 0 mod 2^64, is
 *    just (t[0] != 0); it is taken from t[0] alone (ADCX of t[0] into an
 *    all-ones register) so that it does not wait for the product.
 * For Fr (rows of four) the plain row-then-reduce order is as fast, and
 * that kernel keeps it.
 *
 * Squaring computes the 2N-limb square with N(N-1)/2 + N products (doubling
 * the cross products), then reduces: REDC(T) = (T_lo + M*q)/R + T_hi, where
 * M makes T_lo + M*q divisible by R. The first term is <= q and T_hi < q for
 * T = a^2 < q^2, so the sum is < 2q and one subtraction finishes it. Cost:
 * N(N+1)/2 + N^2 MULX (57 instead of 72 for Fp).
 *
 * Carry bookkeeping: every row and reduction ends by adding CF and OF into
 * its top limb, which cannot overflow because the partial value fits in the
 * limbs written so far (for the cross-product rows 0..k of the square, the
 * sum is below 2^(64(k+1)) * 2^(64N)); so both flags are clear afterwards.
 * The Fp rows rely on that and start without XOR. Reductions start with one
 * because IMUL leaves CF and OF undefined; the other rows start with one so
 * that their chains need not wait for the end of the previous row's.
 *
 * Register names are passed into the row macros, so a row can leave its
 * result in whichever register became free; the Montgomery shift costs no
 * MOV. The comments between rounds give the limbs of t, low first, and the
 * free registers.
 *
 * Memory operands: the moduli are file-local copies so that they are always
 * addressed RIP-relative and need no register (the kernels use nearly all
 * general registers); they equal ZKP_FP_MODULUS and ZKP_FR_MODULUS, and the
 * unit tests compare this path with GMP.
 */
#include "ff_int.h"

#if defined(__x86_64__)

static const uint64_t P[6] = {
	0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
	0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a,
};
static const uint64_t P_INV = 0x89f3fffcfffcfffd; /* -p^-1 mod 2^64 */

static const uint64_t R[4] = {
	0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
	0x73eda753299d7d48,
};
static const uint64_t R_INV = 0xfffffffeffffffff; /* -r^-1 mod 2^64 */

#define I(s) s "\n\t"

/* The row macros take register names as separate arguments; these wrappers
 * let a caller pass a macro that expands to several of them. */
#define CSUB6(...) CSUB6_(__VA_ARGS__)
#define ROUND6(...) ROUND6_(__VA_ARGS__)
#define LAST6(...) LAST6_(__VA_ARGS__)
#define REDC6(...) REDC6_(__VA_ARGS__)

/* T = T - q if T >= q, for T < 2q: subtract into the scratch registers
 * S0..S5 and keep the difference when there was no borrow. */
#define CSUB6_(T0, T1, T2, T3, T4, T5, S0, S1, S2, S3, S4, S5)              \
	I("movq " T0 ", " S0) I("subq %[q0], " S0)                         \
	I("movq " T1 ", " S1) I("sbbq %[q1], " S1)                         \
	I("movq " T2 ", " S2) I("sbbq %[q2], " S2)                         \
	I("movq " T3 ", " S3) I("sbbq %[q3], " S3)                         \
	I("movq " T4 ", " S4) I("sbbq %[q4], " S4)                         \
	I("movq " T5 ", " S5) I("sbbq %[q5], " S5)                         \
	I("cmovncq " S0 ", " T0) I("cmovncq " S1 ", " T1)                  \
	I("cmovncq " S2 ", " T2) I("cmovncq " S3 ", " T3)                  \
	I("cmovncq " S4 ", " T4) I("cmovncq " S5 ", " T5)

/* ---- Fp multiplication ---- */

/* t += a * b[i] * 2^64 (positions 1..7 = S1..S6, T7; T7 is written, not
 * added to). F is scratch. Flags clear on entry and on exit. */
#define MULSH6_(OFF, S1, S2, S3, S4, S5, S6, T7, F)                         \
	I("movq " OFF "(%[pb]), %%rdx")                                    \
	I("mulxq 0(%[pa]), %[lo], " F)                                     \
	I("adoxq %[lo], " S1)                                              \
	I("adcxq " F ", " S2)                                              \
	I("mulxq 8(%[pa]), %[lo], " F)                                     \
	I("adoxq %[lo], " S2)                                              \
	I("adcxq " F ", " S3)                                              \
	I("mulxq 16(%[pa]), %[lo], " F)                                    \
	I("adoxq %[lo], " S3)                                              \
	I("adcxq " F ", " S4)                                              \
	I("mulxq 24(%[pa]), %[lo], " F)                                    \
	I("adoxq %[lo], " S4)                                              \
	I("adcxq " F ", " S5)                                              \
	I("mulxq 32(%[pa]), %[lo], " F)                                    \
	I("adoxq %[lo], " S5)                                              \
	I("adcxq " F ", " S6)                                              \
	I("mulxq 40(%[pa]), %[lo], " T7)                                   \
	I("adoxq %[lo], " S6)                                              \
	I("adcxq %[z], " T7)                                               \
	I("adoxq %[z], " T7)

/* Reduction of positions 0..5: m = S0 * P_INV; CF = (S0 != 0); then new
 * limb j-1 = S_j + hi(m*p_{j-1}) (CF chain) + lo(m*p_j) (OF chain), built in
 * the register that held hi(m*p_{j-1}) while hi(m*p_j) goes into S_j, which
 * has just been consumed. Leaves new limbs 0..4 in H, S1..S4, hi(m*p5) in S5
 * and both carries pending into position 6. */
#define REDC_HEAD6_(S0, S1, S2, S3, S4, S5, H)                              \
	I("movq " S0 ", %%rdx")                                            \
	I("imulq %[qinv], %%rdx")                                          \
	I("xorl %k[lo], %k[lo]")                                           \
	I("notq %[lo]")                                                    \
	I("adcxq " S0 ", %[lo]")                                           \
	I("mulxq %[q0], %[lo], " H)                                        \
	I("adcxq " S1 ", " H)                                              \
	I("mulxq %[q1], %[lo], " S1)                                       \
	I("adoxq %[lo], " H)                                               \
	I("adcxq " S2 ", " S1)                                             \
	I("mulxq %[q2], %[lo], " S2)                                       \
	I("adoxq %[lo], " S1)                                              \
	I("adcxq " S3 ", " S2)                                             \
	I("mulxq %[q3], %[lo], " S3)                                       \
	I("adoxq %[lo], " S2)                                              \
	I("adcxq " S4 ", " S3)                                             \
	I("mulxq %[q4], %[lo], " S4)                                       \
	I("adoxq %[lo], " S3)                                              \
	I("adcxq " S5 ", " S4)                                             \
	I("mulxq %[q5], %[lo], " S5)                                       \
	I("adoxq %[lo], " S4)

/* One round on t = (S0..S6), H and T7 free: add the row for the limb of b
 * at byte offset OFF one limb up, then reduce and shift. New t is
 * (H, S1, S2, S3, S4, S5, T7); S0 and S6 become free. */
#define ROUND6_(OFF, S0, S1, S2, S3, S4, S5, S6, T7, H)                     \
	MULSH6_(OFF, S1, S2, S3, S4, S5, S6, T7, H)                         \
	REDC_HEAD6_(S0, S1, S2, S3, S4, S5, H)                              \
	I("adcxq " S6 ", " S5)                                             \
	I("adoxq %[z], " S5)                                               \
	I("adcxq %[z], " T7)                                               \
	I("adoxq %[z], " T7)

/* The last round has no next row: new t is (H, S1..S5). */
#define LAST6_(S0, S1, S2, S3, S4, S5, S6, H)                               \
	REDC_HEAD6_(S0, S1, S2, S3, S4, S5, H)                              \
	I("adcxq " S6 ", " S5)                                             \
	I("adoxq %[z], " S5)

void ff_mulx_fp_mul(uint64_t ret[6], const uint64_t a[6], const uint64_t b[6])
{
	uint64_t r0, r1, r2, r3, r4, r5, r6, r7, r8, lo, d, z;

	__asm__(
		/* t = a * b[0]: one chain, straight into r0..r6 */
		I("xorl %k[z], %k[z]")
		I("movq 0(%[pb]), %%rdx")
		I("mulxq 0(%[pa]), %[r0], %[r1]")
		I("mulxq 8(%[pa]), %[lo], %[r2]")
		I("adcxq %[lo], %[r1]")
		I("mulxq 16(%[pa]), %[lo], %[r3]")
		I("adcxq %[lo], %[r2]")
		I("mulxq 24(%[pa]), %[lo], %[r4]")
		I("adcxq %[lo], %[r3]")
		I("mulxq 32(%[pa]), %[lo], %[r5]")
		I("adcxq %[lo], %[r4]")
		I("mulxq 40(%[pa]), %[lo], %[r6]")
		I("adcxq %[lo], %[r5]")
		I("adcxq %[z], %[r6]")
		/* (r0 r1 r2 r3 r4 r5 r6), r7 r8 */
		ROUND6("8", "%[r0]", "%[r1]", "%[r2]", "%[r3]", "%[r4]",
		       "%[r5]", "%[r6]", "%[r7]", "%[r8]")
		/* (r8 r1 r2 r3 r4 r5 r7), r0 r6 */
		ROUND6("16", "%[r8]", "%[r1]", "%[r2]", "%[r3]", "%[r4]",
		       "%[r5]", "%[r7]", "%[r0]", "%[r6]")
		/* (r6 r1 r2 r3 r4 r5 r0), r8 r7 */
		ROUND6("24", "%[r6]", "%[r1]", "%[r2]", "%[r3]", "%[r4]",
		       "%[r5]", "%[r0]", "%[r8]", "%[r7]")
		/* (r7 r1 r2 r3 r4 r5 r8), r6 r0 */
		ROUND6("32", "%[r7]", "%[r1]", "%[r2]", "%[r3]", "%[r4]",
		       "%[r5]", "%[r8]", "%[r6]", "%[r0]")
		/* (r0 r1 r2 r3 r4 r5 r6), r7 r8 */
		ROUND6("40", "%[r0]", "%[r1]", "%[r2]", "%[r3]", "%[r4]",
		       "%[r5]", "%[r6]", "%[r7]", "%[r8]")
		/* (r8 r1 r2 r3 r4 r5 r7), r0 r6 */
		LAST6("%[r8]", "%[r1]", "%[r2]", "%[r3]", "%[r4]", "%[r5]",
		      "%[r7]", "%[r6]")
		/* (r6 r1 r2 r3 r4 r5) */
		CSUB6("%[r6]", "%[r1]", "%[r2]", "%[r3]", "%[r4]", "%[r5]",
		      "%[r0]", "%[r7]", "%[r8]", "%[lo]", "%%rdx", "%[z]")
		: [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2),
		  [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5),
		  [r6] "=&r"(r6), [r7] "=&r"(r7), [r8] "=&r"(r8),
		  [lo] "=&r"(lo), "=&d"(d), [z] "=&r"(z)
		: [pa] "r"(a), [pb] "r"(b),
		  [q0] "m"(P[0]), [q1] "m"(P[1]), [q2] "m"(P[2]),
		  [q3] "m"(P[3]), [q4] "m"(P[4]), [q5] "m"(P[5]),
		  [qinv] "m"(P_INV)
		: "cc", "memory");

	ret[0] = r6;
	ret[1] = r1;
	ret[2] = r2;
	ret[3] = r3;
	ret[4] = r4;
	ret[5] = r5;
}

/* ---- Fp squaring ---- */

/* One reduction round of the low half of a square: W = (W + m*p) / 2^64
 * with m = W0 * P_INV and no carry word. New W is (H, W1..W5); W0 becomes
 * the spare register. L is scratch, Z holds 0. */
#define REDC6_(W0, W1, W2, W3, W4, W5, H, L, Z)                             \
	I("movq " W0 ", %%rdx")                                            \
	I("imulq %[qinv], %%rdx")                                          \
	I("xorq " L ", " L)                                                \
	I("mulxq %[q0], " L ", " H)                                        \
	I("adcxq " W0 ", " L)                                              \
	I("adcxq " W1 ", " H)                                              \
	I("mulxq %[q1], " L ", " W1)                                       \
	I("adoxq " L ", " H)                                               \
	I("adcxq " W2 ", " W1)                                             \
	I("mulxq %[q2], " L ", " W2)                                       \
	I("adoxq " L ", " W1)                                              \
	I("adcxq " W3 ", " W2)                                             \
	I("mulxq %[q3], " L ", " W3)                                       \
	I("adoxq " L ", " W2)                                              \
	I("adcxq " W4 ", " W3)                                             \
	I("mulxq %[q4], " L ", " W4)                                       \
	I("adoxq " L ", " W3)                                              \
	I("adcxq " W5 ", " W4)                                             \
	I("mulxq %[q5], " L ", " W5)                                       \
	I("adoxq " L ", " W4)                                              \
	I("adcxq " Z ", " W5)                                              \
	I("adoxq " Z ", " W5)

void ff_mulx_fp_sqr(uint64_t ret[6], const uint64_t a[6])
{
	/* x1..x10 hold limbs 1..10 of the square while it is built; limb 0
	 * lands in lo. The high half goes to hi6[] on the stack, because the
	 * reduction of the low half needs the registers. */
	uint64_t x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, lo, hi, d;
	uint64_t hi6[6];

	__asm__(
		/* Cross products a_i*a_j, i < j, into limbs 1..10. Row i
		 * multiplies by a_i; rows after the first add low halves on
		 * the OF chain and high halves on the CF chain. RDX is free
		 * at the end of a row and serves as the zero operand. */
		I("xorl %k[lo], %k[lo]")
		I("movq 0(%[pa]), %%rdx")
		I("mulxq 8(%[pa]), %[x1], %[x2]")
		I("mulxq 16(%[pa]), %[lo], %[x3]")
		I("adcxq %[lo], %[x2]")
		I("mulxq 24(%[pa]), %[lo], %[x4]")
		I("adcxq %[lo], %[x3]")
		I("mulxq 32(%[pa]), %[lo], %[x5]")
		I("adcxq %[lo], %[x4]")
		I("mulxq 40(%[pa]), %[lo], %[x6]")
		I("adcxq %[lo], %[x5]")
		I("movl $0, %%edx")
		I("adcxq %%rdx, %[x6]")

		I("xorl %k[lo], %k[lo]")
		I("movq 8(%[pa]), %%rdx")
		I("mulxq 16(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x3]")
		I("adcxq %[hi], %[x4]")
		I("mulxq 24(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x4]")
		I("adcxq %[hi], %[x5]")
		I("mulxq 32(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x5]")
		I("adcxq %[hi], %[x6]")
		I("mulxq 40(%[pa]), %[lo], %[x7]")
		I("adoxq %[lo], %[x6]")
		I("movl $0, %%edx")
		I("adcxq %%rdx, %[x7]")
		I("adoxq %%rdx, %[x7]")

		I("xorl %k[lo], %k[lo]")
		I("movq 16(%[pa]), %%rdx")
		I("mulxq 24(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x5]")
		I("adcxq %[hi], %[x6]")
		I("mulxq 32(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x6]")
		I("adcxq %[hi], %[x7]")
		I("mulxq 40(%[pa]), %[lo], %[x8]")
		I("adoxq %[lo], %[x7]")
		I("movl $0, %%edx")
		I("adcxq %%rdx, %[x8]")
		I("adoxq %%rdx, %[x8]")

		I("xorl %k[lo], %k[lo]")
		I("movq 24(%[pa]), %%rdx")
		I("mulxq 32(%[pa]), %[lo], %[hi]")
		I("adoxq %[lo], %[x7]")
		I("adcxq %[hi], %[x8]")
		I("mulxq 40(%[pa]), %[lo], %[x9]")
		I("adoxq %[lo], %[x8]")
		I("movl $0, %%edx")
		I("adcxq %%rdx, %[x9]")
		I("adoxq %%rdx, %[x9]")

		I("xorl %k[lo], %k[lo]")
		I("movq 32(%[pa]), %%rdx")
		I("mulxq 40(%[pa]), %[lo], %[x10]")
		I("adoxq %[lo], %[x9]")
		I("movl $0, %%edx")
		I("adoxq %%rdx, %[x10]")

		/* Double (CF chain: x + x + CF) and add the squares a_i^2 at
		 * limbs 2i, 2i+1 (OF chain). The low half of a_i^2 for i >= 1
		 * goes into RDX itself, which frees a register for limb 0.
		 * Limbs 6..11 are final as soon as they are formed. */
		I("movq 0(%[pa]), %%rdx")
		I("mulxq %%rdx, %[lo], %[hi]")
		I("adcxq %[x1], %[x1]")
		I("adoxq %[hi], %[x1]")
		I("movq 8(%[pa]), %%rdx")
		I("mulxq %%rdx, %%rdx, %[hi]")
		I("adcxq %[x2], %[x2]")
		I("adoxq %%rdx, %[x2]")
		I("adcxq %[x3], %[x3]")
		I("adoxq %[hi], %[x3]")
		I("movq 16(%[pa]), %%rdx")
		I("mulxq %%rdx, %%rdx, %[hi]")
		I("adcxq %[x4], %[x4]")
		I("adoxq %%rdx, %[x4]")
		I("adcxq %[x5], %[x5]")
		I("adoxq %[hi], %[x5]")
		I("movq 24(%[pa]), %%rdx")
		I("mulxq %%rdx, %%rdx, %[hi]")
		I("adcxq %[x6], %[x6]")
		I("adoxq %%rdx, %[x6]")
		I("movq %[x6], 0+%[H]")
		I("adcxq %[x7], %[x7]")
		I("adoxq %[hi], %[x7]")
		I("movq %[x7], 8+%[H]")
		I("movq 32(%[pa]), %%rdx")
		I("mulxq %%rdx, %%rdx, %[hi]")
		I("adcxq %[x8], %[x8]")
		I("adoxq %%rdx, %[x8]")
		I("movq %[x8], 16+%[H]")
		I("adcxq %[x9], %[x9]")
		I("adoxq %[hi], %[x9]")
		I("movq %[x9], 24+%[H]")
		I("movq 40(%[pa]), %%rdx")
		I("mulxq %%rdx, %%rdx, %[hi]")
		I("adcxq %[x10], %[x10]")
		I("adoxq %%rdx, %[x10]")
		I("movq %[x10], 32+%[H]")
		I("movl $0, %k[x6]")
		I("adcxq %[x6], %[hi]")
		I("adoxq %[x6], %[hi]")
		I("movq %[hi], 40+%[H]")

		/* Reduce the low half (lo, x1..x5) in six rounds; x6 = 0 is
		 * the zero operand, x7 the scratch. */
		REDC6("%[lo]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[hi]", "%[x7]", "%[x6]")
		REDC6("%[hi]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[lo]", "%[x7]", "%[x6]")
		REDC6("%[lo]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[hi]", "%[x7]", "%[x6]")
		REDC6("%[hi]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[lo]", "%[x7]", "%[x6]")
		REDC6("%[lo]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[hi]", "%[x7]", "%[x6]")
		REDC6("%[hi]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[lo]", "%[x7]", "%[x6]")

		/* + T_hi, then one conditional subtraction. */
		I("addq 0+%[H], %[lo]")
		I("adcq 8+%[H], %[x1]")
		I("adcq 16+%[H], %[x2]")
		I("adcq 24+%[H], %[x3]")
		I("adcq 32+%[H], %[x4]")
		I("adcq 40+%[H], %[x5]")
		CSUB6("%[lo]", "%[x1]", "%[x2]", "%[x3]", "%[x4]", "%[x5]",
		      "%[hi]", "%[x6]", "%[x7]", "%[x8]", "%[x9]", "%[x10]")
		: [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3),
		  [x4] "=&r"(x4), [x5] "=&r"(x5), [x6] "=&r"(x6),
		  [x7] "=&r"(x7), [x8] "=&r"(x8), [x9] "=&r"(x9),
		  [x10] "=&r"(x10), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(d),
		  [H] "=m"(hi6)
		: [pa] "r"(a), [q0] "m"(P[0]), [q1] "m"(P[1]), [q2] "m"(P[2]),
		  [q3] "m"(P[3]), [q4] "m"(P[4]), [q5] "m"(P[5]),
		  [qinv] "m"(P_INV)
		: "cc", "memory");

	ret[0] = lo;
	ret[1] = x1;
	ret[2] = x2;
	ret[3] = x3;
	ret[4] = x4;
	ret[5] = x5;
}

/* ---- Fr multiplication: row, then reduction ---- */

/* Reduction round on (W0..W3) with carry word A: W = (W + A*2^256 + m*r) /
 * 2^64. New W is (H, W1, W2, W3); W0 becomes the spare register. */
#define REDC4_(W0, W1, W2, W3, H)                                           \
	I("movq " W0 ", %%rdx")                                            \
	I("imulq %[qinv], %%rdx")                                          \
	I("xorl %k[lo], %k[lo]")                                           \
	I("mulxq %[q0], %[lo], " H)                                        \
	I("adcxq " W0 ", %[lo]")                                           \
	I("adcxq " W1 ", " H)                                              \
	I("mulxq %[q1], %[lo], " W1)                                       \
	I("adoxq %[lo], " H)                                               \
	I("adcxq " W2 ", " W1)                                             \
	I("mulxq %[q2], %[lo], " W2)                                       \
	I("adoxq %[lo], " W1)                                              \
	I("adcxq " W3 ", " W2)                                             \
	I("mulxq %[q3], %[lo], " W3)                                       \
	I("adoxq %[lo], " W2)                                              \
	I("adcxq %[z], " W3)                                               \
	I("adoxq %[A], " W3)

/* W += a * b[i] (b[i] at byte offset OFF), the carry word going to A; H is
 * scratch. A fresh XOR lets this row start before the previous reduction's
 * carry chains have finished. */
#define MULROW4_(OFF, W0, W1, W2, W3, H)                                    \
	I("xorl %k[lo], %k[lo]")                                           \
	I("movq " OFF "(%[pb]), %%rdx")                                    \
	I("mulxq 0(%[pa]), %[lo], " H)                                     \
	I("adoxq %[lo], " W0)                                              \
	I("adcxq " H ", " W1)                                              \
	I("mulxq 8(%[pa]), %[lo], " H)                                     \
	I("adoxq %[lo], " W1)                                              \
	I("adcxq " H ", " W2)                                              \
	I("mulxq 16(%[pa]), %[lo], " H)                                    \
	I("adoxq %[lo], " W2)                                              \
	I("adcxq " H ", " W3)                                              \
	I("mulxq 24(%[pa]), %[lo], %[A]")                                  \
	I("adoxq %[lo], " W3)                                              \
	I("adcxq %[z], %[A]")                                              \
	I("adoxq %[z], %[A]")

#define T4 "%[t0]", "%[t1]", "%[t2]", "%[t3]"
#define H4 "%[h]", "%[t1]", "%[t2]", "%[t3]"
#define REDC4(...) REDC4_(__VA_ARGS__)
#define MULROW4(...) MULROW4_(__VA_ARGS__)

void ff_mulx_fr_mul(uint64_t ret[4], const uint64_t a[4], const uint64_t b[4])
{
	uint64_t t0, t1, t2, t3, h, A, lo, d, z, s0, s1;

	__asm__(
		/* t = a * b[0] into t0..t3 and the carry word A */
		I("xorl %k[z], %k[z]")
		I("movq 0(%[pb]), %%rdx")
		I("mulxq 0(%[pa]), %[t0], %[t1]")
		I("mulxq 8(%[pa]), %[lo], %[t2]")
		I("adcxq %[lo], %[t1]")
		I("mulxq 16(%[pa]), %[lo], %[t3]")
		I("adcxq %[lo], %[t2]")
		I("mulxq 24(%[pa]), %[lo], %[A]")
		I("adcxq %[lo], %[t3]")
		I("adcxq %[z], %[A]")
		REDC4(T4, "%[h]")
		MULROW4("8", H4, "%[t0]")
		REDC4(H4, "%[t0]")
		MULROW4("16", T4, "%[h]")
		REDC4(T4, "%[h]")
		MULROW4("24", H4, "%[t0]")
		REDC4(H4, "%[t0]")
		/* t = t - r if t >= r */
		I("movq %[t0], %[h]") I("subq %[q0], %[h]")
		I("movq %[t1], %[A]") I("sbbq %[q1], %[A]")
		I("movq %[t2], %[s0]") I("sbbq %[q2], %[s0]")
		I("movq %[t3], %[s1]") I("sbbq %[q3], %[s1]")
		I("cmovncq %[h], %[t0]") I("cmovncq %[A], %[t1]")
		I("cmovncq %[s0], %[t2]") I("cmovncq %[s1], %[t3]")
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
		  [t3] "=&r"(t3), [h] "=&r"(h), [A] "=&r"(A), [lo] "=&r"(lo),
		  "=&d"(d), [z] "=&r"(z), [s0] "=&r"(s0), [s1] "=&r"(s1)
		: [pa] "r"(a), [pb] "r"(b),
		  [q0] "m"(R[0]), [q1] "m"(R[1]), [q2] "m"(R[2]),
		  [q3] "m"(R[3]), [qinv] "m"(R_INV)
		: "cc", "memory");

	ret[0] = t0;
	ret[1] = t1;
	ret[2] = t2;
	ret[3] = t3;
}

#else /* !__x86_64__: ZKPD_FF_ASM forced on elsewhere; never selected */

void ff_mulx_fp_mul(uint64_t ret[6], const uint64_t a[6], const uint64_t b[6])
{
	zkp_fp_mul_portable((zkp_fp *)ret, (const zkp_fp *)a,
			    (const zkp_fp *)b);
}

void ff_mulx_fp_sqr(uint64_t ret[6], const uint64_t a[6])
{
	zkp_fp_sqr_portable((zkp_fp *)ret, (const zkp_fp *)a);
}

void ff_mulx_fr_mul(uint64_t ret[4], const uint64_t a[4], const uint64_t b[4])
{
	zkp_fr_mul_portable((zkp_fr *)ret, (const zkp_fr *)a,
			    (const zkp_fr *)b);
}

#endif

/* Public entry points for tests and benches that compare the two paths. */
void zkp_fp_mul_mulx(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b)
{
	ff_mulx_fp_mul(ret->l, a->l, b->l);
}

void zkp_fp_sqr_mulx(zkp_fp *ret, const zkp_fp *a)
{
	ff_mulx_fp_sqr(ret->l, a->l);
}

void zkp_fr_mul_mulx(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b)
{
	ff_mulx_fr_mul(ret->l, a->l, b->l);
}
