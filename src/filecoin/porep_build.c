/*
 * Writing the partition circuit's .pce with its challenges synthesized on
 * a thread pool (include/zkpd/porep.h, zkp_porep_circuit_write_parallel).
 *
 * Every challenge allocates alike (porep_int.h), so challenge i's rows can
 * be synthesized on any thread with the columns the whole circuit gives
 * them. Each part (the global part, then each challenge) goes into a
 * memory builder of its own, which merges and interns its rows on that
 * thread; the parts are then appended in order into the first
 * (zkp_pce_builder_append: the same bytes as one builder fed every row;
 * each part's copy spread over the pool), each freed once appended, and
 * that one is written. One synthesis pass where the streaming builder
 * runs three, at the price of holding the rows: about 8 bytes a non-zero
 * (5.8 GB at 32 GiB) and each part's density bitmaps (about 33 MB at
 * 32 GiB).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "porep_int.h"
#include "zkpd/pool.h"

struct build {
	const zkp_porep_shape *s;
	struct porep_layout lay;
	struct porep_globals g;
	zkp_pce_builder **parts; /* [0]: the global part, [1 + i]: challenge i */
	pthread_mutex_t lock;
	int err;
	zkp_error error;
	unsigned failed; /* the challenge err names: the lowest that failed */
};

static int builder_row(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		       size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	return zkp_pce_builder_add(ctx, a, na, b, nb, c, nc, err);
}

static void build_fail(struct build *p, unsigned i, int rc, const zkp_error *e)
{
	pthread_mutex_lock(&p->lock);
	if (!p->err || i < p->failed) {
		p->err = rc;
		p->failed = i;
		zkp_error_set(&p->error, rc, "challenge %u: %s", i, zkp_error_text(e, rc));
	}
	pthread_mutex_unlock(&p->lock);
}

static void build_chunk(void *arg, size_t begin, size_t end)
{
	struct build *p = arg;
	const struct porep_layout *y = &p->lay;
	struct porep_scratch *x = malloc(sizeof(*x));
	for (size_t i = begin; i < end; i++) {
		zkp_error e = { 0 };
		int rc = x ? zkp_pce_builder_new(&p->parts[1 + i], y->inputs, y->aux) : ZKP_ERR_NOMEM;
		if (rc) {
			zkp_error_set(&e, rc, "no memory for a builder");
			build_fail(p, (unsigned)i, rc, &e);
			continue;
		}
		zkp_cs cs;
		zkp_cs_init_rows_at(&cs, y->inputs, builder_row, p->parts[1 + i],
				    y->in0 + i * y->in_per, y->aux0 + i * y->aux_per);
		porep_challenge(&cs, p->s, NULL, &p->g, x);
		if (!zkp_cs_error(&cs) && (cs.aux != y->aux0 + (i + 1) * y->aux_per ||
					   cs.inputs != y->in0 + (i + 1) * y->in_per ||
					   cs.rows != y->rows_per))
			zkp_cs_fail(&cs, ZKP_ERR_MISMATCH, "emitted other than its shape");
		if ((rc = zkp_cs_error(&cs)))
			build_fail(p, (unsigned)i, rc, &cs.error);
		zkp_cs_release(&cs);
	}
	free(x);
}

int zkp_porep_circuit_write_parallel(const zkp_porep_shape *s, const char *path,
				     zkp_pce_builder_stats *stats, zkp_pool *pool, zkp_error *err)
{
	struct build p = { .s = s };
	size_t nparts = 1 + (size_t)s->challenges;
	int rc;

	if ((rc = porep_layout(s, &p.lay, err)))
		return rc;
	p.parts = calloc(nparts, sizeof(*p.parts));
	if (!p.parts)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %zu builders", nparts);
	zkp_pce_builder *b = NULL;
	if ((rc = zkp_pce_builder_new(&p.parts[0], p.lay.inputs, p.lay.aux))) {
		zkp_error_set(err, rc, "a builder for %llu inputs and %llu aux",
			      (unsigned long long)p.lay.inputs, (unsigned long long)p.lay.aux);
		goto out;
	}
	b = p.parts[0];

	/* The global part on the caller; the challenges read its variables. */
	zkp_cs cs;
	zkp_cs_init_rows(&cs, p.lay.inputs, builder_row, b);
	porep_global_part(&cs, NULL, &p.g);
	if (!zkp_cs_error(&cs) && (cs.inputs != p.lay.in0 || cs.aux != p.lay.aux0 ||
				   cs.rows != p.lay.rows0))
		zkp_cs_fail(&cs, ZKP_ERR_MISMATCH, "emitted other than its shape");
	if ((rc = zkp_cs_error(&cs)))
		zkp_error_set(err, rc, "global part: %s", zkp_error_text(&cs.error, rc));
	zkp_cs_release(&cs);
	if (rc)
		goto out;

	pthread_mutex_init(&p.lock, NULL);
	zkp_pool_run(pool, s->challenges, 1, build_chunk, &p);
	pthread_mutex_destroy(&p.lock);
	if ((rc = p.err)) {
		*err = p.error;
		goto out;
	}

	/* The rows in order, into the first builder, sized once. */
	zkp_pce_builder_stats st;
	uint64_t rows = 0, nnz[3] = { 0, 0, 0 };
	for (size_t k = 0; k < nparts; k++) {
		zkp_pce_builder_get_stats(p.parts[k], &st);
		rows += st.rows;
		for (int m = 0; m < 3; m++)
			nnz[m] += st.nnz[m];
	}
	if ((rc = zkp_pce_builder_reserve(b, rows, nnz))) {
		zkp_error_set(err, rc, "no room for %llu rows", (unsigned long long)rows);
		goto out;
	}
	for (size_t k = 1; k < nparts; k++) {
		if ((rc = zkp_pce_builder_append(b, p.parts[k], pool, err)))
			goto out;
		zkp_pce_builder_free(p.parts[k]);
		p.parts[k] = NULL;
	}
	uint8_t label[ZKP_PCE_LABEL_BYTES];
	zkp_porep_label_encode(label, s);
	zkp_pce_builder_set_label(b, label);
	if ((rc = zkp_pce_builder_write(b, path, err)))
		goto out;
	if (stats)
		zkp_pce_builder_get_stats(b, stats);
out:
	for (size_t k = 0; k < nparts; k++)
		zkp_pce_builder_free(p.parts[k]);
	free(p.parts);
	return rc;
}
