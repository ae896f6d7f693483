/*
 * INSECURE development keys (groth16_prove.h): a Groth16 setup from toxic
 * waste known to this process. Whoever knows tau, alpha, beta, gamma, delta
 * can forge proofs; these keys exist so any circuit can be proven and
 * benchmarked without a ceremony.
 *
 * Math (Groth16, bellman's generator; docs/math.md, 'Groth16 setup'):
 * on the domain H = {w^i}, n = 2^k, the Lagrange basis at tau is
 *     L_i(tau) = Z(tau) / n * w^i / (tau - w^i),   Z(tau) = tau^n - 1,
 * one batch inversion for all i. Column j's polynomials at tau are
 *     u_j = sum_i A[i][j] L_i,  v_j = sum_i B[i][j] L_i,  w_j = sum_i C[i][j] L_i,
 * a transposed pass over the CSR matrices, plus the input rows: row m + j
 * has A = x_j, so u_j += L_{m + j} for every input j.
 *
 * Points: every query point is [k]G for a scalar k computed here, so all of
 * them come from one fixed-base table per group: T[t][d] = d 2^(8t) G,
 * d = 1..255, t < 32; [k]G is then at most 32 mixed additions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>
#include <openssl/evp.h>

#include "zkpd/groth16_prove.h"
#include "groth16_int.h"

#define FB_BITS 8
#define FB_WINDOWS 32 /* 256 / FB_BITS */
#define FB_DIGITS ((1u << FB_BITS) - 1)

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

/* ---- fixed-base tables ---- */

zkp_g1_affine *g16_fb_g1_table(void)
{
	size_t cnt = (size_t)FB_WINDOWS * FB_DIGITS;
	zkp_g1_affine *t = malloc(cnt * sizeof(*t));
	zkp_g1 *j = malloc(cnt * sizeof(*j));
	zkp_fp *scratch = malloc(cnt * sizeof(*scratch));
	if (!t || !j || !scratch) {
		free(t);
		t = NULL;
		goto out;
	}
	zkp_g1 base;
	zkp_g1_from_affine(&base, &ZKP_G1_GENERATOR);
	for (size_t w = 0; w < FB_WINDOWS; w++) {
		zkp_g1 *row = j + w * FB_DIGITS;
		row[0] = base;
		for (size_t d = 1; d < FB_DIGITS; d++)
			zkp_g1_add(&row[d], &row[d - 1], &base);
		for (int k = 0; k < FB_BITS; k++)
			zkp_g1_dbl(&base, &base);
	}
	zkp_g1s_to_affine(t, j, cnt, scratch);
out:
	free(j);
	free(scratch);
	return t;
}

zkp_g2_affine *g16_fb_g2_table(void)
{
	size_t cnt = (size_t)FB_WINDOWS * FB_DIGITS;
	zkp_g2_affine *t = malloc(cnt * sizeof(*t));
	zkp_g2 *j = malloc(cnt * sizeof(*j));
	zkp_fp2 *scratch = malloc(cnt * sizeof(*scratch));
	if (!t || !j || !scratch) {
		free(t);
		t = NULL;
		goto out;
	}
	zkp_g2 base;
	zkp_g2_from_affine(&base, &ZKP_G2_GENERATOR);
	for (size_t w = 0; w < FB_WINDOWS; w++) {
		zkp_g2 *row = j + w * FB_DIGITS;
		row[0] = base;
		for (size_t d = 1; d < FB_DIGITS; d++)
			zkp_g2_add(&row[d], &row[d - 1], &base);
		for (int k = 0; k < FB_BITS; k++)
			zkp_g2_dbl(&base, &base);
	}
	zkp_g2s_to_affine(t, j, cnt, scratch);
out:
	free(j);
	free(scratch);
	return t;
}

#define FB_CHUNK 1024

struct fb_ctx {
	const void *table;
	const zkp_fr *scalars;
	void *out;
	size_t n;
	bool g2;
	int failed;
};

static void fb_task(void *arg, size_t begin, size_t end)
{
	struct fb_ctx *c = arg;
	for (size_t c0 = begin * FB_CHUNK; c0 < end * FB_CHUNK && c0 < c->n; c0 += FB_CHUNK) {
		size_t cnt = c->n - c0 < FB_CHUNK ? c->n - c0 : FB_CHUNK;
		if (!c->g2) {
			zkp_g1 *jac = malloc(cnt * sizeof(*jac));
			zkp_fp *scr = malloc(cnt * sizeof(*scr));
			if (!jac || !scr) {
				c->failed = 1;
			} else {
				const zkp_g1_affine *t = c->table;
				for (size_t i = 0; i < cnt; i++) {
					uint64_t k[ZKP_FR_LIMBS];
					zkp_fr_to_limbs(k, &c->scalars[c0 + i]);
					zkp_g1_set_infinity(&jac[i]);
					for (unsigned w = 0; w < FB_WINDOWS; w++) {
						unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;
						if (d)
							zkp_g1_add_affine(&jac[i], &jac[i],
									  &t[w * FB_DIGITS + d - 1]);
					}
				}
				zkp_g1s_to_affine((zkp_g1_affine *)c->out + c0, jac, cnt, scr);
			}
			free(jac);
			free(scr);
		} else {
			zkp_g2 *jac = malloc(cnt * sizeof(*jac));
			zkp_fp2 *scr = malloc(cnt * sizeof(*scr));
			if (!jac || !scr) {
				c->failed = 1;
			} else {
				const zkp_g2_affine *t = c->table;
				for (size_t i = 0; i < cnt; i++) {
					uint64_t k[ZKP_FR_LIMBS];
					zkp_fr_to_limbs(k, &c->scalars[c0 + i]);
					zkp_g2_set_infinity(&jac[i]);
					for (unsigned w = 0; w < FB_WINDOWS; w++) {
						unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;
						if (d)
							zkp_g2_add_affine(&jac[i], &jac[i],
									  &t[w * FB_DIGITS + d - 1]);
					}
				}
				zkp_g2s_to_affine((zkp_g2_affine *)c->out + c0, jac, cnt, scr);
			}
			free(jac);
			free(scr);
		}
	}
}

/* out[i] = [scalars[i]] G for the group's generator. */
int g16_fb_muls(void *out, const void *table, bool g2, const zkp_fr *scalars, size_t n,
		zkp_pool *pool)
{
	struct fb_ctx c = { .table = table, .scalars = scalars, .out = out, .n = n, .g2 = g2 };
	if (n)
		zkp_pool_run(pool, (n + FB_CHUNK - 1) / FB_CHUNK, 1, fb_task, &c);
	return c.failed ? ZKP_ERR_NOMEM : 0;
}

/* ---- column polynomials ---- */

/* acc[col] += M[i][col] * lag[i] over every non-zero of one matrix. */
static void transpose_acc(zkp_fr *acc, const zkp_pce_csr *c, const zkp_fr *lag)
{
	uint64_t k = 0, ovf = 0, esc = 0;
	for (uint64_t r = 0; r < c->rows; r++) {
		uint64_t len = c->row_len[r];
		if (len == 255)
			len = c->overflow[ovf++];
		for (uint64_t end = k + len; k < end; k++) {
			zkp_fr t;
			uint8_t code = c->codes[k];
			zkp_fr *dst = &acc[c->cols[k]];
			if (code == 0) {
				zkp_fr_add(dst, dst, &lag[r]);
			} else if (code == 1) {
				zkp_fr_sub(dst, dst, &lag[r]);
			} else {
				const zkp_fr *v = code == 255 ? &c->values[c->escapes[esc++]]
							      : &c->values[code - 2];
				zkp_fr_mul(&t, &lag[r], v);
				zkp_fr_add(dst, dst, &t);
			}
		}
	}
}

static bool bit(const uint64_t *d, uint64_t i)
{
	return (d[i / 64] >> (i % 64)) & 1;
}

int zkp_groth16_setup_dev(zkp_groth16_pk *pk, const zkp_pce *pce, enum zkp_groth16_h_conv conv,
			  const uint64_t *seed, zkp_pool *pool, zkp_error *err)
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
	zkp_fr *lag = NULL, *tmp = NULL, *u = NULL, *v = NULL, *wc = NULL, *g1s = NULL,
	       *g2s = NULL;
	zkp_g1_affine *t1 = NULL;
	zkp_g2_affine *t2 = NULL;
	int rc;

	zkp_groth16_pk_init(pk);
	if (conv != ZKP_GROTH16_H_BELLMAN && conv != ZKP_GROTH16_H_SNARKJS)
		return zkp_error_set(err, ZKP_ERR_INVAL, "setup: unknown H convention %d", (int)conv);
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

	/* Lagrange basis at tau. */
	zkp_fr omega, wi, one, z_tau, t;
	zkp_ntt_root_of_unity(&omega, dims->domain_log2, roots);
	zkp_fr_set_one(&one);
	uint64_t e = n;
	zkp_fr_pow(&z_tau, &tau, &e, 1);
	zkp_fr_sub(&z_tau, &z_tau, &one);
	if (zkp_fr_is_zero(&z_tau)) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "setup: tau is on the domain");
		goto out;
	}
	wi = one;
	for (size_t i = 0; i < n; i++) {
		zkp_fr_sub(&lag[i], &tau, &wi);
		zkp_fr_mul(&wi, &wi, &omega);
	}
	zkp_frs_inv(lag, lag, n, tmp);
	zkp_fr zn; /* Z(tau) / n */
	zkp_fr_set_u64(&zn, n);
	zkp_fr_inv(&zn, &zn);
	zkp_fr_mul(&zn, &zn, &z_tau);
	wi = zn;
	for (size_t i = 0; i < n; i++) {
		zkp_fr_mul(&lag[i], &lag[i], &wi);
		zkp_fr_mul(&wi, &wi, &omega);
	}

	/* u, v, w per column; the input rows put L_{m+j} into u_j. */
	transpose_acc(u, zkp_pce_matrix(pce, ZKP_PCE_A), lag);
	transpose_acc(v, zkp_pce_matrix(pce, ZKP_PCE_B), lag);
	transpose_acc(wc, zkp_pce_matrix(pce, ZKP_PCE_C), lag);
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

	/* All G1 scalars in the key's order: ic, h, l, a, b_g1. */
	size_t n_g1 = (size_t)n_in + n_h + (size_t)n_aux + n_a + n_b;
	g1s = malloc(n_g1 * sizeof(*g1s));
	g2s = malloc((n_b + 1) * sizeof(*g2s));
	t1 = g16_fb_g1_table();
	t2 = g16_fb_g2_table();
	if (!g1s || !g2s || !t1 || !t2) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "setup: no memory for %zu scalars", n_g1);
		goto out;
	}
	zkp_fr ginv, dinv;
	zkp_fr_inv(&ginv, &gamma);
	zkp_fr_inv(&dinv, &delta);
	zkp_fr *p = g1s;
	for (size_t j = 0; j < n_all; j++) {
		/* beta u_j + alpha v_j + w_j, over gamma (inputs) or delta (aux). */
		zkp_fr x;
		zkp_fr_mul(&x, &beta, &u[j]);
		zkp_fr_mul(&t, &alpha, &v[j]);
		zkp_fr_add(&x, &x, &t);
		zkp_fr_add(&x, &x, &wc[j]);
		if (j < n_in) {
			zkp_fr_mul(&p[j], &x, &ginv);
		} else {
			/* l lives after ic and h. */
			zkp_fr_mul(&p[n_in + n_h + (j - n_in)], &x, &dinv);
		}
	}
	if (snarkjs) {
		/* h_i = L_{2i+1}(tau) / delta on the 2n-point domain, whose odd
		 * points x_i = w_{2n}^(2i+1) form the coset w_{2n} H:
		 * L_{2i+1}(tau) = (tau^(2n) - 1) / (2n) * x_i / (tau - x_i). */
		zkp_fr w2n, xi, z2, c;
		zkp_ntt_root_of_unity(&w2n, dims->domain_log2 + 1, roots);
		xi = w2n;
		for (size_t i = 0; i < n; i++) {
			zkp_fr_sub(&lag[i], &tau, &xi);
			zkp_fr_mul(&xi, &xi, &omega);
		}
		zkp_frs_inv(lag, lag, n, tmp);
		zkp_fr_add(&z2, &z_tau, &one);
		zkp_fr_sqr(&z2, &z2);
		zkp_fr_sub(&z2, &z2, &one);
		zkp_fr_set_u64(&c, 2 * (uint64_t)n);
		zkp_fr_inv(&c, &c);
		zkp_fr_mul(&c, &c, &z2);
		zkp_fr_mul(&c, &c, &dinv);
		xi = w2n;
		for (size_t i = 0; i < n; i++) {
			zkp_fr_mul(&t, &c, &xi);
			zkp_fr_mul(&p[n_in + i], &lag[i], &t);
			zkp_fr_mul(&xi, &xi, &omega);
		}
	} else {
		zkp_fr hz; /* tau^i Z(tau) / delta */
		zkp_fr_mul(&hz, &z_tau, &dinv);
		for (size_t i = 0; i < n - 1; i++) {
			p[n_in + i] = hz;
			zkp_fr_mul(&hz, &hz, &tau);
		}
	}
	zkp_fr *pa = p + n_in + n_h + n_aux, *pb = pa + n_a;
	size_t ka = 0, kb = 0;
	for (size_t j = 0; j < n_all; j++) {
		bool in_a = snarkjs || j < n_in || bit(a_aux, j - n_in);
		bool in_b = snarkjs || (j < n_in ? bit(b_in, j) : bit(b_aux, j - n_in));
		if (in_a)
			pa[ka++] = u[j];
		if (in_b) {
			g2s[kb] = v[j];
			pb[kb++] = v[j];
		}
	}
	/* The vk's fixed points go through the same tables. */
	zkp_fr vk_g1[3] = { alpha, beta, delta }, vk_g2[3] = { beta, gamma, delta };
	zkp_g1_affine vk1[3];
	zkp_g2_affine vk2[3];
	rc = g16_fb_muls(vk1, t1, false, vk_g1, 3, NULL);
	if (!rc)
		rc = g16_fb_muls(vk2, t2, true, vk_g2, 3, NULL);
	if (!rc)
		rc = g16_fb_muls(sec.ic, t1, false, p, n_in, pool);
	if (!rc)
		rc = g16_fb_muls(sec.h, t1, false, p + n_in, n_h, pool);
	if (!rc)
		rc = g16_fb_muls(sec.l, t1, false, p + n_in + n_h, n_aux, pool);
	if (!rc)
		rc = g16_fb_muls(sec.a, t1, false, pa, n_a, pool);
	if (!rc)
		rc = g16_fb_muls(sec.b_g1, t1, false, pb, n_b, pool);
	if (!rc)
		rc = g16_fb_muls(sec.b_g2, t2, true, g2s, n_b, pool);
	if (rc) {
		zkp_error_set(err, rc, "setup: out of memory computing the points");
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
	free(lag);
	free(tmp);
	free(u);
	free(v);
	free(wc);
	free(g1s);
	free(g2s);
	free(t1);
	free(t2);
	return rc;
}
