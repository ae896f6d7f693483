/*
 * MSM against the naive sum of scalar multiplications (zkp_g?_mul_fr), on
 * random sizes, both accumulation forms, forced windows across the range,
 * with and without threads, and the edge cases of the contract: n = 0 and 1,
 * zero scalars, 1, r - 1, repeated points, P and -P together, infinity
 * bases, heavy buckets. The split and density forms are checked against the
 * plain MSM on the same inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/msm.h"
#include "zkpd/pool.h"

/* A result of either group, aligned for both. */
typedef union {
	zkp_g1 g1;
	zkp_g2 g2;
} any_pt;

static zkp_pool *pool3; /* 2 workers + the caller */
static zkp_pool *pool8; /* 7 workers + the caller: more threads than cores */

static void fr_minus_one(zkp_fr *r)
{
	zkp_fr one;
	zkp_fr_set_one(&one);
	zkp_fr_neg(r, &one);
}

/* One group behind function pointers, so every test runs on G1 and G2. */
struct grp {
	const char *name;
	size_t aff, pt;
	void (*gen)(void *bases, size_t n);
	void (*naive)(void *ret, const void *bases, const zkp_fr *s, size_t n);
	void (*msm)(void *ret, const void *bases, const zkp_fr *s, size_t n,
		    const zkp_msm_opts *o, void *scratch, size_t size, zkp_pool *pool);
	void (*density)(void *ret, const void *bases, const zkp_fr *s, const uint64_t *d,
			size_t n, const zkp_msm_opts *o, void *scratch, size_t size,
			zkp_pool *pool);
	size_t (*scratch)(size_t n, unsigned threads, const zkp_msm_opts *o);
	bool (*eq)(const void *a, const void *b);
	bool (*is_inf)(const void *a);
	void (*neg_aff)(void *ret, const void *a);
	void (*shape)(zkp_msm_shape *ret, size_t m, unsigned threads, const zkp_msm_opts *o);
};

/* Random bases: a walk P_i = P_{i-1} + R_k over 8 random multiples R_k of
 * the generator, so n bases cost n additions and one batch conversion. */
#define DEFINE_GROUP(G, GEN)                                                          \
	static void G##_gen(void *out, size_t n)                                      \
	{                                                                             \
		zkp_##G##_affine *a = out;                                            \
		zkp_##G steps[8], acc, g;                                             \
		zkp_##G *jac = malloc((n + 1) * sizeof(*jac));                        \
		void *scr = malloc((n + 1) * sizeof(zkp_fp2));                        \
		assert_non_null(jac);                                                 \
		assert_non_null(scr);                                                 \
		zkp_##G##_from_affine(&g, &GEN);                                      \
		zkp_fr k;                                                             \
		for (int j = 0; j < 8; j++) {                                         \
			tu_rand_fr(&k);                                                  \
			zkp_##G##_mul_fr(&steps[j], &g, &k);                          \
		}                                                                     \
		tu_rand_fr(&k);                                                          \
		zkp_##G##_mul_fr(&acc, &g, &k);                                       \
		for (size_t i = 0; i < n; i++) {                                      \
			zkp_##G##_add(&acc, &acc, &steps[tu_rand64() % 8]);            \
			jac[i] = acc;                                                 \
		}                                                                     \
		zkp_##G##s_to_affine(a, jac, n, scr);                                 \
		free(jac);                                                            \
		free(scr);                                                            \
	}                                                                             \
	static void G##_naive(void *ret, const void *bases, const zkp_fr *s, size_t n) \
	{                                                                             \
		const zkp_##G##_affine *b = bases;                                    \
		zkp_##G acc, p;                                                       \
		zkp_##G##_set_infinity(&acc);                                         \
		for (size_t i = 0; i < n; i++) {                                      \
			zkp_##G##_from_affine(&p, &b[i]);                             \
			zkp_##G##_mul_fr(&p, &p, &s[i]);                              \
			zkp_##G##_add(&acc, &acc, &p);                                \
		}                                                                     \
		*(zkp_##G *)ret = acc;                                                \
	}                                                                             \
	static void G##_msm(void *ret, const void *bases, const zkp_fr *s, size_t n,   \
			    const zkp_msm_opts *o, void *scratch, size_t size,        \
			    zkp_pool *pool)                                           \
	{                                                                             \
		zkp_msm_##G(ret, bases, s, n, o, scratch, size, pool);                \
	}                                                                             \
	static void G##_density(void *ret, const void *bases, const zkp_fr *s,        \
				const uint64_t *d, size_t n, const zkp_msm_opts *o,   \
				void *scratch, size_t size, zkp_pool *pool)           \
	{                                                                             \
		zkp_msm_##G##_density(ret, bases, s, d, n, o, scratch, size, pool);   \
	}                                                                             \
	static bool G##_eq(const void *a, const void *b) { return zkp_##G##_eq(a, b); } \
	static bool G##_is_inf(const void *a) { return zkp_##G##_is_infinity(a); }    \
	static void G##_neg_aff(void *ret, const void *a) { zkp_##G##_affine_neg(ret, a); } \
	static const struct grp G##_grp = {                                           \
		#G, sizeof(zkp_##G##_affine), sizeof(zkp_##G), G##_gen, G##_naive,    \
		G##_msm, G##_density, zkp_msm_##G##_scratch_size, G##_eq, G##_is_inf, \
		G##_neg_aff, zkp_msm_##G##_shape,                                     \
	}

DEFINE_GROUP(g1, ZKP_G1_GENERATOR);
DEFINE_GROUP(g2, ZKP_G2_GENERATOR);

static const char *accum_name(enum zkp_msm_accum a)
{
	return a == ZKP_MSM_AFFINE ? "affine" : a == ZKP_MSM_XYZZ ? "xyzz" : "auto";
}

/* Runs the MSM with a freshly sized workspace and compares with want. */
static void check(const struct grp *g, const void *want, const void *bases,
		  const zkp_fr *s, size_t n, const zkp_msm_opts *o, zkp_pool *pool)
{
	size_t size = g->scratch(n, zkp_pool_threads(pool), o);
	void *scratch = size ? aligned_alloc(64, (size + 63) & ~(size_t)63) : NULL;
	assert_true(size == 0 || scratch);
	any_pt got;
	g->msm(&got, bases, s, n, o, scratch, size, pool);
	if (!g->eq(&got, want))
		fail_msg("%s n=%zu accum=%s window=%u split=%d threads=%u: wrong sum", g->name,
			 n, accum_name(o ? o->accum : ZKP_MSM_AUTO), o ? o->window : 0,
			 o ? o->split : 0, zkp_pool_threads(pool));
	free(scratch);
}

/* Every configuration worth covering at this size, against the reference. */
static void check_all(const struct grp *g, const void *want, const void *bases,
		      const zkp_fr *s, size_t n)
{
	zkp_msm_opts o = { ZKP_MSM_AUTO, 0, false, 0, NULL };
	check(g, want, bases, s, n, NULL, NULL);
	check(g, want, bases, s, n, &o, pool3);
	for (int a = ZKP_MSM_XYZZ; a <= ZKP_MSM_AFFINE; a++) {
		o.accum = (enum zkp_msm_accum)a;
		o.window = 0;
		check(g, want, bases, s, n, &o, NULL);
		check(g, want, bases, s, n, &o, pool8);
		/* a forced window near the table's (test_windows covers the
		 * whole range at a size where every width is affordable) */
		zkp_msm_shape sh;
		g->shape(&sh, n, 1, &o);
		int c = (int)sh.window - 3 + (int)(tu_rand64() % 6);
		o.window = c < 1 ? 1 : (unsigned)c;
		check(g, want, bases, s, n, &o, tu_rand64() & 1 ? pool3 : NULL);
		o.split = true;
		check(g, want, bases, s, n, &o, pool3);
		o.split = false;
	}
}

static void random_sizes(const struct grp *g, const size_t *sizes, size_t count)
{
	size_t nmax = 0;
	for (size_t k = 0; k < count; k++)
		nmax = sizes[k] > nmax ? sizes[k] : nmax;
	uint8_t *bases = malloc(nmax * g->aff);
	zkp_fr *s = malloc(nmax * sizeof(zkp_fr));
	assert_non_null(bases);
	assert_non_null(s);
	g->gen(bases, nmax);
	for (size_t k = 0; k < count; k++) {
		size_t n = sizes[k];
		for (size_t i = 0; i < n; i++)
			tu_rand_fr(&s[i]);
		/* a random window of the bases, so sizes do not share prefixes */
		size_t off = tu_rand64() % (nmax - n + 1);
		any_pt want;
		g->naive(&want, bases + off * g->aff, s, n);
		check_all(g, &want, bases + off * g->aff, s, n);
	}
	free(bases);
	free(s);
}

static void test_g1_random(void **state)
{
	(void)state;
	size_t sizes[12] = { 1, 2, 3, 7, 31, 64, 200 };
	for (int k = 7; k < 11; k++)
		sizes[k] = 1 + tu_rand64() % 5000;
	sizes[11] = 4000 + tu_rand64() % 1001;
	random_sizes(&g1_grp, sizes, 12);
}

static void test_g2_random(void **state)
{
	(void)state;
	size_t sizes[6] = { 1, 2, 5, 33 };
	sizes[4] = 1 + tu_rand64() % 300;
	sizes[5] = 200 + tu_rand64() % 200;
	random_sizes(&g2_grp, sizes, 6);
}

/* Every window width the tests can afford, both forms, at one size. */
static void windows(const struct grp *g, size_t n, unsigned cmax)
{
	uint8_t *bases = malloc(n * g->aff);
	zkp_fr *s = malloc(n * sizeof(zkp_fr));
	any_pt want;
	g->gen(bases, n);
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&s[i]);
	g->naive(&want, bases, s, n);
	for (unsigned c = 1; c <= cmax; c++) {
		for (int a = ZKP_MSM_XYZZ; a <= ZKP_MSM_AFFINE; a++) {
			zkp_msm_opts o = { (enum zkp_msm_accum)a, c, false, 0, NULL };
			check(g, &want, bases, s, n, &o, c & 1 ? pool3 : NULL);
		}
	}
	free(bases);
	free(s);
}

static void test_windows(void **state)
{
	(void)state;
	windows(&g1_grp, 700, 16);
	windows(&g2_grp, 60, 11);
}

/* Edge cases, each against the naive sum. */
static void edges(const struct grp *g)
{
	const size_t N = g == &g1_grp ? 600 : 150;
	uint8_t *bases = malloc(N * g->aff), *b2 = malloc(N * g->aff);
	any_pt want_pt, got_pt;
	void *want = &want_pt, *got = &got_pt;
	zkp_fr *s = malloc(N * sizeof(zkp_fr));
	zkp_fr one, m1, k;
	zkp_fr_set_one(&one);
	fr_minus_one(&m1);
	g->gen(bases, N);

	/* n = 0: infinity, no workspace needed */
	assert_int_equal(g->scratch(0, 3, NULL), 0);
	g->msm(got, NULL, NULL, 0, NULL, NULL, 0, pool3);
	assert_true(g->is_inf(got));

	/* n = 1 with 0, 1, r - 1 and a random scalar */
	const zkp_fr *singles[3] = { &one, &m1, &k };
	tu_rand_fr(&k);
	zkp_fr_set_zero(&s[0]);
	g->naive(want, bases, s, 1);
	assert_true(g->is_inf(want));
	check_all(g, want, bases, s, 1);
	for (int i = 0; i < 3; i++) {
		s[0] = *singles[i];
		g->naive(want, bases, s, 1);
		check_all(g, want, bases, s, 1);
	}

	/* all scalars zero; then all r - 1; then all one equal random value
	 * (every point lands in the same bucket of every window) */
	for (size_t i = 0; i < N; i++)
		zkp_fr_set_zero(&s[i]);
	g->naive(want, bases, s, N);
	check_all(g, want, bases, s, N);
	for (size_t i = 0; i < N; i++)
		s[i] = m1;
	g->naive(want, bases, s, N);
	check_all(g, want, bases, s, N);
	for (size_t i = 0; i < N; i++)
		s[i] = k;
	g->naive(want, bases, s, N);
	check_all(g, want, bases, s, N);

	/* one point repeated with equal scalars (doublings inside batches),
	 * then with random scalars */
	for (size_t i = 0; i < N; i++)
		memcpy(b2 + i * g->aff, bases, g->aff);
	for (size_t i = 0; i < N; i++)
		s[i] = k;
	g->naive(want, b2, s, N);
	check_all(g, want, b2, s, N);
	for (size_t i = 0; i < N; i++)
		tu_rand_fr(&s[i]);
	g->naive(want, b2, s, N);
	check_all(g, want, b2, s, N);

	/* one point and its negation alternating, all with one scalar: every
	 * point lands in one bucket per window and the sum is infinity */
	for (size_t i = 0; i < N; i++) {
		if (i & 1)
			g->neg_aff(b2 + i * g->aff, bases);
		else
			memcpy(b2 + i * g->aff, bases, g->aff);
		s[i] = k;
	}
	g->naive(want, b2, s, N);
	assert_true(g->is_inf(want));
	check_all(g, want, b2, s, N);

	/* P and -P with the same scalar (the sum is infinity), P with s and
	 * r - s, and a few points repeated with mixed scalars */
	for (size_t i = 0; i < N / 2; i++) {
		memcpy(b2 + 2 * i * g->aff, bases + i * g->aff, g->aff);
		g->neg_aff(b2 + (2 * i + 1) * g->aff, bases + i * g->aff);
		tu_rand_fr(&s[2 * i]);
		s[2 * i + 1] = s[2 * i];
	}
	g->naive(want, b2, s, N);
	assert_true(g->is_inf(want));
	check_all(g, want, b2, s, N);
	for (size_t i = 0; i < N / 2; i++) {
		memcpy(b2 + (2 * i + 1) * g->aff, bases + i * g->aff, g->aff);
		zkp_fr_neg(&s[2 * i + 1], &s[2 * i]);
	}
	g->naive(want, b2, s, N);
	assert_true(g->is_inf(want));
	check_all(g, want, b2, s, N);
	for (size_t i = 0; i < N; i++) {
		memcpy(b2 + i * g->aff, bases + (tu_rand64() % 5) * g->aff, g->aff);
		if (tu_rand64() & 1)
			g->neg_aff(b2 + i * g->aff, b2 + i * g->aff);
		switch (tu_rand64() % 4) {
		case 0: s[i] = one; break;
		case 1: s[i] = m1; break;
		case 2: s[i] = k; break;
		default: tu_rand_fr(&s[i]);
		}
	}
	g->naive(want, b2, s, N);
	check_all(g, want, b2, s, N);

	/* infinity bases among random ones, with random, zero and one scalars */
	memcpy(b2, bases, N * g->aff);
	for (size_t i = 0; i < N; i++) {
		if (tu_rand64() % 3 == 0)
			memset(b2 + i * g->aff, 0, g->aff);
		switch (tu_rand64() % 3) {
		case 0: zkp_fr_set_zero(&s[i]); break;
		case 1: s[i] = one; break;
		default: tu_rand_fr(&s[i]);
		}
	}
	g->naive(want, b2, s, N);
	check_all(g, want, b2, s, N);
	memset(b2, 0, N * g->aff);
	g->naive(want, b2, s, N);
	assert_true(g->is_inf(want));
	check_all(g, want, b2, s, N);

	free(bases);
	free(b2);
	free(s);
}

static void test_g1_edges(void **state)
{
	(void)state;
	edges(&g1_grp);
}

static void test_g2_edges(void **state)
{
	(void)state;
	edges(&g2_grp);
}

/* Witness-like scalars: mostly 0 and 1, some r - 1 and small values, the
 * rest random. */
static void witness_scalars(zkp_fr *s, size_t n, unsigned pct_zero, unsigned pct_one)
{
	for (size_t i = 0; i < n; i++) {
		unsigned r = (unsigned)(tu_rand64() % 100);
		if (r < pct_zero)
			zkp_fr_set_zero(&s[i]);
		else if (r < pct_zero + pct_one)
			zkp_fr_set_one(&s[i]);
		else if (r < pct_zero + pct_one + 3)
			fr_minus_one(&s[i]);
		else if (r < pct_zero + pct_one + 6)
			zkp_fr_set_u64(&s[i], tu_rand64() % 256);
		else
			tu_rand_fr(&s[i]);
	}
}

/* Split mode against the plain MSM (itself checked above). */
static void split(const struct grp *g, size_t n)
{
	uint8_t *bases = malloc(n * g->aff);
	zkp_fr *s = malloc(n * sizeof(zkp_fr));
	any_pt want_pt;
	void *want = &want_pt;
	g->gen(bases, n);
	const unsigned mixes[5][2] = { { 60, 25 }, { 0, 100 }, { 100, 0 }, { 10, 80 }, { 0, 0 } };
	for (int mi = 0; mi < 5; mi++) {
		witness_scalars(s, n, mixes[mi][0], mixes[mi][1]);
		zkp_msm_opts plain = { ZKP_MSM_AUTO, 0, false, 0, NULL };
		size_t size = g->scratch(n, 1, &plain);
		void *scratch = aligned_alloc(64, (size + 63) & ~(size_t)63);
		g->msm(want, bases, s, n, &plain, scratch, size, NULL);
		free(scratch);
		for (int a = ZKP_MSM_AUTO; a <= ZKP_MSM_AFFINE; a++) {
			zkp_msm_opts o = { (enum zkp_msm_accum)a, 0, true, 0, NULL };
			check(g, want, bases, s, n, &o, NULL);
			check(g, want, bases, s, n, &o, pool3);
			check(g, want, bases, s, n, &o, pool8);
		}
	}
	free(bases);
	free(s);
}

static void test_split(void **state)
{
	(void)state;
	split(&g1_grp, 1 + tu_rand64() % 8000);
	split(&g1_grp, 3);
	split(&g2_grp, 1 + tu_rand64() % 600);
}

/* Density form against the plain MSM over the selected scalars and the
 * compacted bases. */
static void density(const struct grp *g, size_t n, unsigned pct_set)
{
	size_t words = (n + 63) / 64;
	uint64_t *d = calloc(words ? words : 1, sizeof(uint64_t));
	uint8_t *bases = malloc((n ? n : 1) * g->aff);
	zkp_fr *s = malloc((n ? n : 1) * sizeof(zkp_fr)), *sel = malloc((n ? n : 1) * sizeof(zkp_fr));
	any_pt want_pt, got_pt;
	void *want = &want_pt, *got = &got_pt;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (tu_rand64() % 100 < pct_set)
			d[i / 64] |= 1ULL << (i % 64);
	}
	/* garbage above bit n - 1 must be ignored */
	if (n % 64)
		d[words - 1] |= ~0ULL << (n % 64);
	witness_scalars(s, n, 30, 30);
	for (size_t i = 0; i < n; i++)
		if (d[i / 64] >> (i % 64) & 1)
			sel[m++] = s[i];
	g->gen(bases, m ? m : 1);
	if (m > 3)
		memset(bases + 3 * g->aff, 0, g->aff); /* an infinity base */

	zkp_msm_opts plain = { ZKP_MSM_AUTO, 0, false, 0, NULL };
	size_t size = g->scratch(m, 1, &plain);
	void *scratch = size ? aligned_alloc(64, (size + 63) & ~(size_t)63) : NULL;
	g->msm(want, bases, sel, m, &plain, scratch, size, NULL);
	free(scratch);

	for (int split_mode = 0; split_mode < 2; split_mode++) {
		for (int a = ZKP_MSM_AUTO; a <= ZKP_MSM_AFFINE; a++) {
			zkp_msm_opts o = { (enum zkp_msm_accum)a, 0, split_mode, 0, NULL };
			zkp_pool *pools[3] = { NULL, pool3, pool8 };
			for (int p = 0; p < 3; p++) {
				size = g->scratch(n, zkp_pool_threads(pools[p]), &o);
				scratch = size ? aligned_alloc(64, (size + 63) & ~(size_t)63) : NULL;
				g->density(got, bases, s, d, n, &o, scratch, size, pools[p]);
				free(scratch);
				if (!g->eq(got, want))
					fail_msg("%s density n=%zu m=%zu split=%d accum=%s threads=%u",
						 g->name, n, m, split_mode,
						 accum_name(o.accum), zkp_pool_threads(pools[p]));
			}
		}
	}
	free(d);
	free(bases);
	free(s);
	free(sel);
}

static void test_density(void **state)
{
	(void)state;
	density(&g1_grp, 1 + tu_rand64() % 8000, 50);
	density(&g1_grp, 1 + tu_rand64() % 200, 90);
	density(&g1_grp, 130, 0);
	density(&g1_grp, 0, 50);
	density(&g2_grp, 1 + tu_rand64() % 600, 60);
}

/* The shapes the plan picks stay inside the limits, and the workspace
 * grows with n and with threads. */
static void test_shapes(void **state)
{
	(void)state;
	unsigned mixed = 0; /* plans with both whole and cut windows */
	for (unsigned lg = 0; lg < 30; lg++) {
		static const unsigned thread_counts[4] = { 1, 3, 8, 64 };
		for (int ti = 0; ti < 4; ti++) {
			unsigned threads = thread_counts[ti];
			zkp_msm_shape a, b;
			zkp_msm_g1_shape(&a, (size_t)1 << lg, threads, NULL);
			zkp_msm_g2_shape(&b, (size_t)1 << lg, threads, NULL);
			if (threads == 1)
				assert_true(a.cut == 0 && a.ranges == 1);
			assert_true(a.cut <= a.windows && (a.cut == 0) == (a.ranges == 1));
			mixed += lg <= 13 && (threads == 3 || threads == 8) && a.cut > 0 &&
				 a.cut < a.windows;
			assert_true(a.window >= 1 && a.window <= ZKP_MSM_MAX_WINDOW);
			assert_true(b.window >= 1 && b.window <= ZKP_MSM_MAX_WINDOW);
			assert_true(a.windows * a.window >= 255 && (a.windows - 1) * a.window < 255);
			assert_true(a.ranges >= 1 && b.ranges >= 1);
			assert_true(a.accum != ZKP_MSM_AUTO && b.accum != ZKP_MSM_AUTO);
		}
	}
	/* the sizes test_g1_random runs on 3 and 8 threads include such plans */
	assert_true(mixed > 0);
	zkp_msm_opts o = { ZKP_MSM_XYZZ, 7, false, 0, NULL };
	zkp_msm_shape sh;
	zkp_msm_g1_shape(&sh, 1000, 1, &o);
	assert_int_equal(sh.window, 7);
	assert_int_equal(sh.accum, ZKP_MSM_XYZZ);
	assert_true(zkp_msm_g1_scratch_size(1000, 1, NULL) <= zkp_msm_g1_scratch_size(2000, 1, NULL));
	assert_true(zkp_msm_g1_scratch_size(1000, 1, NULL) <= zkp_msm_g1_scratch_size(1000, 4, NULL));
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	if (zkp_pool_new(&pool3, 2) || zkp_pool_new(&pool8, 7))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zkp_pool_free(pool3);
	zkp_pool_free(pool8);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g1_random),
		cmocka_unit_test(test_g2_random),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_g1_edges),
		cmocka_unit_test(test_g2_edges),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_density),
		cmocka_unit_test(test_shapes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
