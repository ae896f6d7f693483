/*
 * post_c2: proving one PoSt partition (a WindowPoSt partition or a
 * WinningPoSt proof) from the vanilla proofs Filecoin hands the prover,
 * with the checks a verifier would make first.
 *
 * Input: a "PoSt bundle", the form zkpd queues and journals a PoSt job in:
 * the registered PoSt proof (u64 LE, go-state-types' number), the 32-byte
 * challenge randomness, the partition index (u32 LE), the sector count
 * (u32 LE), then per sector its FallbackPoStSectorProof's length (u64 LE)
 * and bincode bytes (post_vanilla.h). Every sector's proof is decoded
 * against the size's tree R and checked natively (comm_r from comm_c and
 * comm_r_last, every path). The sectors are then put in ascending sector
 * id, whatever order the bundle gives them in: rust-fil-proofs takes a
 * partition's sectors from an ordered map, and the chain verifies in that
 * order (two sectors with one id are refused). Each sector's challenged
 * leaves are compared with those derived from the randomness, the sector
 * id and its position in that order in the whole proof (partition *
 * sectors per partition + i). A partition
 * with fewer sectors than the shape holds is padded with copies of its
 * last sector, as rust-fil-proofs pads it. The public inputs come from
 * the decoded comm_r values and the derived challenges.
 *
 * Threads: a decoded partition is immutable and may be read by any number
 * of threads.
 */
#ifndef ZKPD_POST_C2_H
#define ZKPD_POST_C2_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/post.h"
#include "zkpd/post_vanilla.h"

#define ZKP_POST_BUNDLE_MAX_SECTORS 2349 /* the largest WindowPoSt partition */

typedef struct {
	zkp_post_proof_type type;
	zkp_post_shape shape;   /* the published shape of type's kind and size */
	uint8_t randomness[32];
	unsigned partition;
	unsigned n;             /* sectors given, 1 .. shape.sectors */
	zkp_post_vanilla *vanilla;  /* n decoded proofs in ascending sector id, owned */
	zkp_post_sector *sectors;   /* shape.sectors: the given ones, then padding */
	uint64_t *nodes;            /* shape.sectors * challenges derived leaves */
} zkp_post_partition;

/* ZKP_ERR_NOMEM. */
int zkp_post_bundle_encode(uint8_t **out, size_t *len, uint64_t registered_proof,
			   const uint8_t randomness[32], unsigned partition,
			   const uint8_t *const *proofs, const size_t *lens, unsigned n, zkp_error *err);
/*
 * Decodes and checks a bundle. kind and sector_bytes are the circuit's:
 * a proof type of another kind or size is ZKP_ERR_MISMATCH. Errors name
 * the sector (its index and id) and, from the decoder, the byte offset and
 * serde path: ZKP_ERR_FORMAT (the bundle's own layout: truncated, trailing
 * bytes, no sectors or more than the shape holds), ZKP_ERR_INVAL (an
 * unknown proof type; two sectors with one id, both named), the decoder's and checks' errors
 * (post_vanilla.h), ZKP_ERR_NOMEM. On failure *ret is zeroed.
 */
int zkp_post_partition_from_bundle(zkp_post_partition *ret, enum zkp_post_kind kind,
				   uint64_t sector_bytes, const uint8_t *b, size_t len,
				   zkp_error *err);
void zkp_post_partition_release(zkp_post_partition *p);

/* The public inputs after ONE (zkp_post_inputs(shape) - 1 values).
 * Errors: ZKP_ERR_NOMEM (out is then unset). */
int zkp_post_partition_public_inputs(zkp_fr *out, const zkp_post_partition *p, zkp_error *err);
/* The witness (inputs + aux values), its public inputs compared with the
 * derived ones (ZKP_ERR_MISMATCH naming the first that differs). */
int zkp_post_partition_witness(zkp_fr *w, uint64_t inputs, uint64_t aux,
			       const zkp_post_partition *p, zkp_error *err);

#endif
