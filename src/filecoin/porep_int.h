/*
 * porep_int: the PoRep partition circuit's two parts (porep_circuit.c),
 * for the passes that run them one challenge at a time: the parallel
 * witness (porep_circuit.c) and the streaming row check (porep_check.c).
 *
 * Every challenge allocates the same number of inputs and aux variables
 * and emits the same number of rows, so challenge i's variables and rows
 * start at in0 + i * in_per, aux0 + i * aux_per and rows0 + i * rows_per,
 * and it may run on its own zkp_cs (zkp_cs_init_witness_at,
 * zkp_cs_init_rows_at) on any thread.
 */
#ifndef ZKPD_FILECOIN_POREP_INT_H
#define ZKPD_FILECOIN_POREP_INT_H

#include "zkpd/porep.h"

/* What every challenge reads from the part before the first challenge:
 * the same variables in every mode, values in a WITNESS pass. */
struct porep_globals {
	zkp_num comm_d, comm_c, comm_r_last;
	zkp_bool replica_bits[256];
};

/* A challenge's scratch: the parents' columns and each layer's 14
 * decompositions (about 200 KiB: allocate it). */
struct porep_scratch {
	zkp_num cols[ZKP_POREP_PARENTS][ZKP_POREP_MAX_LAYERS];
	zkp_bool bits[ZKP_POREP_PARENTS][256];
	zkp_num labels[ZKP_POREP_MAX_LAYERS];
};

/* The part before the first challenge; w is read in WITNESS passes only. */
void porep_global_part(zkp_cs *cs, const zkp_porep_witness *w, struct porep_globals *g);
/* One challenge; ch is NULL outside WITNESS passes. */
void porep_challenge(zkp_cs *cs, const zkp_porep_shape *s, const zkp_porep_challenge *ch,
		     const struct porep_globals *g, struct porep_scratch *x);

/* Where the parts start, and the circuit's totals (inputs include ONE;
 * rows exclude the prover's input rows). */
struct porep_layout {
	uint64_t in0, aux0, rows0;          /* after the global part */
	uint64_t in_per, aux_per, rows_per; /* per challenge */
	uint64_t inputs, aux, rows;
};

/* A shape pass of the global part and one challenge. ZKP_ERR_NOMEM. */
int porep_layout(const zkp_porep_shape *s, struct porep_layout *ret, zkp_error *err);

#endif
