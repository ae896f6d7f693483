/*
 * The packed form of 0/1-heavy Fr vectors (zkpd/bitpack.h) and the
 * backends' unpack: every layout field checked against its definition
 * recomputed here (masks, prefix, dense values in order, zero bits past
 * n), the round trip bit for bit over lengths around the word and task
 * boundaries, on a pool and on the caller, with values that are almost 0 or
 * almost 1 (the canonical 1, ONE with one limb changed) kept dense; the
 * unpack op of the CPU and offhost backends against the input, and its
 * argument checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/backend.h"
#include "zkpd/bitpack.h"
#include "zkpd/error.h"

static zkp_pool *pool;

/* Mixes: percent of values that are dense, the rest 0 or 1 at random;
 * every 17th dense value is one of the near misses. */
static zkp_fr *make_vector(size_t n, unsigned dense_pct)
{
	zkp_fr *v = malloc((n ? n : 1) * sizeof(zkp_fr));
	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = tu_rand64();
		if (r % 100 >= dense_pct) {
			if (r & (1u << 20))
				v[i] = ZKP_FR_ONE;
			else
				memset(&v[i], 0, sizeof(v[i]));
			continue;
		}
		tu_rand_fr(&v[i]);
		switch ((r >> 24) % 17) {
		case 0: /* the canonical 1, not 1 in Montgomery form */
			memset(&v[i], 0, sizeof(v[i]));
			v[i].l[0] = 1;
			break;
		case 1: /* ONE but for one limb */
			v[i] = ZKP_FR_ONE;
			v[i].l[(r >> 32) % 4] ^= UINT64_C(1) << ((r >> 40) % 64);
			break;
		case 2: /* zero but for one bit */
			memset(&v[i], 0, sizeof(v[i]));
			v[i].l[(r >> 32) % 4] = UINT64_C(1) << ((r >> 40) % 64);
			break;
		}
	}
	return v;
}

static bool is_one(const zkp_fr *x)
{
	return memcmp(x, &ZKP_FR_ONE, sizeof(*x)) == 0;
}

static bool is_zero(const zkp_fr *x)
{
	static const zkp_fr zero;
	return memcmp(x, &zero, sizeof(*x)) == 0;
}

/* Packs v on p, checks every field of the layout, and returns the buffer
 * (exactly zkp_bitpack_bytes long, so a write past it is the sanitizers'
 * to see). */
static void *pack_checked(const zkp_fr *v, size_t n, zkp_pool *p, size_t *n_dense_ret)
{
	size_t w = zkp_bitpack_words(n), off = zkp_bitpack_dense_off(n);
	assert_true(off >= 24 * w && off % 64 == 0 && off < 24 * w + 64);
	uint64_t *words = malloc(off ? off : 1);
	assert_non_null(words);
	size_t n_dense = zkp_bitpack_scan(words, v, n, p);
	size_t want_dense = 0;
	for (size_t i = 0; i < n; i++)
		want_dense += !is_zero(&v[i]) && !is_one(&v[i]);
	assert_int_equal(n_dense, want_dense);
	size_t bytes = zkp_bitpack_bytes(n, n_dense);
	assert_int_equal(bytes, off + n_dense * sizeof(zkp_fr));
	assert_true(zkp_bitpack_fits(bytes, n, n_dense));
	if (bytes)
		assert_false(zkp_bitpack_fits(bytes - 1, n, n_dense));
	uint8_t *buf = malloc(bytes ? bytes : 1);
	assert_non_null(buf);
	memcpy(buf, words, off);
	free(words);
	zkp_bitpack_gather(buf, v, n, p);
	const uint64_t *before = (const uint64_t *)buf, *dense = before + w, *one = dense + w;
	const zkp_fr *vals = (const zkp_fr *)(buf + off);
	size_t k = 0;
	for (size_t wi = 0; wi < w; wi++) {
		assert_int_equal(before[wi], k);
		assert_int_equal(dense[wi] & one[wi], 0);
		for (size_t b = 0; b < 64; b++) {
			size_t i = wi * 64 + b;
			uint64_t bit = UINT64_C(1) << b;
			if (i >= n) {
				assert_int_equal((dense[wi] | one[wi]) & bit, 0);
				continue;
			}
			assert_int_equal(!!(one[wi] & bit), is_one(&v[i]));
			if (dense[wi] & bit)
				assert_memory_equal(&vals[k++], &v[i], sizeof(zkp_fr));
			else
				assert_true(is_zero(&v[i]) || is_one(&v[i]));
		}
	}
	assert_int_equal(k, n_dense);
	*n_dense_ret = n_dense;
	return buf;
}

static void test_round_trip(void **state)
{
	(void)state;
	/* Word boundaries, and past the 4096-word ranges of a pool task. */
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 127, 128, 1000,
					4096 * 64 - 1, 4096 * 64 + 1, 3 * 4096 * 64 + 77 };
	static const unsigned mixes[] = { 0, 1, 13, 50, 100 };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t mi = 0; mi < sizeof(mixes) / sizeof(mixes[0]); mi++) {
			size_t n = sizes[si], n_dense, n_dense1;
			zkp_fr *v = make_vector(n, mixes[mi]);
			void *a = pack_checked(v, n, pool, &n_dense);
			void *b = pack_checked(v, n, NULL, &n_dense1);
			assert_int_equal(n_dense, n_dense1);
			assert_memory_equal(a, b, zkp_bitpack_bytes(n, n_dense));
			if (mixes[mi] == 0)
				assert_int_equal(n_dense, 0);
			if (mixes[mi] == 100)
				assert_int_equal(n_dense, n);
			zkp_fr *out = malloc((n ? n : 1) * sizeof(zkp_fr));
			assert_non_null(out);
			memset(out, 0xa5, (n ? n : 1) * sizeof(zkp_fr));
			zkp_bitpack_unpack(out, a, n, 0, n);
			if (n)
				assert_memory_equal(out, v, n * sizeof(zkp_fr));
			/* A range starting inside a word. */
			if (n > 70) {
				memset(out, 0xa5, n * sizeof(zkp_fr));
				zkp_bitpack_unpack(out, a, n, 3, n - 5);
				assert_memory_equal(out, v + 3, (n - 8) * sizeof(zkp_fr));
			}
			free(out);
			free(a);
			free(b);
			free(v);
		}
	}
}

/* The unpack op on be: out equals v; bad arguments are refused. */
static void check_backend(zkp_backend *be, const zkp_fr *v, size_t n)
{
	size_t n_dense;
	void *packed = pack_checked(v, n, pool, &n_dense);
	size_t bytes = zkp_bitpack_bytes(n, n_dense);
	zkp_dbuf src, out, imp, shortbuf;
	assert_int_equal(zkp_backend_alloc(be, &src, bytes), 0);
	assert_int_equal(zkp_backend_upload(be, &src, 0, packed, bytes), 0);
	assert_int_equal(zkp_backend_alloc(be, &out, n * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_unpack(be, &out, &src, n, n_dense), 0);
	assert_int_equal(zkp_backend_sync(be), 0);
	zkp_fr *got = malloc(n * sizeof(zkp_fr));
	assert_non_null(got);
	assert_int_equal(zkp_backend_download(be, got, &out, 0, n * sizeof(zkp_fr)), 0);
	assert_memory_equal(got, v, n * sizeof(zkp_fr));
	/* A view of the packed bytes does as well. */
	zkp_dbuf view;
	assert_int_equal(zkp_dbuf_view(&view, &src, 0, bytes), 0);
	memset(got, 0, n * sizeof(zkp_fr));
	assert_int_equal(zkp_backend_upload(be, &out, 0, got, n * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_unpack(be, &out, &view, n, n_dense), 0);
	assert_int_equal(zkp_backend_download(be, got, &out, 0, n * sizeof(zkp_fr)), 0);
	assert_memory_equal(got, v, n * sizeof(zkp_fr));
	/* Refused: src one byte short, n_dense past n or past what src holds,
	 * out too small or not owned, out inside src. */
	assert_int_equal(zkp_dbuf_view(&shortbuf, &src, 0, bytes - 1), 0);
	assert_int_equal(zkp_backend_unpack(be, &out, &shortbuf, n, n_dense), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_unpack(be, &out, &src, n, n + 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_unpack(be, &out, &src, n, n_dense + 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_unpack(be, &out, &src, n + 1, n_dense), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_import_host(be, &imp, got, n * sizeof(zkp_fr)), 0);
	if (!imp.owned)
		assert_int_equal(zkp_backend_unpack(be, &imp, &src, n, n_dense), ZKP_ERR_INVAL);
	zkp_backend_release(be, &imp);
	zkp_dbuf big;
	assert_int_equal(zkp_backend_alloc(be, &big, bytes + n * sizeof(zkp_fr)), 0);
	zkp_dbuf inner;
	assert_int_equal(zkp_dbuf_view(&inner, &big, 0, bytes), 0);
	assert_int_equal(zkp_backend_unpack(be, &big, &inner, n, n_dense), ZKP_ERR_INVAL);
	zkp_backend_release(be, &big);
	zkp_backend_release(be, &out);
	zkp_backend_release(be, &src);
	free(got);
	free(packed);
}

static void test_backends(void **state)
{
	(void)state;
	zkp_backend *cpu, *oh;
	assert_int_equal(zkp_backend_cpu_new(&cpu, pool), 0);
	assert_int_equal(zkp_backend_offhost_new(&oh, cpu), 0);
	static const size_t sizes[] = { 1, 64, 65, 300001 };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		zkp_fr *v = make_vector(sizes[si], 2);
		check_backend(cpu, v, sizes[si]);
		check_backend(oh, v, sizes[si]);
		free(v);
	}
	zkp_backend_free(oh);
	zkp_backend_free(cpu);
}

int main(void)
{
	tu_seed();
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_backends),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	zkp_pool_free(pool);
	return rc;
}
