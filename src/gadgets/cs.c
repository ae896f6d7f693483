/*
 * The constraint system in its three modes (include/zkpd/cs.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkpd/cs.h"

static zkp_fr pow2_table[256];
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void pow2_init(void)
{
	zkp_fr_set_one(&pow2_table[0]);
	for (int i = 1; i < 256; i++)
		zkp_fr_dbl(&pow2_table[i], &pow2_table[i - 1]);
}

const zkp_fr *zkp_cs_pow2(unsigned i)
{
	pthread_once(&pow2_once, pow2_init);
	return &pow2_table[i & 255];
}

static void init(zkp_cs *cs, enum zkp_cs_mode mode)
{
	memset(cs, 0, sizeof(*cs));
	cs->mode = mode;
	cs->inputs = 1; /* ONE */
	pthread_once(&pow2_once, pow2_init);
}

void zkp_cs_init_shape(zkp_cs *cs) { init(cs, ZKP_CS_SHAPE); }

void zkp_cs_init_rows(zkp_cs *cs, uint64_t total_inputs, zkp_cs_row_fn row, void *ctx)
{
	init(cs, ZKP_CS_ROWS);
	cs->total_inputs = total_inputs;
	cs->row = row;
	cs->row_ctx = ctx;
}

void zkp_cs_init_rows_at(zkp_cs *cs, uint64_t total_inputs, zkp_cs_row_fn row, void *ctx,
			 uint64_t inputs, uint64_t aux)
{
	zkp_cs_init_rows(cs, total_inputs, row, ctx);
	cs->inputs = inputs;
	cs->aux = aux;
}

void zkp_cs_init_witness(zkp_cs *cs, uint64_t total_inputs, uint64_t total_aux, zkp_fr *w)
{
	init(cs, ZKP_CS_WITNESS);
	cs->total_inputs = total_inputs;
	cs->total_aux = total_aux;
	cs->w = w;
	zkp_fr_set_one(&w[0]);
}

void zkp_cs_init_witness_at(zkp_cs *cs, uint64_t total_inputs, uint64_t total_aux, zkp_fr *w,
			    uint64_t inputs, uint64_t aux)
{
	init(cs, ZKP_CS_WITNESS);
	cs->total_inputs = total_inputs;
	cs->total_aux = total_aux;
	cs->w = w;
	cs->inputs = inputs;
	cs->aux = aux;
}

void zkp_cs_release(zkp_cs *cs)
{
	for (int m = 0; m < 3; m++) {
		free(cs->scratch[m]);
		zkp_lc_release(&cs->lc[m]);
	}
	memset(cs->scratch, 0, sizeof(cs->scratch));
	memset(cs->scratch_cap, 0, sizeof(cs->scratch_cap));
}

int zkp_cs_fail(zkp_cs *cs, int code, const char *fmt, ...)
{
	if (cs->err)
		return cs->err;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cs->error.msg, sizeof(cs->error.msg), fmt, ap);
	va_end(ap);
	cs->error.code = code;
	cs->err = code;
	return code;
}

static inline uint64_t column(const zkp_cs *cs, zkp_var v)
{
	return v & ZKP_VAR_INPUT ? (uint64_t)(v & ~ZKP_VAR_INPUT) : cs->total_inputs + v;
}

static zkp_var new_aux(zkp_cs *cs)
{
	if (cs->aux >= ZKP_VAR_INPUT) {
		zkp_cs_fail(cs, ZKP_ERR_RANGE, "more than 2^31 aux variables");
		return 0;
	}
	return (zkp_var)cs->aux++;
}

/* A witness pass writes only inside w. */
static bool in_w(zkp_cs *cs)
{
	if (cs->aux <= cs->total_aux)
		return true;
	zkp_cs_fail(cs, ZKP_ERR_RANGE, "aux variable %llu: the witness holds %llu",
		    (unsigned long long)cs->aux - 1, (unsigned long long)cs->total_aux);
	return false;
}

zkp_var zkp_cs_alloc(zkp_cs *cs, const zkp_fr *value)
{
	zkp_var v = new_aux(cs);
	if (cs->mode == ZKP_CS_WITNESS && in_w(cs)) {
		zkp_fr *dst = &cs->w[column(cs, v)];
		if (value)
			*dst = *value;
		else
			zkp_fr_set_zero(dst);
	}
	return v;
}

zkp_var zkp_cs_alloc_bit(zkp_cs *cs, bool value)
{
	zkp_var v = new_aux(cs);
	if (cs->mode == ZKP_CS_WITNESS && in_w(cs)) {
		zkp_fr *dst = &cs->w[column(cs, v)];
		if (value)
			zkp_fr_set_one(dst);
		else
			zkp_fr_set_zero(dst);
	}
	return v;
}

zkp_var zkp_cs_alloc_input(zkp_cs *cs, const zkp_fr *value)
{
	if (cs->inputs >= ZKP_VAR_INPUT) {
		zkp_cs_fail(cs, ZKP_ERR_RANGE, "more than 2^31 inputs");
		return ZKP_CS_ONE;
	}
	zkp_var v = (zkp_var)cs->inputs++ | ZKP_VAR_INPUT;
	if (cs->mode == ZKP_CS_WITNESS) {
		if (cs->inputs > cs->total_inputs) {
			zkp_cs_fail(cs, ZKP_ERR_RANGE, "input %llu: the circuit has %llu inputs",
				    (unsigned long long)cs->inputs - 1,
				    (unsigned long long)cs->total_inputs);
			return v;
		}
		zkp_fr *dst = &cs->w[column(cs, v)];
		if (value)
			*dst = *value;
		else
			zkp_fr_set_zero(dst);
	}
	return v;
}

const zkp_fr *zkp_cs_value(const zkp_cs *cs, zkp_var v)
{
	static const zkp_fr zero;
	if (cs->mode != ZKP_CS_WITNESS)
		return &zero;
	return &cs->w[column(cs, v)];
}

static int to_terms(zkp_cs *cs, int m, const zkp_lc *lc)
{
	if (!lc || lc->n == 0)
		return 0;
	if (cs->scratch_cap[m] < lc->n) {
		size_t cap = cs->scratch_cap[m] ? cs->scratch_cap[m] : 64;
		while (cap < lc->n)
			cap *= 2;
		zkp_pce_term *p = realloc(cs->scratch[m], cap * sizeof(*p));
		if (!p)
			return zkp_cs_fail(cs, ZKP_ERR_NOMEM, "row %llu: no memory",
					   (unsigned long long)cs->rows);
		cs->scratch[m] = p;
		cs->scratch_cap[m] = cap;
	}
	for (uint32_t i = 0; i < lc->n; i++) {
		uint64_t col = column(cs, lc->t[i].var);
		if (col > UINT32_MAX)
			return zkp_cs_fail(cs, ZKP_ERR_RANGE, "row %llu: column %llu past 2^32",
					   (unsigned long long)cs->rows, (unsigned long long)col);
		cs->scratch[m][i].col = (uint32_t)col;
		cs->scratch[m][i].coeff = lc->t[i].coeff;
	}
	return 0;
}

void zkp_cs_enforce(zkp_cs *cs, const zkp_lc *a, const zkp_lc *b, const zkp_lc *c)
{
	if (cs->mode == ZKP_CS_ROWS && !cs->err) {
		const zkp_lc *lc[3] = { a, b, c };
		for (int m = 0; m < 3; m++)
			if (to_terms(cs, m, lc[m]))
				return;
		int rc = cs->row(cs->row_ctx, cs->scratch[0], a ? a->n : 0, cs->scratch[1],
				 b ? b->n : 0, cs->scratch[2], c ? c->n : 0, &cs->error);
		if (rc) {
			cs->err = rc;
			return;
		}
	}
	cs->rows++;
}

void zkp_cs_enforce_scratch(zkp_cs *cs)
{
	zkp_cs_enforce(cs, &cs->lc[0], &cs->lc[1], &cs->lc[2]);
	for (int m = 0; m < 3; m++)
		zkp_lc_clear(&cs->lc[m]);
}

/* ---- recorded blocks ---- */

static int capture(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b, size_t nb,
		   const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	zkp_cs_template *t = ctx;
	size_t n = na + nb + nc;
	uint32_t *counts = realloc(t->counts, (size_t)(t->n_rows + 1) * 3 * sizeof(uint32_t));
	if (counts)
		t->counts = counts;
	zkp_pce_term *terms = realloc(t->terms, (size_t)(t->n_terms + n) * sizeof(zkp_pce_term));
	if (terms)
		t->terms = terms;
	if (!counts || !terms)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory to record a block");
	counts += t->n_rows * 3;
	counts[0] = (uint32_t)na;
	counts[1] = (uint32_t)nb;
	counts[2] = (uint32_t)nc;
	zkp_pce_term *dst = terms + t->n_terms;
	memcpy(dst, a, na * sizeof(*a));
	memcpy(dst + na, b, nb * sizeof(*b));
	memcpy(dst + na + nb, c, nc * sizeof(*c));
	t->n_rows++;
	t->n_terms += n;
	return 0;
}

int zkp_cs_template_record(zkp_cs_template *t, uint32_t nparams, zkp_cs_block_fn fn, void *ctx,
			   zkp_error *err)
{
	memset(t, 0, sizeof(*t));
	t->nparams = nparams;
	zkp_cs rc;
	zkp_var params[64];
	if (nparams > 64)
		return zkp_error_set(err, ZKP_ERR_INVAL, "a block of %u parameters: at most 64",
				     nparams);
	zkp_cs_init_rows(&rc, 1 + (uint64_t)nparams, capture, t);
	for (uint32_t i = 0; i < nparams; i++)
		params[i] = zkp_cs_alloc_input(&rc, NULL);
	zkp_var out = fn(&rc, params, ctx);
	int code = rc.err;
	if (code)
		zkp_error_set(err, code, "%s", rc.error.msg);
	else if (out & ZKP_VAR_INPUT)
		code = zkp_error_set(err, ZKP_ERR_INVAL, "a recorded block must return a variable it allocated");
	t->n_aux = (uint32_t)rc.aux;
	t->out = out;
	zkp_cs_release(&rc);
	if (code)
		zkp_cs_template_release(t);
	return code;
}

void zkp_cs_template_release(zkp_cs_template *t)
{
	free(t->counts);
	free(t->terms);
	memset(t, 0, sizeof(*t));
}

bool zkp_cs_replay(zkp_cs *cs, const zkp_cs_template *t, const zkp_var *params, zkp_var *out)
{
	*out = 0;
	if (cs->mode != ZKP_CS_ROWS || t->nparams > 64)
		return false;
	uint64_t cols[65];
	cols[0] = 0;
	for (uint32_t i = 0; i < t->nparams; i++) {
		if (params[i] == ZKP_CS_ONE)
			return false;
		for (uint32_t j = 0; j < i; j++)
			if (params[j] == params[i])
				return false;
		cols[1 + i] = column(cs, params[i]);
	}
	if (cs->err)
		return true;
	const uint64_t base = cs->total_inputs + cs->aux;
	if (cs->aux + t->n_aux >= ZKP_VAR_INPUT || base + t->n_aux > UINT32_MAX) {
		zkp_cs_fail(cs, ZKP_ERR_RANGE, "row %llu: columns past 2^32",
			    (unsigned long long)cs->rows);
		return true;
	}
	const zkp_pce_term *src = t->terms;
	for (uint64_t r = 0; r < t->n_rows; r++) {
		const uint32_t *n = &t->counts[3 * r];
		for (int m = 0; m < 3; m++) {
			if (cs->scratch_cap[m] < n[m]) {
				size_t cap = cs->scratch_cap[m] ? cs->scratch_cap[m] : 64;
				while (cap < n[m])
					cap *= 2;
				zkp_pce_term *p = realloc(cs->scratch[m], cap * sizeof(*p));
				if (!p) {
					zkp_cs_fail(cs, ZKP_ERR_NOMEM, "row %llu: no memory",
						    (unsigned long long)cs->rows);
					return true;
				}
				cs->scratch[m] = p;
				cs->scratch_cap[m] = cap;
			}
			for (uint32_t i = 0; i < n[m]; i++, src++) {
				uint32_t c = src->col;
				cs->scratch[m][i].col =
					(uint32_t)(c <= t->nparams ? cols[c] : base + (c - 1 - t->nparams));
				cs->scratch[m][i].coeff = src->coeff;
			}
		}
		int rc = cs->row(cs->row_ctx, cs->scratch[0], n[0], cs->scratch[1], n[1],
				 cs->scratch[2], n[2], &cs->error);
		if (rc) {
			cs->err = rc;
			return true;
		}
		cs->rows++;
	}
	*out = (zkp_var)(cs->aux + t->out);
	cs->aux += t->n_aux;
	return true;
}

/* ---- linear combinations ---- */

void zkp_lc_release(zkp_lc *lc)
{
	free(lc->t);
	lc->t = NULL;
	lc->n = lc->cap = 0;
}

static bool lc_reserve(zkp_cs *cs, zkp_lc *lc, uint32_t extra)
{
	if (lc->n + extra <= lc->cap)
		return true;
	uint32_t cap = lc->cap ? lc->cap : 16;
	while (cap < lc->n + extra)
		cap *= 2;
	zkp_lc_term *t = realloc(lc->t, (size_t)cap * sizeof(*t));
	if (!t) {
		zkp_cs_fail(cs, ZKP_ERR_NOMEM, "row %llu: no memory for a linear combination",
			    (unsigned long long)cs->rows);
		return false;
	}
	lc->t = t;
	lc->cap = cap;
	return true;
}

void zkp_lc_add(zkp_cs *cs, zkp_lc *lc, zkp_var v, const zkp_fr *coeff)
{
	if (cs->mode != ZKP_CS_ROWS || !lc_reserve(cs, lc, 1))
		return;
	zkp_lc_term *t = &lc->t[lc->n++];
	t->var = v;
	if (coeff)
		t->coeff = *coeff;
	else
		zkp_fr_set_one(&t->coeff);
}

void zkp_lc_sub(zkp_cs *cs, zkp_lc *lc, zkp_var v, const zkp_fr *coeff)
{
	if (cs->mode != ZKP_CS_ROWS || !lc_reserve(cs, lc, 1))
		return;
	zkp_lc_term *t = &lc->t[lc->n++];
	t->var = v;
	if (coeff)
		zkp_fr_neg(&t->coeff, coeff);
	else
		zkp_fr_neg(&t->coeff, zkp_cs_pow2(0));
}

void zkp_lc_add_lc(zkp_cs *cs, zkp_lc *lc, const zkp_lc *other, const zkp_fr *coeff)
{
	if (cs->mode != ZKP_CS_ROWS || !lc_reserve(cs, lc, other->n))
		return;
	for (uint32_t i = 0; i < other->n; i++) {
		zkp_lc_term *t = &lc->t[lc->n++];
		t->var = other->t[i].var;
		if (coeff)
			zkp_fr_mul(&t->coeff, &other->t[i].coeff, coeff);
		else
			t->coeff = other->t[i].coeff;
	}
}

void zkp_lc_copy(zkp_cs *cs, zkp_lc *dst, const zkp_lc *src)
{
	zkp_lc_clear(dst);
	zkp_lc_add_lc(cs, dst, src, NULL);
}

void zkp_lc_compact(zkp_cs *cs, zkp_lc *lc)
{
	if (cs->mode != ZKP_CS_ROWS)
		return;
	/* Quadratic, but only used on combinations of a few dozen terms
	 * (Poseidon lanes); keeps the order of first appearance. */
	uint32_t out = 0;
	for (uint32_t i = 0; i < lc->n; i++) {
		uint32_t j = 0;
		for (; j < out; j++)
			if (lc->t[j].var == lc->t[i].var)
				break;
		if (j < out)
			zkp_fr_add(&lc->t[j].coeff, &lc->t[j].coeff, &lc->t[i].coeff);
		else
			lc->t[out++] = lc->t[i];
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < out; i++)
		if (!zkp_fr_is_zero(&lc->t[i].coeff))
			lc->t[n++] = lc->t[i];
	lc->n = n;
}
