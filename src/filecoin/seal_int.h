/*
 * seal_int: what the development sealers share inside the Filecoin layer.
 */
#ifndef ZKPD_FILECOIN_SEAL_INT_H
#define ZKPD_FILECOIN_SEAL_INT_H

#include "zkpd/porep_c1.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"

/* The sector takes ownership of the parents function's context it was
 * sealed with: zkp_porep_sector_free calls release(ctx) (it reads its
 * parents again for every challenge, so the graph must live as long). */
void zkp_porep_sector_adopt(zkp_porep_sector *sec, void (*release)(void *ctx));

/* A C1 of proof p holding no proof yet: registered_proof, sector size,
 * shape, partition and challenge counts, seed and ticket, and room for
 * every partition's roots and every challenge (ch and wit). ZKP_ERR_INVAL
 * for a size without published parameters, ZKP_ERR_NOMEM. Free with
 * zkp_porep_c1_free. */
int seal_c1_new(zkp_porep_c1 **ret, const zkp_porep_proof *p, const uint8_t ticket[32],
		const uint8_t seed[32], zkp_error *err);

/* replica_id of a sector of proof p whose tree D root is comm_d:
 * SHA-256(prover_id, sector_id, ticket, comm_d, porep_id), trimmed
 * (porep_graph.h zkp_porep_replica_id). ZKP_ERR_UNSUPPORTED if SHA-256
 * fails. */
int seal_replica_id(zkp_fr *ret, const zkp_porep_proof *p, const zkp_fr *comm_d,
		    const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
		    zkp_error *err);

/* Sets c1's comm_d, replica_id and comm_r, as bytes and as field elements. */
void seal_c1_commit(zkp_porep_c1 *c1, const zkp_fr *comm_d, const zkp_fr *replica_id,
		    const zkp_fr *comm_r);

#endif
