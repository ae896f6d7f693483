/*
 * poseidon: Filecoin's Poseidon hash over the BLS12-381 scalar field, exactly
 * as neptune v11 (argumentcomputer/neptune, formerly filecoin-project/neptune)
 * computes it with Strength::Standard and the x^5 S-box. Width t = arity + 1;
 * state[0] holds the domain tag, state[1..t) the inputs, and the digest is
 * state[1] after the permutation.
 *
 * Invariants:
 *  - Every constant is generated here at run time from its definition (round
 *    numbers, Grain LFSR round constants, Cauchy MDS matrix, compressed round
 *    constants, sparse factorization); no table is embedded. The unit tests
 *    pin them against neptune's round-constant file, supraseal's constant
 *    files (every element) and neptune's known-answer digests.
 *  - A zkp_poseidon_consts is immutable once returned, lives until the
 *    process exits (never free it) and may be read by any number of threads.
 *  - All zkp_fr values are Montgomery form, as everywhere in ff.h.
 *  - Arities 1..36 are supported (neptune's range). Filecoin uses 2, 4, 8,
 *    11, 16, 24 and 36; neptune's known-answer digests exist for those.
 *
 * Matrix convention (the contract the circuit gadgets rely on):
 *   mds[i*t + j] = M[i][j] and pre_sparse[i*t + j] = P[i][j], rows first,
 *   exactly neptune's Matrix<F> (m[i][j] is row i, column j). Every mixing
 *   step multiplies the state as a ROW vector on the left:
 *       new[j] = sum_i s[i] * X[i][j]
 *   For M this equals neptune's native M * s because M is symmetric
 *   (M[i][j] = 1/(i + j + t)). P is NOT symmetric (for t >= 3), and neptune
 *   (poseidon.rs product_mds_with_matrix, circuit.rs product_mds_with_matrix)
 *   and supraseal both use the row-vector form for it; the column form gives
 *   wrong digests.
 *   Sparse matrix r (r = 0..rp-1, used after partial round r) is the matrix
 *       S[i][0] = w_hat[r*t + i]            (i = 0..t-1, the dense column 0)
 *       S[0][j] = v_rest[r*(t-1) + j - 1]   (j = 1..t-1, the dense row 0)
 *       S[i][j] = 1 if i == j else 0        (i, j >= 1)
 *   and mixing with it (row vector times S) is
 *       new[0] = sum_i s[i] * w_hat[r*t + i]
 *       new[j] = s[j] + s[0] * v_rest[r*(t-1) + j - 1]    (j >= 1, old s[0])
 *   which is neptune's product_mds_with_sparse_matrix in both the native
 *   hash and the legacy circuit.
 *
 * Round schedule of the optimized hash (neptune's default hash(),
 * hash_optimized_static, and its legacy circuit circuit.rs poseidon_hash),
 * with H = rf/2 = 4 and k = compressed_rc consumed in order:
 *   1. s = [domain_tag, in[0], ..., in[arity-1]];
 *      s[i] += k[i] for every lane (t constants, before any S-box).
 *   2. H full rounds r = 0..H-1: s[i] = s[i]^5 + next t constants (one per
 *      lane, added AFTER the S-box); then mix with M for r < H-1 and with
 *      P (pre_sparse) for r = H-1.
 *   3. rp partial rounds r = 0..rp-1: s[0] = s[0]^5 + next 1 constant;
 *      lanes 1..t-1 are untouched; then mix with sparse matrix r.
 *   4. H-1 full rounds: s[i] = s[i]^5 + next t constants; mix with M.
 *   5. Last full round: s[i] = s[i]^5 with NO constant; mix with M.
 *   Output s[1]. Constants used: t + H*t + rp + (H-1)*t = t*rf + rp, which is
 *   all of compressed_rc. In the circuit the first round's pre-added
 *   constants fold into the S-box input (x + k_pre), and every post-S-box
 *   constant folds into the C side of the x^4 * x row.
 *
 * Textbook schedule (neptune hash_correct; zkp_poseidon_hash_plain), with
 * rc = round_constants consumed t at a time: H full rounds
 * (s[i] = (s[i] + rc)^5 for all lanes, mix M), rp partial rounds (s[i] += rc
 * for ALL lanes, s[0] = s[0]^5, mix M), H full rounds. Output s[1].
 */
#ifndef ZKPD_POSEIDON_H
#define ZKPD_POSEIDON_H

#include <stdint.h>

#include "zkpd/ff.h"

#define ZKP_POSEIDON_MAX_ARITY 36
#define ZKP_POSEIDON_MAX_T (ZKP_POSEIDON_MAX_ARITY + 1)

typedef struct zkp_poseidon_consts {
	unsigned arity, t, rf, rp;      /* t = arity + 1; rf = 8 full rounds in all */
	zkp_fr domain_tag;              /* state[0] at start; 2^arity - 1 for MerkleTree */
	const zkp_fr *compressed_rc;    /* t*rf + rp values, in neptune's order (above) */
	const zkp_fr *mds;              /* t*t, element [i*t + j] = M[i][j] */
	const zkp_fr *pre_sparse;       /* t*t, same indexing */
	const zkp_fr *w_hat;            /* rp * t  : sparse matrix r's w_hat at [r*t + i] */
	const zkp_fr *v_rest;           /* rp * (t-1): sparse matrix r's v_rest at [r*(t-1) + j] */
	const zkp_fr *round_constants;  /* t*(rf+rp), the plain Grain output, Montgomery */
	uint64_t custom_id;             /* 0: MerkleTree; else HashType::Custom(Arbitrary(id)) */
} zkp_poseidon_consts;

/*
 * Neptune's calc_round_numbers(t, security_margin = true): the smallest
 * t*R_F + R_P (ties: smaller R_F) over even R_F in 2..1000 and R_P in 4..199
 * that satisfy the Poseidon paper's security inequalities for M = 128 bits
 * and n = 256 (neptune rounds the 255-bit field up), each candidate taken
 * with R_F + 2 and ceil(1.075 * R_P), in single-precision float arithmetic
 * as neptune does it. Gives R_F = 8 and R_P = 55 (t = 3), 56 (t = 5),
 * 57 (t = 9, 12), 59 (t = 17, 25), 60 (t = 37).
 * ZKP_ERR_INVAL for t < 2 or t > 4095 (Grain encodes t in 12 bits);
 * ZKP_ERR_RANGE if nothing in the search range is secure. About 100k float
 * evaluations: well under a millisecond.
 */
int zkp_poseidon_round_numbers(unsigned *rf, unsigned *rp, unsigned t);

/*
 * *ret = the Standard-strength, HashType::MerkleTree constants for arity
 * (1..36). Generated on the first call for that arity (thread-safe: later and
 * concurrent callers get the same pointer), then kept for the process
 * lifetime. Cost of the first call, dominated by the sparse factorization
 * (rp steps of O(t^3) multiplications): 2.6 ms for arity 2, 7.5 ms for 8,
 * 125 ms for 36 on the development machine. ZKP_ERR_INVAL for an unsupported
 * arity, ZKP_ERR_NOMEM.
 */
int zkp_poseidon_consts_get(const zkp_poseidon_consts **ret, unsigned arity);

/*
 * The same constants with neptune's HashType::Custom(CType::Arbitrary(id))
 * domain tag, id * 2^40 (id in 1..256, as neptune asserts). Every array is
 * shared with zkp_poseidon_consts_get(arity); only domain_tag and custom_id
 * differ. SnapDeals' "gen randomness" hash (phi, rho, challenge bits) is
 * arity 2, id 1. Same lifetime and threading as zkp_poseidon_consts_get.
 * ZKP_ERR_INVAL for an unsupported arity or id, ZKP_ERR_NOMEM.
 */
int zkp_poseidon_consts_get_custom(const zkp_poseidon_consts **ret, unsigned arity,
				   uint64_t arbitrary_id);

/*
 * out = Poseidon(domain_tag, in[0..arity)) by the optimized schedule above
 * (compressed constants, pre-sparse and sparse matrices). Cost:
 * 3(t*rf + rp) multiplications for the S-boxes, (rf-1)*t^2 + t for the dense
 * mixes (the last one computes only lane 1) and rp*(2t-1) for the sparse
 * ones: for arity 8, 387 + 576 + 969 = 1,932 multiplications (46 us on the
 * development machine, where one takes 24 ns). No allocation; out may alias
 * in.
 */
void zkp_poseidon_hash(zkp_fr *out, const zkp_poseidon_consts *c, const zkp_fr *in);

/* The same digest by the textbook permutation (plain round constants, full
 * MDS every round); the reference the optimized path is tested against. */
void zkp_poseidon_hash_plain(zkp_fr *out, const zkp_poseidon_consts *c, const zkp_fr *in);

#endif
