/*
 * Runs a gadget the way a circuit is compiled and proved: a SHAPE pass for
 * the dimensions, a ROWS pass into a .pce (written to a temporary file and
 * loaded back), a WITNESS pass, then the row-by-row check
 * A.w * B.w = C.w of zkp_pce_check.
 */
#ifndef ZKPD_TEST_GADGET_HARNESS_H
#define ZKPD_TEST_GADGET_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/pce.h"

typedef void (*gh_fn)(zkp_cs *cs, void *ctx);

typedef struct {
	uint64_t inputs, aux, rows;   /* from the SHAPE pass */
	uint64_t nnz[3];              /* from the .pce */
	uint64_t a_aux, b_input, b_aux; /* density popcounts */
	int check;                    /* zkp_pce_check's result */
	uint64_t first_bad_row;
	zkp_fr *w;                    /* the witness (owned; gh_result_release) */
	zkp_pce *pce;                 /* the circuit (owned) */
} gh_result;

/* The SHAPE pass only. */
void gh_shape(gh_fn fn, void *ctx, gh_result *r);
/* All three passes and the check; fails the test on any cs error. */
void gh_run(gh_fn fn, void *ctx, gh_result *r);
void gh_result_release(gh_result *r);
/* zkp_pce_check of r->w against r->pce again (after a test edits w). */
int gh_recheck(gh_result *r);

#endif
