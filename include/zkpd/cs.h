/*
 * cs: the constraint system that gadgets write to, in one of three modes,
 * so that one gadget code path yields both a circuit's rows and, later, its
 * witness.
 *
 *  - ZKP_CS_SHAPE: counts inputs, aux variables and rows. No linear
 *    combination is built and no value computed. It sizes the other passes.
 *  - ZKP_CS_ROWS: blank synthesis. Every row's three linear combinations are
 *    built and handed to a row sink (a .pce builder) with the variables
 *    mapped to .pce columns: input i is column i, aux j is column
 *    n_inputs + j, where n_inputs is the circuit's total (from a SHAPE pass).
 *    Values are not computed (they read as zero/false).
 *  - ZKP_CS_WITNESS: values only. Each allocation writes its value into the
 *    assignment w = [inputs | aux] at its column; no linear combination is
 *    built, no row stored, nothing is allocated per row.
 *
 * Variables are numbered in allocation order, inputs and aux separately,
 * exactly as bellman/bellperson number them: ONE is input 0, the first
 * alloc_input is input 1, the first alloc is aux 0. A gadget must allocate
 * and enforce in the same order in every mode; structure may depend on
 * constants, never on values.
 *
 * Errors are sticky: the first failure (a row the sink refuses, no memory)
 * is kept in cs->err and later calls do nothing; callers check
 * zkp_cs_error() once at the end.
 *
 * Threads: a zkp_cs is used by one thread. Several may fill disjoint parts
 * of one witness at once (zkp_cs_init_witness_at).
 */
#ifndef ZKPD_CS_H
#define ZKPD_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pce.h"

enum zkp_cs_mode { ZKP_CS_SHAPE, ZKP_CS_ROWS, ZKP_CS_WITNESS };

/* A variable: bit 31 set for an input, the rest is the index. */
typedef uint32_t zkp_var;
#define ZKP_VAR_INPUT 0x80000000u
#define ZKP_CS_ONE ((zkp_var)ZKP_VAR_INPUT)

/* Receives one row (the signature of zkp_pce_builder_add). */
typedef int (*zkp_cs_row_fn)(void *ctx, const zkp_pce_term *a, size_t na,
			     const zkp_pce_term *b, size_t nb, const zkp_pce_term *c, size_t nc,
			     zkp_error *err);

typedef struct {
	zkp_var var;
	zkp_fr coeff; /* Montgomery */
} zkp_lc_term;

/* A linear combination. Terms are kept as added (not merged) until
 * zkp_lc_compact; the row sink merges equal columns and drops zeros, as
 * bellperson's matrices do. Outside ROWS mode an LC stays empty. */
typedef struct {
	zkp_lc_term *t;
	uint32_t n, cap;
} zkp_lc;

typedef struct zkp_cs {
	enum zkp_cs_mode mode;
	uint64_t inputs, aux, rows; /* allocated / emitted so far (inputs incl. ONE) */
	uint64_t total_inputs;      /* ROWS and WITNESS: the circuit's input count */
	uint64_t total_aux;         /* WITNESS: w's aux entries */
	zkp_fr *w;                  /* WITNESS: the assignment, not owned */
	zkp_cs_row_fn row;          /* ROWS */
	void *row_ctx;
	zkp_pce_term *scratch[3];
	size_t scratch_cap[3];
	zkp_lc lc[3]; /* scratch rows for gadgets that build one row at a time */
	int err;
	zkp_error error;
} zkp_cs;

/* Powers of two 2^0 .. 2^255 (Montgomery), the coefficients of packing. */
const zkp_fr *zkp_cs_pow2(unsigned i);

void zkp_cs_init_shape(zkp_cs *cs);
/* Rows go to row(ctx, ...); total_inputs from a SHAPE pass. */
void zkp_cs_init_rows(zkp_cs *cs, uint64_t total_inputs, zkp_cs_row_fn row, void *ctx);
/* A ROWS pass that starts as if `inputs` inputs (ONE included) and `aux`
 * aux variables were already allocated (and rows counts from 0): a part of
 * a circuit whose variable counts before it are known emits its rows, with
 * the columns the whole circuit gives them, on its own thread. */
void zkp_cs_init_rows_at(zkp_cs *cs, uint64_t total_inputs, zkp_cs_row_fn row, void *ctx,
			 uint64_t inputs, uint64_t aux);
/* w has total_inputs + total_aux entries; w[0] is set to ONE. An
 * allocation past either count is an error (ZKP_ERR_RANGE), never a write
 * past w. */
void zkp_cs_init_witness(zkp_cs *cs, uint64_t total_inputs, uint64_t total_aux, zkp_fr *w);
/* A witness pass that starts as if `inputs` inputs (ONE included) and `aux`
 * aux variables were already allocated: a part of a circuit whose variable
 * counts before it are known fills its slice of w on its own thread. */
void zkp_cs_init_witness_at(zkp_cs *cs, uint64_t total_inputs, uint64_t total_aux, zkp_fr *w,
			    uint64_t inputs, uint64_t aux);
void zkp_cs_release(zkp_cs *cs);

static inline bool zkp_cs_rows(const zkp_cs *cs) { return cs->mode == ZKP_CS_ROWS; }
static inline bool zkp_cs_witness(const zkp_cs *cs) { return cs->mode == ZKP_CS_WITNESS; }
/* 0 or the first error; its message in cs->error. */
static inline int zkp_cs_error(const zkp_cs *cs) { return cs->err; }
/* Records an error (first one wins) and returns it. */
int zkp_cs_fail(zkp_cs *cs, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* New aux / input variable; value is read only in WITNESS mode (NULL reads
 * as zero). */
zkp_var zkp_cs_alloc(zkp_cs *cs, const zkp_fr *value);
zkp_var zkp_cs_alloc_input(zkp_cs *cs, const zkp_fr *value);
/* New aux variable holding 0 or 1. */
zkp_var zkp_cs_alloc_bit(zkp_cs *cs, bool value);
/* The value a WITNESS pass gave v (zero in other modes). */
const zkp_fr *zkp_cs_value(const zkp_cs *cs, zkp_var v);

/* Row a * b = c. NULL stands for the empty combination. */
void zkp_cs_enforce(zkp_cs *cs, const zkp_lc *a, const zkp_lc *b, const zkp_lc *c);

/* Row cs->lc[0] * cs->lc[1] = cs->lc[2] (the scratch rows a gadget fills
 * for one row at a time), then clears the three. */
void zkp_cs_enforce_scratch(zkp_cs *cs);

/* ---- recorded blocks ----
 *
 * A block of rows whose structure and coefficients depend only on
 * constants (a hash of fixed arity) is recorded once and replayed in ROWS
 * mode with other variables, skipping the coefficient arithmetic that built
 * it. In a template every term's column is 0 (ONE), 1..nparams (the
 * block's parameters, in order) or nparams + 1 + k (the k-th aux variable
 * the block allocates). Terms are kept as the block emitted them (unmerged),
 * so the row sink sees exactly the rows a direct run would give it.
 */
typedef struct {
	uint32_t nparams, n_aux;
	uint64_t n_rows, n_terms;
	uint32_t *counts;    /* 3 per row: terms of A, B, C */
	zkp_pce_term *terms; /* n_terms, row after row, A then B then C */
	uint32_t out;        /* the local aux index the block returned */
} zkp_cs_template;

/* Runs the block on cs with params (its parameter variables) and returns
 * the variable it produces (an aux variable it allocated). */
typedef zkp_var (*zkp_cs_block_fn)(zkp_cs *cs, const zkp_var *params, void *ctx);

/* Records fn(ctx) with nparams fresh parameters. ZKP_ERR_NOMEM, or
 * ZKP_ERR_INVAL when the block returns a variable it did not allocate. */
int zkp_cs_template_record(zkp_cs_template *t, uint32_t nparams, zkp_cs_block_fn fn, void *ctx,
			   zkp_error *err);
void zkp_cs_template_release(zkp_cs_template *t);
/* In ROWS mode: emits t's rows with params substituted and allocates its
 * aux variables, exactly as running the block would; *out is the block's
 * result. Returns false, doing nothing, when params are not distinct
 * variables other than ONE (the sink would merge terms the template keeps
 * apart): the caller then runs the block itself. */
bool zkp_cs_replay(zkp_cs *cs, const zkp_cs_template *t, const zkp_var *params, zkp_var *out);

/* ---- linear combinations (no-ops outside ROWS mode) ---- */
void zkp_lc_release(zkp_lc *lc);
static inline void zkp_lc_clear(zkp_lc *lc) { lc->n = 0; }
/* lc += coeff * v; coeff NULL means 1. */
void zkp_lc_add(zkp_cs *cs, zkp_lc *lc, zkp_var v, const zkp_fr *coeff);
void zkp_lc_sub(zkp_cs *cs, zkp_lc *lc, zkp_var v, const zkp_fr *coeff);
/* lc += coeff * other; coeff NULL means 1. */
void zkp_lc_add_lc(zkp_cs *cs, zkp_lc *lc, const zkp_lc *other, const zkp_fr *coeff);
/* lc = lc with equal variables merged and zero terms dropped (order kept
 * by first appearance), so combinations that keep growing stay small. */
void zkp_lc_compact(zkp_cs *cs, zkp_lc *lc);
/* Copies src into dst. */
void zkp_lc_copy(zkp_cs *cs, zkp_lc *dst, const zkp_lc *src);

#endif
