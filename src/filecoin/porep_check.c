/*
 * The streaming row check of a PoRep partition (include/zkpd/porep.h
 * zkp_porep_check_rows): the circuit's rows evaluated against its witness
 * as the synthesis emits them, with no .pce.
 *
 * A row only reads ONE, the global part's variables and its own
 * challenge's (porep_int.h), so challenge i is checked on its own: a
 * WITNESS pass fills its slice of w, a ROWS pass from the same offsets
 * hands each row to check_row, and the slice is given back to the kernel.
 * w is an anonymous mapping of the whole witness, so only the global part
 * and the challenges in progress are ever resident.
 *
 * Evaluation: A.w = sum of coeff * w[col] over the row's terms as emitted
 * (unmerged: the sum is the same); a value 0 or 1 (98 % of a PoRep
 * witness: bits) or a coefficient +-1 costs at most an addition, the rest
 * a multiplication. Then A.w * B.w is compared with C.w.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "porep_int.h"

/* Transparent huge pages for the witness where the kernel allows them:
 * the first touch of 4 GB in 4 KiB pages costs a million page faults, and
 * a challenge's slice is 231 MB at 32 GiB, so 2 MiB granules lose
 * nothing. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* Returned by check_row to stop a pass once a lower row has failed. */
#define STOPPED ZKP_ERR_CANCELLED

struct check {
	const zkp_porep_shape *s;
	const zkp_porep_witness *in;
	struct porep_layout lay;
	struct porep_globals g; /* from the global part's WITNESS pass */
	zkp_fr *w;
	size_t map_bytes;
	zkp_fr one, minus_one;
	_Atomic uint64_t first; /* the lowest failing row found so far */
	pthread_mutex_t lock;
	int rc;                 /* ZKP_ERR_UNSATISFIED (row first) or another error */
	zkp_error error;
};

struct sink {
	struct check *ck;
	uint64_t row; /* the next row's number */
	zkp_fr v[3];  /* a failing row's A.w, B.w, C.w */
};

static void eval(zkp_fr *out, const struct check *ck, const zkp_pce_term *t, size_t n)
{
	zkp_fr_set_zero(out);
	for (size_t i = 0; i < n; i++) {
		const zkp_fr *v = &ck->w[t[i].col];
		if (zkp_fr_is_zero(v))
			continue;
		if (zkp_fr_eq(v, &ck->one)) {
			zkp_fr_add(out, out, &t[i].coeff);
		} else if (zkp_fr_eq(&t[i].coeff, &ck->one)) {
			zkp_fr_add(out, out, v);
		} else if (zkp_fr_eq(&t[i].coeff, &ck->minus_one)) {
			zkp_fr_sub(out, out, v);
		} else {
			zkp_fr p;
			zkp_fr_mul(&p, &t[i].coeff, v);
			zkp_fr_add(out, out, &p);
		}
	}
}

static int check_row(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		     size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	struct sink *k = ctx;
	(void)err;
	if (k->row > atomic_load_explicit(&k->ck->first, memory_order_relaxed))
		return STOPPED;
	zkp_fr ab;
	eval(&k->v[0], k->ck, a, na);
	eval(&k->v[1], k->ck, b, nb);
	eval(&k->v[2], k->ck, c, nc);
	zkp_fr_mul(&ab, &k->v[0], &k->v[1]);
	if (!zkp_fr_eq(&ab, &k->v[2]))
		return ZKP_ERR_UNSATISFIED;
	k->row++;
	return 0;
}

/* Records how a pass ended: a failing row (kept if it is the lowest), or
 * another error (kept over any row). where names the part. */
static void record(struct check *ck, const zkp_cs *cs, const struct sink *k, const char *where)
{
	int rc = zkp_cs_error(cs);
	if (!rc || rc == STOPPED)
		return;
	pthread_mutex_lock(&ck->lock);
	if (rc == ZKP_ERR_UNSATISFIED) {
		bool other = ck->rc && ck->rc != ZKP_ERR_UNSATISFIED; /* wins over any row */
		if (!other && k->row < atomic_load(&ck->first)) {
			char h[3][ZKP_FR_HEX_CHARS];
			for (int m = 0; m < 3; m++)
				zkp_fr_to_hex(h[m], &k->v[m]);
			atomic_store(&ck->first, k->row);
			ck->rc = rc;
			zkp_error_set(&ck->error, rc,
				      "row %" PRIu64 " (%s) is not satisfied: A.w = %s, B.w = %s, C.w = %s",
				      k->row, where, h[0], h[1], h[2]);
		}
	} else if (!ck->rc || ck->rc == ZKP_ERR_UNSATISFIED) {
		ck->rc = rc;
		zkp_error_set(&ck->error, rc, "%s: %s", where, zkp_error_text(&cs->error, rc));
		atomic_store(&ck->first, 0); /* stop every pass */
	}
	pthread_mutex_unlock(&ck->lock);
}

/* Gives challenge i's aux slice back: the whole huge pages inside it
 * (at most two partial ones stay, shared with its neighbours). */
static void drop_slice(const struct check *ck, size_t i)
{
	const struct porep_layout *y = &ck->lay;
	uintptr_t lo = (uintptr_t)&ck->w[y->inputs + y->aux0 + i * y->aux_per];
	uintptr_t hi = lo + y->aux_per * sizeof(zkp_fr);
	lo = (lo + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	hi &= ~(uintptr_t)(HUGE_PAGE - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

static void challenge_chunk(void *arg, size_t begin, size_t end)
{
	struct check *ck = arg;
	const struct porep_layout *y = &ck->lay;
	struct porep_scratch *x = malloc(sizeof(*x));
	for (size_t i = begin; i < end; i++) {
		char where[32];
		struct sink k = { .ck = ck, .row = y->rows0 + i * y->rows_per };
		zkp_cs cs;
		snprintf(where, sizeof(where), "challenge %zu", i);
		if (k.row > atomic_load(&ck->first))
			continue; /* a lower row has failed already */
		zkp_cs_init_witness_at(&cs, y->inputs, y->aux, ck->w, y->in0 + i * y->in_per,
				       y->aux0 + i * y->aux_per);
		if (!x)
			zkp_cs_fail(&cs, ZKP_ERR_NOMEM, "no memory for a challenge");
		else
			porep_challenge(&cs, ck->s, &ck->in->challenges[i], &ck->g, x);
		record(ck, &cs, &k, where);
		int rc = zkp_cs_error(&cs);
		zkp_cs_release(&cs);
		if (!rc) {
			zkp_cs_init_rows_at(&cs, y->inputs, check_row, &k, y->in0 + i * y->in_per,
					    y->aux0 + i * y->aux_per);
			porep_challenge(&cs, ck->s, NULL, &ck->g, x);
			record(ck, &cs, &k, where);
			zkp_cs_release(&cs);
		}
		drop_slice(ck, i);
	}
	free(x);
}

int zkp_porep_check_rows(const zkp_porep_shape *s, const zkp_porep_witness *in, zkp_fr *inputs,
			 zkp_pool *pool, uint64_t *rows, uint64_t *first_row, zkp_error *err)
{
	struct check ck = { .s = s, .in = in, .w = MAP_FAILED };
	struct porep_globals g_rows;
	struct sink k = { .ck = &ck, .row = 0 };
	zkp_cs cs;
	int rc;

	if ((rc = porep_layout(s, &ck.lay, err)))
		return rc;
	*rows = ck.lay.rows;
	ck.map_bytes = (size_t)(ck.lay.inputs + ck.lay.aux) * sizeof(zkp_fr);
	ck.w = mmap(NULL, ck.map_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ck.w == MAP_FAILED)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "cannot map %zu bytes for the witness",
				     ck.map_bytes);
#ifdef MADV_HUGEPAGE
	madvise(ck.w, ck.map_bytes, MADV_HUGEPAGE); /* advice: fine to be refused */
#endif
	zkp_fr_set_one(&ck.one);
	zkp_fr_neg(&ck.minus_one, &ck.one);
	atomic_init(&ck.first, UINT64_MAX);
	pthread_mutex_init(&ck.lock, NULL);

	/* the global part: its values, then its rows */
	zkp_cs_init_witness(&cs, ck.lay.inputs, ck.lay.aux, ck.w);
	porep_global_part(&cs, in, &ck.g);
	record(&ck, &cs, &k, "global part");
	zkp_cs_release(&cs);
	if (!ck.rc) {
		zkp_cs_init_rows(&cs, ck.lay.inputs, check_row, &k);
		porep_global_part(&cs, NULL, &g_rows);
		record(&ck, &cs, &k, "global part");
		zkp_cs_release(&cs);
	}
	if (!ck.rc)
		zkp_pool_run(pool, s->challenges, 1, challenge_chunk, &ck);

	if ((rc = ck.rc)) {
		*err = ck.error;
		if (rc == ZKP_ERR_UNSATISFIED && first_row)
			*first_row = atomic_load(&ck.first);
	} else if (inputs) {
		memcpy(inputs, ck.w, ck.lay.inputs * sizeof(zkp_fr));
	}
	pthread_mutex_destroy(&ck.lock);
	munmap(ck.w, ck.map_bytes);
	return rc;
}
