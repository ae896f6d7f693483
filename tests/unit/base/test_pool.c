/*
 * Thread pool: every index runs exactly once, from many submitters at once,
 * with nesting, and with degenerate sizes.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/pool.h"

struct marks {
	atomic_int *hits;
	size_t n;
	zkp_pool *pool; /* for nested runs */
};

static void mark(void *arg, size_t begin, size_t end)
{
	struct marks *m = arg;
	assert_true(begin < end && end <= m->n);
	for (size_t i = begin; i < end; i++)
		atomic_fetch_add(&m->hits[i], 1);
}

static void check_once(struct marks *m)
{
	for (size_t i = 0; i < m->n; i++)
		assert_int_equal(atomic_load(&m->hits[i]), 1);
}

static void run_and_check(zkp_pool *pool, size_t n, size_t grain)
{
	struct marks m = { calloc(n ? n : 1, sizeof(atomic_int)), n, pool };
	zkp_pool_run(pool, n, grain, mark, &m);
	check_once(&m);
	free(m.hits);
}

static void test_sizes(void **state)
{
	(void)state;
	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 3), 0);
	assert_int_equal(zkp_pool_threads(pool), 4);
	size_t sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 100003 };
	size_t grains[] = { 0, 1, 3, 1000000 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(grains) / sizeof(grains[0]); j++)
			run_and_check(pool, sizes[i], grains[j]);
	zkp_pool_free(pool);

	/* no workers and no pool: the caller does it all */
	assert_int_equal(zkp_pool_new(&pool, 0), 0);
	run_and_check(pool, 1000, 7);
	zkp_pool_free(pool);
	run_and_check(NULL, 1000, 7);
}

struct submitter {
	zkp_pool *pool;
	int rounds;
	uint64_t seed; /* per thread: the shared generator is not thread-safe */
};

static void *submit_many(void *p)
{
	struct submitter *s = p;
	uint64_t x = s->seed;
	for (int r = 0; r < s->rounds; r++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		run_and_check(s->pool, 1 + (size_t)((x >> 33) % 5000), 1 + (size_t)r % 17);
	}
	return NULL;
}

static void test_concurrent_submitters(void **state)
{
	(void)state;
	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	pthread_t th[4];
	struct submitter s[4];
	for (int i = 0; i < 4; i++) {
		s[i] = (struct submitter){ pool, 200, tu_rand64() };
		assert_int_equal(pthread_create(&th[i], NULL, submit_many, &s[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	zkp_pool_free(pool);
}

static void nested(void *arg, size_t begin, size_t end)
{
	struct marks *outer = arg;
	for (size_t i = begin; i < end; i++) {
		run_and_check(outer->pool, 50, 4);
		atomic_fetch_add(&outer->hits[i], 1);
	}
}

static void test_nested(void **state)
{
	(void)state;
	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	struct marks m = { calloc(40, sizeof(atomic_int)), 40, pool };
	zkp_pool_run(pool, 40, 1, nested, &m);
	check_once(&m);
	free(m.hits);
	zkp_pool_free(pool);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_concurrent_submitters),
		cmocka_unit_test(test_nested),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
