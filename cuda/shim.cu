/*
 * The CUDA backend: the backend ops table over device memory, two streams
 * per backend. This file is the only place CUDA errors become zkpd errors
 * (CUDA_TRY below); the launchers of ntt.cu and msm.cu return cudaError_t.
 *
 * Views (zkp_dbuf_view: owned false, ptr inside a device buffer) are read
 * like any buffer (download, MSM scalars and bases, h_pointwise's b and c,
 * h_coeffs's c); every write target (upload, ntt, h_pointwise's and
 * h_coeffs's a) must be owned.
 *
 * Errors: cuda_fail records a failure under err_lock alone, which is never
 * held around anything else, so a failure met while `lock` is held (a
 * domain upload inside cuda_ntt) cannot deadlock. A sticky fault
 * (cuda_sticky: the context is lost) marks the backend dead: every later
 * call fails at once with ZKP_ERR_DEVICE without touching the device, and
 * only frees still reach the runtime. The runtime's pending error is
 * cleared before each launch sequence (clear_pending), so the launchers'
 * cudaGetLastError reports their own launches and not an out-of-memory
 * that an earlier call already handled.
 *
 * Two streams: `stream` runs the kernels and everything ordered with them
 * (domain tables, downloads), `xfer` the uploads, so that one proof's
 * a, b, c and witness copy in while another proof's kernels run. An upload
 * must still not overwrite memory that queued kernels use: ntt,
 * h_pointwise and h_coeffs, the operations left running when they return, note the
 * ranges they touch under a sequence number (note_queued); stream_sync
 * credits every number queued before it; an upload overlapping a range
 * not yet credited waits for `stream` first. Everything else has finished
 * on `stream` when it returns, and an upload has finished on `xfer`.
 *
 * MSM workspace: the MSMs' device buffers (ws_small: the MSM's own copy of
 * its scalars, compacted or copied, which it turns canonical in place, and
 * the window counter; ws_big: the bitmaps and one window pass's buckets and
 * sort arrays), shared by G1 and G2, are kept between MSMs
 * (ws_reserve) and grown only when an MSM needs more, so a proof's MSMs
 * neither allocate nor free (cudaFree waits for the whole device) once the
 * largest has run. They stay counted in the tracker's device memory. Any
 * other allocation that finds the device out of memory lets an idle
 * workspace go and tries once more (dev_alloc); teardown frees it.
 *
 * Busy time: each launch sequence on `stream` (an NTT, the pointwise H
 * step, a G1 MSM's kernels) is bracketed by a pair of events recorded on
 * `stream` (busy_begin, busy_end; "---- busy time ---" below), and the
 * device time between them adds up in busy_secs once the end is reached.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/bitpack.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/fixed_base.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/msm.h"
#include "zkpd/ntt.h"
}

#include "kernels.cuh"
#include "msm.cuh"

static_assert(sizeof(dfr) == sizeof(zkp_fr), "Fr layout");
static_assert(sizeof(dfp) == sizeof(zkp_fp), "Fp layout");
static_assert(MSM_WIDEST_WINDOW == ZKP_MSM_MAX_WINDOW, "the widest window a caller may force");
static_assert(sizeof(g1_affine) == sizeof(zkp_g1_affine), "G1 affine layout");
static_assert(sizeof(g1_xyzz) == sizeof(zkp_g1_xyzz), "G1 XYZZ layout");
static_assert(sizeof(dfp2) == sizeof(zkp_fp2), "Fp2 layout");
static_assert(sizeof(g2_affine) == sizeof(zkp_g2_affine), "G2 affine layout");
static_assert(sizeof(g2_xyzz) == sizeof(zkp_g2_xyzz), "G2 XYZZ layout");

/* Device copies of NTT domains, keyed by (n, omega, shift), which fix every
 * table. Entries are dropped only after a stream sync. */
#define DOMAIN_SLOTS 4

struct dev_domain {
	bool used;
	size_t n, bytes;
	zkp_fr omega, shift;
	void *mem;
	ntt_dev_domain dev;
};

/* Freed pinned blocks kept for the next host_alloc of the same rounded
 * size: page-locking gigabytes takes a good part of a second, and a
 * daemon stages the same circuit's a, b, c proof after proof. */
#define PINNED_SLOTS 2
#define PINNED_GRANULE ((size_t)2 << 20)

struct pinned_block {
	void *p;
	size_t bytes; /* rounded */
};

/* A range of device memory that an operation queued on `stream` touches;
 * free once seq <= done_seq. */
#define FLIGHT_SLOTS 16

struct flight_range {
	const char *p;
	size_t bytes;
	uint64_t seq;
};

/* Event pairs recorded and not yet counted into busy_secs. */
#define BUSY_SLOTS 64

/* A device buffer kept between calls. */
typedef struct {
	void *ptr;
	size_t bytes;
} ws_buf;

struct cuda_backend {
	zkp_backend base; /* first: the table's callers hold &base */
	int device;
	cudaStream_t stream; /* kernels, domain tables, downloads */
	cudaStream_t xfer;   /* uploads */
	pthread_mutex_t flight_lock; /* flights, queued_seq, done_seq; around nothing else */
	flight_range flights[FLIGHT_SLOTS];
	uint64_t queued_seq; /* last number given to a queued operation */
	uint64_t done_seq;   /* every number up to this one has finished */
	pthread_mutex_t ws_lock; /* held for a whole MSM: ws_small, ws_big */
	ws_buf ws_small;         /* compacted scalars, compaction space, counter */
	ws_buf ws_big;           /* buckets and sort arrays (msm_g?_ws_size) */
	pthread_mutex_t lock; /* domains, next_slot, pinned */
	dev_domain domains[DOMAIN_SLOTS];
	unsigned next_slot;
	pinned_block pinned[PINNED_SLOTS];
	pthread_mutex_t err_lock; /* last, dead; taken around nothing else */
	zkp_error last;
	bool dead;
	pthread_mutex_t busy_seq;  /* held from busy_begin to busy_end */
	pthread_mutex_t busy_lock; /* busy_ev, busy_head, busy_n, busy_secs; around
				    * event calls only */
	cudaEvent_t busy_ev[BUSY_SLOTS][2]; /* start, end; made on first use */
	unsigned busy_head, busy_n;         /* the ring of pairs not yet counted */
	double busy_secs;
};

static cuda_backend *cuda_of(zkp_backend *be)
{
	return (cuda_backend *)be;
}

/* Errors after which the context is unusable until the process resets
 * the device (CUDA runtime API reference, cudaError): every allocation and
 * every later call of the process on that device fails. */
static bool cuda_sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorLaunchTimeout:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorAssert:
	case cudaErrorECCUncorrectable:
	case cudaErrorContextIsDestroyed:
	case cudaErrorDevicesUnavailable:
	case cudaErrorUnknown:
		return true;
	default:
		return false;
	}
}

/* Records and logs a CUDA failure; a sticky one marks the backend dead.
 * Returns ZKP_ERR_DEVICE. Takes err_lock only: callable with `lock` held.
 * Failures after death (frees of a lost context) are not logged again. */
static int cuda_fail(cuda_backend *cb, cudaError_t e, const char *call, int line)
{
	char msg[sizeof(cb->last.msg)];
	bool sticky = cuda_sticky(e);
	snprintf(msg, sizeof(msg), "cuda device %d: %s: %s (%s, shim.cu:%d)%s", cb->device, call,
		 cudaGetErrorString(e), cudaGetErrorName(e), line,
		 sticky ? "; the device is marked failed until zkpd restarts" : "");
	pthread_mutex_lock(&cb->err_lock);
	bool was_dead = cb->dead;
	if (!was_dead) {
		zkp_error_set(&cb->last, ZKP_ERR_DEVICE, "%s", msg);
		cb->dead = sticky;
	}
	pthread_mutex_unlock(&cb->err_lock);
	if (!was_dead)
		zkp_log(ZKP_LOG_ERROR, "%s", msg);
	return ZKP_ERR_DEVICE;
}

static bool is_dead(cuda_backend *cb)
{
	pthread_mutex_lock(&cb->err_lock);
	bool dead = cb->dead;
	pthread_mutex_unlock(&cb->err_lock);
	return dead;
}

/* Every CUDA call of the shim goes through this: on failure it sets `err`
 * and jumps to the function's single exit, `out`. */
#define CUDA_TRY(cb, call)                                                     \
	do {                                                                   \
		cudaError_t e_ = (call);                                       \
		if (e_ != cudaSuccess) {                                       \
			err = cuda_fail((cb), e_, #call, __LINE__);            \
			goto out;                                              \
		}                                                              \
	} while (0)

static bool range_ok(const zkp_dbuf *buf, size_t off, size_t bytes)
{
	return off <= buf->bytes && bytes <= buf->bytes - off;
}

/* Waits for the work queued on `stream`, then credits it (see the top). */
static int stream_sync(cuda_backend *cb)
{
	int err = 0;
	pthread_mutex_lock(&cb->flight_lock);
	uint64_t upto = cb->queued_seq;
	pthread_mutex_unlock(&cb->flight_lock);
	CUDA_TRY(cb, cudaStreamSynchronize(cb->stream));
	pthread_mutex_lock(&cb->flight_lock);
	if (upto > cb->done_seq)
		cb->done_seq = upto;
	pthread_mutex_unlock(&cb->flight_lock);
out:
	return err;
}

/* Notes the buffers an operation just queued on `stream` reads or writes;
 * with no free slot for them, waits for the stream (which frees all). */
static int note_queued(cuda_backend *cb, const zkp_dbuf *const *bufs, unsigned count)
{
	for (;;) {
		pthread_mutex_lock(&cb->flight_lock);
		unsigned free_slots = 0;
		for (unsigned i = 0; i < FLIGHT_SLOTS; i++)
			free_slots += cb->flights[i].seq <= cb->done_seq;
		if (free_slots >= count) {
			uint64_t seq = ++cb->queued_seq;
			for (unsigned i = 0, k = 0; k < count; i++) {
				flight_range *f = &cb->flights[i];
				if (f->seq > cb->done_seq)
					continue;
				f->p = (const char *)bufs[k]->ptr;
				f->bytes = bufs[k]->bytes;
				f->seq = seq;
				k++;
			}
			pthread_mutex_unlock(&cb->flight_lock);
			return 0;
		}
		pthread_mutex_unlock(&cb->flight_lock);
		int err = stream_sync(cb);
		if (err)
			return err;
	}
}

/* Whether [p, p + bytes) overlaps memory that queued work may touch. */
static bool in_flight(cuda_backend *cb, const char *p, size_t bytes)
{
	bool hit = false;
	pthread_mutex_lock(&cb->flight_lock);
	for (unsigned i = 0; i < FLIGHT_SLOTS && !hit; i++) {
		const flight_range *f = &cb->flights[i];
		hit = f->seq > cb->done_seq && p < f->p + f->bytes && f->p < p + bytes;
	}
	pthread_mutex_unlock(&cb->flight_lock);
	return hit;
}

/* Waits for queued work first: the memory may still be in use by it. */
static void dev_free(cuda_backend *cb, void *p, size_t bytes)
{
	if (!p)
		return;
	(void)stream_sync(cb); /* a failure is recorded; the free goes on */
	cudaError_t e = cudaFree(p);
	if (e != cudaSuccess)
		cuda_fail(cb, e, "cudaFree(p)", __LINE__);
	zkp_mem_sub(ZKP_MEM_DEVICE, bytes);
}

static void ws_drop(cuda_backend *cb, ws_buf *w)
{
	dev_free(cb, w->ptr, w->bytes);
	w->ptr = NULL;
	w->bytes = 0;
}

/* Frees the MSM workspace unless an MSM is using it; whether it freed any. */
static bool ws_release_idle(cuda_backend *cb)
{
	if (pthread_mutex_trylock(&cb->ws_lock))
		return false;
	bool had = cb->ws_small.ptr || cb->ws_big.ptr;
	ws_drop(cb, &cb->ws_small);
	ws_drop(cb, &cb->ws_big);
	pthread_mutex_unlock(&cb->ws_lock);
	return had;
}

/* Device memory counted in the tracker; 0 bytes allocate nothing. Out of
 * memory with an idle MSM workspace held: the workspace goes, and the
 * allocation is tried once more. */
static int dev_alloc(cuda_backend *cb, void **ret, size_t bytes)
{
	int err = 0;
	*ret = NULL;
	if (!bytes)
		return 0;
	cudaError_t e = cudaMalloc(ret, bytes);
	if (e == cudaErrorMemoryAllocation && ws_release_idle(cb)) {
		(void)cudaGetLastError(); /* the first attempt's, handled here */
		e = cudaMalloc(ret, bytes);
	}
	if (e != cudaSuccess) {
		err = cuda_fail(cb, e, "cudaMalloc(ret, bytes)", __LINE__);
		goto out;
	}
	zkp_mem_add(ZKP_MEM_DEVICE, bytes);
out:
	if (err)
		*ret = NULL;
	return err;
}

/* w holds at least bytes (ws_lock held); grows by freeing and allocating. */
static int ws_reserve(cuda_backend *cb, ws_buf *w, size_t bytes)
{
	if (w->bytes >= bytes)
		return 0;
	ws_drop(cb, w);
	int err = dev_alloc(cb, &w->ptr, bytes);
	if (!err)
		w->bytes = bytes;
	return err;
}

/* The entry of every operation: a dead backend fails at once, else its
 * device becomes the calling thread's current one. */
static int set_device(cuda_backend *cb)
{
	int err = 0;
	if (is_dead(cb))
		return ZKP_ERR_DEVICE;
	CUDA_TRY(cb, cudaSetDevice(cb->device));
out:
	return err;
}

/* In front of frees, which reach the runtime even on a dead backend or
 * after a failed cudaSetDevice: the memory is the runtime's to reclaim,
 * and a free that fails is reported by the free itself. */
static void set_device_for_free(cuda_backend *cb)
{
	(void)cudaSetDevice(cb->device);
}

/* Called right before a launch sequence: drops the runtime's pending error
 * left by an earlier call that was already reported (an out-of-memory), so
 * that the launcher's cudaGetLastError answers for its own launches only.
 * A sticky error cannot be dropped and fails the call. */
static int clear_pending(cuda_backend *cb)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess && cuda_sticky(e))
		return cuda_fail(cb, e, "cudaGetLastError() before a launch", __LINE__);
	return 0;
}

/* ---- busy time ----
 *
 * A pair of events brackets each launch sequence on `stream`. busy_seq is
 * held from the start event to the end event, so marked work of two
 * threads never interleaves on the stream and the pairs' intervals never
 * overlap: their sum is the time the stream spent on that work, host gaps
 * inside a sequence included (a G1 MSM reads its count of scalars back
 * before it picks its window: microseconds). Pairs wait in a ring until
 * their end is reached and are then counted (busy_harvest), by whoever
 * looks first: the next busy_begin or the busy_seconds query, neither of
 * which ever waits for the device, except busy_begin when all BUSY_SLOTS
 * pairs are still in flight (it waits for the oldest; as note_queued syncs
 * the stream once FLIGHT_SLOTS operations are queued, and every MSM ends
 * synchronized, that does not happen in practice). A failed event call
 * is recorded as any CUDA failure (a sticky one marks the backend dead)
 * and costs the figure that interval only; the work goes on.
 */

/* Records an event call's failure; a recoverable one is also dropped from
 * the runtime's pending error, so the launch that follows does not report
 * it as its own. */
static void busy_fail(cuda_backend *cb, cudaError_t e, const char *call, int line)
{
	cuda_fail(cb, e, call, line);
	if (!cuda_sticky(e))
		(void)cudaGetLastError();
}

static void busy_init(cuda_backend *cb)
{
	pthread_mutex_init(&cb->busy_seq, NULL);
	pthread_mutex_init(&cb->busy_lock, NULL);
}

static void busy_release(cuda_backend *cb)
{
	for (unsigned i = 0; i < BUSY_SLOTS; i++)
		for (unsigned k = 0; k < 2; k++)
			if (cb->busy_ev[i][k])
				(void)cudaEventDestroy(cb->busy_ev[i][k]);
	pthread_mutex_destroy(&cb->busy_lock);
	pthread_mutex_destroy(&cb->busy_seq);
}

/* Counts the pairs whose end event the stream has reached, oldest first
 * (busy_lock held); stops at the first still in flight. */
static void busy_harvest(cuda_backend *cb)
{
	while (cb->busy_n) {
		cudaEvent_t *ev = cb->busy_ev[cb->busy_head];
		cudaError_t e = cudaEventQuery(ev[1]);
		if (e == cudaErrorNotReady)
			break;
		float ms = 0;
		if (e == cudaSuccess)
			e = cudaEventElapsedTime(&ms, ev[0], ev[1]);
		if (e == cudaSuccess)
			cb->busy_secs += 1e-3 * (double)ms;
		else
			busy_fail(cb, e, "cudaEventQuery/ElapsedTime(busy pair)", __LINE__);
		cb->busy_head = (cb->busy_head + 1) % BUSY_SLOTS;
		cb->busy_n--;
	}
}

/* Before a launch sequence on `stream`: takes busy_seq and records the
 * start of a pair. True when it did (busy_end must follow); false, holding
 * nothing, on a dead backend or a failed event call. */
static bool busy_begin(cuda_backend *cb)
{
	if (is_dead(cb))
		return false;
	pthread_mutex_lock(&cb->busy_seq);
	pthread_mutex_lock(&cb->busy_lock);
	busy_harvest(cb);
	if (cb->busy_n == BUSY_SLOTS) {
		/* Only busy_seq's holder adds pairs: the oldest stays put while
		 * it is waited for without busy_lock. */
		cudaEvent_t oldest = cb->busy_ev[cb->busy_head][1];
		pthread_mutex_unlock(&cb->busy_lock);
		cudaError_t e = cudaEventSynchronize(oldest);
		pthread_mutex_lock(&cb->busy_lock);
		if (e != cudaSuccess) {
			busy_fail(cb, e, "cudaEventSynchronize(oldest)", __LINE__);
			cb->busy_head = (cb->busy_head + 1) % BUSY_SLOTS;
			cb->busy_n--;
		}
		busy_harvest(cb);
	}
	cudaEvent_t *ev = cb->busy_ev[(cb->busy_head + cb->busy_n) % BUSY_SLOTS];
	cudaError_t e = cudaSuccess;
	const char *call = "cudaEventCreateWithFlags(busy pair)";
	for (unsigned k = 0; k < 2 && e == cudaSuccess; k++)
		if (!ev[k])
			e = cudaEventCreateWithFlags(&ev[k], cudaEventDefault);
	if (e == cudaSuccess) {
		call = "cudaEventRecord(start, stream)";
		e = cudaEventRecord(ev[0], cb->stream);
	}
	pthread_mutex_unlock(&cb->busy_lock);
	if (e == cudaSuccess)
		return true;
	busy_fail(cb, e, call, __LINE__);
	pthread_mutex_unlock(&cb->busy_seq);
	return false;
}

/* After the launch sequence: records the pair's end, which joins the ring,
 * and lets busy_seq go. A no-op when *open is false; *open becomes false,
 * so an error path may call it again. */
static void busy_end(cuda_backend *cb, bool *open)
{
	if (!*open)
		return;
	*open = false;
	cudaError_t e = cudaSuccess;
	if (!is_dead(cb)) {
		pthread_mutex_lock(&cb->busy_lock);
		unsigned slot = (cb->busy_head + cb->busy_n) % BUSY_SLOTS;
		e = cudaEventRecord(cb->busy_ev[slot][1], cb->stream);
		if (e == cudaSuccess)
			cb->busy_n++;
		pthread_mutex_unlock(&cb->busy_lock);
	}
	if (e != cudaSuccess)
		busy_fail(cb, e, "cudaEventRecord(end, stream)", __LINE__);
	pthread_mutex_unlock(&cb->busy_seq);
}

static int cuda_busy_seconds(zkp_backend *be, double *ret)
{
	cuda_backend *cb = cuda_of(be);
	*ret = 0;
	int err = set_device(cb);
	if (err)
		return err;
	pthread_mutex_lock(&cb->busy_lock);
	busy_harvest(cb);
	*ret = cb->busy_secs;
	pthread_mutex_unlock(&cb->busy_lock);
	return is_dead(cb) ? ZKP_ERR_DEVICE : 0;
}

static void drop_domain(cuda_backend *cb, dev_domain *d)
{
	if (d->used)
		dev_free(cb, d->mem, d->bytes);
	memset(d, 0, sizeof(*d));
}

static void pinned_release(cuda_backend *cb, void *p, size_t rounded);

static void cuda_destroy(zkp_backend *be)
{
	cuda_backend *cb = cuda_of(be);
	set_device_for_free(cb);
	cudaStreamSynchronize(cb->stream);
	for (unsigned i = 0; i < DOMAIN_SLOTS; i++)
		drop_domain(cb, &cb->domains[i]);
	ws_drop(cb, &cb->ws_small);
	ws_drop(cb, &cb->ws_big);
	busy_release(cb);
	cudaStreamDestroy(cb->xfer);
	cudaStreamDestroy(cb->stream);
	for (unsigned i = 0; i < PINNED_SLOTS; i++)
		if (cb->pinned[i].p)
			pinned_release(cb, cb->pinned[i].p, cb->pinned[i].bytes);
	pthread_mutex_destroy(&cb->lock);
	pthread_mutex_destroy(&cb->err_lock);
	pthread_mutex_destroy(&cb->ws_lock);
	pthread_mutex_destroy(&cb->flight_lock);
	free(cb);
}

static int cuda_alloc(zkp_backend *be, zkp_dbuf *ret, size_t bytes)
{
	cuda_backend *cb = cuda_of(be);
	memset(ret, 0, sizeof(*ret));
	int err = set_device(cb);
	if (!err)
		err = dev_alloc(cb, &ret->ptr, bytes);
	if (err)
		return err;
	ret->bytes = bytes;
	ret->owned = true;
	return 0;
}

static void cuda_release(zkp_backend *be, zkp_dbuf *buf)
{
	cuda_backend *cb = cuda_of(be);
	if (buf->owned && buf->ptr) {
		set_device_for_free(cb);
		dev_free(cb, buf->ptr, buf->bytes);
	}
	memset(buf, 0, sizeof(*buf));
}

static int cuda_upload(zkp_backend *be, zkp_dbuf *dst, size_t off, const void *src, size_t bytes)
{
	cuda_backend *cb = cuda_of(be);
	if (!dst->owned || !range_ok(dst, off, bytes) || (!src && bytes))
		return ZKP_ERR_INVAL;
	if (!bytes)
		return 0;
	int err = set_device(cb);
	if (err)
		return err;
	if (in_flight(cb, (const char *)dst->ptr + off, bytes) && (err = stream_sync(cb)))
		goto out;
	CUDA_TRY(cb, cudaMemcpyAsync((char *)dst->ptr + off, src, bytes, cudaMemcpyHostToDevice,
				     cb->xfer));
	CUDA_TRY(cb, cudaStreamSynchronize(cb->xfer));
out:
	return err;
}

static int cuda_import_host(zkp_backend *be, zkp_dbuf *ret, const void *host, size_t bytes)
{
	if (!host && bytes)
		return ZKP_ERR_INVAL;
	int err = cuda_alloc(be, ret, bytes);
	if (!err)
		err = cuda_upload(be, ret, 0, host, bytes);
	if (err)
		cuda_release(be, ret);
	return err;
}

static int cuda_download(zkp_backend *be, void *dst, const zkp_dbuf *src, size_t off, size_t bytes)
{
	cuda_backend *cb = cuda_of(be);
	if (!range_ok(src, off, bytes) || (!dst && bytes))
		return ZKP_ERR_INVAL;
	if (!bytes)
		return 0;
	int err = set_device(cb);
	if (err)
		return err;
	CUDA_TRY(cb, cudaMemcpyAsync(dst, (const char *)src->ptr + off, bytes,
				     cudaMemcpyDeviceToHost, cb->stream));
	err = stream_sync(cb);
out:
	return err;
}

/* ---- NTT ---- */

static int upload_table(cuda_backend *cb, char **cursor, const dfr **ret, const zkp_fr *src,
			size_t count)
{
	int err = 0;
	*ret = (const dfr *)*cursor;
	CUDA_TRY(cb, cudaMemcpyAsync(*cursor, src, count * sizeof(zkp_fr), cudaMemcpyHostToDevice,
				     cb->stream));
	*cursor += count * sizeof(zkp_fr);
out:
	return err;
}

/* The device copy of d's tables, uploaded on first use. Called with the
 * lock held. */
static int get_domain(cuda_backend *cb, const ntt_dev_domain **ret, const zkp_ntt_domain *d)
{
	for (unsigned i = 0; i < DOMAIN_SLOTS; i++) {
		dev_domain *e = &cb->domains[i];
		if (e->used && e->n == d->n && zkp_fr_eq(&e->omega, &d->omega) &&
		    zkp_fr_eq(&e->shift, &d->shift)) {
			*ret = &e->dev;
			return 0;
		}
	}
	dev_domain *e = &cb->domains[cb->next_slot];
	cb->next_slot = (cb->next_slot + 1) % DOMAIN_SLOTS;
	drop_domain(cb, e);

	size_t lo = (size_t)1 << d->split, hi = d->n >> d->split;
	size_t bytes = (d->n / 2 + 2 * (lo + hi)) * sizeof(zkp_fr);
	int err = dev_alloc(cb, &e->mem, bytes);
	if (err)
		return err;
	e->used = true;
	e->bytes = bytes;
	char *cur = (char *)e->mem;
	ntt_dev_domain *dv = &e->dev;
	dv->log_n = d->log_n;
	dv->split = d->split;
	dv->n = d->n;
	memcpy(&dv->n_inv, &d->n_inv, sizeof(zkp_fr));
	if ((err = upload_table(cb, &cur, &dv->tw, d->tw, d->n / 2)) ||
	    (err = upload_table(cb, &cur, &dv->cs_lo, d->cs_lo, lo)) ||
	    (err = upload_table(cb, &cur, &dv->cs_hi, d->cs_hi, hi)) ||
	    (err = upload_table(cb, &cur, &dv->ci_lo, d->ci_lo, lo)) ||
	    (err = upload_table(cb, &cur, &dv->ci_hi, d->ci_hi, hi))) {
		drop_domain(cb, e);
		return err;
	}
	e->n = d->n;
	e->omega = d->omega;
	e->shift = d->shift;
	*ret = dv;
	return 0;
}

static int cuda_ntt(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
		    const zkp_ntt_opts *opts)
{
	cuda_backend *cb = cuda_of(be);
	if (!data->owned || data->bytes / sizeof(zkp_fr) < d->n)
		return ZKP_ERR_INVAL;
	int err = set_device(cb);
	if (err)
		return err;
	const ntt_dev_domain *dv;
	bool busy = false;
	pthread_mutex_lock(&cb->lock);
	err = get_domain(cb, &dv, d);
	if (!err)
		err = clear_pending(cb);
	if (err)
		goto out;
	busy = busy_begin(cb);
	CUDA_TRY(cb, ntt_run((dfr *)data->ptr, dv, opts->inverse, opts->coset,
			     opts->in_order == ZKP_NTT_BITREV, opts->out_order == ZKP_NTT_BITREV,
			     cb->stream));
out:
	busy_end(cb, &busy);
	pthread_mutex_unlock(&cb->lock);
	if (!err) {
		const zkp_dbuf *touched[1] = { data };
		err = note_queued(cb, touched, 1);
	}
	return err;
}

/* ---- MSM ---- */

static size_t popcount_prefix(const uint64_t *density, size_t n)
{
	size_t m = 0;
	for (size_t w = 0; w < n / 64; w++)
		m += (size_t)__builtin_popcountll(density[w]);
	if (n % 64)
		m += (size_t)__builtin_popcountll(density[n / 64] &
						  ((UINT64_C(1) << (n % 64)) - 1));
	return m;
}

static int msm_sizes_ok(const zkp_dbuf *bases, size_t base_size, const zkp_dbuf *scalars,
			const uint64_t *density, size_t n)
{
	if (scalars->bytes / sizeof(zkp_fr) < n)
		return ZKP_ERR_INVAL;
	size_t need = density ? popcount_prefix(density, n) : n;
	return bases->bytes / base_size < need ? ZKP_ERR_INVAL : 0;
}

/* The C layer's types, the Horner step and the device launchers of each
 * group, for the shared MSM and fixed-base drivers below. */
struct g1_group {
	typedef dfp dev;
	typedef zkp_g1 jac;
	typedef zkp_g1_affine affine;
	static size_t ws_size(size_t n, size_t cap, unsigned c, unsigned kb)
	{
		return msm_g1_ws_size(n, cap, c, kb);
	}
	static cudaError_t run(ec_xyzz<dfp> *win, const void *bases, dfr *sc, size_t n,
			       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *ph,
			       cudaStream_t st)
	{
		return msm_g1_run(win, (const g1_affine *)bases, sc, n, cap, c, kb, ws, ph, st);
	}
	static void set_infinity(jac *r) { zkp_g1_set_infinity(r); }
	static affine *fb_table() { return zkp_fixed_base_g1_table(); }
	static cudaError_t fb_run(void *out, void *tmp, const void *table, const dfr *sc, size_t n,
				  cudaStream_t st)
	{
		return fb_g1_run((g1_affine *)out, (g1_xyzz *)tmp, (const g1_affine *)table, sc, n,
				 st);
	}
	static void horner_step(jac *r, const ec_xyzz<dfp> *w, unsigned c)
	{
		for (unsigned i = 0; i < c; i++)
			zkp_g1_dbl(r, r);
		zkp_g1 t;
		zkp_g1_from_xyzz(&t, (const zkp_g1_xyzz *)w);
		zkp_g1_add(r, r, &t);
	}
};

struct g2_group {
	typedef dfp2 dev;
	typedef zkp_g2 jac;
	typedef zkp_g2_affine affine;
	static size_t ws_size(size_t n, size_t cap, unsigned c, unsigned kb)
	{
		return msm_g2_ws_size(n, cap, c, kb);
	}
	static cudaError_t run(ec_xyzz<dfp2> *win, const void *bases, dfr *sc, size_t n,
			       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *ph,
			       cudaStream_t st)
	{
		return msm_g2_run(win, (const g2_affine *)bases, sc, n, cap, c, kb, ws, ph, st);
	}
	static void set_infinity(jac *r) { zkp_g2_set_infinity(r); }
	static affine *fb_table() { return zkp_fixed_base_g2_table(); }
	static cudaError_t fb_run(void *out, void *tmp, const void *table, const dfr *sc, size_t n,
				  cudaStream_t st)
	{
		return fb_g2_run((g2_affine *)out, (g2_xyzz *)tmp, (const g2_affine *)table, sc, n,
				 st);
	}
	static void horner_step(jac *r, const ec_xyzz<dfp2> *w, unsigned c)
	{
		for (unsigned i = 0; i < c; i++)
			zkp_g2_dbl(r, r);
		zkp_g2 t;
		zkp_g2_from_xyzz(&t, (const zkp_g2_xyzz *)w);
		zkp_g2_add(r, r, &t);
	}
};

/* One MSM on the device, G1 or G2. The scalars go first into the head of
 * ws_small, which the MSM owns and overwrites with their canonical limbs:
 * a density bitmap is applied on the way (msm_compact gathers the m
 * selected scalars), else they are copied. The window comes from the count
 * of scalars other than 0 and 1, which alone reach the buckets. The
 * workspaces are kept between MSMs (ws_reserve); ws_lock is held for the
 * whole call. */
template <class G>
static int cuda_msm(zkp_backend *be, typename G::jac *ret, const zkp_dbuf *bases,
		    const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		    const zkp_msm_opts *opts)
{
	typedef ec_xyzz<typename G::dev> xyzz;
	cuda_backend *cb = cuda_of(be);
	G::set_infinity(ret);
	if (opts && opts->phases)
		*opts->phases = zkp_msm_phases{}; /* passes 0 until the device's MSM has run */
	int err = msm_sizes_ok(bases, sizeof(typename G::affine), scalars, density, n);
	if (err)
		return err;
	if (n >= ((size_t)1 << 31))
		return ZKP_ERR_INVAL;
	if ((err = set_device(cb)))
		return err;

	size_t m = density ? popcount_prefix(density, n) : n, m_other = 0, cap = 0;
	dfr *sc = NULL;
	xyzz win[64];
	unsigned c = 0, kb = opts ? opts->pass_windows : 0;
	bool busy = false;
	pthread_mutex_lock(&cb->ws_lock);

	/* ws_small: the m scalars, the compaction's space (with a density
	 * bitmap), then the counter, each 256-byte aligned. */
	size_t head = (m * sizeof(zkp_fr) + 255) & ~(size_t)255;
	size_t count_off = density ? (head + msm_compact_ws_size(n) + 255) & ~(size_t)255 : head;
	if (m == 0)
		goto out;
	if ((err = ws_reserve(cb, &cb->ws_small, count_off + 256)) || (err = clear_pending(cb)))
		goto out;
	busy = busy_begin(cb);
	sc = (dfr *)cb->ws_small.ptr;
	if (density)
		CUDA_TRY(cb, msm_compact(sc, (const dfr *)scalars->ptr, density, n,
					 (char *)cb->ws_small.ptr + head, cb->stream));
	else
		CUDA_TRY(cb, cudaMemcpyAsync(sc, scalars->ptr, m * sizeof(zkp_fr),
					     cudaMemcpyDeviceToDevice, cb->stream));

	/* The window from the scalars that reach the buckets: 0 and 1 do not. */
	if (!(opts && opts->window))
		CUDA_TRY(cb, msm_count_other(&m_other, sc, m,
					     (uint32_t *)((char *)cb->ws_small.ptr + count_off),
					     cb->stream));
	c = opts && opts->window ? opts->window : msm_window(m_other);
	c = c < 4 ? 4 : c > MSM_WIDEST_WINDOW ? MSM_WIDEST_WINDOW : c;
	/* The bucket lists hold the others only: counted, m_other of them. */
	cap = opts && opts->window ? m : m_other;
	if ((err = ws_reserve(cb, &cb->ws_big, G::ws_size(m, cap, c, kb))) ||
	    (err = clear_pending(cb)))
		goto out;
	CUDA_TRY(cb, G::run(win, bases->ptr, sc, m, cap, c, kb, cb->ws_big.ptr,
			    opts ? opts->phases : NULL, cb->stream));
	busy_end(cb, &busy);

	/* Horner over the windows: ret = sum_w 2^(wc) W_w (the ones are in
	 * W_0). */
	for (unsigned w = msm_windows(c); w-- > 0;)
		G::horner_step(ret, &win[w], c);
out:
	busy_end(cb, &busy);
	pthread_mutex_unlock(&cb->ws_lock);
	if (err)
		G::set_infinity(ret);
	return err;
}

static int cuda_msm_g1(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
		       const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		       const zkp_msm_opts *opts)
{
	return cuda_msm<g1_group>(be, ret, bases, scalars, density, n, opts);
}

static int cuda_msm_g2(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
		       const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		       const zkp_msm_opts *opts)
{
	return cuda_msm<g2_group>(be, ret, bases, scalars, density, n, opts);
}

/* ---- evaluation ---- */

/* Queues launch() (it returns the launcher's cudaError_t; `what` names it
 * in a failure) on the kernel stream as one busy-timed sequence, then
 * notes the buffers it touches (note_queued) so that uploads wait for it:
 * the shape of every operation that returns before its kernels finish. */
template <class F>
static int queue_kernels(cuda_backend *cb, const char *what, const zkp_dbuf *const *touched,
			 unsigned count, F launch)
{
	int err = set_device(cb);
	if (err)
		return err;
	bool busy = false;
	if ((err = clear_pending(cb)))
		goto out;
	{
		busy = busy_begin(cb);
		cudaError_t e = launch();
		busy_end(cb, &busy);
		if (e != cudaSuccess) {
			err = cuda_fail(cb, e, what, __LINE__);
			goto out;
		}
	}
	err = note_queued(cb, touched, count);
out:
	busy_end(cb, &busy);
	return err;
}

/* out = m w with the padding to n_out, queued like ntt: out and w are
 * noted as in use until the stream's next sync. */
static int cuda_spmv(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m, const zkp_dbuf *w,
		     size_t n_out)
{
	cuda_backend *cb = cuda_of(be);
	const uint64_t rows = m->shape.rows;
	if (!out->owned || n_out < rows || out->bytes / sizeof(zkp_fr) < n_out ||
	    m->blocks.bytes < zkp_csr_blocks(rows) * sizeof(zkp_csr_block) ||
	    m->row_len.bytes < rows || m->cols.bytes < m->shape.nnz * sizeof(uint32_t) ||
	    m->codes.bytes < m->shape.nnz)
		return ZKP_ERR_INVAL;
	spmv_csr d;
	d.rows = rows;
	d.nnz = m->shape.nnz;
	d.row_len = (const uint8_t *)m->row_len.ptr;
	d.blocks = (const uint64_t *)m->blocks.ptr;
	d.cols = (const uint32_t *)m->cols.ptr;
	d.codes = (const uint8_t *)m->codes.ptr;
	d.escapes = (const uint32_t *)m->escapes.ptr;
	d.overflow = (const uint32_t *)m->overflow.ptr;
	d.values = (const dfr *)m->values.ptr;
	const zkp_dbuf *touched[2] = { out, w };
	return queue_kernels(cb, "spmv_run", touched, 2, [&] {
		return spmv_run((dfr *)out->ptr, &d, (const dfr *)w->ptr, n_out, cb->stream);
	});
}

/* out = the packed vector in src made whole, queued like ntt: out and src
 * are noted as in use until the stream's next sync. */
static int cuda_unpack(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src, size_t n,
		       size_t n_dense)
{
	cuda_backend *cb = cuda_of(be);
	if (!out->owned || !zkp_bitpack_fits(src->bytes, n, n_dense) ||
	    out->bytes / sizeof(zkp_fr) < n || zkp_dbuf_share(out, src))
		return ZKP_ERR_INVAL;
	bitpack_view v = bitpack_at(src->ptr, n);
	const zkp_dbuf *touched[2] = { out, src };
	return queue_kernels(cb, "bitpack_unpack_run", touched, 2, [&] {
		return bitpack_unpack_run((dfr *)out->ptr, &v, n, cb->stream);
	});
}

static int cuda_first_unsatisfied(zkp_backend *be, uint64_t *row, const zkp_dbuf *a,
				  const zkp_dbuf *b, const zkp_dbuf *c, size_t m)
{
	cuda_backend *cb = cuda_of(be);
	size_t cap = m * sizeof(zkp_fr);
	if (m > SIZE_MAX / sizeof(zkp_fr) || a->bytes < cap || b->bytes < cap || c->bytes < cap)
		return ZKP_ERR_INVAL;
	void *word = NULL;
	int err = set_device(cb);
	if (!err)
		err = dev_alloc(cb, &word, sizeof(unsigned long long));
	if (!err)
		err = clear_pending(cb);
	if (err)
		goto out;
	CUDA_TRY(cb, spmv_first_unsat(row, (const dfr *)a->ptr, (const dfr *)b->ptr,
				      (const dfr *)c->ptr, m, (unsigned long long *)word, cb->stream));
out:
	dev_free(cb, word, word ? sizeof(unsigned long long) : 0);
	return err;
}

/* ---- fixed-base multiplication (key setup) ---- */

/* Points of one chunk on the device at once: its scalars, XYZZ workspace
 * and affine results (2^22 G2 points: 2.3 GiB). */
#define FB_CHUNK ((size_t)1 << 22)

/* out[i] = [scalars[i]] G: the window table built on the host and
 * uploaded, then chunks of FB_CHUNK scalars up, through the two kernels
 * of cuda/fixed_base.cu, and their points down. One device block for the
 * call, freed at its end (a key setup runs this a handful of times). */
template <class G>
static int cuda_fixed_base(zkp_backend *be, typename G::affine *out, const zkp_fr *scalars,
			   size_t n)
{
	typedef typename G::dev E;
	typedef typename G::affine affine;
	cuda_backend *cb = cuda_of(be);
	if (n == 0)
		return 0;
	const size_t chunk = n < FB_CHUNK ? n : FB_CHUNK;
	const size_t tbytes = (ZKP_FB_TABLE_POINTS * sizeof(affine) + 255) & ~(size_t)255;
	const size_t sbytes = (chunk * sizeof(zkp_fr) + 255) & ~(size_t)255;
	const size_t xbytes = (chunk * sizeof(ec_xyzz<E>) + 255) & ~(size_t)255;
	const size_t total = tbytes + sbytes + xbytes + chunk * sizeof(affine);
	char *mem = NULL;
	affine *table = G::fb_table();
	int err = table ? set_device(cb) : ZKP_ERR_NOMEM;
	if (err)
		goto out;
	if ((err = dev_alloc(cb, (void **)&mem, total)) || (err = clear_pending(cb)))
		goto out;
	CUDA_TRY(cb, cudaMemcpyAsync(mem, table, ZKP_FB_TABLE_POINTS * sizeof(affine),
				     cudaMemcpyHostToDevice, cb->stream));
	for (size_t off = 0; off < n; off += chunk) {
		size_t k = n - off < chunk ? n - off : chunk;
		char *sc = mem + tbytes, *tmp = sc + sbytes, *res = tmp + xbytes;
		CUDA_TRY(cb, cudaMemcpyAsync(sc, scalars + off, k * sizeof(zkp_fr),
					     cudaMemcpyHostToDevice, cb->stream));
		CUDA_TRY(cb, G::fb_run(res, tmp, mem, (const dfr *)sc, k, cb->stream));
		CUDA_TRY(cb, cudaMemcpyAsync(out + off, res, k * sizeof(affine),
					     cudaMemcpyDeviceToHost, cb->stream));
		CUDA_TRY(cb, cudaStreamSynchronize(cb->stream));
	}
out:
	dev_free(cb, mem, mem ? total : 0);
	free(table);
	return err;
}

static int cuda_fixed_base_g1(zkp_backend *be, zkp_g1_affine *out, const zkp_fr *scalars,
			      size_t n)
{
	return cuda_fixed_base<g1_group>(be, out, scalars, n);
}

static int cuda_fixed_base_g2(zkp_backend *be, zkp_g2_affine *out, const zkp_fr *scalars,
			      size_t n)
{
	return cuda_fixed_base<g2_group>(be, out, scalars, n);
}

/* b and c may be views; a is written and must be owned. */
static int cuda_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b, const zkp_dbuf *c,
			    const zkp_fr *scale, size_t n)
{
	cuda_backend *cb = cuda_of(be);
	size_t bytes = n * sizeof(zkp_fr);
	if (n > SIZE_MAX / sizeof(zkp_fr) || !a->owned || a->bytes < bytes || b->bytes < bytes ||
	    (c && c->bytes < bytes))
		return ZKP_ERR_INVAL;
	dfr s;
	if (scale)
		memcpy(&s, scale, sizeof(s));
	const zkp_dbuf *touched[3] = { a, b, c };
	return queue_kernels(cb, "ntt_h_pointwise", touched, c ? 3 : 2, [&] {
		return ntt_h_pointwise((dfr *)a->ptr, (const dfr *)b->ptr,
				       c ? (const dfr *)c->ptr : NULL, scale ? &s : NULL, n,
				       cb->stream);
	});
}

/* c may be a view; a is written and must be owned. */
static int cuda_h_coeffs(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c, const zkp_fr *scale,
			 unsigned log_n)
{
	cuda_backend *cb = cuda_of(be);
	if (log_n > ZKP_NTT_MAX_LOG)
		return ZKP_ERR_INVAL;
	size_t bytes = ((size_t)1 << log_n) * sizeof(zkp_fr);
	if (!a->owned || a->bytes < bytes || c->bytes < bytes || zkp_dbuf_overlap(a, c, bytes))
		return ZKP_ERR_INVAL;
	dfr s;
	if (scale)
		memcpy(&s, scale, sizeof(s));
	const zkp_dbuf *touched[2] = { a, c };
	return queue_kernels(cb, "ntt_bitrev_sub", touched, 2, [&] {
		return ntt_bitrev_sub((dfr *)a->ptr, (const dfr *)c->ptr, scale ? &s : NULL, log_n,
				      cb->stream);
	});
}

static int cuda_sync(zkp_backend *be)
{
	cuda_backend *cb = cuda_of(be);
	int err = set_device(cb);
	if (err)
		return err;
	return stream_sync(cb);
}

/* The size a pinned block of `bytes` really has: whole granules. */
static size_t pinned_round(size_t bytes)
{
	size_t g = bytes ? (bytes + PINNED_GRANULE - 1) / PINNED_GRANULE : 1;
	return g * PINNED_GRANULE;
}

static void pinned_release(cuda_backend *cb, void *p, size_t rounded)
{
	set_device_for_free(cb);
	cudaError_t e = cudaFreeHost(p);
	if (e != cudaSuccess)
		cuda_fail(cb, e, "cudaFreeHost(p)", __LINE__);
	zkp_mem_sub(ZKP_MEM_PINNED, rounded);
}

/* Page-locked host memory in whole granules, counted at that size: a kept
 * block of the same rounded size if there is one, else a new one (kept
 * blocks of other sizes are let go first, so pinned memory stays near
 * what is in use). */
static int cuda_host_alloc(zkp_backend *be, void **ret, size_t bytes)
{
	cuda_backend *cb = cuda_of(be);
	size_t rounded = pinned_round(bytes);
	pinned_block stale[PINNED_SLOTS];
	unsigned n_stale = 0;
	*ret = NULL;
	pthread_mutex_lock(&cb->lock);
	for (unsigned i = 0; i < PINNED_SLOTS && !*ret; i++)
		if (cb->pinned[i].p && cb->pinned[i].bytes == rounded) {
			*ret = cb->pinned[i].p;
			cb->pinned[i].p = NULL;
		}
	if (!*ret)
		for (unsigned i = 0; i < PINNED_SLOTS; i++)
			if (cb->pinned[i].p) {
				stale[n_stale++] = cb->pinned[i];
				cb->pinned[i].p = NULL;
			}
	pthread_mutex_unlock(&cb->lock);
	for (unsigned i = 0; i < n_stale; i++)
		pinned_release(cb, stale[i].p, stale[i].bytes);
	if (*ret)
		return 0;
	int err = set_device(cb);
	if (err)
		return err;
	CUDA_TRY(cb, cudaHostAlloc(ret, rounded, cudaHostAllocDefault));
	zkp_mem_add(ZKP_MEM_PINNED, rounded);
out:
	if (err)
		*ret = NULL;
	return err;
}

/* Keeps the block for the next host_alloc when a slot is free; else
 * cudaFreeHost (which waits for work still using the memory). */
static void cuda_host_free(zkp_backend *be, void *p, size_t bytes)
{
	cuda_backend *cb = cuda_of(be);
	if (!p)
		return;
	size_t rounded = pinned_round(bytes);
	bool kept = false;
	pthread_mutex_lock(&cb->lock);
	for (unsigned i = 0; i < PINNED_SLOTS && !kept; i++)
		if (!cb->pinned[i].p) {
			cb->pinned[i].p = p;
			cb->pinned[i].bytes = rounded;
			kept = true;
		}
	pthread_mutex_unlock(&cb->lock);
	if (!kept)
		pinned_release(cb, p, rounded);
}

/* ---- device memory kept between operations ---- */

static size_t round256(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

/* The big workspace of an MSM over m scalars, all of them other than 0
 * and 1: the most any m scalars take (fewer others pick a narrower window
 * but shorter lists, and K m_other grows with m_other). */
template <class G> static size_t msm_ws_bound(size_t m)
{
	unsigned c = msm_window(m);
	c = c < 4 ? 4 : c > MSM_MAX_WINDOW ? MSM_MAX_WINDOW : c;
	return m ? G::ws_size(m, m, c, 0) : 0;
}

/* get_domain's tables for 2^log_n points (the split of zkp_ntt_domain),
 * and cuda_msm's two workspaces at their largest: ws_big for the largest
 * MSM of either group, ws_small for its scalars (an MSM has at most as
 * many as its bases) and the compaction of n_all. */
extern "C" void zkp_backend_cuda_scratch_bytes(unsigned log_n, size_t n_g1, size_t n_g2,
					       size_t n_all, uint64_t *tables, uint64_t *msm)
{
	size_t n = (size_t)1 << log_n;
	unsigned split = (log_n + 1) / 2;
	size_t lo = (size_t)1 << split, hi = n >> split;
	*tables = (uint64_t)((n / 2 + 2 * (lo + hi)) * sizeof(zkp_fr));
	size_t g1 = msm_ws_bound<g1_group>(n_g1), g2 = msm_ws_bound<g2_group>(n_g2);
	size_t head = round256((n_g1 > n_g2 ? n_g1 : n_g2) * sizeof(zkp_fr));
	size_t small = round256(head + msm_compact_ws_size(n_all)) + 256;
	*msm = (uint64_t)((g1 > g2 ? g1 : g2) + small);
}

static void cuda_scratch_bytes(zkp_backend *be, unsigned log_n, size_t n_g1, size_t n_g2,
			       size_t n_all, uint64_t *tables, uint64_t *msm)
{
	(void)be;
	zkp_backend_cuda_scratch_bytes(log_n, n_g1, n_g2, n_all, tables, msm);
}

/* In the order of zkp_backend_ops. */
static const zkp_backend_ops cuda_ops = {
	"cuda",
	cuda_destroy,
	cuda_alloc,
	cuda_import_host,
	cuda_release,
	cuda_upload,
	cuda_download,
	cuda_ntt,
	cuda_msm_g1,
	cuda_msm_g2,
	cuda_h_pointwise,
	cuda_h_coeffs,
	cuda_sync,
	cuda_host_alloc,
	cuda_host_free,
	cuda_fixed_base_g1,
	cuda_fixed_base_g2,
	cuda_spmv,
	cuda_first_unsatisfied,
	cuda_unpack,
	cuda_busy_seconds,
	cuda_scratch_bytes,
};

/* ---- public entry points ---- */

extern "C" int zkp_backend_cuda_count(int *n)
{
	*n = 0;
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e == cudaSuccess) {
		*n = count;
		return 0;
	}
	cudaGetLastError(); /* clear it: no device is not a sticky failure */
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
	    e == cudaErrorStubLibrary || e == cudaErrorSystemDriverMismatch ||
	    e == cudaErrorCompatNotSupportedOnDevice)
		return 0;
	zkp_log(ZKP_LOG_ERROR, "cuda: cudaGetDeviceCount: %s", cudaGetErrorString(e));
	return ZKP_ERR_DEVICE;
}

extern "C" int zkp_backend_cuda_new(zkp_backend **ret, int device, zkp_error *err)
{
	*ret = NULL;
	int count = 0;
	int rc = zkp_backend_cuda_count(&count);
	if (rc)
		return zkp_error_set(err, rc, "cuda: cannot count devices");
	if (device < 0 || device >= count)
		return zkp_error_set(err, ZKP_ERR_INVAL, "cuda: no device %d (%d present)", device,
				     count);
	cuda_backend *cb = (cuda_backend *)calloc(1, sizeof(*cb));
	if (!cb)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "cuda: out of memory");
	cudaError_t e = cudaSetDevice(device);
	if (e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&cb->stream, cudaStreamNonBlocking);
	if (e == cudaSuccess) {
		e = cudaStreamCreateWithFlags(&cb->xfer, cudaStreamNonBlocking);
		if (e != cudaSuccess)
			cudaStreamDestroy(cb->stream);
	}
	if (e != cudaSuccess) {
		free(cb);
		return zkp_error_set(err, ZKP_ERR_DEVICE, "cuda device %d: %s", device,
				     cudaGetErrorString(e));
	}
	pthread_mutex_init(&cb->lock, NULL);
	pthread_mutex_init(&cb->err_lock, NULL);
	pthread_mutex_init(&cb->ws_lock, NULL);
	pthread_mutex_init(&cb->flight_lock, NULL);
	busy_init(cb);
	cb->base.ops = &cuda_ops;
	cb->base.host_visible = false;
	cb->device = device;
	*ret = &cb->base;
	return 0;
}

extern "C" int zkp_backend_cuda_mem_info(zkp_backend *be, uint64_t *total, uint64_t *used)
{
	*total = *used = 0;
	if (!be || be->ops != &cuda_ops)
		return ZKP_ERR_INVAL;
	cuda_backend *cb = cuda_of(be);
	size_t free_b = 0, total_b = 0;
	int err = set_device(cb);
	if (err)
		return err;
	CUDA_TRY(cb, cudaMemGetInfo(&free_b, &total_b));
	*total = total_b;
	*used = total_b - free_b;
out:
	return err;
}

extern "C" void zkp_backend_cuda_last_error(zkp_backend *be, zkp_error *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!be || be->ops != &cuda_ops)
		return;
	cuda_backend *cb = cuda_of(be);
	pthread_mutex_lock(&cb->err_lock);
	*ret = cb->last;
	pthread_mutex_unlock(&cb->err_lock);
}

extern "C" bool zkp_backend_cuda_failed(zkp_backend *be)
{
	return be && be->ops == &cuda_ops && is_dead(cuda_of(be));
}
