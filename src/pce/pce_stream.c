/*
 * The two-pass builder, for circuits too large to hold (Filecoin PoRep:
 * 7 x 10^8 non-zeros) whose synthesis is deterministic and cheap to run
 * twice:
 *  1. a counting builder merges every row as a memory builder would, but
 *     keeps only counts: rows, non-zeros and long rows per matrix, the uses
 *     of each value per matrix, the density bitmaps and a fingerprint of
 *     the rows;
 *  2. zkp_pce_builder_stream_begin turns those counts into the coding, the
 *     layout and the temporary file with its sinks, and the same rows added
 *     again are each encoded straight into the file.
 * Memory does not grow with the non-zeros or the rows: bitmaps, the values
 * with their counts, and 21 section buffers.
 *
 * The second pass is held to the first as each row arrives, cheaply: no
 * more rows, non-zeros or long rows than counted, and every coefficient one
 * the first pass used in that matrix, no more often than it did. These keep
 * every section within its planned size. At the end, equal totals and an
 * equal fingerprint (row lengths, columns and values, in order) mean the
 * file is the one a memory builder writes for these rows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_int.h"

struct stream {
	char *path;
	struct pce_file f; /* f.path is path */
	struct coding cd[3];
	uint64_t *left[3]; /* per vid: uses in matrix m not yet seen again */
	struct sink s[3][PCE_MATRIX_SECTIONS];
	bool open[3];      /* s[m] holds open sinks */
	struct row_pos pos[3];
	uint64_t rows, fingerprint;
};

/* ---- the first pass ---- */

/* One step of an invertible mix ((h ^ x) * odd, then an xorshift), so rows
 * that differ in one word always give different fingerprints, and any
 * other difference collides with probability about 2^-64. */
static inline uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* Folds the merged row[] into h: each matrix's length, then its terms. */
static uint64_t fingerprint_row(const zkp_pce_builder *b, uint64_t h)
{
	for (int m = 0; m < 3; m++) {
		h = mix(h, b->row_n[m]);
		for (size_t k = 0; k < b->row_n[m]; k++)
			h = mix(h, (uint64_t)b->row[m][k].col << 32 | b->row[m][k].vid);
	}
	return h;
}

/* A use count for every interned value, new ones zero. */
static int ensure_uses(zkp_pce_builder *b)
{
	if (b->n_vals <= b->uses_cap)
		return 0;
	size_t cap = b->vals_cap;
	for (int m = 0; m < 3; m++) {
		uint64_t *p = realloc(b->tally[m].uses, cap * sizeof(uint64_t));
		if (!p)
			return ZKP_ERR_NOMEM;
		memset(p + b->uses_cap, 0, (cap - b->uses_cap) * sizeof(uint64_t));
		b->tally[m].uses = p;
	}
	b->uses_cap = cap;
	return 0;
}

int pce_count_row(zkp_pce_builder *b)
{
	if (ensure_uses(b))
		return ZKP_ERR_NOMEM;
	for (int m = 0; m < 3; m++) {
		struct tally *t = &b->tally[m];
		t->nnz += b->row_n[m];
		t->n_overflow += b->row_n[m] >= PCE_ROW_LEN_OVERFLOW;
		for (size_t k = 0; k < b->row_n[m]; k++)
			t->uses[b->row[m][k].vid]++;
	}
	b->fingerprint = fingerprint_row(b, b->fingerprint);
	return 0;
}

/* ---- the stream's lifetime ---- */

static void stream_free(struct stream *st)
{
	if (!st)
		return;
	for (int m = 0; m < 3; m++) {
		if (st->open[m])
			pce_sinks_drop(st->s[m]);
		pce_coding_release(&st->cd[m]);
		free(st->left[m]);
	}
	pce_file_release(&st->f);
	free(st->path);
	free(st);
}

void pce_stream_abandon(zkp_pce_builder *b)
{
	stream_free(b->stream);
	b->stream = NULL;
}

uint64_t pce_stream_rows(const struct stream *st) { return st->rows; }

/* The coding, the counts left to see and the header counts, from tally[]. */
static int stream_plan(struct stream *st, const zkp_pce_builder *b, struct pce_counts c[3])
{
	for (int m = 0; m < 3; m++) {
		const struct tally *t = &b->tally[m];
		st->left[m] = malloc(b->n_vals * sizeof(uint64_t));
		if (!st->left[m] || pce_coding_make(&st->cd[m], b, t->uses))
			return ZKP_ERR_NOMEM;
		memcpy(st->left[m], t->uses, b->n_vals * sizeof(uint64_t));
		c[m] = (struct pce_counts){ t->nnz, st->cd[m].n_values, st->cd[m].n_escapes,
					    t->n_overflow };
	}
	return 0;
}

int zkp_pce_builder_stream_begin(zkp_pce_builder *b, const char *path, zkp_error *err)
{
	struct stream *st = NULL;
	struct pce_counts c[3];
	int rc = 0;

	if (!b->counting)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: only a counting builder (zkp_pce_builder_new_counting) streams",
				     path);
	if (b->stream) {
		pce_stream_abandon(b);
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: a second pass was already under way; it is abandoned", path);
	}
	if (ensure_uses(b) || !(st = calloc(1, sizeof(*st))) || !(st->path = strdup(path))) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", path);
		goto out;
	}
	st->f.path = st->path;
	st->f.fd = -1;
	st->fingerprint = PCE_FINGERPRINT_SEED;
	if (stream_plan(st, b, c)) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", path);
		goto out;
	}
	if ((rc = pce_file_plan(&st->f, b, b->rows, c, err)) || (rc = pce_file_create(&st->f, err)))
		goto out;
	/* The values are known now; the rows fill the other sections. */
	for (int m = 0; m < 3; m++) {
		if ((rc = pce_file_open_sinks(&st->f, st->s[m], m, err)))
			goto out;
		st->open[m] = true;
		pce_put_values(st->s[m], b, &st->cd[m]);
	}
	b->stream = st;
	st = NULL;
out:
	stream_free(st);
	return rc;
}

/* ---- the second pass ---- */

static int mismatch(zkp_error *err, uint64_t row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int mismatch(zkp_error *err, uint64_t row, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return zkp_error_set(err, ZKP_ERR_MISMATCH,
			     "constraint %llu: the second pass differs from the counting pass: %s",
			     (unsigned long long)row, what);
}

/* Holds matrix m's merged row to what the first pass counted; the uses
 * it makes are taken off left[m]. */
static int check_lc(const zkp_pce_builder *b, struct stream *st, int m, zkp_error *err)
{
	const struct tally *t = &b->tally[m];
	const uint64_t len = b->row_n[m];
	const char name = "ABC"[m];

	if (st->pos[m].nnz + len > t->nnz)
		return mismatch(err, st->rows, "matrix %c has more than the %llu non-zeros counted",
				name, (unsigned long long)t->nnz);
	if (len >= PCE_ROW_LEN_OVERFLOW && st->pos[m].n_overflow >= t->n_overflow)
		return mismatch(err, st->rows,
				"matrix %c has more than the %llu rows of 255 or more non-zeros counted",
				name, (unsigned long long)t->n_overflow);
	for (size_t k = 0; k < len; k++) {
		const struct bterm *x = &b->row[m][k];
		if (x->vid == VID_NONE || t->uses[x->vid] == 0)
			return mismatch(err, st->rows,
					"matrix %c has a coefficient (column %u) the counting pass never had there",
					name, x->col);
		if (st->left[m][x->vid] == 0)
			return mismatch(err, st->rows,
					"matrix %c uses a coefficient (column %u) more often than the counting pass",
					name, x->col);
		st->left[m][x->vid]--;
	}
	return 0;
}

/* The first write or hashing failure of any sink so far. */
static int sinks_failed(const struct stream *st, zkp_error *err)
{
	for (int m = 0; m < 3; m++)
		for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++) {
			int e = st->s[m][k].err;
			if (e)
				return zkp_error_set(err, e < 0 ? ZKP_ERR_NOMEM : ZKP_ERR_IO,
						     "%s: writing matrix %c to %s: %s", st->path,
						     "ABC"[m], st->f.tmp,
						     e < 0 ? "SHA-256 failed" : strerror(e));
		}
	return 0;
}

int pce_stream_row(zkp_pce_builder *b, zkp_error *err)
{
	struct stream *st = b->stream;
	int rc;

	if (st->rows >= b->rows)
		return mismatch(err, st->rows, "there are more than the %llu rows counted",
				(unsigned long long)b->rows);
	for (int m = 0; m < 3; m++)
		if ((rc = check_lc(b, st, m, err)))
			return rc;
	for (int m = 0; m < 3; m++)
		pce_encode_row(st->s[m], &st->cd[m], b->row[m], b->row_n[m], st->rows, &st->pos[m]);
	if ((rc = sinks_failed(st, err)))
		return rc;
	st->fingerprint = fingerprint_row(b, st->fingerprint);
	st->rows++;
	return 0;
}

/* With every row in: the second pass's totals and fingerprint against the
 * first's. Each use was checked against left[] as it came, so equal
 * non-zeros also mean equal uses of every value, hence equal escapes. */
static int check_totals(const zkp_pce_builder *b, const struct stream *st, zkp_error *err)
{
	if (st->rows != b->rows)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: the second pass has %llu rows, the counting pass had %llu",
				     st->path, (unsigned long long)st->rows,
				     (unsigned long long)b->rows);
	for (int m = 0; m < 3; m++) {
		if (st->pos[m].nnz != b->tally[m].nnz)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "%s: matrix %c has %llu non-zeros in the second pass, %llu in the counting pass",
					     st->path, "ABC"[m], (unsigned long long)st->pos[m].nnz,
					     (unsigned long long)b->tally[m].nnz);
		if (st->pos[m].n_overflow != b->tally[m].n_overflow)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "%s: matrix %c has %llu rows of 255 or more non-zeros in the second pass, %llu in the counting pass",
					     st->path, "ABC"[m],
					     (unsigned long long)st->pos[m].n_overflow,
					     (unsigned long long)b->tally[m].n_overflow);
	}
	if (st->fingerprint != b->fingerprint)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: the second pass has the counting pass's counts but other rows (columns, coefficients or row lengths differ)",
				     st->path);
	return 0;
}

int pce_stream_write(zkp_pce_builder *b, const char *path, zkp_error *err)
{
	struct stream *st = b->stream;
	int rc = 0;

	if (strcmp(path, st->path) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL,
				   "%s: the second pass was streamed for %s; it is abandoned", path,
				   st->path);
		goto out;
	}
	if ((rc = check_totals(b, st, err)))
		goto out;
	for (int m = 0; m < 3; m++) {
		st->open[m] = false;
		if ((rc = pce_file_close_sinks(&st->f, st->s[m], m, err)))
			goto out;
	}
	/* The first pass's bitmaps: the fingerprint says the columns agree. */
	rc = pce_file_finish(&st->f, b, err);
out:
	pce_stream_abandon(b);
	return rc;
}
