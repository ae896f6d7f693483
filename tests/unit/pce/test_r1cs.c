/*
 * circom .r1cs import: files written byte by byte here. Good files in every
 * section order; each header field wrong in turn; missing, repeated and
 * unsupported sections; coefficients >= r; cuts at every offset; flipped
 * bytes. Then end to end: .r1cs -> .pce -> evaluation against a naive
 * evaluation of the same terms, satisfaction, and a tampered witness that
 * must fail at the row the naive evaluation finds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "circom_bytes.h"
#include "zkpd/error.h"
#include "zkpd/pce.h"
#include "zkpd/r1cs.h"
#include "zkpd/witness.h"

typedef struct {
	uint32_t wire;
	uint8_t c[32]; /* canonical little-endian */
} term;

typedef struct {
	term *t[3];
	uint32_t n[3];
	uint32_t n_decl[3]; /* written term counts; normally n */
} cons;

typedef struct {
	uint32_t version;
	uint32_t n8;
	const uint64_t *prime;
	uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
	uint64_t n_labels;
	uint32_t m;          /* mConstraints as written */
	uint32_t label_wires; /* entries of section 3 */
	cons *rows;
	uint32_t nrows;
	int order;    /* 0: 1 2 3; 1: 2 1 3 (circom's); 2: 9 3 2 1 */
	int drop;     /* section id left out */
	int dup;      /* section id written twice */
	int extra_id; /* an extra (empty) section with this id, first */
	uint32_t hdr_extra;
} r1cs_spec;

static void fr_bytes(uint8_t out[32], const zkp_fr *v)
{
	zkp_fr_to_le(out, v);
}

static void int_bytes(uint8_t out[32], int64_t v)
{
	zkp_fr x;
	zkp_fr_set_u64(&x, (uint64_t)(v < 0 ? -v : v));
	if (v < 0)
		zkp_fr_neg(&x, &x);
	fr_bytes(out, &x);
}

static void add_term(cons *c, int k, uint32_t wire, int64_t v)
{
	c->t[k] = realloc(c->t[k], (c->n[k] + 1) * sizeof(term));
	c->t[k][c->n[k]].wire = wire;
	int_bytes(c->t[k][c->n[k]].c, v);
	c->n[k]++;
	c->n_decl[k] = c->n[k];
}

static void add_term_fr(cons *c, int k, uint32_t wire, const zkp_fr *v)
{
	add_term(c, k, wire, 0);
	fr_bytes(c->t[k][c->n[k] - 1].c, v);
}

static void free_rows(cons *rows, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			free(rows[i].t[k]);
	free(rows);
}

/*
 * The tiny circuit: out = a*b*c + a + 7. Wires: 0 ONE, 1 out (public
 * output), 2 a (public input), 3 b, 4 c (private inputs), 5 ab.
 *   row 0: (-a) * (b) = (-ab)              (circom writes negated rows)
 *   row 1: (ab) * (c) = out - a - 7
 *   row 2: 0 * 0 = 2b - 2b + 0c            (linear, repeats and a zero)
 */
#define TINY_WIRES 6
static const uint64_t tiny_w[TINY_WIRES] = { 1, 115, 3, 5, 7, 15 };

static cons *tiny_rows(void)
{
	cons *r = calloc(3, sizeof(cons));
	add_term(&r[0], 0, 2, -1);
	add_term(&r[0], 1, 3, 1);
	add_term(&r[0], 2, 5, -1);
	add_term(&r[1], 0, 5, 1);
	add_term(&r[1], 1, 4, 1);
	add_term(&r[1], 2, 1, 1);
	add_term(&r[1], 2, 2, -1);
	add_term(&r[1], 2, 0, -7);
	add_term(&r[2], 2, 3, 2);
	add_term(&r[2], 2, 3, -2);
	add_term(&r[2], 2, 4, 0);
	return r;
}

static r1cs_spec tiny_spec(cons *rows)
{
	r1cs_spec s = {
		.version = 1, .n8 = 32, .prime = ZKP_FR_MODULUS, .n_wires = TINY_WIRES,
		.n_pub_out = 1, .n_pub_in = 1, .n_prv_in = 2, .n_labels = 8, .m = 3,
		.label_wires = TINY_WIRES, .rows = rows, .nrows = 3, .order = 1,
	};
	return s;
}

static void make_r1cs(bytes *out, const r1cs_spec *s)
{
	bytes hdr = { 0 }, con = { 0 }, map = { 0 }, empty = { 0 };
	b_u32(&hdr, s->n8);
	b_limbs(&hdr, s->prime, s->n8 / 8);
	b_u32(&hdr, s->n_wires);
	b_u32(&hdr, s->n_pub_out);
	b_u32(&hdr, s->n_pub_in);
	b_u32(&hdr, s->n_prv_in);
	b_u64(&hdr, s->n_labels);
	b_u32(&hdr, s->m);
	for (uint32_t i = 0; i < s->hdr_extra; i++)
		b_put(&hdr, "", 1);
	for (uint32_t i = 0; i < s->nrows; i++)
		for (int k = 0; k < 3; k++) {
			b_u32(&con, s->rows[i].n_decl[k]);
			for (uint32_t j = 0; j < s->rows[i].n[k]; j++) {
				b_u32(&con, s->rows[i].t[k][j].wire);
				b_put(&con, s->rows[i].t[k][j].c, 32);
			}
		}
	for (uint32_t i = 0; i < s->label_wires; i++)
		b_u64(&map, i == 0 ? 0 : i + 1);

	static const int orders[3][4] = { { 1, 2, 3, 0 }, { 2, 1, 3, 0 }, { 9, 3, 2, 1 } };
	csec list[8];
	size_t n = 0;
	if (s->extra_id)
		list[n++] = (csec){ (uint32_t)s->extra_id, &empty, 0 };
	for (int i = 0; i < 4 && orders[s->order][i]; i++) {
		int id = orders[s->order][i];
		if (id == s->drop)
			continue;
		const bytes *body = id == 1 ? &hdr : id == 2 ? &con : id == 3 ? &map : &empty;
		list[n++] = (csec){ (uint32_t)id, body, 0 };
		if (id == s->dup)
			list[n++] = (csec){ (uint32_t)id, body, 0 };
	}
	circom_file(out, "r1cs", s->version, list, n);
	b_free(&hdr);
	b_free(&con);
	b_free(&map);
}

/* Walks the whole file; collects nothing. */
static int parse(const bytes *b, zkp_error *err)
{
	zkp_r1cs *r = NULL;
	int rc = zkp_r1cs_open_buffer(&r, b->p, b->n, "t.r1cs", err);
	if (rc) {
		assert_null(r);
		return rc;
	}
	rc = zkp_r1cs_for_each(r, NULL, NULL, NULL, err);
	zkp_r1cs_free(r);
	return rc;
}

static void expect(const bytes *b, int rc, const char *needle)
{
	zkp_error err = { 0 };
	int got = parse(b, &err);
	if (got != rc)
		fail_msg("expected %s, got %s: %s", zkp_err_name(rc), zkp_err_name(got),
			 zkp_error_text(&err, got));
	if (rc == 0)
		return;
	assert_int_equal(err.code, rc);
	assert_non_null(strstr(err.msg, "t.r1cs"));
	if (needle && !strstr(err.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

/* Compares every term the walk hands out with the model. */
typedef struct {
	const r1cs_spec *s;
	uint64_t calls;
} walk;

static int check_row(void *ctx, uint64_t row, const zkp_r1cs_lc lc[3], zkp_error *err)
{
	(void)err;
	walk *w = ctx;
	const cons *c = &w->s->rows[row];
	assert_int_equal(row, w->calls);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(lc[k].n, c->n[k]);
		for (size_t j = 0; j < lc[k].n; j++) {
			zkp_fr want;
			assert_int_equal(lc[k].terms[j].col, c->t[k][j].wire);
			assert_int_equal(zkp_fr_from_le(&want, c->t[k][j].c), 0);
			assert_true(zkp_fr_eq(&lc[k].terms[j].coeff, &want));
		}
	}
	w->calls++;
	return 0;
}

static void test_good_every_order(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	for (int order = 0; order < 3; order++) {
		r1cs_spec s = tiny_spec(rows);
		s.order = order;
		bytes b = { 0 };
		make_r1cs(&b, &s);
		zkp_r1cs *r = NULL;
		zkp_error err = { 0 };
		assert_int_equal(zkp_r1cs_open_buffer(&r, b.p, b.n, NULL, &err), 0);
		const zkp_r1cs_info *in = zkp_r1cs_get_info(r);
		assert_int_equal(in->field_bytes, 32);
		assert_int_equal(in->n_wires, TINY_WIRES);
		assert_int_equal(in->n_pub_out, 1);
		assert_int_equal(in->n_pub_in, 1);
		assert_int_equal(in->n_prv_in, 2);
		assert_int_equal(in->n_labels, 8);
		assert_int_equal(in->n_constraints, 3);
		assert_int_equal(in->n_inputs, 3);
		assert_int_equal(in->n_aux, 3);
		assert_int_equal(in->file_bytes, b.n);
		walk w = { &s, 0 };
		uint64_t nnz[3];
		assert_int_equal(zkp_r1cs_for_each(r, check_row, &w, nnz, &err), 0);
		assert_int_equal(w.calls, 3);
		assert_int_equal(nnz[0], 2);
		assert_int_equal(nnz[1], 2);
		assert_int_equal(nnz[2], 1 + 3 + 3);
		/* a second walk sees the same */
		w.calls = 0;
		assert_int_equal(zkp_r1cs_for_each(r, check_row, &w, NULL, &err), 0);
		assert_int_equal(w.calls, 3);
		zkp_r1cs_free(r);
		b_free(&b);
	}
	/* no wire-to-label map, an unknown section: both fine */
	r1cs_spec s = tiny_spec(rows);
	s.drop = 3;
	bytes b = { 0 };
	make_r1cs(&b, &s);
	expect(&b, 0, NULL);
	b_free(&b);
	s = tiny_spec(rows);
	s.extra_id = 9;
	make_r1cs(&b, &s);
	expect(&b, 0, NULL);
	b_free(&b);
	/* no constraints at all */
	s = tiny_spec(rows);
	s.m = 0;
	s.nrows = 0;
	make_r1cs(&b, &s);
	expect(&b, 0, NULL);
	b_free(&b);
	free_rows(rows, 3);
}

static void test_header_fields(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	bytes b = { 0 };
	r1cs_spec s;

	s = tiny_spec(rows);
	make_r1cs(&b, &s);
	memcpy(b.p, "r1cz", 4);
	expect(&b, ZKP_ERR_FORMAT, "magic");
	memcpy(b.p, "\x01\x00\x00\x00", 4);
	expect(&b, ZKP_ERR_FORMAT, "01 00 00 00");
	b_free(&b);

	const uint32_t versions[] = { 0, 2, 0x01000000 };
	for (size_t i = 0; i < 3; i++) {
		s = tiny_spec(rows);
		s.version = versions[i];
		make_r1cs(&b, &s);
		expect(&b, ZKP_ERR_VERSION, "version");
		b_free(&b);
	}

	s = tiny_spec(rows); /* circom's default, BN254 */
	s.prime = BN254_R;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "BN254");
	expect(&b, ZKP_ERR_WRONG_PRIME, BN254_R_DECIMAL);
	expect(&b, ZKP_ERR_WRONG_PRIME, "--prime bls12381");
	b_free(&b);

	s = tiny_spec(rows);
	s.n8 = 48;
	s.prime = ZKP_FP_MODULUS;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "base field");
	b_free(&b);

	static const uint64_t goldilocks[1] = { 0xffffffff00000001 };
	s = tiny_spec(rows);
	s.n8 = 8;
	s.prime = goldilocks;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "18446744069414584321");
	b_free(&b);

	uint64_t r_minus_2[4];
	memcpy(r_minus_2, ZKP_FR_MODULUS, sizeof(r_minus_2));
	r_minus_2[0] -= 2;
	s = tiny_spec(rows);
	s.prime = r_minus_2;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME,
	       "52435875175126190479447740508185965837690552500527637822603658699938581184511");
	b_free(&b);

	s = tiny_spec(rows);
	s.n_wires = 0;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "nWires is 0");
	b_free(&b);

	/* nWires one short: the label map disagrees, or without the map a
	 * wire id is out of range */
	s = tiny_spec(rows);
	s.n_wires = TINY_WIRES - 1;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "(id 3)");
	b_free(&b);
	s.drop = 3;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "wire 5 is not below nWires 5");
	b_free(&b);
	s = tiny_spec(rows);
	s.n_wires = TINY_WIRES + 1;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "(id 3)");
	b_free(&b);

	uint32_t *counts[3];
	for (int f = 0; f < 3; f++) {
		const uint32_t bad[] = { 5, 0xffffffff };
		for (int i = 0; i < 2; i++) {
			s = tiny_spec(rows);
			counts[0] = &s.n_pub_out;
			counts[1] = &s.n_pub_in;
			counts[2] = &s.n_prv_in;
			*counts[f] = bad[i];
			make_r1cs(&b, &s);
			expect(&b, ZKP_ERR_FORMAT, "cannot hold");
			b_free(&b);
		}
	}

	s = tiny_spec(rows);
	s.n_labels = TINY_WIRES - 1;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "nLabels 5");
	b_free(&b);

	s = tiny_spec(rows);
	s.m = 4;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "ends at offset");
	b_free(&b);
	s.m = 2;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "bytes after");
	b_free(&b);
	s.m = 0xffffffff;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "needs at least");
	b_free(&b);

	s = tiny_spec(rows);
	s.hdr_extra = 4;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "expected 64");
	b_free(&b);

	/* a term count that runs past the section */
	s = tiny_spec(rows);
	rows[1].n_decl[2] = 0x10000000;
	make_r1cs(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "constraint 1 (C) declares 268435456 terms");
	rows[1].n_decl[2] = rows[1].n[2];
	b_free(&b);
	free_rows(rows, 3);
}

static void test_sections(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	bytes b = { 0 };
	r1cs_spec s;
	for (int order = 0; order < 3; order++) {
		s = tiny_spec(rows);
		s.order = order;
		s.drop = 1;
		make_r1cs(&b, &s);
		expect(&b, ZKP_ERR_FORMAT, "no header section");
		b_free(&b);
		s.drop = 2;
		make_r1cs(&b, &s);
		expect(&b, ZKP_ERR_FORMAT, "no constraints section");
		b_free(&b);
		for (int id = 1; id <= 3; id++) {
			s = tiny_spec(rows);
			s.order = order;
			s.dup = id;
			make_r1cs(&b, &s);
			expect(&b, ZKP_ERR_FORMAT, "second section");
			b_free(&b);
		}
	}
	for (int id = 4; id <= 5; id++) {
		s = tiny_spec(rows);
		s.extra_id = id;
		make_r1cs(&b, &s);
		expect(&b, ZKP_ERR_UNSUPPORTED, "custom gates");
		b_free(&b);
	}
	s = tiny_spec(rows);
	make_r1cs(&b, &s);
	b_put(&b, "\0\0\0", 3);
	expect(&b, ZKP_ERR_FORMAT, "after the last");
	b_free(&b);
	free_rows(rows, 3);
}

static void test_coefficients_not_canonical(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	uint8_t r_le[32], max[32];
	for (int i = 0; i < 32; i++)
		r_le[i] = (uint8_t)(ZKP_FR_MODULUS[i / 8] >> (8 * (i % 8)));
	memset(max, 0xff, sizeof(max));
	const struct { int row, k, j; const char *needle; } spots[] = {
		{ 0, 0, 0, "constraint 0 (A) term 0" },
		{ 1, 1, 0, "constraint 1 (B) term 0" },
		{ 1, 2, 2, "constraint 1 (C) term 2" },
		{ 2, 2, 2, "constraint 2 (C) term 2" },
	};
	for (size_t i = 0; i < sizeof(spots) / sizeof(spots[0]); i++) {
		for (int v = 0; v < 2; v++) {
			term *t = &rows[spots[i].row].t[spots[i].k][spots[i].j];
			uint8_t keep[32];
			memcpy(keep, t->c, 32);
			memcpy(t->c, v ? max : r_le, 32);
			r1cs_spec s = tiny_spec(rows);
			bytes b = { 0 };
			make_r1cs(&b, &s);
			expect(&b, ZKP_ERR_NOT_CANONICAL, spots[i].needle);
			b_free(&b);
			memcpy(t->c, keep, 32);
		}
	}
	free_rows(rows, 3);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	for (int order = 0; order < 3; order++) {
		r1cs_spec s = tiny_spec(rows);
		s.order = order;
		bytes b = { 0 };
		make_r1cs(&b, &s);
		for (size_t cut = 0; cut < b.n; cut++) {
			bytes c = { 0 };
			b_put(&c, b.p, cut);
			expect(&c, ZKP_ERR_TRUNCATED, "offset");
			b_free(&c);
		}
		b_free(&b);
	}
	free_rows(rows, 3);
}

static void test_flipped_bytes(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	r1cs_spec s = tiny_spec(rows);
	bytes b = { 0 };
	make_r1cs(&b, &s);
	int ok = 0;
	for (int iter = 0; iter < 3000; iter++) {
		bytes c = { 0 };
		b_put(&c, b.p, b.n);
		int flips = 1 + (int)(tu_rand64() % 3);
		for (int k = 0; k < flips; k++)
			c.p[tu_rand64() % c.n] ^= (uint8_t)(1u << (tu_rand64() % 8));
		zkp_error err = { 0 };
		int rc = parse(&c, &err);
		if (rc == 0) {
			ok++;
		} else {
			assert_true(rc < 0);
			assert_string_not_equal(zkp_err_name(rc), "UNKNOWN");
			assert_non_null(strstr(err.msg, "t.r1cs"));
		}
		b_free(&c);
	}
	/* flips in the label map or in coefficients that stay canonical pass */
	assert_true(ok < 3000);
	b_free(&b);
	free_rows(rows, 3);
}

static int stop_at_one(void *ctx, uint64_t row, const zkp_r1cs_lc lc[3], zkp_error *err)
{
	(void)lc;
	(*(int *)ctx)++;
	if (row == 1)
		return zkp_error_set(err, ZKP_ERR_RANGE, "stop at %d", (int)row);
	return 0;
}

static void test_callback_error_stops(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	r1cs_spec s = tiny_spec(rows);
	bytes b = { 0 };
	make_r1cs(&b, &s);
	zkp_r1cs *r = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_r1cs_open_buffer(&r, b.p, b.n, "t.r1cs", &err), 0);
	int calls = 0;
	assert_int_equal(zkp_r1cs_for_each(r, stop_at_one, &calls, NULL, &err), ZKP_ERR_RANGE);
	assert_int_equal(calls, 2);
	assert_string_equal(err.msg, "stop at 1");
	zkp_r1cs_free(r);
	b_free(&b);
	free_rows(rows, 3);
}

/* ---- end to end through a .pce ---- */

static void naive_eval(const cons *rows, uint32_t nrows, const zkp_fr *w, zkp_fr *out[3])
{
	for (uint32_t i = 0; i < nrows; i++)
		for (int k = 0; k < 3; k++) {
			zkp_fr acc, c, t;
			zkp_fr_set_zero(&acc);
			for (uint32_t j = 0; j < rows[i].n[k]; j++) {
				assert_int_equal(zkp_fr_from_le(&c, rows[i].t[k][j].c), 0);
				zkp_fr_mul(&t, &c, &w[rows[i].t[k][j].wire]);
				zkp_fr_add(&acc, &acc, &t);
			}
			out[k][i] = acc;
		}
}

/* Lowest row with a*b != c under the naive evaluation, or -1. */
static int64_t naive_first_failure(const cons *rows, uint32_t nrows, const zkp_fr *w)
{
	zkp_fr *e[3];
	for (int k = 0; k < 3; k++)
		e[k] = malloc((nrows + 1) * sizeof(zkp_fr));
	naive_eval(rows, nrows, w, e);
	int64_t bad = -1;
	for (uint32_t i = 0; i < nrows && bad < 0; i++) {
		zkp_fr ab;
		zkp_fr_mul(&ab, &e[0][i], &e[1][i]);
		if (!zkp_fr_eq(&ab, &e[2][i]))
			bad = i;
	}
	for (int k = 0; k < 3; k++)
		free(e[k]);
	return bad;
}

/* Compiles spec through a file, loads the .pce, and checks it against the
 * naive evaluation with w, then with w tampered at each wire in `tamper`. */
static void end_to_end(const r1cs_spec *s, zkp_fr *w, const uint32_t *tamper, size_t ntamper)
{
	bytes b = { 0 };
	make_r1cs(&b, s);
	char *r1cs = write_temp(b.p, b.n, ".r1cs");
	char *pce_path = write_temp("", 0, ".pce");
	zkp_error err = { 0 };
	zkp_r1cs_info info;
	int rc = zkp_r1cs_compile(r1cs, pce_path, &info, &err);
	if (rc)
		fail_msg("compile: %s", zkp_error_text(&err, rc));
	assert_int_equal(info.n_constraints, s->m);
	zkp_pce *pce = NULL;
	rc = zkp_pce_load(&pce, pce_path, 0, &err);
	if (rc)
		fail_msg("load: %s", zkp_error_text(&err, rc));
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	assert_int_equal(d->n_inputs, 1 + s->n_pub_out + s->n_pub_in);
	assert_int_equal(d->n_aux, s->n_wires - d->n_inputs);
	assert_int_equal(d->n_constraints, s->nrows);

	zkp_fr *got[3], *want[3];
	for (int k = 0; k < 3; k++) {
		got[k] = malloc((s->nrows + 1) * sizeof(zkp_fr));
		want[k] = malloc((s->nrows + 1) * sizeof(zkp_fr));
	}
	zkp_pce_eval(pce, w, got[0], got[1], got[2], NULL);
	naive_eval(s->rows, s->nrows, w, want);
	for (int k = 0; k < 3; k++)
		for (uint32_t i = 0; i < s->nrows; i++)
			if (!zkp_fr_eq(&got[k][i], &want[k][i]))
				fail_msg("%c row %u differs from the naive evaluation", "ABC"[k], i);
	assert_int_equal(naive_first_failure(s->rows, s->nrows, w), -1);
	uint64_t first = 12345;
	rc = zkp_pce_check(pce, w, &first, NULL, &err);
	if (rc)
		fail_msg("check: %s", zkp_error_text(&err, rc));

	for (size_t i = 0; i < ntamper; i++) {
		zkp_fr keep = w[tamper[i]], one;
		zkp_fr_set_one(&one);
		zkp_fr_add(&w[tamper[i]], &w[tamper[i]], &one);
		int64_t bad = naive_first_failure(s->rows, s->nrows, w);
		assert_true(bad >= 0);
		rc = zkp_pce_check(pce, w, &first, NULL, &err);
		assert_int_equal(rc, ZKP_ERR_UNSATISFIED);
		assert_int_equal(first, (uint64_t)bad);
		w[tamper[i]] = keep;
	}
	for (int k = 0; k < 3; k++) {
		free(got[k]);
		free(want[k]);
	}
	zkp_pce_free(pce);
	unlink(r1cs);
	unlink(pce_path);
	free(r1cs);
	free(pce_path);
	b_free(&b);
}

static void test_tiny_end_to_end(void **state)
{
	(void)state;
	cons *rows = tiny_rows();
	r1cs_spec s = tiny_spec(rows);
	zkp_fr w[TINY_WIRES];
	for (int i = 0; i < TINY_WIRES; i++)
		zkp_fr_set_u64(&w[i], tiny_w[i]);
	/* ab feeds row 0 first; out only row 1; c only row 1 */
	const uint32_t tamper[] = { 5, 1, 4 };
	end_to_end(&s, w, tamper, 3);

	/* the same through a .wtns: decode, then check */
	bytes hdr = { 0 }, vals = { 0 }, f = { 0 };
	b_u32(&hdr, 32);
	b_limbs(&hdr, ZKP_FR_MODULUS, 4);
	b_u32(&hdr, TINY_WIRES);
	for (int i = 0; i < TINY_WIRES; i++)
		b_fr(&vals, &w[i]);
	csec list[2] = { { 1, &hdr, 0 }, { 2, &vals, 0 } };
	circom_file(&f, "wtns", 2, list, 2);
	zkp_fr *dw = NULL;
	uint64_t n = 0;
	assert_int_equal(zkp_witness_decode(f.p, f.n, &dw, &n, NULL), 0);
	assert_int_equal(n, TINY_WIRES);
	for (int i = 0; i < TINY_WIRES; i++)
		assert_true(zkp_fr_eq(&dw[i], &w[i]));
	free(dw);
	b_free(&hdr);
	b_free(&vals);
	b_free(&f);
	free_rows(rows, 3);
}

/*
 * A random satisfiable circuit shaped like circom's output: each row
 * multiplies two random linear combinations of earlier wires (with +-1,
 * small and large coefficients, repeats and zeros) into a new wire, with C
 * = +-new; every fifth row is linear instead (A = B = 0, C = x - copy).
 */
static void test_random_end_to_end(void **state)
{
	(void)state;
	const uint32_t pub_out = 2, pub_in = 3, prv_in = 4, nrows = 700;
	uint32_t n_wires = 1 + pub_out + pub_in + prv_in + nrows;
	zkp_fr *w = calloc(n_wires, sizeof(zkp_fr));
	cons *rows = calloc(nrows, sizeof(cons));
	zkp_fr_set_one(&w[0]);
	for (uint32_t i = 1; i < 1 + pub_out + pub_in + prv_in; i++)
		tu_rand_fr(&w[i]);
	uint32_t next = 1 + pub_out + pub_in + prv_in;
	for (uint32_t i = 0; i < nrows; i++, next++) {
		cons *c = &rows[i];
		if (i % 5 == 4) {
			uint32_t x = (uint32_t)(tu_rand64() % next);
			w[next] = w[x];
			add_term(c, 2, x, 1);
			add_term(c, 2, next, -1);
			continue;
		}
		zkp_fr v[2];
		for (int k = 0; k < 2; k++) {
			zkp_fr_set_zero(&v[k]);
			unsigned nt = 1 + (unsigned)(tu_rand64() % 4);
			for (unsigned j = 0; j < nt; j++) {
				uint32_t x = (uint32_t)(tu_rand64() % next);
				zkp_fr coef, t;
				switch (tu_rand64() % 5) {
				case 0: zkp_fr_set_one(&coef); break;
				case 1: zkp_fr_set_one(&coef); zkp_fr_neg(&coef, &coef); break;
				case 2: zkp_fr_set_u64(&coef, tu_rand64() % 8); break;
				default: tu_rand_fr(&coef); break;
				}
				add_term_fr(c, k, x, &coef);
				zkp_fr_mul(&t, &coef, &w[x]);
				zkp_fr_add(&v[k], &v[k], &t);
			}
		}
		zkp_fr_mul(&w[next], &v[0], &v[1]);
		if (tu_rand64() & 1) {
			zkp_fr_neg(&w[next], &w[next]);
			add_term(c, 2, next, -1);
		} else {
			add_term(c, 2, next, 1);
		}
	}
	/* The public wires are free values here: satisfaction does not care
	 * which wires are public. */
	r1cs_spec s = {
		.version = 1, .n8 = 32, .prime = ZKP_FR_MODULUS, .n_wires = n_wires,
		.n_pub_out = pub_out, .n_pub_in = pub_in, .n_prv_in = prv_in,
		.n_labels = n_wires + 10, .m = nrows, .label_wires = n_wires, .rows = rows,
		.nrows = nrows, .order = 1,
	};
	/* Every wire made by a row appears in that row's C, so changing it
	 * breaks that row; the naive evaluation says which row fails first. */
	uint32_t tamper[6];
	for (int i = 0; i < 6; i++)
		tamper[i] = 1 + pub_out + pub_in + prv_in + (uint32_t)(tu_rand64() % (nrows - 1));
	end_to_end(&s, w, tamper, 6);
	free_rows(rows, nrows);
	free(w);
}

static void test_files(void **state)
{
	(void)state;
	zkp_r1cs *r = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_r1cs_open(&r, "/nonexistent/x.r1cs", &err), ZKP_ERR_IO);
	assert_null(r);
	assert_non_null(strstr(err.msg, "/nonexistent/x.r1cs"));

	char *empty = write_temp("", 0, ".r1cs");
	assert_int_equal(zkp_r1cs_open(&r, empty, &err), ZKP_ERR_TRUNCATED);
	assert_non_null(strstr(err.msg, empty));
	unlink(empty);
	free(empty);

	cons *rows = tiny_rows();
	r1cs_spec s = tiny_spec(rows);
	bytes b = { 0 };
	make_r1cs(&b, &s);
	char *path = write_temp(b.p, b.n, ".r1cs");
	assert_int_equal(zkp_r1cs_open(&r, path, &err), 0);
	assert_int_equal(zkp_r1cs_get_info(r)->file_bytes, b.n);
	walk wk = { &s, 0 };
	assert_int_equal(zkp_r1cs_for_each(r, check_row, &wk, NULL, &err), 0);
	zkp_r1cs_free(r);
	int rc = zkp_r1cs_compile(path, "/nonexistent/dir/x.pce", NULL, &err);
	assert_int_equal(rc, ZKP_ERR_IO);
	unlink(path);
	free(path);

	s.prime = BN254_R;
	b_free(&b);
	make_r1cs(&b, &s);
	path = write_temp(b.p, b.n, ".r1cs");
	assert_int_equal(zkp_r1cs_compile(path, "/nonexistent/dir/x.pce", NULL, &err),
			 ZKP_ERR_WRONG_PRIME);
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	free(path);
	b_free(&b);
	free_rows(rows, 3);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_every_order),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_coefficients_not_canonical),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_callback_error_stops),
		cmocka_unit_test(test_tiny_end_to_end),
		cmocka_unit_test(test_random_end_to_end),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
