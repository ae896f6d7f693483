/*
 * Closed-form MSM check (check_msm.h): bases (i + 1) Q, the weight
 * sum s_i (i + 1), and the scalar kinds.
 */
#include "check_msm.h"

#include <stdlib.h>
#include <string.h>

#include "check_rng.h"
#include "zkpd/error.h"

const char *const check_scalars_names[CHECK_SC_KINDS] = {
	"random", "equal", "repeated", "small", "r-1", "01",
};

int check_scalars_parse(const char *name)
{
	for (int k = 0; k < CHECK_SC_KINDS; k++)
		if (!strcmp(name, check_scalars_names[k]))
			return k;
	return -1;
}

/* Below 2^254 < r: a fully reduced Montgomery-form element. */
static void rand_fr(zkp_fr *x, check_rng *r)
{
	for (int j = 0; j < 4; j++)
		x->l[j] = check_rng_next(r);
	x->l[3] &= 0x3fffffffffffffffULL;
}

struct fill {
	zkp_fr *s;
	size_t n;
	enum check_scalars kind;
	uint64_t seed;
	zkp_fr few[4]; /* the values of "equal" (few[0]) and "repeated" */
};

static void fill_chunks(void *arg, size_t begin, size_t end)
{
	struct fill *f = arg;
	for (size_t c = begin; c < end; c++) {
		check_rng r;
		check_rng_seed(&r, f->seed, c + 1);
		size_t lo = c * CHECK_CHUNK, hi = lo + CHECK_CHUNK < f->n ? lo + CHECK_CHUNK : f->n;
		for (size_t i = lo; i < hi; i++) {
			zkp_fr *x = &f->s[i];
			uint64_t v;
			switch (f->kind) {
			case CHECK_SC_RANDOM:
				rand_fr(x, &r);
				break;
			case CHECK_SC_EQUAL:
				*x = f->few[0];
				break;
			case CHECK_SC_REPEATED:
				*x = f->few[check_rng_next(&r) >> 62];
				break;
			case CHECK_SC_SMALL:
				zkp_fr_set_u64(x, check_rng_next(&r) >> 48);
				break;
			case CHECK_SC_RMINUS1:
				zkp_fr_set_one(x);
				zkp_fr_neg(x, x);
				break;
			default: /* CHECK_SC_BINARY */
				v = check_rng_next(&r) % 100;
				if (v < 70)
					zkp_fr_set_zero(x);
				else if (v < 95)
					zkp_fr_set_one(x);
				else
					rand_fr(x, &r);
				break;
			}
		}
	}
}

void check_scalars_fill(zkp_fr *s, size_t n, enum check_scalars kind, uint64_t seed,
			zkp_pool *pool)
{
	struct fill f = { .s = s, .n = n, .kind = kind, .seed = seed };
	check_rng r;
	check_rng_seed(&r, seed, 0);
	for (int k = 0; k < 4; k++)
		rand_fr(&f.few[k], &r);
	zkp_pool_run(pool, (n + CHECK_CHUNK - 1) / CHECK_CHUNK, 1, fill_chunks, &f);
}

/* Bases: chunk c covers [c CHECK_CHUNK, ...) and starts from (lo + 1) q. */
struct bases {
	void *ret;
	size_t n;
	const void *q;
	int err;
};

static void g1_chunks(void *arg, size_t begin, size_t end)
{
	struct bases *b = arg;
	zkp_g1 *jac = malloc(CHECK_CHUNK * sizeof(*jac));
	zkp_fp *scratch = malloc(CHECK_CHUNK * sizeof(*scratch));
	if (!jac || !scratch) {
		b->err = ZKP_ERR_NOMEM;
		goto out;
	}
	const zkp_g1_affine *q = b->q;
	zkp_g1 qj;
	zkp_g1_from_affine(&qj, q);
	for (size_t c = begin; c < end; c++) {
		size_t lo = c * CHECK_CHUNK, hi = lo + CHECK_CHUNK < b->n ? lo + CHECK_CHUNK : b->n;
		uint64_t k = lo + 1;
		zkp_g1 p;
		zkp_g1_mul(&p, &qj, &k, 1);
		for (size_t i = lo; i < hi; i++) {
			jac[i - lo] = p;
			zkp_g1_add_affine(&p, &p, q); /* doubles when p = q */
		}
		zkp_g1s_to_affine((zkp_g1_affine *)b->ret + lo, jac, hi - lo, scratch);
	}
out:
	free(jac);
	free(scratch);
}

static void g2_chunks(void *arg, size_t begin, size_t end)
{
	struct bases *b = arg;
	zkp_g2 *jac = malloc(CHECK_CHUNK * sizeof(*jac));
	zkp_fp2 *scratch = malloc(CHECK_CHUNK * sizeof(*scratch));
	if (!jac || !scratch) {
		b->err = ZKP_ERR_NOMEM;
		goto out;
	}
	const zkp_g2_affine *q = b->q;
	zkp_g2 qj;
	zkp_g2_from_affine(&qj, q);
	for (size_t c = begin; c < end; c++) {
		size_t lo = c * CHECK_CHUNK, hi = lo + CHECK_CHUNK < b->n ? lo + CHECK_CHUNK : b->n;
		uint64_t k = lo + 1;
		zkp_g2 p;
		zkp_g2_mul(&p, &qj, &k, 1);
		for (size_t i = lo; i < hi; i++) {
			jac[i - lo] = p;
			zkp_g2_add_affine(&p, &p, q);
		}
		zkp_g2s_to_affine((zkp_g2_affine *)b->ret + lo, jac, hi - lo, scratch);
	}
out:
	free(jac);
	free(scratch);
}

int check_g1_bases(zkp_g1_affine *ret, size_t n, const zkp_g1_affine *q, zkp_pool *pool)
{
	struct bases b = { ret, n, q, 0 };
	zkp_pool_run(pool, (n + CHECK_CHUNK - 1) / CHECK_CHUNK, 1, g1_chunks, &b);
	return b.err;
}

int check_g2_bases(zkp_g2_affine *ret, size_t n, const zkp_g2_affine *q, zkp_pool *pool)
{
	struct bases b = { ret, n, q, 0 };
	zkp_pool_run(pool, (n + CHECK_CHUNK - 1) / CHECK_CHUNK, 1, g2_chunks, &b);
	return b.err;
}

/* At most this many chunks, so their partial sums fit on the stack. */
#define WEIGHT_PARTS 1024

struct weight {
	const zkp_fr *s;
	size_t n, part;
	zkp_fr *sum; /* WEIGHT_PARTS entries */
};

/* Part p over [lo, hi): sum_i s_i (i + 1) = lo T + sum_i s_i (i - lo + 1),
 * the second sum being the sum of the suffix sums of the part. */
static void weight_parts(void *arg, size_t begin, size_t end)
{
	struct weight *w = arg;
	for (size_t p = begin; p < end; p++) {
		size_t lo = p * w->part, hi = lo + w->part < w->n ? lo + w->part : w->n;
		zkp_fr t, acc, base;
		zkp_fr_set_zero(&t);
		zkp_fr_set_zero(&acc);
		for (size_t i = hi; i-- > lo;) {
			zkp_fr_add(&t, &t, &w->s[i]);
			zkp_fr_add(&acc, &acc, &t);
		}
		zkp_fr_set_u64(&base, lo);
		zkp_fr_mul(&t, &t, &base);
		zkp_fr_add(&w->sum[p], &acc, &t);
	}
}

void check_msm_weight(zkp_fr *ret, const zkp_fr *s, size_t n, zkp_pool *pool)
{
	zkp_fr sum[WEIGHT_PARTS];
	size_t part = CHECK_CHUNK;
	if ((n + part - 1) / part > WEIGHT_PARTS)
		part = (n + WEIGHT_PARTS - 1) / WEIGHT_PARTS;
	size_t parts = (n + part - 1) / part;
	struct weight w = { s, n, part, sum };
	zkp_pool_run(pool, parts, 1, weight_parts, &w);
	zkp_fr_set_zero(ret);
	for (size_t p = 0; p < parts; p++)
		zkp_fr_add(ret, ret, &sum[p]);
}

bool check_msm_g1(const zkp_g1 *got, const zkp_fr *s, size_t n, const zkp_g1_affine *q,
		  zkp_pool *pool)
{
	zkp_fr e;
	zkp_g1 want;
	check_msm_weight(&e, s, n, pool);
	zkp_g1_from_affine(&want, q);
	zkp_g1_mul_fr(&want, &want, &e);
	return zkp_g1_eq(got, &want);
}

bool check_msm_g2(const zkp_g2 *got, const zkp_fr *s, size_t n, const zkp_g2_affine *q,
		  zkp_pool *pool)
{
	zkp_fr e;
	zkp_g2 want;
	check_msm_weight(&e, s, n, pool);
	zkp_g2_from_affine(&want, q);
	zkp_g2_mul_fr(&want, &want, &e);
	return zkp_g2_eq(got, &want);
}
