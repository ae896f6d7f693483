/*
 * Key files: the real Zcash sapling-output.params, synthetic bellman keys,
 * a real snarkjs .zkey, every refusal with its code and message, and the
 * native cache (write, reuse, stale, corrupt) and standalone native keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "g16_test.h"
#include "zkpd/groth16_io.h"

static void write_bytes(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)len + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static const zkp_groth16_load_opts nocache = { .flags = ZKP_GROTH16_NO_CACHE };

static void assert_same_key(const zkp_groth16_pk *a, const zkp_groth16_pk *b)
{
	assert_memory_equal(a->n, b->n, sizeof(a->n));
	assert_true(zkp_groth16_vk_eq(&a->vk, &b->vk));
	assert_memory_equal(a->h, b->h, a->n[ZKP_GROTH16_H] * sizeof(zkp_g1_affine));
	assert_memory_equal(a->l, b->l, a->n[ZKP_GROTH16_L] * sizeof(zkp_g1_affine));
	assert_memory_equal(a->a, b->a, a->n[ZKP_GROTH16_A] * sizeof(zkp_g1_affine));
	assert_memory_equal(a->b_g1, b->b_g1, a->n[ZKP_GROTH16_B_G1] * sizeof(zkp_g1_affine));
	assert_memory_equal(a->b_g2, b->b_g2, a->n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine));
}

/* ---- sapling-output.params (tests/vectors/README.md) ---- */

#define SAPLING "sapling-output.params"
#define SAPLING_END 3540024
static const char SAPLING_SHA256[] =
	"2f0ebbcbb9bb0bcffe95a397e7eba89c29eb4dde6191c339db88570e3f3fb0e4";
static const char SAPLING_BLAKE2B[] =
	"657e3d38dbb5cb5e7dd2970e8b03d69b4787dd907285b5a7f0790dcc8072f60b"
	"f593b32cc2d1c030e00ff5ae64bf84c5c3beb84ddc841d48264b4a171744d028";

static void test_sapling(void **state)
{
	(void)state;
	char path[256], out[128], hx[129];
	g16t_vector_path(path, sizeof(path), SAPLING);
	zkp_error e = { 0 }, note = { 0 };
	uint8_t d[64];
	assert_int_equal(zkp_groth16_file_blake2b512(d, path, &e), 0);
	hex(hx, d, 64);
	assert_string_equal(hx, SAPLING_BLAKE2B);
	assert_int_equal(zkp_groth16_file_sha256(d, path, &e), 0);
	hex(hx, d, 32);
	assert_string_equal(hx, SAPLING_SHA256);

	/* First load: decode, check every point, write the cache. */
	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 1), 0);
	zkp_groth16_load_opts o = { .cache_dir = g16t_tmpdir, .pool = pool, .cache_note = &note };
	zkp_groth16_pk pk;
	double t0 = g16t_now();
	int rc = zkp_groth16_pk_load(&pk, path, &o, &e);
	double t1 = g16t_now();
	if (rc)
		fprintf(stderr, "%s\n", e.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(pk.cache, ZKP_GROTH16_CACHE_CREATED);
	assert_false(pk.mem_mapped);
	static const size_t want[ZKP_GROTH16_NSECTIONS] = { 6, 8191, 7821, 6298, 4850, 4850 };
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
		assert_int_equal(pk.n[s], want[s]);
	assert_int_equal(pk.domain_size, 8192);
	assert_int_equal(pk.n_inputs, 6);
	assert_int_equal(pk.n_aux, 7821);
	assert_int_equal(pk.format, ZKP_GROTH16_FMT_PARAMS);
	assert_int_equal(pk.h_conv, ZKP_GROTH16_H_BELLMAN);
	assert_int_equal(pk.ab_layout, ZKP_GROTH16_AB_COMPACT);
	assert_true(pk.subgroup_checked);
	assert_int_equal(pk.source_bytes, 3592860);
	hex(hx, pk.source_sha256, 32);
	assert_string_equal(hx, SAPLING_SHA256);
	assert_true(pk.vk.has_g1_extras);

	/* The loader checked every point; a second pass here checks every
	 * point on its curve and not infinity, and one in 16 (the first and
	 * last of each section included) in its subgroup. */
	const zkp_g1_affine *g1s[5] = { pk.vk.ic, pk.h, pk.l, pk.a, pk.b_g1 };
	size_t bad = 0;
	for (int s = 0; s < 5; s++)
		for (size_t i = 0; i < pk.n[s]; i++)
			bad += !zkp_g1_affine_is_on_curve(&g1s[s][i]) ||
			       zkp_g1_affine_is_infinity(&g1s[s][i]) ||
			       ((i % 16 == 0 || i + 1 == pk.n[s]) &&
				!zkp_g1_affine_in_subgroup(&g1s[s][i]));
	for (size_t i = 0; i < pk.n[ZKP_GROTH16_B_G2]; i++)
		bad += !zkp_g2_affine_is_on_curve(&pk.b_g2[i]) ||
		       zkp_g2_affine_is_infinity(&pk.b_g2[i]) ||
		       ((i % 16 == 0 || i + 1 == pk.n[ZKP_GROTH16_B_G2]) &&
			!zkp_g2_affine_in_subgroup(&pk.b_g2[i]));
	assert_int_equal(bad, 0);

	/* Later loads map the cache: same key, no decoding. */
	zkp_groth16_pk cached, stat_hit;
	double t2 = g16t_now();
	assert_int_equal(zkp_groth16_pk_load(&cached, path, &o, &e), 0);
	double t3 = g16t_now();
	o.flags = ZKP_GROTH16_CACHE_TRUST_STAT;
	assert_int_equal(zkp_groth16_pk_load(&stat_hit, path, &o, &e), 0);
	double t4 = g16t_now();
	assert_int_equal(cached.cache, ZKP_GROTH16_CACHE_HIT);
	assert_int_equal(stat_hit.cache, ZKP_GROTH16_CACHE_HIT);
	assert_true(cached.mem_mapped);
	fprintf(stderr,
		"sapling-output.params: first load %.3f s (decode, subgroup checks, SHA-256, "
		"cache write; 2 threads), cached %.4f s, cached trusting stat %.4f s\n",
		t1 - t0, t3 - t2, t4 - t3);
	assert_same_key(&pk, &cached);
	assert_same_key(&pk, &stat_hit);
	assert_memory_equal(pk.source_sha256, cached.source_sha256, 32);
	assert_int_equal(cached.domain_size, 8192);
	assert_int_equal(cached.n_aux, 7821);
	assert_true(cached.subgroup_checked);
	assert_string_equal(cached.source_path, path);
	zkp_groth16_pk_release(&cached);
	zkp_groth16_pk_release(&stat_hit);

	/* .vk reading takes the first section of the same file. */
	zkp_groth16_vk vk;
	assert_int_equal(zkp_groth16_vk_load(&vk, path, 0, &e), 0);
	assert_true(zkp_groth16_vk_eq(&vk, &pk.vk));
	zkp_groth16_pvk *pvk;
	assert_int_equal(zkp_groth16_pvk_new(&pvk, &vk), 0);
	zkp_groth16_pvk_free(pvk);
	zkp_groth16_vk_release(&vk);

	/* Writing it back gives the file byte for byte, up to the trailer. */
	g16t_tmp_path(out, sizeof(out), "sapling-copy.params");
	assert_int_equal(zkp_groth16_pk_write_params(&pk, out, &e), 0);
	size_t n1, n2;
	uint8_t *a = read_bytes(path, &n1), *b = read_bytes(out, &n2);
	assert_int_equal(n2, SAPLING_END);
	assert_memory_equal(a, b, SAPLING_END);
	free(a);
	free(b);
	zkp_groth16_pk_release(&pk);
	zkp_pool_free(pool);
}

/* Refusals on modified copies of the real file. */
static void expect_load(const char *name, const uint8_t *data, size_t len, unsigned flags,
			const zkp_groth16_shape *shape, int code, const char *m1, const char *m2)
{
	char path[128];
	g16t_tmp_path(path, sizeof(path), name);
	write_bytes(path, data, len);
	zkp_groth16_load_opts o = { .flags = flags | ZKP_GROTH16_NO_CACHE, .expect = shape };
	zkp_groth16_pk pk;
	zkp_error e = { 0 };
	int rc = zkp_groth16_pk_load(&pk, path, &o, &e);
	if (rc != code || (m1 && !strstr(e.msg, m1)) || (m2 && !strstr(e.msg, m2)) ||
	    (code && !strstr(e.msg, name))) {
		fprintf(stderr, "%s: got %d (%s), want %d with \"%s\" \"%s\"\n", name, rc,
			rc ? e.msg : "ok", code, m1 ? m1 : "", m2 ? m2 : "");
		fail();
	}
	if (!rc)
		zkp_groth16_pk_release(&pk);
	unlink(path);
}

static void test_sapling_refusals(void **state)
{
	(void)state;
	size_t len;
	uint8_t *orig = tu_read_vector_file(SAPLING, &len);
	uint8_t *buf = malloc(len);
	assert_non_null(buf);

	/* Truncations: the section and offset are named. */
	static const struct {
		size_t at;
		const char *section;
		const char *detail;
	} cuts[] = {
		{ 0, "section vk", "file has 0 bytes" },
		{ 500, "section vk", "file has 500 bytes" },
		{ 866, "section ic", "count at offset 864" },
		{ 1000, "section ic", "ends in point 1 at offset 964" },
		{ 1446, "section h", "count at offset 1444" },
		{ 500000, "section h", "from offset 1448" },
		{ 787786, "section l", "count at offset 787784" },
		{ 1538604 + 50, "section a", "ends in point 0 at offset 1538608" },
		{ 2143216 + 4 + 96 * 10 + 5, "section b_g1", "ends in point 10" },
		{ 2608822, "section b_g2", "count at offset 2608820" },
		{ SAPLING_END - 1, "section b_g2", "ends in point 4849" },
	};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		expect_load("cut.params", orig, cuts[i].at, 0, NULL, ZKP_ERR_TRUNCATED,
			    cuts[i].section, cuts[i].detail);
	/* Exactly the Groth16 part, no trailer: fine. */
	expect_load("exact.params", orig, SAPLING_END, ZKP_GROTH16_SKIP_SUBGROUP, NULL, 0, NULL,
		    NULL);

	/* h[5].y changed: off the curve. h starts at 1448. */
	memcpy(buf, orig, len);
	buf[1448 + 5 * 96 + 95] ^= 1;
	expect_load("offcurve.params", buf, len, 0, NULL, ZKP_ERR_NOT_ON_CURVE,
		    "section h: point 5 at offset 1928", "not on the curve");
	/* Two bad points decoded by two threads: the lower index is named. */
	buf[1448 + 7000 * 96 + 95] ^= 1;
	{
		char p2[128];
		g16t_tmp_path(p2, sizeof(p2), "offcurve2.params");
		write_bytes(p2, buf, len);
		zkp_pool *pool;
		assert_int_equal(zkp_pool_new(&pool, 1), 0);
		zkp_groth16_load_opts o = { .flags = ZKP_GROTH16_NO_CACHE, .pool = pool };
		zkp_groth16_pk pk;
		zkp_error e = { 0 };
		for (int rep = 0; rep < 3; rep++) {
			assert_int_equal(zkp_groth16_pk_load(&pk, p2, &o, &e), ZKP_ERR_NOT_ON_CURVE);
			assert_non_null(strstr(e.msg, "section h: point 5 at offset 1928"));
		}
		zkp_pool_free(pool);
	}
	/* ic[2].x >= p */
	memcpy(buf, orig, len);
	memset(buf + 868 + 2 * 96, 0x1f, 48);
	expect_load("noncanon.params", buf, len, 0, NULL, ZKP_ERR_NOT_CANONICAL,
		    "section ic: point 2 at offset 1060", NULL);
	/* A flag byte that does not belong on an uncompressed point. */
	memcpy(buf, orig, len);
	buf[1538608 + 7 * 96] |= 0x80;
	expect_load("flags.params", buf, len, 0, NULL, ZKP_ERR_BAD_FLAGS, "section a: point 7",
		    NULL);
	/* delta_g2 broken: named as a vk point. */
	memcpy(buf, orig, len);
	buf[672 + 191] ^= 1;
	expect_load("delta.params", buf, len, 0, NULL, ZKP_ERR_NOT_ON_CURVE, "delta_g2",
		    "offset 672");

	/* h[3] replaced by an on-curve point of order 11. */
	json_t *v = json_object_get(tu_vectors(), "g1_not_in_subgroup");
	const char *hx = json_string_value(json_object_get(json_array_get(v, 1), "uncompressed"));
	memcpy(buf, orig, len);
	assert_int_equal(tu_hex_to_bytes(buf + 1448 + 3 * 96, 96, hx), 96);
	expect_load("subgroup.params", buf, len, 0, NULL, ZKP_ERR_NOT_IN_SUBGROUP,
		    "section h: point 3 at offset 1736", NULL);
	/* A trusted file is checked on the curve only. */
	expect_load("subgroup.params", buf, len, ZKP_GROTH16_SKIP_SUBGROUP, NULL, 0, NULL, NULL);

	/* Shapes: the sapling counts pass; each changed count is named. */
	zkp_groth16_shape ok = {
		.n_inputs = 6, .n_aux = 7821, .domain_size = 8192,
		.a_aux_ones = 6298 - 6, .b_input_ones = 3, .b_aux_ones = 4850 - 3,
	};
	expect_load("shape.params", orig, len, ZKP_GROTH16_SKIP_SUBGROUP, &ok, 0, NULL, NULL);
	zkp_groth16_shape s = ok;
	s.n_inputs = 7;
	expect_load("shape.params", orig, len, 0, &s, ZKP_ERR_MISMATCH, "section ic has 6",
		    "7 inputs");
	s = ok;
	s.domain_size = 16384;
	expect_load("shape.params", orig, len, 0, &s, ZKP_ERR_MISMATCH, "section h has 8191",
		    "16383");
	s = ok;
	s.n_aux = 7820;
	expect_load("shape.params", orig, len, 0, &s, ZKP_ERR_MISMATCH, "section l has 7821",
		    NULL);
	s = ok;
	s.a_aux_ones++;
	expect_load("shape.params", orig, len, 0, &s, ZKP_ERR_MISMATCH, "section a has 6298",
		    "popcount(a_aux) 6293");
	s = ok;
	s.b_aux_ones--;
	expect_load("shape.params", orig, len, 0, &s, ZKP_ERR_MISMATCH, "section b_g1 has 4850",
		    "popcount(b_input) 3");
	free(buf);
	free(orig);
}

/* ---- synthetic keys ---- */

static void rand_g1s(zkp_g1_affine *p, size_t n)
{
	zkp_fr k;
	tu_rand_fr(&k);
	zkp_g1 acc, step;
	zkp_g1_from_affine(&acc, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&step, &acc, &k);
	for (size_t i = 0; i < n; i++) {
		zkp_g1_add(&acc, &acc, &step);
		zkp_g1_to_affine(&p[i], &acc);
	}
}

static void rand_g2s(zkp_g2_affine *p, size_t n)
{
	zkp_fr k;
	tu_rand_fr(&k);
	zkp_g2 acc, step;
	zkp_g2_from_affine(&acc, &ZKP_G2_GENERATOR);
	zkp_g2_mul_fr(&step, &acc, &k);
	for (size_t i = 0; i < n; i++) {
		zkp_g2_add(&acc, &acc, &step);
		zkp_g2_to_affine(&p[i], &acc);
	}
}

static void make_key(zkp_groth16_pk *pk, const size_t counts[ZKP_GROTH16_NSECTIONS])
{
	zkp_groth16_pk_sections w;
	assert_int_equal(zkp_groth16_pk_alloc(pk, counts, &w), 0);
	rand_g1s(w.ic, counts[ZKP_GROTH16_IC]);
	rand_g1s(w.h, counts[ZKP_GROTH16_H]);
	rand_g1s(w.l, counts[ZKP_GROTH16_L]);
	rand_g1s(w.a, counts[ZKP_GROTH16_A]);
	rand_g1s(w.b_g1, counts[ZKP_GROTH16_B_G1]);
	rand_g2s(w.b_g2, counts[ZKP_GROTH16_B_G2]);
	rand_g1s(&pk->vk.alpha_g1, 1);
	rand_g1s(&pk->vk.beta_g1, 1);
	rand_g1s(&pk->vk.delta_g1, 1);
	rand_g2s(&pk->vk.beta_g2, 1);
	rand_g2s(&pk->vk.gamma_g2, 1);
	rand_g2s(&pk->vk.delta_g2, 1);
}

static void test_synthetic_roundtrip(void **state)
{
	(void)state;
	/* 3 inputs, 10 aux, domain 16; A: 3 + 6 aux; B: 1 input + 4 aux. */
	const size_t counts[ZKP_GROTH16_NSECTIONS] = { 3, 15, 10, 9, 5, 5 };
	zkp_groth16_pk pk, back;
	make_key(&pk, counts);
	assert_int_equal(pk.domain_size, 16);
	char path[128], vpath[128];
	g16t_tmp_path(path, sizeof(path), "synth.params");
	g16t_tmp_path(vpath, sizeof(vpath), "synth.vk");
	zkp_error e = { 0 };
	assert_int_equal(zkp_groth16_pk_write_params(&pk, path, &e), 0);
	assert_int_equal(zkp_groth16_vk_write_bellman(&pk.vk, vpath, &e), 0);
	struct stat st;
	assert_int_equal(stat(vpath, &st), 0);
	assert_int_equal(st.st_size, 868 + 96 * 3);

	/* Shape from a circuit's dims and density bitmaps; bits beyond the
	 * variables are ignored. */
	zkp_pce_dims dims = { .n_inputs = 3, .n_aux = 10, .n_constraints = 12, .domain_log2 = 4 };
	uint64_t a_aux = 0x3f | (UINT64_C(1) << 40), b_input = 0x1 | 0x8, b_aux = 0xf0;
	zkp_groth16_shape shape;
	zkp_groth16_shape_from_pce(&shape, &dims, &a_aux, &b_input, &b_aux);
	assert_int_equal(shape.a_aux_ones, 6);
	assert_int_equal(shape.b_input_ones, 1);
	assert_int_equal(shape.b_aux_ones, 4);
	assert_int_equal(shape.domain_size, 16);
	assert_int_equal(zkp_groth16_pk_check_shape(&pk, &shape, NULL, &e), 0);

	zkp_groth16_load_opts o = { .flags = ZKP_GROTH16_NO_CACHE, .expect = &shape };
	assert_int_equal(zkp_groth16_pk_load(&back, path, &o, &e), 0);
	assert_same_key(&pk, &back);
	assert_int_equal(back.domain_size, 16);
	zkp_groth16_pk_release(&back);
	zkp_groth16_vk vk;
	assert_int_equal(zkp_groth16_vk_load(&vk, vpath, 0, &e), 0);
	assert_true(zkp_groth16_vk_eq(&vk, &pk.vk));
	zkp_groth16_vk_release(&vk);
	/* A truncated .vk names ic. */
	size_t n;
	uint8_t *vb = read_bytes(vpath, &n);
	assert_int_equal(zkp_groth16_vk_from_bellman(&vk, vb, n - 1, "x.vk", 0, &e),
			 ZKP_ERR_TRUNCATED);
	assert_non_null(strstr(e.msg, "x.vk: section ic"));
	free(vb);

	b_aux = 0x70;
	zkp_groth16_shape_from_pce(&shape, &dims, &a_aux, &b_input, &b_aux);
	assert_int_equal(zkp_groth16_pk_load(&back, path, &o, &e), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(e.msg, "section b_g1 has 5"));
	assert_non_null(strstr(e.msg, "synth.params"));
	zkp_groth16_pk_release(&pk);

	/* bellman writers that keep domain points in h, and an h that fits
	 * no domain. */
	const size_t c16[ZKP_GROTH16_NSECTIONS] = { 2, 16, 3, 4, 2, 2 };
	make_key(&pk, c16);
	assert_int_equal(zkp_groth16_pk_write_params(&pk, path, &e), 0);
	o.expect = NULL;
	assert_int_equal(zkp_groth16_pk_load(&back, path, &o, &e), 0);
	assert_int_equal(back.domain_size, 16);
	assert_same_key(&pk, &back);
	zkp_groth16_pk_release(&back);
	zkp_groth16_pk_release(&pk);
	const size_t c5[ZKP_GROTH16_NSECTIONS] = { 2, 5, 3, 4, 2, 2 };
	assert_int_equal(zkp_groth16_pk_alloc(&pk, c5, NULL), ZKP_ERR_INVAL);
	const size_t c7[ZKP_GROTH16_NSECTIONS] = { 2, 7, 3, 4, 2, 2 };
	make_key(&pk, c7);
	assert_int_equal(zkp_groth16_pk_write_params(&pk, path, &e), 0);
	zkp_groth16_pk_release(&pk);
	size_t len;
	uint8_t *buf = read_bytes(path, &len);
	/* h: count 7 -> 5 and two points fewer; h's count is at 868 + 2 * 96. */
	const size_t hc = 868 + 2 * 96, h5 = hc + 4 + 5 * 96, h7 = hc + 4 + 7 * 96;
	buf[hc + 3] = 5;
	memmove(buf + h5, buf + h7, len - h7);
	write_bytes(path, buf, len - (h7 - h5));
	free(buf);
	int rc = zkp_groth16_pk_load(&back, path, &o, &e);
	assert_int_equal(rc, ZKP_ERR_FORMAT);
	assert_non_null(strstr(e.msg, "section h: 5 points"));

	/* b_g2[1] outside the G2 subgroup. */
	make_key(&pk, counts);
	assert_int_equal(zkp_groth16_pk_write_params(&pk, path, &e), 0);
	zkp_groth16_pk_release(&pk);
	buf = read_bytes(path, &len);
	json_t *v = json_object_get(tu_vectors(), "g2_not_in_subgroup");
	const char *hx = json_string_value(json_object_get(json_array_get(v, 0), "uncompressed"));
	size_t off = len - 4 * 192;
	assert_int_equal(tu_hex_to_bytes(buf + off, 192, hx), 192);
	write_bytes(path, buf, len);
	free(buf);
	assert_int_equal(zkp_groth16_pk_load(&back, path, &o, &e), ZKP_ERR_NOT_IN_SUBGROUP);
	char want[64];
	snprintf(want, sizeof(want), "section b_g2: point 1 at offset %zu", off);
	assert_non_null(strstr(e.msg, want));
}

/* ---- the native cache ---- */

static void corrupt_at(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, off, SEEK_SET);
	int c = fgetc(f);
	fseek(f, off, SEEK_SET);
	fputc(c ^ 0x10, f);
	fclose(f);
}

static void load_expect_cache(const char *path, zkp_groth16_load_opts *o,
			      enum zkp_groth16_cache_state want, const char *note_has,
			      const zkp_groth16_pk *ref)
{
	zkp_groth16_pk pk;
	zkp_error e = { 0 };
	int rc = zkp_groth16_pk_load(&pk, path, o, &e);
	if (rc)
		fprintf(stderr, "%s\n", e.msg);
	assert_int_equal(rc, 0);
	if (pk.cache != want || (note_has && !strstr(o->cache_note->msg, note_has))) {
		fprintf(stderr, "cache state %d, want %d; note \"%s\", want \"%s\"\n", pk.cache,
			want, o->cache_note->msg, note_has ? note_has : "");
		fail();
	}
	assert_int_equal(pk.mem_mapped, want == ZKP_GROTH16_CACHE_HIT);
	if (ref)
		assert_same_key(ref, &pk);
	zkp_groth16_pk_release(&pk);
}

static void test_cache(void **state)
{
	(void)state;
	const size_t counts[ZKP_GROTH16_NSECTIONS] = { 4, 31, 20, 12, 9, 9 };
	zkp_groth16_pk ref;
	make_key(&ref, counts);
	char dir[128], path[160], cpath[192];
	g16t_tmp_path(dir, sizeof(dir), "keys");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/k.params", dir);
	zkp_error e = { 0 }, note = { 0 };
	assert_int_equal(zkp_groth16_pk_write_params(&ref, path, &e), 0);
	char *cp = zkp_groth16_cache_path(path, NULL);
	snprintf(cpath, sizeof(cpath), "%s.zkpc", path);
	assert_string_equal(cp, cpath);
	free(cp);

	zkp_groth16_load_opts o = { .cache_note = &note };
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_CREATED, NULL, &ref);
	struct stat st;
	assert_int_equal(stat(cpath, &st), 0);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &ref);

	/* A flipped bit in the points: ignored, rebuilt, then used again. */
	corrupt_at(cpath, 4096 + 1000);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "body digest", &ref);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &ref);
	/* ... in the header ... */
	corrupt_at(cpath, 200);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "header digest", &ref);
	/* ... truncated ... */
	assert_int_equal(truncate(cpath, st.st_size - 7), 0);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "size", &ref);
	assert_int_equal(truncate(cpath, 100), 0);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "shorter than its header", &ref);
	/* ... garbage. */
	write_bytes(cpath, (const uint8_t *)"hello", 5);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, NULL, &ref);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &ref);

	/* A different key under the same name: the digest tells. */
	zkp_groth16_pk other;
	make_key(&other, counts);
	assert_int_equal(zkp_groth16_pk_write_params(&other, path, &e), 0);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "digest differs", &other);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &other);
	/* Trusting stat: a hit without hashing the source; a touched source
	 * falls back to hashing, and the digest still matches. */
	o.flags = ZKP_GROTH16_CACHE_TRUST_STAT;
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &other);
	assert_int_equal(utimes(path, NULL), 0);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, "mtime", &other);

	/* A cache made without subgroup checks does not serve a checked load. */
	o.flags = ZKP_GROTH16_SKIP_SUBGROUP;
	unlink(cpath);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_CREATED, NULL, &other);
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &other);
	o.flags = 0;
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_REBUILT, "without subgroup checks",
			  &other);
	/* ... the other way round is fine. */
	o.flags = ZKP_GROTH16_SKIP_SUBGROUP;
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &other);

	/* A cache directory that cannot be written: the load still works. */
	o.flags = 0;
	o.cache_dir = "/nonexistent/zkpd-cache";
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_FAILED, "/nonexistent/zkpd-cache", &other);
	/* NO_CACHE leaves it alone. */
	o.flags = ZKP_GROTH16_NO_CACHE;
	o.cache_dir = NULL;
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_OFF, NULL, &other);

	/* The shape check also applies to a key served from the cache. */
	zkp_groth16_shape s = { .n_inputs = 4, .n_aux = 21, .domain_size = 32,
				.a_aux_ones = 8, .b_input_ones = 1, .b_aux_ones = 8 };
	o.flags = 0;
	o.expect = &s;
	zkp_groth16_pk pk;
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(e.msg, "section l has 20"));
	zkp_groth16_pk_release(&other);
	zkp_groth16_pk_release(&ref);
}

/* A standalone native key (zkp setup --cache-only): mapped as it is,
 * refused when damaged (not rebuilt: there is nothing to rebuild from), and
 * never confused with a cache of another file. */
static void test_standalone(void **state)
{
	(void)state;
	const size_t counts[ZKP_GROTH16_NSECTIONS] = { 4, 31, 20, 12, 9, 9 };
	zkp_groth16_pk ref, pk;
	make_key(&ref, counts);
	char dir[128], path[160], params[160], cpath[192];
	g16t_tmp_path(dir, sizeof(dir), "standalone");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/k.zkpc", dir);
	zkp_error e = { 0 }, note = { 0 };
	/* Only a key known to be in the subgroup. */
	assert_int_equal(zkp_groth16_pk_write_standalone(&ref, path, NULL, &e), ZKP_ERR_INVAL);
	ref.subgroup_checked = true;
	assert_int_equal(zkp_groth16_pk_write_standalone(&ref, path, NULL, &e), 0);

	zkp_groth16_load_opts o = { .cache_note = &note };
	load_expect_cache(path, &o, ZKP_GROTH16_CACHE_HIT, NULL, &ref);
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), 0);
	assert_string_equal(pk.source_path, path);
	assert_int_equal(pk.format, ZKP_GROTH16_FMT_PARAMS);
	assert_true(pk.subgroup_checked);
	zkp_groth16_pk_release(&pk);
	/* The shape check applies. */
	zkp_groth16_shape s = { .n_inputs = 4, .n_aux = 21, .domain_size = 32,
				.a_aux_ones = 8, .b_input_ones = 1, .b_aux_ones = 8 };
	o.expect = &s;
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), ZKP_ERR_MISMATCH);
	o.expect = NULL;

	/* A cache of a .params given as the key is refused by name... */
	snprintf(params, sizeof(params), "%s/p.params", dir);
	snprintf(cpath, sizeof(cpath), "%s.zkpc", params);
	assert_int_equal(zkp_groth16_pk_write_params(&ref, params, &e), 0);
	load_expect_cache(params, &o, ZKP_GROTH16_CACHE_CREATED, NULL, &ref);
	assert_int_equal(zkp_groth16_pk_load(&pk, cpath, &o, &e), ZKP_ERR_CHECKSUM);
	assert_non_null(strstr(e.msg, "a cache of another key file"));
	/* ... and a standalone key where a .params's cache belongs is not
	 * taken for it: rebuilt from the .params. */
	assert_int_equal(zkp_groth16_pk_write_standalone(&ref, cpath, NULL, &e), 0);
	load_expect_cache(params, &o, ZKP_GROTH16_CACHE_REBUILT, "a standalone key", &ref);

	/* Damage is an error naming the file. */
	corrupt_at(path, 4096 + 1000);
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), ZKP_ERR_CHECKSUM);
	assert_non_null(strstr(e.msg, "body digest mismatch (corrupt key file)"));
	assert_non_null(strstr(e.msg, path));
	assert_int_equal(zkp_groth16_pk_write_standalone(&ref, path, NULL, &e), 0);
	corrupt_at(path, 300);
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), ZKP_ERR_CHECKSUM);
	assert_non_null(strstr(e.msg, "header digest"));
	assert_int_equal(zkp_groth16_pk_write_standalone(&ref, path, NULL, &e), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 96), 0);
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &o, &e), ZKP_ERR_CHECKSUM);
	assert_non_null(strstr(e.msg, "does not match its section table"));
	zkp_groth16_pk_release(&ref);
}

/* ---- snarkjs .zkey ---- */

static void test_zkey(void **state)
{
	(void)state;
	char path[256];
	g16t_vector_path(path, sizeof(path), "snarkjs_tiny.zkey");
	zkp_error e = { 0 }, note = { 0 };
	zkp_groth16_pk pk, pk2_dummy;
	assert_int_equal(zkp_groth16_pk_load(&pk, path, &nocache, &e), 0);
	/* tiny: 6 wires, 2 public, domain 8 (tests/vectors/README.md). */
	static const size_t want[ZKP_GROTH16_NSECTIONS] = { 3, 8, 3, 6, 6, 6 };
	assert_memory_equal(pk.n, want, sizeof(want));
	assert_int_equal(pk.format, ZKP_GROTH16_FMT_ZKEY);
	assert_int_equal(pk.h_conv, ZKP_GROTH16_H_SNARKJS);
	assert_int_equal(pk.ab_layout, ZKP_GROTH16_AB_FULL);
	assert_int_equal(pk.n_inputs, 3);
	assert_int_equal(pk.n_aux, 3);
	assert_int_equal(pk.domain_size, 8);
	assert_int_equal(pk.zkey_coeffs_offset, 1316);
	assert_int_equal(pk.zkey_coeffs_bytes, 312);
	assert_int_equal(pk.zkey_coeffs_count, 7);
	assert_true(pk.vk.has_g1_extras);
	/* ONE is in A (the input rows), so A[0] is a real point. */
	assert_false(zkp_g1_affine_is_infinity(&pk.a[0]));

	zkp_groth16_shape s = { .n_inputs = 3, .n_aux = 3, .domain_size = 8 };
	assert_int_equal(zkp_groth16_pk_check_shape(&pk, &s, NULL, &e), 0);
	s.n_aux = 4;
	assert_int_equal(zkp_groth16_pk_check_shape(&pk, &s, NULL, &e), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(e.msg, "section l has 3"));
	assert_non_null(strstr(e.msg, "snarkjs_tiny.zkey"));

	/* Through the cache. */
	zkp_groth16_load_opts o = { .cache_dir = g16t_tmpdir, .cache_note = &note };
	zkp_groth16_pk c1, c2;
	assert_int_equal(zkp_groth16_pk_load(&c1, path, &o, &e), 0);
	assert_int_equal(c1.cache, ZKP_GROTH16_CACHE_CREATED);
	assert_int_equal(zkp_groth16_pk_load(&c2, path, &o, &e), 0);
	assert_int_equal(c2.cache, ZKP_GROTH16_CACHE_HIT);
	assert_same_key(&pk, &c2);
	assert_int_equal(c2.h_conv, ZKP_GROTH16_H_SNARKJS);
	assert_int_equal(c2.ab_layout, ZKP_GROTH16_AB_FULL);
	assert_int_equal(c2.zkey_coeffs_offset, 1316);
	assert_int_equal(c2.zkey_coeffs_count, 7);
	assert_int_equal(c2.n_aux, 3);
	zkp_groth16_pk_release(&c1);
	zkp_groth16_pk_release(&c2);

	size_t len;
	uint8_t *orig = tu_read_vector_file("snarkjs_tiny.zkey", &len);
	uint8_t *buf = malloc(len);
	assert_non_null(buf);
	/* Sections (tests/vectors/README.md): 1 body at 24, 2 at 40, 3 at 1016,
	 * 4 at 1316, 5 (A) at 1640, 6 at 2228, 7 at 2816, 8 at 3980, 9 at 4280. */
	memcpy(buf, orig, len);
	buf[4] = 2;
	expect_load("v2.zkey", buf, len, 0, NULL, ZKP_ERR_VERSION, "version 2", NULL);
	memcpy(buf, orig, len);
	buf[24] = 2;
	expect_load("plonk.zkey", buf, len, 0, NULL, ZKP_ERR_UNSUPPORTED, "protocol 2 (plonk)",
		    NULL);
	expect_load("cut.zkey", orig, 3000, 0, NULL, ZKP_ERR_TRUNCATED, "section 7", NULL);
	memcpy(buf, orig, len);
	buf[1640 + 96 + 50] ^= 1; /* A[1].y */
	expect_load("offcurve.zkey", buf, len, 0, NULL, ZKP_ERR_NOT_ON_CURVE,
		    "section 5 (A): point 1 at offset 1736", NULL);
	memcpy(buf, orig, len);
	memset(buf + 4280 + 2 * 96, 0xff, 48); /* H[2].x >= p */
	expect_load("noncanon.zkey", buf, len, 0, NULL, ZKP_ERR_NOT_CANONICAL,
		    "section 9 (H): point 2 at offset 4472", NULL);
	/* An on-curve point of order 11 as C[0], in zkey's Montgomery form. */
	json_t *v = json_object_get(tu_vectors(), "g1_not_in_subgroup");
	const char *hx = json_string_value(json_object_get(json_array_get(v, 1), "uncompressed"));
	uint8_t enc[96];
	zkp_g1_affine bad;
	assert_int_equal(tu_hex_to_bytes(enc, 96, hx), 96);
	assert_int_equal(zkp_g1_deserialize_unchecked(&bad, enc), 0);
	memcpy(buf, orig, len);
	memcpy(buf + 3980, &bad, 96); /* little-endian host: limbs are the bytes */
	expect_load("subgroup.zkey", buf, len, 0, NULL, ZKP_ERR_NOT_IN_SUBGROUP,
		    "section 8 (C): point 0 at offset 3980", NULL);
	expect_load("subgroup.zkey", buf, len, ZKP_GROTH16_SKIP_SUBGROUP, NULL, 0, NULL, NULL);
	/* nPublic 2 -> 3 in the header (at 132): IC no longer fits it. */
	memcpy(buf, orig, len);
	buf[132] = 3;
	expect_load("size.zkey", buf, len, 0, NULL, ZKP_ERR_FORMAT,
		    "section 3 (IC) at offset 1016 has 288 bytes, expected 384", NULL);
	free(buf);
	free(orig);

	/* Files that are not proving keys are named as such. */
	char jpath[256];
	g16t_vector_path(jpath, sizeof(jpath), "snarkjs_tiny_vk.json");
	assert_int_equal(zkp_groth16_pk_load(&pk2_dummy, jpath, &nocache, &e), ZKP_ERR_FORMAT);
	assert_non_null(strstr(e.msg, "holds no proving key"));
	expect_load("x.ptau", (const uint8_t *)"ptau\1\0\0\0\0\0\0\0", 12, 0, NULL,
		    ZKP_ERR_FORMAT, "a .ptau file", NULL);

	/* Another curve is refused by name. */
	char bn[256];
	g16t_vector_path(bn, sizeof(bn), "snarkjs_tiny_bn128.zkey");
	zkp_groth16_pk pk2;
	assert_int_equal(zkp_groth16_pk_load(&pk2, bn, &nocache, &e), ZKP_ERR_WRONG_PRIME);
	assert_non_null(strstr(e.msg, "BN254"));
	assert_non_null(strstr(e.msg, "section 2"));
	zkp_groth16_vk vk;
	assert_int_equal(zkp_groth16_vk_load(&vk, bn, 0, &e), ZKP_ERR_WRONG_PRIME);
	zkp_groth16_pk_release(&pk);
}

/* Random damage to small key files: every load returns a code (any) and
 * stays memory-safe; a load that succeeds gives a usable key. */
static void test_random_damage(void **state)
{
	(void)state;
	size_t zlen;
	uint8_t *zkey = tu_read_vector_file("snarkjs_tiny.zkey", &zlen);
	const size_t counts[ZKP_GROTH16_NSECTIONS] = { 2, 7, 3, 4, 3, 3 };
	zkp_groth16_pk key;
	make_key(&key, counts);
	char path[128];
	g16t_tmp_path(path, sizeof(path), "damage.params");
	zkp_error e = { 0 };
	assert_int_equal(zkp_groth16_pk_write_params(&key, path, &e), 0);
	zkp_groth16_pk_release(&key);
	size_t plen;
	uint8_t *params = read_bytes(path, &plen);
	unsigned ok = 0, refused = 0;
	for (int it = 0; it < 400; it++) {
		const uint8_t *src = it % 2 ? zkey : params;
		size_t len = it % 2 ? zlen : plen;
		uint8_t *buf = malloc(len);
		assert_non_null(buf);
		memcpy(buf, src, len);
		int flips = 1 + (int)(tu_rand64() % 4);
		for (int k = 0; k < flips; k++) {
			/* Mostly the headers and counts, where damage bites. */
			size_t pos = tu_rand64() % (tu_rand64() % 2 ? (len < 1100 ? len : 1100) : len);
			buf[pos] = (uint8_t)tu_rand64();
		}
		if (tu_rand64() % 4 == 0)
			len = tu_rand64() % len;
		g16t_tmp_path(path, sizeof(path), it % 2 ? "damage.zkey" : "damage.params");
		write_bytes(path, buf, len);
		free(buf);
		zkp_groth16_pk pk;
		int rc = zkp_groth16_pk_load(&pk, path, &nocache, &e);
		if (rc == 0) {
			ok++;
			for (size_t i = 0; i < pk.n[ZKP_GROTH16_H]; i++)
				assert_true(zkp_g1_affine_is_on_curve(&pk.h[i]));
			zkp_groth16_pk_release(&pk);
		} else {
			refused++;
			assert_true(rc < 0);
			assert_non_null(strstr(e.msg, "damage."));
		}
		zkp_groth16_vk vk;
		if (zkp_groth16_vk_load(&vk, path, 0, &e) == 0)
			zkp_groth16_vk_release(&vk);
	}
	fprintf(stderr, "damaged keys: %u loaded, %u refused\n", ok, refused);
	free(params);
	free(zkey);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sapling),
		cmocka_unit_test(test_sapling_refusals),
		cmocka_unit_test(test_synthetic_roundtrip),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_standalone),
		cmocka_unit_test(test_zkey),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, g16t_setup_tmp, g16t_teardown_tmp);
}
