/*
 * porep_c2: commit phase 2 from a C1 output: each partition's witness, its
 * Groth16 proof, and the self-check a verifier (Filecoin's verify_seal)
 * would make before the proof is returned.
 *
 * The self-check never trusts the vanilla proofs for what the chain will
 * check: the public inputs come from C1's public data alone (replica_id,
 * comm_d, comm_r, and seed or comm_r for the challenges), the challenged
 * nodes are derived for the proof's mode, the parents are derived from
 * porep_id's graph, and both are compared with what C1 carries, challenge
 * by challenge; the proof must then verify with those inputs.
 *
 * Threads: the functions use the pool and backend they are given; one call
 * at a time per backend (groth16_prove.h).
 */
#ifndef ZKPD_POREP_C2_H
#define ZKPD_POREP_C2_H

#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_graph.h"

/* C1's registered proof, checked against what C1 holds: its sector size,
 * partitions and challenges per partition. ZKP_ERR_NOT_FOUND for an
 * unknown name, ZKP_ERR_MISMATCH naming the field that disagrees. */
int zkp_porep_c1_proof(const zkp_porep_proof **ret, const zkp_porep_c1 *c1, zkp_error *err);

/* Partition k's public inputs after ONE (zkp_porep_inputs - 1 values),
 * derived from the public data, with C1's challenged nodes and parents
 * compared with the derived ones, and the labels C1 carries for each
 * challenged column recomputed from its parents' columns (the circuit
 * recomputes them too, so a C1 that disagrees is inconsistent). g is p's
 * graph. ZKP_ERR_MISMATCH names
 * the partition, challenge and what differs; ZKP_ERR_NOMEM. */
int zkp_porep_c1_public_inputs(zkp_fr *out, const zkp_porep_c1 *c1, unsigned k,
			       const zkp_porep_proof *p, const zkp_porep_graph *g, zkp_error *err);

/* replica_id recomputed from prover_id, sector_id, ticket, comm_d and
 * porep_id, compared with C1's. ZKP_ERR_MISMATCH when they differ. */
int zkp_porep_c1_check_replica_id(const zkp_porep_c1 *c1, const zkp_porep_proof *p,
				  const uint8_t prover_id[32], uint64_t sector_id, zkp_error *err);

/* Partition k's witness (inputs + aux values, the circuit's counts) into
 * w, computed from c1 with the challenges spread over pool, then its public
 * inputs compared with pub (zkp_porep_c1_public_inputs of k). Errors: the
 * witness pass's, ZKP_ERR_MISMATCH naming the first input that differs. */
int zkp_porep_c1_witness_checked(zkp_fr *w, uint64_t inputs, uint64_t aux,
				 const zkp_porep_c1 *c1, unsigned k, const zkp_fr *pub, zkp_pool *pool,
				 zkp_error *err);

/* Partition k of c1 checked row by row against its circuit without a
 * .pce (porep.h zkp_porep_check_rows, over pool), then its witness's
 * public inputs compared with pub (zkp_porep_c1_public_inputs of k).
 * *rows: the circuit's rows. Errors, each naming the partition:
 * ZKP_ERR_UNSATISFIED with *first_row (may be NULL) the lowest failing
 * row, ZKP_ERR_MISMATCH naming the first input that differs (compared
 * only once every row holds), a witness pass's, ZKP_ERR_NOMEM. */
int zkp_porep_c1_check_rows(const zkp_porep_c1 *c1, unsigned k, const zkp_fr *pub,
			    zkp_pool *pool, uint64_t *rows, uint64_t *first_row, zkp_error *err);

/* What proving partitions needs, loaded once (groth16_prove.h). */
typedef zkp_groth16_prover zkp_porep_prover;

/*
 * Proves partition k of c1: public inputs derived and compared (above), the
 * witness computed with the challenges in parallel, the proof made, then
 * verified with the derived inputs. ZKP_ERR_MISMATCH (C1 or key that does
 * not fit: the circuit is not this proof's, a derived value differs),
 * ZKP_ERR_UNSATISFIED (the vanilla proofs do not satisfy the circuit: a
 * label, path or root is wrong; the row is named), the prover's errors.
 * times may be NULL.
 */
int zkp_porep_prove_partition(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			      const zkp_porep_prover *pr, const zkp_porep_c1 *c1, unsigned k,
			      const zkp_porep_proof *p, const zkp_porep_graph *g, zkp_error *err);

/* Verifies one proof per partition (in order) against inputs derived from
 * c1's public data. ZKP_ERR_MISMATCH names the first partition that does
 * not verify (or whose C1 data disagrees with the derivation). */
int zkp_porep_verify(const zkp_groth16_pvk *pvk, const zkp_groth16_proof *proofs,
		     const zkp_porep_c1 *c1, const zkp_porep_proof *p, const zkp_porep_graph *g,
		     zkp_error *err);

#endif
