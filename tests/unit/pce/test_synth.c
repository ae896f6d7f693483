/*
 * Synthetic PoRep-shaped circuits and the baseline evaluator: every row
 * holds (checked row by row in a sink, and through builder, file, load and
 * zkp_pce_check), the dimensions known in advance are those produced, the
 * shape stays within tolerance of the 32 GiB partition's ratios, the same
 * seed gives the same circuit digest, the baseline's a, b, c equal
 * zkp_pce_eval's bit for bit, a tampered witness fails at the first row
 * that uses the value, and the .wtns written reads back.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/baseline.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"
#include "zkpd/witness.h"

static char tmpdir[64];
static zkp_pool *pool;

static const char *tmp_path(const char *name)
{
	static char p[4][128];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

static uint64_t rand_below(uint64_t n) { return tu_rand64() % n; }

/* ---- a sink that checks every row as it arrives ---- */

struct checker {
	const zkp_fr *w;
	uint64_t n_cols, rows, bad_rows, first_bad;
	uint64_t nnz[3];    /* after merging equal columns and dropping zeros */
	uint64_t *first_use; /* per column: first row that references it */
	bool sorted_unique;
	uint64_t fail_at;    /* return an error at this row (UINT64_MAX: never) */
};

static void lc_value(zkp_fr *ret, const zkp_pce_term *t, size_t n, struct checker *ck, int m)
{
	zkp_fr_set_zero(ret);
	for (size_t i = 0; i < n; i++) {
		assert_true(t[i].col < ck->n_cols);
		assert_false(zkp_fr_is_zero(&t[i].coeff));
		for (size_t j = 0; j < i; j++)
			if (t[j].col == t[i].col)
				ck->sorted_unique = false;
		if (ck->first_use && ck->first_use[t[i].col] == UINT64_MAX)
			ck->first_use[t[i].col] = ck->rows;
		zkp_fr x;
		zkp_fr_mul(&x, &t[i].coeff, &ck->w[t[i].col]);
		zkp_fr_add(ret, ret, &x);
	}
	ck->nnz[m] += n;
}

static int check_row(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		     size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	struct checker *ck = ctx;
	if (ck->rows == ck->fail_at)
		return zkp_error_set(err, ZKP_ERR_IO, "test sink stops at row %" PRIu64, ck->rows);
	zkp_fr va, vb, vc;
	lc_value(&va, a, na, ck, 0);
	lc_value(&vb, b, nb, ck, 1);
	lc_value(&vc, c, nc, ck, 2);
	zkp_fr_mul(&va, &va, &vb);
	if (!zkp_fr_eq(&va, &vc) && ck->bad_rows++ == 0)
		ck->first_bad = ck->rows;
	ck->rows++;
	return 0;
}

static zkp_fr *alloc_witness(const zkp_synth_info *d)
{
	zkp_fr *w = calloc(d->n_inputs + d->n_aux, sizeof(zkp_fr));
	assert_non_null(w);
	return w;
}

/* ---- the tests ---- */

static void test_range(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	zkp_synth_info info;
	assert_int_equal(zkp_synth_porep_dims(0, &info, &err), ZKP_ERR_RANGE);
	assert_non_null(strstr(err.msg, "0 constraints"));
	assert_int_equal(zkp_synth_porep_dims(ZKP_SYNTH_MAX_CONSTRAINTS + 1, &info, &err),
			 ZKP_ERR_RANGE);
	assert_int_equal(zkp_synth_porep_inputs(1), 2);
	assert_int_equal(zkp_synth_porep_inputs(1 << 20), 3);
	assert_int_equal(zkp_synth_porep_inputs(ZKP_SYNTH_POREP_CONSTRAINTS),
			 ZKP_SYNTH_POREP_INPUTS);
}

/* Every row holds, row by row, at sizes from 1 up; dims predicts the run;
 * columns within a linear combination are distinct. */
static void test_rows_hold(void **state)
{
	(void)state;
	uint64_t sizes[] = { 1, 2, 3, 7, 64, 300, 1000, 5000 + rand_below(5000), 1 << 16 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s], seed = tu_rand64();
		zkp_error err = { 0 };
		zkp_synth_info d, info;
		assert_int_equal(zkp_synth_porep_dims(n, &d, &err), 0);
		zkp_fr *w = alloc_witness(&d);
		struct checker ck = { .w = w, .n_cols = d.n_inputs + d.n_aux,
				      .sorted_unique = true, .fail_at = UINT64_MAX };
		assert_int_equal(zkp_synth_porep(n, seed, check_row, &ck, w, &info, &err), 0);
		if (ck.bad_rows)
			fail_msg("n %" PRIu64 " seed %" PRIu64 ": %" PRIu64
				 " rows fail, first %" PRIu64,
				 n, seed, ck.bad_rows, ck.first_bad);
		assert_true(ck.sorted_unique);
		assert_int_equal(ck.rows, n);
		assert_true(zkp_fr_is_one(&w[0]));
		assert_memory_equal(&d, &info, sizeof(d));
		for (int m = 0; m < 3; m++)
			assert_int_equal(ck.nnz[m], info.nnz[m]);
		assert_int_equal(info.n_inputs, zkp_synth_porep_inputs(n));
		assert_int_equal(info.bit_rows + info.packing_rows + info.poseidon_rows, n);
		free(w);
	}
}

/* The shape: within 3% of the full-size partition at every N >= 10^4. */
static void test_ratios(void **state)
{
	(void)state;
	zkp_synth_ratios t;
	zkp_synth_porep_target(&t);
	uint64_t sizes[] = { 10000, 10000 + rand_below(20000), 100000 + rand_below(100000),
			     1 << 20 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		zkp_synth_info info;
		zkp_synth_ratios r;
		zkp_error err = { 0 };
		assert_int_equal(zkp_synth_porep_dims(sizes[s], &info, &err), 0);
		zkp_synth_ratios_of(&r, &info);
		const double got[] = { r.a_per_row, r.b_per_row, r.c_per_row, r.aux_per_row,
				       r.aux_in_b };
		const double want[] = { t.a_per_row, t.b_per_row, t.c_per_row, t.aux_per_row,
					t.aux_in_b };
		const char *name[] = { "A/row", "B/row", "C/row", "aux/row", "aux in B" };
		for (int i = 0; i < 5; i++)
			if (fabs(got[i] / want[i] - 1) > 0.03)
				fail_msg("n %" PRIu64 ": %s %.4f, target %.4f", sizes[s], name[i],
					 got[i], want[i]);
		assert_int_equal(info.inputs_in_b, 1);
		assert_true(info.poseidon_rows > 0 && info.packing_rows > 0);
		assert_true(r.aux_in_a > 0.95);
	}
}

/* Builds n rows from seed into path; fills *w (caller frees) and *info. */
static void build(const char *path, uint64_t n, uint64_t seed, zkp_fr **w,
		  zkp_synth_info *info)
{
	zkp_error err = { 0 };
	zkp_synth_info d;
	zkp_pce_builder *b = NULL;
	assert_int_equal(zkp_synth_porep_dims(n, &d, &err), 0);
	*w = alloc_witness(&d);
	assert_int_equal(zkp_pce_builder_new(&b, d.n_inputs, d.n_aux), 0);
	int rc = zkp_synth_porep(n, seed, zkp_synth_builder_sink, b, *w, info, &err);
	if (rc)
		fail_msg("synth: %s", zkp_error_text(&err, rc));
	assert_int_equal(zkp_pce_builder_rows(b), n);
	rc = zkp_pce_builder_write(b, path, &err);
	if (rc)
		fail_msg("write: %s", zkp_error_text(&err, rc));
	zkp_pce_builder_free(b);
}

static zkp_pce *load(const char *path)
{
	zkp_pce *pce = NULL;
	zkp_error err = { 0 };
	int rc = zkp_pce_load(&pce, path, 0, &err);
	if (rc)
		fail_msg("load: %s", zkp_error_text(&err, rc));
	return pce;
}

static uint64_t popcount(const uint64_t *bm, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < (bits + 63) / 64; i++)
		n += (uint64_t)__builtin_popcountll(bm[i]);
	return n;
}

/* Builder -> file -> load -> check; the loaded dimensions, non-zeros and
 * densities are the generator's. */
static void test_pce_satisfied(void **state)
{
	(void)state;
	uint64_t sizes[] = { 1, 777, 20000 + rand_below(10000), 1 << 17 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s], seed = tu_rand64();
		const char *path = tmp_path("sat.pce");
		zkp_fr *w;
		zkp_synth_info info;
		build(path, n, seed, &w, &info);
		zkp_pce *pce = load(path);
		const zkp_pce_dims *d = zkp_pce_get_dims(pce);
		assert_int_equal(d->n_constraints, n);
		assert_int_equal(d->n_inputs, info.n_inputs);
		assert_int_equal(d->n_aux, info.n_aux);
		for (int m = 0; m < 3; m++)
			assert_int_equal(d->nnz[m], info.nnz[m]);
		assert_int_equal(popcount(zkp_pce_density_a_aux(pce), d->n_aux), info.aux_in_a);
		assert_int_equal(popcount(zkp_pce_density_b_aux(pce), d->n_aux), info.aux_in_b);
		assert_int_equal(popcount(zkp_pce_density_b_input(pce), d->n_inputs),
				 info.inputs_in_b);
		zkp_error err = { 0 };
		uint64_t row = 0;
		int rc = zkp_pce_check(pce, w, &row, pool, &err);
		if (rc)
			fail_msg("n %" PRIu64 " seed %" PRIu64 ": %s", n, seed,
				 zkp_error_text(&err, rc));
		if (n >= 10000) {
			double bpn = zkp_pce_bytes_per_nnz(pce);
			if (bpn > 6.0)
				fail_msg("n %" PRIu64 ": %.3f bytes per non-zero", n, bpn);
		}
		zkp_pce_free(pce);
		free(w);
	}
}

static void digest_of(uint8_t out[ZKP_PCE_DIGEST_BYTES], uint64_t n, uint64_t seed,
		      zkp_fr **w, zkp_synth_info *info)
{
	const char *path = tmp_path("digest.pce");
	build(path, n, seed, w, info);
	zkp_pce *pce = load(path);
	memcpy(out, zkp_pce_digest(pce), ZKP_PCE_DIGEST_BYTES);
	zkp_pce_free(pce);
}

/* Same (N, seed): same digest and witness; another seed: another circuit
 * with the same dimensions. */
static void test_same_seed_same_digest(void **state)
{
	(void)state;
	uint64_t n = 3000 + rand_below(3000), seed = tu_rand64();
	uint8_t d1[ZKP_PCE_DIGEST_BYTES], d2[ZKP_PCE_DIGEST_BYTES], d3[ZKP_PCE_DIGEST_BYTES];
	zkp_fr *w1, *w2, *w3;
	zkp_synth_info i1, i2, i3;
	digest_of(d1, n, seed, &w1, &i1);
	digest_of(d2, n, seed, &w2, &i2);
	digest_of(d3, n, seed + 1, &w3, &i3);
	assert_memory_equal(d1, d2, sizeof(d1));
	assert_memory_equal(w1, w2, (i1.n_inputs + i1.n_aux) * sizeof(zkp_fr));
	assert_memory_not_equal(d1, d3, sizeof(d1));
	assert_int_equal(i1.n_aux, i3.n_aux);
	assert_memory_equal(i1.nnz, i3.nnz, sizeof(i1.nnz));
	free(w1);
	free(w2);
	free(w3);
}

/* The baseline's a, b, c equal the PCE's bit for bit, and its density
 * trackers agree with the file's bitmaps. */
static void test_baseline_equals_eval(void **state)
{
	(void)state;
	uint64_t sizes[] = { 5, 1000 + rand_below(1000), (1 << 14) + rand_below(1 << 14) };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s], seed = tu_rand64();
		const char *path = tmp_path("base.pce");
		zkp_fr *w;
		zkp_synth_info info;
		build(path, n, seed, &w, &info);
		zkp_pce *pce = load(path);
		uint64_t nw = info.n_inputs + info.n_aux;
		zkp_fr *abc = calloc(6 * n, sizeof(zkp_fr)), *w2 = calloc(nw, sizeof(zkp_fr));
		assert_non_null(abc);
		assert_non_null(w2);
		zkp_pce_eval(pce, w, abc, abc + n, abc + 2 * n, pool);
		zkp_baseline_stats st;
		zkp_error err = { 0 };
		int rc = zkp_baseline_porep(n, seed, w2, abc + 3 * n, abc + 4 * n, abc + 5 * n, &st,
					    &err);
		if (rc)
			fail_msg("baseline: %s", zkp_error_text(&err, rc));
		assert_memory_equal(w, w2, nw * sizeof(zkp_fr));
		for (int m = 0; m < 3; m++)
			if (memcmp(abc + m * n, abc + (3 + m) * n, n * sizeof(zkp_fr)))
				fail_msg("n %" PRIu64 " seed %" PRIu64 ": matrix %c differs", n,
					 seed, "ABC"[m]);
		assert_int_equal(st.terms, info.nnz[0] + info.nnz[1] + info.nnz[2]);
		assert_true(st.lc_allocs >= n);
		assert_int_equal(st.a_aux_density, info.aux_in_a);
		assert_int_equal(st.b_aux_density, info.aux_in_b);
		assert_int_equal(st.b_input_density, info.inputs_in_b);
		free(abc);
		free(w2);
		free(w);
		zkp_pce_free(pce);
	}
}

/* A changed value fails at the first row that references it: for an aux
 * variable the row that allocates it, for an input its packing row. */
static void test_tampered_witness(void **state)
{
	(void)state;
	uint64_t n = 20000 + rand_below(5000), seed = tu_rand64();
	const char *path = tmp_path("tamper.pce");
	zkp_fr *w;
	zkp_synth_info info;
	build(path, n, seed, &w, &info);
	uint64_t nw = info.n_inputs + info.n_aux;

	/* Where each column is first used, from a second run of the stream. */
	zkp_fr *w2 = alloc_witness(&info);
	struct checker ck = { .w = w2, .n_cols = nw, .sorted_unique = true,
			      .fail_at = UINT64_MAX };
	ck.first_use = malloc(nw * sizeof(uint64_t));
	assert_non_null(ck.first_use);
	memset(ck.first_use, 0xff, nw * sizeof(uint64_t));
	zkp_error err = { 0 };
	assert_int_equal(zkp_synth_porep(n, seed, check_row, &ck, w2, NULL, &err), 0);
	assert_int_equal(ck.bad_rows, 0);

	zkp_pce *pce = load(path);
	for (int t = 0; t < 24; t++) {
		uint64_t col = t < 2 ? 1 + rand_below(info.n_inputs - 1)
				     : info.n_inputs + rand_below(info.n_aux);
		zkp_fr saved = w[col], delta;
		do {
			uint64_t wide[8];
			for (int i = 0; i < 8; i++)
				wide[i] = tu_rand64();
			zkp_fr_from_wide(&delta, wide);
		} while (zkp_fr_is_zero(&delta));
		zkp_fr_add(&w[col], &w[col], &delta);
		uint64_t row = UINT64_MAX;
		int rc = zkp_pce_check(pce, w, &row, pool, &err);
		if (rc != ZKP_ERR_UNSATISFIED || row != ck.first_use[col])
			fail_msg("seed %" PRIu64 " column %" PRIu64 ": rc %d row %" PRIu64
				 ", expected the failure at row %" PRIu64,
				 seed, col, rc, row, ck.first_use[col]);
		char want[48];
		snprintf(want, sizeof(want), "constraint %" PRIu64 " ", row);
		assert_non_null(strstr(err.msg, want));
		w[col] = saved;
	}
	assert_int_equal(zkp_pce_check(pce, w, NULL, pool, &err), 0);
	zkp_pce_free(pce);
	free(ck.first_use);
	free(w2);
	free(w);
}

/* The .wtns writer: circom's layout byte by byte, read back by the witness
 * loader; refusals name the path. */
static void test_wtns(void **state)
{
	(void)state;
	uint64_t n = 500 + rand_below(500), seed = tu_rand64();
	zkp_synth_info info;
	zkp_error err = { 0 };
	assert_int_equal(zkp_synth_porep_dims(n, &info, &err), 0);
	zkp_fr *w = alloc_witness(&info);
	assert_int_equal(zkp_synth_porep(n, seed, NULL, NULL, w, NULL, &err), 0);
	uint64_t nw = info.n_inputs + info.n_aux;
	const char *path = tmp_path("x.wtns");
	assert_int_equal(zkp_synth_write_wtns(path, w, nw, &err), 0);

	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t head[76];
	assert_int_equal(fread(head, 1, sizeof(head), f), sizeof(head));
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftell(f), 76 + 32 * (long)nw);
	fclose(f);
	assert_memory_equal(head, "wtns\2\0\0\0\2\0\0\0\1\0\0\0", 16);
	assert_memory_equal(head + 16, "\x28\0\0\0\0\0\0\0\x20\0\0\0", 12);
	uint8_t r_le[32];
	for (int i = 0; i < 32; i++)
		r_le[i] = (uint8_t)(ZKP_FR_MODULUS[i / 8] >> (8 * (i % 8)));
	assert_memory_equal(head + 28, r_le, 32);
	assert_int_equal(head[60] | head[61] << 8 | head[62] << 16 | (uint32_t)head[63] << 24,
			 nw);
	assert_memory_equal(head + 64, "\2\0\0\0", 4);

	zkp_fr *back = NULL;
	uint64_t count = 0;
	int rc = zkp_witness_load(path, &back, &count, &err);
	if (rc)
		fail_msg("load: %s", zkp_error_text(&err, rc));
	assert_int_equal(count, nw);
	assert_memory_equal(back, w, nw * sizeof(zkp_fr));
	free(back);

	const char *bad = tmp_path("no/such/dir/x.wtns");
	assert_int_equal(zkp_synth_write_wtns(bad, w, nw, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, bad));
	assert_int_equal(zkp_synth_write_wtns(path, w, 0, &err), ZKP_ERR_RANGE);
	free(w);
}

/* A sink's error stops the stream and comes back unchanged. */
static void test_sink_error(void **state)
{
	(void)state;
	uint64_t n = 2000, stop = rand_below(n);
	zkp_synth_info info;
	zkp_error err = { 0 };
	assert_int_equal(zkp_synth_porep_dims(n, &info, &err), 0);
	zkp_fr *w = alloc_witness(&info);
	struct checker ck = { .w = w, .n_cols = info.n_inputs + info.n_aux,
			      .sorted_unique = true, .fail_at = stop };
	assert_int_equal(zkp_synth_porep(n, 1, check_row, &ck, w, NULL, &err), ZKP_ERR_IO);
	assert_int_equal(ck.rows, stop);
	assert_non_null(strstr(err.msg, "test sink stops"));
	free(w);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_synth.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return zkp_pool_new(&pool, 1);
}

static int teardown(void **state)
{
	(void)state;
	zkp_pool_free(pool);
	DIR *d = opendir(tmpdir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char p[sizeof(tmpdir) + sizeof(e->d_name) + 1];
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
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_rows_hold),
		cmocka_unit_test(test_ratios),
		cmocka_unit_test(test_pce_satisfied),
		cmocka_unit_test(test_same_seed_same_digest),
		cmocka_unit_test(test_baseline_equals_eval),
		cmocka_unit_test(test_tampered_witness),
		cmocka_unit_test(test_wtns),
		cmocka_unit_test(test_sink_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
