/*
 * ntt: number-theoretic transforms over Fr on power-of-two domains.
 *
 * A domain of size n = 2^log_n (1 <= log_n <= 28) fixes the root of unity
 * omega (order n) and a coset shift g. It holds precomputed tables and is
 * immutable after zkp_ntt_domain_init, so one domain is shared read-only by
 * every thread and pipeline proving circuits of that size.
 *
 * Transforms (x: n elements, in place):
 *   forward:            X[k] = sum_j x[j] * omega^(jk)
 *   forward, coset:     X[k] = sum_j x[j] * g^j * omega^(jk)     (evaluate on g*omega^k)
 *   inverse:            x[j] = n^-1 * sum_k X[k] * omega^(-jk)
 *   inverse, coset:     x[j] = g^-j * n^-1 * sum_k X[k] * omega^(-jk)
 * where the index j of a coefficient and k of an evaluation are the logical
 * ones; in_order/out_order say whether the array holds them at position i
 * (natural) or at position bitrev(i) (bit-reversed). natural->bitrev and
 * bitrev->natural need no permutation pass; the other two add one.
 *
 * Memory: the domain's tables live in caller memory of
 * zkp_ntt_domain_mem_size(log_n) bytes (about 16*n: omega^j for j < n/2,
 * plus O(sqrt n) for the coset shift). Transforms allocate nothing.
 * Cost: (n/2)*log_n butterflies (one Fr multiplication each), plus n
 * multiplications for a coset or an inverse scaling, plus a permutation
 * pass when the orders ask for one.
 */
#ifndef ZKPD_NTT_H
#define ZKPD_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpd/ff.h"
#include "zkpd/pool.h"

#define ZKP_NTT_MAX_LOG 28

/* Which 2^32-th root of unity the domain derives omega from
 * (docs/math.md, 'Roots of unity'): they differ from n = 8 up. */
enum zkp_ntt_roots {
	ZKP_NTT_ROOTS_BELLMAN, /* 7^((r-1)/2^32): bellman, zkcrypto ff */
	ZKP_NTT_ROOTS_SNARKJS, /* 5^((r-1)/2^32): snarkjs, ffjavascript */
};

enum zkp_ntt_order { ZKP_NTT_NATURAL, ZKP_NTT_BITREV };

typedef struct {
	unsigned log_n, split; /* coset tables cover 2^split and 2^(log_n - split) */
	size_t n;
	zkp_fr omega, omega_inv, n_inv, shift, shift_inv;
	const zkp_fr *tw;   /* omega^j, j < n/2 */
	const zkp_fr *cs_lo, *cs_hi;   /* shift^j = cs_lo[j & m] * cs_hi[j >> split] */
	const zkp_fr *ci_lo, *ci_hi;   /* n^-1 shift^-j, same split */
} zkp_ntt_domain;

typedef struct {
	bool inverse;
	bool coset;
	enum zkp_ntt_order in_order, out_order;
} zkp_ntt_opts;

/* Bytes of caller memory a domain of size 2^log_n needs (0 if log_n is out
 * of range). */
size_t zkp_ntt_domain_mem_size(unsigned log_n);

/* Builds the tables in mem (zkp_ntt_domain_mem_size(log_n) bytes, 32-byte
 * aligned, owned by the caller and kept alive as long as d). shift is the
 * coset shift g (non-zero); NULL means the bellman convention g = 7.
 * Errors: ZKP_ERR_INVAL for log_n out of 1..28 or a zero shift. pool may be
 * NULL. */
int zkp_ntt_domain_init(zkp_ntt_domain *d, unsigned log_n, enum zkp_ntt_roots roots,
			const zkp_fr *shift, void *mem, zkp_pool *pool);

/* The primitive 2^log_n-th root of unity of the given convention. */
void zkp_ntt_root_of_unity(zkp_fr *ret, unsigned log_n, enum zkp_ntt_roots roots);

/* One transform of x (d->n elements) in place, as the header describes.
 * Parallel over pool (NULL: the calling thread). */
void zkp_ntt(zkp_fr *x, const zkp_ntt_domain *d, const zkp_ntt_opts *opts, zkp_pool *pool);

/* In-place bit-reversal permutation of n = 2^log_n elements. */
void zkp_ntt_bitrev_permute(zkp_fr *x, unsigned log_n, zkp_pool *pool);

/* x[i] = (x[rev(i)] - y[rev(i)]) scale for i < 2^log_n, rev the log_n-bit
 * reversal (scale NULL: 1): the permutation and a subtraction in one pass.
 * x and y must not overlap. */
void zkp_ntt_bitrev_sub(zkp_fr *x, const zkp_fr *y, const zkp_fr *scale, unsigned log_n,
			zkp_pool *pool);

#endif
