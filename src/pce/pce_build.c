/*
 * The .pce builder: constraints arrive one at a time as three linear
 * combinations. Each is merged into row[] (sorted by column, equal columns
 * summed, zero sums dropped) with its coefficients interned, and then,
 * depending on the builder:
 *  - a memory builder appends it to m[]: 8 bytes per non-zero (u32 column,
 *    u32 value id) plus one byte per row and matrix, encoded only by
 *    zkp_pce_builder_write (pce_write.c);
 *  - a counting builder only counts it, and on its second pass encodes it
 *    straight into the file (pce_stream.c).
 *
 * A coefficient is interned on arrival into one open-addressing table of
 * the distinct values (+1 and -1 have fixed ids 0 and 1 and never enter
 * it), so a PoRep-sized circuit (about 7 x 10^8 non-zeros, a few thousand
 * distinct values) needs about 6 GB in a memory builder instead of the
 * 25 GB of 32-byte coefficients, and nothing per non-zero in a counting one.
 */
#include <stdlib.h>
#include <string.h>

#include "build_int.h"
#include "zkpd/pool.h"

#define MAX_VALUES ((size_t)UINT32_MAX - 1)
#define MAX_ROWS ((uint64_t)1 << PCE_MAX_DOMAIN_LOG2)

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return ZKP_ERR_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Exactly n elements, when that is more than *cap. */
static int resize(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n <= *cap)
		return 0;
	void *q = realloc(*p, n * elem);
	if (!q)
		return ZKP_ERR_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Room for need rows in the row length arrays: exactly need, or doubling. */
static int reserve_rows(zkp_pce_builder *b, uint64_t need, bool exact)
{
	if (need <= b->rows_cap)
		return 0;
	size_t cap = need;
	if (!exact)
		for (cap = b->rows_cap ? 2 * b->rows_cap : 1024; cap < need;)
			cap *= 2;
	for (int m = 0; m < 3; m++) {
		uint8_t *p = realloc(b->m[m].row_len, cap);
		if (!p)
			return ZKP_ERR_NOMEM;
		b->m[m].row_len = p;
	}
	b->rows_cap = cap;
	return 0;
}

static int builder_new(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux, bool counting)
{
	*ret = NULL;
	if (n_inputs == 0 || n_inputs > ((uint64_t)1 << 32) || n_aux > ((uint64_t)1 << 32) - n_inputs)
		return ZKP_ERR_INVAL;
	zkp_pce_builder *b = calloc(1, sizeof(*b));
	if (!b)
		return ZKP_ERR_NOMEM;
	b->counting = counting;
	b->fingerprint = PCE_FINGERPRINT_SEED;
	b->n_inputs = n_inputs;
	b->n_aux = n_aux;
	b->nslots = 1024;
	b->slots = calloc(b->nslots, sizeof(uint32_t));
	b->vals_cap = 256;
	b->vals = malloc(b->vals_cap * sizeof(zkp_fr));
	b->density[0] = calloc(pce_bitmap_words(n_aux) + 1, 8);
	b->density[1] = calloc(pce_bitmap_words(n_inputs) + 1, 8);
	b->density[2] = calloc(pce_bitmap_words(n_aux) + 1, 8);
	if (!b->slots || !b->vals || !b->density[0] || !b->density[1] || !b->density[2]) {
		zkp_pce_builder_free(b);
		return ZKP_ERR_NOMEM;
	}
	zkp_fr_set_one(&b->vals[VID_ONE]);
	zkp_fr_neg(&b->vals[VID_MINUS_ONE], &b->vals[VID_ONE]);
	b->n_vals = 2;
	*ret = b;
	return 0;
}

int zkp_pce_builder_new(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux)
{
	return builder_new(ret, n_inputs, n_aux, false);
}

int zkp_pce_builder_new_counting(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux)
{
	return builder_new(ret, n_inputs, n_aux, true);
}

void zkp_pce_builder_free(zkp_pce_builder *b)
{
	if (!b)
		return;
	if (b->stream)
		pce_stream_abandon(b);
	for (int m = 0; m < 3; m++) {
		free(b->m[m].t);
		free(b->m[m].row_len);
		free(b->m[m].overflow);
		free(b->tally[m].uses);
		free(b->density[m]);
		free(b->row[m]);
	}
	free(b->vals);
	free(b->slots);
	free(b->scratch);
	free(b);
}

uint64_t zkp_pce_builder_rows(const zkp_pce_builder *b)
{
	return b->stream ? pce_stream_rows(b->stream) : b->rows;
}

int zkp_pce_builder_set_label(zkp_pce_builder *b, const uint8_t label[ZKP_PCE_LABEL_BYTES])
{
	memcpy(b->label, label, ZKP_PCE_LABEL_BYTES);
	return 0;
}

int zkp_pce_builder_reserve(zkp_pce_builder *b, uint64_t rows, const uint64_t nnz[3])
{
	if (b->counting)
		return 0;
	if (rows > MAX_ROWS)
		return ZKP_ERR_RANGE;
	for (int m = 0; nnz && m < 3; m++)
		if (nnz[m] > SIZE_MAX / sizeof(struct bterm))
			return ZKP_ERR_RANGE;
	if (reserve_rows(b, rows, true))
		return ZKP_ERR_NOMEM;
	for (int m = 0; nnz && m < 3; m++)
		if (resize((void **)&b->m[m].t, &b->m[m].cap, nnz[m], sizeof(struct bterm)))
			return ZKP_ERR_NOMEM;
	return 0;
}

static uint64_t popcount(const uint64_t *w, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < pce_bitmap_words(bits); i++)
		n += (uint64_t)__builtin_popcountll(w[i]);
	return n;
}

void zkp_pce_builder_get_stats(const zkp_pce_builder *b, zkp_pce_builder_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->rows = b->rows;
	ret->n_inputs = b->n_inputs;
	ret->n_aux = b->n_aux;
	for (int m = 0; m < 3; m++)
		ret->nnz[m] = b->counting ? b->tally[m].nnz : b->m[m].nnz;
	ret->a_aux = popcount(b->density[0], b->n_aux);
	ret->b_input = popcount(b->density[1], b->n_inputs);
	ret->b_aux = popcount(b->density[2], b->n_aux);
}

/* ---- interning ---- */

static inline size_t hash_fr(const zkp_fr *v, size_t mask)
{
	/* Montgomery limbs of distinct values look random; one multiply mixes
	 * them enough for linear probing. */
	uint64_t x = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ULL) ^ v->l[2] ^ v->l[3];
	x *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(x >> 17) & mask;
}

static int rehash(zkp_pce_builder *b)
{
	size_t n = b->nslots * 2, mask = n - 1;
	uint32_t *s = calloc(n, sizeof(uint32_t));
	if (!s)
		return ZKP_ERR_NOMEM;
	for (size_t vid = 2; vid < b->n_vals; vid++) {
		size_t h = hash_fr(&b->vals[vid], mask);
		while (s[h])
			h = (h + 1) & mask;
		s[h] = (uint32_t)vid + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 0;
}

/* The vid of v, or VID_NONE with *slot set to where v would go. */
static uint32_t lookup(const zkp_pce_builder *b, const zkp_fr *v, size_t *slot)
{
	if (zkp_fr_eq(v, &b->vals[VID_ONE]))
		return VID_ONE;
	if (zkp_fr_eq(v, &b->vals[VID_MINUS_ONE]))
		return VID_MINUS_ONE;
	size_t mask = b->nslots - 1, h = hash_fr(v, mask);
	for (; b->slots[h]; h = (h + 1) & mask) {
		uint32_t id = b->slots[h] - 1;
		if (zkp_fr_eq(&b->vals[id], v))
			return id;
	}
	*slot = h;
	return VID_NONE;
}

static int intern(zkp_pce_builder *b, const zkp_fr *v, uint32_t *vid)
{
	size_t h = 0;
	if ((*vid = lookup(b, v, &h)) != VID_NONE)
		return 0;
	if (b->n_vals >= MAX_VALUES)
		return ZKP_ERR_RANGE;
	if (grow((void **)&b->vals, &b->vals_cap, b->n_vals + 1, sizeof(zkp_fr)))
		return ZKP_ERR_NOMEM;
	b->vals[b->n_vals] = *v;
	b->slots[h] = (uint32_t)b->n_vals + 1;
	*vid = (uint32_t)b->n_vals++;
	/* Keep the load factor at most 1/2. */
	if (2 * b->n_vals > b->nslots && rehash(b))
		return ZKP_ERR_NOMEM;
	return 0;
}

/* ---- adding constraints ---- */

static int cmp_term(const void *x, const void *y)
{
	uint32_t a = ((const zkp_pce_term *)x)->col, c = ((const zkp_pce_term *)y)->col;
	return (a > c) - (a < c);
}

static void sort_terms(zkp_pce_term *t, size_t n)
{
	if (n > 16) {
		qsort(t, n, sizeof(*t), cmp_term);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		zkp_pce_term x = t[i];
		size_t j = i;
		for (; j > 0 && t[j - 1].col > x.col; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}

/* Merges one linear combination into row[m]: sorted by column, equal
 * columns summed, zero sums dropped. Coefficients are interned, or on a
 * second pass only looked up: a value the first pass never saw gets
 * VID_NONE, for pce_stream_row to report. */
static int merge_lc(zkp_pce_builder *b, int m, const zkp_pce_term *in, size_t n)
{
	const zkp_pce_term *t = in;
	bool sorted = true;
	size_t len = 0;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = in[i - 1].col < in[i].col;
	if (!sorted) {
		if (grow((void **)&b->scratch, &b->scratch_cap, n, sizeof(zkp_pce_term)))
			return ZKP_ERR_NOMEM;
		memcpy(b->scratch, in, n * sizeof(*in));
		sort_terms(b->scratch, n);
		t = b->scratch;
	}
	if (grow((void **)&b->row[m], &b->row_cap[m], n, sizeof(struct bterm)))
		return ZKP_ERR_NOMEM;

	for (size_t i = 0; i < n;) {
		zkp_fr sum = t[i].coeff;
		size_t j = i + 1;
		for (; j < n && t[j].col == t[i].col; j++)
			zkp_fr_add(&sum, &sum, &t[j].coeff);
		if (!zkp_fr_is_zero(&sum)) {
			uint32_t vid;
			size_t slot;
			if (b->stream) {
				vid = lookup(b, &sum, &slot);
			} else {
				int rc = intern(b, &sum, &vid);
				if (rc)
					return rc;
			}
			b->row[m][len++] = (struct bterm){ t[i].col, vid };
		}
		i = j;
	}
	b->row_n[m] = len;
	/* Overflow entries are u32. */
	return len > UINT32_MAX ? ZKP_ERR_RANGE : 0;
}

static inline void set_bit(uint64_t *w, uint64_t i) { w[i / 64] |= (uint64_t)1 << (i % 64); }

/* Density counts only the terms that survived merging. */
static void mark_density(zkp_pce_builder *b)
{
	for (int m = 0; m < 2; m++)
		for (size_t k = 0; k < b->row_n[m]; k++) {
			uint64_t col = b->row[m][k].col;
			if (col >= b->n_inputs)
				set_bit(b->density[m == 0 ? 0 : 2], col - b->n_inputs);
			else if (m == 1)
				set_bit(b->density[1], col);
		}
}

/* Appends the merged row[] to a memory builder as row b->rows. On
 * ZKP_ERR_NOMEM nothing was appended. */
static int store_row(zkp_pce_builder *b)
{
	if (reserve_rows(b, b->rows + 1, false))
		return ZKP_ERR_NOMEM;
	for (int m = 0; m < 3; m++) {
		struct lcs *l = &b->m[m];
		if (grow((void **)&l->t, &l->cap, l->nnz + b->row_n[m], sizeof(struct bterm)))
			return ZKP_ERR_NOMEM;
		if (b->row_n[m] >= PCE_ROW_LEN_OVERFLOW &&
		    grow((void **)&l->overflow, &l->ovf_cap, l->n_overflow + 1, sizeof(uint32_t)))
			return ZKP_ERR_NOMEM;
	}
	for (int m = 0; m < 3; m++) {
		struct lcs *l = &b->m[m];
		size_t len = b->row_n[m];
		if (len)
			memcpy(l->t + l->nnz, b->row[m], len * sizeof(struct bterm));
		l->nnz += len;
		if (len < PCE_ROW_LEN_OVERFLOW) {
			l->row_len[b->rows] = (uint8_t)len;
		} else {
			l->row_len[b->rows] = PCE_ROW_LEN_OVERFLOW;
			l->overflow[l->n_overflow++] = (uint32_t)len;
		}
	}
	return 0;
}

int zkp_pce_builder_add(zkp_pce_builder *b, const zkp_pce_term *a, size_t na,
			const zkp_pce_term *bt, size_t nb, const zkp_pce_term *c, size_t nc,
			zkp_error *err)
{
	const zkp_pce_term *lc[3] = { a, bt, c };
	const size_t n[3] = { na, nb, nc };
	const uint64_t nvars = b->n_inputs + b->n_aux;
	const unsigned long long row = zkp_pce_builder_rows(b);
	int rc = 0;

	for (int m = 0; m < 3; m++)
		for (size_t i = 0; i < n[m]; i++)
			if (lc[m][i].col >= nvars) {
				rc = zkp_error_set(err, ZKP_ERR_RANGE,
						   "constraint %llu: %c term %zu has column %u, the circuit has %llu variables",
						   row, "ABC"[m], i, lc[m][i].col,
						   (unsigned long long)nvars);
				goto out;
			}
	if (row >= MAX_ROWS) {
		rc = zkp_error_set(err, ZKP_ERR_RANGE,
				   "constraint %llu: a circuit holds at most 2^%d constraints", row,
				   PCE_MAX_DOMAIN_LOG2);
		goto out;
	}
	for (int m = 0; m < 3; m++)
		if ((rc = merge_lc(b, m, lc[m], n[m]))) {
			rc = zkp_error_set(err, rc, "constraint %llu: %s", row,
					   rc == ZKP_ERR_RANGE ? "too many distinct coefficients or terms"
							       : "no memory");
			goto out;
		}

	if (b->stream) {
		rc = pce_stream_row(b, err);
		goto out;
	}
	if ((rc = b->counting ? pce_count_row(b) : store_row(b))) {
		rc = zkp_error_set(err, rc, "constraint %llu: no memory", row);
		goto out;
	}
	mark_density(b);
	b->rows++;
out:
	/* A second pass that went wrong cannot be resumed: its file is gone. */
	if (rc && b->stream)
		pce_stream_abandon(b);
	return rc;
}

/* ---- appending a builder ---- */

/* The copy of src's rows into room dst already has, spread over a pool:
 * terms in ranges of each matrix (remapped to dst's value ids), the
 * density bitmaps in ranges of words. Offsets are dst's counts before the
 * append; each range writes only its own part of dst. */
#define APPEND_TERMS_GRAIN ((size_t)1 << 20)
#define APPEND_WORDS_GRAIN ((size_t)1 << 16)

struct append_job {
	zkp_pce_builder *dst;
	const zkp_pce_builder *src;
	const uint32_t *map;
	int m;			/* the matrix copy_terms works on */
};

static void copy_terms(void *arg, size_t begin, size_t end)
{
	const struct append_job *j = arg;
	const struct bterm *s = j->src->m[j->m].t;
	struct bterm *d = j->dst->m[j->m].t + j->dst->m[j->m].nnz;
	for (size_t k = begin; k < end; k++)
		d[k] = (struct bterm){ s[k].col, j->map[s[k].vid] };
}

static void or_density(void *arg, size_t begin, size_t end)
{
	const struct append_job *j = arg;
	for (int d = 0; d < 3; d++) {
		uint64_t words = pce_bitmap_words(d == 1 ? j->dst->n_inputs : j->dst->n_aux);
		for (size_t i = begin; i < end && i < words; i++)
			j->dst->density[d][i] |= j->src->density[d][i];
	}
}

int zkp_pce_builder_append(zkp_pce_builder *dst, const zkp_pce_builder *src, zkp_pool *pool,
			   zkp_error *err)
{
	if (dst->counting || src->counting || dst->stream || src->stream)
		return zkp_error_set(err, ZKP_ERR_INVAL, "appending takes two memory builders");
	if (dst->n_inputs != src->n_inputs || dst->n_aux != src->n_aux)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "appending rows over %llu inputs and %llu aux to a builder of %llu and %llu",
				     (unsigned long long)src->n_inputs, (unsigned long long)src->n_aux,
				     (unsigned long long)dst->n_inputs, (unsigned long long)dst->n_aux);
	if (src->rows > MAX_ROWS - dst->rows)
		return zkp_error_set(err, ZKP_ERR_RANGE, "a circuit holds at most 2^%d constraints",
				     PCE_MAX_DOMAIN_LOG2);
	/* Room first, so that a failure leaves dst's rows as they were. */
	uint32_t *map = malloc((src->n_vals ? src->n_vals : 1) * sizeof(uint32_t));
	if (!map || reserve_rows(dst, dst->rows + src->rows, false))
		goto nomem;
	for (int m = 0; m < 3; m++) {
		const struct lcs *s = &src->m[m];
		struct lcs *d = &dst->m[m];
		if (grow((void **)&d->t, &d->cap, d->nnz + s->nnz, sizeof(struct bterm)) ||
		    (s->n_overflow && grow((void **)&d->overflow, &d->ovf_cap,
					   d->n_overflow + s->n_overflow, sizeof(uint32_t))))
			goto nomem;
	}
	/* src's values by their ids in dst (interning only adds values, which
	 * no row uses until the copy below). */
	for (size_t v = 0; v < src->n_vals; v++) {
		int rc = intern(dst, &src->vals[v], &map[v]);
		if (rc) {
			free(map);
			return zkp_error_set(err, rc, rc == ZKP_ERR_RANGE ? "too many distinct coefficients"
									 : "no memory");
		}
	}
	struct append_job job = { dst, src, map, 0 };
	for (int m = 0; m < 3; m++) {
		const struct lcs *s = &src->m[m];
		struct lcs *d = &dst->m[m];
		job.m = m;
		zkp_pool_run(pool, s->nnz, APPEND_TERMS_GRAIN, copy_terms, &job);
		d->nnz += s->nnz;
		if (src->rows)
			memcpy(d->row_len + dst->rows, s->row_len, src->rows);
		if (s->n_overflow)
			memcpy(d->overflow + d->n_overflow, s->overflow,
			       s->n_overflow * sizeof(uint32_t));
		d->n_overflow += s->n_overflow;
	}
	uint64_t words = pce_bitmap_words(dst->n_inputs > dst->n_aux ? dst->n_inputs : dst->n_aux);
	zkp_pool_run(pool, (size_t)words, APPEND_WORDS_GRAIN, or_density, &job);
	dst->rows += src->rows;
	free(map);
	return 0;
nomem:
	free(map);
	return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory to append %llu rows",
			     (unsigned long long)src->rows);
}
