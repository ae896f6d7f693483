/*
 * INSECURE development powers-of-tau files (ptau.h).
 *
 * Every point is [k]G for a scalar k known here, so all of them go through
 * the fixed-base tables (fixed_base.h). The Lagrange values on the domain of
 * size n = 2^p with root w (snarkjs's 5-based roots) are
 *     L_i(tau) = (tau^n - 1) / n * w^i / (tau - w^i),
 * one batch inversion per domain. snarkjs derives them as the inverse group
 * FFT of [tau^0 .. tau^(n-1)]: L_i(tau) = n^-1 sum_j tau^j w^(-ij).
 */
#include <stdlib.h>
#include <string.h>

#include "zkpd/fixed_base.h"
#include "zkpd/ntt.h"
#include "zkpd/ptau.h"
#include "groth16_int.h"

#define G1_BYTES (2 * ZKP_FP_BYTES)
#define G2_BYTES (4 * ZKP_FP_BYTES)
#define CHUNK ((size_t)1 << 15) /* points per fixed-base batch */

struct ptau_ctx {
	struct g16_writer w;
	zkp_pool *pool;
	zkp_g1_affine *t1;
	zkp_g2_affine *t2;
	void *pts;     /* CHUNK points of either group */
	uint8_t *buf;  /* CHUNK encoded points */
	zkp_error *err;
};

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Montgomery limbs, least significant first: the .zkey/.ptau encoding. */
static void put_fp(uint8_t *p, const zkp_fp *a)
{
	for (int i = 0; i < ZKP_FP_LIMBS; i++)
		put_le(p + 8 * i, a->l[i], 8);
}

static int section_start(struct ptau_ctx *c, uint32_t id, uint64_t len)
{
	uint8_t h[12];
	put_le(h, id, 4);
	put_le(h + 4, len, 8);
	return g16_writer_write(&c->w, h, sizeof(h), c->err);
}

/* Writes [s_i]G for the n scalars s (G2 when g2), in CHUNK batches. */
static int write_points(struct ptau_ctx *c, bool g2, const zkp_fr *s, size_t n)
{
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t cnt = n - off < CHUNK ? n - off : CHUNK;
		int rc = g2 ? zkp_fixed_base_g2s(c->pts, c->t2, s + off, cnt, c->pool)
			    : zkp_fixed_base_g1s(c->pts, c->t1, s + off, cnt, c->pool);
		if (rc)
			return zkp_error_set(c->err, rc, "%s: no memory for points", c->w.path);
		for (size_t i = 0; i < cnt; i++) {
			if (g2) {
				const zkp_g2_affine *p = (const zkp_g2_affine *)c->pts + i;
				uint8_t *o = c->buf + i * G2_BYTES;
				put_fp(o, &p->x.c0);
				put_fp(o + ZKP_FP_BYTES, &p->x.c1);
				put_fp(o + 2 * ZKP_FP_BYTES, &p->y.c0);
				put_fp(o + 3 * ZKP_FP_BYTES, &p->y.c1);
			} else {
				const zkp_g1_affine *p = (const zkp_g1_affine *)c->pts + i;
				put_fp(c->buf + i * G1_BYTES, &p->x);
				put_fp(c->buf + i * G1_BYTES + ZKP_FP_BYTES, &p->y);
			}
		}
		rc = g16_writer_write(&c->w, c->buf, cnt * (g2 ? G2_BYTES : G1_BYTES), c->err);
		if (rc)
			return rc;
	}
	return 0;
}

/* s[j] = k tau^j, j < n. */
static void powers(zkp_fr *s, const zkp_fr *k, const zkp_fr *tau, size_t n)
{
	zkp_fr x = *k;
	for (size_t j = 0; j < n; j++) {
		s[j] = x;
		zkp_fr_mul(&x, &x, tau);
	}
}

/* lag[i] = k L_i(tau) on the 2^p-point domain; with truncate, the value of
 * the inverse FFT of tau^0 .. tau^(n-2), 0 (see ptau.h). */
static int lagrange(zkp_fr *lag, zkp_fr *scratch, unsigned p, const zkp_fr *k,
		    const zkp_fr *tau, bool truncate, zkp_error *err)
{
	const size_t n = (size_t)1 << p;
	zkp_fr w, wi, one, zn, t, top;
	zkp_ntt_root_of_unity(&w, p, ZKP_NTT_ROOTS_SNARKJS);
	zkp_fr_set_one(&one);
	uint64_t e = n;
	zkp_fr_pow(&zn, tau, &e, 1);
	zkp_fr_sub(&zn, &zn, &one);
	if (zkp_fr_is_zero(&zn))
		return zkp_error_set(err, ZKP_ERR_INVAL, "dev ptau: tau is a 2^%u-th root of unity",
				     p);
	wi = one;
	for (size_t i = 0; i < n; i++) {
		zkp_fr_sub(&lag[i], tau, &wi);
		zkp_fr_mul(&wi, &wi, &w);
	}
	zkp_frs_inv(lag, lag, n, scratch);
	zkp_fr_set_u64(&t, n);
	zkp_fr_inv(&t, &t);
	zkp_fr_mul(&t, &t, k); /* k / n */
	zkp_fr_mul(&zn, &zn, &t);
	e = n - 1;
	zkp_fr_pow(&top, tau, &e, 1);
	zkp_fr_mul(&top, &top, &t); /* k tau^(n-1) / n */
	wi = one;
	for (size_t i = 0; i < n; i++) {
		zkp_fr_mul(&t, &zn, &wi);
		zkp_fr_mul(&lag[i], &lag[i], &t);
		if (truncate) {
			zkp_fr_mul(&t, &top, &wi);
			zkp_fr_sub(&lag[i], &lag[i], &t);
		}
		zkp_fr_mul(&wi, &wi, &w);
	}
	return 0;
}

/* One of sections 12-15: the Lagrange blocks p = 0 .. last. */
static int write_lagrange(struct ptau_ctx *c, uint32_t id, bool g2, const zkp_fr *k,
			  const zkp_fr *tau, unsigned power, unsigned last, zkp_fr *s,
			  zkp_fr *scratch)
{
	uint64_t pts = ((uint64_t)2 << last) - 1;
	int rc = section_start(c, id, pts * (g2 ? G2_BYTES : G1_BYTES));
	for (unsigned p = 0; !rc && p <= last; p++) {
		rc = lagrange(s, scratch, p, k, tau, p == power + 1, c->err);
		if (!rc)
			rc = write_points(c, g2, s, (size_t)1 << p);
	}
	return rc;
}

int zkp_ptau_write_dev(const char *path, unsigned power, const uint64_t *seed, zkp_pool *pool,
		       zkp_error *err)
{
	struct ptau_ctx c = { .pool = pool, .err = err };
	zkp_fr *s = NULL, *scratch = NULL;
	int rc;

	c.w.fd = -1;
	if (power < 1 || power > ZKP_PTAU_MAX_POWER)
		return zkp_error_set(err, ZKP_ERR_INVAL, "dev ptau: power %u is not in 1..%d", power,
				     ZKP_PTAU_MAX_POWER);
	const size_t n = (size_t)1 << power, big = 2 * n;
	zkp_fr tau, alpha, beta, one;
	if ((rc = g16_toxic(&tau, seed, "ptau tau", err)) ||
	    (rc = g16_toxic(&alpha, seed, "ptau alpha", err)) ||
	    (rc = g16_toxic(&beta, seed, "ptau beta", err)))
		return rc;
	zkp_fr_set_one(&one);

	s = malloc(big * sizeof(*s));
	scratch = malloc(big * sizeof(*scratch));
	c.pts = malloc(CHUNK * sizeof(zkp_g2_affine));
	c.buf = malloc(CHUNK * G2_BYTES);
	c.t1 = zkp_fixed_base_g1_table();
	c.t2 = zkp_fixed_base_g2_table();
	if (!s || !scratch || !c.pts || !c.buf || !c.t1 || !c.t2) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "dev ptau: no memory for power %u", power);
		goto out;
	}
	rc = g16_writer_open(&c.w, path, err);
	if (rc)
		goto out;

	uint8_t head[12 + 12 + 60];
	memcpy(head, "ptau", 4);
	put_le(head + 4, 1, 4);  /* version */
	put_le(head + 8, 11, 4); /* sections */
	put_le(head + 12, 1, 4);
	put_le(head + 16, 60, 8);
	put_le(head + 24, ZKP_FP_BYTES, 4);
	for (int i = 0; i < ZKP_FP_LIMBS; i++)
		put_le(head + 28 + 8 * i, ZKP_FP_MODULUS[i], 8);
	put_le(head + 76, power, 4);
	put_le(head + 80, power, 4);
	rc = g16_writer_write(&c.w, head, sizeof(head), err);

	if (!rc)
		rc = section_start(&c, 2, (big - 1) * G1_BYTES);
	if (!rc) {
		powers(s, &one, &tau, big - 1);
		rc = write_points(&c, false, s, big - 1);
	}
	if (!rc)
		rc = section_start(&c, 3, n * G2_BYTES);
	if (!rc)
		rc = write_points(&c, true, s, n);
	if (!rc)
		rc = section_start(&c, 4, n * G1_BYTES);
	if (!rc) {
		powers(s, &alpha, &tau, n);
		rc = write_points(&c, false, s, n);
	}
	if (!rc)
		rc = section_start(&c, 5, n * G1_BYTES);
	if (!rc) {
		powers(s, &beta, &tau, n);
		rc = write_points(&c, false, s, n);
	}
	if (!rc)
		rc = section_start(&c, 6, G2_BYTES);
	if (!rc)
		rc = write_points(&c, true, &beta, 1);
	if (!rc)
		rc = section_start(&c, 7, 4);
	if (!rc) {
		uint8_t zero[4] = { 0 };
		rc = g16_writer_write(&c.w, zero, sizeof(zero), err);
	}
	if (!rc)
		rc = write_lagrange(&c, 12, false, &one, &tau, power, power + 1, s, scratch);
	if (!rc)
		rc = write_lagrange(&c, 13, true, &one, &tau, power, power, s, scratch);
	if (!rc)
		rc = write_lagrange(&c, 14, false, &alpha, &tau, power, power, s, scratch);
	if (!rc)
		rc = write_lagrange(&c, 15, false, &beta, &tau, power, power, s, scratch);
	if (!rc)
		rc = g16_writer_commit(&c.w, err);
out:
	g16_writer_abort(&c.w);
	free(s);
	free(scratch);
	free(c.pts);
	free(c.buf);
	free(c.t1);
	free(c.t2);
	memset(&tau, 0, sizeof(tau));
	memset(&alpha, 0, sizeof(alpha));
	memset(&beta, 0, sizeof(beta));
	return rc;
}
