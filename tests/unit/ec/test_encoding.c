/*
 * ZCash point encodings: the zkcrypto .dat files (i*G for i = 0..999), the
 * JSON vectors (points, identity, non-subgroup and malformed encodings with
 * their reason codes), and mutations of valid encodings that must each be
 * refused with one specific error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"

/* p as 48 big-endian bytes */
static const uint8_t P_BE[48] = {
	0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6,
	0x43, 0x4b, 0xac, 0xd7, 0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf,
	0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24, 0x1e, 0xab, 0xff, 0xfe,
	0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab,
};

static void rand_scalar(uint64_t k[4])
{
	for (int i = 0; i < 4; i++)
		k[i] = tu_rand64();
	k[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
}

static void rand_fp(zkp_fp *ret)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(ret, w);
}

static void rand_g1(zkp_g1_affine *ret)
{
	uint64_t k[4];
	zkp_g1 g;
	rand_scalar(k);
	zkp_g1_from_affine(&g, &ZKP_G1_GENERATOR);
	zkp_g1_mul(&g, &g, k, 4);
	zkp_g1_to_affine(ret, &g);
}

static void rand_g2(zkp_g2_affine *ret)
{
	uint64_t k[4];
	zkp_g2 g;
	rand_scalar(k);
	zkp_g2_from_affine(&g, &ZKP_G2_GENERATOR);
	zkp_g2_mul(&g, &g, k, 4);
	zkp_g2_to_affine(ret, &g);
}

static void g1_rhs(zkp_fp *ret, const zkp_fp *x)
{
	zkp_fp b, t;
	zkp_fp_set_u64(&b, 4);
	zkp_fp_sqr(&t, x);
	zkp_fp_mul(&t, &t, x);
	zkp_fp_add(ret, &t, &b);
}

static void g2_rhs(zkp_fp2 *ret, const zkp_fp2 *x)
{
	zkp_fp2 b, t;
	zkp_fp_set_u64(&b.c0, 4);
	b.c1 = b.c0;
	zkp_fp2_sqr(&t, x);
	zkp_fp2_mul(&t, &t, x);
	zkp_fp2_add(ret, &t, &b);
}

/* A point on the curve outside the subgroup (almost surely). */
static void rand_g1_curve_point(zkp_g1_affine *ret)
{
	zkp_fp r;
	do {
		rand_fp(&ret->x);
		g1_rhs(&r, &ret->x);
	} while (zkp_fp_sqrt(&ret->y, &r) != 0);
}

static void rand_g2_curve_point(zkp_g2_affine *ret)
{
	zkp_fp2 r;
	do {
		rand_fp(&ret->x.c0);
		rand_fp(&ret->x.c1);
		g2_rhs(&r, &ret->x);
	} while (zkp_fp2_sqrt(&ret->y, &r) != 0);
}

/* ---- zkcrypto .dat files: i*G, i = 0..999 ---- */

enum { DAT_COUNT = 1000 };

static void test_g1_dat_files(void **state)
{
	(void)state;
	zkp_g1 *jac = malloc(DAT_COUNT * sizeof(*jac));
	zkp_g1_affine *aff = malloc(DAT_COUNT * sizeof(*aff));
	zkp_fp *scratch = malloc(DAT_COUNT * sizeof(*scratch));
	assert_non_null(jac);
	assert_non_null(aff);
	assert_non_null(scratch);
	zkp_g1_set_infinity(&jac[0]);
	for (size_t i = 1; i < DAT_COUNT; i++)
		zkp_g1_add_affine(&jac[i], &jac[i - 1], &ZKP_G1_GENERATOR);
	zkp_g1s_to_affine(aff, jac, DAT_COUNT, scratch);

	size_t clen, ulen;
	uint8_t *c = tu_read_vector_file("bls12_381_g1_compressed_valid_test_vectors.dat", &clen);
	uint8_t *u = tu_read_vector_file("bls12_381_g1_uncompressed_valid_test_vectors.dat", &ulen);
	assert_int_equal(clen, DAT_COUNT * ZKP_G1_COMPRESSED_BYTES);
	assert_int_equal(ulen, DAT_COUNT * ZKP_G1_UNCOMPRESSED_BYTES);
	for (size_t i = 0; i < DAT_COUNT; i++) {
		const uint8_t *ci = c + i * ZKP_G1_COMPRESSED_BYTES;
		const uint8_t *ui = u + i * ZKP_G1_UNCOMPRESSED_BYTES;
		zkp_g1_affine a;
		uint8_t out[ZKP_G1_UNCOMPRESSED_BYTES];
		assert_int_equal(zkp_g1_uncompress(&a, ci), 0);
		assert_true(zkp_g1_affine_eq(&a, &aff[i]));
		zkp_g1_compress(out, &a);
		assert_memory_equal(out, ci, ZKP_G1_COMPRESSED_BYTES);
		assert_int_equal(zkp_g1_deserialize(&a, ui), 0);
		assert_true(zkp_g1_affine_eq(&a, &aff[i]));
		zkp_g1_serialize(out, &a);
		assert_memory_equal(out, ui, ZKP_G1_UNCOMPRESSED_BYTES);
	}
	free(c);
	free(u);
	free(jac);
	free(aff);
	free(scratch);
}

static void test_g2_dat_files(void **state)
{
	(void)state;
	zkp_g2 *jac = malloc(DAT_COUNT * sizeof(*jac));
	zkp_g2_affine *aff = malloc(DAT_COUNT * sizeof(*aff));
	zkp_fp2 *scratch = malloc(DAT_COUNT * sizeof(*scratch));
	assert_non_null(jac);
	assert_non_null(aff);
	assert_non_null(scratch);
	zkp_g2_set_infinity(&jac[0]);
	for (size_t i = 1; i < DAT_COUNT; i++)
		zkp_g2_add_affine(&jac[i], &jac[i - 1], &ZKP_G2_GENERATOR);
	zkp_g2s_to_affine(aff, jac, DAT_COUNT, scratch);

	size_t clen, ulen;
	uint8_t *c = tu_read_vector_file("bls12_381_g2_compressed_valid_test_vectors.dat", &clen);
	uint8_t *u = tu_read_vector_file("bls12_381_g2_uncompressed_valid_test_vectors.dat", &ulen);
	assert_int_equal(clen, DAT_COUNT * ZKP_G2_COMPRESSED_BYTES);
	assert_int_equal(ulen, DAT_COUNT * ZKP_G2_UNCOMPRESSED_BYTES);
	for (size_t i = 0; i < DAT_COUNT; i++) {
		const uint8_t *ci = c + i * ZKP_G2_COMPRESSED_BYTES;
		const uint8_t *ui = u + i * ZKP_G2_UNCOMPRESSED_BYTES;
		zkp_g2_affine a;
		uint8_t out[ZKP_G2_UNCOMPRESSED_BYTES];
		assert_int_equal(zkp_g2_uncompress(&a, ci), 0);
		assert_true(zkp_g2_affine_eq(&a, &aff[i]));
		zkp_g2_compress(out, &a);
		assert_memory_equal(out, ci, ZKP_G2_COMPRESSED_BYTES);
		assert_int_equal(zkp_g2_deserialize(&a, ui), 0);
		assert_true(zkp_g2_affine_eq(&a, &aff[i]));
		zkp_g2_serialize(out, &a);
		assert_memory_equal(out, ui, ZKP_G2_UNCOMPRESSED_BYTES);
	}
	free(c);
	free(u);
	free(jac);
	free(aff);
	free(scratch);
}

/* ---- JSON vectors ---- */

static uint8_t *hex_of(json_t *obj, const char *key, size_t *len)
{
	json_t *s = json_object_get(obj, key);
	assert_non_null(s);
	return tu_hex_alloc(json_string_value(s), len);
}

static void scalar_of(uint64_t k[4], json_t *obj)
{
	uint8_t be[32];
	json_t *s = json_object_get(obj, "k");
	assert_non_null(s);
	assert_true(tu_hex_to_bytes(be, sizeof(be), json_string_value(s)) >= 0);
	for (int i = 0; i < 4; i++) {
		k[i] = 0;
		for (int j = 0; j < 8; j++)
			k[i] = (k[i] << 8) | be[(3 - i) * 8 + j];
	}
}

static void test_g1_points_json(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g1_points");
	assert_int_equal(json_array_size(arr), 10);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		uint64_t k[4];
		zkp_g1 p;
		zkp_g1_affine want, a;
		size_t clen, ulen;
		uint8_t out[ZKP_G1_UNCOMPRESSED_BYTES];
		scalar_of(k, v);
		zkp_g1_from_affine(&p, &ZKP_G1_GENERATOR);
		zkp_g1_mul(&p, &p, k, 4);
		zkp_g1_to_affine(&want, &p);
		uint8_t *c = hex_of(v, "compressed", &clen);
		uint8_t *u = hex_of(v, "uncompressed", &ulen);
		assert_int_equal(clen, ZKP_G1_COMPRESSED_BYTES);
		assert_int_equal(ulen, ZKP_G1_UNCOMPRESSED_BYTES);
		assert_int_equal(zkp_g1_uncompress(&a, c), 0);
		assert_true(zkp_g1_affine_eq(&a, &want));
		assert_int_equal(zkp_g1_affine_from_bytes(&a, c, clen), 0);
		assert_true(zkp_g1_affine_eq(&a, &want));
		assert_int_equal(zkp_g1_deserialize(&a, u), 0);
		assert_true(zkp_g1_affine_eq(&a, &want));
		assert_int_equal(zkp_g1_affine_from_bytes(&a, u, ulen), 0);
		assert_true(zkp_g1_affine_eq(&a, &want));
		zkp_g1_compress(out, &want);
		assert_memory_equal(out, c, clen);
		zkp_g1_serialize(out, &want);
		assert_memory_equal(out, u, ulen);
		free(c);
		free(u);
	}
}

static void test_g2_points_json(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g2_points");
	assert_int_equal(json_array_size(arr), 10);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		uint64_t k[4];
		zkp_g2 p;
		zkp_g2_affine want, a;
		size_t clen, ulen;
		uint8_t out[ZKP_G2_UNCOMPRESSED_BYTES];
		scalar_of(k, v);
		zkp_g2_from_affine(&p, &ZKP_G2_GENERATOR);
		zkp_g2_mul(&p, &p, k, 4);
		zkp_g2_to_affine(&want, &p);
		uint8_t *c = hex_of(v, "compressed", &clen);
		uint8_t *u = hex_of(v, "uncompressed", &ulen);
		assert_int_equal(clen, ZKP_G2_COMPRESSED_BYTES);
		assert_int_equal(ulen, ZKP_G2_UNCOMPRESSED_BYTES);
		assert_int_equal(zkp_g2_uncompress(&a, c), 0);
		assert_true(zkp_g2_affine_eq(&a, &want));
		assert_int_equal(zkp_g2_affine_from_bytes(&a, c, clen), 0);
		assert_true(zkp_g2_affine_eq(&a, &want));
		assert_int_equal(zkp_g2_deserialize(&a, u), 0);
		assert_true(zkp_g2_affine_eq(&a, &want));
		assert_int_equal(zkp_g2_affine_from_bytes(&a, u, ulen), 0);
		assert_true(zkp_g2_affine_eq(&a, &want));
		zkp_g2_compress(out, &want);
		assert_memory_equal(out, c, clen);
		zkp_g2_serialize(out, &want);
		assert_memory_equal(out, u, ulen);
		free(c);
		free(u);
	}
}

static void test_identity_json(void **state)
{
	(void)state;
	json_t *id = json_object_get(tu_vectors(), "identity");
	size_t len;
	uint8_t out[ZKP_G2_UNCOMPRESSED_BYTES];
	zkp_g1_affine a1, o1;
	zkp_g2_affine a2, o2;
	memset(&o1, 0, sizeof(o1));
	memset(&o2, 0, sizeof(o2));

	uint8_t *e = hex_of(id, "g1_compressed", &len);
	assert_int_equal(len, ZKP_G1_COMPRESSED_BYTES);
	memset(&a1, 0x55, sizeof(a1));
	assert_int_equal(zkp_g1_uncompress(&a1, e), 0);
	assert_true(zkp_g1_affine_is_infinity(&a1));
	zkp_g1_compress(out, &o1);
	assert_memory_equal(out, e, len);
	free(e);

	e = hex_of(id, "g1_uncompressed", &len);
	assert_int_equal(len, ZKP_G1_UNCOMPRESSED_BYTES);
	memset(&a1, 0x55, sizeof(a1));
	assert_int_equal(zkp_g1_deserialize(&a1, e), 0);
	assert_true(zkp_g1_affine_is_infinity(&a1));
	zkp_g1_serialize(out, &o1);
	assert_memory_equal(out, e, len);
	free(e);

	e = hex_of(id, "g2_compressed", &len);
	assert_int_equal(len, ZKP_G2_COMPRESSED_BYTES);
	memset(&a2, 0x55, sizeof(a2));
	assert_int_equal(zkp_g2_uncompress(&a2, e), 0);
	assert_true(zkp_g2_affine_is_infinity(&a2));
	zkp_g2_compress(out, &o2);
	assert_memory_equal(out, e, len);
	free(e);

	e = hex_of(id, "g2_uncompressed", &len);
	assert_int_equal(len, ZKP_G2_UNCOMPRESSED_BYTES);
	memset(&a2, 0x55, sizeof(a2));
	assert_int_equal(zkp_g2_deserialize(&a2, e), 0);
	assert_true(zkp_g2_affine_is_infinity(&a2));
	zkp_g2_serialize(out, &o2);
	assert_memory_equal(out, e, len);
	free(e);
}

static void test_g1_not_in_subgroup_json(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g1_not_in_subgroup");
	assert_true(json_array_size(arr) >= 5);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		size_t clen, ulen;
		zkp_g1_affine a, b;
		uint8_t out[ZKP_G1_UNCOMPRESSED_BYTES];
		uint8_t *c = hex_of(v, "compressed", &clen);
		uint8_t *u = hex_of(v, "uncompressed", &ulen);
		assert_int_equal(zkp_g1_uncompress(&a, c), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_deserialize(&a, u), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_affine_from_bytes(&a, c, clen), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_affine_from_bytes(&a, u, ulen), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_uncompress_unchecked(&a, c), 0);
		assert_int_equal(zkp_g1_deserialize_unchecked(&b, u), 0);
		assert_true(zkp_g1_affine_eq(&a, &b));
		assert_true(zkp_g1_affine_is_on_curve(&a));
		assert_false(zkp_g1_affine_in_subgroup(&a));
		zkp_g1_compress(out, &a);
		assert_memory_equal(out, c, clen);
		zkp_g1_serialize(out, &a);
		assert_memory_equal(out, u, ulen);
		free(c);
		free(u);
	}
}

static void test_g2_not_in_subgroup_json(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g2_not_in_subgroup");
	assert_true(json_array_size(arr) >= 5);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		size_t clen, ulen;
		zkp_g2_affine a, b;
		uint8_t out[ZKP_G2_UNCOMPRESSED_BYTES];
		uint8_t *c = hex_of(v, "compressed", &clen);
		uint8_t *u = hex_of(v, "uncompressed", &ulen);
		assert_int_equal(zkp_g2_uncompress(&a, c), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_deserialize(&a, u), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_affine_from_bytes(&a, c, clen), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_affine_from_bytes(&a, u, ulen), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_uncompress_unchecked(&a, c), 0);
		assert_int_equal(zkp_g2_deserialize_unchecked(&b, u), 0);
		assert_true(zkp_g2_affine_eq(&a, &b));
		assert_true(zkp_g2_affine_is_on_curve(&a));
		assert_false(zkp_g2_affine_in_subgroup(&a));
		zkp_g2_compress(out, &a);
		assert_memory_equal(out, c, clen);
		zkp_g2_serialize(out, &a);
		assert_memory_equal(out, u, ulen);
		free(c);
		free(u);
	}
}

static int reason_code(const char *reason)
{
	static const struct {
		const char *name;
		int code;
	} map[] = {
		{ "compression_flag_mismatch", ZKP_ERR_BAD_FLAGS },
		{ "bad_infinity_encoding", ZKP_ERR_BAD_INFINITY },
		{ "sort_flag_on_uncompressed", ZKP_ERR_SORT_FLAG_UNCOMPRESSED },
		{ "coordinate_not_canonical", ZKP_ERR_NOT_CANONICAL },
		{ "x_not_on_curve", ZKP_ERR_X_NOT_ON_CURVE },
		{ "not_on_curve", ZKP_ERR_NOT_ON_CURVE },
		{ "not_in_subgroup", ZKP_ERR_NOT_IN_SUBGROUP },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, reason))
			return map[i].code;
	fail_msg("unknown reason code %s", reason);
	return 0;
}

static void test_invalid_json(void **state)
{
	(void)state;
	/* Each encoding goes to the decoder its length selects, both through
	 * the generic entry point and the fixed-length ones, checked and
	 * unchecked (no reason here is about the subgroup). */
	const char *groups[] = { "g1_invalid", "g2_invalid" };
	int seen = 0;
	for (int g = 0; g < 2; g++) {
		json_t *arr = json_object_get(tu_vectors(), groups[g]);
		assert_true(json_array_size(arr) >= 8);
		size_t i;
		json_t *v;
		json_array_foreach(arr, i, v) {
			size_t len;
			uint8_t *e = hex_of(v, "encoding", &len);
			const char *reason = json_string_value(json_object_get(v, "reason"));
			int want = reason_code(reason);
			int got, got_fixed, got_unchecked;
			if (g == 0) {
				zkp_g1_affine a;
				got = zkp_g1_affine_from_bytes(&a, e, len);
				if (len == ZKP_G1_COMPRESSED_BYTES) {
					got_fixed = zkp_g1_uncompress(&a, e);
					got_unchecked = zkp_g1_uncompress_unchecked(&a, e);
				} else {
					assert_int_equal(len, ZKP_G1_UNCOMPRESSED_BYTES);
					got_fixed = zkp_g1_deserialize(&a, e);
					got_unchecked = zkp_g1_deserialize_unchecked(&a, e);
				}
			} else {
				zkp_g2_affine a;
				got = zkp_g2_affine_from_bytes(&a, e, len);
				if (len == ZKP_G2_COMPRESSED_BYTES) {
					got_fixed = zkp_g2_uncompress(&a, e);
					got_unchecked = zkp_g2_uncompress_unchecked(&a, e);
				} else {
					assert_int_equal(len, ZKP_G2_UNCOMPRESSED_BYTES);
					got_fixed = zkp_g2_deserialize(&a, e);
					got_unchecked = zkp_g2_deserialize_unchecked(&a, e);
				}
			}
			if (got != want || got_fixed != want || got_unchecked != want)
				fail_msg("%s[%zu] (%s): got %s/%s/%s, want %s", groups[g], i,
					 reason, zkp_err_name(got), zkp_err_name(got_fixed),
					 zkp_err_name(got_unchecked), zkp_err_name(want));
			seen |= 1 << -want;
			free(e);
		}
	}
	/* every reason except not_in_subgroup occurs */
	assert_int_equal(seen, (1 << -ZKP_ERR_BAD_FLAGS) | (1 << -ZKP_ERR_BAD_INFINITY) |
				       (1 << -ZKP_ERR_SORT_FLAG_UNCOMPRESSED) |
				       (1 << -ZKP_ERR_NOT_CANONICAL) |
				       (1 << -ZKP_ERR_X_NOT_ON_CURVE) | (1 << -ZKP_ERR_NOT_ON_CURVE));
}

/* ---- mutations of valid encodings ---- */

/* Adds p to the 48-byte big-endian field at f (flags cleared); false if the
 * sum needs more than the 381 bits below the flags. */
static bool add_p_be(uint8_t f[48])
{
	unsigned carry = 0;
	uint8_t t[48];
	for (int i = 47; i >= 0; i--) {
		unsigned s = f[i] + P_BE[i] + carry;
		t[i] = (uint8_t)s;
		carry = s >> 8;
	}
	if (carry || (t[0] & 0xe0))
		return false;
	memcpy(f, t, 48);
	return true;
}

typedef int (*decode_fn)(void *ret, const uint8_t *in);

/* Room for either group's decoded point. */
typedef union {
	zkp_g1_affine g1;
	zkp_g2_affine g2;
} any_affine;

/* Replaces the 48-byte coordinate field at offset off of a valid encoding
 * (keeping the flags of byte 0) by values >= p: p itself, 2^381 - 1, and
 * the coordinate + p when that fits in 381 bits. */
static void check_not_canonical_field(decode_fn dec, const uint8_t *enc, size_t len,
				      size_t off)
{
	uint8_t m[ZKP_G2_UNCOMPRESSED_BYTES];
	any_affine ret;
	uint8_t flags = enc[0] & 0xe0;

	memcpy(m, enc, len);
	memcpy(m + off, P_BE, 48);
	m[0] |= flags;
	assert_int_equal(dec(&ret, m), ZKP_ERR_NOT_CANONICAL);

	memcpy(m, enc, len);
	memset(m + off, 0xff, 48);
	m[off] = 0x1f; /* 2^381 - 1 */
	m[0] |= flags;
	assert_int_equal(dec(&ret, m), ZKP_ERR_NOT_CANONICAL);

	memcpy(m, enc, len);
	m[0] &= 0x1f;
	if (add_p_be(m + off)) {
		m[0] |= flags;
		assert_int_equal(dec(&ret, m), ZKP_ERR_NOT_CANONICAL);
	}
}

static int dec_g1c(void *r, const uint8_t *in) { return zkp_g1_uncompress(r, in); }
static int dec_g1u(void *r, const uint8_t *in) { return zkp_g1_deserialize(r, in); }
static int dec_g2c(void *r, const uint8_t *in) { return zkp_g2_uncompress(r, in); }
static int dec_g2u(void *r, const uint8_t *in) { return zkp_g2_deserialize(r, in); }

static void check_flag_mutations(decode_fn decc, decode_fn decu, const uint8_t *c,
				 size_t clen, const uint8_t *u, size_t ulen)
{
	uint8_t m[ZKP_G2_UNCOMPRESSED_BYTES];
	any_affine ret;

	/* compression flag cleared on a compressed / set on an uncompressed */
	memcpy(m, c, clen);
	m[0] &= 0x7f;
	assert_int_equal(decc(&ret, m), ZKP_ERR_BAD_FLAGS);
	memcpy(m, u, ulen);
	m[0] |= 0x80;
	assert_int_equal(decu(&ret, m), ZKP_ERR_BAD_FLAGS);
	m[0] |= 0x40; /* flag mismatch is reported before the infinity rule */
	assert_int_equal(decu(&ret, m), ZKP_ERR_BAD_FLAGS);

	/* infinity flag on a point with coordinate bits */
	memcpy(m, c, clen);
	m[0] |= 0x40;
	assert_int_equal(decc(&ret, m), ZKP_ERR_BAD_INFINITY);
	memcpy(m, u, ulen);
	m[0] |= 0x40;
	assert_int_equal(decu(&ret, m), ZKP_ERR_BAD_INFINITY);

	/* sort flag on an uncompressed point */
	memcpy(m, u, ulen);
	m[0] |= 0x20;
	assert_int_equal(decu(&ret, m), ZKP_ERR_SORT_FLAG_UNCOMPRESSED);

	/* infinity encodings with one stray bit anywhere */
	for (size_t bit = 0; bit < 8 * clen; bit += 5) {
		if (bit < 2)
			continue; /* the compression and infinity flags */
		memset(m, 0, clen);
		m[0] = 0xc0;
		m[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
		assert_int_equal(decc(&ret, m), ZKP_ERR_BAD_INFINITY);
	}
	memset(m, 0, clen);
	m[0] = 0xe0;
	assert_int_equal(decc(&ret, m), ZKP_ERR_BAD_INFINITY);
	memset(m, 0, ulen);
	m[0] = 0x60; /* infinity is checked before the sort-flag rule */
	assert_int_equal(decu(&ret, m), ZKP_ERR_BAD_INFINITY);
	m[0] = 0x40;
	m[ulen - 1] = 1;
	assert_int_equal(decu(&ret, m), ZKP_ERR_BAD_INFINITY);

	/* all-zero uncompressed bytes are (0, 0), not infinity, and off the
	 * curve; compressed x = 0 without flags is a flag error */
	memset(m, 0, ulen);
	assert_int_equal(decu(&ret, m), ZKP_ERR_NOT_ON_CURVE);
	memset(m, 0, clen);
	assert_int_equal(decc(&ret, m), ZKP_ERR_BAD_FLAGS);
}

static void test_g1_mutations(void **state)
{
	(void)state;
	for (int it = 0; it < 8; it++) {
		zkp_g1_affine p, q, np;
		uint8_t c[ZKP_G1_COMPRESSED_BYTES], u[ZKP_G1_UNCOMPRESSED_BYTES];
		uint8_t m[ZKP_G1_UNCOMPRESSED_BYTES];
		rand_g1(&p);
		zkp_g1_compress(c, &p);
		zkp_g1_serialize(u, &p);
		assert_int_equal(zkp_g1_uncompress(&q, c), 0);
		assert_true(zkp_g1_affine_eq(&q, &p));
		assert_int_equal(zkp_g1_deserialize(&q, u), 0);
		assert_true(zkp_g1_affine_eq(&q, &p));

		/* toggling the sort flag gives -P */
		memcpy(m, c, sizeof(c));
		m[0] ^= 0x20;
		assert_int_equal(zkp_g1_uncompress(&q, m), 0);
		zkp_g1_affine_neg(&np, &p);
		assert_true(zkp_g1_affine_eq(&q, &np));

		check_flag_mutations(dec_g1c, dec_g1u, c, sizeof(c), u, sizeof(u));
		check_not_canonical_field(dec_g1c, c, sizeof(c), 0);
		check_not_canonical_field(dec_g1u, u, sizeof(u), 0);
		check_not_canonical_field(dec_g1u, u, sizeof(u), 48);

		/* (x, y + 1) is off the curve */
		zkp_fp one;
		zkp_fp_set_one(&one);
		q = p;
		zkp_fp_add(&q.y, &q.y, &one);
		zkp_g1_serialize(m, &q);
		assert_int_equal(zkp_g1_deserialize(&q, m), ZKP_ERR_NOT_ON_CURVE);
		assert_int_equal(zkp_g1_deserialize_unchecked(&q, m), ZKP_ERR_NOT_ON_CURVE);

		/* an x with no curve point */
		zkp_fp r;
		do {
			rand_fp(&q.x);
			g1_rhs(&r, &q.x);
		} while (zkp_fp_legendre(&r) != -1);
		zkp_fp_to_be(m, &q.x);
		m[0] |= 0x80 | (it & 1 ? 0x20 : 0);
		assert_int_equal(zkp_g1_uncompress(&q, m), ZKP_ERR_X_NOT_ON_CURVE);
		assert_int_equal(zkp_g1_uncompress_unchecked(&q, m), ZKP_ERR_X_NOT_ON_CURVE);

		/* a curve point outside G1 */
		rand_g1_curve_point(&q);
		zkp_g1_compress(c, &q);
		zkp_g1_serialize(u, &q);
		assert_int_equal(zkp_g1_uncompress(&np, c), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_deserialize(&np, u), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g1_uncompress_unchecked(&np, c), 0);
		assert_true(zkp_g1_affine_eq(&np, &q));
		assert_int_equal(zkp_g1_deserialize_unchecked(&np, u), 0);
		assert_true(zkp_g1_affine_eq(&np, &q));
	}

	/* lengths the generic decoder refuses */
	uint8_t buf[200] = { 0 };
	zkp_g1_affine a;
	const size_t bad[] = { 0, 1, 47, 49, 95, 97, 192 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(zkp_g1_affine_from_bytes(&a, buf, bad[i]), ZKP_ERR_BAD_LENGTH);
	/* a length that selects the other form reports the flag mismatch */
	zkp_g1_compress(buf, &ZKP_G1_GENERATOR);
	assert_int_equal(zkp_g1_affine_from_bytes(&a, buf, 96), ZKP_ERR_BAD_FLAGS);
}

static void test_g2_mutations(void **state)
{
	(void)state;
	for (int it = 0; it < 6; it++) {
		zkp_g2_affine p, q, np;
		uint8_t c[ZKP_G2_COMPRESSED_BYTES], u[ZKP_G2_UNCOMPRESSED_BYTES];
		uint8_t m[ZKP_G2_UNCOMPRESSED_BYTES];
		rand_g2(&p);
		zkp_g2_compress(c, &p);
		zkp_g2_serialize(u, &p);
		assert_int_equal(zkp_g2_uncompress(&q, c), 0);
		assert_true(zkp_g2_affine_eq(&q, &p));
		assert_int_equal(zkp_g2_deserialize(&q, u), 0);
		assert_true(zkp_g2_affine_eq(&q, &p));

		memcpy(m, c, sizeof(c));
		m[0] ^= 0x20;
		assert_int_equal(zkp_g2_uncompress(&q, m), 0);
		zkp_g2_affine_neg(&np, &p);
		assert_true(zkp_g2_affine_eq(&q, &np));

		check_flag_mutations(dec_g2c, dec_g2u, c, sizeof(c), u, sizeof(u));
		/* each of x.c1, x.c0 (compressed), and x.c1, x.c0, y.c1, y.c0 */
		check_not_canonical_field(dec_g2c, c, sizeof(c), 0);
		check_not_canonical_field(dec_g2c, c, sizeof(c), 48);
		for (size_t off = 0; off < sizeof(u); off += 48)
			check_not_canonical_field(dec_g2u, u, sizeof(u), off);

		zkp_fp one;
		zkp_fp_set_one(&one);
		q = p;
		zkp_fp_add(&q.y.c1, &q.y.c1, &one);
		zkp_g2_serialize(m, &q);
		assert_int_equal(zkp_g2_deserialize(&q, m), ZKP_ERR_NOT_ON_CURVE);
		assert_int_equal(zkp_g2_deserialize_unchecked(&q, m), ZKP_ERR_NOT_ON_CURVE);

		zkp_fp2 r;
		do {
			rand_fp(&q.x.c0);
			rand_fp(&q.x.c1);
			g2_rhs(&r, &q.x);
		} while (zkp_fp2_legendre(&r) != -1);
		zkp_fp_to_be(m, &q.x.c1);
		zkp_fp_to_be(m + 48, &q.x.c0);
		m[0] |= 0x80 | (it & 1 ? 0x20 : 0);
		assert_int_equal(zkp_g2_uncompress(&q, m), ZKP_ERR_X_NOT_ON_CURVE);
		assert_int_equal(zkp_g2_uncompress_unchecked(&q, m), ZKP_ERR_X_NOT_ON_CURVE);

		rand_g2_curve_point(&q);
		zkp_g2_compress(c, &q);
		zkp_g2_serialize(u, &q);
		assert_int_equal(zkp_g2_uncompress(&np, c), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_deserialize(&np, u), ZKP_ERR_NOT_IN_SUBGROUP);
		assert_int_equal(zkp_g2_uncompress_unchecked(&np, c), 0);
		assert_true(zkp_g2_affine_eq(&np, &q));
		assert_int_equal(zkp_g2_deserialize_unchecked(&np, u), 0);
		assert_true(zkp_g2_affine_eq(&np, &q));
	}

	uint8_t buf[200] = { 0 };
	zkp_g2_affine a;
	const size_t bad[] = { 0, 48, 95, 97, 191, 193 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(zkp_g2_affine_from_bytes(&a, buf, bad[i]), ZKP_ERR_BAD_LENGTH);
	zkp_g2_serialize(buf, &ZKP_G2_GENERATOR);
	assert_int_equal(zkp_g2_affine_from_bytes(&a, buf, 96), ZKP_ERR_BAD_FLAGS);
}

static void test_g2_sort_order_c1_zero(void **state)
{
	(void)state;
	/* The Fp2 sort order looks at c0 only when c1 = 0. Build curve points
	 * with y in Fp: for x = a + b u, Im(x^3 + 4(1 + u)) = 3a^2 b - b^3 + 4,
	 * so pick b, set a = sqrt((b^3 - 4) / 3b), and keep the x whose
	 * Re(x^3) + 4 = a^3 - 3ab^2 + 4 is a square in Fp. */
	int found = 0;
	for (int tries = 0; tries < 200 && found < 4; tries++) {
		zkp_fp b, t, u, four, three;
		zkp_fp_set_u64(&four, 4);
		zkp_fp_set_u64(&three, 3);
		rand_fp(&b);
		zkp_fp_sqr(&t, &b);
		zkp_fp_mul(&t, &t, &b);
		zkp_fp_sub(&t, &t, &four); /* b^3 - 4 */
		zkp_fp_mul(&u, &three, &b);
		if (zkp_fp_inv(&u, &u))
			continue;
		zkp_fp_mul(&t, &t, &u);
		zkp_g2_affine p, q;
		if (zkp_fp_sqrt(&p.x.c0, &t))
			continue;
		p.x.c1 = b;
		zkp_fp2 r;
		g2_rhs(&r, &p.x);
		assert_true(zkp_fp_is_zero(&r.c1));
		if (zkp_fp_sqrt(&p.y.c0, &r.c0))
			continue;
		zkp_fp_set_zero(&p.y.c1);
		for (int s = 0; s < 2; s++) {
			if (s)
				zkp_fp2_neg(&p.y, &p.y);
			assert_true(zkp_g2_affine_is_on_curve(&p));
			uint8_t c[ZKP_G2_COMPRESSED_BYTES], m[ZKP_G2_UNCOMPRESSED_BYTES];
			zkp_g2_compress(c, &p);
			assert_int_equal(!!(c[0] & 0x20), zkp_fp_is_lexi_largest(&p.y.c0));
			assert_int_equal(zkp_g2_uncompress_unchecked(&q, c), 0);
			assert_true(zkp_g2_affine_eq(&q, &p));
			assert_int_equal(zkp_g2_uncompress(&q, c), ZKP_ERR_NOT_IN_SUBGROUP);
			zkp_g2_serialize(m, &p);
			assert_int_equal(zkp_g2_deserialize_unchecked(&q, m), 0);
			assert_true(zkp_g2_affine_eq(&q, &p));
		}
		found++;
	}
	assert_int_equal(found, 4);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g1_dat_files),
		cmocka_unit_test(test_g2_dat_files),
		cmocka_unit_test(test_g1_points_json),
		cmocka_unit_test(test_g2_points_json),
		cmocka_unit_test(test_identity_json),
		cmocka_unit_test(test_g1_not_in_subgroup_json),
		cmocka_unit_test(test_g2_not_in_subgroup_json),
		cmocka_unit_test(test_invalid_json),
		cmocka_unit_test(test_g1_mutations),
		cmocka_unit_test(test_g2_mutations),
		cmocka_unit_test(test_g2_sort_order_c1_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
