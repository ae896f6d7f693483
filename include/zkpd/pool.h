/*
 * pool: one fixed set of worker threads that every parallel stage shares.
 *
 * Invariants:
 *  - Threads are created once by zkp_pool_new and joined by zkp_pool_free;
 *    no call in between creates a thread.
 *  - zkp_pool_run may be called from any thread, concurrently, and from
 *    inside a running task (nested parallelism): the caller always works on
 *    its own job's chunks too, so a job finishes even when every worker is
 *    busy elsewhere, and nesting cannot deadlock.
 *  - Jobs are served in submission order; chunks of one job are handed out
 *    by an atomic counter, so load balances across uneven chunks.
 *  - A NULL pool or a pool of 0 workers runs everything on the caller.
 */
#ifndef ZKPD_POOL_H
#define ZKPD_POOL_H

#include <stddef.h>

typedef struct zkp_pool zkp_pool;

/* fn handles the half-open index range [begin, end) of the job. */
typedef void (*zkp_pool_fn)(void *arg, size_t begin, size_t end);

/* Starts nworkers threads (0 is valid). Errors: ZKP_ERR_NOMEM, or
 * ZKP_ERR_INVAL when a thread cannot be created. */
int zkp_pool_new(zkp_pool **ret, unsigned nworkers);
/* Stops and joins the workers. Must not be called while jobs run. */
void zkp_pool_free(zkp_pool *pool);
/* Threads that can work on one job: workers plus the caller. */
unsigned zkp_pool_threads(const zkp_pool *pool);

/* The thread count every program uses unless told otherwise (a --threads
 * option, synthesis.threads): all online CPUs (sysconf
 * _SC_NPROCESSORS_ONLN), at least 1. A pool of that many threads has one
 * fewer workers (the caller works too). */
unsigned zkp_pool_default_threads(void);

/* Calls fn over [0, n) split into chunks of at most `grain` indices (grain 0
 * picks about 4 chunks per thread) and returns when all chunks are done.
 * The caller participates. Memory written by fn is visible to the caller on
 * return. */
void zkp_pool_run(zkp_pool *pool, size_t n, size_t grain, zkp_pool_fn fn, void *arg);

#endif
