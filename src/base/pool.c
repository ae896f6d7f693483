/*
 * Thread pool: a FIFO of jobs, each a range split into chunks. A chunk is
 * claimed under the pool lock (chunks are coarse, a few per thread, so the
 * lock is cold); the thread that claims a job's last chunk unlinks the job.
 * Completion is counted under the job's own lock, and after its increment a
 * thread never touches the job again, so the submitter may return (the job
 * lives on its stack) as soon as the count is complete.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "zkpd/error.h"
#include "zkpd/pool.h"

struct job {
	zkp_pool_fn fn;
	void *arg;
	size_t n, grain, nchunks;
	size_t next;          /* next chunk to claim; pool->lock */
	struct job *link;     /* queue link; pool->lock */
	size_t done;          /* chunks finished; job->lock */
	pthread_mutex_t lock;
	pthread_cond_t finished;
};

struct zkp_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct job *head, *tail;
	bool stop;
	unsigned nworkers;
	pthread_t *threads;
};

/* Claims the next chunk of `job`, a queued job with chunks left, and unlinks
 * the job once its last chunk is claimed. Called with pool->lock held. */
static size_t claim(zkp_pool *pool, struct job *job)
{
	size_t c = job->next++;
	if (job->next == job->nchunks) {
		struct job **pp = &pool->head, *prev = NULL;
		while (*pp != job) {
			prev = *pp;
			pp = &(*pp)->link;
		}
		*pp = job->link;
		if (pool->tail == job)
			pool->tail = prev;
	}
	return c;
}

static void run_chunk(struct job *job, size_t c)
{
	size_t begin = c * job->grain;
	size_t end = begin + job->grain < job->n ? begin + job->grain : job->n;
	job->fn(job->arg, begin, end);
	pthread_mutex_lock(&job->lock);
	if (++job->done == job->nchunks)
		pthread_cond_signal(&job->finished);
	pthread_mutex_unlock(&job->lock);
	/* job may be gone from here on */
}

static void *worker(void *p)
{
	zkp_pool *pool = p;
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->stop && !pool->head)
			pthread_cond_wait(&pool->work, &pool->lock);
		if (pool->stop)
			break;
		struct job *job = pool->head;
		size_t c = claim(pool, job);
		pthread_mutex_unlock(&pool->lock);
		run_chunk(job, c);
		pthread_mutex_lock(&pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

int zkp_pool_new(zkp_pool **ret, unsigned nworkers)
{
	zkp_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return ZKP_ERR_NOMEM;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pool->threads = calloc(nworkers ? nworkers : 1, sizeof(pthread_t));
	if (!pool->threads) {
		zkp_pool_free(pool);
		return ZKP_ERR_NOMEM;
	}
	for (unsigned i = 0; i < nworkers; i++) {
		if (pthread_create(&pool->threads[i], NULL, worker, pool) != 0) {
			zkp_pool_free(pool);
			return ZKP_ERR_INVAL;
		}
		pool->nworkers++;
	}
	*ret = pool;
	return 0;
}

void zkp_pool_free(zkp_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->nworkers; i++)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->work);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool);
}

unsigned zkp_pool_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

unsigned zkp_pool_threads(const zkp_pool *pool)
{
	return pool ? pool->nworkers + 1 : 1;
}

void zkp_pool_run(zkp_pool *pool, size_t n, size_t grain, zkp_pool_fn fn, void *arg)
{
	if (n == 0)
		return;
	unsigned threads = zkp_pool_threads(pool);
	if (grain == 0)
		grain = (n + 4 * threads - 1) / (4 * threads);
	if (!pool || pool->nworkers == 0 || grain >= n) {
		fn(arg, 0, n);
		return;
	}

	struct job job = { .fn = fn, .arg = arg, .n = n, .grain = grain };
	job.nchunks = (n + grain - 1) / grain;
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.finished, NULL);

	pthread_mutex_lock(&pool->lock);
	if (pool->tail)
		pool->tail->link = &job;
	else
		pool->head = &job;
	pool->tail = &job;
	pthread_cond_broadcast(&pool->work);
	/* Work on our own job (not necessarily the queue head) while it has
	 * unclaimed chunks. */
	while (job.next < job.nchunks) {
		size_t c = claim(pool, &job);
		pthread_mutex_unlock(&pool->lock);
		run_chunk(&job, c);
		pthread_mutex_lock(&pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);

	pthread_mutex_lock(&job.lock);
	while (job.done < job.nchunks)
		pthread_cond_wait(&job.finished, &job.lock);
	pthread_mutex_unlock(&job.lock);
	pthread_cond_destroy(&job.finished);
	pthread_mutex_destroy(&job.lock);
}
