/*
 * zkpd-bench field: median time per operation of the field, curve and
 * pairing arithmetic, single thread.
 *
 * Each operation runs in a dependent chain (the output feeds the next call),
 * so the figures are latencies, the pessimistic case for callers. Every op is
 * timed --runs times (default 9) and reported as the median and the minimum.
 * Same-run references: the portable C multiplication next to the assembly
 * one, and GMP's mpn multiply-then-divide for the same modulus. blst's
 * published figures for this machine kind are printed next to ours.
 */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/pairing.h"

struct ctx {
	zkp_fp fa, fb;
	zkp_fr ra, rb;
	zkp_fp2 f2a, f2b;
	zkp_g1 g1p, g1q;
	zkp_g1_affine g1a;
	zkp_g2 g2p, g2q;
	zkp_g2_affine g2a;
	zkp_g1_affine pa;
	zkp_g2_affine qa;
	mp_limb_t gmp_a[6], gmp_b[6];
};

volatile uint64_t bench_sink;

static void op_fp_mul(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fp_mul(&c->fa, &c->fa, &c->fb);
	bench_sink += c->fa.l[0];
}

static void op_fp_mul_portable(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fp_mul_portable(&c->fa, &c->fa, &c->fb);
	bench_sink += c->fa.l[0];
}

static void op_fp_sqr(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fp_sqr(&c->fa, &c->fa);
	bench_sink += c->fa.l[0];
}

static void op_fp_inv(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fp_inv(&c->fa, &c->fa);
	bench_sink += c->fa.l[0];
}

static void op_fr_mul(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fr_mul(&c->ra, &c->ra, &c->rb);
	bench_sink += c->ra.l[0];
}

static void op_fp2_mul(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_fp2_mul(&c->f2a, &c->f2a, &c->f2b);
	bench_sink += c->f2a.c0.l[0];
}

static void op_g1_add(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g1_add(&c->g1p, &c->g1p, &c->g1q);
	bench_sink += c->g1p.x.l[0];
}

static void op_g1_madd(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g1_add_affine(&c->g1p, &c->g1p, &c->g1a);
	bench_sink += c->g1p.x.l[0];
}

static void op_g1_dbl(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g1_dbl(&c->g1p, &c->g1p);
	bench_sink += c->g1p.x.l[0];
}

static void op_g2_add(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g2_add(&c->g2p, &c->g2p, &c->g2q);
	bench_sink += c->g2p.x.c0.l[0];
}

static void op_g2_madd(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g2_add_affine(&c->g2p, &c->g2p, &c->g2a);
	bench_sink += c->g2p.x.c0.l[0];
}

static void op_g2_dbl(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		zkp_g2_dbl(&c->g2p, &c->g2p);
	bench_sink += c->g2p.x.c0.l[0];
}

static void op_pairing(struct ctx *c, long n)
{
	zkp_fp12 f;
	for (long i = 0; i < n; i++) {
		zkp_pairing(&f, &c->pa, &c->qa);
		bench_sink += f.c0.c0.c0.l[0];
	}
}

/* GMP reference: schoolbook 6x6-limb product, then division by p. */
static void op_gmp_mulmod(struct ctx *c, long n)
{
	mp_limb_t prod[12], q[7], p[6];
	memcpy(p, ZKP_FP_MODULUS, sizeof(p));
	for (long i = 0; i < n; i++) {
		mpn_mul_n(prod, c->gmp_a, c->gmp_b, 6);
		mpn_tdiv_qr(q, c->gmp_a, 0, prod, 12, p, 6);
	}
	bench_sink += c->gmp_a[0];
}

struct op {
	const char *name;
	void (*fn)(struct ctx *, long);
	long iters;
	double blst_ns; /* published blst figure for this machine kind, 0 if none */
};

static const struct op ops[] = {
	{ "fp_mul", op_fp_mul, 1000000, 30 },
	{ "fp_mul_portable", op_fp_mul_portable, 500000, 0 },
	{ "gmp_fp_mulmod", op_gmp_mulmod, 300000, 0 },
	{ "fp_sqr", op_fp_sqr, 1000000, 0 },
	{ "fp_inv", op_fp_inv, 2000, 0 },
	{ "fr_mul", op_fr_mul, 1000000, 17 },
	{ "fp2_mul", op_fp2_mul, 300000, 100 },
	{ "g1_add", op_g1_add, 40000, 770 },
	{ "g1_madd", op_g1_madd, 40000, 610 },
	{ "g1_dbl", op_g1_dbl, 80000, 300 },
	{ "g2_add", op_g2_add, 15000, 1700 },
	{ "g2_madd", op_g2_madd, 15000, 1400 },
	{ "g2_dbl", op_g2_dbl, 30000, 0 },
	{ "pairing", op_pairing, 20, 0 },
};

static void rand_limbs(uint64_t *l, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
		l[i] = *state ^ (*state >> 29);
	}
}

static void setup(struct ctx *c)
{
	uint64_t st = 0x5eed;
	uint64_t w[12];
	rand_limbs(w, 12, &st);
	zkp_fp_from_wide(&c->fa, w);
	rand_limbs(w, 12, &st);
	zkp_fp_from_wide(&c->fb, w);
	rand_limbs(w, 8, &st);
	zkp_fr_from_wide(&c->ra, w);
	rand_limbs(w, 8, &st);
	zkp_fr_from_wide(&c->rb, w);
	c->f2a.c0 = c->fa;
	c->f2a.c1 = c->fb;
	c->f2b.c0 = c->fb;
	c->f2b.c1 = c->fa;
	zkp_fp_to_limbs((uint64_t *)c->gmp_a, &c->fa);
	zkp_fp_to_limbs((uint64_t *)c->gmp_b, &c->fb);

	zkp_g1 g1;
	zkp_g2 g2;
	zkp_g1_from_affine(&g1, &ZKP_G1_GENERATOR);
	zkp_g2_from_affine(&g2, &ZKP_G2_GENERATOR);
	zkp_g1_mul_fr(&c->g1p, &g1, &c->ra);
	zkp_g1_mul_fr(&c->g1q, &g1, &c->rb);
	zkp_g1_to_affine(&c->g1a, &c->g1q);
	zkp_g1_to_affine(&c->pa, &c->g1p);
	zkp_g2_mul_fr(&c->g2p, &g2, &c->ra);
	zkp_g2_mul_fr(&c->g2q, &g2, &c->rb);
	zkp_g2_to_affine(&c->g2a, &c->g2q);
	zkp_g2_to_affine(&c->qa, &c->g2p);
}

int bench_field_main(int argc, char **argv)
{
	int runs = 9;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: zkpd-bench field [--runs N]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 1000) {
		fprintf(stderr, "zkpd-bench field: --runs must be 1..1000\n");
		return 2;
	}

	struct ctx c;
	setup(&c);
	size_t nops = sizeof(ops) / sizeof(ops[0]);
	double med[sizeof(ops) / sizeof(ops[0])];
	double *t = calloc((size_t)runs, sizeof(double));
	if (!t)
		return 1;

	json_begin_object(NULL);
	json_str("bench", "field");
	json_str("ff_backend", zkp_ff_backend());
	json_num("runs", runs);
	json_str("timing", "dependent chain per op, ns per op, single thread");
	json_begin_object("ops");
	for (size_t k = 0; k < nops; k++) {
		ops[k].fn(&c, ops[k].iters / 10 + 1); /* warm up */
		for (int r = 0; r < runs; r++) {
			double t0 = bench_now_ns();
			ops[k].fn(&c, ops[k].iters);
			t[r] = (bench_now_ns() - t0) / (double)ops[k].iters;
		}
		med[k] = bench_median(t, (size_t)runs);
		json_begin_object(ops[k].name);
		json_num("median_ns", med[k]);
		json_num("min_ns", t[0]);
		json_num("iterations", (double)ops[k].iters);
		if (ops[k].blst_ns > 0) {
			json_num("blst_published_ns", ops[k].blst_ns);
			json_num("ratio_vs_blst", med[k] / ops[k].blst_ns);
		}
		json_end_object();
	}
	json_end_object();
	json_begin_object("same_run_ratios");
	json_num("fp_mul_vs_portable", med[0] / med[1]);
	json_num("fp_mul_vs_gmp_mulmod", med[0] / med[2]);
	json_end_object();
	json_str("blst_reference",
		 "blst assembly, single thread, 2-core CI-kind machine, medians "
		 "(midpoints of published ranges)");
	json_end_object();
	json_done();
	free(t);
	return 0;
}
