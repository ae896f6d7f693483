/*
 * The Poseidon permutation, two ways: the optimized schedule neptune hashes
 * with (hash_optimized_static) and the textbook one (hash_correct). The
 * schedules and matrix conventions are spelled out in zkpd/poseidon.h.
 */
#include <string.h>

#include "zkpd/poseidon.h"

/* x = x^5: two squarings and a multiplication. */
static inline void sbox(zkp_fr *x)
{
	zkp_fr x2, x4;
	zkp_fr_sqr(&x2, x);
	zkp_fr_sqr(&x4, &x2);
	zkp_fr_mul(x, &x4, x);
}

/* s = s X (row vector times the t x t matrix X): t^2 multiplications. */
static void mix_dense(zkp_fr *s, const zkp_fr *x, unsigned t)
{
	zkp_fr out[ZKP_POSEIDON_MAX_T], tmp;
	for (unsigned j = 0; j < t; j++) {
		zkp_fr_mul(&out[j], &s[0], &x[j]);
		for (unsigned i = 1; i < t; i++) {
			zkp_fr_mul(&tmp, &s[i], &x[i * t + j]);
			zkp_fr_add(&out[j], &out[j], &tmp);
		}
	}
	memcpy(s, out, sizeof(*s) * t);
}

/* s = s S for the sparse S of the header: 2t - 1 multiplications. */
static void mix_sparse(zkp_fr *s, const zkp_fr *w_hat, const zkp_fr *v_rest, unsigned t)
{
	zkp_fr s0 = s[0], acc, tmp;
	zkp_fr_mul(&acc, &s[0], &w_hat[0]);
	for (unsigned i = 1; i < t; i++) {
		zkp_fr_mul(&tmp, &s[i], &w_hat[i]);
		zkp_fr_add(&acc, &acc, &tmp);
		zkp_fr_mul(&tmp, &s0, &v_rest[i - 1]);
		zkp_fr_add(&s[i], &s[i], &tmp);
	}
	s[0] = acc;
}

static void load_state(zkp_fr *s, const zkp_poseidon_consts *c, const zkp_fr *in)
{
	s[0] = c->domain_tag;
	memcpy(&s[1], in, sizeof(*in) * c->arity);
}

void zkp_poseidon_hash(zkp_fr *out, const zkp_poseidon_consts *c, const zkp_fr *in)
{
	const unsigned t = c->t, h = c->rf / 2;
	const zkp_fr *k = c->compressed_rc;
	zkp_fr s[ZKP_POSEIDON_MAX_T];
	load_state(s, c, in);

	for (unsigned i = 0; i < t; i++)
		zkp_fr_add(&s[i], &s[i], &k[i]);
	k += t;

	for (unsigned r = 0; r < h; r++, k += t) {
		for (unsigned i = 0; i < t; i++) {
			sbox(&s[i]);
			zkp_fr_add(&s[i], &s[i], &k[i]);
		}
		mix_dense(s, r + 1 < h ? c->mds : c->pre_sparse, t);
	}

	for (unsigned r = 0; r < c->rp; r++) {
		sbox(&s[0]);
		zkp_fr_add(&s[0], &s[0], k++);
		mix_sparse(s, c->w_hat + (size_t)r * t, c->v_rest + (size_t)r * (t - 1), t);
	}

	for (unsigned r = 0; r + 1 < h; r++, k += t) {
		for (unsigned i = 0; i < t; i++) {
			sbox(&s[i]);
			zkp_fr_add(&s[i], &s[i], &k[i]);
		}
		mix_dense(s, c->mds, t);
	}

	/* Last round: no constant, and only lane 1 of the mix is the digest. */
	zkp_fr acc, tmp;
	zkp_fr_set_zero(&acc);
	for (unsigned i = 0; i < t; i++) {
		sbox(&s[i]);
		zkp_fr_mul(&tmp, &s[i], &c->mds[i * t + 1]);
		zkp_fr_add(&acc, &acc, &tmp);
	}
	*out = acc;
}

void zkp_poseidon_hash_plain(zkp_fr *out, const zkp_poseidon_consts *c, const zkp_fr *in)
{
	const unsigned t = c->t, h = c->rf / 2;
	const zkp_fr *k = c->round_constants;
	zkp_fr s[ZKP_POSEIDON_MAX_T];
	load_state(s, c, in);

	for (unsigned r = 0; r < c->rf + c->rp; r++, k += t) {
		bool full = r < h || r >= h + c->rp;
		for (unsigned i = 0; i < t; i++)
			zkp_fr_add(&s[i], &s[i], &k[i]);
		for (unsigned i = 0; i < (full ? t : 1); i++)
			sbox(&s[i]);
		mix_dense(s, c->mds, t);
	}
	*out = s[1];
}
