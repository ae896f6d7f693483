/*
 * porep_graph: the public derivations of Filecoin's StackedDRG PoRep, as
 * rust-fil-proofs computes them: the registered seal proofs and their
 * porep_id, the DRG and expander parents of a node, the challenged nodes of
 * a partition (interactive, synthetic and non-interactive), and replica_id.
 * A verifier rebuilds a partition's public inputs from these; a development
 * sealer labels a sector over the real graph with them.
 *
 * Sources (rust-fil-proofs @ 87348a74, filecoin-proofs-api @ 0e64ce8d):
 * storage-proofs-core/src/drgraph.rs (BucketGraph::parents),
 * crypto/feistel.rs, storage-proofs-porep/src/stacked/vanilla/{graph,
 * challenges,params,cache}.rs, filecoin-proofs/src/constants.rs and
 * parameters.rs, and the API's src/registry.rs. tests/vectors/README.md
 * ('porep_graph_vectors.json') says how the vectors checking them were made.
 *
 * Invariants:
 *  - Every 32-byte value (porep_id, replica_id, comm_r, comm_d, seed,
 *    ticket, prover_id) is passed as the bytes Filecoin hashes: field
 *    elements in their 32-byte little-endian repr, digests and randomness
 *    as raw bytes.
 *  - Nodes are 32-byte sector nodes; a graph has 2 <= nodes <= 2^32 - 1
 *    (rust-fil-proofs keeps node indexes in u32). Published sizes are
 *    powers of two, 64 (2 KiB) to 2^31 (64 GiB).
 *  - Parents are in rust-fil-proofs' slot order (the order of its parent
 *    cache and of C1's drg_parents / exp_parents), not sorted.
 *  - A challenged node is never 0.
 *
 * Threads: no global state. A zkp_porep_graph is read-only after init (and
 * precompute), so any number of threads may ask it for parents at once.
 * Errors: ZKP_ERR_INVAL or ZKP_ERR_RANGE with a message naming the value;
 * ZKP_ERR_UNSUPPORTED if OpenSSL cannot compute SHA-256; ZKP_ERR_NOMEM.
 */
#ifndef ZKPD_POREP_GRAPH_H
#define ZKPD_POREP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/porep.h"

/* ---- registered seal proofs (filecoin-proofs-api registry.rs) ---- */

/* ApiVersion: V1_0_0 for ids 0-4, V1_1_0 for 5-9, V1_2_0 for the synthetic
 * (10-14, whose names say V1_1) and non-interactive (15-19) ids. The DRG
 * puts the predecessor last in V1_0 and first after it; V1_0 truncates the
 * expander's permuted index to 32 bits before dividing by 8. V1_1 and V1_2
 * graphs are the same function of porep_id. */
typedef enum { ZKP_POREP_V1_0, ZKP_POREP_V1_1, ZKP_POREP_V1_2 } zkp_porep_api;

typedef enum {
	ZKP_POREP_INTERACTIVE,     /* challenges from replica_id and seed */
	ZKP_POREP_SYNTHETIC,       /* 2^18 synthetic challenges, the seed selects */
	ZKP_POREP_NON_INTERACTIVE, /* challenges from replica_id and comm_r */
} zkp_porep_mode;

typedef struct {
	const char *name;       /* "StackedDrg32GiBV1_1", the serde name */
	uint64_t id;            /* registered proof id, 0..19 */
	uint64_t sector_bytes;
	uint64_t nodes;         /* sector_bytes / 32 */
	zkp_porep_api api;
	zkp_porep_mode mode;
	unsigned layers;         /* 2 or 11 */
	unsigned min_challenges; /* 2, 176; NI 26, 2253 */
	unsigned partitions;     /* 1, 10; NI 13, 126 */
	unsigned challenges;     /* per partition: ceil(min / partitions), 2 or 18 */
} zkp_porep_proof;

/* The 20 registered seal proofs, in id order (table[i].id == i). */
const zkp_porep_proof *zkp_porep_proofs(size_t *count);
/* By serde name (exact, case-sensitive). ZKP_ERR_NOT_FOUND naming it. */
int zkp_porep_proof_lookup(const zkp_porep_proof **ret, const char *name, zkp_error *err);
/* By registered proof id. ZKP_ERR_NOT_FOUND for ids past 19. */
int zkp_porep_proof_from_id(const zkp_porep_proof **ret, uint64_t id, zkp_error *err);
/* porep_id: bytes 0-7 the id (u64 LE), 8-15 the nonce 0 (u64 LE), rest 0. */
void zkp_porep_id(uint8_t out[32], const zkp_porep_proof *p);
/* "V1_0", "V1_1", "V1_2"; "interactive", "synthetic", "non-interactive". */
const char *zkp_porep_api_name(zkp_porep_api api);
const char *zkp_porep_mode_name(zkp_porep_mode mode);

/* ---- the graph ---- */

typedef struct {
	uint64_t nodes;
	zkp_porep_api api;
	uint8_t drg_seed[28];     /* SHA-256("Filecoin_DRSample" || porep_id)[0..28) */
	uint64_t feistel_keys[4]; /* SHA-256("Filecoin_Feistel" || porep_id) as 4 u64 LE */
	unsigned half_bits;       /* Feistel halves: 4^half_bits >= 8 * nodes */
	uint32_t *round_table;    /* NULL, or 3 << half_bits round-function values */
} zkp_porep_graph;

/* Derives the seeds; allocates nothing (two SHA-256). ZKP_ERR_RANGE for
 * nodes outside [2, 2^32 - 1]; ZKP_ERR_INVAL for an unknown api. */
int zkp_porep_graph_init(zkp_porep_graph *g, uint64_t nodes, const uint8_t porep_id[32],
			 zkp_porep_api api, zkp_error *err);
/* The graph of a registered proof (its nodes, porep_id and api). */
int zkp_porep_graph_init_proof(zkp_porep_graph *g, const zkp_porep_proof *p, zkp_error *err);
/* Tabulates the Feistel round function for all 2^half_bits right halves
 * and the three keys: 3 << half_bits BLAKE2b-512 calls and as many u32
 * (1.5 MiB and about 0.1 s for 32 GiB, 24 KiB for 8 MiB). Worth it before
 * computing the parents of a whole sector; a verifier asking for a few
 * hundred nodes should skip it. Not thread-safe against readers of g;
 * afterwards g is read-only again. ZKP_ERR_NOMEM. */
int zkp_porep_graph_precompute(zkp_porep_graph *g, zkp_error *err);
/* Frees the table; g may be zeroed or never precomputed. */
void zkp_porep_graph_release(zkp_porep_graph *g);

/* DRG parents of node (BucketGraph::parents, degree 6): nodes 0 and 1 have
 * six zeros; otherwise five bucket-sampled parents from a ChaCha8Rng seeded
 * with drg_seed || node (u32 LE), and the predecessor node - 1 in slot 0
 * (V1_1, V1_2) or slot 5 (V1_0). Every parent is below node (for node >= 2).
 * Cost: two ChaCha8 blocks. ZKP_ERR_RANGE for node >= g->nodes. */
int zkp_porep_drg_parents(const zkp_porep_graph *g, uint64_t node,
			  uint32_t out[ZKP_POREP_DRG_PARENTS], zkp_error *err);
/* Expander parents (StackedGraph::correspondent, degree 8): parent i is
 * permute(8 * node + i) / 8, the permutation a 3-round Feistel network on
 * 2 * half_bits bits, cycle-walked into [0, 8 * nodes). All below nodes.
 * Cost: 8 permutations of 3 rounds, each 4^half_bits / (8 nodes) walks on
 * average (2 for 2 KiB to 32 GiB, 1 for 64 GiB); a round is one
 * BLAKE2b-512 compression or, after precompute, a table read (an 8 MiB
 * sector's 2^18 nodes take about 0.1 s on one core with the table).
 * ZKP_ERR_RANGE for node >= g->nodes. */
int zkp_porep_exp_parents(const zkp_porep_graph *g, uint64_t node,
			  uint32_t out[ZKP_POREP_EXP_PARENTS], zkp_error *err);
/* All 14 (6 DRG then 8 expander) for count nodes from first, into
 * out[14 * count]: the layout of rust-fil-proofs' parent cache file (written
 * as u32 LE). ZKP_ERR_RANGE unless first + count <= g->nodes. */
int zkp_porep_parents_range(const zkp_porep_graph *g, uint64_t first, uint64_t count,
			    uint32_t *out, zkp_error *err);
/* The same for one node as a porep_seal.h zkp_porep_parents_fn: ctx is a
 * const zkp_porep_graph *. The caller guarantees node < nodes (a node past
 * the end is a programmer error: it prints and aborts). */
void zkp_porep_graph_parents_fn(void *ctx, uint64_t node, uint32_t out[ZKP_POREP_PARENTS]);

/* The Feistel permutation of crypto/feistel.rs on [0, num_elements) with
 * the first three keys (feistel::permute with feistel::precompute). index
 * must be below num_elements and num_elements at most 2^62; outside that it
 * returns index unchanged. For tests and tools; the graph uses its own
 * precomputed halves. */
uint64_t zkp_porep_feistel_permute(uint64_t num_elements, uint64_t index,
				   const uint64_t keys[3]);

/* ---- challenges (stacked/vanilla/challenges.rs) ---- */

/*
 * The challenged nodes of partition k, per_partition of them, into
 * out[per_partition]. With j = per_partition * k + i (u32 LE) and X a
 * 256-bit little-endian integer, challenge i is X mod (nodes - 1) + 1 where
 *   interactive:     X = SHA-256(replica_id || seed || j);
 *   non-interactive: X = SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ||
 *                        replica_id || comm_r || j);
 *   synthetic:       X = synthetic challenge s (zkp_porep_synth_challenge)
 *                        with s = the j-th index (zkp_porep_synth_indexes),
 *                        num_synth = min(nodes, 2^18).
 * seed is read by interactive and synthetic, comm_r by synthetic and
 * non-interactive; the other may be NULL. Rust passes k as u8.
 * Errors: ZKP_ERR_RANGE for nodes outside [2, 2^32 - 1], k > 255,
 * per_partition 0 or j past u32; ZKP_ERR_INVAL for a missing input or an
 * unknown mode. Cost: per_partition SHA-256 (synthetic: two keyed BLAKE2b
 * and per_partition ChaCha20 blocks plus one per 16 indexes).
 */
int zkp_porep_challenges(uint64_t *out, zkp_porep_mode mode, uint64_t nodes,
			 unsigned per_partition, unsigned k, const uint8_t replica_id[32],
			 const uint8_t seed[32], const uint8_t comm_r[32], zkp_error *err);

/* Synthetic PoRep's generator (challenges.rs SynthChallengeGenerator). */
typedef struct {
	uint64_t nodes;
	uint64_t num_synth;
	uint8_t replica_id[32];
	uint8_t key[32]; /* BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation"
			  * over replica_id || comm_r */
} zkp_porep_synth;

/* num_synth 0 means the default min(nodes, 2^18). ZKP_ERR_RANGE for nodes
 * outside [2, 2^32 - 1] or num_synth above 2^27 (the keystream offset is
 * a u32 byte count in Rust). Cost: one keyed BLAKE2b. */
int zkp_porep_synth_init(zkp_porep_synth *s, uint64_t nodes, uint64_t num_synth,
			 const uint8_t replica_id[32], const uint8_t comm_r[32], zkp_error *err);
/* Synthetic challenge i < num_synth: keystream bytes [32 i, 32 i + 32) of
 * ChaCha20 (RFC 8439: 32-bit block counter from 0, nonce "synth-porep\0")
 * under key, as a 256-bit LE X, mapped to X mod (nodes - 1) + 1. Cost: one
 * ChaCha20 block. i >= num_synth returns 0, which is never a challenge. */
uint64_t zkp_porep_synth_challenge(const zkp_porep_synth *s, uint64_t i);
/* The synthetic indexes that partition k selects, into out[per_partition]:
 * u32 LE words at byte 4 (per_partition * k + c) of ChaCha20 under
 * BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Selection" over
 * replica_id || seed, same nonce, each mod num_synth. ZKP_ERR_RANGE when
 * the offset passes u32 or per_partition is 0. */
int zkp_porep_synth_indexes(uint64_t *out, const zkp_porep_synth *s, const uint8_t seed[32],
			    unsigned per_partition, unsigned k, zkp_error *err);

/* ---- replica_id (stacked/vanilla/params.rs generate_replica_id) ---- */

/* SHA-256(prover_id || sector_id u64 BIG-endian || ticket || comm_d ||
 * porep_id) with out[31] &= 0x3f (bytes_into_fr_repr_safe). One SHA-256.
 * ZKP_ERR_UNSUPPORTED only if OpenSSL fails. */
int zkp_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
			 const uint8_t ticket[32], const uint8_t comm_d[32],
			 const uint8_t porep_id[32], zkp_error *err);

/* ---- primitives, exposed for tests ---- */

/* One ChaCha block with `rounds` rounds (8, 12, 20): the 16-word state
 * "expand 32-byte k", key (8 words LE), then words 12-15 as given, and the
 * 64 output bytes (state + input, LE). RFC 8439 puts the block counter in
 * word 12 and the nonce in 13-15; rand_chacha puts a 64-bit block counter
 * in 12-13 (low first) and its stream in 14-15 (0 for from_seed). */
void zkp_porep_chacha_block(uint8_t out[64], const uint8_t key[32], const uint32_t w12_15[4],
			    unsigned rounds);
/* BLAKE2b with an outlen-byte digest (1..64) and an optional key (keylen
 * 0..64, key may be NULL when 0), over len bytes (RFC 7693). */
void zkp_porep_blake2b(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen,
		       const void *data, size_t len);

#endif
