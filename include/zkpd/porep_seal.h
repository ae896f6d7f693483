/*
 * porep_seal: a StackedDRG sector sealed in memory, for development and
 * tests: the SDR labels of every layer, trees D (data), C (columns) and R
 * (replica), and the commitments, from which the vanilla proof of any
 * challenged node is read off the way a C1 output carries it.
 *
 * Labelling follows rust-fil-proofs' create_label: a label is the SHA-256 of
 * replica_id (32 bytes), the layer (u32 big-endian), the node (u64
 * big-endian) and 20 zero bytes, followed for every node but 0 by 37 parent
 * labels (layer 1: the 6 DRG parents six times, then parent 0; later
 * layers: the 6 DRG parents in this layer and the 8 expander parents in the
 * previous one, twice, then the first 9), with the digest's two top bits
 * cleared. The replica is label_L + data (in Fr); a column is a node's L
 * labels, hashed with Poseidon-L into tree C; comm_r = Poseidon-2(comm_c,
 * comm_r_last).
 *
 * The graph comes from the caller (zkp_porep_parents_fn): Filecoin's DRG
 * and expander graphs for a real sector, any graph whose DRG parents of
 * node n lie below n for a test one. Everything is held in memory: about
 * (L + 6) * 32 bytes per node (labels, data, the three trees), so 2 KiB and
 * 8 MiB sectors seal in seconds; 512 MiB needs about 6 GiB.
 *
 * Threads: seal runs on the caller; a sealed sector is immutable and may be
 * read by any number of threads.
 */
#ifndef ZKPD_POREP_SEAL_H
#define ZKPD_POREP_SEAL_H

#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/porep.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_graph.h"

/* The 6 DRG parents then the 8 expander parents of node (node >= 1). */
typedef void (*zkp_porep_parents_fn)(void *ctx, uint64_t node,
				     uint32_t parents[ZKP_POREP_PARENTS]);

typedef struct zkp_porep_sector zkp_porep_sector;

/* One SDR label (create_label): layer is 1-based; for node 0 no parent is
 * read (pass NULL); otherwise drg[6] are the DRG parents' labels in this
 * layer and, for layer > 1, exp[8] the expander parents' labels in the
 * previous one (NULL in layer 1). ZKP_ERR_UNSUPPORTED if SHA-256 fails. */
int zkp_porep_label(zkp_fr *out, const zkp_fr *replica_id, unsigned layer, uint64_t node,
		    const zkp_fr *const drg[ZKP_POREP_DRG_PARENTS],
		    const zkp_fr *const exp[ZKP_POREP_EXP_PARENTS]);

/* comm_d of data (s->nodes field elements): the root of tree D, binary
 * SHA-256 with the Filecoin trim. Needed before sealing, since replica_id
 * commits to it. ZKP_ERR_NOMEM. */
int zkp_porep_comm_d(zkp_fr *ret, const zkp_porep_shape *s, const zkp_fr *data, zkp_error *err);

/*
 * Seals data (s->nodes canonical field elements) for replica_id. Errors:
 * ZKP_ERR_INVAL for a shape that fails zkp_porep_shape_check or has more
 * than 2^28 nodes, or a DRG parent not below its node (named), ZKP_ERR_NOMEM.
 * Cost: L * nodes labels of 20 SHA-256 compressions, nodes Poseidon-L
 * column hashes, and the three trees.
 */
int zkp_porep_sector_seal(zkp_porep_sector **ret, const zkp_porep_shape *s, const zkp_fr *data,
			  const zkp_fr *replica_id, zkp_porep_parents_fn parents, void *ctx,
			  zkp_error *err);
void zkp_porep_sector_free(zkp_porep_sector *sec);

const zkp_porep_shape *zkp_porep_sector_shape(const zkp_porep_sector *sec);
const zkp_fr *zkp_porep_sector_replica_id(const zkp_porep_sector *sec);
const zkp_fr *zkp_porep_sector_comm_d(const zkp_porep_sector *sec);
const zkp_fr *zkp_porep_sector_comm_c(const zkp_porep_sector *sec);
const zkp_fr *zkp_porep_sector_comm_r_last(const zkp_porep_sector *sec);
const zkp_fr *zkp_porep_sector_comm_r(const zkp_porep_sector *sec);
/* The replica, tree R's nodes leaves (label_L + data). */
const zkp_fr *zkp_porep_sector_replica(const zkp_porep_sector *sec);
/* The label of node in layer (1-based). */
const zkp_fr *zkp_porep_sector_label(const zkp_porep_sector *sec, unsigned layer, uint64_t node);

/* The vanilla proof of challenged node (1 <= node < nodes), as a C1 output
 * carries it: the witness values and what a self-check compares. */
void zkp_porep_sector_challenge(const zkp_porep_sector *sec, uint64_t node,
				zkp_porep_c1_challenge *out);

/*
 * Seals data (the proof's nodes, field elements) for registered proof p
 * over Filecoin's graph (porep_graph.h), with replica_id =
 * SHA-256(prover_id, sector_id, ticket, comm_d, porep_id) as Filecoin
 * derives it: the sector a real sealer would hold, for development vanilla
 * proofs (C1, PoSt, SnapDeals). Errors: as zkp_porep_sector_seal.
 */
int zkp_porep_seal_sector(zkp_porep_sector **ret, const zkp_porep_proof *p, const zkp_fr *data,
			  const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
			  zkp_error *err);

/*
 * The development sealer: seals data (the proof's nodes, field elements)
 * for registered proof p over Filecoin's graph (porep_graph.h), with
 * replica_id = SHA-256(prover_id, sector_id, ticket, comm_d, porep_id), and
 * returns the C1 output a real sealer would: every partition's challenges
 * for p's mode (from seed, or comm_r for non-interactive) and their vanilla
 * proofs. Free with zkp_porep_c1_free; zkp_porep_c1_write saves it.
 * Errors: as zkp_porep_sector_seal, ZKP_ERR_NOMEM.
 */
int zkp_porep_seal_c1(zkp_porep_c1 **ret, const zkp_porep_proof *p, const zkp_fr *data,
		      const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
		      const uint8_t seed[32], zkp_error *err);

#endif
