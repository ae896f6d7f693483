/*
 * INSECURE development keys (groth16_prove.h): a Groth16 setup from toxic
 * waste known to this process. Whoever knows tau, alpha, beta, gamma, delta
 * can forge proofs; these keys exist so any circuit can be proven and
 * benchmarked without a ceremony.
 *
 * Math (Groth16, bellman's generator; docs/math.md, 'Groth16 setup'):
 * on the domain H = {w^i}, n = 2^k, the Lagrange basis at tau is
 *     L_i(tau) = Z(tau) / n * w^i / (tau - w^i),   Z(tau) = tau^n - 1,
 * one batch inversion per chunk of i. Column j's polynomials at tau are
 *     u_j = sum_i A[i][j] L_i,  v_j = sum_i B[i][j] L_i,  w_j = sum_i C[i][j] L_i,
 * a transposed pass over the CSR matrices, plus the input rows: row m + j
 * has A = x_j, so u_j += L_{m + j} for every input j.
 *
 * Points: every query point is [k]G for a scalar k computed here. The
 * scalars of each query are computed in chunks of SETUP_CHUNK and handed
 * to the backend's fixed_base_g1 / fixed_base_g2 (fixed_base.h: an 8-bit
 * window table, at most 32 mixed additions a point; on a GPU, the
 * device), which writes the points straight into the key. Affine points
 * are canonical, so the key is the same byte for byte on every backend.
 *
 * Parallel host work over pool: the Lagrange basis by chunks (each chunk
 * starts from w^begin and inverts its own denominators), the transposed
 * passes by column ranges (each task reads every non-zero and keeps those
 * of its columns, so no two tasks write one column), and the dense
 * queries' scalars by chunks. Memory beyond the key: u, v, w (3 x 32 bytes
 * per variable), the basis and its scratch (2 x 32 bytes per domain point,
 * freed before the points), and one chunk of scalars.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>
#include <openssl/evp.h>

#include "zkpd/fixed_base.h"
#include "zkpd/groth16_prove.h"
#include "groth16_int.h"

/* Scalars per fixed-base call (128 MiB of them). */
#define SETUP_CHUNK ((size_t)1 << 22)
/* Domain points per task of the basis: one inversion each. */
#define LAG_CHUNK ((size_t)1 << 14)

/* ---- toxic waste ---- */

int g16_toxic(zkp_fr *ret, const uint64_t *seed, const char *label, zkp_error *err)
{
	uint64_t wide[2 * ZKP_FR_LIMBS];
	if (seed) {
		/* Reproducible: SHA-512("zkpd INSECURE dev setup" || label || seed). */
		uint8_t msg[64];
		size_t len = (size_t)snprintf((char *)msg, sizeof(msg) - 8,
					      "zkpd INSECURE dev setup %s", label);
		for (int i = 0; i < 8; i++)
			msg[len + i] = (uint8_t)(*seed >> (8 * i));
		if (!EVP_Digest(msg, len + 8, (unsigned char *)wide, NULL, EVP_sha512(), NULL))
			return zkp_error_set(err, ZKP_ERR_IO, "setup: SHA-512 failed");
	} else if (RAND_bytes((unsigned char *)wide, sizeof(wide)) != 1) {
		return zkp_error_set(err, ZKP_ERR_IO, "setup: RAND_bytes failed");
	}
	zkp_fr_from_wide(ret, wide);
	if (zkp_fr_is_zero(ret))
		return zkp_error_set(err, ZKP_ERR_INVAL, "setup: toxic value %s is zero", label);
	return 0;
}

/* ---- the Lagrange basis at tau ---- */

/* lag[i] = scale x_i / (tau - x_i) with x_i = x0 w^i, for i < n; tmp holds
 * n scratch elements. */
struct lag_ctx {
	zkp_fr *lag, *tmp;
	zkp_fr tau, x0, omega, scale;
};

static void lag_task(void *arg, size_t begin, size_t end)
{
	struct lag_ctx *c = arg;
	size_t lo = begin * LAG_CHUNK, hi = end * LAG_CHUNK;
	for (size_t b = lo; b < hi; b += LAG_CHUNK) {
		size_t cnt = LAG_CHUNK;
		zkp_fr x, xs;
		uint64_t e = b;
		zkp_fr_pow(&x, &c->omega, &e, 1);
		zkp_fr_mul(&x, &x, &c->x0);
		xs = x;
		for (size_t i = b; i < b + cnt; i++) {
			zkp_fr_sub(&c->lag[i], &c->tau, &x);
			zkp_fr_mul(&x, &x, &c->omega);
		}
		zkp_frs_inv(c->lag + b, c->lag + b, cnt, c->tmp + b);
		zkp_fr_mul(&x, &xs, &c->scale);
		for (size_t i = b; i < b + cnt; i++) {
			zkp_fr_mul(&c->lag[i], &c->lag[i], &x);
			zkp_fr_mul(&x, &x, &c->omega);
		}
	}
}

/* Fills lag (n entries, n a multiple of LAG_CHUNK or smaller than it) as
 * lag_ctx says; x = 0 at a point means tau is on the domain, which the
 * caller has ruled out. */
static void lagrange(zkp_fr *lag, zkp_fr *tmp, size_t n, const zkp_fr *tau, const zkp_fr *x0,
		     const zkp_fr *omega, const zkp_fr *scale, zkp_pool *pool)
{
	struct lag_ctx c = { lag, tmp, *tau, *x0, *omega, *scale };
	if (n < LAG_CHUNK) {
		/* One task of n points. */
		zkp_fr x = *x0;
		for (size_t i = 0; i < n; i++) {
			zkp_fr_sub(&lag[i], tau, &x);
			zkp_fr_mul(&x, &x, omega);
		}
		zkp_frs_inv(lag, lag, n, tmp);
		zkp_fr_mul(&x, x0, scale);
		for (size_t i = 0; i < n; i++) {
			zkp_fr_mul(&lag[i], &lag[i], &x);
			zkp_fr_mul(&x, &x, omega);
		}
		return;
	}
	zkp_pool_run(pool, n / LAG_CHUNK, 1, lag_task, &c);
}

/* ---- column polynomials ---- */

/* acc[col] += M[i][col] * lag[i] over the non-zeros of one matrix whose
 * column lies in [lo, hi). */
static void transpose_acc(zkp_fr *acc, const zkp_pce_csr *c, const zkp_fr *lag, uint64_t lo,
			  uint64_t hi)
{
	uint64_t k = 0, ovf = 0, esc = 0;
	for (uint64_t r = 0; r < c->rows; r++) {
		uint64_t len = c->row_len[r];
		if (len == 255)
			len = c->overflow[ovf++];
		for (uint64_t end = k + len; k < end; k++) {
			uint8_t code = c->codes[k];
			uint32_t col = c->cols[k];
			const zkp_fr *v = NULL;
			if (code == 255)
				v = &c->values[c->escapes[esc++]];
			else if (code >= 2)
				v = &c->values[code - 2];
			if (col < lo || col >= hi)
				continue;
			zkp_fr *dst = &acc[col];
			if (code == 0) {
				zkp_fr_add(dst, dst, &lag[r]);
			} else if (code == 1) {
				zkp_fr_sub(dst, dst, &lag[r]);
			} else {
				zkp_fr t;
				zkp_fr_mul(&t, &lag[r], v);
				zkp_fr_add(dst, dst, &t);
			}
		}
	}
}

struct transpose_ctx {
	zkp_fr *acc[3];
	const zkp_pce *pce;
	const zkp_fr *lag;
	uint64_t cols, per;
};

/* Column ranges [t per, (t + 1) per) of u, v and w. */
static void transpose_task(void *arg, size_t begin, size_t end)
{
	struct transpose_ctx *c = arg;
	for (size_t t = begin; t < end; t++) {
		uint64_t lo = (uint64_t)t * c->per, hi = lo + c->per < c->cols ? lo + c->per : c->cols;
		for (int m = 0; m < 3; m++)
			transpose_acc(c->acc[m], zkp_pce_matrix(c->pce, (enum zkp_pce_matrix)m),
				      c->lag, lo, hi);
	}
}

static bool bit(const uint64_t *d, uint64_t i)
{
	return (d[i / 64] >> (i % 64)) & 1;
}

/* ---- the points ---- */

/* Scalars on their way to the backend's fixed-base multiplication: filled
 * into buf, then written as points to g1 + done (and g2 + done when set). */
struct fb_stream {
	zkp_backend *be;
	zkp_g1_affine *g1;
	zkp_g2_affine *g2;
	zkp_fr *buf;
	size_t len, done;
};

static int fbs_flush(struct fb_stream *s)
{
	int rc = 0;
	if (s->len && s->g1)
		rc = zkp_backend_fixed_base_g1(s->be, s->g1 + s->done, s->buf, s->len);
	if (!rc && s->len && s->g2)
		rc = zkp_backend_fixed_base_g2(s->be, s->g2 + s->done, s->buf, s->len);
	s->done += s->len;
	s->len = 0;
	return rc;
}

static int fbs_push(struct fb_stream *s, const zkp_fr *k)
{
	s->buf[s->len++] = *k;
	return s->len == SETUP_CHUNK ? fbs_flush(s) : 0;
}

/* (beta u_j + alpha v_j + w_j) * inv for j in [first + begin, first + end):
 * the IC (inv = 1/gamma) and L (inv = 1/delta) scalars. */
struct lc_ctx {
	zkp_fr *out;
	const zkp_fr *u, *v, *w;
	zkp_fr alpha, beta, inv;
	size_t first;
};

static void lc_task(void *arg, size_t begin, size_t end)
{
	struct lc_ctx *c = arg;
	for (size_t i = begin; i < end; i++) {
		size_t j = c->first + i;
		zkp_fr x, t;
		zkp_fr_mul(&x, &c->beta, &c->u[j]);
		zkp_fr_mul(&t, &c->alpha, &c->v[j]);
		zkp_fr_add(&x, &x, &t);
		zkp_fr_add(&x, &x, &c->w[j]);
		zkp_fr_mul(&c->out[i], &x, &c->inv);
	}
}

/* The points of columns [first, first + count) of the IC or L query. */
static int lc_points(struct fb_stream *s, struct lc_ctx *c, size_t first, size_t count,
		     zkp_pool *pool)
{
	int rc = 0;
	for (size_t off = 0; off < count && !rc; off += SETUP_CHUNK) {
		size_t k = count - off < SETUP_CHUNK ? count - off : SETUP_CHUNK;
		c->out = s->buf;
		c->first = first + off;
		zkp_pool_run(pool, k, 4096, lc_task, c);
		s->len = k;
		rc = fbs_flush(s);
	}
	return rc;
}

/* hz tau^i for i in [first + begin, first + end): bellman's H scalars. */
struct h_ctx {
	zkp_fr *out;
	zkp_fr hz, tau;
	size_t first;
};

static void h_task(void *arg, size_t begin, size_t end)
{
	struct h_ctx *c = arg;
	zkp_fr x;
	uint64_t e = c->first + begin;
	zkp_fr_pow(&x, &c->tau, &e, 1);
	zkp_fr_mul(&x, &x, &c->hz);
	for (size_t i = begin; i < end; i++) {
		c->out[i] = x;
		zkp_fr_mul(&x, &x, &c->tau);
	}
}

int zkp_groth16_setup_dev(zkp_groth16_pk *pk, const zkp_pce *pce, enum zkp_groth16_h_conv conv,
			  const uint64_t *seed, zkp_backend *be, zkp_pool *pool, zkp_error *err)
{
	const bool snarkjs = conv == ZKP_GROTH16_H_SNARKJS;
	const enum zkp_ntt_roots roots = snarkjs ? ZKP_NTT_ROOTS_SNARKJS : ZKP_NTT_ROOTS_BELLMAN;
	const zkp_pce_dims *dims = zkp_pce_get_dims(pce);
	const uint64_t n_in = dims->n_inputs, n_aux = dims->n_aux, m = dims->n_constraints;
	const size_t n_all = (size_t)(n_in + n_aux);
	const size_t n = (size_t)1 << dims->domain_log2;
	const uint64_t *a_aux = zkp_pce_density_a_aux(pce);
	const uint64_t *b_in = zkp_pce_density_b_input(pce);
	const uint64_t *b_aux = zkp_pce_density_b_aux(pce);
	zkp_fr *lag = NULL, *tmp = NULL, *u = NULL, *v = NULL, *wc = NULL, *buf = NULL;
	zkp_backend *own_be = NULL;
	int rc;

	zkp_groth16_pk_init(pk);
	if (conv != ZKP_GROTH16_H_BELLMAN && conv != ZKP_GROTH16_H_SNARKJS)
		return zkp_error_set(err, ZKP_ERR_INVAL, "setup: unknown H convention %d", (int)conv);
	if (!be) {
		rc = zkp_backend_cpu_new(&own_be, pool);
		if (rc)
			return zkp_error_set(err, rc, "setup: no memory for a CPU backend");
		be = own_be;
	}
	zkp_fr tau, alpha, beta, gamma, delta;
	if ((rc = g16_toxic(&tau, seed, "tau", err)) ||
	    (rc = g16_toxic(&alpha, seed, "alpha", err)) ||
	    (rc = g16_toxic(&beta, seed, "beta", err)) ||
	    (rc = g16_toxic(&gamma, seed, "gamma", err)) ||
	    (rc = g16_toxic(&delta, seed, "delta", err)))
		goto out;

	lag = malloc(n * sizeof(*lag));
	tmp = malloc(n * sizeof(*tmp));
	u = calloc(n_all, sizeof(*u));
	v = calloc(n_all, sizeof(*v));
	wc = calloc(n_all, sizeof(*wc));
	if (!lag || !tmp || !u || !v || !wc) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "setup: no memory for %zu-point domain", n);
		goto out;
	}

	/* Lagrange basis at tau: Z(tau) / n * w^i / (tau - w^i). */
	zkp_fr omega, one, z_tau, zn;
	zkp_ntt_root_of_unity(&omega, dims->domain_log2, roots);
	zkp_fr_set_one(&one);
	uint64_t e = n;
	zkp_fr_pow(&z_tau, &tau, &e, 1);
	zkp_fr_sub(&z_tau, &z_tau, &one);
	if (zkp_fr_is_zero(&z_tau)) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "setup: tau is on the domain");
		goto out;
	}
	zkp_fr_set_u64(&zn, n);
	zkp_fr_inv(&zn, &zn);
	zkp_fr_mul(&zn, &zn, &z_tau);
	lagrange(lag, tmp, n, &tau, &one, &omega, &zn, pool);

	/* u, v, w per column, by column ranges; the input rows put L_{m+j}
	 * into u_j. */
	{
		unsigned T = zkp_pool_threads(pool);
		size_t ranges = T > 1 ? 4 * (size_t)T : 1;
		struct transpose_ctx c = { { u, v, wc }, pce, lag, n_all,
					   (n_all + ranges - 1) / ranges };
		if (c.per == 0)
			c.per = 1;
		zkp_pool_run(pool, (n_all + c.per - 1) / c.per, 1, transpose_task, &c);
	}
	for (uint64_t j = 0; j < n_in; j++)
		zkp_fr_add(&u[j], &u[j], &lag[m + j]);

	/* Counts and the key's memory. */
	size_t n_a = (size_t)n_in, n_b = 0, n_h = snarkjs ? n : n - 1;
	if (snarkjs) {
		n_a = n_b = n_all;
	} else {
		for (uint64_t j = 0; j < n_aux; j++)
			n_a += bit(a_aux, j);
		for (uint64_t j = 0; j < n_in; j++)
			n_b += bit(b_in, j);
		for (uint64_t j = 0; j < n_aux; j++)
			n_b += bit(b_aux, j);
	}
	size_t counts[ZKP_GROTH16_NSECTIONS];
	counts[ZKP_GROTH16_IC] = (size_t)n_in;
	counts[ZKP_GROTH16_H] = n_h;
	counts[ZKP_GROTH16_L] = (size_t)n_aux;
	counts[ZKP_GROTH16_A] = n_a;
	counts[ZKP_GROTH16_B_G1] = n_b;
	counts[ZKP_GROTH16_B_G2] = n_b;
	zkp_groth16_pk_sections sec;
	rc = zkp_groth16_pk_alloc(pk, counts, &sec);
	if (rc) {
		zkp_error_set(err, rc, "setup: cannot allocate the key");
		goto out;
	}
	pk->domain_size = n;
	pk->h_conv = conv;
	pk->ab_layout = snarkjs ? ZKP_GROTH16_AB_FULL : ZKP_GROTH16_AB_COMPACT;

	zkp_fr ginv, dinv;
	zkp_fr_inv(&ginv, &gamma);
	zkp_fr_inv(&dinv, &delta);

	/* H first, while the basis is still at hand for snarkjs's odd coset:
	 * h_i = L_{2i+1}(tau) / delta on the 2n-point domain, whose odd points
	 * x_i = w_{2n}^(2i+1) form the coset w_{2n} H:
	 * L_{2i+1}(tau) = (tau^(2n) - 1) / (2n) * x_i / (tau - x_i). The
	 * basis array then holds the scalars themselves. */
	buf = malloc(SETUP_CHUNK * sizeof(*buf));
	if (!buf) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "setup: no memory for a chunk of scalars");
		goto out;
	}
	struct fb_stream s = { be, sec.h, NULL, buf, 0, 0 };
	if (snarkjs) {
		zkp_fr w2n, z2, c;
		zkp_ntt_root_of_unity(&w2n, dims->domain_log2 + 1, roots);
		zkp_fr_add(&z2, &z_tau, &one);
		zkp_fr_sqr(&z2, &z2);
		zkp_fr_sub(&z2, &z2, &one);
		zkp_fr_set_u64(&c, 2 * (uint64_t)n);
		zkp_fr_inv(&c, &c);
		zkp_fr_mul(&c, &c, &z2);
		zkp_fr_mul(&c, &c, &dinv);
		lagrange(lag, tmp, n, &tau, &w2n, &omega, &c, pool);
		for (size_t off = 0; off < n_h && !rc; off += SETUP_CHUNK) {
			size_t k = n_h - off < SETUP_CHUNK ? n_h - off : SETUP_CHUNK;
			memcpy(buf, lag + off, k * sizeof(*buf));
			s.len = k;
			rc = fbs_flush(&s);
		}
	} else {
		/* tau^i Z(tau) / delta */
		struct h_ctx c = { buf, { { 0 } }, tau, 0 };
		zkp_fr_mul(&c.hz, &z_tau, &dinv);
		for (size_t off = 0; off < n_h && !rc; off += SETUP_CHUNK) {
			size_t k = n_h - off < SETUP_CHUNK ? n_h - off : SETUP_CHUNK;
			c.first = off;
			zkp_pool_run(pool, k, 1 << 16, h_task, &c);
			s.len = k;
			rc = fbs_flush(&s);
		}
	}
	free(lag);
	free(tmp);
	lag = tmp = NULL;

	/* IC (over gamma) and L (over delta): beta u_j + alpha v_j + w_j. */
	struct lc_ctx lc = { NULL, u, v, wc, alpha, beta, ginv, 0 };
	if (!rc) {
		s = (struct fb_stream){ be, sec.ic, NULL, buf, 0, 0 };
		rc = lc_points(&s, &lc, 0, (size_t)n_in, pool);
	}
	if (!rc) {
		lc.inv = dinv;
		s = (struct fb_stream){ be, sec.l, NULL, buf, 0, 0 };
		rc = lc_points(&s, &lc, (size_t)n_in, (size_t)n_aux, pool);
	}
	/* A = [u_j]_1 and B = [v_j]_1,2 over their columns. */
	if (!rc) {
		s = (struct fb_stream){ be, sec.a, NULL, buf, 0, 0 };
		for (size_t j = 0; j < n_all && !rc; j++)
			if (snarkjs || j < n_in || bit(a_aux, j - n_in))
				rc = fbs_push(&s, &u[j]);
		if (!rc)
			rc = fbs_flush(&s);
	}
	if (!rc) {
		s = (struct fb_stream){ be, sec.b_g1, sec.b_g2, buf, 0, 0 };
		for (size_t j = 0; j < n_all && !rc; j++)
			if (snarkjs || (j < n_in ? bit(b_in, j) : bit(b_aux, j - n_in)))
				rc = fbs_push(&s, &v[j]);
		if (!rc)
			rc = fbs_flush(&s);
	}
	if (rc) {
		zkp_error_set(err, rc, "setup: the points on backend %s failed", be->ops->name);
		goto out;
	}

	/* The vk's fixed points, on the host. */
	zkp_fr vk_g1[3] = { alpha, beta, delta }, vk_g2[3] = { beta, gamma, delta };
	zkp_g1_affine vk1[3];
	zkp_g2_affine vk2[3];
	rc = zkp_backend_fixed_base_g1(be, vk1, vk_g1, 3);
	if (!rc)
		rc = zkp_backend_fixed_base_g2(be, vk2, vk_g2, 3);
	if (rc) {
		zkp_error_set(err, rc, "setup: the verifying key's points on backend %s failed",
			      be->ops->name);
		goto out;
	}
	pk->vk.alpha_g1 = vk1[0];
	pk->vk.beta_g1 = vk1[1];
	pk->vk.delta_g1 = vk1[2];
	pk->vk.beta_g2 = vk2[0];
	pk->vk.gamma_g2 = vk2[1];
	pk->vk.delta_g2 = vk2[2];
	pk->vk.has_g1_extras = true;
	/* Every point is a multiple of a generator of the prime-order group. */
	pk->subgroup_checked = true;

out:
	if (rc)
		zkp_groth16_pk_release(pk);
	zkp_backend_free(own_be);
	free(lag);
	free(tmp);
	free(u);
	free(v);
	free(wc);
	free(buf);
	return rc;
}
