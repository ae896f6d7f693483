/*
 * backend: the heavy operations of a proof (NTT and MSM) behind one table of
 * function pointers, so the prover never knows whether a CPU or a GPU runs
 * them. The CPU backend lives here; a CUDA backend (cuda/) fills in the same
 * table.
 *
 * Invariants:
 *  - Data the operations read or write lives in zkp_dbuf buffers owned by
 *    the backend: host memory for the CPU backend, device memory for a GPU.
 *    A caller touches dbuf.ptr directly only when be->host_visible.
 *  - Host data enters through import_host (bases and other long-lived,
 *    read-only data: the CPU backend references it in place, no copy, so a
 *    key mapped from disk is never duplicated; a device backend copies it
 *    once) or through alloc + upload (per-proof data). Results leave
 *    through download. Offsets and sizes are in bytes and are checked:
 *    a range outside the buffer is ZKP_ERR_INVAL.
 *  - Operations may run asynchronously on a device; sync waits for all of
 *    them. On the CPU backend every call has finished when it returns.
 *  - Host memory a device copies from or to is best taken from host_alloc
 *    (pinned there); any host memory works.
 *  - One backend object may be used from several threads at once, each
 *    call with its own buffers.
 *  - Every fallible call returns 0 or a negative zkp_err; nothing aborts
 *    on bad input or a failed allocation.
 */
#ifndef ZKPD_BACKEND_H
#define ZKPD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/csr.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/msm.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

typedef struct zkp_backend zkp_backend;

typedef struct {
	void *ptr;
	size_t bytes;
	bool owned; /* allocated by the backend (false: imported host memory) */
} zkp_dbuf;

/* A matrix (csr.h) held by a backend for spmv: its counts, and each of its
 * arrays imported (import_host: one copy on a device, a reference on the
 * CPU). Made by zkp_backend_csr_import, freed by zkp_backend_csr_release. */
typedef struct {
	zkp_csr shape; /* the counts; its pointers are not used */
	zkp_dbuf row_len, blocks, cols, codes, escapes, overflow, values;
} zkp_backend_csr;

typedef struct {
	const char *name;
	void (*destroy)(zkp_backend *be);
	int (*alloc)(zkp_backend *be, zkp_dbuf *ret, size_t bytes);
	int (*import_host)(zkp_backend *be, zkp_dbuf *ret, const void *host, size_t bytes);
	void (*release)(zkp_backend *be, zkp_dbuf *buf);
	int (*upload)(zkp_backend *be, zkp_dbuf *dst, size_t off, const void *src, size_t bytes);
	int (*download)(zkp_backend *be, void *dst, const zkp_dbuf *src, size_t off, size_t bytes);
	/* In-place NTT of the d->n Fr elements at the start of data. */
	int (*ntt)(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
		   const zkp_ntt_opts *opts);
	/* ret = sum scalars[i] * bases[j(i)]: with density NULL, j(i) = i and
	 * both buffers hold n entries; otherwise only scalars whose density bit
	 * is set take part and bases holds one point per set bit (msm.h). The
	 * density bitmap is host memory. */
	int (*msm_g1)(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
		      const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		      const zkp_msm_opts *opts);
	int (*msm_g2)(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
		      const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		      const zkp_msm_opts *opts);
	/* The pointwise step of H on a coset, fused in one pass:
	 * a[i] = (a[i] b[i] - c[i]) scale for i < n (scale NULL: 1; c NULL:
	 * nothing subtracted). a, b and c hold at least n Fr elements; queued
	 * like ntt. */
	int (*h_pointwise)(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b, const zkp_dbuf *c,
			   const zkp_fr *scale, size_t n);
	/* The last step of H in the bellman convention, in one pass:
	 * a[i] = (a[rev(i)] - c[rev(i)]) scale for i < n = 2^log_n, rev the
	 * log_n-bit reversal (scale NULL: 1): bit-reversed coefficients in,
	 * their difference out in natural order. a (owned) and c (a view may
	 * do) hold at least n Fr elements and do not overlap; queued like
	 * ntt. */
	int (*h_coeffs)(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c, const zkp_fr *scale,
			unsigned log_n);
	int (*sync)(zkp_backend *be);
	/* Host staging memory for upload and download: page-locked on a
	 * device backend, so copies run at full bus speed without a bounce
	 * buffer (counted under ZKP_MEM_PINNED while it lives); ordinary
	 * 64-byte-aligned memory on the CPU backend. host_free takes the
	 * size given to host_alloc; NULL is a no-op. */
	int (*host_alloc)(zkp_backend *be, void **ret, size_t bytes);
	void (*host_free)(zkp_backend *be, void *p, size_t bytes);
	/* out[i] = [scalars[i]] G for i < n, G the group's generator, affine
	 * (fixed_base.h): the work of a development key setup. scalars and
	 * out are host memory of any kind; a device streams them through in
	 * chunks. Results equal the CPU's byte for byte. Returns when out is
	 * written. */
	int (*fixed_base_g1)(zkp_backend *be, zkp_g1_affine *out, const zkp_fr *scalars,
			     size_t n);
	int (*fixed_base_g2)(zkp_backend *be, zkp_g2_affine *out, const zkp_fr *scalars,
			     size_t n);
	/* out[r] = row r of m times w for r < m->shape.rows, and 0 for
	 * m->shape.rows <= r < n_out: the prover's a, b, c with their zero
	 * padding. out is owned and holds n_out >= rows elements; w (a view
	 * may do) holds a value for every column. Queued like ntt. */
	int (*spmv)(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m, const zkp_dbuf *w,
		    size_t n_out);
	/* *row = the first r < m with a[r] b[r] != c[r], UINT64_MAX when
	 * every row holds. Returns when it is known. */
	int (*first_unsatisfied)(zkp_backend *be, uint64_t *row, const zkp_dbuf *a,
				 const zkp_dbuf *b, const zkp_dbuf *c, size_t m);
	/* out[i] = value i, for i < n, of the packed vector in src (bitpack.h:
	 * n values, n_dense of them neither 0 nor 1), which holds at least
	 * zkp_bitpack_bytes(n, n_dense) bytes as zkp_bitpack_scan and
	 * zkp_bitpack_gather wrote them (a view may do): a witness that crossed
	 * the bus packed, made whole where the kernels read it. out is owned,
	 * holds at least n elements and does not overlap src. Queued like
	 * ntt. */
	int (*unpack)(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src, size_t n,
		      size_t n_dense);
	/* Seconds the device has spent running this backend's work since the
	 * backend was made (a GPU: its kernels' time, measured on the device
	 * around each launch sequence of ntt, the MSMs, h_pointwise,
	 * h_coeffs, spmv and unpack; never the copies, which overlap it). Only work the device has finished
	 * counts, so a caller that wants all of it calls sync first (an MSM
	 * that returned its result may still have its closing mark in
	 * flight). The figure never decreases. Quick (it never waits for the
	 * device) and callable from any thread beside the operations.
	 * Errors: ZKP_ERR_UNSUPPORTED from a backend that is not a device
	 * (the CPU's: its work is the caller's own threads'), ZKP_ERR_DEVICE
	 * from a device that failed for good. */
	int (*busy_seconds)(zkp_backend *be, double *ret);
	/* Device memory the backend keeps between operations, outside the
	 * buffers it hands out, to prove a circuit of this shape: *tables,
	 * the NTT tables of a domain of 2^log_n points (kept per domain
	 * size), and *msm, the MSM workspace for G1 MSMs of up to n_g1
	 * points and G2 ones of up to n_g2, density MSMs over n_all scalars
	 * included (kept at its largest and shared by every MSM). Upper
	 * bounds for whatever the scalars, for device memory admission to
	 * plan with; no device work, any thread. NULL: none kept (the CPU
	 * backend's scratch is host memory, which the host's admission
	 * counts). */
	void (*scratch_bytes)(zkp_backend *be, unsigned log_n, size_t n_g1, size_t n_g2,
			      size_t n_all, uint64_t *tables, uint64_t *msm);
} zkp_backend_ops;

struct zkp_backend {
	const zkp_backend_ops *ops;
	bool host_visible;
};

/* The CPU backend, running its work on pool (NULL: the calling thread). The
 * pool must outlive the backend. Errors: ZKP_ERR_NOMEM. */
int zkp_backend_cpu_new(zkp_backend **ret, zkp_pool *pool);

/*
 * A fault-injecting wrapper for tests: delegates every call to inner
 * (which it does not own and which must outlive it; busy_seconds too),
 * except that every
 * `every`-th NTT or G1 MSM, counted across all threads, fails with
 * ZKP_ERR_DEVICE as a GPU fault would. Errors: ZKP_ERR_INVAL (inner NULL
 * or every 0), ZKP_ERR_NOMEM.
 */
int zkp_backend_faulty_new(zkp_backend **ret, zkp_backend *inner, unsigned every);
/* The silent kind, for the same tests: every `every`-th G1 MSM returns its
 * result plus the G1 generator and no error; nothing else is touched. A
 * proof made through it does not verify. Errors: as zkp_backend_faulty_new. */
int zkp_backend_corrupting_new(zkp_backend **ret, zkp_backend *inner, unsigned every);
/* Faults injected so far by a backend from zkp_backend_faulty_new or
 * zkp_backend_corrupting_new. */
unsigned long zkp_backend_faulty_injected(zkp_backend *be);

/*
 * A test double that keeps its memory out of the caller's sight, as a
 * device does: host_visible is false and every buffer it hands out holds
 * its data in a scrambled encoding (64-bit words XORed with a key), so
 * code that reads or writes dbuf.ptr directly instead of going through
 * upload and download computes garbage and fails its checks. Operations
 * decode into temporary host memory, run on inner (host-visible; not
 * owned; must outlive it) and encode the results. import_host copies.
 * busy_seconds answers as a device's: the wall time of its ntt, msm,
 * h_pointwise, h_coeffs, spmv and unpack calls, decoding and encoding
 * included (calls made at once from several threads each count whole).
 * Errors: ZKP_ERR_INVAL (inner NULL or not host-visible), ZKP_ERR_NOMEM.
 */
int zkp_backend_offhost_new(zkp_backend **ret, zkp_backend *inner);

/*
 * A read-only window [off, off + bytes) of buf, for an operation that only
 * reads it (an MSM's scalars starting past the inputs). The view owns
 * nothing: releasing it is a no-op, upload and ntt refuse it, and it must
 * not outlive buf. Works on every backend (ptr is only offset, never
 * dereferenced here). Errors: ZKP_ERR_INVAL (the range leaves buf).
 */
static inline int zkp_dbuf_view(zkp_dbuf *ret, const zkp_dbuf *buf, size_t off, size_t bytes)
{
	if (off > buf->bytes || bytes > buf->bytes - off)
		return ZKP_ERR_INVAL;
	ret->ptr = buf->ptr ? (char *)buf->ptr + off : NULL;
	ret->bytes = bytes;
	ret->owned = false;
	return 0;
}

/* Whether the first bytes of a and of b share an address (pointers are
 * compared, never dereferenced: device addresses do as well). */
static inline bool zkp_dbuf_overlap(const zkp_dbuf *a, const zkp_dbuf *b, size_t bytes)
{
	uintptr_t x = (uintptr_t)a->ptr, y = (uintptr_t)b->ptr;
	return bytes && x < y + bytes && y < x + bytes;
}

/* Whether buffers a and b, each whole, share an address. */
static inline bool zkp_dbuf_share(const zkp_dbuf *a, const zkp_dbuf *b)
{
	uintptr_t x = (uintptr_t)a->ptr, y = (uintptr_t)b->ptr;
	return a->bytes && b->bytes && x < y + b->bytes && y < x + a->bytes;
}

/* Calls through the table, so callers read like ordinary functions. */
static inline void zkp_backend_free(zkp_backend *be)
{
	if (be)
		be->ops->destroy(be);
}

static inline int zkp_backend_alloc(zkp_backend *be, zkp_dbuf *ret, size_t bytes)
{
	return be->ops->alloc(be, ret, bytes);
}

static inline int zkp_backend_import_host(zkp_backend *be, zkp_dbuf *ret, const void *host,
					  size_t bytes)
{
	return be->ops->import_host(be, ret, host, bytes);
}

/* Accepts a zeroed dbuf (nothing to release). */
static inline void zkp_backend_release(zkp_backend *be, zkp_dbuf *buf)
{
	be->ops->release(be, buf);
}

static inline int zkp_backend_upload(zkp_backend *be, zkp_dbuf *dst, size_t off,
				     const void *src, size_t bytes)
{
	return be->ops->upload(be, dst, off, src, bytes);
}

static inline int zkp_backend_download(zkp_backend *be, void *dst, const zkp_dbuf *src,
				       size_t off, size_t bytes)
{
	return be->ops->download(be, dst, src, off, bytes);
}

static inline int zkp_backend_ntt(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
				  const zkp_ntt_opts *opts)
{
	return be->ops->ntt(be, data, d, opts);
}

static inline int zkp_backend_msm_g1(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
				     const zkp_dbuf *scalars, const uint64_t *density,
				     size_t n, const zkp_msm_opts *opts)
{
	return be->ops->msm_g1(be, ret, bases, scalars, density, n, opts);
}

static inline int zkp_backend_msm_g2(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
				     const zkp_dbuf *scalars, const uint64_t *density,
				     size_t n, const zkp_msm_opts *opts)
{
	return be->ops->msm_g2(be, ret, bases, scalars, density, n, opts);
}

static inline int zkp_backend_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b,
					  const zkp_dbuf *c, const zkp_fr *scale, size_t n)
{
	return be->ops->h_pointwise(be, a, b, c, scale, n);
}

static inline int zkp_backend_h_coeffs(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c,
				       const zkp_fr *scale, unsigned log_n)
{
	return be->ops->h_coeffs(be, a, c, scale, log_n);
}

static inline int zkp_backend_sync(zkp_backend *be)
{
	return be->ops->sync(be);
}

static inline int zkp_backend_host_alloc(zkp_backend *be, void **ret, size_t bytes)
{
	return be->ops->host_alloc(be, ret, bytes);
}

static inline void zkp_backend_host_free(zkp_backend *be, void *p, size_t bytes)
{
	be->ops->host_free(be, p, bytes);
}

static inline int zkp_backend_spmv(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m,
				   const zkp_dbuf *w, size_t n_out)
{
	return be->ops->spmv(be, out, m, w, n_out);
}

static inline int zkp_backend_first_unsatisfied(zkp_backend *be, uint64_t *row,
						const zkp_dbuf *a, const zkp_dbuf *b,
						const zkp_dbuf *c, size_t m)
{
	return be->ops->first_unsatisfied(be, row, a, b, c, m);
}

static inline int zkp_backend_unpack(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src,
				     size_t n, size_t n_dense)
{
	return be->ops->unpack(be, out, src, n, n_dense);
}

/* Imports every array of m into be (zkp_backend_csr above). On failure
 * nothing stays imported. Errors: those of import_host (ZKP_ERR_NOMEM,
 * ZKP_ERR_DEVICE). */
int zkp_backend_csr_import(zkp_backend *be, zkp_backend_csr *ret, const zkp_csr *m);
/* Accepts a zeroed one. */
void zkp_backend_csr_release(zkp_backend *be, zkp_backend_csr *m);
/* Bytes the backend holds for it (0 where import_host references). */
size_t zkp_backend_csr_bytes(const zkp_backend_csr *m);
/* Bytes zkp_backend_csr_import of m copies into a backend that copies
 * (what zkp_backend_csr_bytes then reports), from m's counts alone. */
size_t zkp_backend_csr_import_bytes(const zkp_csr *m);
/* The matrix with its arrays at the buffers' pointers: host memory on a
 * host-visible backend, device addresses on a device (for its kernels). */
zkp_csr zkp_backend_csr_view(const zkp_backend_csr *m);

static inline int zkp_backend_fixed_base_g1(zkp_backend *be, zkp_g1_affine *out,
					    const zkp_fr *scalars, size_t n)
{
	return be->ops->fixed_base_g1(be, out, scalars, n);
}

static inline int zkp_backend_fixed_base_g2(zkp_backend *be, zkp_g2_affine *out,
					    const zkp_fr *scalars, size_t n)
{
	return be->ops->fixed_base_g2(be, out, scalars, n);
}

/* *ret is 0 on an error. */
static inline int zkp_backend_busy_seconds(zkp_backend *be, double *ret)
{
	*ret = 0;
	return be->ops->busy_seconds(be, ret);
}

/* The op above; zeros from a backend without it. */
static inline void zkp_backend_scratch_bytes(zkp_backend *be, unsigned log_n, size_t n_g1,
					     size_t n_g2, size_t n_all, uint64_t *tables,
					     uint64_t *msm)
{
	*tables = *msm = 0;
	if (be->ops->scratch_bytes)
		be->ops->scratch_bytes(be, log_n, n_g1, n_g2, n_all, tables, msm);
}

#endif
