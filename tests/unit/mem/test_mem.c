/*
 * mem/: counters, snapshots, purge and decay, on jemalloc when the program
 * runs on it and on the C library's allocator otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "zkpd/error.h"
#include "zkpd/mem.h"

static void test_counters(void **state)
{
	(void)state;
	for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++) {
		enum zkp_mem_category cat = (enum zkp_mem_category)c;
		uint64_t before = zkp_mem_counter(cat);
		zkp_mem_add(cat, 1000 + (size_t)c);
		zkp_mem_add(cat, 24);
		assert_int_equal(zkp_mem_counter(cat), before + 1024 + (uint64_t)c);
		/* Other categories are untouched. */
		for (int o = 0; o < ZKP_MEM_NCATEGORIES; o++)
			if (o != c)
				assert_int_equal(zkp_mem_counter((enum zkp_mem_category)o), 0);
		zkp_mem_sub(cat, 1000 + (size_t)c);
		assert_int_equal(zkp_mem_counter(cat), before + 24);
		zkp_mem_sub(cat, 24);
		assert_int_equal(zkp_mem_counter(cat), before);
	}
	/* Out of range: ignored, reads as 0. */
	zkp_mem_add(ZKP_MEM_NCATEGORIES, 5);
	assert_int_equal(zkp_mem_counter(ZKP_MEM_NCATEGORIES), 0);
	assert_string_equal(zkp_mem_category_name(ZKP_MEM_MSM_SCRATCH), "msm_scratch");
	assert_string_equal(zkp_mem_category_name(ZKP_MEM_DEVICE), "device");
	assert_string_equal(zkp_mem_category_name(ZKP_MEM_NCATEGORIES), "?");
}

static void test_snapshot_fields(void **state)
{
	(void)state;
	zkp_mem_add(ZKP_MEM_KEY, 4096);
	zkp_mem_snap s;
	assert_int_equal(zkp_mem_snapshot("a very long stage name that will be truncated", &s), 0);
	assert_true(s.rss_ok);
	assert_true(s.rss.rss > 0);
	assert_true(s.rss.hwm >= s.rss.rss);
	assert_true(s.rss.rss_anon + s.rss.rss_file <= s.rss.rss + 4096 * 64);
	assert_true(s.t > 0);
	assert_int_equal(strlen(s.stage), ZKP_MEM_STAGE_MAX - 1);
	assert_int_equal(s.counters[ZKP_MEM_KEY], 4096);
	zkp_mem_sub(ZKP_MEM_KEY, 4096);
	assert_int_equal(s.je.available, zkp_mem_have_jemalloc());
	if (s.je.available) {
		assert_true(s.je.allocated > 0);
		assert_true(s.je.active >= s.je.allocated);
		assert_true(s.je.resident >= s.je.active);
		assert_true(s.je.mapped >= s.je.active);
		assert_true(s.je.metadata > 0);
	} else {
		assert_int_equal(s.je.allocated, 0);
		assert_int_equal(s.je.resident, 0);
	}
	zkp_mem_snap t;
	assert_int_equal(zkp_mem_snapshot("later", &t), 0);
	assert_true(t.t >= s.t);
	assert_string_equal(t.stage, "later");
}

/* A 64 MiB block, touched: RSS and jemalloc's allocated rise; after free
 * and purge, allocated and resident fall back. */
static void test_big_malloc_shows_and_goes(void **state)
{
	(void)state;
	const size_t big = (size_t)64 << 20;
	zkp_mem_snap s0, s1, s2;
	assert_int_equal(zkp_mem_purge(), 0);
	assert_int_equal(zkp_mem_snapshot("before", &s0), 0);
	unsigned char *p = malloc(big);
	assert_non_null(p);
	memset(p, 0x5a, big);
	assert_int_equal(zkp_mem_snapshot("held", &s1), 0);
	assert_true(s1.rss.rss >= s0.rss.rss + big / 2);
	p[big - 1] ^= 1; /* keep the block alive past the snapshot */
	assert_int_equal(p[big - 1], 0x5b);
	free(p);
	assert_int_equal(zkp_mem_purge(), 0);
	assert_int_equal(zkp_mem_snapshot("purged", &s2), 0);
	if (!zkp_mem_have_jemalloc())
		skip();
	assert_true(s1.je.allocated >= s0.je.allocated + big);
	assert_true(s2.je.allocated + big <= s1.je.allocated);
	assert_true(s2.je.resident + big / 2 <= s1.je.resident);
	assert_true(s2.rss.rss + big / 2 <= s1.rss.rss);
}

static void test_purge_and_decay(void **state)
{
	(void)state;
	/* Callable whatever the allocator. */
	assert_int_equal(zkp_mem_purge(), 0);
	long d = 0, m = 0;
	if (!zkp_mem_have_jemalloc()) {
		assert_int_equal(zkp_mem_decay_set(0, 0), ZKP_ERR_UNSUPPORTED);
		assert_int_equal(zkp_mem_decay_get(&d, &m), ZKP_ERR_UNSUPPORTED);
		zkp_mem_allocator a;
		assert_int_equal(zkp_mem_allocator_stats(&a), ZKP_ERR_UNSUPPORTED);
		assert_false(a.available);
		return;
	}
	long d0, m0;
	assert_int_equal(zkp_mem_decay_get(&d0, &m0), 0);
	assert_int_equal(zkp_mem_decay_set(-2, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_mem_decay_set(250, 0), 0);
	assert_int_equal(zkp_mem_decay_get(&d, &m), 0);
	assert_int_equal(d, 250);
	assert_int_equal(m, 0);
	assert_int_equal(zkp_mem_decay_set(d0, m0), 0);
}

static void test_resident(void **state)
{
	(void)state;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = 16 * page;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	assert_true(p != MAP_FAILED);
	uint64_t r = 1;
	assert_int_equal(zkp_mem_resident(&r, p, len), 0);
	assert_int_equal(r, 0);
	for (size_t i = 0; i < 5; i++)
		p[i * page] = 1;
	assert_int_equal(zkp_mem_resident(&r, p, len), 0);
	assert_int_equal(r, 5 * page);
	/* An unaligned sub-range counts the pages it touches. */
	assert_int_equal(zkp_mem_resident(&r, p + 1, page), 0);
	assert_int_equal(r, 2 * page);
	assert_int_equal(zkp_mem_resident(&r, p, 0), 0);
	assert_int_equal(r, 0);
	munmap(p, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_snapshot_fields),
		cmocka_unit_test(test_big_malloc_shows_and_goes),
		cmocka_unit_test(test_purge_and_decay),
		cmocka_unit_test(test_resident),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
