/*
 * post_vanilla: the vanilla proof of one sector that Filecoin hands a PoSt
 * prover, read from its bincode bytes into the circuit's witness types
 * (post.h), checked natively, and the PoSt challenge derivation it must
 * agree with. docs/formats.md, "PoSt vanilla proofs", gives the layout.
 *
 * The bytes are rust-fil-proofs' FallbackPoStSectorProof (filecoin-proofs
 * types/mod.rs) as bincode 1 writes it: sector_id, comm_r, then a
 * fallback::Proof (storage-proofs-post fallback/vanilla.rs) whose one
 * SectorProof holds per challenge a MerkleProof of tree R
 * (storage-proofs-core merkle/proof.rs), then comm_c and comm_r_last.
 * WindowPoSt hands one per challenged sector (10 challenges), WinningPoSt
 * one (66 challenges).
 *
 * Invariants of a decoded zkp_post_vanilla:
 *  - every 32-byte value is a canonical BLS12-381 scalar, held in
 *    Montgomery form as everywhere in ff.h;
 *  - every path has the tree shape it was decoded against: base_levels
 *    levels of arity[0], then one of arity[1] and one of arity[2] where
 *    those are non-zero; the proof variant (Single, Sub, Top) is the one
 *    that shape takes; every position is below its level's arity;
 *  - ch[i].node is the leaf index the path's positions spell (level 0 the
 *    least significant digit), ch[i].path stores them as zkp_path does
 *    (gadgets.h): per level the position, and the arity - 1 siblings in
 *    order, level after level;
 *  - every inclusion proof's root equals comm_r_last.
 * Not checked by decoding: the hashes (zkp_post_vanilla_check) and the
 * challenged leaves (zkp_post_vanilla_check_challenges).
 *
 * No function here keeps state; all are safe on any thread.
 */
#ifndef ZKPD_POST_VANILLA_H
#define ZKPD_POST_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/gadgets.h"
#include "zkpd/post.h"

/* The most inclusion proofs one sector's proof may hold: WinningPoSt's 66,
 * the largest challenge count Filecoin uses. */
#define ZKP_POST_VANILLA_MAX_CHALLENGES 66

typedef struct {
	/* sector_id, comm_r, comm_c, comm_r_last; sector.challenges == ch. */
	zkp_post_sector sector;
	zkp_post_challenge *ch; /* challenges entries, owned */
	unsigned challenges;
	zkp_tree_shape tree; /* the shape the paths were read against */
} zkp_post_vanilla;

/*
 * Decodes buf[0..len), which must hold exactly one FallbackPoStSectorProof
 * whose vanilla_proof has exactly one sector (as rust-fil-proofs writes
 * them), its paths in tree t (Poseidon, passing zkp_tree_shape_check).
 * On success *ret owns an array of `challenges` entries (3.1 KiB each); on
 * failure *ret is zeroed. Every message names the byte offset and the
 * field, as the serde path of the value ("vanilla_proof.sectors[0]
 * .inclusion_proofs[3].data.Sub.base_proof.path[2].hashes[4]"):
 *   ZKP_ERR_TRUNCATED     the bytes end before the proof does (the message
 *                         names the value they cut)
 *   ZKP_ERR_FORMAT        a variant tag other than 0 (Single), 1 (Sub),
 *                         2 (Top), or not the one t takes; a sectors count
 *                         other than 1; no inclusion proofs or more than
 *                         ZKP_POST_VANILLA_MAX_CHALLENGES; a path whose
 *                         element count is not the level count, an element
 *                         with other than arity - 1 hashes or a position
 *                         not below the arity; bytes after the proof
 *   ZKP_ERR_NOT_CANONICAL a 32-byte value that is not below r
 *   ZKP_ERR_MISMATCH      an inclusion proof's root other than comm_r_last
 *   ZKP_ERR_INVAL         t is not a Poseidon tree, fails its check or
 *                         has more than 2^63 leaves
 *   ZKP_ERR_NOMEM
 * Cost: one pass with no hashing, dominated by the 723 field element
 * conversions; the 24,960-byte proof of one 32 GiB WindowPoSt sector takes
 * 45-60 us on the development machine.
 */
int zkp_post_vanilla_decode(zkp_post_vanilla *ret, const uint8_t *buf, size_t len,
			    const zkp_tree_shape *t, zkp_error *err);
/* Frees what decode allocated and zeroes v; a zeroed v is fine. */
void zkp_post_vanilla_release(zkp_post_vanilla *v);

/* The inverse of decode, for development proofs: s's FallbackPoStSectorProof
 * with its `challenges` inclusion proofs in tree t (their paths' positions
 * as zkp_path holds them), each with root comm_r_last. *out is malloc'ed.
 * ZKP_ERR_NOMEM. */
int zkp_post_vanilla_encode(uint8_t **out, size_t *len, const zkp_post_sector *s,
			    unsigned challenges, const zkp_tree_shape *t, zkp_error *err);

/*
 * Recomputes natively what the circuit proves of one sector: comm_r =
 * Poseidon-2(comm_c, comm_r_last), and for each of the `challenges`
 * challenges the root from the leaf up through its path (Poseidon of each
 * level's arity, neptune's MerkleTree domain tag), which must be
 * comm_r_last, with ch[i].node the index the positions spell. Errors name
 * the sector id, the challenge and the level (for a wrong root, the top
 * one: no level below it carries a value to compare with):
 *   ZKP_ERR_INVAL     t not a checked Poseidon tree, or a position not
 *                     below its level's arity
 *   ZKP_ERR_MISMATCH  comm_r, a root or a node that does not agree
 *   ZKP_ERR_NOMEM     the Poseidon constants could not be built
 * Cost: one Poseidon per level per challenge, 46-60 us each for arity 8:
 * about 6 ms for the 10 challenges x 10 levels of a 32 GiB WindowPoSt
 * sector (the first call of a process adds ~13 ms building constants).
 */
int zkp_post_vanilla_check(const zkp_post_sector *s, unsigned challenges, const zkp_tree_shape *t,
			   zkp_error *err);

/* ---- challenges (storage-proofs-post fallback/vanilla.rs, utils.rs) ---- */

/*
 * Which challenge index a PoSt proof version hashes for challenge n of the
 * sector_index-th sector of the whole proof (fallback/utils.rs
 * get_challenge_index). V1 is ApiVersion 1.0.0 and 1.1.0: every WinningPoSt
 * proof and WindowPoSt "...V1"; V1_2 is ApiVersion 1.2.0: the WindowPoSt
 * "grindability fix", which Rust names "...V1_2" and go-state-types
 * "...V1_1". Only the challenge derivation differs; the circuit is the same.
 */
enum zkp_post_version { ZKP_POST_V1, ZKP_POST_V1_2 };

typedef struct {
	enum zkp_post_kind kind;
	enum zkp_post_version version;
	uint64_t sector_bytes;
	const char *name; /* go-state-types' name, "StackedDrgWindow32GiBV1" */
} zkp_post_proof_type;

/* go-state-types' RegisteredPoStProof numbers: 0-4 Winning V1, 5-9 Window
 * V1, 10-14 Window V1_1 (Rust's V1_2), each for 2 KiB, 8 MiB, 512 MiB,
 * 32 GiB, 64 GiB. ZKP_ERR_INVAL naming the number otherwise. */
int zkp_post_proof_type_from_id(zkp_post_proof_type *ret, int64_t id, zkp_error *err);

/* V1: sector_index * challenges + n; V1_2: n. */
uint64_t zkp_post_challenge_index(enum zkp_post_version v, uint64_t sector_index,
				  unsigned challenges, unsigned n);

/*
 * *ret = the challenged leaf (fallback/vanilla.rs generate_leaf_challenge):
 * the first 8 bytes of SHA-256(randomness || sector_id as u64 LE ||
 * challenge_index as u64 LE), read as a little-endian u64, modulo nodes
 * (the sector's 32-byte nodes). randomness is hashed as given; the API
 * refuses randomness that is not a canonical field element before it gets
 * here (zkp_post_vanilla_check_challenges does too). ZKP_ERR_INVAL for
 * nodes = 0, ZKP_ERR_UNSUPPORTED if OpenSSL cannot hash. One SHA-256 of
 * 48 bytes: about a microsecond.
 */
int zkp_post_leaf_challenge(uint64_t *ret, const uint8_t randomness[32], uint64_t sector_id,
			    uint64_t challenge_index, uint64_t nodes, zkp_error *err);

/*
 * Checks that challenge n of s opens the leaf derived for it: the sector is
 * the sector_index-th of the whole PoSt (its position across partitions;
 * 0 for WinningPoSt), nodes = sector bytes / 32.
 *   ZKP_ERR_NOT_CANONICAL  randomness is not a canonical field element
 *   ZKP_ERR_MISMATCH       a challenge opens another leaf (the message
 *                          names it, the derived leaf and the index hashed)
 *   and zkp_post_leaf_challenge's errors.
 */
int zkp_post_vanilla_check_challenges(const zkp_post_sector *s, unsigned challenges,
				      enum zkp_post_version v, const uint8_t randomness[32],
				      uint64_t sector_index, uint64_t nodes, zkp_error *err);

#endif
