/*
 * groth16: keys, proofs and the verifier for Groth16 over BLS12-381.
 * File formats (.params, .vk, .zkey, snarkjs JSON) and the native key cache
 * are in groth16_io.h.
 *
 * The relation checked for a proof (A, B, C) with public inputs
 * x_1..x_n (the constant ONE is implicit, it is not passed):
 *
 *     e(A, B) = e(alpha, beta) * e(L, gamma) * e(C, delta),
 *     L = ic[0] + sum_{i=1..n} x_i * ic[i].
 *
 * Invariants:
 *  - Every point is affine (ec.h conventions: infinity is (0, 0)), on its
 *    curve and, unless a loader was told to skip it for a trusted file, in
 *    its prime-order subgroup. Every zkp_fr is in Montgomery form (ff.h).
 *  - Keys are immutable once loaded or built: any number of threads may read
 *    one at once. A key's arrays live in one backing block owned by the key:
 *    heap memory, or a read-only mapping of a native cache file (writing
 *    through a mapped key faults). Pointers into a key stay valid until its
 *    _release.
 *  - The prover's queries are indexed by position, not by variable:
 *      ZKP_GROTH16_AB_COMPACT (bellman): a = [inputs | aux with a_aux bit],
 *        b_g1 = b_g2 = [inputs with b_input bit | aux with b_aux bit]
 *        (points at infinity dropped, bellman's generator);
 *      ZKP_GROTH16_AB_FULL (snarkjs): one point per variable, n_inputs +
 *        n_aux of them, infinity where a column is empty.
 *  - The H query is bound to how the prover computes h (see
 *    enum zkp_groth16_h_conv); the key records which.
 */
#ifndef ZKPD_GROTH16_H
#define ZKPD_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pairing.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/tower.h"

#define ZKP_GROTH16_PROOF_BYTES 192
/* zkp_groth16_verify's answer for a well-formed proof that does not verify.
 * Positive, so `if (rc) reject` is safe for both "invalid" and errors. */
#define ZKP_GROTH16_INVALID 1

/*
 * What the H query holds, hence how the prover must compute its scalars
 * (domain size n; docs/math.md, 'The H polynomial'):
 *  - BELLMAN: h[i] = [tau^i Z(tau) / delta]_1, i < n - 1 (some writers keep
 *    n points). Scalars: coefficients of (a b - c) / Z, computed on the coset
 *    g w^i (g = 7, w from 7^((r-1)/2^32)), divided by Z(g) = g^n - 1, then an
 *    inverse coset FFT.
 *  - SNARKJS: h[i] = [L_{2i+1}^{(2n)}(tau) / delta]_1, i < n. Scalars: the
 *    values of a b - c on the odd coset w_{2n}^{2i+1} (5-based roots), with
 *    no division by Z and no inverse transform.
 */
enum zkp_groth16_h_conv {
	ZKP_GROTH16_H_BELLMAN = 1,
	ZKP_GROTH16_H_SNARKJS = 2,
};

enum zkp_groth16_ab_layout {
	ZKP_GROTH16_AB_COMPACT = 1,
	ZKP_GROTH16_AB_FULL = 2,
};

/* The file a key came from. */
enum zkp_groth16_format {
	ZKP_GROTH16_FMT_NONE = 0, /* built in memory */
	ZKP_GROTH16_FMT_PARAMS = 1, /* bellman/bellperson .params */
	ZKP_GROTH16_FMT_VK = 2,     /* bellman/bellperson .vk */
	ZKP_GROTH16_FMT_ZKEY = 3,   /* snarkjs .zkey */
	ZKP_GROTH16_FMT_JSON = 4,   /* snarkjs verification_key.json */
};

/* The sections of a proving key, in bellman's file order. */
enum zkp_groth16_section {
	ZKP_GROTH16_IC,
	ZKP_GROTH16_H,
	ZKP_GROTH16_L,
	ZKP_GROTH16_A,
	ZKP_GROTH16_B_G1,
	ZKP_GROTH16_B_G2,
	ZKP_GROTH16_NSECTIONS
};
/* "ic", "h", "l", "a", "b_g1", "b_g2"; "?" for anything else. */
const char *zkp_groth16_section_name(enum zkp_groth16_section s);

/*
 * Verifying key. ic has n_ic = (public inputs) + 1 entries, ic[0] for ONE.
 * beta_g1 and delta_g1 are used only by the prover; a snarkjs
 * verification_key.json does not carry them (has_g1_extras false, both then
 * infinity). ic either points into a proving key's backing (ic_alloc NULL:
 * borrowed, valid while that key lives) or at ic_alloc, which _release frees.
 */
typedef struct {
	zkp_g1_affine alpha_g1, beta_g1, delta_g1;
	zkp_g2_affine beta_g2, gamma_g2, delta_g2;
	bool has_g1_extras;
	size_t n_ic;
	const zkp_g1_affine *ic;
	zkp_g1_affine *ic_alloc;
} zkp_groth16_vk;

/* Zeroes *vk (no allocation); _release accepts a zeroed vk. */
void zkp_groth16_vk_init(zkp_groth16_vk *vk);
void zkp_groth16_vk_release(zkp_groth16_vk *vk);
/* Deep copy: dst owns its own ic. dst is overwritten, not released first.
 * Errors: ZKP_ERR_NOMEM. */
int zkp_groth16_vk_copy(zkp_groth16_vk *dst, const zkp_groth16_vk *src);
/* Allocates an owned ic of n_ic points (all infinity) for a vk being built.
 * Errors: ZKP_ERR_INVAL (n_ic = 0), ZKP_ERR_NOMEM. */
int zkp_groth16_vk_alloc_ic(zkp_groth16_vk *vk, size_t n_ic, zkp_g1_affine **ic);
/* Same points (ic included; the G1 extras only when both sides have them). */
bool zkp_groth16_vk_eq(const zkp_groth16_vk *a, const zkp_groth16_vk *b);

/* How a proving key's load met the native cache (groth16_io.h). */
enum zkp_groth16_cache_state {
	ZKP_GROTH16_CACHE_OFF = 0,  /* not used (disabled, or key built in memory) */
	ZKP_GROTH16_CACHE_HIT,      /* points mapped from a valid cache */
	ZKP_GROTH16_CACHE_CREATED,  /* none existed; one was written */
	ZKP_GROTH16_CACHE_REBUILT,  /* a stale or corrupt one was replaced */
	ZKP_GROTH16_CACHE_FAILED,   /* decoded from the source; writing failed */
};

/*
 * Proving key: the vk plus the prover's queries, with their counts.
 *
 * Memory: all arrays (vk.ic included) point into one backing block, either
 * heap (decoded from the source file or built in memory) or a read-only
 * mmap of the native cache; nothing points into the source file, which is
 * closed after loading. The load that writes a cache keeps its heap block;
 * later loads map the cache (page-cache pages shared between processes).
 * zkp_groth16_pk_release frees or unmaps the block.
 *
 * Counts: n[ZKP_GROTH16_IC] = n_inputs (ONE included); n[L] = n_aux;
 * n[H] = domain_size - 1 or domain_size (bellman, as the file says) or
 * domain_size (snarkjs); A and B per ab_layout; n[B_G1] = n[B_G2].
 */
typedef struct {
	zkp_groth16_vk vk;
	enum zkp_groth16_h_conv h_conv;
	enum zkp_groth16_ab_layout ab_layout;
	enum zkp_groth16_format format;
	uint64_t n_inputs;    /* including ONE */
	uint64_t n_aux;
	uint64_t domain_size; /* power of two */
	size_t n[ZKP_GROTH16_NSECTIONS];
	const zkp_g1_affine *h, *l, *a, *b_g1;
	const zkp_g2_affine *b_g2;

	/* Where the source was and what it was. source_path is heap (NULL for
	 * keys built in memory). */
	char *source_path;
	uint64_t source_bytes;
	uint8_t source_sha256[32];
	bool subgroup_checked; /* every point passed a subgroup check */
	enum zkp_groth16_cache_state cache;
	/* snarkjs only: the coefficient section (id 4) of the source, left in
	 * the file: byte offset of its body, body length, entry count. The
	 * prover reads it from source_path. Zero for other formats. */
	uint64_t zkey_coeffs_offset, zkey_coeffs_bytes, zkey_coeffs_count;

	/* Backing block (private to the groth16 layer). */
	void *mem;
	size_t mem_bytes;
	bool mem_mapped;
	int mem_guard; /* zkp_mapguard handle of a mapped block */
} zkp_groth16_pk;

void zkp_groth16_pk_init(zkp_groth16_pk *pk);
void zkp_groth16_pk_release(zkp_groth16_pk *pk);
/* Whether the key's block is a mapping of its cache file and that file was
 * cut short under it since it was loaded (mapguard.h): points read since
 * may be zeros, so every proof made with the key since is void and it
 * must be loaded again. */
bool zkp_groth16_pk_damaged(const zkp_groth16_pk *pk);

/* Writable views of a heap key's sections, for code that builds a key
 * (setup, tests). */
typedef struct {
	zkp_g1_affine *ic, *h, *l, *a, *b_g1;
	zkp_g2_affine *b_g2;
} zkp_groth16_pk_sections;

/* Allocates a heap backing for a key of the given section counts (all points
 * infinity), points pk's arrays at it and returns writable views in *w.
 * Sets n_inputs = counts[IC], n_aux = counts[L], format NONE, h_conv
 * BELLMAN, ab_layout COMPACT, domain_size from counts[H] (the power of two
 * equal to counts[H] + 1, else counts[H]); the caller fixes them as needed
 * and fills the vk's fixed points. Errors: ZKP_ERR_INVAL (counts[IC] = 0,
 * counts[B_G1] != counts[B_G2], counts[H] that fits no power-of-two domain),
 * ZKP_ERR_NOMEM. */
int zkp_groth16_pk_alloc(zkp_groth16_pk *pk, const size_t counts[ZKP_GROTH16_NSECTIONS],
			 zkp_groth16_pk_sections *w);

/*
 * A circuit's shape as a key must match it: from a .pce's dimensions and
 * density bitmaps (pce.h). Keys are checked against it on load when the
 * load options carry one, or by zkp_groth16_pk_check_shape.
 */
typedef struct {
	uint64_t n_inputs; /* including ONE */
	uint64_t n_aux;
	uint64_t domain_size;
	uint64_t a_aux_ones, b_input_ones, b_aux_ones; /* popcounts */
} zkp_groth16_shape;

/* Fills *ret from dims and the three bitmaps (a_aux and b_aux of n_aux
 * bits, b_input of n_inputs bits; bits past the end must be zero). */
void zkp_groth16_shape_from_pce(zkp_groth16_shape *ret, const zkp_pce_dims *dims,
				const uint64_t *a_aux, const uint64_t *b_input,
				const uint64_t *b_aux);

/* Checks pk's section counts against s: ic = n_inputs, l = n_aux,
 * h in {domain - 1, domain} (bellman) or = domain (snarkjs); compact layout:
 * a = n_inputs + a_aux_ones, b = b_input_ones + b_aux_ones; full layout:
 * a = b = n_inputs + n_aux. Errors: ZKP_ERR_MISMATCH, the detail naming
 * `name` (the key's file, or NULL), the first section that differs, both
 * counts and where the expected one comes from. */
int zkp_groth16_pk_check_shape(const zkp_groth16_pk *pk, const zkp_groth16_shape *s,
			       const char *name, zkp_error *err);

/*
 * Prepared verifying key: what verification needs, precomputed once.
 *  - The sign of the equation is carried on the G1 side (the proof's A is
 *    negated), so beta, gamma and delta are prepared as they are:
 *    e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1.
 *  - alpha_beta is the Miller-loop value of (alpha, beta) before the final
 *    exponentiation; a single verification multiplies it in instead of a
 *    third prepared pair (54 instead of 2,924 Fp multiplications).
 *  - beta is also prepared, for batches, where the alpha side is weighted.
 *    The three prepared points are one array so a Miller loop can take
 *    (gamma, delta) or (beta, gamma, delta) as a slice.
 * About 60 KB plus n_ic points; owns a copy of ic, so it does not depend on
 * the key it came from. Immutable: share it between threads freely.
 */
enum { ZKP_GROTH16_PREP_BETA, ZKP_GROTH16_PREP_GAMMA, ZKP_GROTH16_PREP_DELTA };

typedef struct {
	size_t n_ic;
	zkp_g1_affine *ic;
	zkp_g1_affine alpha_g1;
	zkp_fp12 alpha_beta;
	zkp_g2_prepared prep[3]; /* beta, gamma, delta */
} zkp_groth16_pvk;

/* Errors: ZKP_ERR_INVAL (n_ic = 0; gamma or delta at infinity, which would
 * make every proof of some statement verify), ZKP_ERR_NOMEM.
 * Cost: 3 zkp_g2_prepare and one Miller loop, about 0.3 ms. */
int zkp_groth16_pvk_new(zkp_groth16_pvk **ret, const zkp_groth16_vk *vk);
void zkp_groth16_pvk_free(zkp_groth16_pvk *pvk);

typedef struct {
	zkp_g1_affine a;
	zkp_g2_affine b;
	zkp_g1_affine c;
} zkp_groth16_proof;

/*
 * Verifies one proof. inputs: the n public inputs x_1..x_n (ONE excluded).
 * The proof's points must be valid curve points in their subgroups, as the
 * decoders below guarantee.
 * Returns 0 when the proof is valid, ZKP_GROTH16_INVALID when it is not, or
 * ZKP_ERR_MISMATCH when n != n_ic - 1 (an error, not a rejection).
 * Cost: one Miller loop over (-A, B) and the prepared (L, gamma),
 * (C, delta), times alpha_beta, and one final exponentiation: about 20,000
 * Fp multiplications; plus L by Straus' method: about 255 shared doublings
 * and 45 mixed additions per full-size input (short inputs, such as
 * indices and bits, cost only their length).
 */
int zkp_groth16_verify(const zkp_groth16_pvk *pvk, const zkp_fr *inputs, size_t n,
		       const zkp_groth16_proof *proof);

/*
 * Verifies m proofs at once: proof j with inputs inputs[j n .. j n + n).
 * With independent random 128-bit weights r_j (OpenSSL RAND_bytes) it checks
 *   prod_j e(-r_j A_j, B_j) * e(R alpha, beta) * e(sum_j r_j L_j, gamma)
 *     * e(sum_j r_j C_j, delta) = 1,   R = sum_j r_j,
 * in one multi-Miller loop and one final exponentiation. A batch with an
 * invalid proof passes with probability about 2^-128. It says only whether
 * all are valid; to find the bad one, verify them one by one.
 * pool (may be NULL) splits the scalar multiplications and the Miller loop.
 * m = 1 is zkp_groth16_verify. Returns 0 (all valid), ZKP_GROTH16_INVALID,
 * or ZKP_ERR_MISMATCH (n != n_ic - 1), ZKP_ERR_INVAL (m = 0),
 * ZKP_ERR_NOMEM, ZKP_ERR_IO (the random generator failed).
 */
int zkp_groth16_verify_batch(const zkp_groth16_pvk *pvk, const zkp_fr *inputs, size_t n,
			     const zkp_groth16_proof *proofs, size_t m, zkp_pool *pool);

/* 192 bytes: A (48, compressed G1) || B (96, compressed G2) || C (48), the
 * ZCash encoding, as bellman and Filecoin write proofs. */
void zkp_groth16_proof_to_bytes(uint8_t out[ZKP_GROTH16_PROOF_BYTES],
				const zkp_groth16_proof *proof);
/* Strict decoding (ec.h decoders: canonical, on the curve, in the subgroup)
 * and, as bellman, no point at infinity. Errors: the ec.h decoder codes, or
 * ZKP_ERR_FORMAT for an infinity, with the detail naming A, B or C. */
int zkp_groth16_proof_from_bytes(zkp_groth16_proof *proof,
				 const uint8_t in[ZKP_GROTH16_PROOF_BYTES], zkp_error *err);
/* m concatenated proofs (Filecoin's multi-partition proofs). len must be
 * m * 192 (ZKP_ERR_BAD_LENGTH otherwise); the detail names the proof index. */
int zkp_groth16_proofs_from_bytes(zkp_groth16_proof *proofs, size_t m, const uint8_t *in,
				  size_t len, zkp_error *err);

#endif
