/*
 * NTT spot checks (check_ntt.h): Horner evaluations of the input at the
 * points the transform claims to evaluate at.
 */
#include "check_ntt.h"

#include <stdlib.h>
#include <string.h>

#include "zkpd/error.h"

#define PARTS 256

static size_t bitrev(size_t k, unsigned log_n)
{
	size_t r = 0;
	for (unsigned b = 0; b < log_n; b++)
		r |= ((k >> b) & 1) << (log_n - 1 - b);
	return r;
}

bool check_ntt_domain(const zkp_ntt_domain *d, enum zkp_ntt_roots roots)
{
	zkp_fr w, t, one, minus_one, n;
	zkp_ntt_root_of_unity(&w, d->log_n, roots);
	if (!zkp_fr_eq(&w, &d->omega))
		return false;
	t = w;
	for (unsigned i = 1; i < d->log_n; i++)
		zkp_fr_sqr(&t, &t);
	zkp_fr_set_one(&one);
	zkp_fr_neg(&minus_one, &one);
	if (!zkp_fr_eq(&t, &minus_one))
		return false;
	zkp_fr_mul(&t, &w, &d->omega_inv);
	if (!zkp_fr_is_one(&t))
		return false;
	zkp_fr_set_u64(&n, d->n);
	zkp_fr_mul(&t, &n, &d->n_inv);
	if (!zkp_fr_is_one(&t))
		return false;
	zkp_fr_mul(&t, &d->shift, &d->shift_inv);
	return zkp_fr_is_one(&t);
}

struct eval {
	const zkp_fr *c;
	size_t n, part, k;
	const zkp_fr *z; /* k points */
	zkp_fr *sum;     /* PARTS x k partial sums */
};

static void eval_parts(void *arg, size_t begin, size_t end)
{
	struct eval *e = arg;
	zkp_fr acc[CHECK_NTT_MAX_SPOTS];
	for (size_t p = begin; p < end; p++) {
		size_t lo = p * e->part, hi = lo + e->part < e->n ? lo + e->part : e->n;
		for (size_t s = 0; s < e->k; s++)
			zkp_fr_set_zero(&acc[s]);
		for (size_t j = hi; j-- > lo;)
			for (size_t s = 0; s < e->k; s++) {
				zkp_fr_mul(&acc[s], &acc[s], &e->z[s]);
				zkp_fr_add(&acc[s], &acc[s], &e->c[j]);
			}
		uint64_t a = lo;
		for (size_t s = 0; s < e->k; s++) {
			zkp_fr za;
			zkp_fr_pow(&za, &e->z[s], &a, 1);
			zkp_fr_mul(&e->sum[p * e->k + s], &acc[s], &za);
		}
	}
}

int check_ntt_spots(size_t *bad, const zkp_fr *in, const zkp_fr *out, const zkp_ntt_domain *d,
		    enum zkp_ntt_roots roots, const zkp_ntt_opts *opts, const size_t *idx,
		    size_t nidx, zkp_pool *pool)
{
	size_t n = d->n;
	zkp_fr *nat = NULL, *sum = NULL;
	zkp_fr z[CHECK_NTT_MAX_SPOTS], f[CHECK_NTT_MAX_SPOTS];
	int err = ZKP_ERR_INVAL;
	*bad = 0;
	if (nidx == 0 || nidx > CHECK_NTT_MAX_SPOTS)
		goto out;
	for (size_t s = 0; s < nidx; s++)
		if (idx[s] >= n)
			goto out;
	err = ZKP_ERR_NOMEM;
	const zkp_fr *c = in;
	if (opts->in_order == ZKP_NTT_BITREV) {
		if (!(nat = malloc(n * sizeof(*nat))))
			goto out;
		memcpy(nat, in, n * sizeof(*nat));
		zkp_ntt_bitrev_permute(nat, d->log_n, pool);
		c = nat;
	}
	size_t part = (n + PARTS - 1) / PARTS, parts = (n + part - 1) / part;
	if (!(sum = malloc(parts * nidx * sizeof(*sum))))
		goto out;

	/* The points and factors, from omega and g alone. */
	zkp_fr w, g, n_inv, g_inv;
	zkp_ntt_root_of_unity(&w, d->log_n, roots);
	if (opts->inverse)
		zkp_fr_inv(&w, &w);
	g = d->shift;
	zkp_fr_inv(&g_inv, &g);
	zkp_fr_set_u64(&n_inv, n);
	zkp_fr_inv(&n_inv, &n_inv);
	for (size_t s = 0; s < nidx; s++) {
		uint64_t k = idx[s];
		zkp_fr_pow(&z[s], &w, &k, 1);
		zkp_fr_set_one(&f[s]);
		if (opts->coset && !opts->inverse)
			zkp_fr_mul(&z[s], &z[s], &g);
		if (opts->inverse)
			f[s] = n_inv;
		if (opts->coset && opts->inverse) {
			zkp_fr gk;
			zkp_fr_pow(&gk, &g_inv, &k, 1);
			zkp_fr_mul(&f[s], &f[s], &gk);
		}
	}
	struct eval e = { c, n, part, nidx, z, sum };
	zkp_pool_run(pool, parts, 1, eval_parts, &e);
	for (size_t s = 0; s < nidx; s++) {
		zkp_fr v;
		zkp_fr_set_zero(&v);
		for (size_t p = 0; p < parts; p++)
			zkp_fr_add(&v, &v, &sum[p * nidx + s]);
		zkp_fr_mul(&v, &v, &f[s]);
		size_t pos = opts->out_order == ZKP_NTT_BITREV ? bitrev(idx[s], d->log_n) : idx[s];
		if (!zkp_fr_eq(&v, &out[pos]))
			(*bad)++;
	}
	err = 0;
out:
	free(nat);
	free(sum);
	return err;
}
