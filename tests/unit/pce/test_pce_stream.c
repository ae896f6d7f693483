/*
 * The two-pass builder (counting pass, then a second pass streamed into
 * the file) against the memory builder.
 *
 * Random circuits (duplicate columns that merge, terms that cancel, +-1,
 * small and random coefficients with more than 253 distinct values per
 * matrix so escapes occur, rows longer than 255 terms so overflow occurs,
 * empty rows, row counts that are not multiples of 64) are built both
 * ways: the files must be byte-identical, load, and be satisfied by the
 * witness each circuit was made for (every C row ends with a term on ONE
 * that makes it A.w * B.w); the stats must agree with each other and with
 * a reference computed here from the terms. Second passes that differ from
 * the first (an extra term, a coefficient the matrix never had, an extra
 * row, a missing row, the same counts on another column) must fail with
 * ZKP_ERR_MISMATCH, leave no temporary file, and let the builder stream
 * again. Builders of a circuit's parts, appended in order, write the file
 * one builder of every row writes.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/error.h"
#include "zkpd/pce.h"

static char tmpdir[64];
static zkp_fr pool[600];

/* ---- helpers ---- */

static uint64_t rnd(uint64_t n) { return n ? tu_rand64() % n : 0; }

static void fr_small(zkp_fr *r, int64_t v)
{
	zkp_fr_set_u64(r, (uint64_t)(v < 0 ? -v : v));
	if (v < 0)
		zkp_fr_neg(r, r);
}

/* A fresh directory under tmpdir, so each test sees only its own files. */
static char *subdir(const char *name)
{
	static char buf[4][160];
	static int i;
	char *p = buf[i++ % 4];
	snprintf(p, 160, "%s/%s", tmpdir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	return p;
}

static char *path_in(const char *dir, const char *name)
{
	static char buf[8][200];
	static int i;
	char *p = buf[i++ % 8];
	snprintf(p, 200, "%s/%s", dir, name);
	return p;
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[400];
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		remove_tree(p);
	}
	closedir(d);
	rmdir(path);
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

static void assert_same_bytes(const char *p1, const char *p2)
{
	size_t at;
	if (!tu_files_equal(p1, p2, &at))
		fail_msg("%s and %s differ first at byte %zu", p1, p2, at);
}

/* ---- random circuits with a satisfying witness ---- */

struct circ {
	uint64_t n_in, n_aux, rows;
	zkp_pce_term *t[3];
	size_t n[3], cap[3];
	size_t *start[3]; /* rows + 1 */
	zkp_fr *w;
};

struct shape {
	uint64_t n_in, n_aux, rows;
	int long_rows; /* rows of more than 255 terms in each matrix */
};

static void push(struct circ *c, int m, uint32_t col, const zkp_fr *v)
{
	if (c->n[m] == c->cap[m]) {
		c->cap[m] = c->cap[m] ? 2 * c->cap[m] : 256;
		c->t[m] = realloc(c->t[m], c->cap[m] * sizeof(zkp_pce_term));
		assert_non_null(c->t[m]);
	}
	c->t[m][c->n[m]++] = (zkp_pce_term){ col, *v };
}

static void rand_coeff(zkp_fr *v)
{
	uint64_t p = rnd(100);
	if (p < 40)
		zkp_fr_set_one(v);
	else if (p < 60)
		fr_small(v, -1);
	else if (p < 78)
		fr_small(v, (int64_t)(2 + rnd(11)) * (rnd(2) ? 1 : -1));
	else if (p < 95)
		*v = pool[rnd(600)];
	else
		tu_rand_fr(v);
}

static bool row_has_col(const struct circ *c, int m, size_t first, uint32_t col)
{
	for (size_t i = first; i < c->n[m]; i++)
		if (c->t[m][i].col == col)
			return true;
	return false;
}

/* One linear combination of len terms (on distinct columns when long),
 * with columns that merge, cancel, or sum to +1, shuffled half the time. */
static void gen_lc(struct circ *c, int m, size_t len, bool long_row)
{
	const uint64_t nvars = c->n_in + c->n_aux;
	const size_t first = c->n[m];
	zkp_fr v;

	for (size_t i = 0; i < len; i++) {
		uint32_t col;
		do
			col = (uint32_t)rnd(nvars);
		while (long_row && row_has_col(c, m, first, col));
		rand_coeff(&v);
		push(c, m, col, &v);
	}
	if (len && rnd(4) == 0) {
		rand_coeff(&v);
		push(c, m, c->t[m][first + rnd(len)].col, &v);
	}
	if (len && rnd(4) == 0) {
		uint32_t col = c->t[m][first + rnd(len)].col;
		zkp_fr_set_zero(&v);
		for (size_t i = first; i < c->n[m]; i++)
			if (c->t[m][i].col == col)
				zkp_fr_add(&v, &v, &c->t[m][i].coeff);
		zkp_fr_neg(&v, &v);
		push(c, m, col, &v);
	}
	if (len && rnd(6) == 0) {
		uint32_t col = (uint32_t)rnd(nvars);
		if (!row_has_col(c, m, first, col)) {
			fr_small(&v, 2);
			push(c, m, col, &v);
			fr_small(&v, -1);
			push(c, m, col, &v);
		}
	}
	if (rnd(2))
		for (size_t i = c->n[m] - first; i > 1; i--) {
			size_t j = rnd(i);
			zkp_pce_term x = c->t[m][first + i - 1];
			c->t[m][first + i - 1] = c->t[m][first + j];
			c->t[m][first + j] = x;
		}
}

static void lc_eval(zkp_fr *ret, const zkp_pce_term *t, size_t n, const zkp_fr *w)
{
	zkp_fr_set_zero(ret);
	for (size_t i = 0; i < n; i++) {
		zkp_fr x;
		zkp_fr_mul(&x, &t[i].coeff, &w[t[i].col]);
		zkp_fr_add(ret, ret, &x);
	}
}

static void row_of(const struct circ *c, int m, uint64_t r, const zkp_pce_term **t, size_t *n)
{
	*t = c->t[m] + c->start[m][r];
	*n = c->start[m][r + 1] - c->start[m][r];
}

static void gen(struct circ *c, const struct shape *s)
{
	const uint64_t nvars = s->n_in + s->n_aux;
	memset(c, 0, sizeof(*c));
	c->n_in = s->n_in;
	c->n_aux = s->n_aux;
	c->rows = s->rows;
	c->w = calloc(nvars, sizeof(zkp_fr));
	assert_non_null(c->w);
	zkp_fr_set_one(&c->w[0]);
	for (uint64_t j = 1; j < nvars; j++)
		tu_rand_fr(&c->w[j]);
	for (int m = 0; m < 3; m++) {
		c->start[m] = calloc(s->rows + 1, sizeof(size_t));
		assert_non_null(c->start[m]);
	}
	for (uint64_t r = 0; r < s->rows; r++) {
		bool long_row = r >= 3 && r < 3 + (uint64_t)s->long_rows;
		for (int m = 0; m < 3; m++) {
			size_t len = long_row ? 256 + rnd(150) : rnd(10) == 0 ? 0 : 1 + rnd(6);
			c->start[m][r] = c->n[m];
			gen_lc(c, m, len, long_row);
		}
		/* C.w := A.w * B.w through a last term on ONE (zero when it
		 * already holds: a zero coefficient the builders drop). */
		zkp_fr abc[3], fix;
		for (int m = 0; m < 3; m++)
			lc_eval(&abc[m], c->t[m] + c->start[m][r], c->n[m] - c->start[m][r], c->w);
		zkp_fr_mul(&fix, &abc[0], &abc[1]);
		zkp_fr_sub(&fix, &fix, &abc[2]);
		push(c, 2, 0, &fix);
	}
	for (int m = 0; m < 3; m++)
		c->start[m][s->rows] = c->n[m];
}

static void circ_free(struct circ *c)
{
	for (int m = 0; m < 3; m++) {
		free(c->t[m]);
		free(c->start[m]);
	}
	free(c->w);
}

/* rows, nnz and density popcounts from the terms, merged here. */
static void ref_stats(const struct circ *c, zkp_pce_builder_stats *s)
{
	const uint64_t nvars = c->n_in + c->n_aux;
	zkp_fr *acc = calloc(nvars, sizeof(zkp_fr));
	uint8_t *done = calloc(nvars, 1), *used[2] = { calloc(nvars, 1), calloc(nvars, 1) };
	assert_true(acc && done && used[0] && used[1]);

	memset(s, 0, sizeof(*s));
	s->rows = c->rows;
	s->n_inputs = c->n_in;
	s->n_aux = c->n_aux;
	for (uint64_t r = 0; r < c->rows; r++)
		for (int m = 0; m < 3; m++) {
			const zkp_pce_term *t;
			size_t n;
			row_of(c, m, r, &t, &n);
			for (size_t i = 0; i < n; i++)
				zkp_fr_add(&acc[t[i].col], &acc[t[i].col], &t[i].coeff);
			for (size_t i = 0; i < n; i++) {
				uint32_t col = t[i].col;
				if (done[col])
					continue;
				done[col] = 1;
				if (zkp_fr_is_zero(&acc[col]))
					continue;
				s->nnz[m]++;
				if (m < 2)
					used[m][col] = 1;
			}
			for (size_t i = 0; i < n; i++) {
				zkp_fr_set_zero(&acc[t[i].col]);
				done[t[i].col] = 0;
			}
		}
	for (uint64_t j = 0; j < nvars; j++) {
		if (j >= c->n_in) {
			s->a_aux += used[0][j];
			s->b_aux += used[1][j];
		} else {
			s->b_input += used[1][j];
		}
	}
	free(acc);
	free(done);
	free(used[0]);
	free(used[1]);
}

static void assert_stats_equal(const zkp_pce_builder_stats *x, const zkp_pce_builder_stats *y)
{
	assert_int_equal(x->rows, y->rows);
	assert_int_equal(x->n_inputs, y->n_inputs);
	assert_int_equal(x->n_aux, y->n_aux);
	for (int m = 0; m < 3; m++)
		assert_int_equal(x->nnz[m], y->nnz[m]);
	assert_int_equal(x->a_aux, y->a_aux);
	assert_int_equal(x->b_input, y->b_input);
	assert_int_equal(x->b_aux, y->b_aux);
}

/* ---- feeding builders, as given or changed ---- */

enum change {
	SAME,
	EXTRA_TERM,    /* one more term in A at row `at` */
	NEW_VALUE,     /* an A coefficient at `at` that nothing had */
	FOREIGN_VALUE, /* an A coefficient at `at` that only C had */
	MOVED_COLUMN,  /* an A term at `at` on another column: same counts */
	EXTRA_ROW,     /* one more row at the end */
	MISSING_ROW,   /* row `at` left out */
};

/* A column that row r of A does not use. */
static uint32_t fresh_col(const struct circ *c, uint64_t r)
{
	const zkp_pce_term *t;
	size_t n;
	row_of(c, 0, r, &t, &n);
	for (;;) {
		uint32_t col = (uint32_t)(c->n_in + rnd(c->n_aux));
		bool used = false;
		for (size_t i = 0; i < n; i++)
			used |= t[i].col == col;
		if (!used)
			return col;
	}
}

/* The index of a term of A's row r whose column no other term of the row
 * has and whose coefficient is not zero, or -1. */
static long lone_term(const struct circ *c, uint64_t r)
{
	const zkp_pce_term *t;
	size_t n;
	row_of(c, 0, r, &t, &n);
	for (size_t i = 0; i < n; i++) {
		bool lone = !zkp_fr_is_zero(&t[i].coeff);
		for (size_t j = 0; j < n; j++)
			lone &= j == i || t[j].col != t[i].col;
		if (lone)
			return (long)i;
	}
	return -1;
}

/* C's coefficient on ONE in row r, merged: a value only C has. */
static bool c_value(const struct circ *c, uint64_t r, zkp_fr *v)
{
	const zkp_pce_term *t;
	size_t n;
	row_of(c, 2, r, &t, &n);
	zkp_fr_set_zero(v);
	for (size_t i = 0; i < n; i++)
		if (t[i].col == 0)
			zkp_fr_add(v, v, &t[i].coeff);
	return !zkp_fr_is_zero(v);
}

/* Adds c's rows to b, changed as ch says at row at. Returns the first
 * error, with the row it came from in *failed. */
static int feed(zkp_pce_builder *b, const struct circ *c, enum change ch, uint64_t at,
		uint64_t *failed, zkp_error *err)
{
	zkp_pce_term *buf = NULL;
	int rc = 0;

	for (uint64_t r = 0; r < c->rows + (ch == EXTRA_ROW) && !rc; r++) {
		const uint64_t src = r < c->rows ? r : 0;
		const zkp_pce_term *t[3];
		size_t n[3];
		if (ch == MISSING_ROW && r == at)
			continue;
		for (int m = 0; m < 3; m++)
			row_of(c, m, src, &t[m], &n[m]);
		if (r == at && ch != SAME && ch != EXTRA_ROW && ch != MISSING_ROW) {
			buf = malloc((n[0] + 1) * sizeof(zkp_pce_term));
			assert_non_null(buf);
			memcpy(buf, t[0], n[0] * sizeof(zkp_pce_term));
			long i = lone_term(c, r);
			assert_true(i >= 0);
			if (ch == EXTRA_TERM)
				buf[n[0]++] = (zkp_pce_term){ fresh_col(c, r), ZKP_FR_ONE };
			else if (ch == NEW_VALUE)
				tu_rand_fr(&buf[i].coeff);
			else if (ch == FOREIGN_VALUE)
				assert_true(c_value(c, 5, &buf[i].coeff));
			else
				buf[i].col = fresh_col(c, r);
			t[0] = buf;
		}
		*failed = r;
		rc = zkp_pce_builder_add(b, t[0], n[0], t[1], n[1], t[2], n[2], err);
		free(buf);
		buf = NULL;
	}
	return rc;
}

static zkp_pce_builder *counted(const struct circ *c)
{
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	uint64_t row;
	assert_int_equal(zkp_pce_builder_new_counting(&b, c->n_in, c->n_aux), 0);
	int rc = feed(b, c, SAME, 0, &row, &err);
	if (rc)
		fail_msg("counting pass: %s", zkp_error_text(&err, rc));
	assert_int_equal(zkp_pce_builder_rows(b), c->rows);
	return b;
}

/* A second pass of c into path; fails the test on any error. */
static void stream_ok(zkp_pce_builder *b, const struct circ *c, const char *path)
{
	zkp_error err = { 0 };
	uint64_t row;
	int rc = zkp_pce_builder_stream_begin(b, path, &err);
	if (rc)
		fail_msg("stream_begin %s: %s", path, zkp_error_text(&err, rc));
	assert_int_equal(zkp_pce_builder_rows(b), 0);
	if ((rc = feed(b, c, SAME, 0, &row, &err)))
		fail_msg("second pass, row %llu: %s", (unsigned long long)row,
			 zkp_error_text(&err, rc));
	assert_int_equal(zkp_pce_builder_rows(b), c->rows);
	if ((rc = zkp_pce_builder_write(b, path, &err)))
		fail_msg("write %s: %s", path, zkp_error_text(&err, rc));
	assert_int_equal(zkp_pce_builder_rows(b), c->rows);
}

/* The memory builder's file, and its stats. */
static void write_memory(const struct circ *c, const char *path, zkp_pce_builder_stats *st,
			 bool reserve)
{
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	uint64_t row;
	assert_int_equal(zkp_pce_builder_new(&b, c->n_in, c->n_aux), 0);
	if (reserve) {
		zkp_pce_builder_stats want;
		ref_stats(c, &want);
		assert_int_equal(zkp_pce_builder_reserve(b, want.rows, want.nnz), 0);
	}
	int rc = feed(b, c, SAME, 0, &row, &err);
	if (rc)
		fail_msg("memory builder, row %llu: %s", (unsigned long long)row,
			 zkp_error_text(&err, rc));
	if ((rc = zkp_pce_builder_write(b, path, &err)))
		fail_msg("write %s: %s", path, zkp_error_text(&err, rc));
	zkp_pce_builder_get_stats(b, st);
	zkp_pce_builder_free(b);
}

/* ---- tests ---- */

static const struct shape big = { 5, 700, 1037, 3 };

static void check_identical(const struct shape *s, const char *dir, bool expect_escapes)
{
	struct circ c;
	zkp_pce_builder_stats want, mem, cnt, during;
	zkp_error err = { 0 };
	gen(&c, s);
	ref_stats(&c, &want);

	const char *p_mem = path_in(dir, "mem.pce"), *p_str = path_in(dir, "stream.pce");
	write_memory(&c, p_mem, &mem, false);
	assert_stats_equal(&mem, &want);

	zkp_pce_builder *b = counted(&c);
	zkp_pce_builder_get_stats(b, &cnt);
	assert_stats_equal(&cnt, &want);
	assert_int_equal(zkp_pce_builder_stream_begin(b, p_str, &err), 0);
	zkp_pce_builder_get_stats(b, &during);
	assert_stats_equal(&during, &want);
	/* freed during the second pass: its temporary file goes */
	zkp_pce_builder_free(b);
	assert_false(dir_has_temp(dir));

	b = counted(&c);
	stream_ok(b, &c, p_str);
	assert_false(dir_has_temp(dir));
	assert_same_bytes(p_mem, p_str);

	/* the counts survive a second pass: stream the same file again */
	const char *p_again = path_in(dir, "again.pce");
	stream_ok(b, &c, p_again);
	assert_same_bytes(p_mem, p_again);
	zkp_pce_builder_get_stats(b, &cnt);
	assert_stats_equal(&cnt, &want);
	zkp_pce_builder_free(b);

	/* the file loads and the witness the circuit was made for satisfies it */
	zkp_pce *pce = NULL;
	int rc = zkp_pce_load(&pce, p_str, 0, &err);
	if (rc)
		fail_msg("load %s: %s", p_str, zkp_error_text(&err, rc));
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	assert_int_equal(d->n_constraints, s->rows);
	for (int m = 0; m < 3; m++)
		assert_int_equal(d->nnz[m], want.nnz[m]);
	if (expect_escapes)
		for (int m = 0; m < 3; m++) {
			const zkp_pce_csr *x = zkp_pce_matrix(pce, (enum zkp_pce_matrix)m);
			assert_true(x->n_escapes > 0);
			assert_true(x->n_overflow > 0);
		}
	uint64_t row = 777;
	rc = zkp_pce_check(pce, c.w, &row, NULL, &err);
	if (rc)
		fail_msg("check: %s", zkp_error_text(&err, rc));
	zkp_pce_free(pce);
	circ_free(&c);
	remove_tree(dir);
}

static void test_identical(void **state)
{
	(void)state;
	static const struct shape shapes[] = {
		{ 1, 0, 0, 0 },   /* no rows */
		{ 1, 3, 1, 0 },   /* one row */
		{ 2, 300, 64, 0 }, /* exactly one block */
		{ 3, 500, 129, 1 },
	};
	check_identical(&big, subdir("identical"), true);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "shape%zu", i);
		check_identical(&shapes[i], subdir(name), false);
	}
}

struct bad_pass {
	enum change ch;
	bool at_add;      /* fails while adding (else at write) */
	const char *text; /* in the message */
};

static void test_mismatch(void **state)
{
	(void)state;
	static const struct bad_pass cases[] = {
		{ EXTRA_TERM, true, "differs from the counting pass" },
		{ NEW_VALUE, true, "never had there" },
		{ FOREIGN_VALUE, true, "never had there" },
		{ MOVED_COLUMN, false, "other rows" },
		{ EXTRA_ROW, true, "more than the 1037 rows counted" },
		{ MISSING_ROW, false, "the second pass has 1036 rows, the counting pass had 1037" },
	};
	const char *dir = subdir("mismatch");
	const char *p_mem = path_in(dir, "mem.pce"), *p_bad = path_in(dir, "bad.pce");
	struct circ c;
	zkp_pce_builder_stats st;
	gen(&c, &big);
	write_memory(&c, p_mem, &st, false);
	zkp_pce_builder *b = counted(&c);

	/* a row past the long ones with a term to change */
	uint64_t at = 500;
	while (lone_term(&c, at) < 0)
		at++;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_pass *k = &cases[i];
		zkp_error err = { 0 };
		uint64_t row = 0;
		assert_int_equal(zkp_pce_builder_stream_begin(b, p_bad, &err), 0);
		int rc = feed(b, &c, k->ch, at, &row, &err);
		if (k->at_add) {
			if (rc != ZKP_ERR_MISMATCH)
				fail_msg("case %zu: add gave %s", i, zkp_err_name(rc));
			char want[64];
			snprintf(want, sizeof(want), "constraint %llu: ", (unsigned long long)row);
			assert_non_null(strstr(err.msg, want));
			if (k->ch == EXTRA_ROW)
				assert_int_equal(row, c.rows);
			else if (k->ch == EXTRA_TERM)
				assert_true(row >= at);
			else
				assert_int_equal(row, at);
			/* the pass is abandoned: writing it is refused */
			zkp_error again = { 0 };
			assert_int_equal(zkp_pce_builder_write(b, p_bad, &again), ZKP_ERR_INVAL);
		} else {
			if (rc)
				fail_msg("case %zu: add row %llu: %s", i, (unsigned long long)row,
					 zkp_error_text(&err, rc));
			rc = zkp_pce_builder_write(b, p_bad, &err);
			assert_int_equal(rc, ZKP_ERR_MISMATCH);
			assert_non_null(strstr(err.msg, p_bad));
		}
		if (!strstr(err.msg, k->text))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, k->text);
		assert_false(dir_has_temp(dir));
		assert_int_equal(access(p_bad, F_OK), -1);
		/* the counts are intact: a good second pass still works */
		zkp_pce_builder_stats now;
		zkp_pce_builder_get_stats(b, &now);
		assert_stats_equal(&now, &st);
	}
	stream_ok(b, &c, p_bad);
	assert_same_bytes(p_mem, p_bad);
	zkp_pce_builder_free(b);
	circ_free(&c);
	remove_tree(dir);
}

static void test_misuse(void **state)
{
	(void)state;
	const char *dir = subdir("misuse");
	const char *p = path_in(dir, "x.pce"), *q = path_in(dir, "y.pce");
	struct circ c;
	zkp_error err = { 0 };
	uint64_t row;
	const struct shape s = { 2, 50, 70, 0 };
	gen(&c, &s);

	/* a counting builder holds nothing to write */
	zkp_pce_builder *b = counted(&c);
	assert_int_equal(zkp_pce_builder_write(b, p, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, p));
	assert_int_equal(access(p, F_OK), -1);

	/* a second stream_begin abandons the first pass's file */
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), 0);
	assert_true(dir_has_temp(dir));
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), ZKP_ERR_INVAL);
	assert_false(dir_has_temp(dir));

	/* writing elsewhere than announced */
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), 0);
	assert_int_equal(feed(b, &c, SAME, 0, &row, &err), 0);
	assert_int_equal(zkp_pce_builder_write(b, q, &err), ZKP_ERR_INVAL);
	assert_false(dir_has_temp(dir));
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(access(q, F_OK), -1);

	/* an out-of-range column in the second pass abandons it too */
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), 0);
	zkp_pce_term t = { 9999, ZKP_FR_ONE };
	assert_int_equal(zkp_pce_builder_add(b, &t, 1, NULL, 0, NULL, 0, &err), ZKP_ERR_RANGE);
	assert_false(dir_has_temp(dir));
	assert_int_equal(zkp_pce_builder_rows(b), c.rows);

	/* a directory that does not exist */
	assert_int_equal(zkp_pce_builder_stream_begin(b, "/nonexistent-zkpd-dir/x.pce", &err),
			 ZKP_ERR_IO);

	/* a file size limit: sizing the temporary file fails, and it is
	 * removed; in a child, since the limit is per process */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = { 1000, 1000 };
		signal(SIGXFSZ, SIG_IGN);
		int rc = setrlimit(RLIMIT_FSIZE, &lim) ? 10 : zkp_pce_builder_stream_begin(b, p, &err);
		_exit(rc == ZKP_ERR_IO && strstr(err.msg, ".tmp.") ? 0 : 11);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(dir_has_temp(dir));

	/* freeing during a second pass removes its file */
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), 0);
	assert_int_equal(feed(b, &c, MISSING_ROW, 60, &row, &err), 0);
	assert_true(dir_has_temp(dir));
	zkp_pce_builder_free(b);
	assert_false(dir_has_temp(dir));

	/* a memory builder does not stream */
	assert_int_equal(zkp_pce_builder_new(&b, c.n_in, c.n_aux), 0);
	assert_int_equal(zkp_pce_builder_stream_begin(b, p, &err), ZKP_ERR_INVAL);
	assert_false(dir_has_temp(dir));
	zkp_pce_builder_free(b);
	zkp_pce_builder_free(NULL);
	circ_free(&c);
	remove_tree(dir);
}

static void test_reserve(void **state)
{
	(void)state;
	const char *dir = subdir("reserve");
	const char *p1 = path_in(dir, "plain.pce"), *p2 = path_in(dir, "reserved.pce");
	struct circ c;
	zkp_pce_builder_stats s1, s2;
	gen(&c, &big);
	write_memory(&c, p1, &s1, false);
	write_memory(&c, p2, &s2, true);
	assert_stats_equal(&s1, &s2);
	assert_same_bytes(p1, p2);

	zkp_pce_builder *b = NULL;
	const uint64_t huge[3] = { 1, UINT64_MAX, 1 };
	assert_int_equal(zkp_pce_builder_new(&b, 1, 1), 0);
	assert_int_equal(zkp_pce_builder_reserve(b, ((uint64_t)1 << 28) + 1, NULL), ZKP_ERR_RANGE);
	assert_int_equal(zkp_pce_builder_reserve(b, 10, huge), ZKP_ERR_RANGE);
	assert_int_equal(zkp_pce_builder_reserve(b, 10, NULL), 0);
	zkp_pce_builder_free(b);
	assert_int_equal(zkp_pce_builder_new_counting(&b, 1, 1), 0);
	assert_int_equal(zkp_pce_builder_reserve(b, 10, huge), 0);
	zkp_pce_builder_free(b);
	circ_free(&c);
	remove_tree(dir);
}

/* c's rows [lo, hi) into a new memory builder. */
static zkp_pce_builder *part_of(const struct circ *c, uint64_t lo, uint64_t hi)
{
	zkp_pce_builder *b = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pce_builder_new(&b, c->n_in, c->n_aux), 0);
	for (uint64_t r = lo; r < hi; r++) {
		const zkp_pce_term *t[3];
		size_t n[3];
		for (int m = 0; m < 3; m++)
			row_of(c, m, r, &t[m], &n[m]);
		int rc = zkp_pce_builder_add(b, t[0], n[0], t[1], n[1], t[2], n[2], &err);
		if (rc)
			fail_msg("part row %llu: %s", (unsigned long long)r, zkp_error_text(&err, rc));
	}
	return b;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* Appends part[1..k) to part[0] on threads (freeing them), and checks the
 * joined builder's figures against one's and its file against p_one's;
 * frees part[0]. */
static void join_and_check(zkp_pce_builder **part, unsigned k, zkp_pool *threads,
			   const zkp_pce_builder_stats *one, const char *p_one,
			   const char *p_parts)
{
	zkp_pce_builder_stats got;
	zkp_error err = { 0 };
	for (unsigned i = 1; i < k; i++) {
		int rc = zkp_pce_builder_append(part[0], part[i], threads, &err);
		if (rc)
			fail_msg("append part %u: %s", i, zkp_error_text(&err, rc));
		zkp_pce_builder_free(part[i]);
	}
	assert_int_equal(zkp_pce_builder_rows(part[0]), one->rows);
	zkp_pce_builder_get_stats(part[0], &got);
	assert_stats_equal(&got, one);
	int rc = zkp_pce_builder_write(part[0], p_parts, &err);
	if (rc)
		fail_msg("write %s: %s", p_parts, zkp_error_text(&err, rc));
	assert_same_bytes(p_one, p_parts);
	zkp_pce_builder_free(part[0]);
}

/* A circuit's rows cut into parts, each in a builder of its own, appended
 * in order: the file one builder fed every row writes, byte for byte. */
static void test_append(void **state)
{
	(void)state;
	const char *dir = subdir("append");
	struct circ c;
	zkp_pce_builder_stats one;
	zkp_error err = { 0 };
	gen(&c, &big);
	const char *p_one = path_in(dir, "one.pce"), *p_parts = path_in(dir, "parts.pce");
	write_memory(&c, p_one, &one, false);

	for (unsigned k = 1; k <= 6; k++) {
		/* k parts at random cuts (empty parts included: cuts may repeat) */
		uint64_t cut[8];
		cut[0] = 0;
		cut[k] = c.rows;
		for (unsigned i = 1; i < k; i++)
			cut[i] = i == 2 ? cut[1] : rnd(c.rows + 1);
		qsort(cut + 1, k > 1 ? k - 1 : 0, sizeof(uint64_t), cmp_u64);
		zkp_pce_builder *part[8];
		for (unsigned i = 0; i < k; i++)
			part[i] = part_of(&c, cut[i], cut[i + 1]);
		if (k % 2 == 0) /* sized once, as the parallel PoRep build does */
			assert_int_equal(zkp_pce_builder_reserve(part[0], one.rows, one.nnz), 0);
		join_and_check(part, k, NULL, &one, p_one, p_parts);
	}

	/* src is unchanged: the same half appended twice gives its rows twice */
	uint64_t half = c.rows / 2;
	zkp_pce_builder *a = part_of(&c, 0, half), *h = part_of(&c, 0, half);
	assert_int_equal(zkp_pce_builder_append(a, h, NULL, &err), 0);
	assert_int_equal(zkp_pce_builder_append(a, h, NULL, &err), 0);
	assert_int_equal(zkp_pce_builder_rows(a), 3 * half);
	assert_int_equal(zkp_pce_builder_rows(h), half);

	/* misuse: a counting builder either way, other dimensions */
	zkp_pce_builder *cnt = counted(&c), *other = NULL;
	assert_int_equal(zkp_pce_builder_append(a, cnt, NULL, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "two memory builders"));
	assert_int_equal(zkp_pce_builder_append(cnt, h, NULL, &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_pce_builder_new(&other, c.n_in, c.n_aux + 1), 0);
	assert_int_equal(zkp_pce_builder_append(a, other, NULL, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "to a builder of"));
	assert_int_equal(zkp_pce_builder_rows(a), 3 * half);
	zkp_pce_builder_free(other);
	zkp_pce_builder_free(cnt);
	zkp_pce_builder_free(h);
	zkp_pce_builder_free(a);
	circ_free(&c);
	remove_tree(dir);
}

/* Parts large enough that the append's copy is split over the pool: more
 * than 2^20 non-zeros in a matrix of a part (its term ranges) and more than
 * 2^16 words of density bitmap (its word ranges). On 2 workers and on the
 * caller alone, the same file as one builder fed every row. */
static void test_append_pool(void **state)
{
	(void)state;
	static const struct shape wide = { 3, ((uint64_t)1 << 22) + 3001, 420000, 0 };
	const char *dir = subdir("append_pool");
	struct circ c;
	zkp_pce_builder_stats one;
	zkp_pool *threads = NULL;
	assert_int_equal(zkp_pool_new(&threads, 2), 0);
	gen(&c, &wide);
	const char *p_one = path_in(dir, "one.pce"), *p_parts = path_in(dir, "parts.pce");
	write_memory(&c, p_one, &one, false);
	assert_true(one.nnz[0] > ((uint64_t)1 << 20) + ((uint64_t)1 << 16));
	const uint64_t cut[4] = { 0, 7, c.rows - 3, c.rows };
	for (int on_pool = 0; on_pool < 2; on_pool++) {
		zkp_pce_builder *part[3];
		for (unsigned i = 0; i < 3; i++)
			part[i] = part_of(&c, cut[i], cut[i + 1]);
		join_and_check(part, 3, on_pool ? threads : NULL, &one, p_one, p_parts);
	}
	zkp_pool_free(threads);
	circ_free(&c);
	remove_tree(dir);
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	for (int i = 0; i < 600; i++)
		tu_rand_fr(&pool[i]);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_pce_stream.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_append_pool),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
