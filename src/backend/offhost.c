/*
 * A backend whose memory the caller must not read (backend.h,
 * zkp_backend_offhost_new): buffers live in host memory from the inner
 * backend but hold every byte XORed with a key byte chosen by the byte's
 * address, so a window (zkp_dbuf_view) decodes like the buffer it lies in.
 * Each operation decodes what it reads into temporary memory, runs the
 * inner backend and encodes what it writes: slow, and meant only to prove
 * that a caller goes through upload and download as it must for a device.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkpd/backend.h"
#include "zkpd/bitpack.h"
#include "zkpd/error.h"

#define KEY UINT64_C(0x5a3c96e1f00fd2b4)

struct offhost_backend {
	zkp_backend base; /* first: the ops receive this pointer */
	zkp_backend *inner;
	_Atomic uint64_t busy_ns; /* its ntt, msm, h_pointwise, h_coeffs, spmv and unpack calls' wall time */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds the time since t0 (now_ns) to the device's busy time. */
static void busy_add(zkp_backend *be, uint64_t t0)
{
	atomic_fetch_add(&((struct offhost_backend *)be)->busy_ns, now_ns() - t0);
}

static zkp_backend *inner_of(zkp_backend *be)
{
	return ((struct offhost_backend *)be)->inner;
}

/* dst = src XOR key, the key byte picked by the address in the buffer
 * (enc_at), the same way in both directions. */
static void scramble(void *dst, const void *src, size_t bytes, const void *enc_at)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uintptr_t at = (uintptr_t)enc_at;
	for (size_t i = 0; i < bytes; i++)
		d[i] = s[i] ^ (unsigned char)(KEY >> (8 * ((at + i) % 8)));
}

static bool range_ok(const zkp_dbuf *buf, size_t off, size_t bytes)
{
	return off <= buf->bytes && bytes <= buf->bytes - off;
}

static void oh_destroy(zkp_backend *be)
{
	free(be);
}

static int oh_alloc(zkp_backend *be, zkp_dbuf *ret, size_t bytes)
{
	return zkp_backend_alloc(inner_of(be), ret, bytes);
}

static void oh_release(zkp_backend *be, zkp_dbuf *buf)
{
	zkp_backend_release(inner_of(be), buf);
}

static int oh_upload(zkp_backend *be, zkp_dbuf *dst, size_t off, const void *src, size_t bytes)
{
	(void)be;
	if (!dst->owned || !range_ok(dst, off, bytes) || (!src && bytes))
		return ZKP_ERR_INVAL;
	char *at = (char *)dst->ptr + off;
	scramble(at, src, bytes, at);
	return 0;
}

static int oh_import_host(zkp_backend *be, zkp_dbuf *ret, const void *host, size_t bytes)
{
	if (!host && bytes)
		return ZKP_ERR_INVAL;
	int rc = oh_alloc(be, ret, bytes);
	if (!rc)
		rc = oh_upload(be, ret, 0, host, bytes);
	if (rc)
		oh_release(be, ret);
	return rc;
}

static int oh_download(zkp_backend *be, void *dst, const zkp_dbuf *src, size_t off, size_t bytes)
{
	(void)be;
	if (!range_ok(src, off, bytes) || (!dst && bytes))
		return ZKP_ERR_INVAL;
	const char *at = (const char *)src->ptr + off;
	scramble(dst, at, bytes, at);
	return 0;
}

/* A decoded copy of the first bytes of src in a buffer of the inner
 * backend. */
static int decoded(zkp_backend *be, zkp_dbuf *ret, const zkp_dbuf *src, size_t bytes)
{
	if (bytes > src->bytes)
		return ZKP_ERR_INVAL;
	int rc = zkp_backend_alloc(inner_of(be), ret, bytes);
	if (!rc)
		scramble(ret->ptr, src->ptr, bytes, src->ptr);
	return rc;
}

/* Decoded copies of the first bytes of a, b and c (NULL: none) into
 * t[0..2] (zeroed on entry); release3 frees them whatever succeeded. */
static int decoded3(zkp_backend *be, zkp_dbuf t[3], const zkp_dbuf *a, const zkp_dbuf *b,
		    const zkp_dbuf *c, size_t bytes)
{
	int rc = decoded(be, &t[0], a, bytes);
	if (!rc)
		rc = decoded(be, &t[1], b, bytes);
	if (!rc && c)
		rc = decoded(be, &t[2], c, bytes);
	return rc;
}

static void release3(zkp_backend *be, zkp_dbuf t[3])
{
	for (int i = 0; i < 3; i++)
		zkp_backend_release(inner_of(be), &t[i]);
}

static int oh_ntt(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
		  const zkp_ntt_opts *opts)
{
	size_t bytes = d->n * sizeof(zkp_fr);
	if (!data->owned || data->bytes < bytes)
		return ZKP_ERR_INVAL;
	uint64_t t0 = now_ns();
	zkp_dbuf tmp = { 0 };
	int rc = decoded(be, &tmp, data, bytes);
	if (!rc)
		rc = zkp_backend_ntt(inner_of(be), &tmp, d, opts);
	if (!rc)
		rc = zkp_backend_sync(inner_of(be));
	if (!rc)
		scramble(data->ptr, tmp.ptr, bytes, data->ptr);
	zkp_backend_release(inner_of(be), &tmp);
	busy_add(be, t0);
	return rc;
}

static size_t count_bases(const uint64_t *density, size_t n)
{
	if (!density)
		return n;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += (density[i / 64] >> (i % 64)) & 1;
	return m;
}

/* Decodes the bases and scalars an MSM reads; the caller releases both. */
static int msm_inputs(zkp_backend *be, zkp_dbuf *b, zkp_dbuf *s, const zkp_dbuf *bases,
		      size_t base_size, const zkp_dbuf *scalars, const uint64_t *density,
		      size_t n)
{
	size_t nb = count_bases(density, n);
	if (bases->bytes / base_size < nb || scalars->bytes / sizeof(zkp_fr) < n)
		return ZKP_ERR_INVAL;
	int rc = decoded(be, b, bases, nb * base_size);
	if (!rc)
		rc = decoded(be, s, scalars, n * sizeof(zkp_fr));
	return rc;
}

/* An MSM in G1 or G2 (ret a zkp_g1 or zkp_g2) on decoded inputs. */
static int oh_msm(zkp_backend *be, void *ret, bool g2, const zkp_dbuf *bases,
		  const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		  const zkp_msm_opts *opts)
{
	zkp_dbuf b = { 0 }, s = { 0 };
	size_t base_size = g2 ? sizeof(zkp_g2_affine) : sizeof(zkp_g1_affine);
	int rc = msm_inputs(be, &b, &s, bases, base_size, scalars, density, n);
	if (!rc)
		rc = g2 ? zkp_backend_msm_g2(inner_of(be), ret, &b, &s, density, n, opts)
			: zkp_backend_msm_g1(inner_of(be), ret, &b, &s, density, n, opts);
	zkp_backend_release(inner_of(be), &s);
	zkp_backend_release(inner_of(be), &b);
	return rc;
}

static int oh_msm_g1(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
		     const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		     const zkp_msm_opts *opts)
{
	uint64_t t0 = now_ns();
	int rc = oh_msm(be, ret, false, bases, scalars, density, n, opts);
	busy_add(be, t0);
	return rc;
}

static int oh_msm_g2(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
		     const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		     const zkp_msm_opts *opts)
{
	uint64_t t0 = now_ns();
	int rc = oh_msm(be, ret, true, bases, scalars, density, n, opts);
	busy_add(be, t0);
	return rc;
}

/* The end of an operation that wrote t[0] (a's decoded copy) through the
 * inner backend since t0: when rc is 0, waits for it and encodes t[0]
 * back into a; then frees t and counts the time as busy. */
static int written_back(zkp_backend *be, int rc, zkp_dbuf *a, zkp_dbuf t[3], size_t bytes,
			uint64_t t0)
{
	if (!rc)
		rc = zkp_backend_sync(inner_of(be));
	if (!rc)
		scramble(a->ptr, t[0].ptr, bytes, a->ptr);
	release3(be, t);
	busy_add(be, t0);
	return rc;
}

static int oh_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b, const zkp_dbuf *c,
			  const zkp_fr *scale, size_t n)
{
	size_t bytes = n * sizeof(zkp_fr);
	if (!a->owned || a->bytes < bytes)
		return ZKP_ERR_INVAL;
	uint64_t t0 = now_ns();
	zkp_dbuf t[3] = { { 0 } };
	int rc = decoded3(be, t, a, b, c, bytes);
	if (!rc)
		rc = zkp_backend_h_pointwise(inner_of(be), &t[0], &t[1], c ? &t[2] : NULL, scale,
					     n);
	return written_back(be, rc, a, t, bytes, t0);
}

static int oh_h_coeffs(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c, const zkp_fr *scale,
		       unsigned log_n)
{
	if (log_n > ZKP_NTT_MAX_LOG)
		return ZKP_ERR_INVAL;
	size_t bytes = ((size_t)1 << log_n) * sizeof(zkp_fr);
	if (!a->owned || a->bytes < bytes || zkp_dbuf_overlap(a, c, bytes))
		return ZKP_ERR_INVAL;
	uint64_t t0 = now_ns();
	zkp_dbuf t[3] = { { 0 } };
	int rc = decoded3(be, t, a, c, NULL, bytes);
	if (!rc)
		rc = zkp_backend_h_coeffs(inner_of(be), &t[0], &t[1], scale, log_n);
	return written_back(be, rc, a, t, bytes, t0);
}

static int oh_sync(zkp_backend *be)
{
	return zkp_backend_sync(inner_of(be));
}

static int oh_host_alloc(zkp_backend *be, void **ret, size_t bytes)
{
	return zkp_backend_host_alloc(inner_of(be), ret, bytes);
}

static void oh_host_free(zkp_backend *be, void *p, size_t bytes)
{
	zkp_backend_host_free(inner_of(be), p, bytes);
}

/* The matrix decoded array by array into buffers of the inner backend,
 * and w; the product encoded into out. */
static int oh_spmv(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m, const zkp_dbuf *w,
		   size_t n_out)
{
	if (!out->owned || n_out < m->shape.rows || out->bytes / sizeof(zkp_fr) < n_out)
		return ZKP_ERR_INVAL;
	zkp_backend_csr d = { .shape = m->shape };
	const zkp_dbuf *src[] = { &m->row_len, &m->blocks,   &m->cols,	&m->codes,
				  &m->escapes, &m->overflow, &m->values };
	zkp_dbuf *dst[] = { &d.row_len, &d.blocks,   &d.cols,  &d.codes,
			    &d.escapes, &d.overflow, &d.values };
	zkp_dbuf tw = { 0 }, to = { 0 };
	uint64_t t0 = now_ns();
	int rc = 0;
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]) && !rc; i++)
		rc = decoded(be, dst[i], src[i], src[i]->bytes);
	if (!rc)
		rc = decoded(be, &tw, w, w->bytes);
	if (!rc)
		rc = zkp_backend_alloc(inner_of(be), &to, n_out * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_spmv(inner_of(be), &to, &d, &tw, n_out);
	if (!rc)
		rc = zkp_backend_sync(inner_of(be));
	if (!rc)
		scramble(out->ptr, to.ptr, n_out * sizeof(zkp_fr), out->ptr);
	zkp_backend_release(inner_of(be), &to);
	zkp_backend_release(inner_of(be), &tw);
	for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]); i++)
		zkp_backend_release(inner_of(be), dst[i]);
	busy_add(be, t0);
	return rc;
}

/* The packed vector decoded, unpacked by the inner backend, encoded into
 * out. */
static int oh_unpack(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src, size_t n,
		     size_t n_dense)
{
	if (!out->owned || !zkp_bitpack_fits(src->bytes, n, n_dense) ||
	    out->bytes / sizeof(zkp_fr) < n || zkp_dbuf_share(out, src))
		return ZKP_ERR_INVAL;
	uint64_t t0 = now_ns();
	zkp_dbuf ts = { 0 }, to = { 0 };
	int rc = decoded(be, &ts, src, zkp_bitpack_bytes(n, n_dense));
	if (!rc)
		rc = zkp_backend_alloc(inner_of(be), &to, n * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_unpack(inner_of(be), &to, &ts, n, n_dense);
	if (!rc)
		rc = zkp_backend_sync(inner_of(be));
	if (!rc)
		scramble(out->ptr, to.ptr, n * sizeof(zkp_fr), out->ptr);
	zkp_backend_release(inner_of(be), &to);
	zkp_backend_release(inner_of(be), &ts);
	busy_add(be, t0);
	return rc;
}

static int oh_first_unsatisfied(zkp_backend *be, uint64_t *row, const zkp_dbuf *a,
				const zkp_dbuf *b, const zkp_dbuf *c, size_t m)
{
	zkp_dbuf t[3] = { { 0 } };
	int rc = decoded3(be, t, a, b, c, m * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_first_unsatisfied(inner_of(be), row, &t[0], &t[1], &t[2], m);
	release3(be, t);
	return rc;
}

/* Host memory in and out: nothing to decode. */
static int oh_fixed_base_g1(zkp_backend *be, zkp_g1_affine *out, const zkp_fr *scalars,
			    size_t n)
{
	return zkp_backend_fixed_base_g1(inner_of(be), out, scalars, n);
}

static int oh_fixed_base_g2(zkp_backend *be, zkp_g2_affine *out, const zkp_fr *scalars,
			    size_t n)
{
	return zkp_backend_fixed_base_g2(inner_of(be), out, scalars, n);
}

static int oh_busy_seconds(zkp_backend *be, double *ret)
{
	*ret = 1e-9 * (double)atomic_load(&((struct offhost_backend *)be)->busy_ns);
	return 0;
}

static const zkp_backend_ops offhost_ops = {
	.name = "offhost",
	.destroy = oh_destroy,
	.alloc = oh_alloc,
	.import_host = oh_import_host,
	.release = oh_release,
	.upload = oh_upload,
	.download = oh_download,
	.ntt = oh_ntt,
	.msm_g1 = oh_msm_g1,
	.msm_g2 = oh_msm_g2,
	.h_pointwise = oh_h_pointwise,
	.h_coeffs = oh_h_coeffs,
	.sync = oh_sync,
	.host_alloc = oh_host_alloc,
	.host_free = oh_host_free,
	.fixed_base_g1 = oh_fixed_base_g1,
	.fixed_base_g2 = oh_fixed_base_g2,
	.spmv = oh_spmv,
	.first_unsatisfied = oh_first_unsatisfied,
	.unpack = oh_unpack,
	.busy_seconds = oh_busy_seconds,
};

int zkp_backend_offhost_new(zkp_backend **ret, zkp_backend *inner)
{
	*ret = NULL;
	if (!inner || !inner->host_visible)
		return ZKP_ERR_INVAL;
	struct offhost_backend *oh = calloc(1, sizeof(*oh));
	if (!oh)
		return ZKP_ERR_NOMEM;
	oh->base.ops = &offhost_ops;
	oh->base.host_visible = false;
	oh->inner = inner;
	atomic_init(&oh->busy_ns, 0);
	*ret = &oh->base;
	return 0;
}
