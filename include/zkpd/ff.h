/*
 * ff: the BLS12-381 base field Fp, the scalar field Fr and the quadratic
 * extension Fp2 = Fp[u]/(u^2 + 1).
 *
 * Invariants:
 *  - Every zkp_fp / zkp_fr value is in Montgomery form (a*R mod m, R = 2^384
 *    for Fp and 2^256 for Fr) and fully reduced: limbs < m. All functions keep
 *    this; inputs that break it give unspecified (but memory-safe) results.
 *  - Limbs are 64-bit words, least significant first.
 *  - Outputs come first and may alias any input.
 *  - Nothing here allocates; nothing here can fail except decoders, inverses
 *    of zero and square roots of non-squares, which return a zkp_err.
 *  - Not constant-time: branches depend on values (inverse, sqrt, decoders).
 *    The prover's secrets (r, s) meet these functions only in scalar
 *    multiplications that are already data-dependent; do not use this layer
 *    for long-term signing keys.
 *
 * Multiplication has two implementations: portable C with 128-bit products,
 * and on x86-64 an assembly path using MULX/ADCX/ADOX. zkp_fp_mul and friends
 * pick the assembly path at run time when the CPU has BMI2 and ADX and the
 * build enabled it (ZKPD_FF_ASM); zkp_ff_backend() says which is in use.
 */
#ifndef ZKPD_FF_H
#define ZKPD_FF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZKP_FP_LIMBS 6
#define ZKP_FR_LIMBS 4
#define ZKP_FP_BYTES 48
#define ZKP_FR_BYTES 32

typedef struct { uint64_t l[ZKP_FP_LIMBS]; } zkp_fp;
typedef struct { uint64_t l[ZKP_FR_LIMBS]; } zkp_fr;
typedef struct { zkp_fp c0, c1; } zkp_fp2; /* c0 + c1*u */

/* Moduli and a few constants, as plain (non-Montgomery) limbs or Montgomery
 * values where the name says so. */
extern const uint64_t ZKP_FP_MODULUS[ZKP_FP_LIMBS];
extern const uint64_t ZKP_FR_MODULUS[ZKP_FR_LIMBS];
extern const zkp_fp ZKP_FP_ONE;   /* R mod p */
extern const zkp_fr ZKP_FR_ONE;   /* R mod r */
extern const zkp_fp2 ZKP_FP2_ONE;

/* "portable" or "mulx-adx": the multiplication path in use. */
const char *zkp_ff_backend(void);
/* Force the portable path (tests and benches compare both); returns the
 * previous setting. Not thread-safe: call before starting threads. */
bool zkp_ff_force_portable(bool on);

/* ---- Fp ---- */
void zkp_fp_set_zero(zkp_fp *ret);
void zkp_fp_set_one(zkp_fp *ret);
void zkp_fp_set_u64(zkp_fp *ret, uint64_t v);
bool zkp_fp_is_zero(const zkp_fp *a);
bool zkp_fp_is_one(const zkp_fp *a);
bool zkp_fp_eq(const zkp_fp *a, const zkp_fp *b);

void zkp_fp_add(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b);
void zkp_fp_sub(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b);
void zkp_fp_neg(zkp_fp *ret, const zkp_fp *a);
void zkp_fp_dbl(zkp_fp *ret, const zkp_fp *a);
void zkp_fp_mul(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b);
void zkp_fp_sqr(zkp_fp *ret, const zkp_fp *a);
void zkp_fp_mul_portable(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b);
void zkp_fp_sqr_portable(zkp_fp *ret, const zkp_fp *a);
/* Available only when zkp_ff_backend() can be "mulx-adx"; calling them on a
 * CPU without BMI2/ADX faults. */
void zkp_fp_mul_mulx(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b);
void zkp_fp_sqr_mulx(zkp_fp *ret, const zkp_fp *a);
bool zkp_ff_have_mulx(void); /* built with the asm path and the CPU has it */
/* ret = a^e, e given as little-endian 64-bit limbs (nlimbs of them). */
void zkp_fp_pow(zkp_fp *ret, const zkp_fp *a, const uint64_t *e, size_t nlimbs);
/* ret = 1/a; ZKP_ERR_NOT_INVERTIBLE for a = 0 (ret is then set to 0). */
int zkp_fp_inv(zkp_fp *ret, const zkp_fp *a);
/* ret[i] = 1/a[i] with one inversion (Montgomery's trick); scratch holds n
 * elements. Zeros map to zero and do not spoil the rest. */
void zkp_fps_inv(zkp_fp *ret, const zkp_fp *a, size_t n, zkp_fp *scratch);
/* Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for 0. */
int zkp_fp_legendre(const zkp_fp *a);
/* ret = a square root of a; ZKP_ERR_NO_SQRT if there is none. Which of the
 * two roots comes back is unspecified. */
int zkp_fp_sqrt(zkp_fp *ret, const zkp_fp *a);
/* "Lexicographically largest" per the ZCash encoding: a > (p-1)/2. */
bool zkp_fp_is_lexi_largest(const zkp_fp *a);

/* Canonical (non-Montgomery) integer limbs in and out. from_limbs refuses a
 * value >= p with ZKP_ERR_NOT_CANONICAL. */
int zkp_fp_from_limbs(zkp_fp *ret, const uint64_t v[ZKP_FP_LIMBS]);
void zkp_fp_to_limbs(uint64_t v[ZKP_FP_LIMBS], const zkp_fp *a);
/* 48 canonical bytes, big- or little-endian. Decoders refuse values >= p. */
int zkp_fp_from_be(zkp_fp *ret, const uint8_t in[ZKP_FP_BYTES]);
int zkp_fp_from_le(zkp_fp *ret, const uint8_t in[ZKP_FP_BYTES]);
void zkp_fp_to_be(uint8_t out[ZKP_FP_BYTES], const zkp_fp *a);
void zkp_fp_to_le(uint8_t out[ZKP_FP_BYTES], const zkp_fp *a);
/* ret = (v mod p) for a 2*384-bit little-endian limb value. */
void zkp_fp_from_wide(zkp_fp *ret, const uint64_t v[2 * ZKP_FP_LIMBS]);

/* ---- Fr ---- same contracts as Fp ---- */
void zkp_fr_set_zero(zkp_fr *ret);
void zkp_fr_set_one(zkp_fr *ret);
void zkp_fr_set_u64(zkp_fr *ret, uint64_t v);
bool zkp_fr_is_zero(const zkp_fr *a);
bool zkp_fr_is_one(const zkp_fr *a);
bool zkp_fr_eq(const zkp_fr *a, const zkp_fr *b);

void zkp_fr_add(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b);
void zkp_fr_sub(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b);
void zkp_fr_neg(zkp_fr *ret, const zkp_fr *a);
void zkp_fr_dbl(zkp_fr *ret, const zkp_fr *a);
void zkp_fr_mul(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b);
void zkp_fr_sqr(zkp_fr *ret, const zkp_fr *a);
void zkp_fr_mul_portable(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b);
void zkp_fr_mul_mulx(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b);
void zkp_fr_pow(zkp_fr *ret, const zkp_fr *a, const uint64_t *e, size_t nlimbs);
int zkp_fr_inv(zkp_fr *ret, const zkp_fr *a);
void zkp_frs_inv(zkp_fr *ret, const zkp_fr *a, size_t n, zkp_fr *scratch);
int zkp_fr_legendre(const zkp_fr *a);
/* Tonelli-Shanks (2-adicity 32). */
int zkp_fr_sqrt(zkp_fr *ret, const zkp_fr *a);

int zkp_fr_from_limbs(zkp_fr *ret, const uint64_t v[ZKP_FR_LIMBS]);
void zkp_fr_to_limbs(uint64_t v[ZKP_FR_LIMBS], const zkp_fr *a);
int zkp_fr_from_be(zkp_fr *ret, const uint8_t in[ZKP_FR_BYTES]);
int zkp_fr_from_le(zkp_fr *ret, const uint8_t in[ZKP_FR_BYTES]);
void zkp_fr_to_be(uint8_t out[ZKP_FR_BYTES], const zkp_fr *a);
void zkp_fr_to_le(uint8_t out[ZKP_FR_BYTES], const zkp_fr *a);
/* "0x" and the canonical value's 64 lowercase hex digits, big-endian, and
 * a NUL: for messages that name a value. */
#define ZKP_FR_HEX_CHARS (2 + 2 * ZKP_FR_BYTES + 1)
void zkp_fr_to_hex(char out[ZKP_FR_HEX_CHARS], const zkp_fr *a);
void zkp_fr_from_wide(zkp_fr *ret, const uint64_t v[2 * ZKP_FR_LIMBS]);

/* ---- Fp2 = Fp[u]/(u^2 + 1) ---- */
void zkp_fp2_set_zero(zkp_fp2 *ret);
void zkp_fp2_set_one(zkp_fp2 *ret);
bool zkp_fp2_is_zero(const zkp_fp2 *a);
bool zkp_fp2_is_one(const zkp_fp2 *a);
bool zkp_fp2_eq(const zkp_fp2 *a, const zkp_fp2 *b);
void zkp_fp2_add(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b);
void zkp_fp2_sub(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b);
void zkp_fp2_neg(zkp_fp2 *ret, const zkp_fp2 *a);
void zkp_fp2_dbl(zkp_fp2 *ret, const zkp_fp2 *a);
void zkp_fp2_conj(zkp_fp2 *ret, const zkp_fp2 *a);
void zkp_fp2_mul(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b);
void zkp_fp2_sqr(zkp_fp2 *ret, const zkp_fp2 *a);
void zkp_fp2_mul_fp(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp *b);
/* ret = a * (1 + u), the non-residue xi of the sextic twist. */
void zkp_fp2_mul_by_xi(zkp_fp2 *ret, const zkp_fp2 *a);
/* Frobenius a^(p^k): conjugation for odd k. */
void zkp_fp2_frobenius(zkp_fp2 *ret, const zkp_fp2 *a, unsigned k);
int zkp_fp2_inv(zkp_fp2 *ret, const zkp_fp2 *a);
void zkp_fp2_pow(zkp_fp2 *ret, const zkp_fp2 *a, const uint64_t *e, size_t nlimbs);
/* Legendre symbol of the norm: 1 square, -1 non-square, 0 zero. */
int zkp_fp2_legendre(const zkp_fp2 *a);
int zkp_fp2_sqrt(zkp_fp2 *ret, const zkp_fp2 *a);
/* ZCash sort order for Fp2: compare c1, and c0 only when c1 = 0. */
bool zkp_fp2_is_lexi_largest(const zkp_fp2 *a);

#endif
