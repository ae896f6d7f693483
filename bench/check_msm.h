/*
 * check_msm: a closed-form check of multi-scalar multiplications at any
 * size, in O(n) on the CPU.
 *
 * With bases P_i = (i + 1) Q (i = 0..n-1, Q a fixed point of the group),
 *   sum_i s_i P_i = e Q,   e = sum_i s_i (i + 1) mod r,
 * so an MSM's result is checked against one scalar multiplication of Q by
 * a weight computed with 2n Fr additions (suffix sums: sum_i s_i (i + 1) =
 * sum_k sum_{i >= k} s_i). A wrong bucket, a lost or doubled term, a wrong
 * window or a bad reduction moves the result off e Q, except with
 * probability about 1/r for random scalars.
 *
 * Bases are made by consecutive additions of Q (one mixed addition each),
 * normalised to affine in blocks with one inversion per block, in parallel
 * chunks that each start from (a + 1) Q: about 1 microsecond per G1 point
 * on one core, 3 per G2 point.
 *
 * Scalars (Montgomery form, fully reduced, as the MSMs take them) come in
 * kinds that stress the buckets unevenly; see check_scalars_names.
 * Generation is deterministic in the seed whatever the pool's size, and
 * the first n scalars of a longer fill are the fill of n (each chunk of
 * CHECK_CHUNK scalars draws from its own stream), so one fill at the
 * largest size serves every smaller one as a prefix.
 *
 * Functions with a pool run on it (NULL: the calling thread). They
 * allocate only what their description says.
 */
#ifndef ZKPD_CHECK_MSM_H
#define ZKPD_CHECK_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

#define CHECK_CHUNK 65536

enum check_scalars {
	CHECK_SC_RANDOM,   /* uniform below 2^254 */
	CHECK_SC_EQUAL,    /* one random value everywhere */
	CHECK_SC_REPEATED, /* four random values, each about n/4 times */
	CHECK_SC_SMALL,    /* uniform integers below 2^16 */
	CHECK_SC_RMINUS1,  /* r - 1 everywhere (the largest scalar, -1) */
	CHECK_SC_BINARY,   /* witness-like: 70 % 0, 25 % 1, 5 % uniform */
	CHECK_SC_KINDS
};

/* Names of the kinds, indexed by enum check_scalars: "random", "equal",
 * "repeated", "small", "r-1", "01". */
extern const char *const check_scalars_names[CHECK_SC_KINDS];

/* The kind named name; -1 if none. */
int check_scalars_parse(const char *name);

/* s[0..n) of the given kind from seed. */
void check_scalars_fill(zkp_fr *s, size_t n, enum check_scalars kind, uint64_t seed,
			zkp_pool *pool);

/* ret[i] = (i + 1) q for i < n. q must not be the point at infinity and n
 * must stay below the group order. Allocates CHECK_CHUNK-point blocks of
 * scratch per chunk of work (about 12 MiB each for G1, 24 for G2).
 * Errors: ZKP_ERR_NOMEM. */
int check_g1_bases(zkp_g1_affine *ret, size_t n, const zkp_g1_affine *q, zkp_pool *pool);
int check_g2_bases(zkp_g2_affine *ret, size_t n, const zkp_g2_affine *q, zkp_pool *pool);

/* ret = sum_{i < n} s[i] (i + 1) mod r. No allocation. */
void check_msm_weight(zkp_fr *ret, const zkp_fr *s, size_t n, zkp_pool *pool);

/* Whether got = e q, e = check_msm_weight(s, n): the MSM of s against the
 * bases of check_g{1,2}_bases(q) was right. */
bool check_msm_g1(const zkp_g1 *got, const zkp_fr *s, size_t n, const zkp_g1_affine *q,
		  zkp_pool *pool);
bool check_msm_g2(const zkp_g2 *got, const zkp_fr *s, size_t n, const zkp_g2_affine *q,
		  zkp_pool *pool);

#endif
