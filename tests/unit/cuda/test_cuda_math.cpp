/*
 * The __host__ __device__ math of cuda/ compiled as host C++ and checked
 * against the C layers on random inputs: Fp and Fr add, sub, mul, sqr and
 * Montgomery conversions against ff (uniform values, 0, 1, -1, and limbs
 * whose 32-bit halves are all zeros or all ones, which carry through every
 * link of the carry chains that carry.cuh emulates here); the pieces of
 * Fp's products in three halves (fe_prod, fe_kara, fe_redc) against GMP,
 * with every half's sum carrying; XYZZ madd / msub / add / dbl sequences
 * and the XYZZ-to-Jacobian conversion against ec (limb for limb, and as
 * affine points); the MSM's Booth digits against GMP; the evaluation
 * bodies of cuda/spmv.cu against zkp_pce_eval and the unpack body of
 * cuda/bitpack.cu against the packed witness's input; and every kernel body
 * of cuda/msm.cu and cuda/ntt.cu, run by an emulated grid (blocks, then
 * phases between barriers, then threads, one at a time; a warp ballot is
 * the OR of its lanes' bits):
 *  - the exclusive scan against sequential prefix sums;
 *  - the G1 MSM launch sequence of msm_g1_run (0/1 classification over a
 *    copy of the scalars, counting sort, in passes of the device's or of
 *    1 and 3 windows, bucket sums over fixed-size chunks with their
 *    segmented scan,
 *    segmented running sums, pairwise folds, batch addition of the ones)
 *    against zkp_msm_g1 on random and on 0/1-heavy scalars, and on skewed
 *    ones (one value for all, a few values or small integers repeated,
 *    one hot value among uniform ones) with the device's chunk size and
 *    with chunks of 1, 3 and 7 entries; the count of scalars other than 0
 *    and 1 that picks the window; the density compaction of msm_compact in
 *    front of it against zkp_msm_g1_density;
 *  - the grouped NTT of ntt_run (shared-memory groups, each stage's
 *    twiddles first copied into the block's cache, permutation, the
 *    coset and inverse scalings fused into the first group's load and the
 *    last group's store) against zkp_ntt for every option at
 *    2^1..2^14 with the device's plan, and with other group, tile, run and
 *    thread parameters; the pointwise H step with and without its scale;
 *  - the NTT's shared-memory layout: a permutation of the tile, and free
 *    of bank conflicts for every access of the device plan at 2^1..2^27
 *    (counted in 128-byte wavefronts per quarter warp, against the same
 *    count for the plain layout, which conflicts).
 */
#include <gmp.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vector>

extern "C" {
#include "testutil.h"
#include "test_fr.h"
#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/backend.h"
#include "zkpd/bitpack.h"
#include "zkpd/fixed_base.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/synth.h"
#include "zkpd/msm.h"
#include "zkpd/ntt.h"
}

#include "ec.cuh"
#include "fb.cuh"
#include "ff.cuh"
#include "bitpack.cuh"
#include "spmv.cuh"
#include "msm.cuh"
#include "ntt.cuh"

#define ITERS 100000

static unsigned long checks, failures;

static void check(bool ok, const char *what, unsigned long i)
{
	checks++;
	if (!ok && failures++ < 10)
		fprintf(stderr, "FAIL %s (iteration %lu)\n", what, i);
}

static void rand_fp(zkp_fp *r)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(r, w);
}

/* Montgomery limbs whose 32-bit halves are all zeros or all ones, below
 * the modulus (the top limb masked under its top bits): the values that
 * carry or borrow through every limb of a chain. */
static void carry_heavy(uint64_t *l, int n, uint64_t top_mask)
{
	static const uint64_t pat[4] = { 0, ~0ULL, 0xffffffff00000000ULL, 0x00000000ffffffffULL };
	for (int i = 0; i < n; i++)
		l[i] = pat[tu_rand64() % 4];
	l[n - 1] &= top_mask;
}

/* Mostly uniform, sometimes 0, 1, -1 or carry-heavy limbs. */
static void pick_fp(zkp_fp *r)
{
	switch (tu_rand64() % 16) {
	case 0: zkp_fp_set_zero(r); break;
	case 1: zkp_fp_set_one(r); break;
	case 2: zkp_fp_set_one(r); zkp_fp_neg(r, r); break;
	case 3: carry_heavy(r->l, 6, 0x0fffffffffffffffULL); break;
	default: rand_fp(r);
	}
}

static void pick_fr(zkp_fr *r)
{
	switch (tu_rand64() % 16) {
	case 0: zkp_fr_set_zero(r); break;
	case 1: zkp_fr_set_one(r); break;
	case 2: zkp_fr_set_one(r); zkp_fr_neg(r, r); break;
	case 3: carry_heavy(r->l, 4, 0x3fffffffffffffffULL); break;
	default: tu_rand_fr(r);
	}
}

template <class D, class C> static bool same(const D *d, const C *c)
{
	static_assert(sizeof(D) == sizeof(C), "layout");
	return memcmp(d, c, sizeof(D)) == 0;
}

static void test_fp(void)
{
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fp a, b, r;
		dfp da, db, dr;
		pick_fp(&a);
		pick_fp(&b);
		memcpy(&da, &a, sizeof(a));
		memcpy(&db, &b, sizeof(b));
		zkp_fp_add(&r, &a, &b);
		fe_add(&dr, &da, &db);
		check(same(&dr, &r), "fp add", i);
		zkp_fp_sub(&r, &a, &b);
		fe_sub(&dr, &da, &db);
		check(same(&dr, &r), "fp sub", i);
		zkp_fp_mul(&r, &a, &b);
		fe_mul(&dr, &da, &db);
		check(same(&dr, &r), "fp mul", i);
		zkp_fp_sqr(&r, &a);
		fe_sqr(&dr, &da);
		check(same(&dr, &r), "fp sqr", i);
		zkp_fp c, d, cd;
		dfp dc, dd;
		pick_fp(&c);
		pick_fp(&d);
		memcpy(&dc, &c, sizeof(c));
		memcpy(&dd, &d, sizeof(d));
		zkp_fp_mul(&r, &a, &b);
		zkp_fp_mul(&cd, &c, &d);
		zkp_fp_sub(&r, &r, &cd);
		fe_mul_sub(&dr, &da, &db, &dc, &dd);
		check(same(&dr, &r), "fp mul_sub", i);
		dfp t = db;
		fe_mul_sub(&t, &da, &t, &t, &dd); /* ret aliasing two inputs */
		zkp_fp_mul(&r, &a, &b);
		zkp_fp_mul(&cd, &b, &d);
		zkp_fp_sub(&r, &r, &cd);
		check(same(&t, &r), "fp mul_sub aliased", i);
		zkp_fp_neg(&r, &a);
		fe_neg(&dr, &da);
		check(same(&dr, &r), "fp neg", i);
		fe_cneg(&dr, &da, true);
		check(same(&dr, &r), "fp conditional neg", i);
		fe_cneg(&dr, &da, false);
		check(same(&dr, &a), "fp conditional neg, kept", i);
		uint64_t lc[6], ld[6];
		zkp_fp_to_limbs(lc, &a);
		fe_from_mont(ld, &da);
		check(memcmp(lc, ld, sizeof(lc)) == 0, "fp from_mont", i);
		fe_to_mont(&dr, lc);
		check(same(&dr, &a), "fp to_mont", i);
	}
}

/* The raw limbs of 2^k - 1 and m - 2^k (k below the modulus's bits):
 * runs of ones and zeros of every length, and values next to m, where
 * fe_sqr's bound is tightest. */
static void test_fp_sqr_edges(void)
{
	mpz_t m, v, three;
	mpz_inits(m, v, three, NULL);
	mpz_import(m, 6, -1, sizeof(uint64_t), 0, 0, ZKP_FP_MODULUS);
	/* fe_sqr's rows need 3m < 2^(64 N) (cuda/ff.cuh) */
	mpz_mul_ui(three, m, 3);
	check(fp_params::sqr_rows == (mpz_sizeinbase(three, 2) <= 384), "fp sqr_rows", 0);
	mpz_import(v, 4, -1, sizeof(uint64_t), 0, 0, ZKP_FR_MODULUS);
	mpz_mul_ui(three, v, 3);
	check(fr_params::sqr_rows == (mpz_sizeinbase(three, 2) <= 256), "fr sqr_rows", 0);
	for (unsigned long k = 0; k < 381; k++) {
		for (int side = 0; side < 2; side++) {
			mpz_set_ui(v, 0);
			mpz_setbit(v, k);
			if (side)
				mpz_sub(v, m, v);
			else
				mpz_sub_ui(v, v, 1);
			zkp_fp a, r;
			memset(&a, 0, sizeof(a));
			mpz_export(a.l, NULL, -1, sizeof(uint64_t), 0, 0, v);
			dfp da, dr;
			memcpy(&da, &a, sizeof(a));
			zkp_fp_sqr(&r, &a);
			fe_sqr(&dr, &da);
			check(same(&dr, &r), "fp sqr edge", k * 2 + side);
		}
	}
	mpz_clears(m, v, three, NULL);
}

/* fe_mul_sum<fp_params, T> against the C layer's products and sums, for
 * T = 1, 2, 3, 4 and 8 (fp_params::sum_max), on picked values and on T
 * copies of m - 1 (the largest accumulator the bound allows); and sum_max
 * against GMP: (sum_max + 1) m < 2^(64 N), each field's the largest that
 * holds (8 for p, 1 for r). */
template <int T> static void fp_sum_case(const zkp_fp *a, const zkp_fp *b, unsigned long i)
{
	zkp_fp want, t;
	dfp da[T], db[T], got;
	const dfp *pa[T], *pb[T];
	zkp_fp_set_zero(&want);
	for (int k = 0; k < T; k++) {
		zkp_fp_mul(&t, &a[k], &b[k]);
		zkp_fp_add(&want, &want, &t);
		memcpy(&da[k], &a[k], sizeof(a[k]));
		memcpy(&db[k], &b[k], sizeof(b[k]));
		pa[k] = &da[k];
		pb[k] = &db[k];
	}
	fe_mul_sum<fp_params, T>(&got, pa, pb);
	check(same(&got, &want), "fp mul_sum", i * 16 + T);
}

template <int T> static void fp_sum_cases(void)
{
	zkp_fp a[T], b[T];
	for (unsigned long i = 0; i < ITERS / 16; i++) {
		for (int k = 0; k < T; k++) {
			pick_fp(&a[k]);
			pick_fp(&b[k]);
		}
		fp_sum_case<T>(a, b, i);
	}
	for (int k = 0; k < T; k++) {
		memcpy(a[k].l, ZKP_FP_MODULUS, sizeof(a[k].l)); /* raw limbs m - 1 */
		a[k].l[0] -= 1;
		b[k] = a[k];
	}
	fp_sum_case<T>(a, b, ITERS);
}

static void test_fp_mul_sum(void)
{
	fp_sum_cases<1>();
	fp_sum_cases<2>();
	fp_sum_cases<3>();
	fp_sum_cases<4>();
	fp_sum_cases<8>();
	mpz_t m, v;
	mpz_inits(m, v, NULL);
	mpz_import(m, 6, -1, sizeof(uint64_t), 0, 0, ZKP_FP_MODULUS);
	mpz_mul_ui(v, m, fp_params::sum_max + 1);
	check(mpz_sizeinbase(v, 2) <= 384, "fp sum_max", 0);
	mpz_mul_ui(v, m, fp_params::sum_max + 2);
	check(mpz_sizeinbase(v, 2) > 384, "fp sum_max, the largest", 0);
	mpz_import(m, 4, -1, sizeof(uint64_t), 0, 0, ZKP_FR_MODULUS);
	mpz_mul_ui(v, m, fr_params::sum_max + 1);
	check(mpz_sizeinbase(v, 2) <= 256, "fr sum_max", 0);
	mpz_mul_ui(v, m, fr_params::sum_max + 2);
	check(mpz_sizeinbase(v, 2) > 256, "fr sum_max, the largest", 0);
	mpz_clears(m, v, NULL);
}

/* Limbs of 32 bits for fe_prod, fe_kara and fe_redc: uniform below 2^bits,
 * or runs of all-zero and all-one limbs, or 2^bits - 1 (every half's sum
 * carries). */
static void pick_limbs32(uint32_t *w, int n, unsigned bits)
{
	unsigned kind = (unsigned)(tu_rand64() % 4);
	for (int i = 0; i < n; i++) {
		uint32_t v = (uint32_t)tu_rand64();
		if (kind == 1)
			v = tu_rand64() & 1 ? 0xffffffffu : 0;
		else if (kind == 2)
			v = 0xffffffffu;
		w[i] = 32 * (unsigned)i >= bits ? 0 : v;
	}
	if (bits % 32 && (int)(bits / 32) < n)
		w[bits / 32] &= (1u << (bits % 32)) - 1;
}

static void mpz_from32(mpz_t v, const uint32_t *w, int n)
{
	mpz_import(v, (size_t)n, -1, sizeof(uint32_t), 0, 0, w);
}

static bool mpz_is32(const mpz_t v, const uint32_t *w, int n)
{
	mpz_t t;
	mpz_init(t);
	mpz_from32(t, w, n);
	bool same = mpz_cmp(t, v) == 0;
	mpz_clear(t);
	return same;
}

/* Whether the 2n limbs of t are the product of the n-limb x and y. */
static bool product_is(const uint32_t *t, const uint32_t *x, const uint32_t *y, int n)
{
	mpz_t a, b;
	mpz_inits(a, b, NULL);
	mpz_from32(a, x, n);
	mpz_from32(b, y, n);
	mpz_mul(a, a, b);
	bool same = mpz_is32(a, t, 2 * n);
	mpz_clears(a, b, NULL);
	return same;
}

/* The pieces of the Karatsuba products against GMP (cuda/ff.cuh): fe_prod
 * on any 6-limb values, fe_kara on 12-limb values below 2^382 (its
 * contract: both halves' sums may carry), and fe_redc on 24-limb values
 * below (sum_max + 1) p^2, whose result must be t R^-1 mod p. */
static void test_fp_karatsuba(void)
{
	mpz_t a, b, r, p, lim, rinv, two;
	mpz_inits(a, b, r, p, lim, rinv, two, NULL);
	mpz_import(p, 6, -1, sizeof(uint64_t), 0, 0, ZKP_FP_MODULUS);
	mpz_set_ui(two, 2);
	mpz_pow_ui(rinv, two, 384);
	check(mpz_invert(rinv, rinv, p) != 0, "fp R invertible", 0);
	mpz_mul(lim, p, p);
	mpz_mul_ui(lim, lim, fp_params::sum_max + 1);
	for (unsigned long i = 0; i < ITERS / 10; i++) {
		uint32_t x[12], y[12], t[24];
		pick_limbs32(x, 6, 192);
		pick_limbs32(y, 6, 192);
		fe_prod<6>(t, x, y);
		check(product_is(t, x, y, 6), "fe_prod<6>", i);
		pick_limbs32(x, 12, 382);
		pick_limbs32(y, 12, 382);
		fe_kara<12>(t, x, y);
		check(product_is(t, x, y, 12), "fe_kara<12>", i);
		/* t below the bound: an arbitrary 766-bit value, reduced */
		pick_limbs32(t, 24, 766);
		mpz_from32(a, t, 24);
		if (mpz_cmp(a, lim) >= 0) {
			mpz_sub_ui(a, lim, 1 + (i & 0xff));
			memset(t, 0, sizeof(t));
			mpz_export(t, NULL, -1, sizeof(uint32_t), 0, 0, a);
		}
		dfp got;
		fe_redc<fp_params>(&got, t);
		mpz_mul(r, a, rinv);
		mpz_mod(r, r, p);
		uint32_t w[12];
		fe_split<fp_params>(w, &got);
		check(mpz_is32(r, w, 12), "fe_redc", i);
	}
	mpz_clears(a, b, r, p, lim, rinv, two, NULL);
}

static void test_fr(void)
{
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fr a, b, r;
		dfr da, db, dr;
		pick_fr(&a);
		pick_fr(&b);
		memcpy(&da, &a, sizeof(a));
		memcpy(&db, &b, sizeof(b));
		zkp_fr_add(&r, &a, &b);
		fe_add(&dr, &da, &db);
		check(same(&dr, &r), "fr add", i);
		zkp_fr_sub(&r, &a, &b);
		fe_sub(&dr, &da, &db);
		check(same(&dr, &r), "fr sub", i);
		zkp_fr_mul(&r, &a, &b);
		fe_mul(&dr, &da, &db);
		check(same(&dr, &r), "fr mul", i);
		zkp_fr_sqr(&r, &a);
		fe_sqr(&dr, &da);
		check(same(&dr, &r), "fr sqr", i);
		uint64_t lc[4], ld[4];
		zkp_fr_to_limbs(lc, &a);
		fe_from_mont(ld, &da);
		check(memcmp(lc, ld, sizeof(lc)) == 0, "fr from_mont", i);
		fe_to_mont(&dr, lc);
		check(same(&dr, &a), "fr to_mont", i);
	}
}

/* Fp2 against src/ff/fp2.c: every operation, also with the output
 * aliasing an input. */
static void test_fp2(void)
{
	for (unsigned long i = 0; i < ITERS / 4; i++) {
		zkp_fp2 a, b, r;
		dfp2 da, db, dr;
		pick_fp(&a.c0);
		pick_fp(&a.c1);
		pick_fp(&b.c0);
		pick_fp(&b.c1);
		memcpy(&da, &a, sizeof(a));
		memcpy(&db, &b, sizeof(b));
		zkp_fp2_add(&r, &a, &b);
		fe_add(&dr, &da, &db);
		check(same(&dr, &r), "fp2 add", i);
		zkp_fp2_sub(&r, &a, &b);
		fe_sub(&dr, &da, &db);
		check(same(&dr, &r), "fp2 sub", i);
		zkp_fp2_dbl(&r, &a);
		fe_dbl(&dr, &da);
		check(same(&dr, &r), "fp2 dbl", i);
		zkp_fp2_neg(&r, &a);
		fe_neg(&dr, &da);
		check(same(&dr, &r), "fp2 neg", i);
		fe_cneg(&dr, &da, true);
		check(same(&dr, &r), "fp2 conditional neg", i);
		fe_cneg(&dr, &da, false);
		check(same(&dr, &a), "fp2 conditional neg, kept", i);
		zkp_fp2_mul(&r, &a, &b);
		fe_mul(&dr, &da, &db);
		check(same(&dr, &r), "fp2 mul", i);
		zkp_fp2_sqr(&r, &a);
		fe_sqr(&dr, &da);
		check(same(&dr, &r), "fp2 sqr", i);
		zkp_fp2 c, d, cd;
		dfp2 dc, dd;
		pick_fp(&c.c0);
		pick_fp(&c.c1);
		pick_fp(&d.c0);
		pick_fp(&d.c1);
		memcpy(&dc, &c, sizeof(c));
		memcpy(&dd, &d, sizeof(d));
		zkp_fp2_mul(&r, &a, &b);
		zkp_fp2_mul(&cd, &c, &d);
		zkp_fp2_sub(&r, &r, &cd);
		fe_mul_sub(&dr, &da, &db, &dc, &dd);
		check(same(&dr, &r), "fp2 mul_sub", i);
		dfp2 u = dd;
		fe_mul_sub(&u, &da, &db, &dc, &u); /* ret aliasing an input */
		check(same(&u, &r), "fp2 mul_sub aliased", i);
		/* aliased: ret = a * ret, ret = ret^2 */
		dfp2 t = db;
		fe_mul(&t, &da, &t);
		zkp_fp2_mul(&r, &a, &b);
		check(same(&t, &r), "fp2 mul aliased", i);
		fe_sqr(&t, &t);
		zkp_fp2_sqr(&r, &r);
		check(same(&t, &r), "fp2 sqr aliased", i);
		check(fe_is_zero(&da) == zkp_fp2_is_zero(&a) && fe_eq(&da, &da) &&
			      fe_eq(&da, &db) == zkp_fp2_eq(&a, &b),
		      "fp2 predicates", i);
	}
	dfp2 z, o;
	zkp_fp2 cz, co;
	fe_set_zero(&z);
	fe_set_one(&o);
	zkp_fp2_set_zero(&cz);
	zkp_fp2_set_one(&co);
	check(same(&z, &cz) && same(&o, &co) && fe_is_zero(&z) && !fe_is_zero(&o), "fp2 constants",
	      0);
}

/* Fermat inversion of Fp and Fp2 against the C layer (which inverts by
 * another method), 0 mapping to 0. */
static void test_inv(void)
{
	for (unsigned long i = 0; i < 2000; i++) {
		zkp_fp a, r;
		dfp da, dr;
		pick_fp(&a);
		memcpy(&da, &a, sizeof(a));
		zkp_fp_inv(&r, &a);
		fe_inv(&dr, &da);
		check(same(&dr, &r), "fp inv", i);
		zkp_fp2 b, q;
		dfp2 db, dq;
		pick_fp(&b.c0);
		pick_fp(&b.c1);
		memcpy(&db, &b, sizeof(b));
		zkp_fp2_inv(&q, &b);
		fe_inv(&dq, &db);
		check(same(&dq, &q), "fp2 inv", i);
		fe_inv(&db, &db); /* aliased */
		check(same(&db, &q), "fp2 inv aliased", i);
	}
	dfp z;
	fe_set_zero(&z);
	fe_inv(&z, &z);
	check(fe_is_zero(&z), "fp inv of 0", 0);
}

/* The C layer of each group, for the tests written once over G1 and G2. */
struct tg1 {
	typedef dfp E;
	typedef zkp_g1 jac;
	typedef zkp_g1_affine affine;
	typedef zkp_g1_xyzz xyzz;
	typedef zkp_fp coord;
	static const char *name() { return "g1"; }
	static affine *fb_table() { return zkp_fixed_base_g1_table(); }
	static int fb_muls(affine *o, const affine *t, const zkp_fr *s, size_t n)
	{
		return zkp_fixed_base_g1s(o, t, s, n, NULL);
	}
	static const affine *gen() { return &ZKP_G1_GENERATOR; }
	static void from_affine(jac *r, const affine *a) { zkp_g1_from_affine(r, a); }
	static void mul_fr(jac *r, const jac *a, const zkp_fr *k) { zkp_g1_mul_fr(r, a, k); }
	static void add(jac *r, const jac *a, const jac *b) { zkp_g1_add(r, a, b); }
	static void dbl(jac *r, const jac *a) { zkp_g1_dbl(r, a); }
	static void set_inf(jac *r) { zkp_g1_set_infinity(r); }
	static bool eq(const jac *a, const jac *b) { return zkp_g1_eq(a, b); }
	static void to_affines(affine *r, const jac *j, size_t n, coord *s) { zkp_g1s_to_affine(r, j, n, s); }
	static void to_affine(affine *r, const jac *a) { zkp_g1_to_affine(r, a); }
	static bool affine_eq(const affine *a, const affine *b) { return zkp_g1_affine_eq(a, b); }
	static void affine_neg(affine *r, const affine *a) { zkp_g1_affine_neg(r, a); }
	static void from_xyzz(jac *r, const xyzz *a) { zkp_g1_from_xyzz(r, a); }
	static void xyzz_inf(xyzz *r) { zkp_g1_xyzz_set_infinity(r); }
	static void xyzz_of_affine(xyzz *r, const affine *a) { zkp_g1_xyzz_from_affine(r, a); }
	static void xyzz_madd(xyzz *r, const xyzz *a, const affine *b) { zkp_g1_xyzz_add_affine(r, a, b); }
	static void xyzz_msub(xyzz *r, const xyzz *a, const affine *b) { zkp_g1_xyzz_sub_affine(r, a, b); }
	static void xyzz_plus(xyzz *r, const xyzz *a, const xyzz *b) { zkp_g1_xyzz_add(r, a, b); }
	static void xyzz_twice(xyzz *r, const xyzz *a) { zkp_g1_xyzz_dbl(r, a); }
	static void msm(jac *r, const affine *b, const zkp_fr *sc, const uint64_t *dens, size_t n)
	{
		size_t size = zkp_msm_g1_scratch_size(n, 1, NULL);
		void *scratch = aligned_alloc(64, (size + 63) & ~(size_t)63);
		if (dens)
			zkp_msm_g1_density(r, b, sc, dens, n, NULL, scratch, size, NULL);
		else
			zkp_msm_g1(r, b, sc, n, NULL, scratch, size, NULL);
		free(scratch);
	}
};

struct tg2 {
	typedef dfp2 E;
	typedef zkp_g2 jac;
	typedef zkp_g2_affine affine;
	typedef zkp_g2_xyzz xyzz;
	typedef zkp_fp2 coord;
	static const char *name() { return "g2"; }
	static affine *fb_table() { return zkp_fixed_base_g2_table(); }
	static int fb_muls(affine *o, const affine *t, const zkp_fr *s, size_t n)
	{
		return zkp_fixed_base_g2s(o, t, s, n, NULL);
	}
	static const affine *gen() { return &ZKP_G2_GENERATOR; }
	static void from_affine(jac *r, const affine *a) { zkp_g2_from_affine(r, a); }
	static void mul_fr(jac *r, const jac *a, const zkp_fr *k) { zkp_g2_mul_fr(r, a, k); }
	static void add(jac *r, const jac *a, const jac *b) { zkp_g2_add(r, a, b); }
	static void dbl(jac *r, const jac *a) { zkp_g2_dbl(r, a); }
	static void set_inf(jac *r) { zkp_g2_set_infinity(r); }
	static bool eq(const jac *a, const jac *b) { return zkp_g2_eq(a, b); }
	static void to_affines(affine *r, const jac *j, size_t n, coord *s) { zkp_g2s_to_affine(r, j, n, s); }
	static void to_affine(affine *r, const jac *a) { zkp_g2_to_affine(r, a); }
	static bool affine_eq(const affine *a, const affine *b) { return zkp_g2_affine_eq(a, b); }
	static void affine_neg(affine *r, const affine *a) { zkp_g2_affine_neg(r, a); }
	static void from_xyzz(jac *r, const xyzz *a) { zkp_g2_from_xyzz(r, a); }
	static void xyzz_inf(xyzz *r) { zkp_g2_xyzz_set_infinity(r); }
	static void xyzz_of_affine(xyzz *r, const affine *a) { zkp_g2_xyzz_from_affine(r, a); }
	static void xyzz_madd(xyzz *r, const xyzz *a, const affine *b) { zkp_g2_xyzz_add_affine(r, a, b); }
	static void xyzz_msub(xyzz *r, const xyzz *a, const affine *b) { zkp_g2_xyzz_sub_affine(r, a, b); }
	static void xyzz_plus(xyzz *r, const xyzz *a, const xyzz *b) { zkp_g2_xyzz_add(r, a, b); }
	static void xyzz_twice(xyzz *r, const xyzz *a) { zkp_g2_xyzz_dbl(r, a); }
	static void msm(jac *r, const affine *b, const zkp_fr *sc, const uint64_t *dens, size_t n)
	{
		size_t size = zkp_msm_g2_scratch_size(n, 1, NULL);
		void *scratch = aligned_alloc(64, (size + 63) & ~(size_t)63);
		if (dens)
			zkp_msm_g2_density(r, b, sc, dens, n, NULL, scratch, size, NULL);
		else
			zkp_msm_g2(r, b, sc, n, NULL, scratch, size, NULL);
		free(scratch);
	}
};

/* npts affine points: multiples of a random point, plus infinity,
 * negations and repeats. */
template <class G> static std::vector<typename G::affine> point_pool(size_t npts)
{
	zkp_fr k;
	tu_rand_fr(&k);
	typename G::jac q, acc;
	G::from_affine(&q, G::gen());
	G::mul_fr(&q, &q, &k);
	acc = q;
	std::vector<typename G::jac> jac(npts);
	for (size_t i = 0; i < npts; i++) {
		jac[i] = acc;
		G::add(&acc, &acc, &q);
	}
	std::vector<typename G::affine> pts(npts);
	std::vector<typename G::coord> scratch(npts);
	G::to_affines(pts.data(), jac.data(), npts, scratch.data());
	for (size_t i = 0; i < npts; i += 7) {
		switch ((i / 7) % 3) {
		case 0: memset(&pts[i], 0, sizeof(pts[i])); break;
		case 1: G::affine_neg(&pts[i], &pts[i - 1]); break;
		default: pts[i] = pts[i - 2];
		}
	}
	return pts;
}

template <class G>
static bool same_affine(const ec_xyzz<typename G::E> *d, const typename G::xyzz *c)
{
	typename G::jac jc, j2;
	ec_jac<typename G::E> jd;
	G::from_xyzz(&jc, c);
	jac_from_xyzz(&jd, d);
	if (!same(&jd, &jc))
		return false;
	memcpy(&j2, &jd, sizeof(j2));
	typename G::affine ac, ad;
	G::to_affine(&ac, &jc);
	G::to_affine(&ad, &j2);
	return G::affine_eq(&ac, &ad);
}

/* Random sequences of XYZZ operations on two accumulators, limb for limb
 * against the C layer, through every branch (infinity, doubling, P - P). */
template <class G> static void test_ec(unsigned long iters)
{
	typedef typename G::E E;
	typedef ec_affine<E> daffine;
	std::vector<typename G::affine> pts = point_pool<G>(1024);
	typename G::xyzz ca, cb;
	ec_xyzz<E> da, db;
	G::xyzz_inf(&ca);
	G::xyzz_inf(&cb);
	xyzz_set_inf(&da);
	xyzz_set_inf(&db);
	check(same(&da, &ca), "xyzz infinity", 0);
	for (unsigned long i = 0; i < iters; i++) {
		const typename G::affine *p = &pts[tu_rand64() % pts.size()];
		const daffine *dp = (const daffine *)p;
		const char *what = "";
		switch (tu_rand64() % 10) {
		case 0: case 1: case 2:
			G::xyzz_madd(&ca, &ca, p);
			xyzz_add_affine(&da, &da, dp);
			what = "xyzz madd";
			break;
		case 3:
			G::xyzz_msub(&ca, &ca, p);
			xyzz_sub_affine(&da, &da, dp);
			what = "xyzz msub";
			break;
		case 4: case 5:
			G::xyzz_madd(&cb, &cb, p);
			xyzz_add_affine(&db, &db, dp);
			what = "xyzz madd (second)";
			break;
		case 6:
			G::xyzz_plus(&ca, &ca, &cb);
			xyzz_add(&da, &da, &db);
			what = "xyzz add";
			break;
		case 7:
			G::xyzz_twice(&ca, &ca);
			xyzz_dbl(&da, &da);
			what = "xyzz dbl";
			break;
		case 8: /* P + P and P + (-P) through the general addition */
			if (tu_rand64() & 1) {
				G::xyzz_plus(&cb, &ca, &ca);
				xyzz_add(&db, &da, &da);
				what = "xyzz add (doubling)";
			} else {
				typename G::xyzz tc;
				ec_xyzz<E> td;
				G::xyzz_of_affine(&tc, p);
				xyzz_from_affine(&td, dp);
				G::xyzz_plus(&cb, &cb, &tc);
				xyzz_add(&db, &db, &td);
				G::xyzz_msub(&cb, &cb, p);
				xyzz_sub_affine(&db, &db, dp);
				what = "xyzz add then msub";
			}
			break;
		default:
			if (tu_rand64() % 8 == 0) {
				G::xyzz_inf(&ca);
				xyzz_set_inf(&da);
			}
			G::xyzz_madd(&ca, &ca, p);
			G::xyzz_msub(&ca, &ca, p); /* back where it was */
			xyzz_add_affine(&da, &da, dp);
			xyzz_sub_affine(&da, &da, dp);
			what = "xyzz madd msub";
		}
		check(same(&da, &ca) && same(&db, &cb), what, i);
		if (i % 64 == 0)
			check(same_affine<G>(&da, &ca) && same_affine<G>(&db, &cb), "xyzz as affine", i);
	}
}

static void test_ec_g1(void)
{
	test_ec<tg1>(ITERS);
}

static void test_ec_g2(void)
{
	test_ec<tg2>(ITERS / 5);
}

/* The fixed-base kernels' bodies (k_fb_mul per scalar, then k_fb_affine
 * per run, and a run length other than the device's) against the CPU's
 * zkp_fixed_base_g?s, byte for byte, and the table against [d 2^(8w)] G.
 * Scalars: uniform, 0, 1, r - 1, and single bytes (one table entry). */
template <class G> static void test_fixed_base(size_t n)
{
	typedef typename G::E E;
	typename G::affine *table = G::fb_table();
	std::vector<zkp_fr> sc(n);
	for (size_t i = 0; i < n; i++) {
		switch (i % 8) {
		case 0: zkp_fr_set_zero(&sc[i]); break;
		case 1: zkp_fr_set_one(&sc[i]); break;
		case 2: zkp_fr_set_one(&sc[i]); zkp_fr_neg(&sc[i], &sc[i]); break;
		case 3: {
			uint64_t l[4] = { 0, 0, 0, 0 };
			unsigned w = (unsigned)(tu_rand64() % 32);
			l[w / 8] = (uint64_t)(1 + tu_rand64() % 255) << (8 * (w % 8));
			if (w == 31)
				l[3] &= 0x3fffffffffffffffULL; /* stay below r */
			zkp_fr_from_limbs(&sc[i], l);
			break;
		}
		default: tu_rand_fr(&sc[i]);
		}
	}
	std::vector<typename G::affine> want(n);
	check(G::fb_muls(want.data(), table, sc.data(), n) == 0, "cpu fixed base", n);
	const ec_affine<E> *dt = (const ec_affine<E> *)table;
	const unsigned runs[] = { FB_AFFINE_RUN, 7 };
	for (unsigned run : runs) {
		std::vector<ec_xyzz<E>> tmp(n);
		std::vector<ec_affine<E>> got(n + 1);
		memset(got.data(), 0x5a, got.size() * sizeof(got[0]));
		for (size_t i = 0; i < n; i++)
			fb_mul(tmp.data(), dt, (const dfr *)sc.data(), i);
		for (size_t t = 0; t < (n + run - 1) / run; t++)
			fb_to_affine(got.data(), tmp.data(), n, run, t);
		check(n == 0 || memcmp(got.data(), want.data(), n * sizeof(want[0])) == 0,
		      "fixed base", run);
	}
	/* The table's entries are d 2^(8w) G. */
	for (unsigned k = 0; k < 16; k++) {
		unsigned w = (unsigned)(tu_rand64() % 32), d = 1 + (unsigned)(tu_rand64() % 255);
		uint64_t l[4] = { 0, 0, 0, 0 };
		l[w / 8] = (uint64_t)d << (8 * (w % 8));
		zkp_fr s;
		zkp_fr_from_limbs(&s, l);
		typename G::jac p;
		typename G::affine a;
		G::from_affine(&p, G::gen());
		G::mul_fr(&p, &p, &s);
		G::to_affine(&a, &p);
		if (w == 31 && d >= 0x74) /* past r: the table holds d 2^248 G anyway */
			continue;
		check(G::affine_eq(&a, &table[w * FB_DIGITS + d - 1]), "fixed base table", k);
	}
	free(table);
}

static void test_fixed_base_both(void)
{
	test_fixed_base<tg1>(3000);
	test_fixed_base<tg2>(600);
}

/* A development setup whose points come from the device's fixed-base
 * bodies (k_fb_mul, k_fb_affine) run on the host: a backend whose
 * fixed_base ops are the emulated kernels, everything else unused. */
template <class G>
static int emu_fixed_base(typename G::affine *out, const zkp_fr *scalars, size_t n)
{
	typedef typename G::E E;
	typename G::affine *table = G::fb_table();
	if (!table)
		return ZKP_ERR_NOMEM;
	std::vector<ec_xyzz<E>> tmp(n);
	for (size_t i = 0; i < n; i++)
		fb_mul(tmp.data(), (const ec_affine<E> *)table, (const dfr *)scalars, i);
	for (size_t t = 0; t < (n + FB_AFFINE_RUN - 1) / FB_AFFINE_RUN; t++)
		fb_to_affine((ec_affine<E> *)out, tmp.data(), n, FB_AFFINE_RUN, t);
	free(table);
	return 0;
}

static int emu_fb_g1(zkp_backend *, zkp_g1_affine *out, const zkp_fr *s, size_t n)
{
	return emu_fixed_base<tg1>(out, s, n);
}

static int emu_fb_g2(zkp_backend *, zkp_g2_affine *out, const zkp_fr *s, size_t n)
{
	return emu_fixed_base<tg2>(out, s, n);
}

/* A PoRep-shaped synthetic circuit of `rows` rows and its witness (w);
 * NULL when it cannot be made (a failed check says why). */
static zkp_pce *synth_circuit(uint64_t rows, uint64_t seed, std::vector<zkp_fr> &w)
{
	zkp_error err = {};
	zkp_synth_info info;
	zkp_pce_builder *b = NULL;
	zkp_pce *pce = NULL;
	char path[] = "/tmp/zkpd-cuda-math-XXXXXX";
	int fd = mkstemp(path);
	check(fd >= 0, "temporary circuit file", 0);
	if (fd < 0)
		return NULL;
	close(fd);
	int rc = zkp_synth_porep_dims(rows, &info, &err);
	if (!rc) {
		w.resize(info.n_inputs + info.n_aux);
		rc = zkp_pce_builder_new(&b, info.n_inputs, info.n_aux);
	}
	if (!rc)
		rc = zkp_synth_porep(rows, seed, zkp_synth_builder_sink, b, w.data(), NULL, &err);
	if (!rc)
		rc = zkp_pce_builder_write(b, path, &err);
	if (!rc)
		rc = zkp_pce_load(&pce, path, 0, &err);
	zkp_pce_builder_free(b);
	unlink(path);
	check(rc == 0, "synthetic circuit", rc);
	return rc ? NULL : pce;
}

/* The evaluation kernels' bodies (k_spmv per block of rows, k_spmv_zero
 * for the padding, k_unsat per row) against zkp_pce_eval and the row
 * check, on a synthetic circuit whose last block is partial. */
static void test_spmv(void)
{
	std::vector<zkp_fr> w;
	zkp_pce *pce = synth_circuit(5000 - 13, tu_rand64(), w);
	if (!pce)
		return;
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const size_t m = (size_t)d->n_constraints, n = (size_t)1 << d->domain_log2;
	std::vector<zkp_fr> want[3];
	for (int k = 0; k < 3; k++)
		want[k].resize(m);
	zkp_pce_eval(pce, w.data(), want[0].data(), want[1].data(), want[2].data(), NULL);
	std::vector<dfr> got[3];
	for (int k = 0; k < 3; k++) {
		const zkp_csr *c = zkp_pce_matrix(pce, (enum zkp_pce_matrix)k);
		spmv_csr dm = { c->rows, c->nnz, c->row_len, (const uint64_t *)c->blocks, c->cols,
				c->codes, c->escapes, c->overflow, (const dfr *)c->values };
		got[k].assign(n, dfr());
		memset(got[k].data(), 0x5a, n * sizeof(dfr));
		for (size_t blk = 0; blk < (m + SPMV_BLOCK_ROWS - 1) / SPMV_BLOCK_ROWS; blk++)
			spmv_block(got[k].data(), &dm, (const dfr *)w.data(), blk);
		for (size_t i = 0; i < n - m; i++)
			spmv_zero(got[k].data(), m, n, i);
		bool ok = !memcmp(got[k].data(), want[k].data(), m * sizeof(dfr));
		for (size_t r = m; r < n; r++)
			ok &= fe_is_zero(&got[k][r]);
		check(ok, "spmv of a matrix with its padding", k);
	}
	uint64_t first = SPMV_NONE;
	for (size_t i = 0; i < m; i++) {
		uint64_t r = unsat_row(got[0].data(), got[1].data(), got[2].data(), i);
		first = r < first ? r : first;
	}
	check(first == SPMV_NONE, "a satisfying witness leaves no row", 0);
	size_t bad = 1 + (size_t)(tu_rand64() % (m - 1));
	dfr one;
	fe_set_one(&one);
	fe_add(&got[2][bad], &got[2][bad], &one); /* c + 1 != a b where c = a b */
	fe_add(&got[2][m - 1], &got[2][m - 1], &one);
	for (size_t i = 0; i < m; i++) {
		uint64_t r = unsat_row(got[0].data(), got[1].data(), got[2].data(), i);
		first = r < first ? r : first;
	}
	check(first == bad, "the first broken row is named", bad);
	zkp_pce_free(pce);
}

/* The unpack kernel's body (k_unpack, one thread a value) against the
 * witness it was packed from: a synthetic circuit's, mostly 0 and 1, and
 * one whose words mix all three kinds, past a partial last word. */
static void test_unpack(void)
{
	std::vector<zkp_fr> w;
	zkp_pce *pce = synth_circuit(3000 - 7, tu_rand64(), w);
	if (!pce)
		return;
	zkp_pce_free(pce);
	std::vector<zkp_fr> mixed(4096 + 37);
	for (size_t i = 0; i < mixed.size(); i++) {
		uint64_t r = tu_rand64() % 3;
		if (r == 0)
			memset(&mixed[i], 0, sizeof(zkp_fr));
		else if (r == 1)
			mixed[i] = ZKP_FR_ONE;
		else
			tu_rand_fr(&mixed[i]);
	}
	const std::vector<zkp_fr> *vs[] = { &w, &mixed };
	for (int k = 0; k < 2; k++) {
		const std::vector<zkp_fr> &v = *vs[k];
		size_t n = v.size();
		std::vector<uint64_t> buf((zkp_bitpack_dense_off(n) + n * sizeof(zkp_fr)) / 8);
		size_t n_dense = zkp_bitpack_scan(buf.data(), v.data(), n, NULL);
		zkp_bitpack_gather(buf.data(), v.data(), n, NULL);
		check(k == 1 || n_dense < n / 4, "a synthetic witness is mostly 0 and 1", n_dense);
		bitpack_view bv = bitpack_at(buf.data(), n);
		std::vector<dfr> got(n);
		memset(got.data(), 0x5a, n * sizeof(dfr));
		for (size_t i = 0; i < n; i++)
			bitpack_unpack_one(got.data(), &bv, i);
		check(!memcmp(got.data(), v.data(), n * sizeof(dfr)), "unpack of a packed vector", k);
	}
}

/* The same seed gives the same key byte for byte through the emulated
 * device path as on the CPU (zkp setup --backend cuda against cpu). */
static void test_setup_device_path(void)
{
	const uint64_t seed = tu_rand64();
	zkp_error err = {};
	std::vector<zkp_fr> w;
	zkp_pce *pce = synth_circuit(3000, seed, w);
	if (!pce)
		return;
	zkp_backend_ops ops;
	memset(&ops, 0, sizeof(ops));
	ops.name = "emulated-device";
	ops.fixed_base_g1 = emu_fb_g1;
	ops.fixed_base_g2 = emu_fb_g2;
	zkp_backend emu = { &ops, false };
	zkp_groth16_pk cpu, dev;
	int rc_cpu = zkp_groth16_setup_dev(&cpu, pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, NULL, &err);
	int rc_dev = zkp_groth16_setup_dev(&dev, pce, ZKP_GROTH16_H_BELLMAN, &seed, &emu, NULL, &err);
	check(rc_cpu == 0 && rc_dev == 0, "setups", 0);
	if (!rc_cpu && !rc_dev) {
		bool same_key = !memcmp(cpu.n, dev.n, sizeof(cpu.n)) &&
				zkp_groth16_vk_eq(&cpu.vk, &dev.vk);
		const zkp_g1_affine *s1[] = { cpu.h, cpu.l, cpu.a, cpu.b_g1 },
				    *s2[] = { dev.h, dev.l, dev.a, dev.b_g1 };
		const int secs[] = { ZKP_GROTH16_H, ZKP_GROTH16_L, ZKP_GROTH16_A, ZKP_GROTH16_B_G1 };
		for (int q = 0; q < 4; q++)
			same_key &= !memcmp(s1[q], s2[q], cpu.n[secs[q]] * sizeof(zkp_g1_affine));
		same_key &= !memcmp(cpu.vk.ic, dev.vk.ic, cpu.n[ZKP_GROTH16_IC] * sizeof(zkp_g1_affine));
		same_key &= !memcmp(cpu.b_g2, dev.b_g2, cpu.n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine));
		check(same_key, "setup through the device path equals the cpu's", 0);
	}
	zkp_groth16_pk_release(&cpu);
	zkp_groth16_pk_release(&dev);
	zkp_pce_free(pce);
}

static void test_digits(void)
{
	mpz_t s, sum, t;
	mpz_inits(s, sum, t, NULL);
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fr a;
		pick_fr(&a);
		uint64_t l[4];
		zkp_fr_to_limbs(l, &a);
		unsigned c = 4 + (unsigned)(tu_rand64() % (MSM_WIDEST_WINDOW - 3));
		unsigned k = msm_windows(c);
		tu_mpz_from_limbs(s, l, 4);
		mpz_set_ui(sum, 0);
		bool ok = true;
		for (unsigned w = k; w-- > 0;) {
			int32_t d = booth_digit(l, w, c);
			ok &= (d <= 0 ? -d : d) <= (1 << (c - 1));
			mpz_mul_2exp(sum, sum, c);
			if (d >= 0)
				mpz_add_ui(sum, sum, (unsigned long)d);
			else
				mpz_sub_ui(sum, sum, (unsigned long)-d);
		}
		check(ok && mpz_cmp(sum, s) == 0, "booth digits", i);
	}
	mpz_clears(s, sum, t, NULL);
	check(msm_window(1) == MSM_MIN_WINDOW && msm_window((size_t)1 << 26) == MSM_MAX_WINDOW &&
		      msm_window((size_t)1 << 28) == MSM_MAX_WINDOW &&
		      msm_window((size_t)1 << 20) == 14,
	      "window table", 0);
	/* The widest forced windows of 2^27 random scalars: 12 windows of 22
	 * bits, each pass within MSM_PASS_BYTES (3 windows of about 1.2 GiB;
	 * buckets of 192-byte XYZZ points). */
	size_t big = (size_t)1 << 27;
	unsigned kb22 = msm_pass_windows(big, MSM_WIDEST_WINDOW, 192);
	check(msm_windows(MSM_WIDEST_WINDOW) == 12 && msm_windows(21) == 13 && kb22 >= 1 &&
		      msm_pass_bytes(big, MSM_WIDEST_WINDOW, kb22, 192) <= MSM_PASS_BYTES &&
		      msm_pass_bytes(big, MSM_WIDEST_WINDOW, kb22 + 1, 192) > MSM_PASS_BYTES,
	      "widest window's passes", kb22);
}

/* msm_bucket_after against a linear walk, on offsets whose runs of empty
 * buckets have every length from 0 to a few hundred (the galloping steps
 * and the binary search inside the last one), for every entry past each
 * bucket. */
static void test_bucket_after(void)
{
	for (unsigned it = 0; it < 40; it++) {
		unsigned nb = 1u + (unsigned)(tu_rand64() % 700);
		std::vector<uint32_t> off(nb + 1);
		uint32_t e = 0;
		for (unsigned b = 0; b < nb; b++) {
			off[b] = e;
			unsigned r = (unsigned)(tu_rand64() % 8);
			/* empty with probability 1/2, in runs; else 1 to 3 entries */
			if (r >= 4 || (it % 4 == 0 && b % 97 != 0))
				continue;
			e += 1 + r % 3;
		}
		off[nb] = e;
		bool ok = true;
		for (unsigned b = 0; b + 1 < nb; b++)
			for (uint32_t x = off[b + 1]; x < off[nb]; x++) {
				unsigned want = b + 1;
				while (off[want + 1] <= x)
					want++;
				ok &= msm_bucket_after(off.data(), b, nb, x) == want;
			}
		check(ok, "bucket after a run", it);
	}
}

/* ---- emulated grid ---- */

/* k_scan of cuda/msm.cu: one block of `threads` per segment. */
static void grid_scan(uint32_t *cnt, uint32_t *off, size_t len, unsigned segs, unsigned threads)
{
	std::vector<uint32_t> part[2] = { std::vector<uint32_t>(threads),
					  std::vector<uint32_t>(threads) };
	for (unsigned seg = 0; seg < segs; seg++) {
		uint32_t *c = cnt + (size_t)seg * len, *o = off + (size_t)seg * (len + 1);
		for (unsigned t = 0; t < threads; t++)
			scan_load(part[0].data(), c, len, t, threads);
		unsigned src = 0;
		for (unsigned d = 1; d < threads; d *= 2) {
			for (unsigned t = 0; t < threads; t++)
				scan_step(part[src ^ 1].data(), part[src].data(), t, d);
			src ^= 1;
		}
		for (unsigned t = 0; t < threads; t++)
			scan_store(c, o, part[src].data(), len, t, threads);
	}
}

static void test_scan(void)
{
	const size_t lens[] = { 1, 2, 5, 31, 1000, 1024, 4097, 50000 };
	const unsigned thr[] = { 1, 2, 32, MSM_SCAN_THREADS };
	unsigned long it = 0;
	for (size_t len : lens) {
		for (unsigned threads : thr) {
			unsigned segs = 1 + (unsigned)(tu_rand64() % 3);
			std::vector<uint32_t> cnt((size_t)segs * len);
			std::vector<uint32_t> off((size_t)segs * (len + 1));
			for (auto &v : cnt)
				v = (uint32_t)(tu_rand64() % 70);
			std::vector<uint32_t> in = cnt;
			grid_scan(cnt.data(), off.data(), len, segs, threads);
			bool ok = true;
			for (unsigned seg = 0; seg < segs; seg++) {
				uint32_t run = 0;
				const uint32_t *o = &off[(size_t)seg * (len + 1)];
				for (size_t b = 0; b < len; b++) {
					size_t k = (size_t)seg * len + b;
					ok &= o[b] == run && cnt[k] == run;
					run += in[k];
				}
				ok &= o[len] == run;
			}
			check(ok, "scan", it++);
		}
	}
}

#define GRID_BLOCK 128 /* MSM_BLOCK of cuda/msm.cu */

/* msm_run's launches in order (cuda/msm_pippenger.cuh), then the shim's
 * Horner step. The scalars are copied first, as the shim copies them into
 * the workspace it owns, and canonicalised in place there. The per-window
 * arrays hold the rows of one pass of kb windows (0: msm_pass_windows, as
 * the device picks it); the bucket lists and chunks are sized by the count
 * of scalars other than 0 and 1 (msm_is_other, as the shim's
 * msm_count_other counts them), with a guard after the lists that no
 * scatter may touch. */
template <class G>
static void grid_msm(typename G::jac *ret, const typename G::affine *bases_c,
		     const zkp_fr *scalars_c, size_t n, unsigned c, unsigned ch = 0,
		     unsigned kb = 0)
{
	typedef ec_xyzz<typename G::E> xyzz;
	const ec_affine<typename G::E> *bases = (const ec_affine<typename G::E> *)bases_c;
	std::vector<dfr> copy(n + 1);
	if (n)
		memcpy(copy.data(), scalars_c, n * sizeof(dfr));
	const dfr *scalars = copy.data();
	uint64_t *canon = (uint64_t *)copy.data();
	unsigned k = msm_windows(c), nb = 1u << (c - 1);
	unsigned nseg = msm_segs(nb), nones = msm_ones_threads(n);
	size_t words = (n + 31) / 32;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		cap += msm_is_other(scalars, i);
	if (!kb)
		kb = msm_pass_windows(cap, c, sizeof(xyzz));
	kb = kb < k ? kb : k;
	std::vector<uint32_t> zero_bits(words + 1, 0xdeadbeef), one_bits(words + 1, 0xdeadbeef);
	std::vector<uint32_t> counts((size_t)kb * nb), offs((size_t)kb * (nb + 1));
	std::vector<uint32_t> sorted((size_t)kb * cap + 1);
	std::vector<xyzz> buckets((size_t)kb * nb), segs((size_t)kb * nseg), ones(nones);
	if (!ch)
		ch = msm_chunk(cap, kb);
	size_t nc = msm_chunks(cap, ch);
	std::vector<xyzz> first((size_t)kb * nc), first2((size_t)kb * nc), last((size_t)kb * nc);
	std::vector<uint32_t> keys((size_t)kb * nc);
	std::vector<xyzz> win(k);
	size_t grid = (n + GRID_BLOCK - 1) / GRID_BLOCK * GRID_BLOCK;

	/* k_prepare: the warps' ballots, canonical limbs over the copy */
	for (size_t w0 = 0; w0 < grid; w0 += 32) {
		uint32_t zw = 0, ow = 0;
		for (unsigned lane = 0; lane < 32; lane++) {
			size_t i = w0 + lane;
			unsigned cls = MSM_OTHER;
			if (i < n)
				cls = msm_prepare(canon, scalars, i);
			zw |= (uint32_t)(cls == MSM_ZERO) << lane;
			ow |= (uint32_t)(cls == MSM_ONE) << lane;
		}
		if (w0 < n) {
			zero_bits[w0 / 32] = zw;
			one_bits[w0 / 32] = ow;
		}
	}
	/* k_ones and its folds, before the passes */
	for (size_t t = 0; t < nones; t++)
		msm_ones_partial(ones.data(), one_bits.data(), bases, n, nones, t);
	for (unsigned half = nones / 2; half >= 1; half /= 2)
		for (size_t id = 0; id < half; id++)
			msm_fold(ones.data(), nones, half, id);
	for (unsigned w0 = 0; w0 < k; w0 += kb) {
		unsigned rows = k - w0 < kb ? k - w0 : kb;
		/* garbage where the kernels must write before reading, the
		 * counts zeroed (cudaMemsetAsync) */
		memset(buckets.data(), 0x5a, buckets.size() * sizeof(xyzz));
		std::fill(sorted.begin(), sorted.end(), 0xffffffffu);
		std::fill(counts.begin(), counts.end(), 0u);
		for (size_t i = 0; i < n; i++)
			msm_histogram(counts.data(), canon, zero_bits.data(), one_bits.data(), i,
				      c, w0, rows, nb);
		grid_scan(counts.data(), offs.data(), nb, rows, MSM_SCAN_THREADS);
		/* scatter in a shuffled thread order, as atomics may order it */
		std::vector<size_t> order(n);
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		for (size_t i = n; i > 1; i--)
			std::swap(order[i - 1], order[tu_rand64() % i]);
		for (size_t i : order)
			msm_scatter(sorted.data(), counts.data(), canon, zero_bits.data(),
				    one_bits.data(), i, cap, c, w0, rows, nb);
		check(sorted[(size_t)kb * cap] == 0xffffffff,
		      "msm lists stay within kb cap entries", n);
		/* k_acc_chunk, k_seg_step per step (ping-pong; the steps past
		 * the span write nothing, and the scan's arrays start as
		 * garbage), k_bucket_finish */
		memset(first2.data(), 0x5a, first2.size() * sizeof(xyzz));
		uint32_t span = 0;
		for (size_t id = 0; id < (size_t)rows * nc; id++)
			msm_acc_chunk(buckets.data(), first.data(), last.data(), keys.data(), &span,
				      sorted.data(), offs.data(), bases, cap, nb, nc, ch, id);
		/* the span: the most chunks any bucket reaches past its first */
		uint32_t want_span = 0;
		for (unsigned r = 0; r < rows; r++)
			for (unsigned b = 0; b < nb; b++) {
				uint32_t s0 = offs[(size_t)r * (nb + 1) + b];
				uint32_t s1 = offs[(size_t)r * (nb + 1) + b + 1];
				if (s1 > s0 && (s1 - 1) / ch - s0 / ch > want_span)
					want_span = (s1 - 1) / ch - s0 / ch;
			}
		check(span == want_span, "msm scan span", n);
		xyzz *in = first.data(), *out = first2.data();
		for (size_t d = 1; d < nc; d *= 2) {
			for (size_t id = 0; id < (size_t)rows * nc; id++)
				msm_seg_step(out, in, keys.data(), nc, d, span, id);
			std::swap(in, out);
		}
		for (size_t id = 0; id < (size_t)rows * nb; id++)
			msm_bucket_finish(buckets.data(), last.data(), first.data(), first2.data(),
					  offs.data(), span, nb, nc, ch, id);
		for (size_t id = 0; id < (size_t)rows * nseg; id++)
			msm_reduce(segs.data(), buckets.data(), nb, nseg, id);
		for (unsigned half = nseg / 2; half >= 1; half /= 2)
			for (size_t id = 0; id < (size_t)rows * half; id++)
				msm_fold(segs.data(), nseg, half, id);
		for (unsigned r = 0; r < rows; r++)
			msm_gather(win.data() + w0, segs.data(), ones.data(), nseg, w0, r);
	}

	G::set_inf(ret);
	for (unsigned w = k; w-- > 0;) {
		for (unsigned i = 0; i < c; i++)
			G::dbl(ret, ret);
		typename G::jac t;
		G::from_xyzz(&t, (const typename G::xyzz *)&win[w]);
		G::add(ret, ret, &t);
	}
}

/* msm_compact's launches: count, scan (one segment), scatter. Returns the
 * number of selected scalars. */
static size_t grid_compact(zkp_fr *out, const zkp_fr *in, const uint64_t *density, size_t n)
{
	size_t nwords = (n + 63) / 64;
	std::vector<uint32_t> counts(nwords), offs(nwords + 1);
	for (size_t w = 0; w < nwords; w++)
		counts[w] = density_count(density, w, n);
	grid_scan(counts.data(), offs.data(), nwords, 1, MSM_SCAN_THREADS);
	for (size_t i = 0; i < n; i++)
		density_scatter((dfr *)out, (const dfr *)in, density, offs.data(), i);
	return offs[nwords];
}

enum scalar_kind { RANDOM, WITNESS, MIXED };

/* WITNESS: about 70 % zeros, 25 % ones, 5 % uniform (witness-like);
 * MIXED: pick_fr with a quarter forced to 1. */
static void fill_scalars(zkp_fr *s, size_t n, enum scalar_kind kind)
{
	for (size_t i = 0; i < n; i++) {
		unsigned r = (unsigned)(tu_rand64() % 100);
		if (kind == WITNESS && r < 70)
			zkp_fr_set_zero(&s[i]);
		else if ((kind == WITNESS && r < 95) || (kind == MIXED && r < 25))
			zkp_fr_set_one(&s[i]);
		else if (kind == RANDOM)
			tu_rand_fr(&s[i]);
		else
			pick_fr(&s[i]);
	}
}

/* The grid against the C layer's MSM at sizes up to max_n, with the
 * shim's window and, with forced, forced ones (up to 512 points). */
template <class G> static void test_msm_sizes(size_t max_n, bool forced)
{
	std::vector<typename G::affine> pts = point_pool<G>(2048);
	const size_t sizes[] = { 0, 1, 2, 3, 17, 64, 200, 512, 2048 };
	const enum scalar_kind kinds[] = { RANDOM, WITNESS, MIXED };
	for (unsigned r = 0; r < sizeof(sizes) / sizeof(sizes[0]); r++) {
		size_t n = sizes[r];
		if (n > max_n)
			continue;
		for (enum scalar_kind kind : kinds) {
			std::vector<zkp_fr> sc(n + 1);
			fill_scalars(sc.data(), n, kind);
			typename G::jac ref;
			G::msm(&ref, pts.data(), sc.data(), NULL, n);
			const unsigned windows[] = { msm_window(n), 4, 5, 11 };
			for (unsigned c : windows) {
				if ((n > 512 || !forced) && c != msm_window(n))
					continue;
				typename G::jac got;
				grid_msm<G>(&got, pts.data(), sc.data(), n, c);
				check(G::eq(&got, &ref), "grid msm", n * 4 + kind);
				/* the windows in passes of 1 and 3 */
				for (unsigned kb : { 1u, 3u }) {
					if (!forced || n > 512 || c != msm_window(n))
						continue;
					grid_msm<G>(&got, pts.data(), sc.data(), n, c, 0, kb);
					check(G::eq(&got, &ref), "grid msm in passes",
					      (n * 4 + kind) * 8 + kb);
				}
			}
		}
	}
}

static void test_msm(void)
{
	test_bucket_after();
	test_msm_sizes<tg1>(2048, true);
	/* The ones' partial count and ranges. */
	check(msm_chunk((size_t)1 << 26, 13) == MSM_CHUNK_MAX && msm_chunk(100, 32) == MSM_CHUNK_MIN &&
		      msm_chunk((size_t)1 << 20, 19) == 32 && msm_chunk((size_t)1 << 22, 16) == 32 &&
		      msm_chunk((size_t)1 << 24, 14) == 128,
	      "chunk table", 0);
	/* Window passes: one pass while the windows fit MSM_PASS_BYTES, then
	 * the fewest passes that do (2^27 random G1 scalars: 4 of 4 windows). */
	{
		const size_t g1 = sizeof(ec_xyzz<dfp>), g2 = sizeof(ec_xyzz<dfp2>);
		const size_t n27 = (size_t)1 << 27, n26 = (size_t)1 << 26;
		check(msm_pass_windows(n27, 20, g1) == 4 && msm_pass_windows(n26, 20, g1) == 7 &&
			      msm_pass_windows(n26 / 2, 19, g1) == msm_windows(19) &&
			      msm_pass_windows(1000, 8, g2) == msm_windows(8),
		      "pass table", msm_pass_windows(n27, 20, g1));
		check(msm_pass_bytes(n27, 20, 4, g1) <= MSM_PASS_BYTES &&
			      msm_pass_bytes(n27, 20, 5, g1) > MSM_PASS_BYTES &&
			      msm_pass_bytes(n27, 20, 13, g1) > (size_t)11 << 30,
		      "pass bytes", 0);
		/* Far past 2^31 entries a window alone exceeds the budget: 1. */
		check(msm_pass_windows((size_t)1 << 31, 20, g2) == 1, "pass of one window", 0);
	}
	check(msm_ones_threads(1) == 1 && msm_ones_threads(224) == 1 &&
		      msm_ones_threads(256) == 2 && msm_ones_threads((size_t)1 << 26) ==
							   MSM_ONES_MAX_THREADS,
	      "ones threads", 0);
	/* Classification of edge values. */
	{
		uint64_t z[4] = { 0, 0, 0, 0 }, o[4] = { 1, 0, 0, 0 }, t[4] = { 2, 0, 0, 0 },
			 h[4] = { 1, 0, 0, 1 };
		check(msm_scalar_class(z) == MSM_ZERO && msm_scalar_class(o) == MSM_ONE &&
			      msm_scalar_class(t) == MSM_OTHER && msm_scalar_class(h) == MSM_OTHER,
		      "scalar class", 0);
	}
}

static void test_msm_g2(void)
{
	test_msm_sizes<tg2>(512, false);
}

enum skew_kind { ALL_EQUAL, FEW_VALUES, SMALL_INTS, HOT_AND_UNIFORM };

/* Scalars a client can choose to pile on few buckets: one value for all;
 * four values (2, r - 1, a random one, r - 2) repeated at random; the small
 * integers 2..17; a tenth uniform and the rest one value, with 0 and 1
 * sprinkled in. */
static void fill_skewed(zkp_fr *s, size_t n, enum skew_kind kind)
{
	zkp_fr hot, minus1, minus2, two;
	tu_rand_fr(&hot);
	zkp_fr_set_one(&minus1);
	zkp_fr_neg(&minus1, &minus1);
	zkp_fr_set_one(&two);
	zkp_fr_add(&two, &two, &two);
	zkp_fr_sub(&minus2, &minus1, &ZKP_FR_ONE);
	for (size_t i = 0; i < n; i++) {
		unsigned r = (unsigned)(tu_rand64() % 100);
		switch (kind) {
		case ALL_EQUAL: s[i] = hot; break;
		case FEW_VALUES: {
			const zkp_fr *v[4] = { &two, &minus1, &hot, &minus2 };
			s[i] = *v[r % 4];
			break;
		}
		case SMALL_INTS: {
			uint64_t l[4] = { 2 + r % 16, 0, 0, 0 };
			zkp_fr_from_limbs(&s[i], l);
			break;
		}
		case HOT_AND_UNIFORM:
			if (r < 10)
				tu_rand_fr(&s[i]);
			else if (r < 15)
				zkp_fr_set_zero(&s[i]);
			else if (r < 20)
				zkp_fr_set_one(&s[i]);
			else
				s[i] = hot;
			break;
		}
	}
}

/* Skewed scalars through the chunked accumulation, with the device's chunk
 * and with small chunks (1, 3, 7) that make every bucket span many chunks
 * and the segmented scan run many steps; the window from the count of
 * scalars other than 0 and 1, as the shim picks it (msm_is_other, the body
 * of k_count_other). */
template <class G>
static void test_msm_skew(const std::vector<size_t> &sizes, const std::vector<unsigned> &chunks)
{
	std::vector<typename G::affine> pts = point_pool<G>(2048);
	const enum skew_kind kinds[] = { ALL_EQUAL, FEW_VALUES, SMALL_INTS, HOT_AND_UNIFORM };
	unsigned long it = 0;
	for (size_t n : sizes) {
		for (enum skew_kind kind : kinds) {
			std::vector<zkp_fr> sc(n + 1);
			fill_skewed(sc.data(), n, kind);
			size_t other = 0, want = 0;
			for (size_t i = 0; i < n; i++) {
				other += msm_is_other((const dfr *)sc.data(), i);
				want += !(zkp_fr_is_zero(&sc[i]) || zkp_fr_is_one(&sc[i]));
			}
			check(other == want, "count of other scalars", it);
			typename G::jac ref;
			G::msm(&ref, pts.data(), sc.data(), NULL, n);
			for (unsigned ch : chunks) {
				/* Chunks of 1 and 3 make every bucket span many
				 * chunks already at 700 points; at 2048 their scans
				 * only cost time. */
				if (ch && ch < 7 && n > 1024)
					continue;
				typename G::jac got;
				grid_msm<G>(&got, pts.data(), sc.data(), n, msm_window(other), ch);
				check(G::eq(&got, &ref), "skewed msm", it * 4 + ch);
			}
			it++;
		}
	}
}

template <class G> static void test_density(const std::vector<size_t> &sizes)
{
	std::vector<typename G::affine> pts = point_pool<G>(2048);
	const int pcts[] = { 0, 3, 50, 100 };
	unsigned long it = 0;
	for (size_t n : sizes) {
		for (int pct : pcts) {
			enum scalar_kind kind = (enum scalar_kind)(it % 3);
			std::vector<zkp_fr> sc(n), got(n + 1);
			fill_scalars(sc.data(), n, kind);
			size_t nwords = (n + 63) / 64;
			std::vector<uint64_t> dens(nwords, 0);
			std::vector<zkp_fr> want;
			for (size_t i = 0; i < n; i++)
				if ((int)(tu_rand64() % 100) < pct) {
					dens[i / 64] |= UINT64_C(1) << (i % 64);
					want.push_back(sc[i]);
				}
			/* bits past n must be ignored */
			if (n % 64)
				dens[nwords - 1] |= ~UINT64_C(0) << (n % 64);
			size_t m = grid_compact(got.data(), sc.data(), dens.data(), n);
			check(m == want.size() &&
				      (m == 0 ||
				       memcmp(got.data(), want.data(), m * sizeof(zkp_fr)) == 0),
			      "density compaction", it);
			typename G::jac ref, res;
			G::msm(&ref, pts.data(), sc.data(), dens.data(), n);
			grid_msm<G>(&res, pts.data(), got.data(), m, msm_window(m));
			check(G::eq(&res, &ref), "density msm", it);
			it++;
		}
	}
}

static void test_skew_g1(void)
{
	test_msm_skew<tg1>({ 1, 33, 700, 2048 }, { 0, 1, 3, 7 });
}

static void test_density_g1(void)
{
	test_density<tg1>({ 1, 63, 64, 65, 200, 1000, 2048 });
}

/* G2: the same kernel bodies over Fp2, at fewer sizes and chunks (a G2
 * addition costs about three G1 ones, and the flow is G1's). */
static void test_skew_g2(void)
{
	test_msm_skew<tg2>({ 33, 300 }, { 0, 3 });
}

static void test_density_g2(void)
{
	test_density<tg2>({ 1, 65, 1000 });
}

/* ---- NTT ---- */

struct plan_args {
	unsigned max_g, tile_log, run_log, threads;
};

static const plan_args device_plan = { NTT_MAX_GROUP, NTT_TILE_LOG, NTT_RUN_LOG,
				       NTT_GROUP_THREADS };

/* The plan covers the stages once, in order, within the limits, and every
 * group's tiles cover the array once. */
static bool plan_ok(const ntt_group *gr, unsigned count, unsigned log_n, bool dif,
		    const plan_args *a)
{
	unsigned next = 0;
	for (unsigned i = 0; i < count; i++) {
		const ntt_group *g = &gr[dif ? count - 1 - i : i];
		if (g->lo != next || g->g < 1 || g->g > a->max_g || g->g > g->tile ||
		    g->tile > log_n || g->threads < 1 || g->threads > a->threads ||
		    g->threads > (1u << (g->tile - 1)) || g->dif != dif)
			return false;
		if (g->lo > 0 && g->tile >= g->g + a->run_log && g->tile - g->g < a->run_log)
			return false;
		next += g->g;
		std::vector<uint8_t> seen(g->n, 0);
		size_t tile = (size_t)1 << g->tile;
		for (size_t b = 0; b < ntt_group_blocks(g); b++) {
			for (unsigned e = 0; e < tile; e++) {
				unsigned lg, t;
				ntt_group_unslot(g, e, &lg, &t);
				if (ntt_group_slot(g, lg, t) != e)
					return false;
				size_t pos = ntt_group_pos(g, b, lg, t);
				if (pos >= g->n || seen[pos]++)
					return false;
			}
		}
	}
	return next == log_n;
}

/* transform() of cuda/ntt.cu: k_group per planned group, the scalings
 * fused into the first group's load and the last group's store. */
static void grid_transform(dfr *x, const zkp_ntt_domain *d, bool dif, bool inverse,
			   const plan_args *a, const ntt_scale *pre, const ntt_scale *post)
{
	ntt_group groups[32];
	unsigned count = ntt_plan(groups, d->log_n, dif, a->max_g, a->tile_log, a->run_log,
				  a->threads);
	check(plan_ok(groups, count, d->log_n, dif, a), "ntt plan", d->log_n);
	groups[0].pre = *pre;
	groups[count - 1].post = *post;
	const dfr *tw = (const dfr *)d->tw;
	std::vector<ntt_half> sh((size_t)2 << NTT_TILE_LOG), shtw((size_t)1 << NTT_TILE_LOG);
	for (unsigned i = 0; i < count; i++) {
		const ntt_group *g = &groups[i];
		for (size_t b = 0; b < ntt_group_blocks(g); b++) {
			for (unsigned th = 0; th < g->threads; th++)
				ntt_group_load(sh.data(), x, g, b, th);
			for (unsigned s = 0; s < g->g; s++) {
				/* stale entries from the last stage must not be read */
				memset(shtw.data(), 0xff, shtw.size() * sizeof(ntt_half));
				check(ntt_group_twiddle_count(g, s) <= (size_t)1 << (g->tile - 1),
				      "ntt twiddle cache size", s);
				for (unsigned th = 0; th < g->threads; th++)
					ntt_group_twiddles(shtw.data(), tw, g, b, th, s, inverse);
				for (unsigned th = 0; th < g->threads; th++)
					ntt_group_stage(sh.data(), shtw.data(), g, b, th, s,
							inverse);
			}
			for (unsigned th = 0; th < g->threads; th++)
				ntt_group_store(x, sh.data(), g, b, th);
		}
	}
}

static void host_permute(dfr *x, const zkp_ntt_domain *d)
{
	for (size_t i = 0; i < d->n; i++) {
		size_t j = ntt_bitrev(i, d->log_n);
		if (i < j) {
			dfr t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
	}
}

/* The sequence of cuda/ntt.cu's ntt_run. */
static void grid_ntt(dfr *x, const zkp_ntt_domain *d, const zkp_ntt_opts *o,
		     const plan_args *a)
{
	bool in_rev = o->in_order == ZKP_NTT_BITREV, out_rev = o->out_order == ZKP_NTT_BITREV;
	ntt_scale pre, post;
	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	if (!o->inverse && o->coset) {
		pre.on = true;
		pre.lo = (const dfr *)d->cs_lo;
		pre.hi = (const dfr *)d->cs_hi;
		pre.split = d->split;
		pre.bitrev = ntt_pre_bitrev(in_rev, out_rev);
	}
	if (o->inverse) {
		post.on = true;
		post.bitrev = ntt_post_bitrev(in_rev, out_rev);
		if (o->coset) {
			post.lo = (const dfr *)d->ci_lo;
			post.hi = (const dfr *)d->ci_hi;
			post.split = d->split;
		} else {
			memcpy(&post.uniform, &d->n_inv, sizeof(post.uniform));
		}
	}
	if (!in_rev && out_rev) {
		grid_transform(x, d, true, o->inverse, a, &pre, &post);
	} else if (in_rev && !out_rev) {
		grid_transform(x, d, false, o->inverse, a, &pre, &post);
	} else if (!in_rev) {
		grid_transform(x, d, true, o->inverse, a, &pre, &post);
		host_permute(x, d);
	} else {
		host_permute(x, d);
		grid_transform(x, d, true, o->inverse, a, &pre, &post);
	}
}

static void test_ntt(void)
{
	for (unsigned log_n = 1; log_n <= 14; log_n++) {
		zkp_ntt_domain d;
		std::vector<zkp_fr> mem(zkp_ntt_domain_mem_size(log_n) / sizeof(zkp_fr));
		enum zkp_ntt_roots roots = log_n % 2 ? ZKP_NTT_ROOTS_BELLMAN : ZKP_NTT_ROOTS_SNARKJS;
		zkp_fr shift;
		tu_rand_fr(&shift);
		check(zkp_ntt_domain_init(&d, log_n, roots, log_n % 3 ? NULL : &shift, mem.data(),
					  NULL) == 0,
		      "ntt domain", log_n);
		/* 16 option sets with the device's plan, then 8 more with
		 * random plans (log_n <= 12: each tile size and group shape). */
		unsigned rounds = log_n <= 12 ? 24 : 16;
		for (unsigned o = 0; o < rounds; o++) {
			unsigned bits = o < 16 ? o : (unsigned)(tu_rand64() % 16);
			zkp_ntt_opts opts = { (bits & 1) != 0, (bits & 2) != 0,
					      bits & 4 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL,
					      bits & 8 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL };
			plan_args a = device_plan;
			if (o >= 16) {
				a.max_g = 1 + (unsigned)(tu_rand64() % NTT_MAX_GROUP);
				a.tile_log = a.max_g + (unsigned)(tu_rand64() %
								  (NTT_TILE_LOG - a.max_g + 1));
				a.run_log = (unsigned)(tu_rand64() % 4);
				a.threads = 1u << (tu_rand64() % 9);
			}
			std::vector<zkp_fr> ref(d.n);
			std::vector<dfr> got(d.n);
			for (size_t i = 0; i < d.n; i++)
				pick_fr(&ref[i]);
			memcpy(got.data(), ref.data(), d.n * sizeof(zkp_fr));
			zkp_ntt(ref.data(), &d, &opts, NULL);
			grid_ntt(got.data(), &d, &opts, &a);
			check(memcmp(got.data(), ref.data(), d.n * sizeof(zkp_fr)) == 0, "ntt",
			      log_n * 100 + o);
		}
	}
	/* The pointwise H step, with and without its scale. */
	for (unsigned long i = 0; i < 1000; i++) {
		zkp_fr a, b, c, z, r, u;
		pick_fr(&a);
		pick_fr(&b);
		pick_fr(&c);
		pick_fr(&z);
		zkp_fr_mul(&u, &a, &b);
		zkp_fr_sub(&u, &u, &c);
		zkp_fr_mul(&r, &u, &z);
		zkp_fr p, q;
		zkp_fr_mul(&p, &a, &b);
		zkp_fr_mul(&q, &p, &z);
		dfr dr, du, dp, dq;
		ntt_h_point(&dr, (const dfr *)&a, (const dfr *)&b, (const dfr *)&c, (const dfr *)&z);
		ntt_h_point(&du, (const dfr *)&a, (const dfr *)&b, (const dfr *)&c, NULL);
		ntt_h_point(&dp, (const dfr *)&a, (const dfr *)&b, NULL, NULL);
		ntt_h_point(&dq, (const dfr *)&a, (const dfr *)&b, NULL, (const dfr *)&z);
		check(same(&dr, &r) && same(&du, &u) && same(&dp, &p) && same(&dq, &q),
		      "h pointwise", i);
	}
	/* H's last step, every thread of k_bitrev_sub in index order (the
	 * pairs are disjoint, so any order gives the same), against the C
	 * layer's zkp_ntt_bitrev_sub. */
	for (unsigned log_n = 0; log_n <= 13; log_n++) {
		size_t n = (size_t)1 << log_n;
		std::vector<zkp_fr> x(n), y(n), ref(n);
		zkp_fr z;
		pick_fr(&z);
		for (int scaled = 0; scaled < 2; scaled++) {
			for (size_t i = 0; i < n; i++) {
				pick_fr(&x[i]);
				pick_fr(&y[i]);
			}
			ref = x;
			zkp_ntt_bitrev_sub(ref.data(), y.data(), scaled ? &z : NULL, log_n, NULL);
			for (size_t i = 0; i < n; i++)
				ntt_bitrev_sub((dfr *)x.data(), (const dfr *)y.data(),
					       scaled ? (const dfr *)&z : NULL, i, log_n);
			check(memcmp(x.data(), ref.data(), n * sizeof(zkp_fr)) == 0,
			      "ntt bitrev sub", log_n * 2 + (unsigned)scaled);
		}
	}
}

/* ---- shared-memory bank conflicts of the NTT ----
 *
 * The model of the hardware: a warp's 128-bit shared access is served a
 * quarter warp (8 lanes) at a time, and a quarter warp's distinct 16-byte
 * units go out in as many 128-byte wavefronts as the most of them that
 * share a 16-byte column (unit mod 8); the ideal is one. Every access of
 * k_group is counted for the device plan at 2^1..2^27, both directions:
 * the load, the twiddle copy, each stage's two operands and twiddle, the
 * store. The addresses do not depend on the block, so block 0 stands for
 * all; a twiddle is counted for every lane, also those whose index is 0
 * and read none (a subset of distinct columns stays distinct). */
typedef unsigned (*unit_fn)(unsigned e, unsigned k);

static unsigned plain_unit(unsigned e, unsigned k)
{
	return 2 * e + k;
}

struct bank_count {
	unsigned long wavefronts, ideal;
};

/* Lane l < lanes of a warp touches both halves of element el[l]. */
static void warp_access(bank_count *bc, const size_t *el, unsigned lanes, unit_fn unit)
{
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned q = 0; q < lanes; q += 8) {
			size_t units[8];
			unsigned m = 0, per_col[8] = { 0 }, most = 0;
			for (unsigned l = q; l < lanes && l < q + 8; l++) {
				size_t u = unit(el[l], k);
				bool dup = false;
				for (unsigned i = 0; i < m; i++)
					dup |= units[i] == u;
				if (!dup)
					units[m++] = u;
			}
			for (unsigned i = 0; i < m; i++) {
				unsigned c = ++per_col[units[i] & 7];
				most = c > most ? c : most;
			}
			bc->wavefronts += most;
			bc->ideal++;
		}
	}
}

enum { BK_LOAD, BK_TWCOPY, BK_A, BK_C, BK_TW, BK_STORE, BK_KINDS };

/* Element of access kind `kind` by butterfly or slot u of stage s. */
static size_t bank_element(const ntt_group *g, unsigned s, size_t u, int kind)
{
	if (kind == BK_A || kind == BK_C || kind == BK_TW) {
		ntt_bfly_at at = ntt_group_bfly_at(g, 0, s, u);
		return kind == BK_A ? at.a : kind == BK_C ? at.c : at.w;
	}
	return u;
}

static void group_banks(bank_count *bc, const ntt_group *g, unit_fn unit)
{
	size_t tile = (size_t)1 << g->tile, half = tile >> 1;
	for (int kind = 0; kind < BK_KINDS; kind++) {
		bool per_stage = kind == BK_TWCOPY || kind == BK_A || kind == BK_C || kind == BK_TW;
		for (unsigned s = 0; s < (per_stage ? g->g : 1); s++) {
			size_t count = kind == BK_TWCOPY ? ntt_group_twiddle_count(g, s)
				       : per_stage	  ? half
							  : tile;
			for (size_t it = 0; it < count; it += g->threads) {
				for (unsigned w = 0; w < g->threads; w += 32) {
					size_t el[32];
					unsigned lanes = 0;
					for (unsigned l = w; l < w + 32 && l < g->threads &&
							     it + l < count;
					     l++)
						el[lanes++] = bank_element(g, s, it + l, kind);
					if (lanes)
						warp_access(&bc[kind], el, lanes, unit);
				}
			}
		}
	}
}

static void test_ntt_banks(void)
{
	static const char *kinds[BK_KINDS] = { "load", "twiddle copy", "operand a",
					       "operand c", "twiddle", "store" };
	/* The layout is a permutation of the tile's units. */
	std::vector<uint8_t> seen((size_t)2 << NTT_TILE_LOG, 0);
	for (size_t e = 0; e < ((size_t)1 << NTT_TILE_LOG); e++)
		for (unsigned k = 0; k < 2; k++) {
			size_t u = ntt_sh_unit(e, k);
			check(u < seen.size() && !seen[u]++, "ntt shared unit", e);
			/* ntt_sh_get and ntt_sh_put take the high half there */
			check(ntt_sh_unit(e, 1) == (ntt_sh_unit(e, 0) ^ 1), "ntt high half unit", e);
		}
	bank_count swz[BK_KINDS] = {}, plain[BK_KINDS] = {};
	for (unsigned log_n = 1; log_n <= 27; log_n++) {
		for (int dif = 0; dif < 2; dif++) {
			ntt_group groups[32];
			unsigned count = ntt_plan(groups, log_n, dif, NTT_MAX_GROUP, NTT_TILE_LOG,
						  NTT_RUN_LOG, NTT_GROUP_THREADS);
			for (unsigned i = 0; i < count; i++) {
				group_banks(swz, &groups[i], ntt_sh_unit);
				group_banks(plain, &groups[i], plain_unit);
			}
		}
	}
	unsigned long sw = 0, pw = 0, id = 0;
	for (int k = 0; k < BK_KINDS; k++) {
		check(swz[k].wavefronts == swz[k].ideal, kinds[k], (unsigned long)k);
		sw += swz[k].wavefronts;
		pw += plain[k].wavefronts;
		id += swz[k].ideal;
	}
	/* The model sees the conflicts of the plain layout. */
	check(pw > id + id / 2, "ntt banks: plain layout conflicts", pw);
	printf("banks   ntt shared wavefronts over ideal: %.2f laid out, %.2f plain (%lu quarter-warp accesses)\n",
	       (double)sw / (double)id, (double)pw / (double)id, id);
}

int main(void)
{
	tu_seed();
	struct {
		const char *name;
		void (*fn)(void);
	} parts[] = {
		{ "fp", test_fp }, { "fp-sqr", test_fp_sqr_edges }, { "fp-sum", test_fp_mul_sum },
		{ "fp-kara", test_fp_karatsuba },
		{ "fr", test_fr },
		{ "fp2", test_fp2 }, { "inv", test_inv }, { "ec", test_ec_g1 }, { "ec-g2", test_ec_g2 },
		{ "fixbase", test_fixed_base_both }, { "setup", test_setup_device_path },
		{ "spmv", test_spmv }, { "unpack", test_unpack },
		{ "digits", test_digits }, { "scan", test_scan }, { "msm", test_msm },
		{ "skew", test_skew_g1 }, { "density", test_density_g1 }, { "msm-g2", test_msm_g2 },
		{ "skew-g2", test_skew_g2 }, { "dens-g2", test_density_g2 }, { "ntt", test_ntt },
		{ "banks", test_ntt_banks },
	};
	for (auto &p : parts) {
		unsigned long c0 = checks, f0 = failures;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		p.fn();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%-7s %lu checks, %lu failures (%.1f s)\n", p.name, checks - c0, failures - f0,
		       (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
	}
	printf("total   %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
