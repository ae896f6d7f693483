/*
 * mem: what the process's memory is doing, so that operators can size
 * machines from honest figures. Three sources, recorded together by
 * zkp_mem_snapshot:
 *  - the allocator: jemalloc's own statistics through mallctl (after a
 *    refresh of "epoch"): allocated, active, resident, mapped, retained,
 *    metadata (jemalloc(3), "stats.*");
 *  - the kernel: VmRSS, VmHWM, RssAnon and RssFile from /proc/self/status;
 *  - zkpd's own counters, one per category (enum zkp_mem_category), for
 *    what the allocator cannot see (pinned host memory, device memory,
 *    mmap'd circuits and keys) or should tell apart (witness, a/b/c, MSM
 *    scratch). Whoever allocates or maps a large buffer adds its bytes and
 *    subtracts them when it goes.
 *
 * Invariants:
 *  - jemalloc is optional at run time. Programs are linked with it
 *    (Debian's libjemalloc replaces malloc), sanitizer builds are not; this
 *    module finds mallctl through a weak reference. Without it the
 *    allocator figures read as unavailable (je.available false, zeros),
 *    purge falls back to glibc's malloc_trim, decay calls answer
 *    ZKP_ERR_UNSUPPORTED; RSS and the counters work either way.
 *  - Counters are process-wide atomics: any thread, any time, lock-free.
 *    A counter never wraps below zero by design; subtracting more than was
 *    added is a programmer error (the counter then reads as a huge value,
 *    which the tests and benches would show).
 *
 * Threads: every function may be called from any thread at once.
 * Cost: a snapshot is one mallctl epoch refresh (a few microseconds per
 * arena) and one read of /proc/self/status (about 10 us); counters are one
 * atomic add.
 */
#ifndef ZKPD_MEM_H
#define ZKPD_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum zkp_mem_category {
	ZKP_MEM_WITNESS,     /* decoded assignments of jobs */
	ZKP_MEM_ABC,         /* a, b, c domain vectors and the NTT domain */
	ZKP_MEM_MSM_SCRATCH, /* MSM buckets and partial sums */
	ZKP_MEM_KEY,         /* proving keys (heap or mapped cache) */
	ZKP_MEM_PCE,         /* mapped circuits */
	ZKP_MEM_PINNED,      /* page-locked host staging buffers */
	ZKP_MEM_DEVICE,      /* GPU memory */
	ZKP_MEM_NCATEGORIES
};

/* "witness", "abc", "msm_scratch", "key", "pce", "pinned", "device";
 * "?" for anything else. */
const char *zkp_mem_category_name(enum zkp_mem_category c);

/* Adds or subtracts bytes from a category's counter. An out-of-range
 * category is ignored. */
void zkp_mem_add(enum zkp_mem_category c, size_t bytes);
void zkp_mem_sub(enum zkp_mem_category c, size_t bytes);
/* The counter's current value (0 for an out-of-range category). */
uint64_t zkp_mem_counter(enum zkp_mem_category c);

/* Whether mallctl (jemalloc) is present in this process. */
bool zkp_mem_have_jemalloc(void);

typedef struct {
	bool available; /* false: not running on jemalloc, all figures 0 */
	uint64_t allocated, active, resident, mapped, retained, metadata;
} zkp_mem_allocator;

/* Refreshes jemalloc's "epoch" and reads its stats.* figures. Returns 0, or
 * ZKP_ERR_UNSUPPORTED without jemalloc (ret->available false), or ZKP_ERR_IO
 * when a mallctl call fails (a jemalloc built without statistics). */
int zkp_mem_allocator_stats(zkp_mem_allocator *ret);

typedef struct {
	uint64_t rss, hwm;           /* VmRSS, VmHWM */
	uint64_t rss_anon, rss_file; /* RssAnon, RssFile */
} zkp_mem_rss;

/* Reads /proc/self/status (bytes). Errors: ZKP_ERR_IO (cannot read it, or
 * VmRSS is missing). */
int zkp_mem_rss_read(zkp_mem_rss *ret);

/*
 * Returns every arena's unused dirty and muzzy pages to the kernel
 * ("arena.<MALLCTL_ARENAS_ALL>.purge"), after flushing this thread's
 * tcache so its cached objects go too. Without jemalloc, glibc's
 * malloc_trim(0). Returns 0, or ZKP_ERR_IO when a mallctl call fails.
 * Cost: proportional to the dirty pages (madvise calls); under 10 ms after
 * a proof of 2^18 constraints on the development machine.
 */
int zkp_mem_purge(void);

/* Decay times in ms: -1 never purge, 0 purge at once. Set applies to every
 * existing arena and to arenas created later ("arenas.dirty_decay_ms",
 * "arenas.muzzy_decay_ms"). Errors: ZKP_ERR_UNSUPPORTED (no jemalloc),
 * ZKP_ERR_INVAL (below -1), ZKP_ERR_IO (a mallctl call failed). */
int zkp_mem_decay_set(long dirty_ms, long muzzy_ms);
int zkp_mem_decay_get(long *dirty_ms, long *muzzy_ms);

/* Bytes of [addr, addr + len) resident in this process's page tables
 * (mincore over the pages the range touches). For mapped circuits and
 * keys: mapped is len, resident is this. Errors: ZKP_ERR_IO. */
int zkp_mem_resident(uint64_t *ret, const void *addr, size_t len);

#define ZKP_MEM_STAGE_MAX 32

/* Everything above at one moment. t is CLOCK_MONOTONIC seconds. */
typedef struct {
	char stage[ZKP_MEM_STAGE_MAX]; /* truncated copy of the stage name */
	double t;
	zkp_mem_rss rss;
	bool rss_ok;
	zkp_mem_allocator je;
	uint64_t counters[ZKP_MEM_NCATEGORIES];
} zkp_mem_snap;

/* Fills *snap. Returns 0, or ZKP_ERR_IO when /proc/self/status could not be
 * read (rss_ok false; the rest is still filled). Missing jemalloc is not an
 * error here: je.available says it. */
int zkp_mem_snapshot(const char *stage, zkp_mem_snap *snap);

#endif
