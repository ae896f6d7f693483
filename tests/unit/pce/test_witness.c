/*
 * Witness decoding: .wtns and raw files written byte by byte here, good ones
 * and every way they can be wrong (each header field, missing and repeated
 * sections, values >= r, ONE missing, cuts at every offset, flipped bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "circom_bytes.h"
#include "zkpd/error.h"
#include "zkpd/witness.h"

#define NVALS 7

static zkp_fr vals[NVALS];

/* w[0] = 1, w[1] = 0, w[2] = -1 (r - 1), the rest random. */
static void make_values(void)
{
	zkp_fr_set_one(&vals[0]);
	zkp_fr_set_zero(&vals[1]);
	zkp_fr_neg(&vals[2], &vals[0]);
	for (int i = 3; i < NVALS; i++)
		tu_rand_fr(&vals[i]);
}

typedef struct {
	uint32_t version;
	uint32_t n8;
	const uint64_t *prime; /* n8 / 8 limbs */
	uint32_t n_witness;
	int order;             /* 0: 1, 2; 1: 2, 1; 2: 7, 1, 2 (unknown id first) */
	int drop;              /* section id left out */
	int dup;               /* section id written twice */
	uint32_t hdr_extra;    /* bytes appended to section 1 */
	size_t nvals;
} wtns_spec;

static wtns_spec good_spec(void)
{
	wtns_spec s = { .version = 2, .n8 = 32, .prime = ZKP_FR_MODULUS,
			.n_witness = NVALS, .nvals = NVALS };
	return s;
}

static void make_wtns(bytes *out, const wtns_spec *s)
{
	bytes hdr = { 0 }, data = { 0 }, other = { 0 };
	b_u32(&hdr, s->n8);
	b_limbs(&hdr, s->prime, s->n8 / 8);
	b_u32(&hdr, s->n_witness);
	for (uint32_t i = 0; i < s->hdr_extra; i++)
		b_put(&hdr, "", 1);
	for (size_t i = 0; i < s->nvals; i++)
		b_fr(&data, &vals[i]);
	b_put(&other, "ignored", 7);
	csec list[5];
	size_t n = 0;
	if (s->order == 2)
		list[n++] = (csec){ 7, &other, 0 };
	const uint32_t ids[2] = { s->order == 1 ? 2 : 1, s->order == 1 ? 1 : 2 };
	for (int k = 0; k < 2; k++) {
		uint32_t id = ids[k];
		if ((int)id == s->drop)
			continue;
		list[n++] = (csec){ id, id == 1 ? &hdr : &data, 0 };
		if ((int)id == s->dup)
			list[n++] = (csec){ id, id == 1 ? &hdr : &data, 0 };
	}
	circom_file(out, "wtns", s->version, list, n);
	b_free(&hdr);
	b_free(&data);
	b_free(&other);
}

static void make_raw(bytes *out, size_t nvals)
{
	for (size_t i = 0; i < nvals; i++)
		b_fr(out, &vals[i]);
}

/* Decodes and expects rc; on success the values must equal vals[]. */
static void expect(const bytes *b, int rc, const char *needle)
{
	zkp_fr *w = (zkp_fr *)(uintptr_t)1;
	uint64_t count = 99;
	zkp_error err = { 0 };
	int got = zkp_witness_decode(b->p, b->n, &w, &count, &err);
	if (got != rc)
		fail_msg("expected %s, got %s: %s", zkp_err_name(rc), zkp_err_name(got),
			 zkp_error_text(&err, got));
	if (rc == 0) {
		assert_int_equal(count, b->n < 4 || memcmp(b->p, "wtns", 4) ? b->n / 32 : NVALS);
		for (uint64_t i = 0; i < count; i++)
			assert_true(zkp_fr_eq(&w[i], &vals[i]));
		free(w);
		return;
	}
	assert_null(w);
	assert_int_equal(count, 0);
	assert_int_equal(err.code, rc);
	if (needle && !strstr(err.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

static void test_wtns_good(void **state)
{
	(void)state;
	for (int order = 0; order < 3; order++) {
		wtns_spec s = good_spec();
		s.order = order;
		bytes b = { 0 };
		make_wtns(&b, &s);
		expect(&b, 0, NULL);
		b_free(&b);
	}
	/* Montgomery form: w[3] * 1 read back canonically is the input bytes. */
	wtns_spec s = good_spec();
	bytes b = { 0 };
	make_wtns(&b, &s);
	zkp_fr *w;
	uint64_t n;
	assert_int_equal(zkp_witness_decode(b.p, b.n, &w, &n, NULL), 0);
	uint8_t le[32];
	zkp_fr_to_le(le, &w[3]);
	assert_memory_equal(le, b.p + b.n - (NVALS - 3) * 32, 32);
	free(w);
	b_free(&b);
}

static void test_raw_good(void **state)
{
	(void)state;
	for (size_t n = 1; n <= NVALS; n++) {
		bytes b = { 0 };
		make_raw(&b, n);
		expect(&b, 0, NULL);
		b_free(&b);
	}
}

static void test_wtns_header_fields(void **state)
{
	(void)state;
	bytes b = { 0 };
	wtns_spec s;

	s = good_spec(); /* circom's default prime */
	s.prime = BN254_R;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "BN254");
	expect(&b, ZKP_ERR_WRONG_PRIME, BN254_R_DECIMAL);
	b_free(&b);

	s = good_spec(); /* BLS12-381's base field: 48 bytes */
	s.n8 = 48;
	s.prime = ZKP_FP_MODULUS;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "base field");
	b_free(&b);

	uint64_t other[4] = { 0xffffffff00000003, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
			      0x73eda753299d7d48 }; /* r + 2 */
	s = good_spec();
	s.prime = other;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME,
	       "52435875175126190479447740508185965837690552500527637822603658699938581184515");
	b_free(&b);

	s = good_spec(); /* field size 8 with a 32-byte prime after it */
	s.n8 = 8;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_WRONG_PRIME, "8 bytes");
	b_free(&b);

	s = good_spec(); /* field size larger than the section */
	make_wtns(&b, &s);
	b.p[12 + 12] = 0xe8; /* n8 = 1000 (0x3e8) */
	b.p[12 + 13] = 0x03;
	expect(&b, ZKP_ERR_WRONG_PRIME, "1000");
	b_free(&b);

	for (uint32_t v = 0; v < 4; v++) {
		if (v == 2)
			continue;
		s = good_spec();
		s.version = v;
		make_wtns(&b, &s);
		expect(&b, ZKP_ERR_VERSION, "version");
		b_free(&b);
	}

	const uint32_t wrong_n[] = { 0, NVALS - 1, NVALS + 1, 0xffffffff };
	for (size_t i = 0; i < sizeof(wrong_n) / sizeof(wrong_n[0]); i++) {
		s = good_spec();
		s.n_witness = wrong_n[i];
		make_wtns(&b, &s);
		expect(&b, ZKP_ERR_FORMAT, "nWitness");
		b_free(&b);
	}

	s = good_spec();
	s.hdr_extra = 4;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "expected 40");
	b_free(&b);
}

static void test_wtns_sections(void **state)
{
	(void)state;
	bytes b = { 0 };
	wtns_spec s = good_spec();
	s.drop = 1;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "no header section");
	b_free(&b);

	s = good_spec();
	s.drop = 2;
	make_wtns(&b, &s);
	expect(&b, ZKP_ERR_FORMAT, "no values section");
	b_free(&b);

	for (int id = 1; id <= 2; id++) {
		s = good_spec();
		s.dup = id;
		make_wtns(&b, &s);
		expect(&b, ZKP_ERR_FORMAT, "second section");
		b_free(&b);
	}

	s = good_spec(); /* bytes after the last section */
	make_wtns(&b, &s);
	b_put(&b, "x", 1);
	expect(&b, ZKP_ERR_FORMAT, "after the last");
	b_free(&b);

	s = good_spec(); /* section count one short: the last section is extra */
	make_wtns(&b, &s);
	b.p[8] = 1;
	expect(&b, ZKP_ERR_FORMAT, "after the last");
	b.p[8] = 3; /* one more than present */
	expect(&b, ZKP_ERR_TRUNCATED, "offset");
	b_free(&b);
}

/* Sets value i of a .wtns (values section last) or raw buffer to le. */
static void poke_value(bytes *b, size_t nvals, size_t i, const uint8_t le[32])
{
	memcpy(b->p + b->n - (nvals - i) * 32, le, 32);
}

static void test_values_not_canonical(void **state)
{
	(void)state;
	uint8_t r_le[32], max[32];
	for (int i = 0; i < 32; i++)
		r_le[i] = (uint8_t)(ZKP_FR_MODULUS[i / 8] >> (8 * (i % 8)));
	memset(max, 0xff, sizeof(max));
	for (size_t idx = 1; idx < NVALS; idx += 2) {
		char needle[64];
		snprintf(needle, sizeof(needle), "value %zu ", idx);
		wtns_spec s = good_spec();
		bytes b = { 0 };
		make_wtns(&b, &s);
		poke_value(&b, NVALS, idx, idx & 2 ? r_le : max);
		expect(&b, ZKP_ERR_NOT_CANONICAL, needle);
		b_free(&b);

		make_raw(&b, NVALS);
		poke_value(&b, NVALS, idx, idx & 2 ? max : r_le);
		expect(&b, ZKP_ERR_NOT_CANONICAL, needle);
		b_free(&b);
	}
	/* r - 1 is the largest canonical value (vals[2]); r itself as value 0 */
	bytes b = { 0 };
	make_raw(&b, NVALS);
	poke_value(&b, NVALS, 0, r_le);
	expect(&b, ZKP_ERR_NOT_CANONICAL, "value 0 ");
	b_free(&b);
}

static void test_first_value_not_one(void **state)
{
	(void)state;
	uint8_t two[32] = { 2 }, zero[32] = { 0 };
	bytes b = { 0 };
	make_raw(&b, NVALS);
	poke_value(&b, NVALS, 0, two);
	expect(&b, ZKP_ERR_FORMAT, "value 0 is not 1");
	b_free(&b);

	make_raw(&b, 3);
	poke_value(&b, 3, 0, zero);
	expect(&b, ZKP_ERR_FORMAT, "value 0 is not 1");
	b_free(&b);

	/* ONE in Montgomery form is not ONE */
	uint8_t mont_one[32];
	for (int i = 0; i < 32; i++)
		mont_one[i] = (uint8_t)(ZKP_FR_ONE.l[i / 8] >> (8 * (i % 8)));
	make_raw(&b, 2);
	poke_value(&b, 2, 0, mont_one);
	expect(&b, ZKP_ERR_FORMAT, "value 0 is not 1");
	b_free(&b);

	wtns_spec s = good_spec();
	make_wtns(&b, &s);
	poke_value(&b, NVALS, 0, two);
	expect(&b, ZKP_ERR_FORMAT, "value 0 is not 1");
	b_free(&b);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	for (int order = 0; order < 3; order++) {
		wtns_spec s = good_spec();
		s.order = order;
		bytes b = { 0 };
		make_wtns(&b, &s);
		for (size_t cut = 0; cut < b.n; cut++) {
			bytes c = { 0 };
			b_put(&c, b.p, cut);
			expect(&c, ZKP_ERR_TRUNCATED, cut ? "offset" : "empty");
			b_free(&c);
		}
		b_free(&b);
	}
	bytes b = { 0 };
	make_raw(&b, NVALS);
	for (size_t cut = 0; cut < b.n; cut++) {
		bytes c = { 0 };
		b_put(&c, b.p, cut);
		if (cut && cut % 32 == 0)
			expect(&c, 0, NULL); /* a shorter assignment, still well-formed */
		else
			expect(&c, ZKP_ERR_TRUNCATED, cut ? "offset" : "empty");
		b_free(&c);
	}
	b_free(&b);
}

static void test_flipped_bytes(void **state)
{
	(void)state;
	wtns_spec s = good_spec();
	bytes b = { 0 };
	make_wtns(&b, &s);
	for (int iter = 0; iter < 3000; iter++) {
		bytes c = { 0 };
		b_put(&c, b.p, b.n);
		int flips = 1 + (int)(tu_rand64() % 3);
		for (int k = 0; k < flips; k++)
			c.p[tu_rand64() % c.n] ^= (uint8_t)(1u << (tu_rand64() % 8));
		zkp_fr *w = NULL;
		uint64_t n = 0;
		zkp_error err = { 0 };
		int rc = zkp_witness_decode(c.p, c.n, &w, &n, &err);
		if (rc == 0) {
			assert_true(n > 0);
			assert_true(zkp_fr_is_one(&w[0]));
			free(w);
		} else {
			assert_true(rc < 0);
			assert_string_not_equal(zkp_err_name(rc), "UNKNOWN");
			assert_true(err.msg[0] != 0);
			assert_null(w);
		}
		b_free(&c);
	}
	b_free(&b);
}

static void test_load_files(void **state)
{
	(void)state;
	wtns_spec s = good_spec();
	bytes b = { 0 };
	make_wtns(&b, &s);
	char *path = write_temp(b.p, b.n, ".wtns");
	zkp_fr *w = NULL;
	uint64_t n = 0;
	zkp_error err = { 0 };
	assert_int_equal(zkp_witness_load(path, &w, &n, &err), 0);
	assert_int_equal(n, NVALS);
	for (size_t i = 0; i < NVALS; i++)
		assert_true(zkp_fr_eq(&w[i], &vals[i]));
	free(w);
	unlink(path);
	free(path);

	/* raw, through a file */
	b_free(&b);
	make_raw(&b, NVALS);
	path = write_temp(b.p, b.n, ".bin");
	assert_int_equal(zkp_witness_load(path, &w, &n, &err), 0);
	assert_int_equal(n, NVALS);
	free(w);
	unlink(path);
	free(path);

	/* the path is named in file errors */
	b_free(&b);
	s.prime = BN254_R;
	make_wtns(&b, &s);
	path = write_temp(b.p, b.n, ".wtns");
	assert_int_equal(zkp_witness_load(path, &w, &n, &err), ZKP_ERR_WRONG_PRIME);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "BN254"));
	unlink(path);
	free(path);

	path = write_temp("", 0, ".wtns");
	assert_int_equal(zkp_witness_load(path, &w, &n, &err), ZKP_ERR_TRUNCATED);
	assert_null(w);
	assert_int_equal(n, 0);
	unlink(path);
	assert_int_equal(zkp_witness_load(path, &w, &n, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, path));
	free(path);

	const char *dir = getenv("TMPDIR");
	assert_int_equal(zkp_witness_load(dir && *dir ? dir : "/tmp", &w, &n, &err), ZKP_ERR_IO);
	b_free(&b);
}

int main(void)
{
	tu_seed();
	make_values();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wtns_good),
		cmocka_unit_test(test_raw_good),
		cmocka_unit_test(test_wtns_header_fields),
		cmocka_unit_test(test_wtns_sections),
		cmocka_unit_test(test_values_not_canonical),
		cmocka_unit_test(test_first_value_not_one),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_load_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
