/*
 * The classic synthesizer's evaluation path (include/zkpd/baseline.h).
 *
 * Modelled on bellman's ProvingAssignment::enforce: each linear combination
 * starts empty and grows by pushing (variable, coefficient) terms into a
 * heap array that doubles when full (a Rust Vec: capacity 4 at the first
 * push), then eval walks it, reading the input or aux assignment by the
 * variable's kind, skipping the multiplication when the coefficient is 1,
 * and marking the density trackers (aux in A, inputs and aux in B, for
 * non-zero coefficients); then the arrays are freed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "zkpd/baseline.h"
#include "zkpd/synth.h"

enum var_kind { VAR_INPUT, VAR_AUX };

struct lc_term {
	uint32_t kind;
	uint64_t index;
	zkp_fr coeff;
};

struct lc {
	struct lc_term *t;
	size_t len, cap;
};

struct assignment {
	const zkp_fr *input, *aux;
	uint64_t n_inputs, n_aux, n, row;
	zkp_fr *out[3];
	uint64_t *a_aux, *b_input, *b_aux;
	zkp_baseline_stats st;
};

static int lc_push(struct lc *l, enum var_kind kind, uint64_t index, const zkp_fr *coeff,
		   struct assignment *pa)
{
	if (l->len == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4;
		struct lc_term *t = realloc(l->t, cap * sizeof(*t));
		if (!t)
			return ZKP_ERR_NOMEM;
		l->t = t;
		l->cap = cap;
		pa->st.lc_allocs++;
	}
	l->t[l->len++] = (struct lc_term){ kind, index, *coeff };
	return 0;
}

static inline void mark(uint64_t *bm, uint64_t i) { bm[i / 64] |= (uint64_t)1 << (i % 64); }

/* acc = sum coeff * value, with the trackers of this matrix (NULL: none). */
static void lc_eval(zkp_fr *acc, const struct lc *l, struct assignment *pa, uint64_t *input_d,
		    uint64_t *aux_d)
{
	zkp_fr_set_zero(acc);
	for (size_t i = 0; i < l->len; i++) {
		const struct lc_term *t = &l->t[i];
		zkp_fr tmp;
		if (t->kind == VAR_INPUT) {
			tmp = pa->input[t->index];
			if (input_d && !zkp_fr_is_zero(&t->coeff))
				mark(input_d, t->index);
		} else {
			tmp = pa->aux[t->index];
			if (aux_d && !zkp_fr_is_zero(&t->coeff))
				mark(aux_d, t->index);
		}
		if (!zkp_fr_is_one(&t->coeff)) {
			zkp_fr_mul(&tmp, &tmp, &t->coeff);
			pa->st.muls++;
		}
		zkp_fr_add(acc, acc, &tmp);
	}
	pa->st.terms += l->len;
}

static int enforce(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		   size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	struct assignment *pa = ctx;
	const zkp_pce_term *src[3] = { a, b, c };
	size_t len[3] = { na, nb, nc };
	struct lc lc[3];
	int rc = 0;
	memset(lc, 0, sizeof(lc));
	if (pa->row >= pa->n) {
		rc = zkp_error_set(err, ZKP_ERR_RANGE, "baseline: more than %llu constraints",
				   (unsigned long long)pa->n);
		goto out;
	}
	for (int m = 0; m < 3; m++)
		for (size_t i = 0; i < len[m]; i++) {
			uint64_t col = src[m][i].col;
			bool input = col < pa->n_inputs;
			rc = lc_push(&lc[m], input ? VAR_INPUT : VAR_AUX,
				     input ? col : col - pa->n_inputs, &src[m][i].coeff, pa);
			if (rc) {
				zkp_error_set(err, rc, "baseline: out of memory at constraint %llu",
					      (unsigned long long)pa->row);
				goto out;
			}
		}
	lc_eval(&pa->out[0][pa->row], &lc[0], pa, NULL, pa->a_aux);
	lc_eval(&pa->out[1][pa->row], &lc[1], pa, pa->b_input, pa->b_aux);
	lc_eval(&pa->out[2][pa->row], &lc[2], pa, NULL, NULL);
	pa->row++;
out:
	for (int m = 0; m < 3; m++)
		free(lc[m].t);
	return rc;
}

static uint64_t popcount(const uint64_t *bm, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < (bits + 63) / 64; i++)
		n += (uint64_t)__builtin_popcountll(bm[i]);
	return n;
}

int zkp_baseline_porep(uint64_t n, uint64_t seed, zkp_fr *w, zkp_fr *a, zkp_fr *b, zkp_fr *c,
		       zkp_baseline_stats *st, zkp_error *err)
{
	struct assignment pa;
	memset(&pa, 0, sizeof(pa));
	pa.n = n;
	pa.n_inputs = zkp_synth_porep_inputs(n);
	pa.n_aux = n; /* an upper bound: no row allocates more than one aux */
	pa.input = w;
	pa.aux = w + pa.n_inputs;
	pa.out[0] = a;
	pa.out[1] = b;
	pa.out[2] = c;
	pa.a_aux = calloc((pa.n_aux + 63) / 64, 8);
	pa.b_input = calloc((pa.n_inputs + 63) / 64, 8);
	pa.b_aux = calloc((pa.n_aux + 63) / 64, 8);
	int rc;
	if (!pa.a_aux || !pa.b_input || !pa.b_aux) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "baseline: out of memory");
		goto out;
	}
	rc = zkp_synth_porep(n, seed, enforce, &pa, w, NULL, err);
	if (!rc && st) {
		*st = pa.st;
		st->a_aux_density = popcount(pa.a_aux, pa.n_aux);
		st->b_input_density = popcount(pa.b_input, pa.n_inputs);
		st->b_aux_density = popcount(pa.b_aux, pa.n_aux);
	}
out:
	free(pa.a_aux);
	free(pa.b_input);
	free(pa.b_aux);
	return rc;
}
