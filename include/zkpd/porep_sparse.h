/*
 * porep_sparse: the sparse DEVELOPMENT sealer. It writes the C1 output of
 * a sector that was never sealed: no replica exists, and nothing but what
 * the C1 reveals is computed. That C1 passes every check a prover makes of
 * a real one (challenges from the seed, parents from Filecoin's graph,
 * each challenged label recomputed from its parents, every Merkle path,
 * comm_c, comm_r_last, comm_r = Poseidon-2(comm_c, comm_r_last), comm_d,
 * replica_id from comm_d), so it proves and verifies like one, at every
 * published size, in seconds. It is not a seal and proves no storage.
 *
 * The sector it describes, all of it a function of one 64-bit seed
 * (--random) through a keyed PRF (BLAKE2b-512 keyed by BLAKE2b-256 of a
 * fixed tag and the seed, over a domain byte and the arguments):
 *  - Data: node n holds zkp_porep_sparse_data(n), a random value below
 *    2^254 (what fr32 padding allows), repeating every
 *    ZKP_POREP_SPARSE_PERIOD nodes. Tree D is therefore the real SHA-256
 *    tree of that data, and comm_d is its root: computed from one period's
 *    subtree, then hashed up over identical halves.
 *  - Labels: a challenged node's label in every layer is SDR's
 *    (create_label over its 6 DRG parents in the layer and its 8 expander
 *    parents in the layer below, porep_seal.h zkp_porep_label). Every other
 *    node's label is zkp_porep_sparse_label(layer, node). A challenged node
 *    that is also another challenge's parent shows its computed labels
 *    there too: a node's column is the same wherever it appears.
 *  - Trees C and R: sparse. The leaves the C1 opens (the challenged nodes'
 *    columns and their parents' in tree C; label_L + data of the challenged
 *    nodes in tree R) are hashed up (Poseidon of the size's base, sub and
 *    top arities) over the union of their paths; every node off those
 *    paths that a path needs is zkp_porep_sparse_node(tree, level, index).
 *
 * Why data repeats: replica_id commits to comm_d and the challenges follow
 * from replica_id, so tree D must be fixed before the challenged nodes are
 * known, and a root fixed in advance can only be opened cheaply anywhere
 * if the tree has structure. Trees C and R come after the challenges
 * (interactive PoRep draws them from replica_id and the seed), so they can
 * be sparse. Synthetic and non-interactive PoRep draw them from comm_r
 * instead, which a sparse tree C cannot fix in advance: only interactive
 * proof versions can be sealed sparsely.
 *
 * Threads: the PRFs are pure functions. zkp_porep_sparse_c1 runs on the
 * caller and spreads its hashing over pool.
 */
#ifndef ZKPD_POREP_SPARSE_H
#define ZKPD_POREP_SPARSE_H

#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_graph.h"

/* The data's period in nodes (8 MiB): sectors up to 8 MiB hold no repeat. */
#define ZKP_POREP_SPARSE_PERIOD (1ULL << 18)

/* The trees zkp_porep_sparse_node fills. */
typedef enum { ZKP_POREP_SPARSE_TREE_C = 'C', ZKP_POREP_SPARSE_TREE_R = 'R' } zkp_porep_sparse_tree;

/* The PRF key of a seed: BLAKE2b-256 of "zkpd sparse development sector"
 * and the seed (u64 little-endian). */
void zkp_porep_sparse_key(uint8_t key[32], uint64_t seed);
/* The label of a node that is not challenged, in layer (1-based): 32 PRF
 * bytes with the top two bits cleared, as SDR's labels are. */
void zkp_porep_sparse_label(zkp_fr *out, const uint8_t key[32], unsigned layer, uint64_t node);
/* The data of node n: the same for n and n mod ZKP_POREP_SPARSE_PERIOD;
 * 32 PRF bytes with the top two bits cleared. */
void zkp_porep_sparse_data(zkp_fr *out, const uint8_t key[32], uint64_t node);
/* A node off the opened paths of tree C or R at level (0 = leaves) and
 * index: 64 PRF bytes reduced mod r, like a Poseidon output. */
void zkp_porep_sparse_node(zkp_fr *out, const uint8_t key[32], zkp_porep_sparse_tree tree,
			   unsigned level, uint64_t index);

/* What a sparse seal computed. */
typedef struct {
	uint64_t challenged; /* distinct challenged nodes */
	uint64_t columns;    /* distinct columns opened (challenged nodes and parents) */
	uint64_t labels;     /* labels computed with create_label */
	uint64_t hashes;     /* tree nodes hashed (trees C, R and D's sparse check) */
} zkp_porep_sparse_stats;

/*
 * The C1 output of a sparse development sector (above) of registered proof
 * p sealed for prover_id, sector_id and ticket, challenged by seed: every
 * partition's vanilla proofs, with wit filled (ready for
 * zkp_porep_c1_witness) and for zkp_porep_c1_write. key comes from
 * zkp_porep_sparse_key. stats may be NULL. Free with zkp_porep_c1_free.
 * Errors: ZKP_ERR_UNSUPPORTED for a synthetic or non-interactive p (named,
 * with the reason above); ZKP_ERR_INVAL for a size without published
 * parameters; ZKP_ERR_NOMEM; SHA-256 failures. The tree D it builds over
 * the challenged leaves must give the comm_d replica_id was derived from
 * (ZKP_ERR_MISMATCH otherwise: a bug, never expected).
 * Cost, 32 GiB (180 challenges): 1,980 labels, 2,600 Poseidon-11 column
 * hashes, 18,500 tree nodes (nearly all Poseidon-8) with about 130,000
 * PRF values beside them, and one period of tree D (2^18 PRF values and
 * SHA-256 nodes): 0.7 s on 2 threads, about 50 MB, most of it the C1.
 */
int zkp_porep_sparse_c1(zkp_porep_c1 **ret, const zkp_porep_proof *p, const uint8_t key[32],
			const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
			const uint8_t seed[32], zkp_pool *pool, zkp_porep_sparse_stats *stats,
			zkp_error *err);

#endif
