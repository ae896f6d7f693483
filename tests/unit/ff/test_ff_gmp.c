/*
 * Fp and Fr against GMP: every Fp and Fr operation of zkpd/ff.h on random
 * and edge inputs, both multiplication paths explicitly, the whole API once with the
 * portable path forced and once with the run-time choice, and the records of
 * the shared vector file.
 *
 * Each field is seen through a table of wrappers over one element type (a
 * union of zkp_fp and zkp_fr), so every check is written once. Expected
 * values are computed with mpz on canonical integers; a result is right when
 * its canonical limbs (to_limbs) equal the expected value and its Montgomery
 * limbs are below the modulus (fully reduced). A mismatch prints the inputs
 * in hex and the backend; the seed printed at start replays the run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"

#define MAXN ZKP_FP_LIMBS
#define MAXBYTES ZKP_FP_BYTES
#define NRAND 100000  /* random inputs per cheap operation */
#define NSLOW 2000    /* pow, inv, legendre, sqrt */
#define NCODEC 20000  /* encodings */
#define BATCH_MAX 40
#define MAXEDGE 32

typedef union {
	zkp_fp fp;
	zkp_fr fr;
} elem;

typedef void (*binop)(elem *, const elem *, const elem *);
typedef void (*unop)(elem *, const elem *);

struct field {
	const char *name;
	size_t n, bytes;
	const uint64_t *mod;
	const uint64_t *one; /* Montgomery limbs of 1 */
	mpz_t m, R, half;    /* modulus, 2^(64n) mod m, (m-1)/2 */

	void (*set_zero)(elem *);
	void (*set_one)(elem *);
	void (*set_u64)(elem *, uint64_t);
	bool (*is_zero)(const elem *);
	bool (*is_one)(const elem *);
	bool (*eq)(const elem *, const elem *);
	binop add, sub, mul, mul_portable, mul_mulx;
	unop neg, dbl, sqr, sqr_portable, sqr_mulx; /* sqr_* NULL for Fr */
	void (*pow)(elem *, const elem *, const uint64_t *, size_t);
	int (*inv)(elem *, const elem *);
	void (*batch_inv)(elem *, const elem *, size_t, bool in_place);
	int (*legendre)(const elem *);
	int (*sqrt)(elem *, const elem *);
	bool (*is_lexi_largest)(const elem *); /* NULL for Fr */
	int (*from_limbs)(elem *, const uint64_t *);
	void (*to_limbs)(uint64_t *, const elem *);
	int (*from_be)(elem *, const uint8_t *);
	int (*from_le)(elem *, const uint8_t *);
	void (*to_be)(uint8_t *, const elem *);
	void (*to_le)(uint8_t *, const elem *);
	void (*from_wide)(elem *, const uint64_t *);
};

/* Wrappers from the union to each field's own functions. */
#define FIELD_WRAPPERS(P)                                                   \
	static void P##_set_zero_w(elem *r) { zkp_##P##_set_zero(&r->P); }  \
	static void P##_set_one_w(elem *r) { zkp_##P##_set_one(&r->P); }    \
	static void P##_set_u64_w(elem *r, uint64_t v)                      \
	{                                                                   \
		zkp_##P##_set_u64(&r->P, v);                                \
	}                                                                   \
	static bool P##_is_zero_w(const elem *a)                            \
	{                                                                   \
		return zkp_##P##_is_zero(&a->P);                            \
	}                                                                   \
	static bool P##_is_one_w(const elem *a)                             \
	{                                                                   \
		return zkp_##P##_is_one(&a->P);                             \
	}                                                                   \
	static bool P##_eq_w(const elem *a, const elem *b)                  \
	{                                                                   \
		return zkp_##P##_eq(&a->P, &b->P);                          \
	}                                                                   \
	static void P##_add_w(elem *r, const elem *a, const elem *b)        \
	{                                                                   \
		zkp_##P##_add(&r->P, &a->P, &b->P);                         \
	}                                                                   \
	static void P##_sub_w(elem *r, const elem *a, const elem *b)        \
	{                                                                   \
		zkp_##P##_sub(&r->P, &a->P, &b->P);                         \
	}                                                                   \
	static void P##_mul_w(elem *r, const elem *a, const elem *b)        \
	{                                                                   \
		zkp_##P##_mul(&r->P, &a->P, &b->P);                         \
	}                                                                   \
	static void P##_mul_portable_w(elem *r, const elem *a, const elem *b) \
	{                                                                   \
		zkp_##P##_mul_portable(&r->P, &a->P, &b->P);                \
	}                                                                   \
	static void P##_mul_mulx_w(elem *r, const elem *a, const elem *b)   \
	{                                                                   \
		zkp_##P##_mul_mulx(&r->P, &a->P, &b->P);                    \
	}                                                                   \
	static void P##_neg_w(elem *r, const elem *a)                       \
	{                                                                   \
		zkp_##P##_neg(&r->P, &a->P);                                \
	}                                                                   \
	static void P##_dbl_w(elem *r, const elem *a)                       \
	{                                                                   \
		zkp_##P##_dbl(&r->P, &a->P);                                \
	}                                                                   \
	static void P##_sqr_w(elem *r, const elem *a)                       \
	{                                                                   \
		zkp_##P##_sqr(&r->P, &a->P);                                \
	}                                                                   \
	static void P##_pow_w(elem *r, const elem *a, const uint64_t *e,    \
			      size_t n)                                     \
	{                                                                   \
		zkp_##P##_pow(&r->P, &a->P, e, n);                          \
	}                                                                   \
	static int P##_inv_w(elem *r, const elem *a)                        \
	{                                                                   \
		return zkp_##P##_inv(&r->P, &a->P);                         \
	}                                                                   \
	static void P##_batch_inv_w(elem *r, const elem *a, size_t n,       \
				    bool in_place)                          \
	{                                                                   \
		zkp_##P in[BATCH_MAX], out[BATCH_MAX], scratch[BATCH_MAX];  \
		memset(in, 0, sizeof(in));                                  \
		for (size_t i = 0; i < n; i++)                              \
			in[i] = a[i].P;                                     \
		if (in_place) {                                             \
			zkp_##P##s_inv(in, in, n, scratch);                 \
			for (size_t i = 0; i < n; i++)                      \
				r[i].P = in[i];                             \
		} else {                                                    \
			zkp_##P##s_inv(out, in, n, scratch);                \
			for (size_t i = 0; i < n; i++)                      \
				r[i].P = out[i];                            \
		}                                                           \
	}                                                                   \
	static int P##_legendre_w(const elem *a)                            \
	{                                                                   \
		return zkp_##P##_legendre(&a->P);                           \
	}                                                                   \
	static int P##_sqrt_w(elem *r, const elem *a)                       \
	{                                                                   \
		return zkp_##P##_sqrt(&r->P, &a->P);                        \
	}                                                                   \
	static int P##_from_limbs_w(elem *r, const uint64_t *v)             \
	{                                                                   \
		return zkp_##P##_from_limbs(&r->P, v);                      \
	}                                                                   \
	static void P##_to_limbs_w(uint64_t *v, const elem *a)              \
	{                                                                   \
		zkp_##P##_to_limbs(v, &a->P);                               \
	}                                                                   \
	static int P##_from_be_w(elem *r, const uint8_t *in)                \
	{                                                                   \
		return zkp_##P##_from_be(&r->P, in);                        \
	}                                                                   \
	static int P##_from_le_w(elem *r, const uint8_t *in)                \
	{                                                                   \
		return zkp_##P##_from_le(&r->P, in);                        \
	}                                                                   \
	static void P##_to_be_w(uint8_t *out, const elem *a)                \
	{                                                                   \
		zkp_##P##_to_be(out, &a->P);                                \
	}                                                                   \
	static void P##_to_le_w(uint8_t *out, const elem *a)                \
	{                                                                   \
		zkp_##P##_to_le(out, &a->P);                                \
	}                                                                   \
	static void P##_from_wide_w(elem *r, const uint64_t *v)             \
	{                                                                   \
		zkp_##P##_from_wide(&r->P, v);                              \
	}

FIELD_WRAPPERS(fp)
FIELD_WRAPPERS(fr)

static void fp_sqr_portable_w(elem *r, const elem *a)
{
	zkp_fp_sqr_portable(&r->fp, &a->fp);
}

static void fp_sqr_mulx_w(elem *r, const elem *a)
{
	zkp_fp_sqr_mulx(&r->fp, &a->fp);
}

static bool fp_is_lexi_largest_w(const elem *a)
{
	return zkp_fp_is_lexi_largest(&a->fp);
}

#define FIELD_TABLE(P, NAME, N, BYTES, MOD, ONE)                            \
	.name = NAME, .n = N, .bytes = BYTES, .mod = MOD,           \
	.one = ONE.l, .set_zero = P##_set_zero_w,                   \
	.set_one = P##_set_one_w, .set_u64 = P##_set_u64_w,         \
	.is_zero = P##_is_zero_w, .is_one = P##_is_one_w,           \
	.eq = P##_eq_w, .add = P##_add_w, .sub = P##_sub_w,         \
	.mul = P##_mul_w, .mul_portable = P##_mul_portable_w,       \
	.mul_mulx = P##_mul_mulx_w, .neg = P##_neg_w,               \
	.dbl = P##_dbl_w, .sqr = P##_sqr_w, .pow = P##_pow_w,       \
	.inv = P##_inv_w, .batch_inv = P##_batch_inv_w,             \
	.legendre = P##_legendre_w, .sqrt = P##_sqrt_w,             \
	.from_limbs = P##_from_limbs_w, .to_limbs = P##_to_limbs_w, \
	.from_be = P##_from_be_w, .from_le = P##_from_le_w,         \
	.to_be = P##_to_be_w, .to_le = P##_to_le_w,                 \
	.from_wide = P##_from_wide_w

static struct field FP = {
	FIELD_TABLE(fp, "Fp", ZKP_FP_LIMBS, ZKP_FP_BYTES, ZKP_FP_MODULUS,
		    ZKP_FP_ONE),
	.sqr_portable = fp_sqr_portable_w,
	.sqr_mulx = fp_sqr_mulx_w,
	.is_lexi_largest = fp_is_lexi_largest_w,
};
/* Fr has no separate squaring (zkp_fr_sqr is zkp_fr_mul(a, a)) and no
 * lexicographic order in the API. */
static struct field FR = {
	FIELD_TABLE(fr, "Fr", ZKP_FR_LIMBS, ZKP_FR_BYTES, ZKP_FR_MODULUS,
		    ZKP_FR_ONE),
};
static struct field *const FIELDS[] = { &FP, &FR };
#define NFIELDS (sizeof(FIELDS) / sizeof(FIELDS[0]))

static bool have_mulx;

/* ---- helpers ---- */

static const uint64_t *raw(const elem *e)
{
	return (const uint64_t *)e;
}

static bool limbs_below(const uint64_t *a, const uint64_t *m, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		if (a[i] != m[i])
			return a[i] < m[i];
	}
	return false;
}

static void print_elem(const struct field *f, const char *label, const elem *e)
{
	uint64_t l[MAXN];
	f->to_limbs(l, e);
	fprintf(stderr, "  %-5s = 0x", label);
	for (size_t i = f->n; i-- > 0;)
		fprintf(stderr, "%016llx", (unsigned long long)l[i]);
	fprintf(stderr, " (Montgomery limbs 0x");
	for (size_t i = f->n; i-- > 0;)
		fprintf(stderr, "%016llx", (unsigned long long)raw(e)[i]);
	fprintf(stderr, ")\n");
}

/* Prints the failing operation with its inputs (either may be NULL) and
 * stops the test. */
static void report(const struct field *f, const char *op, const mpz_t a,
		   const mpz_t b, const mpz_t want, const elem *got)
{
	fprintf(stderr, "%s %s mismatch (backend %s)\n", f->name, op,
		zkp_ff_backend());
	if (a)
		gmp_fprintf(stderr, "  a     = 0x%Zx\n", a);
	if (b)
		gmp_fprintf(stderr, "  b     = 0x%Zx\n", b);
	if (want)
		gmp_fprintf(stderr, "  want  = 0x%Zx\n", want);
	if (got)
		print_elem(f, "got", got);
	fail_msg("%s %s mismatch", f->name, op);
}

/* got must equal want and be fully reduced. */
static void check(const struct field *f, const char *op, const elem *got,
		  const mpz_t want, const mpz_t a, const mpz_t b)
{
	uint64_t w[MAXN], g[MAXN];
	tu_limbs_from_mpz(w, f->n, want);
	f->to_limbs(g, got);
	if (memcmp(w, g, f->n * sizeof(uint64_t)) != 0 ||
	    !limbs_below(raw(got), f->mod, f->n))
		report(f, op, a, b, want, got);
}

static void elem_from_mpz(const struct field *f, elem *e, const mpz_t z)
{
	uint64_t l[MAXN];
	tu_limbs_from_mpz(l, f->n, z);
	assert_int_equal(f->from_limbs(e, l), 0);
}

static void mpz_from_elem(const struct field *f, mpz_t z, const elem *e)
{
	uint64_t l[MAXN];
	f->to_limbs(l, e);
	tu_mpz_from_limbs(z, l, f->n);
}

/* A random limb, now and then all zeros or all ones so that carries run
 * the full length of a chain. */
static uint64_t rand_limb(void)
{
	uint64_t r = tu_rand64();
	switch (tu_rand64() & 15) {
	case 0:
		return 0;
	case 1:
		return ~(uint64_t)0;
	default:
		return r;
	}
}

/* Random element: random limbs reduced mod m; sometimes just below m. */
static void rand_mpz(const struct field *f, mpz_t z)
{
	uint64_t l[MAXN];
	if ((tu_rand64() & 31) == 0) {
		mpz_sub_ui(z, f->m, 1 + (tu_rand64() & 0xff));
		return;
	}
	for (size_t i = 0; i < f->n; i++)
		l[i] = rand_limb();
	tu_mpz_from_limbs(z, l, f->n);
	mpz_mod(z, z, f->m);
}

/* Edge values below m: 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, 2^64-1, 2^64,
 * 2^(64k)-1 (all-ones limbs), m's top limb over all-ones limbs, m - 2^64,
 * R mod m and R^2 mod m. Returns how many were written (initialised). */
static size_t edge_values(const struct field *f, mpz_t out[MAXEDGE])
{
	size_t k = 0;
	mpz_t t;
	mpz_init(t);
#define EDGE(expr)                                                          \
	do {                                                                \
		expr;                                                       \
		if (mpz_sgn(t) >= 0 && mpz_cmp(t, f->m) < 0) {              \
			mpz_init_set(out[k], t);                            \
			k++;                                                \
		}                                                           \
	} while (0)
	EDGE(mpz_set_ui(t, 0));
	EDGE(mpz_set_ui(t, 1));
	EDGE(mpz_set_ui(t, 2));
	EDGE(mpz_sub_ui(t, f->m, 1));
	EDGE(mpz_sub_ui(t, f->m, 2));
	EDGE(mpz_set(t, f->half));
	EDGE(mpz_add_ui(t, f->half, 1));
	EDGE((mpz_set_ui(t, 0), mpz_setbit(t, 64), mpz_sub_ui(t, t, 1)));
	EDGE((mpz_set_ui(t, 0), mpz_setbit(t, 64)));
	for (size_t i = 2; i <= f->n; i++)
		EDGE((mpz_set_ui(t, 0), mpz_setbit(t, 64 * i),
		      mpz_sub_ui(t, t, 1)));
	EDGE((mpz_set_ui(t, f->mod[f->n - 1]),
	      mpz_mul_2exp(t, t, 64 * (f->n - 1)), mpz_sub_ui(t, t, 1)));
	EDGE((mpz_set_ui(t, 0), mpz_setbit(t, 64), mpz_sub(t, f->m, t)));
	EDGE(mpz_set(t, f->R));
	EDGE((mpz_mul(t, f->R, f->R), mpz_mod(t, t, f->m)));
#undef EDGE
	mpz_clear(t);
	return k;
}

static void clear_values(mpz_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mpz_clear(v[i]);
}

/* Runs body for each field, once with the portable path forced and once
 * with the run-time choice (the MULX path where the CPU and build have it). */
static void for_both_backends(void (*body)(const struct field *))
{
	for (int pass = 0; pass < 2; pass++) {
		zkp_ff_force_portable(pass == 0);
		for (size_t i = 0; i < NFIELDS; i++)
			body(FIELDS[i]);
	}
	zkp_ff_force_portable(false);
}

/* ---- multiplication paths, called directly ---- */

static void check_mul_paths(const struct field *f, const mpz_t az,
			    const mpz_t bz, const elem *a, const elem *b,
			    mpz_t want, bool aliasing)
{
	elem r;
	mpz_mul(want, az, bz);
	mpz_mod(want, want, f->m);
	f->mul_portable(&r, a, b);
	check(f, "mul_portable", &r, want, az, bz);
	if (have_mulx) {
		f->mul_mulx(&r, a, b);
		check(f, "mul_mulx", &r, want, az, bz);
	}
	if (aliasing) {
		r = *a;
		f->mul_portable(&r, &r, b);
		check(f, "mul_portable (ret == a)", &r, want, az, bz);
		r = *b;
		f->mul_portable(&r, a, &r);
		check(f, "mul_portable (ret == b)", &r, want, az, bz);
		if (have_mulx) {
			r = *a;
			f->mul_mulx(&r, &r, b);
			check(f, "mul_mulx (ret == a)", &r, want, az, bz);
			r = *b;
			f->mul_mulx(&r, a, &r);
			check(f, "mul_mulx (ret == b)", &r, want, az, bz);
		}
	}

	mpz_mul(want, az, az);
	mpz_mod(want, want, f->m);
	f->mul_portable(&r, a, a);
	check(f, "mul_portable (a, a)", &r, want, az, NULL);
	if (have_mulx) {
		r = *a;
		f->mul_mulx(&r, &r, &r);
		check(f, "mul_mulx (ret == a == b)", &r, want, az, NULL);
	}
	if (f->sqr_portable) {
		f->sqr_portable(&r, a);
		check(f, "sqr_portable", &r, want, az, NULL);
		if (aliasing) {
			r = *a;
			f->sqr_portable(&r, &r);
			check(f, "sqr_portable (ret == a)", &r, want, az, NULL);
		}
	}
	if (f->sqr_mulx && have_mulx) {
		f->sqr_mulx(&r, a);
		check(f, "sqr_mulx", &r, want, az, NULL);
		if (aliasing) {
			r = *a;
			f->sqr_mulx(&r, &r);
			check(f, "sqr_mulx (ret == a)", &r, want, az, NULL);
		}
	}
}

static void test_mul_paths(void **state)
{
	(void)state;
	printf("# multiplication paths: portable%s\n",
	       have_mulx ? " and mulx-adx" :
			   " only (mulx-adx not built or not supported here)");
	mpz_t az, bz, want, edges[MAXEDGE];
	mpz_inits(az, bz, want, NULL);
	for (size_t fi = 0; fi < NFIELDS; fi++) {
		const struct field *f = FIELDS[fi];
		elem a, b;
		size_t ne = edge_values(f, edges);
		for (size_t i = 0; i < ne; i++) {
			for (size_t j = 0; j < ne; j++) {
				elem_from_mpz(f, &a, edges[i]);
				elem_from_mpz(f, &b, edges[j]);
				check_mul_paths(f, edges[i], edges[j], &a, &b,
						want, true);
			}
		}
		clear_values(edges, ne);
		for (int it = 0; it < NRAND; it++) {
			rand_mpz(f, az);
			rand_mpz(f, bz);
			elem_from_mpz(f, &a, az);
			elem_from_mpz(f, &b, bz);
			check_mul_paths(f, az, bz, &a, &b, want, (it & 7) == 0);
		}
	}
	mpz_clears(az, bz, want, NULL);
}

/* ---- add, sub, neg, dbl, mul, sqr through the dispatching API ---- */

static void check_arith(const struct field *f, const mpz_t az, const mpz_t bz,
			const elem *a, const elem *b, mpz_t want, bool aliasing)
{
	elem r;

	mpz_add(want, az, bz);
	if (mpz_cmp(want, f->m) >= 0)
		mpz_sub(want, want, f->m);
	f->add(&r, a, b);
	check(f, "add", &r, want, az, bz);
	if (aliasing) {
		r = *a;
		f->add(&r, &r, b);
		check(f, "add (ret == a)", &r, want, az, bz);
	}

	mpz_sub(want, az, bz);
	if (mpz_sgn(want) < 0)
		mpz_add(want, want, f->m);
	f->sub(&r, a, b);
	check(f, "sub", &r, want, az, bz);
	if (aliasing) {
		r = *b;
		f->sub(&r, a, &r);
		check(f, "sub (ret == b)", &r, want, az, bz);
	}

	mpz_mul(want, az, bz);
	mpz_mod(want, want, f->m);
	f->mul(&r, a, b);
	check(f, "mul", &r, want, az, bz);
	if (aliasing) {
		r = *b;
		f->mul(&r, a, &r);
		check(f, "mul (ret == b)", &r, want, az, bz);
	}

	mpz_mul(want, az, az);
	mpz_mod(want, want, f->m);
	f->sqr(&r, a);
	check(f, "sqr", &r, want, az, NULL);
	if (aliasing) {
		r = *a;
		f->sqr(&r, &r);
		check(f, "sqr (ret == a)", &r, want, az, NULL);
	}

	mpz_neg(want, az);
	mpz_mod(want, want, f->m);
	f->neg(&r, a);
	check(f, "neg", &r, want, az, NULL);

	mpz_mul_2exp(want, az, 1);
	mpz_mod(want, want, f->m);
	f->dbl(&r, a);
	check(f, "dbl", &r, want, az, NULL);
	if (aliasing) {
		r = *a;
		f->dbl(&r, &r);
		check(f, "dbl (ret == a)", &r, want, az, NULL);
	}

	assert_true(f->eq(a, b) == (mpz_cmp(az, bz) == 0));
	assert_true(f->is_zero(a) == (mpz_sgn(az) == 0));
	assert_true(f->is_one(a) == (mpz_cmp_ui(az, 1) == 0));
}

static void arith_body(const struct field *f)
{
	printf("# %s add/sub/neg/dbl/mul/sqr, backend %s\n", f->name,
	       zkp_ff_backend());
	mpz_t az, bz, want, edges[MAXEDGE];
	mpz_inits(az, bz, want, NULL);
	elem a, b;
	size_t ne = edge_values(f, edges);
	for (size_t i = 0; i < ne; i++) {
		for (size_t j = 0; j < ne; j++) {
			elem_from_mpz(f, &a, edges[i]);
			elem_from_mpz(f, &b, edges[j]);
			check_arith(f, edges[i], edges[j], &a, &b, want, true);
		}
	}
	clear_values(edges, ne);
	for (int it = 0; it < NRAND; it++) {
		rand_mpz(f, az);
		if ((it & 63) == 0)
			mpz_set(bz, az); /* a == b, a - a, a + a */
		else
			rand_mpz(f, bz);
		elem_from_mpz(f, &a, az);
		elem_from_mpz(f, &b, bz);
		check_arith(f, az, bz, &a, &b, want, (it & 7) == 0);
	}
	mpz_clears(az, bz, want, NULL);
}

static void test_arith(void **state)
{
	(void)state;
	for_both_backends(arith_body);
}

/* ---- pow, inv, legendre, sqrt, is_lexi_largest ---- */

static void check_slow(const struct field *f, const mpz_t az, const elem *a,
		       mpz_t want, mpz_t t, bool aliasing)
{
	elem r;
	int rc;

	/* pow with 0..n+1 exponent limbs (leading zero limbs included). */
	uint64_t e[MAXN + 1];
	size_t ne = (size_t)(tu_rand64() % (f->n + 2));
	for (size_t i = 0; i < ne; i++)
		e[i] = rand_limb();
	tu_mpz_from_limbs(t, e, ne);
	mpz_powm(want, az, t, f->m);
	f->pow(&r, a, e, ne);
	check(f, "pow", &r, want, az, t);

	rc = f->inv(&r, a);
	if (mpz_sgn(az) == 0) {
		assert_int_equal(rc, ZKP_ERR_NOT_INVERTIBLE);
		assert_true(f->is_zero(&r));
	} else {
		assert_int_equal(rc, 0);
		assert_true(mpz_invert(want, az, f->m) != 0);
		check(f, "inv", &r, want, az, NULL);
		if (aliasing) {
			r = *a;
			assert_int_equal(f->inv(&r, &r), 0);
			check(f, "inv (ret == a)", &r, want, az, NULL);
		}
	}

	int leg = mpz_legendre(az, f->m);
	if (f->legendre(a) != leg) {
		fprintf(stderr, "want legendre %d, got %d\n", leg, f->legendre(a));
		report(f, "legendre", az, NULL, NULL, NULL);
	}

	rc = f->sqrt(&r, a);
	if (leg >= 0) {
		if (rc != 0)
			report(f, "sqrt of a square failed", az, NULL, NULL, NULL);
		mpz_from_elem(f, t, &r);
		mpz_mul(t, t, t);
		mpz_mod(t, t, f->m);
		if (mpz_cmp(t, az) != 0 || !limbs_below(raw(&r), f->mod, f->n))
			report(f, "sqrt (root^2 != a)", az, NULL, az, &r);
	} else if (rc != ZKP_ERR_NO_SQRT) {
		report(f, "sqrt of a non-square not refused", az, NULL, NULL,
		       NULL);
	}

	if (f->is_lexi_largest &&
	    f->is_lexi_largest(a) != (mpz_cmp(az, f->half) > 0))
		report(f, "is_lexi_largest", az, NULL, NULL, NULL);
}

static void slow_body(const struct field *f)
{
	printf("# %s pow/inv/legendre/sqrt, backend %s\n", f->name,
	       zkp_ff_backend());
	mpz_t az, want, t, edges[MAXEDGE];
	mpz_inits(az, want, t, NULL);
	elem a, r;
	size_t ne = edge_values(f, edges);
	for (size_t i = 0; i < ne; i++) {
		elem_from_mpz(f, &a, edges[i]);
		check_slow(f, edges[i], &a, want, t, true);
	}
	clear_values(edges, ne);
	for (int it = 0; it < NSLOW; it++) {
		rand_mpz(f, az);
		elem_from_mpz(f, &a, az);
		check_slow(f, az, &a, want, t, (it & 15) == 0);

		/* A known square, so that sqrt succeeds about as often as
		 * it refuses. */
		f->sqr(&a, &a);
		mpz_mul(az, az, az);
		mpz_mod(az, az, f->m);
		assert_int_equal(f->sqrt(&r, &a), 0);
		f->sqr(&r, &r);
		if (!f->eq(&r, &a))
			report(f, "sqrt of a square (root^2 != a)", az, NULL,
			       az, &r);
	}
	mpz_clears(az, want, t, NULL);
}

static void test_pow_inv_sqrt(void **state)
{
	(void)state;
	for_both_backends(slow_body);
}

/* ---- batch inversion, zeros mixed in ---- */

static void batch_body(const struct field *f)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 8, 17, BATCH_MAX };
	mpz_t az[BATCH_MAX], want;
	elem a[BATCH_MAX], r[BATCH_MAX];
	mpz_init(want);
	for (size_t i = 0; i < BATCH_MAX; i++)
		mpz_init(az[i]);
	for (int round = 0; round < 40; round++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			/* round 0: no zeros; round 1: all zeros; then about
			 * one in four. */
			for (size_t i = 0; i < n; i++) {
				bool zero = round == 1 ||
					    (round > 1 && (tu_rand64() & 3) == 0);
				if (zero)
					mpz_set_ui(az[i], 0);
				else
					do
						rand_mpz(f, az[i]);
					while (mpz_sgn(az[i]) == 0);
				elem_from_mpz(f, &a[i], az[i]);
			}
			for (int in_place = 0; in_place < 2; in_place++) {
				f->batch_inv(r, a, n, in_place);
				for (size_t i = 0; i < n; i++) {
					if (mpz_sgn(az[i]) == 0)
						mpz_set_ui(want, 0);
					else
						mpz_invert(want, az[i], f->m);
					check(f, in_place ? "batch inv (in place)"
							  : "batch inv",
					      &r[i], want, az[i], NULL);
				}
			}
		}
	}
	for (size_t i = 0; i < BATCH_MAX; i++)
		mpz_clear(az[i]);
	mpz_clear(want);
}

static void test_batch_inv(void **state)
{
	(void)state;
	for_both_backends(batch_body);
}

/* ---- constants, conversions and decoders ---- */

static void test_constants(void **state)
{
	(void)state;
	static const char *const moduli[] = {
		"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf"
		"6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
		"73eda753299d7d483339d80809a1d805"
		"53bda402fffe5bfeffffffff00000001",
	};
	mpz_t t, x;
	mpz_inits(t, x, NULL);
	for (size_t fi = 0; fi < NFIELDS; fi++) {
		const struct field *f = FIELDS[fi];
		elem a, b;
		uint64_t l[MAXN];

		assert_int_equal(mpz_set_str(t, moduli[fi], 16), 0);
		assert_int_equal(mpz_cmp(t, f->m), 0);
		assert_int_equal(mpz_probab_prime_p(f->m, 30) > 0, 1);

		/* ONE is R mod m in Montgomery limbs and decodes to 1. */
		tu_mpz_from_limbs(t, f->one, f->n);
		assert_int_equal(mpz_cmp(t, f->R), 0);
		f->set_one(&a);
		assert_memory_equal(raw(&a), f->one, f->n * sizeof(uint64_t));
		assert_true(f->is_one(&a));
		assert_false(f->is_zero(&a));
		f->to_limbs(l, &a);
		tu_mpz_from_limbs(t, l, f->n);
		assert_int_equal(mpz_cmp_ui(t, 1), 0);
		f->set_u64(&b, 1);
		assert_true(f->eq(&a, &b));
		f->set_zero(&a);
		assert_true(f->is_zero(&a));
		assert_false(f->is_one(&a));
		f->set_u64(&b, 0);
		assert_true(f->eq(&a, &b));

		/* from_limbs multiplies by R^2 and reduces once: its
		 * Montgomery limbs must be x*R mod m, which holds only if
		 * R^2 mod m is right. */
		for (int it = 0; it < 1000; it++) {
			rand_mpz(f, x);
			elem_from_mpz(f, &a, x);
			mpz_mul(t, x, f->R);
			mpz_mod(t, t, f->m);
			tu_mpz_from_limbs(x, raw(&a), f->n);
			if (mpz_cmp(t, x) != 0)
				report(f, "from_limbs Montgomery form", x, NULL,
				       t, &a);
		}
	}
	mpz_clears(t, x, NULL);
}

static void bytes_from_mpz(uint8_t *out, size_t n, const mpz_t z, bool be)
{
	size_t count = 0;
	uint8_t tmp[MAXBYTES];
	memset(tmp, 0, sizeof(tmp));
	mpz_export(tmp, &count, 1, 1, 1, 0, z); /* big-endian bytes */
	memset(out, 0, n);
	memcpy(out + n - count, tmp, count);
	if (!be) {
		for (size_t i = 0; i < n / 2; i++) {
			uint8_t c = out[i];
			out[i] = out[n - 1 - i];
			out[n - 1 - i] = c;
		}
	}
}

static void codec_body(const struct field *f)
{
	mpz_t x, t, t2;
	mpz_inits(x, t, t2, NULL);
	elem a, b;
	uint64_t l[MAXN], w[2 * MAXN];
	uint8_t be[MAXBYTES], le[MAXBYTES], got[MAXBYTES];

	for (int it = 0; it < NCODEC; it++) {
		rand_mpz(f, x);
		elem_from_mpz(f, &a, x);
		check(f, "from_limbs/to_limbs", &a, x, x, NULL);

		bytes_from_mpz(be, f->bytes, x, true);
		bytes_from_mpz(le, f->bytes, x, false);
		f->to_be(got, &a);
		if (memcmp(got, be, f->bytes) != 0)
			report(f, "to_be", x, NULL, x, &a);
		f->to_le(got, &a);
		if (memcmp(got, le, f->bytes) != 0)
			report(f, "to_le", x, NULL, x, &a);
		assert_int_equal(f->from_be(&b, be), 0);
		check(f, "from_be", &b, x, x, NULL);
		assert_true(f->eq(&a, &b));
		assert_int_equal(f->from_le(&b, le), 0);
		check(f, "from_le", &b, x, x, NULL);

		/* set_u64 on the low limb */
		uint64_t v = (it & 1) ? rand_limb() : tu_rand64() >> (it & 63);
		f->set_u64(&b, v);
		mpz_set_ui(t, 0);
		tu_mpz_from_limbs(t, &v, 1);
		check(f, "set_u64", &b, t, t, NULL);

		/* from_wide on 2n random limbs */
		for (size_t i = 0; i < 2 * f->n; i++)
			w[i] = rand_limb();
		if (it == 0)
			memset(w, 0, sizeof(w));
		if (it == 1)
			memset(w, 0xff, sizeof(w));
		tu_mpz_from_limbs(x, w, 2 * f->n);
		mpz_mod(t, x, f->m);
		f->from_wide(&b, w);
		check(f, "from_wide", &b, t, x, NULL);
	}

	/* from_wide around multiples of m: m, m^2 and the largest multiple
	 * of m below 2^(128n), each -1, +0, +1. */
	for (int k = 0; k < 3; k++) {
		if (k == 0) {
			mpz_set(t, f->m);
		} else if (k == 1) {
			mpz_mul(t, f->m, f->m);
		} else {
			mpz_set_ui(t, 0);
			mpz_setbit(t, 128 * f->n);
			mpz_fdiv_q(t, t, f->m);
			mpz_mul(t, t, f->m);
		}
		for (int o = -1; o <= 1; o++) {
			if (o < 0)
				mpz_sub_ui(x, t, 1);
			else
				mpz_add_ui(x, t, (unsigned long)o);
			if (mpz_sizeinbase(x, 2) > 128 * f->n)
				continue;
			tu_limbs_from_mpz(w, 2 * f->n, x);
			mpz_mod(t2, x, f->m);
			f->from_wide(&b, w);
			check(f, "from_wide (near a multiple of m)", &b, t2, x,
			      NULL);
		}
	}

	/* Decoders refuse m, m+1 and 2^(64n)-1; accept m-1. */
	for (int k = 0; k < 4; k++) {
		int want = ZKP_ERR_NOT_CANONICAL;
		switch (k) {
		case 0:
			mpz_set(x, f->m);
			break;
		case 1:
			mpz_add_ui(x, f->m, 1);
			break;
		case 2:
			mpz_set_ui(x, 0);
			mpz_setbit(x, 64 * f->n);
			mpz_sub_ui(x, x, 1);
			break;
		default:
			mpz_sub_ui(x, f->m, 1);
			want = 0;
			break;
		}
		tu_limbs_from_mpz(l, f->n, x);
		bytes_from_mpz(be, f->bytes, x, true);
		bytes_from_mpz(le, f->bytes, x, false);
		if (f->from_limbs(&a, l) != want || f->from_be(&a, be) != want ||
		    f->from_le(&a, le) != want) {
			fprintf(stderr, "decoder: want %d (%s)\n", want,
				zkp_err_name(want));
			report(f, "decoder accepts or refuses wrongly", x, NULL,
			       NULL, NULL);
		}
	}
	mpz_clears(x, t, t2, NULL);
}

static void test_codecs(void **state)
{
	(void)state;
	for_both_backends(codec_body);
}

/* ---- the shared vector file ---- */

static void hex_elem(const struct field *f, elem *e, mpz_t z, const char *hex)
{
	uint8_t be[MAXBYTES];
	assert_true(tu_hex_to_bytes(be, f->bytes, hex) > 0);
	assert_int_equal(f->from_be(e, be), 0);
	mpz_import(z, f->bytes, 1, 1, 1, 0, be);
}

static void vector_record(const struct field *f, json_t *rec)
{
	mpz_t a, b, want, t;
	mpz_inits(a, b, want, t, NULL);
	elem ea, eb, r;
	const char *s;

	hex_elem(f, &ea, a, json_string_value(json_object_get(rec, "a")));
	hex_elem(f, &eb, b, json_string_value(json_object_get(rec, "b")));

	static const char *const binops[] = { "mul", "add", "sub" };
	for (size_t k = 0; k < 3; k++) {
		s = json_string_value(json_object_get(rec, binops[k]));
		assert_non_null(s);
		assert_int_equal(mpz_set_str(want, s + 2, 16), 0);
		if (k == 0)
			f->mul(&r, &ea, &eb);
		else if (k == 1)
			f->add(&r, &ea, &eb);
		else
			f->sub(&r, &ea, &eb);
		check(f, binops[k], &r, want, a, b);
	}

	s = json_string_value(json_object_get(rec, "inv_a"));
	assert_non_null(s);
	assert_int_equal(mpz_set_str(want, s + 2, 16), 0);
	assert_int_equal(f->inv(&r, &ea), 0);
	check(f, "inv (vector)", &r, want, a, NULL);

	json_t *sq = json_object_get(rec, "a_is_square");
	assert_true(json_is_boolean(sq));
	assert_int_equal(f->legendre(&ea) == 1 || mpz_sgn(a) == 0,
			 json_is_true(sq));

	json_t *root = json_object_get(rec, "sqrt_a");
	int rc = f->sqrt(&r, &ea);
	if (json_is_null(root)) {
		assert_int_equal(rc, ZKP_ERR_NO_SQRT);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(mpz_set_str(want, json_string_value(root) + 2, 16),
				 0);
		mpz_from_elem(f, t, &r);
		if (mpz_cmp(t, want) != 0) {
			mpz_sub(t, f->m, t);
			if (mpz_cmp(t, want) != 0)
				report(f, "sqrt (vector)", a, NULL, want, &r);
		}
	}

	s = json_string_value(json_object_get(rec, "a_mont"));
	assert_non_null(s);
	assert_int_equal(mpz_set_str(want, s + 2, 16), 0);
	tu_mpz_from_limbs(t, raw(&ea), f->n);
	if (mpz_cmp(t, want) != 0)
		report(f, "Montgomery form (a_mont)", a, NULL, want, &ea);

	mpz_clears(a, b, want, t, NULL);
}

static void vectors_body(const struct field *f)
{
	const char *keys[2];
	if (f == &FP) {
		keys[0] = "fp";
		keys[1] = "fp_edge";
	} else {
		keys[0] = "fr";
		keys[1] = "fr_edge";
	}
	size_t count = 0;
	for (int k = 0; k < 2; k++) {
		json_t *arr = json_object_get(tu_vectors(), keys[k]);
		assert_true(json_is_array(arr));
		size_t i;
		json_t *rec;
		json_array_foreach(arr, i, rec)
		{
			vector_record(f, rec);
			count++;
		}
	}
	assert_true(count >= 25);
}

static void test_vectors(void **state)
{
	(void)state;
	for_both_backends(vectors_body);
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	have_mulx = zkp_ff_have_mulx();
	for (size_t i = 0; i < NFIELDS; i++) {
		struct field *f = FIELDS[i];
		mpz_init(f->m);
		tu_mpz_from_limbs(f->m, f->mod, f->n);
		mpz_init_set_ui(f->R, 0);
		mpz_setbit(f->R, 64 * f->n);
		mpz_mod(f->R, f->R, f->m);
		mpz_init(f->half);
		mpz_sub_ui(f->half, f->m, 1);
		mpz_fdiv_q_2exp(f->half, f->half, 1);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < NFIELDS; i++)
		mpz_clears(FIELDS[i]->m, FIELDS[i]->R, FIELDS[i]->half, NULL);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_mul_paths),
		cmocka_unit_test(test_arith),
		cmocka_unit_test(test_pow_inv_sqrt),
		cmocka_unit_test(test_batch_inv),
		cmocka_unit_test(test_codecs),
		cmocka_unit_test(test_vectors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
