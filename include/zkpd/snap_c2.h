/*
 * snap_c2: proving a SnapDeals update from the vanilla proofs Filecoin
 * hands the prover (one PartitionProof per partition, snap_vanilla.h) and
 * the update's public commitments, with the self-check a verifier
 * (filecoin-proofs verify_empty_sector_update_proof) would make before a
 * proof is returned.
 *
 * The public inputs come from the commitments alone (k, h, comm_r_old,
 * comm_d_new, comm_r_new); every partition's vanilla proof is checked
 * natively against them (zkp_snap_vanilla_check) before its witness is
 * computed, the witness's public inputs must equal the derived ones, and
 * the proof must verify with them.
 *
 * Threads: an update is immutable once decoded and may be read by any
 * number of threads; proving uses the pool and backend it is given, one
 * call at a time per backend (groth16_prove.h).
 */
#ifndef ZKPD_SNAP_C2_H
#define ZKPD_SNAP_C2_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/snap.h"
#include "zkpd/snap_vanilla.h"

typedef struct {
	zkp_snap_shape shape;
	unsigned h;                    /* the size's default, hs[3] */
	zkp_fr comm_r_old, comm_d_new, comm_r_new;
	unsigned partitions;           /* shape.partitions */
	zkp_snap_vanilla *parts;       /* partitions entries, owned */
} zkp_snap_update;

/*
 * Decodes and checks an update of shape s: the three commitments as
 * 32-byte little-endian values (as Filecoin passes them) and one
 * PartitionProof per partition, in order. Errors name the partition:
 *   ZKP_ERR_INVAL         a partition count other than the shape's
 *   ZKP_ERR_NOT_CANONICAL a commitment that is not a field element (named)
 *   the decoder's and the native check's errors (snap_vanilla.h)
 *   ZKP_ERR_NOMEM
 * On failure *ret is zeroed.
 */
int zkp_snap_update_decode(zkp_snap_update *ret, const zkp_snap_shape *s,
			   const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
			   const uint8_t comm_r_new[32], const uint8_t *const *proofs,
			   const size_t *lens, unsigned n, zkp_error *err);
void zkp_snap_update_release(zkp_snap_update *u);

/*
 * An update as one byte string (how zkpd queues and journals a SnapDeals
 * job): comm_r_old, comm_d_new, comm_r_new (32 bytes each, as Filecoin
 * passes them), the partition count (u32 LE), then per partition its
 * PartitionProof's length (u64 LE) and bytes. encode: ZKP_ERR_NOMEM.
 * decode: the bundle read (ZKP_ERR_FORMAT naming the byte offset and what
 * is wrong: truncated, trailing bytes, more partitions than 16) and then
 * zkp_snap_update_decode.
 */
int zkp_snap_bundle_encode(uint8_t **out, size_t *len, const uint8_t comm_r_old[32],
			   const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
			   const uint8_t *const *proofs, const size_t *lens, unsigned n,
			   zkp_error *err);
int zkp_snap_update_from_bundle(zkp_snap_update *ret, const zkp_snap_shape *s, const uint8_t *b,
				size_t len, zkp_error *err);

/* Partition k's 4 public inputs after ONE. */
int zkp_snap_update_public_inputs(zkp_fr out[4], const zkp_snap_update *u, unsigned k,
				  zkp_error *err);

/* Partition k's witness (the circuit's counts: inputs + aux values) into
 * w, its public inputs compared with the derived ones. ZKP_ERR_MISMATCH
 * names the input that differs; the witness pass's errors. */
int zkp_snap_update_witness(zkp_fr *w, uint64_t inputs, uint64_t aux, const zkp_snap_update *u,
			    unsigned k, zkp_error *err);

/* What proving partitions needs, loaded once (groth16_prove.h). */
typedef zkp_groth16_prover zkp_snap_prover;

/* Proves partition k and verifies the proof with the derived inputs.
 * ZKP_ERR_MISMATCH (a circuit with other than 5 inputs, a proof that does
 * not verify), the prover's errors. times may be NULL. */
int zkp_snap_prove_partition(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			     const zkp_snap_prover *pr, const zkp_snap_update *u, unsigned k,
			     zkp_error *err);

/* Verifies one proof per partition (in order) against inputs derived from
 * the commitments (32-byte little-endian). ZKP_ERR_MISMATCH names the
 * first partition that does not verify. */
int zkp_snap_verify(const zkp_groth16_pvk *pvk, const zkp_groth16_proof *proofs,
		    const zkp_snap_shape *s, const uint8_t comm_r_old[32],
		    const uint8_t comm_d_new[32], const uint8_t comm_r_new[32], zkp_error *err);

#endif
