/*
 * check_ntt: spot checks of an NTT's output at any size, against a direct
 * evaluation on the CPU (O(n) per spot), independent of the domain's
 * tables and of the transform's code.
 *
 * Every transform of ntt.h is a polynomial evaluation: with c_j the input
 * in logical order (coefficients, or values for an inverse), output k is
 *   forward:        sum_j c_j z^j,               z = omega^k
 *   forward coset:  sum_j c_j z^j,               z = g omega^k
 *   inverse:        n^-1 sum_j c_j z^j,          z = omega^-k
 *   inverse coset:  n^-1 g^-k sum_j c_j z^j,     z = omega^-k
 * so a check evaluates the input at the spot's point by Horner's rule, in
 * parallel parts (part [a, b) contributes z^a Horner(c_a..c_{b-1})), all
 * spots in one pass over the input, and compares with the output at the
 * spot's position (k, or bitrev(k) for a bit-reversed output).
 * omega is recomputed from the roots convention (zkp_ntt_root_of_unity),
 * n^-1 and g^-1 by inversion; check_ntt_domain says whether the domain's
 * own constants agree.
 *
 * Cost: about n (Fr multiplication + addition) per spot, spread over the
 * pool (NULL: the calling thread).
 */
#ifndef ZKPD_CHECK_NTT_H
#define ZKPD_CHECK_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpd/ff.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

#define CHECK_NTT_MAX_SPOTS 64

/* Whether d's omega is the primitive 2^log_n-th root of the given
 * convention (omega^(n/2) = -1), and omega_inv, n_inv and shift_inv are
 * the inverses they claim to be. */
bool check_ntt_domain(const zkp_ntt_domain *d, enum zkp_ntt_roots roots);

/*
 * Compares out (the transform of in under opts on domain d; both d->n
 * elements, in the orders opts names) with direct evaluations at the
 * logical output indices idx[0..nidx) (each < d->n, nidx <=
 * CHECK_NTT_MAX_SPOTS). *bad gets the number of spots that differ.
 * Allocates d->n elements for a bit-reversed input (to reorder it) and a
 * few KiB of partial sums. Errors: ZKP_ERR_INVAL (nidx or an index out of
 * range), ZKP_ERR_NOMEM.
 */
int check_ntt_spots(size_t *bad, const zkp_fr *in, const zkp_fr *out, const zkp_ntt_domain *d,
		    enum zkp_ntt_roots roots, const zkp_ntt_opts *opts, const size_t *idx,
		    size_t nidx, zkp_pool *pool);

#endif
