/*
 * The memory tracker (mem.h).
 */
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "zkpd/error.h"
#include "zkpd/mem.h"

/* jemalloc's control entry point, resolved only when the process runs on
 * jemalloc (mem.h). Declared here rather than through <jemalloc/jemalloc.h>
 * so that the reference stays weak. */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
	__attribute__((weak));

/* MALLCTL_ARENAS_ALL of jemalloc 5: the pseudo arena index for "all". */
#define ARENAS_ALL "4096"

static _Atomic uint64_t counters[ZKP_MEM_NCATEGORIES];

static const char *const category_names[ZKP_MEM_NCATEGORIES] = {
	"witness", "abc", "msm_scratch", "key", "pce", "pinned", "device",
};

const char *zkp_mem_category_name(enum zkp_mem_category c)
{
	if ((unsigned)c >= ZKP_MEM_NCATEGORIES)
		return "?";
	return category_names[c];
}

void zkp_mem_add(enum zkp_mem_category c, size_t bytes)
{
	if ((unsigned)c < ZKP_MEM_NCATEGORIES)
		atomic_fetch_add_explicit(&counters[c], (uint64_t)bytes, memory_order_relaxed);
}

void zkp_mem_sub(enum zkp_mem_category c, size_t bytes)
{
	if ((unsigned)c < ZKP_MEM_NCATEGORIES)
		atomic_fetch_sub_explicit(&counters[c], (uint64_t)bytes, memory_order_relaxed);
}

uint64_t zkp_mem_counter(enum zkp_mem_category c)
{
	if ((unsigned)c >= ZKP_MEM_NCATEGORIES)
		return 0;
	return atomic_load_explicit(&counters[c], memory_order_relaxed);
}

bool zkp_mem_have_jemalloc(void)
{
	return mallctl != NULL;
}

static int read_size(const char *name, uint64_t *ret)
{
	size_t v = 0, len = sizeof(v);
	if (mallctl(name, &v, &len, NULL, 0))
		return ZKP_ERR_IO;
	*ret = v;
	return 0;
}

int zkp_mem_allocator_stats(zkp_mem_allocator *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!zkp_mem_have_jemalloc())
		return ZKP_ERR_UNSUPPORTED;
	/* Statistics are cached; writing "epoch" refreshes them. */
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);
	if (mallctl("epoch", &epoch, &len, &epoch, len))
		return ZKP_ERR_IO;
	static const char *const names[] = {
		"stats.allocated", "stats.active",   "stats.resident",
		"stats.mapped",    "stats.retained", "stats.metadata",
	};
	uint64_t *dst[] = { &ret->allocated, &ret->active,   &ret->resident,
			    &ret->mapped,    &ret->retained, &ret->metadata };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (read_size(names[i], dst[i]))
			return ZKP_ERR_IO;
	ret->available = true;
	return 0;
}

/* "Key:   1234 kB" -> bytes. */
static bool status_field(const char *line, const char *key, uint64_t *ret)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k) || line[k] != ':')
		return false;
	*ret = strtoull(line + k + 1, NULL, 10) * 1024;
	return true;
}

int zkp_mem_rss_read(zkp_mem_rss *ret)
{
	memset(ret, 0, sizeof(*ret));
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return ZKP_ERR_IO;
	char line[256];
	bool have_rss = false;
	while (fgets(line, sizeof(line), f)) {
		if (status_field(line, "VmRSS", &ret->rss))
			have_rss = true;
		else if (!status_field(line, "VmHWM", &ret->hwm) &&
			 !status_field(line, "RssAnon", &ret->rss_anon))
			status_field(line, "RssFile", &ret->rss_file);
	}
	fclose(f);
	return have_rss ? 0 : ZKP_ERR_IO;
}

int zkp_mem_purge(void)
{
	if (!zkp_mem_have_jemalloc()) {
		malloc_trim(0);
		return 0;
	}
	/* The calling thread's cached small objects first, so the purge can
	 * return their pages too (fails harmlessly when tcache is off). */
	mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
	if (mallctl("arena." ARENAS_ALL ".purge", NULL, NULL, NULL, 0))
		return ZKP_ERR_IO;
	return 0;
}

static int write_ssize(const char *name, long v)
{
	ssize_t x = (ssize_t)v;
	return mallctl(name, NULL, NULL, &x, sizeof(x)) ? ZKP_ERR_IO : 0;
}

int zkp_mem_decay_set(long dirty_ms, long muzzy_ms)
{
	if (!zkp_mem_have_jemalloc())
		return ZKP_ERR_UNSUPPORTED;
	if (dirty_ms < -1 || muzzy_ms < -1)
		return ZKP_ERR_INVAL;
	/* Defaults for arenas created later, then each existing arena. */
	if (write_ssize("arenas.dirty_decay_ms", dirty_ms) ||
	    write_ssize("arenas.muzzy_decay_ms", muzzy_ms))
		return ZKP_ERR_IO;
	unsigned narenas = 0;
	size_t len = sizeof(narenas);
	if (mallctl("arenas.narenas", &narenas, &len, NULL, 0))
		return ZKP_ERR_IO;
	for (unsigned i = 0; i < narenas; i++) {
		char name[64];
		/* Arenas not yet initialized refuse with EFAULT; skip them. */
		snprintf(name, sizeof(name), "arena.%u.dirty_decay_ms", i);
		ssize_t x = (ssize_t)dirty_ms;
		int e = mallctl(name, NULL, NULL, &x, sizeof(x));
		if (e && e != EFAULT)
			return ZKP_ERR_IO;
		snprintf(name, sizeof(name), "arena.%u.muzzy_decay_ms", i);
		x = (ssize_t)muzzy_ms;
		e = mallctl(name, NULL, NULL, &x, sizeof(x));
		if (e && e != EFAULT)
			return ZKP_ERR_IO;
	}
	return 0;
}

int zkp_mem_decay_get(long *dirty_ms, long *muzzy_ms)
{
	if (!zkp_mem_have_jemalloc())
		return ZKP_ERR_UNSUPPORTED;
	ssize_t d = 0, m = 0;
	size_t len = sizeof(d);
	if (mallctl("arenas.dirty_decay_ms", &d, &len, NULL, 0))
		return ZKP_ERR_IO;
	len = sizeof(m);
	if (mallctl("arenas.muzzy_decay_ms", &m, &len, NULL, 0))
		return ZKP_ERR_IO;
	*dirty_ms = (long)d;
	*muzzy_ms = (long)m;
	return 0;
}

int zkp_mem_resident(uint64_t *ret, const void *addr, size_t len)
{
	*ret = 0;
	if (!len)
		return 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(uintptr_t)(page - 1);
	size_t pages = (end - start) / page;
	/* One status byte per page, in chunks so a multi-GiB map needs no big
	 * buffer. */
	unsigned char vec[4096];
	uint64_t resident = 0;
	for (size_t done = 0; done < pages; done += sizeof(vec)) {
		size_t n = pages - done < sizeof(vec) ? pages - done : sizeof(vec);
		if (mincore((void *)(start + done * page), n * page, vec))
			return ZKP_ERR_IO;
		for (size_t i = 0; i < n; i++)
			resident += vec[i] & 1;
	}
	*ret = resident * page;
	return 0;
}

int zkp_mem_snapshot(const char *stage, zkp_mem_snap *snap)
{
	memset(snap, 0, sizeof(*snap));
	snprintf(snap->stage, sizeof(snap->stage), "%s", stage ? stage : "");
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
	zkp_mem_allocator_stats(&snap->je);
	for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++)
		snap->counters[c] = zkp_mem_counter((enum zkp_mem_category)c);
	int rc = zkp_mem_rss_read(&snap->rss);
	snap->rss_ok = rc == 0;
	return rc;
}
