/*
 * Groth16 verification (Groth, EUROCRYPT 2016, section 3.2):
 *   e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta),  L = ic_0 + sum x_i ic_i,
 * checked as e(-A, B) e(L, gamma) e(C, delta) * f_(alpha,beta) -> final exp = 1.
 *
 * Batches use the small-exponent test (Bellare, Garay, Rabin, EUROCRYPT 1998;
 * the same as bellman's verify_proofs_batch): with random 128-bit r_j,
 *   prod_j e(-r_j A_j, B_j) e(R alpha, beta) e(sum r_j L_j, gamma)
 *     e(sum r_j C_j, delta) = 1,   R = sum r_j.
 * A batch with any invalid proof passes with probability about 2^-128 over
 * the weights. sum r_j L_j = sum_k (sum_j r_j x_jk) ic_k is one small
 * multi-scalar multiplication over ic, however many proofs there are. The
 * m live pairs cost 4,432 Fp multiplications each in the shared Miller loop
 * (pairing.h), which is most of a batch; the pool splits them into one
 * Miller loop per thread, multiplied together before the one final
 * exponentiation.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "groth16_int.h"

/* ---- small multi-scalar multiplication (Straus, interleaved wNAF) ---- */

#define WNAF_W 5
#define WNAF_TABLE (1 << (WNAF_W - 2)) /* P, 3P, ..., 15P */
#define WNAF_MAX 258

/* Width-5 NAF of a 256-bit integer: every non-zero digit odd and below 16
 * in absolute value, at least 4 zeros after each. Returns the digit count. */
static size_t wnaf5(int8_t d[WNAF_MAX], const uint64_t k[ZKP_FR_LIMBS])
{
	uint64_t t[ZKP_FR_LIMBS + 1];
	memcpy(t, k, ZKP_FR_LIMBS * sizeof(uint64_t));
	t[ZKP_FR_LIMBS] = 0;
	size_t len = 0, i = 0;
	for (;;) {
		bool zero = true;
		for (int j = 0; j <= ZKP_FR_LIMBS; j++)
			zero = zero && !t[j];
		if (zero)
			break;
		int digit = 0;
		if (t[0] & 1) {
			digit = (int)(t[0] & 31);
			if (digit >= 16)
				digit -= 32;
			/* t -= digit, which clears the low 5 bits. */
			if (digit > 0) {
				uint64_t b = (uint64_t)digit;
				for (int j = 0; j <= ZKP_FR_LIMBS && b; j++) {
					uint64_t o = t[j];
					t[j] -= b;
					b = o < b;
				}
			} else {
				uint64_t c = (uint64_t)(-digit);
				for (int j = 0; j <= ZKP_FR_LIMBS && c; j++) {
					t[j] += c;
					c = t[j] < c;
				}
			}
		}
		d[i] = (int8_t)digit;
		if (digit)
			len = i + 1;
		i++;
		for (int j = 0; j < ZKP_FR_LIMBS; j++)
			t[j] = (t[j] >> 1) | (t[j + 1] << 63);
		t[ZKP_FR_LIMBS] >>= 1;
	}
	return len;
}

/*
 * ret = sum_i k_i p_i, k_i canonical 4-limb integers (any < 2^256).
 * Straus: one shared chain of doublings as long as the longest scalar, and
 * per point a table of odd multiples (affine after one shared inversion) and
 * about bits/6 mixed additions. For n points of b bits: about b doublings +
 * n (b/6 + 8) additions, against n b doublings for separate
 * multiplications. Errors: ZKP_ERR_NOMEM.
 */
static int g1_msm(zkp_g1 *ret, const zkp_g1_affine *p, const uint64_t (*k)[ZKP_FR_LIMBS],
		  size_t n)
{
	zkp_g1_set_infinity(ret);
	if (n == 0)
		return 0;
	zkp_g1 *jt = calloc(n * WNAF_TABLE, sizeof(*jt));
	zkp_g1_affine *tbl = malloc(n * WNAF_TABLE * sizeof(*tbl));
	zkp_fp *scratch = malloc(n * WNAF_TABLE * sizeof(*scratch));
	int8_t (*dig)[WNAF_MAX] = malloc(n * sizeof(*dig));
	size_t *len = malloc(n * sizeof(*len));
	int rc = ZKP_ERR_NOMEM;
	if (!jt || !tbl || !scratch || !dig || !len)
		goto out;
	size_t maxlen = 0;
	for (size_t i = 0; i < n; i++) {
		len[i] = zkp_g1_affine_is_infinity(&p[i]) ? 0 : wnaf5(dig[i], k[i]);
		if (len[i] > maxlen)
			maxlen = len[i];
		zkp_g1 *t = jt + i * WNAF_TABLE, twice;
		zkp_g1_from_affine(&t[0], &p[i]);
		if (!len[i]) {
			for (int j = 1; j < WNAF_TABLE; j++)
				t[j] = t[0];
			continue;
		}
		zkp_g1_dbl(&twice, &t[0]);
		for (int j = 1; j < WNAF_TABLE; j++)
			zkp_g1_add(&t[j], &t[j - 1], &twice);
	}
	zkp_g1s_to_affine(tbl, jt, n * WNAF_TABLE, scratch);
	zkp_g1 acc;
	zkp_g1_set_infinity(&acc);
	for (size_t b = maxlen; b-- > 0;) {
		zkp_g1_dbl(&acc, &acc);
		for (size_t i = 0; i < n; i++) {
			if (b >= len[i] || !dig[i][b])
				continue;
			int d = dig[i][b];
			if (d > 0) {
				zkp_g1_add_affine(&acc, &acc, &tbl[i * WNAF_TABLE + (d >> 1)]);
			} else {
				zkp_g1_affine neg;
				zkp_g1_affine_neg(&neg, &tbl[i * WNAF_TABLE + ((-d) >> 1)]);
				zkp_g1_add_affine(&acc, &acc, &neg);
			}
		}
	}
	*ret = acc;
	rc = 0;
out:
	free(jt);
	free(tbl);
	free(scratch);
	free(dig);
	free(len);
	return rc;
}

/* L = ic_0 + sum_{i >= 1} s_i ic_i, scalars s (n_ic - 1 of them, Fr). */
static int linear_combination(zkp_g1 *ret, const zkp_g1_affine *ic, size_t n_ic,
			      const zkp_fr *s)
{
	size_t n = n_ic - 1;
	uint64_t (*k)[ZKP_FR_LIMBS] = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return ZKP_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		zkp_fr_to_limbs(k[i], &s[i]);
	int rc = g1_msm(ret, ic + 1, k, n);
	free(k);
	if (!rc)
		zkp_g1_add_affine(ret, ret, &ic[0]);
	return rc;
}

/* ---- prepared verifying key ---- */

int zkp_groth16_pvk_new(zkp_groth16_pvk **ret, const zkp_groth16_vk *vk)
{
	*ret = NULL;
	if (vk->n_ic == 0 || zkp_g2_affine_is_infinity(&vk->gamma_g2) ||
	    zkp_g2_affine_is_infinity(&vk->delta_g2))
		return ZKP_ERR_INVAL;
	zkp_groth16_pvk *p = aligned_alloc(64, (sizeof(*p) + 63) & ~(size_t)63);
	if (!p)
		return ZKP_ERR_NOMEM;
	memset(p, 0, sizeof(*p));
	p->ic = malloc(vk->n_ic * sizeof(*p->ic));
	if (!p->ic) {
		free(p);
		return ZKP_ERR_NOMEM;
	}
	memcpy(p->ic, vk->ic, vk->n_ic * sizeof(*p->ic));
	p->n_ic = vk->n_ic;
	p->alpha_g1 = vk->alpha_g1;
	zkp_g2_prepare(&p->prep[ZKP_GROTH16_PREP_BETA], &vk->beta_g2);
	zkp_g2_prepare(&p->prep[ZKP_GROTH16_PREP_GAMMA], &vk->gamma_g2);
	zkp_g2_prepare(&p->prep[ZKP_GROTH16_PREP_DELTA], &vk->delta_g2);
	zkp_miller_loop_prepared(&p->alpha_beta, &p->alpha_g1, &p->prep[ZKP_GROTH16_PREP_BETA],
				 1);
	*ret = p;
	return 0;
}

void zkp_groth16_pvk_free(zkp_groth16_pvk *pvk)
{
	if (!pvk)
		return;
	free(pvk->ic);
	free(pvk);
}

/* ---- one proof ---- */

int zkp_groth16_verify(const zkp_groth16_pvk *pvk, const zkp_fr *inputs, size_t n,
		       const zkp_groth16_proof *proof)
{
	if (n + 1 != pvk->n_ic)
		return ZKP_ERR_MISMATCH;
	zkp_g1 l;
	int rc = linear_combination(&l, pvk->ic, pvk->n_ic, inputs);
	if (rc)
		return rc;
	zkp_g1_affine neg_a, pp[2];
	zkp_g1_affine_neg(&neg_a, &proof->a);
	zkp_g1_to_affine(&pp[0], &l);
	pp[1] = proof->c;
	zkp_fp12 f;
	zkp_miller_loop_mixed(&f, &neg_a, &proof->b, 1, pp, &pvk->prep[ZKP_GROTH16_PREP_GAMMA],
			      2);
	zkp_fp12_mul(&f, &f, &pvk->alpha_beta);
	zkp_final_exp(&f, &f);
	return zkp_fp12_is_one(&f) ? 0 : ZKP_GROTH16_INVALID;
}

/* ---- batches ---- */

struct batch {
	const zkp_groth16_pvk *pvk;
	const zkp_groth16_proof *proofs;
	size_t m;
	uint64_t (*r)[2];          /* weights */
	uint64_t (*s)[ZKP_FR_LIMBS]; /* combined input scalars, n_ic of them */
	zkp_g1 *jac;               /* m weighted -A_j, then sum r C, L, R alpha */
	_Atomic int rc;            /* an error of a task */
	/* Miller loop split */
	zkp_g1_affine *live_p;
	const zkp_g2_affine *live_q; /* gathered B_j */
	zkp_g1_affine pp[3];
	size_t chunk_begin[65];
	size_t chunks;
	zkp_fp12 *f;
};

static void batch_task(void *arg, size_t begin, size_t end)
{
	struct batch *b = arg;
	for (size_t t = begin; t < end; t++) {
		if (t < b->m) {
			zkp_g1 a;
			zkp_g1_from_affine(&a, &b->proofs[t].a);
			zkp_g1_mul(&b->jac[t], &a, b->r[t], 2);
			zkp_g1_neg(&b->jac[t], &b->jac[t]);
		} else if (t == b->m) {
			/* sum r_j C_j */
			zkp_g1_affine *c = malloc(b->m * sizeof(*c));
			uint64_t (*k)[ZKP_FR_LIMBS] = malloc(b->m * sizeof(*k));
			int rc = ZKP_ERR_NOMEM;
			if (c && k) {
				for (size_t j = 0; j < b->m; j++) {
					c[j] = b->proofs[j].c;
					k[j][0] = b->r[j][0];
					k[j][1] = b->r[j][1];
					k[j][2] = k[j][3] = 0;
				}
				rc = g1_msm(&b->jac[t], c, k, b->m);
			}
			free(c);
			free(k);
			if (rc)
				b->rc = rc;
		} else if (t == b->m + 1) {
			/* sum_j r_j L_j = sum_k s_k ic_k, s_0 = R */
			int rc = g1_msm(&b->jac[t], b->pvk->ic, b->s, b->pvk->n_ic);
			if (rc)
				b->rc = rc;
		} else {
			zkp_g1 a;
			zkp_g1_from_affine(&a, &b->pvk->alpha_g1);
			zkp_g1_mul(&b->jac[t], &a, b->s[0], ZKP_FR_LIMBS);
		}
	}
}

static void batch_miller(void *arg, size_t begin, size_t end)
{
	struct batch *b = arg;
	for (size_t c = begin; c < end; c++) {
		size_t lo = b->chunk_begin[c], hi = b->chunk_begin[c + 1];
		/* The first chunk also takes the three prepared pairs. */
		zkp_miller_loop_mixed(&b->f[c], b->live_p + lo, b->live_q + lo, hi - lo,
				      c == 0 ? b->pp : NULL, c == 0 ? b->pvk->prep : NULL,
				      c == 0 ? 3 : 0);
	}
}

/* Splits m live pairs into chunks of about equal Miller-loop cost, the
 * first chunk carrying the 3 prepared pairs (costs from pairing.h: a chunk
 * pays a squaring chain of about 2,232, a live pair 4,432 and a prepared
 * one 2,924 Fp multiplications). */
static void split_chunks(struct batch *b, size_t m, size_t threads)
{
	const double chain = 2232, live = 4432, prep = 3 * 2924;
	size_t t = threads < m ? threads : m;
	if (t > 64)
		t = 64;
	if (t < 1)
		t = 1;
	double per = (t * chain + m * live + prep) / (double)t;
	double first = (per - chain - prep) / live;
	size_t k0 = first < 0 ? 0 : (size_t)(first + 0.5);
	if (t == 1 || k0 > m)
		k0 = m;
	b->chunk_begin[0] = 0;
	b->chunk_begin[1] = k0;
	size_t rest = m - k0;
	for (size_t c = 1; c < t; c++)
		b->chunk_begin[c + 1] = k0 + rest * c / (t - 1);
	b->chunks = t;
}

int zkp_groth16_verify_batch(const zkp_groth16_pvk *pvk, const zkp_fr *inputs, size_t n,
			     const zkp_groth16_proof *proofs, size_t m, zkp_pool *pool)
{
	if (m == 0)
		return ZKP_ERR_INVAL;
	if (n + 1 != pvk->n_ic)
		return ZKP_ERR_MISMATCH;
	if (m == 1)
		return zkp_groth16_verify(pvk, inputs, n, proofs);

	struct batch b = { .pvk = pvk, .proofs = proofs, .m = m };
	size_t threads = zkp_pool_threads(pool);
	int rc = ZKP_ERR_NOMEM;
	zkp_fp *scratch = NULL;
	zkp_g1_affine *aff = NULL;
	zkp_g2_affine *q = NULL;
	b.r = malloc(m * sizeof(*b.r));
	b.s = malloc(pvk->n_ic * sizeof(*b.s));
	b.jac = malloc((m + 3) * sizeof(*b.jac));
	aff = malloc((m + 3) * sizeof(*aff));
	scratch = malloc((m + 3) * sizeof(*scratch));
	q = malloc(m * sizeof(*q));
	b.f = malloc((threads < 64 ? threads : 64) * sizeof(*b.f));
	zkp_fr *sfr = calloc(pvk->n_ic, sizeof(*sfr));
	if (!b.r || !b.s || !b.jac || !aff || !scratch || !q || !b.f || !sfr)
		goto out;

	if (RAND_bytes((unsigned char *)b.r, (int)(m * sizeof(*b.r))) != 1) {
		rc = ZKP_ERR_IO;
		goto out;
	}
	/* s_0 = R = sum r_j, s_k = sum_j r_j x_jk. */
	for (size_t j = 0; j < m; j++) {
		if (!b.r[j][0] && !b.r[j][1])
			b.r[j][0] = 1; /* a zero weight would drop proof j */
		uint64_t lim[ZKP_FR_LIMBS] = { b.r[j][0], b.r[j][1], 0, 0 };
		zkp_fr rj, t;
		zkp_fr_from_limbs(&rj, lim); /* < 2^128 < r: cannot fail */
		zkp_fr_add(&sfr[0], &sfr[0], &rj);
		for (size_t k = 0; k < n; k++) {
			zkp_fr_mul(&t, &rj, &inputs[j * n + k]);
			zkp_fr_add(&sfr[k + 1], &sfr[k + 1], &t);
		}
	}
	for (size_t k = 0; k < pvk->n_ic; k++)
		zkp_fr_to_limbs(b.s[k], &sfr[k]);

	zkp_pool_run(pool, m + 3, 1, batch_task, &b);
	rc = atomic_load(&b.rc);
	if (rc)
		goto out;
	zkp_g1s_to_affine(aff, b.jac, m + 3, scratch);
	b.live_p = aff;
	for (size_t j = 0; j < m; j++)
		q[j] = proofs[j].b;
	b.live_q = q;
	b.pp[0] = aff[m + 2]; /* R alpha, with beta */
	b.pp[1] = aff[m + 1]; /* sum r L, with gamma */
	b.pp[2] = aff[m];     /* sum r C, with delta */
	split_chunks(&b, m, threads);
	zkp_pool_run(pool, b.chunks, 1, batch_miller, &b);
	for (size_t c = 1; c < b.chunks; c++)
		zkp_fp12_mul(&b.f[0], &b.f[0], &b.f[c]);
	zkp_final_exp(&b.f[0], &b.f[0]);
	rc = zkp_fp12_is_one(&b.f[0]) ? 0 : ZKP_GROTH16_INVALID;
out:
	free(b.r);
	free(b.s);
	free(b.jac);
	free(aff);
	free(scratch);
	free(q);
	free(b.f);
	free(sfr);
	return rc;
}
