/*
 * Poseidon constants, generated from their definitions the way neptune v11
 * does (round_numbers.rs, round_constants.rs, mds.rs, preprocessing.rs), and
 * cached per arity for the process lifetime.
 *
 * References: Grassi, Khovratovich, Rechberger, Roy, Schofnegger, "Poseidon:
 * A New Hash Function for Zero-Knowledge Proof Systems" (eprint 2019/458),
 * section 5.4 (round numbers), appendix F (Grain LFSR round constants) and
 * appendix B (the sparse-matrix partial rounds); neptune's spec
 * (spec/poseidon_spec.md) for the compressed constants.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "zkpd/error.h"
#include "zkpd/poseidon.h"

/* ---- round numbers ---- */

/* n and M of the paper as neptune sets them: the 255-bit field is taken as
 * 256 bits, security 128 bits. */
#define PRIME_BITLEN 256.0f
#define SECURITY_BITS 128.0f

/* ceil(x) converted to an unsigned count; Rust's `as usize` saturates
 * negative values to 0, which C's conversion would leave undefined. */
static unsigned ceil_count(float x)
{
	float c = ceilf(x);
	return c <= 0.0f ? 0u : (unsigned)c;
}

/* The paper's inequalities (statistical, interpolation, two Groebner-basis
 * bounds) in f32 exactly as neptune's round_numbers_are_secure writes them;
 * this file is built with -ffp-contract=off so no FMA changes a rounding. */
static bool rounds_secure(float tf, float log2t, unsigned rf, unsigned rp)
{
	float rpf = (float)rp, n = PRIME_BITLEN, m = SECURITY_BITS;
	float rf_stat = m <= (n - 3.0f) * (tf + 1.0f) ? 6.0f : 10.0f;
	float rf_interp = 0.43f * m + log2t - rpf;
	float rf_grob_1 = 0.21f * n - rpf;
	float rf_grob_2 = (0.14f * n - 1.0f - rpf) / (tf - 1.0f);
	unsigned need = ceil_count(rf_stat);
	unsigned v;
	if ((v = ceil_count(rf_interp)) > need)
		need = v;
	if ((v = ceil_count(rf_grob_1)) > need)
		need = v;
	if ((v = ceil_count(rf_grob_2)) > need)
		need = v;
	return rf >= need;
}

int zkp_poseidon_round_numbers(unsigned *rf, unsigned *rp, unsigned t)
{
	if (t < 2 || t > 4095)
		return ZKP_ERR_INVAL;
	float tf = (float)t, log2t = log2f(tf);
	unsigned best_rf = 0, best_rp = 0;
	unsigned long best_cost = (unsigned long)-1;
	for (unsigned rf_test = 2; rf_test <= 1000; rf_test += 2) {
		for (unsigned rp_test = 4; rp_test < 200; rp_test++) {
			if (!rounds_secure(tf, log2t, rf_test, rp_test))
				continue;
			/* neptune's security margin: two more full rounds and
			 * 7.5% more partial rounds, rounded up (in f32). */
			unsigned f = rf_test + 2;
			unsigned p = (unsigned)ceilf(1.075f * (float)rp_test);
			unsigned long cost = (unsigned long)t * f + p;
			if (cost < best_cost || (cost == best_cost && f < best_rf)) {
				best_rf = f;
				best_rp = p;
				best_cost = cost;
			}
		}
	}
	if (best_rf == 0)
		return ZKP_ERR_RANGE;
	*rf = best_rf;
	*rp = best_rp;
	return 0;
}

/* ---- Grain LFSR round constants ---- */

/* The 80-bit state, bit i of the paper's b_i at bit i. */
typedef struct {
	unsigned __int128 s;
} grain;

/* b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i */
static unsigned grain_step(grain *g)
{
	unsigned __int128 s = g->s;
	unsigned b = (unsigned)((s >> 62) ^ (s >> 51) ^ (s >> 38) ^ (s >> 23) ^ (s >> 13) ^ s) & 1u;
	g->s = (s >> 1) | ((unsigned __int128)b << 79);
	return b;
}

/* Self-shrinking output: read bits in pairs; a 1 emits the second bit, a 0
 * drops it. */
static unsigned grain_bit(grain *g)
{
	for (;;) {
		unsigned c = grain_step(g);
		unsigned b = grain_step(g);
		if (c)
			return b;
	}
}

/* Appends the n-bit value v to the initial state, most significant bit
 * first, at bit position *pos. */
static void grain_put(grain *g, unsigned *pos, unsigned n, uint64_t v)
{
	for (unsigned i = n; i-- > 0;)
		g->s |= (unsigned __int128)((v >> i) & 1u) << (*pos)++;
}

/* The paper's field = 1 (GF(p)) and S-box = 1: neptune passes 1 for x^5
 * where the reference script's own encoding would use 0 (x^alpha); the
 * published constants follow neptune, so we do too. */
#define GRAIN_FIELD 1
#define GRAIN_SBOX 1
#define GRAIN_FIELD_BITS 255

/* n constants: each a 255-bit big-endian integer drawn from the stream,
 * drawn again while >= r (rejection sampling). */
static void grain_constants(zkp_fr *out, size_t n, unsigned t, unsigned rf, unsigned rp)
{
	grain g = { 0 };
	unsigned pos = 0;
	grain_put(&g, &pos, 2, GRAIN_FIELD);
	grain_put(&g, &pos, 4, GRAIN_SBOX);
	grain_put(&g, &pos, 12, GRAIN_FIELD_BITS);
	grain_put(&g, &pos, 12, t);
	grain_put(&g, &pos, 10, rf);
	grain_put(&g, &pos, 10, rp);
	grain_put(&g, &pos, 30, 0x3fffffff);
	for (int i = 0; i < 160; i++)
		grain_step(&g);

	for (size_t k = 0; k < n;) {
		uint8_t be[ZKP_FR_BYTES];
		/* 255 bits: 7 in the first byte, then 8 in each. */
		for (int i = 0; i < ZKP_FR_BYTES; i++) {
			unsigned bits = i == 0 ? GRAIN_FIELD_BITS % 8 : 8, acc = 0;
			for (unsigned j = 0; j < bits; j++)
				acc = (acc << 1) | grain_bit(&g);
			be[i] = (uint8_t)acc;
		}
		if (zkp_fr_from_be(&out[k], be) == 0)
			k++;
	}
}

/* ---- matrices over Fr (row-major, n x n) ---- */

/* X = A^-1 B by Gaussian elimination with a search for a non-zero pivot; B
 * and X are n x k. a (n*n) and b (n*k) are destroyed. ZKP_ERR_NOT_INVERTIBLE
 * for a singular A, which the MDS matrix and the minors derived from it never
 * are. Cost: n^3/3 + n^2 k multiplications and n inversions. */
static int mat_solve(zkp_fr *x, zkp_fr *a, zkp_fr *b, unsigned n, unsigned k)
{
	zkp_fr piv_inv[ZKP_POSEIDON_MAX_T], tmp;
	for (unsigned c = 0; c < n; c++) {
		unsigned p = c;
		while (p < n && zkp_fr_is_zero(&a[p * n + c]))
			p++;
		if (p == n)
			return ZKP_ERR_NOT_INVERTIBLE;
		if (p != c) {
			for (unsigned j = 0; j < n; j++) {
				tmp = a[c * n + j];
				a[c * n + j] = a[p * n + j];
				a[p * n + j] = tmp;
			}
			for (unsigned j = 0; j < k; j++) {
				tmp = b[c * k + j];
				b[c * k + j] = b[p * k + j];
				b[p * k + j] = tmp;
			}
		}
		zkp_fr_inv(&piv_inv[c], &a[c * n + c]);
		for (unsigned r = c + 1; r < n; r++) {
			if (zkp_fr_is_zero(&a[r * n + c]))
				continue;
			zkp_fr f;
			zkp_fr_mul(&f, &a[r * n + c], &piv_inv[c]);
			for (unsigned j = c + 1; j < n; j++) {
				zkp_fr_mul(&tmp, &f, &a[c * n + j]);
				zkp_fr_sub(&a[r * n + j], &a[r * n + j], &tmp);
			}
			for (unsigned j = 0; j < k; j++) {
				zkp_fr_mul(&tmp, &f, &b[c * k + j]);
				zkp_fr_sub(&b[r * k + j], &b[r * k + j], &tmp);
			}
			zkp_fr_set_zero(&a[r * n + c]);
		}
	}
	for (unsigned c = n; c-- > 0;) {
		for (unsigned j = 0; j < k; j++) {
			zkp_fr acc = b[c * k + j];
			for (unsigned l = c + 1; l < n; l++) {
				zkp_fr_mul(&tmp, &a[c * n + l], &x[l * k + j]);
				zkp_fr_sub(&acc, &acc, &tmp);
			}
			zkp_fr_mul(&x[c * k + j], &acc, &piv_inv[c]);
		}
	}
	return 0;
}

/* inv = A^-1 (n x n). work holds 2 n^2. */
static int mat_inv(zkp_fr *inv, const zkp_fr *a, unsigned n, zkp_fr *work)
{
	zkp_fr *aa = work, *id = work + n * n;
	memcpy(aa, a, sizeof(*a) * n * n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (i == j)
				zkp_fr_set_one(&id[i * n + j]);
			else
				zkp_fr_set_zero(&id[i * n + j]);
	return mat_solve(inv, aa, id, n, n);
}

/* out = A v, v a column vector (neptune's left_apply_matrix). */
static void mat_apply(zkp_fr *out, const zkp_fr *a, const zkp_fr *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		zkp_fr acc, tmp;
		zkp_fr_set_zero(&acc);
		for (unsigned j = 0; j < n; j++) {
			zkp_fr_mul(&tmp, &a[i * n + j], &v[j]);
			zkp_fr_add(&acc, &acc, &tmp);
		}
		out[i] = acc;
	}
}

/* M[i][j] = 1/(x_i + y_j), x_i = i, y_j = t + j (mds.rs generate_mds): a
 * Cauchy matrix, symmetric because it depends on i + j only. */
static void cauchy_mds(zkp_fr *m, unsigned t)
{
	zkp_fr inv[2 * ZKP_POSEIDON_MAX_T];
	for (unsigned k = 0; k + 1 < 2 * t; k++) {
		zkp_fr v;
		zkp_fr_set_u64(&v, t + k);
		zkp_fr_inv(&inv[k], &v);
	}
	for (unsigned i = 0; i < t; i++)
		for (unsigned j = 0; j < t; j++)
			m[i * t + j] = inv[i + j];
}

/*
 * The compressed round constants (preprocessing.rs compress_round_constants
 * with every partial round preprocessed). A constant added before a linear
 * layer L equals M^-1-transformed constant added after the previous S-box,
 * because L(s + M^-1 k) = L(s) + k when L = M. So:
 *   - round 0's constants stay in front of the first S-box;
 *   - full rounds 1..H-1 and the last H-1 full rounds move back by one round:
 *     M^-1 RK;
 *   - the partial rounds are walked backwards from the first final full
 *     round: acc = RK(H + rp); for each partial round, inv = M^-1 acc, its
 *     lane-0 value becomes that round's single post-S-box constant and the
 *     rest is carried: acc = RK(previous) + (inv with lane 0 zeroed). What is
 *     left after the first partial round, M^-1 acc, is added after the S-box
 *     of full round H-1.
 * rk is the plain output (t per round); work holds 2t + rp.
 */
static void compress_constants(zkp_fr *out, const zkp_fr *rk, const zkp_fr *m_inv, unsigned t,
			       unsigned rf, unsigned rp, zkp_fr *work)
{
	unsigned h = rf / 2;
	zkp_fr *acc = work, *inv = work + t, *pk = work + 2 * t;

	memcpy(out, rk, sizeof(*rk) * t);
	out += t;
	for (unsigned i = 1; i < h; i++, out += t)
		mat_apply(out, m_inv, rk + (size_t)i * t, t);

	memcpy(acc, rk + (size_t)(h + rp) * t, sizeof(*rk) * t);
	for (unsigned i = 0; i < rp; i++) {
		const zkp_fr *prev = rk + (size_t)(h + rp - 1 - i) * t;
		mat_apply(inv, m_inv, acc, t);
		pk[i] = inv[0];
		zkp_fr_set_zero(&inv[0]);
		for (unsigned j = 0; j < t; j++)
			zkp_fr_add(&acc[j], &prev[j], &inv[j]);
	}
	mat_apply(out, m_inv, acc, t);
	out += t;
	for (unsigned i = rp; i-- > 0;)
		*out++ = pk[i];
	for (unsigned i = 1; i < h; i++, out += t)
		mat_apply(out, m_inv, rk + (size_t)(i + h + rp) * t, t);
}

/*
 * The sparse factorization (mds.rs factor_to_sparse_matrices on M^T = M).
 * Any A splits as A = A' A'' with
 *     A'  = [1 0; 0 A_hat]              (A_hat: A without row 0, column 0)
 *     A'' = [a00 v; w_hat I],  v = A[0][1..], w = A[1..][0], w_hat = A_hat^-1 w
 * Starting from curr = M, each step records curr'' and continues with
 * curr = M curr' (M times A', so the dense part moves one round earlier).
 * After rp steps curr is the pre-sparse matrix, and the recorded A'' are the
 * sparse matrices in reverse order (the first recorded one serves the last
 * partial round). A sparse matrix keeps its dense column 0 (a00, w_hat) as
 * w_hat and its dense row 0 without a00 (v) as v_rest.
 * Cost per step: one (t-1)-solve (t^3/3) and a t x (t-1) x (t-1) product.
 * work holds 2t^2 + 3t.
 */
static int factor_sparse(zkp_fr *pre_sparse, zkp_fr *w_hat, zkp_fr *v_rest, const zkp_fr *m,
			 unsigned t, unsigned rp, zkp_fr *work)
{
	unsigned n = t - 1;
	zkp_fr *curr = pre_sparse, *next = work, *hat = next + t * t, *w = hat + n * n,
	       *x = w + t;
	memcpy(curr, m, sizeof(*m) * t * t);
	for (unsigned step = 0; step < rp; step++) {
		unsigned r = rp - 1 - step;
		for (unsigned i = 0; i < n; i++) {
			memcpy(&hat[i * n], &curr[(i + 1) * t + 1], sizeof(*m) * n);
			w[i] = curr[(i + 1) * t];
		}
		int rc = mat_solve(x, hat, w, n, 1);
		if (rc)
			return rc;
		w_hat[(size_t)r * t] = curr[0];
		memcpy(&w_hat[(size_t)r * t + 1], x, sizeof(*x) * n);
		memcpy(&v_rest[(size_t)r * n], &curr[1], sizeof(*x) * n);

		/* next = M curr': column 0 is M's, the rest M[i][1..] . curr_hat */
		for (unsigned i = 0; i < t; i++) {
			next[i * t] = m[i * t];
			for (unsigned j = 1; j < t; j++) {
				zkp_fr acc, tmp;
				zkp_fr_set_zero(&acc);
				for (unsigned l = 1; l < t; l++) {
					zkp_fr_mul(&tmp, &m[i * t + l], &curr[l * t + j]);
					zkp_fr_add(&acc, &acc, &tmp);
				}
				next[i * t + j] = acc;
			}
		}
		memcpy(curr, next, sizeof(*m) * t * t);
	}
	return 0;
}

/* ---- the per-arity cache ---- */

/* Sizes (in zkp_fr) of the arrays one arity owns, in allocation order. */
typedef struct {
	size_t crc, mds, pre, w_hat, v_rest, rc, total;
} layout;

static layout layout_of(unsigned t, unsigned rf, unsigned rp)
{
	layout l;
	l.crc = (size_t)t * rf + rp;
	l.mds = (size_t)t * t;
	l.pre = (size_t)t * t;
	l.w_hat = (size_t)rp * t;
	l.v_rest = (size_t)rp * (t - 1);
	l.rc = (size_t)t * (rf + rp);
	l.total = l.crc + l.mds + l.pre + l.w_hat + l.v_rest + l.rc;
	return l;
}

/* The struct and its arrays in one allocation, arrays 64-byte aligned. */
#define ARRAYS_OFFSET ((sizeof(zkp_poseidon_consts) + 63) & ~(size_t)63)

static int consts_build(zkp_poseidon_consts **ret, unsigned arity)
{
	unsigned t = arity + 1, rf, rp;
	int rc = zkp_poseidon_round_numbers(&rf, &rp, t);
	if (rc)
		return rc;
	layout l = layout_of(t, rf, rp);
	/* M^-1, then scratch for one step at a time: inversion (2t^2),
	 * compression (2t + rp), factorization (2t^2 + 3t). */
	size_t work_n = (size_t)t * t + 2 * (size_t)t * t + 3 * t + rp;
	zkp_fr *work = malloc(sizeof(zkp_fr) * work_n);
	uint8_t *block = aligned_alloc(64, (ARRAYS_OFFSET + sizeof(zkp_fr) * l.total + 63) &
						   ~(size_t)63);
	if (!work || !block) {
		rc = ZKP_ERR_NOMEM;
		goto out;
	}
	zkp_poseidon_consts *c = (zkp_poseidon_consts *)block;
	zkp_fr *crc = (zkp_fr *)(block + ARRAYS_OFFSET);
	zkp_fr *mds = crc + l.crc, *pre = mds + l.mds, *w_hat = pre + l.pre;
	zkp_fr *v_rest = w_hat + l.w_hat, *rk = v_rest + l.v_rest;
	zkp_fr *m_inv = work, *scratch = work + (size_t)t * t;

	grain_constants(rk, l.rc, t, rf, rp);
	cauchy_mds(mds, t);
	rc = mat_inv(m_inv, mds, t, scratch);
	if (rc)
		goto out;
	compress_constants(crc, rk, m_inv, t, rf, rp, scratch);
	rc = factor_sparse(pre, w_hat, v_rest, mds, t, rp, scratch);
	if (rc)
		goto out;

	memset(c, 0, sizeof(*c));
	c->arity = arity;
	c->t = t;
	c->rf = rf;
	c->rp = rp;
	zkp_fr_set_u64(&c->domain_tag, ((uint64_t)1 << arity) - 1);
	c->compressed_rc = crc;
	c->mds = mds;
	c->pre_sparse = pre;
	c->w_hat = w_hat;
	c->v_rest = v_rest;
	c->round_constants = rk;
	c->custom_id = 0;
	*ret = c;
	block = NULL;
out:
	free(block);
	free(work);
	return rc;
}

static _Atomic(zkp_poseidon_consts *) merkle[ZKP_POSEIDON_MAX_ARITY + 1];

/* Custom-tag variants: rare (one per protocol), so a list under the lock. */
typedef struct custom_node {
	zkp_poseidon_consts c;
	struct custom_node *next;
} custom_node;
static custom_node *customs;

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

int zkp_poseidon_consts_get(const zkp_poseidon_consts **ret, unsigned arity)
{
	if (arity < 1 || arity > ZKP_POSEIDON_MAX_ARITY)
		return ZKP_ERR_INVAL;
	zkp_poseidon_consts *c = atomic_load_explicit(&merkle[arity], memory_order_acquire);
	if (c) {
		*ret = c;
		return 0;
	}
	int rc = 0;
	pthread_mutex_lock(&build_lock);
	c = atomic_load_explicit(&merkle[arity], memory_order_relaxed);
	if (!c) {
		rc = consts_build(&c, arity);
		if (!rc)
			atomic_store_explicit(&merkle[arity], c, memory_order_release);
	}
	pthread_mutex_unlock(&build_lock);
	if (!rc)
		*ret = c;
	return rc;
}

int zkp_poseidon_consts_get_custom(const zkp_poseidon_consts **ret, unsigned arity,
				   uint64_t arbitrary_id)
{
	if (arbitrary_id < 1 || arbitrary_id > 256)
		return ZKP_ERR_INVAL;
	const zkp_poseidon_consts *base;
	int rc = zkp_poseidon_consts_get(&base, arity);
	if (rc)
		return rc;
	pthread_mutex_lock(&build_lock);
	custom_node *n = customs;
	while (n && !(n->c.arity == arity && n->c.custom_id == arbitrary_id))
		n = n->next;
	if (!n) {
		n = malloc(sizeof(*n));
		if (!n) {
			rc = ZKP_ERR_NOMEM;
		} else {
			n->c = *base;
			n->c.custom_id = arbitrary_id;
			/* hash_type.rs CType::domain_tag: id * 2^40 */
			uint64_t limbs[ZKP_FR_LIMBS] = { arbitrary_id << 40,
							 arbitrary_id >> 24, 0, 0 };
			zkp_fr_from_limbs(&n->c.domain_tag, limbs);
			n->next = customs;
			customs = n;
		}
	}
	pthread_mutex_unlock(&build_lock);
	if (!rc)
		*ret = &n->c;
	return rc;
}
