/*
 * Poseidon in the circuit: neptune's "legacy" circuit (src/circuit.rs
 * poseidon_hash), which Filecoin's circuits use. The state is a vector of
 * elements, each either an allocated variable or a linear combination
 * ("Num") that mixing builds for free:
 *
 *  - first full round: the tag lane is a constant, ((tag + k_pre)^5 +
 *    k_post) * ONE, with no row; each input lane costs three rows
 *      (x + k_pre)(x + k_pre) = x2,  x2 * x2 = x4,  (x + k_pre) * x4 = x5 - k_post
 *  - later rounds: a lane's combination is first materialised (a new
 *    variable v and the row lc * ONE = v), then v * v = v2, v2 * v2 = v4,
 *    v * v4 = v5 - k (no k in the terminal round); full rounds do every
 *    lane, partial rounds lane 0 only;
 *  - mixing new[j] = sum_i s[i] * X[i][j] with X = M after rounds 0-2 and
 *    the final full rounds, the pre-sparse matrix after round 3, and sparse
 *    matrix r after partial round r (include/zkpd/poseidon.h); the
 *    combinations grow by one term per partial round;
 *  - the digest is lane 1, materialised.
 * Rows: 3(t R_F + R_P - 1) S-box rows + (t R_F + R_P - arity) materialising
 * rows: 311, 377, 505, 598 for arities 2, 4, 8, 11.
 */
#include <pthread.h>

#include "zkpd/gadgets.h"

struct elt {
	bool allocated;
	zkp_var var; /* allocated */
	zkp_lc lc;   /* a Num's combination (rows pass) */
	zkp_fr value;
};

struct state {
	zkp_cs *cs;
	const zkp_poseidon_consts *c;
	unsigned t, offset, round;
	struct elt e[ZKP_POSEIDON_MAX_T], tmp[ZKP_POSEIDON_MAX_T];
};

/* e as a combination: its own when a Num, 1 * var when allocated. */
static void as_lc(zkp_cs *cs, zkp_lc *out, const struct elt *e, const zkp_fr *scale)
{
	if (e->allocated)
		zkp_lc_add(cs, out, e->var, scale);
	else
		zkp_lc_add_lc(cs, out, &e->lc, scale);
}

/* Row (lc + k*ONE) built in out; k may be NULL. */
static void lc_plus_const(zkp_cs *cs, zkp_lc *out, zkp_var v, const zkp_fr *k)
{
	zkp_lc_add(cs, out, v, NULL);
	if (k)
		zkp_lc_add(cs, out, ZKP_CS_ONE, k);
}

static zkp_var square(zkp_cs *cs, zkp_var x, const zkp_fr *xv, zkp_fr *out)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_fr_sqr(out, xv);
	zkp_var r = zkp_cs_alloc(cs, out);
	zkp_lc_add(cs, a, x, NULL);
	zkp_lc_add(cs, b, x, NULL);
	zkp_lc_add(cs, c, r, NULL);
	zkp_cs_enforce_scratch(cs);
	return r;
}

/* Materialises a Num: v = its value, row lc * ONE = v (ensure_allocated). */
static void ensure_allocated(struct state *s, struct elt *e)
{
	zkp_cs *cs = s->cs;
	if (e->allocated)
		return;
	zkp_var v = zkp_cs_alloc(cs, &e->value);
	zkp_lc *one = &cs->lc[1], *c = &cs->lc[2];
	zkp_lc_add(cs, one, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, v, NULL);
	zkp_cs_enforce(cs, &e->lc, one, c);
	zkp_lc_clear(one);
	zkp_lc_clear(c);
	zkp_lc_clear(&e->lc);
	e->allocated = true;
	e->var = v;
}

/* x^5 + post (post NULL in the terminal round) on an element, pre added
 * to x first in the first round; three rows, the result allocated. */
static void sbox(struct state *s, struct elt *e, const zkp_fr *pre, const zkp_fr *post)
{
	zkp_cs *cs = s->cs;
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_fr x, x2, x4, x5;

	ensure_allocated(s, e);
	x = e->value;
	if (pre)
		zkp_fr_add(&x, &x, pre);
	zkp_var l = e->var, l2;
	if (pre) {
		/* square_sum: (l + pre)(l + pre) = l2 */
		zkp_fr_sqr(&x2, &x);
		l2 = zkp_cs_alloc(cs, &x2);
		lc_plus_const(cs, a, l, pre);
		lc_plus_const(cs, b, l, pre);
		zkp_lc_add(cs, c, l2, NULL);
		zkp_cs_enforce_scratch(cs);
	} else {
		l2 = square(cs, l, &x, &x2);
	}
	zkp_var l4 = square(cs, l2, &x2, &x4);
	/* mul_sum: (l + pre) * l4 = l5 - post */
	zkp_fr_mul(&x5, &x, &x4);
	if (post)
		zkp_fr_add(&x5, &x5, post);
	zkp_var l5 = zkp_cs_alloc(cs, &x5);
	lc_plus_const(cs, a, l, pre);
	zkp_lc_add(cs, b, l4, NULL);
	zkp_lc_add(cs, c, l5, NULL);
	if (post)
		zkp_lc_sub(cs, c, ZKP_CS_ONE, post);
	zkp_cs_enforce_scratch(cs);
	e->var = l5;
	e->value = x5;
}

static void set_const(zkp_cs *cs, struct elt *e, const zkp_fr *v)
{
	e->allocated = false;
	e->value = *v;
	zkp_lc_clear(&e->lc);
	zkp_lc_add(cs, &e->lc, ZKP_CS_ONE, v);
}

/* new[j] = sum_i s[i] X[i][j]. */
static void mix_dense(struct state *s, const zkp_fr *X)
{
	zkp_cs *cs = s->cs;
	unsigned t = s->t;
	for (unsigned j = 0; j < t; j++) {
		struct elt *n = &s->tmp[j];
		n->allocated = false;
		zkp_lc_clear(&n->lc);
		zkp_fr_set_zero(&n->value);
		for (unsigned i = 0; i < t; i++) {
			const zkp_fr *x = &X[i * t + j];
			zkp_fr p;
			zkp_fr_mul(&p, &s->e[i].value, x);
			zkp_fr_add(&n->value, &n->value, &p);
			as_lc(cs, &n->lc, &s->e[i], x);
		}
		zkp_lc_compact(cs, &n->lc);
	}
	for (unsigned j = 0; j < t; j++) {
		struct elt swap = s->e[j];
		s->e[j] = s->tmp[j];
		s->tmp[j] = swap;
	}
}

/* new[0] = sum_i s[i] w_hat[i]; new[j] = s[j] + s[0] v_rest[j-1]. */
static void mix_sparse(struct state *s, unsigned r)
{
	zkp_cs *cs = s->cs;
	unsigned t = s->t;
	const zkp_fr *w_hat = &s->c->w_hat[r * t], *v_rest = &s->c->v_rest[r * (t - 1)];
	struct elt *n0 = &s->tmp[0];

	n0->allocated = false;
	zkp_lc_clear(&n0->lc);
	zkp_fr_set_zero(&n0->value);
	for (unsigned i = 0; i < t; i++) {
		zkp_fr p;
		zkp_fr_mul(&p, &s->e[i].value, &w_hat[i]);
		zkp_fr_add(&n0->value, &n0->value, &p);
		as_lc(cs, &n0->lc, &s->e[i], &w_hat[i]);
	}
	zkp_lc_compact(cs, &n0->lc);
	for (unsigned j = 1; j < t; j++) {
		struct elt *e = &s->e[j];
		zkp_fr p;
		if (e->allocated) { /* never after the pre-sparse mix, kept for safety */
			zkp_var v = e->var;
			e->allocated = false;
			zkp_lc_clear(&e->lc);
			zkp_lc_add(cs, &e->lc, v, NULL);
		}
		zkp_fr_mul(&p, &s->e[0].value, &v_rest[j - 1]);
		zkp_fr_add(&e->value, &e->value, &p);
		as_lc(cs, &e->lc, &s->e[0], &v_rest[j - 1]);
		zkp_lc_compact(cs, &e->lc);
	}
	struct elt swap = s->e[0];
	s->e[0] = *n0;
	*n0 = swap;
}

/* neptune's product_mds: which matrix follows round s->round. */
static void mix(struct state *s)
{
	const unsigned half = s->c->rf / 2, rp = s->c->rp;
	if (s->round == half - 1)
		mix_dense(s, s->c->pre_sparse);
	else if (s->round > half - 1 && s->round < half + rp)
		mix_sparse(s, s->round - half);
	else
		mix_dense(s, s->c->mds);
	s->round++;
}

static const zkp_fr *next_key(struct state *s) { return &s->c->compressed_rc[s->offset++]; }

static void full_round(struct state *s, bool first, bool last)
{
	const unsigned t = s->t;
	const zkp_fr *pre = NULL, *post = NULL;
	if (first) {
		pre = &s->c->compressed_rc[s->offset];
		s->offset += t;
	}
	if (first || !last) {
		post = &s->c->compressed_rc[s->offset];
		s->offset += t;
	}
	for (unsigned i = 0; i < t; i++) {
		if (first && i == 0) {
			/* the tag lane stays a constant */
			zkp_fr x = s->e[0].value, x4;
			zkp_fr_add(&x, &x, &pre[0]);
			zkp_fr_sqr(&x4, &x);
			zkp_fr_sqr(&x4, &x4);
			zkp_fr_mul(&x, &x, &x4);
			zkp_fr_add(&x, &x, &post[0]);
			set_const(s->cs, &s->e[0], &x);
			continue;
		}
		sbox(s, &s->e[i], pre ? &pre[i] : NULL, post ? &post[i] : NULL);
	}
	mix(s);
}

zkp_num zkp_poseidon_circuit_direct(zkp_cs *cs, const zkp_poseidon_consts *c, const zkp_num *in)
{
	struct state st = { 0 }, *s = &st;
	zkp_num out = { 0 };
	s->cs = cs;
	s->c = c;
	s->t = c->t;
	set_const(cs, &s->e[0], &c->domain_tag);
	for (unsigned i = 1; i < s->t; i++) {
		s->e[i].allocated = true;
		s->e[i].var = in[i - 1].var;
		s->e[i].value = in[i - 1].value;
	}

	const unsigned half = c->rf / 2;
	full_round(s, true, false);
	for (unsigned r = 1; r < half; r++)
		full_round(s, false, false);
	for (unsigned r = 0; r < c->rp; r++) {
		sbox(s, &s->e[0], NULL, next_key(s));
		mix(s);
	}
	for (unsigned r = 0; r + 1 < half; r++)
		full_round(s, false, false);
	full_round(s, false, true);

	ensure_allocated(s, &s->e[1]);
	out.var = s->e[1].var;
	out.value = s->e[1].value;
	for (unsigned i = 0; i < ZKP_POSEIDON_MAX_T; i++) {
		zkp_lc_release(&s->e[i].lc);
		zkp_lc_release(&s->tmp[i].lc);
	}
	return out;
}

/* ---- ROWS passes: one recorded template per constant set ----
 *
 * Every Poseidon of one constant set emits the same rows up to its
 * variables, and building them costs most of a ROWS pass over a PoSt
 * circuit (the mixing's coefficient arithmetic). The first ROWS call for a
 * constant set records the rows (cs.h zkp_cs_template); later ones replay
 * them. Templates live until the process exits, like the constants. */

#define TEMPLATES 64

static pthread_mutex_t templates_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const zkp_poseidon_consts *c;
	zkp_cs_template t;
} templates[TEMPLATES];

static zkp_var record_block(zkp_cs *cs, const zkp_var *params, void *ctx)
{
	const zkp_poseidon_consts *c = ctx;
	zkp_num in[ZKP_POSEIDON_MAX_ARITY];
	for (unsigned i = 0; i < c->arity; i++) {
		in[i].var = params[i];
		zkp_fr_set_zero(&in[i].value);
	}
	return zkp_poseidon_circuit_direct(cs, c, in).var;
}

/* The template of c, recorded on first use; NULL when it cannot be (the
 * caller runs the gadget directly). */
static const zkp_cs_template *template_of(const zkp_poseidon_consts *c)
{
	const zkp_cs_template *ret = NULL;
	pthread_mutex_lock(&templates_lock);
	for (unsigned i = 0; i < TEMPLATES; i++) {
		if (templates[i].c == c) {
			ret = &templates[i].t;
			break;
		}
		if (!templates[i].c) {
			zkp_error err;
			if (!zkp_cs_template_record(&templates[i].t, c->arity, record_block, (void *)c,
						    &err)) {
				templates[i].c = c;
				ret = &templates[i].t;
			}
			break;
		}
	}
	pthread_mutex_unlock(&templates_lock);
	return ret;
}

zkp_num zkp_poseidon_circuit(zkp_cs *cs, const zkp_poseidon_consts *c, const zkp_num *in)
{
	if (zkp_cs_rows(cs)) {
		const zkp_cs_template *t = template_of(c);
		zkp_var params[ZKP_POSEIDON_MAX_ARITY];
		for (unsigned i = 0; i < c->arity; i++)
			params[i] = in[i].var;
		zkp_num out = { 0 };
		if (t && zkp_cs_replay(cs, t, params, &out.var))
			return out;
	}
	return zkp_poseidon_circuit_direct(cs, c, in);
}
