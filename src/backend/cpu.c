/*
 * The CPU backend: buffers are host memory, NTT and MSM run on the shared
 * thread pool, and each MSM takes its workspace for the duration of the call.
 * Host staging memory is ordinary memory: nothing needs pinning.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zkpd/backend.h"
#include "zkpd/bitpack.h"
#include "zkpd/error.h"
#include "zkpd/fixed_base.h"

struct cpu_backend {
	zkp_backend base; /* first: the table's callers hold &base */
	zkp_pool *pool;
};

static struct cpu_backend *cpu_of(zkp_backend *be)
{
	return (struct cpu_backend *)be;
}

static void cpu_destroy(zkp_backend *be)
{
	free(cpu_of(be));
}

/* 64-byte-aligned memory for the arithmetic's cache lines (aligned_alloc
 * wants a multiple of the alignment); NULL when out of memory. */
static void *alloc64(size_t bytes)
{
	size_t rounded = (bytes + 63) & ~(size_t)63;
	if (rounded < bytes)
		return NULL;
	return aligned_alloc(64, rounded ? rounded : 64);
}

static int cpu_alloc(zkp_backend *be, zkp_dbuf *ret, size_t bytes)
{
	(void)be;
	memset(ret, 0, sizeof(*ret));
	void *p = alloc64(bytes);
	if (!p)
		return ZKP_ERR_NOMEM;
	ret->ptr = p;
	ret->bytes = bytes;
	ret->owned = true;
	return 0;
}

static int cpu_import_host(zkp_backend *be, zkp_dbuf *ret, const void *host, size_t bytes)
{
	(void)be;
	if (!host && bytes)
		return ZKP_ERR_INVAL;
	/* Referenced in place: the caller keeps host alive and unchanged while
	 * the buffer is in use; the backend only reads imported memory. */
	ret->ptr = (void *)host;
	ret->bytes = bytes;
	ret->owned = false;
	return 0;
}

static void cpu_release(zkp_backend *be, zkp_dbuf *buf)
{
	(void)be;
	if (buf->owned)
		free(buf->ptr);
	memset(buf, 0, sizeof(*buf));
}

static bool range_ok(const zkp_dbuf *buf, size_t off, size_t bytes)
{
	return off <= buf->bytes && bytes <= buf->bytes - off;
}

static int cpu_upload(zkp_backend *be, zkp_dbuf *dst, size_t off, const void *src, size_t bytes)
{
	(void)be;
	if (!dst->owned || !range_ok(dst, off, bytes))
		return ZKP_ERR_INVAL;
	memcpy((char *)dst->ptr + off, src, bytes);
	return 0;
}

static int cpu_download(zkp_backend *be, void *dst, const zkp_dbuf *src, size_t off, size_t bytes)
{
	(void)be;
	if (!range_ok(src, off, bytes))
		return ZKP_ERR_INVAL;
	memcpy(dst, (const char *)src->ptr + off, bytes);
	return 0;
}

static int cpu_ntt(zkp_backend *be, zkp_dbuf *data, const zkp_ntt_domain *d,
		   const zkp_ntt_opts *opts)
{
	if (!data->owned || data->bytes / sizeof(zkp_fr) < d->n)
		return ZKP_ERR_INVAL;
	zkp_ntt(data->ptr, d, opts, cpu_of(be)->pool);
	return 0;
}

/* Checks sizes shared by both groups: the scalars cover n, the bases cover
 * n or the density's population count. */
static int msm_sizes_ok(const zkp_dbuf *bases, size_t base_size, const zkp_dbuf *scalars,
			const uint64_t *density, size_t n)
{
	if (scalars->bytes / sizeof(zkp_fr) < n)
		return ZKP_ERR_INVAL;
	size_t need = n;
	if (density) {
		need = 0;
		for (size_t w = 0; w < n / 64; w++)
			need += (size_t)__builtin_popcountll(density[w]);
		if (n % 64)
			need += (size_t)__builtin_popcountll(density[n / 64] &
							     ((UINT64_C(1) << (n % 64)) - 1));
	}
	return bases->bytes / base_size < need ? ZKP_ERR_INVAL : 0;
}

static int cpu_msm_g1(zkp_backend *be, zkp_g1 *ret, const zkp_dbuf *bases,
		      const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		      const zkp_msm_opts *opts)
{
	zkp_pool *pool = cpu_of(be)->pool;
	int err = msm_sizes_ok(bases, sizeof(zkp_g1_affine), scalars, density, n);
	if (err)
		return err;
	size_t size = zkp_msm_g1_scratch_size(n, zkp_pool_threads(pool), opts);
	void *scratch = alloc64(size);
	if (!scratch)
		return ZKP_ERR_NOMEM;
	if (density)
		zkp_msm_g1_density(ret, bases->ptr, scalars->ptr, density, n, opts, scratch,
				   size, pool);
	else
		zkp_msm_g1(ret, bases->ptr, scalars->ptr, n, opts, scratch, size, pool);
	free(scratch);
	return 0;
}

static int cpu_msm_g2(zkp_backend *be, zkp_g2 *ret, const zkp_dbuf *bases,
		      const zkp_dbuf *scalars, const uint64_t *density, size_t n,
		      const zkp_msm_opts *opts)
{
	zkp_pool *pool = cpu_of(be)->pool;
	int err = msm_sizes_ok(bases, sizeof(zkp_g2_affine), scalars, density, n);
	if (err)
		return err;
	size_t size = zkp_msm_g2_scratch_size(n, zkp_pool_threads(pool), opts);
	void *scratch = alloc64(size);
	if (!scratch)
		return ZKP_ERR_NOMEM;
	if (density)
		zkp_msm_g2_density(ret, bases->ptr, scalars->ptr, density, n, opts, scratch,
				   size, pool);
	else
		zkp_msm_g2(ret, bases->ptr, scalars->ptr, n, opts, scratch, size, pool);
	free(scratch);
	return 0;
}

struct pw_ctx {
	zkp_fr *a;
	const zkp_fr *b, *c;
	zkp_fr scale;
	bool do_scale;
};

static void pw_task(void *arg, size_t begin, size_t end)
{
	struct pw_ctx *p = arg;
	for (size_t i = begin; i < end; i++) {
		zkp_fr_mul(&p->a[i], &p->a[i], &p->b[i]);
		if (p->c)
			zkp_fr_sub(&p->a[i], &p->a[i], &p->c[i]);
		if (p->do_scale)
			zkp_fr_mul(&p->a[i], &p->a[i], &p->scale);
	}
}

static int cpu_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b, const zkp_dbuf *c,
			   const zkp_fr *scale, size_t n)
{
	size_t cap = n * sizeof(zkp_fr);
	if (!a->owned || a->bytes < cap || b->bytes < cap || (c && c->bytes < cap))
		return ZKP_ERR_INVAL;
	struct pw_ctx p = { .a = a->ptr, .b = b->ptr, .c = c ? c->ptr : NULL,
			    .do_scale = scale != NULL };
	if (scale)
		p.scale = *scale;
	zkp_pool_run(cpu_of(be)->pool, n, 4096, pw_task, &p);
	return 0;
}

static int cpu_h_coeffs(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *c, const zkp_fr *scale,
			unsigned log_n)
{
	if (log_n > ZKP_NTT_MAX_LOG)
		return ZKP_ERR_INVAL;
	size_t cap = ((size_t)1 << log_n) * sizeof(zkp_fr);
	if (!a->owned || a->bytes < cap || c->bytes < cap || zkp_dbuf_overlap(a, c, cap))
		return ZKP_ERR_INVAL;
	zkp_ntt_bitrev_sub(a->ptr, c->ptr, scale, log_n, cpu_of(be)->pool);
	return 0;
}

static int cpu_host_alloc(zkp_backend *be, void **ret, size_t bytes)
{
	(void)be;
	*ret = alloc64(bytes);
	return *ret ? 0 : ZKP_ERR_NOMEM;
}

static void cpu_host_free(zkp_backend *be, void *p, size_t bytes)
{
	(void)be;
	(void)bytes;
	free(p);
}

static int cpu_sync(zkp_backend *be)
{
	(void)be;
	return 0;
}

/* ---- evaluation ---- */

struct spmv_ctx {
	zkp_csr m;
	const zkp_fr *w;
	zkp_fr *out;
};

static void spmv_task(void *arg, size_t begin, size_t end)
{
	struct spmv_ctx *c = arg;
	for (size_t blk = begin; blk < end; blk++)
		zkp_csr_eval_block(&c->m, c->w, blk, c->out + blk * ZKP_CSR_BLOCK_ROWS);
}

static int cpu_spmv(zkp_backend *be, zkp_dbuf *out, const zkp_backend_csr *m, const zkp_dbuf *w,
		    size_t n_out)
{
	const uint64_t rows = m->shape.rows;
	if (!out->owned || n_out < rows || out->bytes / sizeof(zkp_fr) < n_out)
		return ZKP_ERR_INVAL;
	zkp_pool *pool = cpu_of(be)->pool;
	struct spmv_ctx c = { zkp_backend_csr_view(m), w->ptr, out->ptr };
	uint64_t nblocks = zkp_csr_blocks(rows);
	/* The last block writes whole rows only; the rest is padding. */
	size_t grain = (size_t)(nblocks / (8 * (uint64_t)zkp_pool_threads(pool)));
	if (nblocks)
		zkp_pool_run(pool, (size_t)nblocks, grain ? grain : 1, spmv_task, &c);
	memset((zkp_fr *)out->ptr + rows, 0, (n_out - rows) * sizeof(zkp_fr));
	return 0;
}

struct unpack_ctx {
	const void *src;
	zkp_fr *out;
	size_t n;
};

static void unpack_task(void *arg, size_t begin, size_t end)
{
	struct unpack_ctx *c = arg;
	zkp_bitpack_unpack(c->out + begin, c->src, c->n, begin, end);
}

static int cpu_unpack(zkp_backend *be, zkp_dbuf *out, const zkp_dbuf *src, size_t n,
		      size_t n_dense)
{
	if (!out->owned || !zkp_bitpack_fits(src->bytes, n, n_dense) ||
	    out->bytes / sizeof(zkp_fr) < n || zkp_dbuf_share(out, src))
		return ZKP_ERR_INVAL;
	struct unpack_ctx c = { src->ptr, out->ptr, n };
	if (n)
		zkp_pool_run(cpu_of(be)->pool, n, (size_t)1 << 18, unpack_task, &c);
	return 0;
}

struct sat_ctx {
	const zkp_fr *a, *b, *c;
	_Atomic uint64_t first; /* UINT64_MAX: every row holds so far */
};

/* Each chunk records its first failing row; the smallest one wins. */
static void sat_task(void *arg, size_t begin, size_t end)
{
	struct sat_ctx *k = arg;
	for (size_t i = begin; i < end; i++) {
		if ((uint64_t)i >= atomic_load_explicit(&k->first, memory_order_relaxed))
			return; /* an earlier row already fails */
		zkp_fr ab;
		zkp_fr_mul(&ab, &k->a[i], &k->b[i]);
		if (!zkp_fr_eq(&ab, &k->c[i])) {
			uint64_t cur = atomic_load(&k->first);
			while ((uint64_t)i < cur &&
			       !atomic_compare_exchange_weak(&k->first, &cur, (uint64_t)i))
				;
			return;
		}
	}
}

/* One Fr multiplication per row over the pool. */
static int cpu_first_unsatisfied(zkp_backend *be, uint64_t *row, const zkp_dbuf *a,
				 const zkp_dbuf *b, const zkp_dbuf *c, size_t m)
{
	size_t cap = m * sizeof(zkp_fr);
	if (m > SIZE_MAX / sizeof(zkp_fr) || a->bytes < cap || b->bytes < cap || c->bytes < cap)
		return ZKP_ERR_INVAL;
	struct sat_ctx k = { a->ptr, b->ptr, c->ptr, UINT64_MAX };
	zkp_pool_run(cpu_of(be)->pool, m, 1 << 14, sat_task, &k);
	*row = atomic_load(&k.first);
	return 0;
}

/* The table per call: a few milliseconds against the seconds of a key's
 * section. */
static int cpu_fixed_base_g1(zkp_backend *be, zkp_g1_affine *out, const zkp_fr *scalars,
			     size_t n)
{
	zkp_g1_affine *t = zkp_fixed_base_g1_table();
	if (!t)
		return ZKP_ERR_NOMEM;
	int rc = zkp_fixed_base_g1s(out, t, scalars, n, cpu_of(be)->pool);
	free(t);
	return rc;
}

static int cpu_fixed_base_g2(zkp_backend *be, zkp_g2_affine *out, const zkp_fr *scalars,
			     size_t n)
{
	zkp_g2_affine *t = zkp_fixed_base_g2_table();
	if (!t)
		return ZKP_ERR_NOMEM;
	int rc = zkp_fixed_base_g2s(out, t, scalars, n, cpu_of(be)->pool);
	free(t);
	return rc;
}

/* The CPU backend's work runs on the caller's threads: not a device. */
static int cpu_busy_seconds(zkp_backend *be, double *ret)
{
	(void)be;
	*ret = 0;
	return ZKP_ERR_UNSUPPORTED;
}

static const zkp_backend_ops cpu_ops = {
	.name = "cpu",
	.destroy = cpu_destroy,
	.alloc = cpu_alloc,
	.import_host = cpu_import_host,
	.release = cpu_release,
	.upload = cpu_upload,
	.download = cpu_download,
	.ntt = cpu_ntt,
	.msm_g1 = cpu_msm_g1,
	.msm_g2 = cpu_msm_g2,
	.h_pointwise = cpu_h_pointwise,
	.h_coeffs = cpu_h_coeffs,
	.sync = cpu_sync,
	.host_alloc = cpu_host_alloc,
	.host_free = cpu_host_free,
	.fixed_base_g1 = cpu_fixed_base_g1,
	.fixed_base_g2 = cpu_fixed_base_g2,
	.spmv = cpu_spmv,
	.first_unsatisfied = cpu_first_unsatisfied,
	.unpack = cpu_unpack,
	.busy_seconds = cpu_busy_seconds,
};

int zkp_backend_cpu_new(zkp_backend **ret, zkp_pool *pool)
{
	struct cpu_backend *cpu = calloc(1, sizeof(*cpu));
	if (!cpu)
		return ZKP_ERR_NOMEM;
	cpu->base.ops = &cpu_ops;
	cpu->base.host_visible = true;
	cpu->pool = pool;
	*ret = &cpu->base;
	return 0;
}
