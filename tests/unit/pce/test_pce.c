/*
 * .pce builder, writer, loader and evaluator.
 *
 * Random circuits (+-1, small and large coefficients, more than 253
 * distinct values so escapes occur, rows longer than 255 terms so overflow
 * occurs, empty rows, duplicate columns that merge or cancel) go through
 * builder -> file -> loader, and evaluation is compared with a dense
 * matrix-vector product built from the same terms. The circuit digest and
 * header checksum are recomputed here from the definition in
 * docs/formats.md. Damaged files (truncated, flipped bytes, bad header
 * fields, out-of-range indices with the checksums made to match) must each
 * be refused with the right code and a message naming the problem.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pce_int.h"
#include "testutil.h"
#include "test_fr.h"
#include "zkpd/error.h"
#include "zkpd/pce.h"

static zkp_pool *pool2;
static char tmpdir[64];

/* ---- helpers ---- */

static uint64_t rnd(uint64_t n) { return n ? tu_rand64() % n : 0; }

static void fr_small(zkp_fr *r, int64_t v)
{
	zkp_fr_set_u64(r, (uint64_t)(v < 0 ? -v : v));
	if (v < 0)
		zkp_fr_neg(r, r);
}

static char *tmp_path(const char *name)
{
	static char buf[4][128];
	static int i;
	char *p = buf[i++ % 4];
	snprintf(p, 128, "%s/%s", tmpdir, name);
	return p;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_file(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- a circuit as plain term lists: the reference ---- */

struct tmat {
	zkp_pce_term *t;
	size_t n, cap;
	size_t *start; /* rows + 1 */
};

struct tcirc {
	uint64_t n_in, n_aux, rows;
	struct tmat m[3];
};

struct gen_opts {
	uint64_t n_in, n_aux, rows;
	bool large_in[3];   /* matrix m draws from the large pool */
	int long_rows[3];   /* rows of > 255 terms per matrix */
};

static zkp_fr large_pool[600];

static void tc_push(struct tmat *m, uint32_t col, const zkp_fr *v)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->t = realloc(m->t, m->cap * sizeof(*m->t));
		assert_non_null(m->t);
	}
	m->t[m->n].col = col;
	m->t[m->n].coeff = *v;
	m->n++;
}

static void rand_coeff(zkp_fr *v, bool large, bool long_row)
{
	uint64_t p = rnd(100);
	if (long_row && large && p < 60) {
		*v = large_pool[rnd(600)];
	} else if (p < 45) {
		zkp_fr_set_one(v);
	} else if (p < 65) {
		fr_small(v, -1);
	} else if (p < 85 || !large) {
		fr_small(v, (int64_t)(2 + rnd(11)) * (rnd(2) ? 1 : -1));
	} else if (p < 97) {
		*v = large_pool[rnd(600)];
	} else {
		tu_rand_fr(v);
	}
}

static void gen_row(struct tmat *m, uint64_t nvars, size_t len, bool large, bool long_row)
{
	size_t first = m->n;
	/* long rows take distinct columns, so they stay long after merging */
	uint8_t *seen = long_row ? calloc(nvars, 1) : NULL;
	if (len > nvars)
		len = nvars;
	for (size_t i = 0; i < len; i++) {
		zkp_fr v;
		uint32_t col;
		do
			col = (uint32_t)rnd(nvars);
		while (seen && seen[col]);
		if (seen)
			seen[col] = 1;
		rand_coeff(&v, large, long_row);
		tc_push(m, col, &v);
	}
	free(seen);
	size_t n = m->n - first;
	if (n && rnd(4) == 0) {
		/* a column repeated with another coefficient: merges */
		zkp_fr v;
		rand_coeff(&v, large, false);
		tc_push(m, m->t[first + rnd(n)].col, &v);
	}
	if (n && rnd(4) == 0) {
		/* a column whose terms cancel to zero: dropped */
		uint32_t col = m->t[first + rnd(n)].col;
		zkp_fr sum;
		zkp_fr_set_zero(&sum);
		for (size_t i = first; i < m->n; i++)
			if (m->t[i].col == col)
				zkp_fr_add(&sum, &sum, &m->t[i].coeff);
		zkp_fr_neg(&sum, &sum);
		tc_push(m, col, &sum);
	}
	if (n && rnd(6) == 0) {
		/* 2 then -1 on a new column: merges to +1 */
		uint32_t col = (uint32_t)rnd(nvars);
		bool fresh = true;
		for (size_t i = first; i < m->n; i++)
			fresh &= m->t[i].col != col;
		if (fresh) {
			zkp_fr two, mone;
			fr_small(&two, 2);
			fr_small(&mone, -1);
			tc_push(m, col, &two);
			tc_push(m, col, &mone);
		}
	}
	/* shuffle half the rows so the builder's sort is exercised */
	if (rnd(2))
		for (size_t i = m->n - first; i > 1; i--) {
			size_t j = rnd(i);
			zkp_pce_term t = m->t[first + i - 1];
			m->t[first + i - 1] = m->t[first + j];
			m->t[first + j] = t;
		}
}

static void tc_gen(struct tcirc *c, const struct gen_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->n_in = o->n_in;
	c->n_aux = o->n_aux;
	c->rows = o->rows;
	uint64_t nvars = o->n_in + o->n_aux;
	for (int m = 0; m < 3; m++) {
		struct tmat *t = &c->m[m];
		t->start = calloc(o->rows + 1, sizeof(size_t));
		assert_non_null(t->start);
		for (uint64_t r = 0; r < o->rows; r++) {
			t->start[r] = t->n;
			bool long_row = (int64_t)r >= 3 && (int64_t)r < 3 + o->long_rows[m];
			size_t len;
			if (long_row)
				len = 256 + rnd(150);
			else if (rnd(10) == 0)
				len = 0;
			else
				len = 1 + rnd(6);
			gen_row(t, nvars, len, o->large_in[m], long_row);
		}
		t->start[o->rows] = t->n;
	}
}

static void tc_free(struct tcirc *c)
{
	for (int m = 0; m < 3; m++) {
		free(c->m[m].t);
		free(c->m[m].start);
	}
}

static void tc_row(const struct tcirc *c, int m, uint64_t r, const zkp_pce_term **t, size_t *n)
{
	*t = c->m[m].t + c->m[m].start[r];
	*n = c->m[m].start[r + 1] - c->m[m].start[r];
}

static zkp_pce_builder *tc_build(const struct tcirc *c)
{
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_builder_new(&b, c->n_in, c->n_aux), 0);
	for (uint64_t r = 0; r < c->rows; r++) {
		const zkp_pce_term *t[3];
		size_t n[3];
		for (int m = 0; m < 3; m++)
			tc_row(c, m, r, &t[m], &n[m]);
		int rc = zkp_pce_builder_add(b, t[0], n[0], t[1], n[1], t[2], n[2], &err);
		if (rc)
			fail_msg("add row %llu: %s", (unsigned long long)r, zkp_error_text(&err, rc));
	}
	assert_int_equal(zkp_pce_builder_rows(b), c->rows);
	return b;
}

static void tc_write(const struct tcirc *c, const char *path)
{
	zkp_pce_builder *b = tc_build(c);
	zkp_error err = { 0 };
	int rc = zkp_pce_builder_write(b, path, &err);
	if (rc)
		fail_msg("write %s: %s", path, zkp_error_text(&err, rc));
	zkp_pce_builder_free(b);
}

static zkp_pce *load_ok(const char *path, unsigned flags)
{
	zkp_pce *pce = NULL;
	zkp_error err = { 0 };
	int rc = zkp_pce_load(&pce, path, flags, &err);
	if (rc)
		fail_msg("load %s: %s (%s)", path, zkp_error_text(&err, rc), zkp_err_name(rc));
	return pce;
}

/* Dense matrices from the terms, summed entry by entry. */
static zkp_fr *dense_of(const struct tcirc *c, int m)
{
	uint64_t nvars = c->n_in + c->n_aux;
	zkp_fr *d = calloc(c->rows * nvars + 1, sizeof(zkp_fr));
	assert_non_null(d);
	for (uint64_t r = 0; r < c->rows; r++) {
		const zkp_pce_term *t;
		size_t n;
		tc_row(c, m, r, &t, &n);
		for (size_t i = 0; i < n; i++)
			zkp_fr_add(&d[r * nvars + t[i].col], &d[r * nvars + t[i].col], &t[i].coeff);
	}
	return d;
}

static bool bit(const uint64_t *w, uint64_t i) { return w[i / 64] >> (i % 64) & 1; }

/* Loads path and checks it against the dense reference: nnz, density and
 * eval on random witnesses, with and without threads. */
static void check_against_dense(const struct tcirc *c, const char *path)
{
	zkp_pce *pce = load_ok(path, 0);
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	uint64_t nvars = c->n_in + c->n_aux, rows = c->rows;
	assert_int_equal(d->n_inputs, c->n_in);
	assert_int_equal(d->n_aux, c->n_aux);
	assert_int_equal(d->n_constraints, rows);
	uint32_t k = 1;
	while (((uint64_t)1 << k) < rows + c->n_in)
		k++;
	assert_int_equal(d->domain_log2, k);

	zkp_fr *dense[3];
	for (int m = 0; m < 3; m++)
		dense[m] = dense_of(c, m);

	/* nnz and density from the dense matrices */
	uint8_t *used[3];
	for (int m = 0; m < 3; m++) {
		used[m] = calloc(nvars + 1, 1);
		uint64_t nnz = 0;
		for (uint64_t i = 0; i < rows * nvars; i++)
			if (!zkp_fr_is_zero(&dense[m][i])) {
				nnz++;
				used[m][i % nvars] = 1;
			}
		assert_int_equal(d->nnz[m], nnz);
		assert_int_equal(zkp_pce_matrix(pce, (enum zkp_pce_matrix)m)->nnz, nnz);
	}
	for (uint64_t j = 0; j < c->n_aux; j++) {
		assert_int_equal(bit(zkp_pce_density_a_aux(pce), j), used[0][c->n_in + j]);
		assert_int_equal(bit(zkp_pce_density_b_aux(pce), j), used[1][c->n_in + j]);
	}
	for (uint64_t j = 0; j < c->n_in; j++)
		assert_int_equal(bit(zkp_pce_density_b_input(pce), j), used[1][j]);

	zkp_fr *w = malloc(nvars * sizeof(zkp_fr));
	zkp_fr *out[3], *ref = malloc((rows + 1) * sizeof(zkp_fr));
	for (int m = 0; m < 3; m++)
		out[m] = malloc((rows + 1) * sizeof(zkp_fr));
	for (int trial = 0; trial < 2; trial++) {
		zkp_fr_set_one(&w[0]);
		for (uint64_t i = 1; i < nvars; i++)
			tu_rand_fr(&w[i]);
		for (int m = 0; m < 3; m++)
			for (uint64_t i = 0; i < rows; i++)
				tu_rand_fr(&out[m][i]); /* stale contents must be overwritten */
		zkp_pce_eval(pce, w, out[0], trial ? NULL : out[1], out[2], trial ? NULL : pool2);
		if (trial)
			zkp_pce_eval(pce, w, NULL, out[1], NULL, pool2);
		for (int m = 0; m < 3; m++) {
			for (uint64_t r = 0; r < rows; r++) {
				zkp_fr acc, t;
				zkp_fr_set_zero(&acc);
				for (uint64_t j = 0; j < nvars; j++) {
					zkp_fr_mul(&t, &dense[m][r * nvars + j], &w[j]);
					zkp_fr_add(&acc, &acc, &t);
				}
				ref[r] = acc;
			}
			for (uint64_t r = 0; r < rows; r++)
				if (!zkp_fr_eq(&out[m][r], &ref[r]))
					fail_msg("%c row %llu differs from the dense reference", "ABC"[m],
						 (unsigned long long)r);
		}
	}
	for (int m = 0; m < 3; m++) {
		free(out[m]);
		free(dense[m]);
		free(used[m]);
	}
	free(ref);
	free(w);
	zkp_pce_free(pce);
}

/* ---- tests ---- */

static void test_roundtrip_eval(void **state)
{
	(void)state;
	const struct gen_opts opts[] = {
		{ 4, 700, 300, { true, false, false }, { 3, 1, 0 } },
		{ 1, 300, 130, { true, true, true }, { 1, 0, 1 } },
		{ 9, 60, 64, { false, false, false }, { 0, 0, 0 } },
		{ 3, 50, 1, { true, false, false }, { 0, 0, 0 } },
	};
	bool saw_escape = false, saw_overflow = false, saw_many = false;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct tcirc c;
		tc_gen(&c, &opts[i]);
		const char *path = tmp_path("rt.pce");
		tc_write(&c, path);
		check_against_dense(&c, path);
		zkp_pce *pce = load_ok(path, ZKP_PCE_SKIP_CHECKSUMS);
		for (int m = 0; m < 3; m++) {
			const zkp_pce_csr *x = zkp_pce_matrix(pce, (enum zkp_pce_matrix)m);
			saw_escape |= x->n_escapes > 0;
			saw_overflow |= x->n_overflow > 0;
			saw_many |= x->n_values > PCE_SHORT_CODES;
		}
		size_t flen;
		uint8_t *f = read_file(path, &flen);
		uint64_t mbytes = 0, nnz = 0;
		for (int k = 0; k < 3 * PCE_MATRIX_SECTIONS; k++)
			mbytes += pce_get_u64(f + 256 + 64 * k + 16);
		for (int m = 0; m < 3; m++)
			nnz += zkp_pce_get_dims(pce)->nnz[m];
		assert_true(zkp_pce_bytes_per_nnz(pce) == (nnz ? (double)mbytes / (double)nnz : 0.0));
		free(f);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(zkp_pce_mapped_bytes(pce), (size_t)st.st_size);
		zkp_pce_free(pce);
		tc_free(&c);
	}
	assert_true(saw_escape);
	assert_true(saw_overflow);
	assert_true(saw_many);
}

/* Many blocks, split across threads: eval against the term lists summed
 * row by row (the dense reference would be too large here). */
static void test_many_blocks(void **state)
{
	(void)state;
	const struct gen_opts o = { 10, 5000, 20000, { true, true, false }, { 2, 2, 2 } };
	struct tcirc c;
	tc_gen(&c, &o);
	const char *path = tmp_path("many.pce");
	tc_write(&c, path);
	zkp_pce *pce = load_ok(path, 0);
	uint64_t nvars = c.n_in + c.n_aux;
	zkp_fr *w = malloc(nvars * sizeof(zkp_fr)), *out[3];
	zkp_fr_set_one(&w[0]);
	for (uint64_t i = 1; i < nvars; i++)
		tu_rand_fr(&w[i]);
	for (int m = 0; m < 3; m++)
		out[m] = malloc(c.rows * sizeof(zkp_fr));
	zkp_pce_eval(pce, w, out[0], out[1], out[2], pool2);
	for (int m = 0; m < 3; m++)
		for (uint64_t r = 0; r < c.rows; r++) {
			const zkp_pce_term *t;
			size_t n;
			zkp_fr acc, x;
			tc_row(&c, m, r, &t, &n);
			zkp_fr_set_zero(&acc);
			for (size_t i = 0; i < n; i++) {
				zkp_fr_mul(&x, &t[i].coeff, &w[t[i].col]);
				zkp_fr_add(&acc, &acc, &x);
			}
			if (!zkp_fr_eq(&acc, &out[m][r]))
				fail_msg("%c row %llu differs from the reference", "ABC"[m],
					 (unsigned long long)r);
		}
	for (int m = 0; m < 3; m++)
		free(out[m]);
	free(w);
	zkp_pce_free(pce);
	tc_free(&c);
}

static void test_empty_circuit(void **state)
{
	(void)state;
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_builder_new(&b, 0, 5), ZKP_ERR_INVAL);
	assert_null(b);
	assert_int_equal(zkp_pce_builder_new(&b, 1, 0), 0);
	const char *path = tmp_path("empty.pce");
	assert_int_equal(zkp_pce_builder_write(b, path, &err), 0);
	zkp_pce_builder_free(b);
	zkp_pce *pce = load_ok(path, 0);
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	assert_int_equal(d->n_constraints, 0);
	assert_int_equal(d->domain_log2, 1);
	zkp_fr one = ZKP_FR_ONE;
	zkp_pce_eval(pce, &one, NULL, NULL, NULL, pool2);
	assert_int_equal(zkp_pce_check(pce, &one, NULL, pool2, &err), 0);
	assert_true(zkp_pce_bytes_per_nnz(pce) == 0.0);
	zkp_pce_free(pce);
}

/* A satisfiable circuit: A_i, B_i over the "free" variables, C_i = k_i t_i
 * with t_i an aux variable set to a_i b_i / k_i. */
struct sat {
	struct tcirc c;
	uint64_t n_free;
	zkp_fr *w;
};

static void sat_gen(struct sat *s, uint64_t rows)
{
	struct gen_opts o = { 3, 150, rows, { true, true, false }, { 1, 1, 0 } };
	tc_gen(&s->c, &o); /* A, B over the free variables 0 .. 153 */
	s->n_free = o.n_in + o.n_aux;
	s->c.n_aux += rows;
	uint64_t nvars = s->n_free + rows;
	struct tmat *cm = &s->c.m[2];
	cm->n = 0;
	for (uint64_t r = 0; r < rows; r++) {
		zkp_fr k;
		cm->start[r] = cm->n;
		if (r % 3)
			fr_small(&k, (int64_t)(r % 7) + 2);
		else
			zkp_fr_set_one(&k);
		tc_push(cm, (uint32_t)(s->n_free + r), &k);
	}
	cm->start[rows] = cm->n;

	s->w = malloc(nvars * sizeof(zkp_fr));
	zkp_fr_set_one(&s->w[0]);
	for (uint64_t i = 1; i < s->n_free; i++)
		tu_rand_fr(&s->w[i]);
	for (uint64_t r = 0; r < rows; r++) {
		zkp_fr ab[2], t, kinv;
		for (int m = 0; m < 2; m++) {
			const zkp_pce_term *tt;
			size_t n;
			tc_row(&s->c, m, r, &tt, &n);
			zkp_fr_set_zero(&ab[m]);
			for (size_t i = 0; i < n; i++) {
				zkp_fr_mul(&t, &tt[i].coeff, &s->w[tt[i].col]);
				zkp_fr_add(&ab[m], &ab[m], &t);
			}
		}
		zkp_fr_mul(&t, &ab[0], &ab[1]);
		assert_int_equal(zkp_fr_inv(&kinv, &cm->t[r].coeff), 0);
		zkp_fr_mul(&s->w[s->n_free + r], &t, &kinv);
	}
}

/* Lowest row where the terms say a.b != c for witness w, or UINT64_MAX. */
static uint64_t ref_first_failure(const struct tcirc *c, const zkp_fr *w)
{
	for (uint64_t r = 0; r < c->rows; r++) {
		zkp_fr v[3], t;
		for (int m = 0; m < 3; m++) {
			const zkp_pce_term *tt;
			size_t n;
			tc_row(c, m, r, &tt, &n);
			zkp_fr_set_zero(&v[m]);
			for (size_t i = 0; i < n; i++) {
				zkp_fr_mul(&t, &tt[i].coeff, &w[tt[i].col]);
				zkp_fr_add(&v[m], &v[m], &t);
			}
		}
		zkp_fr_mul(&t, &v[0], &v[1]);
		if (!zkp_fr_eq(&t, &v[2]))
			return r;
	}
	return UINT64_MAX;
}

static void test_check(void **state)
{
	(void)state;
	struct sat s;
	const uint64_t rows = 300;
	sat_gen(&s, rows);
	const char *path = tmp_path("sat.pce");
	tc_write(&s.c, path);
	zkp_pce *pce = load_ok(path, 0);
	zkp_error err = { 0 };
	uint64_t row = 12345;

	assert_int_equal(ref_first_failure(&s.c, s.w), UINT64_MAX);
	assert_int_equal(zkp_pce_check(pce, s.w, &row, pool2, &err), 0);
	assert_int_equal(row, 12345);
	assert_int_equal(zkp_pce_check(pce, s.w, &row, NULL, &err), 0);

	/* tampered outputs: the lowest tampered row is reported */
	zkp_fr save[2] = { s.w[s.n_free + 250], s.w[s.n_free + 70] };
	zkp_fr_add(&s.w[s.n_free + 250], &s.w[s.n_free + 250], &ZKP_FR_ONE);
	assert_int_equal(zkp_pce_check(pce, s.w, &row, pool2, &err), ZKP_ERR_UNSATISFIED);
	assert_int_equal(row, 250);
	assert_non_null(strstr(err.msg, "constraint 250 "));
	zkp_fr_add(&s.w[s.n_free + 70], &s.w[s.n_free + 70], &ZKP_FR_ONE);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(zkp_pce_check(pce, s.w, &row, i ? pool2 : NULL, &err),
				 ZKP_ERR_UNSATISFIED);
		assert_int_equal(row, 70);
	}
	s.w[s.n_free + 250] = save[0];
	s.w[s.n_free + 70] = save[1];

	/* a tampered input variable: wherever the reference first fails */
	for (int trial = 0; trial < 8; trial++) {
		uint64_t j = 1 + rnd(s.n_free - 1);
		zkp_fr keep = s.w[j];
		tu_rand_fr(&s.w[j]);
		uint64_t want = ref_first_failure(&s.c, s.w);
		int rc = zkp_pce_check(pce, s.w, &row, pool2, &err);
		if (want == UINT64_MAX) {
			assert_int_equal(rc, 0);
		} else {
			assert_int_equal(rc, ZKP_ERR_UNSATISFIED);
			assert_int_equal(row, want);
		}
		s.w[j] = keep;
	}
	zkp_pce_free(pce);
	free(s.w);
	tc_free(&s.c);
}

/* The digest and header checksum as docs/formats.md defines them, from the
 * file's bytes. */
static void doc_digest(uint8_t out[32], const uint8_t *f)
{
	uint8_t buf[52 + PCE_N_SECTIONS * 44];
	memcpy(buf, f + 16, 8);       /* n_inputs */
	memcpy(buf + 8, f + 24, 8);   /* n_aux */
	memcpy(buf + 16, f + 32, 8);  /* n_constraints */
	memcpy(buf + 24, f + 40, 4);  /* domain_log2 */
	for (int m = 0; m < 3; m++)
		memcpy(buf + 28 + 8 * m, f + 64 + 32 * m, 8); /* nnz */
	for (int i = 0; i < PCE_N_SECTIONS; i++) {
		const uint8_t *e = f + 256 + 64 * i;
		memcpy(buf + 52 + 44 * i, e, 4);           /* id */
		memcpy(buf + 52 + 44 * i + 4, e + 16, 8);  /* size */
		memcpy(buf + 52 + 44 * i + 12, e + 24, 32); /* sha */
	}
	assert_int_equal(pce_sha256(out, buf, sizeof(buf)), 0);
}

static void doc_header_sha(uint8_t out[32], const uint8_t *f)
{
	uint8_t buf[PCE_TABLE_END];
	memcpy(buf, f, sizeof(buf));
	memset(buf + 192, 0, 32);
	assert_int_equal(pce_sha256(out, buf, sizeof(buf)), 0);
}

/* Makes every checksum match the (edited) contents again. */
static void reseal(uint8_t *f, bool digest)
{
	for (int i = 0; i < PCE_N_SECTIONS; i++) {
		uint8_t *e = f + 256 + 64 * i;
		assert_int_equal(pce_sha256(e + 24, f + pce_get_u64(e + 8), pce_get_u64(e + 16)), 0);
	}
	if (digest)
		doc_digest(f + 160, f);
	doc_header_sha(f + 192, f);
}

static void test_digest(void **state)
{
	(void)state;
	struct gen_opts o = { 4, 500, 200, { true, false, true }, { 1, 0, 0 } };
	struct tcirc c;
	tc_gen(&c, &o);
	const char *p1 = tmp_path("d1.pce"), *p2 = tmp_path("d2.pce"), *p3 = tmp_path("d3.pce");

	/* the same builder written twice */
	zkp_pce_builder *b = tc_build(&c);
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_builder_write(b, p1, &err), 0);
	assert_int_equal(zkp_pce_builder_write(b, p2, &err), 0);
	zkp_pce_builder_free(b);

	/* the same circuit with every row's terms reversed: other intern order */
	struct tcirc rev = c;
	for (int m = 0; m < 3; m++) {
		rev.m[m].t = malloc(c.m[m].n * sizeof(zkp_pce_term) + 1);
		for (uint64_t r = 0; r < c.rows; r++) {
			size_t s0 = c.m[m].start[r], s1 = c.m[m].start[r + 1];
			for (size_t i = s0; i < s1; i++)
				rev.m[m].t[i] = c.m[m].t[s1 - 1 - (i - s0)];
		}
	}
	tc_write(&rev, p3);

	size_t n1, n2, n3;
	uint8_t *f1 = read_file(p1, &n1), *f2 = read_file(p2, &n2), *f3 = read_file(p3, &n3);
	assert_int_equal(n1, n2);
	assert_int_equal(n1, n3);
	assert_memory_equal(f1, f2, n1);
	assert_memory_equal(f1, f3, n1);

	zkp_pce *x = load_ok(p1, 0);
	uint8_t want[32];
	doc_digest(want, f1);
	assert_memory_equal(zkp_pce_digest(x), want, 32);
	assert_memory_equal(f1 + 160, want, 32);
	doc_header_sha(want, f1);
	assert_memory_equal(f1 + 192, want, 32);

	/* one coefficient changed: another digest */
	zkp_fr_add(&rev.m[1].t[rev.m[1].n / 2].coeff, &rev.m[1].t[rev.m[1].n / 2].coeff,
		   &ZKP_FR_ONE);
	tc_write(&rev, p3);
	zkp_pce *y = load_ok(p3, 0);
	assert_memory_not_equal(zkp_pce_digest(x), zkp_pce_digest(y), 32);

	zkp_pce_free(x);
	zkp_pce_free(y);
	free(f1);
	free(f2);
	free(f3);
	for (int m = 0; m < 3; m++)
		free(rev.m[m].t);
	tc_free(&c);
}

/* Writes buf to a file, loads it, and expects code rc with every needle in
 * the message. */
static void expect_refused(const uint8_t *buf, size_t len, unsigned flags, int rc,
			   const char *what, ...)
{
	const char *path = tmp_path("bad.pce");
	write_file(path, buf, len);
	zkp_pce *pce = NULL;
	zkp_error err = { 0 };
	int got = zkp_pce_load(&pce, path, flags, &err);
	if (got != rc)
		fail_msg("%s: expected %s, got %s: %s", what, zkp_err_name(rc), zkp_err_name(got),
			 zkp_error_text(&err, got));
	assert_null(pce);
	assert_int_equal(err.code, rc);
	assert_non_null(strstr(err.msg, path));
	va_list ap;
	va_start(ap, what);
	for (const char *needle; (needle = va_arg(ap, const char *));)
		if (!strstr(err.msg, needle))
			fail_msg("%s: message \"%s\" does not name \"%s\"", what, err.msg, needle);
	va_end(ap);
}

static uint64_t sec_off(const uint8_t *f, int i) { return pce_get_u64(f + 256 + 64 * i + 8); }
static uint64_t sec_size(const uint8_t *f, int i) { return pce_get_u64(f + 256 + 64 * i + 16); }

static void test_corrupt(void **state)
{
	(void)state;
	struct gen_opts o = { 4, 600, 200, { true, false, false }, { 2, 1, 0 } };
	struct tcirc c;
	tc_gen(&c, &o);
	const char *path = tmp_path("good.pce");
	tc_write(&c, path);
	size_t n;
	uint8_t *good = read_file(path, &n), *f = malloc(n + 64);
	assert_non_null(f);
	zkp_pce_free(load_ok(path, 0));

	/* truncated */
	size_t cuts[] = { 0, 5, 100, 255, 300, PCE_TABLE_END, PCE_TABLE_END + 1,
			  (size_t)sec_off(good, 2) + 3, n / 2, n - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		expect_refused(good, cuts[i], 0, ZKP_ERR_TRUNCATED, "truncated", "bytes", NULL);

	/* trailing bytes */
	memcpy(f, good, n);
	memset(f + n, 0, 64);
	expect_refused(f, n + 64, 0, ZKP_ERR_FORMAT, "trailing", "trailing", NULL);

	/* a flipped byte inside each section */
	for (int i = 0; i < PCE_N_SECTIONS; i++) {
		if (sec_size(good, i) == 0)
			continue;
		memcpy(f, good, n);
		f[sec_off(good, i) + rnd(sec_size(good, i))] ^= (uint8_t)(1 + rnd(255));
		expect_refused(f, n, 0, ZKP_ERR_CHECKSUM, pce_section_name((unsigned)i),
			       pce_section_name((unsigned)i), "SHA-256", NULL);
	}
	/* and in the header */
	memcpy(f, good, n);
	f[PCE_OFF_N_AUX] ^= 1;
	expect_refused(f, n, ZKP_PCE_SKIP_CHECKSUMS, ZKP_ERR_CHECKSUM, "header", "header", NULL);
	memcpy(f, good, n);
	f[PCE_HEADER_BYTES + 5 * PCE_ENTRY_BYTES + PCE_ENT_SIZE] ^= 4;
	expect_refused(f, n, 0, ZKP_ERR_CHECKSUM, "table", "header", NULL);

	/* bad magic, wrong version */
	memcpy(f, good, n);
	f[3] = 'X';
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "magic", "magic", NULL);
	memcpy(f, good, n);
	pce_put_u32(f + PCE_OFF_VERSION, 2);
	expect_refused(f, n, 0, ZKP_ERR_VERSION, "version", "version 2", NULL);

	/* a column out of range: caught by the checksum, and by the structure
	 * walk when checksums are skipped */
	const unsigned a_cols = PCE_MATRIX_SECTIONS * 0 + PCE_COLS;
	uint64_t k = rnd(sec_size(good, a_cols) / 4);
	memcpy(f, good, n);
	pce_put_u32(f + sec_off(good, a_cols) + 4 * k, (uint32_t)(c.n_in + c.n_aux));
	expect_refused(f, n, 0, ZKP_ERR_CHECKSUM, "column", "A.cols", NULL);
	expect_refused(f, n, ZKP_PCE_SKIP_CHECKSUMS, ZKP_ERR_FORMAT, "column", "A.cols",
		       "column 604", NULL);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "column resealed", "A.cols", NULL);

	/* a value >= r */
	const unsigned a_vals = PCE_VALUES;
	assert_true(sec_size(good, a_vals) >= 64);
	memcpy(f, good, n);
	memset(f + sec_off(good, a_vals) + 32, 0xff, 32);
	expect_refused(f, n, ZKP_PCE_SKIP_CHECKSUMS, ZKP_ERR_NOT_CANONICAL, "value", "A.values",
		       "value 1 ", NULL);
	memcpy(f + sec_off(good, a_vals) + 32, ZKP_FR_MODULUS, 32); /* exactly r */
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_NOT_CANONICAL, "value = r", "A.values", NULL);

	/* structural damage with matching checksums */
	memcpy(f, good, n);
	const unsigned c_codes = 2 * PCE_MATRIX_SECTIONS + PCE_CODES;
	uint64_t c_values = pce_get_u64(good + PCE_OFF_MATRICES + 64 + 8);
	assert_true(c_values < 253 && sec_size(good, c_codes) > 0);
	f[sec_off(good, c_codes)] = (uint8_t)(2 + c_values);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "code", "C.codes", NULL);

	const unsigned a_esc = PCE_ESCAPES;
	assert_true(sec_size(good, a_esc) > 0);
	memcpy(f, good, n);
	pce_put_u32(f + sec_off(good, a_esc), (uint32_t)(sec_size(good, a_vals) / 32));
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "escape", "A.escapes", NULL);

	const unsigned a_blocks = PCE_BLOCKS;
	memcpy(f, good, n);
	f[sec_off(good, a_blocks) + 16] ^= 1; /* block 1's nnz offset */
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "block", "A.blocks", "block 1", NULL);

	const unsigned a_ovf = PCE_OVERFLOW;
	assert_true(sec_size(good, a_ovf) > 0);
	memcpy(f, good, n);
	pce_put_u32(f + sec_off(good, a_ovf), 17);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "overflow", "A.overflow", NULL);

	/* a row length that no longer adds up to nnz */
	memcpy(f, good, n);
	uint64_t r;
	for (r = 70; good[sec_off(good, PCE_ROW_LEN) + r] >= 250; r++)
		;
	f[sec_off(good, PCE_ROW_LEN) + r] += 1;
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "row_len", "A.", NULL);

	/* columns not increasing within a row */
	memcpy(f, good, n);
	const uint8_t *rl = good + sec_off(good, PCE_ROW_LEN);
	const uint8_t *ovf = good + sec_off(good, PCE_OVERFLOW);
	uint64_t pos = 0, len = 0;
	for (r = 0, k = 0; r < c.rows; r++, pos += len) {
		len = rl[r] == 255 ? pce_get_u32(ovf + 4 * k++) : rl[r];
		if (len >= 2)
			break;
	}
	assert_true(r < c.rows);
	memcpy(f + sec_off(good, a_cols) + 4 * (pos + 1), f + sec_off(good, a_cols) + 4 * pos, 4);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "order", "A.cols", "increasing", NULL);

	/* table entries: misaligned, wrong size, wrong id */
	memcpy(f, good, n);
	pce_put_u64(f + 256 + 64 * 4 + 8, sec_off(good, 4) + 4);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "aligned", "A.escapes", "multiple of 64", NULL);
	memcpy(f, good, n);
	pce_put_u64(f + 256 + 64 * 9 + 16, sec_size(good, 9) + 4);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "size", "B.cols", NULL);
	memcpy(f, good, n);
	pce_put_u32(f + 256 + 64 * 22, 0x77);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "id", "density.b_input", NULL);

	/* digest that does not match, and header dims that disagree */
	memcpy(f, good, n);
	f[PCE_OFF_DIGEST] ^= 1;
	reseal(f, false);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "digest", "digest", NULL);
	memcpy(f, good, n);
	pce_put_u32(f + PCE_OFF_DOMAIN_LOG2, 20);
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "domain", "domain_log2", NULL);

	/* density bits past the last variable */
	memcpy(f, good, n);
	const unsigned dens = PCE_SEC_DENSITY_B_INPUT;
	f[sec_off(good, dens)] |= 0x80; /* 4 inputs: bit 7 is past them */
	reseal(f, true);
	expect_refused(f, n, 0, ZKP_ERR_FORMAT, "density", "density.b_input", NULL);

	/* untouched, it still loads */
	memcpy(f, good, n);
	reseal(f, true);
	assert_memory_equal(f, good, n);

	zkp_pce *pce = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_load(&pce, tmp_path("missing.pce"), 0, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, "missing.pce"));

	free(f);
	free(good);
	tc_free(&c);
}

static bool dir_has_temp(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	bool found = false;
	for (struct dirent *e; (e = readdir(d));)
		found |= strstr(e->d_name, ".tmp") != NULL;
	closedir(d);
	return found;
}

static void test_write_errors(void **state)
{
	(void)state;
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_builder_new(&b, 2, 10), 0);

	/* an out-of-range column is refused and leaves the builder unchanged */
	zkp_pce_term t[2] = { { 1, ZKP_FR_ONE }, { 12, ZKP_FR_ONE } };
	assert_int_equal(zkp_pce_builder_add(b, t, 1, t, 2, NULL, 0, &err), ZKP_ERR_RANGE);
	assert_non_null(strstr(err.msg, "constraint 0"));
	assert_non_null(strstr(err.msg, "column 12"));
	assert_int_equal(zkp_pce_builder_rows(b), 0);
	t[1].col = 11;
	assert_int_equal(zkp_pce_builder_add(b, t, 1, t, 2, t + 1, 1, &err), 0);
	assert_int_equal(zkp_pce_builder_rows(b), 1);

	/* a directory that does not exist */
	const char *nowhere = "/nonexistent-zkpd-dir/x.pce";
	assert_int_equal(zkp_pce_builder_write(b, nowhere, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, nowhere));
	assert_int_equal(access(nowhere, F_OK), -1);

	/* the final name is a directory: rename fails after the data was
	 * written, and the temporary file is removed */
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/werr", tmpdir);
	assert_int_equal(mkdir(sub, 0755), 0);
	const char *target = tmp_path("werr/dir.pce");
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(zkp_pce_builder_write(b, target, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, target));
	assert_false(dir_has_temp(sub));
	assert_int_equal(rmdir(target), 0);

	/* a read-only directory, where permissions apply (not as root) */
	if (geteuid() != 0) {
		assert_int_equal(chmod(sub, 0555), 0);
		assert_int_equal(zkp_pce_builder_write(b, target, &err), ZKP_ERR_IO);
		assert_int_equal(access(target, F_OK), -1);
		assert_int_equal(chmod(sub, 0755), 0);
	}

	/* a file size limit (as a full disk would): the write fails after the
	 * temporary file exists, and it is removed. The soft limit is lowered
	 * for this process and raised again (no fork: this process has the
	 * pool's threads, and the write starts threads of its own). */
	struct rlimit was, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = (struct rlimit){ 1000, was.rlim_max };
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = zkp_pce_builder_write(b, target, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, old_xfsz);
	assert_int_equal(rc, ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, ".tmp."));
	assert_false(dir_has_temp(sub));
	assert_int_equal(access(target, F_OK), -1);

	/* and the builder still writes a good file afterwards */
	assert_int_equal(zkp_pce_builder_write(b, target, &err), 0);
	assert_false(dir_has_temp(sub));
	zkp_pce *pce = load_ok(target, 0);
	zkp_fr w[12], out[3];
	for (int i = 0; i < 12; i++)
		zkp_fr_set_u64(&w[i], (uint64_t)i + 1);
	zkp_pce_eval(pce, w, &out[0], &out[1], &out[2], NULL);
	zkp_fr want;
	zkp_fr_set_u64(&want, 2);
	assert_true(zkp_fr_eq(&out[0], &want));
	zkp_fr_set_u64(&want, 2 + 12);
	assert_true(zkp_fr_eq(&out[1], &want));
	zkp_fr_set_u64(&want, 12);
	assert_true(zkp_fr_eq(&out[2], &want));
	zkp_pce_free(pce);
	unlink(target);
	rmdir(sub);
	zkp_pce_builder_free(b);
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	for (int i = 0; i < 600; i++)
		tu_rand_fr(&large_pool[i]);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_pce.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return zkp_pool_new(&pool2, 2);
}

static int teardown(void **state)
{
	(void)state;
	zkp_pool_free(pool2);
	DIR *d = opendir(tmpdir);
	if (d) {
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			char p[400];
			snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_eval),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_empty_circuit),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_write_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
