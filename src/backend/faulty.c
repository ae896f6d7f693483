/*
 * A backend that injects device faults: every call is passed to the inner
 * backend, except that every Nth NTT or MSM (counted together, atomically,
 * across threads) fails with ZKP_ERR_DEVICE as a GPU fault would. Fault
 * tests use it to show that a job with a device failure fails alone and
 * the daemon goes on. The corrupting kind fails silently instead: every
 * Nth G1 MSM returns its result plus the generator, a wrong answer with no
 * error, as a flipped bit in a device's memory would give.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "zkpd/backend.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"

struct faulty_backend {
	zkp_backend base; /* first: the ops receive this pointer */
	zkp_backend *inner;
	unsigned every;
	bool corrupt; /* wrong G1 MSM results instead of errors */
	atomic_ulong calls;
	atomic_ulong injected;
};

static struct faulty_backend *faulty_of(zkp_backend *be)
{
	return (struct faulty_backend *)be;
}

static bool fault_now(zkp_backend *be)
{
	struct faulty_backend *f = faulty_of(be);
	unsigned long n = atomic_fetch_add(&f->calls, 1) + 1;
	if (n % f->every)
		return false;
	atomic_fetch_add(&f->injected, 1);
	return true;
}

static void f_destroy(zkp_backend *be)
{
	free(faulty_of(be));
}

static int f_alloc(zkp_backend *be, zkp_dbuf *ret, size_t bytes)
{
	return zkp_backend_alloc(faulty_of(be)->inner, ret, bytes);
}

static int f_import_host(zkp_backend *be, zkp_dbuf *ret, const void *host, size_t bytes)
{
	return zkp_backend_import_host(faulty_of(be)->inner, ret, host, bytes);
}

static void f_release(zkp_backend *be, zkp_dbuf *buf)
{
	zkp_backend_release(faulty_of(be)->inner, buf);
}

static int f_upload(zkp_backend *be, zkp_dbuf *dst, size_t off, const void *src, size_t bytes)
{
	return zkp_backend_upload(faulty_of(be)->inner, dst, off, src, bytes);
}

static int f_download(zkp_backend *be, void *dst, const zkp_dbuf *src, size_t off,
		      size_t bytes)
{
	return zkp_backend_download(faulty_of(be)->inner, dst, src, off, bytes);
}

static int f_ntt(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
		 const zkp_ntt_opts *opts)
{
	if (!faulty_of(be)->corrupt && fault_now(be))
		return ZKP_ERR_DEVICE;
	return zkp_backend_ntt(faulty_of(be)->inner, data, d, opts);
}

static int f_msm_g1(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
		    const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		    const zkp_msm_opts *opts)
{
	struct faulty_backend *f = faulty_of(be);
	if (!f->corrupt) {
		if (fault_now(be))
			return ZKP_ERR_DEVICE;
		return zkp_backend_msm_g1(f->inner, ret, bases, scalars, density, n, opts);
	}
	int rc = zkp_backend_msm_g1(f->inner, ret, bases, scalars, density, n, opts);
	if (!rc && fault_now(be)) {
		const zkp_g1_affine g = ZKP_G1_GENERATOR;
		zkp_g1_add_affine(ret, ret, &g);
	}
	return rc;
}

static int f_msm_g2(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
		    const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		    const zkp_msm_opts *opts)
{
	return faulty_of(be)->inner->ops->msm_g2(faulty_of(be)->inner, ret, bases, scalars,
						  density, n, opts);
}

static int f_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b, const zkp_dbuf *c,
			 const zkp_fr *scale, size_t n)
{
	return zkp_backend_h_pointwise(faulty_of(be)->inner, a, b, c, scale, n);
}

static int f_h_coeffs(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c, const zkp_fr *scale,
		      unsigned log_n)
{
	return zkp_backend_h_coeffs(faulty_of(be)->inner, a, c, scale, log_n);
}

static int f_sync(zkp_backend *be)
{
	return zkp_backend_sync(faulty_of(be)->inner);
}

static int f_host_alloc(zkp_backend *be, void **ret, size_t bytes)
{
	return zkp_backend_host_alloc(faulty_of(be)->inner, ret, bytes);
}

static void f_host_free(zkp_backend *be, void *p, size_t bytes)
{
	zkp_backend_host_free(faulty_of(be)->inner, p, bytes);
}

static int f_fixed_base_g1(zkp_backend *be, zkp_g1_affine *out, const zkp_fr *scalars, size_t n)
{
	return zkp_backend_fixed_base_g1(faulty_of(be)->inner, out, scalars, n);
}

static int f_fixed_base_g2(zkp_backend *be, zkp_g2_affine *out, const zkp_fr *scalars, size_t n)
{
	return zkp_backend_fixed_base_g2(faulty_of(be)->inner, out, scalars, n);
}

static int f_spmv(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m, const zkp_dbuf *w,
		  size_t n_out)
{
	return zkp_backend_spmv(faulty_of(be)->inner, out, m, w, n_out);
}

static int f_first_unsatisfied(zkp_backend *be, uint64_t *row, const zkp_dbuf *a,
			       const zkp_dbuf *b, const zkp_dbuf *c, size_t m)
{
	return zkp_backend_first_unsatisfied(faulty_of(be)->inner, row, a, b, c, m);
}

static int f_unpack(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src, size_t n,
		    size_t n_dense)
{
	return zkp_backend_unpack(faulty_of(be)->inner, out, src, n, n_dense);
}

static int f_busy_seconds(zkp_backend *be, double *ret)
{
	return zkp_backend_busy_seconds(faulty_of(be)->inner, ret);
}

static void f_scratch_bytes(zkp_backend *be, unsigned log_n, size_t n_g1, size_t n_g2,
			    size_t n_all, uint64_t *tables, uint64_t *msm)
{
	zkp_backend_scratch_bytes(faulty_of(be)->inner, log_n, n_g1, n_g2, n_all, tables, msm);
}

static const zkp_backend_ops faulty_ops = {
	.name = "faulty",
	.destroy = f_destroy,
	.alloc = f_alloc,
	.import_host = f_import_host,
	.release = f_release,
	.upload = f_upload,
	.download = f_download,
	.ntt = f_ntt,
	.msm_g1 = f_msm_g1,
	.msm_g2 = f_msm_g2,
	.h_pointwise = f_h_pointwise,
	.h_coeffs = f_h_coeffs,
	.sync = f_sync,
	.host_alloc = f_host_alloc,
	.host_free = f_host_free,
	.fixed_base_g1 = f_fixed_base_g1,
	.fixed_base_g2 = f_fixed_base_g2,
	.spmv = f_spmv,
	.first_unsatisfied = f_first_unsatisfied,
	.unpack = f_unpack,
	.busy_seconds = f_busy_seconds,
	.scratch_bytes = f_scratch_bytes,
};

static int faulty_new(zkp_backend **ret, zkp_backend *inner, unsigned every, bool corrupt)
{
	*ret = NULL;
	if (!inner || !every)
		return ZKP_ERR_INVAL;
	struct faulty_backend *f = calloc(1, sizeof(*f));
	if (!f)
		return ZKP_ERR_NOMEM;
	f->base.ops = &faulty_ops;
	f->base.host_visible = inner->host_visible;
	f->inner = inner;
	f->every = every;
	f->corrupt = corrupt;
	*ret = &f->base;
	return 0;
}

int zkp_backend_faulty_new(zkp_backend **ret, zkp_backend *inner, unsigned every)
{
	return faulty_new(ret, inner, every, false);
}

int zkp_backend_corrupting_new(zkp_backend **ret, zkp_backend *inner, unsigned every)
{
	return faulty_new(ret, inner, every, true);
}

unsigned long zkp_backend_faulty_injected(zkp_backend *be)
{
	return atomic_load(&faulty_of(be)->injected);
}
